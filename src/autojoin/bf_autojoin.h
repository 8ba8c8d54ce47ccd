/*
 * autojoin/bf_autojoin.h
 *		Declarations shared by the files of automatic Bloom-joins
 *		(bloomfilter.join_pushdown):
 *
 *		autojoin/bf_autojoin_hook.c		the join_search_hook (once per query level), the
 *							candidate equalities: equivalence classes, LEFT
 *							joins;
 *		autojoin/bf_autojoin_keys.c	their legality: keys that hash alike and
 *							without an ERROR, the other side's checks;
 *		autojoin/bf_autojoin_plan.c	what a filter is worth, the filter's subquery
 *							and InitPlan, the probe clause;
 *		autojoin/bf_autojoin_scans.c	the foreign scans a filter goes to (a relation
 *							or its members at any depth), their user, and
 *							the foreign relation's (and partitioned
 *							parent's) size and paths redone;
 *		autojoin/bf_autojoin_quals.c	what a filter's subquery may hold: the other
 *							side's restrictions that cannot raise an ERROR;
 *		autojoin/bf_autojoin_size.c	the remote size of a foreign table never analyzed:
 *							the lookup's bound and its cache;
 *		autojoin/bf_autojoin_remote.c	the lookup over a connection of its own, and
 *							which probe each remote can run;
 *		autojoin/bf_autojoin_answer.c	the lookup's answer, checked whole;
 *		autojoin/bf_autojoin_probe.c	bloomfilter_join_probe(), run by remotes;
 *		autojoin/bf_autojoin_guard.c	whether a lookup may use a connection now (no
 *							query with asynchronous foreign scans running).
 *
 * Calls go one way: autojoin/bf_autojoin_hook.c -> autojoin/bf_autojoin_keys.c,
 * and -> autojoin/bf_autojoin_plan.c -> autojoin/bf_autojoin_size.c ->
 * autojoin/bf_autojoin_remote.c and autojoin/bf_autojoin_guard.c
 * (autojoin/bf_autojoin_hook.c also installs the guard's executor hooks); the
 * plan and the remote both call autojoin/bf_autojoin_scans.c; the hook and the
 * plan both call autojoin/bf_autojoin_quals.c, which calls nothing of the
 * others.
 */
#ifndef BF_AUTOJOIN_H
#define BF_AUTOJOIN_H

#include "key/bf_key.h"

#include "foreign/foreign.h"
#include "nodes/pathnodes.h"

/* The extension's objects, looked up once per query level. */
typedef struct BloomObjects
{
	Oid			extoid;
	char	   *nspname;		/* its schema's name */
	Oid			bftype;			/* bloomfilter */
	Oid			aggfn;			/* bloom_agg(anyelement, float8) */
	Oid			probe_op;		/* <@(anycompatible, bloomfilter) */
} BloomObjects;

/* A filter worth adding, decided before any is added. */
typedef struct BloomFilterPlan
{
	RelOptInfo *frel;			/* foreign table, or table partitioned over
								 * foreign tables */
	Var		   *fvar;			/* its key column */
	RelOptInfo *orel;			/* the other side */
	Expr	   *oexpr;			/* its key */
	char	   *keyname;		/* the other side's key, for EXPLAIN */
	double		sel;			/* fraction of frel's rows that pass */
	PlannerInfo *subroot;		/* the filter's subquery, planned */
	Path	   *subpath;		/* its cheapest path */
	Param	   *prm;			/* the InitPlan's output, once made */
} BloomFilterPlan;

/* A candidate equality: frel's fvar = oexpr over orel. */
typedef struct BloomCandidate
{
	Var		   *fvar;
	RelOptInfo *orel;
	Expr	   *oexpr;
	double		keys;			/* estimated distinct keys of the filter */
	double		sel;			/* estimated fraction of rows that pass */
	double		net;			/* saving minus the costs known before
								 * planning the subquery */
} BloomCandidate;

/*
 * What bloom_autojoin_rate_candidate() needs to know of the foreign scans a
 * filter goes to.
 */
typedef struct RemoteShare
{
	double		rows;			/* rows they return today */
	double		transfer;		/* cost of those rows crossing */
	double		per_byte;		/* cost of shipping one filter byte, summed
								 * over the scans (each gets the filter) */
	int			nscans;
} RemoteShare;

/* The RangeTblEntry of a base or member relation. */
static inline RangeTblEntry *
rel_rte(PlannerInfo *root, RelOptInfo *rel)
{
	return root->simple_rte_array[rel->relid];
}

/* ---- autojoin/bf_autojoin_keys.c ---- */

