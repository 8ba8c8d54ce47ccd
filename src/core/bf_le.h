/*
 * bf_le.h
 *		Little-endian loads and stores of the format's fields.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_LE_H
#define BF_LE_H

#include <stdint.h>
#include <string.h>

/*
 * On little-endian hosts these are plain (unaligned) loads and stores; a
 * byte-by-byte loop is not unrolled at -O2 and, in the hash of every
 * integer key, stalls store forwarding.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BF_BSWAP64(x) __builtin_bswap64(x)
#define BF_BSWAP32(x) __builtin_bswap32(x)
#define BF_BSWAP16(x) __builtin_bswap16(x)
#else
#define BF_BSWAP64(x) (x)
#define BF_BSWAP32(x) (x)
#define BF_BSWAP16(x) (x)
#endif

static inline uint64_t
bf_load_le64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
	return BF_BSWAP64(v);
}

static inline void
bf_store_le64(uint8_t *p, uint64_t v)
{
	v = BF_BSWAP64(v);
	memcpy(p, &v, 8);
}

static inline uint32_t
bf_load_le32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return BF_BSWAP32(v);
}

static inline void
bf_store_le32(uint8_t *p, uint32_t v)
{
	v = BF_BSWAP32(v);
	memcpy(p, &v, 4);
}

static inline uint16_t
bf_load_le16(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, 2);
	return BF_BSWAP16(v);
}

static inline void
bf_store_le16(uint8_t *p, uint16_t v)
{
	v = BF_BSWAP16(v);
	memcpy(p, &v, 2);
}

#endif							/* BF_LE_H */
