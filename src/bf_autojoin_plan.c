/*
 * bf_autojoin_plan.c
 *		Automatic Bloom-joins, once bf_autojoin.c has found a legal equality:
 *		the foreign scans a filter goes to and what it is worth there, the
 *		filter's subquery and InitPlan, and the probe added to those scans,
 *		whose size and paths are redone.
 *
 * A scan takes the filter when its server is a postgres_fdw server that
 * lists bloomfilter in its `extensions` option; a table partitioned or
 * inherited over foreign tables gives it to each such member, at any depth.
 *
 * Worth.  See bloom_autojoin_rate_candidate(): the rows the filter removes
 * must repay building it (the other side is read a second time, by the
 * InitPlan), shipping it and probing it remotely.
 */
#include "bf_autojoin.h"

#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/subselect.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/varlena.h"

/* postgres_fdw's default fdw_tuple_cost, when the server does not set one */
#define PGFDW_DEFAULT_FDW_TUPLE_COST 0.01

/* ---- eligibility of servers and relations ---- */

/*
 * Is the server a postgres_fdw server that lists bloomfilter in its
 * `extensions` option?  *tuple_cost gets its fdw_tuple_cost.
 */
static bool
server_ships_bloomfilter(Oid serverid, const BloomObjects *bo, double *tuple_cost)
{
	ForeignServer *server;
	ForeignDataWrapper *fdw;
	char	   *handler;
	ListCell   *lc;
	bool		listed = false;

	*tuple_cost = PGFDW_DEFAULT_FDW_TUPLE_COST;
	if (!OidIsValid(serverid))
		return false;
	server = GetForeignServer(serverid);
	fdw = GetForeignDataWrapper(server->fdwid);
	if (!OidIsValid(fdw->fdwhandler))
		return false;
	handler = get_func_name(fdw->fdwhandler);
	if (handler == NULL || strcmp(handler, "postgres_fdw_handler") != 0)
		return false;

	foreach(lc, server->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "extensions") == 0)
		{
			/* as postgres_fdw reads it: a list of identifiers */
			char	   *raw = pstrdup(defGetString(def));
			List	   *names;
			ListCell   *lc2;

			if (!SplitIdentifierString(raw, ',', &names))
				continue;
			foreach(lc2, names)
			{
				if (get_extension_oid((char *) lfirst(lc2), true) == bo->extoid)
					listed = true;
			}
		}
		else if (strcmp(def->defname, "fdw_tuple_cost") == 0)
		{
			char	   *end;
			double		v = strtod(defGetString(def), &end);

			if (*end == '\0' && v >= 0)
				*tuple_cost = v;
		}
	}
	return listed;
}

/* Is rel a foreign table on a server that ships bloomfilter? */
static bool
is_filterable_foreign(PlannerInfo *root, RelOptInfo *rel, const BloomObjects *bo,
					  double *tuple_cost)
{
	RangeTblEntry *rte = rel_rte(root, rel);

	return rte->rtekind == RTE_RELATION && !rte->inh &&
		rte->relkind == RELKIND_FOREIGN_TABLE && rte->securityQuals == NIL &&
		rel->fdwroutine != NULL && rel->fdwroutine->GetForeignRelSize != NULL &&
		server_ships_bloomfilter(rel->serverid, bo, tuple_cost);
}

/*
 * The foreign scans a filter on rel would go to (rel itself, or its
 * members, at any depth of partitioning), and what they return and cost.
 */
void
bloom_autojoin_remote_share(PlannerInfo *root, RelOptInfo *rel,
							const BloomObjects *bo, RemoteShare *rs)
{
	RangeTblEntry *rte = rel_rte(root, rel);
	double		tuple_cost;
	ListCell   *lc;

	if (IS_DUMMY_REL(rel))
		return;
	if (is_filterable_foreign(root, rel, bo, &tuple_cost))
	{
		rs->rows += rel->rows;
		rs->transfer += rel->rows * (tuple_cost + cpu_tuple_cost);
		/* a row of `width` bytes costs fdw_tuple_cost to cross */
		rs->per_byte += tuple_cost / Max(rel->reltarget->width, 8);
		rs->nscans++;
		return;
	}
	if (rte->rtekind != RTE_RELATION || !rte->inh)
		return;
	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *appinfo = (AppendRelInfo *) lfirst(lc);
		RelOptInfo *child;

		if (appinfo->parent_relid != rel->relid)
			continue;
		child = root->simple_rel_array[appinfo->child_relid];
		if (child != NULL)
			bloom_autojoin_remote_share(root, child, bo, rs);
	}
}

