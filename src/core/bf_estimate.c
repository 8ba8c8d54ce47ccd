/*
 * bf_estimate.c
 *		What a filter's bits say about the set it holds: population count,
 *		estimated cardinality and current false-positive rate.
 *
 * The blocked layout is estimated block by block: its blocks fill unevenly
 * (block loads are Poisson distributed), and applying the whole-array
 * formula to an uneven fill underestimates both the cardinality and the
 * rate (both are convex in the fill).
 */
#include <math.h>

#include "bf_core.h"

static inline uint64_t
load_word(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, 8);
	return w;
}

uint64_t
bf_popcount(const bf_view *v)
{
	uint64_t	nwords = v->nbits / 64;
	uint64_t	count = 0;

	for (uint64_t i = 0; i < nwords; i++)
		count += bf_popcount64(load_word(v->bits + i * 8));
	return count;
}

static unsigned
block_popcount(const uint8_t *block)
{
	unsigned	count = 0;

	for (int i = 0; i < BF_BLOCK_BYTES; i += 8)
		count += bf_popcount64(load_word(block + i));
	return count;
}

/*
 * Swamidass & Baldi's estimate for X bits set of m with k hashes.  A full
 * array has no finite estimate; we answer with the estimate for one bit
 * short of full, the least the filter can hold.
 */
static double
swamidass_baldi(double x, double m, int k)
{
	if (x >= m)
		x = m - 0.5;
	return -(m / k) * log1p(-x / m);
}

/*
 * Blocked filters are estimated block by block; the per-block terms depend
 * only on the block's popcount (0..512), so they come from a table built
 * once per call instead of a logarithm or a power per block.
 */
double
bf_est_cardinality(const bf_view *v)
{
	if (v->layout == BF_LAYOUT_PARQUET)
		return bf_parquet_est_cardinality(v);
	if (v->layout == BF_LAYOUT_BLOCKED)
	{
		uint64_t	nblocks = v->nbits / BF_BLOCK_BITS;
		uint64_t	hist[BF_BLOCK_BITS + 1] = {0};
		double		n = 0.0;

		for (uint64_t b = 0; b < nblocks; b++)
			hist[block_popcount(v->bits + b * BF_BLOCK_BYTES)]++;
		for (int x = 1; x <= BF_BLOCK_BITS; x++)
			if (hist[x])
				n += (double) hist[x] * swamidass_baldi(x, BF_BLOCK_BITS, v->hashes);
		return n;
	}
	return swamidass_baldi((double) bf_popcount(v), (double) v->nbits, v->hashes);
}

double
bf_est_fpr(const bf_view *v)
{
	if (v->layout == BF_LAYOUT_PARQUET)
		return bf_parquet_est_fpr(v);
	if (v->layout == BF_LAYOUT_BLOCKED)
	{
		uint64_t	nblocks = v->nbits / BF_BLOCK_BITS;
		uint64_t	hist[BF_BLOCK_BITS + 1] = {0};
		double		sum = 0.0;

		for (uint64_t b = 0; b < nblocks; b++)
			hist[block_popcount(v->bits + b * BF_BLOCK_BYTES)]++;
		for (int x = 1; x <= BF_BLOCK_BITS; x++)
			if (hist[x])
				sum += (double) hist[x] * pow((double) x / BF_BLOCK_BITS, v->hashes);
		return sum / (double) nblocks;
	}
	return pow((double) bf_popcount(v) / (double) v->nbits, v->hashes);
}
