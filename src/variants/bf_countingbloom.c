/*
 * bf_counting.c
 *		The countingbloom type: a counting Bloom filter, whose keys can be
 *		removed.  Type I/O and casts, constructors, add/remove/probe/count,
 *		union, the cast to bloomfilter, inspection, and cbloom_agg.
 *
 * A countingbloom datum is a varlena whose payload is the counting format
 * (FORMAT.md, "The counting filter format") byte for byte, with the
 * checksum field kept zero in memory and on disk, as for bloomfilter.  All
 * filter logic is in the core (src/core/bf_counting.c); keys are hashed by
 * the bloomfilter's canonical encoding (key/bf_encode.c), so a countingbloom
 * and a bloomfilter of one geometry put a key at the same positions.
 */
#include "key/bf_key.h"
#include "type/bf_type_detoast.h"
#include "core/bf_counting.h"
#include "type/bf_type_edges.h"
#include "bf_report.h"
#include "agg/bf_agg_type.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(countingbloom_empty);
PG_FUNCTION_INFO_V1(countingbloom_empty_counters);
PG_FUNCTION_INFO_V1(countingbloom_add);
PG_FUNCTION_INFO_V1(countingbloom_remove);
PG_FUNCTION_INFO_V1(countingbloom_add_all);
PG_FUNCTION_INFO_V1(countingbloom_remove_all);
PG_FUNCTION_INFO_V1(countingbloom_contains);
PG_FUNCTION_INFO_V1(countingbloom_contained_in);
PG_FUNCTION_INFO_V1(countingbloom_count);
PG_FUNCTION_INFO_V1(countingbloom_union);
PG_FUNCTION_INFO_V1(countingbloom_to_bloom);
PG_FUNCTION_INFO_V1(countingbloom_info);
PG_FUNCTION_INFO_V1(countingbloom_agg_trans);
PG_FUNCTION_INFO_V1(countingbloom_agg_final);
PG_FUNCTION_INFO_V1(countingbloom_agg_combine);
PG_FUNCTION_INFO_V1(countingbloom_union_agg_trans);

/* ---- datums ---- */

static struct varlena *
cbloom_alloc_in(MemoryContext cxt, uint64 ncounters, int width)
{
	size_t		len = VARHDRSZ + bfc_buffer_size(ncounters, width);
	struct varlena *f = MemoryContextAllocExtended(cxt, len, MCXT_ALLOC_HUGE);

	SET_VARSIZE(f, len);
	return f;
}

/* A new empty counting filter datum in cxt, and its view. */
static struct varlena *
cbloom_make_empty(MemoryContext cxt, int layout, int hashes, uint64 seed,
				  uint64 ncounters, int width, bfc_view *v)
{
	struct varlena *f = cbloom_alloc_in(cxt, ncounters, width);

	bfc_init((uint8 *) VARDATA(f), layout, hashes, seed, ncounters, width);
	bfc_view_of((uint8 *) VARDATA(f), v);
	return f;
}

/* Validates untrusted bytes and returns a new datum holding them. */
static struct varlena *
cbloom_from_bytes(const uint8 *data, size_t len, int sqlstate)
{
	bf_problem	p;
	struct varlena *f;

	if (!bfc_diagnose(data, len, &p))
		bloom_report_problem(&p, sqlstate);
	f = palloc(VARHDRSZ + len);
	SET_VARSIZE(f, VARHDRSZ + len);
	memcpy(VARDATA(f), data, len);
	bf_unseal((uint8 *) VARDATA(f));
	return f;
}

/*
 * Decodes a datum that is already a countingbloom.  The header is checked
 * against the length, so a damaged page gives an ERROR, not a wild read.
 */
