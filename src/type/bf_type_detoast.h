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
 *	  (bloom_detoast_cache_watch).  If they agree the view is right for the
 *	  value now passed: at the same address as is (BLOOM_DC_SAME), at another
 *	  after moving its pointers onto the new address (BLOOM_DC_MOVED).  The
 *	  rest of the value (the bits) is never kept: it is read in place at
 *	  every call.
 *
 *  - anything else (a short header, an expanded or indirect pointer):
 *	  detoasted for the one call, never recognized again.
 *
 * A load keeps nothing until the type has decoded the value and calls
 * bloom_detoast_cache_keep: a decoding that raises an ERROR (a damaged value,
 * a family mismatch, out of memory) leaves a cache that finds no value
 * the same, never half of another value's state.
 */
#ifndef BF_TYPE_DETOAST_H
#define BF_TYPE_DETOAST_H

#include "postgres.h"

#include "bf_compat.h"

#include "access/detoast.h"

/* the most bytes from the start of an in-place value compared as its head */
#define BLOOM_DC_HEAD_MAX	80

typedef enum BloomDetoastSource
{
	BLOOM_DC_NONE,					/* nothing kept */
	BLOOM_DC_TOAST,
	BLOOM_DC_COMPRESSED,
	BLOOM_DC_INPLACE
} BloomDetoastSource;

typedef enum BloomDetoastMatch
{
	BLOOM_DC_MISS,					/* another value: bloom_detoast_cache_load it */
	BLOOM_DC_SAME,					/* the value kept, the type's view as is */
	BLOOM_DC_MOVED					/* in place at another address: move the
								 * view's pointers onto it */
} BloomDetoastMatch;

typedef struct BloomDetoastCache
{
	MemoryContext mcxt;			/* where the copies live (fn_mcxt) */
	uint32		head_len;		/* in place: bytes compared from the start */
	uint32		align_off;		/* a kept copy's byte at this offset is
								 * BF_BLOCK_BYTES aligned */
	bool		packed_ok;		/* a short header may be read as is */
	BloomDetoastSource source;		/* what is kept (set by keep, last) */
	BloomDetoastSource pending;	/* what the last load will keep */

	struct varatt_external ext; /* BLOOM_DC_TOAST: the TOAST pointer */
	struct varlena *compressed; /* BLOOM_DC_COMPRESSED: the compressed bytes */
	void	   *copy_alloc;		/* BLOOM_DC_TOAST, BLOOM_DC_COMPRESSED: the copy */
	struct varlena *copy;		/* ... aligned inside copy_alloc */

	const struct varlena *inplace;	/* BLOOM_DC_INPLACE: the address */
	uint32		head_used;		/* Min(head_len, its length) */
	uint8		head[BLOOM_DC_HEAD_MAX];	/* its first head_used bytes */
	uint32		nwatch;			/* words watched beyond the head */
	uint32		maxwatch;
	size_t	   *watch_off;		/* their offsets from the start */
	uint64	   *watch_word;		/* their values */
} BloomDetoastCache;

/*
 * Prepares a zeroed cache: copies in mcxt (the call site's fn_mcxt), in
 * place the first head_len bytes compared (at most BLOOM_DC_HEAD_MAX), a kept
 * copy's byte at align_off aligned on BF_BLOCK_BYTES, and packed_ok if the
 * type reads a value of short header (not aligned) as well.
 */
extern void bloom_detoast_cache_init(BloomDetoastCache *c, MemoryContext mcxt,
								  uint32 head_len, uint32 align_off,
								  bool packed_ok);

/*
 * Forgets the value kept and returns d flat, for the type to decode: the
 * new kept copy (TOAST, compressed), d itself (in place), or d detoasted in
 * the current memory context (anything else, for this call only).
 */
extern struct varlena *bloom_detoast_cache_load(BloomDetoastCache *c, Datum d);

/*
 * In place only, between load and keep: watches the 8 bytes at off (from
 * the start of the value; off + 8 within its length), which the type's view
 * was decoded from, beyond the head.
 */
extern void bloom_detoast_cache_watch(BloomDetoastCache *c, size_t off);

/* The type decoded the value loaded last: it is kept from now on. */
static inline void
bloom_detoast_cache_keep(BloomDetoastCache *c)
{
	c->source = c->pending;
}

/* Do the words watched agree with raw, of the kept length? */
static inline bool
bloom_detoast_cache_watched_same(const BloomDetoastCache *c, const struct varlena *raw)
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
 * Is d the value kept?  BLOOM_DC_MOVED: it is the in-place value's bytes at
 * another address, now the one the cache points at; the type moves its
 * view's pointers onto d.
 */
static inline BloomDetoastMatch
bloom_detoast_cache_lookup(BloomDetoastCache *c, Datum d)
{
	const struct varlena *raw = (const struct varlena *) DatumGetPointer(d);

	switch (c->source)
	{
		case BLOOM_DC_INPLACE:
			/* the length first: nothing is read past raw's end */
			if (!VARATT_IS_4B_U(raw) ||
				VARSIZE(raw) != VARSIZE(c->head) ||
				memcmp(raw, c->head, c->head_used) != 0 ||
				!bloom_detoast_cache_watched_same(c, raw))
				return BLOOM_DC_MISS;
			if (raw == c->inplace)
				return BLOOM_DC_SAME;
			c->inplace = raw;
			return BLOOM_DC_MOVED;
		case BLOOM_DC_TOAST:
			if (VARATT_IS_EXTERNAL_ONDISK(raw))
			{
				struct varatt_external ext;

				VARATT_EXTERNAL_GET_POINTER(ext, raw);
				if (ext.va_valueid == c->ext.va_valueid &&
					ext.va_toastrelid == c->ext.va_toastrelid &&
					ext.va_rawsize == c->ext.va_rawsize &&
					ext.va_extinfo == c->ext.va_extinfo)
					return BLOOM_DC_SAME;
			}
			return BLOOM_DC_MISS;
		case BLOOM_DC_COMPRESSED:
			if (VARATT_IS_COMPRESSED(raw) &&
				VARSIZE(raw) == VARSIZE(c->compressed) &&
				memcmp(raw, c->compressed, VARSIZE(raw)) == 0)
				return BLOOM_DC_SAME;
			return BLOOM_DC_MISS;
		case BLOOM_DC_NONE:
			return BLOOM_DC_MISS;
	}
	return BLOOM_DC_MISS;
}

/*
 * For a type that decodes its view at every call and keeps none: d flat,
 * the kept copy when d is the value kept (TOAST, compressed), d itself in
 * place, else loaded and kept at once.
 */
static inline struct varlena *
bloom_detoast_cache_fetch(BloomDetoastCache *c, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *f;

	if (VARATT_IS_4B_U(raw))
		return raw;				/* read in place, nothing to keep */
	if (bloom_detoast_cache_lookup(c, d) == BLOOM_DC_SAME)
		return c->copy;
	f = bloom_detoast_cache_load(c, d);
	bloom_detoast_cache_keep(c);
	return f;
}

#endif							/* BF_TYPE_DETOAST_H */
