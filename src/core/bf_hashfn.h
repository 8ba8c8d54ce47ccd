/*
 * bf_hashfn.h
 *		Hashing a key (XXH3-64, inlined into every caller), the second
 *		hash, range reduction and population count.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_HASHFN_H
#define BF_HASHFN_H

#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if !defined(XXH_VERSION_NUMBER) || XXH_VERSION_NUMBER < 800
#error "xxHash 0.8.0 or later is required: XXH3-64 output is frozen only since 0.8.0"
#endif

#include "bf_le.h"

/* XXH3-64 of a canonical key encoding, seeded by the filter's seed. */
static inline uint64_t
bf_hash_bytes(uint64_t seed, const void *data, size_t len)
{
	return XXH3_64bits_withSeed(data, len, seed);
}

/*
 * Integers are encoded as 8 little-endian bytes; the constant length lets
 * the compiler inline XXH3's 4-8 byte path.
 */
static inline uint64_t
bf_hash_int64(uint64_t seed, int64_t v)
{
	uint64_t	le = BF_BSWAP64((uint64_t) v);

	return XXH3_64bits_withSeed(&le, 8, seed);
}

/* splitmix64's finalizer: a bijective mix giving the second hash. */
static inline uint64_t
bf_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/*
 * Map a uniformly distributed 64-bit value to [0, n) with the high bits
 * (Lemire's multiply-shift).  Because it uses the high bits, position in an
 * array of n*2^j bits shifted right by j equals position in an array of n:
 * that is what lets filters whose sizes differ by a power of two fold.
 */
static inline uint64_t
bf_range64(uint64_t x, uint64_t n)
{
	return (uint64_t) (((unsigned __int128) x * n) >> 64);
}

static inline uint32_t
bf_range32(uint32_t x, uint32_t n)
{
	return (uint32_t) (((uint64_t) x * n) >> 32);
}

#define BF_BLOCK_MULT UINT32_C(0x9e3779b9)

/*
 * Population count.  Portable builds (no -mpopcnt) turn the builtin into a
 * call to libgcc's bit-at-a-time routine; the SWAR form is several times
 * faster there.
 */
static inline unsigned
bf_popcount64(uint64_t x)
{
#ifdef __POPCNT__
	return (unsigned) __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned) ((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

#endif							/* BF_HASHFN_H */
