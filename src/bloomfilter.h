/*
 * bloomfilter.h
 *		Declarations shared by the PostgreSQL glue files.
 *
 * The glue is split by concern into the .c files of src/ that the README
 * lists in its layout (I/O, key encoding, functions and operators, aggregates,
 * the indexes, the planner, the other three types, automatic Bloom-joins);
 * this header declares what each offers the others, under the name of the
 * file that defines it.  Headers beside it declare what one group of files
 * shares (key/bf_key_encoding.h, index/bf_index.h, index/gist/bf_gist_index.h, index/slice/bf_slice_index.h,
 * autojoin/bf_autojoin.h, variants/bf_variants.h, agg/bf_agg.h), or what one file
 * offers many (type/bf_type_report.h, type/bf_type_detoast.h).
 * All filter logic lives in the pure C core, src/core/.
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

/* ---- type/bf_guc.c ---- */

extern double bloomfilter_default_fpr;

/*
 * The rate bloom_agg(x) and sbloom_agg(x) size for: a constant, never a
 * setting (an immutable aggregate's bytes must not depend on the server that
 * computes them; bloom_agg(x, fpr) takes another rate as an argument).
 */
#define BLOOM_AGG_FPR		0.01
extern int	bloomfilter_agg_max_capacity;
extern bool bloomfilter_join_pushdown;
extern double bloomfilter_join_pushdown_min_rows;
extern double bloomfilter_join_pushdown_max_fraction;

/* ---- autojoin/bf_autojoin_hook.c ---- */

/* Installs the planner hook of automatic Bloom-joins. */
extern void bloom_autojoin_install(void);
/* Was it installed (the library loaded at start)? */
extern bool bloom_autojoin_installed(void);

/* ---- type/bf_io.c ---- */

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

/* ---- agg/bf_agg_entry.c ---- */

/* bloom_agg(x)'s transition at a given rate (for sbloom_agg). */
extern Datum bloom_auto_agg_trans_at(FunctionCallInfo fcinfo, double fpr);

/* The filter an aggregate's (non-NULL) state gives (for sbloom_agg). */
extern struct varlena *bloom_agg_result(void *state, bool *warned);

/*
 * The text, binary and bytea forms every type of this extension shares:
 * base64 of the portable bytes, the bytes themselves, and the bytes as a
 * bytea.  A type describes how its bytes are validated and sealed; the
 * datum functions of each type are then one line each.
 */
typedef struct BloomTypeIO
{
	const char *name;			/* the SQL type, for messages */
	/* validates untrusted bytes into a new datum, or ERROR with sqlstate */
	struct varlena *(*from_bytes) (const uint8 *data, size_t len, int sqlstate);
	/* ERROR if a stored datum is damaged (its header disagrees with it) */
	void		(*check) (struct varlena *d);
	/* fills in the checksum of a copy of the payload that is leaving */
	void		(*seal) (uint8 *buf, size_t len);
} BloomTypeIO;

extern struct varlena *bloom_type_in(const BloomTypeIO *t, const char *raw);
extern char *bloom_type_out(const BloomTypeIO *t, struct varlena *d);
extern struct varlena *bloom_type_recv(const BloomTypeIO *t, StringInfo msg);
extern bytea *bloom_type_send(const BloomTypeIO *t, struct varlena *d);
extern bytea *bloom_type_to_bytea(const BloomTypeIO *t, struct varlena *d);
extern struct varlena *bloom_type_from_bytea(const BloomTypeIO *t, bytea *b);

/*
 * The four SQL entry points of a type's I/O, prefix_in, prefix_out,
 * prefix_recv and prefix_send, served by the BloomTypeIO io; with
 * BLOOM_TYPE_BYTEA_CASTS, the two of its bytea casts, prefix_to_bytea and
 * prefix_from_bytea (bloomfilter_aggstate has no such casts).
 */
#define BLOOM_TYPE_IO_FUNCTIONS(prefix, io) \
PG_FUNCTION_INFO_V1(prefix##_in); \
Datum \
prefix##_in(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_POINTER(bloom_type_in(&(io), PG_GETARG_CSTRING(0))); \
} \
PG_FUNCTION_INFO_V1(prefix##_out); \
Datum \
prefix##_out(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_CSTRING(bloom_type_out(&(io), PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)))); \
} \
PG_FUNCTION_INFO_V1(prefix##_recv); \
Datum \
prefix##_recv(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_POINTER(bloom_type_recv(&(io), (StringInfo) PG_GETARG_POINTER(0))); \
} \
PG_FUNCTION_INFO_V1(prefix##_send); \
Datum \
prefix##_send(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BYTEA_P(bloom_type_send(&(io), PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)))); \
}
#define BLOOM_TYPE_BYTEA_CASTS(prefix, io) \
PG_FUNCTION_INFO_V1(prefix##_to_bytea); \
Datum \
prefix##_to_bytea(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BYTEA_P(bloom_type_to_bytea(&(io), PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)))); \
} \
PG_FUNCTION_INFO_V1(prefix##_from_bytea); \
Datum \
prefix##_from_bytea(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_POINTER(bloom_type_from_bytea(&(io), PG_GETARG_BYTEA_PP(0))); \
}

/* ---- type/bf_ops.c ---- */

/*
 * f @>> g, the exact superset test with folding and its errors (the
 * indexes call it for their exact leaf tests).
 */
extern PGDLLEXPORT Datum bloomfilter_contains_filter(PG_FUNCTION_ARGS);

/* ERRORs for arguments out of range, shared by constructors and aggregates */
extern void bloom_check_capacity(int64 capacity);
extern void bloom_check_fpr(double fpr);

/* ERROR if no blocked filter reaches rate fpr (in (0, 1)), whatever its size. */
extern void bloom_check_blocked_rate(double fpr);

/* BF_LAYOUT_* of a layout name; ERROR naming the layouts if unknown. */
extern int	bloom_layout_arg(text *t);
/* the same for bloomfilter constructors: also the layouts of other engines */
extern int	bloom_filter_layout_arg(text *t);
/* ERROR unless seed is one the layout allows (parquet: 0) */
extern void bloom_check_engine_seed(int layout, int64 seed);

/* bf_size_for with its arguments checked; ERROR if no filter fits. */
extern void bloom_size_for(int layout, int64 capacity, double fpr,
						   uint64 *nbits, int *hashes);

/* ERROR saying why filters a and b cannot be combined (what: "union" ...). */
pg_noreturn extern void bloom_report_incompatible(bf_compat c, const char *what,
												  const bf_view *a, const bf_view *b);

/*
 * WARNING if a union's rate is far past its inputs' (the union folded a
 * filter of larger_bits, or 0, to r's size).
 */
extern void bloom_warn_union_rate(const bf_view *r, uint64 larger_bits,
								  double input_fpr);

/* ---- agg/bf_agg_entry.c ---- */

/* The aggregate's memory context; ERROR if fname is called outside one. */
extern MemoryContext bloom_agg_context(FunctionCallInfo fcinfo, const char *fname);

#endif							/* BLOOMFILTER_H */
