/*
 * index/slice/bf_slice_index.h
 *		The bloomslice index access method: its pages and what its files
 *		offer one another.  Files call one way:
 *
 *		index/slice/bf_slice_am.c      handler, options, validate, cost estimate
 *		  -> index/slice/bf_slice_build.c   ambuild, ambuildempty, aminsert
 *		  -> index/slice/bf_slice_scan.c    ambeginscan .. amgetbitmap, amgettuple .. amendscan
 *		  -> index/slice/bf_slice_vacuum.c  ambulkdelete, amvacuumcleanup
 *		index/slice/bf_slice_scan.c -> index/slice/bf_slice_sink.c (where a scan's candidates go)
 *		index/slice/bf_slice_build.c, index/slice/bf_slice_vacuum.c -> index/slice/bf_slice_write.c
 *		                   (blocks written, the pending area appended to
 *		                   and flushed)
 *		all -> index/slice/bf_slice_page.c (pages, the metapage, geometry)
 *		all -> src/core/bf_slice.c (the bit-slicing math)
 *
 * Pages (block 0 is the metapage; every page ends in a BsPageOpaque):
 *
 *	metapage	BsMeta: the pending area's first and last page, the chain of
 *				block heads, counts for the cost estimate, free pending
 *				pages.
 *	pending		whole filters as they were inserted, one item each
 *				(BsPendingItem: the heap TID, then the filter's bytes),
 *				chained from the metapage; scanned as they are.
 *	head		one block of up to BFSL_C filters of one geometry: BsHead
 *				(geometry, the live columns, BFSL_C heap TIDs, the block
 *				numbers of its slice pages).  Heads are chained from the
 *				metapage.  A head flagged BS_HEAD_UNSLICED has no slices:
 *				its filters (larger than the index's max_bits) are always
 *				rechecked.
 *	slices		BS_SLICES_PER_PAGE slices of the block, in order: slice j
 *				of the block is slot j % BS_SLICES_PER_PAGE of page
 *				pages[j / BS_SLICES_PER_PAGE].
 *
 * Every change goes through generic WAL (at most four pages a record).
 */
#ifndef BF_SLICE_INDEX_H
#define BF_SLICE_INDEX_H

#include "key/bf_key.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/itup.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"
#include "utils/tuplesort.h"

#include "core/bf_slice.h"

#define BS_MAGIC		0x42534c43	/* "BSLC" */
#define BS_VERSION		1
#define BS_METAPAGE_BLKNO 0

/* page kinds (BsPageOpaque.flags) */
#define BS_PAGE_META	0x01
#define BS_PAGE_PENDING 0x02
#define BS_PAGE_HEAD	0x04
#define BS_PAGE_SLICES	0x08
#define BS_PAGE_FREE	0x10

typedef struct BsPageOpaque
{
	uint16		flags;
	uint16		unused;
	BlockNumber next;			/* pending: next pending page; free list */
} BsPageOpaque;

#define BsPageGetOpaque(page) ((BsPageOpaque *) PageGetSpecialPointer(page))

typedef struct BsMeta
{
	uint32		magic;
	uint32		version;
	BlockNumber pending_head;	/* InvalidBlockNumber: none */
	BlockNumber pending_tail;
	uint32		npending_pages;
	uint32		pad;
	uint64		npending;		/* pending items */
	BlockNumber first_head;		/* chain of block heads */
	uint32		nheads;
	uint64		nslice_pages;
	uint64		nsliced;		/* live filters in blocks (for costs) */
	BlockNumber free_head;		/* pending pages free for reuse */
} BsMeta;

#define BsPageGetMeta(page) ((BsMeta *) PageGetContents(page))

/* usable bytes of a page between the header and the special space */
#define BS_PAGE_ROOM \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BsPageOpaque)))

#define BS_SLICES_PER_PAGE	((uint32) (BS_PAGE_ROOM / BFSL_SLICE_BYTES))

#define BS_HEAD_UNSLICED	0x01

typedef struct BsGeom
{
	uint8		layout;
	uint8		hashes;
	uint16		family;
	uint32		type_tag;
	uint32		flags;			/* BS_HEAD_UNSLICED */
	uint32		param;			/* the layout's parameter (parquet: physical
								 * type, spark: Spark's version); 0 for
								 * classic and blocked, as the padding it
								 * was before 1.1 */
	uint64		seed;
	uint64		nbits;
} BsGeom;

typedef struct BsHead
{
	BlockNumber next;			/* next head in the chain */
	uint32		npages;			/* slice pages */
	BsGeom		geom;
	bfsl_mask		live;			/* columns holding a filter */
	ItemPointerData tids[BFSL_C];
	BlockNumber pages[FLEXIBLE_ARRAY_MEMBER];
} BsHead;

#define BsPageGetHead(page) ((BsHead *) PageGetContents(page))

#define BS_MAX_HEAD_PAGES \
	((uint32) ((BS_PAGE_ROOM - offsetof(BsHead, pages)) / sizeof(BlockNumber)))

/* The largest filter a block can slice, in bits (and max_bits' bound). */
#define BS_MAX_BITS_LIMIT	131072

typedef struct BsPendingItem
{
	ItemPointerData tid;
	uint16		flags;			/* BS_HEAD_UNSLICED: no bytes follow */
	char		data[FLEXIBLE_ARRAY_MEMBER];	/* the filter's bytes */
} BsPendingItem;

/* The largest pending item a page takes. */
#define BS_PENDING_ITEM_MAX \
	(BS_PAGE_ROOM - sizeof(ItemIdData) - MAXIMUM_ALIGNOF)

