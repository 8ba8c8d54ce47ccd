/*
 * agg/bf_agg_entry.c
 *		Aggregates: bloom_agg (self-sizing or explicitly sized),
 *		bloom_union_agg and bloom_intersect_agg, with their transition,
 *		combine and final functions (their partial states' encoding is in
 *		agg/bf_agg_encode.c).
 *
 * The transition state is a struct updated in place, inside a
 * bloomfilter_aggstate expanded object (src/agg/bf_agg_type.c): returning
 * a bloomfilter datum from each transition would make the executor copy
 * the whole filter on every row.
 *
 * Self-sizing (bloom_agg(x) with no capacity) must give, for the same
 * multiset of keys, the same bytes whatever the plan, and a filter sized
 * for the number of distinct keys, which is not known until the end.
 *
 * The size is chosen from a HyperLogLog sketch of the key hashes: its
 * registers depend only on the set of hashes, whatever their order or
 * repetition, and sketches of parts merge into the sketch of the whole.
 * The filter is built at that size from the hashes, which the state keeps
 * in one of two phases:
 *
 *   - buffer: the hashes as they come, duplicates and all (appending is
 *     the cheapest thing a row can do), up to buf_max of them, half the
 *     memory of the largest filter the aggregate makes.  When full, the
 *     buffer is sorted and its duplicates dropped; if it is still over half
 *     full, the state moves to
 *   - filter: a filter of that largest size (bloomfilter.agg_max_capacity
 *     keys at the target rate), folded at the end to the chosen size.
 *     Folding a filter of m*2^j bits gives exactly the filter the same keys
 *     would have built at m bits.
 *
 * Both phases build the same bytes from the same keys, so serial, parallel,
 * sorted and hashed plans agree byte for byte.
 *
 * The encoding of a state (what leaves the aggregate: a parallel worker's
 * partial state, a Citus worker's) is in agg/bf_agg_encode.c.
 *
 * The final function's work is one pass over the buffer that sketches it
 * and counts its hashes by top byte, then, for a filter larger than the
 * caches, a scatter of the buffer into bucket order and the inserts, a
 * bucket at a time.  In a parallel plan only the leader runs the final
 * function, so the workers do the first two steps on their own buffers as
 * they serialize them (in parallel): they ship the sketch and the hashes
 * in bucket order ("runs").  The leader keeps the runs as they come, merges
 * the sketches, and inserts bucket b of every run in turn.
 */
#include "agg/bf_agg.h"
#include "type/bf_type_edges.h"

#include "core/bf_aggstate.h"
#include "agg/bf_agg_type.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"

/*
 * bloomfilter.agg_max_capacity: how many distinct keys a self-sizing
 * bloom_agg(x) filter can hold at the target rate.  It sets the size of the
 * largest filter the aggregate makes, and so its peak memory per group (the
 * hash buffer that comes first takes at most half of that).  It is the one
 * setting that can change what an aggregate returns: only past it, for more
 * distinct keys than it allows, and then with a WARNING (below).
 * src/bf_module.c defines the setting.
 */
int			bloomfilter_agg_max_capacity = 100000000;


PG_FUNCTION_INFO_V1(bloomfilter_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_auto_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_auto_agg_trans_fpr);
PG_FUNCTION_INFO_V1(bloomfilter_agg_final);
PG_FUNCTION_INFO_V1(bloomfilter_agg_combine);
PG_FUNCTION_INFO_V1(bloomfilter_union_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_agg_combine);

/* Per call site: the key type and the parameters of self-sizing. */
typedef struct BloomAggCache
{
	BloomKeyType key;
	bool		key_ready;		/* key is set (on the first non-NULL key) */
	double		fpr;
	int			hashes;
	uint64		max_nblocks;
	uint32		buf_max;
	MemoryContext mcxt;			/* where the cache lives (fn_mcxt, or the
								 * state's context): key's memory too */
} BloomAggCache;

/* ---- transition functions ---- */

