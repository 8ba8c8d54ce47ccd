/*
 * bf_core.h
 *		The pure C core of the bloomfilter extension: filter geometry, the
 *		portable format and its validator, insert/probe, combining, estimates
 *		and sizing math.
 *
 * No PostgreSQL header may be included here or in any src/core file: the
 * core is unit-tested, fuzzed and benchmarked on its own (test/).
 *
 * A filter lives in one contiguous buffer laid out exactly as the portable
 * format (see FORMAT.md beside this file): a BF_HEADER_SIZE-byte
 * little-endian header followed by the bit array.  The PostgreSQL datum is a
 * varlena header followed by that buffer, so casting to bytea, sending and
 * storing need no conversion.
 */
#ifndef BF_CORE_H
#define BF_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if !defined(XXH_VERSION_NUMBER) || XXH_VERSION_NUMBER < 800
#error "xxHash 0.8.0 or later is required: XXH3-64 output is frozen only since 0.8.0"
#endif

/* ---- the portable format ---- */

#define BF_MAGIC_0 'B'
#define BF_MAGIC_1 'L'
#define BF_MAGIC_2 'M'
#define BF_MAGIC_3 'F'
#define BF_FORMAT_VERSION 1

/*
 * Header offsets.  52 bytes so that, behind PostgreSQL's 4-byte varlena
 * header, the bit array starts 8-byte aligned (4 + 52 = 56).
 */
#define BF_OFF_MAGIC	0			/* 4 bytes "BLMF" */
#define BF_OFF_VERSION	4			/* uint16 */
#define BF_OFF_LAYOUT	6			/* uint8 */
#define BF_OFF_HASHES	7			/* uint8 */
#define BF_OFF_SEED		8			/* uint64 */
#define BF_OFF_NBITS	16			/* uint64 */
#define BF_OFF_ADDED	24			/* uint64 */
#define BF_OFF_FAMILY	32			/* uint16 */
#define BF_OFF_FLAGS	34			/* uint16, must be 0 */
#define BF_OFF_TYPETAG	36			/* uint32 */
#define BF_OFF_RESERVED 40			/* uint32, must be 0 */
#define BF_OFF_CHECKSUM 44			/* uint64 */
#define BF_HEADER_SIZE	52

/* Layouts */
#define BF_LAYOUT_CLASSIC	1
#define BF_LAYOUT_BLOCKED	2

/* A blocked filter keeps all of a key's bits in one 64-byte cache line. */
#define BF_BLOCK_BITS	512
#define BF_BLOCK_BYTES	64

#define BF_MIN_HASHES	1
#define BF_MAX_HASHES	32

/*
 * Largest value of any type of the extension, in bytes.  Its text form
 * (padded base64: 4 * ceil(L / 3) characters) must be displayable and
 * dumpable, or a value could be stored but never selected or dumped.
 * PostgreSQL builds the text of a row in a StringInfo, and
 * enlargeStringInfo (src/common/stringinfo.c) refuses to let one hold more
 * than MaxAllocSize - 1 = 0x3ffffffe bytes.  The fullest such buffer is a
 * SELECT's DataRow message (printtup() in printtup.c): a 2-byte column
 * count, a 4-byte length, then the text, 6 bytes more than the text of a
 * one-column row.  Every other step needs less: a COPY TO line (copyto.c)
 * and COPY FROM's line buffer (copyfromparse.c) add a newline, and the
 * output function's string adds its terminator against palloc's
 * MaxAllocSize.  Hence 4 * ceil(L / 3) + 6 <= 0x3ffffffe, and L is at most
 * (0x3ffffffe - 6) / 4 * 3 = 805,306,362.  The other columns of the row
 * share the same buffer.  test/maxsize_dump.sh builds the largest value of
 * each type and selects, copies, dumps and restores it.
 */
#define BF_PG_STRING_MAX	((uint64_t) 0x3ffffffe)
#define BF_DATAROW_OVERHEAD 6
#define BF_MAX_TOTAL_BYTES	((BF_PG_STRING_MAX - BF_DATAROW_OVERHEAD) / 4 * 3)

