/*
 * bf_scalable.c
 *		The scalablebloom type: a Bloom filter that grows (Almeida et al.'s
 *		scalable filters).  Type I/O and casts, constructor, add and probe,
 *		inspection, and sbloom_agg; union and bloom_union_agg(scalablebloom)
 *		are in variants/bf_scalablebloom_union.c.
 *
 * A scalablebloom datum is a varlena whose payload is the "BLMS" container
 * (src/core/FORMAT.md) byte for byte, checksum field zero inside the
 * database and filled when the bytes leave, as for bloomfilter.  Each
 * sub-filter is an ordinary BLMF filter, inserted into and probed with the
 * core's functions.
 *
 * Adding a key: if some sub-filter already reports it, only the
 * container's count of adds grows (inserting it again would only fill
 * bits).  Otherwise it goes into the last sub-filter; when that one holds
 * its capacity, a sub-filter of the next level (capacity times the growth
 * factor, rate times the tightening ratio) is appended first.
 */
#include "key/bf_key.h"
#include "type/bf_type_detoast.h"
#include "agg/bf_agg.h"
#include "agg/bf_agg_type.h"

#include <math.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bf_report.h"
#include "variants/bf_variants.h"

PG_FUNCTION_INFO_V1(scalablebloom_from_bloomfilter);
PG_FUNCTION_INFO_V1(scalablebloom_empty);
PG_FUNCTION_INFO_V1(scalablebloom_add);
PG_FUNCTION_INFO_V1(scalablebloom_add_all);
PG_FUNCTION_INFO_V1(scalablebloom_contains);
PG_FUNCTION_INFO_V1(scalablebloom_contained_in);
PG_FUNCTION_INFO_V1(scalablebloom_info);
PG_FUNCTION_INFO_V1(scalablebloom_settings);
PG_FUNCTION_INFO_V1(scalablebloom_filters);
PG_FUNCTION_INFO_V1(scalablebloom_fpr);
PG_FUNCTION_INFO_V1(scalablebloom_cardinality);
PG_FUNCTION_INFO_V1(scalablebloom_agg_trans);
PG_FUNCTION_INFO_V1(scalablebloom_agg_final);

/* ---- bytes in, bytes out ---- */

/* Validates untrusted bytes and returns a new datum holding them. */
struct varlena *
sbloom_from_bytes(const uint8 *data, size_t len, int sqlstate)
{
	bf_problem	p;
	struct varlena *s;

	if (!bfs_diagnose(data, len, &p))
		bloom_report_problem(&p, sqlstate);
	s = (struct varlena *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(s, VARHDRSZ + len);
	memcpy(VARDATA(s), data, len);
	bfs_unseal((uint8 *) VARDATA(s));
	return s;
}

/*
 * Decodes a datum that is already a scalablebloom.  Its structure (magic,
 * count, every entry's geometry and length: bfs_walk) is checked so that a
 * damaged page gives an ERROR, not a wild read; the full validation ran
 * when the bytes came in.
 */
void
sbloom_decode(struct varlena *d, Sbloom *s)
{
	uint8	   *buf = (uint8 *) VARDATA_ANY(d);
	size_t		len = VARSIZE_ANY_EXHDR(d);

	bloom_check_stored_version("scalablebloom", buf, len, BFS_FORMAT_VERSION, BFS_FORMAT_VERSION);
	if (!bfs_walk(buf, len, &s->h))
	{
		bf_problem	p;

		bf_problem_damaged(&p, "scalablebloom", len);
		bloom_report_problem(&p, ERRCODE_DATA_CORRUPTED);
	}
	s->datum = d;
	s->e = palloc(sizeof(bfs_entry) * s->h.nfilters);
	(void) bfs_entries(buf, len, s->e);
}

/* A read-only, detoasted argument. */
void
sbloom_getarg(FunctionCallInfo fcinfo, int n, Sbloom *s)
{
	sbloom_decode(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(n)), s);
}

/* A private, writable copy of an argument (4-byte header, aligned). */
static void
sbloom_getarg_copy(FunctionCallInfo fcinfo, int n, Sbloom *s)
{
	sbloom_decode(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(n)), s);
}

static void
sbloom_check(struct varlena *d)
{
	Sbloom		s;

	sbloom_decode(d, &s);
}

