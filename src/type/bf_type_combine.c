/*
 * type/bf_type_combine.c
 *		Two filters at once: union and intersection, the superset test,
 *		equality of identical filters, and inspection and estimates
 *		(bloom_info, cardinalities, the Jaccard index).
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
	r = bloom_make_empty(a->layout, a->hashes, a->seed, nbits);
	bf_view_of((uint8 *) VARDATA(r), rv);
	bf_fold_or(rv, a);
	if (b->nbits == nbits)
		*bfolded = *b;
	else
	{
		struct varlena *t = bloom_make_empty(b->layout, b->hashes, b->seed, nbits);

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
