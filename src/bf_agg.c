/*
 * bf_agg.c
 *		Aggregates: bloom_agg (self-sizing or explicitly sized),
 *		bloom_union_agg and bloom_intersect_agg, with combine, serialize and
 *		deserialize functions for parallel aggregation.
 *
 * The transition state is an "internal" struct updated in place: returning
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
 */
#include "bloomfilter.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloomfilter_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_auto_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_agg_final);
PG_FUNCTION_INFO_V1(bloomfilter_agg_combine);
PG_FUNCTION_INFO_V1(bloomfilter_agg_serialize);
PG_FUNCTION_INFO_V1(bloomfilter_agg_deserialize);
PG_FUNCTION_INFO_V1(bloomfilter_union_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_agg_combine);

/* First capacity of the hash buffer. */
#define BF_AGG_FIRST_CAP	16


/* Hashes buffered before a batched, prefetching insert. */
#define BF_AGG_PENDING		32

typedef struct BloomAggState
{
	MemoryContext ctx;			/* where the state lives */
	bool		auto_sized;		/* bloom_agg(x): self-sizing */
	double		fpr;			/* target rate (auto_sized) */
	int			hashes;			/* k (auto_sized) */

	/* buffer phase (auto_sized and filter == NULL) */
	uint64	   *keys;			/* hashes, in arrival order */
	uint32		cap;			/* room in keys */
	uint32		nkeys;
	uint32		buf_max;		/* most hashes the buffer holds */
	uint64		max_nblocks;	/* size of the filter phase's filter */
	uint64		added;			/* non-NULL keys seen */
	uint16		family;
	uint32		type_tag;
	uint8	   *hll;			/* sketch of all hashes seen, or NULL while
								 * the buffer is small */

	/* filter phase */
	struct varlena *filter;		/* in the aggregate context, or NULL */
	bf_view		view;			/* of filter; header fields kept here */
	uint64		folded_bits;	/* largest filter a union folded, or 0 */
	double		folded_input_fpr;	/* the worst input rate then */
	int			npending;
	uint64		pending[BF_AGG_PENDING];
} BloomAggState;

/* Per call site: the key type and the parameters of self-sizing. */
typedef struct BloomAggCache
{
	BloomKeyType key;
	double		fpr;
	int			hashes;
	uint64		max_nblocks;
	uint32		buf_max;
} BloomAggCache;

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

static BloomAggState *
state_new(MemoryContext aggctx)
{
	BloomAggState *st = MemoryContextAllocZero(aggctx, sizeof(BloomAggState));

	st->ctx = aggctx;
	return st;
}

