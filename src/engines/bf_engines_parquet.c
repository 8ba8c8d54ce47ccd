/*
 * engines/bf_engines_parquet.c
 *		Layout parquet: keys as the plain encoding of the Parquet physical
 *		type their SQL type is written as (README, "Formats other engines
 *		use"), probes that convert to the filter's physical type, and
 *		bloom_from_parquet / bloom_to_parquet.
 *
 * A false negative is the bug to avoid: a probe tries every encoding of a
 * value that SQL's = calls equal to it (0.0 and -0.0), answers true where
 * there are too many (NaN, whose payloads writers keep), answers false only
 * where no value of the physical type can equal it (an int8 beyond INT32,
 * an infinite date), and refuses (ERROR) where the conversion depends on
 * what the column means and the filter does not say.
 */
#include "engines/bf_engines.h"
#include "bf_report.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(bloomfilter_from_parquet);
PG_FUNCTION_INFO_V1(bloomfilter_to_parquet);

/* PostgreSQL counts from 2000-01-01, Parquet from 1970-01-01 */
#define PQ_EPOCH_DAYS	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE))
#define PQ_EPOCH_USECS	(PQ_EPOCH_DAYS * USECS_PER_DAY)

/* At most this many encodings are tried for one probe. */
#define PQ_MAX_CAND 2

/* What a key converts to: n hashes, or "any": answer true. */
typedef struct pq_cand
{
	int			n;
	bool		any;
	uint64		h[PQ_MAX_CAND];
} pq_cand;

static void
refuse_type(Oid typid, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a key of type %s has no single Parquet plain encoding", format_type_be(typid)),
			 errdetail("%s", why),
			 errhint("Cast the key to the type its Parquet column is written from: int4, int8, float4, float8, date, timestamp, timestamptz, text or bytea, uuid.")));
}

unsigned
bloom_parquet_type_of(const BloomKeyType *kt)
{
	switch (kt->typid)
	{
		case INT2OID:
		case INT4OID:
		case DATEOID:
			return BF_PQ_INT32;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return BF_PQ_INT64;
		case FLOAT4OID:
			return BF_PQ_FLOAT;
		case FLOAT8OID:
			return BF_PQ_DOUBLE;
		case TEXTOID:
		case VARCHAROID:
		case NAMEOID:
		case BYTEAOID:
			return BF_PQ_BYTE_ARRAY;
		case UUIDOID:
			return BF_PQ_FLBA;
		case BPCHAROID:
			refuse_type(kt->typid, "character(n) compares without its trailing spaces, and a Parquet column holds either form.");
			break;
		default:
			refuse_type(kt->typid, "Parquet filters take the types of the table in the README, section \"Formats other engines use\".");
	}
	return 0;
}

static void
mismatch(const bf_view *v, const BloomKeyType *kt, bool adding)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("keys of type %s cannot be %s a parquet filter of physical type %s holding %s keys",
					format_type_be(kt->typid), adding ? "added to" : "probed in",
					bf_parquet_type_name(v->param),
					bloom_family_display(v->family, v->type_tag)),
			 errhint("Cast the key to the type the filter's keys were written from.")));
}

/*
 * Whether keys of kt convert to the filter's physical type at all (values
 * may still fall outside it).  Date and timestamp convert into INT64 and
 * INT32 only where the filter's family says the column holds timestamps or
 * dates; an integer column gives them no meaning.
 */
static bool
compatible(const bf_view *v, const BloomKeyType *kt)
{
	unsigned	own = bloom_parquet_type_of(kt);

	switch (kt->typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return v->param == BF_PQ_INT32 || v->param == BF_PQ_INT64 ||
				v->param == BF_PQ_FLOAT || v->param == BF_PQ_DOUBLE;
		case FLOAT4OID:
		case FLOAT8OID:
			return v->param == BF_PQ_FLOAT || v->param == BF_PQ_DOUBLE;
		case DATEOID:
			return v->param == BF_PQ_INT32 ||
				(v->param == BF_PQ_INT64 && (v->family == BF_FAMILY_TIMESTAMP ||
											 v->family == BF_FAMILY_TIMESTAMPTZ));
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return v->param == BF_PQ_INT64 ||
				(v->param == BF_PQ_INT32 && v->family == BF_FAMILY_DATE);
		case UUIDOID:
		case BYTEAOID:
			return v->param == BF_PQ_BYTE_ARRAY || v->param == BF_PQ_FLBA;
	}
	return own == v->param;
}

