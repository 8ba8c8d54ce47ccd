/*
 * type/bf_ops.c
 *		Constructors, add and probe, combining, equality, inspection and the
 *		sizing-math functions.
 */
#include "key/bf_key.h"
#include "type/bf_type.h"
#include "type/bf_engines_spark.h"
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
PG_FUNCTION_INFO_V1(bloomfilter_union);
PG_FUNCTION_INFO_V1(bloomfilter_intersect);
PG_FUNCTION_INFO_V1(bloomfilter_contains_filter);
PG_FUNCTION_INFO_V1(bloomfilter_contained_in_filter);
PG_FUNCTION_INFO_V1(bloomfilter_eq);
PG_FUNCTION_INFO_V1(bloomfilter_ne);
PG_FUNCTION_INFO_V1(bloomfilter_hash);
PG_FUNCTION_INFO_V1(bloomfilter_info);
PG_FUNCTION_INFO_V1(bloomfilter_cardinality);
PG_FUNCTION_INFO_V1(bloomfilter_fpr);
PG_FUNCTION_INFO_V1(bloomfilter_union_cardinality);
PG_FUNCTION_INFO_V1(bloomfilter_intersection_cardinality);
PG_FUNCTION_INFO_V1(bloomfilter_jaccard);
PG_FUNCTION_INFO_V1(bloomfilter_optimal_bits);
PG_FUNCTION_INFO_V1(bloomfilter_optimal_hashes);
PG_FUNCTION_INFO_V1(bloomfilter_expected_fpr);

/* ---- argument checks shared by the constructors and sizing functions ---- */

void
bloom_check_capacity(int64 capacity)
{
	if (capacity <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter capacity must be positive, not " INT64_FORMAT, capacity)));
}

void
bloom_check_fpr(double fpr)
{
	if (!(fpr > 0.0 && fpr < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter false-positive rate must be between 0 and 1 (exclusive), not %g", fpr)));
}

/*
 * A rate in (0, 1) that no blocked filter reaches, whatever its size (below
 * about 1e-24: 32 hashes in one 512-bit block): the same ERROR for every
 * constructor that sizes a blocked filter, self-sizing or not.
 */
void
bloom_check_blocked_rate(double fpr)
{
	if (!bf_auto_reachable(fpr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no blocked bloomfilter reaches a false-positive rate of %g", fpr),
				 errhint("Ask for a higher rate, or use the classic layout.")));
}

/*
 * The geometry of the smallest filter of the layout that holds capacity
 * keys at rate fpr, with the arguments checked: ERROR if none fits.
 */
void
bloom_size_for(int layout, int64 capacity, double fpr, uint64 *nbits, int *hashes)
{
	bloom_check_capacity(capacity);
	bloom_check_fpr(fpr);
	if (layout == BF_LAYOUT_BLOCKED)
		bloom_check_blocked_rate(fpr);
	if (!bf_size_for(layout, (double) capacity, fpr, nbits, hashes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomfilter for " INT64_FORMAT " keys at rate %g would exceed the largest bloomfilter",
						capacity, fpr)));
}

int
bloom_layout_arg(text *t)
{
	char	   *name = text_to_cstring(t);
	int			layout = bf_layout_from_name(name);

	if (layout == 0 || layout > BF_LAYOUT_BLOCKED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bloomfilter layout \"%s\"", name),
				 errhint(layout == 0 ? "The layouts are 'classic' and 'blocked'." :
						 "Only bloomfilter values take the layouts of other engines; the layouts here are 'classic' and 'blocked'.")));
	return layout;
}

/*
 * The layout argument of a bloomfilter constructor: classic, blocked, or a
 * layout of another engine (FORMAT.md, "Version 2").
 */
int
bloom_filter_layout_arg(text *t)
{
	char	   *name = text_to_cstring(t);
	int			layout = bf_layout_from_name(name);

	if (layout == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bloomfilter layout \"%s\"", name),
				 errhint("The layouts are 'classic', 'blocked', 'parquet' and 'spark'.")));
	return layout;
}

