/*
 * index/gist/bf_gist_cost.c
 *		What a probe through the GiST signature tree costs.
 *
 * GiST's own estimate (gistcostestimate, PostgreSQL's generic one) reads
 * index pages and returns rows in proportion to the clause's selectivity:
 * it assumes a tree that narrows a search to the matching rows.  A tree of
 * Bloom filter signatures narrows a probe only where its keys are sparse.
 * A probe follows every entry whose signature has the key's k bits set,
 * and an inner signature is the OR of the filters below it: for filters of
 * normal density (half their bits set) it is all ones, the probe reads the
 * whole tree and every leaf key of a folded filter says "maybe".  With
 * both indexes on one column the generic estimate made the planner choose
 * GiST at 7.7-9 ms a probe over bloomslice's 0.14-1.8 ms (issue #27).
 *
 * So a probe's cost is estimated from the tree itself: one path from the
 * root to a leaf is read (a page a level, as the planner reads a btree's
 * metapage), and at each level the mean, over the page's entries, of the
 * chance that a key's k bits are all set in the entry's signature (its
 * fill ratio to the power k).  The product down to a level is the share of
 * that level's pages a probe reads; with the leaves' own rate, the share
 * of rows it returns.  A superset query (col @>> q) is the same walk with
 * q's set bits in place of a key's k: their number when the planner can
 * see q, else those of a few keys (GBLOOM_COST_UNKNOWN_Q_KEYS).  Where the tree
 * narrows as GiST assumes (sparse filters), the estimate stays GiST's own.
 *
 * The planner calls this function for a GiST index of the operator class
 * only, set as the index's amcostestimate before the planner costs the
 * index's paths (type/bf_planner.c): by bloomfilter_support when it builds a
 * probe's or a bloom_contains_filter call's index condition, and by the
 * restriction estimator of @>> and <<@, which the planner calls for every
 * such clause of a table before it costs the table's indexes (the
 * operators are in the operator class and match it without the support
 * function).
 */
#include "index/gist/bf_gist_index.h"

#include <math.h>

#include "access/gist_private.h"
#include "access/itup.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "utils/index_selfuncs.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/spccache.h"

#include "index/bf_index.h"

/* deepest tree sampled: GiST trees of any real table are far shallower */
#define GBLOOM_COST_MAX_LEVELS 16

/*
 * The keys a superset query's q is assumed to hold when the planner cannot
 * see it (a subquery, a generic plan).  A q of one key is a probe (f @> x
 * asks it); superset queries ask for several, as the README's example (11
 * keys) and the benchmark's (10) do.  Where the tree's inner signatures are
 * all ones (half-full filters) no number of bits prunes them, so this
 * matters only for trees that do narrow, where GiST is the faster.
 */
#define GBLOOM_COST_UNKNOWN_Q_KEYS 10

/*
 * The chance that a query's bits are all set in index key k (1: unknown):
 * qbits set bits if known (> 0), else those of qkeys keys at the entry's
 * own number of hashes (a probe: one key).
 */
static double
key_pass_rate(struct varlena *k, double qbits, double qkeys)
{
	uint8		flags = GBK_FLAGS(k);

	if (GBK_IS_LEAF(k))
	{
		struct varlena *f = GBK_LEAF_FILTER(k);
		bf_view		v;

		if (VARSIZE_ANY(k) < GBK_LEAF_HDRSZ + VARHDRSZ + BF_HEADER_SIZE ||
			bf_validate((const uint8 *) VARDATA_ANY(f), VARSIZE_ANY_EXHDR(f)) != BF_OK)
			return 1.0;
		bf_view_of((uint8 *) VARDATA_ANY(f), &v);
		return pow((double) bf_popcount(&v) / (double) v.nbits,
				   qbits > 0 ? qbits : qkeys * v.hashes);
	}
	if ((flags & (GBK_ALLTRUE | GBK_MIXED)) != 0)
		return 1.0;
	{
		const GBloomSig *s = (const GBloomSig *) k;
		int64		nbytes = (int64) VARSIZE_ANY(k) - (int64) GBK_SIG_HDRSZ;
		uint64		set = 0;
		double		sigbits = (double) nbytes * 8;

		if (nbytes <= 0)
			return 1.0;
		for (int64 i = 0; i < nbytes; i++)
			set += pg_popcount32(s->sig[i]);
		/* a query's bits fold onto the signature's: the distinct ones */
		return pow((double) set / sigbits,
				   sigbits * -expm1(-(qbits > 0 ? qbits : qkeys * Max(s->hashes, 1)) / sigbits));
	}
}

/*
 * The share of the tree's pages a probe reads (*page_share) and of its
 * rows it returns (*row_share), from one root-to-leaf path.  False if the
 * tree could not be read as expected (then nothing is known).
 */
