/*
 * core_bench.c
 *		Benchmark of the pure C core (src/core) against Debian's libbloom.
 *
 * For each key count N and target rate p, these filters are built at the
 * same N and p:
 *
 *   bf classic   bf_size_for(BF_LAYOUT_CLASSIC), keys hashed with
 *                bf_hash_int64 then bf_insert_hash / bf_probe_hash (what the
 *                SQL layer does for integers);
 *   bf blocked   the same with BF_LAYOUT_BLOCKED;
 *   libbloom     bloom_init(&b, N, p), keys passed as 8-byte buffers
 *                (Debian's libbloom 1.6 has bloom_init, not bloom_init2;
 *                its bits/key is the struct's bytes * 8 / N).
 *
 * The blocked filter is measured twice: with its bit array 64-byte aligned
 * (every block one cache line, the design intent) and with the bit array
 * at 56 mod 64, where it lands when the filter buffer sits behind a 4-byte
 * varlena header at a cache-line-aligned address (then every block
 * straddles two cache lines).  The format only promises 8-byte alignment
 * of the bit array, so inside PostgreSQL either can happen.  Where the CPU
 * has AVX2, the batch probes use it (src/core/bf_simd.c); "bf blocked
 * -simd" is the aligned filter again with the scalar batch loop, the
 * baseline for that.
 *
 * Measured, each as the best (minimum) of REPS runs:
 *   insert   ns per key, N keys into an empty filter;
 *   hit      ns per probe of the N members;
 *   miss     ns per probe of 2M non-members (member keys offset by 2^40);
 *   hit/dep, miss/dep
 *            the same probes, but each key depends on the previous probe's
 *            answer, so probes cannot overlap: this is the latency a
 *            one-row-at-a-time executor sees (the other columns are
 *            throughput, where the CPU overlaps many probes' cache misses);
 *   FPR      false positives over the 2M non-member probes;
 *   ins/b, hit/b, miss/b
 *            ours only: the same keys hashed into a buffer of BATCH keys
 *            at a time, then given to bf_insert_batch / bf_probe_batch
 *            (prefetching ahead, one dispatch on layout and k per batch),
 *            the way a call over an array of keys works.  Hashing is
 *            included, as in the scalar columns.  libbloom has no batch
 *            API, so its rows have no batch figures, and the ratios are
 *            given twice: our scalar, and our batch, against libbloom's
 *            scalar.
 *
 * Usage: core_bench [--quick] [-n N] [-p P] [-r REPS]
 *   --quick  N = 1M and p = 1% only
 *   -n N     this key count only (default 1M and 10M; at most 1e8, as
 *            libbloom counts bits in an int)
 *   -p P     this target rate only (default 0.01 and 0.001)
 *   -r REPS  repetitions, the best kept (default 3)
 * Build and run with test/bench/core_bench.sh.
 */
#define _POSIX_C_SOURCE 200809L

#include <bloom.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf_core.h"

#define DEFAULT_REPS 3
#define MISS_PROBES UINT64_C(2000000)	/* non-member probes (FPR, miss) */
#define MAX_DEP_PROBES UINT64_C(1000000)
#define BENCH_SEED UINT64_C(0x5eedf00dcafe1234)
#define BATCH 1024				/* keys per bf_*_batch call */

/* keys: a scrambled sequence (odd multiplier: a bijection of 2^64) */
#define KEY_MULT UINT64_C(0x9e3779b97f4a7c15)
#define MISS_OFFSET (UINT64_C(1) << 40)

static int	reps = DEFAULT_REPS;	/* -r */

static inline int64_t
member_key(uint64_t i)
{
	return (int64_t) (i * KEY_MULT);
}

static inline int64_t
miss_key(uint64_t i)
{
	return (int64_t) ((i + MISS_OFFSET) * KEY_MULT);
}

/*
 * Always zero, but the compiler cannot know: ANDed with the previous
 * probe's answer and XORed into the next key, it makes each probe wait for
 * the one before without changing which keys are probed.
 */
static volatile uint64_t dep_zero_v = 0;