void
bloom_parquet_adopt(bf_view *v, const BloomKeyType *kt)
{
	unsigned	own = bloom_parquet_type_of(kt);

	if (v->param == BF_PQ_UNSET)
	{
		v->param = (uint16) own;
		v->family = kt->family;
		v->type_tag = kt->type_tag;
		return;
	}
	if (!compatible(v, kt))
		mismatch(v, kt, true);
	/* the integers of a float column, as float8: refused on adding */
	if ((v->param == BF_PQ_FLOAT || v->param == BF_PQ_DOUBLE) &&
		kt->family == BF_FAMILY_INTEGER)
		mismatch(v, kt, true);
}

bool
bloom_parquet_check_probe(const bf_view *v, const BloomKeyType *kt)
{
	(void) bloom_parquet_type_of(kt);	/* refuses types with none */
	if (v->param == BF_PQ_UNSET)
		return false;
	if (!compatible(v, kt))
		mismatch(v, kt, false);
	return true;
}

/* ---- the candidates of a value ---- */

static void
add_cand(pq_cand *c, uint64 h)
{
	Assert(c->n < PQ_MAX_CAND);
	c->h[c->n++] = h;
}

/* A double equal under = to d, in a FLOAT or DOUBLE column. */
static void
float_cands(unsigned param, double d, pq_cand *c)
{
	if (isnan(d))
	{
		/* NaN = NaN in SQL, whatever payload the writer kept */
		c->any = true;
		return;
	}
	if (param == BF_PQ_DOUBLE)
	{
		add_cand(c, bf_parquet_hash_double(d));
		if (d == 0.0)
			add_cand(c, bf_parquet_hash_double(-d));
		return;
	}
	/* FLOAT: only a double a float holds exactly equals a float4 value */
	if (fabs(d) <= FLT_MAX && (double) (float) d == d)
	{
		add_cand(c, bf_parquet_hash_float((float) d));
		if (d == 0.0)
			add_cand(c, bf_parquet_hash_float(-(float) d));
	}
	else if (isinf(d))
		add_cand(c, bf_parquet_hash_float((float) d));
}

/* days since 1970 of a date (finite), into an INT32 column */
static void
int32_cand(int64 x, pq_cand *c)
{
	if (x >= PG_INT32_MIN && x <= PG_INT32_MAX)
		add_cand(c, bf_parquet_hash_int32((int32) x));
}

/* microseconds since 2000 to since 1970, unless it overflows */
static void
micros_cand(int64 pgts, pq_cand *c)
{
	int64		x;

	if (!pg_add_s64_overflow(pgts, PQ_EPOCH_USECS, &x))
		add_cand(c, bf_parquet_hash_int64(x));
}

/* The UTF-8 bytes of a text value, hashed; conversion if the database is not UTF-8. */
static uint64
text_hash(Datum value, bool is_name)
{
	const char *p;
	int			len;
	struct varlena *t = NULL;
	char	   *u;
	uint64		h;

	if (is_name)
	{
		p = NameStr(*DatumGetName(value));
		len = (int) strlen(p);
	}
	else
	{
		t = PG_DETOAST_DATUM_PACKED(value);
		p = VARDATA_ANY(t);
		len = (int) VARSIZE_ANY_EXHDR(t);
	}
	u = pg_server_to_any(p, len, PG_UTF8);
	h = bf_parquet_hash_bytes(u, u == p ? (size_t) len : strlen(u));
	if (u != p)
		pfree(u);
	if (t != NULL && (Pointer) t != DatumGetPointer(value))
		pfree(t);
	return h;
}

