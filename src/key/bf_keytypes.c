/*
 * key/bf_keytypes.c
 *		How each SQL type is hashed: the encoder tree of a type (which key
 *		bytes key/bf_keybytes.c writes for its values), its signature and key
 *		family, or an ERROR for a type whose = no encoding can follow.
 *
 * Integers, floats, numeric, the text family, bytea, uuid, bool, dates and
 * timestamps, interval and jsonb have encodings of their own; enums are
 * their labels; arrays, rows, ranges and multiranges are built from the
 * encoders of their parts.  Any other type is accepted only where its
 * equality is bitwise (btree support function 4 says so) or it has a hash
 * operator class (its extended hash agrees with its = by definition).
 */
#include "key/bf_key_encoding.h"

#include "access/hash.h"
#include "access/htup_details.h"
#include "access/genam.h"
#include "access/nbtree.h"
#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/inval.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

/* The type tag of a tagged family: a hash of the type's signature. */
static uint32
signature_tag(const char *sig)
{
	return (uint32) (bf_hash_bytes(0, sig, strlen(sig)) & 0x7fffffff) | 0x80000000;
}

/* A type's name, schema-qualified unless built in (same in every database). */
static char *
type_name_for_tag(Oid typid)
{
	if (typid < FirstNormalObjectId)
		return format_type_be(typid);
	return format_type_extended(typid, -1, FORMAT_TYPE_FORCE_QUALIFY);
}

static void
refuse_type(Oid keytype, Oid part, const char *why)
{
	if (keytype == part)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("values of type %s cannot be bloomfilter keys",
						format_type_be(keytype)),
				 errdetail("%s", why),
				 errhint("Add a key of a type whose equality can be hashed, for example a cast to text or a built-in type that holds the same information.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("values of type %s cannot be bloomfilter keys",
					format_type_be(keytype)),
			 errdetail("They contain values of type %s. %s",
					   format_type_be(part), why),
			 errhint("Add a key of a type whose equality can be hashed, for example a cast to text or a built-in type that holds the same information.")));
}

/*
 * Text compared under a nondeterministic collation is equal to strings of
 * other bytes; no byte encoding can agree with that equality everywhere.
 */
static void
check_text_collation(Oid collation, Oid keytype)
{
	if (OidIsValid(collation) && collation != DEFAULT_COLLATION_OID &&
		collation != C_COLLATION_OID && collation != POSIX_COLLATION_OID &&
		!get_collation_isdeterministic(collation))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("values of type %s under the nondeterministic collation \"%s\" cannot be bloomfilter keys",
						format_type_be(keytype),
						get_collation_name(collation)),
				 errdetail("Under a nondeterministic collation, strings of different bytes are equal, and a filter hashes bytes."),
				 errhint("Add a canonical form of the key instead, for example lower(x), or the key under a deterministic collation.")));
}

static BloomEnc *
enc_new(BloomEncKind kind, Oid typid, Oid collation, const char *sig,
		Oid keytype, MemoryContext mcxt)
{
	BloomEnc   *e = MemoryContextAllocZero(mcxt, sizeof(BloomEnc));

	e->kind = kind;
	e->typid = typid;
	e->collation = collation;
	e->signature = MemoryContextStrdup(mcxt, sig);
	e->mcxt = mcxt;
	e->keytype = keytype;
	get_typlenbyvalalign(typid, &e->typlen, &e->typbyval, &e->typalign);
	return e;
}

/*
 * The i-th part of a hint: of an expression that builds a row or an array,
 * or of a constant row or array (its first non-null element).
 */
