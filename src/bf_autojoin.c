/*
 * bf_autojoin.c
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
 * that is volatile or needs another query's values (dropping a restriction
 * only makes the filter hold more keys, which is always safe).  A strict
 * key is NULL on a null-extended row, and NULL matches nothing.  An empty
 * other side makes bloom_agg return NULL, and `k <@ NULL` keeps no remote
 * row: right, since nothing can match it.
 *
 * Both sides' keys must hash alike, as `=` compares them: the equality is
 * the default btree equality of both types, both types are among the types
 * whose key bytes can never raise an error (scalars, enums; text only under
 * a deterministic collation), and both have the same key family and type
 * tag.  So `int4 = int8` gets a filter; `int8 = numeric` (a cast of the
 * foreign column) does not.
 *
 * Worth.  See decide(): the rows the filter removes must repay building it
 * (the other side is read a second time, by the InitPlan), shipping it and
 * probing it remotely.
 */
#include "bloomfilter.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/geqo.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/subselect.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

/* postgres_fdw's default fdw_tuple_cost, when the server does not set one */
#define PGFDW_DEFAULT_FDW_TUPLE_COST 0.01

static join_search_hook_type prev_join_search_hook = NULL;

/* > 0 while this file plans a filter's subquery: no filters for it */
static int	autojoin_depth = 0;

/* The extension's objects, looked up once per query level. */
typedef struct BloomObjects
{
	Oid			extoid;
	Oid			bftype;			/* bloomfilter */
	Oid			aggfn;			/* bloom_agg(anyelement) */
	Oid			probe_op;		/* <@(anycompatible, bloomfilter) */
} BloomObjects;

/* A filter worth adding, decided before any is added. */
typedef struct BloomFilterPlan
{
	RelOptInfo *frel;			/* foreign table, or table partitioned over
								 * foreign tables */
	Var		   *fvar;			/* its key column */
	RelOptInfo *orel;			/* the other side */
	Expr	   *oexpr;			/* its key */
	char	   *keyname;		/* the other side's key, for EXPLAIN */
	double		sel;			/* fraction of frel's rows that pass */
	PlannerInfo *subroot;		/* the filter's subquery, planned */
	Path	   *subpath;		/* its cheapest path */
	Param	   *prm;			/* the InitPlan's output, once made */
} BloomFilterPlan;

/* A candidate equality: frel's fvar = oexpr over orel. */
typedef struct BloomCandidate
{
	Var		   *fvar;
	RelOptInfo *orel;
	Expr	   *oexpr;
	double		keys;			/* estimated distinct keys of the filter */
	double		sel;			/* estimated fraction of rows that pass */
	double		net;			/* saving minus the costs known before
								 * planning the subquery */
} BloomCandidate;

/* What decide() needs to know of the foreign scans a filter goes to. */
typedef struct RemoteShare
{
	double		rows;			/* rows they return today */
	double		transfer;		/* cost of those rows crossing */
	double		per_byte;		/* cost of shipping one filter byte, summed
								 * over the scans (each gets the filter) */
	int			nscans;
} RemoteShare;

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

/* The RangeTblEntry of a base or member relation. */
static inline RangeTblEntry *
rel_rte(PlannerInfo *root, RelOptInfo *rel)
{
	return root->simple_rte_array[rel->relid];
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
static void
remote_share(PlannerInfo *root, RelOptInfo *rel, const BloomObjects *bo,
			 RemoteShare *rs)
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
			remote_share(root, child, bo, rs);
	}
}

/* ---- the keys ---- */

/*
 * Can keys of type typid (a base type) under collation be hashed without
 * any chance of an ERROR (the plain join must not fail where it would
 * not)?  A list of types rather than a trial: what the key machinery
 * refuses, it refuses with an ERROR.
 */
static bool
key_type_is_safe(Oid typid, Oid collation)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case BYTEAOID:
		case UUIDOID:
		case BOOLOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case INTERVALOID:
		case JSONBOID:
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
			/* a nondeterministic collation is refused by the key bytes */
			return !OidIsValid(collation) || collation == DEFAULT_COLLATION_OID ||
				collation == C_COLLATION_OID || collation == POSIX_COLLATION_OID ||
				get_collation_isdeterministic(collation);
		default:
			return get_typtype(typid) == TYPTYPE_ENUM;
	}
}