static uint64
bytea_hash(Datum value)
{
	struct varlena *t = PG_DETOAST_DATUM_PACKED(value);
	uint64		h = bf_parquet_hash_bytes(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);
	return h;
}

/*
 * The encodings of value (of kt's type) in the filter's physical type that
 * SQL's = calls equal to it.  For adding, the value's own encoding comes
 * first (-0.0 is written as -0.0, as engines write it).
 */
static void
candidates(const bf_view *v, const BloomKeyType *kt, Datum value, pq_cand *c)
{
	c->n = 0;
	c->any = false;
	switch (kt->typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			{
				int64		x = kt->typid == INT8OID ? DatumGetInt64(value) :
					kt->typid == INT4OID ? DatumGetInt32(value) : DatumGetInt16(value);

				if (v->param == BF_PQ_INT32)
					int32_cand(x, c);
				else if (v->param == BF_PQ_INT64)
					add_cand(c, bf_parquet_hash_int64(x));
				else			/* int = float compares the int as float8 */
					float_cands(v->param, (double) x, c);
				return;
			}
		case FLOAT4OID:
			float_cands(v->param, (double) DatumGetFloat4(value), c);
			return;
		case FLOAT8OID:
			float_cands(v->param, DatumGetFloat8(value), c);
			return;
		case DATEOID:
			{
				DateADT		d = DatumGetDateADT(value);
				int			overflow = 0;

				if (DATE_NOT_FINITE(d))
					return;		/* Parquet stores no infinite date */
				if (v->param == BF_PQ_INT32)
					int32_cand((int64) d + PQ_EPOCH_DAYS, c);
				else if (v->family == BF_FAMILY_TIMESTAMPTZ)
				{
					/* date = timestamptz: midnight in the session's zone */
					TimestampTz t = date2timestamptz_opt_overflow(d, &overflow);

					if (overflow == 0 && !TIMESTAMP_NOT_FINITE(t))
						micros_cand(t, c);
				}
				else
				{
					Timestamp	t = date2timestamp_opt_overflow(d, &overflow);

					if (overflow == 0 && !TIMESTAMP_NOT_FINITE(t))
						micros_cand(t, c);
				}
				return;
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				int64		t = DatumGetTimestamp(value);
				bool		tz = kt->typid == TIMESTAMPTZOID;

				if (TIMESTAMP_NOT_FINITE(t))
					return;
				/*
				 * timestamp = timestamptz and date = timestamptz read the
				 * timestamp or date in the session's zone
				 */
				if ((tz && (v->param == BF_PQ_INT32 || v->family == BF_FAMILY_TIMESTAMP)) ||
					(!tz && v->param == BF_PQ_INT64 && v->family == BF_FAMILY_TIMESTAMPTZ))
				{
					if (tz)
						t = DatumGetTimestamp(DirectFunctionCall1(timestamptz_timestamp,
																  TimestampTzGetDatum(t)));
					else
					{
						int			overflow = 0;

						t = timestamp2timestamptz_opt_overflow(t, &overflow);
						if (overflow != 0)
							return;
					}
					if (TIMESTAMP_NOT_FINITE(t))
						return;
				}
				if (v->param == BF_PQ_INT32)
				{
					/* date = timestamp: only a midnight equals a date */
					if (t % USECS_PER_DAY == 0)
						int32_cand(t / USECS_PER_DAY + PQ_EPOCH_DAYS, c);
					return;
				}
				micros_cand(t, c);
				return;
			}
		case TEXTOID:
		case VARCHAROID:
			add_cand(c, text_hash(value, false));
			return;
		case NAMEOID:
			add_cand(c, text_hash(value, true));
			return;
		case BYTEAOID:
			add_cand(c, bytea_hash(value));
			return;
		case UUIDOID:
			add_cand(c, bf_parquet_hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN));
			return;
	}
	refuse_type(kt->typid, "Parquet filters take the types of the table in the README.");
}

