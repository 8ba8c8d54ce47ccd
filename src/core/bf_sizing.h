/*
 * bf_sizing.h
 *		Sizing math (bf_sizing.c).
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_SIZING_H
#define BF_SIZING_H

#include <stdbool.h>
#include <stdint.h>

/* Textbook m = -n ln p / (ln 2)^2, rounded up. */
extern double bf_optimal_bits(double n, double p);

/* Textbook k = (m / n) ln 2, rounded, at least 1. */
extern int	bf_optimal_hashes(double m, double n);

/* Textbook (1 - e^(-kn/m))^k. */
extern double bf_expected_fpr(double m, int k, double n);

/*
 * Expected FPR of a blocked filter of nblocks 512-bit blocks holding n
 * keys: the mean over Poisson-distributed block loads of each block's FPR.
 */
extern double bf_blocked_expected_fpr(double nblocks, int k, double n);

/*
 * Smallest filter of the given layout that holds n distinct keys at a rate
 * at most p: sets *nbits and *hashes.  Returns false when that filter
 * would exceed BF_MAX_NBITS.
 */
extern bool bf_size_for(int layout, double n, double p, uint64_t *nbits,
						int *hashes);

/*
 * Self-sizing filters (bloom_agg without a capacity) are blocked, seed 0,
 * with k fixed by the target rate alone and a power-of-two number of
 * blocks, so that any two built for the same rate fold to one size and
 * combine.
 */

/*
 * Whether some blocked filter reaches rate p (in (0, 1); below about 1e-24
 * none does, whatever its size): the rates a self-sizing filter accepts,
 * the same as bf_size_for's for a single key.
 */
extern bool bf_auto_reachable(double p);

/* The k a blocked filter uses for rate p, whatever its size. */
extern int	bf_auto_hashes(double p);

/*
 * The smallest power-of-two block count whose filter holds n keys at rate
 * at most p with k hashes, capped at max_nblocks (itself a power of two).
 */
extern uint64_t bf_auto_nblocks(double n, double p, int k, uint64_t max_nblocks);

/*
 * The factor by which blocked sizing aims under a target rate p (the model
 * underestimates the measured rate; see bf_sizing.c).
 */
extern double bf_blocked_margin(double p);

/*
 * bf_size_for and bf_auto_hashes keep their last answers per process (the
 * exact model is slow and queries size the same filter again and again).
 * A cached answer is the computed one; this turns the cache off (and
 * empties it) so that the unit tests can compare the two.  On by default.
 */
extern void bf_sizing_cache_enable(bool on);

#endif							/* BF_SIZING_H */
