/*
 * index/slice/bf_slice_write.c
 *		Writing filters into the bloomslice index: into free columns of the
 *		blocks of their geometry, into new blocks, and into the pending
 *		area, which is flushed into blocks in bulk.
 *
 * Order of writes, so a scan never misses a filter: a block's slices are
 * written before its head marks the columns live (a scan reads the head
 * first and ignores columns not live), and a pending filter leaves the
 * pending area only after it is live in a block.  Scans read the pending
 * area under the metapage's share lock, and every writer holds the
 * metapage's exclusive lock: a filter a scan did not see pending is in a
 * block before the scan reads the chain of heads.
 */
#include "index/slice/bf_slice_index.h"

#include "miscadmin.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* a head with free columns, found walking the chain */
typedef struct FreeHead
{
	BlockNumber blkno;
	BsGeom		geom;
	int			nfree;
} FreeHead;

static int
entry_cmp(const void *a, const void *b)
{
	return bs_geom_cmp(&((const BsEntry *) a)->geom, &((const BsEntry *) b)->geom);
}

static uint32
slice_pages_for(const BsGeom *g)
{
	if (g->flags & BS_HEAD_UNSLICED)
		return 0;
	return (uint32) ((g->nbits + BS_SLICES_PER_PAGE - 1) / BS_SLICES_PER_PAGE);
}

/* no hole: the whole page between header and special space is data */
static void
fill_whole_page(Page page)
{
	((PageHeader) page)->pd_lower = ((PageHeader) page)->pd_upper;
}

/* Writes n (at most BFSL_C) entries of one geometry into a new block. */
static void
write_new_block(Relation index, Buffer metabuf, BsEntry *e, int n)
{
	const BsGeom *g = &e[0].geom;
	uint32		npages = slice_pages_for(g);
	BlockNumber *pages = palloc(Max(npages, 1) * sizeof(BlockNumber));
	const uint8 **bits = palloc(n * sizeof(uint8 *));
	int		   *cols = palloc(n * sizeof(int));
	Buffer		hbuf;
	GenericXLogState *state;
	Page		hpage;
	BsHead	   *h;
	BsMeta	   *meta;

	Assert(n > 0 && n <= BFSL_C);
	if (npages > BS_MAX_HEAD_PAGES)
		elog(ERROR, "bloomslice block of " UINT64_FORMAT " bits", g->nbits);
	for (int i = 0; i < n; i++)
	{
		bits[i] = e[i].bits;
		cols[i] = i;
	}

	for (uint32 p = 0; p < npages; p += MAX_GENERIC_XLOG_PAGES)
	{
		Buffer		bufs[MAX_GENERIC_XLOG_PAGES];
		int			nb = Min(MAX_GENERIC_XLOG_PAGES, npages - p);

		state = GenericXLogStart(index);
		for (int j = 0; j < nb; j++)
		{
			Page		page;

			bufs[j] = bs_new_buffer(index);
			page = GenericXLogRegisterBuffer(state, bufs[j], GENERIC_XLOG_FULL_IMAGE);
			bs_init_page(page, BS_PAGE_SLICES);
			fill_whole_page(page);
			memset(PageGetContents(page), 0, BS_PAGE_ROOM);
			bfsl_transpose((uint64 *) PageGetContents(page),
						 (uint64) (p + j) * BS_SLICES_PER_PAGE, BS_SLICES_PER_PAGE,
						 bits, cols, n, g->nbits);
			pages[p + j] = BufferGetBlockNumber(bufs[j]);
		}
		GenericXLogFinish(state);
		for (int j = 0; j < nb; j++)
			UnlockReleaseBuffer(bufs[j]);
	}

	/* the head, linked first in the chain */
	hbuf = bs_new_buffer(index);
	state = GenericXLogStart(index);
	hpage = GenericXLogRegisterBuffer(state, hbuf, GENERIC_XLOG_FULL_IMAGE);
	meta = BsPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
	bs_init_page(hpage, BS_PAGE_HEAD);
	fill_whole_page(hpage);
	memset(PageGetContents(hpage), 0, BS_PAGE_ROOM);
	h = BsPageGetHead(hpage);
	h->geom = *g;
	h->npages = npages;
	memcpy(h->pages, pages, npages * sizeof(BlockNumber));
	for (int i = 0; i < n; i++)
	{
		h->tids[i] = e[i].tid;
		bfsl_mask_set(&h->live, i);
	}
	h->next = meta->first_head;
	meta->first_head = BufferGetBlockNumber(hbuf);
	meta->nheads++;
	meta->nslice_pages += npages;
	meta->nsliced += n;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(hbuf);
	pfree(pages);
	pfree(bits);
	pfree(cols);
}

