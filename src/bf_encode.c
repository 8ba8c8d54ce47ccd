/*
 * bf_encode.c
 *		The canonical, machine-independent encoding of SQL values as hash
 *		keys, and the key family rules.
 *
 * Values that SQL considers equal across types hash alike when they belong
 * to one family: int2/int4/int8 all hash as an 8-byte little-endian
 * integer, float4/float8 as an IEEE double with -0 folded into 0 and every
 * NaN into one NaN, numeric by its value with trailing fractional zeros
 * removed (so 1.0 and 1.00 agree), text-like types by their bytes (bpchar
 * without the trailing spaces its = ignores).  Any other type is hashed
 * from its binary send output, which PostgreSQL defines to be portable
 * across machines.
 */
#include "bloomfilter.h"

#include <math.h>

#include "access/transam.h"
#include "catalog/pg_type_d.h"
#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

static void check_send_portable(Oid typid, Oid keytype);

/*
 * The binary send output of arrays and rows embeds the OIDs of their
 * element or column types.  Built-in OIDs are the same in every database;
 * other OIDs are not, so a key containing one would hash differently in
 * another database and a filter shipped there would answer false for keys
 * it holds.  Such keys are refused rather than answered wrongly.
 */
static void
report_not_portable(Oid keytype, Oid culprit)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("values of type %s cannot be bloomfilter keys", format_type_be(keytype)),
			 errdetail("Their binary form contains the OID of type %s, which differs from database to database, so their hashes would not be portable.",
					   format_type_be(culprit)),
			 errhint("Cast the key to text, or build it from built-in types.")));
}

/* Checks one element or column type embedded (by OID) in a send output. */
static void
check_embedded(Oid typid, Oid keytype)
{
	if (typid >= FirstNormalObjectId)
		report_not_portable(keytype, typid);
	check_send_portable(typid, keytype);
}

static void
check_rowtype_portable(TupleDesc td, Oid keytype)
{
	for (int i = 0; i < td->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(td, i);

		if (!att->attisdropped)
			check_embedded(att->atttypid, keytype);
	}
}

static void
check_send_portable(Oid typid, Oid keytype)
{
	Oid			base = getBaseType(typid);
	Oid			elem = get_element_type(base);
	char		typtype;

	check_stack_depth();
	if (OidIsValid(elem))
	{
		check_embedded(elem, keytype);
		return;
	}
	typtype = get_typtype(base);
	if (typtype == TYPTYPE_COMPOSITE && base != RECORDOID)
	{
		TupleDesc	td = lookup_rowtype_tupdesc(base, -1);

		check_rowtype_portable(td, keytype);
		ReleaseTupleDesc(td);
	}
	else if (typtype == TYPTYPE_RANGE)
		check_send_portable(get_range_subtype(base), keytype);
	else if (typtype == TYPTYPE_MULTIRANGE)
		check_send_portable(get_range_subtype(get_multirange_range(base)), keytype);
}