static void
cbloom_view(struct varlena *f, bfc_view *v)
{
	size_t		len = VARSIZE_ANY_EXHDR(f);

	if (len < BF_HEADER_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countingbloom datum is damaged: %zu bytes", len)));
	bloom_check_stored_version("countingbloom", (const uint8 *) VARDATA_ANY(f), len,
							   BFC_FORMAT_VERSION, BFC_FORMAT_VERSION);
	bfc_view_of((uint8 *) VARDATA_ANY(f), v);
	if (bfc_check_geometry(v->layout, v->hashes, v->width, v->ncounters) != BF_OK ||
		len != bfc_buffer_size(v->ncounters, v->width))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countingbloom datum is damaged: its header does not match its %zu bytes", len)));
}

/* A read-only, detoasted argument and its view. */
static struct varlena *
cbloom_getarg(FunctionCallInfo fcinfo, int n, bfc_view *v)
{
	struct varlena *f = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(n));

	cbloom_view(f, v);
	return f;
}

/* A writable copy of an argument (never write into the argument itself). */
static struct varlena *
cbloom_getarg_copy(FunctionCallInfo fcinfo, int n, bfc_view *v)
{
	struct varlena *f = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(n));

	cbloom_view(f, v);
	return f;
}

static void
cbloom_check(struct varlena *f)
{
	bfc_view	v;

	cbloom_view(f, &v);
}

/* Same seal as bloomfilter: the checksum field and rule are the same. */
static const BloomTypeIO countingbloom_io = {
	"countingbloom", cbloom_from_bytes, cbloom_check, bf_seal
};

/* ---- type I/O and the bytea casts ---- */

BLOOM_TYPE_IO_FUNCTIONS(countingbloom, countingbloom_io)
BLOOM_TYPE_BYTEA_CASTS(countingbloom, countingbloom_io)

/* ---- constructors ---- */

static int
counter_bits_arg(int32 bits)
{
	if (bits != 4 && bits != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countingbloom counter_bits must be 4 or 8, not %d", bits)));
	return bits;
}

/* ERROR unless a filter of this many counters fits the size limit. */
static void
check_counters_fit(uint64 ncounters, int width)
{
	if (ncounters > BFC_MAX_COUNTERS(width))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a countingbloom of " UINT64_FORMAT " counters of %d bits would exceed the largest countingbloom", ncounters, width),
				 errdetail("The largest has " UINT64_FORMAT " such counters, so that its text form fits in 1 GB.",
						   (uint64) BFC_MAX_COUNTERS(width))));
}

/*
 * cbloom_empty(capacity, fpr, layout, seed, counter_bits): the geometry
 * bloom_empty gives for the same arguments, with a counter per bit.
 */
Datum
countingbloom_empty(PG_FUNCTION_ARGS)
{
	int64		capacity = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	int			layout = bloom_layout_arg(PG_GETARG_TEXT_PP(2));
	int64		seed = PG_GETARG_INT64(3);
	int			width = counter_bits_arg(PG_GETARG_INT32(4));
	uint64		ncounters;
	int			hashes;
	bfc_view	v;

	bloom_size_for(layout, capacity, fpr, &ncounters, &hashes);
	check_counters_fit(ncounters, width);
	PG_RETURN_POINTER(cbloom_make_empty(CurrentMemoryContext, layout, hashes,
										(uint64) seed, ncounters, width, &v));
}

/*
 * cbloom_empty_counters(counters, hashes, layout, seed, counter_bits):
 * explicit m and k, m rounded up as bloom_empty_bits rounds bits.
 */
Datum
countingbloom_empty_counters(PG_FUNCTION_ARGS)
{
	int64		counters = PG_GETARG_INT64(0);
	int32		hashes = PG_GETARG_INT32(1);
	int			layout = bloom_layout_arg(PG_GETARG_TEXT_PP(2));
	int64		seed = PG_GETARG_INT64(3);
	int			width = counter_bits_arg(PG_GETARG_INT32(4));
	uint64		unit = layout == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS : 64;
	uint64		ncounters;
	bfc_view	v;

	if (counters <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countingbloom size must be positive, not " INT64_FORMAT " counters", counters)));
	check_counters_fit((uint64) counters, width);
	if (hashes < BF_MIN_HASHES || hashes > BF_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countingbloom hashes must be between %d and %d, not %d",
						BF_MIN_HASHES, BF_MAX_HASHES, hashes)));
	ncounters = ((uint64) counters + unit - 1) / unit * unit;
	check_counters_fit(ncounters, width);
	PG_RETURN_POINTER(cbloom_make_empty(CurrentMemoryContext, layout, hashes,
										(uint64) seed, ncounters, width, &v));
}

