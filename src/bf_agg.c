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
 * for the number of distinct keys, which is not known until the end.  The
 * state has two phases:
 *
 *   - exact: the distinct key hashes in a small open-addressing set, up to
 *     BF_AGG_EXACT_MAX of them (16 bytes a key at most: a small group costs
 *     little).  At the end, the filter is sized for exactly that many keys.
 *   - filter: past that, a filter of the largest size the aggregate makes
 *     (bloomfilter.agg_max_capacity keys at the target rate).  At the end it
 *     is folded down to the size its estimated cardinality needs.  Folding
 *     a filter of m*2^j bits gives exactly the filter the same keys would
 *     have built at m bits, so the result depends on the keys alone.
 *
 * Both phases choose the size by the same rule (bf_auto_nblocks): the
 * smallest power-of-two block count that meets the rate.  A set of keys is
 * either small enough that every plan keeps it exact, or large enough that
 * every plan reaches the filter phase with the same full-size filter, so
 * serial, parallel, sorted and hashed plans agree byte for byte.
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

/* Distinct keys kept exactly before switching to a full-size filter. */
#define BF_AGG_EXACT_MAX	65536

/* Hashes buffered before a batched, prefetching insert. */
#define BF_AGG_PENDING		32

typedef struct BloomAggState
{
	MemoryContext ctx;			/* where the state lives */
	bool		auto_sized;		/* bloom_agg(x): self-sizing */
	double		fpr;			/* target rate (auto_sized) */
	int			hashes;			/* k (auto_sized) */

	/* exact phase (auto_sized and filter == NULL) */
	uint64	   *set;			/* open addressing, 0 = empty slot */
	uint32		set_slots;		/* a power of two */
	uint32		set_count;		/* distinct non-zero hashes in set */
	bool		set_has_zero;	/* the hash 0 was seen */
	uint64		added;			/* non-NULL keys seen */
	uint16		family;
	uint32		type_tag;

	/* filter phase */
	struct varlena *filter;		/* in the aggregate context, or NULL */
	bf_view		view;			/* of filter; header fields kept here */
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

static uint64
add_saturating(uint64 a, uint64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
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

/* ---- the exact phase: a set of 64-bit hashes ---- */

static void
set_insert_raw(uint64 *slots, uint32 nslots, uint64 h)
{
	uint32		mask = nslots - 1;
	uint32		i = (uint32) (h >> 32) & mask;

	while (slots[i] != 0)
	{
		if (slots[i] == h)
			return;
		i = (i + 1) & mask;
	}
	slots[i] = h;
}

/* Adds h; returns true if it was new. */
static bool
set_add(MemoryContext aggctx, BloomAggState *st, uint64 h)
{
	uint32		mask;
	uint32		i;

	if (h == 0)
	{
		bool		was = st->set_has_zero;

		st->set_has_zero = true;
		return !was;
	}
	if (st->set == NULL || (st->set_count + 1) * 2 > st->set_slots)
	{
		uint32		nslots = st->set == NULL ? 16 : st->set_slots * 2;
		uint64	   *slots = MemoryContextAllocZero(aggctx, nslots * sizeof(uint64));

		for (uint32 j = 0; st->set != NULL && j < st->set_slots; j++)
			if (st->set[j] != 0)
				set_insert_raw(slots, nslots, st->set[j]);
		if (st->set)
			pfree(st->set);
		st->set = slots;
		st->set_slots = nslots;
	}
	mask = st->set_slots - 1;
	i = (uint32) (h >> 32) & mask;
	while (st->set[i] != 0)
	{
		if (st->set[i] == h)
			return false;
		i = (i + 1) & mask;
	}
	st->set[i] = h;
	st->set_count++;
	return true;
}

static uint32
set_distinct(const BloomAggState *st)
{
	return st->set_count + (st->set_has_zero ? 1 : 0);
}

/* Inserts every hash of the set into a filter view. */
static void
set_insert_into(const BloomAggState *st, bf_view *v)
{
	uint64		batch[BF_AGG_PENDING];
	int			n = 0;

	if (st->set_has_zero)
		batch[n++] = 0;
	for (uint32 j = 0; st->set != NULL && j < st->set_slots; j++)
	{
		if (st->set[j] == 0)
			continue;
		batch[n++] = st->set[j];
		if (n == BF_AGG_PENDING)
		{
			bf_insert_batch(v, batch, n);
			n = 0;
		}
	}
	bf_insert_batch(v, batch, n);
}

/* Leaves the exact phase: all hashes go into a full-size filter. */
static void
state_to_filter_phase(MemoryContext aggctx, BloomAggState *st, uint64 max_nblocks)
{
	state_set_filter(aggctx, st, BF_LAYOUT_BLOCKED, st->hashes, 0,
					 max_nblocks * BF_BLOCK_BITS);
	set_insert_into(st, &st->view);
	st->view.added = st->added;
	st->view.family = st->family;
	st->view.type_tag = st->type_tag;
	if (st->set)
		pfree(st->set);
	st->set = NULL;
	st->set_slots = st->set_count = 0;
	st->set_has_zero = false;
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
agg_cache_init(FunctionCallInfo fcinfo, bool auto_sized)
{
	BloomAggCache *c;

	c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomAggCache));
	bloom_key_type_for_arg(&c->key, fcinfo, 1);
	if (auto_sized)
	{
		/* read the GUCs once per query: every group sizes alike */
		c->fpr = bloomfilter_default_fpr;
		c->hashes = bf_auto_hashes(c->fpr);
		c->max_nblocks = auto_max_nblocks(c->fpr, c->hashes);
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
	return agg_cache_init(fcinfo, auto_sized);
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
					 errmsg("a bloomfilter for " INT64_FORMAT " keys at rate %g would exceed the largest bloomfilter",
							capacity, fpr)));
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
	}
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);

	h = bloom_hash_fast(&c->key, PG_GETARG_DATUM(1), 0);
	if (st->filter != NULL)
	{
		st->pending[st->npending++] = h;
		if (st->npending == BF_AGG_PENDING)
			state_flush(st);
		PG_RETURN_POINTER(st);
	}

	if (st->family == BF_FAMILY_NONE)
	{
		st->family = c->key.family;
		st->type_tag = c->key.type_tag;
	}
	st->added = add_saturating(st->added, 1);
	if (set_add(st->ctx, st, h) && set_distinct(st) > BF_AGG_EXACT_MAX)
		state_to_filter_phase(st->ctx, st, c->max_nblocks);
	PG_RETURN_POINTER(st);
}

