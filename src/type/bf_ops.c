/*
 * type/bf_ops.c
 *		The bloomfilter functions of one filter and its keys: constructors,
 *		add and probe (with the probe cache of many keys).  Combining,
 *		equality and inspection are in type/bf_type_combine.c; the
 *		argument checks and the sizing math in type/bf_type_args.c.
 */
#include "key/bf_key.h"
#include "type/bf_type.h"
#include "engines/bf_engines.h"
#include "type/bf_type_detoast.h"
#include "type/bf_type_edges.h"

#include <math.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(bloomfilter_empty);
PG_FUNCTION_INFO_V1(bloomfilter_empty_bits);
PG_FUNCTION_INFO_V1(bloomfilter_add);
PG_FUNCTION_INFO_V1(bloomfilter_add_all);
PG_FUNCTION_INFO_V1(bloomfilter_contains);
PG_FUNCTION_INFO_V1(bloomfilter_contained_in);

/* A new empty filter of that geometry (checked by the caller). */
struct varlena *
bloom_make_empty(int layout, int hashes, uint64 seed, uint64 nbits)
{
	struct varlena *f = bloomfilter_alloc(nbits);

	bf_init((uint8 *) VARDATA(f), layout, hashes, seed, nbits);
	return f;
}

/*
 * What bloom_empty(capacity, fpr, layout, seed) returns, in the current
 * memory context: every argument checked, sized as the layout sizes (as
 * Spark's BloomFilter.create for spark).  bloom_agg(x, capacity, fpr,
 * layout) starts from the same filter.
 */
struct varlena *
bloom_empty_for(int layout, int64 capacity, double fpr, int64 seed)
{
	uint64		nbits;
	int			hashes;

	bloom_check_engine_seed(layout, seed);
	if (layout == BF_LAYOUT_SPARK)
	{
		bloom_check_capacity(capacity);
		bloom_check_fpr(fpr);
		return bloom_spark_empty(capacity, fpr, seed);
	}
	bloom_size_for(layout, capacity, fpr, &nbits, &hashes);
	return bloom_make_empty(layout, hashes, (uint64) seed, nbits);
}

/*
 * bloom_empty(capacity, fpr, layout, seed): the smallest filter of the
 * layout that keeps the rate at or under fpr after capacity distinct keys.
 */
Datum
bloomfilter_empty(PG_FUNCTION_ARGS)
{
	int64		capacity = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	int			layout = bloom_filter_layout_arg(PG_GETARG_TEXT_PP(2));
	int64		seed = PG_GETARG_INT64(3);

	PG_RETURN_POINTER(bloom_empty_for(layout, capacity, fpr, seed));
}

/*
 * bloom_empty_bits(bits, hashes, layout, seed): explicit m and k.  m is
 * rounded up to whole 64-bit words (classic) or 512-bit blocks (blocked).
 */
Datum
bloomfilter_empty_bits(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int32		hashes = PG_GETARG_INT32(1);
	int			layout = bloom_filter_layout_arg(PG_GETARG_TEXT_PP(2));
	int64		seed = PG_GETARG_INT64(3);
	uint64		unit = layout == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS :
		layout == BF_LAYOUT_PARQUET ? BF_PARQUET_BLOCK_BITS : 64;
	uint64		nbits;

	bloom_check_engine_seed(layout, seed);
	if (layout == BF_LAYOUT_PARQUET &&
		(hashes != BF_PARQUET_HASHES || bits > (int64) BF_PARQUET_MAX_BYTES * 8))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a parquet bloomfilter has 8 hashes and at most %d bits, not %d hashes and " INT64_FORMAT " bits",
						BF_PARQUET_MAX_BYTES * 8, hashes, bits),
				 errdetail("Parquet's split-block filter sets one bit in each of the eight 32-bit words of a block, and its bitset is at most 128 MiB.")));
	if (layout == BF_LAYOUT_SPARK)
		PG_RETURN_POINTER(bloom_spark_empty_bits(bits, hashes, seed));

	if (bits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size must be positive, not " INT64_FORMAT " bits", bits)));
	if ((uint64) bits > BF_MAX_NBITS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomfilter of " INT64_FORMAT " bits would exceed the largest bloomfilter", bits),
				 errdetail("The largest bloomfilter has " UINT64_FORMAT " bits, so that its text form fits in 1 GB.", (uint64) BF_MAX_NBITS)));
	if (hashes < BF_MIN_HASHES || hashes > BF_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter hashes must be between %d and %d, not %d",
						BF_MIN_HASHES, BF_MAX_HASHES, hashes)));
	nbits = ((uint64) bits + unit - 1) / unit * unit;
	PG_RETURN_POINTER(bloom_make_empty(layout, hashes, (uint64) seed, nbits));
}

