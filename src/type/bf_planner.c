/*
 * type/bf_planner.c
 *		Planner support: selectivity of probes and superset queries, index
 *		conditions for the GiST operator class (index/gist/bf_gist.c) and the
 *		bloomslice access method (bf_slice_*.c), and the costs that let the
 *		planner choose between them.
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
 * Index conditions.  `col @> x` cannot be an index condition as it is: an
 * index support function is not told the type of x.  The support function
 * (SupportRequestIndexCondition) turns it, and bloom_contains(col, x) and
 * x <@ col, into `col @> gbloom_key(x)` for GiST, which is exact (lossy =
 * false).  bloom_contains_filter(col, q) and bloom_contained_in_filter(q,
 * col) become `col @>> q`.  Both index kinds take the same conditions.
 *
 * Index costs.  A GiST index of the operator class is costed from a sample
 * of its tree (index/gist/bf_gist_cost.c), set as its amcostestimate before the
 * planner costs it: by the index conditions above, and by the restriction
 * estimator of `@>>` and `<<@` (operators of both operator classes, which
 * the planner matches without the support function).  Superset queries are
 * estimated at contsel's 0.1%.
 *
 * Call costs.  A probe or superset call over a stored filter kept out of
 * line pays for reading it from the TOAST table (SupportRequestCost), which
 * PostgreSQL's costs leave out.
 */
#include "bloomfilter.h"
#include "index/gist/bf_gist_index.h"

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

PG_FUNCTION_INFO_V1(bloomfilter_support);
PG_FUNCTION_INFO_V1(bloomfilter_contsel);

/*
 * The estimate when the filter is not known at planning time (a subquery,
 * a column, a generic plan's parameter).  A probe passes at least the
 * filters' false-positive rate, 1% by default; more cannot be said.
 */
#define BLOOM_DEFAULT_SEL 0.01

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
static Selectivity
probe_selectivity(PlannerInfo *root, Node *filter_expr, Node *key_expr,
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
static RelOptInfo *
column_table(PlannerInfo *root, Node *node, Var **var)
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
 * Set the probe-aware estimate (index/gist/bf_gist_cost.c) as the amcostestimate of
 * the GiST indexes of the operator class on column col of its table, when
 * col is one.  supop is the @>> operator, a member of the operator class.
 *
 * Called by the restriction estimator of @>> and <<@: those operators are
 * in the operator class, so the planner matches them to the index without
 * asking bloomfilter_support, and it estimates every restriction clause of
 * a table (set_baserel_size_estimates, and for a parameterized path before
 * the path is costed) before it costs any of the table's index paths.  The
 * estimate is per planning (IndexOptInfo is built for each query), needs
 * nothing loaded beforehand, and is GiST's own where the tree narrows.
 */
static void
install_gist_estimate(PlannerInfo *root, Node *col, Oid supop)
{
	Var		   *var;
	RelOptInfo *rel;
	ListCell   *lc;

	rel = column_table(root, col, &var);
	if (rel == NULL || !OidIsValid(supop) ||
		(rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL))
		return;
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		if (index->relam == GIST_AM_OID && index->ncolumns >= 1 &&
			index->indexkeys[0] == var->varattno &&
			op_in_opfamily(supop, index->opfamily[0]))
			index->amcostestimate = gbloom_costestimate;
	}
}

/*
 * Selectivity of `f @>> q` (every bit of q set in f): contsel's 0.1% (what
 * the operator had before this estimator), 0 for a NULL q the planner can
 * see.  How many stored filters hold q's bits is not known without reading
 * them; the planner's choice between the indexes does not rest on it (both
 * fetch the same rows from the table), but on the index reads.
 */
static Selectivity
superset_selectivity(PlannerInfo *root, Node *qexpr)
{
	Node	   *qnode = estimate_expression_value(root, qexpr);

	if (IsA(qnode, Const) && ((Const *) qnode)->constisnull)
		return 0.0;
	return BLOOM_SUPERSET_SEL;
}

/*
 * bloomfilter_contsel(root, operator, args, varRelid): the RESTRICT
 * function of `@>` and `@>>` (filter on the left) and `<@` and `<<@`
 * (filter on the right).
 */
