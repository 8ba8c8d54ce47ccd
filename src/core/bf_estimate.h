/*
 * bf_estimate.h
 *		Estimates from a filter's bits (bf_estimate.c).
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_ESTIMATE_H
#define BF_ESTIMATE_H

#include <stdint.h>

#include "bf_defs.h"

extern uint64_t bf_popcount(const bf_view *v);

/* Swamidass & Baldi: n ~ -(m/k) ln(1 - X/m); per block for blocked. */
extern double bf_est_cardinality(const bf_view *v);

/* Probability that a key not in the set probes true, given the bits now. */
extern double bf_est_fpr(const bf_view *v);

#endif							/* BF_ESTIMATE_H */