uint64
bloom_parquet_add_hash(const bf_view *v, const BloomKeyType *kt, Datum value)
{
	pq_cand		c;

	if (kt->typid == FLOAT4OID && v->param == BF_PQ_FLOAT)
		return bf_parquet_hash_float(DatumGetFloat4(value));
	if (kt->typid == FLOAT8OID && v->param == BF_PQ_DOUBLE)
		return bf_parquet_hash_double(DatumGetFloat8(value));
	if (kt->typid == FLOAT4OID && v->param == BF_PQ_DOUBLE)
		return bf_parquet_hash_double((double) DatumGetFloat4(value));
	candidates(v, kt, value, &c);
	if (c.any && kt->typid == FLOAT8OID)	/* a NaN into a FLOAT column */
		return bf_parquet_hash_float((float) DatumGetFloat8(value));
	if (c.n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the key cannot be written as the parquet filter's physical type %s",
						bf_parquet_type_name(v->param)),
				 errdetail("The value of type %s is out of that type's range, not exactly representable in it, or infinite.",
						   format_type_be(kt->typid))));
	return c.h[0];
}

bool
bloom_parquet_probe(const bf_view *v, const BloomKeyType *kt, Datum value)
{
	pq_cand		c;

	candidates(v, kt, value, &c);
	if (c.any)
		return true;
	for (int i = 0; i < c.n; i++)
		if (bf_probe_hash(v, c.h[i]))
			return true;
	return false;
}

/* Is kt one of the types the table of the README writes? (never an ERROR) */
static bool
known_type(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case TEXTOID:
		case VARCHAROID:
		case NAMEOID:
		case BYTEAOID:
		case UUIDOID:
			return true;
	}
	return false;
}

/*
 * Would bloom_parquet_check_probe(v, kt) pass without an ERROR?  The
 * indexes leave the probes it refuses to the table's recheck, which raises
 * the error for visible rows only.
 */
bool
bloom_parquet_can_probe(const bf_view *v, const BloomKeyType *kt)
{
	return known_type(kt->typid) &&
		(v->param == BF_PQ_UNSET || compatible(v, kt));
}

int
bloom_parquet_index_hash(unsigned param, uint16 family, const BloomKeyType *kt,
						 Datum value, uint64 *h)
{
	bf_view		v;
	pq_cand		c;

	memset(&v, 0, sizeof(v));
	v.layout = BF_LAYOUT_PARQUET;
	v.param = (uint16) param;
	v.family = family;
	if (param == BF_PQ_UNSET)
		return family == BF_FAMILY_NONE ? 0 : -1;
	if (!known_type(kt->typid) || !compatible(&v, kt))
		return -1;				/* the table's probe says (or raises) */
	candidates(&v, kt, value, &c);
	if (c.any || c.n > 1)
		return -1;
	if (c.n == 1)
		*h = c.h[0];
	return c.n;
}

/* ---- import and export ---- */

/* The family an imported filter records: the plainest type of each physical type. */
static uint16
import_family(unsigned t)
{
	switch (t)
	{
		case BF_PQ_INT32:
		case BF_PQ_INT64:
			return BF_FAMILY_INTEGER;
		case BF_PQ_FLOAT:
		case BF_PQ_DOUBLE:
			return BF_FAMILY_FLOAT;
		case BF_PQ_BYTE_ARRAY:
			return BF_FAMILY_TEXT;
		case BF_PQ_FLBA:
			return BF_FAMILY_UUID;
	}
	return BF_FAMILY_NONE;
}

/*
 * The logical types a column of a physical type may carry, when they change
 * what its values mean to a probe (README): the family recorded.
 */