/* Why keys of base type typid could raise an ERROR when hashed, or NULL. */
extern const char *bloom_autojoin_key_type_refused(Oid typid);
/* Can keys of base type typid under collation be hashed with no ERROR? */
extern bool bloom_autojoin_key_type_is_safe(Oid typid, Oid collation);
/* Do keys of ftype and otype, equal under opfamilies, hash alike? */
extern bool bloom_autojoin_keys_hash_alike(Oid ftype, Oid otype, Oid collation,
										   List *opfamilies);
/* The column of relation relid expr is (through relabelling), or NULL. */
extern Var *bloom_autojoin_column_of(Expr *expr, Index relid);
/* May the other side orel of a join with frel build a filter? */
extern bool bloom_autojoin_other_side_ok(PlannerInfo *root, RelOptInfo *frel,
										 RelOptInfo *orel);
/* Why the other side's key expression cannot be a filter's key, or NULL. */
extern const char *bloom_autojoin_other_key_refused(Expr *oexpr, Index orelid);
/* May the foreign column fvar take a filter? */
extern bool bloom_autojoin_foreign_key_ok(const Var *fvar);
/* Are the other side's restrictions on oexpr's rows kept by the filter's subquery? */
extern bool bloom_autojoin_restrictions_kept(RelOptInfo *orel, Expr *oexpr);

/* Does every text of a database of encoding enc convert to UTF-8? */
extern bool bloom_autojoin_encoding_converts(int enc);

/* Are keys of type typid hashed from bytes other than text? */
extern bool bloom_autojoin_key_is_binary(Oid typid);

/* Does a remote column of base type typnsp.typname hash as ftype? */
extern bool bloom_autojoin_remote_type_fits(Oid ftype, Oid collation,
											const char *typnsp,
											const char *typname);

/*
 * ---- autojoin/bf_autojoin_plan.c ----
 * (autojoin/bf_autojoin_hook.c calls it; it calls autojoin/bf_autojoin_size.c; nothing calls back)
 */

/*
 * What bloom_autojoin_walk_foreign_scans() does at each foreign scan: rel is
 * a foreign table that ships bloomfilter, tuple_cost its server's
 * fdw_tuple_cost, arg what the caller passed, translated to rel by descend
 * (if given).  Returns whether rel's size or paths changed.
 */
typedef bool (*ForeignScanAction) (PlannerInfo *root, RelOptInfo *rel,
								   double tuple_cost, void *arg);

/* arg, given for parent, made for one of its members */
typedef void *(*ForeignScanDescend) (PlannerInfo *root, AppendRelInfo *appinfo,
									 void *arg);

/*
 * The foreign scans a filter on rel would go to: rel itself, or its members
 * at any depth, each a foreign table that ships bloomfilter.
 */
extern bool bloom_autojoin_walk_foreign_scans(PlannerInfo *root, RelOptInfo *rel,
											  const BloomObjects *bo,
											  ForeignScanAction action,
											  ForeignScanDescend descend,
											  void *arg);

/* The user a foreign scan connects as. */
extern Oid	bloom_autojoin_scan_user(PlannerInfo *root, RelOptInfo *rel);

/*
 * Redo the size and paths of a foreign relation whose restrictions grew
 * (keep_joined_rows) or whose size became known.
 */
extern void bloom_autojoin_redo_foreign_rel(PlannerInfo *root, RelOptInfo *rel,
											bool keep_joined_rows);

/* Is a filter's subquery being planned (the hook leaves it alone)? */
extern bool bloom_autojoin_planning_filter(void);
extern bool bloom_autojoin_size_unanalyzed(PlannerInfo *root, RelOptInfo *rel,
										   const BloomObjects *bo);


extern void bloom_autojoin_remote_share(PlannerInfo *root, RelOptInfo *rel,
										const BloomObjects *bo, RemoteShare *rs);
extern bool bloom_autojoin_rate_candidate(PlannerInfo *root, RelOptInfo *frel,
										  const RemoteShare *rs, BloomCandidate *c);
extern PlannerInfo *bloom_autojoin_plan_filter_query(PlannerInfo *root,
													 const BloomObjects *bo,
													 BloomCandidate *c,
													 char **keyname);
extern void bloom_autojoin_apply_filter(PlannerInfo *root, const BloomObjects *bo,
										BloomFilterPlan *fp, List *done);

/*
 * ---- autojoin/bf_autojoin_quals.c ----
 * (what of the other side may go into the filter's subquery, which its
 * InitPlan evaluates over every row: nothing that could raise an ERROR)
 */

/* Does node need its own query (a subplan, a placeholder, a PARAM_EXEC)? */
extern bool bloom_autojoin_needs_its_query(Node *node);

/* Could evaluating node raise an ERROR (not only leakproof parts)? */
extern bool bloom_autojoin_may_raise(Node *node);

/* Why a restriction of orel stays out of the subquery, or NULL. */
extern const char *bloom_autojoin_restriction_refused(RestrictInfo *rinfo,
													   RelOptInfo *orel);