/*
 * Largest bloomfilter: kept a whole number of 512-bit blocks so both layouts
 * share one bound.
 */
#define BF_MAX_NBITS \
	((((BF_MAX_TOTAL_BYTES - BF_HEADER_SIZE) / BF_BLOCK_BYTES) * BF_BLOCK_BYTES) * 8)

/*
 * Key families: values of different SQL types hash alike when their family
 * is the same (int2/int4/int8 are "integer", float4/float8 are "float" ...).
 * A filter records the family of the keys it holds; BF_FAMILY_NONE means no
 * key has been added yet.  The tagged families (other, enum, composite,
 * hashed) cover many types each, and the header's type tag tells which:
 * keys of two types of one tagged family never mix.  FORMAT.md says how
 * each family's values are written as key bytes.
 */
typedef enum bf_family
{
	BF_FAMILY_NONE = 0,
	BF_FAMILY_INTEGER = 1,
	BF_FAMILY_FLOAT = 2,
	BF_FAMILY_NUMERIC = 3,
	BF_FAMILY_TEXT = 4,
	BF_FAMILY_BYTEA = 5,
	BF_FAMILY_UUID = 6,
	BF_FAMILY_BOOL = 7,
	BF_FAMILY_DATE = 8,
	BF_FAMILY_TIMESTAMP = 9,
	BF_FAMILY_TIMESTAMPTZ = 10,
	BF_FAMILY_OTHER = 11,		/* bitwise equality: the stored bytes */
	BF_FAMILY_INTERVAL = 12,
	BF_FAMILY_JSONB = 13,
	BF_FAMILY_ENUM = 14,		/* by label */
	BF_FAMILY_COMPOSITE = 15,	/* arrays, rows, ranges, multiranges */
	BF_FAMILY_HASHED = 16		/* the type's own extended hash function */
} bf_family;

#define BF_FAMILY_MAX BF_FAMILY_HASHED

/* Whether keys of a family carry a (non-zero) type tag. */
static inline bool
bf_family_tagged(unsigned family)
{
	return family == BF_FAMILY_OTHER || family == BF_FAMILY_ENUM ||
		family == BF_FAMILY_COMPOSITE || family == BF_FAMILY_HASHED;
}

/* A known family, with a type tag exactly when the family has one. */
static inline bool
bf_family_valid(unsigned family, uint32_t tag)
{
	return family <= BF_FAMILY_MAX && bf_family_tagged(family) == (tag != 0);
}

/* Validation results: one code per thing that can be wrong with a buffer. */
typedef enum bf_status
{
	BF_OK = 0,
	BF_ERR_TRUNCATED,			/* shorter than a header */
	BF_ERR_MAGIC,				/* not a bloomfilter at all */
	BF_ERR_VERSION,				/* a format version we do not read */
	BF_ERR_LAYOUT,				/* unknown layout byte */
	BF_ERR_HASHES,				/* k out of range */
	BF_ERR_NBITS,				/* m zero, too large or not a whole block */
	BF_ERR_SIZE,				/* length does not match m */
	BF_ERR_FAMILY,				/* unknown key family or bad type tag */
	BF_ERR_RESERVED,			/* flags or reserved bytes not zero */
	BF_ERR_CHECKSUM,			/* bytes altered after they were written */
	BF_ERR_ADDED,				/* bits set but no key was ever added */
	BF_ERR_WIDTH				/* counting filter: counter width not 4 or 8 */
} bf_status;

/*
 * A decoded view of a filter buffer.  "bits" points into the buffer; the
 * view never owns memory.
 */
typedef struct bf_view
{
	uint8_t		layout;			/* BF_LAYOUT_* */
	uint8_t		hashes;			/* k */
	uint16_t	family;			/* bf_family */
	uint32_t	type_tag;		/* which type, for the tagged families */
	uint64_t	seed;			/* hash seed */
	uint64_t	nbits;			/* m; a multiple of 64 (classic) or 512 */
	uint64_t	added;			/* add operations performed (saturating) */
	uint8_t    *bits;			/* nbits / 8 bytes */
} bf_view;

/* ---- little-endian field access ---- */

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

/* ---- hashing ---- */

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

