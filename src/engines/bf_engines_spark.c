/*
 * engines/bf_engines_spark.c
 *		Layout spark: filters that are Spark's own BloomFilter bit for bit.
 *		Keys hash as Spark's putLong (int2, int4, int8, widened to long),
 *		putString (text, varchar, name: their UTF-8 bytes) and putBinary
 *		(bytea); bloom_empty sizes as BloomFilter.create; bloom_from_spark
 *		and bloom_to_spark read and write what readFrom and writeTo do.
 *		The core of it is core/bf_spark.c.
 *
 * A key that was added must probe true.  Spark's strings keep trailing
 * spaces, and character(n)'s = ignores them, so bpchar keys are refused
 * rather than hashed one way on one side and another way on the other;
 * text under a nondeterministic collation is refused by the key types
 * already.  A database in another encoding converts to UTF-8 first, as
 * Spark's strings are.
 */
#include "engines/bf_engines.h"
#include "bf_report.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/* Is typid (domains resolved) hashed by Spark's putString? */
static bool
spark_string_type(Oid typid)
{
	return typid == TEXTOID || typid == VARCHAROID || typid == NAMEOID ||
		typid == UNKNOWNOID;
}

void
bloom_spark_check_key(const BloomKeyType *kt)
{
	switch (kt->typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case BYTEAOID:
			return;
		case BPCHAROID:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a spark bloomfilter does not take keys of type character"),
					 errdetail("Values of type character compare equal without their trailing spaces; Spark hashes a string with them, so one key could hash two ways."),
					 errhint("Cast the key to text (trailing spaces dropped), or pad it as Spark's CHAR(n) does: rpad(x, n).")));
			break;
		default:
			if (spark_string_type(kt->typid))
				return;
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a spark bloomfilter does not take keys of type %s",
							format_type_be(kt->typid)),
					 errdetail("Spark's BloomFilter hashes longs (putLong), strings (putString) and byte arrays (putBinary) only."),
					 errhint("Cast the key: to bigint for a number Spark holds as a long, to text for a string, to bytea for bytes.")));
	}
}

/* putBinary of a string's UTF-8 bytes (putString). */
static uint64
spark_string_hash(const char *s, size_t len, uint32 seed)
{
	char	   *utf8 = (char *) pg_server_to_any(s, (int) len, PG_UTF8);
	uint64		h;

	if (utf8 != s)
		len = strlen(utf8);
	h = bf_spark_hash_bytes(seed, utf8, len);
	if (utf8 != s)
		pfree(utf8);
	return h;
}

uint64
bloom_spark_hash(const BloomKeyType *kt, Datum value, uint64 seed)
{
	uint32		s = (uint32) seed;	/* V2's seed is an int; V1's is 0 */

	switch (kt->typid)
	{
		case INT2OID:
			return bf_spark_hash_long(s, DatumGetInt16(value));
		case INT4OID:
			return bf_spark_hash_long(s, DatumGetInt32(value));
		case INT8OID:
			return bf_spark_hash_long(s, DatumGetInt64(value));
		case NAMEOID:
			{
				const char *n = NameStr(*DatumGetName(value));

				return spark_string_hash(n, strlen(n), s);
			}
		case UNKNOWNOID:
			{
				const char *c = DatumGetCString(value);

				return spark_string_hash(c, strlen(c), s);
			}
		case BYTEAOID:
		case TEXTOID:
		case VARCHAROID:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(value);
				uint64		h;

				if (kt->typid == BYTEAOID)
					h = bf_spark_hash_bytes(s, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
				else
					h = spark_string_hash(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), s);
				if ((Pointer) v != DatumGetPointer(value))
					pfree(v);
				return h;
			}
	}
	bloom_spark_check_key(kt);
	elog(ERROR, "unexpected spark key type %u", kt->typid);
	return 0;					/* keep compiler quiet */
}

/* A new empty spark filter: Spark's version 1 (seed 0). */
static struct varlena *
spark_make_empty(int hashes, uint64 nbits, int64 seed)
{
	struct varlena *f;

	if (seed != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a spark bloomfilter made here has seed 0, not " INT64_FORMAT, seed),
				 errdetail("It is written as Spark's version 1, which every Spark reads and which has no seed; a filter of version 2 with its seed comes from bloom_from_spark.")));
	if (bf_spark_check_geometry(hashes, nbits) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a spark bloomfilter of " UINT64_FORMAT " bits and %d hashes is outside what a bloomfilter holds",
						nbits, hashes),
				 errdetail("A bloomfilter has 1 to %d hashes and at most " UINT64_FORMAT " bits.",
						   BF_MAX_HASHES, (uint64) BF_MAX_NBITS)));
	f = bloomfilter_alloc(nbits);
	bf_init((uint8 *) VARDATA(f), BF_LAYOUT_SPARK, hashes, 0, nbits);
	return f;
}