extern bool bloom_autojoin_restriction_copyable(RestrictInfo *rinfo,
												RelOptInfo *orel);

/* ---- autojoin/bf_autojoin_size.c and autojoin/bf_autojoin_remote.c ---- */

/* A remote column: its name and its base type's schema and name. */
typedef struct RemoteColumn
{
	char		name[NAMEDATALEN];
	char		typnsp[NAMEDATALEN];
	char		typname[NAMEDATALEN];
	bool		deterministic;	/* its collation is deterministic (or none) */
} RemoteColumn;

/* What the remote of a foreign table told (autojoin/bf_autojoin_remote.c). */
typedef struct RemoteFacts
{
	bool		size_known;
	double		tuples;
	double		pages;
	char		size_why[128];	/* if not size_known */
	char		ext_schema[NAMEDATALEN];	/* "" if bloomfilter is not there */
	int			ext_version;	/* its version, major * 100 + minor */
	int			encoding;		/* the remote database's, or -1 if unknown */
	int			ncolumns;
	RemoteColumn *columns;
} RemoteFacts;

/*
 * What the remote of a foreign table is, asked as userid (cached per table
 * and user): NULL, with *why, when it cannot be known now.
 */
extern const RemoteFacts *bloom_remote_facts(Oid ftrelid, Oid userid, Oid serverid,
											 const char **why);

/*
 * A plan ships `x <@ f` to the remote of ftrelid: its answer is forgotten
 * if the transaction fails (the remote may have changed since).
 */
extern void bloom_remote_facts_probed_with_op(Oid ftrelid, Oid userid);

/* May the scan's user read rel (else nothing is asked)? */
extern bool bloom_autojoin_may_ask(PlannerInfo *root, RelOptInfo *rel);

/*
 * The function every remote of a filter on frel runs as its probe, or
 * InvalidOid for the operator <@ (a remote of bloomfilter 1.0).
 */
extern Oid	bloom_autojoin_join_probe_fn(PlannerInfo *root, RelOptInfo *frel,
										 const BloomObjects *bo);

/* Can every foreign scan of a filter on frel's fvar run its probe? */
extern bool bloom_autojoin_remote_fits(PlannerInfo *root, RelOptInfo *frel,
									   const BloomObjects *bo, Var *fvar);

/* A remote's text, escaped and bounded for a message. */
extern char *bloom_remote_text(const char *src, int len);

/*
 * The lookup's three answers read into *facts, each checked whole
 * (autojoin/bf_autojoin_answer.c): false, with why, if refused.
 */
struct pg_result;
extern bool bloom_remote_read_answers(struct pg_result **res, const char *qualified,
									  double density, MemoryContext cxt,
									  RemoteFacts *facts, char *why, size_t whylen);

/* Did the last bloom_remote_ask() get its connection? */
extern bool bloom_remote_connected;

/* One question over a connection of its own (autojoin/bf_autojoin_remote.c). */
extern bool bloom_remote_ask(Oid serverid, UserMapping *um, const char *qualified,
							 double density, int bound_ms, MemoryContext cxt,
							 RemoteFacts *facts, char *why, size_t whylen);


/*
 * The size of a never-analyzed foreign table, asked of its remote server
 * once per session (cached): false, with *why, when it cannot be known.
 */
extern bool bloom_remote_size(Oid ftrelid, Oid userid, Oid serverid,
							  double *tuples, double *pages, const char **why);

/* ---- autojoin/bf_autojoin_guard.c ---- */

/*
 * Installs the executor hooks that tell bloom_remote_size() when a query
 * with asynchronous foreign scans is running (called with the planner's
 * hook, by autojoin/bf_autojoin_hook.c).
 */
extern void bloom_autojoin_guard_install(void);

/* Is such a query started and not ended (no lookup then)? */
extern bool bloom_autojoin_async_running(void);

/* ---- autojoin/bf_autojoin_plan.c: the settings (src/bf_module.c defines them) ---- */

/*
 * bloomfilter.join_pushdown turns automatic Bloom-joins on; a filter goes
 * only to foreign scans that return at least join_pushdown_min_rows rows
 * and is expected to keep at most join_pushdown_max_fraction of them, at
 * the rate bloomfilter.default_fpr.
 */
extern double bloomfilter_default_fpr;
extern bool bloomfilter_join_pushdown;
extern double bloomfilter_join_pushdown_min_rows;
extern double bloomfilter_join_pushdown_max_fraction;

/* ---- autojoin/bf_autojoin_hook.c ---- */

/* Installs the planner hook of automatic Bloom-joins. */
extern void bloom_autojoin_install(void);
/* Was it installed (the library loaded at start)? */
extern bool bloom_autojoin_installed(void);

#endif							/* BF_AUTOJOIN_H */
