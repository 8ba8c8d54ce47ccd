/*
 * bf_batch.c
 *		Probing and inserting many hashed keys in one call.
 *
 * A probe of a filter larger than the caches waits for one cache miss (the
 * blocked layout) or several (classic).  One key at a time, the misses
 * happen one after the other; given the whole batch of hashes, the loop
 * prefetches the memory of the key BF_PREFETCH_AHEAD places ahead, so that
 * that many misses are in flight at once.
 *
 * bf_probe_hash and bf_insert_hash switch on the layout and k for every
 * key, and gcc does not inline them into a caller's loop.  Here the switch
 * runs once per batch and selects a loop in which k is a constant, so the
 * per-key work (bf_blocked_probe_k and friends, always_inline) unrolls.
 * k up to 16 gets its own loop; larger k (rates below about 1e-5) share a
 * loop with k as a variable.  On a CPU with AVX2, blocked probes take
 * bf_simd.c's loop instead, which computes 8 positions at a time.
 *
 * The answers and the bits set are exactly those of the per-key functions
 * (test/core/test_core.c compares them for both layouts and every k).
 */
#include "bf_core.h"

/*
 * A classic key's k lines are independent loads, which the CPU already
 * overlaps across keys when nothing waits on the answers; prefetching all
 * k of them ahead paid for itself only once the filter outgrew L2 (3M
 * keys, 3.6 MB: about 10% faster) and cost 35% on a 1.2 MB filter that
 * fits.  Below this size classic batches do not prefetch.
 */
#ifndef BF_CLASSIC_PREFETCH_BYTES
#define BF_CLASSIC_PREFETCH_BYTES (UINT64_C(2) << 20)
#endif

/* ---- blocked layout ---- */

static inline __attribute__((always_inline)) size_t
blocked_probe_run(const bf_view *v, const uint64_t *h, size_t n, uint8_t *out,
				  const int k)
{
	return bf_blocked_probe_loop(v, h, n, out, k, bf_blocked_probe_k);
}

static inline __attribute__((always_inline)) void
blocked_insert_run(bf_view *v, const uint64_t *h, size_t n, const int k)
{
	uint8_t    *bits = v->bits;
	uint64_t	nbits = v->nbits;
	size_t		i = 0;

	for (size_t j = 0; j < n && j < BF_PREFETCH_AHEAD; j++)
		bf_prefetch_block(bf_block_of(bits, nbits, h[j]), 1);
	for (; i + BF_PREFETCH_AHEAD < n; i++)
	{
		bf_prefetch_block(bf_block_of(bits, nbits, h[i + BF_PREFETCH_AHEAD]), 1);
		bf_blocked_insert_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);
	}
	for (; i < n; i++)
		bf_blocked_insert_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);
}

/* ---- classic layout ---- */

/*
 * A classic key touches k places anywhere in the array: all k are
 * prefetched, recomputed from the hash (a few multiplies, cheaper than
 * keeping them).  A probe of a key not in the set usually stops after one
 * or two of them, so the rest is wasted bandwidth; a member needs all k.
 */
static inline __attribute__((always_inline)) void
classic_prefetch(const uint8_t *bits, uint64_t nbits, uint64_t h, const int k,
				 const int for_write)
{
	uint64_t	pos[BF_MAX_HASHES];

	bf_positions(BF_LAYOUT_CLASSIC, nbits, k, h, pos);
#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		if (for_write)
			__builtin_prefetch(bits + (pos[i] >> 3), 1);
		else
			__builtin_prefetch(bits + (pos[i] >> 3), 0);
	}
}

static inline __attribute__((always_inline)) size_t
classic_probe_run(const bf_view *v, const uint64_t *h, size_t n, uint8_t *out,
				  const int k)
{
	const uint8_t *bits = v->bits;
	uint64_t	nbits = v->nbits;
	bool		prefetch = nbits / 8 > BF_CLASSIC_PREFETCH_BYTES;
	size_t		hits = 0;
	size_t		i = 0;

	if (prefetch)
		for (size_t j = 0; j < n && j < BF_PREFETCH_AHEAD; j++)
			classic_prefetch(bits, nbits, h[j], k, 0);
	for (; i + BF_PREFETCH_AHEAD < n; i++)
	{
		bool		r;

		if (prefetch)
			classic_prefetch(bits, nbits, h[i + BF_PREFETCH_AHEAD], k, 0);
		r = bf_classic_probe(bits, nbits, k, h[i]);
		out[i] = r;
		hits += r;
	}
	for (; i < n; i++)
	{
		bool		r = bf_classic_probe(bits, nbits, k, h[i]);

		out[i] = r;
		hits += r;
	}
	return hits;
}