/* ---- adding ---- */

/*
 * bloom_add(f, x): a copy of f with x added.  A NULL element leaves the
 * filter as it is; a NULL filter stays NULL.
 */
Datum
bloomfilter_add(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt;
	struct varlena *f;
	bf_view		v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	kt = bloom_key_type_cached(fcinfo, 1, false);
	f = bloomfilter_getarg_copy(fcinfo, 0, &v);
	bloom_adopt_family(&v, kt);
	bf_insert_hash(&v, v.layout == BF_LAYOUT_PARQUET ?
				   bloom_parquet_add_hash(&v, kt, PG_GETARG_DATUM(1)) :
				   bloom_hash_for(kt, PG_GETARG_DATUM(1), &v));
	bf_store_header((uint8 *) VARDATA(f), &v);
	bloom_warn_overfull(&v);
	PG_RETURN_POINTER(f);
}

/*
 * bloom_add_all(f, array): every non-NULL element added.  The hashes go to
 * bf_insert_batch a chunk at a time (the same bits as one by one, with the
 * cache misses of a large filter overlapped).
 */
#define ADD_ALL_CHUNK 1024

Datum
bloomfilter_add_all(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt = NULL;
	struct varlena *f;
	bf_view		v;
	ArrayType  *arr;
	ArrayIterator it;
	Datum		value;
	bool		isnull;
	bool		adopted = false;
	uint64		h[ADD_ALL_CHUNK];
	int			m = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	f = bloomfilter_getarg_copy(fcinfo, 0, &v);
	arr = PG_GETARG_ARRAYTYPE_P(1);
	it = array_create_iterator(arr, 0, NULL);
	while (array_iterate(it, &value, &isnull))
	{
		if (isnull)
			continue;
		if (!adopted)
		{
			/*
			 * Looked up at the first key: the columns of type record are
			 * told by an element, and an empty array has none.
			 */
			kt = bloom_key_type_cached(fcinfo, 1, true);
			bloom_adopt_family(&v, kt);
			adopted = true;
		}
		h[m++] = v.layout == BF_LAYOUT_PARQUET ?
			bloom_parquet_add_hash(&v, kt, value) :
			bloom_hash_for(kt, value, &v);
		if (m == ADD_ALL_CHUNK)
		{
			bf_insert_batch(&v, h, m);
			m = 0;
		}
	}
	bf_insert_batch(&v, h, m);
	array_free_iterator(it);
	bf_store_header((uint8 *) VARDATA(f), &v);
	bloom_warn_overfull(&v);
	PG_RETURN_POINTER(f);
}

/* ---- probing ---- */

/*
 * Per-call-site state of a probe: the key type, and the filter last seen
 * with its decoded header and the result of the family check, so a filter
 * that comes back row after row costs one identity test.
 *
 * Whether the filter passed is the one seen last time is the detoast
 * cache's to say (type/bf_type_detoast.h): a filter from TOAST or compressed
 * in the row is decompressed once into a kept copy, its bit array 64-byte
 * aligned so that each blocked probe touches one cache line; a plain
 * inline filter (a constant, a parameter, a small stored filter) is read
 * in place, recognized by its length and the bytes of its varlena and
 * filter headers.  The view kept here is a function of those bytes and the
 * address only (its bits pointer is the address plus a constant; the bits
 * are never kept), so another value at the same address, as a sort, a
 * group or a nested loop brings, is read right: with the same header it
 * has the same geometry and its own bits are probed, with another it is
 * decoded again; the same header at another address moves the bits
 * pointer there.
 *
 * A failed load (a family ERROR, a damaged value, out of memory) leaves
 * nothing kept: the detoast cache keeps the value last, so a call after a
 * caught ERROR never finds half of another filter's state.
 */
typedef struct BloomProbeCache
{
	BloomKeyType key;
	Oid			array_type;		/* keys are this array's elements (probes of
								 * many keys, type/bf_array.c); InvalidOid if a key
								 * is the argument itself */
	BloomDetoastCache dc;			/* is it the filter seen last time? */
	bf_view		view;			/* the current filter */
	size_t		bits_off;		/* of view.bits from the start of the value */
	bool		has_keys;		/* it holds keys of this call's family */
} BloomProbeCache;

/*
 * The cache of a call site; elements: the keys are the elements of the
 * array argument keyarg, not the argument itself.
 */
