/*
 * bf_index.h
 *		What the GiST (bf_gist.c) and GIN (bf_gin.c) operator classes
 *		share: the boxed probe key of their index conditions, and a key's
 *		type and hashes as a query sees them.
 */
#ifndef BF_INDEX_H
#define BF_INDEX_H

#include "bloomfilter.h"

/*
 * The right side of the index conditions `col @> gbloom_key(x)` (GiST) and
 * `col @> gbloom_index_key(x, index, column)` (GIN; also `col @>> ...` for
 * a superset query, the boxed value then being the filter q).  An index
 * support function is told neither the type of its query nor which index
 * it serves (nor, in GIN, the clause's collation), so the box carries
 * them: the type OID, the collation, the index and column (zero when
 * unknown), then the value in datumSerialize's format.  A box
 * exists only inside one query; it has no input function and no binary
 * form.
 */
typedef struct GBloomKeyBox
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	Oid			typid;
	Oid			collation;		/* the call's input collation */
	Oid			indexoid;		/* InvalidOid: not told */
	int32		attno;			/* the index column, from 1; 0: not told */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} GBloomKeyBox;

/* A box opened: the value is in the current memory context. */
typedef struct BloomIndexQueryKey
{
	Oid			typid;
	Oid			collation;
	Oid			indexoid;
	int32		attno;
	Datum		value;
} BloomIndexQueryKey;

extern void bloom_index_unbox(Datum box, BloomIndexQueryKey *key);

/*
 * The key type of a probe key, in mcxt.  Records (and arrays of records)
 * tell their column types through the value, so their key type is built
 * from it: callers that cache a key type must rebuild it per value then
 * (bloom_index_key_per_value).
 */
extern void bloom_index_key_type(BloomKeyType *kt, Oid typid, Datum value,
								 Oid collation, MemoryContext mcxt);
extern bool bloom_index_key_per_value(Oid typid);

/*
 * A probe key's hash under each seed the filters it meets use, remembered
 * (a column mixes a few seeds at most; past BLOOM_INDEX_NSEEDS a slot is
 * reused).  Hashing runs in hashcxt, reset after each hash, when given.
 */
#define BLOOM_INDEX_NSEEDS 8

typedef struct BloomSeedHashes
{
	int			n;
	uint64		seed[BLOOM_INDEX_NSEEDS];
	uint64		hash[BLOOM_INDEX_NSEEDS];
} BloomSeedHashes;

extern uint64 bloom_index_seed_hash(BloomSeedHashes *sh, const BloomKeyType *kt,
									Datum value, uint64 seed,
									MemoryContext hashcxt);

/*
 * The bloomfilter type's OID, found beside the function fn_oid (in the
 * extension's schema).
 */
extern Oid	bloom_index_filter_typid(Oid fn_oid);

#endif							/* BF_INDEX_H */
