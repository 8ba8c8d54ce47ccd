/*
 * test_batch.c
 *		Core unit tests: many keys at once (bf_batch.c) and the AVX2 probe (bf_simd.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/*
 * A batch insert is the same as one insert at a time.  The SWAR popcount
 * (used when the build has no -mpopcnt, as this one) agrees with a bit
 * loop.
 */
void
test_batch_and_popcount(void)
{
	rng			r = {31};
	int			bad = 0;

	for (int li = 0; li < 2; li++)
	{
		tfilter		a = tf_sized(layouts[li], 5000, 0.01, 8);
		tfilter		b = tf_sized(layouts[li], 5000, 0.01, 8);
		uint64_t	h[37];

		for (int round = 0; round < 150; round++)
		{
			int			n = (int) rng_below(&r, 38);

			for (int i = 0; i < n; i++)
			{
				h[i] = rng_next(&r);
				bf_insert_hash(&a.v, h[i]);
			}
			bf_insert_batch(&b.v, h, (size_t) n);
		}
		check(tf_same_bits(&a, &b) && a.v.added == b.v.added,
			  "batch: same as one at a time", "%s: added %" PRIu64 " vs %" PRIu64,
			  bf_layout_name(layouts[li]), a.v.added, b.v.added);
		tf_free(&a);
		tf_free(&b);
	}

	for (int i = 0; i < 100000; i++)
	{
		uint64_t	x;
		unsigned	want = 0;

		switch (i)
		{
			case 0:
				x = 0;
				break;
			case 1:
				x = UINT64_MAX;
				break;
			case 2:
				x = UINT64_C(1) << 63;
				break;
			default:
				/* sparse and dense words too */
				x = rng_next(&r);
				if (i % 3 == 1)
					x &= rng_next(&r) & rng_next(&r);
				else if (i % 3 == 2)
					x |= rng_next(&r) | rng_next(&r);
				break;
		}
		for (int b = 0; b < 64; b++)
			want += (unsigned) ((x >> b) & 1);
		if (bf_popcount64(x) != want)
			bad++;
	}
	check(bad == 0, "popcount: agrees with a bit loop", "%d mismatches", bad);
}

/*
 * bf_probe_batch gives exactly bf_probe_hash's answers, and bf_insert_batch
 * sets exactly bf_insert_hash's bits, for both layouts and every k (1 to
 * 16 run loops of their own, 17 to 32 share one): batches shorter and
 * longer than the prefetch distance, odd lengths, and n = 0, which must
 * neither write an answer nor count an add.  The batch answers go into an
 * exact-size buffer, so ASan sees a write past the end.  A classic filter
 * over 2 MB takes the prefetching classic path, checked at a few k.
 */
static void
batch_compare(tfilter *scalar, tfilter *batch, rng *r, const char *what)
{
	static const size_t lens[] = {0, 1, 3, 15, 16, 17, 33, 255, 1001};
	int			k = scalar->v.hashes;
	int			bad_bits = 0,
				bad_answers = 0,
				bad_counts = 0;
	uint64_t   *members = xmalloc(1001 * sizeof(uint64_t));

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
	{
		size_t		n = lens[li];
		uint64_t   *h = xmalloc(n * sizeof(uint64_t));
		uint8_t    *out = xmalloc(n);
		uint64_t	added_before = batch->v.added;
		size_t		want = 0,
					got;

		/* inserts: the same keys one by one and as a batch */
		for (size_t i = 0; i < n; i++)
		{
			h[i] = rng_next(r);
			members[i] = h[i];
			bf_insert_hash(&scalar->v, h[i]);
		}
		bf_insert_batch(&batch->v, h, n);
		if (!tf_same_bits(scalar, batch))
			bad_bits++;
		if (batch->v.added != added_before + n || batch->v.added != scalar->v.added)
			bad_counts++;

		/* probes: members and non-members interleaved */
		for (size_t i = 0; i < n; i++)
			h[i] = (i % 2 == 0) ? members[i] : rng_next(r);
		memset(out, 0xa5, n);
		got = bf_probe_batch(&batch->v, h, n, out);
		for (size_t i = 0; i < n; i++)
		{
			bool		one = bf_probe_hash(&batch->v, h[i]);

			want += one;
			if (out[i] != (uint8_t) one)
				bad_answers++;
		}
		if (got != want)
			bad_answers++;
		free(h);
		free(out);
	}
	check(bad_bits == 0 && bad_counts == 0, "batch: insert sets the bits of one at a time",
		  "%s k=%d: %d batches with other bits, %d with other counts", what, k,
		  bad_bits, bad_counts);
	check(bad_answers == 0, "batch: probe answers as one at a time",
		  "%s k=%d: %d answers or counts differ", what, k, bad_answers);
	free(members);
}