/*
 * Writes n entries of one geometry into free columns of the block whose
 * head is hblk (it has at least n).
 */
static void
fill_block(Relation index, Buffer metabuf, BlockNumber hblk, BsEntry *e, int n)
{
	Buffer		hbuf = ReadBuffer(index, hblk);
	BsHead	   *h;
	BsHead	   *copy;
	const uint8 **bits = palloc(n * sizeof(uint8 *));
	int		   *cols = palloc(n * sizeof(int));
	int			c = 0;
	GenericXLogState *state;
	BsMeta	   *meta;

	/* the free columns; only this writer (metapage lock) fills them */
	LockBuffer(hbuf, BUFFER_LOCK_SHARE);
	bs_check_page(BufferGetPage(hbuf), BS_PAGE_HEAD, index, hblk);
	copy = palloc(BLCKSZ);
	memcpy(copy, BsPageGetHead(BufferGetPage(hbuf)), BS_PAGE_ROOM);
	LockBuffer(hbuf, BUFFER_LOCK_UNLOCK);
	for (int i = 0; i < n; i++)
	{
		while (c < BFSL_C && bfsl_mask_test(&copy->live, c))
			c++;
		if (c == BFSL_C)
			elog(ERROR, "bloomslice block %u has no free column", hblk);
		bits[i] = e[i].bits;
		cols[i] = c++;
	}

	/* slices first: the columns are not live yet, scans ignore them */
	for (uint32 p = 0; p < copy->npages; p += MAX_GENERIC_XLOG_PAGES)
	{
		Buffer		bufs[MAX_GENERIC_XLOG_PAGES];
		int			nb = Min(MAX_GENERIC_XLOG_PAGES, copy->npages - p);

		state = GenericXLogStart(index);
		for (int j = 0; j < nb; j++)
		{
			Page		page;

			bufs[j] = ReadBuffer(index, copy->pages[p + j]);
			LockBuffer(bufs[j], BUFFER_LOCK_EXCLUSIVE);
			bs_check_page(BufferGetPage(bufs[j]), BS_PAGE_SLICES, index, copy->pages[p + j]);
			page = GenericXLogRegisterBuffer(state, bufs[j], 0);
			bfsl_transpose((uint64 *) PageGetContents(page),
						 (uint64) (p + j) * BS_SLICES_PER_PAGE, BS_SLICES_PER_PAGE,
						 bits, cols, n, copy->geom.nbits);
		}
		GenericXLogFinish(state);
		for (int j = 0; j < nb; j++)
			UnlockReleaseBuffer(bufs[j]);
	}

	/* then the head: the columns become live */
	LockBuffer(hbuf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	h = BsPageGetHead(GenericXLogRegisterBuffer(state, hbuf, 0));
	meta = BsPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
	for (int i = 0; i < n; i++)
	{
		h->tids[cols[i]] = e[i].tid;
		bfsl_mask_set(&h->live, cols[i]);
	}
	meta->nsliced += n;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(hbuf);
	pfree(copy);
	pfree(bits);
	pfree(cols);
}

/* The heads with free columns, walking the chain. */
static FreeHead *
free_heads(Relation index, Buffer metabuf, int *nout)
{
	BlockNumber blk = BsPageGetMeta(BufferGetPage(metabuf))->first_head;
	int			n = 0,
				cap = 16;
	FreeHead   *out = palloc(cap * sizeof(FreeHead));

	while (blk != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, blk);
		BsHead	   *h;
		int			nfree;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bs_check_page(BufferGetPage(buf), BS_PAGE_HEAD, index, blk);
		h = BsPageGetHead(BufferGetPage(buf));
		nfree = BFSL_C - bfsl_mask_count(&h->live);
		if (nfree > 0)
		{
			if (n == cap)
			{
				cap *= 2;
				out = repalloc(out, cap * sizeof(FreeHead));
			}
			out[n].blkno = blk;
			out[n].geom = h->geom;
			out[n].nfree = nfree;
			n++;
		}
		blk = h->next;
		UnlockReleaseBuffer(buf);
	}
	*nout = n;
	return out;
}

