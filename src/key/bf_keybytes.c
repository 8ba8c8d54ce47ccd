/*
 * key/bf_keybytes.c
 *		Writes the key bytes of a value: the canonical encoding that
 *		src/core/FORMAT.md ("Key bytes") documents for another program.
 *
 * Every rule here exists so that two values that SQL's = calls equal give
 * the same bytes, in any database encoding, session setting or plan: text
 * is converted to UTF-8, numbers are written by value, the parts of arrays,
 * rows and ranges are written by the rules of their own types, and no
 * output function that follows client_encoding, DateStyle or
 * extra_float_digits is used.  Parts inside composite values are framed
 * (null flag, length), so no two different part lists give the same bytes.
 */
#include "key/bf_key_encoding.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_enum.h"
#include "common/int128.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/rangetypes.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

/* Range flags in the key bytes (not PostgreSQL's own bits, which may move). */
#define KEY_RANGE_EMPTY		0x01
#define KEY_RANGE_LB_INC	0x02
#define KEY_RANGE_UB_INC	0x04
#define KEY_RANGE_LB_INF	0x08
#define KEY_RANGE_UB_INF	0x10

static void
append_le(StringInfo out, uint64 v, int nbytes)
{
	char		b[8];

	for (int i = 0; i < nbytes; i++)
		b[i] = (char) (v >> (8 * i));
	appendBinaryStringInfo(out, b, nbytes);
}

/* Reserves a 4-byte length; end_length fills it with what came after. */
static int
begin_length(StringInfo out)
{
	int			at = out->len;

	append_le(out, 0, 4);
	return at;
}

static void
end_length(StringInfo out, int at)
{
	uint32		n = (uint32) (out->len - at - 4);

	for (int i = 0; i < 4; i++)
		out->data[at + i] = (char) (n >> (8 * i));
}

bool
bloom_db_text_is_utf8(void)
{
	int			enc = GetDatabaseEncoding();

	/* SQL_ASCII declares no encoding: its bytes are all there is */
	return enc == PG_UTF8 || enc == PG_SQL_ASCII;
}

/*
 * The conversion from the database encoding to UTF-8, looked up once: the
 * database, and so its encoding, never changes in a backend.
 * pg_server_to_any would look the conversion up in the catalog per string.
 */
static FmgrInfo *
utf8_conversion(void)
{
	static FmgrInfo *conv = NULL;

	if (conv == NULL)
	{
		Oid			proc = FindDefaultConversionProc(GetDatabaseEncoding(), PG_UTF8);
		FmgrInfo   *f;

		if (!OidIsValid(proc))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("there is no conversion from encoding \"%s\" to UTF8",
							GetDatabaseEncodingName()),
					 errdetail("Text keys are hashed as UTF-8, whatever the database encoding.")));
		f = MemoryContextAllocZero(TopMemoryContext, sizeof(FmgrInfo));
		fmgr_info_cxt(proc, f, TopMemoryContext);
		conv = f;
	}
	return conv;
}

void
bloom_append_utf8(StringInfo out, const char *str, size_t len)
{
	char	   *utf8;
	size_t		i;

	if (!bloom_db_text_is_utf8())
	{
		/* every server encoding is ASCII where the high bit is clear */
		for (i = 0; i < len; i++)
			if (IS_HIGHBIT_SET(str[i]))
				break;
		if (i < len)
		{
			if (len >= MaxAllocHugeSize / MAX_CONVERSION_GROWTH)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("a text key of %zu bytes is too long to convert to UTF-8", len)));
			utf8 = MemoryContextAllocHuge(CurrentMemoryContext,
										  len * MAX_CONVERSION_GROWTH + 1);
			FunctionCall6(utf8_conversion(),
						  Int32GetDatum(GetDatabaseEncoding()),
						  Int32GetDatum(PG_UTF8),
						  CStringGetDatum(str),
						  CStringGetDatum(utf8),
						  Int32GetDatum((int32) len),
						  BoolGetDatum(false));
			appendBinaryStringInfo(out, utf8, strlen(utf8));
			pfree(utf8);
			return;
		}
	}
	appendBinaryStringInfo(out, str, len);
}

