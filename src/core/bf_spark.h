/*
 * bf_spark.h
 *		Spark's Bloom filter (org.apache.spark.util.sketch.BloomFilter):
 *		its byte hashing (Spark's Murmur3_x86_32), the bit positions of a key
 *		in its serialization versions 1 and 2, its sizing, and the bytes its
 *		writeTo writes and readFrom reads (bf_spark.c).
 *
 * A key's two 32-bit Murmur3 hashes h1 and h2 travel as one 64-bit value,
 * h1 in the high half and h2 in the low half, so that the layout fits the
 * pipelines that carry one 64-bit hash per key (batches, aggregates,
 * indexes); bf_spark_positions turns that value into Spark's k indexes.
 *
 * Bit i of a Spark filter is bit i & 63 of its word i >> 6; words are
 * kept little-endian in the portable format's bit array, so Spark's bit
 * index and the portable format's are the same number, and only the
 * serialized words (big-endian, as Java's DataOutputStream writes them)
 * are swapped.
 *
 * Part of the core: no PostgreSQL header may be included here.
 */
#ifndef BF_SPARK_H
#define BF_SPARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"

/* Spark's serialization versions (BloomFilter.Version) */
#define BF_SPARK_V1 1
#define BF_SPARK_V2 2

/* Bytes before the words: version, k, (V2: seed,) number of words. */
#define BF_SPARK_V1_HEADER 12
#define BF_SPARK_V2_HEADER 16

/*
 * Murmur3_x86_32.hashUnsafeBytes: the 4-byte words little-endian, then
 * each remaining byte, sign-extended, as a whole round of its own (not
 * the reference Murmur3 tail), then the finalizer with the length.
 */
extern uint32_t bf_spark_murmur3(const void *data, size_t len, uint32_t seed);

/* h1 = hash(key, seed), h2 = hash(key, h1), packed as (h1 << 32) | h2. */
static inline uint64_t
bf_spark_hash_bytes(uint32_t seed, const void *data, size_t len)
{
	uint32_t	h1 = bf_spark_murmur3(data, len, seed);
	uint32_t	h2 = bf_spark_murmur3(data, len, h1);

	return ((uint64_t) h1 << 32) | h2;
}

/*
 * putLong: Murmur3_x86_32.hashLong hashes the low then the high 32 bits,
 * which is the byte hash of the long's 8 little-endian bytes.
 */
extern uint64_t bf_spark_hash_long(uint32_t seed, int64_t v);

/*
 * The k bit indexes of packed hash h in a filter of nbits bits, in
 * Spark's order, into pos[0 .. k-1]:
 *   V1: for i in 1..k, c = h1 + i * h2 in 32-bit two's complement,
 *       ~c if negative, then c mod nbits;
 *   V2: c = h1 * (2^31 - 1) in 64 bits; for each of k, c += h2, index
 *       (~c if negative, c kept as it was) mod nbits.
 */
static inline void
bf_spark_positions(int version, uint64_t nbits, int k, uint64_t h, uint64_t *pos)
{
	int32_t		h1 = (int32_t) (uint32_t) (h >> 32);
	int32_t		h2 = (int32_t) (uint32_t) h;

	if (version == BF_SPARK_V2)
	{
		/* unsigned arithmetic: Java's long wraps, C's signed one may not */
		uint64_t	c = (uint64_t) ((int64_t) h1 * INT64_C(2147483647));

		for (int i = 0; i < k; i++)
		{
			int64_t		s;

			c += (uint64_t) (int64_t) h2;
			s = (int64_t) c;
			pos[i] = (uint64_t) (s < 0 ? ~s : s) % nbits;
		}
	}
	else
	{
		for (int i = 1; i <= k; i++)
		{
			int32_t		c = (int32_t) ((uint32_t) h1 + (uint32_t) i * (uint32_t) h2);

			if (c < 0)
				c = ~c;
			pos[i - 1] = (uint64_t) c % nbits;
		}
	}
}

/* putLong / putBinary on the packed hash: sets the k bits. */
static inline void
bf_spark_insert(uint8_t *bits, uint64_t nbits, int k, int version, uint64_t h)
{
	uint64_t	pos[BF_MAX_HASHES];

	bf_spark_positions(version, nbits, k, h, pos);
	for (int i = 0; i < k; i++)
		bits[pos[i] >> 3] |= (uint8_t) (1u << (pos[i] & 7));
}

/* mightContainLong / mightContainBinary on the packed hash. */
static inline bool
bf_spark_probe(const uint8_t *bits, uint64_t nbits, int k, int version, uint64_t h)
{
	uint64_t	pos[BF_MAX_HASHES];

	bf_spark_positions(version, nbits, k, h, pos);
	for (int i = 0; i < k; i++)
		if (!(bits[pos[i] >> 3] & (1u << (pos[i] & 7))))
			return false;
	return true;
}

