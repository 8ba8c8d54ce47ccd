/*
 * autojoin/bf_autojoin_hook.c
 *		Automatic Bloom-joins: the planner ships a filter of the other
 *		side's keys into the remote query of a postgres_fdw scan
 *		(bloomfilter.join_pushdown).
 *
 * What a user writes by hand,
 *
 *		SELECT ... FROM vip v JOIN events e USING (customer_id)
 *		WHERE e.customer_id <@ (SELECT bloom_agg(customer_id) FROM vip)
 *
 * is made here from the plain join: an InitPlan computes bloom_agg of the
 * other side's key once per execution, and `e.customer_id <@ $n` is added
 * to the foreign scan's restrictions, where postgres_fdw ships it (the
 * operator belongs to an extension listed in the server's `extensions`
 * option, the InitPlan's output is a PARAM_EXEC parameter).
 *
 * When.  join_search_hook runs after every base relation is sized and has
 * its paths and before any join is built: both the legality and the worth
 * of a filter can be decided there, and the foreign relation's paths redone
 * with the filter before the joins see them.  The hook is called once per
 * join problem (several times per query level when join_collapse_limit
 * splits it); the work is done at the first call of a level, which is the
 * one that finds no join relation built yet.
 *
 * Which joins (every one of these is a reason a removed remote row could
 * not have reached the output; anything else gets no filter):
 *
 *	 - an equivalence class, without constants or volatile members, with a
 *	   member that is a column of the foreign table and a member over one
 *	   other base relation.  Equivalence classes are made of the equalities
 *	   of inner joins, WHERE and semi-joins (IN, EXISTS, = ANY): every output
 *	   row has the foreign column equal to the other member, so a remote row
 *	   whose key is no key of the other side cannot contribute.
 *	 - the ON equality of a LEFT JOIN whose nullable side is the foreign
 *	   table: a remote row that matches nothing is dropped by the join
 *	   anyway.  Never the preserved side, a FULL join or an anti-join: these
 *	   output rows that match nothing.
 *
 * The other side's key must be strict and non-volatile, without
 * placeholders, subplans or executor parameters, over one plain table (no
 * TABLESAMPLE, no security quals, no lateral references): the filter is
 * built from a scan of that table with its own restrictions, minus any
 * that is volatile, needs another query's values or could raise an ERROR
 * (autojoin/bf_autojoin_quals.c: the InitPlan reads rows the plain plan may
 * never reach; dropping a restriction only makes the filter hold more keys,
 * which is always safe).  A strict
 * key is NULL on a null-extended row, and NULL matches nothing.  An empty
 * other side makes bloom_agg return NULL, and `k <@ NULL` keeps no remote
 * row: right, since nothing can match it.
 *
 * Both sides' keys must hash alike, as `=` compares them: the equality is
 * the default btree equality of both types, both types are among the types
 * whose key bytes can never raise an error (scalars, enums; text only under
 * a deterministic collation; not jsonb, whose key bytes recurse where its
 * `=` does not; text, name and enums only in a database whose encoding
 * converts every text to UTF-8), and both have the same key family and type
 * tag.  So `int4 = int8` gets a filter; `int8 = numeric` (a cast of the
 * foreign column) does not.  The remote must be able to run the probe too:
 * bloomfilter installed there in the schema of the local one's name, the
 * column's remote type of the declared type's family, text under a total
 * encoding (asked of the remote, autojoin/bf_autojoin_remote.c); and nothing is asked
 * for a user who may not read the foreign table.
 *
 * This file holds the hook and which joins may get a filter;
 * autojoin/bf_autojoin_plan.c what a filter is worth, and building and adding it.
 */
#include "autojoin/bf_autojoin.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/geqo.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

static join_search_hook_type prev_join_search_hook = NULL;

/* ---- finding candidates ---- */

/* Is relid the nullable side of the LEFT JOIN whose preserved side is lhs? */
static bool
nullable_in_left_join(PlannerInfo *root, Index relid, Relids lhs)
{
	ListCell   *lc;
	bool		found = false;

	foreach(lc, root->join_info_list)
	{
		SpecialJoinInfo *sj = (SpecialJoinInfo *) lfirst(lc);

		if (!bms_equal(sj->syn_lefthand, lhs) ||
			!bms_is_member(relid, sj->syn_righthand))
			continue;
		/* an anti-join's ON clause has the same shape: never those */
		if (sj->jointype != JOIN_LEFT)
			return false;
		found = true;
	}
	return found;
}