/*
 * The call site's cache, made on its first call: in fn_extra, or, for a
 * call without an expression (Citus's worker_partial_agg, which gives the
 * transition function a fresh FmgrInfo on every row), in state e when
 * there is one, where the next row finds it (bloom_aggstate_call_cache).
 */
static pg_noinline BloomAggCache *
agg_cache_init(FunctionCallInfo fcinfo, BloomAggStateObject *e, bool auto_sized, double fpr)
{
	BloomAggCache *c;
	bool		in_state = e != NULL && fcinfo->flinfo->fn_expr == NULL;
	MemoryContext mcxt = in_state ? bloom_aggstate_context(e) : fcinfo->flinfo->fn_mcxt;

	c = MemoryContextAllocZero(mcxt, sizeof(BloomAggCache));
	c->mcxt = mcxt;
	if (!PG_ARGISNULL(1))
	{
		bloom_key_type_for_arg_in(&c->key, fcinfo, 1, mcxt);
		c->key_ready = true;
	}
	c->fpr = fpr;
	if (auto_sized)
	{
		/* read the GUCs once per query: every group sizes alike */
		bloom_agg_auto_sizing(fpr, &c->hashes, &c->max_nblocks, &c->buf_max);
	}
	if (in_state)
		bloom_aggstate_keep_call_cache(e, fcinfo, c);
	else
		fcinfo->flinfo->fn_extra = c;
	return c;
}

/*
 * The key type, looked up on the first non-NULL key: a key of type record
 * is told its columns by its value, and a NULL one (a CASE, the NULL side
 * of an outer join) cannot tell them.
 */
static inline BloomKeyType *
agg_key(FunctionCallInfo fcinfo, BloomAggCache *c)
{
	if (unlikely(!c->key_ready))
	{
		bloom_key_type_for_arg_in(&c->key, fcinfo, 1, c->mcxt);
		c->key_ready = true;
	}
	return &c->key;
}

/*
 * The call site's cache, if it has one (state e may be NULL): called for
 * every row, the common case is a pointer test or two.
 */
static inline BloomAggCache *
agg_cache_find(FunctionCallInfo fcinfo, BloomAggStateObject *e)
{
	if (likely(fcinfo->flinfo->fn_extra != NULL))
		return (BloomAggCache *) fcinfo->flinfo->fn_extra;
	return (BloomAggCache *) bloom_aggstate_call_cache(e, fcinfo);
}

static inline BloomAggCache *
agg_cache(FunctionCallInfo fcinfo, BloomAggStateObject *e, bool auto_sized, double fpr)
{
	BloomAggCache *c = agg_cache_find(fcinfo, e);

	if (likely(c != NULL))
		return c;
	return agg_cache_init(fcinfo, e, auto_sized, fpr);
}

/*
 * bloom_agg(x, capacity, fpr) transition: the state is created on the
 * first row with the size that meets fpr at capacity keys; NULL keys are
 * skipped.
 */
