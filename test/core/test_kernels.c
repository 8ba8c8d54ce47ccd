/*
 * test_kernels.c
 *		Core unit tests: insert and probe, one key at a time (bf_kernels.h): no false negatives,
 *		the measured rate, golden filters.
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- 2. insert and probe ---- */

/*
 * A Bloom filter may answer "maybe" for a key it never saw, but must never
 * answer "no" for one it did: check every inserted key, for both layouts,
 * integer and byte-string keys, and seeds including 0 and all-ones.
 */
void
test_no_false_negatives(void)
{
	static const uint64_t seeds[] = {0, 1, UINT64_C(0xdeadbeef), UINT64_MAX};
	const int	nkeys = 120000;
	uint8_t		key[301];

	for (int li = 0; li < 2; li++)
	{
		for (size_t si = 0; si < sizeof(seeds) / sizeof(seeds[0]); si++)
		{
			tfilter		fi = tf_sized(layouts[li], nkeys, 0.01, seeds[si]);
			tfilter		fb = tf_sized(layouts[li], nkeys, 0.01, seeds[si]);
			rng			r = {seeds[si] ^ 0x1234};
			int64_t		first_missing = -1;
			int			missing = 0;

			/* Spread-out integers, negative ones and the extremes too. */
			for (int i = 0; i < nkeys; i++)
				tf_add_int(&fi, (int64_t) rng_next(&r));
			tf_add_int(&fi, INT64_MIN);
			tf_add_int(&fi, INT64_MAX);
			tf_add_int(&fi, 0);
			r.s = seeds[si] ^ 0x1234;
			for (int i = 0; i < nkeys; i++)
			{
				int64_t		k = (int64_t) rng_next(&r);

				if (!tf_has_int(&fi, k))
				{
					if (missing++ == 0)
						first_missing = k;
				}
			}
			if (!tf_has_int(&fi, INT64_MIN) || !tf_has_int(&fi, INT64_MAX) ||
				!tf_has_int(&fi, 0))
				missing++;
			check(missing == 0, "probe: no false negatives (int)",
				  "%s seed %" PRIu64 ": %d of %d keys missing, first %" PRId64,
				  bf_layout_name(layouts[li]), seeds[si], missing, nkeys + 3,
				  first_missing);
			check(fi.v.added == (uint64_t) nkeys + 3, "probe: added count",
				  "added = %" PRIu64, fi.v.added);

			for (int i = 0; i < nkeys; i++)
			{
				size_t		len = bytes_key((uint64_t) i, key);

				tf_add_bytes(&fb, key, len);
			}
			missing = 0;
			first_missing = -1;
			for (int i = 0; i < nkeys; i++)
			{
				size_t		len = bytes_key((uint64_t) i, key);

				if (!tf_has_bytes(&fb, key, len))
				{
					if (missing++ == 0)
						first_missing = i;
				}
			}
			check(missing == 0, "probe: no false negatives (bytes)",
				  "%s seed %" PRIu64 ": %d of %d keys missing, first #%" PRId64,
				  bf_layout_name(layouts[li]), seeds[si], missing, nkeys,
				  first_missing);
			tf_free(&fi);
			tf_free(&fb);
		}
	}

	/*
	 * Extreme geometries: the smallest arrays, k = 1 and k = 32, and a
	 * grossly overfull filter.  Still no false negatives.
	 */
	{
		static const struct
		{
			int			layout;
			int			hashes;
			uint64_t	nbits;
		}			g[] = {
			{BF_LAYOUT_CLASSIC, 1, 64},
			{BF_LAYOUT_CLASSIC, 32, 64},
			{BF_LAYOUT_CLASSIC, 32, 64 * 1001},
			{BF_LAYOUT_CLASSIC, 3, 64 * 3},
			{BF_LAYOUT_BLOCKED, 1, 512},
			{BF_LAYOUT_BLOCKED, 32, 512},
			{BF_LAYOUT_BLOCKED, 32, 512 * 1001},
			{BF_LAYOUT_BLOCKED, 5, 512 * 3},
		};

		for (size_t gi = 0; gi < sizeof(g) / sizeof(g[0]); gi++)
		{
			tfilter		f = tf_new(g[gi].layout, g[gi].hashes, 99, g[gi].nbits);
			int			missing = 0;

			for (int64_t i = 0; i < 20000; i++)
				tf_add_int(&f, i * 1000003);
			for (int64_t i = 0; i < 20000; i++)
				if (!tf_has_int(&f, i * 1000003))
					missing++;
			check(missing == 0, "probe: no false negatives (extreme geometry)",
				  "%s k=%d m=%" PRIu64 ": %d missing",
				  bf_layout_name(g[gi].layout), g[gi].hashes, g[gi].nbits,
				  missing);
			tf_free(&f);
		}
	}

	/*
	 * The seed must change where keys go: otherwise filters for different
	 * purposes would share false positives.  Also, an empty filter answers
	 * "no" to everything and a probe does not change the bits.
	 */
	for (int li = 0; li < 2; li++)
	{
		tfilter		a = tf_sized(layouts[li], 1000, 0.01, 0);
		tfilter		b = tf_sized(layouts[li], 1000, 0.01, 1);
		tfilter		c = tf_sized(layouts[li], 1000, 0.01, 0);
		int			hits = 0;

		for (int64_t i = 0; i < 1000; i++)
		{
			tf_add_int(&a, i);
			tf_add_int(&b, i);
			hits += tf_has_int(&c, i);
		}
		check(!tf_same_bits(&a, &b), "probe: seeds differ",
			  "%s: seeds 0 and 1 gave identical bits", bf_layout_name(layouts[li]));
		check(hits == 0 && bf_popcount(&c.v) == 0, "probe: empty filter",
			  "%s: %d hits in an empty filter", bf_layout_name(layouts[li]), hits);
		tf_free(&a);
		tf_free(&b);
		tf_free(&c);
	}

	/* The added count saturates instead of wrapping to zero. */
	{
		tfilter		f = tf_new(BF_LAYOUT_CLASSIC, 3, 0, 64);

		f.v.added = UINT64_MAX - 1;
		tf_add_int(&f, 1);
		tf_add_int(&f, 2);
		check(f.v.added == UINT64_MAX, "probe: added saturates",
			  "added = %" PRIu64, f.v.added);
		tf_free(&f);
	}
}

