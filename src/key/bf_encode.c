/*
 * key/bf_encode.c
 *		The key type of a call site, the hash of a key, and the key family
 *		rules.
 *
 * The one promise of a Bloom filter is that a key that was added probes
 * true.  In SQL that means: wherever x = y holds, y must hash like x.  So a
 * type is hashed from a canonical encoding that agrees with its equality:
 * key/bf_keytypes.c decides it per type (or refuses the type), key/bf_keybytes.c
 * writes it, and src/core/FORMAT.md documents it byte by byte.  Here a
 * call learns its keys' type (what it was before an implicit cast, under
 * which collation, with which columns for type record), the common scalar
 * types get a fast path, and a filter's family is checked against its keys.
 */
#include "key/bf_key_encoding.h"

#include "access/hash.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation.h"
#include "catalog/dependency.h"
#include "catalog/pg_database.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
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
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

void
bloom_key_type_init(BloomKeyType *kt, Oid typid, Oid collation, Node *hint,
					MemoryContext mcxt)
{
	BloomEnc   *e = bloom_enc_build(typid, collation, hint, getBaseType(typid), mcxt);

	memset(kt, 0, sizeof(*kt));
	kt->typid = e->typid;
	bloom_enc_family(e, &kt->family, &kt->type_tag);
	switch (e->kind)
	{
		case BE_INT2:
			kt->kind = BK_INT2;
			return;
		case BE_INT4:
			kt->kind = BK_INT4;
			return;
		case BE_INT8:
			kt->kind = BK_INT8;
			return;
		case BE_FLOAT4:
			kt->kind = BK_FLOAT4;
			return;
		case BE_FLOAT8:
			kt->kind = BK_FLOAT8;
			return;
		case BE_NUMERIC:
			kt->kind = BK_NUMERIC;
			return;
		case BE_TEXT:
			if (bloom_db_text_is_utf8())
			{
				kt->kind = BK_TEXT;
				return;
			}
			break;
		case BE_BYTEA:
			kt->kind = BK_BYTEA;
			return;
		case BE_UUID:
			kt->kind = BK_UUID;
			return;
		case BE_BOOL:
			kt->kind = BK_BOOL;
			return;
		case BE_DATE:
			kt->kind = BK_DATE;
			return;
		case BE_TIMESTAMP:
			kt->kind = BK_TIMESTAMP;
			return;
		default:
			break;
	}
	kt->kind = BK_ENCODED;
	kt->enc = e;
	/*
	 * Default sizes: the key bytes' first 1 kB buffer then fits the block a
	 * reset keeps, so a value costs no malloc.
	 */
	kt->scratch = AllocSetContextCreate(mcxt, "bloomfilter key bytes",
										ALLOCSET_DEFAULT_SIZES);
}

/*
 * The expression of a call's argument argno, if the executor tells: for an
 * aggregate's transition function, the aggregate's own argument.
 */
static Node *
call_arg_expr(FunctionCallInfo fcinfo, int argno)
{
	Aggref	   *aggref;
	List	   *args = NIL;
	Node	   *expr = fcinfo->flinfo->fn_expr;

	/*
	 * Without a call expression the caller is not the executor's own call
	 * of this function: Citus's worker_partial_agg calls an aggregate's
	 * transition function itself, under its own Aggref (whose arguments
	 * are not this function's), so that Aggref tells nothing here.
	 */
	if (expr == NULL)
		return NULL;
	aggref = fcinfo->context != NULL ? AggGetAggref(fcinfo) : NULL;
	if (aggref != NULL)
	{
		/* the transition function's argument 0 is the state */
		if (argno >= 1 && argno - 1 < list_length(aggref->args))
			return (Node *) ((TargetEntry *) list_nth(aggref->args, argno - 1))->expr;
		return NULL;
	}
	if (IsA(expr, FuncExpr))
		args = ((FuncExpr *) expr)->args;
	else if (IsA(expr, OpExpr))
		args = ((OpExpr *) expr)->args;
	else
		return NULL;
	return argno < list_length(args) ? (Node *) list_nth(args, argno) : NULL;
}

/*
 * What tells the columns of type record in argument argno: the argument's
 * value, when the call has one (the value of a record carries its row
 * type, which a Var over a subquery does not tell), else its expression.
 */