/* ---- the decision ---- */

/* Fraction of the filtered column's rows whose key is among `keys` keys. */
static double
pass_fraction(PlannerInfo *root, RelOptInfo *frel, Var *fvar, double keys)
{
	VariableStatData vardata;
	double		nd,
				nullfrac = 0.0,
				fpr = bloomfilter_default_fpr,
				sel;
	bool		isdefault;

	examine_variable(root, (Node *) fvar, 0, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	if (HeapTupleIsValid(vardata.statsTuple))
		nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
	ReleaseVariableStats(vardata);

	/*
	 * Without statistics PostgreSQL assumes 200 distinct values, which would
	 * make any filter of a few hundred keys keep everything: assume a key
	 * column instead, as bf_planner.c does.
	 */
	if (isdefault)
		nd = Max(frel->tuples, frel->rows);
	if (nd < 1.0)
		nd = 1.0;
	sel = Min(1.0, keys / nd) * (1.0 - fpr) + fpr;
	sel *= 1.0 - nullfrac;		/* a NULL key passes no filter */
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* Bytes of a self-sized bloom_agg filter of `keys` keys, as text. */
static double
filter_text_bytes(double keys)
{
	uint64_t	nbits;
	int			hashes;

	if (!bf_size_for(BF_LAYOUT_BLOCKED, Max(keys, 1.0), bloomfilter_default_fpr,
					 &nbits, &hashes))
		return 1e12;
	/* base64 of the bytes, as postgres_fdw sends the parameter */
	return (double) nbits / 8.0 * 4.0 / 3.0;
}

/*
 * Rate one candidate: c->keys, c->sel and c->net.  Returns false when a
 * threshold rules it out.
 *
 * With N the rows the foreign scans return today, K the estimated
 * distinct keys of the other side and D the distinct keys of the foreign
 * column, a fraction sel = min(1, K/D) (1 - fpr) + fpr of the rows passes
 * (fpr is bloomfilter.default_fpr, the rate bloom_agg sizes for).  The
 * filter must
 *	 - be sent to scans of at least bloomfilter.join_pushdown_min_rows rows,
 *	 - keep at most bloomfilter.join_pushdown_max_fraction of them,
 *	 - have at most bloomfilter.agg_max_capacity keys (past that bloom_agg
 *	   cannot size for them and the filter saturates),
 *	 - and save more than it costs: the rows it removes, N (1 - sel), each
 *	   at postgres_fdw's price of a row crossing (the server's
 *	   fdw_tuple_cost plus cpu_tuple_cost), against the other side's second
 *	   read and aggregation (the subquery's cost, checked once it is
 *	   planned; here its scan as a lower bound), the filter's bytes (priced
 *	   as bytes of rows: fdw_tuple_cost per row width) and one probe per
 *	   remote row (cpu_operator_cost).
 */
bool
bloom_autojoin_rate_candidate(PlannerInfo *root, RelOptInfo *frel,
							  const RemoteShare *rs, BloomCandidate *c)
{
	double		saving,
				cost;

	if (rs->nscans == 0 || rs->rows < bloomfilter_join_pushdown_min_rows)
		return false;
	c->keys = estimate_num_groups(root, list_make1(c->oexpr), c->orel->rows,
								  NULL, NULL);
	c->keys = Max(c->keys, 1.0);
	if (c->keys > (double) bloomfilter_agg_max_capacity)
		return false;
	c->sel = pass_fraction(root, frel, c->fvar, c->keys);
	if (c->sel > bloomfilter_join_pushdown_max_fraction)
		return false;

	saving = rs->transfer * (1.0 - c->sel);
	cost = filter_text_bytes(c->keys) * rs->per_byte +
		rs->rows * cpu_operator_cost +
		c->orel->cheapest_total_path->total_cost +
		c->orel->rows * cpu_operator_cost;
	c->net = saving - cost;
	elog(DEBUG1, "bloomfilter.join_pushdown: %s of relation %u: %.0f keys, %.0f rows, keeps %.4f, saves %.1f, costs at least %.1f",
		 get_rte_attribute_name(rel_rte(root, frel), c->fvar->varattno),
		 frel->relid, c->keys, rs->rows, c->sel, saving, cost);
	return c->net > 0;
}

/* ---- the filter's subquery ---- */

/*
 * SELECT bloom_agg(key) FROM <the other side> WHERE <its restrictions>,
 * planned as a subquery of root.  NULL if its plan would need a value of
 * root (it never should: such restrictions are left out).
 */
PlannerInfo *
bloom_autojoin_plan_filter_query(PlannerInfo *root, const BloomObjects *bo,
								 BloomCandidate *c, char **keyname)
{
	RangeTblEntry *orte = copyObject(rel_rte(root, c->orel));
	Index		orelid = c->orel->relid;
	Expr	   *key = copyObject(c->oexpr);
	List	   *quals = NIL;
	ListCell   *lc;
	Query	   *q;
	RangeTblRef *rtr;
	Aggref	   *agg;
	List	   *save_plan_params;
	PlannerInfo *subroot;

	ChangeVarNodes((Node *) key, orelid, 1, 0);
	foreach(lc, c->orel->baserestrictinfo)
	{
		RestrictInfo *rinfo = (RestrictInfo *) lfirst(lc);
		Node	   *clause;

		if (!bloom_autojoin_restriction_copyable(rinfo, c->orel))
			continue;
		clause = copyObject((Node *) rinfo->clause);
		ChangeVarNodes(clause, orelid, 1, 0);
		quals = lappend(quals, clause);
	}

	agg = makeNode(Aggref);
	agg->aggfnoid = bo->aggfn;
	agg->aggtype = bo->bftype;
	agg->aggcollid = InvalidOid;
	agg->inputcollid = exprCollation((Node *) key);
	agg->aggtranstype = InvalidOid; /* the planner fills it in */
	agg->aggargtypes = list_make1_oid(exprType((Node *) key));
	agg->args = list_make1(makeTargetEntry(key, 1, NULL, false));
	agg->aggkind = AGGKIND_NORMAL;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = -1;

	q = makeNode(Query);
	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	q->hasAggs = true;
	q->rtable = list_make1(orte);
	/* the subquery reads the table as the user's query does, as its user */
	bf_copy_rte_permissions(orte, root->parse, q);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = 1;
	q->jointree = makeFromExpr(list_make1(rtr),
							   quals != NIL ? (Node *) make_ands_explicit(quals) : NULL);
	q->targetList = list_make1(makeTargetEntry((Expr *) agg, 1,
											   pstrdup("bloom_agg"), false));

	*keyname = deparse_expression((Node *) key,
								  deparse_context_for(orte->eref->aliasname, orte->relid),
								  true, false);

	save_plan_params = root->plan_params;
	root->plan_params = NIL;
	bloom_autojoin_depth++;
	PG_TRY();
	{
		subroot = bf_subquery_planner(root->glob, q, root, false, 0.0);
	}
	PG_FINALLY();
	{
		bloom_autojoin_depth--;
	}
	PG_END_TRY();
	if (root->plan_params != NIL)
		subroot = NULL;			/* correlated after all: not an InitPlan */
	root->plan_params = save_plan_params;
	return subroot;
}

/* ---- adding the filter ---- */

/* Redo the size and paths of a foreign relation whose restrictions grew. */
static void
redo_foreign_rel(PlannerInfo *root, RelOptInfo *rel)
{
	RangeTblEntry *rte = rel_rte(root, rel);
	double		rows_joined = rel->rows;

	/* as set_foreign_size() and set_rel_pathlist() do */
	set_foreign_size_estimates(root, rel);
	rel->fdwroutine->GetForeignRelSize(root, rel, rte->relid);
	rel->rows = clamp_row_est(rel->rows);
	rel->tuples = Max(rel->tuples, rel->rows);

	rel->pathlist = NIL;
	rel->partial_pathlist = NIL;
	rel->cheapest_startup_path = NULL;
	rel->cheapest_total_path = NULL;
	rel->cheapest_unique_path = NULL;
	rel->cheapest_parameterized_paths = NIL;
	rel->fdwroutine->GetForeignPaths(root, rel, rte->relid);
	if (set_rel_pathlist_hook)
		(*set_rel_pathlist_hook) (root, rel, rel->relid, rte);
	set_cheapest(rel);

	/*
	 * The scan's paths return the rows that pass the filter, and are costed
	 * so; but the filter is implied by the join, which matches no more rows
	 * for it: joins are estimated from the relation's rows as they were, or
	 * they would count the filter twice.
	 */
	rel->rows = rows_joined;
}

/* Redo the Append paths of a parent whose members' paths changed. */
static void
redo_append_rel(PlannerInfo *root, RelOptInfo *rel)
{
	RangeTblEntry *rte = rel_rte(root, rel);
	List	   *live = NIL;
	double		rows = 0;
	ListCell   *lc;

	/* as set_append_rel_size() and set_append_rel_pathlist() do */
	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *appinfo = (AppendRelInfo *) lfirst(lc);
		RelOptInfo *child;

		if (appinfo->parent_relid != rel->relid)
			continue;
		child = root->simple_rel_array[appinfo->child_relid];
		if (child == NULL || IS_DUMMY_REL(child))
			continue;
		live = lappend(live, child);
		rows += child->rows;
	}
	if (live == NIL)
		return;
	rel->rows = rows;

	rel->pathlist = NIL;
	rel->partial_pathlist = NIL;
	rel->cheapest_startup_path = NULL;
	rel->cheapest_total_path = NULL;
	rel->cheapest_unique_path = NULL;
	rel->cheapest_parameterized_paths = NIL;
	add_paths_to_append_rel(root, rel, live);
	if (set_rel_pathlist_hook)
		(*set_rel_pathlist_hook) (root, rel, rel->relid, rte);
	if (rel->reloptkind == RELOPT_BASEREL &&
		!bms_equal(rel->relids, root->all_baserels))
		generate_useful_gather_paths(root, rel, false);
	set_cheapest(rel);
}

/*
 * Add clause (over rel) to rel if it is a foreign table that ships
 * bloomfilter, or to each such member of rel, translated, at any depth.
 * Returns whether it was added anywhere.
 */
static bool
add_clause(PlannerInfo *root, RelOptInfo *rel, Expr *clause, double sel,
		   const BloomObjects *bo)
{
	RangeTblEntry *rte = rel_rte(root, rel);
	double		tuple_cost;
	bool		added = false;
	ListCell   *lc;

	if (IS_DUMMY_REL(rel))
		return false;
	if (is_filterable_foreign(root, rel, bo, &tuple_cost))
	{
		RestrictInfo *rinfo = bf_make_simple_restrictinfo(root, clause);

		/*
		 * Our estimate, which knows the filter's keys; the operator's own
		 * estimator sees only a parameter.
		 */
		rinfo->norm_selec = sel;
		rinfo->outer_selec = sel;
		rel->baserestrictinfo = lappend(rel->baserestrictinfo, rinfo);
		rel->baserestrict_min_security = 0;
		redo_foreign_rel(root, rel);
		return true;
	}
	if (rte->rtekind != RTE_RELATION || !rte->inh)
		return false;
	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *appinfo = (AppendRelInfo *) lfirst(lc);
		RelOptInfo *child;
		Expr	   *cclause;

		if (appinfo->parent_relid != rel->relid)
			continue;
		child = root->simple_rel_array[appinfo->child_relid];
		if (child == NULL)
			continue;
		cclause = (Expr *) adjust_appendrel_attrs(root, (Node *) clause, 1, &appinfo);
		if (add_clause(root, child, cclause, sel, bo))
			added = true;
	}
	if (added)
		redo_append_rel(root, rel);
	return added;
}

