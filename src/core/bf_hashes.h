/*
 * bf_hashes.h
 *		Sets of hashes (bf_hashes.c): sorting, deduplication, bucketed
 *		insert and the HyperLogLog sketch.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_HASHES_H
#define BF_HASHES_H

#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"

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

#endif							/* BF_HASHES_H */
