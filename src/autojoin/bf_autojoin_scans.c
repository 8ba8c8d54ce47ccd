/*
 * autojoin/bf_autojoin_scans.c
 *		The foreign scans a filter on a relation would go to: which servers
 *		ship bloomfilter, the walk over a relation or its members at any
 *		depth of partitioning or inheritance, what they return and cost,
 *		the user each connects as, and their size and paths redone when a
 *		member changed.  autojoin/bf_autojoin_plan.c and
 *		autojoin/bf_autojoin_remote.c both call it; it calls neither.
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

/* ---- eligibility of servers and relations ---- */

/* postgres_fdw's default fdw_tuple_cost, when the server does not set one */
#define PGFDW_DEFAULT_FDW_TUPLE_COST 0.01


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

static void redo_append_rel(PlannerInfo *root, RelOptInfo *rel);

/*
 * The foreign scans a filter on rel would go to: rel itself, or its members
 * at any depth of partitioning or inheritance, each a foreign table that
 * ships bloomfilter.  Calls action at each; a parent any of whose members
 * changed has its Append paths redone.  Returns whether rel changed.
 */
bool
bloom_autojoin_walk_foreign_scans(PlannerInfo *root, RelOptInfo *rel,
								  const BloomObjects *bo, ForeignScanAction action,
								  ForeignScanDescend descend, void *arg)
{
	RangeTblEntry *rte = rel_rte(root, rel);
	double		tuple_cost;
	bool		changed = false;
	ListCell   *lc;

	if (IS_DUMMY_REL(rel))
		return false;
	if (is_filterable_foreign(root, rel, bo, &tuple_cost))
		return action(root, rel, tuple_cost, arg);
	if (rte->rtekind != RTE_RELATION || !rte->inh)
		return false;
	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *appinfo = (AppendRelInfo *) lfirst(lc);
		RelOptInfo *child;

		if (appinfo->parent_relid != rel->relid)
			continue;
		child = root->simple_rel_array[appinfo->child_relid];
		if (child == NULL)
			continue;
		if (bloom_autojoin_walk_foreign_scans(root, child, bo, action, descend,
							   descend ? descend(root, appinfo, arg) : arg))
			changed = true;
	}
	if (changed)
		redo_append_rel(root, rel);
	return changed;
}

/* what a foreign scan returns and costs, added to the RemoteShare arg */
static bool
share_of_scan(PlannerInfo *root pg_attribute_unused(), RelOptInfo *rel,
			  double tuple_cost, void *arg)
{
	RemoteShare *rs = (RemoteShare *) arg;

	rs->rows += rel->rows;
	rs->transfer += rel->rows * (tuple_cost + cpu_tuple_cost);
	/* a row of `width` bytes costs fdw_tuple_cost to cross */
	rs->per_byte += tuple_cost / Max(rel->reltarget->width, 8);
	rs->nscans++;
	return false;
}

/*
 * The foreign scans a filter on rel would go to, and what they return and
 * cost.
 */
void
bloom_autojoin_remote_share(PlannerInfo *root, RelOptInfo *rel,
							const BloomObjects *bo, RemoteShare *rs)
{
	(void) bloom_autojoin_walk_foreign_scans(root, rel, bo, share_of_scan, NULL, rs);
}

/*
 * Redo the size and paths of a foreign relation whose restrictions grew
 * (keep_joined_rows) or whose size became known.
 */
void
bloom_autojoin_redo_foreign_rel(PlannerInfo *root, RelOptInfo *rel, bool keep_joined_rows)
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
	if (keep_joined_rows)
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

/* The probe to add, over the relation the walk is at. */

/* The user the foreign scan connects as, as postgres_fdw picks it. */
Oid
bloom_autojoin_scan_user(PlannerInfo *root, RelOptInfo *rel)
{
#ifdef BF_HAVE_RELOPTINFO_USERID
	(void) root;
	return OidIsValid(rel->userid) ? rel->userid : GetUserId();
#else
	RangeTblEntry *rte = rel_rte(root, rel);

	return OidIsValid(rte->checkAsUser) ? rte->checkAsUser : GetUserId();
#endif
}