Node *
bloom_hint_part(Node *hint, int i)
{
	Const	   *c = (Const *) hint;

	if (hint == NULL)
		return NULL;
	if (IsA(hint, RowExpr) && i < list_length(((RowExpr *) hint)->args))
		return (Node *) list_nth(((RowExpr *) hint)->args, i);
	if (IsA(hint, ArrayExpr) && ((ArrayExpr *) hint)->elements != NIL)
		return (Node *) linitial(((ArrayExpr *) hint)->elements);
	if (!IsA(hint, Const) || c->constisnull)
		return NULL;
	if (type_is_array(c->consttype))
	{
		AnyArrayType *a = DatumGetAnyArrayP(c->constvalue);
		Oid			elemtype = AARR_ELEMTYPE(a);
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;
		array_iter	it;
		int			n = ArrayGetNItems(AARR_NDIM(a), AARR_DIMS(a));

		get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
		array_iter_setup(&it, a);
		for (int j = 0; j < n; j++)
		{
			bool		isnull;
			Datum		d = array_iter_next(&it, &isnull, j, elmlen, elmbyval, elmalign);

			if (!isnull)
				return (Node *) makeConst(elemtype, -1, InvalidOid, elmlen, d,
										  false, elmbyval);
		}
		return NULL;
	}
	if (type_is_rowtype(c->consttype))
	{
		HeapTupleHeader th = DatumGetHeapTupleHeader(c->constvalue);
		TupleDesc	td = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th),
												HeapTupleHeaderGetTypMod(th));
		HeapTupleData tuple;
		bool		isnull;
		Datum		d;
		Form_pg_attribute att;
		Node	   *part = NULL;

		if (i < td->natts)
		{
			tuple.t_len = HeapTupleHeaderGetDatumLength(th);
			ItemPointerSetInvalid(&tuple.t_self);
			tuple.t_tableOid = InvalidOid;
			tuple.t_data = th;
			att = TupleDescAttr(td, i);
			d = heap_getattr(&tuple, i + 1, td, &isnull);
			if (!isnull)
				part = (Node *) makeConst(att->atttypid, att->atttypmod,
										  att->attcollation, att->attlen, d,
										  false, att->attbyval);
		}
		ReleaseTupleDesc(td);
		return part;
	}
	return NULL;
}

/*
 * The row type of values of type record that hint produces, or NULL when
 * it cannot be known before the values are seen.
 */
static TupleDesc
record_desc_from_hint(Node *hint)
{
	if (hint == NULL)
		return NULL;
	if (IsA(hint, Const))
	{
		Const	   *c = (Const *) hint;
		HeapTupleHeader td;

		if (c->constisnull || c->consttype != RECORDOID)
			return NULL;
		td = DatumGetHeapTupleHeader(c->constvalue);
		return lookup_rowtype_tupdesc_copy(HeapTupleHeaderGetTypeId(td),
										   HeapTupleHeaderGetTypMod(td));
	}
	if (IsA(hint, RowExpr))
	{
		RowExpr    *r = (RowExpr *) hint;
		TupleDesc	td = CreateTemplateTupleDesc(list_length(r->args));
		ListCell   *lc;
		int			i = 1;

		foreach(lc, r->args)
		{
			Node	   *col = lfirst(lc);

			TupleDescInitEntry(td, i, NULL, exprType(col), exprTypmod(col), 0);
			TupleDescInitEntryCollation(td, i, exprCollation(col));
			i++;
		}
		return td;
	}
	return get_expr_result_tupdesc(hint, true);
}

BloomEnc  **
bloom_enc_row(TupleDesc td, Node *hint, const BloomEnc *known, Oid keytype,
			  MemoryContext mcxt, StringInfo sig)
{
	BloomEnc  **atts = MemoryContextAllocZero(mcxt, sizeof(BloomEnc *) * Max(td->natts, 1));
	bool		first = true;

	appendStringInfoString(sig, "record(");
	for (int i = 0; i < td->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(td, i);

		if (att->attisdropped)
			continue;

		/*
		 * A column of the row type the call was prepared with keeps its
		 * encoder: for a column of type record, it is the one that knows
		 * the column's own columns.
		 */
		if (known != NULL && i < known->natts && known->atts[i] != NULL &&
			known->atts[i]->typid == getBaseType(att->atttypid) &&
			known->atts[i]->collation == att->attcollation)
			atts[i] = known->atts[i];
		else
			atts[i] = bloom_enc_build(att->atttypid, att->attcollation,
									  bloom_hint_part(hint, i), keytype, mcxt);
		if (!first)
			appendStringInfoChar(sig, ',');
		appendStringInfoString(sig, atts[i]->signature);
		first = false;
	}
	appendStringInfoChar(sig, ')');
	return atts;
}

/*
 * Whether equality of a type is bitwise, as its default btree operator
 * class says through support function 4 (equalimage), under collation.
 */
