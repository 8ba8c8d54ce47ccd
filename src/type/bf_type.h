/*
 * type/bf_type.h
 *		What the glue of the bloomfilter type offers the folders above it
 *		(agg/, variants/, and the files of type/ itself): the I/O every
 *		type of this extension shares (type/bf_io.c), the argument checks,
 *		layout names and sizing (type/bf_type_args.c), and the rules of
 *		combining two filters (type/bf_type_combine.c).
 *
 * Reading a bloomfilter datum (bloomfilter_view, bloomfilter_getarg) is
 * in bloomfilter.h (src/bf_datum.c): every folder reads filters.
 */
#ifndef BF_TYPE_H
#define BF_TYPE_H

#include "key/bf_key.h"
#include "engines/bf_engines.h"

/* ---- type/bf_io.c ---- */

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

/* A new empty filter of that geometry (checked by the caller). */
extern struct varlena *bloom_make_empty(int layout, int hashes, uint64 seed,
										uint64 nbits);

/* bloom_empty(capacity, fpr, layout, seed)'s filter, arguments checked */
extern struct varlena *bloom_empty_for(int layout, int64 capacity, double fpr,
									  int64 seed);

/* ---- type/bf_type_args.c ---- */

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

/* ---- type/bf_type_combine.c ---- */

/*
 * f @>> g, the exact superset test with folding and its errors (the
 * indexes call it for their exact leaf tests).
 */
extern PGDLLEXPORT Datum bloomfilter_contains_filter(PG_FUNCTION_ARGS);

/* ERROR saying why filters a and b cannot be combined (what: "union" ...). */
pg_noreturn extern void bloom_report_incompatible(bf_compat c, const char *what,
												  const bf_view *a, const bf_view *b);

/*
 * WARNING if a union's rate is far past its inputs' (the union folded a
 * filter of larger_bits, or 0, to r's size).
 */
extern void bloom_warn_union_rate(const bf_view *r, uint64 larger_bits,
								  double input_fpr);

/* ---- type/bf_type_keys.c ---- */

/*
 * Checks that keys of type kt may be probed in v: ERROR naming both
 * families if not.  Returns false if the filter holds no key yet.
 */
extern bool bloom_check_family(const bf_view *v, const BloomKeyType *kt);

/* Same check for adding; an empty filter adopts kt's family. */
extern void bloom_adopt_family(bf_view *v, const BloomKeyType *kt);

/*
 * The hash of a key for filter v: as its layout hashes keys (Spark's own
 * hashing for layout spark).
 */
static inline uint64
bloom_hash_for(const BloomKeyType *kt, Datum value, const bf_view *v)
{
	if (v->layout == BF_LAYOUT_SPARK)
		return bloom_spark_hash(kt, value, v->seed);
	return bloom_hash_fast(kt, value, v->seed);
}

/* ---- type/bf_ops.c: the probe cache, for probes of many keys ---- */

/*
 * The filter argument filterarg, read through the call site's cache as
 * bloom_contains reads it (detoasted once, family checked once), and in *kt
 * the key type of the elements of the array argument keyarg.  NULL when
 * the filter holds no key yet.
 */
extern const bf_view *bloom_probe_elements(FunctionCallInfo fcinfo, int filterarg,
										   int keyarg, const BloomKeyType **kt);

#endif							/* BF_TYPE_H */
