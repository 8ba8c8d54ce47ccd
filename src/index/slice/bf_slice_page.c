/*
 * index/slice/bf_slice_page.c
 *		The bloomslice index's pages: initialising, allocating and checking
 *		them, its reloptions, and a filter's geometry in the index.
 */
#include "index/slice/bf_slice_index.h"

#include "access/reloptions.h"
#include "storage/buf_internals.h"
#include "storage/bufpage.h"
#include "storage/lmgr.h"
#include "utils/guc.h"
#include "utils/rel.h"

static relopt_kind bs_relopt_kind;

void
bs_register_reloptions(void)
{
	bs_relopt_kind = add_reloption_kind();
	add_int_reloption(bs_relopt_kind, "max_bits",
					  "Filters of more bits are not sliced: their rows are rechecked",
					  BS_DEFAULT_MAX_BITS, 512, BS_MAX_BITS_LIMIT, AccessExclusiveLock);
	add_int_reloption(bs_relopt_kind, "pending_limit",
					  "kB of pending filters that make an insert move them into blocks",
					  BS_DEFAULT_PENDING_KB, 64, MAX_KILOBYTES, AccessExclusiveLock);
}

bytea *
bs_options(Datum reloptions, bool validate)
{
	/* designated: PostgreSQL 18 added a field (isset_offset) */
	static const relopt_parse_elt tab[] = {
		{.optname = "max_bits", .opttype = RELOPT_TYPE_INT, .offset = offsetof(BsOptions, max_bits)},
		{.optname = "pending_limit", .opttype = RELOPT_TYPE_INT, .offset = offsetof(BsOptions, pending_limit)},
	};

	return (bytea *) build_reloptions(reloptions, validate, bs_relopt_kind,
									  sizeof(BsOptions), tab, lengthof(tab));
}

int
bs_max_bits(Relation index)
{
	BsOptions  *o = (BsOptions *) index->rd_options;

	return o != NULL ? o->max_bits : BS_DEFAULT_MAX_BITS;
}

int
bs_pending_limit(Relation index)
{
	BsOptions  *o = (BsOptions *) index->rd_options;

	return o != NULL ? o->pending_limit : BS_DEFAULT_PENDING_KB;
}

/*
 * The buffer each index block was last read from by this backend, kept in
 * the index's relcache entry (rd_amcache: one chunk of rd_indexcxt, freed
 * whenever the entry is rebuilt).  Only a hint: ReadRecentBuffer pins the
 * buffer only if it still holds the block, valid.
 */
typedef struct BsBufferHints
{
	uint32		n;				/* blocks below n have a slot */
	Buffer		buf[FLEXIBLE_ARRAY_MEMBER]; /* InvalidBuffer: none */
} BsBufferHints;

/*
 * A scan reads a head and about three slice pages per block of 512 filters:
 * hundreds of pages for one probe, and the shared buffer table's lookup of
 * each was a tenth of a query's time (perf, 100,000 filters).  A block found
 * where it was last time skips that lookup.
 */
Buffer
bs_read_buffer(Relation index, BlockNumber blkno)
{
	BsBufferHints *hints = (BsBufferHints *) index->rd_amcache;
	Buffer		buf;

	if (hints != NULL && blkno < hints->n && BufferIsValid(hints->buf[blkno]) &&
		ReadRecentBuffer(bf_rel_locator(index), MAIN_FORKNUM, blkno, hints->buf[blkno]))
		return hints->buf[blkno];
	buf = ReadBuffer(index, blkno);
	if (RelationUsesLocalBuffers(index) || blkno >= MaxBlockNumber / 2)
		return buf;
	if (hints == NULL || blkno >= hints->n)
	{
		uint32		n = Max(Max(blkno + 1, 1024), hints != NULL ? hints->n * 2 : 0);
		Size		size = offsetof(BsBufferHints, buf) + n * sizeof(Buffer);

		if (hints == NULL)
			hints = MemoryContextAllocZero(index->rd_indexcxt, size);
		else
		{
			uint32		old = hints->n;

			hints = repalloc(hints, size);
			memset(&hints->buf[old], 0, (n - old) * sizeof(Buffer));
		}
		hints->n = n;
		index->rd_amcache = hints;
	}
	hints->buf[blkno] = buf;
	return buf;
}

