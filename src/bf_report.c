/*
 * bf_report.c
 *		Turns a problem the core found in a value's bytes into an ERROR.
 *
 * The four value types (bloomfilter, countingbloom, bloomwindow,
 * scalablebloom) validate in the core and report here, so their messages
 * cannot drift apart: the words are the core's (src/core/bf_problem.c),
 * the SQLSTATE is chosen here from the problem's class.
 */
#include "bf_report.h"

/*
 * The SQLSTATE of a problem.  A value from a newer build is input this
 * build cannot read, as any other invalid input: it keeps the code of the
 * way it came in (the hint says what to do), so that callers which trap
 * invalid input see one code.
 */
static int
problem_errcode(const bf_problem *p, int sqlstate)
{
	switch (p->cls)
	{
		case BF_PROBLEM_DAMAGED:
			return ERRCODE_DATA_CORRUPTED;
		case BF_PROBLEM_INVALID:
		case BF_PROBLEM_NEWER_FORMAT:
			return sqlstate;
		case BF_PROBLEM_NONE:
			break;
	}
	elog(ERROR, "no problem to report");
	pg_unreachable();
}

void
bloom_report_problem(const bf_problem *p, int sqlstate)
{
	ereport(ERROR,
			(errcode(problem_errcode(p, sqlstate)),
			 errmsg("%s", p->what),
			 p->detail[0] ? errdetail("%s", p->detail) : 0,
			 p->hint[0] ? errhint("%s", p->hint) : 0));
	pg_unreachable();
}

/*
 * A stored value of a format version this build does not read
 * (bloom_check_stored_version): not damage, a newer build's bytes.
 */
void
bloom_report_stored_version(const char *typname, unsigned version, int lo, int hi)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("stored %s value has format version %u, which this build of bloomfilter does not read",
					typname, version),
			 lo == hi ? errdetail("This build reads format version %d.", lo) :
			 errdetail("This build reads format versions %d to %d.", lo, hi),
			 errhint("The value was written by a newer bloomfilter: install that version again, or rebuild the value with this one.")));
	pg_unreachable();
}
