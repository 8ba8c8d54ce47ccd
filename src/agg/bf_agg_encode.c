/*
 * agg/bf_agg_encode.c
 *		The encoding of bloom_agg's state (and bloom_union_agg's,
 *		bloom_intersect_agg's, sbloom_agg's): the payload of a
 *		bloomfilter_aggstate of kind 'b', written when the state leaves its
 *		aggregate (a parallel worker's partial state, a Citus worker's) and
 *		read, validated, where it is combined.
 */
#include "agg/bf_agg.h"

#include "core/bf_aggstate.h"
#include "agg/bf_agg_type.h"

#include "utils/memutils.h"

/* ---- the encoding of a state ---- */

/*
 * The partial-state format (tags 'F', 'S', 'B', 'A') is the core's:
 * src/core/bf_aggstate.c writes and validates it, FORMAT.md describes it.
 * It is the payload of a bloomfilter_aggstate of kind 'b'.
 */
StaticAssertDecl((VARHDRSZ + BFA_BUCKETED_HEAD) % sizeof(uint64) == 0,
				 "hashes of a 'B' state must be aligned");

static void
state_target(const BloomAggState *st, bfa_target *t)
{
	t->fpr = st->fpr;
	t->hashes = st->hashes;
	t->max_nblocks = st->max_nblocks;
	t->buf_max = st->buf_max;
}

/*
 * Drops repeated hashes from the buffer when its sketch says there are
 * many: they would otherwise travel to the leader and be inserted there
 * again.  The hash set is sized for the estimated distinct hashes, and at
 * most as large as the buffer (the memory the sort of buf_dedup takes).
 */
static void
buf_dedup_estimated(BloomAggState *st, const uint8 *regs)
{
	double		est = bf_hll_estimate(regs);
	size_t		size = 1024;
	uint64	   *table;

	if (est > st->nkeys / 2.0)
		return;
	while (size < 2.5 * est + 1024)
		size *= 2;
	if (size > st->nkeys)
		return;
	table = MemoryContextAllocHuge(CurrentMemoryContext, size * sizeof(uint64));
	st->nkeys = (uint32) bf_dedup_hashes(st->keys, st->nkeys, table, size);
	pfree(table);
}

/*
 * A self-sizing buffer (the buffer and any runs) as a 'B' state: sketched
 * if it was not, without most repeated hashes, and in bucket order, which
 * is most of the final function's work, done here by each worker of a
 * parallel plan (or of a Citus cluster).
 */
static bytea *
serialize_bucketed(BloomAggState *st)
{
	uint8	   *sketch = st->hll;
	uint32		count[BF_HASH_BUCKETS] = {0};
	uint64		total;
	bytea	   *out;
	uint64	   *h;
	size_t		pos[BF_HASH_BUCKETS];
	bfa_target	t;

	/* one pass over the buffer counts it by bucket and sketches it */
	if (sketch != NULL)
		bf_count_buckets(st->keys, st->nkeys, count, NULL);
	else
	{
		sketch = palloc0(BF_HLL_REGISTERS);
		bf_count_buckets(st->keys, st->nkeys, count, sketch);
	}
	if (st->nkeys >= BLOOM_AGG_RUN_MIN)
	{
		uint32		before = st->nkeys;

		buf_dedup_estimated(st, sketch);
		if (st->nkeys != before)
		{
			memset(count, 0, sizeof(count));
			bf_count_buckets(st->keys, st->nkeys, count, NULL);
		}
	}

	total = (uint64) st->nkeys + st->nrunkeys;
	out = palloc(VARHDRSZ + BFA_BUCKETED_HEAD + total * sizeof(uint64));
	SET_VARSIZE(out, VARHDRSZ + BFA_BUCKETED_HEAD + total * sizeof(uint64));
	h = (uint64 *) ((uint8 *) VARDATA(out) + BFA_BUCKETED_HEAD);

	for (int r = 0; r < st->nruns; r++)
		for (int b = 0; b < BF_HASH_BUCKETS; b++)
			count[b] += st->runs[r].count[b];
	state_target(st, &t);
	bfa_encode_bucketed_head((uint8 *) VARDATA(out), &t, st->family,
							 st->type_tag, st->added, sketch, (uint32) total,
							 count);
	if (sketch != st->hll)
		pfree(sketch);
	(void) bf_bucket_starts(count, pos);

	/*
	 * The runs' buckets are already in order; the buffer is scattered.  (A
	 * state is encoded only from a bloomfilter_aggstate object, whose runs
	 * are its own, never the bytes of another state: bloom_agg_decode(own).)
	 */
	for (int r = 0; r < st->nruns; r++)
	{
		const uint64 *src = st->runs[r].keys;

		Assert(src != NULL);
		for (int b = 0; b < BF_HASH_BUCKETS; b++)
		{
			uint32		c = st->runs[r].count[b];

			memcpy(h + pos[b], src, (Size) c * sizeof(uint64));
			pos[b] += c;
			src += c;
		}
	}
	bf_scatter_buckets(st->keys, st->nkeys, pos, h);
	bfa_store_hashes(h, total);
	return out;
}

/*
 * The payload of a state of kind 'b'.  The state stays valid (a buffer may
 * lose repeated hashes and be sketched, which changes nothing it gives).
 */
