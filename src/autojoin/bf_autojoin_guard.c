/*
 * autojoin/bf_autojoin_guard.c
 *		Automatic Bloom-joins: whether a remote-size lookup may use a
 *		postgres_fdw connection now, or would share it with a query of this
 *		backend that has a request in flight on it.
 *
 * autojoin/bf_autojoin_size.c asks before each lookup; autojoin/bf_autojoin_hook.c installs the
 * executor and transaction hooks at load.  Nothing here calls back into
 * either.
 *
 * Since issue #27 the lookup uses a connection of its own
 * (autojoin/bf_autojoin_remote.c), never postgres_fdw's, so what follows no longer
 * protects a connection: the rule is kept as caution (and TAP 012 tests it).
 */
#include "bloomfilter.h"

#include "autojoin/bf_autojoin.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"

/*
 * ---- when a connection may be used ----
 *
 * Planning can happen while a query of this backend is executing: a
 * function called by a query plans its own queries, and a cursor's query
 * stays started between FETCHes.  If such a query scans postgres_fdw tables
 * asynchronously (an Append over async_capable servers), a request of it can
 * be in flight on the very connection the lookup would use.  postgres_fdw's
 * GetConnection() then completes that request first, from inside our
 * planning and subtransaction: it fetches the outer query's rows and wakes
 * its Append, and an error or cancel of that fetch would land in the
 * lookup's error handling instead of the outer query.  So no lookup while
 * any query of this backend that has asynchronous foreign scans is started
 * and not ended (the size is still taken from the cache): counted by
 * ExecutorStart/ExecutorEnd, and forgotten when the subtransaction a query
 * started in is rolled back or the transaction ends (a query that fails
 * never reaches ExecutorEnd).  A query that runs its foreign scans synchronously
 * leaves every connection idle between its calls into postgres_fdw, and a
 * lookup nested in it is one more query on an idle connection, in its own
 * savepoint, as a second scan of the same server would be.
 */
static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorEnd_hook_type prev_executor_end = NULL;

/*
 * The started queries with asynchronous foreign scans, with the
 * subtransaction each started in: a query that fails never reaches
 * ExecutorEnd, and when its subtransaction is rolled back (a plpgsql
 * EXCEPTION block) it runs no more.
 */
typedef struct AsyncQuery
{
	QueryDesc  *query;
	SubTransactionId subid;
} AsyncQuery;

#define MAX_ASYNC_QUERIES	64
static AsyncQuery async_queries[MAX_ASYNC_QUERIES];
static int	async_queries_running = 0;
/* more nested than the array holds: counted, not tracked, until the xact ends */
static int	async_queries_untracked = 0;

static bool
has_async_walker(PlanState *ps, void *context)
{
	if (ps == NULL)
		return false;
	if (ps->plan->async_capable)
		return true;
	return planstate_tree_walker(ps, has_async_walker, context);
}

static bool
has_async_scans(QueryDesc *queryDesc)
{
	return queryDesc->planstate != NULL &&
		has_async_walker(queryDesc->planstate, NULL);
}

static void
track_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	if (has_async_scans(queryDesc))
	{
		if (async_queries_running < MAX_ASYNC_QUERIES)
		{
			async_queries[async_queries_running].query = queryDesc;
			async_queries[async_queries_running].subid = GetCurrentSubTransactionId();
			async_queries_running++;
		}
		else
			async_queries_untracked++;
	}
}

static void
track_executor_end(QueryDesc *queryDesc)
{
	int			i;

	for (i = async_queries_running - 1; i >= 0; i--)
	{
		if (async_queries[i].query == queryDesc)
		{
			memmove(&async_queries[i], &async_queries[i + 1],
					(async_queries_running - i - 1) * sizeof(AsyncQuery));
			async_queries_running--;
			break;
		}
	}
	if (prev_executor_end)
		prev_executor_end(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
}

/* No query of this backend runs once its transaction has ended. */
static void
track_xact_end(XactEvent event, void *arg pg_attribute_unused())
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT)
	{
		async_queries_running = 0;
		async_queries_untracked = 0;
	}
}

/*
 * A subtransaction rolled back: its queries run no more.  One committed:
 * its queries (a cursor's) now belong to its parent.
 */
static void
track_subxact_end(SubXactEvent event, SubTransactionId mySubid,
				  SubTransactionId parentSubid, void *arg pg_attribute_unused())
{
	int			i,
				kept = 0;

	if (event != SUBXACT_EVENT_ABORT_SUB && event != SUBXACT_EVENT_COMMIT_SUB)
		return;
	for (i = 0; i < async_queries_running; i++)
	{
		if (async_queries[i].subid == mySubid)
		{
			if (event == SUBXACT_EVENT_ABORT_SUB)
				continue;
			async_queries[i].subid = parentSubid;
		}
		async_queries[kept++] = async_queries[i];
	}
	async_queries_running = kept;
}

void
bloom_autojoin_guard_install(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = track_executor_start;
	prev_executor_end = ExecutorEnd_hook;
	ExecutorEnd_hook = track_executor_end;
	RegisterXactCallback(track_xact_end, NULL);
	RegisterSubXactCallback(track_subxact_end, NULL);
}

/* Is a query with asynchronous foreign scans started and not ended? */
bool
bloom_autojoin_async_running(void)
{
	return async_queries_running > 0 || async_queries_untracked > 0;
}