/*
 * Is relid a table of Citus's metadata (distributed, reference or Citus
 * local)?  Its rows are in its shards, on the workers or in shard tables of
 * their own: the table the planner sees here is an empty shell, whose
 * filter would hold no key.  Citus plans a query over such a table twice:
 * PostgreSQL's plan of the query as written, then its distributed plan,
 * which it runs instead; a filter is never added to the first.  Looked up
 * in Citus's catalog pg_dist_partition, without linking to Citus.
 */
static bool
is_citus_table(Oid relid)
{
	Oid			catalog;
	AttrNumber	attnum;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	if (!OidIsValid(get_extension_oid("citus", true)))
		return false;
	catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	if (!OidIsValid(catalog))
		return false;
	attnum = get_attnum(catalog, "logicalrelid");
	if (attnum == InvalidAttrNumber)
		return false;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, attnum, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

static void
consider(PlannerInfo *root, RelOptInfo *frel, const RemoteShare *rs,
		 Var *fvar, Index orelid, Expr *oexpr, List *opfamilies, Oid collation,
		 BloomCandidate *best)
{
	BloomCandidate c;
	const char *why = NULL;

	if (orelid == frel->relid || orelid >= (Index) root->simple_rel_array_size)
		return;
	c.fvar = fvar;
	c.orel = root->simple_rel_array[orelid];
	c.oexpr = oexpr;
	if ((why = bloom_autojoin_key_type_refused(getBaseType(fvar->vartype))) != NULL ||
		(why = bloom_autojoin_key_type_refused(getBaseType(exprType((Node *) oexpr)))) != NULL)
		 /* said */ ;
	else if (!bloom_autojoin_other_side_ok(root, frel, c.orel))
		why = "the other side is not one plain table scanned alone (a join of the same server, a subquery, TABLESAMPLE, security quals or a lateral reference)";
	else if (is_citus_table(rel_rte(root, c.orel)->relid))
		why = "the other side is a Citus table: its rows are in its shards, and Citus runs its own plan of the query";
	else if ((why = bloom_autojoin_other_key_refused(oexpr, orelid)) != NULL)
		 /* said */ ;
	else if (!bloom_autojoin_foreign_key_ok(fvar))
		why = "the foreign column's values may not hash as they compare (a float, a declared typmod, a nondeterministic collation or a type without safe key bytes)";
	else if (!bloom_autojoin_key_type_is_safe(getBaseType(exprType((Node *) oexpr)),
							   exprCollation((Node *) oexpr)))
		why = "the other side's key type is not one whose key bytes never raise an error";
	else if (!bloom_autojoin_keys_hash_alike(fvar->vartype, exprType((Node *) oexpr), collation,
							  opfamilies))
		why = "the two keys do not hash alike under this equality";
	else if (!bloom_autojoin_restrictions_kept(c.orel, oexpr))
		why = "the other side's key is computed and one of its restrictions cannot go into the filter's subquery";
	if (why != NULL)
	{
		elog(DEBUG1, "bloomfilter.join_pushdown: no filter on %s of relation %s: %s",
			 get_rte_attribute_name(rel_rte(root, frel), fvar->varattno),
			 get_rel_name(rel_rte(root, frel)->relid), why);
		return;
	}
	if (!bloom_autojoin_rate_candidate(root, frel, rs, &c))
		return;
	if (best->fvar == NULL || c.net > best->net)
		*best = c;
}

/* The best filter for frel, in *best (best->fvar NULL if none). */
static void
find_candidate(PlannerInfo *root, RelOptInfo *frel, const RemoteShare *rs,
			   BloomCandidate *best)
{
	ListCell   *lc;

	memset(best, 0, sizeof(*best));

	/* equalities of inner joins, WHERE and semi-joins */
	foreach(lc, root->eq_classes)
	{
		EquivalenceClass *ec = (EquivalenceClass *) lfirst(lc);
		EquivalenceMember *fm = NULL;
		Var		   *fvar = NULL;
		ListCell   *lc2;

		if (ec->ec_has_const || ec->ec_has_volatile || ec->ec_broken ||
			ec->ec_merged != NULL || list_length(ec->ec_members) < 2 ||
			!bms_is_member(frel->relid, ec->ec_relids))
		{
			if (ec->ec_has_volatile && ec->ec_merged == NULL &&
				bms_is_member(frel->relid, ec->ec_relids))
				elog(DEBUG1, "bloomfilter.join_pushdown: no filter on %s of relation %s: its equality is volatile",
					 (fvar = bloom_autojoin_column_of(((EquivalenceMember *) linitial(ec->ec_members))->em_expr, frel->relid)) ?
					 get_rte_attribute_name(rel_rte(root, frel), fvar->varattno) : "a column",
					 get_rel_name(rel_rte(root, frel)->relid));
			continue;
		}
		foreach(lc2, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lc2);

			if (em->em_is_child || em->em_is_const || bf_member_nulled(em))
				continue;
			if ((fvar = bloom_autojoin_column_of(em->em_expr, frel->relid)) != NULL)
			{
				fm = em;
				break;
			}
		}
		if (fm == NULL)
			continue;
		foreach(lc2, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lc2);

			if (em == fm || em->em_is_child || em->em_is_const ||
				bf_member_nulled(em) ||
				bms_membership(em->em_relids) != BMS_SINGLETON)
				continue;
			consider(root, frel, rs, fvar, bms_singleton_member(em->em_relids),
					 em->em_expr, ec->ec_opfamilies, ec->ec_collation, best);
		}
	}

	/* the ON equality of a LEFT JOIN whose nullable side is frel */
	foreach(lc, frel->joininfo)
	{
		RestrictInfo *rinfo = (RestrictInfo *) lfirst(lc);
		OpExpr	   *op;
		Expr	   *fexpr,
				   *oexpr;
		Relids		orelids;
		Var		   *fvar;

		if (rinfo->is_pushed_down || rinfo->pseudoconstant ||
			rinfo->mergeopfamilies == NIL || !IsA(rinfo->clause, OpExpr) ||
			bf_restriction_nulled(rinfo))
			continue;
		op = (OpExpr *) rinfo->clause;
		if (list_length(op->args) != 2)
			continue;
		if (bms_is_member(frel->relid, rinfo->left_relids))
		{
			fexpr = linitial(op->args);
			oexpr = lsecond(op->args);
			orelids = rinfo->right_relids;
		}
		else
		{
			fexpr = lsecond(op->args);
			oexpr = linitial(op->args);
			orelids = rinfo->left_relids;
		}
		fvar = bloom_autojoin_column_of(fexpr, frel->relid);
		if (fvar == NULL || bms_membership(orelids) != BMS_SINGLETON ||
			bms_is_member(frel->relid, orelids) ||
			bms_is_member(frel->relid, rinfo->outer_relids) ||
			!bms_is_subset(orelids, rinfo->outer_relids) ||
			!nullable_in_left_join(root, frel->relid, rinfo->outer_relids))
			continue;
		consider(root, frel, rs, fvar, bms_singleton_member(orelids), oexpr,
				 rinfo->mergeopfamilies, op->inputcollid, best);
	}
}

