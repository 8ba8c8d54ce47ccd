/*
 * bf_combine.h
 *		Combining filters (bf_combine.c).
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_COMBINE_H
#define BF_COMBINE_H

#include <stdbool.h>

#include "bf_defs.h"

typedef enum bf_compat
{
	BF_COMPAT_OK = 0,
	BF_COMPAT_LAYOUT,
	BF_COMPAT_HASHES,
	BF_COMPAT_SEED,
	BF_COMPAT_FAMILY,
	BF_COMPAT_SIZE,
	BF_COMPAT_WIDTH,			/* counting filters: other counter widths */
	BF_COMPAT_PARAM				/* parquet: other physical types */
} bf_compat;

/*
 * Can a and b be combined?  Sizes are compatible when equal or when one is
 * the other times a power of two (the larger folds).  On BF_COMPAT_OK,
 * *nbits_out is the common (smaller) size.
 */
extern bf_compat bf_compatible(const bf_view *a, const bf_view *b,
							   uint64_t *nbits_out);
extern const char *bf_compat_message(bf_compat c);

/*
 * Folds src into dst, whose nbits divides src's by a power of two and
 * whose other geometry is equal: OR of the bits that map to the same
 * position.  dst's bits are ORed into, not overwritten.
 */
extern void bf_fold_or(bf_view *dst, const bf_view *src);

/* dst |= src / dst &= src, same geometry. */
extern void bf_or(bf_view *dst, const bf_view *src);
extern void bf_and(bf_view *dst, const bf_view *src);

/* Every bit set in sub is set in super (same geometry). */
extern bool bf_is_superset(const bf_view *super, const bf_view *sub);

/* Merged family of two compatible filters (NONE yields to the other). */
extern void bf_merge_family(bf_view *dst, const bf_view *a, const bf_view *b);

#endif							/* BF_COMBINE_H */