Datum
bloomfilter_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_BLOOM, "bloomfilter_agg_trans");
	BloomAggState *st = e ? (BloomAggState *) e->state : NULL;
	BloomAggCache *c;

	/* the aggregate context is looked up (and checked) once, at creation */
	if (st == NULL)
	{
		MemoryContext aggctx;
		int64		capacity;
		double		fpr;
		uint64		nbits;
		int			hashes;

		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bloom_agg capacity and false-positive rate must not be null")));
		capacity = PG_GETARG_INT64(2);
		fpr = PG_GETARG_FLOAT8(3);
		bloom_size_for(BF_LAYOUT_BLOCKED, capacity, fpr, &nbits, &hashes);
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, "bloomfilter_agg_trans"), BFAS_KIND_BLOOM);
		aggctx = bloom_aggstate_context(e);
		st = bloom_agg_state_new(aggctx);
		/* hashes first, the filter when they would outgrow it */
		bloom_agg_ex_init(st, hashes, nbits);
		e->state = st;
	}
	else if (unlikely(st->auto_sized))
	{
		/* only a state from outside (an initial condition) can be */
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter_aggstate of a self-sizing bloom_agg cannot be the state of bloom_agg(x, capacity, fpr)")));
	}

	if (!PG_ARGISNULL(1))
	{
		BloomKeyType *kt;
		uint64		h;

		c = agg_cache(fcinfo, e, false, BLOOM_AGG_FPR);
		kt = agg_key(fcinfo, c);
		/* the first key's family; a state given as INITCOND may differ */
		if (unlikely(st->view.family != kt->family || st->view.type_tag != kt->type_tag))
			bloom_adopt_family(&st->view, kt);
		h = bloom_hash_fast(kt, PG_GETARG_DATUM(1), 0);
		if (st->filter == NULL)
		{
			if (unlikely(st->nkeys == st->cap))
				bloom_agg_ex_make_room(st);
			if (st->filter == NULL)
			{
				st->keys[st->nkeys++] = h;
				st->view.added = bloom_add_saturating(st->view.added, 1);
				BLOOM_AGGSTATE_RETURN(e);
			}
		}
		st->pending[st->npending++] = h;
		if (st->npending == BLOOM_AGG_PENDING)
			bloom_agg_state_flush(st);
		/* bf_insert_batch counts the adds as it inserts */
	}
	BLOOM_AGGSTATE_RETURN(e);
}

/*
 * A buffering self-sizing state takes the family of its first key, and
 * refuses keys of another (only a state given as INITCOND can have one).
 */
static pg_noinline void
auto_adopt_family(BloomAggState *st, const BloomKeyType *kt)
{
	bf_view		v;

	memset(&v, 0, sizeof(v));
	v.family = st->family;
	v.type_tag = st->type_tag;
	bloom_adopt_family(&v, kt);
	st->family = v.family;
	st->type_tag = v.type_tag;
}

/*
 * The self-sizing transition at rate fpr, with cache c (made for fpr, and
 * for state e when e was given).
 */
static Datum
auto_agg_trans(FunctionCallInfo fcinfo, BloomAggStateObject *e, BloomAggCache *c)
{
	BloomAggState *st = e ? (BloomAggState *) e->state : NULL;
	BloomKeyType *kt;
	uint64		h;

	/* the aggregate context is looked up (and checked) once, at creation */
	if (st == NULL)
	{
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, "bloomfilter_auto_agg_trans"),
					 BFAS_KIND_BLOOM);
		st = bloom_agg_state_new(bloom_aggstate_context(e));
		st->auto_sized = true;
		st->fpr = c->fpr;
		st->hashes = c->hashes;
		st->max_nblocks = c->max_nblocks;
		st->buf_max = c->buf_max;
		e->state = st;
	}
	else if (unlikely(!st->auto_sized || st->fpr != c->fpr ||
					  st->hashes != c->hashes || st->max_nblocks != c->max_nblocks))
	{
		/* only a state from outside (an initial condition) can differ */
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter_aggstate was not made by this self-sizing aggregate")));
	}
	if (PG_ARGISNULL(1))
		BLOOM_AGGSTATE_RETURN(e);

	kt = agg_key(fcinfo, c);
	h = bloom_hash_fast(kt, PG_GETARG_DATUM(1), 0);
	if (st->filter == NULL)
	{
		/* the first key's family; a state given as INITCOND may differ */
		if (unlikely(st->family != kt->family || st->type_tag != kt->type_tag))
			auto_adopt_family(st, kt);
		st->added = bloom_add_saturating(st->added, 1);
		/*
		 * No sketch is kept while buffering: it is built from the buffer
		 * when needed, which costs less than updating it row by row.
		 */
		if (unlikely(st->nkeys == st->cap))
			bloom_agg_buf_make_room(st, 1);
		if (st->filter == NULL)
		{
			st->keys[st->nkeys++] = h;
			BLOOM_AGGSTATE_RETURN(e);
		}
		/* the buffer just gave way to the filter, which counted the row */
		st->view.added--;
	}
	else if (unlikely(st->view.family != kt->family || st->view.type_tag != kt->type_tag))
		bloom_adopt_family(&st->view, kt);
	bf_hll_add(st->hll, h);
	st->pending[st->npending++] = h;
	if (st->npending == BLOOM_AGG_PENDING)
		bloom_agg_state_flush(st);
	BLOOM_AGGSTATE_RETURN(e);
}

