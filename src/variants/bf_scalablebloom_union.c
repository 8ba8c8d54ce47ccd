/*
 * variants/bf_scalablebloom_union.c
 *		Union of scalablebloom containers: bloom_union(s, t), s | t, and the
 *		aggregate bloom_union_agg(scalablebloom).
 *
 * Union concatenates the sub-filters of both sides, sorted in a canonical
 * order with identical ones kept once.  Each sub-filter keeps its own load
 * and rate, so no key is lost and the rate of the result is at most the
 * sum of the two rates (OR-ing sub-filters of the same level would double
 * their load and raise their rate far more).  The result does not depend
 * on the order of the inputs, which keeps bloom_union_agg deterministic.
 *
 * The containers are decoded by bf_scalable.c (variants/bf_variants.h).
 */
#include "key/bf_key.h"

#include "utils/memutils.h"

#include "variants/bf_variants.h"
#include "type/bf_type_edges.h"
#include "agg/bf_agg_type.h"

PG_FUNCTION_INFO_V1(scalablebloom_union);
PG_FUNCTION_INFO_V1(scalablebloom_union_agg_trans);
PG_FUNCTION_INFO_V1(scalablebloom_union_agg_combine);
PG_FUNCTION_INFO_V1(scalablebloom_union_agg_final);

/* ---- union ---- */

/* A set of entries being united, and the header they will share. */
typedef struct SbloomUnion
{
	bfs_header	h;
	bool		has_header;
	uint32		n;
	uint32		cap;
	bfs_entry  *e;				/* entries, each pointing into its own copy
								 * or into an input */
	size_t		len;			/* bytes of the entries */
} SbloomUnion;

static int
entry_qsort_cmp(const void *a, const void *b)
{
	return bfs_entry_cmp((const bfs_entry *) a, (const bfs_entry *) b);
}

/*
 * Adds container s's entries to u (pointers: the caller keeps s alive, or
 * copies), after checking that s can join: same parameters and family.
 */
static void
union_add(SbloomUnion *u, const Sbloom *s, MemoryContext mcxt)
{
	if (!u->has_header)
	{
		u->h = s->h;
		u->h.nfilters = 0;
		u->has_header = true;
	}
	else
	{
		const char *why = bfs_incompatible(&u->h, &s->h);

		if (why == NULL && u->h.family != BF_FAMILY_NONE && s->h.family != BF_FAMILY_NONE &&
			(u->h.family != s->h.family || u->h.type_tag != s->h.type_tag))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot union scalablebloom filters: the filters hold keys of different families"),
					 errdetail("The first holds keys of family \"%s\"; the second of family \"%s\".",
							   bloom_family_display(u->h.family, u->h.type_tag),
							   bloom_family_display(s->h.family, s->h.type_tag))));
		if (why != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot union scalablebloom filters: %s", why),
					 errdetail("The first has layout %s, seed " INT64_FORMAT ", target rate %g, growth %d and tightening %g; the second has layout %s, seed " INT64_FORMAT ", target rate %g, growth %d and tightening %g.",
							   bf_layout_name(u->h.layout), (int64) u->h.seed, u->h.fpr, u->h.growth, u->h.tightening,
							   bf_layout_name(s->h.layout), (int64) s->h.seed, s->h.fpr, s->h.growth, s->h.tightening)));
		if (u->h.family == BF_FAMILY_NONE)
		{
			u->h.family = s->h.family;
			u->h.type_tag = s->h.type_tag;
		}
		u->h.added = bloom_add_saturating(u->h.added, s->h.added);
		u->h.initial_capacity = Min(u->h.initial_capacity, s->h.initial_capacity);
	}
	if (u->n + s->h.nfilters > u->cap)
	{
		uint32		cap = Max(u->cap * 2, u->n + s->h.nfilters);

		u->e = u->e == NULL ? MemoryContextAlloc(mcxt, sizeof(bfs_entry) * cap)
			: repalloc(u->e, sizeof(bfs_entry) * cap);
		u->cap = cap;
	}
	memcpy(u->e + u->n, s->e, sizeof(bfs_entry) * s->h.nfilters);
	u->n += s->h.nfilters;
	for (uint32 i = 0; i < s->h.nfilters; i++)
		u->len += s->e[i].len;
}

