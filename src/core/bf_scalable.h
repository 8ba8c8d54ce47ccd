/*
 * bf_scalable.h
 *		Scalable Bloom filters (Almeida, Baquero, Preguiça & Hutchison,
 *		"Scalable Bloom Filters", IPL 101(6), 2007): a container of ordinary
 *		filters of growing size and tightening rate, so that the overall
 *		false-positive rate stays under a target however many keys arrive.
 *
 * Pure C, no PostgreSQL header (see bf_core.h).  The container format
 * ("BLMS") is described byte by byte in FORMAT.md; every entry holds a
 * complete BLMF buffer, so the existing insert, probe, estimate and
 * validation code serves each sub-filter unchanged.
 *
 * The schedule: the sub-filter at level i has capacity n0 * s^i and target
 * rate p0 * r^i with p0 = p * (1 - r).  A chain of L levels then has rates
 * summing to p * (1 - r^L) < p, and its overall rate, 1 - prod(1 - p_i), is
 * at most that sum.
 */
#ifndef BF_SCALABLE_H
#define BF_SCALABLE_H

#include "bf_core.h"

#define BFS_MAGIC_3 'S'			/* "BLMS" */
#define BFS_FORMAT_VERSION 1

/* Container kinds: only 1 is defined; the entry tag is reserved for others */
#define BFS_KIND_SCALABLE 1

/*
 * Container header.  68 bytes, and 28 per entry header, so that behind
 * PostgreSQL's 4-byte varlena header every entry's BLMF bit array starts
 * 8-byte aligned: 4 + 68 + 28 + 52 = 152, and every bit array is a whole
 * number of 8-byte words, so the next entry keeps the alignment.
 */
#define BFS_OFF_MAGIC		0	/* 4 bytes "BLMS" */
#define BFS_OFF_VERSION		4	/* uint16 */
#define BFS_OFF_KIND		6	/* uint8 */
#define BFS_OFF_LAYOUT		7	/* uint8, every entry's layout */
#define BFS_OFF_SEED		8	/* uint64, every entry's seed */
#define BFS_OFF_FPR			16	/* float64, the overall target p */
#define BFS_OFF_TIGHTENING	24	/* float64, r */
#define BFS_OFF_INITIAL		32	/* uint64, n0 */
#define BFS_OFF_ADDED		40	/* uint64, add operations (saturating) */
#define BFS_OFF_FAMILY		48	/* uint16 */
#define BFS_OFF_GROWTH		50	/* uint8, s */
#define BFS_OFF_FLAGS		51	/* uint8, must be 0 */
#define BFS_OFF_TYPETAG		52	/* uint32 */
#define BFS_OFF_NFILTERS	56	/* uint32 */
#define BFS_OFF_CHECKSUM	60	/* uint64 */
#define BFS_HEADER_SIZE		68

/* Entry header, followed by a BLMF buffer (checksum field zero) */
#define BFS_EOFF_CAPACITY	0	/* uint64 */
#define BFS_EOFF_FPR		8	/* float64 */
#define BFS_EOFF_TAG		16	/* uint64, 0 for kind 1 */
#define BFS_EOFF_LEVEL		24	/* uint32 */
#define BFS_ENTRY_HEADER_SIZE 28

/*
 * Bounds.  A chain from one key doubling per level reaches the largest
 * filter long before level 63; more entries than 1024 only come from
 * unions, and each is probed for every absent key.
 */
#define BFS_MAX_FILTERS		1024
#define BFS_MAX_LEVEL		63
#define BFS_MAX_CAPACITY	(UINT64_C(1) << 40)

/* Defaults of the SQL constructor (see the README for the measurements) */
#define BFS_DEFAULT_FPR			0.01
#define BFS_DEFAULT_GROWTH		2
#define BFS_DEFAULT_TIGHTENING	0.85

typedef enum bfs_status
{
	BFS_OK = 0,
	BFS_ERR_TRUNCATED,			/* shorter than a header */
	BFS_ERR_MAGIC,				/* not a scalablebloom */
	BFS_ERR_VERSION,			/* a version we do not read */
	BFS_ERR_KIND,				/* unknown container kind */
	BFS_ERR_PARAMS,				/* layout, growth, rates or n0 out of range */
	BFS_ERR_FAMILY,				/* bad key family or type tag */
	BFS_ERR_RESERVED,			/* flags not zero */
	BFS_ERR_COUNT,				/* no sub-filter, or too many */
	BFS_ERR_ENTRY,				/* a sub-filter is not a valid bloomfilter */
	BFS_ERR_MISMATCH,			/* a sub-filter disagrees with the container */
	BFS_ERR_SCHEDULE,			/* level, capacity or rate off the schedule */
	BFS_ERR_SIZE,				/* lengths do not add up */
	BFS_ERR_CHECKSUM,			/* bytes altered */
	BFS_ERR_ADDED,				/* counts inconsistent */
	BFS_ERR_TOO_LARGE			/* longer than BF_MAX_TOTAL_BYTES */
} bfs_status;

/* What bfs_validate found wrong, beyond the status. */
typedef struct bfs_problem
{
	uint32_t	entry;			/* index of the entry at fault */
	bf_status	inner;			/* for BFS_ERR_ENTRY */
} bfs_problem;

/* The decoded container header. */
typedef struct bfs_header
{
	uint8_t		kind;
	uint8_t		layout;
	uint8_t		growth;			/* s */
	uint16_t	family;
	uint32_t	type_tag;
	uint32_t	nfilters;
	uint64_t	seed;
	uint64_t	initial_capacity;	/* n0 */
	uint64_t	added;
	double		fpr;			/* p */
	double		tightening;		/* r */
} bfs_header;

