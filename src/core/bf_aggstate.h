/*
 * bf_aggstate.h
 *		The partial-state wire format of the bloomfilter aggregates: what a
 *		parallel worker's bloom_agg state becomes between the serialize and
 *		the deserialize functions (FORMAT.md, "Aggregate partial states").
 *
 * Part of the core (see bf_core.h): no PostgreSQL header may be included
 * here.  The glue (src/agg/bf_agg_entry.c) keeps the aggregate's own state and its
 * memory; this module only writes and reads bytes, and validates every
 * field it reads.
 *
 * A serialized state starts with a tag byte:
 *   'F'  a filter state: the portable filter bytes (sealed)
 *   'S'  a self-sizing state in the buffer phase: the target, then family
 *        (2), type tag (4), added (8), a sketch flag (1) and the sketch's
 *        registers if set, count (4) and count hashes (8 each)
 *   'B'  a self-sizing state in the buffer phase, bucketed: the target,
 *        family (2), type tag (4), added (8), the sketch's registers,
 *        count (4), the count of each of the 256 buckets (4 each), 4 zero
 *        bytes (so that the hashes are 8-byte aligned after a 4-byte
 *        varlena header), then count hashes (8 each), bucket 0 first
 *   'A'  a self-sizing state in the filter phase: the target, the sketch's
 *        registers, then the portable filter bytes (sealed)
 *   'E'  an explicitly sized state (bloom_agg(x, capacity, fpr)) that has
 *        seen few keys, their hashes instead of its filter: k (1), nbits
 *        (8), family (2), type tag (4), added (8), count (4), a checksum
 *        (8: bfa_explicit_checksum), then count hashes (8 each), in arrival
 *        order.  count is at most
 *        BFA_EXPLICIT_MAX(nbits) (the hashes take at most half the bytes of
 *        the filter they stand for), and at most added; the filter is
 *        blocked, seed 0.
 * where the target is fpr (8, IEEE double), k (1), max_nblocks (8),
 * buf_max (4).  All little-endian.
 */
#ifndef BF_AGGSTATE_H
#define BF_AGGSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"
#include "bf_hashes.h"

#define BFA_TAG_FILTER		'F'
#define BFA_TAG_BUFFER		'S'
#define BFA_TAG_BUCKETED	'B'
#define BFA_TAG_AUTO_FILTER 'A'
#define BFA_TAG_EXPLICIT	'E'

/* tag, k, nbits, family, type tag, added, count, checksum: the hashes follow */
#define BFA_EXPLICIT_HEAD (1 + 1 + 8 + 2 + 4 + 8 + 4 + 8)
/* the most hashes an 'E' state (and the state it comes from) holds */
#define BFA_EXPLICIT_MAX(nbits) ((nbits) / 128)

#define BFA_TARGET_LEN (8 + 1 + 8 + 4)
/* tag, target, family, type tag, added */
#define BFA_BUFFER_HEAD (1 + BFA_TARGET_LEN + 2 + 4 + 8)
/* ... the sketch, count, the bucket counts and the 4 zero bytes */
#define BFA_BUCKETED_HEAD (BFA_BUFFER_HEAD + BF_HLL_REGISTERS + \
						   4 + 4 * BF_HASH_BUCKETS + 4)
/* tag, target, sketch: the filter follows */
#define BFA_AUTO_FILTER_HEAD (1 + BFA_TARGET_LEN + BF_HLL_REGISTERS)

/* What a self-sizing aggregate aims at, carried by 'S', 'B' and 'A'. */
typedef struct bfa_target
{
	double		fpr;			/* in (0, 1) */
	int			hashes;			/* k */
	uint64_t	max_nblocks;	/* a power of two */
	uint32_t	buf_max;		/* > 0 */
} bfa_target;

/*
 * A decoded state: pointers into the bytes given to bfa_decode, which must
 * outlive it.  Which fields are set depends on the tag.
 */
typedef struct bfa_state
{
	uint8_t		tag;			/* BFA_TAG_* */
	bfa_target	target;			/* 'S', 'B', 'A' */
	uint16_t	family;			/* 'S', 'B' */
	uint32_t	type_tag;		/* 'S', 'B' */
	uint64_t	added;			/* 'S', 'B' */
	const uint8_t *sketch;		/* 'B', 'A', and 'S' when flagged; else NULL */
	uint32_t	count;			/* 'S', 'B': number of hashes */
	const uint8_t *hashes;		/* 'S', 'B': count little-endian uint64 */
	const uint8_t *bucket_count;	/* 'B': 256 little-endian uint32 */
	const uint8_t *filter;		/* 'F', 'A': the portable filter bytes */
	size_t		filter_len;
	int			ex_hashes;		/* 'E': k */
	uint64_t	ex_nbits;		/* 'E': the filter's size in bits */
} bfa_state;