/*
 * Sorts u's entries into canonical order and drops duplicates (identical
 * sub-filters hold the same keys: a filter united with itself keeps its
 * rate).
 */
static void
union_canonical(SbloomUnion *u)
{
	uint32		out = 0;

	if (u->n > 1)
		qsort(u->e, u->n, sizeof(bfs_entry), entry_qsort_cmp);
	for (uint32 i = 0; i < u->n; i++)
	{
		if (out > 0 && bfs_entry_cmp(&u->e[out - 1], &u->e[i]) == 0)
		{
			u->len -= u->e[i].len;
			continue;
		}
		u->e[out++] = u->e[i];
	}
	u->n = out;
}

/* The container of u's entries (sorted first), in the current context. */
static struct varlena *
union_build(SbloomUnion *u)
{
	struct varlena *d;
	uint8	   *p;
	size_t		len;

	union_canonical(u);
	if (u->n > BFS_MAX_FILTERS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the union of these scalablebloom filters would have %u sub-filters; the most is %d",
						u->n, BFS_MAX_FILTERS)));
	len = BFS_HEADER_SIZE + u->len;
	if (len > BF_MAX_TOTAL_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the union of these scalablebloom filters would exceed the largest value"),
				 errdetail("The union would have %zu bytes; the largest scalablebloom has %llu, so that its text form can be selected and dumped.",
						   len, (unsigned long long) BF_MAX_TOTAL_BYTES)));
	d = (struct varlena *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(d, VARHDRSZ + len);
	u->h.nfilters = u->n;
	bfs_write_header((uint8 *) VARDATA(d), &u->h);
	p = (uint8 *) VARDATA(d) + BFS_HEADER_SIZE;
	for (uint32 i = 0; i < u->n; i++)
	{
		memcpy(p, u->e[i].filter - BFS_ENTRY_HEADER_SIZE, u->e[i].len);
		p += u->e[i].len;
	}
	return d;
}

/*
 * A union can hold more keys than its target allows (two full filters
 * give about twice the rate): correct, reported truthfully by bloom_info,
 * and worth a word.
 */
static void
union_warn(struct varlena *d)
{
	Sbloom		s;
	double		fpr;

	sbloom_decode(d, &s);
	fpr = bfs_est_fpr(s.e, s.h.nfilters);
	if (fpr > s.h.fpr)
		ereport(WARNING,
				(errmsg("the union of scalablebloom filters has an estimated false-positive rate of %.3g, above its target %g",
						fpr, s.h.fpr),
				 errdetail("Each sub-filter keeps its own rate; the union holds the sub-filters of both inputs."),
				 errhint("Build one filter from all the keys, for example with sbloom_agg, to stay under the target.")));
	pfree(s.e);
}

/* bloom_union(s, t), s | t: every key of either. */
Datum
scalablebloom_union(PG_FUNCTION_ARGS)
{
	Sbloom		a,
				b;
	SbloomUnion u = {0};
	struct varlena *d;

	BLOOM_UNION_NULL_OPERANDS(fcinfo);
	sbloom_getarg(fcinfo, 0, &a);
	sbloom_getarg(fcinfo, 1, &b);
	union_add(&u, &a, CurrentMemoryContext);
	union_add(&u, &b, CurrentMemoryContext);
	d = union_build(&u);
	union_warn(d);
	PG_RETURN_POINTER(d);
}

/* ---- bloom_union_agg(scalablebloom) ---- */

/*
 * The state gathers copies of every input's sub-filters in the aggregate
 * context; the result sorts them, so it depends on the multiset of inputs
 * only, not on their order or the plan.
 */