Datum
bloomfilter_contsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			oper = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	char	   *name = get_opname(oper);
	Node	   *left,
			   *right;
	Oid			bftype;

	if (list_length(args) != 2 || name == NULL)
		PG_RETURN_FLOAT8(BLOOM_DEFAULT_SEL);
	left = (Node *) linitial(args);
	right = (Node *) lsecond(args);
	/* the type beside this function, not cached: the extension may be recreated */
	bftype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							 CStringGetDatum("bloomfilter"),
							 ObjectIdGetDatum(get_func_namespace(fcinfo->flinfo->fn_oid)));
	if (strcmp(name, "@>") == 0)
		PG_RETURN_FLOAT8(probe_selectivity(root, left, right, varRelid, bftype));
	if (strcmp(name, "<@") == 0)
		PG_RETURN_FLOAT8(probe_selectivity(root, right, left, varRelid, bftype));
	if (!OidIsValid(bftype) || getBaseType(exprType(left)) != bftype ||
		getBaseType(exprType(right)) != bftype)
		PG_RETURN_FLOAT8(BLOOM_DEFAULT_SEL);
	if (strcmp(name, "@>>") == 0)
	{
		install_gist_estimate(root, left, oper);
		PG_RETURN_FLOAT8(superset_selectivity(root, right));
	}
	if (strcmp(name, "<<@") == 0)
	{
		install_gist_estimate(root, right, get_commutator(oper));
		PG_RETURN_FLOAT8(superset_selectivity(root, left));
	}
	PG_RETURN_FLOAT8(BLOOM_DEFAULT_SEL);
}

/* Which function a support request is about, and where its filter is. */
typedef enum BloomFuncKind
{
	BFK_OTHER,
	BFK_PROBE,					/* key in filter */
	BFK_SUPERSET				/* filter superset of filter */
} BloomFuncKind;

static BloomFuncKind
classify(Oid funcid, int *filterarg)
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

/* An operator of the extension's schema, or InvalidOid. */
static Oid
lookup_operator(const char *nspname, const char *opname, Oid left, Oid right)
{
	List	   *names = list_make2(makeString(pstrdup(nspname)),
								   makeString(pstrdup(opname)));

	return OpernameGetOprid(names, left, right);
}

/*
 * The index condition for a probe or superset call whose filter argument
 * is the index column, or NIL.
 */
static List *
index_condition(SupportRequestIndexCondition *req)
{
	List	   *args;
	Oid			inputcollid;
	int			filterarg = 0;
	BloomFuncKind kind = classify(req->funcid, &filterarg);
	Node	   *col,
			   *other;
	Oid			nsp,
				bftype,
				opno;
	char	   *nspname;
	Expr	   *cond;

	if (kind == BFK_OTHER || req->indexarg != filterarg)
		return NIL;
	if (IsA(req->node, FuncExpr))
	{
		args = ((FuncExpr *) req->node)->args;
		inputcollid = ((FuncExpr *) req->node)->inputcollid;
	}
	else if (IsA(req->node, OpExpr))
	{
		args = ((OpExpr *) req->node)->args;
		inputcollid = ((OpExpr *) req->node)->inputcollid;
	}
	else
		return NIL;
	if (list_length(args) != 2)
		return NIL;
	col = (Node *) list_nth(args, filterarg);
	other = (Node *) list_nth(args, 1 - filterarg);
	if (!is_pseudo_constant_for_index(req->root, other, req->index))
		return NIL;

	/* the operators live beside the function */
	nsp = get_func_namespace(req->funcid);
	nspname = get_namespace_name(nsp);
	bftype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							 CStringGetDatum("bloomfilter"), ObjectIdGetDatum(nsp));
	if (!OidIsValid(bftype) || nspname == NULL)
		return NIL;

	if (kind == BFK_SUPERSET)
	{
		opno = lookup_operator(nspname, "@>>", bftype, bftype);
		if (!OidIsValid(opno) || !op_in_opfamily(opno, req->opfamily))
			return NIL;
		cond = make_opclause(opno, BOOLOID, false, (Expr *) col, (Expr *) other,
							 InvalidOid, InvalidOid);
	}
	else
	{
		Oid			keytype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
											  CStringGetDatum("gbloom_key"),
											  ObjectIdGetDatum(nsp));
		Oid			argtypes[1] = {ANYELEMENTOID};
		Oid			boxfn;
		Expr	   *box;

		if (!OidIsValid(keytype))
			return NIL;
		opno = lookup_operator(nspname, "@>", bftype, keytype);
		if (!OidIsValid(opno) || !op_in_opfamily(opno, req->opfamily))
			return NIL;
		boxfn = LookupFuncName(list_make2(makeString(nspname), makeString("gbloom_key")),
							   1, argtypes, true);
		if (!OidIsValid(boxfn))
			return NIL;
		box = (Expr *) makeFuncExpr(boxfn, keytype, list_make1(other),
									InvalidOid, exprCollation(other),
									COERCE_EXPLICIT_CALL);
		/* the clause's collation reaches the scan key, and so the key's hash */
		cond = make_opclause(opno, BOOLOID, false, (Expr *) col, box,
							 InvalidOid, inputcollid);

	}

	/*
	 * A GiST index of the operator class: a probe's or a superset query's
	 * cost is not what GiST's generic estimate says (index/gist/bf_gist_cost.c).  The
	 * planner costs the index's paths after asking for its conditions, so
	 * this is in time for every call; the operator `col @>> q` is matched
	 * without this function and gets the estimate from its restriction
	 * estimator (install_gist_estimate).  Only where the index's first
	 * column is the one matched: the estimate reads the conditions and keys
	 * of that column as the operator class's, and in an index on (id,
	 * filter) they are another class's (btree_gist's `id = 5` is strategy 3
	 * there too, and its key no filter).
	 */
	if (req->index->relam == GIST_AM_OID && req->indexcol == 0)
		req->index->amcostestimate = gbloom_costestimate;

	/* the condition is the call itself: exact, no need to keep the call */
	req->lossy = false;
	return list_make1(cond);
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

	rel = column_table(root, arg, &var);
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
 * bloomfilter_support(internal): the prosupport of bloom_contains,
 * bloom_contained_in, bloom_contains_filter and bloom_contained_in_filter.
 */
