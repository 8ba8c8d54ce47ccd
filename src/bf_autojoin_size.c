/*
 * bf_autojoin_size.c
 *		Automatic Bloom-joins: the size of a foreign table that was never
 *		analyzed, asked of its remote server.
 *
 * postgres_fdw sizes a foreign table that was never analyzed (and whose
 * server does not set use_remote_estimate) as ten pages of rows, about a
 * thousand; autovacuum never analyzes foreign tables.  That is every new
 * user's state, and at that size no filter is ever worth sending.  Taking an
 * unknown size as large instead would send filters that cannot pay (a
 * thousand remote rows against a million local keys).  So the real size is
 * asked of the remote, once per foreign table and user per session, through
 * postgres_fdw's own connection (the one the scan will use, with its user
 * mapping, authentication and remote transaction):
 *
 *		SELECT relkind, reltuples, relpages, pages now FROM pg_class
 *		WHERE oid is the remote table or a leaf of its pg_partition_tree()
 *		(a partitioned table itself has no pages)
 *
 * and each leaf is sized as PostgreSQL's planner sizes a table: reltuples
 * scaled to the pages it has now, or, if it was never analyzed there
 * either, its pages now at the density of the foreign table's columns.  A
 * leaf that is no table (a view, another foreign table) makes the size
 * unknown.
 *
 * PostgreSQL 16 and later build modules with hidden symbols, and postgres_fdw
 * exports no connection function there.  Then the size is asked through the
 * FDW's public ANALYZE callback, which asks the remote's pg_relation_size()
 * over the connection of the foreign table owner's user mapping (as ANALYZE
 * does) and samples nothing: the rows are those pages at the columns'
 * density.  It knows no reltuples, no leaves and no relkind, so a remote
 * partitioned table, view or foreign table (no pages of their own) is
 * "unknown" there.  The 15 path is kept where it works: it sizes as the
 * current user, counts a partitioned remote's leaves and uses the remote's
 * reltuples.
 *
 * Never an ERROR the plain query would not raise: the lookup runs in a
 * subtransaction, and any failure (no user mapping, no connection, a remote
 * older than PostgreSQL 12, a missing table) is remembered as "unknown" with
 * its reason, said at DEBUG1, and the foreign table keeps postgres_fdw's own
 * estimate (so no filter).
 *
 * Never a hang the plain query would not have: a plain EXPLAIN does not
 * contact the remote, so the lookup is bounded (see "the bound" below), and
 * it is not made at all while a running query of this backend may have a
 * request in flight on a connection ("when a connection may be used").
 *
 * The cache.  An answer is kept BLOOM_REMOTE_SIZE_TTL seconds (a failure
 * BLOOM_REMOTE_SIZE_FAILURE_TTL; a timeout or cancel not at all), and
 * dropped when the foreign table's definition changes (a relcache
 * invalidation: ALTER FOREIGN TABLE, its options, ANALYZE) or any
 * server or user mapping does (their options say which remote is asked, and
 * as whom).  A table that grows tenfold on the remote is seen at the next
 * lookup.
 */
#include "bf_join_pushdown.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/plancat.h"
#include "storage/bufpage.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"

/*
 * How long an answer is kept, in seconds; a failure (no connection, no user
 * mapping, no such remote table) for less, as it is often soon mended.  A
 * lookup that ran out of its bound or was cancelled is not kept at all: the
 * next statement asks again.
 */
#define BLOOM_REMOTE_SIZE_TTL	600
#define BLOOM_REMOTE_SIZE_FAILURE_TTL	30

typedef struct RemoteSizeKey
{
	Oid			relid;
	Oid			userid;
} RemoteSizeKey;

typedef struct RemoteSizeEntry
{
	RemoteSizeKey key;
	bool		known;
	double		tuples;
	double		pages;
	TimestampTz asked;
	char		why[128];		/* if not known */
} RemoteSizeEntry;

static HTAB *size_cache = NULL;

