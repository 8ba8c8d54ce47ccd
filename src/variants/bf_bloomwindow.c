/*
 * bf_window.c
 *		The bloomwindow type: "seen in the last hour" from one value.  Type
 *		I/O, constructor, add, probe, the union of the live buckets,
 *		inspection, and the bloom_window_agg aggregate.
 *
 * A bloomwindow datum is a varlena whose payload is the portable window
 * format (src/core/FORMAT.md, "The bloomwindow format"), its checksum kept
 * zero inside the database and filled in when the bytes leave, as for
 * bloomfilter.  All logic lives in src/core/bf_window.c.
 *
 * Keys are hashed with the same canonical encoding and family rules as
 * bloomfilter (key/bf_encode.c), so a key found in bloom_window_filter(w) is
 * the same key bloom_window_contains(w, ...) finds.
 */
#include "key/bf_key.h"
#include "type/bf_type_detoast.h"
#include "type/bf_type_edges.h"

#include <math.h>

#include "bf_report.h"
#include "core/bf_window.h"
#include "agg/bf_agg_type.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "common/int.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(bloomwindow_empty);
PG_FUNCTION_INFO_V1(bloomwindow_add);
PG_FUNCTION_INFO_V1(bloomwindow_contains);
PG_FUNCTION_INFO_V1(bloomwindow_contains_now);
PG_FUNCTION_INFO_V1(bloomwindow_contained_in_now);
PG_FUNCTION_INFO_V1(bloomwindow_filter);
PG_FUNCTION_INFO_V1(bloomwindow_info);
PG_FUNCTION_INFO_V1(bloomwindow_params);
PG_FUNCTION_INFO_V1(bloomwindow_agg_trans);
PG_FUNCTION_INFO_V1(bloomwindow_agg_final);
PG_FUNCTION_INFO_V1(bloomwindow_agg_combine);
PG_FUNCTION_INFO_V1(bloomwindow_union_agg_trans);

/* ---- datums ---- */

static struct varlena *
window_alloc(MemoryContext cxt, uint64 len)
{
	struct varlena *w = MemoryContextAllocHuge(cxt, VARHDRSZ + len);

	SET_VARSIZE(w, VARHDRSZ + len);
	return w;
}

/*
 * Decodes a datum that is already a bloomwindow.  The header is checked
 * against the length, so a damaged page gives an ERROR, not a wild read
 * (slot views take their geometry from this header: see bfw_slot_view).
 */
static void
window_view(struct varlena *d, bfw_view *w)
{
	size_t		len = VARSIZE_ANY_EXHDR(d);

	if (len < BFW_HEADER_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomwindow datum is damaged: %zu bytes", len)));
	bloom_check_stored_version("bloomwindow", (const uint8 *) VARDATA_ANY(d), len,
							   BFW_FORMAT_VERSION, BFW_FORMAT_VERSION);
	bfw_view_of((uint8 *) VARDATA_ANY(d), w);
	if (bfw_check_geometry(w->layout, w->hashes, w->nbits, w->buckets,
						   w->bucket_us) != BFW_OK ||
		len != bfw_buffer_size(w->buckets, w->nbits))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomwindow datum is damaged: its header does not match its %zu bytes", len)));
}

/* A detoasted argument, read-only (not packed: keeps the 8-byte alignment). */
static struct varlena *
window_getarg(FunctionCallInfo fcinfo, int n, bfw_view *w)
{
	struct varlena *d = PG_DETOAST_DATUM(PG_GETARG_DATUM(n));

	window_view(d, w);
	return d;
}

static struct varlena *
window_getarg_copy(FunctionCallInfo fcinfo, int n, bfw_view *w)
{
	struct varlena *d = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(n));

	window_view(d, w);
	return d;
}

/* Validates untrusted bytes and returns a new datum holding them. */
static struct varlena *
window_from_bytes(const uint8 *data, size_t len, int sqlstate)
{
	bf_problem	p;
	struct varlena *w;

	if (!bfw_diagnose(data, len, &p))
		bloom_report_problem(&p, sqlstate);
	w = window_alloc(CurrentMemoryContext, len);
	memcpy(VARDATA(w), data, len);
	bfw_unseal((uint8 *) VARDATA(w));
	return w;
}

