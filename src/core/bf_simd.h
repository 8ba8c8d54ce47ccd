/*
 * bf_simd.h
 *		The AVX2 dispatch of the batch probe (bf_simd.c).
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_SIMD_H
#define BF_SIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"

/*
 * On x86-64 with AVX2 (checked once, at load), bf_probe_batch probes
 * blocked filters with bf_simd.c's loop, which computes 8 positions per
 * instruction: the same answers.  bf_use_avx2 starts as bf_cpu_has_avx2
 * and may be cleared to force the scalar loop (the tests, the benchmarks
 * and the setting bloomfilter.simd do); it must never be set on a CPU
 * without AVX2.  One key at a time (bf_probe_hash) is always scalar: see
 * bf_simd.c for why.  Building with -DBF_NO_AVX2 leaves the AVX2 code out
 * (make check-core builds the unit tests both ways).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BF_NO_AVX2)
#define BF_HAVE_AVX2_PROBE 1
extern int	bf_use_avx2;
extern int	bf_cpu_has_avx2;
extern bool bf_blocked_probe_avx2(const uint8_t *block, uint32_t x, int k);
extern size_t bf_blocked_probe_batch_avx2(const bf_view *v, const uint64_t *h,
										  size_t n, uint8_t *out);
#else
#define BF_HAVE_AVX2_PROBE 0
#endif

#endif							/* BF_SIMD_H */
