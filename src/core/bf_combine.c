/*
 * bf_combine.c
 *		Union, intersection, superset test and folding of filters.
 *
 * Two filters combine when they hash keys the same way: same layout, k,
 * seed and key family (or one has no keys yet).  Their sizes must be equal
 * or differ by a power of two: both layouts map hashes to positions with
 * the high bits (multiply-shift), so position p in a filter of m*2^j bits
 * is position p >> j (classic) or block b >> j (blocked) in one of m bits.
 * The larger filter is folded down to the smaller one.
 */
#include "bf_core.h"

/* Is big == small * 2^j for some j >= 0?  Sets *shift to j. */
static bool
power_of_two_multiple(uint64_t big, uint64_t small, int *shift)
{
	int			j = 0;

	if (small == 0 || big < small || big % small != 0)
		return false;
	big /= small;
	while ((big & 1) == 0)
	{
		big >>= 1;
		j++;
	}
	if (big != 1)
		return false;
	*shift = j;
	return true;
}

bf_compat
bf_compatible(const bf_view *a, const bf_view *b, uint64_t *nbits_out)
{
	int			shift;
	uint64_t	big,
				small;

	if (a->layout != b->layout)
		return BF_COMPAT_LAYOUT;
	if (a->hashes != b->hashes)
		return BF_COMPAT_HASHES;
	if (a->seed != b->seed)
		return BF_COMPAT_SEED;
	if (a->layout == BF_LAYOUT_SPARK)
	{
		/*
		 * Spark's mergeInPlace: the same version (class), bit size, k and
		 * seed.  Its positions are a remainder, so sizes never fold.  Any
		 * two families Spark hashes combine: the union holds both kinds.
		 */
		if (a->param != b->param)
			return BF_COMPAT_LAYOUT;
		if (a->nbits != b->nbits)
			return BF_COMPAT_SIZE;
		*nbits_out = a->nbits;
		return BF_COMPAT_OK;
	}
	if (a->family != BF_FAMILY_NONE && b->family != BF_FAMILY_NONE &&
		(a->family != b->family || a->type_tag != b->type_tag))
		return BF_COMPAT_FAMILY;
	/* parquet: one physical type (or one not fixed yet) */
	if (a->layout == BF_LAYOUT_PARQUET && a->param != BF_PQ_UNSET &&
		b->param != BF_PQ_UNSET && a->param != b->param)
		return BF_COMPAT_PARAM;

	big = a->nbits > b->nbits ? a->nbits : b->nbits;
	small = a->nbits > b->nbits ? b->nbits : a->nbits;
	if (!power_of_two_multiple(big, small, &shift))
		return BF_COMPAT_SIZE;
	/* Blocked filters fold whole blocks: the smaller needs whole blocks. */
	if (a->layout == BF_LAYOUT_BLOCKED && small % BF_BLOCK_BITS != 0)
		return BF_COMPAT_SIZE;
	/*
	 * So do parquet filters: block ((h >> 32) * n 2^j) >> 32, shifted right
	 * by j, is ((h >> 32) * n) >> 32 (FORMAT.md, "Combining and folding").
	 */
	if (a->layout == BF_LAYOUT_PARQUET && small % BF_PARQUET_BLOCK_BITS != 0)
		return BF_COMPAT_SIZE;
	*nbits_out = small;
	return BF_COMPAT_OK;
}

const char *
bf_compat_message(bf_compat c)
{
	switch (c)
	{
		case BF_COMPAT_OK:
			return "the filters are compatible";
		case BF_COMPAT_LAYOUT:
			return "the filters have different layouts";
		case BF_COMPAT_HASHES:
			return "the filters use different numbers of hashes";
		case BF_COMPAT_SEED:
			return "the filters use different seeds";
		case BF_COMPAT_FAMILY:
			return "the filters hold keys of different families";
		case BF_COMPAT_SIZE:
			return "the filters' sizes are neither equal nor a power-of-two multiple of one another, so they cannot be folded to one size";
		case BF_COMPAT_WIDTH:
			return "the filters have different counter widths";
		case BF_COMPAT_PARAM:
			return "the parquet filters are of different Parquet physical types";
	}
	return "unknown";
}