static void
window_check(struct varlena *d)
{
	bfw_view	w;

	window_view(d, &w);
}

static const BloomTypeIO bloomwindow_io = {
	"bloomwindow", window_from_bytes, window_check, bfw_seal
};

/* ---- type I/O: as bloomfilter, base64 of the portable bytes ---- */

BLOOM_TYPE_IO_FUNCTIONS(bloomwindow, bloomwindow_io)
BLOOM_TYPE_BYTEA_CASTS(bloomwindow, bloomwindow_io)

/* ---- arguments ---- */

/*
 * A window width in microseconds.  Months have no fixed length and are
 * refused; a day counts as 24 hours (buckets are fixed spans of UTC time).
 */
static int64
width_arg(const Interval *iv)
{
	int64		us;

	if (iv->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomwindow width must not contain months or years"),
				 errdetail("A month has no fixed length; a window's buckets are fixed spans of time."),
				 errhint("Give the width in days, hours, minutes or seconds, for example '30 days'.")));
	if (pg_mul_s64_overflow((int64) iv->day, USECS_PER_DAY, &us) ||
		pg_add_s64_overflow(us, iv->time, &us))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("bloomwindow width is out of range")));
	if (us <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomwindow width must be positive")));
	return us;
}

/*
 * The geometry of a window: G buckets of width/G, each sized so that a
 * probe of all G at capacity keys each stays at rate fpr.  A probe is
 * positive if any live bucket's is, so each bucket gets the rate
 * 1 - (1 - fpr)^(1/G).
 */
static void
window_geometry(int64 width_us, int32 buckets, int64 capacity, double fpr,
				int layout, uint64 *nbits, int *hashes, int64 *bucket_us)
{
	double		bucket_fpr;
	bfw_status	st;

	if (buckets < 1 || buckets > BFW_MAX_BUCKETS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomwindow buckets must be between 1 and %d, not %d",
						BFW_MAX_BUCKETS, buckets)));
	if (width_us % buckets != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomwindow width of " INT64_FORMAT " microseconds does not split into %d equal buckets",
						width_us, buckets),
				 errhint("Choose a number of buckets that divides the width: a bucket is a whole number of microseconds.")));
	*bucket_us = width_us / buckets;
	bloom_check_capacity(capacity);
	bloom_check_fpr(fpr);
	bucket_fpr = -expm1(log1p(-fpr) / buckets);
	bloom_size_for(layout, capacity, bucket_fpr, nbits, hashes);
	st = bfw_check_geometry(layout, *hashes, *nbits, buckets, *bucket_us);
	if (st == BFW_ERR_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomwindow of %d buckets for " INT64_FORMAT " keys each at rate %g would exceed the largest value",
						buckets, capacity, fpr)));
	if (st != BFW_OK)
		elog(ERROR, "bloomwindow geometry refused: %s", bfw_status_message(st));
}

/* The bucket of a time argument; ERROR for infinite times. */
static int64
bucket_arg(const bfw_view *w, TimestampTz t)
{
	int64		b;

	if (TIMESTAMP_NOT_FINITE(t))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("bloomwindow time must be finite")));
	if (!bfw_bucket_of(w->bucket_us, t, &b))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("bloomwindow time is out of range for buckets of " INT64_FORMAT " microseconds",
						w->bucket_us)));
	return b;
}

/* ---- constructor ---- */

/*
 * bloom_window_empty(width, buckets, capacity, fpr, layout, seed): an empty
 * window of buckets buckets of width/buckets each, each sized for capacity
 * keys.
 */
Datum
bloomwindow_empty(PG_FUNCTION_ARGS)
{
	int64		width_us = width_arg(PG_GETARG_INTERVAL_P(0));
	int32		buckets = PG_GETARG_INT32(1);
	int64		capacity = PG_GETARG_INT64(2);
	double		fpr = PG_GETARG_FLOAT8(3);
	int			layout = bloom_layout_arg(PG_GETARG_TEXT_PP(4));
	int64		seed = PG_GETARG_INT64(5);
	uint64		nbits;
	int			hashes;
	int64		bucket_us;
	struct varlena *w;

	window_geometry(width_us, buckets, capacity, fpr, layout, &nbits, &hashes, &bucket_us);
	w = window_alloc(CurrentMemoryContext, bfw_buffer_size(buckets, nbits));
	bfw_init((uint8 *) VARDATA(w), layout, hashes, (uint64) seed, nbits, buckets, bucket_us);
	PG_RETURN_POINTER(w);
}