static const BloomTypeIO scalablebloom_io = {
	"scalablebloom", sbloom_from_bytes, sbloom_check, bfs_seal
};

/* ---- type I/O: as bloomfilter, base64 of the portable bytes ---- */

BLOOM_TYPE_IO_FUNCTIONS(scalablebloom, scalablebloom_io)
BLOOM_TYPE_BYTEA_CASTS(scalablebloom, scalablebloom_io)

/* ---- building ---- */

static void
check_params(int64 initial_capacity, double fpr, int32 growth, double tightening)
{
	if (initial_capacity <= 0 || (uint64) initial_capacity > BFS_MAX_CAPACITY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scalablebloom initial capacity must be between 1 and " UINT64_FORMAT ", not " INT64_FORMAT,
						(uint64) BFS_MAX_CAPACITY, initial_capacity)));
	bloom_check_fpr(fpr);
	if (growth != 2 && growth != 4)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scalablebloom growth factor must be 2 or 4, not %d", growth)));
	if (!(tightening > 0.0 && tightening < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scalablebloom tightening ratio must be between 0 and 1 (exclusive), not %g", tightening)));
}

/*
 * sbloom_empty(initial_capacity, fpr, growth, tightening, layout, seed):
 * a container with one empty sub-filter, for initial_capacity keys at rate
 * fpr * (1 - tightening).
 */
Datum
scalablebloom_empty(PG_FUNCTION_ARGS)
{
	int64		n0 = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	int32		growth = PG_GETARG_INT32(2);
	double		r = PG_GETARG_FLOAT8(3);
	int			layout = bloom_layout_arg(PG_GETARG_TEXT_PP(4));
	int64		seed = PG_GETARG_INT64(5);
	double		p0;
	uint64		nbits;
	int			hashes;
	size_t		len;
	struct varlena *d;
	bfs_header	h = {0};

	check_params(n0, fpr, growth, r);
	p0 = bfs_level_fpr(fpr, r, 0);
	bloom_size_for(layout, n0, p0, &nbits, &hashes);
	len = BFS_HEADER_SIZE + bfs_entry_size(nbits);
	d = (struct varlena *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(d, VARHDRSZ + len);
	h.kind = BFS_KIND_SCALABLE;
	h.layout = (uint8) layout;
	h.growth = (uint8) growth;
	h.seed = (uint64) seed;
	h.fpr = fpr;
	h.tightening = r;
	h.initial_capacity = (uint64) n0;
	h.nfilters = 1;
	bfs_write_header((uint8 *) VARDATA(d), &h);
	bfs_init_entry((uint8 *) VARDATA(d) + BFS_HEADER_SIZE, (uint64) n0, p0, 0, 0,
				   layout, hashes, (uint64) seed, nbits);
	PG_RETURN_POINTER(d);
}

/*
 * Wraps a bloomfilter as the first sub-filter of a container of target
 * rate fpr (the core's bfs_wrap: its capacity is what its geometry holds
 * at the first level's rate).
 */
static struct varlena *
wrap_filter(const bf_view *v, double fpr, int growth, double r)
{
	size_t		len = bfs_wrap_size(v->nbits);
	struct varlena *d;

	/* a container holds classic and blocked filters only (FORMAT.md) */
	if (v->layout != BF_LAYOUT_CLASSIC && v->layout != BF_LAYOUT_BLOCKED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a bloomfilter of layout %s cannot become a scalablebloom",
						v->layout == BF_LAYOUT_PARQUET ? "parquet" : "spark"),
				 errhint("A scalablebloom holds filters of the layouts classic and blocked.")));
	if (len > BF_MAX_TOTAL_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the bloomfilter is too large to become a scalablebloom")));
	d = (struct varlena *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(d, VARHDRSZ + len);
	bfs_wrap((uint8 *) VARDATA(d), v, fpr, growth, r);
	return d;
}

/*
 * bloomfilter::scalablebloom, with sbloom_empty's defaults (fixed, not the
 * GUC, so that the cast is immutable)
 */
Datum
scalablebloom_from_bloomfilter(PG_FUNCTION_ARGS)
{
	bf_view		v;

	bloomfilter_getarg(fcinfo, 0, &v);
	PG_RETURN_POINTER(wrap_filter(&v, BFS_DEFAULT_FPR,
								  BFS_DEFAULT_GROWTH, BFS_DEFAULT_TIGHTENING));
}

/* ---- adding ---- */

pg_noreturn static void
report_cannot_grow(bfs_grow g, const Sbloom *s)
{
	const bfs_entry *last = &s->e[s->h.nfilters - 1];

	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("scalablebloom cannot grow beyond level %u (it holds " UINT64_FORMAT " keys)",
					last->level, s->h.added),
			 errdetail("%s",
					   g == BFS_GROW_LEVEL ? psprintf("Its last sub-filter is at level %u; a scalablebloom has at most %d levels and %d sub-filters.",
													  last->level, BFS_MAX_LEVEL + 1, BFS_MAX_FILTERS) :
					   g == BFS_GROW_CAPACITY ? psprintf("The next sub-filter would hold more than " UINT64_FORMAT " keys.",
														 (uint64) BFS_MAX_CAPACITY) :
					   "The next sub-filter would exceed the largest bloomfilter, or the whole would exceed 1 GB."),
			 errhint("Start from a larger initial capacity, a larger growth factor or a tightening ratio closer to 1.")));
}