/* bloom_agg(x) transition: self-sizing. */
Datum
bloomfilter_auto_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_BLOOM, "bloomfilter_auto_agg_trans");

	return auto_agg_trans(fcinfo, e, agg_cache(fcinfo, e, true, BLOOM_AGG_FPR));
}

/*
 * The self-sizing transition at rate fpr instead of bloom_agg(x)'s 1%
 * (sbloom_agg builds its first sub-filter this way).  The final and
 * combine functions and the state's encoding are bloom_agg's: the rate
 * travels in the state.
 */
Datum
bloom_auto_agg_trans_at(FunctionCallInfo fcinfo, double fpr)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_BLOOM, "bloomfilter_auto_agg_trans");

	return auto_agg_trans(fcinfo, e, agg_cache(fcinfo, e, true, fpr));
}

/*
 * bloom_agg(x, fpr) transition: self-sizing at the rate of its argument,
 * which must be the same on every row (the rate is the aggregate's target,
 * not a property of a key): it is read on the first row and checked on the
 * others, so that a plan cannot give different bytes for the same rows.
 */
Datum
bloomfilter_auto_agg_trans_fpr(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_BLOOM, "bloomfilter_auto_agg_trans");
	BloomAggCache *c = agg_cache_find(fcinfo, e);
	double		fpr;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bloom_agg false-positive rate must not be null")));
	fpr = PG_GETARG_FLOAT8(2);
	if (unlikely(c == NULL))
	{
		/* the rates bloom_empty takes (a number of keys is the likely slip) */
		if (!(fpr > 0.0 && fpr < 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bloomfilter false-positive rate must be between 0 and 1 (exclusive), not %g", fpr),
					 fpr > 1.0 ?
					 errhint("bloom_agg(x, fpr) takes a rate; to size the filter for a number of keys, give it and a rate: bloom_agg(x, capacity, fpr), for example bloom_agg(x, %.0f, 0.01).", fpr) : 0));
		bloom_check_blocked_rate(fpr);
		c = agg_cache_init(fcinfo, e, true, fpr);
	}
	else if (unlikely(fpr != c->fpr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_agg false-positive rate must be the same for every row"),
				 errdetail("It was %g, then %g.", c->fpr, fpr)));
	return auto_agg_trans(fcinfo, e, c);
}

/* ---- final ---- */

/*
 * A self-sized filter capped at the largest size bloomfilter.agg_max_capacity
 * allows, for more keys than that: its rate is above its target, and this
 * setting (a bound on memory) chose its size.  Said once per aggregate
 * (*warned, when the caller has somewhere to keep it).
 */
static void
warn_capped(const BloomAggState *st, double n, uint64 nblocks, bool *warned)
{
	if (warned != NULL && *warned)
		return;
	if (nblocks < st->max_nblocks ||
		bf_auto_nblocks(n, st->fpr, st->hashes, st->max_nblocks * 2) <= st->max_nblocks)
		return;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("bloom_agg saw about %.0f distinct keys, more than bloomfilter.agg_max_capacity (%d): its filter of " UINT64_FORMAT " bits has a false-positive rate of about %.3g instead of %g",
					n, bloomfilter_agg_max_capacity, nblocks * BF_BLOCK_BITS,
					bf_blocked_expected_fpr((double) nblocks, st->hashes, n), st->fpr),
			 errhint("Raise bloomfilter.agg_max_capacity (it bounds the aggregate's memory), or size the filter explicitly with bloom_agg(x, capacity, fpr).")));
	if (warned != NULL)
		*warned = true;
}

