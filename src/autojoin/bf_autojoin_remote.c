/*
 * autojoin/bf_autojoin_remote.c
 *		Automatic Bloom-joins: what the remote of a foreign table is, asked
 *		over a connection of our own.
 *
 * One round trip tells the planner (autojoin/bf_autojoin_size.c caches it):
 *
 *	 - the remote table's size (pg_class of it or of its leaves), for a
 *	   foreign table that was never analyzed;
 *	 - the schema bloomfilter is installed in there, if it is: postgres_fdw
 *	   ships the probe as `col OPERATOR(schema.<@) $1::schema.bloomfilter`
 *	   with the local schema's name, which the remote must resolve;
 *	 - each remote column's base type (schema and name), whose key family
 *	   must be the declared column's: a remote integer under a local numeric
 *	   makes the remote probe raise "the filter holds keys of family numeric".
 *
 * Why not postgres_fdw's connection.  The foreign scan runs in a remote
 * transaction that postgres_fdw opens at its first use of the connection in
 * the local transaction, in REPEATABLE READ: its snapshot is taken by its
 * first query.  A question asked there at planning time would be that first
 * query, and a `BEGIN; EXPLAIN ...;` (or a cursor declared and fetched
 * later) would then see the remote as it was at planning, not as the plain
 * plan sees it at its first fetch.  So the question goes over a connection
 * of its own, made from the same server and user mapping options as
 * postgres_fdw makes its own, with postgres_fdw's rule for a user who is
 * not a superuser (the user mapping must give a password, and the server
 * must ask for it, unless a superuser said password_required 'false'), and
 * closed at once: the question runs in an implicit transaction of that
 * connection, and nothing of the scan's remote transaction is touched.
 *
 * Every wait (connecting, the answer) waits on the socket and the latch, so
 * a cancel, a statement_timeout or the lookup's own timer (autojoin/bf_autojoin_size.c)
 * ends it with an ERROR that the caller's subtransaction catches; the remote
 * query is then cancelled, and the connection closed.  The remote also gets
 * a statement_timeout of the lookup's bound.
 */
#include "autojoin/bf_autojoin.h"

#include "catalog/dependency.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "optimizer/appendinfo.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/ruleutils.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/*
 * Is keyword an option postgres_fdw passes to libpq?  Its validator took
 * every libpq option but the debug ones and those it sets itself; the rest
 * of a server's or user mapping's options are postgres_fdw's own.
 */
static bool
is_libpq_option(const char *keyword)
{
	static PQconninfoOption *defaults = NULL;
	PQconninfoOption *opt;

	if (defaults == NULL)
	{
		defaults = PQconndefaults();
		if (defaults == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
	}
	for (opt = defaults; opt->keyword != NULL; opt++)
	{
		if (strcmp(opt->keyword, keyword) == 0)
			return strchr(opt->dispchar, 'D') == NULL &&
				strcmp(keyword, "fallback_application_name") != 0 &&
				strcmp(keyword, "client_encoding") != 0;
	}
	return false;
}

/* The user mapping's password_required (true unless a superuser said no). */
static bool
password_required(UserMapping *um)
{
	ListCell   *lc;

	foreach(lc, um->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "password_required") == 0)
			return defGetBoolean(def);
	}
	return true;
}

