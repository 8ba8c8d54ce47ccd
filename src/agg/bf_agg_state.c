/*
 * agg/bf_agg_state.c
 *		bloom_agg's transition state: the buffer of hashes, the move to the
 *		filter phase, and the merging of partial states.
 *
 * agg/bf_agg_entry.c holds the SQL entry points and calls in here; nothing here calls
 * back.  Why two phases give the same bytes is told at the top of agg/bf_agg_entry.c.
 */
#include "agg/bf_agg.h"

#include "core/bf_aggstate.h"

#include "utils/memutils.h"

BloomAggState *
bloom_agg_state_new(MemoryContext aggctx)
{
	BloomAggState *st = MemoryContextAllocZero(aggctx, sizeof(BloomAggState));

	st->ctx = aggctx;
	return st;
}

/* Gives the state an empty filter of the given geometry. */
void
bloom_agg_state_set_filter(MemoryContext aggctx, BloomAggState *st, int layout,
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
BloomAggState *
bloom_agg_state_from_filter(MemoryContext aggctx, const struct varlena *f)
{
	BloomAggState *st = bloom_agg_state_new(aggctx);
	size_t		len = VARSIZE_ANY_EXHDR(f);

	st->filter = MemoryContextAllocExtended(aggctx, VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(st->filter, VARHDRSZ + len);
	memcpy(VARDATA(st->filter), VARDATA_ANY(f), len);
	bloomfilter_view(st->filter, &st->view);
	return st;
}

/*
 * Inserts the buffered hashes into the filter (an explicit state's buffer
 * phase: makes the filter).
 */
void
bloom_agg_state_flush(BloomAggState *st)
{
	if (unlikely(st->filter == NULL))
	{
		if (bloom_agg_ex_buffered(st))
			bloom_agg_ex_materialize(st);
		return;
	}
	if (st->npending > 0)
	{
		bf_insert_batch(&st->view, st->pending, st->npending);
		st->npending = 0;
	}
}

/* Writes the header fields the state keeps in its view into the bytes. */
void
bloom_agg_state_sync(BloomAggState *st)
{
	bloom_agg_state_flush(st);
	bf_store_header((uint8 *) VARDATA(st->filter), &st->view);
}

/* ---- the buffer phase ---- */

void
bloom_agg_buf_reserve(BloomAggState *st, uint32 cap)
{
	if (st->keys == NULL)
		st->keys = MemoryContextAllocHuge(st->ctx, (Size) cap * sizeof(uint64));
	else if (cap > st->cap)
		st->keys = repalloc_huge(st->keys, (Size) cap * sizeof(uint64));
	if (cap > st->cap)
		st->cap = cap;
}

/* Copies the hashes of run r to dst. */
static void
run_copy_keys(uint64 *dst, const BloomAggRun *r)
{
	if (r->keys != NULL)
		memcpy(dst, r->keys, (Size) r->nkeys * sizeof(uint64));
	else
	{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		for (uint32 j = 0; j < r->nkeys; j++)
			dst[j] = bf_load_le64((const uint8 *) r->src + (size_t) j * 8);
#else
		memcpy(dst, r->src, (Size) r->nkeys * sizeof(uint64));
#endif
	}
}

/* Gives the runs still in serialized bytes an array of their own. */
void
bloom_agg_state_own_runs(BloomAggState *st)
{
	for (int r = 0; r < st->nruns; r++)
		if (st->runs[r].keys == NULL)
		{
			uint64	   *keys = MemoryContextAllocHuge(st->ctx,
													  Max(st->runs[r].nkeys, 1) * sizeof(uint64));

			run_copy_keys(keys, &st->runs[r]);
			st->runs[r].keys = keys;
		}
}

/* Adds a copy of run r (keys in bucket order) to the state. */
static void
state_add_run(BloomAggState *st, const BloomAggRun *r)
{
	BloomAggRun *dst;

	if (st->nruns == st->maxruns)
	{
		int			n = Max(4, st->maxruns * 2);

		if (st->runs == NULL)
			st->runs = MemoryContextAlloc(st->ctx, n * sizeof(BloomAggRun));
		else
			st->runs = repalloc(st->runs, n * sizeof(BloomAggRun));
		st->maxruns = n;
	}
	dst = &st->runs[st->nruns++];
	memcpy(dst->count, r->count, sizeof(dst->count));
	dst->nkeys = r->nkeys;
	dst->src = NULL;
	dst->keys = MemoryContextAllocHuge(st->ctx, Max(r->nkeys, 1) * sizeof(uint64));
	run_copy_keys(dst->keys, r);
	st->nrunkeys += r->nkeys;
}

/* Appends n hashes to the buffer, which has room for them. */
static void
buf_append(BloomAggState *st, const uint64 *h, uint32 n)
{
	if (n == 0)
		return;
	memcpy(st->keys + st->nkeys, h, (Size) n * sizeof(uint64));
	st->nkeys += n;
}

/* Appends the hashes of run r to the buffer, which has room for them. */
static void
buf_append_run(BloomAggState *st, const BloomAggRun *r)
{
	run_copy_keys(st->keys + st->nkeys, r);
	st->nkeys += r->nkeys;
}

/* Frees the runs (their hashes are in the filter or the buffer by now). */
static void
state_drop_runs(BloomAggState *st)
{
	for (int r = 0; r < st->nruns; r++)
		if (st->runs[r].keys != NULL)
			pfree(st->runs[r].keys);
	st->nruns = 0;
	st->nrunkeys = 0;
}

/*
 * Moves the runs' hashes into the buffer, when the buffer must make room
 * by dropping duplicates (which sorts it).
 */
static void
state_flatten_runs(BloomAggState *st)
{
	if (st->nruns == 0)
		return;
	bloom_agg_buf_reserve(st, Max(st->nkeys + st->nrunkeys, BLOOM_AGG_FIRST_CAP));
	for (int r = 0; r < st->nruns; r++)
		buf_append_run(st, &st->runs[r]);
	state_drop_runs(st);
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
	/* runs come with a sketch: here there are none */
	st->hll = MemoryContextAllocZero(st->ctx, BF_HLL_REGISTERS);
	bf_hll_add_many(st->hll, st->keys, st->nkeys);
}

/*
 * Inserts every buffered hash (buffer and runs) into a filter view; the
 * caller sets the view's count.  A filter larger than the caches is filled
 * a bucket at a time: the buffer is first scattered into bucket order,
 * with kcount, its hashes per bucket, if the caller has counted them.
 */
void
bloom_agg_buf_insert_into(const BloomAggState *st, bf_view *v, const uint32 *kcount)
{
	uint64	   *tmp = NULL;
	uint32		count[BF_HASH_BUCKETS];
	bf_hash_run *runs;
	int			nruns = 0;

	if (v->nbits / 8 <= BF_BUCKETED_INSERT_BYTES)
	{
		bf_insert_batch(v, st->keys, st->nkeys);
		for (int r = 0; r < st->nruns; r++)
			bf_insert_batch(v, st->runs[r].keys, st->runs[r].nkeys);
		return;
	}
	runs = palloc((st->nruns + 1) * sizeof(bf_hash_run));
	if (st->nkeys > 0)
		tmp = MemoryContextAllocExtended(CurrentMemoryContext,
										 (Size) st->nkeys * sizeof(uint64),
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (tmp != NULL)
	{
		size_t		pos[BF_HASH_BUCKETS];

		if (kcount == NULL)
		{
			memset(count, 0, sizeof(count));
			bf_count_buckets(st->keys, st->nkeys, count, NULL);
			kcount = count;
		}
		(void) bf_bucket_starts(kcount, pos);
		bf_scatter_buckets(st->keys, st->nkeys, pos, tmp);
		runs[nruns].h = tmp;
		runs[nruns++].count = kcount;
	}
	else
		/* no memory for the scatter: prefetching inserts */
		bf_insert_many(v, st->keys, st->nkeys, NULL);
	for (int r = 0; r < st->nruns; r++)
	{
		runs[nruns].h = st->runs[r].keys;
		runs[nruns++].count = st->runs[r].count;
	}
	bf_insert_bucketed(v, runs, nruns);
	if (tmp)
		pfree(tmp);
	pfree(runs);
}

/* Leaves the buffer phase: all hashes go into a full-size filter. */
static void
state_to_filter_phase(BloomAggState *st)
{
	state_sketch(st);
	bloom_agg_state_set_filter(st->ctx, st, BF_LAYOUT_BLOCKED, st->hashes, 0,
					 st->max_nblocks * BF_BLOCK_BITS);
	bloom_agg_buf_insert_into(st, &st->view, NULL);
	st->view.added = st->added;
	st->view.family = st->family;
	st->view.type_tag = st->type_tag;
	if (st->keys)
		pfree(st->keys);
	st->keys = NULL;
	st->cap = st->nkeys = 0;
	state_drop_runs(st);
}

/*
 * Makes room for n more hashes in the buffer: grow it, or at its largest
 * drop duplicates, or, if that does not free half of it, leave the phase.
 */
void
bloom_agg_buf_make_room(BloomAggState *st, uint32 n)
{
	uint32		cap;

	if (st->keys != NULL && st->nkeys + n <= st->cap &&
		(uint64) st->nkeys + st->nrunkeys + n <= st->buf_max)
		return;
	state_flatten_runs(st);
	cap = Max(st->cap, BLOOM_AGG_FIRST_CAP);
	while (cap < st->buf_max && cap - st->nkeys < n)
		cap = Min(cap * 2, st->buf_max);
	if ((uint64) st->nkeys + n <= cap)
	{
		bloom_agg_buf_reserve(st, cap);
		return;
	}
	buf_dedup(st);
	if ((uint64) st->nkeys + n <= st->buf_max && st->nkeys <= st->buf_max / 2)
		bloom_agg_buf_reserve(st, st->buf_max);
	else
		state_to_filter_phase(st);
}

/* ---- an explicitly sized state's buffer phase ---- */

/* A new explicit state (no keys yet) of a blocked filter of nbits, seed 0. */
void
bloom_agg_ex_init(BloomAggState *st, int hashes, uint64 nbits)
{
	memset(&st->view, 0, sizeof(st->view));
	st->view.layout = BF_LAYOUT_BLOCKED;
	st->view.hashes = hashes;
	st->view.nbits = nbits;
	if (BFA_EXPLICIT_MAX(nbits) == 0)
		bloom_agg_ex_materialize(st);
}

/* Makes the filter of an explicit state from its buffer. */
void
bloom_agg_ex_materialize(BloomAggState *st)
{
	bf_view		v = st->view;

	Assert(bloom_agg_ex_buffered(st) && st->nruns == 0);
	bloom_agg_state_set_filter(st->ctx, st, v.layout, v.hashes, v.seed, v.nbits);
	bloom_agg_buf_insert_into(st, &st->view, NULL);
	st->view.added = v.added;
	st->view.family = v.family;
	st->view.type_tag = v.type_tag;
	if (st->keys)
		pfree(st->keys);
	st->keys = NULL;
	st->cap = st->nkeys = 0;
}

/* Room for one more hash in an explicit state's full buffer, or its filter. */
void
bloom_agg_ex_make_room(BloomAggState *st)
{
	uint64		max = BFA_EXPLICIT_MAX(st->view.nbits);

	if (st->nkeys < max)
		bloom_agg_buf_reserve(st, (uint32) Min(Max((uint64) st->cap * 2, 1024), max));
	else
		bloom_agg_ex_materialize(st);
}

/*
 * Adds explicit state s2's buffered hashes to s1 (same geometry, families
 * compatible), keeping s1 a buffer while they fit: false (nothing done)
 * when they cannot be added so.
 */
bool
bloom_agg_ex_add_buffer(BloomAggState *s1, const BloomAggState *s2)
{
	const bf_view *a = &s1->view,
			   *b = &s2->view;
	uint64		added;

	if (!bloom_agg_ex_buffered(s2) || s1->auto_sized ||
		a->layout != b->layout || a->hashes != b->hashes || a->seed != b->seed ||
		a->nbits != b->nbits ||
		(a->family != BF_FAMILY_NONE && b->family != BF_FAMILY_NONE &&
		 (a->family != b->family || a->type_tag != b->type_tag)))
		return false;
	/* s1's pending hashes are counted as they are inserted: first insert them */
	if (s1->filter != NULL)
		bloom_agg_state_flush(s1);
	added = bloom_add_saturating(a->added, b->added);
	if (bloom_agg_ex_buffered(s1) &&
		(uint64) s1->nkeys + s2->nkeys <= BFA_EXPLICIT_MAX(a->nbits))
	{
		if (s2->nkeys > 0)
		{
			bloom_agg_buf_reserve(s1, Max(s1->nkeys + s2->nkeys, BLOOM_AGG_FIRST_CAP));
			buf_append(s1, s2->keys, s2->nkeys);
		}
	}
	else
	{
		bloom_agg_state_flush(s1);
		bloom_agg_buf_insert_into(s2, &s1->view, NULL);
	}
	s1->view.added = added;
	if (s1->view.family == BF_FAMILY_NONE)
	{
		s1->view.family = b->family;
		s1->view.type_tag = b->type_tag;
	}
	return true;
}

/* The largest power-of-two block count a self-sizing filter may use. */
uint64
bloom_agg_auto_max_nblocks(double fpr, int hashes)
{
	uint64		cap = (BF_MAX_NBITS / BF_BLOCK_BITS);
	uint64		top = 1;

	while (top * 2 <= cap)
		top *= 2;
	return bf_auto_nblocks((double) bloomfilter_agg_max_capacity, fpr, hashes, top);
}

/*
 * The most hashes a self-sizing state whose filter phase has max_nblocks
 * blocks buffers: half the memory of that filter (and as much again while
 * it sorts).
 */
static uint32
auto_buf_max(uint64 max_nblocks)
{
	uint32		buf_max;

	buf_max = (uint32) Min(max_nblocks * BF_BLOCK_BYTES / 2 / sizeof(uint64),
						   (uint64) PG_INT32_MAX / sizeof(uint64));
	return Max(buf_max, 1024);
}

/*
 * What a self-sizing aggregate at rate fpr aims at in this session: its
 * hashes, the blocks of its filter phase (bloomfilter.agg_max_capacity keys
 * at fpr) and the most hashes it buffers.  The sizing model is costly: the
 * last result is kept for the process, keyed by everything it depends on
 * (pure functions of these).
 */
void
bloom_agg_auto_sizing(double fpr, int *hashes, uint64 *max_nblocks, uint32 *buf_max)
{
	static double memo_fpr = -1;
	static int	memo_max_capacity = -1;
	static int	memo_hashes;
	static uint64 memo_max_nblocks;

	if (fpr != memo_fpr || bloomfilter_agg_max_capacity != memo_max_capacity)
	{
		memo_hashes = bf_auto_hashes(fpr);
		memo_max_nblocks = bloom_agg_auto_max_nblocks(fpr, memo_hashes);
		memo_fpr = fpr;
		memo_max_capacity = bloomfilter_agg_max_capacity;
	}
	*hashes = memo_hashes;
	*max_nblocks = memo_max_nblocks;
	*buf_max = auto_buf_max(memo_max_nblocks);
}

/*
 * ERROR unless the target of a self-sizing state (read from bytes: another
 * node's, or crafted) stays within what this session's own bloom_agg(x,
 * fpr) may use at its rate: a filter phase of at most the blocks
 * bloomfilter.agg_max_capacity gives, a buffer of at most half of that.
 * Checked before anything of the state is allocated: the target's fields
 * alone could otherwise make a few kilobytes ask for the largest filter.
 */
void
bloom_agg_check_target_limit(double fpr, uint64 max_nblocks, uint32 buf_max)
{
	static double reachable_fpr = -1;	/* the last rate found reachable */
	int			hashes;
	uint64		limit;
	uint32		buf_limit;

	if (fpr != reachable_fpr)
	{
		if (!bf_auto_reachable(fpr))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid bloomfilter_aggstate: no blocked bloomfilter reaches its false-positive rate of %g", fpr)));
		reachable_fpr = fpr;
	}
	bloom_agg_auto_sizing(fpr, &hashes, &limit, &buf_limit);
	if (max_nblocks > limit || buf_max > buf_limit)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("bloomfilter_aggstate of a self-sizing bloom_agg is larger than bloomfilter.agg_max_capacity (%d) allows",
						bloomfilter_agg_max_capacity),
				 errdetail("The state may make a filter of " UINT64_FORMAT " bits and buffer %u hashes; at its false-positive rate of %g this session allows " UINT64_FORMAT " bits and %u hashes.",
						   max_nblocks * BF_BLOCK_BITS, buf_max, fpr,
						   limit * BF_BLOCK_BITS, buf_limit),
				 errhint("Set bloomfilter.agg_max_capacity alike on every server whose states are combined.")));
}

/*
 * The worst rate of the filters that went into state st: its filter's rate
 * until filters are united into it, then the worst rate among those (the
 * union's own rate is what the union did, not what the inputs had, and
 * would hide a saturated union from the WARNING).
 */
static double
state_input_fpr(const BloomAggState *st)
{
	return st->merged ? st->input_fpr : bf_est_fpr(&st->view);
}

/*
 * Merges filter view g into the state's filter: union or intersection,
 * folding to the smaller size when the sizes differ by a power of two.
 * g is an input filter, or the filter of state gst (combine).
 */
void
bloom_agg_state_merge(MemoryContext aggctx, BloomAggState *st, bf_view *g,
			const BloomAggState *gst, bool is_union)
{
	uint64		nbits;
	bf_compat	c;
	bf_view		gv = *g;
	struct varlena *tmp = NULL;

	bloom_agg_state_flush(st);
	c = bf_compatible(&st->view, g, &nbits);
	if (c != BF_COMPAT_OK)
		bloom_report_incompatible(c, is_union ? "union" : "intersect", &st->view, g);

	if (is_union && (st->union_agg || (gst && gst->union_agg) || st->view.nbits != g->nbits))
	{
		/*
		 * Remember the inputs' rate and any fold, to warn at the end (not
		 * for bloom_agg's partial states, which are parts of one filter and
		 * can be large: the rates cost a pass over the bits).
		 */
		double		g_input_fpr = gst ? state_input_fpr(gst) : bf_est_fpr(g);

		st->input_fpr = Max(state_input_fpr(st), g_input_fpr);
		st->merged = true;
		if (st->view.nbits != g->nbits)
			st->folded_bits = Max(st->folded_bits, Max(st->view.nbits, g->nbits));
		if (gst)
		{
			st->folded_bits = Max(st->folded_bits, gst->folded_bits);
			st->union_agg |= gst->union_agg;
		}
	}
	if (st->view.nbits != nbits)
	{
		/* fold the state down to the smaller size */
		struct varlena *old = st->filter;
		bf_view		oldv = st->view;

		bloom_agg_state_set_filter(aggctx, st, oldv.layout, oldv.hashes, oldv.seed, nbits);
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
BloomAggState *
bloom_agg_state_copy(MemoryContext aggctx, BloomAggState *s)
{
	BloomAggState *st = bloom_agg_state_new(aggctx);

	st->auto_sized = s->auto_sized;
	/* an explicit state's buffer keeps its geometry there */
	st->view = s->view;
	st->fpr = s->fpr;
	st->hashes = s->hashes;
	st->max_nblocks = s->max_nblocks;
	st->buf_max = s->buf_max;
	st->added = s->added;
	st->family = s->family;
	st->type_tag = s->type_tag;
	if (s->keys != NULL)
	{
		bloom_agg_buf_reserve(st, Max(s->nkeys, BLOOM_AGG_FIRST_CAP));
		buf_append(st, s->keys, s->nkeys);
	}
	for (int r = 0; r < s->nruns; r++)
		state_add_run(st, &s->runs[r]);
	if (s->filter != NULL)
	{
		bloom_agg_state_sync(s);
		st->filter = MemoryContextAllocExtended(aggctx, VARSIZE(s->filter), MCXT_ALLOC_HUGE);
		memcpy(st->filter, s->filter, VARSIZE(s->filter));
		bf_view_of((uint8 *) VARDATA(st->filter), &st->view);
	}
	st->union_agg = s->union_agg;
	st->merged = s->merged;
	st->input_fpr = s->input_fpr;
	st->folded_bits = s->folded_bits;
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

/* Adds the sketch of s2 (of its buffer if it has none) to s1's. */
static void
sketch_merge(BloomAggState *s1, const BloomAggState *s2)
{
	if (s2->hll != NULL)
		bf_hll_merge(s1->hll, s2->hll);
	else
		bf_hll_add_many(s1->hll, s2->keys, s2->nkeys);
}

/*
 * A self-sizing state as a view for messages: its filter's, or, while it
 * buffers, that of the filter its filter phase would make.
 */
static void
auto_view(const BloomAggState *st, bf_view *v)
{
	if (st->filter != NULL)
	{
		*v = st->view;
		return;
	}
	memset(v, 0, sizeof(*v));
	v->layout = BF_LAYOUT_BLOCKED;
	v->hashes = st->hashes;
	v->nbits = st->max_nblocks * BF_BLOCK_BITS;
	v->family = st->family;
	v->type_tag = st->type_tag;
	v->added = st->added;
}

/*
 * ERROR unless self-sizing states s1 and s2 hold keys of one family (or
 * one holds none), as for every union: merged, the filter would carry one
 * label over the keys of both, and a key of the other family would be
 * refused, or hashed as another type, when probed.
 */
static void
check_same_family(const BloomAggState *s1, const BloomAggState *s2)
{
	bf_view		a,
				b;

	auto_view(s1, &a);
	auto_view(s2, &b);
	if (a.family != BF_FAMILY_NONE && b.family != BF_FAMILY_NONE &&
		(a.family != b.family || a.type_tag != b.type_tag))
		bloom_report_incompatible(BF_COMPAT_FAMILY, "union", &a, &b);
}

/* Merges self-sizing state s2 into s1. */
void
bloom_agg_auto_combine(MemoryContext aggctx, BloomAggState *s1, BloomAggState *s2)
{
	check_same_target(s1, s2);
	check_same_family(s1, s2);
	if (s1->family == BF_FAMILY_NONE)
	{
		s1->family = s2->family;
		s1->type_tag = s2->type_tag;
	}
	if (s1->filter == NULL && s2->filter == NULL)
	{
		uint64		n2 = (uint64) s2->nkeys + s2->nrunkeys;

		/* both buffers: keep a sketch if either has one */
		if (s1->hll != NULL || s2->hll != NULL)
		{
			state_sketch(s1);
			sketch_merge(s1, s2);
		}
		if ((uint64) s1->nkeys + s1->nrunkeys + n2 <= s1->buf_max)
		{
			/* the runs are kept as they are, saving a copy into the buffer */
			if (s2->nkeys > 0)
			{
				bloom_agg_buf_reserve(s1, Max(s1->nkeys + s2->nkeys, BLOOM_AGG_FIRST_CAP));
				buf_append(s1, s2->keys, s2->nkeys);
			}
			for (int r = 0; r < s2->nruns; r++)
				state_add_run(s1, &s2->runs[r]);
			s1->added = bloom_add_saturating(s1->added, s2->added);
			return;
		}
		bloom_agg_buf_make_room(s1, (uint32) Min(n2, PG_UINT32_MAX));
		if (s1->filter == NULL)
		{
			buf_append(s1, s2->keys, s2->nkeys);
			for (int r = 0; r < s2->nruns; r++)
				buf_append_run(s1, &s2->runs[r]);
			s1->added = bloom_add_saturating(s1->added, s2->added);
			return;
		}
		/* s1 became a filter: fall through and add s2's hashes to it */
	}
	if (s1->filter == NULL)
		state_to_filter_phase(s1);
	bloom_agg_state_flush(s1);
	if (s2->filter == NULL)
	{
		uint64		added = s1->view.added;

		bloom_agg_state_own_runs(s2);
		bloom_agg_buf_insert_into(s2, &s1->view, NULL);
		sketch_merge(s1, s2);
		/* count rows, not the hashes just inserted */
		s1->view.added = bloom_add_saturating(added, s2->added);
		if (s1->view.family == BF_FAMILY_NONE)
		{
			s1->view.family = s2->family;
			s1->view.type_tag = s2->type_tag;
		}
		return;
	}
	bloom_agg_state_sync(s2);
	bf_hll_merge(s1->hll, s2->hll);
	bloom_agg_state_merge(aggctx, s1, &s2->view, s2, true);
}