/*
 * A numeric by value: numeric_out's digits (never an exponent, "0." before
 * a fraction, no "-0") without trailing fractional zeros or a bare point,
 * so that 1.0 and 1.00 write "1".  A palloc'd string; *len is the length
 * to use.
 */
char *
bloom_numeric_text(Datum num, size_t *len)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, num));
	size_t		n = strlen(s);

	if (memchr(s, '.', n) != NULL)
	{
		while (n > 0 && s[n - 1] == '0')
			n--;
		if (n > 0 && s[n - 1] == '.')
			n--;
	}
	*len = n;
	return s;
}

static void
append_numeric(StringInfo out, Datum num)
{
	size_t		len;
	char	   *s = bloom_numeric_text(num, &len);

	appendBinaryStringInfo(out, s, len);
	pfree(s);
}

/* A double's bits, with -0 as 0 and every NaN as one NaN. */
uint64
bloom_double_bits(double d)
{
	uint64		bits;

	if (isnan(d))
		return UINT64CONST(0x7ff8000000000000);
	if (d == 0.0)
		d = 0.0;				/* -0 == 0 */
	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

/*
 * interval's = compares the span, with a month as 30 days and a day as 24
 * hours, as a 128-bit count of microseconds (interval_cmp_value).
 */
static void
append_interval(StringInfo out, const Interval *iv)
{
	INT128		span = int64_to_int128(iv->time);
	uint64		lo;
	int64		hi;

	int128_add_int64_mul_int64(&span, (int64) iv->month * DAYS_PER_MONTH + iv->day,
							   USECS_PER_DAY);
#if USE_NATIVE_INT128
	lo = (uint64) span;
	hi = (int64) (span >> 64);
#else
	lo = span.lo;
	hi = span.hi;
#endif
	append_le(out, lo, 8);
	append_le(out, (uint64) hi, 8);
}

/* ---- jsonb ---- */

static void append_jsonb_container(StringInfo out, JsonbContainer *jc);

/* A string with its length, as UTF-8. */
static void
append_counted_utf8(StringInfo out, const char *str, size_t len)
{
	int			at = begin_length(out);

	bloom_append_utf8(out, str, len);
	end_length(out, at);
}

static void
append_jsonb_value(StringInfo out, JsonbValue *v)
{
	int			at;

	switch (v->type)
	{
		case jbvNull:
			appendStringInfoChar(out, 'n');
			break;
		case jbvBool:
			appendStringInfoChar(out, v->val.boolean ? 't' : 'f');
			break;
		case jbvNumeric:
			appendStringInfoChar(out, 'd');
			at = begin_length(out);
			append_numeric(out, NumericGetDatum(v->val.numeric));
			end_length(out, at);
			break;
		case jbvString:
			appendStringInfoChar(out, 's');
			append_counted_utf8(out, v->val.string.val, v->val.string.len);
			break;
		case jbvBinary:
			append_jsonb_container(out, v->val.binary.data);
			break;
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
}

/* One pair of an object, written apart so the pairs can be sorted. */
typedef struct JsonbPairBytes
{
	StringInfoData key;			/* the key as UTF-8 */
	StringInfoData value;		/* the value's bytes */
} JsonbPairBytes;

/*
 * Pairs in the order jsonb keeps them in a UTF-8 database: shorter keys
 * first, then bytewise.  In another encoding the stored order may differ,
 * since key lengths change in UTF-8.
 */
static int
jsonb_pair_cmp(const void *a, const void *b)
{
	const JsonbPairBytes *x = a;
	const JsonbPairBytes *y = b;

	if (x->key.len != y->key.len)
		return x->key.len < y->key.len ? -1 : 1;
	return memcmp(x->key.data, y->key.data, x->key.len);
}

static void
append_jsonb_container(StringInfo out, JsonbContainer *jc)
{
	JsonbIterator *it = JsonbIteratorInit(jc);
	JsonbValue	v;
	JsonbIteratorToken tok;

	check_stack_depth();
	tok = JsonbIteratorNext(&it, &v, true);
	if (tok == WJB_BEGIN_ARRAY)
	{
		/* a raw scalar ('1') is not the array '[1]' */
		bool		raw = v.val.array.rawScalar;

		if (!raw)
			appendStringInfoChar(out, '[');
		while ((tok = JsonbIteratorNext(&it, &v, true)) == WJB_ELEM)
			append_jsonb_value(out, &v);
		if (!raw)
			appendStringInfoChar(out, ']');
	}
	else if (tok == WJB_BEGIN_OBJECT)
	{
		int			npairs = v.val.object.nPairs;
		JsonbPairBytes *pairs = palloc(sizeof(JsonbPairBytes) * Max(npairs, 1));
		int			n = 0;

		while ((tok = JsonbIteratorNext(&it, &v, true)) == WJB_KEY)
		{
			Assert(n < npairs);
			initStringInfo(&pairs[n].key);
			bloom_append_utf8(&pairs[n].key, v.val.string.val, v.val.string.len);
			tok = JsonbIteratorNext(&it, &v, true);
			if (tok != WJB_VALUE)
				elog(ERROR, "unexpected jsonb token %d", (int) tok);
			initStringInfo(&pairs[n].value);
			append_jsonb_value(&pairs[n].value, &v);
			n++;
		}
		qsort(pairs, n, sizeof(JsonbPairBytes), jsonb_pair_cmp);
		appendStringInfoChar(out, '{');
		for (int i = 0; i < n; i++)
		{
			appendStringInfoChar(out, 'k');
			append_le(out, (uint64) pairs[i].key.len, 4);
			appendBinaryStringInfo(out, pairs[i].key.data, pairs[i].key.len);
			appendBinaryStringInfo(out, pairs[i].value.data, pairs[i].value.len);
		}
		appendStringInfoChar(out, '}');
	}
	else
		elog(ERROR, "unexpected jsonb token %d", (int) tok);
}

/* ---- composite values ---- */

/* A part of a composite value: 0 for NULL, else 1, length, key bytes. */
static void
append_part(BloomEnc *e, Datum value, bool isnull, StringInfo out)
{
	int			at;

	if (isnull)
	{
		appendStringInfoChar(out, 0);
		return;
	}
	appendStringInfoChar(out, 1);
	at = begin_length(out);
	bloom_enc_append(e, value, out);
	end_length(out, at);
}

static void
append_array(BloomEnc *e, Datum value, StringInfo out)
{
	AnyArrayType *a = DatumGetAnyArrayP(value);
	int			ndim = AARR_NDIM(a);
	int		   *dims = AARR_DIMS(a);
	int		   *lbs = AARR_LBOUND(a);
	int			n = ArrayGetNItems(ndim, dims);
	array_iter	it;

	/* array_eq compares the shape, lower bounds included */
	append_le(out, (uint64) ndim, 4);
	for (int i = 0; i < ndim; i++)
	{
		append_le(out, (uint64) (uint32) dims[i], 4);
		append_le(out, (uint64) (uint32) lbs[i], 4);
	}
	array_iter_setup(&it, a);
	for (int i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		d = array_iter_next(&it, &isnull, i, e->child->typlen,
										e->child->typbyval, e->child->typalign);

		append_part(e->child, d, isnull, out);
	}
}

/* The columns of a row: their count, then each one as a part. */
static void
append_row(HeapTupleHeader th, TupleDesc td, BloomEnc **atts, StringInfo out)
{
	HeapTupleData tuple;
	Datum	   *values = palloc(sizeof(Datum) * Max(td->natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(td->natts, 1));
	int			count = 0;

	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	heap_deform_tuple(&tuple, td, values, nulls);
	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped)
			count++;
	append_le(out, (uint64) count, 4);
	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped)
			append_part(atts[i], values[i], nulls[i], out);
}

/* The column encoders of a row type of a record key, built on first sight. */
static BloomAnonRow *
anon_row(BloomEnc *e, Oid typid, int32 typmod, TupleDesc td)
{
	BloomAnonRow *r;
	StringInfoData sig;

	for (r = e->rows; r != NULL; r = r->next)
		if (r->typid == typid && r->typmod == typmod && r->natts == td->natts)
			return r;
	initStringInfo(&sig);
	r = MemoryContextAllocZero(e->mcxt, sizeof(BloomAnonRow));
	r->typid = typid;
	r->typmod = typmod;
	r->natts = td->natts;
	r->atts = bloom_enc_row(td, NULL, e, e->keytype, e->mcxt, &sig);
	if (strcmp(sig.data, e->signature) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("a bloomfilter key of type record has the columns %s, not %s",
						sig.data, e->signature),
				 errdetail("Keys of type record are hashed from their columns, so the keys of one call must have columns of the same kinds.")));
	r->next = e->rows;
	e->rows = r;
	return r;
}