void
bloom_key_type_init(BloomKeyType *kt, Oid typid, MemoryContext mcxt)
{
	Oid			base = getBaseType(typid);

	memset(kt, 0, sizeof(*kt));
	kt->typid = base;
	kt->type_tag = 0;
	switch (base)
	{
		case INT2OID:
			kt->kind = BK_INT2;
			kt->family = BF_FAMILY_INTEGER;
			break;
		case INT4OID:
			kt->kind = BK_INT4;
			kt->family = BF_FAMILY_INTEGER;
			break;
		case INT8OID:
			kt->kind = BK_INT8;
			kt->family = BF_FAMILY_INTEGER;
			break;
		case FLOAT4OID:
			kt->kind = BK_FLOAT4;
			kt->family = BF_FAMILY_FLOAT;
			break;
		case FLOAT8OID:
			kt->kind = BK_FLOAT8;
			kt->family = BF_FAMILY_FLOAT;
			break;
		case NUMERICOID:
			kt->kind = BK_NUMERIC;
			kt->family = BF_FAMILY_NUMERIC;
			break;
		case TEXTOID:
		case VARCHAROID:
			kt->kind = BK_TEXT;
			kt->family = BF_FAMILY_TEXT;
			break;
		case BPCHAROID:
			kt->kind = BK_BPCHAR;
			kt->family = BF_FAMILY_TEXT;
			break;
		case NAMEOID:
			kt->kind = BK_NAME;
			kt->family = BF_FAMILY_TEXT;
			break;
		case BYTEAOID:
			kt->kind = BK_BYTEA;
			kt->family = BF_FAMILY_BYTEA;
			break;
		case UUIDOID:
			kt->kind = BK_UUID;
			kt->family = BF_FAMILY_UUID;
			break;
		case BOOLOID:
			kt->kind = BK_BOOL;
			kt->family = BF_FAMILY_BOOL;
			break;
		case DATEOID:
			kt->kind = BK_DATE;
			kt->family = BF_FAMILY_DATE;
			break;
		case TIMESTAMPOID:
			kt->kind = BK_TIMESTAMP;
			kt->family = BF_FAMILY_TIMESTAMP;
			break;
		case TIMESTAMPTZOID:
			kt->kind = BK_TIMESTAMP;
			kt->family = BF_FAMILY_TIMESTAMPTZ;
			break;
		default:
			{
				Oid			sendfn;
				bool		isvarlena;

				if (base == UNKNOWNOID || base == InvalidOid)
					ereport(ERROR,
							(errcode(ERRCODE_INDETERMINATE_DATATYPE),
							 errmsg("could not determine the type of the bloomfilter key"),
							 errhint("Add an explicit cast to the key.")));
				check_send_portable(base, base);
				getTypeBinaryOutputInfo(base, &sendfn, &isvarlena);
				kt->kind = base == RECORDOID ? BK_RECORD : BK_SEND;
				kt->family = BF_FAMILY_OTHER;
				fmgr_info_cxt(sendfn, &kt->send, mcxt);

				/*
				 * Built-in types keep their OID everywhere; other types' OIDs
				 * differ between databases, so they are tagged by name.
				 */
				if (base < FirstNormalObjectId)
					kt->type_tag = base;
				else
				{
					/* qualified whatever search_path says */
					char	   *name = format_type_extended(base, -1, FORMAT_TYPE_FORCE_QUALIFY);

					kt->type_tag = (uint32) (bf_hash_bytes(0, name, strlen(name)) & 0x7fffffff) | 0x80000000;
				}
				break;
			}
	}
}

void
bloom_key_type_for_arg(BloomKeyType *kt, FunctionCallInfo fcinfo, int argno)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the type of the bloomfilter key")));
	bloom_key_type_init(kt, typid, fcinfo->flinfo->fn_mcxt);
}

/*
 * The key type of a call site's argument argno (with is_array, of its
 * elements), looked up on the first call and kept in fn_extra.
 */
BloomKeyType *
bloom_key_type_cached(FunctionCallInfo fcinfo, int argno, bool is_array)
{
	BloomKeyType *kt = (BloomKeyType *) fcinfo->flinfo->fn_extra;

	if (kt == NULL)
	{
		kt = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomKeyType));
		if (is_array)
		{
			Oid			arrtype = get_fn_expr_argtype(fcinfo->flinfo, argno);
			Oid			elemtype = get_element_type(getBaseType(arrtype));

			if (!OidIsValid(elemtype))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("bloom_add_all expects an array")));
			bloom_key_type_init(kt, elemtype, fcinfo->flinfo->fn_mcxt);
		}
		else
			bloom_key_type_for_arg(kt, fcinfo, argno);
		fcinfo->flinfo->fn_extra = kt;
	}
	return kt;
}

/* Length of a bpchar without the trailing spaces its equality ignores. */
static size_t
bpchar_true_len(const char *s, size_t len)
{
	while (len > 0 && s[len - 1] == ' ')
		len--;
	return len;
}

/*
 * numeric_out gives the value at its display scale; strip trailing
 * fractional zeros (and a bare point) so that equal values encode alike.
 */
static uint64
bf_numeric_hash(Datum value, uint64 seed)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	size_t		len = strlen(s);
	uint64		h;

	if (memchr(s, '.', len) != NULL)
	{
		while (len > 0 && s[len - 1] == '0')
			len--;
		if (len > 0 && s[len - 1] == '.')
			len--;
	}
	h = bf_hash_bytes(seed, s, len);
	pfree(s);
	return h;
}

static uint64
bf_double_hash(double d, uint64 seed)
{
	uint64		bits;

	if (isnan(d))
		bits = UINT64CONST(0x7ff8000000000000);
	else
	{
		if (d == 0.0)
			d = 0.0;			/* -0 == 0 */
		memcpy(&bits, &d, sizeof(bits));
	}
	return bf_hash_int64(seed, (int64) bits);
}