/* Parquet's filters hash without a seed: only 0 is theirs. */
void
bloom_check_engine_seed(int layout, int64 seed)
{
	if (layout == BF_LAYOUT_PARQUET && seed != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a parquet bloomfilter has seed 0, not " INT64_FORMAT, seed),
				 errdetail("Parquet hashes keys with XXH64 and seed 0.")));
}

static struct varlena *
make_empty(int layout, int hashes, uint64 seed, uint64 nbits)
{
	struct varlena *f = bloomfilter_alloc(nbits);

	bf_init((uint8 *) VARDATA(f), layout, hashes, seed, nbits);
	return f;
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
	uint64		nbits;
	int			hashes;

	bloom_check_engine_seed(layout, seed);
	if (layout == BF_LAYOUT_SPARK)
		PG_RETURN_POINTER(bloom_spark_empty(capacity, fpr, seed));
	bloom_size_for(layout, capacity, fpr, &nbits, &hashes);
	PG_RETURN_POINTER(make_empty(layout, hashes, (uint64) seed, nbits));
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
	PG_RETURN_POINTER(make_empty(layout, hashes, (uint64) seed, nbits));
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
	BfDetoastCache dc;			/* is it the filter seen last time? */
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
		bf_detoast_cache_init(&c->dc, fcinfo->flinfo->fn_mcxt,
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
	struct varlena *f = bf_detoast_cache_load(&c->dc, d);
	bf_view		v;

	bloomfilter_view(f, &v);
	/* family errors are raised here, once, before anything is kept */
	if (OidIsValid(c->array_type))
		check_element_family(c, &v);
	c->has_keys = bloom_check_family(&v, &c->key);
	c->view = v;
	c->bits_off = v.bits - (uint8 *) f;
	bf_detoast_cache_keep(&c->dc);
}

/* The view of d: the one kept if d is the filter kept. */
static inline void
probe_cache_get(BloomProbeCache *c, Datum d)
{
	switch (bf_detoast_cache_lookup(&c->dc, d))
	{
		case BFDC_SAME:
			return;
		case BFDC_MOVED:
			c->view.bits = (uint8 *) DatumGetPointer(d) + c->bits_off;
			return;
		case BFDC_MISS:
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

/* ---- combining ---- */

void
bloom_report_incompatible(bf_compat c, const char *what, const bf_view *a,
						  const bf_view *b)
{
	ereport(ERROR,
			(errcode(c == BF_COMPAT_FAMILY || c == BF_COMPAT_PARAM ? ERRCODE_DATATYPE_MISMATCH : ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot %s bloomfilters: %s", what, bf_compat_message(c)),
			 errdetail("The first is %s with " UINT64_FORMAT " bits, %d hashes, seed " INT64_FORMAT " and key family \"%s\"; the second is %s with " UINT64_FORMAT " bits, %d hashes, seed " INT64_FORMAT " and key family \"%s\".",
					   bf_layout_name(a->layout), a->nbits, a->hashes, (int64) a->seed,
					   bloom_family_display(a->family, a->type_tag),
					   bf_layout_name(b->layout), b->nbits, b->hashes, (int64) b->seed,
					   bloom_family_display(b->family, b->type_tag)),
			 c == BF_COMPAT_HASHES ?
			 errhint("Filters built for different false-positive rates use different numbers of hashes. Build every filter that will be combined for one rate: bloom_agg(x) always sizes for 1%%, bloom_agg(x, fpr) for the rate given, bloom_agg(x, capacity, fpr) at one explicit size. No setting changes these rates (bloomfilter.default_fpr is only the rate of automatic Bloom-join filters).") :
			 c == BF_COMPAT_SIZE ?
			 errhint("Filters combine when their sizes are equal or one is the other's times a power of two. Size every filter that will be combined alike: for one capacity and rate (bloom_empty(capacity, fpr), bloom_agg(x, capacity, fpr)), or self-sized (bloom_agg(x), bloom_agg(x, fpr)), which always gives a power-of-two number of blocks.") : 0));
}

/*
 * Brings a and b to one geometry: *rv (a new datum) holds a folded to the
 * common size, and *bv is b itself or, if b is larger, a folded copy.
 */
static struct varlena *
common_geometry(const char *what, bf_view *a, bf_view *b, bf_view *rv,
				bf_view *bfolded)
{
	uint64		nbits;
	bf_compat	c = bf_compatible(a, b, &nbits);
	struct varlena *r;

	if (c != BF_COMPAT_OK)
		bloom_report_incompatible(c, what, a, b);
	r = make_empty(a->layout, a->hashes, a->seed, nbits);
	bf_view_of((uint8 *) VARDATA(r), rv);
	bf_fold_or(rv, a);
	if (b->nbits == nbits)
		*bfolded = *b;
	else
	{
		struct varlena *t = make_empty(b->layout, b->hashes, b->seed, nbits);

		bf_view_of((uint8 *) VARDATA(t), bfolded);
		bf_fold_or(bfolded, b);
	}
	bf_merge_family(rv, a, b);
	return r;
}

/*
 * A union holds the keys of all its inputs in one filter: when each input
 * was sized for its own keys (self-sized bloom_agg on shards, say), the
 * union holds more keys than any of them was sized for, and a union of
 * filters of different sizes is folded to the smallest, crowding the keys
 * of the larger into fewer bits.  That is correct (no key is lost, and
 * bloom_info tells the rate) but can make a filter that prunes nothing,
 * which deserves a word.  larger_bits is the largest filter folded, or 0.
 */
void
bloom_warn_union_rate(const bf_view *r, uint64 larger_bits, double input_fpr)
{
	double		fpr = bf_est_fpr(r);

	if (!(fpr > 0.05 && fpr > 10 * input_fpr))
		return;
	if (larger_bits > r->nbits)
		ereport(WARNING,
				(errmsg("bloomfilter union folded a filter of " UINT64_FORMAT " bits to " UINT64_FORMAT " bits; its false-positive rate is now %.3g",
						larger_bits, r->nbits, fpr),
				 errhint("Filters that will be combined keep their rate when built at one size for all their keys, with bloom_agg(x, capacity, fpr), or as scalablebloom filters, with sbloom_agg(x).")));
	else
		ereport(WARNING,
				(errmsg("bloomfilter union of filters of " UINT64_FORMAT " bits has a false-positive rate of %.3g; the filters united had at most %.3g",
						r->nbits, fpr, input_fpr),
				 errdetail("Each filter was sized for fewer keys than the union holds."),
				 errhint("Filters that will be combined keep their rate when built at one size for all their keys, with bloom_agg(x, capacity, fpr), or as scalablebloom filters, with sbloom_agg(x).")));
}

/*
 * bloom_union(f, g), f | g: every key of either.  A NULL operand is the
 * empty set (as array_cat treats NULL), so that f | (an aggregate over no
 * rows) keeps f: not STRICT.
 */
Datum
bloomfilter_union(PG_FUNCTION_ARGS)
{
	bf_view		a,
				b,
				r,
				bf;
	struct varlena *res;

	BLOOM_UNION_NULL_OPERANDS(fcinfo);
	bloomfilter_getarg(fcinfo, 0, &a);
	bloomfilter_getarg(fcinfo, 1, &b);
	res = common_geometry("union", &a, &b, &r, &bf);
	bf_or(&r, &bf);
	r.added = bloom_add_saturating(a.added, b.added);
	bf_store_header((uint8 *) VARDATA(res), &r);
	/* the inputs' rates cost two passes over their bits: only when needed */
	if (bf_est_fpr(&r) > 0.05)
		bloom_warn_union_rate(&r, a.nbits != b.nbits ? Max(a.nbits, b.nbits) : 0,
							  Max(bf_est_fpr(&a), bf_est_fpr(&b)));
	PG_RETURN_POINTER(res);
}

/*
 * bloom_intersect(f, g), f & g: the AND of the bits.  Every key in both
 * sets probes true; its rate is at most either input's.  "added" is the
 * smaller of the two counts, a bound on the keys the result can hold.
 */
Datum
bloomfilter_intersect(PG_FUNCTION_ARGS)
{
	bf_view		a,
				b,
				r,
				bf;
	struct varlena *res;

	bloomfilter_getarg(fcinfo, 0, &a);
	bloomfilter_getarg(fcinfo, 1, &b);
	res = common_geometry("intersect", &a, &b, &r, &bf);
	bf_and(&r, &bf);
	r.added = Min(a.added, b.added);
	bf_store_header((uint8 *) VARDATA(res), &r);
	PG_RETURN_POINTER(res);
}

/* Is every bit of sub set in super (after folding to one size)? */
static bool
superset(bf_view *super, bf_view *sub)
{
	bf_view		r,
				s;

	(void) common_geometry("compare", super, sub, &r, &s);
	return bf_is_superset(&r, &s);
}

/* bloom_contains_filter(f, g), f @> g: every bit of g is set in f. */
Datum
bloomfilter_contains_filter(PG_FUNCTION_ARGS)
{
	bf_view		a,
				b;

	bloomfilter_getarg(fcinfo, 0, &a);
	bloomfilter_getarg(fcinfo, 1, &b);
	PG_RETURN_BOOL(superset(&a, &b));
}

/* g <@ f */
Datum
bloomfilter_contained_in_filter(PG_FUNCTION_ARGS)
{
	bf_view		a,
				b;

	bloomfilter_getarg(fcinfo, 0, &a);
	bloomfilter_getarg(fcinfo, 1, &b);
	PG_RETURN_BOOL(superset(&b, &a));
}

/* ---- equality: identical filters (same header fields and bits) ---- */

static bool
filters_equal(FunctionCallInfo fcinfo)
{
	bf_view		a,
				b;
	struct varlena *fa = bloomfilter_getarg(fcinfo, 0, &a);
	struct varlena *fb = bloomfilter_getarg(fcinfo, 1, &b);

	/* the checksum field is zero in memory: the bytes are canonical */
	return VARSIZE_ANY_EXHDR(fa) == VARSIZE_ANY_EXHDR(fb) &&
		memcmp(VARDATA_ANY(fa), VARDATA_ANY(fb), VARSIZE_ANY_EXHDR(fa)) == 0;
}

Datum
bloomfilter_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_equal(fcinfo));
}

Datum
bloomfilter_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!filters_equal(fcinfo));
}

