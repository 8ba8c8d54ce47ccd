/*
 * index/slice/bf_slice_scan.c
 *		Scanning a bloomslice index: amgetbitmap, and amgettuple over the same
 *		answer in heap order.
 *
 * The pending area is read first, under the metapage's share lock (see
 * index/slice/bf_slice_write.c for why that order never misses a filter): each pending
 * filter is probed as it is.  Then each block: its head says which columns
 * are live and its geometry; for a probe `f @> x` of a geometry the key
 * can be probed in, the answer is the AND of the slices at x's k positions
 * (exact: no recheck); for `f @>> q` of a geometry q is compatible with,
 * the AND of the slices at q's set bits (folded as bloom_contains_filter
 * folds), stopping as soon as no column is left.  Filters the query cannot
 * answer from the bits (another key family, an incompatible q, unsliced)
 * are returned for recheck, so the table raises a sequential scan's errors
 * for visible rows only.  Several scan keys AND their answers.
 * Which positions each key reads, and what it leaves to the recheck, is
 * index/slice/bf_slice_keys.c; this file reads the pages.
 *
 * Memory, not arithmetic, is a scan's cost: a probe pins a head and about
 * three slice pages per block.  Pages are found through the buffer this
 * backend last read them from (bs_read_buffer), a block's slice pages are
 * pinned a few at a time with their lines prefetched before the first is
 * read, and the next block's head is read, and its lines prefetched,
 * while a block is read.
 */
#include "index/slice/bf_slice_index.h"
#include "index/slice/bf_slice_keys.h"

#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "index/bf_index.h"

typedef struct BsScanOpaque
{
	MemoryContext cxt;			/* the keys and the candidates, reset per scan */
	MemoryContext hashcxt;		/* hashing a probe key */
	/* amgettuple: the candidates, read back in heap order */
	bool		collected;
	BsSink		rows;
} BsScanOpaque;

/* Reads slices of one block, keeping the last page pinned. */
typedef struct SliceReader
{
	Relation	index;
	const BsHead *h;
	Buffer		buf;
	uint32		pageno;
} SliceReader;