static bool
equality_is_bitwise(Oid typid, Oid collation)
{
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);
	Oid			opfamily,
				opcintype,
				proc;

	if (!OidIsValid(opclass))
		return false;
	opfamily = get_opclass_family(opclass);
	opcintype = get_opclass_input_type(opclass);
	proc = get_opfamily_proc(opfamily, opcintype, opcintype, BTEQUALIMAGE_PROC);
	if (!OidIsValid(proc))
		return false;
	return DatumGetBool(OidFunctionCall1Coll(proc, collation,
											 ObjectIdGetDatum(opcintype)));
}

/* The extended hash function of a type's default hash operator class. */
static Oid
extended_hash_proc(Oid typid)
{
	Oid			opclass = GetDefaultOpClass(typid, HASH_AM_OID);
	Oid			opcintype;

	if (!OidIsValid(opclass))
		return InvalidOid;
	opcintype = get_opclass_input_type(opclass);
	return get_opfamily_proc(get_opclass_family(opclass), opcintype, opcintype,
							 HASHEXTENDED_PROC);
}

/*
 * What the bytes of an extension's type may depend on beyond the value: its
 * stored bytes may hold text in the database encoding, and its hash may fold
 * case under the database's locale (citext).  All of it goes into the
 * signature, so that such a filter moved to a database where any differs is
 * refused as another family instead of answering false: the encoding, the
 * ctype, and the default collation's provider and its locale.  The builtin
 * provider (17) folds case by its own tables, not by ctype ("C" only ASCII
 * letters, "C.UTF-8" all of Unicode), so a libc database and a builtin one
 * of the same ctype fold 'É' differently.  ICU tailoring rules (16) change
 * how strings collate, which a hash built on sort keys would follow.  A
 * libc database, and an ICU one without rules, keep the signature they had
 * before 17, so that stored filters stay usable after an upgrade.
 */
static void
append_database_context(StringInfo sig)
{
	HeapTuple	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	Form_pg_database db;
	Datum		d;
	bool		isnull;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for database %u", MyDatabaseId);
	db = (Form_pg_database) GETSTRUCT(tup);
	appendStringInfo(sig, "@%s", GetDatabaseEncodingName());
	d = SysCacheGetAttr(DATABASEOID, tup, Anum_pg_database_datctype, &isnull);
	if (!isnull)
		appendStringInfo(sig, "/%s", TextDatumGetCString(d));
	if (db->datlocprovider == COLLPROVIDER_ICU ||
		db->datlocprovider == COLLPROVIDER_BUILTIN)
	{
		d = SysCacheGetAttr(DATABASEOID, tup, BF_Anum_pg_database_locale, &isnull);
		appendStringInfo(sig, "/%s:%s",
						 db->datlocprovider == COLLPROVIDER_ICU ? "icu" : "builtin",
						 isnull ? "" : TextDatumGetCString(d));
	}
	else if (db->datlocprovider != COLLPROVIDER_LIBC)
		appendStringInfo(sig, "/provider-%c", db->datlocprovider);
#ifdef BF_HAVE_DATICURULES
	d = SysCacheGetAttr(DATABASEOID, tup, Anum_pg_database_daticurules, &isnull);
	if (!isnull)
		appendStringInfo(sig, "/icurules:%s", TextDatumGetCString(d));
#endif
	ReleaseSysCache(tup);
}

/* Types that neither have bitwise equality nor a hash operator class. */
static BloomEnc *
build_other(Oid base, Oid collation, Oid keytype, MemoryContext mcxt)
{
	StringInfoData sig;
	Oid			hashproc;
	BloomEnc   *e;

	/*
	 * cidr values are inet values and bit values varbit values: the same
	 * bytes, compared by one function
	 */
	if (base == CIDROID)
		base = INETOID;
	else if (base == BITOID)
		base = VARBITOID;
	initStringInfo(&sig);
	if (equality_is_bitwise(base, collation))
	{
		appendStringInfo(&sig, "other(%s", type_name_for_tag(base));
		if (base >= FirstNormalObjectId)
			append_database_context(&sig);
		appendStringInfoChar(&sig, ')');
		return enc_new(BE_BITWISE, base, collation, sig.data, keytype, mcxt);
	}
	hashproc = extended_hash_proc(base);
	if (OidIsValid(hashproc))
	{
		appendStringInfo(&sig, "hashed(%s", type_name_for_tag(base));
		if (base >= FirstNormalObjectId)
			append_database_context(&sig);
		appendStringInfoChar(&sig, ')');
		e = enc_new(BE_HASHED, base, collation, sig.data, keytype, mcxt);
		e->hashfn = MemoryContextAllocZero(mcxt, sizeof(FmgrInfo));
		fmgr_info_cxt(hashproc, e->hashfn, mcxt);
		return e;
	}
	if (!OidIsValid(GetDefaultOpClass(base, BTREE_AM_OID)) &&
		!OidIsValid(GetDefaultOpClass(base, HASH_AM_OID)))
		refuse_type(keytype, base,
					psprintf("Type %s has no default btree or hash operator class, so a filter cannot know when two of its values are equal.",
							 format_type_be(base)));
	refuse_type(keytype, base,
				psprintf("The equality of type %s is not bitwise and the type has no extended hash function that agrees with it.",
						 format_type_be(base)));
	return NULL;				/* keep compiler quiet */
}