/* ---- add ---- */

/* The window's family as a filter view, for the shared family rules. */
static void
window_family_view(const bfw_view *w, bf_view *v)
{
	memset(v, 0, sizeof(*v));
	v->family = w->family;
	v->type_tag = w->type_tag;
}

/* Adopts or checks the family of keys of type kt; ERROR on a mismatch. */
static void
window_adopt_family(bfw_view *w, const BloomKeyType *kt)
{
	bf_view		fv;

	window_family_view(w, &fv);
	bloom_adopt_family(&fv, kt);
	w->family = fv.family;
	w->type_tag = fv.type_tag;
	bfw_store_header(w);
}

/*
 * bloom_window_add(w, key, at): a copy of w with key added to the bucket of
 * at.  A key older than every bucket the window keeps is dropped.  A NULL
 * key or time leaves the window as it is; a NULL window stays NULL.
 */
Datum
bloomwindow_add(PG_FUNCTION_ARGS)
{
	BloomKeyType *kt;
	struct varlena *d;
	bfw_view	w;
	int64		b;
	int64		newest;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	kt = bloom_key_type_cached(fcinfo, 1, false);
	d = window_getarg_copy(fcinfo, 0, &w);
	b = bucket_arg(&w, PG_GETARG_TIMESTAMPTZ(2));
	window_adopt_family(&w, kt);
	newest = bfw_newest(&w);
	b = bloom_window_bucket_for_add(&w, b, newest, PG_GETARG_TIMESTAMPTZ(2));
	if (bfw_add_hash(&w, b, &newest, bloom_hash_fast(kt, PG_GETARG_DATUM(1), w.seed)))
		bloom_window_warn_overfull_bucket(&w, b);
	PG_RETURN_POINTER(d);
}

/* ---- probe ---- */

/*
 * Per-call-site state of bloom_window_contains: the key type, and the
 * detoast cache (type/bf_type_detoast.h), so that a window probed row after row
 * from TOAST or compressed in the row is decompressed once.  The window's
 * view is decoded at every call, nothing of it kept; windows inline and
 * uncompressed are read in place.
 */
typedef struct BloomWindowProbeCache
{
	BloomKeyType key;
	BloomDetoastCache dc;
} BloomWindowProbeCache;

/*
 * bloom_window_contains(w, key, at): may key have been added to a bucket
 * of the window ending at at, that is one of the G buckets up to and
 * including the bucket of at?
 */
static bool
window_probe(FunctionCallInfo fcinfo, int windowarg, int keyarg, TimestampTz at)
{
	BloomWindowProbeCache *c = (BloomWindowProbeCache *) fcinfo->flinfo->fn_extra;
	struct varlena *d;
	bfw_view	w;
	bf_view		fv;
	int64		b;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomWindowProbeCache));
		bloom_key_type_for_arg(&c->key, fcinfo, keyarg);
		/*
		 * not packed: keeps the 8-byte alignment; a kept copy starts 64-byte
		 * aligned, and so does every slot's bit array
		 */
		bloom_detoast_cache_init(&c->dc, fcinfo->flinfo->fn_mcxt, VARHDRSZ, 0, false);
		fcinfo->flinfo->fn_extra = c;
	}
	d = bloom_detoast_cache_fetch(&c->dc, PG_GETARG_DATUM(windowarg));
	window_view(d, &w);
	window_family_view(&w, &fv);
	if (!bloom_check_family(&fv, &c->key))
		return false;			/* no key was ever added */
	b = bucket_arg(&w, at);
	return bfw_probe_hash(&w, b, bloom_hash_fast(&c->key, PG_GETARG_DATUM(keyarg), w.seed));
}

Datum
bloomwindow_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(window_probe(fcinfo, 0, 1, PG_GETARG_TIMESTAMPTZ(2)));
}

/*
 * w @> key, bloom_window_contains(w, key): at now(), the start of the
 * transaction (hence STABLE, as now() is).
 */