/* ---- 3. measured false-positive rate ---- */

/*
 * Fills a filter sized by bf_size_for with n keys and probes it with
 * non-members: the measured rate must be close to the target, and to what
 * the filter's own estimate and the sizing model predict.  The upper bound
 * catches undersizing (a broken hash or sizing model), the lower one
 * gross oversizing.
 */
void
test_measured_fpr(void)
{
	static const double ps[] = {0.01, 0.001};
	const int	n = 200000;
	const int64_t nprobes = 2000000;
	const int64_t probe_base = INT64_C(1) << 40;

	for (int li = 0; li < 2; li++)
	{
		for (int pi = 0; pi < 2; pi++)
		{
			double		p = ps[pi];
			tfilter		f = tf_sized(layouts[li], n, p, 42);
			int64_t		fp = 0;
			double		measured,
						est,
						model;

			for (int64_t i = 0; i < n; i++)
				tf_add_int(&f, i);
			for (int64_t i = 0; i < nprobes; i++)
				fp += tf_has_int(&f, probe_base + i);
			measured = (double) fp / (double) nprobes;
			est = bf_est_fpr(&f.v);
			if (layouts[li] == BF_LAYOUT_BLOCKED)
				model = bf_blocked_expected_fpr((double) f.v.nbits / BF_BLOCK_BITS,
												f.v.hashes, n);
			else
				model = bf_expected_fpr((double) f.v.nbits, f.v.hashes, n);

			info("fpr %s p=%g: m=%" PRIu64 " k=%d bits/key=%.3f measured=%.6f "
				 "(%.3fp) est=%.6f model=%.6f",
				 bf_layout_name(layouts[li]), p, f.v.nbits, f.v.hashes,
				 (double) f.v.nbits / n, measured, measured / p, est, model);

			check(measured <= 1.25 * p, "fpr: measured within 1.25p",
				  "%s p=%g: measured %.6f over %" PRId64 " probes",
				  bf_layout_name(layouts[li]), p, measured, nprobes);
			check(measured > 0.5 * p, "fpr: measured above 0.5p",
				  "%s p=%g: measured %.6f, filter oversized?",
				  bf_layout_name(layouts[li]), p, measured);
			check(rel_err(est, measured) <= 0.15, "fpr: bf_est_fpr",
				  "%s p=%g: estimate %.6f vs measured %.6f",
				  bf_layout_name(layouts[li]), p, est, measured);
			check(rel_err(model, measured) <= 0.15, "fpr: sizing model",
				  "%s p=%g: model %.6f vs measured %.6f",
				  bf_layout_name(layouts[li]), p, model, measured);
			tf_free(&f);
		}
	}
}