/* Appends the next level's sub-filter to a writable container. */
static void
sbloom_grow(Sbloom *s)
{
	uint64		capacity,
				nbits;
	double		fpr;
	uint32		level;
	int			hashes;
	size_t		oldlen = VARSIZE(s->datum);
	size_t		newlen;
	bfs_grow	g;

	g = bfs_plan_growth(&s->h, &s->e[s->h.nfilters - 1], oldlen - VARHDRSZ,
						&capacity, &fpr, &level, &nbits, &hashes);
	if (g != BFS_GROW_OK)
		report_cannot_grow(g, s);
	newlen = oldlen + bfs_entry_size(nbits);
	s->datum = repalloc_huge(s->datum, newlen);
	SET_VARSIZE(s->datum, newlen);
	bfs_init_entry((uint8 *) s->datum + oldlen, capacity, fpr, 0, level,
				   s->h.layout, hashes, s->h.seed, nbits);
	s->h.nfilters++;
	bfs_write_header((uint8 *) VARDATA(s->datum), &s->h);
	s->e = repalloc(s->e, sizeof(bfs_entry) * s->h.nfilters);
	(void) bfs_entries((uint8 *) VARDATA(s->datum), newlen - VARHDRSZ, s->e);
}

/* Adds a hashed key to a writable container (family already adopted). */
static void
sbloom_add_hash(Sbloom *s, uint64 h)
{
	bfs_entry  *last;

	if (bfs_probe_hash(s->e, s->h.nfilters, h))
	{
		s->h.added = bloom_add_saturating(s->h.added, 1);
		return;
	}
	last = &s->e[s->h.nfilters - 1];
	if (last->v.added >= last->capacity)
	{
		bfs_write_header((uint8 *) VARDATA(s->datum), &s->h);
		sbloom_grow(s);
		last = &s->e[s->h.nfilters - 1];
	}
	s->h.added = bloom_add_saturating(s->h.added, 1);
	bf_insert_hash(&last->v, h);
	last->v.family = s->h.family;
	last->v.type_tag = s->h.type_tag;
	bfs_store_entry(last);
}

/* Takes the family of kt, or checks that the container holds it. */
static void
sbloom_adopt_family(Sbloom *s, const BloomKeyType *kt)
{
	bf_view		fv = {0};

	fv.family = s->h.family;
	fv.type_tag = s->h.type_tag;
	bloom_adopt_family(&fv, kt);
	s->h.family = fv.family;
	s->h.type_tag = fv.type_tag;
}

/* bloom_add(s, x): a copy of s with x added; a NULL x leaves s as it is. */
Datum
scalablebloom_add(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt;
	Sbloom		s;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	kt = bloom_key_type_cached(fcinfo, 1, false);
	sbloom_getarg_copy(fcinfo, 0, &s);
	sbloom_adopt_family(&s, kt);
	sbloom_add_hash(&s, bloom_hash_fast(kt, PG_GETARG_DATUM(1), s.h.seed));
	bfs_write_header((uint8 *) VARDATA(s.datum), &s.h);
	PG_RETURN_POINTER(s.datum);
}

