/*
 * index/slice/bf_slice_sink.c
 *		Where a bloomslice scan puts its candidates, and how a plain index
 *		scan reads them back: the bitmap of amgetbitmap, or for amgettuple
 *		the candidates' TIDs in heap order, each once.
 *
 * amgettuple's candidates are packed (bfsl_tid_item: TID and recheck flag)
 * into an array while they fit in work_mem, then sorted and merged in
 * memory; past work_mem they go to a tuplesort, which spills to disk as a
 * sort does, and are merged as they are read back.  A row can be met twice
 * (in the pending area, then in the block a concurrent flush moved it to):
 * the merge returns it once, rechecked if either copy was.
 */
#include "index/slice/bf_slice_index.h"

#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "utils/memutils.h"

void
bs_sink_init_bitmap(BsSink *sink, TIDBitmap *tbm)
{
	memset(sink, 0, sizeof(*sink));
	sink->tbm = tbm;
}

void
bs_sink_init_rows(BsSink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->limit = Max((size_t) work_mem * 1024 / sizeof(uint64), 1024);
}

static void
sort_put(BsSink *sink, uint64 item)
{
	tuplesort_putdatum(sink->sort, Int64GetDatum((int64) item), false);
}

void
bs_sink_add(BsSink *sink, ItemPointer tids, int n, bool recheck)
{
	if (sink->tbm != NULL)
	{
		tbm_add_tuples(sink->tbm, tids, n, recheck);
		return;
	}
	if (sink->sort == NULL && sink->nitems + n > sink->limit)
	{
		/* past work_mem: what is held so far, and the rest, to a sort */
		sink->sort = tuplesort_begin_datum(INT8OID, Int8LessOperator, InvalidOid, false,
										   work_mem, NULL, TUPLESORT_NONE);
		for (size_t i = 0; i < sink->nitems; i++)
			sort_put(sink, sink->items[i]);
		if (sink->items != NULL)
			pfree(sink->items);
		sink->items = NULL;
		sink->nitems = sink->maxitems = 0;
	}
	if (sink->sort != NULL)
	{
		for (int i = 0; i < n; i++)
			sort_put(sink, bfsl_tid_item(ItemPointerGetBlockNumberNoCheck(&tids[i]),
									   ItemPointerGetOffsetNumberNoCheck(&tids[i]), recheck));
		return;
	}
	if (sink->nitems + n > sink->maxitems)
	{
		size_t		newmax = Min(Max(Max(sink->maxitems * 2, 1024), sink->nitems + n),
								 Max(sink->limit, sink->nitems + n));

		if (sink->items == NULL)
			sink->items = palloc(newmax * sizeof(uint64));
		else
			sink->items = repalloc(sink->items, newmax * sizeof(uint64));
		sink->maxitems = newmax;
	}
	for (int i = 0; i < n; i++)
		sink->items[sink->nitems++] = bfsl_tid_item(ItemPointerGetBlockNumberNoCheck(&tids[i]),
												  ItemPointerGetOffsetNumberNoCheck(&tids[i]),
												  recheck);
}

/* Every candidate is in: sorts them into heap order. */
void
bs_sink_finish(BsSink *sink)
{
	if (sink->sort != NULL)
		tuplesort_performsort(sink->sort);
	else
		sink->nitems = bfsl_tid_items_merge(sink->items, sink->nitems);
	sink->next = 0;
	sink->have_look = false;
}

static bool
sort_get(BsSink *sink, uint64 *item)
{
	Datum		d;
	bool		isnull;

	if (!bf_tuplesort_getdatum(sink->sort, &d, &isnull))
		return false;
	*item = (uint64) DatumGetInt64(d);
	return true;
}

/* The next candidate in heap order, once each; false when there is none. */
bool
bs_sink_next(BsSink *sink, ItemPointer tid, bool *recheck)
{
	uint64		item;

	if (sink->sort == NULL)
	{
		if (sink->next >= sink->nitems)
			return false;
		item = sink->items[sink->next++];
	}
	else
	{
		uint64		nx;

		if (sink->have_look)
		{
			item = sink->look;
			sink->have_look = false;
		}
		else if (!sort_get(sink, &item))
			return false;
		/* copies of one TID are neighbours: one item, rechecked if any was */
		while (sort_get(sink, &nx))
		{
			if ((nx >> 1) != (item >> 1))
			{
				sink->look = nx;
				sink->have_look = true;
				break;
			}
			item |= nx;
		}
	}
	ItemPointerSet(tid, bfsl_tid_item_block(item), bfsl_tid_item_offset(item));
	*recheck = bfsl_tid_item_recheck(item) != 0;
	return true;
}

/* Releases the sort's files and memory, if the candidates went to one. */
void
bs_sink_end(BsSink *sink)
{
	if (sink->sort != NULL)
		tuplesort_end(sink->sort);
	sink->sort = NULL;
}