/* Wait for the socket (events) or the latch; interrupts are served. */
static void
wait_socket(PGconn *conn, int events)
{
	int			rc;

	rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | events,
						   PQsocket(conn), -1L, PG_WAIT_EXTENSION);
	if (rc & WL_LATCH_SET)
	{
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Connect as postgres_fdw would for um on server, with a connect_timeout of
 * bound_ms unless one is set.  NULL with *why when postgres_fdw's rules do
 * not allow it; an ERROR when connecting fails.
 */
static PGconn *
remote_connect(ForeignServer *server, UserMapping *um, int bound_ms,
			   char *why, size_t whylen)
{
	int			n = list_length(server->options) + list_length(um->options) + 4;
	const char **keywords = palloc0(n * sizeof(char *));
	const char **values = palloc0(n * sizeof(char *));
	List	   *lists[2];
	bool		has_password = false;
	bool		has_timeout = false;
	bool		trusted = superuser_arg(um->userid) || !password_required(um);
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	PGconn	   *conn;
	int			i = 0,
				l;

	lists[0] = server->options;
	lists[1] = um->options;
	for (l = 0; l < 2; l++)
	{
		ListCell   *lc;

		foreach(lc, lists[l])
		{
			DefElem    *def = (DefElem *) lfirst(lc);

			if (!is_libpq_option(def->defname))
				continue;
			keywords[i] = def->defname;
			values[i] = defGetString(def);
			if (strcmp(def->defname, "password") == 0 && values[i][0] != '\0')
				has_password = true;
			if (strcmp(def->defname, "connect_timeout") == 0)
				has_timeout = true;
			i++;
		}
	}
	if (!trusted && !has_password)
	{
		snprintf(why, whylen, "the user mapping gives no password, which postgres_fdw requires of a user who is not a superuser");
		return NULL;
	}
	keywords[i] = "fallback_application_name";
	values[i++] = "bloomfilter";
	keywords[i] = "client_encoding";
	values[i++] = GetDatabaseEncodingName();
	if (!has_timeout)
	{
		keywords[i] = "connect_timeout";
		values[i++] = psprintf("%d", Max(2, (bound_ms + 999) / 1000));
	}
	keywords[i] = NULL;
	values[i] = NULL;

	conn = PQconnectStartParams(keywords, values, false);
	if (conn == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	PG_TRY();
	{
		while (PQstatus(conn) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
			   st != PGRES_POLLING_FAILED)
		{
			wait_socket(conn, st == PGRES_POLLING_READING ?
						WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE);
			st = PQconnectPoll(conn);
		}
		if (PQstatus(conn) != CONNECTION_OK)
			ereport(ERROR,
					(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
					 errmsg("could not connect: %s",
							bloom_remote_text(pchomp(PQerrorMessage(conn)), -1))));
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();

	/* the server must have asked for the password (not ~/.pgpass, trust) */
	if (!trusted && !PQconnectionUsedPassword(conn))
	{
		PQfinish(conn);
		snprintf(why, whylen, "the remote did not ask for the user mapping's password, which postgres_fdw requires of a user who is not a superuser");
		return NULL;
	}
	return conn;
}

/* Did the last lookup get its connection (its question then went unanswered)? */
bool		bloom_remote_connected = false;

/* Send sql and collect its results (nresults of them, the rest dropped). */
static void
remote_query(PGconn *conn, const char *sql, PGresult **results, int nresults)
{
	PGresult   *res;
	int			got = 0;

	if (!PQsendQuery(conn, sql))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("the remote did not answer: %s",
						bloom_remote_text(pchomp(PQerrorMessage(conn)), -1))));
	for (;;)
	{
		while (PQisBusy(conn))
		{
			wait_socket(conn, WL_SOCKET_READABLE);
			if (!PQconsumeInput(conn))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_ERROR),
						 errmsg("the remote did not answer: %s",
								bloom_remote_text(pchomp(PQerrorMessage(conn)), -1))));
		}
		res = PQgetResult(conn);
		if (res == NULL)
			break;
		if (PQresultStatus(res) != PGRES_TUPLES_OK &&
			PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			char	   *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

			msg = bloom_remote_text(msg ? msg : "no message", -1);
			PQclear(res);
			ereport(ERROR,
					(errcode(ERRCODE_FDW_ERROR),
					 errmsg("the remote did not answer: %s", msg)));
		}
		if (PQresultStatus(res) == PGRES_TUPLES_OK && got < nresults)
			results[got++] = res;
		else
		{
			if (PQresultStatus(res) == PGRES_TUPLES_OK)
				got++;			/* one more than asked: refused below */
			PQclear(res);
		}
	}
	if (got != nresults)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("the remote did not answer: %d results of %d", got, nresults)));
}

/*
 * Ask the remote of foreign table ftrelid (qualified: its remote name) as
 * um, within bound_ms.  density: rows per page of the declared columns, for
 * leaves never analyzed there either.  Fills *facts (columns allocated in
 * cxt); returns false with *why when no answer can be had for a reason that
 * is no error, or the answer is refused.  May raise anything (the caller
 * runs it in a subtransaction).
 */
