/*
 * bf_gin_keys.c
 *		The index keys of the GIN operator class (bf_gin.c says how queries
 *		use them): the keys of a filter, and the geometries an index holds.
 *
 * Index keys (int8).  A bit's position only means something for a given
 * hashing and size, so a key is (geometry, position):
 *
 *	 bit key:		 0 | bgid (29 bits) | position (34 bits)
 *	 geometry key:	 1 | gid (28 bits) | part (3 bits) | payload (32 bits)
 *
 * bgid hashes what positions depend on (layout, k, seed, m); each filter
 * also gets five geometry keys that together spell out its descriptor
 * (layout, k, seed, m, key family and type tag, and whether its bits are
 * indexed), under gid, a hash of all of it.  Filters of more than the
 * operator-class option max_bits bits get only their geometry keys.
 *
 * Discovery.  A query must know the geometries in its index before the
 * scan: gin_discover_cached scans the index for its geometry keys (a
 * partial match that matches none and records each, strategy
 * GIN_STRAT_DISCOVER) and keeps what it found per index column.
 */
#include "bf_gin.h"

#include "access/genam.h"
#include "access/gin.h"
#include "access/relation.h"
#include "access/reloptions.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "nodes/tidbitmap.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

PG_FUNCTION_INFO_V1(gin_bloom_extract_value);
PG_FUNCTION_INFO_V1(gin_bloom_options);

static uint64
geom_hash(const GinGeom *g, bool positions_only)
{
	uint8		buf[32];

	memset(buf, 0, sizeof(buf));
	buf[0] = g->layout;
	buf[1] = g->hashes;
	bf_store_le64(buf + 8, g->seed);
	bf_store_le64(buf + 16, g->nbits);
	if (!positions_only)
	{
		bf_store_le16(buf + 2, g->family);
		buf[4] = g->unindexed ? 1 : 0;
		bf_store_le32(buf + 24, g->type_tag);
	}
	return bf_hash_bytes(positions_only ? UINT64_C(0x62697467656f6d31) :
						 UINT64_C(0x67696e67656f6d31), buf, sizeof(buf));
}


uint64
gin_geom_bgid(const GinGeom *g)
{
	return geom_hash(g, true) >> 35;	/* 29 bits */
}

uint64
gin_geom_gid(const GinGeom *g)
{
	return geom_hash(g, false) >> 36;	/* 28 bits */
}

uint32
gin_geom_payload(const GinGeom *g, int part)
{
	switch (part)
	{
		case 0:
			return (uint32) g->layout | ((uint32) g->hashes << 2) |
				((uint32) g->family << 8) | ((uint32) (g->unindexed ? 1 : 0) << 16) |
				((uint32) ((g->nbits >> 32) & 0xff) << 17);
		case 1:
			return (uint32) g->nbits;
		case 2:
			return (uint32) g->seed;
		case 3:
			return (uint32) (g->seed >> 32);
		default:
			return g->type_tag;
	}
}




static void
geom_of_view(const bf_view *v, int max_bits, GinGeom *g)
{
	g->layout = v->layout;
	g->hashes = v->hashes;
	g->family = v->family;
	g->type_tag = v->type_tag;
	g->seed = v->seed;
	g->nbits = v->nbits;
	g->unindexed = v->nbits > (uint64) max_bits;
}

/* ---- the max_bits option ---- */

/*
 * A filter is indexed by one key per set bit, so the largest filters would
 * make the largest index rows (and GIN builds an array of every key of a
 * row).  Past max_bits a filter is a candidate of every query instead.
 */
#define GIN_MAX_BITS_DEFAULT	(1 << 20)
#define GIN_MAX_BITS_MAX		(1 << 24)

typedef struct GinBloomOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			max_bits;
} GinBloomOptions;

static int
get_max_bits(FunctionCallInfo fcinfo)
{
	if (PG_HAS_OPCLASS_OPTIONS())
		return ((GinBloomOptions *) PG_GET_OPCLASS_OPTIONS())->max_bits;
	return GIN_MAX_BITS_DEFAULT;
}

Datum
gin_bloom_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(GinBloomOptions));
	add_local_int_reloption(relopts, "max_bits",
							"filters of more bits are indexed by their geometry only, and rechecked by every query",
							GIN_MAX_BITS_DEFAULT, BF_BLOCK_BITS, GIN_MAX_BITS_MAX,
							offsetof(GinBloomOptions, max_bits));
	PG_RETURN_VOID();
}

/* ---- extractValue ---- */

/*
 * gin_bloom_extract_value(filter, internal nentries, internal nullflags):
 * the filter's geometry keys, then a bit key per set bit.
 */
