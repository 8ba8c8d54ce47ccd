/*
 * bf_counting.h
 *		The counting Bloom filter of the pure C core: a sibling of the
 *		bloomfilter format (magic "BLMC") that keeps a small saturating
 *		counter where a bloomfilter keeps a bit, so that keys can be removed.
 *
 * Same rules as bf_core.h: no PostgreSQL header here or in bf_counting.c.
 *
 * A counting filter hashes keys to exactly the positions a bloomfilter of
 * the same layout, k, seed and size uses (bf_positions), so "counter p > 0"
 * is "bit p set" and the cast to a bloomfilter answers exactly as a
 * bloomfilter built from the same keys.  See FORMAT.md, "The counting
 * filter format".
 */
#ifndef BF_COUNTING_H
#define BF_COUNTING_H

#include "bf_core.h"

#define BFC_MAGIC_3 'C'				/* "BLMC"; bytes 0..2 as BF_MAGIC_* */
#define BFC_FORMAT_VERSION 1

/*
 * Header: the bloomfilter header's offsets, with these differences.
 *   16  number of counters m (not bits)
 *   24  items: adds minus successful removes (saturating, never below 0)
 *   34  counter width in bits, 4 or 8 (the bloomfilter's flags field)
 */
#define BFC_OFF_NCOUNTERS	BF_OFF_NBITS
#define BFC_OFF_ITEMS		BF_OFF_ADDED
#define BFC_OFF_WIDTH		BF_OFF_FLAGS

/*
 * The largest counter array: the whole buffer must obey the bloomfilter's
 * bound (its text form fits PostgreSQL's 1 GB), kept a whole number of
 * 512-counter blocks so both layouts share it.
 */
#define BFC_MAX_COUNTERS(width) \
	((((BF_MAX_TOTAL_BYTES - BF_HEADER_SIZE) * 8 / (width)) / BF_BLOCK_BITS) * BF_BLOCK_BITS)

/*
 * A decoded view of a counting filter buffer; "counters" points into the
 * buffer, the view owns nothing.
 */
typedef struct bfc_view
{
	uint8_t		layout;			/* BF_LAYOUT_* */
	uint8_t		hashes;			/* k */
	uint8_t		width;			/* bits per counter: 4 or 8 */
	uint16_t	family;			/* bf_family */
	uint32_t	type_tag;		/* for the tagged families */
	uint64_t	seed;
	uint64_t	ncounters;		/* m */
	uint64_t	items;			/* adds minus successful removes */
	uint8_t    *counters;		/* m * width / 8 bytes */
} bfc_view;

/* The value at which a counter of this width saturates (and stays). */
static inline unsigned
bfc_max_count(int width)
{
	return width == 8 ? 255u : 15u;
}

/* Counter p: byte p for 8-bit counters; byte p/2, low nibble for even p. */
static inline unsigned
bfc_get(const bfc_view *v, uint64_t p)
{
	if (v->width == 8)
		return v->counters[p];
	return (v->counters[p >> 1] >> ((p & 1) * 4)) & 0xfu;
}

static inline void
bfc_put(bfc_view *v, uint64_t p, unsigned c)
{
	if (v->width == 8)
		v->counters[p] = (uint8_t) c;
	else
	{
		uint8_t    *b = &v->counters[p >> 1];
		unsigned	sh = (unsigned) (p & 1) * 4;

		*b = (uint8_t) ((*b & ~(0xfu << sh)) | (c << sh));
	}
}

/* Bytes of the counter array, and of the whole buffer. */
static inline size_t
bfc_counter_bytes(uint64_t ncounters, int width)
{
	return (size_t) (ncounters * (uint64_t) width / 8);
}

static inline size_t
bfc_buffer_size(uint64_t ncounters, int width)
{
	return BF_HEADER_SIZE + bfc_counter_bytes(ncounters, width);
}

/* Checks layout, k, width and m for a new counting filter. */
extern bf_status bfc_check_geometry(int layout, int hashes, int width,
									uint64_t ncounters);