static void
append_record(BloomEnc *e, Datum value, StringInfo out)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(value);
	Oid			typid = HeapTupleHeaderGetTypeId(th);
	int32		typmod = HeapTupleHeaderGetTypMod(th);
	/* on an ERROR, the resource owner releases the tuple descriptor */
	TupleDesc	td = lookup_rowtype_tupdesc(typid, typmod);

	if (e->kind == BE_RECORD_ANON)
		append_row(th, td, anon_row(e, typid, typmod, td)->atts, out);
	else
	{
		bool		changed = td->natts != e->natts;

		for (int i = 0; !changed && i < td->natts; i++)
			if (!TupleDescAttr(td, i)->attisdropped && e->atts[i] == NULL)
				changed = true;
		if (changed)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("type %s changed while its values were hashed",
							format_type_be(e->typid)),
					 errhint("Run the statement again.")));
		append_row(th, td, e->atts, out);
	}
	ReleaseTupleDesc(td);
}

/*
 * A range: its flags, then its finite bounds.  range_eq holds exactly when
 * both are empty or the bounds' values, inclusivity and infinity agree.
 */
static void
append_range(BloomEnc *e, RangeType *r, StringInfo out)
{
	RangeBound	lower,
				upper;
	bool		empty;
	uint8		flags = 0;

	range_deserialize(e->typcache, r, &lower, &upper, &empty);
	if (empty)
	{
		appendStringInfoChar(out, KEY_RANGE_EMPTY);
		return;
	}
	if (lower.infinite)
		flags |= KEY_RANGE_LB_INF;
	else if (lower.inclusive)
		flags |= KEY_RANGE_LB_INC;
	if (upper.infinite)
		flags |= KEY_RANGE_UB_INF;
	else if (upper.inclusive)
		flags |= KEY_RANGE_UB_INC;
	appendStringInfoChar(out, (char) flags);
	if (!lower.infinite)
		append_part(e->child, lower.val, false, out);
	if (!upper.infinite)
		append_part(e->child, upper.val, false, out);
}