static Node *
call_arg_hint(FunctionCallInfo fcinfo, int argno, Oid typid)
{
	Oid			base = getBaseType(typid);
	Oid			elem = get_element_type(base);
	int16		typlen;
	bool		typbyval;

	if (base != RECORDOID && (!OidIsValid(elem) || getBaseType(elem) != RECORDOID))
		return call_arg_expr(fcinfo, argno);
	if (argno >= PG_NARGS() || PG_ARGISNULL(argno))
		return call_arg_expr(fcinfo, argno);
	get_typlenbyval(base, &typlen, &typbyval);
	return (Node *) makeConst(base, -1, InvalidOid, typlen,
							  PG_GETARG_DATUM(argno), false, typbyval);
}

/*
 * The type a key had before an implicit binary-coercible cast: citext, for
 * one, is relabelled text to reach the text overloads, but its = is not
 * text's.  An explicit cast is the user's choice of equality and is kept.
 */
static Oid
type_before_relabel(FunctionCallInfo fcinfo, int argno, Oid typid)
{
	Node	   *expr = call_arg_expr(fcinfo, argno);

	while (expr != NULL && IsA(expr, RelabelType) &&
		   ((RelabelType *) expr)->relabelformat == COERCE_IMPLICIT_CAST)
	{
		expr = (Node *) ((RelabelType *) expr)->arg;
		typid = exprType(expr);
	}
	return typid;
}

/*
 * The type function fn_oid declares for argument argno, when it is not
 * polymorphic: what a call without a call expression (Citus's
 * worker_partial_agg calling the transition function of a bloom_agg
 * overload for one key type) still tells.  InvalidOid otherwise.
 */
static Oid
declared_arg_type(Oid fn_oid, int argno)
{
	HeapTuple	tup;
	Oid			typid = InvalidOid;

	if (!OidIsValid(fn_oid))
		return InvalidOid;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tup);

		if (argno >= 0 && argno < proc->pronargs &&
			!IsPolymorphicType(proc->proargtypes.values[argno]))
			typid = proc->proargtypes.values[argno];
	}
	ReleaseSysCache(tup);
	return typid;
}

void
bloom_key_type_for_arg(BloomKeyType *kt, FunctionCallInfo fcinfo, int argno)
{
	bloom_key_type_for_arg_in(kt, fcinfo, argno, fcinfo->flinfo->fn_mcxt);
}

void
bloom_key_type_for_arg_in(BloomKeyType *kt, FunctionCallInfo fcinfo, int argno,
						  MemoryContext mcxt)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (OidIsValid(typid))
		typid = type_before_relabel(fcinfo, argno, typid);
	else
		typid = declared_arg_type(fcinfo->flinfo->fn_oid, argno);

	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the type of the bloomfilter key")));
	bloom_key_type_init(kt, typid, PG_GET_COLLATION(),
						call_arg_hint(fcinfo, argno, typid), mcxt);
}

void
bloom_key_type_for_elements(BloomKeyType *kt, FunctionCallInfo fcinfo, int argno)
{
	Oid			arrtype = type_before_relabel(fcinfo, argno,
											  get_fn_expr_argtype(fcinfo->flinfo, argno));
	Oid			elemtype = get_element_type(getBaseType(arrtype));

	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the keys of a call over many keys must be an array")));
	bloom_key_type_init(kt, elemtype, PG_GET_COLLATION(),
						bloom_hint_part(call_arg_hint(fcinfo, argno, arrtype), 0),
						fcinfo->flinfo->fn_mcxt);
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
			bloom_key_type_for_elements(kt, fcinfo, argno);
		else
			bloom_key_type_for_arg(kt, fcinfo, argno);
		fcinfo->flinfo->fn_extra = kt;
	}
	return kt;
}

static uint64
numeric_hash(Datum value, uint64 seed)
{
	size_t		len;
	char	   *s = bloom_numeric_text(value, &len);
	uint64		h = bf_hash_bytes(seed, s, len);

	pfree(s);
	return h;
}