BloomEnc *
bloom_enc_build(Oid typid, Oid collation, Node *hint, Oid keytype,
				MemoryContext mcxt)
{
	Oid			base = getBaseType(typid);
	Oid			elem;
	char		typtype;
	const char *scalar = NULL;
	BloomEncKind kind = BE_INT8;
	StringInfoData sig;
	BloomEnc   *e;

	check_stack_depth();
	switch (base)
	{
		case INT2OID:
			kind = BE_INT2, scalar = "integer";
			break;
		case INT4OID:
			kind = BE_INT4, scalar = "integer";
			break;
		case INT8OID:
			kind = BE_INT8, scalar = "integer";
			break;
		case FLOAT4OID:
			kind = BE_FLOAT4, scalar = "float";
			break;
		case FLOAT8OID:
			kind = BE_FLOAT8, scalar = "float";
			break;
		case NUMERICOID:
			kind = BE_NUMERIC, scalar = "numeric";
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			check_text_collation(collation, keytype);
			kind = BE_TEXT, scalar = "text";
			break;
		case NAMEOID:
			check_text_collation(collation, keytype);
			kind = BE_NAME, scalar = "text";
			break;
		case BYTEAOID:
			kind = BE_BYTEA, scalar = "bytea";
			break;
		case UUIDOID:
			kind = BE_UUID, scalar = "uuid";
			break;
		case BOOLOID:
			kind = BE_BOOL, scalar = "boolean";
			break;
		case DATEOID:
			kind = BE_DATE, scalar = "date";
			break;
		case TIMESTAMPOID:
			kind = BE_TIMESTAMP, scalar = "timestamp";
			break;
		case TIMESTAMPTZOID:
			kind = BE_TIMESTAMP, scalar = "timestamptz";
			break;
		case INTERVALOID:
			kind = BE_INTERVAL, scalar = "interval";
			break;
		case JSONBOID:
			kind = BE_JSONB, scalar = "jsonb";
			break;
		case UNKNOWNOID:
			/*
			 * An untyped literal, given to the overloads that take unknown
			 * (f + 'abc') or left in ROW(1, 'a'): SQL resolves it as text,
			 * and it is stored as a C string.
			 */
			check_text_collation(collation, keytype);
			kind = BE_UNKNOWN, scalar = "text";
			break;
		case InvalidOid:
			ereport(ERROR,
					(errcode(ERRCODE_INDETERMINATE_DATATYPE),
					 errmsg("could not determine the type of the bloomfilter key"),
					 errhint("Add an explicit cast to the key.")));
			break;
	}
	if (scalar != NULL)
		return enc_new(kind, base, collation, scalar, keytype, mcxt);

	initStringInfo(&sig);
	elem = get_element_type(base);
	if (OidIsValid(elem))
	{
		/* array_eq compares elements under the array's collation */
		BloomEnc   *child = bloom_enc_build(elem, collation, bloom_hint_part(hint, 0),
											keytype, mcxt);

		appendStringInfo(&sig, "array(%s)", child->signature);
		e = enc_new(BE_ARRAY, base, collation, sig.data, keytype, mcxt);
		e->child = child;
		return e;
	}

	typtype = get_typtype(base);
	if (base == RECORDOID)
	{
		TupleDesc	td = record_desc_from_hint(hint);
		BloomEnc  **atts;

		if (td == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the column types of a bloomfilter key of type record are not known"),
					 errdetail("A key of type record is hashed from its columns, so their types must be known when the call is prepared."),
					 errhint("Write the key as ROW(...), or cast it to a composite type.")));
		atts = bloom_enc_row(td, hint, NULL, keytype, mcxt, &sig);
		/* columns are encoded per value, from each value's own row type */
		e = enc_new(BE_RECORD_ANON, base, collation, sig.data, keytype, mcxt);
		e->natts = td->natts;
		e->atts = atts;
		return e;
	}
	if (typtype == TYPTYPE_COMPOSITE)
	{
		/* on an ERROR, the resource owner releases the tuple descriptor */
		TupleDesc	td = lookup_rowtype_tupdesc(base, -1);
		BloomEnc  **atts = bloom_enc_row(td, hint, NULL, keytype, mcxt, &sig);
		int			natts = td->natts;

		ReleaseTupleDesc(td);
		e = enc_new(BE_RECORD, base, collation, sig.data, keytype, mcxt);
		e->natts = natts;
		e->atts = atts;
		return e;
	}
	if (typtype == TYPTYPE_RANGE || typtype == TYPTYPE_MULTIRANGE)
	{
		Oid			rngtype = typtype == TYPTYPE_RANGE ? base : get_multirange_range(base);
		TypeCacheEntry *tc = lookup_type_cache(rngtype, TYPECACHE_RANGE_INFO);
		BloomEnc   *child;

		/* bounds compare under the range type's own collation */
		child = bloom_enc_build(tc->rngelemtype->type_id, tc->rng_collation,
								NULL, keytype, mcxt);
		appendStringInfo(&sig, "range(%s)", child->signature);
		e = enc_new(BE_RANGE, rngtype, collation, sig.data, keytype, mcxt);
		e->child = child;
		e->typcache = tc;
		if (typtype == TYPTYPE_RANGE)
			return e;
		resetStringInfo(&sig);
		appendStringInfo(&sig, "multi%s", e->signature);
		child = e;
		e = enc_new(BE_MULTIRANGE, base, collation, sig.data, keytype, mcxt);
		e->child = child;
		e->typcache = lookup_type_cache(base, TYPECACHE_MULTIRANGE_INFO);
		return e;
	}
	if (typtype == TYPTYPE_ENUM)
	{
		appendStringInfo(&sig, "enum(%s)", type_name_for_tag(base));
		return enc_new(BE_ENUM, base, collation, sig.data, keytype, mcxt);
	}
	return build_other(base, collation, keytype, mcxt);
}