Datum
gin_bloom_extract_value(PG_FUNCTION_ARGS)
{
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	bf_view		v;
	GinGeom		g;
	uint64		nset,
				gid,
				base;
	Datum	   *keys;
	int			n = 0;

	bloomfilter_getarg(fcinfo, 0, &v);
	geom_of_view(&v, get_max_bits(fcinfo), &g);
	nset = g.unindexed ? 0 : bf_popcount(&v);
	keys = palloc((GEO_NPARTS + nset) * sizeof(Datum));

	gid = gin_geom_gid(&g);
	for (int part = 0; part < GEO_NPARTS; part++)
		keys[n++] = Int64GetDatum(geo_key(gid, part, gin_geom_payload(&g, part)));

	if (!g.unindexed)
	{
		base = gin_geom_bgid(&g) << BIT_POS_BITS;
		for (uint64 w = 0; w < v.nbits / 64; w++)
		{
			uint64		word = bf_load_le64(v.bits + w * 8);

			while (word != 0)
			{
				keys[n++] = Int64GetDatum((int64) (base | (w * 64 + __builtin_ctzll(word))));
				word &= word - 1;
			}
		}
	}
	*nentries = n;
	PG_RETURN_POINTER(keys);
}

/* ---- discovery: the geometry keys an index holds ---- */

void
gin_sink_add(GeoSink *s, int64 key)
{
	if (s->n == s->cap)
	{
		s->cap = s->cap == 0 ? 64 : s->cap * 2;
		s->keys = s->keys == NULL ? palloc(s->cap * sizeof(int64)) :
			repalloc(s->keys, s->cap * sizeof(int64));
	}
	s->keys[s->n++] = key;
}