/* Hashes the payload of a possibly toasted or short-header varlena. */
static uint64
varlena_hash(Datum value, uint64 seed, bool is_text)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(value);
	const char *p = VARDATA_ANY(v);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	uint64		h;

	if (is_text)
		len = bloom_text_len(p, len);
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
			return bf_hash_int64(seed, (int64) bloom_double_bits((double) DatumGetFloat4(value)));
		case BK_FLOAT8:
			return bf_hash_int64(seed, (int64) bloom_double_bits(DatumGetFloat8(value)));
		case BK_NUMERIC:
			return numeric_hash(value, seed);
		case BK_TEXT:
			return varlena_hash(value, seed, true);
		case BK_BYTEA:
			return varlena_hash(value, seed, false);
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
		case BK_ENCODED:
			{
				MemoryContext old = MemoryContextSwitchTo(kt->scratch);
				StringInfoData buf;
				uint64		h;

				initStringInfo(&buf);
				bloom_enc_append(kt->enc, value, &buf);
				h = bf_hash_bytes(seed, buf.data, buf.len);
				MemoryContextSwitchTo(old);
				MemoryContextReset(kt->scratch);
				return h;
			}
	}
	elog(ERROR, "unexpected bloomfilter key kind %d", (int) kt->kind);
	return 0;					/* keep compiler quiet */
}

char *
bloom_family_display(uint16 family, uint32 type_tag)
{
	Oid			typid;

	/* a built-in type of a newer server may be unknown here */
	if ((family == BF_FAMILY_OTHER || family == BF_FAMILY_HASHED) &&
		type_tag < FirstNormalObjectId)
	{
		if (SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(type_tag)))
			return psprintf("%s (%s)", bf_family_name(family), format_type_be(type_tag));
		return psprintf("%s (type oid %u)", bf_family_name(family), type_tag);
	}
	/* an enum or an extension's type: by name when it is of this database */
	typid = bloom_type_of_tag(family, type_tag);
	if (OidIsValid(typid))
		return psprintf("%s (%s)", bf_family_name(family), format_type_be(typid));
	if (bf_family_tagged(family))
		return psprintf("%s (type tag %08x)", bf_family_name(family), type_tag);
	return pstrdup(bf_family_name(family));
}

/*
 * How the keys of kt are named: enums and other types by their type's
 * name, as bloom_family_display names a filter's; composite keys by their
 * signature, which says more than a tag.
 */
static char *
key_family_display(const BloomKeyType *kt)
{
	if (kt->enc != NULL &&
		(kt->family == BF_FAMILY_ENUM || kt->family == BF_FAMILY_OTHER ||
		 kt->family == BF_FAMILY_HASHED))
		return psprintf("%s (%s)", bf_family_name(kt->family),
						format_type_be(kt->enc->typid));
	if (kt->enc != NULL && bf_family_tagged(kt->family))
		return psprintf("%s %s (type tag %08x)", bf_family_name(kt->family),
						kt->enc->signature, kt->type_tag);
	return bloom_family_display(kt->family, kt->type_tag);
}

/* Whether typid is this extension's type named name. */
static bool
is_extension_type(Oid typid, const char *name)
{
	Oid			ext = get_extension_oid("bloomfilter", true);
	HeapTuple	tup;
	bool		is;

	if (!OidIsValid(ext) || getExtensionOfObject(TypeRelationId, typid) != ext)
		return false;
	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		return false;
	is = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), name) == 0;
	ReleaseSysCache(tup);
	return is;
}

/*
 * The hint of a family mismatch: the form the user likely meant where the
 * key is a filter or an array of the filter's keys, else a cast.
 */
static const char *
family_hint(const bf_view *v, const BloomKeyType *kt, bool adding)
{
	if (is_extension_type(kt->typid, "bloomfilter"))
		return adding ?
			"A bloomfilter is not a key: to add every key of one filter to another, unite them with f | q." :
			"A bloomfilter is not a key: to test whether a filter holds every key of another, use f @>> q; to unite two filters, use f | q.";
	if (v->family != BF_FAMILY_COMPOSITE && type_is_array(kt->typid))
		return adding ?
			"An array is one key here: to add each of its elements, use bloom_add_all(f, keys)." :
			"An array is one key here: to probe each of its elements, use bloom_contains_all(f, keys), or bloom_filter_array(f, keys) for the elements that may be in f.";
	return "Cast the key to a type of the filter's family.";
}

void
bloom_family_mismatch(const bf_view *v, const BloomKeyType *kt, bool adding)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("the filter holds keys of family \"%s\", not \"%s\"",
					bloom_family_display(v->family, v->type_tag),
					key_family_display(kt)),
			 errdetail("Values of type %s hash as family \"%s\"; a filter answers only for keys of the family it was built from.",
					   format_type_be(kt->typid),
					   key_family_display(kt)),
			 errhint("%s", family_hint(v, kt, adding))));
}