/* Gives the state an empty filter of the given geometry. */
static void
state_set_filter(MemoryContext aggctx, BloomAggState *st, int layout,
				 int hashes, uint64 seed, uint64 nbits)
{
	size_t		len = VARHDRSZ + bf_buffer_size(nbits);

	/* not MCXT_ALLOC_ZERO: bf_init zeroes it, and it may be 100+ MB */
	st->filter = MemoryContextAllocExtended(aggctx, len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(st->filter, len);
	bf_init((uint8 *) VARDATA(st->filter), layout, hashes, seed, nbits);
	bf_view_of((uint8 *) VARDATA(st->filter), &st->view);
}

/* A state owning a copy of filter bytes, in the aggregate context. */
static BloomAggState *
state_from_filter(MemoryContext aggctx, const struct varlena *f)
{
	BloomAggState *st = state_new(aggctx);
	size_t		len = VARSIZE_ANY_EXHDR(f);

	st->filter = MemoryContextAllocExtended(aggctx, VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(st->filter, VARHDRSZ + len);
	memcpy(VARDATA(st->filter), VARDATA_ANY(f), len);
	bloomfilter_view(st->filter, &st->view);
	return st;
}

/* Inserts the buffered hashes into the filter. */
static void
state_flush(BloomAggState *st)
{
	if (st->npending > 0)
	{
		bf_insert_batch(&st->view, st->pending, st->npending);
		st->npending = 0;
	}
}

/* Writes the header fields the state keeps in its view into the bytes. */
static void
state_sync(BloomAggState *st)
{
	state_flush(st);
	bf_store_header((uint8 *) VARDATA(st->filter), &st->view);
}

/* ---- the buffer phase ---- */

static void
buf_reserve(BloomAggState *st, uint32 cap)
{
	if (st->keys == NULL)
		st->keys = MemoryContextAllocHuge(st->ctx, (Size) cap * sizeof(uint64));
	else if (cap > st->cap)
		st->keys = repalloc_huge(st->keys, (Size) cap * sizeof(uint64));
	if (cap > st->cap)
		st->cap = cap;
}

/* Sorts the buffer and drops its duplicates. */
static void
buf_dedup(BloomAggState *st)
{
	uint64	   *tmp;

	if (st->nkeys < 2)
		return;
	tmp = MemoryContextAllocHuge(st->ctx, (Size) st->nkeys * sizeof(uint64));
	bf_sort_hashes(st->keys, tmp, st->nkeys);
	pfree(tmp);
	st->nkeys = (uint32) bf_unique_hashes(st->keys, st->nkeys);
}

/* Makes sure the state keeps a sketch of every hash it has seen. */
static void
state_sketch(BloomAggState *st)
{
	if (st->hll != NULL)
		return;
	st->hll = MemoryContextAllocZero(st->ctx, BF_HLL_REGISTERS);
	for (uint32 j = 0; j < st->nkeys; j++)
		bf_hll_add(st->hll, st->keys[j]);
}

/* Inserts every buffered hash into a filter view, in cache-friendly order. */
static void
buf_insert_into(const BloomAggState *st, bf_view *v)
{
	uint64	   *tmp = NULL;

	if (st->nkeys == 0)
		return;
	/* the scatter buffer is worth it only when the filter outgrows cache */
	if (v->nbits / 8 > (UINT64CONST(1) << 20))
		tmp = MemoryContextAllocExtended(CurrentMemoryContext,
										 (Size) st->nkeys * sizeof(uint64),
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	bf_insert_many(v, st->keys, st->nkeys, tmp);
	if (tmp)
		pfree(tmp);
}

/* Leaves the buffer phase: all hashes go into a full-size filter. */
static void
state_to_filter_phase(BloomAggState *st)
{
	state_sketch(st);
	state_set_filter(st->ctx, st, BF_LAYOUT_BLOCKED, st->hashes, 0,
					 st->max_nblocks * BF_BLOCK_BITS);
	buf_insert_into(st, &st->view);
	st->view.added = st->added;
	st->view.family = st->family;
	st->view.type_tag = st->type_tag;
	if (st->keys)
		pfree(st->keys);
	st->keys = NULL;
	st->cap = st->nkeys = 0;
}

/*
 * Makes room for n more hashes: grow the buffer, or at its largest drop
 * duplicates, or, if that does not free half of it, leave the phase.
 */
static void
buf_make_room(BloomAggState *st, uint32 n)
{
	uint32		cap = Max(st->cap, BF_AGG_FIRST_CAP);

	if (st->keys != NULL && st->nkeys + n <= st->cap)
		return;
	while (cap < st->buf_max && cap - st->nkeys < n)
		cap = Min(cap * 2, st->buf_max);
	if (st->nkeys + n <= cap)
	{
		buf_reserve(st, cap);
		return;
	}
	buf_dedup(st);
	if (st->nkeys + n <= st->buf_max && st->nkeys <= st->buf_max / 2)
		buf_reserve(st, st->buf_max);
	else
		state_to_filter_phase(st);
}

/* The largest power-of-two block count a self-sizing filter may use. */
static uint64
auto_max_nblocks(double fpr, int hashes)
{
	uint64		cap = (BF_MAX_NBITS / BF_BLOCK_BITS);
	uint64		top = 1;

	while (top * 2 <= cap)
		top *= 2;
	return bf_auto_nblocks((double) bloomfilter_agg_max_capacity, fpr, hashes, top);
}

/* ---- transition functions ---- */

static pg_noinline BloomAggCache *
agg_cache_init(FunctionCallInfo fcinfo, bool auto_sized, double fpr)
{
	BloomAggCache *c;

	c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomAggCache));
	bloom_key_type_for_arg(&c->key, fcinfo, 1);
	if (auto_sized)
	{
		/* read the GUCs once per query: every group sizes alike */
		c->fpr = fpr;
		c->hashes = bf_auto_hashes(c->fpr);
		c->max_nblocks = auto_max_nblocks(c->fpr, c->hashes);

		/*
		 * The buffer may use half the memory of the filter it stands in
		 * for (and as much again while it sorts).
		 */
		c->buf_max = (uint32) Min(c->max_nblocks * BF_BLOCK_BYTES / 2 / sizeof(uint64),
								  (uint64) PG_INT32_MAX / sizeof(uint64));
		c->buf_max = Max(c->buf_max, 1024);
	}
	fcinfo->flinfo->fn_extra = c;
	return c;
}

/* Called for every row: the common case is one pointer test. */
static inline BloomAggCache *
agg_cache(FunctionCallInfo fcinfo, bool auto_sized)
{
	if (likely(fcinfo->flinfo->fn_extra != NULL))
		return (BloomAggCache *) fcinfo->flinfo->fn_extra;
	return agg_cache_init(fcinfo, auto_sized, bloomfilter_default_fpr);
}

/*
 * bloom_agg(x, capacity, fpr) transition: the state is created on the
 * first row with the size that meets fpr at capacity keys; NULL keys are
 * skipped.
 */
Datum
bloomfilter_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *st = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomAggCache *c = agg_cache(fcinfo, false);

	/* the aggregate context is looked up (and checked) once, at creation */
	if (st == NULL)
	{
		MemoryContext aggctx = agg_context(fcinfo, "bloomfilter_agg_trans");
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
		st = state_new(aggctx);
		state_set_filter(aggctx, st, BF_LAYOUT_BLOCKED, hashes, 0, nbits);
	}

	if (!PG_ARGISNULL(1))
	{
		if (st->view.family == BF_FAMILY_NONE)
			bloom_adopt_family(&st->view, &c->key);
		st->pending[st->npending++] = bloom_hash_fast(&c->key, PG_GETARG_DATUM(1), 0);
		if (st->npending == BF_AGG_PENDING)
			state_flush(st);
		/* bf_insert_batch counts the adds as it inserts */
	}
	PG_RETURN_POINTER(st);
}

