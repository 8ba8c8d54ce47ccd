/*
 * bf_core.h
 *		The pure C core of the bloomfilter extension: filter geometry, the
 *		portable format and its validator, insert/probe, combining, estimates
 *		and sizing math.  This header only gathers the headers of the core's
 *		concerns, so that a caller includes one name:
 *
 *		bf_defs.h		format constants, families, status codes, bf_view
 *		bf_le.h			little-endian field access
 *		bf_hashfn.h		key hashing (XXH3, inlined), mixing, range reduction
 *		bf_kernels.h	insert and probe of one hash (the hot path), the
 *						prefetching probe loop
 *		bf_batch.h		many keys at once (bf_batch.c)
 *		bf_simd.h		the AVX2 dispatch of the batch probe
 *		bf_format.h		buffers, views, sealing, validation (bf_format.c)
 *		bf_combine.h	union, intersection, superset (bf_combine.c)
 *		bf_estimate.h	popcount, cardinality, FPR (bf_estimate.c)
 *		bf_sizing.h		sizing math (bf_sizing.c)
 *		bf_hashes.h		sets of hashes, HyperLogLog (bf_hashes.c)
 *		bf_base64.h		the text codec (bf_base64.c)
 *		bf_spark.h		layout spark: Spark's BloomFilter, its hashing,
 *						sizing and serialized bytes (bf_spark.c)
 *		bf_parquet.h	layout parquet: Parquet's split-block filter, its
 *						sizing and Thrift header (bf_parquet.c)
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

#include "bf_defs.h"
#include "bf_le.h"
#include "bf_hashfn.h"
#include "bf_spark.h"
#include "bf_parquet.h"
#include "bf_kernels.h"
#include "bf_batch.h"
#include "bf_simd.h"
#include "bf_format.h"
#include "bf_combine.h"
#include "bf_estimate.h"
#include "bf_sizing.h"
#include "bf_hashes.h"
#include "bf_base64.h"

#endif							/* BF_CORE_H */
