/*
 * type/bf_type_detoast.c
 *		The probes' "is this the filter seen last time?" cache: what each
 *		kind of value is recognized by and what is kept of it (see
 *		type/bf_type_detoast.h).
 */
#include "bloomfilter.h"

#include "type/bf_type_detoast.h"

void
bloom_detoast_cache_init(BloomDetoastCache *c, MemoryContext mcxt, uint32 head_len,
					  uint32 align_off, bool packed_ok)
{
	Assert(head_len >= VARHDRSZ && head_len <= BLOOM_DC_HEAD_MAX);
	c->mcxt = mcxt;
	c->head_len = head_len;
	c->align_off = align_off;
	c->packed_ok = packed_ok;
	c->source = c->pending = BLOOM_DC_NONE;
}

/*
 * Copies the detoasted value f into the cache's memory, with its byte at
 * align_off BF_BLOCK_BYTES aligned (a blocked filter's bit array: each
 * probe touches one cache line).
 */
static struct varlena *
aligned_copy(BloomDetoastCache *c, const struct varlena *f)
{
	Size		len = VARSIZE(f);
	char	   *base;
	uintptr_t	at;

	base = MemoryContextAllocHuge(c->mcxt, len + BF_BLOCK_BYTES);
	c->copy_alloc = base;
	at = (uintptr_t) base + c->align_off;
	base += (BF_BLOCK_BYTES - at % BF_BLOCK_BYTES) % BF_BLOCK_BYTES;
	memcpy(base, f, len);
	c->copy = (struct varlena *) base;
	return c->copy;
}

/* Frees what is kept; never a freed pointer left behind (an ERROR may come). */
static void
forget(BloomDetoastCache *c)
{
	c->source = c->pending = BLOOM_DC_NONE;
	if (c->copy_alloc != NULL)
		pfree(c->copy_alloc);
	c->copy_alloc = NULL;
	c->copy = NULL;
	if (c->compressed != NULL)
		pfree(c->compressed);
	c->compressed = NULL;
	c->inplace = NULL;
	c->nwatch = 0;
}

struct varlena *
bloom_detoast_cache_load(BloomDetoastCache *c, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);

	forget(c);
	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varlena *f;

		VARATT_EXTERNAL_GET_POINTER(c->ext, raw);
		f = detoast_attr(raw);
		aligned_copy(c, f);
		pfree(f);
		c->pending = BLOOM_DC_TOAST;
		return c->copy;
	}
	if (VARATT_IS_COMPRESSED(raw))
	{
		struct varlena *f = detoast_attr(raw);

		aligned_copy(c, f);
		pfree(f);
		c->compressed = MemoryContextAlloc(c->mcxt, VARSIZE(raw));
		memcpy(c->compressed, raw, VARSIZE(raw));
		c->pending = BLOOM_DC_COMPRESSED;
		return c->copy;
	}
	if (VARATT_IS_4B_U(raw))
	{
		c->inplace = raw;
		c->head_used = Min(c->head_len, VARSIZE(raw));
		memcpy(c->head, raw, c->head_used);
		c->pending = BLOOM_DC_INPLACE;
		return raw;
	}
	/* a short header, an expanded or indirect pointer: this call only */
	return c->packed_ok ? PG_DETOAST_DATUM_PACKED(d) : PG_DETOAST_DATUM(d);
}

void
bloom_detoast_cache_watch(BloomDetoastCache *c, size_t off)
{
	if (c->pending != BLOOM_DC_INPLACE)
		return;					/* a copy is recognized whole */
	Assert(off + sizeof(uint64) <= VARSIZE(c->head));
	if (c->nwatch == c->maxwatch)
	{
		uint32		n = Max(16, c->maxwatch * 2);

		/* each assigned at once: an ERROR leaves both at least maxwatch long */
		c->watch_off = c->watch_off == NULL ?
			MemoryContextAlloc(c->mcxt, n * sizeof(size_t)) :
			repalloc(c->watch_off, n * sizeof(size_t));
		c->watch_word = c->watch_word == NULL ?
			MemoryContextAlloc(c->mcxt, n * sizeof(uint64)) :
			repalloc(c->watch_word, n * sizeof(uint64));
		c->maxwatch = n;
	}
	c->watch_off[c->nwatch] = off;
	memcpy(&c->watch_word[c->nwatch], (const uint8 *) c->inplace + off, sizeof(uint64));
	c->nwatch++;
}
