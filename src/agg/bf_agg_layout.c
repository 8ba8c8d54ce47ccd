/*
 * agg/bf_agg_layout.c
 *		bloom_agg(x, capacity, fpr, layout): a filter of any layout from a
 *		column, at the size bloom_empty(capacity, fpr, layout) gives.
 *
 * The state is that filter itself, built in the aggregate's context: each
 * row adds its key (as bloom_add does, so every layout hashes its own way),
 * partial states are OR-ed (the same geometry, adds summed), and the bytes
 * are those of bloom_add_all(bloom_empty(capacity, fpr, layout), keys)
 * whatever the order of the rows or the plan, serial or parallel.
 */
#include "agg/bf_agg_type.h"
#include "engines/bf_engines.h"
#include "type/bf_type_edges.h"

#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(bloomfilter_layout_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_layout_agg_combine);
PG_FUNCTION_INFO_V1(bloomfilter_layout_agg_final);
PG_FUNCTION_INFO_V1(bloomfilter_layout_agg_serialize);
PG_FUNCTION_INFO_V1(bloomfilter_layout_agg_deserialize);

/* The state: the filter datum, and its view (bits into it). */
typedef struct LayoutAggState
{
	struct varlena *f;
	bf_view		v;
} LayoutAggState;

static LayoutAggState *
state_of(MemoryContext cxt, struct varlena *f)
{
	LayoutAggState *s = MemoryContextAlloc(cxt, sizeof(LayoutAggState));

	s->f = f;
	bf_view_of((uint8 *) VARDATA(f), &s->v);
	return s;
}

Datum
bloomfilter_layout_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = bloom_agg_context(fcinfo, "bloomfilter_layout_agg_trans");
	LayoutAggState *s = PG_ARGISNULL(0) ? NULL : (LayoutAggState *) PG_GETARG_POINTER(0);

	if (s == NULL)
	{
		int64		capacity;
		double		fpr;
		int			layout;
		struct varlena *f;
		MemoryContext old;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bloom_agg capacity, false-positive rate and layout must not be null")));
		capacity = PG_GETARG_INT64(2);
		fpr = PG_GETARG_FLOAT8(3);
		layout = bloom_filter_layout_arg(PG_GETARG_TEXT_PP(4));
		/* the filter bloom_empty(capacity, fpr, layout) makes */
		old = MemoryContextSwitchTo(aggctx);
		f = bloom_empty_for(layout, capacity, fpr, 0);
		MemoryContextSwitchTo(old);
		s = state_of(aggctx, f);
	}
	if (!PG_ARGISNULL(1))
	{
		BloomKeyType *kt = bloom_key_type_cached(fcinfo, 1, false);

		bloom_adopt_family(&s->v, kt);
		bf_insert_hash(&s->v, s->v.layout == BF_LAYOUT_PARQUET ?
					   bloom_parquet_add_hash(&s->v, kt, PG_GETARG_DATUM(1)) :
					   bloom_hash_for(kt, PG_GETARG_DATUM(1), &s->v));
	}
	PG_RETURN_POINTER(s);
}

/* OR of two states of one geometry (the same arguments made both). */
Datum
bloomfilter_layout_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = bloom_agg_context(fcinfo, "bloomfilter_layout_agg_combine");
	LayoutAggState *a = PG_ARGISNULL(0) ? NULL : (LayoutAggState *) PG_GETARG_POINTER(0);
	LayoutAggState *b = PG_ARGISNULL(1) ? NULL : (LayoutAggState *) PG_GETARG_POINTER(1);
	uint64		nbits;
	bf_compat	c;

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
	{
		struct varlena *f = MemoryContextAlloc(aggctx, VARSIZE(b->f));

		memcpy(f, b->f, VARSIZE(b->f));
		PG_RETURN_POINTER(state_of(aggctx, f));
	}
	c = bf_compatible(&a->v, &b->v, &nbits);
	if (c != BF_COMPAT_OK || nbits != a->v.nbits || a->v.nbits != b->v.nbits)
		bloom_report_incompatible(c != BF_COMPAT_OK ? c : BF_COMPAT_SIZE,
								  "combine the partial states of", &a->v, &b->v);
	bf_or(&a->v, &b->v);
	a->v.added = bloom_add_saturating(a->v.added, b->v.added);
	bf_merge_family(&a->v, &a->v, &b->v);
	PG_RETURN_POINTER(a);
}

/* The filter: a copy, so that a window aggregate may go on adding. */
Datum
bloomfilter_layout_agg_final(PG_FUNCTION_ARGS)
{
	LayoutAggState *s;
	struct varlena *out;

	(void) bloom_agg_context(fcinfo, "bloomfilter_layout_agg_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (LayoutAggState *) PG_GETARG_POINTER(0);
	bf_store_header((uint8 *) VARDATA(s->f), &s->v);
	out = palloc(VARSIZE(s->f));
	memcpy(out, s->f, VARSIZE(s->f));
	bloom_warn_overfull(&s->v);
	PG_RETURN_POINTER(out);
}

/* A partial state crosses processes as the filter's portable bytes. */
Datum
bloomfilter_layout_agg_serialize(PG_FUNCTION_ARGS)
{
	LayoutAggState *s = (LayoutAggState *) PG_GETARG_POINTER(0);
	bytea	   *out;

	(void) bloom_agg_context(fcinfo, "bloomfilter_layout_agg_serialize");
	bf_store_header((uint8 *) VARDATA(s->f), &s->v);
	out = palloc(VARSIZE(s->f));
	memcpy(out, s->f, VARSIZE(s->f));
	bf_seal((uint8 *) VARDATA(out), VARSIZE(out) - VARHDRSZ);
	PG_RETURN_BYTEA_P(out);
}

/* Validated as any filter from outside. */
Datum
bloomfilter_layout_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = bloom_agg_context(fcinfo, "bloomfilter_layout_agg_deserialize");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	MemoryContext old = MemoryContextSwitchTo(aggctx);
	struct varlena *f = bloomfilter_from_bytes((const uint8 *) VARDATA_ANY(b),
											   VARSIZE_ANY_EXHDR(b),
											   ERRCODE_INVALID_BINARY_REPRESENTATION);

	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(state_of(aggctx, f));
}
