/*
 * type/bf_planner.c
 *		The type's estimates for the planner: selectivity of probes and
 *		superset queries, and what a call pays to read a stored filter.
 *		The planner's entry points, bloomfilter_contsel and
 *		bloomfilter_support, are in index/bf_index_planner.c, beside the
 *		index conditions and the GiST estimate they also set; they call
 *		down into this file.
 *
 * Selectivity.  `x <@ f` (or f @> x, bloom_contains(f, x)) keeps the rows
 * whose key is one of the filter's keys, plus a false-positive fraction of
 * the others.  When the planner can see the filter (a Const, or an external
 * parameter in a custom plan) and has statistics on x:
 *
 *		sel = min(1, n_f / ndistinct(x)) * (1 - fpr_f) + fpr_f
 *
 * with n_f the filter's estimated cardinality and fpr_f its current
 * false-positive rate (bloom_cardinality, bloom_fpr), times the fraction of
 * non-NULL x.  It assumes the filter's keys occur in the column, as they do
 * when the filter was built from the other side of a join.  An operator
 * gets its estimate from its RESTRICT function (bloomfilter_contsel), a
 * function call from its support function (SupportRequestSelectivity);
 * both use the same code.
 *
 * Index conditions and costs: index/bf_index_planner.c.  Superset queries
 * are estimated at contsel's 0.1%.
 *
 * Call costs.  A probe or superset call over a stored filter kept out of
 * line pays for reading it from the TOAST table (SupportRequestCost), which
 * PostgreSQL's costs leave out.
 */
#include "type/bf_planner.h"

#include <math.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
#include "utils/syscache.h"

/* f @>> q when q is not NULL: contsel's DEFAULT_CONTAIN_SEL */
#define BLOOM_SUPERSET_SEL 0.001

/* Is node a call of gbloom_key(x)?  Then x. */
static Node *
strip_key_box(Node *node)
{
	if (IsA(node, FuncExpr))
	{
		FuncExpr   *fe = (FuncExpr *) node;
		char	   *name = get_func_name(fe->funcid);

		if (name != NULL && strcmp(name, "gbloom_key") == 0 &&
			list_length(fe->args) == 1)
			return (Node *) linitial(fe->args);
	}
	return node;
}

/*
 * Selectivity of "key is in filter", both expressions as the clause has
 * them.
 */
