/*
 * autojoin/bf_autojoin_plan.c
 *		Automatic Bloom-joins, once autojoin/bf_autojoin_hook.c has found a legal equality:
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
#include "autojoin/bf_autojoin.h"
#include "agg/bf_agg.h"

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
#include "utils/syscache.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/varlena.h"

/*
 * bloomfilter.default_fpr: the rate of the filters automatic Bloom-joins
 * build, bloom_agg(key, rate).  A planner setting: it changes plans, never
 * what a function returns (bloom_agg(x) sizes for 1% whatever it says, so
 * that a pushed-down bloom_agg(x) equals the local one).
 */
double		bloomfilter_default_fpr = 0.01;

/*
 * Automatic Bloom-joins (autojoin/bf_autojoin_hook.c): bloomfilter.join_pushdown
 * turns them on; a filter goes only to foreign scans that return at least
 * join_pushdown_min_rows rows and is expected to keep at most
 * join_pushdown_max_fraction of them.  src/bf_module.c defines the settings.
 */
bool		bloomfilter_join_pushdown = true;
double		bloomfilter_join_pushdown_min_rows = 10000;
double		bloomfilter_join_pushdown_max_fraction = 0.5;

/* > 0 while a filter's subquery is planned: no filters for it */
static int	filter_query_depth = 0;

bool
bloom_autojoin_planning_filter(void)
{
	return filter_query_depth > 0;
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
	 * column instead, as type/bf_planner.c does.
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
 * The rows of orel the filter's subquery keys: orel's own, unless some of
 * its restrictions stay out of the subquery (autojoin/bf_autojoin_quals.c),
 * when it keys the rows the others keep, which are more.
 */
static double
filter_input_rows(PlannerInfo *root, RelOptInfo *orel)
{
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, orel->baserestrictinfo)
	{
		RestrictInfo *rinfo = (RestrictInfo *) lfirst(lc);

		if (bloom_autojoin_restriction_copyable(rinfo, orel))
			kept = lappend(kept, rinfo);
	}
	if (list_length(kept) == list_length(orel->baserestrictinfo) ||
		orel->tuples <= 0)
		return orel->rows;
	return Max(orel->rows,
			   clamp_row_est(orel->tuples *
							 clauselist_selectivity(root, kept, 0, JOIN_INNER, NULL)));
}

/*
 * Rate one candidate: c->keys, c->sel and c->net.  Returns false when a
 * threshold rules it out.
 *
 * With N the rows the foreign scans return today, K the estimated
 * distinct keys of the other side (of the rows the filter's subquery
 * keeps: more than the join's when a restriction stays out of it) and D
 * the distinct keys of the foreign
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
				cost,
				rows;

	const char *colname = get_rte_attribute_name(rel_rte(root, frel), c->fvar->varattno);
	const char *relname = get_rel_name(rel_rte(root, frel)->relid);

	if (rs->nscans == 0)
		return false;
	if (rs->rows < bloomfilter_join_pushdown_min_rows)
	{
		elog(DEBUG1, "bloomfilter.join_pushdown: no filter on %s of relation %s: its scans are estimated at %.0f rows, fewer than bloomfilter.join_pushdown_min_rows (%.0f)",
			 colname, relname, rs->rows, bloomfilter_join_pushdown_min_rows);
		return false;
	}
	/*
	 * estimate_num_groups scales a column's distinct values by the rows of
	 * its relation: lend it the rows the subquery keeps
	 */
	rows = c->orel->rows;
	c->orel->rows = filter_input_rows(root, c->orel);
	c->keys = estimate_num_groups(root, list_make1(c->oexpr), c->orel->rows,
								  NULL, NULL);
	c->orel->rows = rows;
	c->keys = Max(c->keys, 1.0);
	if (c->keys > (double) bloomfilter_agg_max_capacity)
	{
		elog(DEBUG1, "bloomfilter.join_pushdown: no filter on %s of relation %s: %.0f keys are more than bloomfilter.agg_max_capacity (%d)",
			 colname, relname, c->keys, bloomfilter_agg_max_capacity);
		return false;
	}
	c->sel = pass_fraction(root, frel, c->fvar, c->keys);
	if (c->sel > bloomfilter_join_pushdown_max_fraction)
	{
		elog(DEBUG1, "bloomfilter.join_pushdown: no filter on %s of relation %s: %.0f keys would keep %.4f of its %.0f rows, more than bloomfilter.join_pushdown_max_fraction (%g)",
			 colname, relname, c->keys, c->sel, rs->rows, bloomfilter_join_pushdown_max_fraction);
		return false;
	}

	saving = rs->transfer * (1.0 - c->sel);
	cost = filter_text_bytes(c->keys) * rs->per_byte +
		rs->rows * cpu_operator_cost +
		c->orel->cheapest_total_path->total_cost +
		c->orel->rows * cpu_operator_cost;
	c->net = saving - cost;
	elog(DEBUG1, "bloomfilter.join_pushdown: %s of relation %s: %.0f keys, %.0f rows, keeps %.4f, saves %.1f, costs at least %.1f%s",
		 colname, relname, c->keys, rs->rows, c->sel, saving, cost,
		 c->net > 0 ? "" : ": not worth it");
	return c->net > 0;
}

