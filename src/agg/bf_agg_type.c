/*
 * agg/bf_agg_type.c
 *		bloomfilter_aggstate: the state of every aggregate, and the
 *		transition type of the union and intersection aggregates: a real
 *		type so that Citus can run them on its workers (it pushes down only
 *		aggregates whose transition type is not a pseudo-type, and ships
 *		their partial states through the type's output and input, or send
 *		and receive, functions).  The aggregates over keys keep the type
 *		internal (Citus refuses polymorphic aggregates) around the same
 *		object, serialized to the same bytes (the end of this file).
 *
 * A value is an 8-byte head (bf_aggstate.h: magic, version, kind) and the
 * payload of its kind: the bytes parallel workers shipped before this
 * type existed (FORMAT.md, "Aggregate partial states").  Its text form is
 * the base64 of those bytes, its binary form the bytes.  Every way in
 * (input, receive, a flat value given to a transition, combine or final
 * function) validates the whole value: a worker, or a hand-written call,
 * cannot crash the coordinator or give it a filter that answers wrongly.
 *
 * Inside an aggregate the value is a read-write expanded object holding
 * the kind's C state, updated in place; see agg/bf_agg_type.h.
 */
#include "agg/bf_agg_type.h"

#include "bf_report.h"

#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloomfilter_aggstate_serialize);
PG_FUNCTION_INFO_V1(bloomfilter_aggstate_deserialize);

typedef struct BloomAggStateKind
{
	const char *aggs;			/* the aggregates of the kind, for messages */
	bytea	   *(*encode) (void *state);
	void	   *(*decode) (const uint8 *data, size_t len, bool own);
} BloomAggStateKind;

static const BloomAggStateKind bloom_aggstate_bloom = {
	"bloom_agg, bloom_union_agg(bloomfilter), bloom_intersect_agg or sbloom_agg",
	bloom_agg_encode, bloom_agg_decode
};
static const BloomAggStateKind bloom_aggstate_counting = {
	"cbloom_agg or bloom_union_agg(countingbloom)",
	cbloom_agg_encode, cbloom_agg_decode
};
static const BloomAggStateKind bloom_aggstate_window = {
	"bloom_window_agg or bloom_union_agg(bloomwindow)",
	bloom_window_agg_encode, bloom_window_agg_decode
};
static const BloomAggStateKind bloom_aggstate_scalable = {
	"bloom_union_agg(scalablebloom)",
	sbloom_union_encode, sbloom_union_decode
};

static const BloomAggStateKind *
kind_of(uint8 kind)
{
	switch (kind)
	{
		case BFAS_KIND_BLOOM:
			return &bloom_aggstate_bloom;
		case BFAS_KIND_COUNTING:
			return &bloom_aggstate_counting;
		case BFAS_KIND_WINDOW:
			return &bloom_aggstate_window;
		case BFAS_KIND_SCALABLE:
			return &bloom_aggstate_scalable;
	}
	elog(ERROR, "unknown bloomfilter_aggstate kind %d", kind);
	pg_unreachable();
}

/* The aggregate's memory context; ERROR if fname is called outside one. */
MemoryContext
bloom_agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fname)));
	return aggctx;
}

/*
 * The key type of argument argno of a transition function updating state
 * e, looked up once per call site: in fn_extra (bloom_key_type_cached), or,
 * for a call without an expression (Citus's worker_partial_agg gives a
 * fresh FmgrInfo on every row), in e (bloom_aggstate_call_cache), where the next row
 * finds it.  For a call site that keeps nothing else in fn_extra.
 */
BloomKeyType *
bloom_aggstate_key_type(BloomAggStateObject *e, FunctionCallInfo fcinfo, int argno)
{
	BloomKeyType *kt;

	if (likely(fcinfo->flinfo->fn_extra != NULL))
		return (BloomKeyType *) fcinfo->flinfo->fn_extra;
	kt = (BloomKeyType *) bloom_aggstate_call_cache(e, fcinfo);
	if (kt != NULL)
		return kt;
	if (fcinfo->flinfo->fn_expr != NULL)
		return bloom_key_type_cached(fcinfo, argno, false);
	kt = MemoryContextAllocZero(bloom_aggstate_context(e), sizeof(BloomKeyType));
	bloom_key_type_for_arg_in(kt, fcinfo, argno, bloom_aggstate_context(e));
	bloom_aggstate_keep_call_cache(e, fcinfo, kt);
	return kt;
}

