/*
 * autojoin/bf_autojoin_size.c
 *		Automatic Bloom-joins: what the remote of a foreign table is (its
 *		size, whether bloomfilter is installed there and in which schema, its
 *		columns' types), asked once per table and user and remembered.
 *
 * postgres_fdw sizes a foreign table that was never analyzed (and whose
 * server does not set use_remote_estimate) as ten pages of rows, about a
 * thousand; autovacuum never analyzes foreign tables.  That is every new
 * user's state, and at that size no filter is ever worth sending.  Taking an
 * unknown size as large instead would send filters that cannot pay (a
 * thousand remote rows against a million local keys).  So the real size is
 * asked of the remote, once per foreign table and user per session:
 *
 *		SELECT relkind, reltuples, relpages, pages now FROM pg_class
 *		WHERE oid is the remote table or a leaf of its pg_partition_tree()
 *		(a partitioned table itself has no pages)
 *
 * and each leaf is sized as PostgreSQL's planner sizes a table: reltuples
 * scaled to the pages it has now, or, if it was never analyzed there
 * either, its pages now at the density of the foreign table's columns.  A
 * leaf that is no table (a view, another foreign table) makes the size
 * unknown.  The same question tells whether the remote can run the probe at
 * all (bloomfilter installed, in the local schema's name; each column's
 * type): autojoin/bf_autojoin_plan.c asks it of every foreign table a filter would
 * go to, analyzed or not.
 *
 * The question goes over a connection of its own, never postgres_fdw's
 * (autojoin/bf_autojoin_remote.c says why: the scan's remote snapshot), made from the
 * same server and user mapping options, as the user the scan connects as.
 * The caller asks only for a user who may read the table
 * (autojoin/bf_autojoin_plan.c): nothing is asked, nor any connection made, on
 * behalf of one who will get "permission denied".
 *
 * Never an ERROR the plain query would not raise: the lookup runs in a
 * subtransaction, and any failure (no user mapping, no connection, a remote
 * older than PostgreSQL 12, a missing table) is remembered as "unknown" with
 * its reason, said at DEBUG1; the foreign table keeps postgres_fdw's own
 * estimate, and gets no filter.
 *
 * Never a hang the plain query would not have: a plain EXPLAIN does not
 * contact the remote, so the lookup is bounded (see "the bound" below).
 *
 * The cache.  An answer is kept BLOOM_REMOTE_SIZE_TTL seconds (a failure
 * BLOOM_REMOTE_SIZE_FAILURE_TTL; a timeout BLOOM_REMOTE_TIMEOUT_TTL, for the
 * table once connected, for the server if the connection never came; a
 * user's cancel not at all), and dropped when the foreign table's
 * definition changes (a relcache invalidation: ALTER FOREIGN TABLE, its
 * options, ANALYZE) or any server or user mapping does (their options say
 * which remote is asked, and as whom), and, for a remote shipped `x <@ f`
 * (bloomfilter 1.0 there), when a transaction fails.  Nothing remembered
 * can fail a query: a remote of 1.1 runs bloomfilter_join_probe(), which
 * lets rows of a changed column pass (autojoin/bf_autojoin_probe.c).  A table that grows tenfold on the remote is seen at the next
 * lookup; an extension installed there within BLOOM_REMOTE_SIZE_TTL.
 */
#include "autojoin/bf_autojoin.h"

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
#include "mb/pg_wchar.h"
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
 * mapping, no such remote table, an answer refused) for less, as it is often
 * soon mended.  A lookup that ran out of its bound is remembered for its
 * server and user, BLOOM_REMOTE_TIMEOUT_TTL: one slow remote must not cost
 * every statement the bound.  A lookup cancelled by the user is not kept.
 */
#define BLOOM_REMOTE_SIZE_TTL	600
#define BLOOM_REMOTE_SIZE_FAILURE_TTL	30
#define BLOOM_REMOTE_TIMEOUT_TTL	60

/* The room of a reason (said at DEBUG1). */
#define BLOOM_WHY_LEN	320

typedef struct RemoteSizeKey
{
	Oid			relid;
	Oid			userid;
} RemoteSizeKey;

typedef struct RemoteSizeEntry
{
	RemoteSizeKey key;
	bool		known;			/* the remote answered */
	bool		probed_with_op; /* a plan shipped it `x <@ f` */
	int			ttl;			/* seconds it is kept */
	RemoteFacts facts;			/* its answer (columns in TopMemoryContext) */
	TimestampTz asked;
	char		why[BLOOM_WHY_LEN];	/* if not known */
} RemoteSizeEntry;

