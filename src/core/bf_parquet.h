/*
 * bf_parquet.h
 *		Layout 'parquet': Parquet's split-block Bloom filter (SBBF), as the
 *		parquet-format specification (BloomFilter.md) defines it; its
 *		sizing, its hashing of plain-encoded values, its estimates and the
 *		Thrift compact BloomFilterHeader that precedes the bitset in a
 *		Parquet file (bf_parquet.c).
 *
 * Part of the core (see bf_core.h): no PostgreSQL header may be included
 * here.  The kernels are inline: bf_kernels.h dispatches to them.
 *
 * An SBBF is an array of 256-bit blocks, each eight 32-bit little-endian
 * words.  A key's 64-bit hash h (XXH64, seed 0, of the value's plain
 * encoding) chooses block ((h >> 32) * nblocks) >> 32, and sets in word i
 * of it bit ((uint32) h * SALT[i]) >> 27.  Bit p of the bitset is bit p % 8
 * of byte p / 8, as in every layout, so word i's bit j is position
 * block * 256 + i * 32 + j.
 */
#ifndef BF_PARQUET_H
#define BF_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bf_defs.h"
#include "bf_hashfn.h"
#include "bf_le.h"

#define BF_PARQUET_BLOCK_BITS	256
#define BF_PARQUET_BLOCK_BYTES	32
#define BF_PARQUET_HASHES		8
/* parquet-java's and Arrow's bounds on a filter's bitset */
#define BF_PARQUET_MIN_BYTES	32
#define BF_PARQUET_MAX_BYTES	(128 * 1024 * 1024)

/*
 * Parquet physical types (the Thrift enum Type of parquet.thrift), kept in
 * the flags field of a version-2 filter of layout parquet; 0 until the
 * first key fixes it.
 */
#define BF_PQ_UNSET		0
#define BF_PQ_INT32		1
#define BF_PQ_INT64		2
#define BF_PQ_FLOAT		4
#define BF_PQ_DOUBLE	5
#define BF_PQ_BYTE_ARRAY 6
#define BF_PQ_FLBA		7

static inline bool
bf_parquet_type_valid(unsigned t)
{
	return t == BF_PQ_UNSET || t == BF_PQ_INT32 || t == BF_PQ_INT64 ||
		t == BF_PQ_FLOAT || t == BF_PQ_DOUBLE || t == BF_PQ_BYTE_ARRAY ||
		t == BF_PQ_FLBA;
}

/*
 * k is 8, always; m a whole number of 256-bit blocks, at most
 * 128 MiB (any number of blocks is an SBBF: readers need no power of two).
 */
static inline bf_status
bf_parquet_check_geometry(int hashes, uint64_t nbits)
{
	if (hashes != BF_PARQUET_HASHES)
		return BF_ERR_HASHES;
	if (nbits == 0 || nbits % BF_PARQUET_BLOCK_BITS != 0 ||
		nbits > (uint64_t) BF_PARQUET_MAX_BYTES * 8)
		return BF_ERR_NBITS;
	return BF_OK;
}

static const uint32_t bf_parquet_salt[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U
};

/* The block of hash h: multiply-shift of its upper half, as blocked does. */
static inline uint8_t *
bf_parquet_block_of(uint8_t *bits, uint64_t nbits, uint64_t h)
{
	return bits + (size_t) bf_range32((uint32_t) (h >> 32),
									  (uint32_t) (nbits / BF_PARQUET_BLOCK_BITS)) *
		BF_PARQUET_BLOCK_BYTES;
}

static inline void
bf_parquet_insert(uint8_t *bits, uint64_t nbits, uint64_t h)
{
	uint8_t    *block = bf_parquet_block_of(bits, nbits, h);
	uint32_t	x = (uint32_t) h;

	for (int i = 0; i < 8; i++)
	{
		uint32_t	bit = (x * bf_parquet_salt[i]) >> 27;

		block[i * 4 + (bit >> 3)] |= (uint8_t) (1u << (bit & 7));
	}
}

static inline bool
bf_parquet_probe(const uint8_t *bits, uint64_t nbits, uint64_t h)
{
	const uint8_t *block = bf_parquet_block_of((uint8_t *) bits, nbits, h);
	uint32_t	x = (uint32_t) h;
	uint32_t	found = 1;

	for (int i = 0; i < 8; i++)
	{
		uint32_t	bit = (x * bf_parquet_salt[i]) >> 27;

		found &= (uint32_t) (block[i * 4 + (bit >> 3)] >> (bit & 7));
	}
	return (found & 1) != 0;
}