/* ---- keys and their family ---- */

/*
 * The bloomfilter family rules, through a bloomfilter view holding the
 * counting filter's family: adding adopts or checks the family; probing
 * checks it and returns false when the filter never held a key.
 */
static void
cbloom_adopt_family(bfc_view *v, const BloomKeyType *kt)
{
	bf_view		b = {0};

	b.family = v->family;
	b.type_tag = v->type_tag;
	bloom_adopt_family(&b, kt);
	v->family = b.family;
	v->type_tag = b.type_tag;
}

static bool
cbloom_check_family(const bfc_view *v, const BloomKeyType *kt)
{
	bf_view		b = {0};

	b.family = v->family;
	b.type_tag = v->type_tag;
	return bloom_check_family(&b, kt);
}

/* ---- adding, removing, probing ---- */

/* cbloom_add(c, x), c + x: a copy of c with x added; NULL x changes nothing. */
Datum
countingbloom_add(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt;
	struct varlena *f;
	bfc_view	v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	kt = bloom_key_type_cached(fcinfo, 1, false);
	f = cbloom_getarg_copy(fcinfo, 0, &v);
	cbloom_adopt_family(&v, kt);
	bfc_add_hash(&v, bloom_hash_fast(kt, PG_GETARG_DATUM(1), v.seed));
	bfc_store_header((uint8 *) VARDATA(f), &v);
	cbloom_warn_overfull(&v);
	PG_RETURN_POINTER(f);
}

/*
 * cbloom_remove(c, x), c - x: a copy of c with x removed.  A key the filter
 * surely does not hold (a counter at zero) leaves it unchanged; a key it
 * only seems to hold (a false positive) is removed all the same, which can
 * make keys that were added answer false: remove only keys you added.
 * NULL x changes nothing.
 */
Datum
countingbloom_remove(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt;
	struct varlena *f;
	bfc_view	v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	kt = bloom_key_type_cached(fcinfo, 1, false);
	f = cbloom_getarg_copy(fcinfo, 0, &v);
	if (cbloom_check_family(&v, kt))
	{
		(void) bfc_remove_hash(&v, bloom_hash_fast(kt, PG_GETARG_DATUM(1), v.seed));
		bfc_store_header((uint8 *) VARDATA(f), &v);
	}
	PG_RETURN_POINTER(f);
}

/*
 * cbloom_add_all(c, array) and cbloom_remove_all(c, array): every non-NULL
 * element added, or removed, in the array's storage order, one copy of the
 * filter for the whole array: exactly what cbloom_add (cbloom_remove) gives
 * element after element.  A NULL array changes nothing.  Removing: an
 * element whose key the filter surely does not hold changes nothing, as
 * cbloom_remove; a filter that never held a key is returned as it is
 * (whatever the elements' type, as cbloom_remove does); keys of another
 * family are an ERROR.
 */
