/*
 * index/bf_index.h
 *		What the index support shares (the GiST operator class, index/gist/bf_gist.c,
 *		and the bloomslice access method, bf_slice_*.c): the boxed probe key
 *		of their index conditions, and a key's type and hashes as a query
 *		sees them.
 */
#ifndef BF_INDEX_H
#define BF_INDEX_H

#include "key/bf_key.h"
#include "type/bf_type.h"

/*
 * The right side of the index condition `col @> gbloom_key(x)`.  An index
 * support function is not told the type of its query, so the box carries
 * it: the type OID, the call's collation, then the value in
 * datumSerialize's format.  A box exists only inside one query; it has no
 * input function and no binary form.
 */
typedef struct GBloomKeyBox
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	Oid			typid;
	Oid			collation;		/* the call's input collation */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} GBloomKeyBox;

/* A box opened: the value is in the current memory context. */
typedef struct BloomIndexQueryKey
{
	Oid			typid;
	Oid			collation;
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

/*
 * One per hashing, for filters of any layout: a spark filter hashes keys as Spark
 * does (bloom_spark_hash, which the key type must accept), the others as
 * bloom_hash_value; each has its own cache, as one seed means both.
 */
typedef struct BloomLayoutHashes
{
	BloomSeedHashes own;
	BloomSeedHashes spark;
} BloomLayoutHashes;

extern uint64 bloom_index_layout_hash(BloomLayoutHashes *lh, const BloomKeyType *kt,
									  Datum value, int layout, uint64 seed,
									  MemoryContext hashcxt);

#endif							/* BF_INDEX_H */
