/*
 * autojoin/bf_autojoin_quals.c
 *		Automatic Bloom-joins: what of the other side may go into the
 *		filter's subquery, SELECT bloom_agg(key) FROM other WHERE <its
 *		restrictions>, which runs as an InitPlan.
 *
 * The InitPlan reads every row of the other side, also where the plain
 * plan reads none of them (a hash join whose foreign side is empty, a
 * nested loop whose outer side is, a LIMIT met early) or only some (an
 * index scan of the rows another join keeps).  Whatever it evaluates on
 * those rows must never raise an ERROR that the plain query would not:
 * `a / b` on a row where b = 0, `s::int` on 'x', `big::int4` past 2^31.
 *
 * So a restriction goes into the subquery only if it cannot raise one:
 * columns of the table and constants (and parameters of the statement)
 * combined only by leakproof operators and functions (PostgreSQL's promise
 * that a function raises no error that depends on its arguments), AND, OR,
 * NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE/UNKNOWN, CASE, COALESCE, arrays
 * of one dimension, binary-compatible relabelings.  Anything else (a cast
 * through text, a domain's check, a multidimensional array, a subplan, a
 * field of a composite, a subscript) is left out: the filter then holds the
 * keys of more rows, which makes it weaker, never wrong.  The key is held
 * to the same rule (autojoin/bf_autojoin_hook.c).
 */
#include "autojoin/bf_autojoin.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

/* ---- what cannot be evaluated in a subquery of its own ---- */

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

bool
bloom_autojoin_needs_its_query(Node *node)
{
	return needs_its_query_walker(node, NULL);
}

/* ---- what can raise an error ---- */

/* check_functions_in_node's checker: a function that is not leakproof */
static bool
not_leakproof(Oid funcid, void *context pg_attribute_unused())
{
	return !OidIsValid(funcid) || !get_func_leakproof(funcid);
}

/*
 * Could evaluating node raise an ERROR that depends on the row?  Every node
 * type not named below could (the default), so a node type PostgreSQL adds
 * later is left out of the filter until someone looks at it.
 */
static bool
may_raise_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
			/* a column of this level; not a whole row (built, and checked) */
			if (((Var *) node)->varlevelsup != 0 ||
				((Var *) node)->varattno == InvalidAttrNumber)
				return true;
			return false;
		case T_Param:
			/* a parameter of the statement, known before it runs */
			return ((Param *) node)->paramkind != PARAM_EXTERN;
		case T_Const:
		case T_CaseTestExpr:
		case T_SQLValueFunction:
			return false;
		case T_List:
		case T_BoolExpr:
		case T_RelabelType:
		case T_CollateExpr:
		case T_NamedArgExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CoalesceExpr:
		case T_RowExpr:
			/* raise nothing themselves: their parts are checked below */
			break;
		case T_ArrayExpr:
			/* sub-arrays of different dimensions are an ERROR */
			if (((ArrayExpr *) node)->multidims)
				return true;
			break;
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_CoerceViaIO:		/* an input function: never leakproof */
		case T_ArrayCoerceExpr: /* its element expression is walked below */
			if (check_functions_in_node(node, not_leakproof, NULL))
				return true;
			break;
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) node;

				/*
				 * The operator, and for a hashed NOT IN its negator's
				 * function.  A hashed IN also calls the hash function of
				 * the operator's family (never marked leakproof), over the
				 * same values the leakproof equality compares: taken, as
				 * PostgreSQL's own test of leakproof clauses takes it.
				 */
				set_sa_opfuncid(saop);
				if (not_leakproof(saop->opfuncid, NULL) ||
					(OidIsValid(saop->negfuncid) &&
					 not_leakproof(saop->negfuncid, NULL)))
					return true;
			}
			break;
		case T_MinMaxExpr:
			{
				/* GREATEST and LEAST call the type's btree comparison */
				TypeCacheEntry *tc =
					lookup_type_cache(((MinMaxExpr *) node)->minmaxtype,
									  TYPECACHE_CMP_PROC);

				if (not_leakproof(tc->cmp_proc, NULL))
					return true;
			}
			break;
		case T_RowCompareExpr:
			{
				ListCell   *lc;

				foreach(lc, ((RowCompareExpr *) node)->opnos)
				{
					if (not_leakproof(get_opcode(lfirst_oid(lc)), NULL))
						return true;
				}
			}
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, may_raise_walker, context);
}

/*
 * Could evaluating node on some row raise an ERROR?  False only for
 * columns, constants and statement parameters under leakproof functions
 * and the constructs listed above.
 */
bool
bloom_autojoin_may_raise(Node *node)
{
	return may_raise_walker(node, NULL);
}

/* ---- the restrictions ---- */

/*
 * Why a restriction of orel cannot go into the filter's subquery, or NULL
 * if it can.  Not one that guards security (the other side has none: such
 * a side gets no filter, hook), that is volatile (read twice, it would
 * keep other rows), that needs another query's values or other relations,
 * or that could raise an ERROR on rows the plain plan never reaches.
 * Leaving one out only adds keys to the filter.
 */
const char *
bloom_autojoin_restriction_refused(RestrictInfo *rinfo, RelOptInfo *orel)
{
	Node	   *clause = (Node *) rinfo->clause;

	if (rinfo->security_level != 0)
		return "it is a security qual";
	if (!bms_is_subset(rinfo->clause_relids, orel->relids))
		return "it is not the table's own";
	if (contain_volatile_functions(clause))
		return "it is volatile";
	if (bloom_autojoin_needs_its_query(clause))
		return "it needs its query's values";
	if (bloom_autojoin_may_raise(clause))
		return "it could raise an error on rows the plain plan never reaches (a function or cast that is not leakproof)";
	return NULL;
}

/* Can a restriction of orel go into the filter's subquery? */
bool
bloom_autojoin_restriction_copyable(RestrictInfo *rinfo, RelOptInfo *orel)
{
	return bloom_autojoin_restriction_refused(rinfo, orel) == NULL;
}
