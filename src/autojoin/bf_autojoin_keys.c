/*
 * autojoin/bf_autojoin_keys.c
 *		Which equalities may carry an automatic Bloom filter: keys whose
 *		types hash alike under the join's equality, keys that hash with no
 *		ERROR (the plain join must not fail where it would not), the other
 *		side's checks and restrictions.  autojoin/bf_autojoin_hook.c asks
 *		it for each candidate equality; it calls nothing of the others.
 */
#include "autojoin/bf_autojoin.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/geqo.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

/* ---- the keys ---- */

/*
 * Does a database of encoding enc convert every text it can store to UTF-8
 * (the key bytes of text)?  UTF-8 itself, SQL_ASCII (whose bytes are taken
 * as they are) and LATIN1 (each byte is a code point) do; the others have
 * byte sequences a database accepts and UTF-8 has no equivalent for (WIN1252's
 * 0x81, characters of EUC_JP no table maps), or no conversion at all
 * (MULE_INTERNAL): a key of those raises an ERROR that `=` never does.
 */
bool
bloom_autojoin_encoding_converts(int enc)
{
	return enc == PG_UTF8 || enc == PG_SQL_ASCII || enc == PG_LATIN1;
}

/* Are a type's key bytes made from its text (converted to UTF-8)? */
static bool
key_type_is_text(Oid typid)
{
	return typid == TEXTOID || typid == VARCHAROID || typid == BPCHAROID ||
		typid == NAMEOID || get_typtype(typid) == TYPTYPE_ENUM;
}

/* Are keys of type typid (any type) hashed from bytes other than text? */
bool
bloom_autojoin_key_is_binary(Oid typid)
{
	return !key_type_is_text(getBaseType(typid));
}

/*
 * Why keys of type typid (a base type) could raise an ERROR when hashed, or NULL if they never can (the plain join must not fail where
 * it would not).  A list of types rather than a trial: what the key
 * machinery refuses, it refuses with an ERROR.
 */
const char *
bloom_autojoin_key_type_refused(Oid typid)
{
	if (typid == JSONBOID)
		return "jsonb key bytes are built recursively, and a deeply nested value would exceed the stack where the join's = does not";
	if (key_type_is_text(typid) &&
		!bloom_autojoin_encoding_converts(GetDatabaseEncoding()))
		return psprintf("the database's encoding %s has text that does not convert to UTF-8, which text key bytes are",
						GetDatabaseEncodingName());
	return NULL;
}

/*
 * Can keys of type typid (a base type) under collation be hashed without
 * any chance of an ERROR?
 */
bool
bloom_autojoin_key_type_is_safe(Oid typid, Oid collation)
{
	if (bloom_autojoin_key_type_refused(typid) != NULL)
		return false;
	/* text's and an enum's encoding were judged by key_type_refused */
	return bloom_key_type_safety(typid, collation) != BKS_MAY_FAIL;
}

/* The default btree operator family of a type, or InvalidOid. */
static Oid
default_btree_family(Oid typid)
{
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/*
 * Do keys of ftype and otype, equal under an equality of the operator
 * families opfamilies with collation, hash alike?
 */
bool
bloom_autojoin_keys_hash_alike(Oid ftype, Oid otype, Oid collation, List *opfamilies)
{
	Oid			fbase = getBaseType(ftype);
	Oid			obase = getBaseType(otype);
	Oid			ffam = default_btree_family(fbase);
	Oid			ofam = default_btree_family(obase);
	BloomKeyType fk,
				ok;
	bool		alike;

	if (!bloom_autojoin_key_type_is_safe(fbase, collation) || !bloom_autojoin_key_type_is_safe(obase, collation))
		return false;

	/*
	 * The equality must be the types' own `=`, the one the key bytes agree
	 * with: a clause is mergejoinable in the default family only if its
	 * operator is that family's equality for these types.
	 */
	if (!OidIsValid(ffam) || ffam != ofam || !list_member_oid(opfamilies, ffam))
		return false;

	bloom_key_type_init(&fk, ftype, collation, NULL, CurrentMemoryContext);
	bloom_key_type_init(&ok, otype, collation, NULL, CurrentMemoryContext);
	alike = fk.family == ok.family && fk.type_tag == ok.type_tag;
	if (fk.scratch)
		MemoryContextDelete(fk.scratch);
	if (ok.scratch)
		MemoryContextDelete(ok.scratch);
	return alike;
}

/*
 * Does a remote column whose base type is typnsp.typname hash as the
 * declared type ftype (a foreign column's) under collation?  The remote
 * probes its own column's values: their family must be the filter's, or the
 * probe raises an ERROR there.  The remote type is known by name: a type of
 * pg_catalog, or one of the same schema and name here (an enum, a type of
 * another extension), whose family is then taken as the remote's.
 */
bool
bloom_autojoin_remote_type_fits(Oid ftype, Oid collation, const char *typnsp,
								const char *typname)
{
	Oid			nsp = strcmp(typnsp, "pg_catalog") == 0 ? PG_CATALOG_NAMESPACE :
		get_namespace_oid(typnsp, true);
	Oid			rtype;
	Oid			fbase = getBaseType(ftype);
	BloomKeyType fk,
				rk;
	bool		alike;

	if (!OidIsValid(nsp))
		return false;
	rtype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							CStringGetDatum(typname), ObjectIdGetDatum(nsp));
	if (!OidIsValid(rtype) || get_typtype(rtype) == TYPTYPE_DOMAIN)
		return false;
	if (rtype == fbase)
		return true;
	if (!bloom_autojoin_key_type_is_safe(rtype, collation) || !bloom_autojoin_key_type_is_safe(fbase, collation))
		return false;
	bloom_key_type_init(&fk, fbase, collation, NULL, CurrentMemoryContext);
	bloom_key_type_init(&rk, rtype, collation, NULL, CurrentMemoryContext);
	alike = fk.family == rk.family && fk.type_tag == rk.type_tag;
	if (fk.scratch)
		MemoryContextDelete(fk.scratch);
	if (rk.scratch)
		MemoryContextDelete(rk.scratch);
	return alike;
}