/* ---- insert and probe (the hot path, inlined) ---- */

/*
 * Classic layout: k positions over the whole array, x + i*y + i(i-1)/2*z in
 * the 2^64 ring (triple hashing, Dillinger & Manolios), mapped to [0, m) by
 * multiply-shift.  The quadratic term must be a full 64-bit value: the
 * high bits pick the position, so the small constant increments of
 * "enhanced" double hashing would leave plain double hashing, whose
 * positions repeat for keys whose step is near a simple fraction of 2^64.
 */
static inline __attribute__((always_inline)) void
bf_classic_insert(uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	uint64_t	x = h;
	uint64_t	y = bf_mix64(h);
	uint64_t	z = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint64_t	pos = bf_range64(x, nbits);

		bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
		x += y;
		y += z;
	}
}

static inline __attribute__((always_inline)) bool
bf_classic_probe(const uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	uint64_t	x = h;
	uint64_t	y = bf_mix64(h);
	uint64_t	z = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint64_t	pos = bf_range64(x, nbits);

		if (!(bits[pos >> 3] & (1u << (pos & 7))))
			return false;
		x += y;
		y += z;
	}
	return true;
}

/*
 * Blocked layout: the high 32 bits of the hash choose a 512-bit block (by
 * multiply-shift, so power-of-two size ratios fold); the low 32 bits,
 * remultiplied by the golden ratio for each probe, give k bit positions
 * inside the block from their top 9 bits (the scheme of RocksDB's
 * FastLocalBloom).  One cache line per insert or probe.
 */
static inline uint8_t *
bf_block_of(uint8_t *bits, uint64_t nbits, uint64_t h)
{
	return bits + (size_t) bf_range32((uint32_t) (h >> 32),
									  (uint32_t) (nbits / BF_BLOCK_BITS)) * BF_BLOCK_BYTES;
}

static inline __attribute__((always_inline)) void
bf_blocked_insert_k(uint8_t *block, uint32_t x, const int k)
{
#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint32_t	bit = x >> 23;

		block[bit >> 3] |= (uint8_t) (1u << (bit & 7));
		x *= BF_BLOCK_MULT;
	}
}

/* Unrolled for the common k, as the probe below. */
static inline void
bf_blocked_insert(uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	uint8_t    *block = bf_block_of(bits, nbits, h);
	uint32_t	x = (uint32_t) h;

	switch (k)
	{
		case 6:
			bf_blocked_insert_k(block, x, 6);
			break;
		case 7:
			bf_blocked_insert_k(block, x, 7);
			break;
		case 9:
			bf_blocked_insert_k(block, x, 9);
			break;
		default:
			bf_blocked_insert_k(block, x, k);
			break;
	}
}

/*
 * The probe tests each bit straight from the block's 64-bit words (the line
 * is in cache after the first load), without branching: AND-ing the bits
 * costs less than the mispredictions of stopping early, since a probe of a
 * key not in the set stops after a coin-flip number of bits.  The loop is
 * unrolled for the common k by dispatching on constant k.  (Bit p of the
 * byte array is bit p & 63 of the little-endian word p >> 6.)
 */
static inline uint64_t
bf_block_word(const uint8_t *block, uint32_t w)
{
	uint64_t	word;

	memcpy(&word, block + w * 8, 8);
	return BF_BSWAP64(word);
}

static inline __attribute__((always_inline)) bool
bf_blocked_probe_k(const uint8_t *block, uint32_t x, const int k)
{
	uint64_t	found = 1;

#pragma GCC unroll 16
	for (int i = 0; i < k; i++)
	{
		uint32_t	bit = x >> 23;

		found &= bf_block_word(block, bit >> 6) >> (bit & 63);
		x *= BF_BLOCK_MULT;
	}
	return (found & 1) != 0;
}

