/*
 * bf_batch.h
 *		Many keys at once (bf_batch.c): the batch entry points and the
 *		prefetching loop they share with bf_simd.c.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_BATCH_H
#define BF_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"
#include "bf_kernels.h"

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

/*
 * How many keys ahead the batch loops prefetch.  Measured with
 * test/bench/core_bench.c on a 2-vCPU Xeon VM (2 MB L2 per core) with 12 MB
 * filters: blocked probes and inserts take 10-15 ns a key at any distance
 * from 4 to 32 (against 30-40 ns one key at a time), so the choice is not
 * critical; 16 leaves room for slower memory than this machine's.
 */
#ifndef BF_PREFETCH_AHEAD
#define BF_PREFETCH_AHEAD 16
#endif

/*
 * A block is one cache line only when the bit array is 64-byte aligned;
 * the format promises 8, so a block may straddle two lines, and both are
 * fetched (on an aligned array, the second prefetch names the line
 * already requested and costs an instruction).
 */
static inline __attribute__((always_inline)) void
bf_prefetch_block(const uint8_t *block, const int for_write)
{
	if (for_write)
	{
		__builtin_prefetch(block, 1);
		__builtin_prefetch(block + BF_BLOCK_BYTES - 1, 1);
	}
	else
	{
		__builtin_prefetch(block, 0);
		__builtin_prefetch(block + BF_BLOCK_BYTES - 1, 0);
	}
}

/*
 * bf_probe_batch's loop over a blocked filter, with probe_k the test of one
 * block (bf_blocked_probe_k, or bf_simd.c's AVX2 one): each key's block is
 * prefetched BF_PREFETCH_AHEAD keys before it is probed.  Both callers pass
 * an always_inline kernel and a constant k, so the kernel is inlined.
 */
static inline __attribute__((always_inline)) size_t
bf_blocked_probe_loop(const bf_view *v, const uint64_t *h, size_t n,
					  uint8_t *out, const int k,
					  bool (*probe_k) (const uint8_t *, uint32_t, int))
{
	uint8_t    *bits = v->bits;
	uint64_t	nbits = v->nbits;
	size_t		hits = 0;
	size_t		i = 0;

	for (size_t j = 0; j < n && j < BF_PREFETCH_AHEAD; j++)
		bf_prefetch_block(bf_block_of(bits, nbits, h[j]), 0);
	/* the main loop prefetches without a bounds test; the tail does not */
	for (; i + BF_PREFETCH_AHEAD < n; i++)
	{
		bool		r;

		bf_prefetch_block(bf_block_of(bits, nbits, h[i + BF_PREFETCH_AHEAD]), 0);
		r = probe_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);
		out[i] = r;
		hits += r;
	}
	for (; i < n; i++)
	{
		bool		r = probe_k(bf_block_of(bits, nbits, h[i]), (uint32_t) h[i], k);

		out[i] = r;
		hits += r;
	}
	return hits;
}

#endif							/* BF_BATCH_H */