bool
bloom_remote_ask(Oid serverid, UserMapping *um, const char *qualified,
				 double density, int bound_ms, MemoryContext cxt,
				 RemoteFacts *facts, char *why, size_t whylen)
{
	ForeignServer *server = GetForeignServer(serverid);
	PGconn	   *volatile conn = NULL;
	PGresult   *res[3] = {NULL, NULL, NULL};
	StringInfoData sql;
	char	   *lit = quote_literal_cstr(qualified);
	bool		ok;
	int			i;

	bloom_remote_connected = false;
	conn = remote_connect(server, um, bound_ms, why, whylen);
	if (conn == NULL)
		return false;
	bloom_remote_connected = true;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SET statement_timeout = %d; ", Max(bound_ms, 1));
	/* the database's encoding, the extension's schema and version (NULL: none) */
	appendStringInfoString(&sql,
						   "SELECT pg_catalog.getdatabaseencoding(), n.nspname, e.extversion "
						   "FROM (SELECT 1) one LEFT JOIN (pg_catalog.pg_extension e "
						   "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace) "
						   "ON e.extname = 'bloomfilter'; ");
	/* each column's base type (a domain's, at any depth), and its collation */
	appendStringInfo(&sql,
					 "WITH RECURSIVE t(attname, typid, coll) AS ("
					 "SELECT a.attname, a.atttypid, a.attcollation FROM pg_catalog.pg_attribute a "
					 "WHERE a.attrelid = %s::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped "
					 "UNION ALL SELECT t.attname, y.typbasetype, t.coll FROM t "
					 "JOIN pg_catalog.pg_type y ON y.oid = t.typid WHERE y.typtype = 'd') "
					 "SELECT t.attname, n.nspname, y.typname, "
					 "COALESCE(c.collisdeterministic, true) FROM t "
					 "JOIN pg_catalog.pg_type y ON y.oid = t.typid "
					 "JOIN pg_catalog.pg_namespace n ON n.oid = y.typnamespace "
					 "LEFT JOIN pg_catalog.pg_collation c ON c.oid = t.coll "
					 "WHERE y.typtype <> 'd'; ", lit);
	/* the table's size: its own pages or its leaves' */
	appendStringInfo(&sql,
					 "SELECT c.relkind, c.reltuples, c.relpages, "
					 "pg_catalog.pg_relation_size(c.oid) / pg_catalog.current_setting('block_size')::pg_catalog.int8 "
					 "FROM pg_catalog.pg_class c WHERE c.relkind <> 'p' AND c.oid IN "
					 "(SELECT %s::pg_catalog.regclass UNION ALL "
					 "SELECT relid FROM pg_catalog.pg_partition_tree(%s) WHERE isleaf)",
					 lit, lit);

	PG_TRY();
	{
		remote_query(conn, sql.data, res, 3);
	}
	PG_CATCH();
	{
		/* a remote query still running (our timer, a cancel): stop it */
		if (PQtransactionStatus(conn) == PQTRANS_ACTIVE)
		{
			PGcancel   *cancel = PQgetCancel(conn);
			char		errbuf[256];

			if (cancel != NULL)
			{
				(void) PQcancel(cancel, errbuf, sizeof(errbuf));
				PQfreeCancel(cancel);
			}
		}
		for (i = 0; i < 3; i++)
			if (res[i] != NULL)
				PQclear(res[i]);
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PQfinish(conn);

	ok = bloom_remote_read_answers(res, qualified, density, cxt, facts, why, whylen);
	for (i = 0; i < 3; i++)
		PQclear(res[i]);
	return ok;
}

/* ---- what the planner asks (autojoin/bf_autojoin_hook.c) ---- */

/*
 * May the user the scan connects as read rel (a foreign table, or the
 * partitioned table the query names)?  The remote is asked nothing, and no
 * connection is made, for one who may not: the executor's privilege check
 * comes after planning.  Column privileges alone, or a table under
 * row-level security, get nothing asked either (no filter: always safe).
 */
bool
bloom_autojoin_may_ask(PlannerInfo *root, RelOptInfo *rel)
{
	RangeTblEntry *rte = rel_rte(root, rel);
	Oid			userid = bloom_autojoin_scan_user(root, rel);

	if (rte->rtekind != RTE_RELATION ||
		pg_class_aclcheck(rte->relid, userid, ACL_SELECT) != ACLCHECK_OK)
		return false;
	return check_enable_rls(rte->relid, userid, true) != RLS_ENABLED;
}

/* What remote_fit_of_scan() checks, and what it found. */
typedef struct RemoteFit
{
	Var		   *fvar;			/* the key column, of the scan's relation */
	const BloomObjects *bo;
	char	  **why;			/* NULL while every scan fits (shared by the
								 * members' copies) */
} RemoteFit;

static void *
remote_fit_for_member(PlannerInfo *root, AppendRelInfo *appinfo, void *arg)
{
	RemoteFit  *parent = (RemoteFit *) arg;
	RemoteFit  *child = palloc(sizeof(RemoteFit));

	*child = *parent;
	child->fvar = (Var *) adjust_appendrel_attrs(root, (Node *) parent->fvar,
												 1, &appinfo);
	return child;
}

/*
 * Can this scan's remote run the probe: bloomfilter installed there, in the
 * schema of the same name (postgres_fdw ships the operator and the filter's
 * type qualified with the local schema's name), and the key column's remote
 * type of the declared column's family?
 */
static bool
remote_fit_of_scan(PlannerInfo *root, RelOptInfo *rel,
				   double tuple_cost pg_attribute_unused(), void *arg)
{
	RemoteFit  *fit = (RemoteFit *) arg;
	RangeTblEntry *rte = rel_rte(root, rel);
	const RemoteFacts *facts;
	const char *why;
	char	   *colname = NULL;
	List	   *colopts;
	ListCell   *lc;
	int			i;

	if (*fit->why != NULL)
		return false;
	if (!IsA(fit->fvar, Var))
	{
		*fit->why = psprintf("the key of %s is no column of it", get_rel_name(rte->relid));
		return false;
	}
	facts = bloom_remote_facts(rte->relid, bloom_autojoin_scan_user(root, rel), rel->serverid, &why);
	if (facts == NULL)
	{
		*fit->why = psprintf("the remote of %s could not be asked what it is (%s)",
							get_rel_name(rte->relid), why);
		return false;
	}
	if (facts->ext_schema[0] == '\0')
	{
		*fit->why = psprintf("the remote of %s has no bloomfilter extension",
							get_rel_name(rte->relid));
		return false;
	}
	if (strcmp(facts->ext_schema, fit->bo->nspname) != 0)
	{
		*fit->why = psprintf("bloomfilter is in schema %s on the remote of %s and in %s here, whose name the probe is shipped with",
							bloom_remote_text(quote_identifier(facts->ext_schema), -1),
							get_rel_name(rte->relid),
							quote_identifier(fit->bo->nspname));
		return false;
	}
	if (!bloom_autojoin_encoding_converts(facts->encoding) &&
		!bloom_autojoin_key_is_binary(fit->fvar->vartype))
	{
		*fit->why = psprintf("the remote database of %s has encoding %s, whose text may not convert to UTF-8 (the key bytes of text)",
							 get_rel_name(rte->relid),
							 facts->encoding >= 0 ? pg_encoding_to_char(facts->encoding) : "unknown");
		return false;
	}
	colopts = GetForeignColumnOptions(rte->relid, fit->fvar->varattno);
	foreach(lc, colopts)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "column_name") == 0)
			colname = defGetString(def);
	}
	if (colname == NULL)
		colname = get_attname(rte->relid, fit->fvar->varattno, false);
	for (i = 0; i < facts->ncolumns; i++)
	{
		if (strcmp(facts->columns[i].name, colname) == 0)
			break;
	}
	if (i == facts->ncolumns)
		*fit->why = psprintf("the remote of %s has no column %s",
							get_rel_name(rte->relid), quote_identifier(colname));
	else if (!facts->columns[i].deterministic)
		*fit->why = psprintf("the remote column %s of %s is under a nondeterministic collation, whose equal strings may differ in bytes (a filter hashes bytes)",
							 quote_identifier(colname), get_rel_name(rte->relid));
	else if (!bloom_autojoin_remote_type_fits(fit->fvar->vartype, fit->fvar->varcollid,
											  facts->columns[i].typnsp,
											  facts->columns[i].typname))
		*fit->why = psprintf("the remote column %s of %s is of type %s, whose keys do not hash as those of the declared %s",
							quote_identifier(colname), get_rel_name(rte->relid),
							bloom_remote_text(quote_qualified_identifier(facts->columns[i].typnsp,
																		 facts->columns[i].typname), -1),
							format_type_be(fit->fvar->vartype));
	return false;
}