/* ---- the filter's subquery ---- */

/*
 * A restriction of orel as SQL, for DEBUG1 (clause is its copy over the
 * subquery's one relation).  Deparsed only when it holds nothing but that
 * relation's columns and plain expressions: ruleutils raises an ERROR on a
 * Var it has no relation for, and a message must never raise one.
 */
static const char *
restriction_text(Node *clause, RestrictInfo *rinfo, RelOptInfo *orel,
				 RangeTblEntry *orte)
{
	if (!bms_is_subset(rinfo->clause_relids, orel->relids) ||
		bloom_autojoin_needs_its_query(clause))
		return "(one that needs its query's values)";
	return deparse_expression(clause,
							  deparse_context_for(orte->eref->aliasname, orte->relid),
							  false, false);
}

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
		const char *why = bloom_autojoin_restriction_refused(rinfo, c->orel);
		Node	   *clause;

		clause = copyObject((Node *) rinfo->clause);
		ChangeVarNodes(clause, orelid, 1, 0);
		if (why == NULL)
			quals = lappend(quals, clause);
		else if (message_level_is_interesting(DEBUG1))
			elog(DEBUG1, "bloomfilter.join_pushdown: restriction %s of relation %s left out of the filter's subquery (which then holds more keys): %s",
				 restriction_text(clause, rinfo, c->orel, orte),
				 get_rel_name(orte->relid), why);
	}

	agg = makeNode(Aggref);
	agg->aggfnoid = bo->aggfn;
	agg->aggtype = bo->bftype;
	agg->aggcollid = InvalidOid;
	agg->inputcollid = exprCollation((Node *) key);
	agg->aggtranstype = InvalidOid; /* the planner fills it in */
	/* bloom_agg(key, bloomfilter.default_fpr): the rate a constant of the plan */
	agg->aggargtypes = list_make2_oid(exprType((Node *) key), FLOAT8OID);
	agg->args = list_make2(makeTargetEntry(key, 1, NULL, false),
						   makeTargetEntry((Expr *) makeConst(FLOAT8OID, -1, InvalidOid, 8,
															  Float8GetDatum(bloomfilter_default_fpr),
															  false, FLOAT8PASSBYVAL),
										   2, NULL, false));
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
	filter_query_depth++;
	PG_TRY();
	{
		subroot = bf_subquery_planner(root->glob, q, root, false, 0.0);
	}
	PG_FINALLY();
	{
		filter_query_depth--;
	}
	PG_END_TRY();
	if (root->plan_params != NIL)
		subroot = NULL;			/* correlated after all: not an InitPlan */
	root->plan_params = save_plan_params;
	return subroot;
}

/* ---- adding the filter ---- */

typedef struct ProbeToAdd
{
	Expr	   *clause;
	double		sel;
} ProbeToAdd;

static void *
probe_for_member(PlannerInfo *root, AppendRelInfo *appinfo, void *arg)
{
	ProbeToAdd *parent = (ProbeToAdd *) arg;
	ProbeToAdd *child = palloc(sizeof(ProbeToAdd));

	child->clause = (Expr *) adjust_appendrel_attrs(root, (Node *) parent->clause,
													1, &appinfo);
	child->sel = parent->sel;
	return child;
}

/* Add the probe to a foreign scan's restrictions and redo its paths. */
static bool
add_probe_to_scan(PlannerInfo *root, RelOptInfo *rel,
				  double tuple_cost pg_attribute_unused(), void *arg)
{
	ProbeToAdd *probe = (ProbeToAdd *) arg;
	RestrictInfo *rinfo = bf_make_simple_restrictinfo(root, probe->clause);

	/*
	 * Our estimate, which knows the filter's keys; the operator's own
	 * estimator sees only a parameter.
	 */
	rinfo->norm_selec = probe->sel;
	rinfo->outer_selec = probe->sel;
	rel->baserestrictinfo = lappend(rel->baserestrictinfo, rinfo);
	rel->baserestrict_min_security = 0;
	bloom_autojoin_redo_foreign_rel(root, rel, true);
	return true;
}