Datum
bloomfilter_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
		int			filterarg = 0;

		BloomFuncKind kind;

		if (req->is_join || list_length(req->args) != 2)
			PG_RETURN_POINTER(NULL);
		kind = classify(req->funcid, &filterarg);
		if (kind == BFK_SUPERSET)
		{
			/* as the operator's (index_condition costs GiST for the call) */
			req->selectivity = superset_selectivity(req->root,
													(Node *) list_nth(req->args, 1 - filterarg));
			PG_RETURN_POINTER(req);
		}
		if (kind != BFK_PROBE)
			PG_RETURN_POINTER(NULL);
		req->selectivity = probe_selectivity(req->root,
											 (Node *) list_nth(req->args, filterarg),
											 (Node *) list_nth(req->args, 1 - filterarg),
											 req->varRelid,
											 GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
															 CStringGetDatum("bloomfilter"),
															 ObjectIdGetDatum(get_func_namespace(fcinfo->flinfo->fn_oid))));
		PG_RETURN_POINTER(req);
	}

	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;
		List	   *args;
		ListCell   *lc;
		Cost		read = 0;
		int			filterarg = 0;

		if (req->node == NULL || classify(req->funcid, &filterarg) == BFK_OTHER)
			PG_RETURN_POINTER(NULL);
		if (IsA(req->node, FuncExpr))
			args = ((FuncExpr *) req->node)->args;
		else if (IsA(req->node, OpExpr))
			args = ((OpExpr *) req->node)->args;
		else
			PG_RETURN_POINTER(NULL);
		/* the filter read, and q too if it is a stored one (superset joins) */
		foreach(lc, args)
		{
			Node	   *arg = (Node *) lfirst(lc);

			if (getBaseType(exprType(arg)) == getBaseType(exprType((Node *) list_nth(args, filterarg))))
				read += stored_filter_read_cost(req->root, arg);
		}
		if (read <= 0)
			PG_RETURN_POINTER(NULL);	/* the function's own cost, as declared */
		req->startup = 0;
		req->per_tuple = declared_cost(req->funcid) * cpu_operator_cost + read;
		PG_RETURN_POINTER(req);
	}

	if (IsA(rawreq, SupportRequestIndexCondition))
	{
		SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
		List	   *conds = index_condition(req);

		PG_RETURN_POINTER(conds);
	}

	PG_RETURN_POINTER(NULL);
}
