/*
 * bf_compat.h
 *		Every difference between the PostgreSQL major versions bloomfilter
 *		builds against (15, 16, 17, 18), in one place.  Included by
 *		bloomfilter.h right after postgres.h; the code elsewhere is written
 *		against the names below and has no PG_VERSION_NUM test of its own.
 *
 * Macros that call a PostgreSQL function expand where they are used, so
 * the file using one includes that function's header as before.
 */
#ifndef BF_COMPAT_H
#define BF_COMPAT_H

#include "postgres.h"

/* 16 moved the varlena macros (VARSIZE, VARDATA, ...) out of postgres.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * The overflow-checked arithmetic: no longer pulled in through other headers
 * by 18, nor by the latest minor releases of older versions (15.18)
 */
#include "common/int.h"

/*
 * 18 replaced pg_attribute_noreturn(), written after a declaration, with
 * pg_noreturn, written before it.  Before 18, GCC and Clang accept the
 * attribute in front as well.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 18 gave the POSIX collation no C symbol; its OID is fixed (951 in every
 * version's pg_collation.dat), and it compares as the C collation.
 */
#ifndef POSIX_COLLATION_OID
#define POSIX_COLLATION_OID 951
#endif

/*
 * The database's locale of its default collation provider: daticulocale
 * (ICU only) until 16, datlocale (ICU and the builtin provider) from 17.
 * Tailoring rules (daticurules) exist from 16.  COLLPROVIDER_BUILTIN
 * exists from 17; before, no database can have it.
 */
#if PG_VERSION_NUM >= 170000
#define BF_Anum_pg_database_locale Anum_pg_database_datlocale
#else
#define BF_Anum_pg_database_locale Anum_pg_database_daticulocale
#endif
#if PG_VERSION_NUM >= 160000
#define BF_HAVE_DATICURULES 1
#endif
#ifndef COLLPROVIDER_BUILTIN
#define COLLPROVIDER_BUILTIN 'b'
#endif

/* transaction_timeout (and its TRANSACTION_TIMEOUT timer) exists from 17. */
#if PG_VERSION_NUM >= 170000
#define BF_HAVE_TRANSACTION_TIMEOUT 1
#endif

/*
 * 17 gave subquery_planner() the set operation of the query it plans (NULL:
 * not one).
 */
#if PG_VERSION_NUM >= 170000
#define bf_subquery_planner(glob, parse, parent_root, hasRecursion, tuple_fraction) \
	subquery_planner(glob, parse, parent_root, hasRecursion, tuple_fraction, NULL)
#else
#define bf_subquery_planner(glob, parse, parent_root, hasRecursion, tuple_fraction) \
	subquery_planner(glob, parse, parent_root, hasRecursion, tuple_fraction)
#endif

/*
 * A restriction of one base relation, pushed down, not pseudoconstant,
 * at security level 0, no relids given (make_restrictinfo computes them):
 * 16 replaced outerjoin_delayed and nullable_relids by has_clone, is_clone
 * and incompatible_relids.
 */
#if PG_VERSION_NUM >= 160000
#define bf_make_simple_restrictinfo(root, clause) \
	make_restrictinfo(root, clause, true, false, false, false, 0, NULL, NULL, NULL)
#else
#define bf_make_simple_restrictinfo(root, clause) \
	make_restrictinfo(root, clause, true, false, false, 0, NULL, NULL, NULL)
#endif

/* 16 renamed a relation's RelFileNode (rd_node) RelFileLocator (rd_locator) */
#if PG_VERSION_NUM >= 160000
#define bf_rel_locator(rel) ((rel)->rd_locator)
#else
#define bf_rel_locator(rel) ((rel)->rd_node)
#endif

/* 18 gave index_beginscan_bitmap() an instrumentation argument (NULL: none) */
#if PG_VERSION_NUM >= 180000
#define bf_index_beginscan_bitmap(rel, snapshot, nkeys) \
	index_beginscan_bitmap(rel, snapshot, NULL, nkeys)