/*
 * postgres_fdw's connection functions, found in its library (14 to 18 have
 * these signatures; PgFdwConnState is opaque here).  PostgreSQL 16 and later
 * build modules with -fvisibility=hidden, and postgres_fdw exports only its
 * SQL-callable functions there: then ask_fdw_analyze() asks instead.
 */
typedef void *(*GetConnection_fn) (UserMapping *user, bool will_prep_stmt,
								   void **state);
typedef void (*ReleaseConnection_fn) (void *conn);
typedef PGresult *(*pgfdw_exec_query_fn) (void *conn, const char *query,
										  void *state);

static GetConnection_fn fdw_get_connection = NULL;
static ReleaseConnection_fn fdw_release_connection = NULL;
static pgfdw_exec_query_fn fdw_exec_query = NULL;

/* A foreign table's definition changed (or an ANALYZE): forget its size. */
static void
size_cache_inval(Datum arg pg_attribute_unused(), Oid relid)
{
	HASH_SEQ_STATUS seq;
	RemoteSizeEntry *e;

	if (size_cache == NULL)
		return;
	hash_seq_init(&seq, size_cache);
	while ((e = (RemoteSizeEntry *) hash_seq_search(&seq)) != NULL)
	{
		if (!OidIsValid(relid) || e->key.relid == relid)
			(void) hash_search(size_cache, &e->key, HASH_REMOVE, NULL);
	}
}

/*
 * A server or user mapping changed (ALTER SERVER ... OPTIONS (SET host, port,
 * dbname), a user mapping created, altered or dropped): what a foreign table
 * names, or whether it can be asked at all, may have changed for any table
 * of any server.  Such changes are rare: forget every size.
 */
static void
size_cache_inval_syscache(Datum arg pg_attribute_unused(),
						  int cacheid pg_attribute_unused(),
						  uint32 hashvalue pg_attribute_unused())
{
	size_cache_inval((Datum) 0, InvalidOid);
}

static void
size_cache_init(void)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(RemoteSizeKey);
	ctl.entrysize = sizeof(RemoteSizeEntry);
	ctl.hcxt = TopMemoryContext;
	size_cache = hash_create("bloomfilter remote sizes", 64, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(size_cache_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNSERVEROID, size_cache_inval_syscache,
								  (Datum) 0);
	CacheRegisterSyscacheCallback(USERMAPPINGOID, size_cache_inval_syscache,
								  (Datum) 0);
}

/*
 * ---- the bound ----
 *
 * A remote that accepts the connection but does not answer (its backend
 * waits for a lock that pg_relation_size() needs) must not hold up a plan
 * that would not have contacted it at all.  The lookups of one statement get
 * BLOOM_REMOTE_SIZE_TIMEOUT_MS together, and less if the statement's own
 * statement_timeout (or transaction_timeout) would come first (half of what
 * is left: the plain query would not have timed out).  When the bound
 * passes, a timer cancels the size query's wait as a query cancel would; the
 * cancel is caught with the lookup's other errors, the subtransaction is
 * rolled back, and postgres_fdw then cancels the remote query and rolls back
 * its remote savepoint, so the remote transaction and the connection stay
 * usable.  (postgres_fdw gives that cleanup up to 30 seconds of its own when
 * the remote does not answer the cancel either, and then drops the
 * connection at the end of the transaction.)  The timer runs only around the
 * size query, never around GetConnection(): a cancel inside postgres_fdw's
 * START TRANSACTION or SAVEPOINT leaves the connection unusable for the
 * transaction.  PostgreSQL 15's connection attempt, which no cancel
 * interrupts, is bounded by a connect_timeout instead.  (16 and later ask
 * through the ANALYZE callback, which opens the connection itself: there the
 * timer covers the whole call.)  After a lookup ran out of the bound, the
 * statement asks no more, and the timeout is not remembered.  A user's
 * cancel, or a statement_timeout that fired, during the lookup is passed on.
 */
#define BLOOM_REMOTE_SIZE_TIMEOUT_MS	5000

static TimeoutId lookup_timeout_id = MAX_TIMEOUTS;
static volatile sig_atomic_t lookup_running = false;
static volatile sig_atomic_t lookup_timed_out = false;