Datum
bloomwindow_contains_now(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(window_probe(fcinfo, 0, 1, GetCurrentTransactionStartTimestamp()));
}

/* key <@ w, bloom_window_contained_in(key, w): the same at now(). */
Datum
bloomwindow_contained_in_now(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(window_probe(fcinfo, 1, 0, GetCurrentTransactionStartTimestamp()));
}

/*
 * bloom_window_filter(w, at): the union of the buckets live at at, as a
 * bloomfilter of the buckets' geometry and the window's key family.
 */
Datum
bloomwindow_filter(PG_FUNCTION_ARGS)
{
	bfw_view	w;
	bf_view		v;
	struct varlena *f;

	window_getarg(fcinfo, 0, &w);
	f = bloomfilter_alloc(w.nbits);
	bf_init((uint8 *) VARDATA(f), w.layout, w.hashes, w.seed, w.nbits);
	bf_view_of((uint8 *) VARDATA(f), &v);
	v.added = bfw_union_live(&w, bucket_arg(&w, PG_GETARG_TIMESTAMPTZ(1)), &v);
	v.family = w.family;
	v.type_tag = w.type_tag;
	bf_store_header((uint8 *) VARDATA(f), &v);
	PG_RETURN_POINTER(f);
}

/* ---- inspection ---- */

/* A bucket boundary as a timestamptz, or NULL past PostgreSQL's range. */
static bool
boundary(int64 us, Datum *out)
{
	if (!IS_VALID_TIMESTAMP(us))
		return false;
	*out = TimestampTzGetDatum(us);
	return true;
}

/*
 * bloom_window_info(w, at): one row per slot, in ring order: the bucket it
 * holds (start and end, NULL for an empty slot), its adds, bits set and
 * estimates, and whether it is live at at.
 */