static inline bool
bf_blocked_probe(const uint8_t *bits, uint64_t nbits, int k, uint64_t h)
{
	const uint8_t *block = bf_block_of((uint8_t *) bits, nbits, h);
	uint32_t	x = (uint32_t) h;

	switch (k)
	{
		case 6:
			return bf_blocked_probe_k(block, x, 6);
		case 7:
			return bf_blocked_probe_k(block, x, 7);
		case 8:
			return bf_blocked_probe_k(block, x, 8);
		case 9:
			return bf_blocked_probe_k(block, x, 9);
		case 10:
			return bf_blocked_probe_k(block, x, 10);
		default:
			return bf_blocked_probe_k(block, x, k);
	}
}

/* Insert a hashed key; counts the add (saturating). */
static inline void
bf_insert_hash(bf_view *v, uint64_t h)
{
	if (v->layout == BF_LAYOUT_BLOCKED)
		bf_blocked_insert(v->bits, v->nbits, v->hashes, h);
	else
		bf_classic_insert(v->bits, v->nbits, v->hashes, h);
	if (v->added != UINT64_MAX)
		v->added++;
}

static inline bool
bf_probe_hash(const bf_view *v, uint64_t h)
{
	if (v->layout == BF_LAYOUT_BLOCKED)
		return bf_blocked_probe(v->bits, v->nbits, v->hashes, h);
	return bf_classic_probe(v->bits, v->nbits, v->hashes, h);
}

/*
 * The k positions of hash h, in insert order, into pos[0 .. k-1]: exactly
 * the bits bf_insert_hash sets (the unit tests hold the two together).
 * The counting filter keeps a counter at each of them; the inlined
 * insert and probe above stay as they are, being the hot path.
 */
static inline __attribute__((always_inline)) void
bf_positions(int layout, uint64_t m, int k, uint64_t h, uint64_t *pos)
{
	if (layout == BF_LAYOUT_BLOCKED)
	{
		uint64_t	base = (uint64_t) bf_range32((uint32_t) (h >> 32),
												 (uint32_t) (m / BF_BLOCK_BITS)) * BF_BLOCK_BITS;
		uint32_t	x = (uint32_t) h;

		for (int i = 0; i < k; i++)
		{
			pos[i] = base + (x >> 23);
			x *= BF_BLOCK_MULT;
		}
	}
	else
	{
		uint64_t	x = h;
		uint64_t	y = bf_mix64(h);
		uint64_t	z = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

		for (int i = 0; i < k; i++)
		{
			pos[i] = bf_range64(x, m);
			x += y;
			y += z;
		}
	}
}

/* ---- many keys at once (bf_batch.c) ---- */

/*
 * out[i] = bf_probe_hash(v, h[i]) (0 or 1) for i < n; returns how many
 * are 1.  Prefetches ahead so that the cache misses of a large filter
 * overlap, and dispatches on layout and k once for the batch.
 */
extern size_t bf_probe_batch(const bf_view *v, const uint64_t *h, size_t n,
							 uint8_t *out);

/*
 * bf_insert_hash(v, h[i]) for i < n, in order, with the same prefetching
 * and dispatch: the same bits and the same count of adds.
 */
extern void bf_insert_batch(bf_view *v, const uint64_t *h, size_t n);

/*
 * How many keys ahead the batch loops prefetch.  Measured with
 * test/bench/core_bench.c on a 2-vCPU Xeon VM (2 MB L2 per core) with 12 MB
 * filters: blocked probes and inserts take 10-15 ns a key at any distance
 * from 4 to 32 (against 30-40 ns one key at a time), so the choice is not
 * critical; 16 leaves room for slower memory than this machine's.
 */
#ifndef BF_PREFETCH_AHEAD
#define BF_PREFETCH_AHEAD 16
#endif

/*
 * A block is one cache line only when the bit array is 64-byte aligned;
 * the format promises 8, so a block may straddle two lines, and both are
 * fetched (on an aligned array, the second prefetch names the line
 * already requested and costs an instruction).
 */
static inline __attribute__((always_inline)) void
bf_prefetch_block(const uint8_t *block, const int for_write)
{
	if (for_write)
	{
		__builtin_prefetch(block, 1);
		__builtin_prefetch(block + BF_BLOCK_BYTES - 1, 1);
	}
	else
	{
		__builtin_prefetch(block, 0);
		__builtin_prefetch(block + BF_BLOCK_BYTES - 1, 0);
	}
}