/*
 * BloomFilter.create(expectedNumItems, fpp)'s numBits:
 * (long) (-n * ln p / (ln 2)^2), 0 when that is not positive (Spark then
 * refuses to create the filter), saturating as Java's (long) does.
 */
extern int64_t bf_spark_optimal_bits(uint64_t n, double p);

/* optimalNumOfHashFunctions(n, m): max(1, Math.round(m / n * ln 2)). */
extern int64_t bf_spark_optimal_hashes(uint64_t n, int64_t m);

/* BitArray(numBits)'s size: numBits rounded up to whole 64-bit words. */
static inline uint64_t
bf_spark_round_bits(uint64_t numbits)
{
	return (numbits + 63) / 64 * 64;
}

/* k in this extension's range; whole 64-bit words (Spark's BitArray). */
static inline bf_status
bf_spark_check_geometry(int hashes, uint64_t nbits)
{
	if (hashes < BF_MIN_HASHES || hashes > BF_MAX_HASHES)
		return BF_ERR_HASHES;
	if (nbits == 0 || nbits > BF_MAX_NBITS || nbits % 64 != 0)
		return BF_ERR_NBITS;
	return BF_OK;
}

/*
 * The portable header's flags hold Spark's version; V1 has no seed, V2's
 * is a Java int (kept sign-extended in the 64-bit seed field).
 */
static inline bool
bf_spark_param_valid(unsigned param, uint64_t seed)
{
	if (param == BF_SPARK_V1)
		return seed == 0;
	return param == BF_SPARK_V2 &&
		(int64_t) seed == (int64_t) (int32_t) (uint32_t) seed;
}

/*
 * Spark hashes longs, strings and binaries, and nothing else; a filter
 * read from Spark holds keys of any of these (BF_FAMILY_SPARK).
 */
static inline bool
bf_spark_family_valid(unsigned family, uint32_t tag)
{
	return tag == 0 &&
		(family == BF_FAMILY_NONE || family == BF_FAMILY_INTEGER ||
		 family == BF_FAMILY_TEXT || family == BF_FAMILY_BYTEA ||
		 family == BF_FAMILY_SPARK);
}

/* What readFrom learnt from Spark's bytes. */
typedef struct bf_spark_info
{
	int			version;		/* BF_SPARK_V1 or BF_SPARK_V2 */
	int			hashes;			/* numHashFunctions */
	int32_t		seed;			/* V2's seed; 0 for V1 */
	uint64_t	nbits;			/* numWords * 64 */
	const uint8_t *words;		/* the big-endian words, nbits / 8 bytes */
} bf_spark_info;

/* Why Spark's bytes are refused (bf_spark_status_message says it). */
typedef enum bf_spark_status
{
	BF_SPARK_OK = 0,
	BF_SPARK_TRUNCATED,			/* shorter than its version's header */
	BF_SPARK_VERSION,			/* neither 1 nor 2 */
	BF_SPARK_HASHES,			/* numHashFunctions outside 1..32 */
	BF_SPARK_WORDS,				/* numWords not positive */
	BF_SPARK_TOO_LARGE,			/* more bits than a bloomfilter holds */
	BF_SPARK_LENGTH				/* bytes missing or left after the words */
} bf_spark_status;

/*
 * Parses and checks the bytes writeTo writes: every field, and the length
 * exactly.  Reads nothing outside [buf, buf + len).
 */
extern bf_spark_status bf_spark_parse(const uint8_t *buf, size_t len,
									  bf_spark_info *info);

/* A lower-case sentence fragment for a refusal. */
extern const char *bf_spark_status_message(bf_spark_status st);

/* Copies Spark's big-endian words into a bit array (nbits / 8 bytes). */
extern void bf_spark_words_in(const uint8_t *words, uint64_t nbits, uint8_t *bits);

/* Size of writeTo's bytes for a filter of nbits bits. */
static inline size_t
bf_spark_serialized_size(int version, uint64_t nbits)
{
	return (version == BF_SPARK_V2 ? BF_SPARK_V2_HEADER : BF_SPARK_V1_HEADER) +
		(size_t) (nbits / 8);
}

/*
 * Writes writeTo's bytes (bf_spark_serialized_size of them) for a filter
 * of that version, k, seed and bit array.
 */
extern void bf_spark_write(uint8_t *out, int version, int hashes, int32_t seed,
						   const uint8_t *bits, uint64_t nbits);

#endif							/* BF_SPARK_H */