static bool
import_type_arg(const char *name, unsigned *t, uint16 *family)
{
	*t = bf_parquet_type_from_name(name);
	if (*t != 0)
	{
		*family = import_family(*t);
		return true;
	}
	if (strcmp(name, "DATE") == 0)
		*t = BF_PQ_INT32, *family = BF_FAMILY_DATE;
	else if (strcmp(name, "TIMESTAMP") == 0)
		*t = BF_PQ_INT64, *family = BF_FAMILY_TIMESTAMP;
	else if (strcmp(name, "TIMESTAMPTZ") == 0)
		*t = BF_PQ_INT64, *family = BF_FAMILY_TIMESTAMPTZ;
	else if (strcmp(name, "BYTEA") == 0)
		*t = BF_PQ_BYTE_ARRAY, *family = BF_FAMILY_BYTEA;
	else
		return false;
	return true;
}

/*
 * bloom_from_parquet(data, physical_type): the BloomFilterHeader and bitset
 * as they sit at a column chunk's bloom_filter_offset, every byte checked.
 */
Datum
bloomfilter_from_parquet(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	char	   *tname = text_to_cstring(PG_GETARG_TEXT_PP(1));
	const uint8 *data = (const uint8 *) VARDATA_ANY(b);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	size_t		off;
	uint32		nbytes;
	unsigned	ptype;
	uint16		family;
	bf_pq_status st;
	struct varlena *f;
	bf_view		v;

	if (!import_type_arg(tname, &ptype, &family))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown Parquet physical type \"%s\"", tname),
				 errhint("The types are INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY; DATE, TIMESTAMP, TIMESTAMPTZ and BYTEA name INT32, INT64, INT64 and BYTE_ARRAY columns of those logical types.")));
	st = bf_parquet_read(data, len, &off, &nbytes);
	if (st != BF_PQ_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid Parquet Bloom filter: %s", bf_parquet_status_message(st)),
				 errdetail("%zu bytes were given; a Parquet Bloom filter is a Thrift compact BloomFilterHeader (BLOCK, XXHASH, UNCOMPRESSED) followed by numBytes of bitset, a multiple of 32.",
						   len)));
	f = bloomfilter_alloc((uint64) nbytes * 8);
	bf_init((uint8 *) VARDATA(f), BF_LAYOUT_PARQUET, BF_PARQUET_HASHES, 0,
			(uint64) nbytes * 8);
	bf_view_of((uint8 *) VARDATA(f), &v);
	memcpy(v.bits, data + off, nbytes);
	v.param = (uint16) ptype;
	v.family = family;
	v.type_tag = 0;
	/* the count of keys is not in the file: the estimate, at least 1 if any bit */
	v.added = 0;
	for (uint32 i = 0; i < nbytes; i++)
		if (v.bits[i])
		{
			double		n = bf_est_cardinality(&v);

			v.added = n < 1.0 ? 1 : (uint64) llround(n);
			break;
		}
	if (v.added == 0)
		v.family = BF_FAMILY_NONE, v.param = (uint16) ptype;
	bf_store_header((uint8 *) VARDATA(f), &v);
	PG_RETURN_POINTER(f);
}

/* bloom_to_parquet(f): the header and bitset a Parquet writer puts in a file. */
Datum
bloomfilter_to_parquet(PG_FUNCTION_ARGS)
{
	bf_view		v;
	uint8		hdr[BF_PQ_HEADER_MAX];
	size_t		hl;
	bytea	   *out;

	(void) bloomfilter_getarg(fcinfo, 0, &v);
	if (v.layout != BF_LAYOUT_PARQUET)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_to_parquet needs a filter of layout parquet, not %s",
						bf_layout_name(v.layout)),
				 errhint("Build it with bloom_empty(capacity, fpr, 'parquet') or bloom_agg(x, capacity, fpr, 'parquet').")));
	hl = bf_parquet_write_header(hdr, (uint32) (v.nbits / 8));
	out = (bytea *) palloc(VARHDRSZ + hl + v.nbits / 8);
	SET_VARSIZE(out, VARHDRSZ + hl + v.nbits / 8);
	memcpy(VARDATA(out), hdr, hl);
	memcpy(VARDATA(out) + hl, v.bits, v.nbits / 8);
	PG_RETURN_BYTEA_P(out);
}
