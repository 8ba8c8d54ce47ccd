/*
 * bf_kernels.h
 *		Insert and probe of one hash: the hot path, inlined; and the
 *		prefetching probe loop that bf_batch.c and bf_simd.c share.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_KERNELS_H
#define BF_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"
#include "bf_hashfn.h"
#include "bf_le.h"
#include "bf_spark.h"
#include "bf_parquet.h"

/*
 * Classic layout: k positions over the whole array, x + i*y + i(i-1)/2*z in
 * the 2^64 ring (triple hashing, Dillinger & Manolios), mapped to [0, m) by
 * multiply-shift.  The quadratic term must be a full 64-bit value: the
 * high bits pick the position, so the small constant increments of
 * "enhanced" double hashing would leave plain double hashing, whose
 * positions repeat for keys whose step is near a simple fraction of 2^64.
 */
static inline __attribute__((always_inline)) void
bf_classic_insert(uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	uint64_t	x = h;
	uint64_t	y = bf_mix64(h);
	uint64_t	z = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint64_t	pos = bf_range64(x, nbits);

		bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
		x += y;
		y += z;
	}
}

static inline __attribute__((always_inline)) bool
bf_classic_probe(const uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	uint64_t	x = h;
	uint64_t	y = bf_mix64(h);
	uint64_t	z = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint64_t	pos = bf_range64(x, nbits);

		if (!(bits[pos >> 3] & (1u << (pos & 7))))
			return false;
		x += y;
		y += z;
	}
	return true;
}

/*
 * Blocked layout: the high 32 bits of the hash choose a 512-bit block (by
 * multiply-shift, so power-of-two size ratios fold); the low 32 bits,
 * remultiplied by the golden ratio for each probe, give k bit positions
 * inside the block from their top 9 bits (the scheme of RocksDB's
 * FastLocalBloom).  One cache line per insert or probe.
 */
static inline uint8_t *
bf_block_of(uint8_t *bits, uint64_t nbits, uint64_t h)
{
	return bits + (size_t) bf_range32((uint32_t) (h >> 32),
									  (uint32_t) (nbits / BF_BLOCK_BITS)) * BF_BLOCK_BYTES;
}

static inline __attribute__((always_inline)) void
bf_blocked_insert_k(uint8_t *block, uint32_t x, const int k)
{
#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint32_t	bit = x >> 23;

		block[bit >> 3] |= (uint8_t) (1u << (bit & 7));
		x *= BF_BLOCK_MULT;
	}
}

/* Unrolled for the common k, as the probe below. */
static inline void
bf_blocked_insert(uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	uint8_t    *block = bf_block_of(bits, nbits, h);
	uint32_t	x = (uint32_t) h;

	switch (k)
	{
		case 6:
			bf_blocked_insert_k(block, x, 6);
			break;
		case 7:
			bf_blocked_insert_k(block, x, 7);
			break;
		case 9:
			bf_blocked_insert_k(block, x, 9);
			break;
		default:
			bf_blocked_insert_k(block, x, k);
			break;
	}
}

/*
 * The probe tests each bit straight from the block's 64-bit words (the line
 * is in cache after the first load), without branching: AND-ing the bits
 * costs less than the mispredictions of stopping early, since a probe of a
 * key not in the set stops after a coin-flip number of bits.  The loop is
 * unrolled for the common k by dispatching on constant k.  (Bit p of the
 * byte array is bit p & 63 of the little-endian word p >> 6.)
 */
static inline uint64_t
bf_block_word(const uint8_t *block, uint32_t w)
{
	uint64_t	word;

	memcpy(&word, block + w * 8, 8);
	return BF_BSWAP64(word);
}

static inline __attribute__((always_inline)) bool
bf_blocked_probe_k(const uint8_t *block, uint32_t x, const int k)
{
	uint64_t	found = 1;

#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint32_t	bit = x >> 23;

		found &= bf_block_word(block, bit >> 6) >> (bit & 63);
		x *= BF_BLOCK_MULT;
	}
	return (found & 1) != 0;
}

static inline bool
bf_blocked_probe(const uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	const uint8_t *block = bf_block_of((uint8_t *) bits, nbits, h);
	uint32_t	x = (uint32_t) h;

	switch (k)
	{
		case 6:
			return bf_blocked_probe_k(block, x, 6);
		case 7:
			return bf_blocked_probe_k(block, x, 7);
		case 8:
			return bf_blocked_probe_k(block, x, 8);
		case 9:
			return bf_blocked_probe_k(block, x, 9);
		case 10:
			return bf_blocked_probe_k(block, x, 10);
		default:
			return bf_blocked_probe_k(block, x, k);
	}
}

/* Insert a hashed key; counts the add (saturating). */
static inline void
bf_insert_hash(bf_view *v, uint64_t h)
{
	if (v->layout == BF_LAYOUT_BLOCKED)
		bf_blocked_insert(v->bits, v->nbits, v->hashes, h);
	else if (v->layout == BF_LAYOUT_SPARK)
		bf_spark_insert(v->bits, v->nbits, v->hashes, v->param, h);
	else if (v->layout == BF_LAYOUT_PARQUET)
		bf_parquet_insert(v->bits, v->nbits, h);
	else
		bf_classic_insert(v->bits, v->nbits, v->hashes, h);
	if (v->added != UINT64_MAX)
		v->added++;
}