/*
 * bf_probe_batch's loop over a blocked filter, with probe_k the test of one
 * block (bf_blocked_probe_k, or bf_simd.c's AVX2 one): each key's block is
 * prefetched BF_PREFETCH_AHEAD keys before it is probed.  Both callers pass
 * an always_inline kernel and a constant k, so the kernel is inlined.
 */
static inline __attribute__((always_inline)) size_t
bf_blocked_probe_loop(const bf_view *v, const uint64_t *h, size_t n,
					  uint8_t *out, const int k,
					  bool (*probe_k) (const uint8_t *, uint32_t, int))
{
	uint8_t    *bits = v->bits;
	uint64_t	nbits = v->nbits;
	size_t		hits = 0;
	size_t		i = 0;

	for (size_t j = 0; j < n && j < BF_PREFETCH_AHEAD; j++)
		bf_prefetch_block(bf_block_of(bits, nbits, h[j]), 0);
	/* the main loop prefetches without a bounds test; the tail does not */
	for (; i + BF_PREFETCH_AHEAD < n; i++)
	{
		bool		r;

		bf_prefetch_block(bf_block_of(bits, nbits, h[i + BF_PREFETCH_AHEAD]), 0);
		r = probe_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);
		out[i] = r;
		hits += r;
	}
	for (; i < n; i++)
	{
		bool		r = probe_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);

		out[i] = r;
		hits += r;
	}
	return hits;
}

/*
 * On x86-64 with AVX2 (checked once, at load), bf_probe_batch probes
 * blocked filters with bf_simd.c's loop, which computes 8 positions per
 * instruction: the same answers.  bf_use_avx2 starts as bf_cpu_has_avx2
 * and may be cleared to force the scalar loop (the tests, the benchmarks
 * and the setting bloomfilter.simd do); it must never be set on a CPU
 * without AVX2.  One key at a time (bf_probe_hash) is always scalar: see
 * bf_simd.c for why.  Building with -DBF_NO_AVX2 leaves the AVX2 code out
 * (make check-core builds the unit tests both ways).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BF_NO_AVX2)
#define BF_HAVE_AVX2_PROBE 1
extern int	bf_use_avx2;
extern int	bf_cpu_has_avx2;
extern bool bf_blocked_probe_avx2(const uint8_t *block, uint32_t x, int k);
extern size_t bf_blocked_probe_batch_avx2(const bf_view *v, const uint64_t *h,
										  size_t n, uint8_t *out);
#else
#define BF_HAVE_AVX2_PROBE 0
#endif

/* ---- buffers and views (bf_format.c) ---- */

/* Total buffer size (header + bits) of a filter of nbits bits. */
static inline size_t
bf_buffer_size(uint64_t nbits)
{
	return BF_HEADER_SIZE + (size_t) (nbits / 8);
}

/* Checks layout, k and m for a new filter; BF_OK or the reason. */
extern bf_status bf_check_geometry(int layout, int hashes, uint64_t nbits);

/*
 * Writes an empty filter into buf (bf_buffer_size(nbits) bytes).  The
 * geometry must have passed bf_check_geometry.
 */
extern void bf_init(uint8_t *buf, int layout, int hashes, uint64_t seed,
					uint64_t nbits);

/*
 * Decodes a trusted buffer (one already validated) into a view.  No checks:
 * use bf_validate for bytes from outside.
 */
extern void bf_view_of(uint8_t *buf, bf_view *v);

/* Writes the view's header fields (added, family, type tag) back. */
extern void bf_store_header(uint8_t *buf, const bf_view *v);

/* Checksum over the header (less the checksum field) and the bit array. */
extern uint64_t bf_checksum(const uint8_t *buf, size_t len);

/*
 * Prepares a buffer for leaving the process: computes and stores the
 * checksum.  Internally the checksum field is kept zero so that equal
 * filters are equal bytes.
 */
extern void bf_seal(uint8_t *buf, size_t len);

/* Clears the checksum field after a buffer was validated. */
extern void bf_unseal(uint8_t *buf);

/*
 * Validates untrusted bytes in the portable format: every header field,
 * the length against m, and the checksum.  Reads nothing outside
 * [buf, buf + len).
 */