/* The default btree operator family of a type, or InvalidOid. */
static Oid
default_btree_family(Oid typid)
{
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/*
 * Do keys of ftype and otype, equal under an equality of the operator
 * families opfamilies with collation, hash alike?
 */
static bool
keys_hash_alike(Oid ftype, Oid otype, Oid collation, List *opfamilies)
{
	Oid			fbase = getBaseType(ftype);
	Oid			obase = getBaseType(otype);
	Oid			ffam = default_btree_family(fbase);
	Oid			ofam = default_btree_family(obase);
	BloomKeyType fk,
				ok;
	bool		alike;

	if (!key_type_is_safe(fbase, collation) || !key_type_is_safe(obase, collation))
		return false;

	/*
	 * The equality must be the types' own `=`, the one the key bytes agree
	 * with: a clause is mergejoinable in the default family only if its
	 * operator is that family's equality for these types.
	 */
	if (!OidIsValid(ffam) || ffam != ofam || !list_member_oid(opfamilies, ffam))
		return false;

	bloom_key_type_init(&fk, ftype, collation, NULL, CurrentMemoryContext);
	bloom_key_type_init(&ok, otype, collation, NULL, CurrentMemoryContext);
	alike = fk.family == ok.family && fk.type_tag == ok.type_tag;
	if (fk.scratch)
		MemoryContextDelete(fk.scratch);
	if (ok.scratch)
		MemoryContextDelete(ok.scratch);
	return alike;
}

/*
 * Does an expression hold anything that cannot be evaluated in a
 * subquery of its own, once: a placeholder (computed at a join), a
 * subplan, an executor parameter (another query level's or a plan's
 * value), an aggregate, window function or set-returning function?
 */
static bool
needs_its_query_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, PlaceHolderVar) || IsA(node, SubPlan) ||
		IsA(node, AlternativeSubPlan) || IsA(node, SubLink) ||
		IsA(node, Aggref) || IsA(node, WindowFunc) ||
		IsA(node, GroupingFunc) || IsA(node, CurrentOfExpr))
		return true;
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
		return true;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup != 0)
		return true;
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcretset)
		return true;
	if (IsA(node, OpExpr) && ((OpExpr *) node)->opretset)
		return true;
	return expression_tree_walker(node, needs_its_query_walker, context);
}

static bool
needs_its_query(Node *node)
{
	return needs_its_query_walker(node, NULL);
}

/* A Var of relid, maybe under a binary-compatible relabeling, or NULL. */
static Var *
column_of(Expr *expr, Index relid)
{
	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;

		if ((Index) var->varno == relid && var->varlevelsup == 0 && var->varattno > 0)
			return var;
	}
	return NULL;
}

/*
 * Can a filter of rel's rows be built in a subquery of its own: a plain
 * table (or a table partitioned or inherited), scanned with no TABLESAMPLE,
 * no security quals and no lateral reference?
 */
static bool
other_side_ok(PlannerInfo *root, RelOptInfo *frel, RelOptInfo *orel)
{
	RangeTblEntry *orte;

	if (orel == NULL || orel->reloptkind != RELOPT_BASEREL || IS_DUMMY_REL(orel))
		return false;
	orte = rel_rte(root, orel);
	if (orte->rtekind != RTE_RELATION || orte->tablesample != NULL ||
		orte->securityQuals != NIL || !bms_is_empty(orel->lateral_relids))
		return false;

	/*
	 * Two foreign tables of one server: postgres_fdw may run their join
	 * remotely, where a filter only adds a second remote read.
	 */
	if (orte->relkind == RELKIND_FOREIGN_TABLE && OidIsValid(orel->serverid) &&
		orel->serverid == frel->serverid)
		return false;
	return true;
}