struct varlena *
bloom_spark_empty(int64 capacity, double fpr, int64 seed)
{
	int64		numbits;
	int64		hashes;

	numbits = bf_spark_optimal_bits((uint64) capacity, fpr);
	if (numbits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Spark sizes a filter for " INT64_FORMAT " keys at rate %g with no bits",
						capacity, fpr),
				 errdetail("BloomFilter.create refuses it (\"Number of bits must be positive\")."),
				 errhint("Ask for a lower rate or more keys.")));
	hashes = bf_spark_optimal_hashes((uint64) capacity, numbits);
	if (hashes > BF_MAX_HASHES || (uint64) numbits > BF_MAX_NBITS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("Spark sizes a filter for " INT64_FORMAT " keys at rate %g with " INT64_FORMAT " bits and " INT64_FORMAT " hashes, more than a bloomfilter holds",
						capacity, fpr, numbits, hashes),
				 errdetail("A bloomfilter has 1 to %d hashes and at most " UINT64_FORMAT " bits.",
						   BF_MAX_HASHES, (uint64) BF_MAX_NBITS)));
	return spark_make_empty((int) hashes, bf_spark_round_bits((uint64) numbits), seed);
}

struct varlena *
bloom_spark_empty_bits(int64 bits, int32 hashes, int64 seed)
{
	if (bits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size must be positive, not " INT64_FORMAT " bits", bits)));
	return spark_make_empty(hashes, bf_spark_round_bits((uint64) Min(bits, (int64) BF_MAX_NBITS + 64)),
							seed);
}

/*
 * bloom_from_spark(data bytea): the bytes Spark's writeTo writes, every
 * field checked.  Spark does not record which kind of key made its bits
 * nor how many were put: the filter answers probes of any key Spark hashes
 * (key family "spark"), and its add count is the estimate from its bits.
 */
PG_FUNCTION_INFO_V1(bloomfilter_from_spark);
Datum
bloomfilter_from_spark(PG_FUNCTION_ARGS)
{
	bytea	   *data = PG_GETARG_BYTEA_PP(0);
	bf_spark_info info;
	bf_spark_status st;
	struct varlena *f;
	bf_view		v;
	uint64		set;

	st = bf_spark_parse((const uint8 *) VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data), &info);
	if (st != BF_SPARK_OK)
		ereport(ERROR,
				(errcode(st == BF_SPARK_TOO_LARGE ? ERRCODE_PROGRAM_LIMIT_EXCEEDED :
						 ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid Spark Bloom filter: %s", bf_spark_status_message(st)),
				 errdetail("Spark's BloomFilter.writeTo writes a big-endian version (1 or 2), the number of hash functions, in version 2 a seed, the number of 64-bit words, then the words; %zu bytes were given.",
						   (size_t) VARSIZE_ANY_EXHDR(data))));
	f = bloomfilter_alloc(info.nbits);
	bf_init((uint8 *) VARDATA(f), BF_LAYOUT_SPARK, info.hashes,
			(uint64) (int64) info.seed, info.nbits);
	bf_view_of((uint8 *) VARDATA(f), &v);
	v.param = (uint16) info.version;
	bf_spark_words_in(info.words, info.nbits, v.bits);
	set = bf_popcount(&v);
	if (set > 0)
	{
		double		n = bf_est_cardinality(&v);

		v.family = BF_FAMILY_SPARK;
		v.added = isfinite(n) && n >= 1.0 && n < (double) info.nbits ?
			(uint64) (n + 0.5) : (n >= 1.0 ? info.nbits : 1);
	}
	bf_store_header((uint8 *) VARDATA(f), &v);
	PG_RETURN_POINTER(f);
}

/*
 * bloom_to_spark(f): what Spark's writeTo writes for f, which BloomFilter
 * .readFrom reads: version 1 for a filter made here, version 2 (with its
 * seed) for one read as version 2.
 */
PG_FUNCTION_INFO_V1(bloomfilter_to_spark);
Datum
bloomfilter_to_spark(PG_FUNCTION_ARGS)
{
	bf_view		v;
	bytea	   *out;
	size_t		len;

	bloomfilter_getarg(fcinfo, 0, &v);
	if (v.layout != BF_LAYOUT_SPARK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("only a bloomfilter of layout spark can be written as Spark's bytes, not one of layout %s",
						bf_layout_name(v.layout)),
				 errdetail("Spark places a key's bits its own way; a filter of another layout holds them elsewhere."),
				 errhint("Build the filter as bloom_empty(capacity, fpr, 'spark') and add the keys to it.")));
	len = bf_spark_serialized_size(v.param, v.nbits);
	out = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(out, VARHDRSZ + len);
	bf_spark_write((uint8 *) VARDATA(out), v.param, v.hashes, (int32) (int64) v.seed,
				   v.bits, v.nbits);
	PG_RETURN_BYTEA_P(out);
}

/*
 * Whether bloom_spark_check_key passes for kt, without an ERROR: the
 * indexes ask it so that a probe a sequential scan would refuse is left to
 * the table's recheck, which raises the error for visible rows only.
 */
bool
bloom_spark_key_ok(const BloomKeyType *kt)
{
	switch (kt->typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case BYTEAOID:
			return true;
	}
	return spark_string_type(kt->typid);
}