/*
 * Can every foreign scan a filter on frel's fvar would go to run its probe?
 * Said at DEBUG1 if not.  Asked of the remote (cached with its size).
 */
bool
bloom_autojoin_remote_fits(PlannerInfo *root, RelOptInfo *frel,
						   const BloomObjects *bo, Var *fvar)
{
	RemoteFit	fit;
	char	   *why = NULL;

	fit.fvar = fvar;
	fit.bo = bo;
	fit.why = &why;
	(void) bloom_autojoin_walk_foreign_scans(root, frel, bo, remote_fit_of_scan,
							  remote_fit_for_member, &fit);
	if (why == NULL)
		return true;
	elog(DEBUG1, "bloomfilter.join_pushdown: no filter on %s of relation %s: %s",
		 get_rte_attribute_name(rel_rte(root, frel), fvar->varattno),
		 get_rel_name(rel_rte(root, frel)->relid), why);
	return false;
}

/* What remote_probe_of_scan() finds. */
typedef struct ProbeForm
{
	bool		mark;			/* the operator is shipped: mark the answers */
	bool		all;			/* every remote so far runs bloomfilter 1.1+ */
} ProbeForm;

/*
 * Does a scan's remote run bloomfilter 1.1 or later (facts cached)?  When
 * marking, its answer is marked as probed with `x <@ f`.
 */