/* results not otherwise checked end here, so no probe can be dropped */
static volatile uint64_t sink;

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* ---- bloomfilter core ---- */

typedef struct ours
{
	uint8_t    *alloc;			/* what to free */
	uint8_t    *buf;			/* the filter buffer (header + bits) */
	size_t		len;
	bf_view		v;
} ours;

/* bits_misalign: where the bit array starts, mod 64 */
static int
ours_make(ours *o, int layout, double n, double p, unsigned bits_misalign)
{
	uint64_t	nbits;
	int			k;
	size_t		off;

	if (!bf_size_for(layout, n, p, &nbits, &k) ||
		bf_check_geometry(layout, k, nbits) != BF_OK)
		return -1;
	o->len = bf_buffer_size(nbits);
	/* buffer at off so that buf + BF_HEADER_SIZE is bits_misalign mod 64 */
	off = (size_t) ((64 + bits_misalign - BF_HEADER_SIZE % 64) % 64);
	o->alloc = aligned_alloc(64, ((o->len + off + 63) / 64) * 64);
	if (o->alloc == NULL)
		return -1;
	o->buf = o->alloc + off;
	bf_init(o->buf, layout, k, BENCH_SEED, nbits);
	bf_view_of(o->buf, &o->v);
	return 0;
}

static void
ours_clear(ours *o)
{
	memset(o->v.bits, 0, (size_t) (o->v.nbits / 8));
	o->v.added = 0;
}

/*
 * The loops take the view by value into a local, as the SQL functions
 * will (a view decoded per call): its fields then stay in registers.
 * noinline keeps each loop a separate symbol for perf and objdump.
 */
__attribute__((noinline)) static void
ours_insert(bf_view *vp, uint64_t n)
{
	bf_view		v = *vp;

	for (uint64_t i = 0; i < n; i++)
		bf_insert_hash(&v, bf_hash_int64(v.seed, member_key(i)));
	vp->added = v.added;
}

__attribute__((noinline)) static uint64_t
ours_probe_hits(const bf_view *vp, uint64_t n)
{
	bf_view		v = *vp;
	uint64_t	sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum += bf_probe_hash(&v, bf_hash_int64(v.seed, member_key(i)));
	return sum;
}

__attribute__((noinline)) static uint64_t
ours_probe_misses(const bf_view *vp, uint64_t n)
{
	bf_view		v = *vp;
	uint64_t	sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum += bf_probe_hash(&v, bf_hash_int64(v.seed, miss_key(i)));
	return sum;
}

__attribute__((noinline)) static uint64_t
ours_probe_dep(const bf_view *vp, uint64_t n, int misses)
{
	bf_view		v = *vp;
	uint64_t	zero = dep_zero_v;
	uint64_t	sum = 0;
	uint64_t	prev = 0;

	for (uint64_t i = 0; i < n; i++)
	{
		int64_t		key = (misses ? miss_key(i) : member_key(i)) ^ (int64_t) (prev & zero);

		prev = bf_probe_hash(&v, bf_hash_int64(v.seed, key));
		sum += prev;
	}
	return sum;
}

/* Hashes keys [i, i + n) into h, as the scalar loops do key by key. */
static inline void
hash_keys(uint64_t seed, uint64_t i, size_t n, int misses, uint64_t *h)
{
	for (size_t j = 0; j < n; j++)
		h[j] = bf_hash_int64(seed, misses ? miss_key(i + j) : member_key(i + j));
}

__attribute__((noinline)) static void
ours_insert_batch(bf_view *vp, uint64_t n)
{
	bf_view		v = *vp;
	uint64_t	h[BATCH];

	for (uint64_t i = 0; i < n; i += BATCH)
	{
		size_t		len = n - i < BATCH ? (size_t) (n - i) : BATCH;

		hash_keys(v.seed, i, len, 0, h);
		bf_insert_batch(&v, h, len);
	}
	vp->added = v.added;
}

