/*
 * counting_bench.c
 *		Measurements of the counting Bloom filter (src/core/bf_counting.c)
 *		against its targets and against the plain bloomfilter.
 *
 * For each layout, key count n and target rate p, a counting filter is
 * sized exactly as cbloom_empty(n, p) sizes it (bf_size_for: the m and k of
 * bloom_empty), and integer keys are hashed as the SQL layer hashes them
 * (bf_hash_int64, seed 0).  Measured:
 *
 *   B/key 4, B/key 8   bytes of the whole filter (header included) per key,
 *                      4-bit and 8-bit counters;
 *   bloom B/key        the same for the bloomfilter of the same n and p;
 *   FPR                false positives over PROBES keys never added, after
 *                      the n keys were added; x target = FPR / p;
 *   FN after rm        keys of the remaining half that probe false after the
 *                      other half was removed (n/2 removes of added keys);
 *                      0 unless counters saturated;
 *   sat                counters saturated after the n adds;
 *   FPR after rm       the rate after the removes (n/2 keys remain);
 *   = bloom            whether the counting filter, cast to a bloomfilter,
 *                      is byte for byte the bloomfilter of the remaining
 *                      keys.
 *
 * Then two scenarios: one key added 20 times into 4-bit counters (its
 * counters saturate at 15 and stay), and the removal of keys that were never
 * added but probe true (false positives), which is what can cause false
 * negatives.
 *
 * Usage: counting_bench [--quick]   (--quick: n = 10k and 100k only)
 * Build and run with test/bench/counting_bench.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_counting.h"

#define PROBES UINT64_C(1000000)
#define MISS_BASE (INT64_C(1) << 40)	/* keys never added start here */

typedef struct cfilter
{
	uint8_t    *buf;
	size_t		len;
	bfc_view	v;
} cfilter;

