/*
 * bf_gin.h
 *		The GIN operator class's index keys, shared by bf_gin_keys.c (the
 *		keys of a filter, the geometries an index holds) and bf_gin.c (the
 *		query: which keys a probe or superset test needs).
 */
#ifndef BF_GIN_H
#define BF_GIN_H

#include "bf_index.h"

/* Strategies (the operator class in the install script) */
#define GIN_STRAT_KEY		1	/* @>(bloomfilter, gbloom_key) */
#define GIN_STRAT_SUPERSET	3	/* @>>(bloomfilter, gbloom_key) */
#define GIN_STRAT_DISCOVER	99	/* internal: list the geometry keys */

/* ---- index keys ---- */

#define GEO_FLAG		(UINT64_C(1) << 63)
#define GEO_GID_SHIFT	35
#define GEO_GID_MASK	((UINT64_C(1) << 28) - 1)
#define GEO_PART_SHIFT	32
#define GEO_NPARTS		5
#define BIT_POS_BITS	34
#define BIT_GID_MASK	((UINT64_C(1) << 29) - 1)

#define IS_GEO_KEY(k)	((k) < 0)

/* What a filter's bit positions mean, and how a probe must treat it. */
typedef struct GinGeom
{
	uint8		layout;
	uint8		hashes;
	uint16		family;
	uint32		type_tag;
	uint64		seed;
	uint64		nbits;
	bool		unindexed;		/* more bits than max_bits: no bit keys */
} GinGeom;

/* The bit key of position pos (pos < 2^34: m is at most BF_MAX_NBITS). */
static inline int64
bit_key(uint64 bgid, uint64 pos)
{
	return (int64) ((bgid << BIT_POS_BITS) | pos);
}

static inline int64
geo_key(uint64 gid, int part, uint32 payload)
{
	return (int64) (GEO_FLAG | (gid << GEO_GID_SHIFT) |
					((uint64) part << GEO_PART_SHIFT) | payload);
}

static inline uint64
geo_key_gid(int64 key)
{
	return ((uint64) key >> GEO_GID_SHIFT) & GEO_GID_MASK;
}

static inline int
geo_key_part(int64 key)
{
	return (int) (((uint64) key >> GEO_PART_SHIFT) & 7);
}

extern uint64 gin_geom_bgid(const GinGeom *g);
extern uint64 gin_geom_gid(const GinGeom *g);
extern uint32 gin_geom_payload(const GinGeom *g, int part);
extern int	gin_cmp_int64(const void *a, const void *b);

/* The geometry keys a discovery collects (strategy GIN_STRAT_DISCOVER). */
typedef struct GeoSink
{
	int			n;
	int			cap;
	int64	   *keys;
} GeoSink;

extern void gin_sink_add(GeoSink *s, int64 key);

/*
 * The geometry keys of an index column, sorted and unique, from the cache
 * or a discovery; *slot and *generation name the cache entry, for
 * gin_geo_cache_mark_stale.
 */
extern void gin_discover_cached(Oid fn_oid, Oid indexoid, int attno,
								GeoSink *sink, int *slot, uint64 *generation);
extern void gin_geo_cache_mark_stale(int slot, uint64 generation);

/*
 * The geometries spelled by the n geometry keys of one gid, into out;
 * returns how many, or max + 1 when there were more.
 */
extern int	gin_assemble(const int64 *keys, int n, uint64 gid, GinGeom *out,
						 int max);

#endif							/* BF_GIN_H */