static inline __attribute__((always_inline)) void
classic_insert_run(bf_view *v, const uint64_t *h, size_t n, const int k)
{
	uint8_t    *bits = v->bits;
	uint64_t	nbits = v->nbits;
	bool		prefetch = nbits / 8 > BF_CLASSIC_PREFETCH_BYTES;
	size_t		i = 0;

	if (prefetch)
		for (size_t j = 0; j < n && j < BF_PREFETCH_AHEAD; j++)
			classic_prefetch(bits, nbits, h[j], k, 1);
	for (; i + BF_PREFETCH_AHEAD < n; i++)
	{
		if (prefetch)
			classic_prefetch(bits, nbits, h[i + BF_PREFETCH_AHEAD], k, 1);
		bf_classic_insert(bits, nbits, k, h[i]);
	}
	for (; i < n; i++)
		bf_classic_insert(bits, nbits, k, h[i]);
}

/* ---- the dispatch, once per batch ---- */

/*
 * Expands X(1) ... X(16): one case per constant k.  The loops it selects
 * are written out above; only the case labels are generated.
 */
#define BF_FOR_EACH_UNROLLED_K(X) \
	X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) \
	X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

/* Layout parquet: one 32-byte block a key, prefetched as blocked's are. */
static size_t
parquet_probe_run(const bf_view *v, const uint64_t *h, size_t n, uint8_t *out)
{
	size_t		hits = 0;

	for (size_t i = 0; i < n; i++)
	{
		bool		r;

		if (i + BF_PREFETCH_AHEAD < n)
			__builtin_prefetch(bf_parquet_block_of(v->bits, v->nbits,
												   h[i + BF_PREFETCH_AHEAD]), 0);
		r = bf_parquet_probe(v->bits, v->nbits, h[i]);
		out[i] = r;
		hits += r;
	}
	return hits;
}

static void
parquet_insert_run(bf_view *v, const uint64_t *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		if (i + BF_PREFETCH_AHEAD < n)
			__builtin_prefetch(bf_parquet_block_of(v->bits, v->nbits,
												   h[i + BF_PREFETCH_AHEAD]), 1);
		bf_parquet_insert(v->bits, v->nbits, h[i]);
	}
}

size_t
bf_probe_batch(const bf_view *v, const uint64_t *h, size_t n, uint8_t *out)
{
	if (v->layout == BF_LAYOUT_SPARK)
	{
		/* Spark's positions: one key at a time, as Spark probes */
		size_t		hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += out[i] = bf_spark_probe(v->bits, v->nbits, v->hashes, v->param, h[i]);
		return hits;
	}
	if (v->layout == BF_LAYOUT_PARQUET)
		return parquet_probe_run(v, h, n, out);
	if (v->layout == BF_LAYOUT_BLOCKED)
	{
#if BF_HAVE_AVX2_PROBE
		if (bf_use_avx2)
			return bf_blocked_probe_batch_avx2(v, h, n, out);
#endif
		switch (v->hashes)
		{
#define CASE(K) case K: return blocked_probe_run(v, h, n, out, K);
				BF_FOR_EACH_UNROLLED_K(CASE)
#undef CASE
			default:
				return blocked_probe_run(v, h, n, out, v->hashes);
		}
	}
	switch (v->hashes)
	{
#define CASE(K) case K: return classic_probe_run(v, h, n, out, K);
			BF_FOR_EACH_UNROLLED_K(CASE)
#undef CASE
		default:
			return classic_probe_run(v, h, n, out, v->hashes);
	}
}

void
bf_insert_batch(bf_view *v, const uint64_t *h, size_t n)
{
	if (v->layout == BF_LAYOUT_SPARK)
	{
		for (size_t i = 0; i < n; i++)
			bf_spark_insert(v->bits, v->nbits, v->hashes, v->param, h[i]);
	}
	else if (v->layout == BF_LAYOUT_PARQUET)
		parquet_insert_run(v, h, n);
	else if (v->layout == BF_LAYOUT_BLOCKED)
	{
		switch (v->hashes)
		{
#define CASE(K) case K: blocked_insert_run(v, h, n, K); break;
				BF_FOR_EACH_UNROLLED_K(CASE)
#undef CASE
			default:
				blocked_insert_run(v, h, n, v->hashes);
				break;
		}
	}
	else
	{
		switch (v->hashes)
		{
#define CASE(K) case K: classic_insert_run(v, h, n, K); break;
				BF_FOR_EACH_UNROLLED_K(CASE)
#undef CASE
			default:
				classic_insert_run(v, h, n, v->hashes);
				break;
		}
	}
	/* the count saturates, as bf_insert_hash's does one key at a time */
	v->added = v->added > UINT64_MAX - n ? UINT64_MAX : v->added + n;
}