void
bs_write_entries(Relation index, Buffer metabuf, BsEntry *e, int n, bool fresh)
{
	FreeHead   *fh = NULL;
	int			nfh = 0;

	if (n == 0)
		return;
	qsort(e, n, sizeof(BsEntry), entry_cmp);
	if (!fresh)
		fh = free_heads(index, metabuf, &nfh);

	for (int i = 0; i < n;)
	{
		int			j = i;

		while (j < n && bs_geom_cmp(&e[i].geom, &e[j].geom) == 0)
			j++;
		for (int f = 0; f < nfh && i < j; f++)
		{
			int			take;

			if (fh[f].nfree == 0 || bs_geom_cmp(&fh[f].geom, &e[i].geom) != 0)
				continue;
			take = Min(fh[f].nfree, j - i);
			fill_block(index, metabuf, fh[f].blkno, e + i, take);
			fh[f].nfree -= take;
			i += take;
		}
		while (i < j)
		{
			int			take = Min(BFSL_C, j - i);

			write_new_block(index, metabuf, e + i, take);
			i += take;
		}
		CHECK_FOR_INTERRUPTS();
	}
	if (fh != NULL)
		pfree(fh);
}

/* A pending page to append to, from the free list or new; locked. */
static Buffer
pending_page(Relation index, BsMeta *meta)
{
	if (meta->free_head != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, meta->free_head);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bs_check_page(BufferGetPage(buf), BS_PAGE_PENDING | BS_PAGE_FREE, index,
					  meta->free_head);
		return buf;
	}
	return bs_new_buffer(index);
}

