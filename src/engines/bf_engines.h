/*
 * bf_engines.h
 *		Layouts other engines define (src/core/FORMAT.md, "Version 2"): how
 *		their keys are hashed and probed, and their import and export.
 *		engines/bf_engines_parquet.c: layout parquet;
 *		engines/bf_engines_spark.c: layout spark.
 */
#ifndef BF_ENGINES_H
#define BF_ENGINES_H

#include "key/bf_key.h"

/* ---- engines/bf_engines_parquet.c ---- */

/*
 * Before keys of type kt are added to parquet filter v: fixes its physical
 * type and family if none yet; ERROR if such keys cannot be written as the
 * filter's physical type.
 */
extern void bloom_parquet_adopt(bf_view *v, const BloomKeyType *kt);

/*
 * The hash of value added to v (adopted): XXH64 of its plain encoding as
 * the filter's physical type; ERROR if the value has none there (an int8
 * beyond INT32, an infinite date).
 */
extern uint64 bloom_parquet_add_hash(const bf_view *v, const BloomKeyType *kt,
									 Datum value);

/*
 * Whether keys of type kt may probe v: ERROR if they cannot be compared with
 * the filter's physical type; false if the filter holds no key.
 */
extern bool bloom_parquet_check_probe(const bf_view *v, const BloomKeyType *kt);

/* Probes v (checked) for value: every encoding equal to it under = is tried. */
extern bool bloom_parquet_probe(const bf_view *v, const BloomKeyType *kt,
								Datum value);

/* Would bloom_parquet_check_probe(v, kt) pass?  (never an ERROR) */
extern bool bloom_parquet_can_probe(const bf_view *v, const BloomKeyType *kt);

/*
 * For an index: the one encoding a key has in parquet filters of physical
 * type param holding keys of family (never an ERROR for a type that cannot
 * convert).  1: its hash in *h; 0: no such filter can hold the key; -1: the
 * index cannot say (several encodings, or a key the table's probe must
 * judge), so the row is rechecked.
 */
extern int	bloom_parquet_index_hash(unsigned param, uint16 family,
									 const BloomKeyType *kt, Datum value,
									 uint64 *h);

/*
 * The physical type keys of type kt are written as (BF_PQ_*); ERROR naming
 * a cast for a type that has no single one.
 */
extern unsigned bloom_parquet_type_of(const BloomKeyType *kt);

/* ---- engines/bf_engines_spark.c: Spark's org.apache.spark.util.sketch.BloomFilter ---- */

/*
 * The hash of a key as Spark hashes it (putLong for integers, putBinary of
 * the UTF-8 bytes for text, putBinary for bytea), packed as bf_spark.h
 * says.  The key type must have passed bloom_spark_check_key.
 */
extern uint64 bloom_spark_hash(const BloomKeyType *kt, Datum value, uint64 seed);

/*
 * ERROR unless keys of kt hash in a spark filter as Spark hashes them, with
 * a hint naming the cast to use.
 */
extern void bloom_spark_check_key(const BloomKeyType *kt);

/*
 * bloom_empty(capacity, fpr, 'spark', seed): sized as BloomFilter.create;
 * the caller has checked capacity and fpr as for any layout.
 */
extern struct varlena *bloom_spark_empty(int64 capacity, double fpr, int64 seed);

/* bloom_empty_bits(bits, hashes, 'spark', seed): bits rounded to words. */
extern struct varlena *bloom_spark_empty_bits(int64 bits, int32 hashes, int64 seed);

/* Would bloom_spark_check_key accept kt?  (never an ERROR) */
extern bool bloom_spark_key_ok(const BloomKeyType *kt);

#endif							/* BF_ENGINES_H */
