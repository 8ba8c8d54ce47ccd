/*
 * bf_slice.c
 *		Transposing filters into bit slices, and the positions a superset
 *		test reads (see bf_slice.h and FORMAT.md).
 */
#include "bf_slice.h"

#include <stdlib.h>

int
bfsl_mask_count(const bfsl_mask *m)
{
	int			n = 0;

	for (int i = 0; i < BFSL_WORDS; i++)
		n += (int) bf_popcount64(m->w[i]);
	return n;
}

void
bfsl_transpose(uint64_t *slices, uint64_t s0, uint32_t ns,
			 const uint8_t *const *filters, const int *cols, int n,
			 uint64_t nbits)
{
	uint64_t	s1 = s0 + ns;
	bfsl_mask		keep;

	if (s1 > nbits)
		s1 = nbits;
	if (s0 >= s1)
		return;

	/* clear the written columns */
	bfsl_mask_fill(&keep, BFSL_C);
	for (int i = 0; i < n; i++)
		bfsl_mask_clear(&keep, cols[i]);
	for (uint64_t s = s0; s < s1; s++)
		bfsl_mask_and((bfsl_mask *) (slices + (s - s0) * BFSL_WORDS), keep.w);

	/*
	 * Then set each filter's bits: a filter's word at a time, its set bits
	 * only (about half of them at normal density).
	 */
	for (int i = 0; i < n; i++)
	{
		const uint8_t *bits = filters[i];
		uint64_t	colbit = UINT64_C(1) << (cols[i] & 63);
		int			colword = cols[i] >> 6;

		for (uint64_t w = s0 / 64; w * 64 < s1; w++)
		{
			uint64_t	word = bf_load_le64(bits + w * 8);

			/* bits of this word outside [s0, s1) */
			if (w * 64 < s0)
				word &= ~UINT64_C(0) << (s0 - w * 64);
			if (w * 64 + 64 > s1)
				word &= (UINT64_C(1) << (s1 - w * 64)) - 1;
			while (word != 0)
			{
				uint64_t	s = w * 64 + (uint64_t) __builtin_ctzll(word);

				word &= word - 1;
				slices[(s - s0) * BFSL_WORDS + colword] |= colbit;
			}
		}
	}
}

void
bfsl_untranspose(const uint64_t *slices, uint64_t nbits, int c, uint8_t *bits)
{
	memset(bits, 0, nbits / 8);
	for (uint64_t s = 0; s < nbits; s++)
		if ((slices[s * BFSL_WORDS + (c >> 6)] >> (c & 63)) & 1)
			bits[s >> 3] |= (uint8_t) (1u << (s & 7));
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

int
bfsl_sort_unique(uint64_t *pos, int n)
{
	int			m = 0;

	if (n <= 1)
		return n;
	qsort(pos, (size_t) n, sizeof(uint64_t), cmp_u64);
	for (int i = 0; i < n; i++)
		if (m == 0 || pos[m - 1] != pos[i])
			pos[m++] = pos[i];
	return m;
}

size_t
bfsl_tid_items_merge(uint64_t *items, size_t n)
{
	size_t		m = 0;
	size_t		i = 1;

	if (n <= 1)
		return n;
	/* often sorted already: blocks and pending pages fill in heap order */
	while (i < n && items[i - 1] <= items[i])
		i++;
	if (i < n)
		qsort(items, n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < n; i++)
	{
		if (m > 0 && (items[m - 1] >> 1) == (items[i] >> 1))
			items[m - 1] |= items[i];
		else
			items[m++] = items[i];
	}
	return m;
}

static int
log2_ratio(uint64_t big, uint64_t small)
{
	int			s = 0;

	while ((small << s) < big)
		s++;
	return s;
}

int64_t
bfsl_superset_positions(int layout, uint64_t nbits, const uint8_t *qbits,
					  uint64_t qnbits, uint64_t *pos, int64_t max, int *shift)
{
	int			sq = 0;
	int64_t		n = 0;

	*shift = 0;
	if (nbits > qnbits)
		*shift = log2_ratio(nbits, qnbits);
	else
		sq = log2_ratio(qnbits, nbits);

	for (uint64_t w = 0; w < qnbits / 64; w++)
	{
		uint64_t	word = bf_load_le64(qbits + w * 8);

		while (word != 0)
		{
			uint64_t	p = w * 64 + (uint64_t) __builtin_ctzll(word);
			uint64_t	fp;

			word &= word - 1;
			/* q folded to the filters' size, as bf_fold_or folds */
			if (layout == BF_LAYOUT_BLOCKED || layout == BF_LAYOUT_PARQUET)
			{
				uint64_t	bb = bfsl_fold_block_bits(layout);

				fp = ((p / bb) >> sq) * bb + p % bb;
			}
			else
				fp = p >> sq;
			if (n > 0 && pos[n - 1] == fp)
				continue;
			if (n == max)
			{
				/* duplicates only come from folding: compact, then retry */
				n = bfsl_sort_unique(pos, (int) n);
				if (n == max)
					return -1;
			}
			pos[n++] = fp;
		}
	}
	return bfsl_sort_unique(pos, (int) n);
}
