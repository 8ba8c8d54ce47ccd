/*
 * test_hashfn.c
 *		Core unit tests: hashing keys (bf_hashfn.h).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- 9. hashing ---- */

void
test_hashing(void)
{
	rng			r = {9};
	int			bad = 0;
	int64_t		first_v = 0;

	/* The frozen XXH3-64 output: the empty input, seed 0 (xxHash's own test vector). */
	check(bf_hash_bytes(0, "", 0) == UINT64_C(0x2D06800538D394C2),
		  "hash: XXH3 test vector", "got 0x%016" PRIx64, bf_hash_bytes(0, "", 0));

	/*
	 * Integers hash as their 8 little-endian bytes, built here by hand so
	 * the test does not share the encoder it checks.
	 */
	for (int i = 0; i < 100000; i++)
	{
		uint64_t	seed = i % 4 == 0 ? 0 : rng_next(&r);
		int64_t		v;
		uint8_t		le[8];

		switch (i)
		{
			case 0:
				v = 0;
				break;
			case 1:
				v = -1;
				break;
			case 2:
				v = INT64_MIN;
				break;
			case 3:
				v = INT64_MAX;
				break;
			default:
				v = (int64_t) rng_next(&r) >> rng_below(&r, 64);
				break;
		}
		for (int b = 0; b < 8; b++)
			le[b] = (uint8_t) ((uint64_t) v >> (8 * b));
		if (bf_hash_int64(seed, v) != bf_hash_bytes(seed, le, 8) && bad++ == 0)
			first_v = v;
	}
	check(bad == 0, "hash: int64 is its little-endian bytes",
		  "%d mismatches, first v=%" PRId64, bad, first_v);
	check(bf_hash_int64(0, 1) != bf_hash_int64(1, 1) &&
		  bf_hash_int64(0, 1) != bf_hash_int64(0, 2),
		  "hash: seed and value matter", "collision");
}