/* bloom_add_all(s, array): every non-NULL element added, in order. */
Datum
scalablebloom_add_all(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt = NULL;
	Sbloom		s;
	ArrayIterator it;
	Datum		value;
	bool		isnull;
	bool		adopted = false;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	sbloom_getarg_copy(fcinfo, 0, &s);
	it = array_create_iterator(PG_GETARG_ARRAYTYPE_P(1), 0, NULL);
	while (array_iterate(it, &value, &isnull))
	{
		if (isnull)
			continue;
		if (!adopted)
		{
			/*
			 * Looked up at the first key: the columns of type record are
			 * told by an element, and an empty array has none.
			 */
			kt = bloom_key_type_cached(fcinfo, 1, true);
			sbloom_adopt_family(&s, kt);
			adopted = true;
		}
		sbloom_add_hash(&s, bloom_hash_fast(kt, value, s.h.seed));
	}
	array_free_iterator(it);
	bfs_write_header((uint8 *) VARDATA(s.datum), &s.h);
	PG_RETURN_POINTER(s.datum);
}

/* ---- probing ---- */

/*
 * Per-call-site state of a probe: the key type and what a probe needs of
 * the container last seen, its shape: the seed, whether it holds keys of
 * this call's family, and each sub-filter's geometry (layout, k, m) and
 * where its bits are.
 *
 * Whether the container passed is the one seen last time is the detoast
 * cache's to say (type/bf_type_detoast.h): one read from a table is detoasted
 * once into a kept copy, recognized by its TOAST pointer or its compressed
 * bytes.  One passed in place (a constant, a parameter, a value computed
 * by the query) is read in place, and an address is no identity: a sort,
 * a group or a nested loop reuses one address for value after value.  So
 * the cache compares, at every call, the bytes the shape was decoded from:
 * the length and the container header, and the words watched here, at each
 * sub-filter's offset its magic, version, layout, k and m (the offsets
 * following from the m before them).  If they agree, a fresh decoding
 * would give the same shape, and only the bits' addresses are moved onto
 * the value now passed; if not, it is decoded again.  The container header
 * alone is not enough: two containers with equal headers can hold
 * sub-filters of other sizes or k (a union's entries come from containers
 * of other initial capacities), and probing one with the other's geometry
 * loses keys.  The comparison costs two words per sub-filter, a few
 * percent of a probe that tests every sub-filter.
 */
typedef struct SbloomProbeCache
{
	BloomKeyType key;
	BloomDetoastCache dc;			/* is it the container seen last time? */

	/* the shape */
	uint64		seed;
	bool		has_keys;		/* holds keys of this call's family */
	uint32		nfilters;
	size_t	   *bits_off;		/* each sub-filter's bits, from the start */
	bf_view    *views;			/* layout, hashes, nbits and bits only */
} SbloomProbeCache;

/* Takes the shape of the container s decoded from the value f. */
static void
probe_cache_take(FunctionCallInfo fcinfo, SbloomProbeCache *c,
				 const Sbloom *s, const struct varlena *f)
{
	const uint8 *base = (const uint8 *) f;
	bf_view		fv = {0};

	if (c->views != NULL)
		pfree(c->views);
	if (c->bits_off != NULL)
		pfree(c->bits_off);
	c->views = NULL;
	c->bits_off = NULL;
	c->nfilters = 0;
	c->views = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									  sizeof(bf_view) * s->h.nfilters);
	c->bits_off = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
									 sizeof(size_t) * s->h.nfilters);
	for (uint32 i = 0; i < s->h.nfilters; i++)
	{
		size_t		off = s->e[i].filter - base;

		/* its magic, version, layout and k, then its m */
		bloom_detoast_cache_watch(&c->dc, off);
		bloom_detoast_cache_watch(&c->dc, off + BF_OFF_NBITS);
		c->bits_off[i] = s->e[i].v.bits - base;
		c->views[i].layout = s->e[i].v.layout;
		c->views[i].hashes = s->e[i].v.hashes;
		c->views[i].nbits = s->e[i].v.nbits;
		c->views[i].bits = s->e[i].v.bits;
	}
	c->nfilters = s->h.nfilters;
	c->seed = s->h.seed;
	fv.family = s->h.family;
	fv.type_tag = s->h.type_tag;
	c->has_keys = bloom_check_family(&fv, &c->key);
}