/* bloom_agg(x) transition: self-sizing. */
Datum
bloomfilter_auto_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *st = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomAggCache *c = agg_cache(fcinfo, true);
	uint64		h;

	/* the aggregate context is looked up (and checked) once, at creation */
	if (st == NULL)
	{
		st = state_new(agg_context(fcinfo, "bloomfilter_auto_agg_trans"));
		st->auto_sized = true;
		st->fpr = c->fpr;
		st->hashes = c->hashes;
		st->max_nblocks = c->max_nblocks;
		st->buf_max = c->buf_max;
	}
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);

	h = bloom_hash_fast(&c->key, PG_GETARG_DATUM(1), 0);
	if (st->filter == NULL)
	{
		if (st->family == BF_FAMILY_NONE)
		{
			st->family = c->key.family;
			st->type_tag = c->key.type_tag;
		}
		st->added = bloom_add_saturating(st->added, 1);
		/*
		 * No sketch is kept while buffering: it is built from the buffer
		 * when needed, which costs less than updating it row by row.
		 */
		if (unlikely(st->nkeys == st->cap))
			buf_make_room(st, 1);
		if (st->filter == NULL)
		{
			st->keys[st->nkeys++] = h;
			PG_RETURN_POINTER(st);
		}
		/* the buffer just gave way to the filter, which counted the row */
		st->view.added--;
	}
	bf_hll_add(st->hll, h);
	st->pending[st->npending++] = h;
	if (st->npending == BF_AGG_PENDING)
		state_flush(st);
	PG_RETURN_POINTER(st);
}

