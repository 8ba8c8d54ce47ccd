/*
 * bf_gin.c
 *		GIN operator class for bloomfilter columns (bloomfilter_gin_ops): a
 *		bit-sliced index, for "which stored filters may contain key x"
 *		(col @> x) and "which are supersets of filter q" (col @>> q).
 *
 * A filter of normal density has about half its bits set, so the OR of a
 * few of them (a GiST inner key, bf_gist_keys.c) is all ones and prunes
 * nothing.  Indexing bits instead of filters (bit-sliced signature files;
 * BitFunnel; COBS) keeps, for each bit position, the rows whose filter has
 * it set; a key is answered by intersecting the lists of its k positions,
 * which leaves about fpr of the rows.  GIN is that machine: one index key
 * per set bit, compressed posting lists, an AND of a query's keys.
 *
 * Queries.  The positions of x depend on the geometry, and a GIN query is
 * extracted before the scan sees any index key; so the planner support
 * function boxes x with the index and column (gbloom_index_key), and the
 * query first runs a small scan of the same index that lists its geometry
 * keys (strategy GIN_STRAT_DISCOVER: a partial match over the geometry
 * keys that matches none and records each).  The query is then an OR,
 * over the geometries found, of the AND of x's k bit keys under each (for
 * a superset query, of q's bits, folded as bloom_contains_filter folds),
 * plus a "guard" entry: a partial match over the geometry keys that
 * matches every geometry key the query did not plan for.  Rows behind the
 * guard are filters of another key family (which a sequential scan
 * answers with an ERROR), unindexed filters, geometries q cannot be
 * compared with, and anything added since the discovery or missing from
 * it; they are candidates.  So the index never depends on the discovery
 * being complete, only on every filter having its geometry keys.  Every
 * candidate is rechecked on the table with the exact probe or superset
 * test, which also raises the sequential scan's errors; hash collisions in
 * gid or bgid only add candidates.
 */
#include "bf_gin.h"

#include "access/gin.h"
#include "access/stratnum.h"

PG_FUNCTION_INFO_V1(gin_bloom_extract_query);
PG_FUNCTION_INFO_V1(gin_bloom_consistent);
PG_FUNCTION_INFO_V1(gin_bloom_triconsistent);
PG_FUNCTION_INFO_V1(gin_bloom_compare_partial);
PG_FUNCTION_INFO_V1(gbloom_contains_filter);

/* bf_ops.c: the exact superset test, with folding and its errors */
extern PGDLLEXPORT Datum bloomfilter_contains_filter(PG_FUNCTION_ARGS);

/* ---- the query plan: an OR of ANDs of ORs of index keys, and a guard ---- */

/*
 * Entries are laid out clause by clause: clause c is entries
 * [clause_end[c - 1], clause_end[c]) (an OR), group g is clauses
 * [group_end[g - 1], group_end[g]) (an AND); the result is the OR of the
 * groups and of the guard, the last entry.  Every entry's extra_data
 * points here.
 */
typedef struct GinBloomPlan
{
	int			guard;			/* index of the guard entry */
	int			nclauses;
	int		   *clause_end;
	int			ngroups;
	int		   *group_end;
	int			nknown;			/* sorted geometry keys the groups plan for */
	int64	   *known;
	int			nseen;			/* sorted geometry keys the discovery found */
	int64	   *seen;
	int			cache_slot;		/* where they came from (-1: nowhere) */
	uint64		cache_generation;
} GinBloomPlan;

typedef struct PlanBuilder
{
	int			nentries;
	int			maxentries;
	Datum	   *entries;
	int			nclauses;
	int			maxclauses;
	int		   *clause_end;
	int			ngroups;
	int			maxgroups;
	int		   *group_end;
} PlanBuilder;

/* Past this many entries, geometries are left to the guard. */
#define GIN_MAX_QUERY_ENTRIES 65536
/* Geometries sharing one gid (a 28-bit hash) planned apiece, at most */
#define GIN_MAX_GEOMS_PER_GID 16
/*
 * Geometries planned per query, at most.  Each costs GIN k lookups in the
 * entry tree (266 geometries: about 10 ms); past that (a column of
 * thousands of geometries, a few rows each) the guard's recheck of their
 * rows costs no more than a sequential scan.
 */
#define GIN_MAX_GROUPS 512

static void
pb_entry(PlanBuilder *b, int64 key)
{
	if (b->nentries == b->maxentries)
	{
		b->maxentries = b->maxentries == 0 ? 64 : b->maxentries * 2;
		b->entries = b->entries == NULL ? palloc(b->maxentries * sizeof(Datum)) :
			repalloc(b->entries, b->maxentries * sizeof(Datum));
	}
	b->entries[b->nentries++] = Int64GetDatum(key);
}