/* A Var of relid, maybe under a binary-compatible relabeling, or NULL. */
Var *
bloom_autojoin_column_of(Expr *expr, Index relid)
{
	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;

		if ((Index) var->varno == relid && var->varlevelsup == 0 && var->varattno > 0)
			return var;
	}
	return NULL;
}

/*
 * Can a filter of rel's rows be built in a subquery of its own: a plain
 * table (or a table partitioned or inherited), scanned with no TABLESAMPLE,
 * no security quals and no lateral reference?
 *
 * Security quals could be neither left out (the filter would carry to the
 * remote keys of rows the user may not see) nor kept (the InitPlan would
 * evaluate a policy on rows the plain plan never reaches: an ERROR there).
 */
bool
bloom_autojoin_other_side_ok(PlannerInfo *root, RelOptInfo *frel, RelOptInfo *orel)
{
	RangeTblEntry *orte;

	if (orel == NULL || orel->reloptkind != RELOPT_BASEREL || IS_DUMMY_REL(orel))
		return false;
	orte = rel_rte(root, orel);
	if (orte->rtekind != RTE_RELATION || orte->tablesample != NULL ||
		orte->securityQuals != NIL || !bms_is_empty(orel->lateral_relids))
		return false;

	/*
	 * Two foreign tables of one server: postgres_fdw may run their join
	 * remotely, where a filter only adds a second remote read.
	 */
	if (orte->relkind == RELKIND_FOREIGN_TABLE && OidIsValid(orel->serverid) &&
		orel->serverid == frel->serverid)
		return false;
	return true;
}

/*
 * Is the other side's key one the filter may be built from?  NULL if so,
 * else why not.
 *
 * The filter's InitPlan computes the key over every row of the other side
 * that passes its own restrictions, including rows that other joins of the
 * plain plan remove before the key is ever computed: a key that can raise
 * an ERROR (`s::int` over a string that is no number) would make the query
 * fail where the plain join does not.  So the key must be a column, or be
 * built over columns only from functions and casts that PostgreSQL promises
 * raise no error that depends on their input: the leakproof ones, every one
 * of them, also those over constants alone (a stable function's is computed
 * per row), by the rule the subquery's restrictions follow
 * (autojoin/bf_autojoin_quals.c).
 */
const char *
bloom_autojoin_other_key_refused(Expr *oexpr, Index orelid)
{
	Relids		varnos = pull_varnos(NULL, (Node *) oexpr);

	/* one relation, strict (NULL on a null-extended row), evaluable alone */
	if (bms_membership(varnos) != BMS_SINGLETON ||
		bms_singleton_member(varnos) != (int) orelid)
		return "the other side's key is not over one relation";
	if (contain_volatile_functions((Node *) oexpr))
		return "the other side's key is volatile";
	if (contain_nonstrict_functions((Node *) oexpr))
		return "the other side's key is not strict";
	if (bloom_autojoin_needs_its_query((Node *) oexpr))
		return "the other side's key needs its query's values";
	if (bloom_autojoin_may_raise((Node *) oexpr))
		return "the other side's key calls a function or cast that is not leakproof, which could raise an error on rows the plain join never keys";
	return NULL;
}

/*
 * Is the foreign column one whose remote values hash as the local ones
 * compare?  The remote probes its own column: the values this side joins
 * are those values sent as text and read back as the declared type, so
 * that must change nothing.  A float (a float4 column declared float8, or
 * the reverse, reads back another value) or a declared typmod (numeric(10,1),
 * timestamp(0): rounding on input) can; and the declared collation is the
 * one the remote probe is shipped with.  The declared type must be the
 * remote column's own, as postgres_fdw asks for its pushed-down conditions:
 * another family makes the remote probe raise an ERROR.
 */
bool
bloom_autojoin_foreign_key_ok(const Var *fvar)
{
	Oid			base = getBaseType(fvar->vartype);

	if (base == FLOAT4OID || base == FLOAT8OID)
		return false;
	if (fvar->vartypmod != -1 &&
		base != VARCHAROID && base != BPCHAROID)	/* too long: an ERROR */
		return false;
	return bloom_autojoin_key_type_is_safe(base, fvar->varcollid);
}

/*
 * Does the filter's subquery keep every restriction of the other side?  The
 * ones it leaves out let rows through that the join never keys: a column
 * reads them harmlessly, and a computed key (leakproof too) needs them all,
 * so that no restriction guarding its computation is dropped under it.
 */
bool
bloom_autojoin_restrictions_kept(RelOptInfo *orel, Expr *oexpr)
{
	ListCell   *lc;

	while (IsA(oexpr, RelabelType))
		oexpr = ((RelabelType *) oexpr)->arg;
	if (IsA(oexpr, Var))
		return true;			/* reading a column raises nothing */
	foreach(lc, orel->baserestrictinfo)
	{
		if (!bloom_autojoin_restriction_copyable((RestrictInfo *) lfirst(lc), orel))
			return false;
	}
	return true;
}