/* The finished filter of a self-sizing state, in the current context. */
static struct varlena *
auto_final(BloomAggState *st, bool *warned)
{
	struct varlena *out;
	bf_view		v;
	double		n;
	uint64		nblocks;
	uint32		kcount[BF_HASH_BUCKETS];
	bool		counted = false;

	if (st->hll != NULL)
		n = bf_hll_estimate(st->hll);
	else
	{
		/*
		 * Sketch the buffer now (the state is left as it was).  A large one
		 * is counted by bucket in the same pass, in case the filter turns
		 * out too large for the caches and the inserts go by bucket.
		 */
		uint8	   *hll = palloc0(BF_HLL_REGISTERS);

		if (st->filter == NULL && st->nkeys >= BLOOM_AGG_RUN_MIN)
		{
			memset(kcount, 0, sizeof(kcount));
			bf_count_buckets(st->keys, st->nkeys, kcount, hll);
			counted = true;
		}
		else
			bf_hll_add_many(hll, st->keys, st->nkeys);
		n = bf_hll_estimate(hll);
		pfree(hll);
	}
	nblocks = bf_auto_nblocks(n, st->fpr, st->hashes, st->max_nblocks);
	warn_capped(st, n, nblocks, warned);
	out = bloomfilter_alloc(nblocks * BF_BLOCK_BITS);
	bf_init((uint8 *) VARDATA(out), BF_LAYOUT_BLOCKED, st->hashes, 0,
			nblocks * BF_BLOCK_BITS);
	bf_view_of((uint8 *) VARDATA(out), &v);
	if (st->filter == NULL)
	{
		bloom_agg_buf_insert_into(st, &v, counted ? kcount : NULL);
		v.added = st->added;
		v.family = st->family;
		v.type_tag = st->type_tag;
	}
	else
	{
		bloom_agg_state_sync(st);
		bf_fold_or(&v, &st->view);
		v.added = st->view.added;
		v.family = st->view.family;
		v.type_tag = st->view.type_tag;
	}
	bf_store_header((uint8 *) VARDATA(out), &v);
	return out;
}

/*
 * The result of an aggregate's state (not NULL): a new filter, the state
 * living on.  The final function of all the aggregates, and of
 * sbloom_agg through scalablebloom_agg_final.  warned, when not NULL, is
 * the caller's once-per-aggregate flag for the capacity WARNING (NULL:
 * warn every time the cap is met).
 */
struct varlena *
bloom_agg_result(void *state, bool *warned)
{
	BloomAggState *st = (BloomAggState *) state;
	struct varlena *out;

	if (st->auto_sized)
	{
		/* a state decoded from a flat value may read its runs in place */
		bloom_agg_state_own_runs(st);
		return auto_final(st, warned);
	}
	if (bloom_agg_ex_buffered(st))
	{
		/*
		 * An explicit state still buffering: its filter made here, in the
		 * current context, as bloom_agg_ex_materialize would make it.  Made in
		 * the state, it would stay there beside the buffer until the end of
		 * the query, one per group (a third more memory for bloom_agg(x,
		 * 1000, 0.01) over 100,000 groups of 20 keys).  A window
		 * aggregate's state has made its filter (bloomfilter_agg_final).
		 */
		bf_view		v;

		out = bloomfilter_alloc(st->view.nbits);
		bf_init((uint8 *) VARDATA(out), st->view.layout, st->view.hashes,
				st->view.seed, st->view.nbits);
		bf_view_of((uint8 *) VARDATA(out), &v);
		bloom_agg_buf_insert_into(st, &v, NULL);
		v.added = st->view.added;
		v.family = st->view.family;
		v.type_tag = st->view.type_tag;
		bf_store_header((uint8 *) VARDATA(out), &v);
		bloom_warn_overfull(&v);
		return out;
	}

	bloom_agg_state_sync(st);
	if (st->merged && (st->union_agg || st->folded_bits != 0))
		bloom_warn_union_rate(&st->view, st->folded_bits, st->input_fpr);
	/* copied: the state may go on changing (window aggregates) */
	out = palloc(VARSIZE(st->filter));
	memcpy(out, st->filter, VARSIZE(st->filter));
	if (!st->union_agg)
		bloom_warn_overfull(&st->view);
	return out;
}

