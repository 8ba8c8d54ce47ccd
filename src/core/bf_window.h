/*
 * bf_window.h
 *		The pure C core of bloomwindow: a ring of time buckets, each an
 *		ordinary bloomfilter of one geometry, in one buffer.
 *
 * No PostgreSQL header may be included here (see bf_core.h).  The format is
 * described byte by byte in FORMAT.md, section "The bloomwindow format".
 *
 * Time is an int64 count of microseconds (PostgreSQL's timestamptz: since
 * 2000-01-01 00:00 UTC).  A key added at time t goes to bucket
 * b = floor(t / bucket_us), kept in slot b mod G (floor modulo).  The ring
 * keeps exactly the buckets in (M - G, M], where M is the newest bucket any
 * key was added to: adding to a newer bucket clears the slots that fall out
 * of that range, and a key for a bucket at or before M - G is dropped.  The
 * kept state is thus a function of the multiset of (key, time) pairs alone,
 * whatever their order, which is what lets aggregates over different plans
 * give the same bytes.
 */
#ifndef BF_WINDOW_H
#define BF_WINDOW_H

#include "bf_core.h"

#define BFW_MAGIC_3 'W'			/* "BLMW"; the first three are BF_MAGIC_0..2 */
#define BFW_FORMAT_VERSION 1

/*
 * Header offsets.  64 bytes, and every slot 64 + m/8 bytes, so that behind
 * PostgreSQL's 4-byte varlena header every slot's bit array starts 8-byte
 * aligned: 4 + 64 + i * (64 + m/8) + 8 + 52.
 */
#define BFW_OFF_MAGIC		0		/* 4 bytes "BLMW" */
#define BFW_OFF_VERSION		4		/* uint16 */
#define BFW_OFF_LAYOUT		6		/* uint8, of every slot */
#define BFW_OFF_HASHES		7		/* uint8, of every slot */
#define BFW_OFF_SEED		8		/* uint64, of every slot */
#define BFW_OFF_NBITS		16		/* uint64, m of every slot */
#define BFW_OFF_WIDTH		24		/* int64, window width in microseconds */
#define BFW_OFF_BUCKET		32		/* int64, bucket width in microseconds */
#define BFW_OFF_BUCKETS		40		/* uint32, G */
#define BFW_OFF_FAMILY		44		/* uint16 */
#define BFW_OFF_FLAGS		46		/* uint16, must be 0 */
#define BFW_OFF_TYPETAG		48		/* uint32 */
#define BFW_OFF_RESERVED	52		/* uint32, must be 0 */
#define BFW_OFF_CHECKSUM	56		/* uint64 */
#define BFW_HEADER_SIZE		64

/* A slot: bucket number, an unsealed BLMF filter, 4 zero bytes. */
#define BFW_SLOT_OFF_BUCKET 0		/* int64 */
#define BFW_SLOT_OFF_FILTER 8		/* BF_HEADER_SIZE + m/8 bytes */
#define BFW_SLOT_PAD		4

#define BFW_MAX_BUCKETS		1024

/* The bucket number of a slot that holds no bucket. */
#define BFW_EMPTY			INT64_MIN

typedef enum bfw_status
{
	BFW_OK = 0,
	BFW_ERR_TRUNCATED,			/* shorter than a header */
	BFW_ERR_MAGIC,				/* not a bloomwindow */
	BFW_ERR_VERSION,			/* a format version we do not read */
	BFW_ERR_LAYOUT,				/* unknown slot layout */
	BFW_ERR_HASHES,				/* k out of range */
	BFW_ERR_NBITS,				/* m zero, too large or not whole */
	BFW_ERR_BUCKETS,			/* G not in 1..BFW_MAX_BUCKETS */
	BFW_ERR_WIDTH,				/* bucket width not positive, or width != G * it */
	BFW_ERR_TOO_LARGE,			/* the whole value would exceed the limit */
	BFW_ERR_SIZE,				/* length does not match G and m */
	BFW_ERR_FAMILY,				/* unknown key family or bad type tag */
	BFW_ERR_RESERVED,			/* flags, reserved bytes or a slot's pad not zero */
	BFW_ERR_CHECKSUM,			/* bytes altered after they were written */
	BFW_ERR_SLOT_FILTER,		/* a slot's filter is not a valid filter */
	BFW_ERR_SLOT_GEOMETRY,		/* a slot's filter differs from the header */
	BFW_ERR_SLOT_BUCKET,		/* a bucket number out of range or out of place */
	BFW_ERR_SLOT_EMPTY,			/* an empty slot whose filter is not empty */
	BFW_ERR_SLOT_FAMILY,		/* a used slot with no adds or another family */
	BFW_ERR_STALE,				/* a bucket older than the ring keeps */
	BFW_ERR_WINDOW_FAMILY		/* keys in slots but none in the header, or
								 * the reverse */
} bfw_status;

/* Where validation failed: the slot (or -1) and, for a slot's filter, why. */
typedef struct bfw_error
{
	int			slot;
	bf_status	inner;
} bfw_error;

/* A decoded view of a trusted window buffer; it never owns memory. */
typedef struct bfw_view
{
	uint8_t		layout;
	uint8_t		hashes;
	uint16_t	family;
	uint32_t	type_tag;
	uint64_t	seed;
	uint64_t	nbits;
	int64_t		width_us;
	int64_t		bucket_us;
	uint32_t	buckets;		/* G */
	size_t		slot_size;		/* bytes per slot */
	uint8_t    *buf;
} bfw_view;

