/*
 * index/bf_index_planner.c
 *		The planner's entry points for the operators and functions of the
 *		bloomfilter type: bloomfilter_contsel, the restriction estimator of
 *		`@>`, `<@`, `@>>` and `<<@`, and bloomfilter_support, the support
 *		function of bloom_contains, bloom_contained_in,
 *		bloom_contains_filter and bloom_contained_in_filter.
 *
 * The selectivities and call costs are the type's own
 * (type/bf_planner.c, which describes them); what is here is what the
 * indexes add.
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
 * the planner matches without the support function).
 */
#include "type/bf_planner.h"
#include "index/gist/bf_gist_index.h"

#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(bloomfilter_support);
PG_FUNCTION_INFO_V1(bloomfilter_contsel);

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

	rel = bloom_column_table(root, col, &var);
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
		PG_RETURN_FLOAT8(bloom_probe_selectivity(root, left, right, varRelid, bftype));
	if (strcmp(name, "<@") == 0)
		PG_RETURN_FLOAT8(bloom_probe_selectivity(root, right, left, varRelid, bftype));
	if (!OidIsValid(bftype) || getBaseType(exprType(left)) != bftype ||
		getBaseType(exprType(right)) != bftype)
		PG_RETURN_FLOAT8(BLOOM_DEFAULT_SEL);
	if (strcmp(name, "@>>") == 0)
	{
		install_gist_estimate(root, left, oper);
		PG_RETURN_FLOAT8(bloom_superset_selectivity(root, right));
	}
	if (strcmp(name, "<<@") == 0)
	{
		install_gist_estimate(root, right, get_commutator(oper));
		PG_RETURN_FLOAT8(bloom_superset_selectivity(root, left));
	}
	PG_RETURN_FLOAT8(BLOOM_DEFAULT_SEL);
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
	BloomFuncKind kind = bloom_classify_call(req->funcid, &filterarg);
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
 * bloomfilter_support(internal): the prosupport of bloom_contains,
 * bloom_contained_in, bloom_contains_filter and bloom_contained_in_filter.
 */
Datum
bloomfilter_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
		PG_RETURN_POINTER(bloom_support_selectivity((SupportRequestSelectivity *) rawreq,
													fcinfo->flinfo->fn_oid));

	if (IsA(rawreq, SupportRequestCost))
		PG_RETURN_POINTER(bloom_support_cost((SupportRequestCost *) rawreq));

	if (IsA(rawreq, SupportRequestIndexCondition))
	{
		SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
		List	   *conds = index_condition(req);

		PG_RETURN_POINTER(conds);
	}

	PG_RETURN_POINTER(NULL);
}
