/*
 * type/bf_type_edges.h
 *		What the value types say at their edges (type/bf_type_edges.c): a NULL operand
 *		of a union, a filter pushed past its capacity, a bloomwindow key
 *		stamped ahead of the present.
 */
#ifndef BF_TYPE_EDGES_H
#define BF_TYPE_EDGES_H

#include "bloomfilter.h"

#include "core/bf_counting.h"
#include "core/bf_window.h"
#include "utils/timestamp.h"

/*
 * The first lines of a union's function (not STRICT): a NULL operand is the
 * empty set, as array_cat treats NULL, so f | NULL and NULL | f are f and
 * an empty batch (an aggregate over no rows is NULL) never wipes a stored
 * filter; NULL | NULL is NULL.  The other operand is returned as it came.
 */
#define BLOOM_UNION_NULL_OPERANDS(fcinfo) \
	do { \
		if (PG_ARGISNULL(0)) \
		{ \
			if (PG_ARGISNULL(1)) \
				PG_RETURN_NULL(); \
			PG_RETURN_DATUM(PG_GETARG_DATUM(1)); \
		} \
		if (PG_ARGISNULL(1)) \
			PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
	} while (0)

/*
 * Past capacity: more than three quarters of a filter's bits set (of a
 * counting filter's counters above zero), which a filter reaches at about
 * twice the keys it was sized for.  A key sets at most k bits, so fewer
 * than 3m / 4k adds cannot get there: this test, on the header alone, is
 * all an add pays for a filter within its capacity.  Past it, a sample of
 * the bits, then (near three quarters) a count of them all (type/bf_type_edges.c).  (A counting filter's
 * items are adds less removes; only removing keys that were never added
 * can leave more counters above zero than k × items.)
 */
static inline bool
bloom_may_be_overfull(uint64 nbits, int hashes, uint64 added)
{
	return (double) added * hashes * 4.0 > (double) nbits * 3.0;
}

/* Counts the bits of v and warns (once per statement) if past capacity. */
extern void bloom_warn_overfull(const bf_view *v);
extern void cbloom_warn_overfull(const bfc_view *v);

/* Each of the window's buckets that may be past capacity, counted and warned. */
extern void bloom_window_warn_overfull(const bfw_view *w);
/* Only the bucket b (just added to). */
extern void bloom_window_warn_overfull_bucket(const bfw_view *w, int64 b);

/*
 * The bucket a key stamped at t (bucket b) goes to, given the window's
 * newest bucket: b, unless b is ahead of the bucket of the present (the
 * server's clock) and newer than newest, where it would push out buckets
 * that are live now; such a key goes to the newer of newest and the
 * present's bucket instead, with a WARNING (once per statement) when t is
 * more than a minute (or a bucket, if shorter) ahead of the clock.
 */
extern int64 bloom_window_bucket_for_add(const bfw_view *w, int64 b,
										 int64 newest, TimestampTz t);

#endif							/* BF_TYPE_EDGES_H */