Datum
bloomfilter_hash(PG_FUNCTION_ARGS)
{
	bf_view		v;
	struct varlena *f = bloomfilter_getarg(fcinfo, 0, &v);

	PG_RETURN_INT32((int32) bf_hash_bytes(0, VARDATA_ANY(f), VARSIZE_ANY_EXHDR(f)));
}

/* ---- inspection and estimates ---- */

Datum
bloomfilter_info(PG_FUNCTION_ARGS)
{
	bf_view		v;
	struct varlena *f = bloomfilter_getarg(fcinfo, 0, &v);
	TupleDesc	tupdesc;
	Datum		values[12];
	bool		nulls[12] = {0};
	uint64		set = bf_popcount(&v);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	values[0] = CStringGetTextDatum(bf_layout_name(v.layout));
	values[1] = Int64GetDatum((int64) v.nbits);
	values[2] = Int32GetDatum(v.hashes);
	values[3] = Int64GetDatum((int64) VARSIZE_ANY_EXHDR(f));
	values[4] = Int64GetDatum((int64) v.seed);
	if (v.layout == BF_LAYOUT_PARQUET && v.param != BF_PQ_UNSET)
		values[5] = CStringGetTextDatum(psprintf("%s (%s)",
												 bloom_family_display(v.family, v.type_tag),
												 bf_parquet_type_name(v.param)));
	else
		values[5] = CStringGetTextDatum(bloom_family_display(v.family, v.type_tag));
	/* a count past int8's range is reported as the largest int8 */
	values[6] = Int64GetDatum(v.added > (uint64) PG_INT64_MAX ? PG_INT64_MAX : (int64) v.added);
	values[7] = Int64GetDatum((int64) set);
	values[8] = Float8GetDatum((double) set / (double) v.nbits);
	values[9] = Float8GetDatum(bf_est_cardinality(&v));
	values[10] = Float8GetDatum(bf_est_fpr(&v));
	values[11] = Int32GetDatum(bf_load_le16((uint8 *) VARDATA_ANY(f) + BF_OFF_VERSION));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
bloomfilter_cardinality(PG_FUNCTION_ARGS)
{
	bf_view		v;

	bloomfilter_getarg(fcinfo, 0, &v);
	PG_RETURN_FLOAT8(bf_est_cardinality(&v));
}

Datum
bloomfilter_fpr(PG_FUNCTION_ARGS)
{
	bf_view		v;

	bloomfilter_getarg(fcinfo, 0, &v);
	PG_RETURN_FLOAT8(bf_est_fpr(&v));
}

/* Estimated sizes of the union and of the intersection of f and g. */
static void
union_and_intersection(FunctionCallInfo fcinfo, double *uni, double *inter)
{
	bf_view		a,
				b,
				r,
				bf,
				fa;
	double		ca,
				cb;

	bloomfilter_getarg(fcinfo, 0, &a);
	bloomfilter_getarg(fcinfo, 1, &b);
	(void) common_geometry("compare", &a, &b, &r, &bf);
	/* estimate each side at the common size so the three agree */
	fa = r;
	ca = bf_est_cardinality(&fa);
	cb = bf_est_cardinality(&bf);
	bf_or(&r, &bf);
	*uni = bf_est_cardinality(&r);
	*inter = ca + cb - *uni;
	if (*inter < 0)
		*inter = 0;
}

Datum
bloomfilter_union_cardinality(PG_FUNCTION_ARGS)
{
	double		u,
				i;

	union_and_intersection(fcinfo, &u, &i);
	PG_RETURN_FLOAT8(u);
}

Datum
bloomfilter_intersection_cardinality(PG_FUNCTION_ARGS)
{
	double		u,
				i;

	union_and_intersection(fcinfo, &u, &i);
	PG_RETURN_FLOAT8(i);
}

Datum
bloomfilter_jaccard(PG_FUNCTION_ARGS)
{
	double		u,
				i;

	union_and_intersection(fcinfo, &u, &i);
	PG_RETURN_FLOAT8(u > 0 ? Min(1.0, i / u) : 0.0);
}

/* ---- sizing math, as in the textbook ---- */

Datum
bloomfilter_optimal_bits(PG_FUNCTION_ARGS)
{
	int64		capacity = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	double		m;

	bloom_check_capacity(capacity);
	bloom_check_fpr(fpr);
	m = bf_optimal_bits((double) capacity, fpr);
	if (m >= (double) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bit count out of range for bigint")));
	PG_RETURN_INT64((int64) m);
}

Datum
bloomfilter_optimal_hashes(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int64		capacity = PG_GETARG_INT64(1);

	if (bits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size must be positive, not " INT64_FORMAT " bits", bits)));
	bloom_check_capacity(capacity);
	PG_RETURN_INT32(bf_optimal_hashes((double) bits, (double) capacity));
}

Datum
bloomfilter_expected_fpr(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int32		hashes = PG_GETARG_INT32(1);
	int64		n = PG_GETARG_INT64(2);

	if (bits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size must be positive, not " INT64_FORMAT " bits", bits)));
	if (hashes < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter hashes must be positive, not %d", hashes)));
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of keys must not be negative, not " INT64_FORMAT, n)));
	PG_RETURN_FLOAT8(bf_expected_fpr((double) bits, hashes, (double) n));
}