void
bs_prefetch_page(Relation index, BlockNumber blkno, const uint32 *offsets, int n)
{
	BsBufferHints *hints = (BsBufferHints *) index->rd_amcache;
	Buffer		buf;
	const char *page;
	const char *base;

	if (hints == NULL || blkno >= hints->n)
		return;
	buf = hints->buf[blkno];
	if (buf <= 0 || buf > NBuffers)
		return;					/* none, or a local buffer */
	bs_prefetch(GetBufferDescriptor(buf - 1));
	page = (const char *) BufferGetBlock(buf);
	base = page + MAXALIGN(SizeOfPageHeaderData);
	bs_prefetch(page);
	bs_prefetch(page + BLCKSZ - 1);
	for (int i = 0; i < n; i++)
		if (offsets[i] < BS_PAGE_ROOM)
			bs_prefetch(base + offsets[i]);
}

void
bs_init_page(Page page, uint16 flags)
{
	BsPageOpaque *op;

	PageInit(page, BLCKSZ, sizeof(BsPageOpaque));
	op = BsPageGetOpaque(page);
	op->flags = flags;
	op->next = InvalidBlockNumber;
}

void
bs_init_metapage(Page page)
{
	BsMeta	   *m;

	bs_init_page(page, BS_PAGE_META);
	m = BsPageGetMeta(page);
	memset(m, 0, sizeof(BsMeta));
	m->magic = BS_MAGIC;
	m->version = BS_VERSION;
	m->pending_head = InvalidBlockNumber;
	m->pending_tail = InvalidBlockNumber;
	m->first_head = InvalidBlockNumber;
	m->free_head = InvalidBlockNumber;
	/* generic WAL keeps what lies between pd_lower and pd_upper out */
	((PageHeader) page)->pd_lower = (char *) (m + 1) - (char *) page;
}

/*
 * A new page at the end of the index, locked exclusively.  Callers
 * initialise it through generic WAL.
 */
Buffer
bs_new_buffer(Relation index)
{
	Buffer		buf;

#ifdef BF_HAVE_EXTEND_BUFFERED_REL
	buf = ExtendBufferedRel(BMR_REL(index), MAIN_FORKNUM, NULL, EB_LOCK_FIRST);
#else
	bool		needLock = !RELATION_IS_LOCAL(index);

	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);
#endif
	return buf;
}

void
bs_check_page(Page page, uint16 flags, Relation index, BlockNumber blkno)
{
	if (PageIsNew(page) || PageGetSpecialSize(page) != MAXALIGN(sizeof(BsPageOpaque)) ||
		(BsPageGetOpaque(page)->flags & flags) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has an unexpected page at block %u",
						RelationGetRelationName(index), blkno),
				 errhint("Rebuild the index with REINDEX.")));
}

BsMeta *
bs_meta(Page page, Relation index)
{
	BsMeta	   *m;

	bs_check_page(page, BS_PAGE_META, index, BS_METAPAGE_BLKNO);
	m = BsPageGetMeta(page);
	if (m->magic != BS_MAGIC || m->version != BS_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a bloomslice index of version %d",
						RelationGetRelationName(index), BS_VERSION),
				 errhint("Rebuild the index with REINDEX.")));
	return m;
}

void
bs_geom_of(const bf_view *v, int max_bits, BsGeom *g)
{
	memset(g, 0, sizeof(BsGeom));
	if (v->nbits > (uint64) max_bits)
	{
		/* one geometry for every unsliced filter: they are only rechecked */
		g->flags = BS_HEAD_UNSLICED;
		return;
	}
	g->layout = v->layout;
	g->hashes = v->hashes;
	g->family = v->family;
	g->type_tag = v->type_tag;
	g->seed = v->seed;
	g->nbits = v->nbits;
	g->param = v->layout == BF_LAYOUT_PARQUET || v->layout == BF_LAYOUT_SPARK ?
		v->param : 0;
}

int
bs_geom_cmp(const BsGeom *a, const BsGeom *b)
{
#define CMP_FIELD(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
	CMP_FIELD(flags);
	CMP_FIELD(nbits);
	CMP_FIELD(layout);
	CMP_FIELD(hashes);
	CMP_FIELD(seed);
	CMP_FIELD(family);
	CMP_FIELD(type_tag);
	CMP_FIELD(param);
#undef CMP_FIELD
	return 0;
}