/*
 * Attach the filter's InitPlan and add its probe to the foreign side.  A
 * filter of the same key of the same relation, made for another foreign
 * table of the query (done is the list of those made so far), is reused.
 */
void
bloom_autojoin_apply_filter(PlannerInfo *root, const BloomObjects *bo,
							BloomFilterPlan *fp, List *done)
{
	OpExpr	   *probe;
	ListCell   *lc;

	foreach(lc, done)
	{
		BloomFilterPlan *other = (BloomFilterPlan *) lfirst(lc);

		if (other->orel == fp->orel && equal(other->oexpr, fp->oexpr))
			fp->prm = other->prm;
	}
	if (fp->prm == NULL)
	{
		Plan	   *plan = create_plan(fp->subroot, fp->subpath);
		SubPlan    *sp;

		fp->prm = SS_make_initplan_output_param(root, bo->bftype, -1, InvalidOid);
		SS_make_initplan_from_plan(root, fp->subroot, plan, fp->prm);
		/* EXPLAIN prints the name: say where the InitPlan comes from */
		sp = (SubPlan *) llast(root->init_plans);
		sp->plan_name = psprintf("%s: bloom filter of %s, added by bloomfilter.join_pushdown",
								 sp->plan_name, fp->keyname);
	}

	probe = (OpExpr *) make_opclause(bo->probe_op, BOOLOID, false,
									 (Expr *) copyObject(fp->fvar), (Expr *) fp->prm,
									 InvalidOid, fp->fvar->varcollid);
	probe->opfuncid = get_opcode(bo->probe_op);
	add_clause(root, fp->frel, (Expr *) probe, fp->sel, bo);
}
