/*
 * bf_slice.h
 *		Bit-sliced blocks of filters (the bloomslice index's math): no
 *		PostgreSQL header, unit-tested in test/core.
 *
 * A block holds up to BFSL_C filters of one geometry transposed: slice j is
 * a BFSL_C-bit word array (BFSL_WORDS uint64 words, native byte order) whose
 * bit c says whether the filter in column c has bit j set.  A key's
 * answer for a block is the AND of the slices at its k positions; a
 * superset query's answer is the AND of the slices at q's set bits (each
 * an OR of the 2^shift slices that fold onto the bit when the block's
 * filters are larger than q).
 */
#ifndef BF_SLICE_H
#define BF_SLICE_H

#include "bf_core.h"

#define BFSL_C			512		/* filters per block */
#define BFSL_WORDS		(BFSL_C / 64)
#define BFSL_SLICE_BYTES	(BFSL_C / 8)

/* A C-bit word array: a slice, or a set of columns. */
typedef struct bfsl_mask
{
	uint64_t	w[BFSL_WORDS];
} bfsl_mask;

static inline void
bfsl_mask_fill(bfsl_mask *m, int ncols)
{
	for (int i = 0; i < BFSL_WORDS; i++)
	{
		int			lo = i * 64;

		if (ncols >= lo + 64)
			m->w[i] = ~UINT64_C(0);
		else if (ncols <= lo)
			m->w[i] = 0;
		else
			m->w[i] = (UINT64_C(1) << (ncols - lo)) - 1;
	}
}

static inline void
bfsl_mask_and(bfsl_mask *acc, const uint64_t *slice)
{
	for (int i = 0; i < BFSL_WORDS; i++)
		acc->w[i] &= slice[i];
}

static inline void
bfsl_mask_or(bfsl_mask *acc, const uint64_t *slice)
{
	for (int i = 0; i < BFSL_WORDS; i++)
		acc->w[i] |= slice[i];
}

static inline bool
bfsl_mask_empty(const bfsl_mask *m)
{
	uint64_t	x = 0;

	for (int i = 0; i < BFSL_WORDS; i++)
		x |= m->w[i];
	return x == 0;
}

static inline bool
bfsl_mask_test(const bfsl_mask *m, int c)
{
	return (m->w[c >> 6] >> (c & 63)) & 1;
}

static inline void
bfsl_mask_set(bfsl_mask *m, int c)
{
	m->w[c >> 6] |= UINT64_C(1) << (c & 63);
}

static inline void
bfsl_mask_clear(bfsl_mask *m, int c)
{
	m->w[c >> 6] &= ~(UINT64_C(1) << (c & 63));
}

extern int	bfsl_mask_count(const bfsl_mask *m);

/*
 * Writes columns cols[0 .. n-1] of slices [s0, s0 + ns) (slices: ns *
 * BFSL_WORDS words) from filters[i], whose bits (nbits of them, the portable
 * format's byte order) become column cols[i].  Each written column is
 * cleared first, so a column left half-written by a crash is overwritten,
 * never ORed into.
 */
extern void bfsl_transpose(uint64_t *slices, uint64_t s0, uint32_t ns,
						 const uint8_t *const *filters, const int *cols, int n,
						 uint64_t nbits);

/*
 * Reads column c of slices [0, nbits) back into a filter's bits (nbits / 8
 * bytes, zeroed first): the inverse of bfsl_transpose, for tests and checks.
 */
extern void bfsl_untranspose(const uint64_t *slices, uint64_t nbits, int c,
						   uint8_t *bits);

/*
 * The positions a superset test reads for q (bits of qnbits) in filters of
 * nbits bits, of the given layout, both of one compatible geometry:
 * writes q's set bits, folded to nbits when q is larger, into pos (sorted,
 * at most max); returns their count, or -1 if more than max.  When the
 * filters are larger than q (*shift > 0), each position p stands for the
 * 2^shift slices bfsl_fold_slice(layout, p, shift, i) for i < 2^shift.
 */
extern int64_t bfsl_superset_positions(int layout, uint64_t nbits, const uint8_t *qbits,
									 uint64_t qnbits, uint64_t *pos, int64_t max,
									 int *shift);

/*
 * The unit folding keeps whole (bf_fold_or): a block of blocked and parquet
 * filters, 1 bit otherwise.
 */
static inline uint64_t
bfsl_fold_block_bits(int layout)
{
	return layout == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS :
		layout == BF_LAYOUT_PARQUET ? BF_PARQUET_BLOCK_BITS : 1;
}

/* The i-th slice of a larger filter that folds onto bit p (see above). */
static inline uint64_t
bfsl_fold_slice(int layout, uint64_t p, int shift, uint64_t i)
{
	if (layout == BF_LAYOUT_BLOCKED || layout == BF_LAYOUT_PARQUET)
	{
		uint64_t	bb = bfsl_fold_block_bits(layout);
		uint64_t	blk = p / bb,
					off = p % bb;

		return ((blk << shift) + i) * bb + off;
	}
	return (p << shift) + i;
}

/* Sorts n positions in place, and drops duplicates; returns the new n. */
extern int	bfsl_sort_unique(uint64_t *pos, int n);

/*
 * A candidate row of an index scan that returns rows one by one: its heap
 * TID (block, offset) and whether the table must recheck it, packed so that
 * the items sort in heap order.
 */
static inline uint64_t
bfsl_tid_item(uint32_t block, uint16_t offset, int recheck)
{
	return ((uint64_t) block << 17) | ((uint64_t) offset << 1) | (recheck ? 1 : 0);
}

static inline uint32_t
bfsl_tid_item_block(uint64_t item)
{
	return (uint32_t) (item >> 17);
}

static inline uint16_t
bfsl_tid_item_offset(uint64_t item)
{
	return (uint16_t) ((item >> 1) & 0xFFFF);
}

static inline int
bfsl_tid_item_recheck(uint64_t item)
{
	return (int) (item & 1);
}

/*
 * Sorts n items into heap order and leaves one per TID, to be rechecked if
 * any of its copies was (a row can be met twice: in the pending area, then
 * in the block a concurrent flush moved it to); returns the new n.
 */
extern size_t bfsl_tid_items_merge(uint64_t *items, size_t n);

#endif							/* BF_SLICE_H */