/* Final function of all the aggregates. */
Datum
bloomfilter_agg_final(PG_FUNCTION_ARGS)
{
	bool	   *warned = NULL;
	BloomAggState *st = bloom_aggstate_read_arg(fcinfo, 0, BFAS_KIND_BLOOM);

	if (st == NULL)
		PG_RETURN_NULL();
	/* once per aggregate: a flag in the final function's own cache */
	if (fcinfo->flinfo != NULL)
	{
		if (fcinfo->flinfo->fn_extra == NULL)
			fcinfo->flinfo->fn_extra =
				MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bool));
		warned = (bool *) fcinfo->flinfo->fn_extra;
	}
	/*
	 * A window aggregate calls the final function on every row: its
	 * filter is made in the state once, not from the buffer every time.
	 */
	if (bloom_agg_ex_buffered(st) && AggCheckCallContext(fcinfo, NULL) == AGG_CONTEXT_WINDOW)
		bloom_agg_ex_materialize(st);
	PG_RETURN_POINTER(bloom_agg_result(st, warned));
}

/* ---- combine ---- */

static Datum
combine(FunctionCallInfo fcinfo, bool is_union)
{
	const char *fname = is_union ? "bloomfilter_agg_combine" : "bloomfilter_intersect_agg_combine";
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_BLOOM, fname);
	BloomAggState *s2 = bloom_aggstate_read_arg(fcinfo, 1, BFAS_KIND_BLOOM);
	BloomAggState *s1;

	/*
	 * A self-sizing state holds the hashes of bloom_agg(x)'s keys, not a
	 * filter to intersect: combining it would unite its keys with the
	 * others (more keys than the intersection has, answering true for keys
	 * that are not in every input).
	 */
	if (!is_union && ((s2 != NULL && s2->auto_sized) ||
					  (e != NULL && ((BloomAggState *) e->state)->auto_sized)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bloomfilter_aggstate of a self-sizing bloom_agg cannot be combined by bloom_intersect_agg"),
				 errhint("Combine a partial state only with the aggregate that made it.")));
	if (s2 == NULL)
	{
		/* a NULL pointer is not a NULL datum: say NULL explicitly */
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	if (e == NULL)
	{
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, fname), BFAS_KIND_BLOOM);
		e->state = bloom_agg_state_copy(bloom_aggstate_context(e), s2);
		BLOOM_AGGSTATE_RETURN(e);
	}
	s1 = e->state;
	if (s1->auto_sized || s2->auto_sized)
		bloom_agg_auto_combine(bloom_aggstate_context(e), s1, s2);
	else if (is_union && bloom_agg_ex_add_buffer(s1, s2))
		;						/* hashes of an explicit state, added */
	else
	{
		bloom_agg_state_sync(s2);
		bloom_agg_state_merge(bloom_aggstate_context(e), s1, &s2->view, s2, is_union);
	}
	BLOOM_AGGSTATE_RETURN(e);
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

/* ---- bloom_union_agg, bloom_intersect_agg ---- */

static Datum
filter_agg_trans(FunctionCallInfo fcinfo, bool is_union)
{
	const char *fname = is_union ? "bloom_union_agg" : "bloom_intersect_agg";
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_BLOOM, fname);
	BloomAggState *st;
	struct varlena *f;
	bf_view		g;

	if (PG_ARGISNULL(1))
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	f = bloomfilter_getarg(fcinfo, 1, &g);
	if (e == NULL)
	{
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, fname), BFAS_KIND_BLOOM);
		st = bloom_agg_state_from_filter(bloom_aggstate_context(e), f);
		st->union_agg = is_union;
		e->state = st;
		BLOOM_AGGSTATE_RETURN(e);
	}
	st = e->state;
	if (st->auto_sized)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter_aggstate of a self-sizing bloom_agg cannot be the state of %s", fname)));
	bloom_agg_state_merge(bloom_aggstate_context(e), st, &g, NULL, is_union);
	BLOOM_AGGSTATE_RETURN(e);
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