/* Bytes of one slot, and of a whole window. */
static inline size_t
bfw_slot_size(uint64_t nbits)
{
	return BFW_SLOT_OFF_FILTER + bf_buffer_size(nbits) + BFW_SLOT_PAD;
}

static inline uint64_t
bfw_buffer_size(uint32_t buckets, uint64_t nbits)
{
	return BFW_HEADER_SIZE + (uint64_t) buckets * bfw_slot_size(nbits);
}

/* Checks the geometry of a window about to be made. */
extern bfw_status bfw_check_geometry(int layout, int hashes, uint64_t nbits,
									 int64_t buckets, int64_t bucket_us);

/* Writes an empty window (geometry checked) into bfw_buffer_size bytes. */
extern void bfw_init(uint8_t *buf, int layout, int hashes, uint64_t seed,
					 uint64_t nbits, uint32_t buckets, int64_t bucket_us);

/* Decodes a trusted buffer; no checks. */
extern void bfw_view_of(uint8_t *buf, bfw_view *w);

/* Writes the view's family and type tag back to the header. */
extern void bfw_store_header(const bfw_view *w);

static inline uint8_t *
bfw_slot(const bfw_view *w, uint32_t i)
{
	return w->buf + BFW_HEADER_SIZE + (size_t) i * w->slot_size;
}

static inline int64_t
bfw_slot_bucket(const bfw_view *w, uint32_t i)
{
	return (int64_t) bf_load_le64(bfw_slot(w, i) + BFW_SLOT_OFF_BUCKET);
}

/*
 * A bf_view of slot i's filter; write it back with bf_store_header.  The
 * geometry comes from the window's header, which the reader checked
 * against the length, never from the slot's own: a damaged slot header
 * then cannot send a probe outside the buffer.
 */
static inline void
bfw_slot_view(const bfw_view *w, uint32_t i, bf_view *v)
{
	bf_view_of(bfw_slot(w, i) + BFW_SLOT_OFF_FILTER, v);
	v->layout = w->layout;
	v->hashes = w->hashes;
	v->seed = w->seed;
	v->nbits = w->nbits;
}

/*
 * The bucket of time t: floor(t / bucket_us).  False when the bucket's
 * start or end would not fit an int64 (only near the ends of time).
 */
extern bool bfw_bucket_of(int64_t bucket_us, int64_t t, int64_t *bucket);

/* Ring position of a bucket: bucket mod G, never negative. */
static inline uint32_t
bfw_ring_pos(int64_t bucket, uint32_t buckets)
{
	int64_t		r = bucket % (int64_t) buckets;

	return (uint32_t) (r < 0 ? r + buckets : r);
}

/* Is bucket one of the G buckets up to and including newest? */
static inline bool
bfw_in_range(int64_t bucket, int64_t newest, uint32_t buckets)
{
	return bucket != BFW_EMPTY && bucket <= newest &&
		(uint64_t) newest - (uint64_t) bucket < buckets;
}

/* The newest bucket held, or BFW_EMPTY. */
extern int64_t bfw_newest(const bfw_view *w);

/*
 * Makes room for a key of bucket b: advances the ring if b is newer than
 * *newest (clearing the slots that fall out), claims b's slot if empty,
 * and sets *slot to it.  *newest is the window's newest bucket (from
 * bfw_newest), kept up to date for the next call.  Returns false, changing
 * nothing, when b is too old for the ring: the key is to be dropped.
 */
extern bool bfw_slot_for(bfw_view *w, int64_t b, int64_t *newest, uint32_t *slot);

/* Adds a hashed key at bucket b; false if dropped (see bfw_slot_for). */
extern bool bfw_add_hash(bfw_view *w, int64_t b, int64_t *newest, uint64_t h);

/* May h be in a bucket of (at - G, at]? */
extern bool bfw_probe_hash(const bfw_view *w, int64_t at, uint64_t h);

/*
 * ORs the slots of buckets (at - G, at] into dst (a filter of the slots'
 * geometry); returns the sum of their add counts (saturating).
 */
extern uint64_t bfw_union_live(const bfw_view *w, int64_t at, bf_view *dst);

/* Do a and b have the same geometry (layout, k, seed, m, G, widths)? */
extern bool bfw_same_geometry(const bfw_view *a, const bfw_view *b);

/*
 * Merges src into dst (same geometry, families compatible: checked by the
 * caller): the result holds the buckets of the newer newest bucket's range,
 * each the union of that bucket in both, as if every key of src had been
 * added to dst.
 */
extern void bfw_merge(bfw_view *dst, const bfw_view *src);

/* Checksum over the header less its checksum field, then the slots. */
extern uint64_t bfw_checksum(const uint8_t *buf, size_t len);
extern void bfw_seal(uint8_t *buf, size_t len);
extern void bfw_unseal(uint8_t *buf);

/*
 * Validates untrusted bytes; reads nothing outside [buf, buf + len).  err
 * (may be NULL) tells which slot failed and, for BFW_ERR_SLOT_FILTER, why.
 */
extern bfw_status bfw_validate(const uint8_t *buf, size_t len, bfw_error *err);

extern const char *bfw_status_message(bfw_status st);

#endif							/* BF_WINDOW_H */