/* Copies a container into ctx and adds its entries to the state. */
static void
state_add(SbloomUnion *u, struct varlena *d, MemoryContext ctx)
{
	Sbloom		s;
	struct varlena *copy;
	MemoryContext old = MemoryContextSwitchTo(ctx);

	copy = palloc_extended(VARSIZE_ANY(d), MCXT_ALLOC_HUGE);
	memcpy(copy, d, VARSIZE_ANY(d));
	sbloom_decode(copy, &s);
	union_add(u, &s, ctx);
	pfree(s.e);
	if (u->n > BFS_MAX_FILTERS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the union of these scalablebloom filters would have more than %d sub-filters",
						BFS_MAX_FILTERS)));
	MemoryContextSwitchTo(old);
}

Datum
scalablebloom_union_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_SCALABLE, "bloom_union_agg");

	if (PG_ARGISNULL(1))
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	if (e == NULL)
	{
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, "bloom_union_agg"), BFAS_KIND_SCALABLE);
		e->state = MemoryContextAllocZero(bloom_aggstate_context(e), sizeof(SbloomUnion));
	}
	state_add(e->state, PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1)), bloom_aggstate_context(e));
	BLOOM_AGGSTATE_RETURN(e);
}

Datum
scalablebloom_union_agg_combine(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_SCALABLE, "bloom_union_agg");
	SbloomUnion *u2 = bloom_aggstate_read_arg(fcinfo, 1, BFAS_KIND_SCALABLE);
	struct varlena *d2;
	SbloomUnion copy;

	if (u2 == NULL)
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	if (e == NULL)
	{
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, "bloom_union_agg"), BFAS_KIND_SCALABLE);
		e->state = MemoryContextAllocZero(bloom_aggstate_context(e), sizeof(SbloomUnion));
	}
	/*
	 * Through a container: the entries then live in the aggregate context.
	 * The container sorts a copy of the entry list (u2 may be another
	 * object, which is not ours to change).
	 */
	copy = *u2;
	copy.e = palloc(sizeof(bfs_entry) * Max(u2->n, 1));
	memcpy(copy.e, u2->e, sizeof(bfs_entry) * u2->n);
	d2 = union_build(&copy);
	state_add(e->state, d2, bloom_aggstate_context(e));
	pfree(d2);
	pfree(copy.e);
	BLOOM_AGGSTATE_RETURN(e);
}

/* The payload of a state of kind 's': the sealed container so far. */
bytea *
sbloom_union_encode(void *state)
{
	SbloomUnion *u = (SbloomUnion *) state;
	struct varlena *d = union_build(u);

	bfs_seal((uint8 *) VARDATA(d), VARSIZE(d) - VARHDRSZ);
	return (bytea *) d;
}

/* A state from its payload, validated like every other way bytes come in. */
void *
sbloom_union_decode(const uint8 *data, size_t len, bool own pg_attribute_unused())
{
	struct varlena *d = sbloom_from_bytes(data, len, ERRCODE_DATA_CORRUPTED);
	SbloomUnion *u = palloc0(sizeof(SbloomUnion));

	state_add(u, d, CurrentMemoryContext);
	pfree(d);
	return u;
}

Datum
scalablebloom_union_agg_final(PG_FUNCTION_ARGS)
{
	SbloomUnion *u = bloom_aggstate_read_arg(fcinfo, 0, BFAS_KIND_SCALABLE);
	SbloomUnion copy;
	struct varlena *d;

	if (u == NULL)
		PG_RETURN_NULL();
	/* sort a copy of the entry list: the state may go on (window use) */
	copy = *u;
	copy.e = palloc(sizeof(bfs_entry) * Max(u->n, 1));
	memcpy(copy.e, u->e, sizeof(bfs_entry) * u->n);
	d = union_build(&copy);
	union_warn(d);
	PG_RETURN_POINTER(d);
}
