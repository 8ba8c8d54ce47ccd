/*
 * variants/bf_variants.h
 *		What variants/bf_scalablebloom.c offers the other scalablebloom glue
 *		file (variants/bf_scalablebloom_union.c): a container decoded from a
 *		datum, and the ways to get one (the core's src/core/bf_scalable.c
 *		validates and walks the bytes).
 */
#ifndef BF_VARIANTS_H
#define BF_VARIANTS_H

#include "bloomfilter.h"

#include "core/bf_scalable.h"

/* A container decoded for reading or, for a private copy, writing. */
typedef struct Sbloom
{
	struct varlena *datum;
	bfs_header	h;
	bfs_entry  *e;				/* h.nfilters entries, pointing into datum */
} Sbloom;

/*
 * Validates untrusted bytes and returns a new datum holding them; an ERROR
 * with the given SQLSTATE says what is wrong otherwise.
 */
extern struct varlena *sbloom_from_bytes(const uint8 *data, size_t len,
										 int sqlstate);

/*
 * Decodes a datum that is already a scalablebloom (its structure checked:
 * a damaged page gives an ERROR); s->e is palloc'd.
 */
extern void sbloom_decode(struct varlena *d, Sbloom *s);

/* Argument n, detoasted (read-only), decoded. */
extern void sbloom_getarg(FunctionCallInfo fcinfo, int n, Sbloom *s);

#endif							/* BF_VARIANTS_H */