static void
append_multirange(BloomEnc *e, Datum value, StringInfo out)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	int32		n;
	RangeType **ranges;

	/* stored normalized: sorted, overlapping and adjacent ranges merged */
	multirange_deserialize(e->child->typcache, mr, &n, &ranges);
	append_le(out, (uint64) n, 4);
	for (int i = 0; i < n; i++)
	{
		int			at;

		appendStringInfoChar(out, 1);
		at = begin_length(out);
		append_range(e->child, ranges[i], out);
		end_length(out, at);
	}
}

/* A type whose equality is bitwise: the bytes it is stored as. */
static void
append_bitwise(BloomEnc *e, Datum value, StringInfo out)
{
	if (e->typbyval)
	{
		/* little-endian whatever the machine */
		switch (e->typlen)
		{
			case 1:
				append_le(out, (uint8) DatumGetChar(value), 1);
				return;
			case 2:
				append_le(out, (uint16) DatumGetInt16(value), 2);
				return;
			case 4:
				append_le(out, (uint32) DatumGetInt32(value), 4);
				return;
			case 8:
				append_le(out, (uint64) DatumGetInt64(value), 8);
				return;
		}
		elog(ERROR, "unexpected length %d of a by-value type", (int) e->typlen);
	}
	if (e->typlen > 0)
		appendBinaryStringInfo(out, DatumGetPointer(value), e->typlen);
	else if (e->typlen == -1)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

		appendBinaryStringInfo(out, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	}
	else
	{
		const char *s = DatumGetCString(value);

		appendBinaryStringInfo(out, s, strlen(s));
	}
}