/*
 * One bound per statement, not per lookup: a plain EXPLAIN over many
 * never-analyzed partitions of a blocked remote waits at most one bound, and
 * once a lookup of the statement has run out of it, the statement asks no
 * more.  Keyed on the statement's start (GetCurrentStatementStartTimestamp).
 */
static TimestampTz bound_statement = 0;
static TimestampTz bound_deadline = 0;
static bool bound_ran_out = false;

static void
lookup_timeout_handler(void)
{
	/*
	 * Claim the cancel only if none is pending yet: a user's cancel or the
	 * statement_timeout already asked for it, and it is theirs.
	 */
	if (lookup_running && !QueryCancelPending)
	{
		lookup_timed_out = true;
		QueryCancelPending = true;
		InterruptPending = true;
	}
	SetLatch(MyLatch);
}

/*
 * Milliseconds left before the timeout id fires, halved (the plain query
 * would not have timed out), or -1 if it is not armed.
 */
static double
half_left_ms(TimeoutId id, TimestampTz now)
{
	long		secs;
	int			usecs;
	TimestampTz fin;

	if (!get_timeout_active(id))
		return -1;
	fin = get_timeout_finish_time(id);
	if (fin <= now)
		return 0;
	TimestampDifference(now, fin, &secs, &usecs);
	return (secs * 1000.0 + usecs / 1000.0) / 2.0;
}

/*
 * Milliseconds the lookup may still take, or 0 if it should not start: the
 * statement's bound is spent, or its statement_timeout (or, on 17 and later,
 * transaction_timeout) is too near.  (Not inlined: its locals would sit in
 * bloom_remote_size()'s frame across PG_TRY's setjmp.)
 */
static pg_noinline int
lookup_bound_ms(void)
{
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz stmt = GetCurrentStatementStartTimestamp();
	double		bound;
	double		left;

	if (stmt != bound_statement)
	{
		bound_statement = stmt;
		bound_deadline = TimestampTzPlusMilliseconds(now, BLOOM_REMOTE_SIZE_TIMEOUT_MS);
		bound_ran_out = false;
	}
	if (bound_deadline <= now)
		return 0;
	bound = (bound_deadline - now) / 1000.0;
	left = half_left_ms(STATEMENT_TIMEOUT, now);
	if (left >= 0)
		bound = Min(bound, left);
#ifdef BF_HAVE_TRANSACTION_TIMEOUT
	left = half_left_ms(TRANSACTION_TIMEOUT, now);
	if (left >= 0)
		bound = Min(bound, left);
#endif
	if (bound < 10)
		return 0;
	return (int) bound;
}

/* The value of option name in a foreign object's options, or dflt. */
static char *
fdw_option(List *options, const char *name, char *dflt)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return dflt;
}

/* Rows per page of the foreign table's columns, as the planner would guess. */
static double
rows_per_page(Oid relid)
{
	int32		width = get_relation_data_width(relid, NULL);
	double		tuple_bytes = MAXALIGN(SizeofHeapTupleHeader) + MAXALIGN(width) +
		sizeof(ItemIdData);

	return Max(1.0, floor((BLCKSZ - SizeOfPageHeaderData) / tuple_bytes));
}

/*
 * Ask the FDW through its public ANALYZE callback (PostgreSQL 16 and later,
 * whose postgres_fdw hides its connection functions).  postgres_fdw answers
 * with the remote's pg_relation_size in pages, over the connection of the
 * foreign table owner's user mapping (as ANALYZE would); the rows are those
 * pages at the density of the declared columns.  A remote partitioned table
 * or view has no pages of its own: its size stays unknown.  Runs inside the
 * caller's subtransaction: may raise anything.
 */