static bool
remote_probe_of_scan(PlannerInfo *root, RelOptInfo *rel,
					 double tuple_cost pg_attribute_unused(), void *arg)
{
	ProbeForm  *pf = (ProbeForm *) arg;
	RangeTblEntry *rte = rel_rte(root, rel);
	Oid			userid = bloom_autojoin_scan_user(root, rel);
	const RemoteFacts *facts;
	const char *why;

	if (pf->mark)
	{
		bloom_remote_facts_probed_with_op(rte->relid, userid);
		return false;
	}
	facts = bloom_remote_facts(rte->relid, userid, rel->serverid, &why);
	if (facts == NULL || facts->ext_schema[0] == '\0' || facts->ext_version < 101)
		pf->all = false;
	return false;
}

/*
 * bloomfilter_join_probe(anyelement, bloomfilter) of the local extension, if
 * every remote a filter on frel goes to has it too (bloomfilter 1.1 or
 * later there): the probe that cannot fail on a remote changed since it was
 * asked (autojoin/bf_autojoin_probe.c).  InvalidOid: ship `x <@ f`, and
 * have the remotes' answers asked again if the transaction fails.
 */
Oid
bloom_autojoin_join_probe_fn(PlannerInfo *root, RelOptInfo *frel,
							 const BloomObjects *bo)
{
	Oid			argtypes[2] = {ANYELEMENTOID, bo->bftype};
	Oid			fn;
	ProbeForm	pf;

	pf.mark = false;
	pf.all = true;
	fn = LookupFuncName(list_make2(makeString(bo->nspname),
								   makeString("bloomfilter_join_probe")),
						2, argtypes, true);
	if (OidIsValid(fn) &&
		getExtensionOfObject(ProcedureRelationId, fn) == bo->extoid)
	{
		(void) bloom_autojoin_walk_foreign_scans(root, frel, bo, remote_probe_of_scan,
												 NULL, &pf);
		if (pf.all)
			return fn;
	}
	/* this database's bloomfilter is still 1.0, or a remote's is */
	pf.mark = true;
	(void) bloom_autojoin_walk_foreign_scans(root, frel, bo, remote_probe_of_scan,
											 NULL, &pf);
	return InvalidOid;
}