static Datum
add_or_remove_all(FunctionCallInfo fcinfo, bool add)
{
	BloomKeyType *kt = NULL;
	struct varlena *f;
	bfc_view	v;
	ArrayIterator it;
	Datum		value;
	bool		isnull;
	bool		checked = false;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	f = cbloom_getarg_copy(fcinfo, 0, &v);
	it = array_create_iterator(PG_GETARG_ARRAYTYPE_P(1), 0, NULL);
	while (array_iterate(it, &value, &isnull))
	{
		if (isnull)
			continue;
		if (!checked)
		{
			/*
			 * Looked up at the first key: the columns of type record are
			 * told by an element, and an empty array has none.
			 */
			kt = bloom_key_type_cached(fcinfo, 1, true);
			if (add)
				cbloom_adopt_family(&v, kt);
			else if (!cbloom_check_family(&v, kt))
				break;			/* no key was ever added: nothing to remove */
			checked = true;
		}
		if (add)
			bfc_add_hash(&v, bloom_hash_fast(kt, value, v.seed));
		else
			(void) bfc_remove_hash(&v, bloom_hash_fast(kt, value, v.seed));
	}
	array_free_iterator(it);
	bfc_store_header((uint8 *) VARDATA(f), &v);
	if (add)
		cbloom_warn_overfull(&v);
	PG_RETURN_POINTER(f);
}

Datum
countingbloom_add_all(PG_FUNCTION_ARGS)
{
	return add_or_remove_all(fcinfo, true);
}

Datum
countingbloom_remove_all(PG_FUNCTION_ARGS)
{
	return add_or_remove_all(fcinfo, false);
}

/*
 * Per call site of a probe: the key type, and the detoast cache
 * (type/bf_type_detoast.h), so that a filter probed row after row from TOAST or
 * compressed in the row is decompressed once.  The filter's view is
 * decoded at every call; a filter inline and uncompressed is read in place.
 */
typedef struct CbloomProbeCache
{
	BloomKeyType key;
	BloomDetoastCache dc;
} CbloomProbeCache;

static struct varlena *
probe_filter(FunctionCallInfo fcinfo, int filterarg, int keyarg,
			 CbloomProbeCache **cp, bfc_view *v)
{
	CbloomProbeCache *c = (CbloomProbeCache *) fcinfo->flinfo->fn_extra;
	struct varlena *f;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CbloomProbeCache));
		bloom_key_type_for_arg(&c->key, fcinfo, keyarg);
		/* a kept copy's counters 64-byte aligned, as a bloomfilter's bits */
		bloom_detoast_cache_init(&c->dc, fcinfo->flinfo->fn_mcxt, VARHDRSZ,
							  VARHDRSZ + BF_HEADER_SIZE, true);
		fcinfo->flinfo->fn_extra = c;
	}
	*cp = c;
	f = bloom_detoast_cache_fetch(&c->dc, PG_GETARG_DATUM(filterarg));
	cbloom_view(f, v);
	return f;
}

static bool
probe(FunctionCallInfo fcinfo, int filterarg, int keyarg)
{
	CbloomProbeCache *c;
	bfc_view	v;

	probe_filter(fcinfo, filterarg, keyarg, &c, &v);
	if (!cbloom_check_family(&v, &c->key))
		return false;
	return bfc_contains_hash(&v, bloom_hash_fast(&c->key, PG_GETARG_DATUM(keyarg), v.seed));
}

/* cbloom_contains(c, x), c @> x: may x be in the set? */
Datum
countingbloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(probe(fcinfo, 0, 1));
}

/* x <@ c */
Datum
countingbloom_contained_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(probe(fcinfo, 1, 0));
}

/*
 * cbloom_count(c, x): the smallest of x's counters, an upper bound on the
 * times x was added less its removes, unless a counter saturated (then the
 * answer is the saturation value, meaning "that many or more").
 */
Datum
countingbloom_count(PG_FUNCTION_ARGS)
{
	CbloomProbeCache *c;
	bfc_view	v;

	probe_filter(fcinfo, 0, 1, &c, &v);
	if (!cbloom_check_family(&v, &c->key))
		PG_RETURN_INT32(0);
	PG_RETURN_INT32((int32) bfc_count_hash(&v, bloom_hash_fast(&c->key, PG_GETARG_DATUM(1), v.seed)));
}

/* ---- union ---- */