void
bloom_enc_append(BloomEnc *e, Datum value, StringInfo out)
{
	check_stack_depth();
	switch (e->kind)
	{
		case BE_INT2:
			append_le(out, (uint64) (int64) DatumGetInt16(value), 8);
			break;
		case BE_INT4:
			append_le(out, (uint64) (int64) DatumGetInt32(value), 8);
			break;
		case BE_INT8:
			append_le(out, (uint64) DatumGetInt64(value), 8);
			break;
		case BE_FLOAT4:
			append_le(out, bloom_double_bits((double) DatumGetFloat4(value)), 8);
			break;
		case BE_FLOAT8:
			append_le(out, bloom_double_bits(DatumGetFloat8(value)), 8);
			break;
		case BE_NUMERIC:
			append_numeric(out, value);
			break;
		case BE_TEXT:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

				bloom_append_utf8(out, VARDATA_ANY(v),
								  bloom_text_len(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
				break;
			}
		case BE_NAME:
			{
				const char *s = NameStr(*DatumGetName(value));

				bloom_append_utf8(out, s, bloom_text_len(s, strnlen(s, NAMEDATALEN)));
				break;
			}
		case BE_UNKNOWN:
			{
				const char *s = DatumGetCString(value);

				bloom_append_utf8(out, s, bloom_text_len(s, strlen(s)));
				break;
			}
		case BE_BYTEA:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

				appendBinaryStringInfo(out, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
				break;
			}
		case BE_UUID:
			appendBinaryStringInfo(out, (const char *) DatumGetUUIDP(value)->data, UUID_LEN);
			break;
		case BE_BOOL:
			appendStringInfoChar(out, DatumGetBool(value) ? 1 : 0);
			break;
		case BE_DATE:
			/* -infinity and infinity are the int32 extremes */
			append_le(out, (uint64) (int64) DatumGetDateADT(value), 8);
			break;
		case BE_TIMESTAMP:
			append_le(out, (uint64) DatumGetTimestamp(value), 8);
			break;
		case BE_INTERVAL:
			append_interval(out, DatumGetIntervalP(value));
			break;
		case BE_JSONB:
			append_jsonb_container(out, &DatumGetJsonbP(value)->root);
			break;
		case BE_ENUM:
			{
				HeapTuple	tup = SearchSysCache1(ENUMOID, value);

				if (!HeapTupleIsValid(tup))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
							 errmsg("invalid internal value for enum: %u",
									DatumGetObjectId(value))));
				/* the label, not the OID: OIDs differ between databases */
				bloom_append_utf8(out, NameStr(((Form_pg_enum) GETSTRUCT(tup))->enumlabel),
								  strlen(NameStr(((Form_pg_enum) GETSTRUCT(tup))->enumlabel)));
				ReleaseSysCache(tup);
				break;
			}
		case BE_BITWISE:
			append_bitwise(e, value, out);
			break;
		case BE_HASHED:
			append_le(out, DatumGetUInt64(FunctionCall2Coll(e->hashfn, e->collation,
															value, Int64GetDatum(0))), 8);
			break;
		case BE_ARRAY:
			append_array(e, value, out);
			break;
		case BE_RECORD:
		case BE_RECORD_ANON:
			append_record(e, value, out);
			break;
		case BE_RANGE:
			append_range(e, DatumGetRangeTypeP(value), out);
			break;
		case BE_MULTIRANGE:
			append_multirange(e, value, out);
			break;
	}
}