static bool
sample_tree(Relation rel, double qbits, double qkeys, double *page_share,
			double *row_share)
{
	BlockNumber blk = GIST_ROOT_BLKNO;
	double		reach = 1.0;
	TupleDesc	td = RelationGetDescr(rel);

	if (RelationGetNumberOfBlocks(rel) == 0)
		return false;
	for (int level = 0; level < GBLOOM_COST_MAX_LEVELS; level++)
	{
		Buffer		buf = ReadBuffer(rel, blk);
		Page		page;
		OffsetNumber maxoff;
		double		sum = 0.0;
		int			n = 0;
		BlockNumber child = InvalidBlockNumber;
		bool		leaf;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) || GistPageIsDeleted(page))
		{
			UnlockReleaseBuffer(buf);
			return false;
		}
		leaf = GistPageIsLeaf(page);
		maxoff = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			ItemId		iid = PageGetItemId(page, off);
			IndexTuple	itup;
			bool		isnull;
			Datum		d;

			if (!ItemIdIsUsed(iid) || ItemIdIsDead(iid))
				continue;
			itup = (IndexTuple) PageGetItem(page, iid);
			if (!leaf && child == InvalidBlockNumber)
				child = ItemPointerGetBlockNumber(&itup->t_tid);
			d = index_getattr(itup, 1, td, &isnull);
			sum += isnull ? 0.0 : key_pass_rate((struct varlena *) DatumGetPointer(d), qbits, qkeys);
			n++;
		}
		UnlockReleaseBuffer(buf);
		if (n == 0)
			return false;
		if (leaf)
		{
			*page_share = reach;
			*row_share = reach * sum / n;
			return true;
		}
		reach *= sum / n;
		if (child == InvalidBlockNumber)
			return false;
		blk = child;
	}
	return false;
}

/*
 * The set bits of a superset query's q when the planner can see it (a
 * constant, a custom plan's parameter), -1 for a NULL q, 0 if unknown (then
 * GBLOOM_COST_UNKNOWN_Q_KEYS keys' bits stand for it).
 */
static double
superset_bits(PlannerInfo *root, Node *qexpr)
{
	Node	   *qnode = estimate_expression_value(root, qexpr);
	Const	   *qc;
	bf_view		v;

	if (!IsA(qnode, Const))
		return 0;
	qc = (Const *) qnode;
	if (qc->constisnull)
		return -1;
	bloomfilter_view(PG_DETOAST_DATUM_PACKED(qc->constvalue), &v);
	return (double) bf_popcount(&v);
}

void
gbloom_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
					Cost *indexStartupCost, Cost *indexTotalCost,
					Selectivity *indexSelectivity, double *indexCorrelation,
					double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	int			nprobes = 0;
	Relation	rel;
	double		page_share,
				row_share,
				pages,
				tuples,
				spc_random_page_cost;
	ListCell   *lc;

	gistcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
					 indexSelectivity, indexCorrelation, indexPages);

	/*
	 * The probes (strategy 1: col @> gbloom_key(x)) and superset queries
	 * (strategy 3: col @>> q) among the conditions, ANDed: each must pass.
	 * The tree is opened only if there is one.
	 */
	page_share = row_share = 1.0;
	rel = NULL;
	foreach(lc, path->indexclauses)
	{
		IndexClause *ic = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		if (ic->indexcol != 0)
			continue;
		foreach(lc2, ic->indexquals)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc2);
			OpExpr	   *op = (OpExpr *) ri->clause;
			int			strategy;
			double		qbits = 0,
						ps,
						rs;

			if (!IsA(op, OpExpr) || list_length(op->args) != 2)
				continue;
			strategy = get_op_opfamily_strategy(op->opno, index->opfamily[0]);
			if (strategy != GBLOOM_STRAT_KEY && strategy != GBLOOM_STRAT_SUPERSET)
				continue;
			if (strategy == GBLOOM_STRAT_SUPERSET &&
				(qbits = superset_bits(root, (Node *) lsecond(op->args))) < 0)
				continue;		/* a NULL q: GiST's own estimate is right */
			if (rel == NULL)
			{
				/* a hypothetical index (hypopg) has no relation: GiST's own estimate */
				rel = try_relation_open(index->indexoid, AccessShareLock);
				if (rel == NULL)
					return;
				if (rel->rd_rel->relkind != RELKIND_INDEX)
				{
					relation_close(rel, AccessShareLock);
					return;
				}
			}
			if (!sample_tree(rel, qbits,
							 strategy == GBLOOM_STRAT_KEY ? 1 : GBLOOM_COST_UNKNOWN_Q_KEYS,
							 &ps, &rs))
			{
				relation_close(rel, AccessShareLock);
				return;
			}
			page_share *= ps;
			row_share *= rs;
			nprobes++;
		}
	}
	if (rel == NULL)
		return;
	relation_close(rel, AccessShareLock);

	/*
	 * The tree narrows as GiST assumes when it reads no more pages and finds
	 * no more rows than GiST's own estimate says (sparse filters).  A
	 * superset query of many bits over half-full filters finds few rows but
	 * still reads the whole tree: its pages are what it costs.
	 */
	pages = Max(1.0, ceil(page_share * index->pages));
	if (pages <= *indexPages && row_share <= *indexSelectivity)
		return;
	row_share = Max(row_share, *indexSelectivity);
	tuples = row_share * index->tuples;
	if (loop_count > 1)
		pages = index_pages_fetched(pages * loop_count, index->pages,
									(double) index->pages, root) / loop_count;
	get_tablespace_page_costs(index->reltablespace, &spc_random_page_cost, NULL);
	*indexTotalCost = *indexStartupCost + pages * spc_random_page_cost +
		tuples * (cpu_index_tuple_cost + nprobes * cpu_operator_cost);
	*indexSelectivity = row_share;
	*indexPages = pages;
}