int
gin_cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * Runs a GIN_STRAT_DISCOVER scan of column attno of the index named by a
 * box and returns its geometry keys, sorted and unique.  Only an index of
 * this operator class is scanned so (its extractQuery must be ours, which
 * reads the scan's argument as a GeoSink): a box may name any index.
 */
/*
 * May the user learn what index indexoid holds?  Only if it is an index of
 * a table the user may read: a box may name any index, and a discovery
 * tells which geometries the table's filters have.  Checked before the
 * index is locked, and before the cache is consulted (it is shared by every
 * role of the session).  Without a discovery, the guard makes every filter
 * a candidate: slower, never wrong.
 */
static bool
discovery_allowed(Oid indexoid)
{
	Oid			table;

	if (get_rel_relkind(indexoid) != RELKIND_INDEX)
		return false;
	table = IndexGetRelation(indexoid, true);
	return OidIsValid(table) &&
		pg_class_aclcheck(table, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
}

static void
discover(Oid fn_oid, Oid indexoid, int attno, GeoSink *sink)
{
	Relation	idx;
	IndexScanDesc scan;
	ScanKeyData skey;
	TIDBitmap  *tbm;
	int			j = 0;

	idx = try_relation_open(indexoid, AccessShareLock);
	if (idx == NULL)
		return;
	/* ... of this operator class, and ready (not half-built) */
	if (idx->rd_rel->relkind != RELKIND_INDEX ||
		idx->rd_rel->relam != GIN_AM_OID ||
		!idx->rd_index->indisready || !idx->rd_index->indisvalid ||
		attno > IndexRelationGetNumberOfKeyAttributes(idx) ||
		index_getprocid(idx, attno, GIN_EXTRACTQUERY_PROC) != fn_oid ||
		RelationGetNumberOfBlocks(idx) == 0)
	{
		index_close(idx, AccessShareLock);
		return;
	}
	ScanKeyEntryInitialize(&skey, 0, attno, GIN_STRAT_DISCOVER, InvalidOid,
						   InvalidOid, InvalidOid, PointerGetDatum(sink));
	scan = bf_index_beginscan_bitmap(idx, ActiveSnapshotSet() ?
									 GetActiveSnapshot() : GetTransactionSnapshot(),
									 1);
	index_rescan(scan, &skey, 1, NULL, 0);
	tbm = tbm_create(64 * 1024L, NULL);
	(void) index_getbitmap(scan, tbm);
	tbm_free(tbm);
	index_endscan(scan);
	index_close(idx, AccessShareLock);

	if (sink->n > 1)
	{
		qsort(sink->keys, sink->n, sizeof(int64), gin_cmp_int64);
		for (int i = 0; i < sink->n; i++)
			if (j == 0 || sink->keys[i] != sink->keys[j - 1])
				sink->keys[j++] = sink->keys[i];
		sink->n = j;
	}
}

/*
 * What the last discoveries found, per index column, kept for later scans:
 * a nested loop rescans once per outer row, and the discovery costs a scan
 * of its own.  A stale entry only costs time, never a row: a geometry
 * added since is unknown to the query, so the guard makes its filters
 * candidates, and marks the entry stale for the next query; one removed
 * since only plans a group that finds nothing.  An entry is also
 * refreshed after GEO_CACHE_USES queries, so that removed geometries stop
 * costing.
 */
#define GEO_CACHE_SLOTS 8
#define GEO_CACHE_USES	256

typedef struct GeoCacheSlot
{
	Oid			indexoid;		/* InvalidOid: free */
	int			attno;
	uint64		generation;		/* bumped whenever the slot changes */
	bool		stale;
	int			uses;
	int			n;
	int64	   *keys;			/* in TopMemoryContext */
} GeoCacheSlot;

static GeoCacheSlot geo_cache[GEO_CACHE_SLOTS];
static uint64 geo_cache_generation = 0;
static int	geo_cache_next = 0;

/* The geometry keys of an index column, from the cache or a discovery. */
void
gin_discover_cached(Oid fn_oid, Oid indexoid, int attno, GeoSink *sink,
				int *slot_out, uint64 *generation_out)
{
	GeoCacheSlot *slot = NULL;

	*slot_out = -1;
	*generation_out = 0;
	if (!discovery_allowed(indexoid))
		return;
	for (int i = 0; i < GEO_CACHE_SLOTS; i++)
		if (geo_cache[i].indexoid == indexoid && geo_cache[i].attno == attno)
			slot = &geo_cache[i];

	if (slot != NULL && !slot->stale && slot->uses < GEO_CACHE_USES)
	{
		slot->uses++;
		sink->n = sink->cap = slot->n;
		sink->keys = palloc(Max(slot->n, 1) * sizeof(int64));
		memcpy(sink->keys, slot->keys, slot->n * sizeof(int64));
	}
	else
	{
		discover(fn_oid, indexoid, attno, sink);
		if (slot == NULL)
		{
			slot = &geo_cache[geo_cache_next];
			geo_cache_next = (geo_cache_next + 1) % GEO_CACHE_SLOTS;
		}
		/* emptied first, so that an error half-way leaves a free slot */
		slot->indexoid = InvalidOid;
		if (slot->keys != NULL)
			pfree(slot->keys);
		slot->keys = NULL;
		slot->keys = MemoryContextAlloc(TopMemoryContext,
										Max(sink->n, 1) * sizeof(int64));
		memcpy(slot->keys, sink->keys, sink->n * sizeof(int64));
		slot->n = sink->n;
		slot->attno = attno;
		slot->stale = false;
		slot->uses = 0;
		slot->generation = ++geo_cache_generation;
		slot->indexoid = indexoid;
	}
	*slot_out = (int) (slot - geo_cache);
	*generation_out = slot->generation;
}

/*
 * The descriptors spelled by the geometry keys of one gid: every choice of
 * one payload per part whose gid is right (two geometries whose gid
 * collide give two values for some parts).  Returns how many went into
 * out, or max + 1 when there were more.
 */
#define GIN_MAX_COMBINATIONS 4096

int
gin_assemble(const int64 *keys, int n, uint64 gid, GinGeom *out, int max)
{
	int			start[GEO_NPARTS],
				count[GEO_NPARTS],
				idx[GEO_NPARTS];
	int			nout = 0;
	int			i = 0;
	int			tried = 0;

	for (int part = 0; part < GEO_NPARTS; part++)
	{
		start[part] = i;
		while (i < n && geo_key_part(keys[i]) == part)
			i++;
		count[part] = i - start[part];
		if (count[part] == 0)
			return 0;
		idx[part] = 0;
	}

	for (;;)
	{
		uint32		p[GEO_NPARTS];
		GinGeom		g;

		for (int part = 0; part < GEO_NPARTS; part++)
			p[part] = (uint32) keys[start[part] + idx[part]];
		g.layout = p[0] & 3;
		g.hashes = (p[0] >> 2) & 63;
		g.family = (p[0] >> 8) & 0xff;
		g.unindexed = ((p[0] >> 16) & 1) != 0;
		g.nbits = ((uint64) ((p[0] >> 17) & 0xff) << 32) | p[1];
		g.seed = ((uint64) p[3] << 32) | p[2];
		g.type_tag = p[4];
		if (gin_geom_gid(&g) == gid && bf_check_geometry(g.layout, g.hashes, g.nbits) == BF_OK)
		{
			if (nout == max)
				return max + 1;
			out[nout++] = g;
		}
		/*
		 * Next combination.  Only colliding geometries make more than one,
		 * and filters written to collide could make a great many: past a
		 * bound, the gid is left to the guard.
		 */
		if (++tried > GIN_MAX_COMBINATIONS)
			return max + 1;
		for (int part = GEO_NPARTS - 1;; part--)
		{
			if (part < 0)
				return nout;
			if (++idx[part] < count[part])
				break;
			idx[part] = 0;
		}
	}
}

void
gin_geo_cache_mark_stale(int slot, uint64 generation)
{
	if (slot >= 0 && slot < GEO_CACHE_SLOTS &&
		geo_cache[slot].generation == generation)
		geo_cache[slot].stale = true;
}