/* The family and type tag of keys written by e. */
void
bloom_enc_family(const BloomEnc *e, uint16 *family, uint32 *tag)
{
	*tag = 0;
	switch (e->kind)
	{
		case BE_INT2:
		case BE_INT4:
		case BE_INT8:
			*family = BF_FAMILY_INTEGER;
			break;
		case BE_FLOAT4:
		case BE_FLOAT8:
			*family = BF_FAMILY_FLOAT;
			break;
		case BE_NUMERIC:
			*family = BF_FAMILY_NUMERIC;
			break;
		case BE_TEXT:
		case BE_NAME:
		case BE_UNKNOWN:
			*family = BF_FAMILY_TEXT;
			break;
		case BE_BYTEA:
			*family = BF_FAMILY_BYTEA;
			break;
		case BE_UUID:
			*family = BF_FAMILY_UUID;
			break;
		case BE_BOOL:
			*family = BF_FAMILY_BOOL;
			break;
		case BE_DATE:
			*family = BF_FAMILY_DATE;
			break;
		case BE_TIMESTAMP:
			*family = e->typid == TIMESTAMPTZOID ? BF_FAMILY_TIMESTAMPTZ : BF_FAMILY_TIMESTAMP;
			break;
		case BE_INTERVAL:
			*family = BF_FAMILY_INTERVAL;
			break;
		case BE_JSONB:
			*family = BF_FAMILY_JSONB;
			break;
		case BE_ENUM:
			*family = BF_FAMILY_ENUM;
			*tag = signature_tag(e->signature);
			break;
		case BE_BITWISE:
		case BE_HASHED:
			*family = e->kind == BE_BITWISE ? BF_FAMILY_OTHER : BF_FAMILY_HASHED;
			/* built-in types keep their OID, the same in every database */
			*tag = e->typid < FirstNormalObjectId ? e->typid : signature_tag(e->signature);
			break;
		case BE_ARRAY:
		case BE_RECORD:
		case BE_RECORD_ANON:
		case BE_RANGE:
		case BE_MULTIRANGE:
			*family = BF_FAMILY_COMPOSITE;
			*tag = signature_tag(e->signature);
			break;
	}
}