/* ---- the hook ---- */

/* The namespace of an extension, or InvalidOid. */
static Oid
extension_namespace(Oid extoid)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/* The extension's objects in this database; false if it is not created. */
static bool
lookup_objects(BloomObjects *bo)
{
	Oid			nsp;
	char	   *nspname;
	Oid			argtypes[2] = {ANYELEMENTOID, FLOAT8OID};

	bo->extoid = get_extension_oid("bloomfilter", true);
	if (!OidIsValid(bo->extoid) || creating_extension)
		return false;
	nsp = extension_namespace(bo->extoid);
	nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : NULL;
	if (nspname == NULL)
		return false;
	bo->nspname = nspname;
	bo->bftype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								 CStringGetDatum("bloomfilter"), ObjectIdGetDatum(nsp));
	bo->aggfn = LookupFuncName(list_make2(makeString(nspname), makeString("bloom_agg")),
							   2, argtypes, true);
	bo->probe_op = OidIsValid(bo->bftype) ?
		OpernameGetOprid(list_make2(makeString(nspname), makeString("<@")),
						 ANYCOMPATIBLEOID, bo->bftype) : InvalidOid;
	return OidIsValid(bo->bftype) && OidIsValid(bo->aggfn) && OidIsValid(bo->probe_op);
}

