/*
 * bf_spark.c
 *		Spark's Bloom filter: its Murmur3_x86_32 byte hashing, its sizing,
 *		and the bytes of BloomFilter.writeTo / readFrom (see bf_spark.h).
 */
#include <math.h>
#include <string.h>

#include "bf_core.h"
#include "bf_spark.h"

static inline uint32_t
rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t
mix_k1(uint32_t k1)
{
	k1 *= UINT32_C(0xcc9e2d51);
	k1 = rotl32(k1, 15);
	return k1 * UINT32_C(0x1b873593);
}

static inline uint32_t
mix_h1(uint32_t h1, uint32_t k1)
{
	h1 ^= k1;
	h1 = rotl32(h1, 13);
	return h1 * 5 + UINT32_C(0xe6546b64);
}

static inline uint32_t
fmix(uint32_t h1, uint32_t len)
{
	h1 ^= len;
	h1 ^= h1 >> 16;
	h1 *= UINT32_C(0x85ebca6b);
	h1 ^= h1 >> 13;
	h1 *= UINT32_C(0xc2b2ae35);
	h1 ^= h1 >> 16;
	return h1;
}

/*
 * Java's byte[] length is an int: Spark never hashes more than 2^31 - 1
 * bytes, and the finalizer takes the length as an int.  Our keys are at
 * most 1 GB, so the length fits.
 */
uint32_t
bf_spark_murmur3(const void *data, size_t len, uint32_t seed)
{
	const uint8_t *p = data;
	size_t		aligned = len - len % 4;
	uint32_t	h1 = seed;

	for (size_t i = 0; i < aligned; i += 4)
		h1 = mix_h1(h1, mix_k1(bf_load_le32(p + i)));
	/* each tail byte is a signed Java byte, widened to int */
	for (size_t i = aligned; i < len; i++)
		h1 = mix_h1(h1, mix_k1((uint32_t) (int32_t) (int8_t) p[i]));
	return fmix(h1, (uint32_t) len);
}

uint64_t
bf_spark_hash_long(uint32_t seed, int64_t v)
{
	uint8_t		le[8];

	bf_store_le64(le, (uint64_t) v);
	return bf_spark_hash_bytes(seed, le, 8);
}

/*
 * Java's (long) of a double: NaN is 0, values beyond the range saturate,
 * the rest truncate toward zero.
 */
static int64_t
java_double_to_long(double d)
{
	if (isnan(d))
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t) d;
}

int64_t
bf_spark_optimal_bits(uint64_t n, double p)
{
	/* -n is a Java long, widened to double before the product */
	double		bits = (double) -(int64_t) n * log(p) / (log(2) * log(2));
	int64_t		m = java_double_to_long(bits);

	return m > 0 ? m : 0;
}

int64_t
bf_spark_optimal_hashes(uint64_t n, int64_t m)
{
	double		x = (double) m / (double) (int64_t) n * log(2);
	double		f = floor(x);
	int64_t		r;

	/* Math.round: the nearest long, halves rounded up */
	r = java_double_to_long(f);
	if (x - f >= 0.5)
		r++;
	/* (int) of the long keeps its low 32 bits */
	r = (int32_t) (uint32_t) (uint64_t) r;
	return r > 1 ? r : 1;
}

static inline uint32_t
be32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

bf_spark_status
bf_spark_parse(const uint8_t *buf, size_t len, bf_spark_info *info)
{
	size_t		header;
	int32_t		version,
				hashes,
				nwords;

	memset(info, 0, sizeof(*info));
	if (len < 4)
		return BF_SPARK_TRUNCATED;
	version = (int32_t) be32(buf);
	if (version != BF_SPARK_V1 && version != BF_SPARK_V2)
		return BF_SPARK_VERSION;
	header = version == BF_SPARK_V2 ? BF_SPARK_V2_HEADER : BF_SPARK_V1_HEADER;
	if (len < header)
		return BF_SPARK_TRUNCATED;
	hashes = (int32_t) be32(buf + 4);
	if (hashes < BF_MIN_HASHES || hashes > BF_MAX_HASHES)
		return BF_SPARK_HASHES;
	if (version == BF_SPARK_V2)
		info->seed = (int32_t) be32(buf + 8);
	nwords = (int32_t) be32(buf + header - 4);
	if (nwords <= 0)
		return BF_SPARK_WORDS;
	if ((uint64_t) nwords * 64 > BF_MAX_NBITS)
		return BF_SPARK_TOO_LARGE;
	if ((uint64_t) (len - header) != (uint64_t) nwords * 8)
		return BF_SPARK_LENGTH;
	info->version = version;
	info->hashes = hashes;
	info->nbits = (uint64_t) nwords * 64;
	info->words = buf + header;
	return BF_SPARK_OK;
}

const char *
bf_spark_status_message(bf_spark_status st)
{
	switch (st)
	{
		case BF_SPARK_OK:
			return "valid";
		case BF_SPARK_TRUNCATED:
			return "the data is shorter than a Spark Bloom filter's header";
		case BF_SPARK_VERSION:
			return "the version is neither 1 nor 2";
		case BF_SPARK_HASHES:
			return "the number of hash functions is outside 1..32";
		case BF_SPARK_WORDS:
			return "the number of words is not positive";
		case BF_SPARK_TOO_LARGE:
			return "the filter has more bits than a bloomfilter can hold";
		case BF_SPARK_LENGTH:
			return "the length does not match the number of words";
	}
	return "unknown status";
}

void
bf_spark_words_in(const uint8_t *words, uint64_t nbits, uint8_t *bits)
{
	for (uint64_t w = 0; w < nbits / 64; w++)
		for (int b = 0; b < 8; b++)
			bits[w * 8 + b] = words[w * 8 + 7 - b];
}

void
bf_spark_write(uint8_t *out, int version, int hashes, int32_t seed,
			   const uint8_t *bits, uint64_t nbits)
{
	size_t		at = 0;
	uint8_t    *words;

	put_be32(out, (uint32_t) version);
	put_be32(out + 4, (uint32_t) hashes);
	at = 8;
	if (version == BF_SPARK_V2)
	{
		put_be32(out + at, (uint32_t) seed);
		at += 4;
	}
	put_be32(out + at, (uint32_t) (nbits / 64));
	at += 4;
	words = out + at;
	for (uint64_t w = 0; w < nbits / 64; w++)
		for (int b = 0; b < 8; b++)
			words[w * 8 + 7 - b] = bits[w * 8 + b];
}