static void
pb_end_clause(PlanBuilder *b)
{
	if (b->nclauses == b->maxclauses)
	{
		b->maxclauses = b->maxclauses == 0 ? 64 : b->maxclauses * 2;
		b->clause_end = b->clause_end == NULL ? palloc(b->maxclauses * sizeof(int)) :
			repalloc(b->clause_end, b->maxclauses * sizeof(int));
	}
	b->clause_end[b->nclauses++] = b->nentries;
}

static void
pb_end_group(PlanBuilder *b)
{
	if (b->ngroups == b->maxgroups)
	{
		b->maxgroups = b->maxgroups == 0 ? 16 : b->maxgroups * 2;
		b->group_end = b->group_end == NULL ? palloc(b->maxgroups * sizeof(int)) :
			repalloc(b->group_end, b->maxgroups * sizeof(int));
	}
	b->group_end[b->ngroups++] = b->nclauses;
}

/* The group of a probe of hash h in filters of geometry g. */
static void
plan_probe(PlanBuilder *b, const GinGeom *g, uint64 h)
{
	uint64		pos[BF_MAX_HASHES];
	uint64		bgid = gin_geom_bgid(g);

	bf_positions(g->layout, g->nbits, g->hashes, h, pos);
	for (int i = 0; i < g->hashes; i++)
	{
		pb_entry(b, bit_key(bgid, pos[i]));
		pb_end_clause(b);
	}
	pb_end_group(b);
}

/*
 * A superset query asks for GIN_SUPERSET_CLAUSES of q's bits at most, evenly
 * spread: GIN reads every list a query names, each about half the rows long
 * at normal density, while the rows that have a dozen given bits set are
 * already a few in ten thousand, and the recheck settles the rest.
 */
#define GIN_SUPERSET_CLAUSES 12

/*
 * The group of "f is a superset of q" for filters f of geometry g, which
 * bf_compatible allows, folding as bloom_contains_filter does: q to f's
 * size when f is smaller; when f is larger, each bit of q is covered by
 * any of the 2^shift bits of f that fold onto it.  False when the group
 * would be too large (the guard takes g then).
 */
static bool
plan_superset(PlanBuilder *b, const GinGeom *g, const bf_view *q, int budget)
{
	uint64		bgid = gin_geom_bgid(g);
	bf_view		qv = *q;
	int			shift = 0;
	uint64		nset,
				stride,
				nth = 0;

	if (g->nbits < q->nbits)
	{
		qv.nbits = g->nbits;
		qv.bits = palloc0(g->nbits / 8);
		bf_fold_or(&qv, q);
	}
	else
		while ((q->nbits << shift) < g->nbits)
			shift++;

	nset = bf_popcount(&qv);
	if (nset == 0)
		return false;			/* an empty q: every f is a superset */
	stride = (nset + GIN_SUPERSET_CLAUSES - 1) / GIN_SUPERSET_CLAUSES;
	if (shift > 16 || ((nset / stride + 1) << shift) > (uint64) budget)
		return false;

	for (uint64 w = 0; w < qv.nbits / 64; w++)
	{
		uint64		word = bf_load_le64(qv.bits + w * 8);

		while (word != 0)
		{
			uint64		p = w * 64 + __builtin_ctzll(word);

			word &= word - 1;
			if (nth++ % stride != 0)
				continue;
			if (g->layout == BF_LAYOUT_BLOCKED)
			{
				uint64		blk = p / BF_BLOCK_BITS,
							off = p % BF_BLOCK_BITS;

				for (uint64 fb = blk << shift; fb < (blk + 1) << shift; fb++)
					pb_entry(b, bit_key(bgid, fb * BF_BLOCK_BITS + off));
			}
			else
			{
				for (uint64 fp = p << shift; fp < (p + 1) << shift; fp++)
					pb_entry(b, bit_key(bgid, fp));
			}
			pb_end_clause(b);
		}
	}
	pb_end_group(b);
	return true;
}

/*
 * gin_bloom_extract_query(query, internal nentries, int2 strategy,
 *		internal partial_matches, internal extra_data, internal nullflags,
 *		internal search_mode)
 */