/*
 * The self-sizing transition at rate fpr instead of bloomfilter.default_fpr
 * (sbloom_agg builds its first sub-filter this way).  The final, combine,
 * serialize and deserialize functions are bloom_agg's: the rate travels in
 * the state.
 */
Datum
bloom_auto_agg_trans_at(FunctionCallInfo fcinfo, double fpr)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		(void) agg_cache_init(fcinfo, true, fpr);
	return bloomfilter_auto_agg_trans(fcinfo);
}

/* ---- final ---- */

/* The finished filter of a self-sizing state, in the current context. */
static struct varlena *
auto_final(BloomAggState *st)
{
	struct varlena *out;
	bf_view		v;
	double		n;
	uint64		nblocks;

	if (st->hll != NULL)
		n = bf_hll_estimate(st->hll);
	else
	{
		/* a small buffer: sketch it now (the state is left as it was) */
		uint8	   *hll = palloc0(BF_HLL_REGISTERS);

		for (uint32 j = 0; j < st->nkeys; j++)
			bf_hll_add(hll, st->keys[j]);
		n = bf_hll_estimate(hll);
		pfree(hll);
	}
	nblocks = bf_auto_nblocks(n, st->fpr, st->hashes, st->max_nblocks);
	out = bloomfilter_alloc(nblocks * BF_BLOCK_BITS);
	bf_init((uint8 *) VARDATA(out), BF_LAYOUT_BLOCKED, st->hashes, 0,
			nblocks * BF_BLOCK_BITS);
	bf_view_of((uint8 *) VARDATA(out), &v);
	if (st->filter == NULL)
	{
		buf_insert_into(st, &v);
		v.added = st->added;
		v.family = st->family;
		v.type_tag = st->type_tag;
	}
	else
	{
		state_sync(st);
		bf_fold_or(&v, &st->view);
		v.added = st->view.added;
		v.family = st->view.family;
		v.type_tag = st->view.type_tag;
	}
	bf_store_header((uint8 *) VARDATA(out), &v);
	return out;
}

/* Final function of all the aggregates: a new filter (the state lives on). */
Datum
bloomfilter_agg_final(PG_FUNCTION_ARGS)
{
	BloomAggState *st;
	struct varlena *out;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (BloomAggState *) PG_GETARG_POINTER(0);
	if (st->auto_sized)
		PG_RETURN_POINTER(auto_final(st));

	state_sync(st);
	if (st->folded_bits != 0)
		bloom_warn_folded_rate(&st->view, st->folded_bits, st->folded_input_fpr);
	/* copied: the state may go on changing (window aggregates) */
	out = palloc(VARSIZE(st->filter));
	memcpy(out, st->filter, VARSIZE(st->filter));
	PG_RETURN_POINTER(out);
}

/* ---- combine ---- */

/*
 * Merges filter view g into the state's filter: union or intersection,
 * folding to the smaller size when the sizes differ by a power of two.
 */
