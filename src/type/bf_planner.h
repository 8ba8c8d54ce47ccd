/*
 * type/bf_planner.h
 *		The type's estimates (type/bf_planner.c), for the planner's entry
 *		points in index/bf_index_planner.c.
 */
#ifndef BF_PLANNER_H
#define BF_PLANNER_H

#include "bloomfilter.h"

#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"

/*
 * The estimate when the filter is not known at planning time (a subquery,
 * a column, a generic plan's parameter).  A probe passes at least the
 * filters' false-positive rate, 1% by default; more cannot be said.
 */
#define BLOOM_DEFAULT_SEL 0.01

/* Which function a support request is about, and where its filter is. */
typedef enum BloomFuncKind
{
	BFK_OTHER,
	BFK_PROBE,					/* key in filter */
	BFK_SUPERSET				/* filter superset of filter */
} BloomFuncKind;

extern BloomFuncKind bloom_classify_call(Oid funcid, int *filterarg);

/*
 * Selectivity of "key is in filter", both expressions as the clause has
 * them; bftype is the bloomfilter type beside the estimator.
 */
extern Selectivity bloom_probe_selectivity(PlannerInfo *root, Node *filter_expr,
										   Node *key_expr, int varRelid, Oid bftype);

/* Selectivity of `f @>> q`. */
extern Selectivity bloom_superset_selectivity(PlannerInfo *root, Node *qexpr);

/*
 * The table of this query level whose column node is (through any
 * relabelling), with the column in *var; NULL when node is no such column.
 */
extern RelOptInfo *bloom_column_table(PlannerInfo *root, Node *node, Var **var);

/* bloomfilter_support's answers to SupportRequestSelectivity and -Cost. */
extern Node *bloom_support_selectivity(SupportRequestSelectivity *req, Oid fn_oid);
extern Node *bloom_support_cost(SupportRequestCost *req);

#endif							/* BF_PLANNER_H */