static void
cbloom_report_incompatible(bf_compat c, const bfc_view *a, const bfc_view *b)
{
	ereport(ERROR,
			(errcode(c == BF_COMPAT_FAMILY ? ERRCODE_DATATYPE_MISMATCH : ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot union countingblooms: %s", bf_compat_message(c)),
			 errdetail("The first is %s with " UINT64_FORMAT " counters of %d bits, %d hashes, seed " INT64_FORMAT " and key family \"%s\"; the second is %s with " UINT64_FORMAT " counters of %d bits, %d hashes, seed " INT64_FORMAT " and key family \"%s\".",
					   bf_layout_name(a->layout), a->ncounters, a->width, a->hashes, (int64) a->seed,
					   bloom_family_display(a->family, a->type_tag),
					   bf_layout_name(b->layout), b->ncounters, b->width, b->hashes, (int64) b->seed,
					   bloom_family_display(b->family, b->type_tag)),
			 c == BF_COMPAT_SIZE ?
			 errhint("Countingblooms combine when their sizes are equal or one is the other's times a power of two. Size every countingbloom that will be combined for one capacity and rate.") : 0));
}

/*
 * The union of a and b as a new datum in cxt: counters summed (saturating),
 * at the smaller size when the sizes differ by a power of two (folding is
 * exact: the result is what the smaller filter would hold).
 */
static struct varlena *
cbloom_union_new(MemoryContext cxt, const bfc_view *a, const bfc_view *b,
				 bfc_view *rv)
{
	uint64		ncounters;
	bf_compat	c = bfc_compatible(a, b, &ncounters);
	struct varlena *r;

	if (c != BF_COMPAT_OK)
		cbloom_report_incompatible(c, a, b);
	r = cbloom_make_empty(cxt, a->layout, a->hashes, a->seed, ncounters, a->width, rv);
	bfc_fold_add(rv, a);
	bfc_fold_add(rv, b);
	bfc_merge_header(rv, a, b);
	bfc_store_header((uint8 *) VARDATA(r), rv);
	return r;
}

/* cbloom_union(c, d), c | d */
Datum
countingbloom_union(PG_FUNCTION_ARGS)
{
	bfc_view	a,
				b,
				r;

	BLOOM_UNION_NULL_OPERANDS(fcinfo);
	cbloom_getarg(fcinfo, 0, &a);
	cbloom_getarg(fcinfo, 1, &b);
	PG_RETURN_POINTER(cbloom_union_new(CurrentMemoryContext, &a, &b, &r));
}

/* ---- the cast to bloomfilter, and inspection ---- */

/*
 * cbloom_to_bloom(c), c::bloomfilter: the bloomfilter of the same layout,
 * k, seed and size with bit p set where counter p is above zero.  It
 * answers every probe as c does.
 */
Datum
countingbloom_to_bloom(PG_FUNCTION_ARGS)
{
	bfc_view	v;
	struct varlena *out;

	cbloom_getarg(fcinfo, 0, &v);
	out = bloomfilter_alloc(v.ncounters);
	bfc_to_bloom(&v, (uint8 *) VARDATA(out));
	PG_RETURN_POINTER(out);
}

Datum
countingbloom_info(PG_FUNCTION_ARGS)
{
	bfc_view	v;
	struct varlena *f = cbloom_getarg(fcinfo, 0, &v);
	TupleDesc	tupdesc;
	Datum		values[12];
	bool		nulls[12] = {0};
	uint64		nonzero,
				saturated;
	bf_view		bv = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	bfc_counter_stats(&v, &nonzero, &saturated);

	/* the rate is the bloomfilter's with the same bits set */
	bv.layout = v.layout;
	bv.hashes = v.hashes;
	bv.nbits = v.ncounters;
	bv.bits = MemoryContextAllocHuge(CurrentMemoryContext, v.ncounters / 8);
	bfc_to_bits(&v, bv.bits);

	values[0] = CStringGetTextDatum(bf_layout_name(v.layout));
	values[1] = Int64GetDatum((int64) v.ncounters);
	values[2] = Int32GetDatum(v.hashes);
	values[3] = Int32GetDatum(v.width);
	values[4] = Int64GetDatum((int64) VARSIZE_ANY_EXHDR(f));
	values[5] = Int64GetDatum((int64) v.seed);
	values[6] = CStringGetTextDatum(bloom_family_display(v.family, v.type_tag));
	values[7] = Int64GetDatum(v.items > (uint64) PG_INT64_MAX ? PG_INT64_MAX : (int64) v.items);
	values[8] = Int64GetDatum((int64) nonzero);
	values[9] = Int64GetDatum((int64) saturated);
	values[10] = Float8GetDatum(bf_est_fpr(&bv));
	values[11] = Int32GetDatum(bf_load_le16((uint8 *) VARDATA_ANY(f) + BF_OFF_VERSION));
	pfree(bv.bits);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ---- cbloom_agg(x, capacity, fpr [, counter_bits]) ---- */

/*
 * The state is the filter itself, updated in place.  Counters saturate at
 * a fixed value and a saturating sum of partial counts is the count of the
 * whole, capped, so the same multiset of keys gives the same bytes
 * whatever the row order or the plan.
 */
typedef struct CbloomAggState
{
	struct varlena *filter;		/* in the aggregate context */
	bfc_view	view;			/* of filter; items and family kept here */
} CbloomAggState;

static CbloomAggState *
agg_state_of(MemoryContext cxt, struct varlena *filter)
{
	CbloomAggState *st = MemoryContextAllocZero(cxt, sizeof(CbloomAggState));

	st->filter = filter;
	bfc_view_of((uint8 *) VARDATA(filter), &st->view);
	return st;
}

static void
agg_sync(CbloomAggState *st)
{
	bfc_store_header((uint8 *) VARDATA(st->filter), &st->view);
}

/*
 * Transition: the state is made on the first row, sized as cbloom_empty
 * (blocked, seed 0); NULL keys are skipped.
 */
Datum
countingbloom_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_COUNTING, "countingbloom_agg_trans");
	CbloomAggState *st = e ? (CbloomAggState *) e->state : NULL;

	if (st == NULL)
	{
		MemoryContext aggctx;
		int			width = 4;
		uint64		ncounters;
		int			hashes;
		bfc_view	v;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3) ||
			(PG_NARGS() > 4 && PG_ARGISNULL(4)))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("cbloom_agg capacity, false-positive rate and counter_bits must not be null")));
		if (PG_NARGS() > 4)
			width = counter_bits_arg(PG_GETARG_INT32(4));
		bloom_size_for(BF_LAYOUT_BLOCKED, PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3),
					   &ncounters, &hashes);
		check_counters_fit(ncounters, width);
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, "countingbloom_agg_trans"), BFAS_KIND_COUNTING);
		aggctx = bloom_aggstate_context(e);
		st = agg_state_of(aggctx, cbloom_make_empty(aggctx, BF_LAYOUT_BLOCKED, hashes,
													0, ncounters, width, &v));
		e->state = st;
	}
	if (!PG_ARGISNULL(1))
	{
		/* looked up on the first non-NULL key: a NULL record has no columns */
		BloomKeyType *kt = bloom_aggstate_key_type(e, fcinfo, 1);

		if (st->view.family == BF_FAMILY_NONE)
			cbloom_adopt_family(&st->view, kt);
		bfc_add_hash(&st->view, bloom_hash_fast(kt, PG_GETARG_DATUM(1), 0));
	}
	BLOOM_AGGSTATE_RETURN(e);
}