/* ---- the expanded object ---- */

static Size bloom_aggstate_get_flat_size(ExpandedObjectHeader *eohptr);
static void bloom_aggstate_flatten_into(ExpandedObjectHeader *eohptr, void *result,
							  Size allocated_size);

static Size
bloom_aggstate_get_flat_size(ExpandedObjectHeader *eohptr)
{
	BloomAggStateObject  *e = (BloomAggStateObject *) eohptr;
	MemoryContext old;

	if (e->flat != NULL)
		pfree(e->flat);
	old = MemoryContextSwitchTo(bloom_aggstate_context(e));
	e->flat = kind_of(e->kind)->encode(e->state);
	MemoryContextSwitchTo(old);
	return VARHDRSZ + BFAS_HEAD_LEN + VARSIZE(e->flat) - VARHDRSZ;
}

static void
bloom_aggstate_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	BloomAggStateObject  *e = (BloomAggStateObject *) eohptr;
	size_t		plen;

	Assert(e->flat != NULL);
	plen = VARSIZE(e->flat) - VARHDRSZ;
	Assert(allocated_size == VARHDRSZ + BFAS_HEAD_LEN + plen);
	SET_VARSIZE(result, allocated_size);
	bfas_store_head((uint8 *) VARDATA(result), e->kind);
	memcpy((uint8 *) VARDATA(result) + BFAS_HEAD_LEN, VARDATA(e->flat), plen);
	/* the state goes on changing: the encoding is made anew each time */
	pfree(e->flat);
	e->flat = NULL;
}

const ExpandedObjectMethods bloom_aggstate_methods = {
	bloom_aggstate_get_flat_size,
	bloom_aggstate_flatten_into
};

BloomAggStateObject *
bloom_aggstate_new(MemoryContext aggctx, uint8 kind)
{
	MemoryContext ctx = AllocSetContextCreate(aggctx, "bloomfilter_aggstate",
											  ALLOCSET_START_SMALL_SIZES);
	BloomAggStateObject  *e = MemoryContextAllocZero(ctx, sizeof(BloomAggStateObject));

	EOH_init_header(&e->hdr, &bloom_aggstate_methods, ctx);
	e->kind = kind;
	return e;
}

/* ---- flat values ---- */

/* ERROR unless the flat value of len bytes at p is a whole valid state. */
static void
check_flat(const uint8 *p, size_t len, int sqlstate)
{
	bf_problem	pr;

	if (!bfas_diagnose(p, len, &pr))
		bloom_report_problem(&pr, sqlstate);
}

/* A state of kind have given to a function of kind want. */
static pg_noinline void
kind_mismatch(uint8 have, uint8 want)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("this bloomfilter_aggstate is a state of %s, not of %s",
					kind_of(have)->aggs, kind_of(want)->aggs),
			 errhint("Combine a partial state only with the aggregate that made it.")));
}

/* ERROR unless the valid value at p is of the kind the function wants. */
static void
check_kind(const uint8 *p, uint8 kind)
{
	if (p[6] != kind)
		kind_mismatch(p[6], kind);
}

/* A flat datum's bytes, validated as a state of kind. */
static const uint8 *
flat_bytes(Datum d, uint8 kind, size_t *len)
{
	struct varlena *flat = PG_DETOAST_DATUM_PACKED(d);
	const uint8 *p = (const uint8 *) VARDATA_ANY(flat);

	*len = VARSIZE_ANY_EXHDR(flat);
	check_flat(p, *len, ERRCODE_DATA_CORRUPTED);
	check_kind(p, kind);
	return p;
}

/* One of our expanded objects, or NULL. */
static inline BloomAggStateObject *
our_object(Datum d, bool rw)
{
	void	   *ptr = DatumGetPointer(d);
	ExpandedObjectHeader *eoh;

	if (rw ? !VARATT_IS_EXTERNAL_EXPANDED_RW(ptr) : !VARATT_IS_EXTERNAL_EXPANDED(ptr))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &bloom_aggstate_methods)
		return NULL;
	return (BloomAggStateObject *) eoh;
}