/* The slow path: a container other than the one kept. */
static pg_noinline void
probe_cache_load(FunctionCallInfo fcinfo, SbloomProbeCache *c, Datum d)
{
	struct varlena *f = bloom_detoast_cache_load(&c->dc, d);
	MemoryContext old;
	Sbloom		s;

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	sbloom_decode(f, &s);
	probe_cache_take(fcinfo, c, &s, f);
	pfree(s.e);
	MemoryContextSwitchTo(old);
	bloom_detoast_cache_keep(&c->dc);
}

/* The shape of d, from the cache if d has the shape kept. */
static inline void
probe_cache_get(FunctionCallInfo fcinfo, SbloomProbeCache *c, Datum d)
{
	switch (bloom_detoast_cache_lookup(&c->dc, d))
	{
		case BLOOM_DC_SAME:
			return;
		case BLOOM_DC_MOVED:
			/* the same shape elsewhere: move the bits there */
			for (uint32 i = 0; i < c->nfilters; i++)
				c->views[i].bits = (uint8 *) DatumGetPointer(d) + c->bits_off[i];
			return;
		case BLOOM_DC_MISS:
			break;
	}
	probe_cache_load(fcinfo, c, d);
}

static bool
probe(FunctionCallInfo fcinfo, int filterarg, int keyarg)
{
	SbloomProbeCache *c = (SbloomProbeCache *) fcinfo->flinfo->fn_extra;
	uint64		h;

	if (unlikely(c == NULL))
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SbloomProbeCache));
		bloom_key_type_for_arg(&c->key, fcinfo, keyarg);
		bloom_detoast_cache_init(&c->dc, fcinfo->flinfo->fn_mcxt,
							  VARHDRSZ + BFS_HEADER_SIZE, 0, false);
		fcinfo->flinfo->fn_extra = c;
	}
	probe_cache_get(fcinfo, c, PG_GETARG_DATUM(filterarg));
	if (!c->has_keys)
		return false;
	h = bloom_hash_fast(&c->key, PG_GETARG_DATUM(keyarg), c->seed);
	for (uint32 i = 0; i < c->nfilters; i++)
		if (bf_probe_hash(&c->views[i], h))
			return true;
	return false;
}

/* bloom_contains(s, x), s @> x */
Datum
scalablebloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(probe(fcinfo, 0, 1));
}

/* x <@ s */
Datum
scalablebloom_contained_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(probe(fcinfo, 1, 0));
}

/* ---- inspecting ---- */