Datum
countingbloom_agg_final(PG_FUNCTION_ARGS)
{
	CbloomAggState *st = bloom_aggstate_read_arg(fcinfo, 0, BFAS_KIND_COUNTING);
	struct varlena *out;

	if (st == NULL)
		PG_RETURN_NULL();
	agg_sync(st);
	/* copied: the state may go on changing (window aggregates) */
	out = palloc(VARSIZE(st->filter));
	memcpy(out, st->filter, VARSIZE(st->filter));
	cbloom_warn_overfull(&st->view);
	PG_RETURN_POINTER(out);
}

/*
 * Adds the filter of view v (of filter bytes f) to state e (a new one, in
 * aggctx, if e is NULL): counters summed, as cbloom_union.
 */
static BloomAggStateObject *
agg_add(MemoryContext aggctx, BloomAggStateObject *e, const struct varlena *f, bfc_view *v)
{
	CbloomAggState *s1;
	uint64		ncounters;
	bf_compat	c;

	if (e == NULL)
	{
		struct varlena *copy;

		e = bloom_aggstate_new(aggctx, BFAS_KIND_COUNTING);
		copy = MemoryContextAllocExtended(bloom_aggstate_context(e), VARHDRSZ + VARSIZE_ANY_EXHDR(f),
										  MCXT_ALLOC_HUGE);
		SET_VARSIZE(copy, VARHDRSZ + VARSIZE_ANY_EXHDR(f));
		memcpy(VARDATA(copy), VARDATA_ANY(f), VARSIZE_ANY_EXHDR(f));
		bfc_store_header((uint8 *) VARDATA(copy), v);
		e->state = agg_state_of(bloom_aggstate_context(e), copy);
		return e;
	}
	aggctx = bloom_aggstate_context(e);
	s1 = e->state;
	c = bfc_compatible(&s1->view, v, &ncounters);
	if (c != BF_COMPAT_OK)
		cbloom_report_incompatible(c, &s1->view, v);
	if (ncounters == s1->view.ncounters && ncounters == v->ncounters)
	{
		bfc_view	merged = s1->view;

		bfc_fold_add(&s1->view, v);
		bfc_merge_header(&s1->view, &merged, v);
	}
	else
	{
		struct varlena *old = s1->filter;
		bfc_view	rv;

		agg_sync(s1);
		s1->filter = cbloom_union_new(aggctx, &s1->view, v, &rv);
		s1->view = rv;
		pfree(old);
	}
	return e;
}