/* One decoded entry; the view points into the container. */
typedef struct bfs_entry
{
	uint64_t	capacity;
	double		fpr;
	uint64_t	tag;
	uint32_t	level;
	size_t		offset;			/* of the entry header in the container */
	size_t		len;			/* entry header + BLMF buffer */
	uint8_t    *filter;			/* the BLMF buffer */
	bf_view		v;
} bfs_entry;

/* Checks the parameters of a new container; BFS_OK or BFS_ERR_PARAMS. */
extern bfs_status bfs_check_params(int layout, int growth, double fpr,
								   double tightening, uint64_t initial_capacity);

/* p * (1 - r) * r^level, by repeated multiplication (exact in IEEE). */
extern double bfs_level_fpr(double fpr, double tightening, uint32_t level);

/* Sum of the first nlevels level rates: p * (1 - r^nlevels), below p. */
extern double bfs_rate_bound(double fpr, double tightening, uint32_t nlevels);

/* Bytes of an entry whose filter has nbits bits. */
static inline size_t
bfs_entry_size(uint64_t nbits)
{
	return BFS_ENTRY_HEADER_SIZE + bf_buffer_size(nbits);
}

extern void bfs_read_header(const uint8_t *buf, bfs_header *h);

/* Writes magic, version and every field of h; the checksum field zero. */
extern void bfs_write_header(uint8_t *buf, const bfs_header *h);

/* Writes an entry with an empty filter of the given geometry at dst. */
extern void bfs_init_entry(uint8_t *dst, uint64_t capacity, double fpr,
						   uint64_t tag, uint32_t level, int layout,
						   int hashes, uint64_t seed, uint64_t nbits);

/*
 * Decodes the entries of a trusted (validated) container into out, which
 * has room for the header's nfilters.  Returns their number.
 */
extern uint32_t bfs_entries(uint8_t *buf, size_t len, bfs_entry *out);

/* Writes an entry's view fields (added, family, type tag) back. */
extern void bfs_store_entry(bfs_entry *e);

/*
 * The structural walk of a stored container (one that was validated when
 * it came in, but may sit on a damaged page): the magic, the count, and
 * every entry's geometry and length, so that bfs_entries then reads
 * nothing outside [buf, buf + len).  Fills h; false if the structure does
 * not hold.  Not a validation: use bfs_validate for bytes from outside.
 */
extern bool bfs_walk(const uint8_t *buf, size_t len, bfs_header *h);

/* Bytes of the container bfs_wrap makes of a filter of nbits bits. */
static inline size_t
bfs_wrap_size(uint64_t nbits)
{
	return BFS_HEADER_SIZE + bfs_entry_size(nbits);
}

/*
 * Writes into dst (bfs_wrap_size(v->nbits) bytes) a container of target
 * rate fpr, growth factor growth and tightening ratio tightening whose one
 * sub-filter, at level 0, holds v's bits (see bf_scalable.c for its
 * capacity and count).  The checksum field is zero.
 */
extern void bfs_wrap(uint8_t *dst, const bf_view *v, double fpr, int growth,
					 double tightening);

/* Validates untrusted bytes; reads nothing outside [buf, buf + len). */
extern bfs_status bfs_validate(const uint8_t *buf, size_t len,
							   bfs_problem *problem);
extern const char *bfs_status_message(bfs_status st);

/* XXH3-64 (seed 0) of bytes 0..59 and BFS_HEADER_SIZE..len. */
extern uint64_t bfs_checksum(const uint8_t *buf, size_t len);
extern void bfs_seal(uint8_t *buf, size_t len);
extern void bfs_unseal(uint8_t *buf);

/* Does any entry report h? */
static inline bool
bfs_probe_hash(const bfs_entry *e, uint32_t n, uint64_t h)
{
	for (uint32_t i = 0; i < n; i++)
		if (bf_probe_hash(&e[i].v, h))
			return true;
	return false;
}

/* 1 - prod(1 - est_fpr_i), from each entry's bits. */
extern double bfs_est_fpr(const bfs_entry *e, uint32_t n);

/* Sum of the entries' estimated cardinalities. */
extern double bfs_est_cardinality(const bfs_entry *e, uint32_t n);

/* What stops a container from growing another level. */
typedef enum bfs_grow
{
	BFS_GROW_OK = 0,
	BFS_GROW_LEVEL,				/* past BFS_MAX_LEVEL or BFS_MAX_FILTERS */
	BFS_GROW_CAPACITY,			/* past BFS_MAX_CAPACITY */
	BFS_GROW_SIZE				/* the filter or the container too large */
} bfs_grow;

/*
 * The next level after entry last: its capacity (last's times s), rate
 * and geometry, sized by bf_size_for.  cur_len is the container's length,
 * which must stay under BF_MAX_TOTAL_BYTES.
 */
extern bfs_grow bfs_plan_growth(const bfs_header *h, const bfs_entry *last,
								size_t cur_len, uint64_t *capacity, double *fpr,
								uint32_t *level, uint64_t *nbits, int *hashes);

/*
 * Largest number of distinct keys filter v holds at rate p, by the same
 * models that size filters (blocked: the Poisson model with its margin;
 * classic: the textbook formula); at least 1.
 */
extern uint64_t bfs_capacity_of(const bf_view *v, double p);

/*
 * Canonical order of entries (union results are sorted by it so that they
 * do not depend on the order of the inputs): level, then length, then
 * bytes.
 */
extern int	bfs_entry_cmp(const bfs_entry *a, const bfs_entry *b);

/*
 * Can containers a and b be united?  Returns NULL, or a sentence fragment
 * saying why not.  Families are checked by the caller.
 */
extern const char *bfs_incompatible(const bfs_header *a, const bfs_header *b);

#endif							/* BF_SCALABLE_H */
