/*
 * bloomfilter.h
 *		Declarations shared by the PostgreSQL glue files.
 *
 * The glue is split by concern into the .c files of src/ that the README
 * lists in its layout (I/O, key encoding, functions and operators, aggregates,
 * the indexes, the planner, the other three types, automatic Bloom-joins);
 * this header declares what each offers the others, under the name of the
 * file that defines it.  Headers beside it declare what one group of files
 * shares (bf_keyenc.h, bf_index.h, bf_gbloom.h, bf_slice_private.h,
 * bf_join_pushdown.h, bf_sbloom.h, bf_agg_state.h), or what one file
 * offers many (bf_report.h, bf_detoast_cache.h).
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

#include "bf_core.h"

/* ---- bf_guc.c ---- */

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

/* ---- bf_autojoin.c ---- */

/* Installs the planner hook of automatic Bloom-joins. */
extern void bloom_autojoin_install(void);
/* Was it installed (the library loaded at start)? */
extern bool bloom_autojoin_installed(void);

/* ---- bf_io.c ---- */

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

/* ---- bf_agg.c ---- */

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
 * The six SQL entry points of a type's I/O and bytea casts, prefix_in,
 * prefix_out, prefix_recv, prefix_send, prefix_to_bytea and
 * prefix_from_bytea, served by the BloomTypeIO io.
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
} \
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

/* ---- bf_ops.c ---- */

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

/* ---- bf_agg.c ---- */

/* The aggregate's memory context; ERROR if fname is called outside one. */
extern MemoryContext bloom_agg_context(FunctionCallInfo fcinfo, const char *fname);

/* ---- bf_encode.c ---- */

/*
 * How values of one SQL type become the bytes that are hashed.  The common
 * scalar types have a kind of their own, so a probe costs one switch; every
 * other type is written by its encoder tree (bf_keyenc.h) into a scratch
 * context that is reset after each value.
 */
typedef enum BloomKeyKind
{
	BK_INT2,
	BK_INT4,
	BK_INT8,
	BK_FLOAT4,
	BK_FLOAT8,
	BK_NUMERIC,
	BK_TEXT,					/* text, varchar, bpchar in a UTF-8 database */
	BK_BYTEA,
	BK_UUID,
	BK_BOOL,
	BK_DATE,
	BK_TIMESTAMP,				/* timestamp and timestamptz */
	BK_ENCODED					/* any other type: its encoder tree */
} BloomKeyKind;

struct BloomEnc;

typedef struct BloomKeyType
{
	Oid			typid;			/* the element's type, domains resolved */
	BloomKeyKind kind;
	uint16		family;			/* bf_family */
	uint32		type_tag;		/* for the tagged families */
	struct BloomEnc *enc;		/* BK_ENCODED: how values are written */
	MemoryContext scratch;		/* BK_ENCODED: reset after each value */
} BloomKeyType;

/*
 * Fills kt for keys of type typid compared under collation; hint, if not
 * NULL, is an expression giving such keys (it tells the columns of type
 * record).  ERROR if keys of the type cannot be hashed consistently with
 * its equality.  What kt needs lives in mcxt.
 */
extern void bloom_key_type_init(BloomKeyType *kt, Oid typid, Oid collation,
								Node *hint, MemoryContext mcxt);

/*
 * Looks up (once per call site, cached in fn_extra-owned memory by the
 * caller) the key type of argument argno.
 */
extern void bloom_key_type_for_arg(BloomKeyType *kt, FunctionCallInfo fcinfo,
								   int argno);
/* The same, with what kt needs in mcxt rather than the call's fn_mcxt. */
extern void bloom_key_type_for_arg_in(BloomKeyType *kt, FunctionCallInfo fcinfo,
									  int argno, MemoryContext mcxt);

/*
 * The key type of a call site's argument argno (is_array: of its elements),
 * cached in fn_extra: the call site must keep nothing else there.
 */
extern BloomKeyType *bloom_key_type_cached(FunctionCallInfo fcinfo, int argno,
										   bool is_array);

/*
 * The key type of the elements of array argument argno (the filter's keys
 * when an array's elements are added or probed one by one).
 */
extern void bloom_key_type_for_elements(BloomKeyType *kt, FunctionCallInfo fcinfo,
										int argno);

/* Hash of a non-null value under the filter's seed. */
extern uint64 bloom_hash_value(const BloomKeyType *kt, Datum value, uint64 seed);

/*
 * Checks that keys of type kt may be probed in v: ERROR naming both
 * families if not.  Returns false if the filter holds no key yet.
 */
extern bool bloom_check_family(const bf_view *v, const BloomKeyType *kt);

/* Same check for adding; an empty filter adopts kt's family. */
extern void bloom_adopt_family(bf_view *v, const BloomKeyType *kt);

/* "integer", "text", ... or "other (typename)" for messages */
extern char *bloom_family_display(uint16 family, uint32 type_tag);

/* Hash with an integer fast path: the hot path of probes. */
static inline uint64
bloom_hash_fast(const BloomKeyType *kt, Datum value, uint64 seed)
{
	switch (kt->kind)
	{
		case BK_INT8:
			return bf_hash_int64(seed, DatumGetInt64(value));
		case BK_INT4:
			return bf_hash_int64(seed, DatumGetInt32(value));
		default:
			return bloom_hash_value(kt, value, seed);
	}
}

/* Add counts of a filter's adds, stopping at the largest count. */
static inline uint64
bloom_add_saturating(uint64 a, uint64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- bf_ops.c: the probe cache, for probes of many keys ---- */

/*
 * The filter argument filterarg, read through the call site's cache as
 * bloom_contains reads it (detoasted once, family checked once), and in *kt
 * the key type of the elements of the array argument keyarg.  NULL when
 * the filter holds no key yet.
 */
extern const bf_view *bloom_probe_elements(FunctionCallInfo fcinfo, int filterarg,
										   int keyarg, const BloomKeyType **kt);

#endif							/* BLOOMFILTER_H */
