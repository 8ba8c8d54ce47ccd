/*
 * bf_key.h
 *		The key API: which family a call's key type belongs to, and the
 *		hash of a value as its key bytes give it (src/core/FORMAT.md, "Key
 *		bytes").  Implemented in key/; how each SQL type is encoded is
 *		key/bf_key_encoding.h, private to key/.
 */
#ifndef BF_KEY_H
#define BF_KEY_H

#include "bloomfilter.h"

/* ---- key/bf_encode.c ---- */

/*
 * How values of one SQL type become the bytes that are hashed.  The common
 * scalar types have a kind of their own, so a probe costs one switch; every
 * other type is written by its encoder tree (key/bf_key_encoding.h) into a scratch
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

/* ---- key/bf_keytypes.c ---- */

/*
 * Can a value of type typid (a base type) under collation be hashed with
 * no ERROR?  What that rests on, beside the type: the scalar types never
 * fail; text (text, varchar, bpchar, name) under a deterministic collation
 * fails only where the database's text does not convert to UTF-8, the key
 * bytes of text; an enum's label is text too.  The callers (automatic
 * Bloom-joins, which must not fail where the plain join would not) judge
 * the encoding for the last two.
 */
typedef enum BloomKeySafety
{
	BKS_MAY_FAIL,				/* any other type, or a nondeterministic collation */
	BKS_SCALAR,					/* never fails */
	BKS_TEXT,					/* fails only if the text does not convert */
	BKS_ENUM					/* its label: as text */
} BloomKeySafety;

extern BloomKeySafety bloom_key_type_safety(Oid typid, Oid collation);

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

/* ---- type/bf_engines_spark.c ---- */
extern uint64 bloom_spark_hash(const BloomKeyType *kt, Datum value, uint64 seed);

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

/* Add counts of a filter's adds, stopping at the largest count. */
static inline uint64
bloom_add_saturating(uint64 a, uint64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
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


#endif							/* BF_KEY_H */