static void
read_slice(SliceReader *r, uint64 s, bfsl_mask *out)
{
	uint32		pageno = (uint32) (s / BS_SLICES_PER_PAGE);
	Page		page;

	if (pageno >= r->h->npages)
		elog(ERROR, "bloomslice slice " UINT64_FORMAT " past its block", s);
	if (!BufferIsValid(r->buf) || r->pageno != pageno)
	{
		if (BufferIsValid(r->buf))
			ReleaseBuffer(r->buf);
		r->buf = bs_read_buffer(r->index, r->h->pages[pageno]);
		r->pageno = pageno;
	}
	LockBuffer(r->buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(r->buf);
	bs_check_page(page, BS_PAGE_SLICES, r->index, r->h->pages[pageno]);
	memcpy(out, (char *) PageGetContents(page) +
		   (s % BS_SLICES_PER_PAGE) * BFSL_SLICE_BYTES, BFSL_SLICE_BYTES);
	LockBuffer(r->buf, BUFFER_LOCK_UNLOCK);
}

/* slice pages pinned (and their lines prefetched) before any is read */
#define BS_BATCH_PAGES 4

/*
 * Pins the page of slice pos[i] and asks the CPU for the lines a read of it
 * touches: the page's header and special space (checked) and the slices of
 * the positions that lie on it.  Returns the end of those positions.
 */
static int64
pin_slice_page(SliceReader *r, const uint64 *pos, int64 i, int64 n, Buffer *buf)
{
	uint32		pageno = (uint32) (pos[i] / BS_SLICES_PER_PAGE);
	const char *page;
	const char *base;

	if (pageno >= r->h->npages)
		elog(ERROR, "bloomslice slice " UINT64_FORMAT " past its block", pos[i]);
	*buf = bs_read_buffer(r->index, r->h->pages[pageno]);
	page = (const char *) BufferGetPage(*buf);
	base = (const char *) PageGetContents((Page) page);
	bs_prefetch(page);
	bs_prefetch(page + BLCKSZ - 1);
	for (; i < n && pos[i] / BS_SLICES_PER_PAGE == pageno; i++)
	{
		const char *sl = base + (pos[i] % BS_SLICES_PER_PAGE) * BFSL_SLICE_BYTES;

		bs_prefetch(sl);
		bs_prefetch(sl + BFSL_SLICE_BYTES - 1);
	}
	return i;
}

/*
 * ANDs the slices at pos[0 .. n-1] (sorted) into mask, one page lock per
 * page they lie on, stopping as soon as mask is empty.  The pages are
 * pinned BS_BATCH_PAGES at a time and their lines prefetched before the
 * first is read: the reads then wait for memory once, not once a page.
 */
static void
and_positions(SliceReader *r, const uint64 *pos, int64 n, bfsl_mask *mask)
{
	int64		i = 0;

	while (i < n && !bfsl_mask_empty(mask))
	{
		Buffer		bufs[BS_BATCH_PAGES];
		int64		from[BS_BATCH_PAGES + 1];
		int			np = 0;

		from[0] = i;
		while (np < BS_BATCH_PAGES && from[np] < n)
		{
			from[np + 1] = pin_slice_page(r, pos, from[np], n, &bufs[np]);
			np++;
		}
		for (int p = 0; p < np; p++)
		{
			uint32		pageno = (uint32) (pos[from[p]] / BS_SLICES_PER_PAGE);

			if (!bfsl_mask_empty(mask))
			{
				Page		page = BufferGetPage(bufs[p]);
				const char *base;

				LockBuffer(bufs[p], BUFFER_LOCK_SHARE);
				bs_check_page(page, BS_PAGE_SLICES, r->index, r->h->pages[pageno]);
				base = (const char *) PageGetContents(page);
				for (int64 j = from[p]; j < from[p + 1]; j++)
					bfsl_mask_and(mask, (const uint64 *) (base + (pos[j] % BS_SLICES_PER_PAGE) * BFSL_SLICE_BYTES));
				LockBuffer(bufs[p], BUFFER_LOCK_UNLOCK);
			}
			ReleaseBuffer(bufs[p]);
		}
		i = from[np];
	}
}

/* at most this many positions a block are prefetched ahead */
#define BS_PREFETCH_POSITIONS 64

/*
 * Asks the CPU for the lines the next block's reads will touch (buffer
 * descriptors, page headers, slices), through the buffers its pages were
 * last found in, while this block is read: no pin, no lock, only a hint.
 */
static void
prefetch_block(Relation index, const BsHead *h, BsKeyState *keys, int nkeys,
			   MemoryContext hashcxt, uint64 *pos)
{
	bfsl_mask		mask = h->live;
	bool		recheck = false;
	int64		npos;
	int64		i = 0;

	if (bfsl_mask_empty(&mask))
		return;
	npos = bs_gather_positions(keys, nkeys, &h->geom, hashcxt, pos, &mask, &recheck);
	if (npos == 0 || bfsl_mask_empty(&mask))
		return;
	npos = bfsl_sort_unique(pos, (int) npos);
	while (i < npos)
	{
		uint32		pageno = (uint32) (pos[i] / BS_SLICES_PER_PAGE);
		uint32		offs[2 * BS_PREFETCH_POSITIONS];
		int			n = 0;

		if (pageno >= h->npages)
			return;				/* read (and reported) by scan_block */
		for (; i < npos && pos[i] / BS_SLICES_PER_PAGE == pageno; i++)
		{
			uint32		off = (uint32) (pos[i] % BS_SLICES_PER_PAGE) * BFSL_SLICE_BYTES;

			offs[n++] = off;
			offs[n++] = off + BFSL_SLICE_BYTES - 1;
		}
		bs_prefetch_page(index, h->pages[pageno], offs, n);
	}
}

/*
 * The candidates of the block whose head is in hbuf into tids, and whether
 * they need a recheck into *recheck; returns how many.  h holds the head's fields up to its TIDs and its slice pages, read
 * before; the caller holds the head's share lock throughout, so a column
 * live at that read keeps its filter and its TID until the TIDs are read
 * here: VACUUM cannot free it (and a flush then fill it with another row,
 * whose TID would come back with the old filter's answer, unrechecked)
 * between the read of its slices and the read of its TID.  pos has room
 * for every key's positions.
 */
static int
scan_block(Relation index, Buffer hbuf, const BsHead *h, BsKeyState *keys, int nkeys,
		   MemoryContext hashcxt, uint64 *pos, ItemPointerData *tids, bool *recheck)
{
	bfsl_mask		mask = h->live;
	SliceReader r = {index, h, InvalidBuffer, 0};
	int			n = 0;
	int64		npos;

	/* every key's slices are ANDed: gather their positions, then read */
	*recheck = false;
	npos = bs_gather_positions(keys, nkeys, &h->geom, hashcxt, pos, &mask, recheck);
	if (npos > 0 && !bfsl_mask_empty(&mask))
	{
		npos = bfsl_sort_unique(pos, (int) npos);
		and_positions(&r, pos, npos, &mask);
	}

	/* superset keys of filters larger than q: an OR of slices per bit */
	for (int i = 0; i < nkeys && !bfsl_mask_empty(&mask); i++)
	{
		BsKeyState *ks = &keys[i];

		if (ks->strategy != BS_STRAT_SUPERSET || bs_key_answer(ks, &h->geom) != KA_SLICES ||
			ks->shift == 0)
			continue;
		for (int64 j = 0; j < ks->npos && !bfsl_mask_empty(&mask); j++)
		{
			bfsl_mask		s,
						o;

			memset(&s, 0, sizeof(s));
			for (uint64 f = 0; f < (UINT64CONST(1) << ks->shift); f++)
			{
				read_slice(&r, bfsl_fold_slice(h->geom.layout, ks->pos[j], ks->shift, f), &o);
				bfsl_mask_or(&s, o.w);
			}
			bfsl_mask_and(&mask, s.w);
		}
	}
	if (BufferIsValid(r.buf))
		ReleaseBuffer(r.buf);
	if (bfsl_mask_empty(&mask))
		return 0;

	{
		const BsHead *now = BsPageGetHead(BufferGetPage(hbuf));

		bfsl_mask_and(&mask, now->live.w);
		for (int w = 0; w < BFSL_WORDS; w++)
		{
			uint64		word = mask.w[w];

			while (word != 0)
			{
				int			c = w * 64 + __builtin_ctzll(word);

				word &= word - 1;
				tids[n++] = now->tids[c];
			}
		}
	}
	return n;
}

static int64
scan_pending(Relation index, BlockNumber blk, BsKeyState *keys, int nkeys,
			 MemoryContext hashcxt, BsSink *sink)
{
	int64		ntids = 0;

	while (blk != InvalidBlockNumber)
	{
		Buffer		buf = bs_read_buffer(index, blk);
		Page		page;
		OffsetNumber maxoff;
		ItemPointerData exact[MaxOffsetNumber],
					lossy[MaxOffsetNumber];
		int			nexact = 0,
					nlossy = 0;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		bs_check_page(page, BS_PAGE_PENDING, index, blk);
		maxoff = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			BsPendingItem *it = (BsPendingItem *) PageGetItem(page, PageGetItemId(page, off));
			bool		recheck = false;

			if (it->flags & BS_HEAD_UNSLICED)
				recheck = true;
			else
			{
				bf_view		v;

				bf_view_of((uint8 *) it->data, &v);
				if (!bs_pending_match(keys, nkeys, &v, hashcxt, &recheck))
					continue;
			}
			if (recheck)
				lossy[nlossy++] = it->tid;
			else
				exact[nexact++] = it->tid;
		}
		blk = BsPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		if (nexact > 0)
			bs_sink_add(sink, exact, nexact, false);
		if (nlossy > 0)
			bs_sink_add(sink, lossy, nlossy, true);
		ntids += nexact + nlossy;
	}
	return ntids;
}

