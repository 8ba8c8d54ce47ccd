/*
 * type/bf_type_report.h
 *		The one way a refused value becomes an ERROR (type/bf_type_report.c).
 *
 * The core says what is wrong (src/core/bf_problem.h: the message, detail,
 * hint and class); this reporter chooses the SQLSTATE by the class, so
 * every type's errors read alike.
 */
#ifndef BF_TYPE_REPORT_H
#define BF_TYPE_REPORT_H

#include "bloomfilter.h"

#include "core/bf_problem.h"

/*
 * Raises p as an ERROR.  sqlstate is the code of the way the bytes came in
 * (text input, binary input or a cast, an aggregate's serialized state),
 * which INVALID and NEWER_FORMAT problems report; DAMAGED ones are data
 * corruption wherever they are found.
 */
pg_noreturn extern void bloom_report_problem(const bf_problem *p, int sqlstate);

#endif							/* BF_TYPE_REPORT_H */
