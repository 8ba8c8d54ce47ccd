/*
 * bf_agg.c
 *		Aggregates: bloom_agg (explicitly sized), bloom_union_agg and
 *		bloom_intersect_agg, with combine, serialize and deserialize
 *		functions for parallel aggregation.
 *
 * The transition state is an "internal" struct holding one filter that is
 * updated in place: returning a bloomfilter datum from each transition
 * would make the executor copy the whole filter on every row.
 */
#include "bloomfilter.h"

#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloomfilter_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_agg_final);
PG_FUNCTION_INFO_V1(bloomfilter_agg_combine);
PG_FUNCTION_INFO_V1(bloomfilter_agg_serialize);
PG_FUNCTION_INFO_V1(bloomfilter_agg_deserialize);
PG_FUNCTION_INFO_V1(bloomfilter_union_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_agg_combine);

typedef struct BloomAggState
{
	struct varlena *filter;		/* in the aggregate context */
	bf_view		view;			/* of filter; header fields kept here */
} BloomAggState;

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fname)));
	return aggctx;
}

/* A state owning a copy of filter bytes, in the aggregate context. */
static BloomAggState *
state_from_filter(MemoryContext aggctx, const struct varlena *f)
{
	BloomAggState *st = MemoryContextAlloc(aggctx, sizeof(BloomAggState));
	size_t		len = VARSIZE_ANY_EXHDR(f);

	st->filter = MemoryContextAlloc(aggctx, VARHDRSZ + len);
	SET_VARSIZE(st->filter, VARHDRSZ + len);
	memcpy(VARDATA(st->filter), VARDATA_ANY(f), len);
	bloomfilter_view(st->filter, &st->view);
	return st;
}

/* Replaces the state's filter with an empty one of nbits bits. */
static void
state_shrink_to(MemoryContext aggctx, BloomAggState *st, uint64 nbits)
{
	struct varlena *old = st->filter;
	bf_view		oldv = st->view;
	size_t		len = VARHDRSZ + bf_buffer_size(nbits);

	st->filter = MemoryContextAllocZero(aggctx, len);
	SET_VARSIZE(st->filter, len);
	bf_init((uint8 *) VARDATA(st->filter), oldv.layout, oldv.hashes, oldv.seed, nbits);
	bf_view_of((uint8 *) VARDATA(st->filter), &st->view);
	st->view.added = oldv.added;
	st->view.family = oldv.family;
	st->view.type_tag = oldv.type_tag;
	bf_fold_or(&st->view, &oldv);
	pfree(old);
}

static uint64
add_saturating(uint64 a, uint64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * Merges filter g into the state: union or intersection, folding to the
 * smaller size when the sizes differ by a power of two.
 */
static void
state_merge(MemoryContext aggctx, BloomAggState *st, bf_view *g, bool is_union)
{
	uint64		nbits;
	bf_compat	c = bf_compatible(&st->view, g, &nbits);
	bf_view		gv = *g;
	struct varlena *tmp = NULL;

	if (c != BF_COMPAT_OK)
		ereport(ERROR,
				(errcode(c == BF_COMPAT_FAMILY ? ERRCODE_DATATYPE_MISMATCH : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot %s bloomfilters: %s", is_union ? "union" : "intersect",
						bf_compat_message(c)),
				 errdetail("One is %s with " UINT64_FORMAT " bits, %d hashes and seed " INT64_FORMAT "; the other is %s with " UINT64_FORMAT " bits, %d hashes and seed " INT64_FORMAT ".",
						   bf_layout_name(st->view.layout), st->view.nbits, st->view.hashes, (int64) st->view.seed,
						   bf_layout_name(g->layout), g->nbits, g->hashes, (int64) g->seed)));

	if (st->view.nbits != nbits)
		state_shrink_to(aggctx, st, nbits);
	if (g->nbits != nbits)
	{
		tmp = bloomfilter_alloc(nbits);
		bf_init((uint8 *) VARDATA(tmp), g->layout, g->hashes, g->seed, nbits);
		bf_view_of((uint8 *) VARDATA(tmp), &gv);
		bf_fold_or(&gv, g);
	}
	if (is_union)
	{
		bf_or(&st->view, &gv);
		st->view.added = add_saturating(st->view.added, g->added);
	}
	else
	{
		bf_and(&st->view, &gv);
		st->view.added = Min(st->view.added, g->added);
	}
	bf_merge_family(&st->view, &st->view, g);
	if (tmp)
		pfree(tmp);
}

/*
 * bloom_agg(x, capacity, fpr) transition: the state is created on the
 * first row with the size that meets fpr at capacity keys; NULL keys are
 * skipped.
 */
Datum
bloomfilter_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = agg_context(fcinfo, "bloomfilter_agg_trans");
	BloomAggState *st = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomKeyType *kt = (BloomKeyType *) fcinfo->flinfo->fn_extra;

	if (kt == NULL)
	{
		kt = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomKeyType));
		bloom_key_type_for_arg(kt, fcinfo, 1);
		fcinfo->flinfo->fn_extra = kt;
	}

	if (st == NULL)
	{
		int64		capacity;
		double		fpr;
		uint64		nbits;
		int			hashes;
		size_t		len;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bloom_agg capacity and false-positive rate must not be null")));
		capacity = PG_GETARG_INT64(2);
		fpr = PG_GETARG_FLOAT8(3);
		if (capacity <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bloomfilter capacity must be positive, not " INT64_FORMAT, capacity)));
		if (!(fpr > 0.0 && fpr < 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bloomfilter false-positive rate must be between 0 and 1 (exclusive), not %g", fpr)));
		if (!bf_size_for(BF_LAYOUT_BLOCKED, (double) capacity, fpr, &nbits, &hashes))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a bloomfilter for " INT64_FORMAT " keys at rate %g would exceed the 1 GB size limit",
							capacity, fpr)));

		st = MemoryContextAlloc(aggctx, sizeof(BloomAggState));
		len = VARHDRSZ + bf_buffer_size(nbits);
		st->filter = MemoryContextAllocHuge(aggctx, len);
		SET_VARSIZE(st->filter, len);
		bf_init((uint8 *) VARDATA(st->filter), BF_LAYOUT_BLOCKED, hashes, 0, nbits);
		bf_view_of((uint8 *) VARDATA(st->filter), &st->view);
	}

	if (!PG_ARGISNULL(1))
	{
		if (st->view.family == BF_FAMILY_NONE)
			bloom_adopt_family(&st->view, kt);
		bf_insert_hash(&st->view, bloom_hash_fast(kt, PG_GETARG_DATUM(1), st->view.seed));
	}
	PG_RETURN_POINTER(st);
}