static bool
ask_fdw_analyze(Oid ftrelid, double density, double *tuples, double *pages,
				char *why, size_t whylen)
{
	Relation	rel = table_open(ftrelid, AccessShareLock);
	FdwRoutine *routine = GetFdwRoutineForRelation(rel, false);
	AcquireSampleRowsFunc func = NULL;
	BlockNumber totalpages = 0;
	bool		ok;

	*tuples = 0;
	*pages = 0;
	if (routine->AnalyzeForeignTable == NULL)
	{
		snprintf(why, whylen, "its foreign-data wrapper cannot be asked its size");
		ok = false;
	}
	else if (!routine->AnalyzeForeignTable(rel, &func, &totalpages))
	{
		snprintf(why, whylen, "its foreign-data wrapper does not know its size");
		ok = false;
	}
	else if (totalpages == 0)
	{
		snprintf(why, whylen, "the remote table has no pages of its own (empty, partitioned or a view)");
		ok = false;
	}
	else
	{
		*pages = totalpages;
		*tuples = totalpages * density;
		ok = true;
	}
	table_close(rel, AccessShareLock);
	return ok;
}

/*
 * Start the lookup's timer: what is left of the statement's bound (the
 * connection may have taken some of it), at least 1 ms.
 */
static void
arm_bound(int bound)
{
	int			left = lookup_bound_ms();

	lookup_running = true;
	enable_timeout_after(lookup_timeout_id, Max(1, Min(bound, left)));
}

/*
 * The user mapping with a connect_timeout of the lookup's bound (in whole
 * seconds, at least 2, as libpq takes it) unless the server or the mapping
 * sets one: PostgreSQL 15's postgres_fdw connects with PQconnectdbParams(),
 * which no cancel interrupts, and passes any libpq option through.  (The
 * connection is then kept for the session's scans with that option: it only
 * bounds connecting.)
 */
static UserMapping *
with_connect_timeout(UserMapping *um, Oid serverid, int bound)
{
	ForeignServer *server = GetForeignServer(serverid);
	UserMapping *copy;

	if (fdw_option(server->options, "connect_timeout", NULL) != NULL ||
		fdw_option(um->options, "connect_timeout", NULL) != NULL)
		return um;
	copy = (UserMapping *) palloc(sizeof(UserMapping));
	*copy = *um;
	copy->options = lappend(list_copy(um->options),
							makeDefElem("connect_timeout",
										(Node *) makeString(psprintf("%d", Max(2, (bound + 999) / 1000))),
										-1));
	return copy;
}

/*
 * Ask the remote.  Runs inside the caller's subtransaction: may raise
 * anything; returns false with *why for an answer that gives no size.
 */