__attribute__((noinline)) static uint64_t
ours_probe_batch(const bf_view *vp, uint64_t n, int misses)
{
	bf_view		v = *vp;
	uint64_t	h[BATCH];
	uint8_t		out[BATCH];
	uint64_t	sum = 0;

	for (uint64_t i = 0; i < n; i += BATCH)
	{
		size_t		len = n - i < BATCH ? (size_t) (n - i) : BATCH;

		hash_keys(v.seed, i, len, misses, h);
		sum += bf_probe_batch(&v, h, len, out);
	}
	return sum;
}

/* A digest of the bit array: the batch insert must set the same bits. */
static uint64_t
ours_digest(const bf_view *v)
{
	return XXH3_64bits(v->bits, (size_t) (v->nbits / 8));
}

/* ---- libbloom ---- */

__attribute__((noinline)) static void
lb_insert(struct bloom *b, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
	{
		int64_t		key = member_key(i);

		bloom_add(b, &key, 8);
	}
}

__attribute__((noinline)) static uint64_t
lb_probe(struct bloom *b, uint64_t n, int misses)
{
	uint64_t	sum = 0;

	for (uint64_t i = 0; i < n; i++)
	{
		int64_t		key = misses ? miss_key(i) : member_key(i);

		sum += bloom_check(b, &key, 8) == 1;
	}
	return sum;
}

__attribute__((noinline)) static uint64_t
lb_probe_dep(struct bloom *b, uint64_t n, int misses)
{
	uint64_t	zero = dep_zero_v;
	uint64_t	sum = 0;
	uint64_t	prev = 0;

	for (uint64_t i = 0; i < n; i++)
	{
		int64_t		key = (misses ? miss_key(i) : member_key(i)) ^ (int64_t) (prev & zero);

		prev = bloom_check(b, &key, 8) == 1;
		sum += prev;
	}
	return sum;
}

/* ---- one implementation under test ---- */

enum impl
{
	IMPL_CLASSIC,
	IMPL_BLOCKED,				/* bits 64-byte aligned */
	IMPL_BLOCKED_U,				/* bits at 56 mod 64 */
	IMPL_BLOCKED_NOSIMD,		/* aligned, batch probes without AVX2 */
	IMPL_LIBBLOOM,
	NIMPL
};

static const char *const impl_name[NIMPL] = {
	"bf classic", "bf blocked", "bf blocked+56", "bf blocked -simd", "libbloom"
};

typedef struct result
{
	int			k;
	double		bits_per_key;
	double		insert_ns,
				hit_ns,
				miss_ns,
				hit_dep_ns,
				miss_dep_ns;
	double		insert_b_ns,	/* batch; ours only */
				hit_b_ns,
				miss_b_ns;
	double		fpr;
	double		model_fpr;		/* what the sizing model expects */
} result;

typedef struct filter
{
	enum impl	impl;
	ours		o;
	struct bloom lb;
} filter;

static void
do_insert(filter *f, uint64_t n)
{
	if (f->impl == IMPL_LIBBLOOM)
		lb_insert(&f->lb, n);
	else
		ours_insert(&f->o.v, n);
}

static void
do_clear(filter *f)
{
	if (f->impl == IMPL_LIBBLOOM)
		bloom_reset(&f->lb);
	else
		ours_clear(&f->o);
}

static uint64_t
do_probe(filter *f, uint64_t n, int misses)
{
	if (f->impl == IMPL_LIBBLOOM)
		return lb_probe(&f->lb, n, misses);
	return misses ? ours_probe_misses(&f->o.v, n) : ours_probe_hits(&f->o.v, n);
}

static uint64_t
do_probe_dep(filter *f, uint64_t n, int misses)
{
	if (f->impl == IMPL_LIBBLOOM)
		return lb_probe_dep(&f->lb, n, misses);
	return ours_probe_dep(&f->o.v, n, misses);
}