/*
 * Decodes and validates a state of len bytes at p.  Returns NULL and fills
 * *st, or returns why the bytes are not a state ("empty", "truncated",
 * "unknown tag", "target out of range", "inconsistent buffer", "sketch
 * register out of range").  The filter of an 'F' or 'A' state is not
 * validated here: the caller validates it as every incoming filter, then
 * calls bfa_check_filter ('A').
 */
extern const char *bfa_decode(const uint8_t *p, size_t len, bfa_state *st);

/* NULL if the filter of an 'A' state is the one its target gives. */
extern const char *bfa_check_filter(const bfa_target *t, const bf_view *v);

/* Writes the target's BFA_TARGET_LEN bytes at p. */
extern void bfa_store_target(uint8_t *p, const bfa_target *t);

/*
 * An 'S' state: its length, and the state written at out (which has that
 * many bytes).  sketch may be NULL.
 */
extern size_t bfa_buffer_len(bool has_sketch, uint32_t count);
extern void bfa_encode_buffer(uint8_t *out, const bfa_target *t,
							  uint16_t family, uint32_t type_tag, uint64_t added,
							  const uint8_t *sketch, const uint64_t *hashes,
							  uint32_t count);

/*
 * An 'E' state: its length, and the state written at out (which has that
 * many bytes).
 */
extern size_t bfa_explicit_len(uint32_t count);
/*
 * The checksum of the 'E' state of len bytes at p: XXH3-64 of the 28 bytes
 * before it, then of the hashes as seeded by that.  Hashes carry no
 * redundancy of their own: an altered one would lose its key (a probe
 * false), so an 'E' state is sealed as a filter is.
 */
extern uint64_t bfa_explicit_checksum(const uint8_t *p, size_t len);
extern void bfa_encode_explicit(uint8_t *out, int hashes, uint64_t nbits,
								uint16_t family, uint32_t type_tag, uint64_t added,
								const uint64_t *h, uint32_t count);

/*
 * A 'B' state's head (BFA_BUCKETED_HEAD bytes at out); the caller writes
 * the count hashes after it, in bucket order, with bfa_store_hashes.
 */
extern void bfa_encode_bucketed_head(uint8_t *out, const bfa_target *t,
									 uint16_t family, uint32_t type_tag,
									 uint64_t added, const uint8_t *sketch,
									 uint32_t count, const uint32_t *bucket_count);

/* Makes the n hashes at h little-endian in place (nothing to do on x86). */
extern void bfa_store_hashes(uint64_t *h, size_t n);

/*
 * The head of an 'F' state (1 byte; t and sketch unused) or an 'A' state
 * (BFA_AUTO_FILTER_HEAD bytes) at out; returns its length.  The filter's
 * bytes follow, sealed (bf_seal).
 */
extern size_t bfa_encode_filter_head(uint8_t *out, bool auto_sized,
									 const bfa_target *t, const uint8_t *sketch);

/*
 * A bloomfilter_aggstate value, the transition type of every aggregate
 * (FORMAT.md, "Transition state values"): an 8-byte head, then the
 * payload of its kind.  The head is the magic "BFAS", the format version
 * (2, little-endian), the kind (1) and a zero byte; 8 bytes keep the
 * hashes of a 'B' payload 8-byte aligned behind a 4-byte varlena header.
 *   'b'  bloom_agg, bloom_union_agg and bloom_intersect_agg over
 *        bloomfilter, sbloom_agg: a state of the tags above
 *   'c'  cbloom_agg, bloom_union_agg(countingbloom): a countingbloom
 *        (sealed)
 *   'w'  bloom_window_agg, bloom_union_agg(bloomwindow): a bloomwindow
 *        (sealed)
 *   's'  bloom_union_agg(scalablebloom): a scalablebloom (sealed)
 */
#define BFAS_HEAD_LEN		8
#define BFAS_FORMAT_VERSION 1
#define BFAS_KIND_BLOOM		'b'
#define BFAS_KIND_COUNTING	'c'
#define BFAS_KIND_WINDOW	'w'
#define BFAS_KIND_SCALABLE	's'

/* Writes the BFAS_HEAD_LEN bytes of the head of a value of kind at out. */
extern void bfas_store_head(uint8_t *out, uint8_t kind);

/*
 * The kind of the value of len bytes at p (0 when the head is not a valid
 * one: bfas_diagnose, in bf_problem.h, says why and checks the payload).
 */
extern uint8_t bfas_kind(const uint8_t *p, size_t len);

#endif							/* BF_AGGSTATE_H */