/*
 * Which type of this database a tagged family's tag came from, for
 * messages and bloom_info: an enum's tag, and a non-built-in other or
 * hashed type's, are hashes of the type's signature (its qualified name,
 * with the database's encoding and locale for other and hashed types), so
 * the types of pg_type that could have written them are hashed in turn.
 * The answers (none included) are kept per backend until pg_type changes.
 */
#define TAG_CACHE_SLOTS 16

typedef struct TagCacheEntry
{
	bool		valid;
	uint16		family;
	uint32		tag;
	Oid			typid;			/* InvalidOid: no type of this database */
} TagCacheEntry;

static TagCacheEntry tag_cache[TAG_CACHE_SLOTS];
static bool tag_cache_callback = false;

static void
tag_cache_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	(void) arg;
	(void) cacheid;
	(void) hashvalue;
	memset(tag_cache, 0, sizeof(tag_cache));
}

/* The tag type typid would have in family, or 0 if it cannot be of it. */
static uint32
tag_of_type(Oid typid, char typtype, uint16 family)
{
	StringInfoData sig;
	uint32		tag;

	if (typid < FirstNormalObjectId)
		return 0;				/* built-in types: tagged by OID, or not tagged */
	initStringInfo(&sig);
	if (family == BF_FAMILY_ENUM && typtype == TYPTYPE_ENUM)
		appendStringInfo(&sig, "enum(%s)", type_name_for_tag(typid));
	else if ((family == BF_FAMILY_OTHER || family == BF_FAMILY_HASHED) &&
			 typtype == TYPTYPE_BASE)
	{
		appendStringInfo(&sig, "%s(%s", family == BF_FAMILY_OTHER ? "other" : "hashed",
						 type_name_for_tag(typid));
		append_database_context(&sig);
		appendStringInfoChar(&sig, ')');
	}
	else
	{
		pfree(sig.data);
		return 0;
	}
	tag = signature_tag(sig.data);
	pfree(sig.data);
	return tag;
}

Oid
bloom_type_of_tag(uint16 family, uint32 tag)
{
	TagCacheEntry *e = NULL;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			found = InvalidOid;

	if (family != BF_FAMILY_ENUM && family != BF_FAMILY_OTHER &&
		family != BF_FAMILY_HASHED)
		return InvalidOid;
	for (int i = 0; i < TAG_CACHE_SLOTS; i++)
	{
		if (tag_cache[i].valid && tag_cache[i].family == family && tag_cache[i].tag == tag)
			return tag_cache[i].typid;
		if (e == NULL && !tag_cache[i].valid)
			e = &tag_cache[i];
	}
	if (!tag_cache_callback)
	{
		CacheRegisterSyscacheCallback(TYPEOID, tag_cache_reset, (Datum) 0);
		tag_cache_callback = true;
	}
	rel = table_open(TypeRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (!OidIsValid(found) && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_type t = (Form_pg_type) GETSTRUCT(tup);

		if (tag_of_type(t->oid, t->typtype, family) == tag)
			found = t->oid;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (e == NULL)
		e = &tag_cache[tag % TAG_CACHE_SLOTS];
	e->family = family;
	e->tag = tag;
	e->typid = found;
	e->valid = true;
	return found;
}

/*
 * bloom_key_type_safety: whether keys of type typid under collation can be
 * hashed with no ERROR (key/bf_key.h).  One list for every caller that
 * must know it beforehand (autojoin/bf_autojoin_hook.c when it chooses a
 * join's keys, autojoin/bf_autojoin_probe.c when a remote probes them).
 */
BloomKeySafety
bloom_key_type_safety(Oid typid, Oid collation)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case BYTEAOID:
		case UUIDOID:
		case BOOLOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case INTERVALOID:
			return BKS_SCALAR;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
			/* a nondeterministic collation is refused by the key bytes */
			if (!OidIsValid(collation) || collation == DEFAULT_COLLATION_OID ||
				collation == C_COLLATION_OID || collation == POSIX_COLLATION_OID ||
				get_collation_isdeterministic(collation))
				return BKS_TEXT;
			return BKS_MAY_FAIL;
		default:
			return get_typtype(typid) == TYPTYPE_ENUM ? BKS_ENUM : BKS_MAY_FAIL;
	}
}
