/*
 * bf_report.h
 *		The one way a refused value becomes an ERROR (bf_report.c).
 *
 * The core says what is wrong (src/core/bf_problem.h: the message, detail,
 * hint and class); this reporter chooses the SQLSTATE by the class, so
 * every type's errors read alike.
 */
#ifndef BF_REPORT_H
#define BF_REPORT_H

#include "bloomfilter.h"

#include "core/bf_problem.h"

/*
 * Raises p as an ERROR.  sqlstate is the code of the way the bytes came in
 * (text input, binary input or a cast, an aggregate's serialized state),
 * which INVALID and NEWER_FORMAT problems report; DAMAGED ones are data
 * corruption wherever they are found.
 */
pg_noreturn extern void bloom_report_problem(const bf_problem *p, int sqlstate);

pg_noreturn extern void bloom_report_stored_version(const char *typname,
												   unsigned version,
												   int lo, int hi);

/*
 * Checks the format version of a stored value (a table's, an index's, a
 * TOASTed one) before it is read.  Stored bytes were validated by the build
 * that wrote them, so another version is a newer build's (after a library
 * downgrade): refused, never read by this build's rules (FORMAT.md,
 * "Compatibility").  A buffer too short for the field is left to the
 * caller's length check.  This build reads versions lo to hi of the type
 * (a bloomfilter of layout parquet or spark is version 2).
 */
static inline void
bloom_check_stored_version(const char *typname, const uint8 *buf, size_t len,
						   int lo, int hi)
{
	unsigned	v;

	if (!bf_format_version(buf, len, &v))
		return;
	if (likely(v >= (unsigned) lo && v <= (unsigned) hi))
		return;
	bloom_report_stored_version(typname, v, lo, hi);
}

#endif							/* BF_REPORT_H */