/* The 8 bit positions of h, in word order: exactly what insert sets. */
static inline void
bf_parquet_positions(uint64_t nbits, uint64_t h, uint64_t *pos)
{
	uint64_t	base = (uint64_t) bf_range32((uint32_t) (h >> 32),
											 (uint32_t) (nbits / BF_PARQUET_BLOCK_BITS)) *
		BF_PARQUET_BLOCK_BITS;
	uint32_t	x = (uint32_t) h;

	for (int i = 0; i < 8; i++)
		pos[i] = base + (uint64_t) i * 32 + ((x * bf_parquet_salt[i]) >> 27);
}

/* ---- hashing plain-encoded values (XXH64, seed 0) ---- */

static inline uint64_t
bf_parquet_hash_bytes(const void *p, size_t len)
{
	return XXH64(p, len, 0);
}

static inline uint64_t
bf_parquet_hash_int32(int32_t v)
{
	uint8_t		b[4];

	bf_store_le32(b, (uint32_t) v);
	return XXH64(b, 4, 0);
}

static inline uint64_t
bf_parquet_hash_int64(int64_t v)
{
	uint8_t		b[8];

	bf_store_le64(b, (uint64_t) v);
	return XXH64(b, 8, 0);
}

/* FLOAT: the IEEE-754 single's 4 bytes, little-endian */
static inline uint64_t
bf_parquet_hash_float(float f)
{
	uint32_t	u;

	memcpy(&u, &f, 4);
	return bf_parquet_hash_int32((int32_t) u);
}

/* DOUBLE: the IEEE-754 double's 8 bytes, little-endian */
static inline uint64_t
bf_parquet_hash_double(double d)
{
	uint64_t	u;

	memcpy(&u, &d, 8);
	return bf_parquet_hash_int64((int64_t) u);
}

/* ---- bf_parquet.c ---- */

/*
 * Bits of the filter parquet-java and Arrow make for ndv distinct values at
 * rate fpp: -8 ndv / ln(1 - fpp^(1/8)) bits, at least 32 bytes, rounded up
 * to a power of two, at most 128 MiB.
 */
extern uint64_t bf_parquet_optimal_bits(double ndv, double fpp);

/* Estimates from the bits (bf_estimate.c calls them for this layout). */
extern double bf_parquet_est_cardinality(const bf_view *v);
extern double bf_parquet_est_fpr(const bf_view *v);

/* Name of a physical type ("INT32", ...; "unset" for 0), and back (0 if unknown). */
extern const char *bf_parquet_type_name(unsigned t);
extern unsigned bf_parquet_type_from_name(const char *name);

/* What reading a BloomFilterHeader found wrong. */
typedef enum bf_pq_status
{
	BF_PQ_OK = 0,
	BF_PQ_ERR_THRIFT,			/* not a well-formed Thrift compact struct */
	BF_PQ_ERR_MISSING,			/* a required field is missing */
	BF_PQ_ERR_ALGORITHM,		/* an algorithm other than BLOCK */
	BF_PQ_ERR_HASH,				/* a hash other than XXHASH */
	BF_PQ_ERR_COMPRESSION,		/* a compression other than UNCOMPRESSED */
	BF_PQ_ERR_NUMBYTES,			/* numBytes not a positive multiple of 32
								 * within 128 MiB */
	BF_PQ_ERR_LENGTH			/* the bytes after the header are not
								 * numBytes long */
} bf_pq_status;

/* The most bytes a header this module writes can take. */
#define BF_PQ_HEADER_MAX 32

/*
 * Writes the BloomFilterHeader of a bitset of nbytes bytes into out (at
 * least BF_PQ_HEADER_MAX bytes); returns its length.
 */
extern size_t bf_parquet_write_header(uint8_t *out, uint32_t nbytes);

/*
 * Reads untrusted bytes: a BloomFilterHeader in the Thrift compact protocol
 * (fields in any order, unknown fields skipped) followed by exactly
 * numBytes of bitset.  On BF_PQ_OK, *bitset_off and *nbytes say where the
 * bitset is.  Reads nothing outside [buf, buf + len).
 */
extern bf_pq_status bf_parquet_read(const uint8_t *buf, size_t len,
									size_t *bitset_off, uint32_t *nbytes);

/* A lower-case sentence fragment for a status. */
extern const char *bf_parquet_status_message(bf_pq_status st);

#endif							/* BF_PARQUET_H */