#else
#define bf_index_beginscan_bitmap(rel, snapshot, nkeys) \
	index_beginscan_bitmap(rel, snapshot, nkeys)
#endif

/* 16 gave tuplesort_getdatum() a copy argument (false: a by-value datum) */
#if PG_VERSION_NUM >= 160000
#define bf_tuplesort_getdatum(state, val, isnull) \
	tuplesort_getdatum(state, true, false, val, isnull, NULL)
#else
#define bf_tuplesort_getdatum(state, val, isnull) \
	tuplesort_getdatum(state, true, val, isnull, NULL)
#endif

/*
 * Can an outer join below make this expression NULL where it is used?
 * Until 15 the planner says so in em_nullable_relids and a RestrictInfo's
 * nullable_relids.  From 16 a Var or PlaceHolderVar carries the outer joins
 * that null it (varnullingrels, phnullingrels): the expression can be
 * nulled if any of its own level's carries one.
 */
#if PG_VERSION_NUM >= 160000
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"

static inline bool
bf_expr_nulled_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup == 0 &&
			!bms_is_empty(((Var *) node)->varnullingrels);
	if (IsA(node, PlaceHolderVar) && ((PlaceHolderVar *) node)->phlevelsup == 0 &&
		!bms_is_empty(((PlaceHolderVar *) node)->phnullingrels))
		return true;
	return expression_tree_walker(node, bf_expr_nulled_walker, context);
}

/*
 * A clause that outer-join reordering cloned (has_clone on the version with
 * the fewest nulling bits, is_clone on the others) reads a side that a
 * lower outer join nulls in some join order: nulled, as 15 says, although
 * the version with no bits shows none.
 */
#define bf_member_nulled(em) bf_expr_nulled_walker((Node *) (em)->em_expr, NULL)
#define bf_restriction_nulled(rinfo) \
	((rinfo)->has_clone || (rinfo)->is_clone || \
	 bf_expr_nulled_walker((Node *) (rinfo)->clause, NULL))
#else
#define bf_member_nulled(em) (!bms_is_empty((em)->em_nullable_relids))
#define bf_restriction_nulled(rinfo) (!bms_is_empty((rinfo)->nullable_relids))
#endif

/*
 * From 16 a range-table entry's permissions are in the query's
 * rteperminfos, found by its perminfoindex; before, in the entry itself.
 * bf_copy_rte_permissions(rte, from, to) makes the copy rte of an entry of
 * the query from, entry 1 of the new query to, check the same permissions.
 */
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"

static inline void
bf_copy_rte_permissions(RangeTblEntry *rte, Query *from, Query *to)
{
	if (rte->perminfoindex == 0)
		return;
	to->rteperminfos = lappend(to->rteperminfos,
							   copyObject(getRTEPermissionInfo(from->rteperminfos, rte)));
	rte->perminfoindex = list_length(to->rteperminfos);
}
#else
#define bf_copy_rte_permissions(rte, from, to) ((void) 0)
#endif

/*
 * 16 added ExtendBufferedRel(), which extends a relation and returns the
 * new page locked; before, ReadBuffer(P_NEW) under the relation's extension
 * lock, then LockBuffer().  The bloomslice files that make pages test this.
 */
#if PG_VERSION_NUM >= 160000
#define BF_HAVE_EXTEND_BUFFERED_REL 1
#endif

/*
 * From 16 a RelOptInfo carries the user its scan checks permissions as
 * (userid); before, the range-table entry's checkAsUser did.
 */
#if PG_VERSION_NUM >= 160000
#define BF_HAVE_RELOPTINFO_USERID 1
#endif

/* 18 gave vacuum_delay_point() an is_analyze argument. */
#if PG_VERSION_NUM >= 180000
#define bf_vacuum_delay_point() vacuum_delay_point(false)
#else
#define bf_vacuum_delay_point() vacuum_delay_point()
#endif

#endif							/* BF_COMPAT_H */
