/*
 * bloomfilter.h
 *		What every folder of the glue shares: PostgreSQL's and the core's
 *		headers, and reading a bloomfilter datum (bf_datum.c).
 *
 * The glue is split by concern into the folders of src/ that src/README.md
 * lists; each folder's header declares what it offers the folders above it
 * (type/bf_type.h, key/bf_key.h, agg/bf_agg.h, autojoin/bf_autojoin.h,
 * index/bf_index.h, variants/bf_variants.h, ...), under the name of the
 * file that defines it.  All filter logic lives in the pure C core,
 * src/core/; the module's entry point and settings in src/bf_module.c.
 *
 * A bloomfilter datum is a varlena whose payload is the portable format
 * byte for byte, with the checksum field kept zero in memory and on disk
 * (it is filled in only when the bytes leave: output, send, bytea cast).
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "postgres.h"

#include "bf_compat.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/nodes.h"

#include "core/bf_core.h"

/* ---- bf_datum.c ---- */

/* palloc a datum able to hold a filter of nbits bits; bf_init fills it. */
extern struct varlena *bloomfilter_alloc(uint64 nbits);

/*
 * Validates untrusted bytes and returns a new datum holding them; an ERROR
 * with the given SQLSTATE says what is wrong otherwise.
 */
extern struct varlena *bloomfilter_from_bytes(const uint8 *data, size_t len,
											  int sqlstate);

/*
 * Decodes a datum that is already a bloomfilter (read-only).  The header
 * is checked for self-consistency, so a damaged page gives an ERROR, not a
 * wild read.
 */
extern void bloomfilter_view(struct varlena *f, bf_view *v);

/* Returns a detoasted, writable copy of argument n and its view. */
extern struct varlena *bloomfilter_getarg_copy(FunctionCallInfo fcinfo, int n,
											   bf_view *v);

/* Returns a read-only, detoasted (not necessarily copied) argument. */
extern struct varlena *bloomfilter_getarg(FunctionCallInfo fcinfo, int n,
										  bf_view *v);

#endif							/* BLOOMFILTER_H */