/* Final function of all three aggregates: a copy of the state's filter. */
Datum
bloomfilter_agg_final(PG_FUNCTION_ARGS)
{
	BloomAggState *st;
	struct varlena *out;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (BloomAggState *) PG_GETARG_POINTER(0);
	bf_store_header((uint8 *) VARDATA(st->filter), &st->view);
	/* copied: the state may go on changing (window aggregates) */
	out = palloc(VARSIZE(st->filter));
	memcpy(out, st->filter, VARSIZE(st->filter));
	PG_RETURN_POINTER(out);
}

static Datum
combine(FunctionCallInfo fcinfo, bool is_union)
{
	MemoryContext aggctx = agg_context(fcinfo, "bloomfilter_agg_combine");
	BloomAggState *s1 = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomAggState *s2 = PG_ARGISNULL(1) ? NULL : (BloomAggState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		/* a NULL pointer is not a NULL datum: say NULL explicitly */
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	bf_store_header((uint8 *) VARDATA(s2->filter), &s2->view);
	if (s1 == NULL)
		PG_RETURN_POINTER(state_from_filter(aggctx, s2->filter));
	state_merge(aggctx, s1, &s2->view, is_union);
	PG_RETURN_POINTER(s1);
}

/* Combine for bloom_agg and bloom_union_agg: the OR of the states. */
Datum
bloomfilter_agg_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, true);
}

Datum
bloomfilter_intersect_agg_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, false);
}

/* Serialize: the portable bytes, sealed like any filter leaving. */
Datum
bloomfilter_agg_serialize(PG_FUNCTION_ARGS)
{
	BloomAggState *st = (BloomAggState *) PG_GETARG_POINTER(0);
	size_t		len = VARSIZE(st->filter) - VARHDRSZ;
	bytea	   *out = palloc(VARHDRSZ + len);

	bf_store_header((uint8 *) VARDATA(st->filter), &st->view);
	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), VARDATA(st->filter), len);
	bf_seal((uint8 *) VARDATA(out), len);
	PG_RETURN_BYTEA_P(out);
}

/* Deserialize: validated like every other way bytes come in. */
Datum
bloomfilter_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	BloomAggState *st = palloc(sizeof(BloomAggState));

	st->filter = bloomfilter_from_bytes((const uint8 *) VARDATA_ANY(b),
										VARSIZE_ANY_EXHDR(b),
										ERRCODE_DATA_CORRUPTED);
	bloomfilter_view(st->filter, &st->view);
	PG_RETURN_POINTER(st);
}

static Datum
filter_agg_trans(FunctionCallInfo fcinfo, bool is_union)
{
	MemoryContext aggctx = agg_context(fcinfo, is_union ? "bloom_union_agg" : "bloom_intersect_agg");
	BloomAggState *st = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	struct varlena *f;
	bf_view		g;

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	f = bloomfilter_getarg(fcinfo, 1, &g);
	if (st == NULL)
		PG_RETURN_POINTER(state_from_filter(aggctx, f));
	state_merge(aggctx, st, &g, is_union);
	PG_RETURN_POINTER(st);
}

/* bloom_union_agg(f): the union of the filters, NULLs skipped. */
Datum
bloomfilter_union_agg_trans(PG_FUNCTION_ARGS)
{
	return filter_agg_trans(fcinfo, true);
}

/*
 * bloom_intersect_agg(f): the intersection.  With filters of different
 * (power-of-two related) sizes, each is folded to the smallest as it comes;
 * the result then holds every common key but its bits can depend on the
 * order of the inputs.
 */
Datum
bloomfilter_intersect_agg_trans(PG_FUNCTION_ARGS)
{
	return filter_agg_trans(fcinfo, false);
}