void
test_batch_probe(void)
{
	rng			r = {77};

	for (int li = 0; li < 2; li++)
		for (int k = BF_MIN_HASHES; k <= BF_MAX_HASHES; k++)
		{
			/* 4 KiB: the 1,341 keys inserted leave bits both set and clear */
			tfilter		a = tf_new(layouts[li], k, (uint64_t) k, 1 << 15);
			tfilter		b = tf_new(layouts[li], k, (uint64_t) k, 1 << 15);

			batch_compare(&a, &b, &r, bf_layout_name(layouts[li]));
			tf_free(&a);
			tf_free(&b);
		}

	/* 4 MiB classic: past BF_CLASSIC_PREFETCH_BYTES */
	for (int k = 3; k <= 20; k += 17)
	{
		tfilter		a = tf_new(BF_LAYOUT_CLASSIC, k, 5, UINT64_C(1) << 25);
		tfilter		b = tf_new(BF_LAYOUT_CLASSIC, k, 5, UINT64_C(1) << 25);

		batch_compare(&a, &b, &r, "classic 4 MiB");
		tf_free(&a);
		tf_free(&b);
	}

	/* the count of adds saturates, as bf_insert_hash's does */
	{
		tfilter		f = tf_new(BF_LAYOUT_BLOCKED, 7, 1, 4096);
		uint64_t	h[5] = {1, 2, 3, 4, 5};

		f.v.added = UINT64_MAX - 2;
		bf_insert_batch(&f.v, h, 5);
		check(f.v.added == UINT64_MAX, "batch: count of adds saturates",
			  "added = %" PRIu64, f.v.added);
		tf_free(&f);
	}
}

/*
 * The AVX2 probe (bf_simd.c) answers exactly as the scalar loop, for every
 * k (one vector of 8 positions up to k = 8, more above), at four densities,
 * probing members (true in every lane: one wrong lane makes it false) and
 * non-members.  bf_probe_hash, always scalar, agrees, and bf_probe_batch
 * gives the same answers with bf_use_avx2 set and cleared.  Built without
 * the AVX2 code (not x86-64, or -DBF_NO_AVX2, as make check-core also runs
 * these tests) only the scalar path exists, and the other tests check it.
 */
void
test_avx2_probe(void)
{
#if BF_HAVE_AVX2_PROBE
	rng			r = {4242};
	int			saved = bf_use_avx2;
	int			bad_one = 0,
				bad_dispatch = 0,
				bad_batch = 0;
	long		trues = 0,
				probes = 0;

	if (!saved)
	{
		skip("avx2: this CPU has no AVX2; only the scalar probe was tested");
		return;
	}
	for (int k = BF_MIN_HASHES; k <= BF_MAX_HASHES; k++)
		for (int fill = 0; fill < 4; fill++)
		{
			/* 64 blocks with about 1%, 4%, 13% and 34% of their bits set */
			static const int keys_per_block[] = {1, 3, 10, 30};
			int			nkeys = 64 * keys_per_block[fill] * 7 / k + 1;
			tfilter		f = tf_new(BF_LAYOUT_BLOCKED, k, (uint64_t) k, 64 * BF_BLOCK_BITS);
			uint64_t	h[257];
			uint8_t		out_simd[257],
						out_scalar[257];

			uint64_t	first = rng_next(&r);

			/* members are first + j: half the probes, so both answers occur */
			for (int i = 0; i < nkeys; i++)
				bf_insert_hash(&f.v, first + (uint64_t) i * UINT64_C(0x9e3779b97f4a7c15));
			for (int i = 0; i < 257; i++)
			{
				const uint8_t *block;
				bool		scalar,
							simd;

				h[i] = i % 2 ? rng_next(&r)
					: first + (uint64_t) (i / 2 % nkeys) * UINT64_C(0x9e3779b97f4a7c15);
				block = bf_block_of(f.v.bits, f.v.nbits, h[i]);
				scalar = bf_blocked_probe_k(block, (uint32_t) h[i], k);
				simd = bf_blocked_probe_avx2(block, (uint32_t) h[i], k);
				bad_one += scalar != simd;
				bad_dispatch += scalar != bf_probe_hash(&f.v, h[i]);
				trues += scalar;
				probes++;
			}
			bf_use_avx2 = 0;
			(void) bf_probe_batch(&f.v, h, 257, out_scalar);
			bf_use_avx2 = 1;
			(void) bf_probe_batch(&f.v, h, 257, out_simd);
			bad_batch += memcmp(out_scalar, out_simd, 257) != 0;
			tf_free(&f);
		}
	bf_use_avx2 = saved;
	check(bad_one == 0, "avx2: probe answers as the scalar loop",
		  "%d of %ld answers differ", bad_one, probes);
	check(trues > probes / 10 && trues < probes * 9 / 10, "avx2: the probes saw both answers",
		  "%ld of %ld true", trues, probes);
	check(bad_dispatch == 0, "avx2: bf_probe_hash answers as the scalar loop",
		  "%d answers differ", bad_dispatch);
	check(bad_batch == 0, "avx2: bf_probe_batch the same with and without",
		  "%d batches differ", bad_batch);
#else
	skip("avx2: built without the AVX2 code (not x86-64, or -DBF_NO_AVX2); only the scalar probe exists");
#endif
}