Selectivity
bloom_probe_selectivity(PlannerInfo *root, Node *filter_expr, Node *key_expr,
						int varRelid, Oid bftype)
{
	Node	   *fnode = estimate_expression_value(root, filter_expr);
	Const	   *fc;
	struct varlena *f;
	bf_view		v;
	double		card,
				fpr,
				nd,
				nullfrac = 0.0;
	bool		isdefault;
	VariableStatData vardata;
	Selectivity sel;

	/*
	 * Only a bloomfilter is read as one: the estimator may be attached to an
	 * operator over other types (by a superuser, or by anyone on servers
	 * older than the rule that non-built-in estimators need a superuser),
	 * and their bytes were never validated as a filter's.
	 */
	if (!OidIsValid(bftype) || getBaseType(exprType(filter_expr)) != bftype)
		return BLOOM_DEFAULT_SEL;
	if (!IsA(fnode, Const) || exprType(fnode) != exprType(filter_expr))
		return BLOOM_DEFAULT_SEL;
	fc = (Const *) fnode;
	if (fc->constisnull)
		return 0.0;				/* a NULL filter selects nothing */

	f = PG_DETOAST_DATUM_PACKED(fc->constvalue);
	bloomfilter_view(f, &v);
	card = bf_est_cardinality(&v);
	fpr = bf_est_fpr(&v);

	examine_variable(root, strip_key_box(key_expr), varRelid, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	if (HeapTupleIsValid(vardata.statsTuple))
		nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
	else if (isdefault && vardata.rel != NULL && vardata.rel->tuples > nd)
	{
		/*
		 * No statistics: PostgreSQL's default of 200 distinct values would
		 * make any filter of a few hundred keys select the whole table.
		 * Assume one row per key instead (a key column, unanalyzed).
		 */
		nd = vardata.rel->tuples;
	}
	ReleaseVariableStats(vardata);

	if (nd < 1.0)
		nd = 1.0;
	sel = Min(1.0, card / nd) * (1.0 - fpr) + fpr;
	sel *= 1.0 - nullfrac;
	CLAMP_PROBABILITY(sel);
	return sel;
}

/*
 * A column as the index sees it: a column of a domain over bloomfilter is
 * relabelled to bloomfilter in the operator's arguments, and the planner
 * matches it to the column's index through the relabelling.
 */
static Node *
strip_relabel(Node *node)
{
	while (node != NULL && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node;
}

/*
 * The table of this query level whose column node is (through any
 * relabelling), with the column in *var; NULL when node is no such column.
 */
RelOptInfo *
bloom_column_table(PlannerInfo *root, Node *node, Var **var)
{
	RelOptInfo *rel;

	node = strip_relabel(node);
	if (root == NULL || node == NULL || !IsA(node, Var))
		return NULL;
	*var = (Var *) node;
	if ((*var)->varlevelsup != 0 || (*var)->varattno <= 0 ||
		(*var)->varno <= 0 || (*var)->varno >= root->simple_rel_array_size)
		return NULL;
	rel = root->simple_rel_array[(*var)->varno];
	if (rel == NULL || rel->rtekind != RTE_RELATION)
		return NULL;
	return rel;
}

/*
 * Selectivity of `f @>> q` (every bit of q set in f): contsel's 0.1% (what
 * the operator had before this estimator), 0 for a NULL q the planner can
 * see.  How many stored filters hold q's bits is not known without reading
 * them; the planner's choice between the indexes does not rest on it (both
 * fetch the same rows from the table), but on the index reads.
 */
Selectivity
bloom_superset_selectivity(PlannerInfo *root, Node *qexpr)
{
	Node	   *qnode = estimate_expression_value(root, qexpr);

	if (IsA(qnode, Const) && ((Const *) qnode)->constisnull)
		return 0.0;
	return BLOOM_SUPERSET_SEL;
}

/* Which function a support request is about, and where its filter is. */
BloomFuncKind
bloom_classify_call(Oid funcid, int *filterarg)
{
	char	   *name = get_func_name(funcid);

	if (name == NULL)
		return BFK_OTHER;
	if (strcmp(name, "bloom_contains") == 0)
	{
		*filterarg = 0;
		return BFK_PROBE;
	}
	if (strcmp(name, "bloom_contained_in") == 0)
	{
		*filterarg = 1;
		return BFK_PROBE;
	}
	/* bloom_contains_filter(f, g): f ⊇ g; bloom_contained_in_filter(g, f) */
	if (strcmp(name, "bloom_contains_filter") == 0)
	{
		*filterarg = 0;
		return BFK_SUPERSET;
	}
	if (strcmp(name, "bloom_contained_in_filter") == 0)
	{
		*filterarg = 1;
		return BFK_SUPERSET;
	}
	return BFK_OTHER;
}

/*
 * What a call pays to read a stored filter kept out of line: the TOAST
 * pages of arg's table per row, as a sequential scan reads them (arg a
 * column of a table of the query; 0 otherwise).  PostgreSQL's costs count
 * a table's own pages but not its TOAST table's, and a filter of more than
 * about 2 kB (a self-sized bloom_agg of 2,000 keys and more) is stored
 * there: a sequential scan of 10,000 such filters read 19,300 pages where
 * it was costed for 457, and was chosen over a bloomslice scan 15-60 times
 * faster (test/bench/README.md).  The TOAST table holds every out-of-line
 * column of the table: a column ANALYZE measured as stored in the row (an
 * average width above twice a TOAST pointer's) reads none of it, and
 * without statistics the pages are shared equally among the columns that
 * can be stored out of line (a table of in-row filters beside a long text
 * column was charged that column's pages, and its GiST index chosen over a
 * sequential scan three times faster).
 */
static Cost
stored_filter_read_cost(PlannerInfo *root, Node *arg)
{
	Var		   *var;
	RelOptInfo *rel;
	RangeTblEntry *rte;
	Oid			toastoid;
	Relation	toastrel;
	BlockNumber npages;
	double		spc_seq_page_cost;
	int32		width;
	Relation	table;
	int			outofline = 0;

	rel = bloom_column_table(root, arg, &var);
	if (rel == NULL)
		return 0;
	rte = root->simple_rte_array[var->varno];
	if (rte == NULL || rte->rtekind != RTE_RELATION || rel->tuples < 1)
		return 0;
	width = get_attavgwidth(rte->relid, var->varattno);
	if (width > 2 * (int32) TOAST_POINTER_SIZE)
		return 0;
	/* the query's tables are locked since parse analysis */
	table = relation_open(rte->relid, NoLock);
	toastoid = table->rd_rel->reltoastrelid;
	for (int i = 0; i < RelationGetDescr(table)->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(table), i);

		if (!att->attisdropped && att->attlen == -1 &&
			att->attstorage != TYPSTORAGE_PLAIN)
			outofline++;
	}
	relation_close(table, NoLock);
	if (!OidIsValid(toastoid) || outofline < 1)
		return 0;
	toastrel = try_relation_open(toastoid, AccessShareLock);
	if (toastrel == NULL)
		return 0;
	npages = RelationGetNumberOfBlocks(toastrel);
	relation_close(toastrel, AccessShareLock);
	get_tablespace_page_costs(rel->reltablespace, NULL, &spc_seq_page_cost);
	return Min((double) npages / outofline / rel->tuples, (double) npages) * spc_seq_page_cost;
}

/* A function's declared COST (procost), as the planner counts it */
static float4
declared_cost(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	float4		cost = 1;

	if (HeapTupleIsValid(tup))
	{
		cost = ((Form_pg_proc) GETSTRUCT(tup))->procost;
		ReleaseSysCache(tup);
	}
	return cost;
}

/*
 * The SupportRequestSelectivity of bloomfilter_support: that of a probe or
 * superset call, as its operator's; NULL for another call.  fn_oid is the
 * support function's, beside which the type lives.
 */
Node *
bloom_support_selectivity(SupportRequestSelectivity *req, Oid fn_oid)
{
	int			filterarg = 0;

	BloomFuncKind kind;

	if (req->is_join || list_length(req->args) != 2)
		return NULL;
	kind = bloom_classify_call(req->funcid, &filterarg);
	if (kind == BFK_SUPERSET)
	{
		/* as the operator's (the index condition costs GiST for the call) */
		req->selectivity = bloom_superset_selectivity(req->root,
													  (Node *) list_nth(req->args, 1 - filterarg));
		return (Node *) req;
	}
	if (kind != BFK_PROBE)
		return NULL;
	req->selectivity = bloom_probe_selectivity(req->root,
											   (Node *) list_nth(req->args, filterarg),
											   (Node *) list_nth(req->args, 1 - filterarg),
											   req->varRelid,
											   GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
															   CStringGetDatum("bloomfilter"),
															   ObjectIdGetDatum(get_func_namespace(fn_oid))));
	return (Node *) req;
}

/*
 * The SupportRequestCost of bloomfilter_support: a probe or superset call
 * over stored filters kept out of line pays for reading them; NULL when
 * the call's own declared cost stands.
 */
Node *
bloom_support_cost(SupportRequestCost *req)
{
	List	   *args;
	ListCell   *lc;
	Cost		read = 0;
	int			filterarg = 0;

	if (req->node == NULL || bloom_classify_call(req->funcid, &filterarg) == BFK_OTHER)
		return NULL;
	if (IsA(req->node, FuncExpr))
		args = ((FuncExpr *) req->node)->args;
	else if (IsA(req->node, OpExpr))
		args = ((OpExpr *) req->node)->args;
	else
		return NULL;
	/* the filter read, and q too if it is a stored one (superset joins) */
	foreach(lc, args)
	{
		Node	   *arg = (Node *) lfirst(lc);

		if (getBaseType(exprType(arg)) == getBaseType(exprType((Node *) list_nth(args, filterarg))))
			read += stored_filter_read_cost(req->root, arg);
	}
	if (read <= 0)
		return NULL;			/* the function's own cost, as declared */
	req->startup = 0;
	req->per_tuple = declared_cost(req->funcid) * cpu_operator_cost + read;
	return (Node *) req;
}