static int
filter_make(filter *f, enum impl impl, uint64_t n, double p, result *r)
{
	memset(f, 0, sizeof(*f));
	memset(r, 0, sizeof(*r));
	f->impl = impl;

	if (impl == IMPL_LIBBLOOM)
	{
		if (bloom_init(&f->lb, (int) n, p) != 0)
		{
			fprintf(stderr, "bloom_init(%" PRIu64 ", %g) failed\n", n, p);
			return -1;
		}
		r->k = f->lb.hashes;
		r->bits_per_key = (double) f->lb.bytes * 8.0 / (double) n;
		r->model_fpr = bf_expected_fpr((double) f->lb.bits, f->lb.hashes, (double) n);
	}
	else
	{
		int			layout = impl == IMPL_CLASSIC ? BF_LAYOUT_CLASSIC : BF_LAYOUT_BLOCKED;

		if (ours_make(&f->o, layout, (double) n, p, impl == IMPL_BLOCKED_U ? 56 : 0) != 0)
		{
			fprintf(stderr, "cannot make a %s filter for %" PRIu64 " keys at %g\n",
					impl_name[impl], n, p);
			return -1;
		}
		r->k = f->o.v.hashes;
		r->bits_per_key = (double) f->o.v.nbits / (double) n;
		r->model_fpr = impl == IMPL_CLASSIC ?
			bf_expected_fpr((double) f->o.v.nbits, f->o.v.hashes, (double) n) :
			bf_blocked_expected_fpr((double) (f->o.v.nbits / BF_BLOCK_BITS),
									f->o.v.hashes, (double) n);
	}
	r->insert_ns = r->hit_ns = r->miss_ns = r->hit_dep_ns = r->miss_dep_ns = 1e300;
	r->insert_b_ns = r->hit_b_ns = r->miss_b_ns = 1e300;
	return 0;
}

static void
filter_free(filter *f)
{
	if (f->impl == IMPL_LIBBLOOM)
		bloom_free(&f->lb);
	else
		free(f->o.alloc);
}

static void
keep_min(double *best, double t0, uint64_t count)
{
	double		t = (now_ns() - t0) / (double) count;

	if (t < *best)
		*best = t;
}

/* One repetition of every measurement; r keeps the minimum times. */
static int
measure(filter *f, uint64_t n, result *r)
{
	uint64_t	nmiss = MISS_PROBES;
	uint64_t	ndep = n < MAX_DEP_PROBES ? n : MAX_DEP_PROBES;
	const char *name = impl_name[f->impl];
	uint64_t	s;
	double		t0;

#if BF_HAVE_AVX2_PROBE
	/* only the batch probes differ: one key per call is always scalar */
	bf_use_avx2 = f->impl != IMPL_BLOCKED_NOSIMD && bf_cpu_has_avx2;
#endif
	do_clear(f);				/* also faults the pages in, untimed */
	t0 = now_ns();
	do_insert(f, n);
	keep_min(&r->insert_ns, t0, n);
	if (f->impl != IMPL_LIBBLOOM && f->o.v.added != n)
	{
		fprintf(stderr, "%s: added = %" PRIu64 ", expected %" PRIu64 "\n",
				name, f->o.v.added, n);
		return -1;
	}

	if (f->impl != IMPL_LIBBLOOM)
	{
		uint64_t	digest = ours_digest(&f->o.v);

		do_clear(f);
		t0 = now_ns();
		ours_insert_batch(&f->o.v, n);
		keep_min(&r->insert_b_ns, t0, n);
		if (ours_digest(&f->o.v) != digest || f->o.v.added != n)
		{
			fprintf(stderr, "%s: the batch insert set other bits than the scalar one\n", name);
			return -1;
		}
	}

	t0 = now_ns();
	s = do_probe(f, n, 0);
	keep_min(&r->hit_ns, t0, n);
	if (s != n)
	{
		fprintf(stderr, "%s: false negatives! %" PRIu64 " of %" PRIu64 " members found\n",
				name, s, n);
		return -1;
	}

	t0 = now_ns();
	s = do_probe(f, nmiss, 1);
	keep_min(&r->miss_ns, t0, nmiss);
	r->fpr = (double) s / (double) nmiss;	/* the same every repetition */

	if (f->impl != IMPL_LIBBLOOM)
	{
		uint64_t	sb;

		t0 = now_ns();
		sb = ours_probe_batch(&f->o.v, n, 0);
		keep_min(&r->hit_b_ns, t0, n);
		if (sb != n)
		{
			fprintf(stderr, "%s: batch probes found %" PRIu64 " of %" PRIu64 " members\n",
					name, sb, n);
			return -1;
		}
		t0 = now_ns();
		sb = ours_probe_batch(&f->o.v, nmiss, 1);
		keep_min(&r->miss_b_ns, t0, nmiss);
		if (sb != s)
		{
			fprintf(stderr, "%s: batch probes gave %" PRIu64 " false positives, scalar %" PRIu64 "\n",
					name, sb, s);
			return -1;
		}
	}

	t0 = now_ns();
	s = do_probe_dep(f, ndep, 0);
	keep_min(&r->hit_dep_ns, t0, ndep);
	if (s != ndep)
	{
		fprintf(stderr, "%s: dependent probes found %" PRIu64 " of %" PRIu64 " members\n",
				name, s, ndep);
		return -1;
	}

	t0 = now_ns();
	s = do_probe_dep(f, ndep, 1);
	keep_min(&r->miss_dep_ns, t0, ndep);
	sink += s;
	return 0;
}