/*
 * Copies the head at blkno (pinned and share-locked in buf) into h: its
 * fields up to the TIDs, and its slice pages.
 */
static void
copy_head(Relation index, Buffer buf, BlockNumber blkno, BsHead *h)
{
	const BsHead *ph;

	bs_check_page(BufferGetPage(buf), BS_PAGE_HEAD, index, blkno);
	ph = BsPageGetHead(BufferGetPage(buf));
	memcpy(h, ph, offsetof(BsHead, tids));
	if (h->npages > BS_MAX_HEAD_PAGES)
		elog(ERROR, "bloomslice block %u has %u slice pages", blkno, h->npages);
	memcpy(h->pages, ph->pages, h->npages * sizeof(BlockNumber));
}

/* The same, taking and releasing the head's share lock around the copy. */
static void
read_head(Relation index, Buffer buf, BlockNumber blkno, BsHead *h)
{
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	copy_head(index, buf, blkno, h);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
}

/*
 * Asks for the lines of the head at blkno read_head will touch (its fields,
 * and a slice page list of about npages entries, as the last head's).
 */
static void
prefetch_head(Relation index, BlockNumber blkno, uint32 npages)
{
	uint32		offs[32];
	int			n = 0;
	uint32		end = offsetof(BsHead, pages) + Min(npages, BS_MAX_HEAD_PAGES) * sizeof(BlockNumber);

	for (uint32 off = 0; off < offsetof(BsHead, tids) && n < (int) lengthof(offs); off += 64)
		offs[n++] = off;
	for (uint32 off = offsetof(BsHead, pages); off < end && n < (int) lengthof(offs); off += 64)
		offs[n++] = off;
	bs_prefetch_page(index, blkno, offs, n);
}