Datum
bloomwindow_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bfw_view	w;
	int64		at;

	InitMaterializedSRF(fcinfo, 0);
	window_getarg(fcinfo, 0, &w);
	at = bucket_arg(&w, PG_GETARG_TIMESTAMPTZ(1));
	for (uint32 i = 0; i < w.buckets; i++)
	{
		Datum		values[8];
		bool		nulls[8] = {0};
		int64		b = bfw_slot_bucket(&w, i);
		bf_view		v;
		uint64		set;

		bfw_slot_view(&w, i, &v);
		set = bf_popcount(&v);
		values[0] = Int32GetDatum((int32) i);
		if (b == BFW_EMPTY)
			nulls[1] = nulls[2] = true;
		else
		{
			nulls[1] = !boundary(b * w.bucket_us, &values[1]);
			nulls[2] = !boundary((b + 1) * w.bucket_us, &values[2]);
		}
		values[3] = Int64GetDatum(v.added > (uint64) PG_INT64_MAX ? PG_INT64_MAX : (int64) v.added);
		values[4] = Int64GetDatum((int64) set);
		values[5] = Float8GetDatum(bf_est_cardinality(&v));
		values[6] = Float8GetDatum(bf_est_fpr(&v));
		values[7] = BoolGetDatum(bfw_in_range(b, at, w.buckets));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* An interval of us microseconds (whole days kept as hours, as given). */
static Datum
interval_of(int64 us)
{
	Interval   *iv = palloc0(sizeof(Interval));

	iv->time = us;
	return DirectFunctionCall1(interval_justify_hours, IntervalPGetDatum(iv));
}

/* bloom_window_params(w): the window's geometry, one row. */
Datum
bloomwindow_params(PG_FUNCTION_ARGS)
{
	bfw_view	w;
	struct varlena *d = window_getarg(fcinfo, 0, &w);
	TupleDesc	tupdesc;
	Datum		values[10];
	bool		nulls[10] = {0};
	int64		newest;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	newest = bfw_newest(&w);

	values[0] = interval_of(w.width_us);
	values[1] = interval_of(w.bucket_us);
	values[2] = Int32GetDatum((int32) w.buckets);
	values[3] = CStringGetTextDatum(bf_layout_name(w.layout));
	values[4] = Int64GetDatum((int64) w.nbits);
	values[5] = Int32GetDatum(w.hashes);
	values[6] = Int64GetDatum((int64) w.seed);
	values[7] = CStringGetTextDatum(bloom_family_display(w.family, w.type_tag));
	values[8] = Int64GetDatum((int64) VARSIZE_ANY_EXHDR(d));
	if (newest == BFW_EMPTY)
		nulls[9] = true;
	else
		nulls[9] = !boundary((newest + 1) * w.bucket_us, &values[9]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ---- bloom_window_agg ---- */

/*
 * The state is the window itself, updated in place, with its newest bucket
 * kept so that a row costs no scan of the ring.  The kept buckets depend
 * only on the multiset of (key, at) rows (see bf_window.h), and merging
 * two states is adding one's keys to the other, so every plan gives the
 * same bytes.
 */
typedef struct BloomWindowState
{
	struct varlena *win;		/* in the aggregate context */
	bfw_view	w;
	int64		newest;
} BloomWindowState;

/* A state owning a copy of window bytes (trusted), in cxt. */
static BloomWindowState *
state_from(MemoryContext cxt, const uint8 *data, size_t len)
{
	BloomWindowState *st = MemoryContextAllocZero(cxt, sizeof(BloomWindowState));

	st->win = window_alloc(cxt, len);
	memcpy(VARDATA(st->win), data, len);
	bfw_view_of((uint8 *) VARDATA(st->win), &st->w);
	st->newest = bfw_newest(&st->w);
	return st;
}

/*
 * bloom_window_agg(key, at, width [, buckets, capacity, fpr]) transition:
 * the window is made on the first row; rows with a NULL key or time are
 * skipped, and keys too old for the ring are dropped, as by
 * bloom_window_add.
 */
Datum
bloomwindow_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_WINDOW, "bloomwindow_agg_trans");
	BloomWindowState *st = e ? (BloomWindowState *) e->state : NULL;

	if (st == NULL)
	{
		MemoryContext aggctx;
		bool		full = PG_NARGS() >= 7;
		int32		buckets = 6;
		int64		capacity = 100000;
		double		fpr = 0.01;
		int64		width_us;
		int64		bucket_us;
		uint64		nbits;
		int			hashes;

		for (int i = 3; i < PG_NARGS(); i++)
			if (PG_ARGISNULL(i))
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("bloom_window_agg width, buckets, capacity and false-positive rate must not be null")));
		width_us = width_arg(PG_GETARG_INTERVAL_P(3));
		if (full)
		{
			buckets = PG_GETARG_INT32(4);
			capacity = PG_GETARG_INT64(5);
			fpr = PG_GETARG_FLOAT8(6);
		}
		window_geometry(width_us, buckets, capacity, fpr, BF_LAYOUT_BLOCKED,
						&nbits, &hashes, &bucket_us);
		e = bloom_aggstate_new(bloom_agg_context(fcinfo, "bloomwindow_agg_trans"), BFAS_KIND_WINDOW);
		aggctx = bloom_aggstate_context(e);
		st = MemoryContextAllocZero(aggctx, sizeof(BloomWindowState));
		e->state = st;
		st->win = window_alloc(aggctx, bfw_buffer_size(buckets, nbits));
		bfw_init((uint8 *) VARDATA(st->win), BF_LAYOUT_BLOCKED, hashes, 0, nbits,
				 buckets, bucket_us);
		bfw_view_of((uint8 *) VARDATA(st->win), &st->w);
		st->newest = BFW_EMPTY;
	}
	if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2))
	{
		/* looked up on the first non-NULL key: a NULL record has no columns */
		BloomKeyType *kt = bloom_aggstate_key_type(e, fcinfo, 1);
		int64		b = bucket_arg(&st->w, PG_GETARG_TIMESTAMPTZ(2));

		b = bloom_window_bucket_for_add(&st->w, b, st->newest, PG_GETARG_TIMESTAMPTZ(2));
		if (unlikely(st->w.family == BF_FAMILY_NONE))
			window_adopt_family(&st->w, kt);
		(void) bfw_add_hash(&st->w, b, &st->newest,
							bloom_hash_fast(kt, PG_GETARG_DATUM(1), st->w.seed));
	}
	BLOOM_AGGSTATE_RETURN(e);
}