static cfilter
cf_new(int layout, int k, uint64_t m, int width)
{
	cfilter		f;

	f.len = bfc_buffer_size(m, width);
	f.buf = malloc(f.len);
	if (f.buf == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	bfc_init(f.buf, layout, k, 0, m, width);
	bfc_view_of(f.buf, &f.v);
	f.v.family = BF_FAMILY_INTEGER;
	return f;
}

static inline uint64_t
key_hash(int64_t key)
{
	return bf_hash_int64(0, key);
}

static uint64_t
count_fp(const bfc_view *v)
{
	uint64_t	fp = 0;

	for (uint64_t i = 0; i < PROBES; i++)
		fp += bfc_contains_hash(v, key_hash(MISS_BASE + (int64_t) i));
	return fp;
}

static void
run(int layout, uint64_t n, double p)
{
	uint64_t	m;
	int			k;
	cfilter		c4,
				c8;
	uint64_t	fp,
				fn = 0,
				fp_after,
				nz,
				sat;
	bool		same;
	size_t		bloom_len;

	if (!bf_size_for(layout, (double) n, p, &m, &k))
	{
		printf("%-8s %9" PRIu64 " %7g  (too large)\n", bf_layout_name(layout), n, p);
		return;
	}
	bloom_len = bf_buffer_size(m);
	c4 = cf_new(layout, k, m, 4);
	c8 = cf_new(layout, k, m, 8);
	for (uint64_t i = 0; i < n; i++)
		bfc_add_hash(&c4.v, key_hash((int64_t) i));
	bfc_counter_stats(&c4.v, &nz, &sat);
	fp = count_fp(&c4.v);

	/* remove the odd keys; the even ones must all remain */
	for (uint64_t i = 1; i < n; i += 2)
		bfc_remove_hash(&c4.v, key_hash((int64_t) i));
	for (uint64_t i = 0; i < n; i += 2)
		fn += !bfc_contains_hash(&c4.v, key_hash((int64_t) i));
	fp_after = count_fp(&c4.v);

	/* the cast of what remains is the bloomfilter of the even keys */
	{
		uint8_t    *conv = malloc(bloom_len);
		uint8_t    *ref = malloc(bloom_len);
		bf_view		rv;

		bfc_to_bloom(&c4.v, conv);
		bf_init(ref, layout, k, 0, m);
		bf_view_of(ref, &rv);
		for (uint64_t i = 0; i < n; i += 2)
			bf_insert_hash(&rv, key_hash((int64_t) i));
		rv.family = BF_FAMILY_INTEGER;
		bf_store_header(ref, &rv);
		same = memcmp(conv, ref, bloom_len) == 0;
		free(conv);
		free(ref);
	}

	printf("%-8s %9" PRIu64 " %7g %3d %8.2f %8.2f %8.2f %10.6f %6.2f %6" PRIu64 " %5" PRIu64 " %12.6f %7s\n",
		   bf_layout_name(layout), n, p, k,
		   (double) c4.len / (double) n, (double) c8.len / (double) n,
		   (double) bloom_len / (double) n,
		   (double) fp / (double) PROBES, (double) fp / (double) PROBES / p,
		   fn, sat, (double) fp_after / (double) PROBES, same ? "yes" : "NO");
	free(c4.buf);
	free(c8.buf);
}

/* One key added 20 times into 4-bit counters, then removed 20 times. */
static void
saturation_scenario(void)
{
	uint64_t	m;
	int			k;
	cfilter		c;
	uint64_t	h = key_hash(12345);
	uint64_t	nz,
				sat;

	bf_size_for(BF_LAYOUT_BLOCKED, 1000, 0.01, &m, &k);
	c = cf_new(BF_LAYOUT_BLOCKED, k, m, 4);
	printf("\n== saturation: key 12345 added 20 times, 4-bit counters (n = 1000, p = 0.01, k = %d)\n", k);
	for (int i = 1; i <= 20; i++)
	{
		bfc_add_hash(&c.v, h);
		if (i == 14 || i == 15 || i == 16 || i == 20)
		{
			bfc_counter_stats(&c.v, &nz, &sat);
			printf("after %2d adds:    count %2u, saturated counters %" PRIu64 "\n",
				   i, bfc_count_hash(&c.v, h), sat);
		}
	}
	for (int i = 1; i <= 20; i++)
	{
		bfc_remove_hash(&c.v, h);
		if (i == 1 || i == 20)
			printf("after %2d removes: count %2u, contains %s, items %" PRIu64 "\n",
				   i, bfc_count_hash(&c.v, h), bfc_contains_hash(&c.v, h) ? "true" : "false",
				   c.v.items);
	}
	printf("(saturated counters never come down: the key can no longer be removed;\n"
		   " a stuck key is a false positive, never a false negative)\n");
	free(c.buf);
}

/*
 * Removing keys that were never added but probe true takes counts from
 * keys that were added: the one way to get false negatives.
 */
static void
false_positive_remove_scenario(void)
{
	const uint64_t n = 100000;
	uint64_t	m;
	int			k;
	cfilter		c;
	uint64_t	removed = 0,
				fn = 0;

	bf_size_for(BF_LAYOUT_BLOCKED, (double) n, 0.01, &m, &k);
	c = cf_new(BF_LAYOUT_BLOCKED, k, m, 4);
	for (uint64_t i = 0; i < n; i++)
		bfc_add_hash(&c.v, key_hash((int64_t) i));
	for (uint64_t i = 0; i < PROBES; i++)
		removed += bfc_remove_hash(&c.v, key_hash(MISS_BASE + (int64_t) i));
	for (uint64_t i = 0; i < n; i++)
		fn += !bfc_contains_hash(&c.v, key_hash((int64_t) i));
	printf("\n== removing keys never added (n = %" PRIu64 ", p = 0.01, blocked, 4-bit)\n", n);
	printf("%" PRIu64 " removes of %" PRIu64 " never-added keys went through (false positives);\n"
		   "%" PRIu64 " of the %" PRIu64 " added keys now probe false\n",
		   removed, PROBES, fn, n);
	free(c.buf);
}

int
main(int argc, char **argv)
{
	static const uint64_t ns[] = {10000, 100000, 1000000};
	static const double ps[] = {0.01, 0.001};
	int			nn = (argc > 1 && strcmp(argv[1], "--quick") == 0) ? 2 : 3;

	printf("%-8s %9s %7s %3s %8s %8s %8s %10s %6s %6s %5s %12s %7s\n",
		   "layout", "n", "target", "k", "B/key 4", "B/key 8", "bloom", "FPR",
		   "x tgt", "FN rm", "sat", "FPR after rm", "= bloom");
	for (int li = BF_LAYOUT_CLASSIC; li <= BF_LAYOUT_BLOCKED; li++)
		for (int ni = 0; ni < nn; ni++)
			for (int pi = 0; pi < 2; pi++)
				run(li, ns[ni], ps[pi]);
	printf("(FPR over %" PRIu64 " keys never added; FN rm: false negatives among the n/2 kept keys\n"
		   " after removing the other n/2; = bloom: the cast of what remains equals the\n"
		   " bloomfilter built from the kept keys alone)\n", PROBES);
	saturation_scenario();
	false_positive_remove_scenario();
	return 0;
}
