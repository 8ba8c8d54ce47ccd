/*
 * type/bf_type_detoast.h
 *		One "is this the filter seen last time?" cache, under the probes of
 *		every filter type (type/bf_ops.c, bf_scalable.c, bf_counting.c,
 *		bf_window.c), defined in type/bf_type_detoast.c.
 *
 * A probe is called row after row at one call site, mostly with the same
 * filter.  This cache says whether the value passed now is the one seen
 * last time, and keeps what is costly to make again: the detoasted copy of
 * a value read from TOAST or compressed in the row, in the call site's
 * memory (fn_mcxt).  Each type keeps its own decoded view of the value on
 * top, valid as long as this cache says the value is the same.
 *
 * What "the same value" means, by where the value comes from:
 *
 *  - TOAST (an on-disk external pointer): the whole TOAST pointer (value
 *	  id, TOAST relation, raw and stored sizes) is equal.  Stored values
 *	  never change; a changed filter is written as a new value id.
 *
 *  - compressed in the row: the compressed bytes are equal, compared in
 *	  full (a few kB at most: far cheaper than decompressing, and an
 *	  address alone may be reused for another row's value).
 *
 *  - in place (a 4-byte header, not compressed: a constant, a parameter, a
 *	  value computed by the query, a small stored value): nothing is
 *	  copied, the type's view points into the value.  An address is no
 *	  identity (a sort, a group, a window or a nested loop hands value after
 *	  value at one address), so every lookup compares the bytes the view was
 *	  decoded from: the length, the first head_len bytes (the varlena header
 *	  and the type's header), and any further 8-byte words the type watched
 *	  (bf_detoast_cache_watch).  If they agree the view is right for the
 *	  value now passed: at the same address as is (BFDC_SAME), at another
 *	  after moving its pointers onto the new address (BFDC_MOVED).  The
 *	  rest of the value (the bits) is never kept: it is read in place at
 *	  every call.
 *
 *  - anything else (a short header, an expanded or indirect pointer):
 *	  detoasted for the one call, never recognized again.
 *
 * A load keeps nothing until the type has decoded the value and calls
 * bf_detoast_cache_keep: a decoding that raises an ERROR (a damaged value,
 * a family mismatch, out of memory) leaves a cache that finds no value
 * the same, never half of another value's state.
 */
#ifndef BF_TYPE_DETOAST_H
#define BF_TYPE_DETOAST_H

#include "postgres.h"

#include "bf_compat.h"

#include "access/detoast.h"

/* the most bytes from the start of an in-place value compared as its head */
#define BFDC_HEAD_MAX	80

typedef enum BfDetoastSource
{
	BFDC_NONE,					/* nothing kept */
	BFDC_TOAST,
	BFDC_COMPRESSED,
	BFDC_INPLACE
} BfDetoastSource;

typedef enum BfDetoastMatch
{
	BFDC_MISS,					/* another value: bf_detoast_cache_load it */
	BFDC_SAME,					/* the value kept, the type's view as is */
	BFDC_MOVED					/* in place at another address: move the
								 * view's pointers onto it */
} BfDetoastMatch;

typedef struct BfDetoastCache
{
	MemoryContext mcxt;			/* where the copies live (fn_mcxt) */
	uint32		head_len;		/* in place: bytes compared from the start */
	uint32		align_off;		/* a kept copy's byte at this offset is
								 * BF_BLOCK_BYTES aligned */
	bool		packed_ok;		/* a short header may be read as is */
	BfDetoastSource source;		/* what is kept (set by keep, last) */
	BfDetoastSource pending;	/* what the last load will keep */

	struct varatt_external ext; /* BFDC_TOAST: the TOAST pointer */
	struct varlena *compressed; /* BFDC_COMPRESSED: the compressed bytes */
	void	   *copy_alloc;		/* BFDC_TOAST, BFDC_COMPRESSED: the copy */
	struct varlena *copy;		/* ... aligned inside copy_alloc */

	const struct varlena *inplace;	/* BFDC_INPLACE: the address */
	uint32		head_used;		/* Min(head_len, its length) */
	uint8		head[BFDC_HEAD_MAX];	/* its first head_used bytes */
	uint32		nwatch;			/* words watched beyond the head */
	uint32		maxwatch;
	size_t	   *watch_off;		/* their offsets from the start */
	uint64	   *watch_word;		/* their values */
} BfDetoastCache;