/*
 * All implementations for one (N, p).  Repetitions are interleaved (rep 1
 * of each, then rep 2 of each ...) so that a noisy stretch on a shared
 * machine spoils one repetition of every implementation rather than all
 * repetitions of one.
 */
static int
run_config(uint64_t n, double p, result *res)
{
	filter		f[NIMPL];
	int			ret = 0;
	int			made = 0;

	for (; made < NIMPL; made++)
		if (filter_make(&f[made], (enum impl) made, n, p, &res[made]) != 0)
		{
			ret = -1;
			goto done;
		}
	for (int rep = 0; rep < reps; rep++)
		for (int i = 0; i < NIMPL; i++)
			if (measure(&f[i], n, &res[i]) != 0)
			{
				ret = -1;
				goto done;
			}
done:
	for (int i = 0; i < made; i++)
		filter_free(&f[i]);
	return ret;
}

static void
print_header(void)
{
	printf("%-16s %5s %7s %3s %8s %7s %7s %7s %7s %7s %7s %8s %8s %9s %9s\n",
		   "impl", "N", "target", "k", "bits/key", "insert", "ins/b", "hit", "hit/b",
		   "miss", "miss/b", "hit/dep", "miss/dep", "FPR", "model");
	printf("%-16s %5s %7s %3s %8s %7s %7s %7s %7s %7s %7s %8s %8s %9s %9s\n",
		   "", "", "", "", "", "ns/key", "ns/key", "ns/key", "ns/key", "ns/key",
		   "ns/key", "ns/key", "ns/key", "measured", "FPR");
}

/* a batch figure, or "-" for libbloom, which has no batch API */
static void
print_batch(enum impl impl, double ns)
{
	if (impl == IMPL_LIBBLOOM)
		printf(" %7s", "-");
	else
		printf(" %7.1f", ns);
}

static void
print_row(enum impl impl, uint64_t n, double p, const result *r)
{
	printf("%-16s %4.3gM %6.2f%% %3d %8.2f %7.1f", impl_name[impl],
		   (double) n / 1e6, p * 100.0, r->k, r->bits_per_key, r->insert_ns);
	print_batch(impl, r->insert_b_ns);
	printf(" %7.1f", r->hit_ns);
	print_batch(impl, r->hit_b_ns);
	printf(" %7.1f", r->miss_ns);
	print_batch(impl, r->miss_b_ns);
	printf(" %8.1f %8.1f %8.4f%% %8.4f%%\n", r->hit_dep_ns, r->miss_dep_ns,
		   r->fpr * 100.0, r->model_fpr * 100.0);
	fflush(stdout);
}