static HTAB *size_cache = NULL;

static void size_cache_xact_abort(XactEvent event, void *arg);

/* A server that did not answer a user's lookup in time, and until when it is not asked. */
typedef struct SlowRemoteKey
{
	Oid			serverid;
	Oid			userid;
} SlowRemoteKey;

typedef struct SlowRemoteEntry
{
	SlowRemoteKey key;
	TimestampTz until;
	char		why[BLOOM_WHY_LEN];
} SlowRemoteEntry;

static HTAB *slow_remotes = NULL;

/*
 * Copy src into dst of dstlen bytes, cut at a whole character of the
 * database's encoding.
 */
static void
clip_copy(char *dst, const char *src, size_t dstlen)
{
	int			len = strlen(src);

	if ((size_t) len >= dstlen)
		len = pg_mbcliplen(src, len, (int) dstlen - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* "what (server name)", what cut so that the server's name always fits. */
static void
reason_of_server(char *dst, size_t dstlen, const char *what, const char *server)
{
	char		part[BLOOM_WHY_LEN];
	size_t		room = dstlen - Min(dstlen - 1, strlen(server) + 10);

	clip_copy(part, what, Min(room, sizeof(part)));
	snprintf(dst, dstlen, "%s (server %s)", part, server);
}

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
		{
			if (e->facts.columns != NULL)
				pfree(e->facts.columns);
			(void) hash_search(size_cache, &e->key, HASH_REMOVE, NULL);
		}
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
	HASH_SEQ_STATUS seq;
	SlowRemoteEntry *e;

	size_cache_inval((Datum) 0, InvalidOid);
	if (slow_remotes == NULL)
		return;
	hash_seq_init(&seq, slow_remotes);
	while ((e = (SlowRemoteEntry *) hash_seq_search(&seq)) != NULL)
		(void) hash_search(slow_remotes, &e->key, HASH_REMOVE, NULL);
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
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(SlowRemoteKey);
	ctl.entrysize = sizeof(SlowRemoteEntry);
	ctl.hcxt = TopMemoryContext;
	slow_remotes = hash_create("bloomfilter slow remotes", 16, &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(size_cache_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNSERVEROID, size_cache_inval_syscache,
								  (Datum) 0);
	CacheRegisterSyscacheCallback(USERMAPPINGOID, size_cache_inval_syscache,
								  (Datum) 0);
	RegisterXactCallback(size_cache_xact_abort, NULL);
}

/*
 * A transaction failed: the answers of remotes that a plan shipped `x <@ f`
 * (bloomfilter 1.0 there) are forgotten, and asked again at the next plan.
 * `x <@ f` raises an ERROR on a remote column changed since it was asked
 * (another key family, a nondeterministic collation); bloomfilter 1.1's
 * probe does not (autojoin/bf_autojoin_probe.c).  Whatever made the
 * transaction fail, asking again costs one lookup.
 */
static void
size_cache_xact_abort(XactEvent event, void *arg pg_attribute_unused())
{
	HASH_SEQ_STATUS seq;
	RemoteSizeEntry *e;

	if (event != XACT_EVENT_ABORT || size_cache == NULL)
		return;
	hash_seq_init(&seq, size_cache);
	while ((e = (RemoteSizeEntry *) hash_seq_search(&seq)) != NULL)
	{
		if (e->probed_with_op)
		{
			if (e->facts.columns != NULL)
				pfree(e->facts.columns);
			(void) hash_search(size_cache, &e->key, HASH_REMOVE, NULL);
		}
	}
}

/* A plan ships `x <@ f` to the remote of ftrelid, asked as userid. */
void
bloom_remote_facts_probed_with_op(Oid ftrelid, Oid userid)
{
	RemoteSizeKey key;
	RemoteSizeEntry *e;

	if (size_cache == NULL)
		return;
	memset(&key, 0, sizeof(key));
	key.relid = ftrelid;
	key.userid = userid;
	e = (RemoteSizeEntry *) hash_search(size_cache, &key, HASH_FIND, NULL);
	if (e != NULL)
		e->probed_with_op = true;
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
 * passes, a timer cancels the lookup's wait (connecting or the answer:
 * autojoin/bf_autojoin_remote.c waits on the socket and the latch) as a query cancel
 * would; the cancel is caught with the lookup's other errors, the remote
 * query is cancelled and the lookup's own connection closed, and the
 * subtransaction rolled back.  postgres_fdw's connections are never touched.
 * After a lookup ran out of the bound, the
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
 * Ask the remote as userid.  Runs inside the caller's subtransaction: may
 * raise anything; returns false with *why for a reason that is no error.
 */
static bool
ask_remote(Oid ftrelid, Oid userid, Oid serverid, int bound, RemoteFacts *facts,
		   char *why, size_t whylen)
{
	ForeignTable *ft = GetForeignTable(ftrelid);
	UserMapping *um = GetUserMapping(userid, serverid);
	char	   *nspname = fdw_option(ft->options, "schema_name",
									   get_namespace_name(get_rel_namespace(ftrelid)));
	char	   *relname = fdw_option(ft->options, "table_name", get_rel_name(ftrelid));

	arm_bound(bound);
	return bloom_remote_ask(serverid, um, quote_qualified_identifier(nspname, relname),
							rows_per_page(ftrelid), bound, TopMemoryContext,
							facts, why, whylen);
}

/* Remember an answer (or a failure). */
static RemoteSizeEntry *
size_cache_store(const RemoteSizeKey *key, bool known, const RemoteFacts *facts,
				 TimestampTz asked, const char *why, int ttl)
{
	RemoteSizeEntry *e;
	bool		found;

	e = (RemoteSizeEntry *) hash_search(size_cache, key, HASH_ENTER, &found);
	if (found && e->facts.columns != NULL)
		pfree(e->facts.columns);
	e->known = known;
	e->probed_with_op = false;
	e->ttl = ttl;
	e->facts = *facts;
	e->asked = asked;
	clip_copy(e->why, why, sizeof(e->why));
	return e;
}

static const RemoteFacts *
remote_facts_cached(Oid ftrelid, Oid userid, Oid serverid, const char **why)
{
	static char uncached_why[BLOOM_WHY_LEN];
	RemoteSizeKey key;
	RemoteSizeEntry *e;
	SlowRemoteKey skey;
	SlowRemoteEntry *slow;
	char	   *srvname;
	bool		found;
	TimestampTz now = GetCurrentTimestamp();
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		known = false;
	bool		keep = true;
	RemoteFacts facts;
	char		reason[BLOOM_WHY_LEN];
	char		skip_why[BLOOM_WHY_LEN];
	volatile bool table_timed_out = false;
	ErrorData  *passed_on = NULL;
	int			bound;
	bool		stmt_timeout_armed;

	if (size_cache == NULL)
		size_cache_init();
	memset(&key, 0, sizeof(key));
	key.relid = ftrelid;
	key.userid = userid;
	e = (RemoteSizeEntry *) hash_search(size_cache, &key, HASH_FIND, &found);
	if (found && !TimestampDifferenceExceeds(e->asked, now, e->ttl * 1000))
	{
		*why = e->why;
		return e->known ? &e->facts : NULL;
	}

	/*
	 * Not asked now, and not remembered (the next plan may ask): in a
	 * parallel worker (no subtransaction, no remote connection), while a
	 * query with asynchronous foreign scans runs (see above), after a lookup
	 * of this statement ran out of the bound, or with the statement's bound
	 * spent or its timeout too near.
	 */
	memset(&facts, 0, sizeof(facts));
	if (IsInParallelMode())
	{
		*why = "not asked in parallel mode";
		return NULL;
	}
	if (bloom_autojoin_async_running())
	{
		*why = "not asked while a query of this session with asynchronous foreign scans is running: a request of it may be in flight on the connection";
		return NULL;
	}
	bound = lookup_bound_ms();
	if (bound_ran_out)
	{
		*why = "not asked: a remote-size lookup of this statement already ran out of the statement's bound";
		return NULL;
	}
	if (bound == 0)
	{
		*why = "not asked: the statement's bound for remote-size lookups is spent, or its statement_timeout is too near";
		return NULL;
	}

	/* a server that did not answer this user in time is not asked for a while */
	memset(&skey, 0, sizeof(skey));
	skey.serverid = serverid;
	skey.userid = userid;
	slow = (SlowRemoteEntry *) hash_search(slow_remotes, &skey, HASH_FIND, &found);
	if (found && slow->until > now)
	{
		*why = slow->why;
		return NULL;
	}
	srvname = pstrdup(GetForeignServer(serverid)->servername);
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
		known = ask_remote(ftrelid, userid, serverid, bound, &facts,
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
		if (!known)
		{
			char		what[BLOOM_WHY_LEN];

			strlcpy(what, reason, sizeof(what));
			reason_of_server(reason, sizeof(reason), what, srvname);
		}
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
		 * on the remote comes back as "the remote did not answer", an
		 * FDW error: that one is only a failed lookup.)
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
			TimestampTz until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
															BLOOM_REMOTE_TIMEOUT_TTL * 1000);
			char		what[BLOOM_WHY_LEN];

			QueryCancelPending = false; /* ours, if not taken yet */
			bound_ran_out = true;
			keep = false;
			snprintf(what, sizeof(what),
					 "the remote did not answer within %d ms (the lookup's bound)",
					 bound);
			reason_of_server(reason, sizeof(reason), what, srvname);

			/*
			 * Remembered, skipped until then: for the table and user if the
			 * remote took the connection and not the question (its backend
			 * waits for a lock on the table, say: its other tables may
			 * answer), for the server and user if it did not even connect.
			 */
			snprintf(what, sizeof(what),
					 "not asked: the remote did not answer a lookup within %d ms; skipped until %s",
					 bound, timestamptz_to_str(until));
			if (bloom_remote_connected)
			{
				table_timed_out = true;
				reason_of_server(skip_why, sizeof(skip_why), what, srvname);
			}
			else
			{
				slow = (SlowRemoteEntry *) hash_search(slow_remotes, &skey, HASH_ENTER, &found);
				slow->until = until;
				reason_of_server(slow->why, sizeof(slow->why), what, srvname);
			}
		}
		else if (cancel)
			passed_on = edata;	/* the user's cancel or statement_timeout */
		else
		{
			char		what[BLOOM_WHY_LEN];

			snprintf(what, sizeof(what), "asking the remote failed: %s",
					 edata->message);
			reason_of_server(reason, sizeof(reason), what, srvname);
		}
		if (passed_on == NULL)
			FreeErrorData(edata);
		known = false;
	}
	PG_END_TRY();

	if (passed_on != NULL)
		ReThrowError(passed_on);

	if (!keep)
	{
		/* said now; remembered as skipped, or not at all */
		if (table_timed_out)
		{
			memset(&facts, 0, sizeof(facts));
			(void) size_cache_store(&key, false, &facts, now, skip_why,
									BLOOM_REMOTE_TIMEOUT_TTL);
		}
		clip_copy(uncached_why, reason, sizeof(uncached_why));
		*why = uncached_why;
		return NULL;
	}

	/* the subtransaction's invalidations may have reset the cache */
	if (!known && facts.columns != NULL)
	{
		pfree(facts.columns);
		facts.columns = NULL;
	}
	e = size_cache_store(&key, known, &facts, now, reason,
						 known ? BLOOM_REMOTE_SIZE_TTL : BLOOM_REMOTE_SIZE_FAILURE_TTL);
	*why = e->why;
	return e->known ? &e->facts : NULL;
}