Datum
bloomwindow_agg_final(PG_FUNCTION_ARGS)
{
	BloomWindowState *st = bloom_aggstate_read_arg(fcinfo, 0, BFAS_KIND_WINDOW);
	struct varlena *out;

	if (st == NULL)
		PG_RETURN_NULL();
	/* copied: the state may go on changing (window aggregates) */
	out = window_alloc(CurrentMemoryContext, VARSIZE(st->win) - VARHDRSZ);
	memcpy(out, st->win, VARSIZE(st->win));
	bloom_window_warn_overfull(&st->w);
	PG_RETURN_POINTER(out);
}

/*
 * Merges window w2 (bytes win2) into state e (a new one, in aggctx, if e
 * is NULL): every bucket the union of that bucket in both, as if every key
 * of w2 had been added to e (bfw_merge), whatever the order.
 */
static BloomAggStateObject *
window_merge_into(MemoryContext aggctx, BloomAggStateObject *e, const struct varlena *win2,
				  const bfw_view *w2, const char *what)
{
	BloomWindowState *s1;

	if (e == NULL)
	{
		e = bloom_aggstate_new(aggctx, BFAS_KIND_WINDOW);
		e->state = state_from(bloom_aggstate_context(e), (const uint8 *) VARDATA_ANY(win2),
							  VARSIZE_ANY_EXHDR(win2));
		return e;
	}
	s1 = e->state;
	if (!bfw_same_geometry(&s1->w, w2))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine %s of different geometries", what),
				 errdetail("Every window of one aggregate must have the same width, buckets, capacity and false-positive rate.")));
	if (s1->w.family != BF_FAMILY_NONE && w2->family != BF_FAMILY_NONE &&
		(s1->w.family != w2->family || s1->w.type_tag != w2->type_tag))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot combine %s holding keys of different families", what)));
	bfw_merge(&s1->w, w2);
	s1->newest = bfw_newest(&s1->w);
	return e;
}

Datum
bloomwindow_agg_combine(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_WINDOW, "bloomwindow_agg_combine");
	BloomWindowState *s2 = bloom_aggstate_read_arg(fcinfo, 1, BFAS_KIND_WINDOW);

	if (s2 == NULL)
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	e = window_merge_into(e ? NULL : bloom_agg_context(fcinfo, "bloomwindow_agg_combine"),
						  e, s2->win, &s2->w, "bloom_window_agg states");
	BLOOM_AGGSTATE_RETURN(e);
}

/*
 * bloom_union_agg(bloomwindow): the merge of the windows (all of one
 * geometry), NULLs skipped; NULL over no window.  A key added to any input
 * in a bucket still live in the result is found there.
 */
Datum
bloomwindow_union_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggStateObject  *e = bloom_aggstate_trans_arg(fcinfo, 0, BFAS_KIND_WINDOW, "bloom_union_agg");
	struct varlena *win;
	bfw_view	w;

	if (PG_ARGISNULL(1))
	{
		if (e == NULL)
			PG_RETURN_NULL();
		BLOOM_AGGSTATE_RETURN(e);
	}
	win = window_getarg(fcinfo, 1, &w);
	e = window_merge_into(e ? NULL : bloom_agg_context(fcinfo, "bloom_union_agg"),
						  e, win, &w, "bloomwindows");
	BLOOM_AGGSTATE_RETURN(e);
}

/* The payload of a state of kind 'w': the window's bytes, sealed. */
bytea *
bloom_window_agg_encode(void *state)
{
	BloomWindowState *st = (BloomWindowState *) state;
	size_t		len = VARSIZE(st->win) - VARHDRSZ;
	bytea	   *out = (bytea *) window_alloc(CurrentMemoryContext, len);

	memcpy(VARDATA(out), VARDATA(st->win), len);
	bfw_seal((uint8 *) VARDATA(out), len);
	return out;
}

/* A state from its payload, validated as every other way bytes come in. */
void *
bloom_window_agg_decode(const uint8 *data, size_t len, bool own pg_attribute_unused())
{
	bf_problem	p;
	BloomWindowState *s;

	if (!bfw_diagnose(data, len, &p))
		bloom_report_problem(&p, ERRCODE_DATA_CORRUPTED);
	s = state_from(CurrentMemoryContext, data, len);
	bfw_unseal((uint8 *) VARDATA(s->win));
	return s;
}