static void
state_merge(MemoryContext aggctx, BloomAggState *st, bf_view *g, bool is_union)
{
	uint64		nbits;
	bf_compat	c;
	bf_view		gv = *g;
	struct varlena *tmp = NULL;

	state_flush(st);
	c = bf_compatible(&st->view, g, &nbits);
	if (c != BF_COMPAT_OK)
		bloom_report_incompatible(c, is_union ? "union" : "intersect", &st->view, g);

	if (is_union && st->view.nbits != g->nbits)
	{
		/* remember the fold, to warn at the end if the rate suffered */
		st->folded_bits = Max(st->folded_bits, Max(st->view.nbits, g->nbits));
		st->folded_input_fpr = Max(st->folded_input_fpr,
								   Max(bf_est_fpr(&st->view), bf_est_fpr(g)));
	}
	if (st->view.nbits != nbits)
	{
		/* fold the state down to the smaller size */
		struct varlena *old = st->filter;
		bf_view		oldv = st->view;

		state_set_filter(aggctx, st, oldv.layout, oldv.hashes, oldv.seed, nbits);
		bf_fold_or(&st->view, &oldv);
		st->view.added = oldv.added;
		st->view.family = oldv.family;
		st->view.type_tag = oldv.type_tag;
		pfree(old);
	}
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
		st->view.added = bloom_add_saturating(st->view.added, g->added);
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

/* A copy of state s in the aggregate context. */
static BloomAggState *
state_copy(MemoryContext aggctx, BloomAggState *s)
{
	BloomAggState *st = state_new(aggctx);

	st->auto_sized = s->auto_sized;
	st->fpr = s->fpr;
	st->hashes = s->hashes;
	st->max_nblocks = s->max_nblocks;
	st->buf_max = s->buf_max;
	st->added = s->added;
	st->family = s->family;
	st->type_tag = s->type_tag;
	if (s->keys != NULL)
	{
		buf_reserve(st, Max(s->nkeys, BF_AGG_FIRST_CAP));
		memcpy(st->keys, s->keys, (Size) s->nkeys * sizeof(uint64));
		st->nkeys = s->nkeys;
	}
	if (s->filter != NULL)
	{
		state_sync(s);
		st->filter = MemoryContextAllocExtended(aggctx, VARSIZE(s->filter), MCXT_ALLOC_HUGE);
		memcpy(st->filter, s->filter, VARSIZE(s->filter));
		bf_view_of((uint8 *) VARDATA(st->filter), &st->view);
	}
	if (s->hll != NULL)
	{
		st->hll = MemoryContextAlloc(aggctx, BF_HLL_REGISTERS);
		memcpy(st->hll, s->hll, BF_HLL_REGISTERS);
	}
	return st;
}

static void
check_same_target(BloomAggState *a, BloomAggState *b)
{
	if (a->auto_sized != b->auto_sized || a->fpr != b->fpr || a->hashes != b->hashes ||
		a->max_nblocks != b->max_nblocks || a->buf_max != b->buf_max)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot combine bloom_agg states built for different targets")));
}

/* Merges self-sizing state s2 into s1. */
static void
auto_combine(MemoryContext aggctx, BloomAggState *s1, BloomAggState *s2)
{
	check_same_target(s1, s2);
	if (s1->family == BF_FAMILY_NONE)
	{
		s1->family = s2->family;
		s1->type_tag = s2->type_tag;
	}
	if (s1->filter == NULL && s2->filter == NULL)
	{
		/* both buffers: append, keeping a sketch if either has one */
		if (s1->hll != NULL || s2->hll != NULL)
		{
			state_sketch(s1);
			if (s2->hll != NULL)
				bf_hll_merge(s1->hll, s2->hll);
			else
				for (uint32 j = 0; j < s2->nkeys; j++)
					bf_hll_add(s1->hll, s2->keys[j]);
		}
		buf_make_room(s1, s2->nkeys);
		if (s1->filter == NULL)
		{
			memcpy(s1->keys + s1->nkeys, s2->keys, (Size) s2->nkeys * sizeof(uint64));
			s1->nkeys += s2->nkeys;
			s1->added = bloom_add_saturating(s1->added, s2->added);
			return;
		}
		/* s1 became a filter: fall through and add s2's hashes to it */
	}
	if (s1->filter == NULL)
		state_to_filter_phase(s1);
	state_flush(s1);
	if (s2->filter == NULL)
	{
		uint64		added = s1->view.added;

		buf_insert_into(s2, &s1->view);
		if (s2->hll != NULL)
			bf_hll_merge(s1->hll, s2->hll);
		else
			for (uint32 j = 0; j < s2->nkeys; j++)
				bf_hll_add(s1->hll, s2->keys[j]);
		/* count rows, not the hashes just inserted */
		s1->view.added = bloom_add_saturating(added, s2->added);
		if (s1->view.family == BF_FAMILY_NONE)
		{
			s1->view.family = s2->family;
			s1->view.type_tag = s2->type_tag;
		}
		return;
	}
	state_sync(s2);
	bf_hll_merge(s1->hll, s2->hll);
	state_merge(aggctx, s1, &s2->view, true);
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
	if (s1 == NULL)
		PG_RETURN_POINTER(state_copy(aggctx, s2));
	if (s1->auto_sized || s2->auto_sized)
		auto_combine(aggctx, s1, s2);
	else
	{
		state_sync(s2);
		state_merge(aggctx, s1, &s2->view, is_union);
	}
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

/* ---- serialize / deserialize ---- */

/*
 * Serialized states start with a tag byte:
 *   'F'  a filter state: the portable filter bytes (sealed)
 *   'S'  a self-sizing state in the buffer phase: the target, then family
 *        (2), type tag (4), added (8), a sketch flag (1) and the sketch's
 *        registers if set, count (4) and count hashes (8 each)
 *   'A'  a self-sizing state in the filter phase: the target, the sketch's
 *        registers, then the portable filter bytes (sealed)
 * where the target is fpr (8), k (1), max_nblocks (8), buf_max (4).
 * All little-endian.  Deserialization validates everything.
 */
#define BF_TARGET_LEN (8 + 1 + 8 + 4)

static void
append_le(StringInfo buf, uint64 v, int len)
{
	uint8		b[8];

	bf_store_le64(b, v);
	appendBinaryStringInfo(buf, (char *) b, len);
}

static void
append_target(StringInfo buf, const BloomAggState *st)
{
	uint64		fbits;

	memcpy(&fbits, &st->fpr, 8);
	append_le(buf, fbits, 8);
	appendStringInfoChar(buf, (char) st->hashes);
	append_le(buf, st->max_nblocks, 8);
	append_le(buf, st->buf_max, 4);
}

Datum
bloomfilter_agg_serialize(PG_FUNCTION_ARGS)
{
	BloomAggState *st = (BloomAggState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	bytea	   *out;

	initStringInfo(&buf);
	if (st->auto_sized && st->filter == NULL)
	{
		appendStringInfoChar(&buf, 'S');
		append_target(&buf, st);
		append_le(&buf, st->family, 2);
		append_le(&buf, st->type_tag, 4);
		append_le(&buf, st->added, 8);
		appendStringInfoChar(&buf, st->hll != NULL ? 1 : 0);
		if (st->hll != NULL)
			appendBinaryStringInfo(&buf, (char *) st->hll, BF_HLL_REGISTERS);
		append_le(&buf, st->nkeys, 4);
		enlargeStringInfo(&buf, (int) ((Size) st->nkeys * 8));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		for (uint32 j = 0; j < st->nkeys; j++)
			append_le(&buf, st->keys[j], 8);
#else
		appendBinaryStringInfo(&buf, (char *) st->keys, (int) ((Size) st->nkeys * 8));
#endif
	}
	else
	{
		size_t		len;
		size_t		off;

		state_sync(st);
		len = VARSIZE(st->filter) - VARHDRSZ;
		if (st->auto_sized)
		{
			appendStringInfoChar(&buf, 'A');
			append_target(&buf, st);
			appendBinaryStringInfo(&buf, (char *) st->hll, BF_HLL_REGISTERS);
		}
		else
			appendStringInfoChar(&buf, 'F');
		off = buf.len;
		enlargeStringInfo(&buf, (int) len);
		appendBinaryStringInfo(&buf, VARDATA(st->filter), (int) len);
		bf_seal((uint8 *) buf.data + off, len);
	}
	out = palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(out, VARHDRSZ + buf.len);
	memcpy(VARDATA(out), buf.data, buf.len);
	pfree(buf.data);
	PG_RETURN_BYTEA_P(out);
}

static void
bad_state(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid serialized bloom_agg state: %s", why)));
}

/* Reads the self-sizing target that follows the tag. */
static void
read_target(const uint8 *p, size_t len, BloomAggState *st)
{
	uint64		fbits;

	if (len < 1 + BF_TARGET_LEN)
		bad_state("truncated");
	fbits = bf_load_le64(p + 1);
	memcpy(&st->fpr, &fbits, 8);
	st->hashes = p[9];
	st->max_nblocks = bf_load_le64(p + 10);
	st->buf_max = bf_load_le32(p + 18);
	st->auto_sized = true;
	if (!(st->fpr > 0.0 && st->fpr < 1.0) ||
		st->hashes < BF_MIN_HASHES || st->hashes > BF_MAX_HASHES ||
		st->max_nblocks == 0 || (st->max_nblocks & (st->max_nblocks - 1)) != 0 ||
		st->max_nblocks > BF_MAX_NBITS / BF_BLOCK_BITS || st->buf_max == 0)
		bad_state("target out of range");
}

/* Deserialize: validated like every other way bytes come in. */
Datum
bloomfilter_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	const uint8 *p = (const uint8 *) VARDATA_ANY(b);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	BloomAggState *st = state_new(CurrentMemoryContext);
	const size_t head = 1 + BF_TARGET_LEN;

	if (len < 1)
		bad_state("empty");
	switch (p[0])
	{
		case 'F':
			st->filter = bloomfilter_from_bytes(p + 1, len - 1, ERRCODE_DATA_CORRUPTED);
			bloomfilter_view(st->filter, &st->view);
			break;
		case 'A':
			read_target(p, len, st);
			if (len < head + BF_HLL_REGISTERS)
				bad_state("truncated");
			st->hll = palloc(BF_HLL_REGISTERS);
			memcpy(st->hll, p + head, BF_HLL_REGISTERS);
			for (int r = 0; r < BF_HLL_REGISTERS; r++)
				if (st->hll[r] > 64 - BF_HLL_BITS + 1)
					bad_state("sketch register out of range");
			st->filter = bloomfilter_from_bytes(p + head + BF_HLL_REGISTERS,
												len - head - BF_HLL_REGISTERS,
												ERRCODE_DATA_CORRUPTED);
			bloomfilter_view(st->filter, &st->view);
			if (st->view.layout != BF_LAYOUT_BLOCKED || st->view.hashes != st->hashes ||
				st->view.seed != 0 || st->view.nbits != st->max_nblocks * BF_BLOCK_BITS)
				bad_state("filter does not match its target");
			break;
		case 'S':
			{
				size_t		off = head + 2 + 4 + 8 + 1;
				uint32		count;

				read_target(p, len, st);
				if (len < off + 4)
					bad_state("truncated");
				st->family = bf_load_le16(p + head);
				st->type_tag = bf_load_le32(p + head + 2);
				st->added = bf_load_le64(p + head + 6);
				if (st->family > BF_FAMILY_MAX || p[head + 14] > 1)
					bad_state("inconsistent buffer");
				if (p[head + 14] == 1)
				{
					if (len < off + BF_HLL_REGISTERS + 4)
						bad_state("truncated");
					st->hll = palloc(BF_HLL_REGISTERS);
					memcpy(st->hll, p + off, BF_HLL_REGISTERS);
					for (int r = 0; r < BF_HLL_REGISTERS; r++)
						if (st->hll[r] > 64 - BF_HLL_BITS + 1)
							bad_state("sketch register out of range");
					off += BF_HLL_REGISTERS;
				}
				count = bf_load_le32(p + off);
				off += 4;
				if (len != off + (size_t) count * 8)
					bad_state("inconsistent buffer");
				buf_reserve(st, Max(count, BF_AGG_FIRST_CAP));
				for (uint32 j = 0; j < count; j++)
					st->keys[j] = bf_load_le64(p + off + (size_t) j * 8);
				st->nkeys = count;
				break;
			}
		default:
			bad_state("unknown tag");
	}
	PG_RETURN_POINTER(st);
}

/* ---- bloom_union_agg, bloom_intersect_agg ---- */

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