/*
 * What the remote of a foreign table is, as a copy in the caller's memory
 * context: the cached entry (and its column list) is freed by a cache
 * invalidation, which any catalog lookup of the caller's may process (a
 * syscache miss takes a lock, and taking a lock accepts invalidations), so
 * no caller may hold a pointer into the cache.
 */
const RemoteFacts *
bloom_remote_facts(Oid ftrelid, Oid userid, Oid serverid, const char **why)
{
	const RemoteFacts *cached;
	RemoteFacts *copy;

	*why = NULL;
	cached = remote_facts_cached(ftrelid, userid, serverid, why);
	if (*why != NULL)
		*why = pstrdup(*why);
	if (cached == NULL)
		return NULL;
	copy = palloc(sizeof(RemoteFacts));
	*copy = *cached;
	if (cached->columns != NULL && cached->ncolumns > 0)
	{
		copy->columns = palloc(sizeof(RemoteColumn) * cached->ncolumns);
		memcpy(copy->columns, cached->columns, sizeof(RemoteColumn) * cached->ncolumns);
	}
	return copy;
}

bool
bloom_remote_size(Oid ftrelid, Oid userid, Oid serverid, double *tuples,
				  double *pages, const char **why)
{
	const RemoteFacts *facts = bloom_remote_facts(ftrelid, userid, serverid, why);

	*tuples = 0;
	*pages = 0;
	if (facts == NULL)
		return false;
	if (!facts->size_known)
	{
		*why = facts->size_why;
		return false;
	}
	*tuples = facts->tuples;
	*pages = facts->pages;
	return true;
}