/* Is the other side's key one the filter may be built from? */
static bool
other_key_ok(Expr *oexpr, Index orelid)
{
	Relids		varnos = pull_varnos(NULL, (Node *) oexpr);
	bool		ok;

	/* one relation, strict (NULL on a null-extended row), evaluable alone */
	ok = bms_membership(varnos) == BMS_SINGLETON &&
		bms_singleton_member(varnos) == (int) orelid &&
		!contain_volatile_functions((Node *) oexpr) &&
		!contain_nonstrict_functions((Node *) oexpr) &&
		!needs_its_query((Node *) oexpr);
	return ok;
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
static bool
rate_candidate(PlannerInfo *root, RelOptInfo *frel, const RemoteShare *rs,
			   BloomCandidate *c)
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

static void
consider(PlannerInfo *root, RelOptInfo *frel, const RemoteShare *rs,
		 Var *fvar, Index orelid, Expr *oexpr, List *opfamilies, Oid collation,
		 BloomCandidate *best)
{
	BloomCandidate c;

	if (orelid == frel->relid || orelid >= (Index) root->simple_rel_array_size)
		return;
	c.fvar = fvar;
	c.orel = root->simple_rel_array[orelid];
	c.oexpr = oexpr;
	if (!other_side_ok(root, frel, c.orel) || !other_key_ok(oexpr, orelid) ||
		!keys_hash_alike(fvar->vartype, exprType((Node *) oexpr), collation,
						 opfamilies))
		return;
	if (!rate_candidate(root, frel, rs, &c))
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
			continue;
		foreach(lc2, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lc2);

			if (em->em_is_child || em->em_is_const ||
				!bms_is_empty(em->em_nullable_relids))
				continue;
			if ((fvar = column_of(em->em_expr, frel->relid)) != NULL)
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
				!bms_is_empty(em->em_nullable_relids) ||
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
			!bms_is_empty(rinfo->nullable_relids))
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
		fvar = column_of(fexpr, frel->relid);
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

/* ---- the filter's subquery ---- */

/*
 * SELECT bloom_agg(key) FROM <the other side> WHERE <its restrictions>,
 * planned as a subquery of root.  NULL if its plan would need a value of
 * root (it never should: such restrictions are left out).
 */
static PlannerInfo *
plan_filter_query(PlannerInfo *root, const BloomObjects *bo, BloomCandidate *c,
				  char **keyname)
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
		Node	   *clause = (Node *) rinfo->clause;

		/* leaving a restriction out only adds keys to the filter */
		if (rinfo->security_level > 0 || contain_volatile_functions(clause) ||
			needs_its_query(clause) ||
			!bms_is_subset(rinfo->clause_relids, c->orel->relids))
			continue;
		clause = copyObject(clause);
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
	autojoin_depth++;
	PG_TRY();
	{
		subroot = subquery_planner(root->glob, q, root, false, 0.0);
	}
	PG_FINALLY();
	{
		autojoin_depth--;
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
		RestrictInfo *rinfo = make_restrictinfo(root, clause, true, false, false,
												0, NULL, NULL, NULL);

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
static void
apply_filter(PlannerInfo *root, const BloomObjects *bo, BloomFilterPlan *fp,
			 List *done)
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
	Oid			argtypes[1] = {ANYELEMENTOID};

	bo->extoid = get_extension_oid("bloomfilter", true);
	if (!OidIsValid(bo->extoid) || creating_extension)
		return false;
	nsp = extension_namespace(bo->extoid);
	nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : NULL;
	if (nspname == NULL)
		return false;
	bo->bftype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								 CStringGetDatum("bloomfilter"), ObjectIdGetDatum(nsp));
	bo->aggfn = LookupFuncName(list_make2(makeString(nspname), makeString("bloom_agg")),
							   1, argtypes, true);
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
	if (targets == NIL || !lookup_objects(&bo))
		return;

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
		remote_share(root, frel, &bo, &rs);
		if (rs.nscans == 0)
			continue;
		find_candidate(root, frel, &rs, &c);
		if (c.fvar == NULL)
			continue;
		subroot = plan_filter_query(root, &bo, &c, &keyname);
		if (subroot == NULL)
			continue;
		final_rel = fetch_upper_rel(subroot, UPPERREL_FINAL, NULL);
		if (final_rel->cheapest_total_path == NULL)
			continue;

		/* the subquery's real cost replaces the lower bound rate_candidate used */
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
		apply_filter(root, &bo, (BloomFilterPlan *) lfirst(lc),
					 list_head(plans) == lc ? NIL : list_copy_head(plans, foreach_current_index(lc)));
}

/*
 * join_search_hook: add the filters at the first join search of a query
 * level (no join relation exists yet), then search as PostgreSQL would.
 */
static RelOptInfo *
bloom_join_search(PlannerInfo *root, int levels_needed, List *initial_rels)
{
	if (bloomfilter_join_pushdown && autojoin_depth == 0 &&
		root->join_rel_list == NIL)
		add_bloom_filters(root);

	if (prev_join_search_hook)
		return (*prev_join_search_hook) (root, levels_needed, initial_rels);
	if (enable_geqo && levels_needed >= geqo_threshold)
		return geqo(root, levels_needed, initial_rels);
	return standard_join_search(root, levels_needed, initial_rels);
}

void
bloom_autojoin_install(void)
{
	prev_join_search_hook = join_search_hook;
	join_search_hook = bloom_join_search;
}
