/*
 * bf_simd.c
 *		The blocked probe of a batch of keys with AVX2, chosen at run time.
 *
 * A blocked probe computes k bit positions x*M^i >> 23 inside one 512-bit
 * block and tests them.  The scalar loop is a chain of k multiplies and k
 * shift-load-test steps, about 60 instructions a key, and when the keys
 * come in a batch and the filter is in cache, that is the whole cost.  AVX2
 * computes eight positions in one multiply by the vector (M^0 .. M^7),
 * picks each position's 32-bit word from the block held in two registers
 * (the block is 16 words: a permute over each half and a blend on the
 * word number's top bit), shifts the tested bit to the sign, and reads k
 * answers as one mask.  test/bench/core_bench.sh compares the two loops in
 * the same run (rows "bf blocked" and "bf blocked -simd").
 *
 * One key per call stays scalar.  In the executor, with a row's worth of
 * other work between two probes, the AVX2 probe measured no faster.  Commit
 * 53dae92 probed one key at a time with AVX2 too, and bloomfilter.simd
 * switched it; in 25 paired runs of a per-row probe of a 1 MB filter over
 * 5M rows (probe_bench.sh's query (b), on and off interleaved) the scalar
 * loop won 17, by 8% in the median, and probe_bench.sh's own runs agreed.
 *
 * The positions and answers are exactly the scalar ones (the bytes are a
 * little-endian bit array, and AVX2 machines are little-endian);
 * test/core/test_core.c holds the two together for every k.
 *
 * The extension is built for the baseline x86-64, so these functions carry
 * their own target attribute and run only when the CPU has AVX2, which is
 * checked once, when the library is loaded.
 */
#include "bf_core.h"

#if BF_HAVE_AVX2_PROBE

#include <immintrin.h>

int			bf_use_avx2 = 0;
int			bf_cpu_has_avx2 = 0;

__attribute__((constructor)) static void
bf_simd_init(void)
{
	/* constructors may run before the compiler's own CPU probe */
	__builtin_cpu_init();
	bf_cpu_has_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
	bf_use_avx2 = bf_cpu_has_avx2;
}

/*
 * Position i is x * M^i >> 23: the vector (M^0, ..., M^7) gives 8 at once,
 * and each further group of 8 is the one before times M^8 (mod 2^32).  A
 * probe stops at the first group with a clear bit.
 */
#define M1 BF_BLOCK_MULT
#define M2 (uint32_t) (M1 * M1)
#define M4 (uint32_t) (M2 * M2)
#define M8 (uint32_t) (M4 * M4)

static inline __attribute__((always_inline, target("avx2"))) bool
probe_avx2(const uint8_t *block, uint32_t x, int k)
{
	const __m256i powers = _mm256_setr_epi32(1, (int) M1, (int) M2,
											 (int) (uint32_t) (M2 * M1), (int) M4,
											 (int) (uint32_t) (M4 * M1),
											 (int) (uint32_t) (M4 * M2),
											 (int) (uint32_t) (M4 * M2 * M1));
	const __m256i lo = _mm256_loadu_si256((const __m256i *) block);
	const __m256i hi = _mm256_loadu_si256((const __m256i *) (block + 32));
	const __m256i low5 = _mm256_set1_epi32(31);
	__m256i		xv = _mm256_set1_epi32((int) x);

	for (int done = 0; done < k; done += 8)
	{
		__m256i		pos = _mm256_srli_epi32(_mm256_mullo_epi32(xv, powers), 23);
		__m256i		word = _mm256_srli_epi32(pos, 5);

		/* words 0-7 from lo, 8-15 from hi: bit 3 of the number, at the sign */
		__m256i		w = _mm256_castps_si256(
			_mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, word)),
							 _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, word)),
							 _mm256_castsi256_ps(_mm256_slli_epi32(word, 28))));
		/* the tested bit, moved to the sign of its lane */
		__m256i		bit = _mm256_sllv_epi32(w, _mm256_sub_epi32(low5, _mm256_and_si256(pos, low5)));
		unsigned	want = k - done >= 8 ? 0xffu : (1u << (k - done)) - 1;

		if (((unsigned) _mm256_movemask_ps(_mm256_castsi256_ps(bit)) & want) != want)
			return false;
		xv = _mm256_mullo_epi32(xv, _mm256_set1_epi32((int) M8));
	}
	return true;
}

__attribute__((target("avx2"))) bool
bf_blocked_probe_avx2(const uint8_t *block, uint32_t x, int k)
{
	return probe_avx2(block, x, k);
}

/* bf_probe_batch's blocked loop, with the AVX2 probe */
__attribute__((target("avx2"))) size_t
bf_blocked_probe_batch_avx2(const bf_view *v, const uint64_t *h, size_t n,
							uint8_t *out)
{
	return bf_blocked_probe_loop(v, h, n, out, v->hashes, probe_avx2);
}

#else

/* keeps the translation unit non-empty (ISO C) */
typedef int bf_simd_unused;

#endif							/* BF_HAVE_AVX2_PROBE */