Datum
scalablebloom_info(PG_FUNCTION_ARGS)
{
	Sbloom		s;
	TupleDesc	tupdesc;
	Datum		values[12];
	bool		nulls[12] = {0};
	uint64		bits = 0,
				set = 0;
	int			hashes = 0;

	sbloom_getarg(fcinfo, 0, &s);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	for (uint32 i = 0; i < s.h.nfilters; i++)
	{
		bits += s.e[i].v.nbits;
		set += bf_popcount(&s.e[i].v);
		hashes = Max(hashes, s.e[i].v.hashes);
	}
	values[0] = CStringGetTextDatum(bf_layout_name(s.h.layout));
	values[1] = Int64GetDatum((int64) bits);
	values[2] = Int32GetDatum(hashes);
	values[3] = Int64GetDatum((int64) VARSIZE_ANY_EXHDR(s.datum));
	values[4] = Int64GetDatum((int64) s.h.seed);
	values[5] = CStringGetTextDatum(bloom_family_display(s.h.family, s.h.type_tag));
	values[6] = Int64GetDatum(s.h.added > (uint64) PG_INT64_MAX ? PG_INT64_MAX : (int64) s.h.added);
	values[7] = Int64GetDatum((int64) set);
	values[8] = Float8GetDatum((double) set / (double) bits);
	values[9] = Float8GetDatum(bfs_est_cardinality(s.e, s.h.nfilters));
	values[10] = Float8GetDatum(bfs_est_fpr(s.e, s.h.nfilters));
	values[11] = Int32GetDatum(bf_load_le16((uint8 *) VARDATA_ANY(s.datum) + BFS_OFF_VERSION));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * sbloom_settings(s): the parameters, the number of sub-filters, and the
 * bound on the rate: the sum of the sub-filters' target rates, which the
 * overall rate does not exceed while every sub-filter holds at most its
 * capacity (below fpr for one chain; a union may pass it).
 */
Datum
scalablebloom_settings(PG_FUNCTION_ARGS)
{
	Sbloom		s;
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {0};
	double		bound = 0.0;

	sbloom_getarg(fcinfo, 0, &s);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	for (uint32 i = 0; i < s.h.nfilters; i++)
		bound += s.e[i].fpr;
	values[0] = Float8GetDatum(s.h.fpr);
	values[1] = Int32GetDatum(s.h.growth);
	values[2] = Float8GetDatum(s.h.tightening);
	values[3] = Int64GetDatum((int64) s.h.initial_capacity);
	values[4] = Int32GetDatum((int32) s.h.nfilters);
	values[5] = Float8GetDatum(bound);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* sbloom_filters(s): one row per sub-filter. */
Datum
scalablebloom_filters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Sbloom		s;

	InitMaterializedSRF(fcinfo, 0);
	sbloom_getarg(fcinfo, 0, &s);
	for (uint32 i = 0; i < s.h.nfilters; i++)
	{
		const bfs_entry *e = &s.e[i];
		Datum		values[10];
		bool		nulls[10] = {0};

		values[0] = Int32GetDatum((int32) i);
		values[1] = Int32GetDatum((int32) e->level);
		values[2] = Int64GetDatum((int64) e->capacity);
		values[3] = Float8GetDatum(e->fpr);
		values[4] = Int64GetDatum((int64) e->v.nbits);
		values[5] = Int32GetDatum(e->v.hashes);
		values[6] = Int64GetDatum(e->v.added > (uint64) PG_INT64_MAX ? PG_INT64_MAX : (int64) e->v.added);
		values[7] = Int64GetDatum((int64) bf_popcount(&e->v));
		values[8] = Float8GetDatum(bf_est_cardinality(&e->v));
		values[9] = Float8GetDatum(bf_est_fpr(&e->v));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
scalablebloom_fpr(PG_FUNCTION_ARGS)
{
	Sbloom		s;

	sbloom_getarg(fcinfo, 0, &s);
	PG_RETURN_FLOAT8(bfs_est_fpr(s.e, s.h.nfilters));
}

Datum
scalablebloom_cardinality(PG_FUNCTION_ARGS)
{
	Sbloom		s;

	sbloom_getarg(fcinfo, 0, &s);
	PG_RETURN_FLOAT8(bfs_est_cardinality(s.e, s.h.nfilters));
}

/* ---- sbloom_agg(x) ---- */

/*
 * The self-sizing bloom_agg run at the first level's rate p * (1 - r),
 * with p = 1% (BLOOM_AGG_FPR, never a setting): its state, combine function
 * and state encoding are bloom_agg's, so the result is as deterministic as
 * bloom_agg's (the same keys give the same bytes whatever the plan).
 */
Datum
scalablebloom_agg_trans(PG_FUNCTION_ARGS)
{
	return bloom_auto_agg_trans_at(fcinfo,
								   bfs_level_fpr(BLOOM_AGG_FPR, BFS_DEFAULT_TIGHTENING, 0));
}

/* The finished filter becomes sub-filter 0 of a container. */
Datum
scalablebloom_agg_final(PG_FUNCTION_ARGS)
{
	void	   *st = bloom_aggstate_read_arg(fcinfo, 0, BFAS_KIND_BLOOM);
	struct varlena *f;
	bf_view		v;

	if (st == NULL)
		PG_RETURN_NULL();
	/* no once-per-aggregate flag here: sbloom_agg warns per group */
	f = bloom_agg_result(st, NULL);
	bloomfilter_view(f, &v);
	PG_RETURN_POINTER(wrap_filter(&v, BLOOM_AGG_FPR,
								  BFS_DEFAULT_GROWTH, BFS_DEFAULT_TIGHTENING));
}