extern bf_status bf_validate(const uint8_t *buf, size_t len);

/*
 * The same checks for a filter embedded in a larger checksummed value (a
 * bloomwindow slot, a scalablebloom entry): its checksum field must be zero
 * (BF_ERR_CHECKSUM otherwise).
 */
extern bf_status bf_validate_embedded(const uint8_t *buf, size_t len);

/* A lower-case sentence fragment describing a status, for error messages. */
extern const char *bf_status_message(bf_status st);

extern const char *bf_layout_name(int layout);
extern int	bf_layout_from_name(const char *name);	/* 0 if unknown */
extern const char *bf_family_name(int family);

/* ---- combining (bf_combine.c) ---- */

typedef enum bf_compat
{
	BF_COMPAT_OK = 0,
	BF_COMPAT_LAYOUT,
	BF_COMPAT_HASHES,
	BF_COMPAT_SEED,
	BF_COMPAT_FAMILY,
	BF_COMPAT_SIZE,
	BF_COMPAT_WIDTH				/* counting filters: other counter widths */
} bf_compat;

/*
 * Can a and b be combined?  Sizes are compatible when equal or when one is
 * the other times a power of two (the larger folds).  On BF_COMPAT_OK,
 * *nbits_out is the common (smaller) size.
 */
extern bf_compat bf_compatible(const bf_view *a, const bf_view *b,
							   uint64_t *nbits_out);
extern const char *bf_compat_message(bf_compat c);

/*
 * Folds src into dst, whose nbits divides src's by a power of two and
 * whose other geometry is equal: OR of the bits that map to the same
 * position.  dst's bits are ORed into, not overwritten.
 */
extern void bf_fold_or(bf_view *dst, const bf_view *src);

/* dst |= src / dst &= src, same geometry. */
extern void bf_or(bf_view *dst, const bf_view *src);
extern void bf_and(bf_view *dst, const bf_view *src);

/* Every bit set in sub is set in super (same geometry). */
extern bool bf_is_superset(const bf_view *super, const bf_view *sub);

/* Merged family of two compatible filters (NONE yields to the other). */
extern void bf_merge_family(bf_view *dst, const bf_view *a, const bf_view *b);

/* ---- estimates (bf_estimate.c) ---- */

extern uint64_t bf_popcount(const bf_view *v);

/* Swamidass & Baldi: n ~ -(m/k) ln(1 - X/m); per block for blocked. */
extern double bf_est_cardinality(const bf_view *v);

/* Probability that a key not in the set probes true, given the bits now. */
extern double bf_est_fpr(const bf_view *v);

/* ---- sizing math (bf_sizing.c) ---- */

/* Textbook m = -n ln p / (ln 2)^2, rounded up. */
extern double bf_optimal_bits(double n, double p);

/* Textbook k = (m / n) ln 2, rounded, at least 1. */
extern int	bf_optimal_hashes(double m, double n);

/* Textbook (1 - e^(-kn/m))^k. */
extern double bf_expected_fpr(double m, int k, double n);

/*
 * Expected FPR of a blocked filter of nblocks 512-bit blocks holding n
 * keys: the mean over Poisson-distributed block loads of each block's FPR.
 */
extern double bf_blocked_expected_fpr(double nblocks, int k, double n);

/*
 * Smallest filter of the given layout that holds n distinct keys at a rate
 * at most p: sets *nbits and *hashes.  Returns false when that filter
 * would exceed BF_MAX_NBITS.
 */
extern bool bf_size_for(int layout, double n, double p, uint64_t *nbits,
						int *hashes);

/*
 * Self-sizing filters (bloom_agg without a capacity) are blocked, seed 0,
 * with k fixed by the target rate alone and a power-of-two number of
 * blocks, so that any two built for the same rate fold to one size and
 * combine.
 */

/* The k a blocked filter uses for rate p, whatever its size. */
extern int	bf_auto_hashes(double p);

/*
 * The smallest power-of-two block count whose filter holds n keys at rate
 * at most p with k hashes, capped at max_nblocks (itself a power of two).
 */