IndexScanDesc
bs_beginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	BsScanOpaque *so = palloc0(sizeof(BsScanOpaque));

	so->cxt = AllocSetContextCreate(CurrentMemoryContext, "bloomslice scan",
									ALLOCSET_DEFAULT_SIZES);
	so->hashcxt = AllocSetContextCreate(CurrentMemoryContext, "bloomslice key hash",
										ALLOCSET_SMALL_SIZES);
	scan->opaque = so;
	return scan;
}

void
bs_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		  ScanKey orderbys, int norderbys)
{
	BsScanOpaque *so = (BsScanOpaque *) scan->opaque;

	(void) nscankeys;
	(void) orderbys;
	(void) norderbys;
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	bs_sink_end(&so->rows);
	so->collected = false;
}

void
bs_endscan(IndexScanDesc scan)
{
	BsScanOpaque *so = (BsScanOpaque *) scan->opaque;

	bs_sink_end(&so->rows);
	MemoryContextDelete(so->cxt);
	MemoryContextDelete(so->hashcxt);
	pfree(so);
}

/*
 * Every candidate of the scan's keys into sink; returns how many (a row
 * met twice counted twice).  Allocates in so->cxt, reset first.
 */
static int64
scan_all(IndexScanDesc scan, BsSink *sink)
{
	BsScanOpaque *so = (BsScanOpaque *) scan->opaque;
	Relation	index = scan->indexRelation;
	MemoryContext old;
	BsKeyState   *keys;
	int			nkeys = scan->numberOfKeys;
	Buffer		metabuf;
	BsMeta	   *meta;
	BlockNumber head;
	int64		ntids = 0;

	if (nkeys == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a bloomslice index scan needs a condition")));
	/* idx_scan in pg_stat_user_indexes, as for PostgreSQL's own indexes */
	pgstat_count_index_scan(index);
	MemoryContextReset(so->cxt);
	old = MemoryContextSwitchTo(so->cxt);
	keys = palloc0(nkeys * sizeof(BsKeyState));
	if (!bs_keys_init(scan->keyData, nkeys, keys, so->cxt))
	{
		MemoryContextSwitchTo(old);
		return 0;			/* strict operators: nothing matches NULL */
	}

	/* the pending area, under the metapage's share lock */
	metabuf = bs_read_buffer(index, BS_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = bs_meta(BufferGetPage(metabuf), index);
	ntids += scan_pending(index, meta->pending_head, keys, nkeys, so->hashcxt, sink);
	head = meta->first_head;
	UnlockReleaseBuffer(metabuf);

	/*
	 * then the blocks: each head's geometry, live columns and slice pages
	 * copied, its share lock held while its slices and TIDs are read
	 * (writers lock a head only after releasing its slices: no deadlock).
	 * One head ahead: the next block's head is read, and the lines its
	 * reads will touch asked for, before this block's head is locked (one
	 * head lock at a time); that copy is a hint only, read again under the
	 * lock when its turn comes.
	 */
	{
		int64		maxpos = 0;
		uint64	   *pos;
		uint64	   *ahead = NULL;
		ItemPointerData *tids = palloc(BFSL_C * sizeof(ItemPointerData));
		BsHead	   *cur = palloc(BLCKSZ);
		BsHead	   *nxt = palloc(BLCKSZ);
		Buffer		curbuf = InvalidBuffer;

		for (int i = 0; i < nkeys; i++)
			maxpos += keys[i].strategy == BS_STRAT_KEY ? BF_MAX_HASHES : keys[i].maxpos;
		pos = MemoryContextAllocHuge(CurrentMemoryContext, Max(maxpos, 1) * sizeof(uint64));
		if (maxpos <= BS_PREFETCH_POSITIONS)
			ahead = palloc(BS_PREFETCH_POSITIONS * sizeof(uint64));
		if (head != InvalidBlockNumber)
		{
			curbuf = bs_read_buffer(index, head);
			read_head(index, curbuf, head, cur);
		}
		while (BufferIsValid(curbuf))
		{
			Buffer		nxtbuf = InvalidBuffer;
			BsHead	   *tmp;
			int			n = 0;
			bool		recheck = false;

			if (cur->next != InvalidBlockNumber)
			{
				nxtbuf = bs_read_buffer(index, cur->next);
				read_head(index, nxtbuf, cur->next, nxt);
				if (ahead != NULL)
					prefetch_block(index, nxt, keys, nkeys, so->hashcxt, ahead);
				if (nxt->next != InvalidBlockNumber)
					prefetch_head(index, nxt->next, nxt->npages);
			}
			LockBuffer(curbuf, BUFFER_LOCK_SHARE);
			copy_head(index, curbuf, BufferGetBlockNumber(curbuf), cur);
			if (!bfsl_mask_empty(&cur->live))
				n = scan_block(index, curbuf, cur, keys, nkeys, so->hashcxt, pos, tids, &recheck);
			UnlockReleaseBuffer(curbuf);
			/* outside the head's lock: a sort past work_mem writes to disk */
			if (n > 0)
				bs_sink_add(sink, tids, n, recheck);
			ntids += n;
			/* a block linked in since the hint was read: follow the link */
			if (cur->next != (BufferIsValid(nxtbuf) ? BufferGetBlockNumber(nxtbuf) : InvalidBlockNumber))
			{
				if (BufferIsValid(nxtbuf))
					ReleaseBuffer(nxtbuf);
				nxtbuf = InvalidBuffer;
				if (cur->next != InvalidBlockNumber)
				{
					nxtbuf = bs_read_buffer(index, cur->next);
					read_head(index, nxtbuf, cur->next, nxt);
				}
			}
			curbuf = nxtbuf;
			tmp = cur;
			cur = nxt;
			nxt = tmp;
			CHECK_FOR_INTERRUPTS();
		}
	}
	MemoryContextSwitchTo(old);
	return ntids;
}

int64
bs_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	BsSink		sink;

	bs_sink_init_bitmap(&sink, tbm);
	return scan_all(scan, &sink);
}

/*
 * Rows one by one, for an index scan: the whole answer is gathered at the
 * first call (as for a bitmap), then returned in heap order, each row once.
 * Returning in heap order makes the table's reads a bitmap heap scan's,
 * without its bitmap, its prefetch's second buffer lookup per page and its
 * Filter: a plain index scan drops a condition the index answers exactly,
 * where a bitmap heap scan keeps evaluating `f @> x` on every row.  The
 * candidates are held as TIDs, not as pins on index pages, which is safe
 * with an MVCC snapshot only: a TID whose row VACUUM removes meanwhile is
 * then not visible to the scan whatever lands there next.  The index can
 * back no unique or exclusion constraint, no CLUSTER and no replica
 * identity, so the executor never scans it otherwise; the check below
 * makes sure of it.
 */
bool
bs_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	BsScanOpaque *so = (BsScanOpaque *) scan->opaque;
	bool		recheck;

	if (!ScanDirectionIsForward(dir))
		elog(ERROR, "bloomslice index scans go forward only");
	if (!so->collected)
	{
		if (scan->xs_snapshot == InvalidSnapshot || !IsMVCCSnapshot(scan->xs_snapshot))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a bloomslice index scan needs an MVCC snapshot")));
		bs_sink_end(&so->rows);
		bs_sink_init_rows(&so->rows);
		scan_all(scan, &so->rows);
		bs_sink_finish(&so->rows);
		so->collected = true;
	}
	if (!bs_sink_next(&so->rows, &scan->xs_heaptid, &recheck))
		return false;
	scan->xs_recheck = recheck;
	return true;
}