void
bs_insert_one(Relation index, Buffer metabuf, ItemPointer tid,
			  const bf_view *v, int max_bits)
{
	BsEntry		e;
	Size		itemsz;
	BsPendingItem *item;
	BsMeta	   *meta = BsPageGetMeta(BufferGetPage(metabuf));
	Buffer		tailbuf = InvalidBuffer;
	GenericXLogState *state;

	e.tid = *tid;
	bs_geom_of(v, max_bits, &e.geom);
	e.bits = (e.geom.flags & BS_HEAD_UNSLICED) ? NULL : v->bits;
	itemsz = offsetof(BsPendingItem, data) +
		(e.bits != NULL ? BF_HEADER_SIZE + v->nbits / 8 : 0);
	if (MAXALIGN(itemsz) > BS_PENDING_ITEM_MAX)
	{
		/* too large for a pending page: straight into a block */
		bs_write_entries(index, metabuf, &e, 1, false);
		return;
	}
	item = palloc0(itemsz);
	item->tid = *tid;
	item->flags = (uint16) e.geom.flags;
	if (e.bits != NULL)
		memcpy(item->data, v->bits - BF_HEADER_SIZE, BF_HEADER_SIZE + v->nbits / 8);

	if (meta->pending_tail != InvalidBlockNumber)
	{
		tailbuf = ReadBuffer(index, meta->pending_tail);
		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		bs_check_page(BufferGetPage(tailbuf), BS_PAGE_PENDING, index, meta->pending_tail);
		if (PageGetFreeSpace(BufferGetPage(tailbuf)) >= MAXALIGN(itemsz))
		{
			Page		page;

			state = GenericXLogStart(index);
			page = GenericXLogRegisterBuffer(state, tailbuf, 0);
			meta = BsPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
			if (PageAddItem(page, (Item) item, itemsz, InvalidOffsetNumber,
							false, false) == InvalidOffsetNumber)
				elog(ERROR, "could not add a pending item to bloomslice index \"%s\"",
					 RelationGetRelationName(index));
			meta->npending++;
			GenericXLogFinish(state);
			UnlockReleaseBuffer(tailbuf);
			pfree(item);
			return;
		}
	}

	/* a new tail page */
	{
		Buffer		newbuf = pending_page(index, meta);
		BlockNumber newblk = BufferGetBlockNumber(newbuf);
		BlockNumber nextfree = InvalidBlockNumber;
		bool		reused = meta->free_head == newblk;
		Page		page;

		if (reused)
			nextfree = BsPageGetOpaque(BufferGetPage(newbuf))->next;
		state = GenericXLogStart(index);
		page = GenericXLogRegisterBuffer(state, newbuf, GENERIC_XLOG_FULL_IMAGE);
		meta = BsPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
		bs_init_page(page, BS_PAGE_PENDING);
		if (PageAddItem(page, (Item) item, itemsz, InvalidOffsetNumber,
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "could not add a pending item to bloomslice index \"%s\"",
				 RelationGetRelationName(index));
		if (reused)
			meta->free_head = nextfree;
		if (BufferIsValid(tailbuf))
			BsPageGetOpaque(GenericXLogRegisterBuffer(state, tailbuf, 0))->next = newblk;
		else
			meta->pending_head = newblk;
		meta->pending_tail = newblk;
		meta->npending_pages++;
		meta->npending++;
		GenericXLogFinish(state);
		UnlockReleaseBuffer(newbuf);
		if (BufferIsValid(tailbuf))
			UnlockReleaseBuffer(tailbuf);
	}
	pfree(item);
}

void
bs_flush_pending(Relation index, Buffer metabuf)
{
	BsMeta	   *meta = BsPageGetMeta(BufferGetPage(metabuf));
	BlockNumber blk = meta->pending_head;
	BlockNumber last = InvalidBlockNumber;
	int			max_bits = bs_max_bits(index);
	int			n = 0,
				cap = 64;
	BsEntry    *e;
	MemoryContext cxt,
				old;
	GenericXLogState *state;

	if (blk == InvalidBlockNumber)
		return;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "bloomslice flush",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	e = palloc(cap * sizeof(BsEntry));
	while (blk != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, blk);
		Page		page;
		OffsetNumber maxoff;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		bs_check_page(page, BS_PAGE_PENDING, index, blk);
		maxoff = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			ItemId		iid = PageGetItemId(page, off);
			BsPendingItem *it = (BsPendingItem *) PageGetItem(page, iid);

			if (n == cap)
			{
				cap *= 2;
				e = repalloc(e, cap * sizeof(BsEntry));
			}
			e[n].tid = it->tid;
			if (it->flags & BS_HEAD_UNSLICED)
			{
				memset(&e[n].geom, 0, sizeof(BsGeom));
				e[n].geom.flags = BS_HEAD_UNSLICED;
				e[n].bits = NULL;
			}
			else
			{
				Size		len = ItemIdGetLength(iid) - offsetof(BsPendingItem, data);
				uint8	   *copy = palloc(len);
				bf_view		v;

				memcpy(copy, it->data, len);
				bf_view_of(copy, &v);
				bs_geom_of(&v, max_bits, &e[n].geom);
				e[n].bits = (e[n].geom.flags & BS_HEAD_UNSLICED) ? NULL : v.bits;
			}
			n++;
		}
		last = blk;
		blk = BsPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
	}

	bs_write_entries(index, metabuf, e, n, false);

	/* the pending pages go to the free list, the last one pointing on */
	{
		Buffer		lbuf = ReadBuffer(index, last);

		LockBuffer(lbuf, BUFFER_LOCK_EXCLUSIVE);
		state = GenericXLogStart(index);
		meta = BsPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
		BsPageGetOpaque(GenericXLogRegisterBuffer(state, lbuf, 0))->next = meta->free_head;
		meta->free_head = meta->pending_head;
		meta->pending_head = InvalidBlockNumber;
		meta->pending_tail = InvalidBlockNumber;
		meta->npending = 0;
		meta->npending_pages = 0;
		GenericXLogFinish(state);
		UnlockReleaseBuffer(lbuf);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}