/*
 * Prepares a zeroed cache: copies in mcxt (the call site's fn_mcxt), in
 * place the first head_len bytes compared (at most BFDC_HEAD_MAX), a kept
 * copy's byte at align_off aligned on BF_BLOCK_BYTES, and packed_ok if the
 * type reads a value of short header (not aligned) as well.
 */
extern void bf_detoast_cache_init(BfDetoastCache *c, MemoryContext mcxt,
								  uint32 head_len, uint32 align_off,
								  bool packed_ok);

/*
 * Forgets the value kept and returns d flat, for the type to decode: the
 * new kept copy (TOAST, compressed), d itself (in place), or d detoasted in
 * the current memory context (anything else, for this call only).
 */
extern struct varlena *bf_detoast_cache_load(BfDetoastCache *c, Datum d);

/*
 * In place only, between load and keep: watches the 8 bytes at off (from
 * the start of the value; off + 8 within its length), which the type's view
 * was decoded from, beyond the head.
 */
extern void bf_detoast_cache_watch(BfDetoastCache *c, size_t off);

/* The type decoded the value loaded last: it is kept from now on. */
static inline void
bf_detoast_cache_keep(BfDetoastCache *c)
{
	c->source = c->pending;
}

/* Do the words watched agree with raw, of the kept length? */
static inline bool
bf_detoast_cache_watched_same(const BfDetoastCache *c, const struct varlena *raw)
{
	const uint8 *p = (const uint8 *) raw;
	uint64		diff = 0;

	/* no branch per word: the differences are gathered */
	for (uint32 i = 0; i < c->nwatch; i++)
	{
		uint64		w;

		memcpy(&w, p + c->watch_off[i], sizeof(uint64));
		diff |= w ^ c->watch_word[i];
	}
	return diff == 0;
}

/*
 * Is d the value kept?  BFDC_MOVED: it is the in-place value's bytes at
 * another address, now the one the cache points at; the type moves its
 * view's pointers onto d.
 */
static inline BfDetoastMatch
bf_detoast_cache_lookup(BfDetoastCache *c, Datum d)
{
	const struct varlena *raw = (const struct varlena *) DatumGetPointer(d);

	switch (c->source)
	{
		case BFDC_INPLACE:
			/* the length first: nothing is read past raw's end */
			if (!VARATT_IS_4B_U(raw) ||
				VARSIZE(raw) != VARSIZE(c->head) ||
				memcmp(raw, c->head, c->head_used) != 0 ||
				!bf_detoast_cache_watched_same(c, raw))
				return BFDC_MISS;
			if (raw == c->inplace)
				return BFDC_SAME;
			c->inplace = raw;
			return BFDC_MOVED;
		case BFDC_TOAST:
			if (VARATT_IS_EXTERNAL_ONDISK(raw))
			{
				struct varatt_external ext;

				VARATT_EXTERNAL_GET_POINTER(ext, raw);
				if (ext.va_valueid == c->ext.va_valueid &&
					ext.va_toastrelid == c->ext.va_toastrelid &&
					ext.va_rawsize == c->ext.va_rawsize &&
					ext.va_extinfo == c->ext.va_extinfo)
					return BFDC_SAME;
			}
			return BFDC_MISS;
		case BFDC_COMPRESSED:
			if (VARATT_IS_COMPRESSED(raw) &&
				VARSIZE(raw) == VARSIZE(c->compressed) &&
				memcmp(raw, c->compressed, VARSIZE(raw)) == 0)
				return BFDC_SAME;
			return BFDC_MISS;
		case BFDC_NONE:
			return BFDC_MISS;
	}
	return BFDC_MISS;
}

/*
 * For a type that decodes its view at every call and keeps none: d flat,
 * the kept copy when d is the value kept (TOAST, compressed), d itself in
 * place, else loaded and kept at once.
 */
static inline struct varlena *
bf_detoast_cache_fetch(BfDetoastCache *c, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *f;

	if (VARATT_IS_4B_U(raw))
		return raw;				/* read in place, nothing to keep */
	if (bf_detoast_cache_lookup(c, d) == BFDC_SAME)
		return c->copy;
	f = bf_detoast_cache_load(c, d);
	bf_detoast_cache_keep(c);
	return f;
}

#endif							/* BF_TYPE_DETOAST_H */
