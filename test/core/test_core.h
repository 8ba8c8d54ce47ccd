/*
 * test_core.h
 *		The shared harness of the core unit tests (test/core/test_*.c): the
 *		check counter, deterministic randomness, exact-size filters, and the
 *		test functions each file offers to main (test_core.c).
 *
 * One file per core module; all are linked into one program, test_core,
 * which "make check-core" builds and runs under ASan and UBSan.
 */
#ifndef TEST_CORE_H
#define TEST_CORE_H

/* mmap, for a long buffer of which only the first page is readable */
#define _DEFAULT_SOURCE

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bf_core.h"
#include "bf_counting.h"
#include "bf_window.h"
#include "bf_scalable.h"

/*
 * Records one named check; on failure prints "FAIL name: details".
 * Returns ok so callers can skip work that only makes sense when it passed.
 */
extern bool check(bool ok, const char *name, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* A measured figure, shown only with BF_TEST_VERBOSE. */
extern void info(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* A part of the tests that cannot run here: always printed as "SKIP ...". */
extern void skip(const char *fmt,...) __attribute__((format(printf, 1, 2)));

extern double rel_err(double a, double b);

/* deterministic randomness: a seeded splitmix64 */
typedef struct rng
{
	uint64_t	s;
} rng;

extern uint64_t rng_next(rng *r);
extern uint64_t rng_below(rng *r, uint64_t n);
extern void rng_fill(rng *r, uint8_t *p, size_t len);
extern void *xmalloc(size_t len);
extern uint8_t *copy_exact(const uint8_t *src, size_t srclen, size_t newlen);

/* a filter in its own exact-size buffer */
typedef struct tfilter
{
	uint8_t    *buf;			/* bf_buffer_size(nbits) bytes */
	size_t		len;
	bf_view		v;				/* view into buf */
} tfilter;

extern tfilter tf_new(int layout, int hashes, uint64_t seed, uint64_t nbits);
extern tfilter tf_sized(int layout, double n, double p, uint64_t seed);
extern tfilter tf_copy(const tfilter *src);
extern void tf_free(tfilter *f);
extern void tf_add_int(tfilter *f, int64_t key);
extern bool tf_has_int(const tfilter *f, int64_t key);
extern void tf_add_bytes(tfilter *f, const uint8_t *key, size_t len);
extern bool tf_has_bytes(const tfilter *f, const uint8_t *key, size_t len);
extern void tf_seal(tfilter *f);
extern bool tf_same_bits(const tfilter *a, const tfilter *b);
extern size_t bytes_key(uint64_t i, uint8_t *out);

extern const int layouts[2];

/* helpers of test_format.c that the other formats' tests use too */
/* Ways of altering one header field, for the single-mutation table. */
typedef struct field_case
{
	const char *what;
	int			off;			/* byte offset, or -1 for "length" */
	int			width;			/* 1, 2, 4 or 8 bytes */
	uint64_t	value;
	bf_status	want;
} field_case;

extern tfilter sealed_filter(int layout, uint64_t nbits, int nkeys);
extern void store_field(uint8_t *buf, int off, int width, uint64_t value);
extern const char *mutate(uint8_t **pbuf, size_t *plen, rng *r);

/* the tests, in the order main runs them */
/* test_spark.c */
extern void test_spark(void);
/* test_format.c */
extern void test_geometry(void);
extern void test_format_statuses(void);
extern void test_format_version_field(void);
extern void test_format_mutations(void);
/* test_kernels.c */
extern void test_no_false_negatives(void);
extern void test_measured_fpr(void);
extern void test_golden(void);
extern void test_small_classic(void);
/* test_sizing.c */
extern void test_sizing(void);
extern void test_auto_sizing(void);
extern void test_sizing_cache(void);
/* test_base64.c */
extern void test_base64(void);
/* test_combine.c */
extern void test_combining(void);
extern void test_folding(void);
/* test_estimate.c */
extern void test_estimates(void);
/* test_hashfn.c */
extern void test_hashing(void);
/* test_hashes.c */
extern void test_hash_sets(void);
extern void test_hll(void);
extern void test_insert_many(void);
extern void test_dedup(void);
extern void test_bucketed(void);
/* test_batch.c */
extern void test_batch_and_popcount(void);
extern void test_batch_probe(void);
extern void test_avx2_probe(void);
/* test_counting.c */
extern void test_counting_positions(void);
extern void test_counting_cast(void);
extern void test_counting_remove(void);
extern void test_counting_saturation(void);
extern void test_counting_union(void);
extern void test_counting_format(void);
/* test_window.c */
extern void test_window_geometry(void);
extern void test_window_rotation(void);
extern void test_window_edges(void);
extern void test_window_stream(void);
extern void test_window_validation(void);
/* test_vectors.c */
extern void test_vectors(void);
extern void test_frozen(void);
/* test_aggstate.c */
extern void test_aggstate_layout(void);
extern void test_aggstate_round_trip(void);
extern void test_aggstate_values(void);
extern void test_aggstate_explicit(void);
extern void test_aggstate_validation(void);
/* test_problem.c */
extern void test_parquet_kernels(void);
extern void test_parquet_sizing(void);
extern void test_parquet_format(void);
extern void test_parquet_header(void);

extern void test_problem_shared(void);
extern void test_problem_details(void);
extern void test_problem_arbitrary(void);
/* test_scalable.c */
extern void test_scalable_schedule(void);
extern void test_scalable_growth(void);
extern void test_scalable_validation(void);
extern void test_scalable_mutations(void);
extern void test_scalable_capacity(void);
extern void test_scalable_walk(void);
extern void test_scalable_wrap(void);
extern void test_max_size(void);
/* test_slice.c */
extern void test_slice_masks(void);
extern void test_slice_transpose(void);
extern void test_slice_superset(void);
extern void test_slice_tid_items(void);

#endif							/* TEST_CORE_H */