/*
 * The portable format pins where keys go: a filter written by one build
 * must answer the same in another.  These checksums of fixed filters change
 * if the hash, the position scheme or the header changes, which would be a
 * format break (a new BF_FORMAT_VERSION), never a silent change.
 */
void
test_golden(void)
{
	static const struct
	{
		int			layout;
		uint64_t	want;
	}			golden[] = {
		{BF_LAYOUT_CLASSIC, UINT64_C(0xced010415b67ac24)},
		{BF_LAYOUT_BLOCKED, UINT64_C(0x738933b21b96d874)},
	};

	for (int i = 0; i < 2; i++)
	{
		tfilter		f = tf_new(golden[i].layout, 7, 2024, 2048);
		uint8_t		key[301];
		uint64_t	sum;

		for (int64_t k = 0; k < 100; k++)
			tf_add_int(&f, k * 1000 - 50000);
		for (uint64_t k = 0; k < 50; k++)
			bf_insert_hash(&f.v, bf_hash_bytes(f.v.seed, key, bytes_key(k, key)));
		tf_seal(&f);
		sum = bf_load_le64(f.buf + BF_OFF_CHECKSUM);
		check(sum == golden[i].want, "format: golden filter",
			  "%s: checksum 0x%016" PRIx64 ", want 0x%016" PRIx64,
			  bf_layout_name(golden[i].layout), sum, golden[i].want);
		tf_free(&f);
	}
}

/*
 * Small classic filters at small rates: with plain double hashing in the
 * 2^64 ring, keys whose step lies near a simple fraction of 2^64 repeat
 * positions, and a filter for 100 keys at 1e-6 measured 50 times its rate.
 * The quadratic term of triple hashing keeps the k positions apart.
 */
void
test_small_classic(void)
{
	uint64_t	nbits;
	int			k;
	long		fp = 0;
	const long	probes = 4000000;
	int			seeds = 0;

	if (!bf_size_for(BF_LAYOUT_CLASSIC, 100, 1e-6, &nbits, &k))
	{
		check(false, "small classic: sized", "bf_size_for refused n=100 p=1e-6");
		return;
	}
	for (uint64_t seed = 1; seed <= 40; seed++, seeds++)
	{
		tfilter		f = tf_new(BF_LAYOUT_CLASSIC, k, seed, nbits);

		for (int64_t i = 0; i < 100; i++)
			tf_add_int(&f, i);
		for (long i = 0; i < probes / 40; i++)
			fp += bf_probe_hash(&f.v, bf_hash_int64(seed, (int64_t) 1000000 + i));
		tf_free(&f);
	}
	check((double) fp / probes <= 3e-6, "small classic: rate at n=100, p=1e-6",
		  "%ld false positives in %ld probes over %d seeds", fp, probes, seeds);
}
