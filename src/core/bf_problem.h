/*
 * bf_problem.h
 *		What is wrong with a value's bytes, in words: the error message, its
 *		detail and hint, and the class of the problem, for the four value
 *		formats (bloomfilter, countingbloom, bloomwindow, scalablebloom).
 *
 * Pure C, no PostgreSQL header (see bf_core.h).  The validators of each
 * format (bf_validate, bfc_validate, bfw_validate, bfs_validate) return a
 * status; the functions here run them and, when the bytes are refused, say
 * why in the words the user sees.  The glue turns a problem into an ERROR
 * in one place (src/bf_report.c), choosing the SQLSTATE by the class, so
 * the four types cannot drift apart again.
 */
#ifndef BF_PROBLEM_H
#define BF_PROBLEM_H

#include "bf_core.h"

/*
 * The kind of problem, which decides the SQLSTATE (the core knows no
 * SQLSTATE; src/bf_report.c maps the classes).
 */
typedef enum bf_problem_class
{
	BF_PROBLEM_NONE = 0,		/* the bytes are valid */
	BF_PROBLEM_INVALID,			/* bytes from outside that are not a value of
								 * the type: the code of the way they came in */
	BF_PROBLEM_NEWER_FORMAT,	/* a format version above this build's: as
								 * INVALID, with the hint to upgrade */
	BF_PROBLEM_DAMAGED			/* a stored datum whose structure does not
								 * hold: data corrupted */
} bf_problem_class;

#define BF_PROBLEM_TEXT 320

/* One problem: a primary message, an optional detail and hint. */
typedef struct bf_problem
{
	bf_problem_class cls;
	char		what[BF_PROBLEM_TEXT];	/* the whole primary message */
	char		detail[BF_PROBLEM_TEXT];	/* a sentence, or "" */
	char		hint[BF_PROBLEM_TEXT];	/* a sentence, or "" */
} bf_problem;

/*
 * Each validates untrusted bytes of its format (reading nothing outside
 * [buf, buf + len)).  Returns true if they are valid (p->cls is then
 * BF_PROBLEM_NONE); otherwise fills p and returns false.
 */
extern bool bf_diagnose(const uint8_t *buf, size_t len, bf_problem *p);
extern bool bfc_diagnose(const uint8_t *buf, size_t len, bf_problem *p);
extern bool bfw_diagnose(const uint8_t *buf, size_t len, bf_problem *p);
extern bool bfs_diagnose(const uint8_t *buf, size_t len, bf_problem *p);

/*
 * A bloomfilter_aggstate value (bf_aggstate.h): its head, then its payload
 * as a whole, with the validator of the payload's own format (a filter
 * inside a bloom_agg state included).
 */
extern bool bfas_diagnose(const uint8_t *buf, size_t len, bf_problem *p);

/*
 * A stored datum of type typname whose header does not match its len
 * bytes (class BF_PROBLEM_DAMAGED).
 */
extern void bf_problem_damaged(bf_problem *p, const char *typname, size_t len);

#endif							/* BF_PROBLEM_H */