/* Decide and add the filters of one query level. */
static void
add_bloom_filters(PlannerInfo *root)
{
	BloomObjects bo;
	List	   *targets = NIL;
	List	   *plans = NIL;
	ListCell   *lc;
	int			i;

	if (root->parse->commandType != CMD_SELECT || root->parse->rowMarks != NIL)
		return;

	/* the foreign tables and the tables partitioned over foreign tables */
	for (i = 1; i < root->simple_rel_array_size; i++)
	{
		RelOptInfo *rel = root->simple_rel_array[i];
		RangeTblEntry *rte = root->simple_rte_array[i];

		if (rel == NULL || rel->reloptkind != RELOPT_BASEREL ||
			rte->rtekind != RTE_RELATION || rte->securityQuals != NIL)
			continue;
		if (rte->relkind == RELKIND_FOREIGN_TABLE || rte->inh)
			targets = lappend(targets, rel);
	}
	if (targets == NIL)
		return;
	if (!lookup_objects(&bo))
	{
		/* preloaded in a database where the extension is not created */
		elog(DEBUG1, "bloomfilter.join_pushdown: no filter for relation %s: the extension bloomfilter is not created in this database (the library is preloaded, its types and operators are not here)",
			 get_rel_name(rel_rte(root, (RelOptInfo *) linitial(targets))->relid));
		return;
	}

	/* decide every filter before adding any: each sees the plain query */
	foreach(lc, targets)
	{
		RelOptInfo *frel = (RelOptInfo *) lfirst(lc);
		RemoteShare rs = {0};
		BloomCandidate c;
		BloomFilterPlan *fp;
		PlannerInfo *subroot;
		RelOptInfo *final_rel;
		char	   *keyname;
		double		build;

		if (IS_DUMMY_REL(frel))
			continue;

		/*
		 * Nothing is asked of the remote, no connection made, for a user who
		 * will get "permission denied" (the executor checks after planning)
		 * or whose rows are chosen by row-level security.
		 */
		if (!bloom_autojoin_may_ask(root, frel))
		{
			elog(DEBUG1, "bloomfilter.join_pushdown: no filter for relation %s: its remote is not asked for a user who may not read it all (no SELECT privilege on the table, or row-level security)",
				 get_rel_name(rel_rte(root, frel)->relid));
			continue;
		}
		(void) bloom_autojoin_size_unanalyzed(root, frel, &bo);
		bloom_autojoin_remote_share(root, frel, &bo, &rs);
		if (rs.nscans == 0)
		{
			elog(DEBUG1, "bloomfilter.join_pushdown: no filter for relation %s: not a postgres_fdw table (or partitioned over them) whose server lists bloomfilter in its extensions option",
				 get_rel_name(rel_rte(root, frel)->relid));
			continue;
		}
		find_candidate(root, frel, &rs, &c);
		if (c.fvar == NULL)
		{
			elog(DEBUG1, "bloomfilter.join_pushdown: no filter for relation %s: no equality of its columns with another table passed the rules and the cost (said above, if any was considered)",
				 get_rel_name(rel_rte(root, frel)->relid));
			continue;
		}
		/* the remote must be able to run the probe (said at DEBUG1 if not) */
		if (!bloom_autojoin_remote_fits(root, frel, &bo, c.fvar))
			continue;
		subroot = bloom_autojoin_plan_filter_query(root, &bo, &c, &keyname);
		if (subroot == NULL)
			continue;
		final_rel = fetch_upper_rel(subroot, UPPERREL_FINAL, NULL);
		if (final_rel->cheapest_total_path == NULL)
			continue;

		/*
		 * the subquery's real cost replaces the lower bound
		 * bloom_autojoin_rate_candidate used
		 */
		build = final_rel->cheapest_total_path->total_cost -
			(c.orel->cheapest_total_path->total_cost + c.orel->rows * cpu_operator_cost);
		elog(DEBUG1, "bloomfilter.join_pushdown: filter of %s: subquery costs %.1f more, %s",
			 keyname, build, c.net - build > 0 ? "added" : "not worth it");
		if (c.net - build <= 0)
			continue;

		fp = palloc0(sizeof(BloomFilterPlan));
		fp->frel = frel;
		fp->fvar = c.fvar;
		fp->orel = c.orel;
		fp->oexpr = c.oexpr;
		fp->keyname = keyname;
		fp->sel = c.sel;
		fp->subroot = subroot;
		fp->subpath = final_rel->cheapest_total_path;
		plans = lappend(plans, fp);
	}

	foreach(lc, plans)
		bloom_autojoin_apply_filter(root, &bo, (BloomFilterPlan *) lfirst(lc),
									list_head(plans) == lc ? NIL : list_copy_head(plans, foreach_current_index(lc)));
}

/*
 * join_search_hook: add the filters at the first join search of a query
 * level (no join relation exists yet), then search as PostgreSQL would.
 */
static RelOptInfo *
bloom_join_search(PlannerInfo *root, int levels_needed, List *initial_rels)
{
	if (bloomfilter_join_pushdown && !bloom_autojoin_planning_filter() &&
		root->join_rel_list == NIL)
		add_bloom_filters(root);

	if (prev_join_search_hook)
		return (*prev_join_search_hook) (root, levels_needed, initial_rels);
	if (enable_geqo && levels_needed >= geqo_threshold)
		return geqo(root, levels_needed, initial_rels);
	return standard_join_search(root, levels_needed, initial_rels);
}

static bool installed = false;

void
bloom_autojoin_install(void)
{
	prev_join_search_hook = join_search_hook;
	join_search_hook = bloom_join_search;
	bloom_autojoin_guard_install();
	installed = true;
}

bool
bloom_autojoin_installed(void)
{
	return installed;
}
