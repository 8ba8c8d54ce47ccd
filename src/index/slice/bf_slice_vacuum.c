/*
 * index/slice/bf_slice_vacuum.c
 *		VACUUM of a bloomslice index: the pending area is moved into blocks
 *		first, so that every filter is in a block; then each block's dead
 *		TIDs leave its live columns (their slices are left as they are and
 *		rewritten whole when a later filter takes the column).
 */
#include "index/slice/bf_slice_index.h"

#include "commands/vacuum.h"
#include "miscadmin.h"

static void
flush(Relation index)
{
	Buffer		metabuf = ReadBuffer(index, BS_METAPAGE_BLKNO);

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bs_meta(BufferGetPage(metabuf), index);
	bs_flush_pending(index, metabuf);
	UnlockReleaseBuffer(metabuf);
}

/* Walks the blocks: drops TIDs callback says are dead (if given), counts. */
static void
walk_blocks(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	Buffer		metabuf = ReadBuffer(index, BS_METAPAGE_BLKNO);
	BlockNumber blk;
	uint64		removed = 0;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	blk = bs_meta(BufferGetPage(metabuf), index)->first_head;
	UnlockReleaseBuffer(metabuf);

	stats->num_index_tuples = 0;
	while (blk != InvalidBlockNumber)
	{
		Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL,
											 info->strategy);
		BsHead	   *h;
		bfsl_mask		dead = {{0}};
		int			ndead = 0;

		bf_vacuum_delay_point();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bs_check_page(BufferGetPage(buf), BS_PAGE_HEAD, index, blk);
		h = BsPageGetHead(BufferGetPage(buf));
		for (int c = 0; c < BFSL_C; c++)
		{
			if (!bfsl_mask_test(&h->live, c))
				continue;
			if (callback != NULL && callback(&h->tids[c], callback_state))
			{
				bfsl_mask_set(&dead, c);
				ndead++;
			}
			else
				stats->num_index_tuples += 1;
		}
		if (ndead > 0)
		{
			GenericXLogState *state = GenericXLogStart(index);

			h = BsPageGetHead(GenericXLogRegisterBuffer(state, buf, 0));
			for (int c = 0; c < BFSL_C; c++)
				if (bfsl_mask_test(&dead, c))
				{
					bfsl_mask_clear(&h->live, c);
					ItemPointerSetInvalid(&h->tids[c]);
				}
			GenericXLogFinish(state);
			/* the copy GenericXLogRegisterBuffer gave is freed: the page */
			h = BsPageGetHead(BufferGetPage(buf));
			removed += ndead;
			stats->tuples_removed += ndead;
		}
		blk = h->next;
		UnlockReleaseBuffer(buf);
	}

	if (removed > 0)
	{
		GenericXLogState *state;
		BsMeta	   *meta;

		metabuf = ReadBuffer(index, BS_METAPAGE_BLKNO);
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		state = GenericXLogStart(index);
		meta = BsPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
		meta->nsliced = meta->nsliced > removed ? meta->nsliced - removed : 0;
		GenericXLogFinish(state);
		UnlockReleaseBuffer(metabuf);
	}
	stats->num_pages = RelationGetNumberOfBlocks(index);
}

IndexBulkDeleteResult *
bs_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			  IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	flush(info->index);
	walk_blocks(info, stats, callback, callback_state);
	return stats;
}

IndexBulkDeleteResult *
bs_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (stats == NULL)
	{
		/* no bulkdelete ran (nothing to delete): move and count */
		stats = palloc0(sizeof(IndexBulkDeleteResult));
		flush(info->index);
		walk_blocks(info, stats, NULL, NULL);
	}
	return stats;
}