extern uint64_t bf_auto_nblocks(double n, double p, int k, uint64_t max_nblocks);

/*
 * The factor by which blocked sizing aims under a target rate p (the model
 * underestimates the measured rate; see bf_sizing.c).
 */
extern double bf_blocked_margin(double p);

/* ---- sets of hashes (bf_hashes.c) ---- */

/* Sorts n hashes; tmp has room for n. */
extern void bf_sort_hashes(uint64_t *a, uint64_t *tmp, size_t n);

/* Drops duplicates from sorted a[0, n); returns the new length. */
extern size_t bf_unique_hashes(uint64_t *a, size_t n);

/*
 * Drops repeated hashes from h[0, n) in place, in one pass, with a hash set
 * of size entries (a power of two) in table; stops dropping once the set is
 * half full.  Returns the new length.
 */
extern size_t bf_dedup_hashes(uint64_t *h, size_t n, uint64_t *table, size_t size);

/*
 * Inserts n hashed keys, in cache-friendly order when the filter is large
 * and tmp (room for n) is given.
 */
extern void bf_insert_many(bf_view *v, const uint64_t *h, size_t n, uint64_t *tmp);

/*
 * Hashes bucketed by their top byte.  For both layouts that orders keys by
 * region of a filter's array, whatever its size, so inserting a bucket at a
 * time sweeps a large filter 1/256th at a time instead of missing the cache
 * on every key.
 */
#define BF_HASH_BUCKETS 256
#define BF_HASH_BUCKET(h) ((uint32_t) ((h) >> 56))

/* Filters larger than this are filled a bucket at a time. */
#define BF_BUCKETED_INSERT_BYTES (UINT64_C(1) << 20)

/* A run of hashes in bucket order: count[b] hashes of bucket b, b = 0..255. */
typedef struct bf_hash_run
{
	const uint64_t *h;
	const uint32_t *count;
} bf_hash_run;

/*
 * Adds to count[b] the number of h[0, n) in bucket b, and when regs is not
 * NULL adds them to that HyperLogLog sketch too (one pass for both).
 */
extern void bf_count_buckets(const uint64_t *h, size_t n, uint32_t *count,
							 uint8_t *regs);

/*
 * pos[b] = where bucket b starts when the buckets, of count[b] hashes each,
 * lie in order from 0 (the sum of the counts before b); returns the total.
 */
extern size_t bf_bucket_starts(const uint32_t *count, size_t *pos);

/*
 * Writes each of h[0, n) to out[pos[b]++], b its bucket: with pos[b] the
 * start of bucket b (bf_bucket_starts), out holds the hashes in bucket
 * order.
 */
extern void bf_scatter_buckets(const uint64_t *h, size_t n, size_t *pos,
							   uint64_t *out);

/*
 * Inserts the hashes of nruns runs, bucket 0 of every run, then bucket 1,
 * and so on; counts the adds.
 */
extern void bf_insert_bucketed(bf_view *v, const bf_hash_run *runs, int nruns);

#define BF_HLL_BITS 12
#define BF_HLL_REGISTERS (1 << BF_HLL_BITS)

extern void bf_hll_add(uint8_t *regs, uint64_t h);
extern void bf_hll_add_many(uint8_t *regs, const uint64_t *h, size_t n);
extern void bf_hll_merge(uint8_t *dst, const uint8_t *src);
extern double bf_hll_estimate(const uint8_t *regs);

/* ---- text codec (bf_base64.c) ---- */

/* Base64 (RFC 4648, padded) length of len bytes. */
extern size_t bf_base64_encoded_len(size_t len);

/* Writes bf_base64_encoded_len(len) characters; no terminator. */
extern void bf_base64_encode(const uint8_t *src, size_t len, char *dst);

/*
 * Decodes exactly srclen characters (padded base64, no white space) into
 * dst, which must hold bf_base64_decoded_max(srclen) bytes.  Returns the
 * byte count, or -1 when the text is not valid base64.
 */
extern size_t bf_base64_decoded_max(size_t srclen);
extern long long bf_base64_decode(const char *src, size_t srclen, uint8_t *dst);

#endif							/* BF_CORE_H */