void
bf_fold_or(bf_view *dst, const bf_view *src)
{
	int			shift = 0;
	uint64_t	nbytes_src = src->nbits / 8;

	(void) power_of_two_multiple(src->nbits, dst->nbits, &shift);
	if (shift == 0)
	{
		bf_or(dst, src);
		return;
	}

	if (src->layout == BF_LAYOUT_BLOCKED || src->layout == BF_LAYOUT_PARQUET)
	{
		/* Blocks [b << shift, (b + 1) << shift) of src all land in block b. */
		uint64_t	bbits = src->layout == BF_LAYOUT_BLOCKED ?
			BF_BLOCK_BITS : BF_PARQUET_BLOCK_BITS;
		uint64_t	bbytes = bbits / 8;
		uint64_t	nblocks_src = src->nbits / bbits;

		for (uint64_t b = 0; b < nblocks_src; b++)
		{
			uint8_t    *d = dst->bits + (b >> shift) * bbytes;
			const uint8_t *s = src->bits + b * bbytes;

			for (uint64_t i = 0; i < bbytes; i += 8)
			{
				uint64_t	x,
							y;

				memcpy(&x, d + i, 8);
				memcpy(&y, s + i, 8);
				x |= y;
				memcpy(d + i, &x, 8);
			}
		}
	}
	else
	{
		/* Bit p of src lands at bit p >> shift. */
		for (uint64_t byte = 0; byte < nbytes_src; byte++)
		{
			uint8_t		s = src->bits[byte];

			while (s)
			{
				int			bit = __builtin_ctz(s);
				uint64_t	p = ((byte << 3) | (uint64_t) bit) >> shift;

				dst->bits[p >> 3] |= (uint8_t) (1u << (p & 7));
				s &= (uint8_t) (s - 1);
			}
		}
	}
}

/* Word-wise loops: the arrays are whole 64-bit words in both layouts. */
void
bf_or(bf_view *dst, const bf_view *src)
{
	uint64_t	nwords = dst->nbits / 64;

	for (uint64_t i = 0; i < nwords; i++)
	{
		uint64_t	a,
					b;

		memcpy(&a, dst->bits + i * 8, 8);
		memcpy(&b, src->bits + i * 8, 8);
		a |= b;
		memcpy(dst->bits + i * 8, &a, 8);
	}
}

void
bf_and(bf_view *dst, const bf_view *src)
{
	uint64_t	nwords = dst->nbits / 64;

	for (uint64_t i = 0; i < nwords; i++)
	{
		uint64_t	a,
					b;

		memcpy(&a, dst->bits + i * 8, 8);
		memcpy(&b, src->bits + i * 8, 8);
		a &= b;
		memcpy(dst->bits + i * 8, &a, 8);
	}
}

bool
bf_is_superset(const bf_view *super, const bf_view *sub)
{
	uint64_t	nwords = super->nbits / 64;

	for (uint64_t i = 0; i < nwords; i++)
	{
		uint64_t	a,
					b;

		memcpy(&a, super->bits + i * 8, 8);
		memcpy(&b, sub->bits + i * 8, 8);
		if ((b & ~a) != 0)
			return false;
	}
	return true;
}

void
bf_merge_family(bf_view *dst, const bf_view *a, const bf_view *b)
{
	const bf_view *from = a->family != BF_FAMILY_NONE ? a : b;

	if (a->layout == BF_LAYOUT_SPARK)
		dst->param = a->param;
	/* spark filters of two families: keys of either may be in the result */
	if (a->layout == BF_LAYOUT_SPARK && a->family != BF_FAMILY_NONE &&
		b->family != BF_FAMILY_NONE && a->family != b->family)
	{
		dst->family = BF_FAMILY_SPARK;
		dst->type_tag = 0;
		return;
	}
	dst->family = from->family;
	dst->type_tag = from->type_tag;
	if (dst->layout == BF_LAYOUT_PARQUET)
		dst->param = a->param != BF_PQ_UNSET ? a->param : b->param;
}
