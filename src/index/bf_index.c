/*
 * index/bf_index.c
 *		Index support shared by the GiST operator class and the bloomslice
 *		access method: the boxed probe key (gbloom_key) of their index
 *		conditions, and the key type of a probe key.
 *
 * `col @> x` is polymorphic in x, and an index support function is given
 * the query datum without its type; so the planner support function
 * (type/bf_planner.c) turns a probe into an index condition whose right side is
 * a box holding the value and its type.
 */
#include "index/bf_index.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(gbloom_key_in);
PG_FUNCTION_INFO_V1(gbloom_key_out);
PG_FUNCTION_INFO_V1(gbloom_key);

Datum
gbloom_key_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot accept a value of type %s", "gbloom_key"),
			 errdetail("gbloom_key values are built by gbloom_key(value) inside index conditions.")));
	PG_RETURN_VOID();			/* keep compiler quiet */
}

void
bloom_index_unbox(Datum d, BloomIndexQueryKey *key)
{
	GBloomKeyBox *box = (GBloomKeyBox *) PG_DETOAST_DATUM(d);
	char	   *p = box->data;
	bool		isnull;

	key->typid = box->typid;
	key->collation = box->collation;
	key->value = datumRestore(&p, &isnull);
	if (isnull)
		elog(ERROR, "gbloom_key holds a NULL");
	if ((Pointer) box != DatumGetPointer(d))
		pfree(box);
}

/* Text output (EXPLAIN VERBOSE may show one): the boxed value's own text. */
Datum
gbloom_key_out(PG_FUNCTION_ARGS)
{
	BloomIndexQueryKey key;
	Oid			outfn;
	bool		isvarlena;

	bloom_index_unbox(PG_GETARG_DATUM(0), &key);
	getTypeOutputInfo(key.typid, &outfn, &isvarlena);
	PG_RETURN_CSTRING(OidOutputFunctionCall(outfn, key.value));
}

static Datum
make_box(FunctionCallInfo fcinfo)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Datum		value = PG_GETARG_DATUM(0);
	int16		typlen;
	bool		typbyval;
	Size		sz;
	GBloomKeyBox *box;
	char	   *p;

	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the type of the bloomfilter key")));
	get_typlenbyval(typid, &typlen, &typbyval);
	/* a TOAST pointer is only valid while its row is: box the value itself */
	if (typlen == -1)
		value = PointerGetDatum(PG_DETOAST_DATUM(value));
	sz = datumEstimateSpace(value, false, typbyval, typlen);
	box = palloc0(offsetof(GBloomKeyBox, data) + sz);
	SET_VARSIZE(box, offsetof(GBloomKeyBox, data) + sz);
	box->typid = typid;
	box->collation = PG_GET_COLLATION();
	p = box->data;
	datumSerialize(value, false, typbyval, typlen, &p);
	PG_RETURN_POINTER(box);
}

/* gbloom_key(x): boxes x with its type. */
Datum
gbloom_key(PG_FUNCTION_ARGS)
{
	return make_box(fcinfo);
}

bool
bloom_index_key_per_value(Oid typid)
{
	Oid			base = getBaseType(typid);
	Oid			elem = get_element_type(base);

	return base == RECORDOID ||
		(OidIsValid(elem) && getBaseType(elem) == RECORDOID);
}

void
bloom_index_key_type(BloomKeyType *kt, Oid typid, Datum value,
					 Oid collation, MemoryContext mcxt)
{
	/*
	 * The scan key carries the clause's collation; a key of type record (or
	 * record[]) tells its columns through its value, a varlena either way.
	 */
	bloom_key_type_init(kt, typid, collation,
						bloom_index_key_per_value(typid) ?
						(Node *) makeConst(typid, -1, InvalidOid, -1,
										   value, false, false) : NULL,
						mcxt);
}

/* The cached hash of the key under seed, by this extension's or Spark's hashing. */
static uint64
seed_hash(BloomSeedHashes *sh, const BloomKeyType *kt, Datum value,
		  uint64 seed, MemoryContext hashcxt, bool spark)
{
	uint64		h;
	int			slot;

	for (int i = 0; i < sh->n; i++)
		if (sh->seed[i] == seed)
			return sh->hash[i];
	if (hashcxt != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(hashcxt);

		h = spark ? bloom_spark_hash(kt, value, seed) :
			bloom_hash_value(kt, value, seed);
		MemoryContextSwitchTo(old);
		MemoryContextReset(hashcxt);
	}
	else
		h = spark ? bloom_spark_hash(kt, value, seed) :
			bloom_hash_value(kt, value, seed);
	slot = sh->n < BLOOM_INDEX_NSEEDS ? sh->n++ : (int) (seed % BLOOM_INDEX_NSEEDS);
	sh->seed[slot] = seed;
	sh->hash[slot] = h;
	return h;
}

uint64
bloom_index_layout_hash(BloomLayoutHashes *lh, const BloomKeyType *kt,
						Datum value, int layout, uint64 seed,
						MemoryContext hashcxt)
{
	if (layout == BF_LAYOUT_SPARK)
		return seed_hash(&lh->spark, kt, value, seed, hashcxt, true);
	return seed_hash(&lh->own, kt, value, seed, hashcxt, false);
}