static bool
ask_remote(Oid ftrelid, Oid userid, Oid serverid, int bound, double *tuples,
		   double *pages, char *why, size_t whylen)
{
	ForeignTable *ft = GetForeignTable(ftrelid);
	UserMapping *um = with_connect_timeout(GetUserMapping(userid, serverid),
										   serverid, bound);
	char	   *nspname = fdw_option(ft->options, "schema_name",
									   get_namespace_name(get_rel_namespace(ftrelid)));
	char	   *relname = fdw_option(ft->options, "table_name", get_rel_name(ftrelid));
	char	   *qualified = quote_qualified_identifier(nspname, relname);
	StringInfoData sql;
	void	   *conn;
	void	   *state = NULL;
	PGresult   *res;
	bool		ok = true;
	double		density = rows_per_page(ftrelid);
	int			i;

	if (fdw_get_connection == NULL || fdw_release_connection == NULL ||
		fdw_exec_query == NULL)
	{
		/*
		 * PostgreSQL 16 and later build modules with hidden symbols: only
		 * their SQL-callable functions are exported, and these are not.
		 * Looked up again at each (cached, so rare) question: cheap.
		 */
		fdw_get_connection = (GetConnection_fn)
			load_external_function("$libdir/postgres_fdw", "GetConnection", false, NULL);
		fdw_release_connection = (ReleaseConnection_fn)
			load_external_function("$libdir/postgres_fdw", "ReleaseConnection", false, NULL);
		fdw_exec_query = (pgfdw_exec_query_fn)
			load_external_function("$libdir/postgres_fdw", "pgfdw_exec_query", false, NULL);
		if (fdw_get_connection == NULL || fdw_release_connection == NULL ||
			fdw_exec_query == NULL)
		{
			fdw_get_connection = NULL;
			arm_bound(bound);
			return ask_fdw_analyze(ftrelid, density, tuples, pages, why, whylen);
		}
	}

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT c.relkind, c.reltuples, c.relpages, "
					 "pg_catalog.pg_relation_size(c.oid) / pg_catalog.current_setting('block_size')::pg_catalog.int8 "
					 "FROM pg_catalog.pg_class c WHERE c.relkind <> 'p' AND c.oid IN "
					 "(SELECT %s::pg_catalog.regclass UNION ALL "
					 "SELECT relid FROM pg_catalog.pg_partition_tree(%s) WHERE isleaf)",
					 quote_literal_cstr(qualified), quote_literal_cstr(qualified));

	/*
	 * Not under the timer: a cancel inside postgres_fdw's own START
	 * TRANSACTION or SAVEPOINT (begin_remote_xact) would leave the
	 * connection unusable for the rest of the transaction ("cannot be used
	 * due to abort cleanup failure"), an ERROR the plain query would not
	 * have.  The connection attempt is bounded by connect_timeout instead.
	 */
	conn = fdw_get_connection(um, false, &state);
	arm_bound(bound);
	res = fdw_exec_query(conn, sql.data, state);
	*tuples = 0;
	*pages = 0;
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		/*
		 * The remote transaction is now in error: only rolling back the
		 * subtransaction (postgres_fdw then rolls back its remote savepoint)
		 * makes the connection usable again.
		 */
		char	   *msg = pstrdup(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) ?
								  PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : "no message");

		PQclear(res);
		fdw_release_connection(conn);
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("the remote did not answer: %s", msg)));
	}
	if (PQntuples(res) == 0 || PQnfields(res) != 4)
	{
		snprintf(why, whylen, "the remote %s has no table", qualified);
		ok = false;
	}
	for (i = 0; ok && i < PQntuples(res); i++)
	{
		char		kind = PQgetvalue(res, i, 0)[0];
		double		reltuples = strtod(PQgetvalue(res, i, 1), NULL);
		double		relpages = strtod(PQgetvalue(res, i, 2), NULL);
		double		curpages = strtod(PQgetvalue(res, i, 3), NULL);

		if (kind != 'r' && kind != 'm')
		{
			snprintf(why, whylen, "the remote %s is not a table (relkind %c)",
					 qualified, kind);
			ok = false;
			break;
		}
		/* as the planner sizes a table (estimate_rel_size) */
		if (reltuples >= 0 && relpages > 0)
			*tuples += reltuples / relpages * curpages;
		else if (reltuples >= 0 && curpages == 0)
			*tuples += reltuples;
		else
			*tuples += curpages * density;	/* never analyzed there either */
		*pages += curpages;
	}
	PQclear(res);
	fdw_release_connection(conn);
	return ok;
}

/* Remember an answer (or a failure). */
static RemoteSizeEntry *
size_cache_store(const RemoteSizeKey *key, bool known, double tuples,
				 double pages, TimestampTz asked, const char *why)
{
	RemoteSizeEntry *e;

	e = (RemoteSizeEntry *) hash_search(size_cache, key, HASH_ENTER, NULL);
	e->known = known;
	e->tuples = tuples;
	e->pages = pages;
	e->asked = asked;
	strlcpy(e->why, why, sizeof(e->why));
	return e;
}