static inline bool
bf_probe_hash(const bf_view *v, uint64_t h)
{
	if (v->layout == BF_LAYOUT_BLOCKED)
		return bf_blocked_probe(v->bits, v->nbits, v->hashes, h);
	if (v->layout == BF_LAYOUT_SPARK)
		return bf_spark_probe(v->bits, v->nbits, v->hashes, v->param, h);
	if (v->layout == BF_LAYOUT_PARQUET)
		return bf_parquet_probe(v->bits, v->nbits, h);
	return bf_classic_probe(v->bits, v->nbits, v->hashes, h);
}

/*
 * What bf_positions needs to know of a view: its layout, and for spark
 * its version (the positions of V1 and V2 differ) in the bits above.
 */
static inline int
bf_position_scheme(const bf_view *v)
{
	return v->layout == BF_LAYOUT_SPARK ? BF_LAYOUT_SPARK | (v->param << 8) : v->layout;
}

/*
 * The k positions of hash h, in insert order, into pos[0 .. k-1]: exactly
 * the bits bf_insert_hash sets (the unit tests hold the two together).
 * The counting filter keeps a counter at each of them; the inlined
 * insert and probe above stay as they are, being the hot path.  layout
 * is a view's bf_position_scheme: for spark it carries Spark's version.
 */
static inline __attribute__((always_inline)) void
bf_positions(int layout, uint64_t m, int k, uint64_t h, uint64_t *pos)
{
	if ((layout & 0xff) == BF_LAYOUT_SPARK)
		bf_spark_positions(layout >> 8, m, k, h, pos);
	else if (layout == BF_LAYOUT_BLOCKED)
	{
		uint64_t	base = (uint64_t) bf_range32((uint32_t) (h >> 32),
												 (uint32_t) (m / BF_BLOCK_BITS)) * BF_BLOCK_BITS;
		uint32_t	x = (uint32_t) h;

		for (int i = 0; i < k; i++)
		{
			pos[i] = base + (x >> 23);
			x *= BF_BLOCK_MULT;
		}
	}
	else if (layout == BF_LAYOUT_PARQUET)
		bf_parquet_positions(m, h, pos);
	else
	{
		uint64_t	x = h;
		uint64_t	y = bf_mix64(h);
		uint64_t	z = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

		for (int i = 0; i < k; i++)
		{
			pos[i] = bf_range64(x, m);
			x += y;
			y += z;
		}
	}
}

/*
 * How many keys ahead the batch loops prefetch.  Measured with
 * test/bench/core_bench.c on a 2-vCPU Xeon VM (2 MB L2 per core) with 12 MB
 * filters: blocked probes and inserts take 10-15 ns a key at any distance
 * from 4 to 32 (against 30-40 ns one key at a time), so the choice is not
 * critical; 16 leaves room for slower memory than this machine's.
 */
#ifndef BF_PREFETCH_AHEAD
#define BF_PREFETCH_AHEAD 16
#endif

/*
 * A block is one cache line only when the bit array is 64-byte aligned;
 * the format promises 8, so a block may straddle two lines, and both are
 * fetched (on an aligned array, the second prefetch names the line
 * already requested and costs an instruction).
 */
static inline __attribute__((always_inline)) void
bf_prefetch_block(const uint8_t *block, const int for_write)
{
	if (for_write)
	{
		__builtin_prefetch(block, 1);
		__builtin_prefetch(block + BF_BLOCK_BYTES - 1, 1);
	}
	else
	{
		__builtin_prefetch(block, 0);
		__builtin_prefetch(block + BF_BLOCK_BYTES - 1, 0);
	}
}

/*
 * bf_probe_batch's loop over a blocked filter, with probe_k the test of one
 * block (bf_blocked_probe_k, or bf_simd.c's AVX2 one): each key's block is
 * prefetched BF_PREFETCH_AHEAD keys before it is probed.  Both callers pass
 * an always_inline kernel and a constant k, so the kernel is inlined.
 */
static inline __attribute__((always_inline)) size_t
bf_blocked_probe_loop(const bf_view *v, const uint64_t *h, size_t n,
					  uint8_t *out, const int k,
					  bool (*probe_k) (const uint8_t *, uint32_t, int))
{
	uint8_t    *bits = v->bits;
	uint64_t	nbits = v->nbits;
	size_t		hits = 0;
	size_t		i = 0;

	for (size_t j = 0; j < n && j < BF_PREFETCH_AHEAD; j++)
		bf_prefetch_block(bf_block_of(bits, nbits, h[j]), 0);
	/* the main loop prefetches without a bounds test; the tail does not */
	for (; i + BF_PREFETCH_AHEAD < n; i++)
	{
		bool		r;

		bf_prefetch_block(bf_block_of(bits, nbits, h[i + BF_PREFETCH_AHEAD]), 0);
		r = probe_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);
		out[i] = r;
		hits += r;
	}
	for (; i < n; i++)
	{
		bool		r = probe_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);

		out[i] = r;
		hits += r;
	}
	return hits;
}

#endif							/* BF_KERNELS_H */
