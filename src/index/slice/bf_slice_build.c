/*
 * index/slice/bf_slice_build.c
 *		Building a bloomslice index (ambuild, ambuildempty) and inserting
 *		into one (aminsert).
 *
 * A build reads the table once and gathers the filters by geometry; a
 * geometry's filters are transposed into a block as soon as BFSL_C of them
 * are gathered, and the rest at the end.  Past maintenance_work_mem of
 * gathered filters, the largest gathering is written as it is (a block
 * with free columns, which later inserts fill).  An insert appends the
 * filter to the pending area, which is moved into blocks once it holds
 * pending_limit kB.
 */
#include "index/slice/bf_slice_index.h"

#include "access/tableam.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* build subphases (pg_stat_progress_create_index), after "initializing" */
#define BS_PHASE_SCAN	2
#define BS_PHASE_WRITE	3

typedef struct BuildGroup
{
	BsGeom		geom;			/* the hash key */
	int			n;
	Size		bytes;
	BsEntry    *e;				/* BFSL_C of them */
	MemoryContext cxt;			/* the filters' bits */
} BuildGroup;

typedef struct BuildState
{
	Relation	index;
	Buffer		metabuf;
	HTAB	   *groups;
	int			max_bits;
	Size		bytes;			/* gathered, all groups */
	Size		limit;
	double		indtuples;
	MemoryContext cxt;			/* the build's: groups live here */
} BuildState;

static void
flush_group(BuildState *bs, BuildGroup *g)
{
	if (g->n == 0)
		return;
	LockBuffer(bs->metabuf, BUFFER_LOCK_EXCLUSIVE);
	bs_write_entries(bs->index, bs->metabuf, g->e, g->n, true);
	LockBuffer(bs->metabuf, BUFFER_LOCK_UNLOCK);
	bs->bytes -= g->bytes;
	g->bytes = 0;
	g->n = 0;
	MemoryContextReset(g->cxt);
}

static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *state)
{
	BuildState *bs = (BuildState *) state;
	struct varlena *f;
	bf_view		v;
	BsGeom		geom;
	BuildGroup *g;
	bool		found;
	BsEntry    *e;

	(void) index;
	(void) tupleIsAlive;		/* dead rows are indexed too: VACUUM removes them */
	if (isnull[0])
		return;
	f = PG_DETOAST_DATUM(values[0]);
	bloomfilter_view(f, &v);
	bs_geom_of(&v, bs->max_bits, &geom);
	g = hash_search(bs->groups, &geom, HASH_ENTER, &found);
	if (!found)
	{
		g->n = 0;
		g->bytes = 0;
		g->e = MemoryContextAlloc(bs->cxt, BFSL_C * sizeof(BsEntry));
		g->cxt = AllocSetContextCreate(bs->cxt, "bloomslice build group",
									   ALLOCSET_DEFAULT_SIZES);
	}
	e = &g->e[g->n++];
	e->tid = *tid;
	e->geom = geom;
	e->bits = NULL;
	if (!(geom.flags & BS_HEAD_UNSLICED))
	{
		uint8	   *copy = MemoryContextAlloc(g->cxt, v.nbits / 8);

		memcpy(copy, v.bits, v.nbits / 8);
		e->bits = copy;
		g->bytes += v.nbits / 8;
		bs->bytes += v.nbits / 8;
	}
	if ((Pointer) f != DatumGetPointer(values[0]))
		pfree(f);
	bs->indtuples += 1;

	if (g->n == BFSL_C)
		flush_group(bs, g);
	else if (bs->bytes > bs->limit)
	{
		/* the largest gathering goes out as a block with free columns */
		HASH_SEQ_STATUS seq;
		BuildGroup *big = NULL,
				   *it;

		hash_seq_init(&seq, bs->groups);
		while ((it = hash_seq_search(&seq)) != NULL)
			if (big == NULL || it->bytes > big->bytes)
				big = it;
		flush_group(bs, big);
	}
}

static void
write_metapage(Relation index, ForkNumber fork)
{
	Buffer		buf;
	GenericXLogState *state;

#ifdef BF_HAVE_EXTEND_BUFFERED_REL
	buf = ExtendBufferedRel(BMR_REL(index), fork, NULL,
							EB_SKIP_EXTENSION_LOCK | EB_LOCK_FIRST);
#else
	buf = ReadBufferExtended(index, fork, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
#endif
	if (BufferGetBlockNumber(buf) != BS_METAPAGE_BLKNO)
		elog(ERROR, "bloomslice metapage is not block 0");
	if (fork == INIT_FORKNUM)
	{
		/* an unlogged index's init fork: logged in full, as PostgreSQL's do */
		START_CRIT_SECTION();
		bs_init_metapage(BufferGetPage(buf));
		MarkBufferDirty(buf);
		log_newpage_buffer(buf, true);
		END_CRIT_SECTION();
	}
	else
	{
		state = GenericXLogStart(index);
		bs_init_metapage(GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE));
		GenericXLogFinish(state);
	}
	UnlockReleaseBuffer(buf);
}

IndexBuildResult *
bs_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	bs;
	HASHCTL		ctl;
	HASH_SEQ_STATUS seq;
	BuildGroup *g;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	write_metapage(index, MAIN_FORKNUM);

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.cxt = CurrentMemoryContext;
	bs.metabuf = ReadBuffer(index, BS_METAPAGE_BLKNO);
	bs.max_bits = bs_max_bits(index);
	bs.limit = (Size) maintenance_work_mem * 1024;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(BsGeom);
	ctl.entrysize = sizeof(BuildGroup);
	ctl.hcxt = CurrentMemoryContext;
	bs.groups = hash_create("bloomslice build", 64, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BS_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   build_callback, &bs, NULL);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BS_PHASE_WRITE);
	hash_seq_init(&seq, bs.groups);
	while ((g = hash_seq_search(&seq)) != NULL)
	{
		flush_group(&bs, g);
		MemoryContextDelete(g->cxt);
		pfree(g->e);
	}
	hash_destroy(bs.groups);
	ReleaseBuffer(bs.metabuf);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

void
bs_buildempty(Relation index)
{
	write_metapage(index, INIT_FORKNUM);
}

char *
bs_buildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case BS_PHASE_SCAN:
			return "scanning table";
		case BS_PHASE_WRITE:
			return "writing blocks";
		default:
			return NULL;
	}
}

bool
bs_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
		  Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		  IndexInfo *indexInfo)
{
	struct varlena *f;
	bf_view		v;
	Buffer		metabuf;
	BsMeta	   *meta;

	(void) heapRel;
	(void) checkUnique;
	(void) indexUnchanged;
	(void) indexInfo;
	if (isnull[0])
		return false;			/* the operators are strict: NULL matches none */
	f = PG_DETOAST_DATUM(values[0]);
	bloomfilter_view(f, &v);

	metabuf = ReadBuffer(index, BS_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bs_meta(BufferGetPage(metabuf), index);
	bs_insert_one(index, metabuf, ht_ctid, &v, bs_max_bits(index));
	meta = BsPageGetMeta(BufferGetPage(metabuf));
	if ((uint64) meta->npending_pages * (BLCKSZ / 1024) >= (uint64) bs_pending_limit(index))
		bs_flush_pending(index, metabuf);
	UnlockReleaseBuffer(metabuf);
	if ((Pointer) f != DatumGetPointer(values[0]))
		pfree(f);
	return false;
}
