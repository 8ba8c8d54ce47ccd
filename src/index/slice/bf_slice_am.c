/*
 * index/slice/bf_slice_am.c
 *		The bloomslice index access method's handler, its operator class
 *		check (amvalidate) and its cost estimate.  See index/slice/bf_slice_index.h for
 *		the pages and the files.
 */
#include "index/slice/bf_slice_index.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(bloomslice_handler);

/*
 * The operator class: strategy 1 `@>`(bloomfilter, gbloom_key), strategy 3
 * `@>>`(bloomfilter, bloomfilter), both returning boolean; no support
 * functions.
 */
static bool
bs_validate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid,
				opcintype;
	char	   *opclassname;
	CatCList   *oprlist,
			   *proclist;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opclassname = NameStr(classform->opcname);

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));

	for (int i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (op->amopstrategy != BS_STRAT_KEY && op->amopstrategy != BS_STRAT_SUPERSET)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloomslice operator class \"%s\" contains operator %s with invalid strategy number %d",
							opclassname, format_operator(op->amopopr), op->amopstrategy)));
			result = false;
		}
		if (op->amoppurpose != AMOP_SEARCH || OidIsValid(op->amopsortfamily))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloomslice operator class \"%s\" contains invalid ORDER BY specification for operator %s",
							opclassname, format_operator(op->amopopr))));
			result = false;
		}
		if (op->amoplefttype != opcintype || get_op_rettype(op->amopopr) != BOOLOID)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloomslice operator class \"%s\" contains operator %s with wrong signature",
							opclassname, format_operator(op->amopopr))));
			result = false;
		}
		if (op->amopstrategy == BS_STRAT_SUPERSET && op->amoprighttype != opcintype)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloomslice operator class \"%s\" superset operator %s must compare two values of the indexed type",
							opclassname, format_operator(op->amopopr))));
			result = false;
		}
	}
	for (int i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc proc = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("bloomslice operator class \"%s\" contains function %s with invalid support number %d",
						opclassname, format_procedure(proc->amproc), proc->amprocnum)));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(classtup);
	return result;
}

/*
 * The correlation that makes a plain index scan's reads of the table cost
 * what a bitmap heap scan's reads of the same rows cost.  bs_gettuple
 * returns its rows in heap order, so the table is read as a bitmap heap
 * scan reads it, page after page upwards; with a correlation of 0 the
 * planner would price every row as a random read of its own page and take
 * the bitmap heap scan, which costs more CPU (its bitmap, a second buffer
 * lookup per page to prefetch, and `f @> x` evaluated again on every row).
 * The formulas are cost_index's and compute_bitmap_pages' (per loop, for
 * the inner side of a nested loop).
 */
static double
heap_order_correlation(PlannerInfo *root, IndexOptInfo *index, Selectivity sel,
					   double loop_count)
{
	double		T = Max(index->rel->pages, 1);
	double		tuples = clamp_row_est(sel * index->rel->tuples);
	double		loops = Max(loop_count, 1);
	double		spc_random_page_cost,
				spc_seq_page_cost;
	double		pages,
				max_io,
				min_io,
				bitmap_io,
				c2;

	get_tablespace_page_costs(index->rel->reltablespace, &spc_random_page_cost,
							  &spc_seq_page_cost);
	/* a plain index scan's, rows in random order, then in heap order */
	max_io = index_pages_fetched(tuples * loops, (BlockNumber) T, (double) index->pages, root) *
		spc_random_page_cost / loops;
	pages = ceil(sel * T);
	if (loops > 1)
		min_io = index_pages_fetched(pages * loops, (BlockNumber) T, (double) index->pages, root) *
			spc_random_page_cost / loops;
	else
		min_io = pages > 0 ? spc_random_page_cost + Max(pages - 1, 0) * spc_seq_page_cost : 0;
	/* a bitmap heap scan's */
	if (loops > 1)
		pages = index_pages_fetched(tuples * loops, (BlockNumber) T, (double) index->pages, root) / loops;
	else
		pages = (2.0 * T * tuples) / (2.0 * T + tuples);
	pages = Min(ceil(pages), T);
	bitmap_io = pages * (pages >= 2 ?
						 spc_random_page_cost - (spc_random_page_cost - spc_seq_page_cost) * sqrt(pages / T) :
						 spc_random_page_cost);
	if (max_io <= min_io)
		return 0;
	c2 = (max_io - bitmap_io) / (max_io - min_io);
	return sqrt(Min(Max(c2, 0), 1));
}

/*
 * The cost of a scan: the pending pages, and per block its head and about
 * one page per slice a key reads (a blocked key's k slices lie in one
 * 512-slice group, at most five pages), plus the AND of C-bit words.  The
 * rows the answer names are costed by the plain or bitmap heap scan, from
 * the clauses' selectivity: a probe that keeps most rows goes to a
 * sequential scan.
 */
static void
bs_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				Cost *indexStartupCost, Cost *indexTotalCost,
				Selectivity *indexSelectivity, double *indexCorrelation,
				double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs;
	Relation	rel;
	Buffer		metabuf;
	BsMeta		meta;
	double		nkeys = Max(list_length(path->indexclauses), 1);
	double		per_block,
				pages,
				spc_random_page_cost;

	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);

	rel = index_open(index->indexoid, AccessShareLock);
	metabuf = ReadBuffer(rel, BS_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = *bs_meta(BufferGetPage(metabuf), rel);
	UnlockReleaseBuffer(metabuf);
	index_close(rel, AccessShareLock);

	get_tablespace_page_costs(index->reltablespace, &spc_random_page_cost, NULL);
	per_block = meta.nheads > 0 ?
		Min((double) meta.nslice_pages / meta.nheads, 8.0 * nkeys) : 0;
	pages = 1 + meta.npending_pages + meta.nheads * (1 + per_block);
	pages = Min(pages, (double) index->pages);

	*indexTotalCost = pages * spc_random_page_cost +
		meta.nheads * nkeys * 8 * BFSL_WORDS * cpu_operator_cost +
		meta.npending * nkeys * 10 * cpu_operator_cost +
		costs.numIndexTuples * cpu_index_tuple_cost;
	/* a plain index scan's first row comes only once the whole index is read */
	*indexStartupCost = *indexTotalCost;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = heap_order_correlation(root, index, costs.indexSelectivity, loop_count);
	*indexPages = pages;
}

Datum
bloomslice_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = 3;
	amroutine->amsupport = 0;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = false;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = false;
	amroutine->amcanunique = false;
	amroutine->amcanmulticol = false;
	amroutine->amoptionalkey = false;
	amroutine->amsearcharray = false;
	amroutine->amsearchnulls = false;
	amroutine->amstorage = false;
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = false;
	amroutine->amusemaintenanceworkmem = false;
	amroutine->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = bs_build;
	amroutine->ambuildempty = bs_buildempty;
	amroutine->aminsert = bs_insert;
	amroutine->ambulkdelete = bs_bulkdelete;
	amroutine->amvacuumcleanup = bs_vacuumcleanup;
	amroutine->amcanreturn = NULL;
	amroutine->amcostestimate = bs_costestimate;
	amroutine->amoptions = bs_options;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = bs_buildphasename;
	amroutine->amvalidate = bs_validate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = bs_beginscan;
	amroutine->amrescan = bs_rescan;
	amroutine->amgettuple = bs_gettuple;
	amroutine->amgetbitmap = bs_getbitmap;
	amroutine->amendscan = bs_endscan;
	amroutine->ammarkpos = NULL;
	amroutine->amrestrpos = NULL;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;

	PG_RETURN_POINTER(amroutine);
}