/* A hint to the CPU that the bytes at p will be read soon. */
static inline void
bs_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p);
#else
	(void) p;
#endif
}

/* Reloptions */
typedef struct BsOptions
{
	int32		vl_len_;
	int			max_bits;		/* larger filters are not sliced */
	int			pending_limit;	/* kB of pending pages before a flush */
} BsOptions;

#define BS_DEFAULT_MAX_BITS		BS_MAX_BITS_LIMIT
#define BS_DEFAULT_PENDING_KB	4096

/* A filter on its way into a block. */
typedef struct BsEntry
{
	ItemPointerData tid;
	BsGeom		geom;
	const uint8 *bits;			/* geom.nbits / 8 bytes; NULL if unsliced */
} BsEntry;

/* ---- index/slice/bf_slice_page.c ---- */

extern void bs_register_reloptions(void);
extern bytea *bs_options(Datum reloptions, bool validate);
extern int	bs_max_bits(Relation index);
extern int	bs_pending_limit(Relation index);

/*
 * ReadBuffer of an index block, trying first the buffer this backend last
 * found the block in (see index/slice/bf_slice_page.c)
 */
extern Buffer bs_read_buffer(Relation index, BlockNumber blkno);
/*
 * Prefetches, through the buffer bs_read_buffer last found blkno in, its
 * descriptor, the page's header and special space, and the lines at the
 * given byte offsets of its contents: a hint only (nothing pinned)
 */
extern void bs_prefetch_page(Relation index, BlockNumber blkno,
							 const uint32 *offsets, int n);

extern void bs_init_page(Page page, uint16 flags);
extern void bs_init_metapage(Page page);
extern Buffer bs_new_buffer(Relation index);
/* the metapage's contents, checked (ERROR on a page of another kind) */
extern BsMeta *bs_meta(Page page, Relation index);
extern void bs_check_page(Page page, uint16 flags, Relation index, BlockNumber blkno);
/* a filter's geometry in the index, unsliced when larger than max_bits */
extern void bs_geom_of(const bf_view *v, int max_bits, BsGeom *g);
extern int	bs_geom_cmp(const BsGeom *a, const BsGeom *b);

/* ---- index/slice/bf_slice_write.c (callers hold the metapage's exclusive lock) ---- */

/*
 * Writes the entries into blocks of their geometries: into free columns of
 * existing blocks unless fresh (a build: there are none), then new blocks.
 */
extern void bs_write_entries(Relation index, Buffer metabuf, BsEntry *e, int n,
							 bool fresh);
/* Appends a filter to the pending area (or, too large for it, to a block). */
extern void bs_insert_one(Relation index, Buffer metabuf, ItemPointer tid,
						  const bf_view *v, int max_bits);
/* Moves every pending filter into blocks and empties the pending area. */
extern void bs_flush_pending(Relation index, Buffer metabuf);

/* ---- index/slice/bf_slice_build.c ---- */

extern IndexBuildResult *bs_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void bs_buildempty(Relation index);
extern bool bs_insert(Relation index, Datum *values, bool *isnull,
					  ItemPointer ht_ctid, Relation heapRel,
					  IndexUniqueCheck checkUnique, bool indexUnchanged,
					  IndexInfo *indexInfo);
extern char *bs_buildphasename(int64 phasenum);

/* ---- index/slice/bf_slice_scan.c ---- */

/* strategies of the operator class */
#define BS_STRAT_KEY		1	/* @>(bloomfilter, gbloom_key) */
#define BS_STRAT_SUPERSET	3	/* @>>(bloomfilter, bloomfilter) */

extern IndexScanDesc bs_beginscan(Relation r, int nkeys, int norderbys);
extern void bs_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					  ScanKey orderbys, int norderbys);
extern int64 bs_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern bool bs_gettuple(IndexScanDesc scan, ScanDirection dir);

/*
 * index/slice/bf_slice_sink.c: where a scan puts its candidates (a bitmap, or for a
 * plain index scan TIDs returned in heap order, each once: in memory up to
 * work_mem, past it through a tuplesort)
 */
typedef struct BsSink
{
	TIDBitmap  *tbm;			/* amgetbitmap's, or NULL */
	uint64	   *items;			/* packed candidates (bfsl_tid_item) */
	size_t		nitems;
	size_t		maxitems;
	size_t		limit;			/* items that fit in work_mem */
	Tuplesortstate *sort;		/* past the limit */
	size_t		next;			/* reading back */
	bool		have_look;
	uint64		look;
} BsSink;

extern void bs_sink_init_bitmap(BsSink *sink, TIDBitmap *tbm);
extern void bs_sink_init_rows(BsSink *sink);
extern void bs_sink_add(BsSink *sink, ItemPointer tids, int n, bool recheck);
extern void bs_sink_finish(BsSink *sink);
extern bool bs_sink_next(BsSink *sink, ItemPointer tid, bool *recheck);
extern void bs_sink_end(BsSink *sink);
extern void bs_endscan(IndexScanDesc scan);

/* ---- index/slice/bf_slice_vacuum.c ---- */

extern IndexBulkDeleteResult *bs_bulkdelete(IndexVacuumInfo *info,
											IndexBulkDeleteResult *stats,
											IndexBulkDeleteCallback callback,
											void *callback_state);
extern IndexBulkDeleteResult *bs_vacuumcleanup(IndexVacuumInfo *info,
											   IndexBulkDeleteResult *stats);

#endif							/* BF_SLICE_INDEX_H */