bool
bloom_remote_size(Oid ftrelid, Oid userid, Oid serverid, double *tuples,
				  double *pages, const char **why)
{
	static char uncached_why[160];
	RemoteSizeKey key;
	RemoteSizeEntry *e;
	bool		found;
	TimestampTz now = GetCurrentTimestamp();
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		known = false;
	bool		keep = true;
	double		t = 0,
				p = 0;
	char		reason[128];
	ErrorData  *passed_on = NULL;
	int			bound;
	bool		stmt_timeout_armed;

	if (size_cache == NULL)
		size_cache_init();
	memset(&key, 0, sizeof(key));
	key.relid = ftrelid;
	key.userid = userid;
	e = (RemoteSizeEntry *) hash_search(size_cache, &key, HASH_FIND, &found);
	if (found &&
		!TimestampDifferenceExceeds(e->asked, now,
									(e->known ? BLOOM_REMOTE_SIZE_TTL :
									 BLOOM_REMOTE_SIZE_FAILURE_TTL) * 1000))
	{
		*tuples = e->tuples;
		*pages = e->pages;
		*why = e->why;
		return e->known;
	}

	/*
	 * Not asked now, and not remembered (the next plan may ask): in a
	 * parallel worker (no subtransaction, no remote connection), while a
	 * query with asynchronous foreign scans runs (see above), after a lookup
	 * of this statement ran out of the bound, or with the statement's bound
	 * spent or its timeout too near.
	 */
	*tuples = 0;
	*pages = 0;
	if (IsInParallelMode())
	{
		*why = "not asked in parallel mode";
		return false;
	}
	if (bloom_autojoin_async_running())
	{
		*why = "not asked while a query of this session with asynchronous foreign scans is running: a request of it may be in flight on the connection";
		return false;
	}
	bound = lookup_bound_ms();
	if (bound_ran_out)
	{
		*why = "not asked: a remote-size lookup of this statement already ran out of the statement's bound";
		return false;
	}
	if (bound == 0)
	{
		*why = "not asked: the statement's bound for remote-size lookups is spent, or its statement_timeout is too near";
		return false;
	}
	if (lookup_timeout_id == MAX_TIMEOUTS)
		lookup_timeout_id = RegisterTimeout(USER_TIMEOUT, lookup_timeout_handler);
	stmt_timeout_armed = get_timeout_active(STATEMENT_TIMEOUT);

	reason[0] = '\0';

	/* a failure must cost the query nothing: a subtransaction */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	lookup_timed_out = false;
	PG_TRY();
	{
		known = ask_remote(ftrelid, userid, serverid, bound, &t, &p,
						   reason, sizeof(reason));
		lookup_running = false;
		disable_timeout(lookup_timeout_id, false);
		if (lookup_timed_out)
		{
			/*
			 * The timer fired after the answer came and before it was
			 * disabled: its cancel is ours, and nothing is left to cancel.
			 */
			QueryCancelPending = false;
			lookup_timed_out = false;
		}
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		bool		ours = lookup_timed_out;
		bool		cancel;

		lookup_running = false;
		disable_timeout(lookup_timeout_id, false);
		lookup_timed_out = false;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;

		/*
		 * A cancel taken here (ProcessInterrupts).  (A remote query cancelled
		 * on the remote comes back through postgres_fdw with the same
		 * SQLSTATE: that one is only a failed lookup.)
		 */
		cancel = edata->sqlerrcode == ERRCODE_QUERY_CANCELED &&
			edata->funcname != NULL &&
			strcmp(edata->funcname, "ProcessInterrupts") == 0;

		/*
		 * The statement_timeout fired while the lookup ran (it was armed and
		 * no longer is): the plain query would have timed out too, pass it on
		 * even if our timer fired as well.
		 */
		if (stmt_timeout_armed && !get_timeout_active(STATEMENT_TIMEOUT))
			ours = false;
		if (ours)
		{
			QueryCancelPending = false; /* ours, if not taken yet */
			bound_ran_out = true;
			keep = false;
			snprintf(reason, sizeof(reason),
					 "the remote did not answer within %d ms (the lookup's bound)",
					 bound);
		}
		else if (cancel)
			passed_on = edata;	/* the user's cancel or statement_timeout */
		else
			snprintf(reason, sizeof(reason), "asking the remote failed: %s",
					 edata->message);
		if (passed_on == NULL)
			FreeErrorData(edata);
		known = false;
	}
	PG_END_TRY();

	if (passed_on != NULL)
		ReThrowError(passed_on);

	if (!keep)
	{
		/* not remembered: the next statement asks again */
		strlcpy(uncached_why, reason, sizeof(uncached_why));
		*why = uncached_why;
		return false;
	}

	/* the subtransaction's invalidations may have reset the cache */
	e = size_cache_store(&key, known, t, p, now, reason);
	*tuples = e->tuples;
	*pages = e->pages;
	*why = e->why;
	return e->known;
}