bytea *
bloom_agg_encode(void *state)
{
	BloomAggState *st = (BloomAggState *) state;
	bytea	   *out;
	bfa_target	t;

	if (st->auto_sized && st->filter == NULL &&
		(st->nruns > 0 || st->nkeys >= BLOOM_AGG_RUN_MIN))
		return serialize_bucketed(st);

	if (bloom_agg_ex_buffered(st))
	{
		Size		len = bfa_explicit_len(st->nkeys);

		out = palloc(VARHDRSZ + len);
		SET_VARSIZE(out, VARHDRSZ + len);
		bfa_encode_explicit((uint8 *) VARDATA(out), st->view.hashes, st->view.nbits,
							st->view.family, st->view.type_tag, st->view.added,
							st->keys, st->nkeys);
		return out;
	}
	state_target(st, &t);
	if (st->auto_sized && st->filter == NULL)
	{
		Size		len = bfa_buffer_len(st->hll != NULL, st->nkeys);

		out = palloc(VARHDRSZ + len);
		SET_VARSIZE(out, VARHDRSZ + len);
		bfa_encode_buffer((uint8 *) VARDATA(out), &t, st->family, st->type_tag,
						  st->added, st->hll, st->keys, st->nkeys);
	}
	else
	{
		uint8		head[BFA_AUTO_FILTER_HEAD];
		size_t		hlen;
		size_t		len;

		bloom_agg_state_sync(st);
		len = VARSIZE(st->filter) - VARHDRSZ;
		hlen = bfa_encode_filter_head(head, st->auto_sized, &t, st->hll);
		out = palloc(VARHDRSZ + hlen + len);
		SET_VARSIZE(out, VARHDRSZ + hlen + len);
		memcpy(VARDATA(out), head, hlen);
		memcpy((uint8 *) VARDATA(out) + hlen, VARDATA(st->filter), len);
		bf_seal((uint8 *) VARDATA(out) + hlen, len);
	}
	return out;
}

static void
bad_state(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid bloomfilter_aggstate: %s", why)));
}

/*
 * A state from its payload, validated like every other way bytes come in.
 * Without own, the hashes of a 'B' payload are read in place (the caller
 * keeps data alive as long as the state, and the combine function copies
 * them where they are kept).
 */
void *
bloom_agg_decode(const uint8 *data, size_t len, bool own)
{
	BloomAggState *st = bloom_agg_state_new(CurrentMemoryContext);
	bfa_state	s;
	const char *why;

	why = bfa_decode(data, len, &s);
	if (why != NULL)
		bad_state(why);
	if (s.tag == BFA_TAG_EXPLICIT)
	{
		bloom_agg_ex_init(st, s.ex_hashes, s.ex_nbits);
		st->view.family = s.family;
		st->view.type_tag = s.type_tag;
		st->view.added = s.added;
		if (s.count > 0)
			bloom_agg_buf_reserve(st, s.count);
		for (uint32 j = 0; j < s.count; j++)
			st->keys[j] = bf_load_le64(s.hashes + (size_t) j * 8);
		st->nkeys = s.count;
		return st;
	}
	if (s.tag != BFA_TAG_FILTER)
	{
		/* nothing of the state is allocated before its size is checked */
		bloom_agg_check_target_limit(s.target.fpr, s.target.max_nblocks,
								 s.target.buf_max);
		st->auto_sized = true;
		st->fpr = s.target.fpr;
		st->hashes = s.target.hashes;
		st->max_nblocks = s.target.max_nblocks;
		st->buf_max = s.target.buf_max;
		st->family = s.family;
		st->type_tag = s.type_tag;
		st->added = s.added;
	}
	if (s.sketch != NULL)
	{
		st->hll = palloc(BF_HLL_REGISTERS);
		memcpy(st->hll, s.sketch, BF_HLL_REGISTERS);
	}
	switch (s.tag)
	{
		case BFA_TAG_FILTER:
		case BFA_TAG_AUTO_FILTER:
			st->filter = bloomfilter_from_bytes(s.filter, s.filter_len,
												ERRCODE_DATA_CORRUPTED);
			bloomfilter_view(st->filter, &st->view);
			if (s.tag == BFA_TAG_AUTO_FILTER &&
				(why = bfa_check_filter(&s.target, &st->view)) != NULL)
				bad_state(why);
			break;
		case BFA_TAG_BUFFER:
			bloom_agg_buf_reserve(st, Max(s.count, BLOOM_AGG_FIRST_CAP));
			for (uint32 j = 0; j < s.count; j++)
				st->keys[j] = bf_load_le64(s.hashes + (size_t) j * 8);
			st->nkeys = s.count;
			break;
		case BFA_TAG_BUCKETED:
			{
				BloomAggRun *run = palloc(sizeof(BloomAggRun));

				run->nkeys = s.count;
				for (int k = 0; k < BF_HASH_BUCKETS; k++)
					run->count[k] = bf_load_le32(s.bucket_count + 4 * k);

				/*
				 * Not copied: the state lives in the same short-lived
				 * context as its bytes, and the combine function copies
				 * the hashes where they are kept.
				 */
				run->keys = NULL;
				run->src = (const char *) s.hashes;
				st->runs = run;
				st->nruns = st->maxruns = 1;
				st->nrunkeys = run->nkeys;
				if (own)
					bloom_agg_state_own_runs(st);
				break;
			}
	}
	return st;
}