static void
print_ratios(uint64_t n, double p, const result *res)
{
	const result *lb = &res[IMPL_LIBBLOOM];

	printf("  ratios bloomfilter/libbloom at N=%.3gM, p=%.2f%% (goal: lookups <= 0.33)\n",
		   (double) n / 1e6, p * 100.0);
	printf("  %-16s | %-44s | %-26s | %8s\n", "",
		   "ours scalar vs libbloom (one key per call)",
		   "ours batch vs libbloom", "");
	printf("  %-16s | %8s %8s %8s %8s %8s | %8s %8s %8s | %8s\n",
		   "", "insert", "hit", "miss", "hit/dep", "miss/dep", "ins/b", "hit/b", "miss/b",
		   "bits/key");
	for (int i = 0; i < IMPL_LIBBLOOM; i++)
		printf("  %-16s | %8.2f %8.2f %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f | %8.2f\n",
			   impl_name[i],
			   res[i].insert_ns / lb->insert_ns,
			   res[i].hit_ns / lb->hit_ns,
			   res[i].miss_ns / lb->miss_ns,
			   res[i].hit_dep_ns / lb->hit_dep_ns,
			   res[i].miss_dep_ns / lb->miss_dep_ns,
			   res[i].insert_b_ns / lb->insert_ns,
			   res[i].hit_b_ns / lb->hit_ns,
			   res[i].miss_b_ns / lb->miss_ns,
			   res[i].bits_per_key / lb->bits_per_key);
	printf("\n");
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	uint64_t	ns_full[] = {UINT64_C(1000000), UINT64_C(10000000)};
	double		ps_full[] = {0.01, 0.001};
	size_t		nn = 2,
				np = 2;
	double		t_start = now_ns();

	for (int i = 1; i < argc; i++)
	{
		char	   *end = NULL;

		if (strcmp(argv[i], "--quick") == 0)
			nn = np = 1;
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
		{
			double		d = strtod(argv[++i], &end);

			if (*end != '\0' || !(d >= 1000.0 && d <= 1e8))
				goto usage;
			ns_full[0] = (uint64_t) d;
			nn = 1;
		}
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
		{
			long		r = strtol(argv[++i], &end, 10);

			if (*end != '\0' || r < 1 || r > 100)
				goto usage;
			reps = (int) r;
		}
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
		{
			ps_full[0] = strtod(argv[++i], &end);
			if (*end != '\0' || !(ps_full[0] > 0.0 && ps_full[0] < 1.0))
				goto usage;
			np = 1;
		}
		else
			goto usage;
	}

	printf("libbloom %s, xxHash %d.%d.%d, %d repetitions (best kept)\n",
		   bloom_version(), XXH_VERSION_MAJOR, XXH_VERSION_MINOR,
		   XXH_VERSION_RELEASE, reps);
	printf("hit/miss: independent probes (throughput); hit/dep, miss/dep: each key\n"
		   "depends on the previous answer (latency), over at most %" PRIu64 " probes\n"
		   "ins/b, hit/b, miss/b: %d keys hashed into a buffer, then one\n"
		   "bf_insert_batch / bf_probe_batch call (ours only; libbloom has no batch API)\n"
		   "bf blocked: bit array 64-byte aligned; bf blocked+56: at 56 mod 64\n"
		   "bf blocked -simd: aligned, batch probes with the scalar loop\n",
		   MAX_DEP_PROBES, BATCH);
#if BF_HAVE_AVX2_PROBE
	printf("AVX2 batch probes: %s\n\n", bf_cpu_has_avx2 ? "yes" : "no (this CPU has no AVX2)");
#else
	printf("AVX2 batch probes: no (built without the AVX2 code)\n\n");
#endif

	for (size_t in = 0; in < nn; in++)
		for (size_t ip = 0; ip < np; ip++)
		{
			result		res[NIMPL];

			if (run_config(ns_full[in], ps_full[ip], res) != 0)
				return 1;
			print_header();
			for (int i = 0; i < NIMPL; i++)
				print_row((enum impl) i, ns_full[in], ps_full[ip], &res[i]);
			print_ratios(ns_full[in], ps_full[ip], res);
		}

	printf("total %.1f s\n", (now_ns() - t_start) / 1e9);
	return 0;

usage:
	fprintf(stderr, "usage: %s [--quick] [-n N (1000..1e8)] [-p P (0..1)] [-r REPS]\n", argv[0]);
	return 2;
}