static BloomProbeCache *
probe_cache(FunctionCallInfo fcinfo, int keyarg, bool elements)
{
	BloomProbeCache *c = (BloomProbeCache *) fcinfo->flinfo->fn_extra;

	if (unlikely(c == NULL))
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomProbeCache));
		if (elements)
		{
			bloom_key_type_for_elements(&c->key, fcinfo, keyarg);
			c->array_type = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, keyarg));
		}
		else
			bloom_key_type_for_arg(&c->key, fcinfo, keyarg);
		bloom_detoast_cache_init(&c->dc, fcinfo->flinfo->fn_mcxt,
							  VARHDRSZ + BF_HEADER_SIZE, VARHDRSZ + BF_HEADER_SIZE, true);
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/*
 * A filter whose keys were whole arrays, probed with the elements of an
 * array of that type: the generic family error would name the two
 * families; this one says what went wrong.
 */
static void
check_element_family(const BloomProbeCache *c, const bf_view *v)
{
	BloomKeyType whole;

	if (v->family == BF_FAMILY_NONE ||
		(v->family == c->key.family && v->type_tag == c->key.type_tag))
		return;
	/* the columns of whole arrays of records cannot be known here */
	if (getBaseType(get_element_type(c->array_type)) == RECORDOID)
		return;
	bloom_key_type_init(&whole, c->array_type, InvalidOid, NULL, CurrentMemoryContext);
	if (v->family == whole.family && v->type_tag == whole.type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the filter holds whole arrays of type %s as keys, and its elements are probed one by one",
						format_type_be(c->array_type)),
				 errdetail("bloom_contains_all and bloom_filter_array probe each element of the array as a key of type %s.",
						   format_type_be(c->key.typid)),
				 errhint("To probe for an array as one key, use bloom_contains(f, array).")));
}

/* The slow path: a filter other than the one kept. */
static pg_noinline void
probe_cache_load(BloomProbeCache *c, Datum d)
{
	struct varlena *f = bloom_detoast_cache_load(&c->dc, d);
	bf_view		v;

	bloomfilter_view(f, &v);
	/* family errors are raised here, once, before anything is kept */
	if (OidIsValid(c->array_type))
		check_element_family(c, &v);
	c->has_keys = bloom_check_family(&v, &c->key);
	c->view = v;
	c->bits_off = v.bits - (uint8 *) f;
	bloom_detoast_cache_keep(&c->dc);
}

/* The view of d: the one kept if d is the filter kept. */
static inline void
probe_cache_get(BloomProbeCache *c, Datum d)
{
	switch (bloom_detoast_cache_lookup(&c->dc, d))
	{
		case BLOOM_DC_SAME:
			return;
		case BLOOM_DC_MOVED:
			c->view.bits = (uint8 *) DatumGetPointer(d) + c->bits_off;
			return;
		case BLOOM_DC_MISS:
			break;
	}
	probe_cache_load(c, d);
}

static inline bool
probe(FunctionCallInfo fcinfo, int filterarg, int keyarg)
{
	BloomProbeCache *c = probe_cache(fcinfo, keyarg, false);
	Datum		d = PG_GETARG_DATUM(filterarg);

	probe_cache_get(c, d);
	if (!c->has_keys)
		return false;			/* no key was ever added */
	if (unlikely(c->view.layout == BF_LAYOUT_PARQUET))
		return bloom_parquet_probe(&c->view, &c->key, PG_GETARG_DATUM(keyarg));
	return bf_probe_hash(&c->view, bloom_hash_for(&c->key, PG_GETARG_DATUM(keyarg), &c->view));
}

/* bloom_contains(f, x), f @> x: may x be in the set? */
Datum
bloomfilter_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(probe(fcinfo, 0, 1));
}

/* x <@ f */
Datum
bloomfilter_contained_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(probe(fcinfo, 1, 0));
}

/*
 * For probes of many keys (type/bf_array.c): the filter argument through this
 * call site's cache, as bloom_contains reads it, and in *kt the key type
 * of the elements of the array argument keyarg.  Returns NULL when the
 * filter holds no key yet (every probe is false).
 */
const bf_view *
bloom_probe_elements(FunctionCallInfo fcinfo, int filterarg, int keyarg,
					 const BloomKeyType **kt)
{
	BloomProbeCache *c = probe_cache(fcinfo, keyarg, true);
	Datum		d = PG_GETARG_DATUM(filterarg);

	probe_cache_get(c, d);
	*kt = &c->key;
	return c->has_keys ? &c->view : NULL;
}
