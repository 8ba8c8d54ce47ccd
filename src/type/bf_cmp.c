/*
 * type/bf_cmp.c
 *		Comparison and hashing of whole values, shared by every type of the
 *		extension: bloomfilter, countingbloom, scalablebloom and bloomwindow.
 *
 * Each of these types is a varlena whose payload is its portable format,
 * canonical in memory and on disk (checksum field zero, reserved fields and
 * padding zero), so two values are the same value exactly when their
 * payloads are the same bytes.  That is what `=` compares (bloomfilter's
 * own `=` in type/bf_ops.c does the same after checking the header), and the
 * btree order here extends it to a total order: the payloads compared as
 * unsigned bytes, a proper prefix first, as bytea orders its bytes.  The
 * order has no meaning beyond that (it is not a subset order); it exists
 * so that DISTINCT, ORDER BY, sorted GROUP BY, merge joins and window
 * partitions work.
 *
 * The same value may arrive in several forms: with a 4-byte or a 1-byte
 * header, compressed inline, or TOASTed (compressed or not).  Every
 * function here reads the payload through PG_DETOAST_DATUM_PACKED and
 * VARDATA_ANY / VARSIZE_ANY_EXHDR, so only the bytes count, never their
 * form.  Comparison functions are called by sorts and btree searches in
 * long-lived memory contexts, so a detoasted copy is freed before
 * returning.
 *
 * The functions read nothing but the payload's bytes, within its length,
 * so a value need not be decoded (or valid) to be compared or hashed.
 */
#include "bloomfilter.h"

#include "access/detoast.h"

PG_FUNCTION_INFO_V1(bloomfilter_bytes_cmp);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_lt);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_le);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_gt);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_ge);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_eq);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_ne);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_hash);
PG_FUNCTION_INFO_V1(bloomfilter_bytes_hash_extended);

/* -1, 0 or 1 as the payload of a sorts before, with or after b's. */
static int
payload_cmp(struct varlena *a, struct varlena *b)
{
	size_t		la = VARSIZE_ANY_EXHDR(a);
	size_t		lb = VARSIZE_ANY_EXHDR(b);
	int			c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));

	if (c != 0)
		return c < 0 ? -1 : 1;
	return la < lb ? -1 : (la > lb ? 1 : 0);
}

/* payload_cmp of arguments 0 and 1, with detoasted copies freed. */
static int
args_cmp(FunctionCallInfo fcinfo)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	struct varlena *b = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));
	int			c = payload_cmp(a, b);

	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return c;
}

/*
 * Equality of arguments 0 and 1.  Values of different lengths are unequal
 * whatever their bytes: the raw size is read from the TOAST pointer or
 * header, without detoasting (as byteaeq does).
 */
static bool
args_equal(FunctionCallInfo fcinfo)
{
	Datum		da = PG_GETARG_DATUM(0);
	Datum		db = PG_GETARG_DATUM(1);
	struct varlena *a;
	struct varlena *b;
	bool		eq;

	if (toast_raw_datum_size(da) != toast_raw_datum_size(db))
		return false;
	a = PG_DETOAST_DATUM_PACKED(da);
	b = PG_DETOAST_DATUM_PACKED(db);
	eq = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return eq;
}

/* XXH3-64 of argument 0's payload under seed, the copy freed. */
static uint64
arg_hash(FunctionCallInfo fcinfo, uint64 seed)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	uint64		h = bf_hash_bytes(seed, VARDATA_ANY(a), VARSIZE_ANY_EXHDR(a));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

/* btree support function 1 */
Datum
bloomfilter_bytes_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(args_cmp(fcinfo));
}

Datum
bloomfilter_bytes_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(args_cmp(fcinfo) < 0);
}

Datum
bloomfilter_bytes_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(args_cmp(fcinfo) <= 0);
}

Datum
bloomfilter_bytes_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(args_cmp(fcinfo) > 0);
}

Datum
bloomfilter_bytes_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(args_cmp(fcinfo) >= 0);
}

/* `=` of countingbloom, scalablebloom and bloomwindow */
Datum
bloomfilter_bytes_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(args_equal(fcinfo));
}

Datum
bloomfilter_bytes_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!args_equal(fcinfo));
}

/*
 * hash support function 1 of countingbloom, scalablebloom and bloomwindow:
 * the low 32 bits of the payload's XXH3-64 with seed 0, as bloomfilter_hash
 * computes it for a bloomfilter.
 */
Datum
bloomfilter_bytes_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) arg_hash(fcinfo, 0));
}

/*
 * hash support function 2 of every type: the payload's XXH3-64 under the
 * given seed.  PostgreSQL requires (access/hash.h) that with seed 0 its low
 * 32 bits be support function 1's result; both are XXH3-64 of the same
 * bytes with seed 0, so they are.
 */
Datum
bloomfilter_bytes_hash_extended(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) arg_hash(fcinfo, (uint64) PG_GETARG_INT64(1)));
}