/* ---- the size of foreign tables never analyzed ---- */

/* Does the foreign table (or else its server) set use_remote_estimate? */
static bool
uses_remote_estimate(Oid relid, Oid serverid)
{
	List	   *lists[2];
	bool		result = false;
	int			i;

	lists[0] = GetForeignServer(serverid)->options;
	lists[1] = GetForeignTable(relid)->options;
	for (i = 0; i < 2; i++)
	{
		ListCell   *lc;

		foreach(lc, lists[i])
		{
			DefElem    *def = (DefElem *) lfirst(lc);

			if (strcmp(def->defname, "use_remote_estimate") == 0)
				result = defGetBoolean(def);
		}
	}
	return result;
}

/*
 * A foreign table that ships bloomfilter, was never analyzed and has no
 * remote estimates is sized by postgres_fdw as ten pages of rows: give it
 * the remote's own size (autojoin/bf_autojoin_size.c) and redo its size and paths,
 * for the filter's decision and for the joins alike.
 */
static bool
size_scan_unanalyzed(PlannerInfo *root, RelOptInfo *rel,
					 double tuple_cost pg_attribute_unused(),
					 void *arg pg_attribute_unused())
{
	RangeTblEntry *rte = rel_rte(root, rel);
	HeapTuple	tup;
	float4		reltuples;
	double		tuples,
				pages;
	const char *why;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rte->relid));
	if (!HeapTupleIsValid(tup))
		return false;
	reltuples = ((Form_pg_class) GETSTRUCT(tup))->reltuples;
	ReleaseSysCache(tup);
	if (reltuples >= 0 || uses_remote_estimate(rte->relid, rel->serverid))
		return false;			/* postgres_fdw knows its size */
	if (!bloom_remote_size(rte->relid, bloom_autojoin_scan_user(root, rel), rel->serverid,
						   &tuples, &pages, &why))
	{
		elog(DEBUG1, "bloomfilter.join_pushdown: relation %s was never analyzed and its remote size is unknown (%s): postgres_fdw's guess of %.0f rows stands",
			 get_rel_name(rte->relid), why, rel->tuples);
		return false;
	}
	elog(DEBUG1, "bloomfilter.join_pushdown: relation %s was never analyzed: the remote has about %.0f rows in %.0f pages (postgres_fdw guessed %.0f)",
		 get_rel_name(rte->relid), tuples, pages, rel->tuples);
	rel->tuples = Max(tuples, 0.0);
	rel->pages = (BlockNumber) Min(Max(pages, 0.0), (double) MaxBlockNumber);
	bloom_autojoin_redo_foreign_rel(root, rel, false);
	return true;
}

/*
 * Size the never-analyzed foreign scans of rel (itself or its members, at
 * any depth); returns whether any size changed.
 */
bool
bloom_autojoin_size_unanalyzed(PlannerInfo *root, RelOptInfo *rel,
							   const BloomObjects *bo)
{
	return bloom_autojoin_walk_foreign_scans(root, rel, bo, size_scan_unanalyzed, NULL, NULL);
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
	Oid			joinfn;
	ProbeToAdd	add;
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

	/*
	 * A remote of bloomfilter 1.1 or later runs bloomfilter_join_probe(), which
	 * cannot fail on a remote column changed since it was asked
	 * (autojoin/bf_autojoin_probe.c); one of 1.0 runs `x <@ f`.
	 */
	joinfn = bloom_autojoin_join_probe_fn(root, fp->frel, bo);
	if (OidIsValid(joinfn))
		add.clause = (Expr *) makeFuncExpr(joinfn, BOOLOID,
										   list_make2(copyObject(fp->fvar), fp->prm),
										   InvalidOid, fp->fvar->varcollid,
										   COERCE_EXPLICIT_CALL);
	else
	{
		probe = (OpExpr *) make_opclause(bo->probe_op, BOOLOID, false,
										 (Expr *) copyObject(fp->fvar), (Expr *) fp->prm,
										 InvalidOid, fp->fvar->varcollid);
		probe->opfuncid = get_opcode(bo->probe_op);
		add.clause = (Expr *) probe;
	}
	add.sel = fp->sel;
	(void) bloom_autojoin_walk_foreign_scans(root, fp->frel, bo, add_probe_to_scan,
							  probe_for_member, &add);
}