/* Writes an empty counting filter into buf (bfc_buffer_size bytes). */
extern void bfc_init(uint8_t *buf, int layout, int hashes, uint64_t seed,
					 uint64_t ncounters, int width);

/* Decodes a trusted (validated) buffer. */
extern void bfc_view_of(uint8_t *buf, bfc_view *v);

/* Writes the view's items, family and type tag back into the header. */
extern void bfc_store_header(uint8_t *buf, const bfc_view *v);

/*
 * Validates untrusted bytes in the counting format; reads nothing outside
 * [buf, buf + len).  A bloomfilter ("BLMF") buffer gives BF_ERR_MAGIC, as
 * any foreign buffer does; bfc_is_plain_magic tells the two apart for
 * messages.  Sealing and the checksum are the bloomfilter's (bf_seal,
 * bf_unseal, bf_checksum): the offsets are the same.
 */
extern bf_status bfc_validate(const uint8_t *buf, size_t len);

/* A lower-case sentence fragment describing a status for a counting filter. */
extern const char *bfc_status_message(bf_status st);

/* Does the buffer start with the other format's magic? */
extern bool bfc_is_counting_magic(const uint8_t *buf, size_t len);
extern bool bfc_is_plain_magic(const uint8_t *buf, size_t len);

/*
 * Adds hashed key h: each of its k counters goes up by one, except that a
 * saturated counter stays as it is.  items goes up by one (saturating).
 */
extern void bfc_add_hash(bfc_view *v, uint64_t h);

/*
 * Removes hashed key h.  If any of its counters is zero the key is surely
 * absent: nothing changes and false is returned.  Otherwise each counter
 * that is neither zero nor saturated goes down by one (a position a key
 * uses twice goes down twice, as add put it up twice), items goes down by
 * one if above zero, and true is returned.
 */
extern bool bfc_remove_hash(bfc_view *v, uint64_t h);

/* All of h's counters above zero: the key may be in the set. */
extern bool bfc_contains_hash(const bfc_view *v, uint64_t h);

/*
 * The smallest of h's counters: an upper bound on the times the key was
 * added (less its removes), unless a counter saturated or a key that was
 * never added was removed.  0 means surely absent.
 */
extern unsigned bfc_count_hash(const bfc_view *v, uint64_t h);

/*
 * Can a and b be combined?  The bloomfilter rules (layout, k, seed,
 * family, sizes equal or a power-of-two multiple) and the same counter
 * width.  On BF_COMPAT_OK, *ncounters_out is the smaller size.
 */
extern bf_compat bfc_compatible(const bfc_view *a, const bfc_view *b,
								uint64_t *ncounters_out);

/*
 * dst += src, counter by counter, saturating; src's size is dst's times
 * 2^j (j >= 0), and src's counters fold as a bloomfilter's bits do
 * (classic p -> p >> j, blocked block b -> b >> j).  Header fields are
 * left to the caller (bfc_merge_header).
 */
extern void bfc_fold_add(bfc_view *dst, const bfc_view *src);

/* Items and family of the union of a and b, into dst. */
extern void bfc_merge_header(bfc_view *dst, const bfc_view *a, const bfc_view *b);

/*
 * Writes the bloomfilter bit array of the same geometry: bit p set when
 * counter p is above zero.  bits holds ncounters / 8 bytes.
 */
extern void bfc_to_bits(const bfc_view *v, uint8_t *bits);

/*
 * Writes the bloomfilter (portable format, unsealed) that answers as v:
 * buf holds bf_buffer_size(v->ncounters) bytes.  Its "added" is v's items,
 * at least 1 when any bit is set (the bloomfilter format requires it).
 */
extern void bfc_to_bloom(const bfc_view *v, uint8_t *buf);

/* Counters above zero, and counters at their saturation value. */
extern void bfc_counter_stats(const bfc_view *v, uint64_t *nonzero,
							  uint64_t *saturated);

#endif							/* BF_COUNTING_H */