/* Combine: the union of the partial filters, kept in the first state. */
Datum
countingbloom_agg_combine(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_COUNTING, "countingbloom_agg_combine");
	CbloomAggState *s2 = bloom_aggstate_read_arg(fcinfo, 1, BFAS_KIND_COUNTING);

	if (s2 == NULL)
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	e = agg_add(e ? NULL : bloom_agg_context(fcinfo, "countingbloom_agg_combine"),
				e, s2->filter, &s2->view);
	BLOOM_AGGSTATE_RETURN(e);
}

/*
 * bloom_union_agg(countingbloom): the union of the filters (counters
 * summed, as cbloom_union), NULLs skipped; NULL over no filter.  The sum
 * saturates and folding is exact, so the result does not depend on the
 * order of the inputs.
 */
Datum
countingbloom_union_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_COUNTING, "bloom_union_agg");
	struct varlena *f;
	bfc_view	v;

	if (PG_ARGISNULL(1))
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	f = cbloom_getarg(fcinfo, 1, &v);
	e = agg_add(e ? NULL : bloom_agg_context(fcinfo, "bloom_union_agg"), e, f, &v);
	BLOOM_AGGSTATE_RETURN(e);
}

/* The payload of a state of kind 'c': the portable bytes, sealed. */
bytea *
cbloom_agg_encode(void *state)
{
	CbloomAggState *st = (CbloomAggState *) state;
	size_t		len;
	bytea	   *out;

	agg_sync(st);
	len = VARSIZE(st->filter) - VARHDRSZ;
	out = MemoryContextAllocExtended(CurrentMemoryContext, VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), VARDATA(st->filter), len);
	bf_seal((uint8 *) VARDATA(out), len);
	return out;
}

/* A state from its payload: validated as every other way bytes come in. */
void *
cbloom_agg_decode(const uint8 *data, size_t len, bool own pg_attribute_unused())
{
	struct varlena *f = cbloom_from_bytes(data, len, ERRCODE_DATA_CORRUPTED);

	return agg_state_of(CurrentMemoryContext, f);
}