Datum
gin_bloom_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	BloomIndexQueryKey key;
	GeoSink		geos = {0};
	PlanBuilder b = {0};
	GinBloomPlan *plan;
	BloomKeyType kt;
	BloomSeedHashes sh = {0};
	bf_view		qv;
	bool	   *used;
	GinGeom    *gs;
	int			nknown = 0;

	memset(&kt, 0, sizeof(kt));
	memset(&qv, 0, sizeof(qv));
	if (strategy == GIN_STRAT_DISCOVER)
	{
		/* one partial match from the first geometry key on */
		Datum	   *entries = palloc(sizeof(Datum));

		entries[0] = Int64GetDatum(PG_INT64_MIN);
		*pmatch = palloc(sizeof(bool));
		(*pmatch)[0] = true;
		*extra_data = palloc(sizeof(Pointer));
		(*extra_data)[0] = (Pointer) PG_GETARG_POINTER(0);
		*nentries = 1;
		PG_RETURN_POINTER(entries);
	}
	if (strategy != GIN_STRAT_KEY && strategy != GIN_STRAT_SUPERSET)
		elog(ERROR, "unrecognized bloomfilter GIN strategy number %d", strategy);

	bloom_index_unbox(PG_GETARG_DATUM(0), &key);
	if (strategy == GIN_STRAT_SUPERSET)
	{
		if (key.typid != bloom_index_filter_typid(fcinfo->flinfo->fn_oid))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("a superset query needs a bloomfilter")));
		bloomfilter_view((struct varlena *) PG_DETOAST_DATUM(key.value), &qv);
	}
	else
		bloom_index_key_type(&kt, key.typid, key.value, key.collation,
							 CurrentMemoryContext);

	plan = palloc0(sizeof(GinBloomPlan));
	plan->cache_slot = -1;
	if (OidIsValid(key.indexoid))
		gin_discover_cached(fcinfo->flinfo->fn_oid, key.indexoid, key.attno, &geos,
						&plan->cache_slot, &plan->cache_generation);
	plan->nseen = geos.n;
	plan->seen = geos.keys;

	/*
	 * Plan a group for each geometry a group can be planned for.  The guard
	 * must catch every filter of a geometry without a group, and it tells
	 * filters apart only by their geometry keys; so the keys of a gid are
	 * known (not caught) only when every geometry spelled with them has a
	 * group.  Filters of a geometry whose keys the discovery saw only in
	 * part (added meanwhile) keep an unseen key, which the guard catches.
	 */
	used = palloc0(Max(geos.n, 1) * sizeof(bool));
	gs = palloc((GIN_MAX_GEOMS_PER_GID + 1) * sizeof(GinGeom));
	for (int i = 0; i < geos.n;)
	{
		uint64		gid = geo_key_gid(geos.keys[i]);
		int			j = i;
		int			ng;
		bool		all_planned;

		while (j < geos.n && geo_key_gid(geos.keys[j]) == gid)
			j++;
		ng = gin_assemble(geos.keys + i, j - i, gid, gs, GIN_MAX_GEOMS_PER_GID);
		all_planned = ng > 0 && ng <= GIN_MAX_GEOMS_PER_GID &&
			b.ngroups + ng <= GIN_MAX_GROUPS;
		for (int g = 0; all_planned && g < ng; g++)
		{
			const GinGeom *geo = &gs[g];
			int			budget = GIN_MAX_QUERY_ENTRIES - b.nentries;

			if (strategy == GIN_STRAT_KEY)
			{
				if (geo->family == BF_FAMILY_NONE)
					continue;	/* empty filters contain nothing */
				if (!geo->unindexed && geo->family == kt.family &&
					geo->type_tag == kt.type_tag && budget >= geo->hashes)
					plan_probe(&b, geo, bloom_index_seed_hash(&sh, &kt, key.value, geo->seed, NULL));
				else
					all_planned = false;
			}
			else
			{
				bf_view		fv = {0};
				uint64		nbits;

				fv.layout = geo->layout;
				fv.hashes = geo->hashes;
				fv.family = geo->family;
				fv.type_tag = geo->type_tag;
				fv.seed = geo->seed;
				fv.nbits = geo->nbits;
				if (geo->unindexed ||
					bf_compatible(&fv, &qv, &nbits) != BF_COMPAT_OK ||
					!plan_superset(&b, geo, &qv, budget))
					all_planned = false;
			}
		}
		if (all_planned)
			for (int k = i; k < j; k++)
				used[k] = true;
		i = j;
	}

	/* The keys the groups cover; the guard matches every other. */
	plan->known = palloc(Max(geos.n, 1) * sizeof(int64));
	for (int i = 0; i < geos.n; i++)
		if (used[i])
			plan->known[nknown++] = geos.keys[i];
	plan->nknown = nknown;

	plan->guard = b.nentries;
	pb_entry(&b, PG_INT64_MIN);
	plan->nclauses = b.nclauses;
	plan->clause_end = b.clause_end;
	plan->ngroups = b.ngroups;
	plan->group_end = b.group_end;

	*pmatch = palloc0(b.nentries * sizeof(bool));
	(*pmatch)[plan->guard] = true;
	*extra_data = palloc(b.nentries * sizeof(Pointer));
	for (int i = 0; i < b.nentries; i++)
		(*extra_data)[i] = (Pointer) plan;
	*nentries = b.nentries;
	PG_RETURN_POINTER(b.entries);
}

