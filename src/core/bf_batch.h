/*
 * bf_batch.h
 *		Many keys at once (bf_batch.c): the batch entry points.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_BATCH_H
#define BF_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"

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

#endif							/* BF_BATCH_H */
