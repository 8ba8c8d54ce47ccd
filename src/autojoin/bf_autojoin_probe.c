/*
 * autojoin/bf_autojoin_probe.c
 *		Automatic Bloom-joins: the probe a remote runs,
 *		bloomfilter_join_probe(x, f), shipped instead of `x <@ f` to a remote
 *		whose bloomfilter is 1.1 or later.
 *
 * The planner decides on what it knows of the remote's column (its type,
 * its collation), asked once and remembered (autojoin/bf_autojoin_size.c).
 * The remote may have changed since: `ALTER TABLE ... TYPE numeric` there
 * turns `x <@ f` over a filter of integer keys into the ERROR "the filter
 * holds keys of family integer, not numeric", which the plain join never
 * raises, in the first statement after the change and in every cached plan
 * that holds the filter.  This probe cannot fail so: it answers as `x <@ f`
 * for a key of the filter's family, and lets every row pass (true) for a key
 * of another family or of a type whose key bytes could raise an ERROR (not
 * a scalar key type, text under a nondeterministic collation, text in a
 * database whose text does not all convert to UTF-8).  A row that passes is
 * compared by the join as without a filter: more rows cross, never fewer.
 *
 * It runs on the remote, is called by nobody else, and so lives here; it
 * reads filters through the same detoast cache as every probe.
 */
#include "key/bf_key.h"
#include "type/bf_type_detoast.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(bloomfilter_join_probe);

/* What the call site knows of its filter. */
typedef enum JoinProbeState
{
	JP_LOAD,					/* nothing yet, or another filter */
	JP_NO_KEYS,					/* the filter holds no key: false */
	JP_PASS,					/* keys of another family: true */
	JP_PROBE					/* probe */
} JoinProbeState;

typedef struct JoinProbeCache
{
	bool		key_ok;			/* the key type may be hashed here */
	BloomKeyType key;			/* if key_ok */
	BloomDetoastCache dc;
	bf_view		view;
	size_t		bits_off;
	JoinProbeState state;
} JoinProbeCache;

/*
 * May values of type typid under collation be hashed with no ERROR?  The
 * scalar key types, enums, and text under a deterministic collation in a
 * database whose text all converts to UTF-8 (the key bytes of text).
 */
static bool
key_type_cannot_fail(Oid typid, Oid collation)
{
	int			enc = GetDatabaseEncoding();

	switch (bloom_key_type_safety(typid, collation))
	{
		case BKS_SCALAR:
			return true;
		case BKS_TEXT:
			return enc == PG_UTF8 || enc == PG_SQL_ASCII || enc == PG_LATIN1;
		case BKS_ENUM:
			return enc != PG_MULE_INTERNAL;
		case BKS_MAY_FAIL:
			break;
	}
	return false;
}

static JoinProbeCache *
join_probe_cache(FunctionCallInfo fcinfo)
{
	JoinProbeCache *c = (JoinProbeCache *) fcinfo->flinfo->fn_extra;

	if (unlikely(c == NULL))
	{
		Oid			typid = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 0));

		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(JoinProbeCache));
		c->key_ok = OidIsValid(typid) &&
			key_type_cannot_fail(typid, PG_GET_COLLATION());
		if (c->key_ok)
			bloom_key_type_for_arg(&c->key, fcinfo, 0);
		bloom_detoast_cache_init(&c->dc, fcinfo->flinfo->fn_mcxt,
							  VARHDRSZ + BF_HEADER_SIZE, VARHDRSZ + BF_HEADER_SIZE, true);
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/* Read a filter other than the one kept. */
static pg_noinline void
join_probe_load(JoinProbeCache *c, Datum d)
{
	struct varlena *f = bloom_detoast_cache_load(&c->dc, d);
	bf_view		v;

	c->state = JP_LOAD;
	bloomfilter_view(f, &v);
	c->view = v;
	c->bits_off = v.bits - (uint8 *) f;
	if (v.family == BF_FAMILY_NONE)
		c->state = JP_NO_KEYS;
	else if (v.family != c->key.family || v.type_tag != c->key.type_tag)
		c->state = JP_PASS;
	else
		c->state = JP_PROBE;
	bloom_detoast_cache_keep(&c->dc);
}

/*
 * bloomfilter_join_probe(x, f): may x be in f?  As x <@ f, but true, never
 * an ERROR, for a key f cannot answer for (see above).
 */
Datum
bloomfilter_join_probe(PG_FUNCTION_ARGS)
{
	JoinProbeCache *c = join_probe_cache(fcinfo);
	Datum		d = PG_GETARG_DATUM(1);

	if (!c->key_ok)
		PG_RETURN_BOOL(true);
	switch (bloom_detoast_cache_lookup(&c->dc, d))
	{
		case BLOOM_DC_SAME:
			break;
		case BLOOM_DC_MOVED:
			c->view.bits = (uint8 *) DatumGetPointer(d) + c->bits_off;
			break;
		case BLOOM_DC_MISS:
			join_probe_load(c, d);
			break;
	}
	switch (c->state)
	{
		case JP_NO_KEYS:
			PG_RETURN_BOOL(false);
		case JP_PROBE:
			PG_RETURN_BOOL(bf_probe_hash(&c->view,
										 bloom_hash_fast(&c->key, PG_GETARG_DATUM(0),
														 c->view.seed)));
		case JP_LOAD:
		case JP_PASS:
			break;
	}
	PG_RETURN_BOOL(true);
}