/* Hashes the payload of a possibly toasted or short-header varlena. */
static uint64
bf_varlena_hash(Datum value, uint64 seed, bool is_bpchar)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(value);
	const char *p = VARDATA_ANY(v);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	uint64		h;

	if (is_bpchar)
		len = bpchar_true_len(p, len);
	h = bf_hash_bytes(seed, p, len);
	if ((Pointer) v != DatumGetPointer(value))
		pfree(v);
	return h;
}

uint64
bloom_hash_value(const BloomKeyType *kt, Datum value, uint64 seed)
{
	switch (kt->kind)
	{
		case BK_INT2:
			return bf_hash_int64(seed, DatumGetInt16(value));
		case BK_INT4:
			return bf_hash_int64(seed, DatumGetInt32(value));
		case BK_INT8:
			return bf_hash_int64(seed, DatumGetInt64(value));
		case BK_FLOAT4:
			return bf_double_hash((double) DatumGetFloat4(value), seed);
		case BK_FLOAT8:
			return bf_double_hash(DatumGetFloat8(value), seed);
		case BK_NUMERIC:
			return bf_numeric_hash(value, seed);
		case BK_TEXT:
		case BK_BYTEA:
			return bf_varlena_hash(value, seed, false);
		case BK_BPCHAR:
			return bf_varlena_hash(value, seed, true);
		case BK_NAME:
			{
				const char *s = NameStr(*DatumGetName(value));

				return bf_hash_bytes(seed, s, strlen(s));
			}
		case BK_UUID:
			return bf_hash_bytes(seed, DatumGetUUIDP(value)->data, UUID_LEN);
		case BK_BOOL:
			{
				uint8		b = DatumGetBool(value) ? 1 : 0;

				return bf_hash_bytes(seed, &b, 1);
			}
		case BK_DATE:
			return bf_hash_int64(seed, DatumGetDateADT(value));
		case BK_TIMESTAMP:
			return bf_hash_int64(seed, DatumGetTimestamp(value));
		case BK_RECORD:
			{
				/* an anonymous row: its column types are known per value */
				HeapTupleHeader td = DatumGetHeapTupleHeader(value);
				TupleDesc	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
														  HeapTupleHeaderGetTypMod(td));

				check_rowtype_portable(desc, RECORDOID);
				ReleaseTupleDesc(desc);
			}
			/* FALLTHROUGH */
		case BK_SEND:
			{
				bytea	   *b = SendFunctionCall((FmgrInfo *) &kt->send, value);
				uint64		h = bf_hash_bytes(seed, VARDATA(b), VARSIZE(b) - VARHDRSZ);

				pfree(b);
				return h;
			}
	}
	elog(ERROR, "unexpected bloomfilter key kind %d", (int) kt->kind);
	return 0;					/* keep compiler quiet */
}

char *
bloom_family_display(uint16 family, uint32 type_tag)
{
	if (family == BF_FAMILY_OTHER)
	{
		/* a built-in type of a newer server may be unknown here */
		if (type_tag < FirstNormalObjectId &&
			SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(type_tag)))
			return psprintf("other (%s)", format_type_be(type_tag));
		if (type_tag < FirstNormalObjectId)
			return psprintf("other (type oid %u)", type_tag);
		return psprintf("other (type tag %08x)", type_tag);
	}
	return pstrdup(bf_family_name(family));
}

static void
family_mismatch(const bf_view *v, const BloomKeyType *kt)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("the filter holds keys of family \"%s\", not \"%s\"",
					bloom_family_display(v->family, v->type_tag),
					bloom_family_display(kt->family, kt->type_tag)),
			 errdetail("Values of type %s hash as family \"%s\"; a filter answers only for keys of the family it was built from.",
					   format_type_be(kt->typid),
					   bloom_family_display(kt->family, kt->type_tag)),
			 errhint("Cast the key to a type of the filter's family.")));
}

bool
bloom_check_family(const bf_view *v, const BloomKeyType *kt)
{
	if (v->family == BF_FAMILY_NONE)
		return false;
	if (v->family != kt->family || v->type_tag != kt->type_tag)
		family_mismatch(v, kt);
	return true;
}

void
bloom_adopt_family(bf_view *v, const BloomKeyType *kt)
{
	if (v->family == BF_FAMILY_NONE)
	{
		v->family = kt->family;
		v->type_tag = kt->type_tag;
	}
	else if (v->family != kt->family || v->type_tag != kt->type_tag)
		family_mismatch(v, kt);
}
