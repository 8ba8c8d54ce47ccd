/*
 * type/bf_engines_spark.h
 *		Layout spark, Spark's org.apache.spark.util.sketch.BloomFilter: the
 *		glue of type/bf_engines_spark.c (its core is core/bf_spark.c).
 */
#ifndef BF_ENGINES_SPARK_H
#define BF_ENGINES_SPARK_H

#include "key/bf_key.h"

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

/* bloom_empty(capacity, fpr, 'spark', seed): sized as BloomFilter.create. */
extern struct varlena *bloom_spark_empty(int64 capacity, double fpr, int64 seed);

/* bloom_empty_bits(bits, hashes, 'spark', seed): bits rounded to words. */
extern struct varlena *bloom_spark_empty_bits(int64 bits, int32 hashes, int64 seed);

/* Would bloom_spark_check_key accept kt?  (never an ERROR) */
extern bool bloom_spark_key_ok(const BloomKeyType *kt);

#endif							/* BF_ENGINES_SPARK_H */
