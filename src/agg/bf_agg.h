/*
 * agg/bf_agg.h
 *		bloom_agg's transition state and what src/agg/bf_agg_state.c offers
 *		the aggregates' SQL entry points in src/agg/bf_agg_entry.c.
 *
 * The state's two phases and why the bytes agree whatever the plan are
 * described at the top of agg/bf_agg_entry.c.
 */
#ifndef BF_AGG_H
#define BF_AGG_H

#include "key/bf_key.h"
#include "type/bf_type.h"

/*
 * The rate bloom_agg(x) and sbloom_agg(x) size for: a constant, never a
 * setting (an immutable aggregate's bytes must not depend on the server that
 * computes them; bloom_agg(x, fpr) takes another rate as an argument).
 */
#define BLOOM_AGG_FPR		0.01

/* bloomfilter.agg_max_capacity (agg/bf_agg_entry.c; src/bf_module.c defines the setting) */
extern int	bloomfilter_agg_max_capacity;

/* ---- agg/bf_agg_entry.c ---- */

/* bloom_agg(x)'s transition at a given rate (for sbloom_agg). */
extern Datum bloom_auto_agg_trans_at(FunctionCallInfo fcinfo, double fpr);

/* The filter an aggregate's (non-NULL) state gives (for sbloom_agg). */
extern struct varlena *bloom_agg_result(void *state, bool *warned);

/* First capacity of the hash buffer. */
#define BLOOM_AGG_FIRST_CAP	16


/*
 * Buffers of at least this many hashes are encoded as a sketch and a
 * bucketed run: smaller ones would carry more bytes of sketch and bucket
 * counts than of hashes.
 */
#define BLOOM_AGG_RUN_MIN		65536

/* Hashes buffered before a batched, prefetching insert. */
#define BLOOM_AGG_PENDING		32


/*
 * Hashes in bucket order (see bf_hash_run), from a partial state.  In a
 * state just deserialized, keys is NULL and the hashes are still the
 * little-endian bytes at src, inside the serialized state: the combine
 * function copies them once, into the aggregate context.
 */
typedef struct BloomAggRun
{
	uint64	   *keys;
	const char *src;
	uint32		nkeys;
	uint32		count[BF_HASH_BUCKETS];
} BloomAggRun;

typedef struct BloomAggState
{
	MemoryContext ctx;			/* where the state lives */
	bool		auto_sized;		/* bloom_agg(x): self-sizing */
	double		fpr;			/* target rate (auto_sized) */
	int			hashes;			/* k (auto_sized) */

	/*
	 * buffer phase (auto_sized and filter == NULL; or, for an explicitly
	 * sized state, filter == NULL with view.nbits set: see
	 * bloom_agg_ex_buffered)
	 */
	uint64	   *keys;			/* hashes, in arrival order */
	uint32		cap;			/* room in keys */
	uint32		nkeys;
	uint32		buf_max;		/* most hashes keys and runs hold */
	BloomAggRun *runs;			/* runs from combined partial states; only
								 * with a sketch (hll), which covers them */
	int			nruns;
	int			maxruns;
	uint32		nrunkeys;		/* hashes in the runs */
	uint64		max_nblocks;	/* size of the filter phase's filter */
	uint64		added;			/* non-NULL keys seen */
	uint16		family;
	uint32		type_tag;
	uint8	   *hll;			/* sketch of all hashes seen, or NULL while
								 * the buffer is small */

	/* filter phase */
	struct varlena *filter;		/* in the aggregate context, or NULL */
	bf_view		view;			/* of filter; header fields kept here (an
								 * explicit state's buffer phase: the
								 * geometry, family, type tag and added, and
								 * bits NULL) */
	bool		union_agg;		/* a bloom_union_agg state: warn if its
								 * union is far worse than its inputs */
	bool		merged;			/* filters were united into filter */
	double		input_fpr;		/* if merged, the worst rate among them */
	uint64		folded_bits;	/* largest filter a union folded, or 0 */
	int			npending;
	uint64		pending[BLOOM_AGG_PENDING];
} BloomAggState;

/* Making a state, and its filter phase. */
extern BloomAggState *bloom_agg_state_new(MemoryContext aggctx);
extern void bloom_agg_state_set_filter(MemoryContext aggctx, BloomAggState *st,
								   int layout, int hashes, uint64 seed,
								   uint64 nbits);
extern BloomAggState *bloom_agg_state_from_filter(MemoryContext aggctx,
											  const struct varlena *f);
extern void bloom_agg_state_flush(BloomAggState *st);
extern void bloom_agg_state_sync(BloomAggState *st);
extern void bloom_agg_state_own_runs(BloomAggState *st);

/* The buffer phase. */
extern void bloom_agg_buf_reserve(BloomAggState *st, uint32 cap);
extern void bloom_agg_buf_insert_into(const BloomAggState *st, bf_view *v,
								  const uint32 *kcount);
extern void bloom_agg_buf_make_room(BloomAggState *st, uint32 n);
extern uint64 bloom_agg_auto_max_nblocks(double fpr, int hashes);
extern void bloom_agg_auto_sizing(double fpr, int *hashes, uint64 *max_nblocks,
							  uint32 *buf_max);
extern void bloom_agg_check_target_limit(double fpr, uint64 max_nblocks,
									 uint32 buf_max);

/*
 * An explicitly sized state (bloom_agg(x, capacity, fpr)) starts as a
 * buffer of hashes, its filter's geometry in view (bits NULL), and makes
 * its filter only when the hashes would take more than half of its bytes
 * (BFA_EXPLICIT_MAX), or when the filter is needed: a Citus worker or a
 * parallel worker that saw a share of the keys ships the hashes, not a
 * filter sized for all of them.  Inserting the same hashes in any order
 * sets the same bits, so the bytes are the same.
 */
static inline bool
bloom_agg_ex_buffered(const BloomAggState *st)
{
	return !st->auto_sized && st->filter == NULL && st->view.nbits != 0;
}
extern void bloom_agg_ex_init(BloomAggState *st, int hashes, uint64 nbits);
extern void bloom_agg_ex_make_room(BloomAggState *st);
extern void bloom_agg_ex_materialize(BloomAggState *st);
extern bool bloom_agg_ex_add_buffer(BloomAggState *s1, const BloomAggState *s2);

/* Combining partial states. */
extern void bloom_agg_state_merge(MemoryContext aggctx, BloomAggState *st,
							  bf_view *g, const BloomAggState *gst,
							  bool is_union);
extern BloomAggState *bloom_agg_state_copy(MemoryContext aggctx, BloomAggState *s);
extern void bloom_agg_auto_combine(MemoryContext aggctx, BloomAggState *s1,
							   BloomAggState *s2);

#endif							/* BF_AGG_H */