/* ---- final ---- */

/* The finished filter of a self-sizing state, in the current context. */
static struct varlena *
auto_final(BloomAggState *st)
{
	struct varlena *out;
	bf_view		v;
	uint64		nblocks;

	if (st->filter == NULL)
	{
		nblocks = bf_auto_nblocks((double) set_distinct(st), st->fpr, st->hashes,
								  UINT64CONST(1) << 40);
		if (nblocks * BF_BLOCK_BITS > BF_MAX_NBITS)
			elog(ERROR, "self-sizing bloomfilter for %u keys is too large", set_distinct(st));
		out = bloomfilter_alloc(nblocks * BF_BLOCK_BITS);
		bf_init((uint8 *) VARDATA(out), BF_LAYOUT_BLOCKED, st->hashes, 0,
				nblocks * BF_BLOCK_BITS);
		bf_view_of((uint8 *) VARDATA(out), &v);
		set_insert_into(st, &v);
		v.added = st->added;
		v.family = st->family;
		v.type_tag = st->type_tag;
		bf_store_header((uint8 *) VARDATA(out), &v);
		return out;
	}

	/* filter phase: fold down to the size the estimated cardinality needs */
	state_sync(st);
	nblocks = bf_auto_nblocks(bf_est_cardinality(&st->view), st->fpr, st->hashes,
							  st->view.nbits / BF_BLOCK_BITS);
	out = bloomfilter_alloc(nblocks * BF_BLOCK_BITS);
	bf_init((uint8 *) VARDATA(out), BF_LAYOUT_BLOCKED, st->hashes, 0,
			nblocks * BF_BLOCK_BITS);
	bf_view_of((uint8 *) VARDATA(out), &v);
	bf_fold_or(&v, &st->view);
	v.added = st->view.added;
	v.family = st->view.family;
	v.type_tag = st->view.type_tag;
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
		ereport(ERROR,
				(errcode(c == BF_COMPAT_FAMILY ? ERRCODE_DATATYPE_MISMATCH : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot %s bloomfilters: %s", is_union ? "union" : "intersect",
						bf_compat_message(c)),
				 errdetail("One is %s with " UINT64_FORMAT " bits, %d hashes, seed " INT64_FORMAT " and key family \"%s\"; the other is %s with " UINT64_FORMAT " bits, %d hashes, seed " INT64_FORMAT " and key family \"%s\".",
						   bf_layout_name(st->view.layout), st->view.nbits, st->view.hashes, (int64) st->view.seed,
						   bloom_family_display(st->view.family, st->view.type_tag),
						   bf_layout_name(g->layout), g->nbits, g->hashes, (int64) g->seed,
						   bloom_family_display(g->family, g->type_tag))));

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

/* A copy of state s in the aggregate context. */
static BloomAggState *
state_copy(MemoryContext aggctx, BloomAggState *s)
{
	BloomAggState *st = state_new(aggctx);

	st->auto_sized = s->auto_sized;
	st->fpr = s->fpr;
	st->hashes = s->hashes;
	st->added = s->added;
	st->family = s->family;
	st->type_tag = s->type_tag;
	st->set_has_zero = s->set_has_zero;
	if (s->set != NULL)
	{
		st->set = MemoryContextAlloc(aggctx, s->set_slots * sizeof(uint64));
		memcpy(st->set, s->set, s->set_slots * sizeof(uint64));
		st->set_slots = s->set_slots;
		st->set_count = s->set_count;
	}
	if (s->filter != NULL)
	{
		state_sync(s);
		st->filter = MemoryContextAllocExtended(aggctx, VARSIZE(s->filter), MCXT_ALLOC_HUGE);
		memcpy(st->filter, s->filter, VARSIZE(s->filter));
		bf_view_of((uint8 *) VARDATA(st->filter), &st->view);
	}
	return st;
}

static void
check_same_target(BloomAggState *a, BloomAggState *b)
{
	if (a->auto_sized != b->auto_sized || a->fpr != b->fpr || a->hashes != b->hashes)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cannot combine bloom_agg states built for different targets")));
}

/* Merges self-sizing state s2 into s1. */
static void
auto_combine(MemoryContext aggctx, BloomAggState *s1, BloomAggState *s2)
{
	uint64		max_nblocks;

	check_same_target(s1, s2);
	if (s1->filter == NULL && s2->filter == NULL)
	{
		/* both exact: a set union, which may cross into the filter phase */
		if (s1->family == BF_FAMILY_NONE)
		{
			s1->family = s2->family;
			s1->type_tag = s2->type_tag;
		}
		s1->added = add_saturating(s1->added, s2->added);
		if (s2->set_has_zero)
			(void) set_add(aggctx, s1, 0);
		for (uint32 j = 0; s2->set != NULL && j < s2->set_slots; j++)
			if (s2->set[j] != 0)
				(void) set_add(aggctx, s1, s2->set[j]);
		if (set_distinct(s1) > BF_AGG_EXACT_MAX)
		{
			max_nblocks = auto_max_nblocks(s1->fpr, s1->hashes);
			state_to_filter_phase(aggctx, s1, max_nblocks);
		}
		return;
	}
	if (s1->filter == NULL)
	{
		/* the other side's full-size filter sets the size */
		state_to_filter_phase(aggctx, s1, s2->view.nbits / BF_BLOCK_BITS);
	}
	if (s2->filter == NULL)
	{
		state_flush(s1);
		set_insert_into(s2, &s1->view);
		/* set_insert_into counted its inserts; count rows instead */
		s1->view.added -= set_distinct(s2);
		s1->view.added = add_saturating(s1->view.added, s2->added);
		if (s1->view.family == BF_FAMILY_NONE)
		{
			s1->view.family = s2->family;
			s1->view.type_tag = s2->type_tag;
		}
		return;
	}
	state_sync(s2);
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
 *   'A'  a self-sizing state in the filter phase: fpr (8), k (1), filter
 *   'S'  a self-sizing state in the exact phase: fpr (8), k (1),
 *        family (2), type tag (4), added (8), has_zero (1), count (4),
 *        then count hashes (8 each)
 * all little-endian.  Deserialization validates everything.
 */
Datum
bloomfilter_agg_serialize(PG_FUNCTION_ARGS)
{
	BloomAggState *st = (BloomAggState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	uint8		b[8];

	initStringInfo(&buf);
	if (st->auto_sized && st->filter == NULL)
	{
		appendStringInfoChar(&buf, 'S');
		memcpy(b, &st->fpr, 8);
		appendBinaryStringInfo(&buf, (char *) b, 8);
		appendStringInfoChar(&buf, (char) st->hashes);
		bf_store_le16(b, st->family);
		appendBinaryStringInfo(&buf, (char *) b, 2);
		bf_store_le32(b, st->type_tag);
		appendBinaryStringInfo(&buf, (char *) b, 4);
		bf_store_le64(b, st->added);
		appendBinaryStringInfo(&buf, (char *) b, 8);
		appendStringInfoChar(&buf, st->set_has_zero ? 1 : 0);
		bf_store_le32(b, st->set_count);
		appendBinaryStringInfo(&buf, (char *) b, 4);
		for (uint32 j = 0; st->set != NULL && j < st->set_slots; j++)
		{
			if (st->set[j] == 0)
				continue;
			bf_store_le64(b, st->set[j]);
			appendBinaryStringInfo(&buf, (char *) b, 8);
		}
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
			memcpy(b, &st->fpr, 8);
			appendBinaryStringInfo(&buf, (char *) b, 8);
			appendStringInfoChar(&buf, (char) st->hashes);
		}
		else
			appendStringInfoChar(&buf, 'F');
		off = buf.len;
		enlargeStringInfo(&buf, (int) len);
		appendBinaryStringInfo(&buf, VARDATA(st->filter), (int) len);
		bf_seal((uint8 *) buf.data + off, len);
	}
	{
		bytea	   *out = palloc(VARHDRSZ + buf.len);

		SET_VARSIZE(out, VARHDRSZ + buf.len);
		memcpy(VARDATA(out), buf.data, buf.len);
		pfree(buf.data);
		PG_RETURN_BYTEA_P(out);
	}
}

static void
bad_state(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid serialized bloom_agg state: %s", why)));
}

/* Reads the self-sizing target (fpr, k) that follows the tag. */
static void
read_target(const uint8 *p, size_t len, BloomAggState *st)
{
	if (len < 1 + 8 + 1)
		bad_state("truncated");
	memcpy(&st->fpr, p + 1, 8);
	st->hashes = p[9];
	st->auto_sized = true;
	if (!(st->fpr > 0.0 && st->fpr < 1.0) ||
		st->hashes < BF_MIN_HASHES || st->hashes > BF_MAX_HASHES)
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
			st->filter = bloomfilter_from_bytes(p + 10, len - 10, ERRCODE_DATA_CORRUPTED);
			bloomfilter_view(st->filter, &st->view);
			if (st->view.layout != BF_LAYOUT_BLOCKED || st->view.hashes != st->hashes)
				bad_state("filter does not match its target");
			break;
		case 'S':
			{
				uint32		count;
				const size_t fixed = 1 + 8 + 1 + 2 + 4 + 8 + 1 + 4;

				read_target(p, len, st);
				if (len < fixed)
					bad_state("truncated");
				st->family = bf_load_le16(p + 10);
				st->type_tag = bf_load_le32(p + 12);
				st->added = bf_load_le64(p + 16);
				st->set_has_zero = p[24] != 0;
				count = bf_load_le32(p + 25);
				if (st->family > BF_FAMILY_MAX || count > BF_AGG_EXACT_MAX ||
					len != fixed + (size_t) count * 8)
					bad_state("inconsistent exact set");
				for (uint32 j = 0; j < count; j++)
				{
					uint64		h = bf_load_le64(p + fixed + (size_t) j * 8);

					if (h == 0)
						bad_state("zero hash in exact set");
					(void) set_add(CurrentMemoryContext, st, h);
				}
				if (st->set_count != count)
					bad_state("duplicate hashes in exact set");
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