/* ---- comparePartial: discovery, and the guard ---- */

/*
 * gin_bloom_compare_partial(partial int8, key int8, int2 strategy,
 *		internal extra_data): 0 matches, < 0 goes on, > 0 stops.
 */
Datum
gin_bloom_compare_partial(PG_FUNCTION_ARGS)
{
	int64		key = PG_GETARG_INT64(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	Pointer		extra = (Pointer) PG_GETARG_POINTER(3);

	if (!IS_GEO_KEY(key))
		PG_RETURN_INT32(1);		/* past the geometry keys */
	if (extra == NULL)
		elog(ERROR, "bloomfilter GIN partial match without its query");
	if (strategy == GIN_STRAT_DISCOVER)
	{
		gin_sink_add((GeoSink *) extra, key);
		PG_RETURN_INT32(-1);
	}
	else
	{
		const GinBloomPlan *plan = (const GinBloomPlan *) extra;

		if (bsearch(&key, plan->known, plan->nknown, sizeof(int64), gin_cmp_int64))
			PG_RETURN_INT32(-1);
		/* a geometry the discovery did not find: the next query looks again */
		if (plan->nseen == 0 ||
			!bsearch(&key, plan->seen, plan->nseen, sizeof(int64), gin_cmp_int64))
			gin_geo_cache_mark_stale(plan->cache_slot, plan->cache_generation);
		PG_RETURN_INT32(0);		/* a geometry no group covers */
	}
}

/* ---- consistent ---- */

static GinTernaryValue
plan_eval(const GinBloomPlan *p, const GinTernaryValue *check)
{
	GinTernaryValue res = check[p->guard];
	int			c = 0;

	if (res == GIN_TRUE)
		return GIN_TRUE;
	for (int g = 0; g < p->ngroups; g++)
	{
		GinTernaryValue gv = GIN_TRUE;

		for (; c < p->group_end[g]; c++)
		{
			GinTernaryValue cv = GIN_FALSE;

			if (gv == GIN_FALSE)
				continue;		/* skip to the next group's clauses */
			for (int e = c == 0 ? 0 : p->clause_end[c - 1]; e < p->clause_end[c]; e++)
			{
				if (check[e] == GIN_TRUE)
				{
					cv = GIN_TRUE;
					break;
				}
				if (check[e] == GIN_MAYBE)
					cv = GIN_MAYBE;
			}
			if (cv == GIN_FALSE)
				gv = GIN_FALSE;
			else if (cv == GIN_MAYBE)
				gv = GIN_MAYBE;
		}
		if (gv == GIN_TRUE)
			return GIN_TRUE;
		if (gv == GIN_MAYBE)
			res = GIN_MAYBE;
	}
	return res;
}

/*
 * gin_bloom_consistent(internal check, int2 strategy, query, int4 nentries,
 *		internal extra_data, internal recheck, internal query_keys,
 *		internal nullflags).  Always rechecked: the table has the exact test.
 */
Datum
gin_bloom_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = PG_GETARG_UINT16(1);
	int32		nentries = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	GinTernaryValue *tcheck;

	*recheck = true;
	if (strategy == GIN_STRAT_DISCOVER || nentries == 0)
		PG_RETURN_BOOL(false);
	tcheck = palloc(nentries * sizeof(GinTernaryValue));
	for (int i = 0; i < nentries; i++)
		tcheck[i] = check[i] ? GIN_TRUE : GIN_FALSE;
	PG_RETURN_BOOL(plan_eval((GinBloomPlan *) extra_data[0], tcheck) != GIN_FALSE);
}

/*
 * gin_bloom_triconsistent(internal check, int2 strategy, query,
 *		int4 nentries, internal extra_data, internal query_keys,
 *		internal nullflags).  Never GIN_TRUE: a match is rechecked.
 */
Datum
gin_bloom_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = PG_GETARG_UINT16(1);
	int32		nentries = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);

	if (strategy == GIN_STRAT_DISCOVER || nentries == 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
	if (plan_eval((GinBloomPlan *) extra_data[0], check) == GIN_FALSE)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
	PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
}

/* ---- the superset operator of the index condition, and its recheck ---- */

/* gbloom_contains_filter(f, gbloom_index_key(q, ...)) = f @>> q */
Datum
gbloom_contains_filter(PG_FUNCTION_ARGS)
{
	BloomIndexQueryKey key;

	bloom_index_unbox(PG_GETARG_DATUM(1), &key);
	if (key.typid != bloom_index_filter_typid(fcinfo->flinfo->fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("a superset query needs a bloomfilter")));
	return DirectFunctionCall2Coll(bloomfilter_contains_filter, InvalidOid,
								   PG_GETARG_DATUM(0), key.value);
}
