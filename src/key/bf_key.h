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
 * ERROR: filter v holds keys of another family than kt's (adding: kt's
 * key was being added), with a hint at what to do.
 */
pg_noreturn extern void bloom_family_mismatch(const bf_view *v, const BloomKeyType *kt,
											  bool adding);

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

/* Add counts of a filter's adds, stopping at the largest count. */
static inline uint64
bloom_add_saturating(uint64 a, uint64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif							/* BF_KEY_H */