BloomAggStateObject *
bloom_aggstate_trans_arg_slow(FunctionCallInfo fcinfo, int n, uint8 kind, const char *fname)
{
	BloomAggStateObject  *e;
	MemoryContext old;
	const uint8 *p;
	size_t		len;

	if (PG_ARGISNULL(n))
		return NULL;
	e = our_object(PG_GETARG_DATUM(n), true);
	if (likely(e != NULL))
	{
		if (unlikely(e->kind != kind))
			kind_mismatch(e->kind, kind);
		return e;
	}
	/* a value from elsewhere: a new object of the aggregate, made from it */
	e = bloom_aggstate_new(bloom_agg_context(fcinfo, fname), kind);
	p = flat_bytes(PG_GETARG_DATUM(n), kind, &len);
	old = MemoryContextSwitchTo(bloom_aggstate_context(e));
	e->state = kind_of(kind)->decode(p + BFAS_HEAD_LEN, len - BFAS_HEAD_LEN, true);
	MemoryContextSwitchTo(old);
	return e;
}

void *
bloom_aggstate_read_arg(FunctionCallInfo fcinfo, int n, uint8 kind)
{
	BloomAggStateObject  *e;
	const uint8 *p;
	size_t		len;

	if (PG_ARGISNULL(n))
		return NULL;
	e = our_object(PG_GETARG_DATUM(n), false);
	if (e != NULL)
	{
		if (e->kind != kind)
			kind_mismatch(e->kind, kind);
		return e->state;
	}
	p = flat_bytes(PG_GETARG_DATUM(n), kind, &len);
	return kind_of(kind)->decode(p + BFAS_HEAD_LEN, len - BFAS_HEAD_LEN, false);
}

/* ---- text and binary forms ---- */

static struct varlena *
aggstate_from_bytes(const uint8 *data, size_t len, int sqlstate)
{
	struct varlena *d;

	check_flat(data, len, sqlstate);
	d = (struct varlena *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(d, VARHDRSZ + len);
	memcpy(VARDATA(d), data, len);
	return d;
}

/* A stored or flattened value was validated on its way in. */
static void
aggstate_check(struct varlena *d)
{
	if (VARSIZE_ANY_EXHDR(d) < BFAS_HEAD_LEN ||
		bfas_kind((const uint8 *) VARDATA_ANY(d), VARSIZE_ANY_EXHDR(d)) == 0)
	{
		bf_problem	pr;

		bf_problem_damaged(&pr, "bloomfilter_aggstate", VARSIZE_ANY_EXHDR(d));
		bloom_report_problem(&pr, ERRCODE_DATA_CORRUPTED);
	}
}

/* The payloads carry their own checksums, sealed by their encoders. */
static void
aggstate_seal(uint8 *buf pg_attribute_unused(), size_t len pg_attribute_unused())
{
}

static const BloomTypeIO aggstate_io = {
	"bloomfilter_aggstate", aggstate_from_bytes, aggstate_check, aggstate_seal
};

BLOOM_TYPE_IO_FUNCTIONS(bloomfilter_aggstate, aggstate_io)

/* ---- the polymorphic aggregates: the same object under internal ---- */

/*
 * bloom_agg, cbloom_agg, bloom_window_agg and sbloom_agg keep the
 * transition type internal (see the install script: Citus cannot push a
 * polymorphic aggregate down, and pulls its rows up when the type is
 * internal).  Their state is the same object; a parallel worker hands the
 * leader its bytes through these, the bytes of a bloomfilter_aggstate.
 */
Datum
bloomfilter_aggstate_serialize(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);

	if (our_object(d, false) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter_aggstate_serialize expects the state of a bloomfilter aggregate")));
	/* flattened: the value's bytes, through the object's methods */
	PG_RETURN_BYTEA_P(PG_DETOAST_DATUM(d));
}

/*
 * The bytes as they are: whoever reads them (bloom_aggstate_read_arg, in the combine
 * function) validates them whole first.
 */
Datum
bloomfilter_aggstate_deserialize(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(PG_GETARG_BYTEA_PP(0));
}
