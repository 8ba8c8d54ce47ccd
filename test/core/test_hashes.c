/*
 * test_hashes.c
 *		Core unit tests: sets of hashes, HyperLogLog, bucketed insert (bf_hashes.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- sets of hashes, HyperLogLog, batch insert ---- */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * The radix sort and the duplicate removal against qsort and an obvious
 * loop: sizes around the 256-bucket boundaries, duplicates, extremes.
 */
void
test_hash_sets(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 255, 256, 257, 1000, 65537};
	rng			r = {77};

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		size_t		n = sizes[si];
		uint64_t   *a = xmalloc(n * sizeof(uint64_t));
		uint64_t   *tmp = xmalloc(n * sizeof(uint64_t));
		uint64_t   *want = xmalloc(n * sizeof(uint64_t));
		size_t		nu,
					wu = 0;

		for (size_t i = 0; i < n; i++)
		{
			/* a third are repeats of earlier values; some extremes */
			if (i > 0 && rng_below(&r, 3) == 0)
				a[i] = a[rng_below(&r, i)];
			else if (rng_below(&r, 50) == 0)
				a[i] = rng_below(&r, 2) ? UINT64_MAX : 0;
			else
				a[i] = rng_next(&r);
		}
		memcpy(want, a, n * sizeof(uint64_t));
		qsort(want, n, sizeof(uint64_t), cmp_u64);
		bf_sort_hashes(a, tmp, n);
		check(n == 0 || memcmp(a, want, n * sizeof(uint64_t)) == 0,
			  "hashes: sort", "n=%zu: differs from qsort", n);

		for (size_t i = 0; i < n; i++)
			if (wu == 0 || want[wu - 1] != want[i])
				want[wu++] = want[i];
		nu = bf_unique_hashes(a, n);
		check(nu == wu && (n == 0 || memcmp(a, want, wu * sizeof(uint64_t)) == 0),
			  "hashes: unique", "n=%zu: %zu left, want %zu", n, nu, wu);
		free(a);
		free(tmp);
		free(want);
	}
}

/*
 * HyperLogLog with 4096 registers: standard error 1.6%.  Allow 8%: the raw
 * estimate is known to run a few percent high just above the switch from
 * linear counting (about 10k here), and the seed is fixed.
 */
void
test_hll(void)
{
	static const int ns[] = {1, 10, 100, 1000, 10000, 12000, 100000, 1000000};
	uint8_t    *regs = xmalloc(BF_HLL_REGISTERS);
	uint8_t    *ra = xmalloc(BF_HLL_REGISTERS);
	uint8_t    *rb = xmalloc(BF_HLL_REGISTERS);

	memset(regs, 0, BF_HLL_REGISTERS);
	check(bf_hll_estimate(regs) == 0.0, "hll: empty", "%g", bf_hll_estimate(regs));

	for (int ni = 0; ni < 8; ni++)
	{
		int			n = ns[ni];
		double		est;

		memset(regs, 0, BF_HLL_REGISTERS);
		for (int64_t i = 0; i < n; i++)
			bf_hll_add(regs, bf_hash_int64(5, i));
		/* duplicates change nothing */
		for (int64_t i = 0; i < n && i < 1000; i++)
			bf_hll_add(regs, bf_hash_int64(5, i));
		est = bf_hll_estimate(regs);
		info("hll n=%d: est %.1f (%+.2f%%)", n, est, 100.0 * (est - n) / n);
		check(fabs(est - n) <= 0.08 * n + 0.5, "hll: estimate", "n=%d: %.1f", n, est);
	}

	/* Merging sketches is the sketch of the union, exactly. */
	memset(regs, 0, BF_HLL_REGISTERS);
	memset(ra, 0, BF_HLL_REGISTERS);
	memset(rb, 0, BF_HLL_REGISTERS);
	for (int64_t i = 0; i < 60000; i++)
	{
		uint64_t	h = bf_hash_int64(6, i);

		bf_hll_add(regs, h);
		bf_hll_add(i < 40000 ? ra : rb, h);
		if (i >= 20000 && i < 40000)
			bf_hll_add(rb, h);
	}
	bf_hll_merge(ra, rb);
	check(memcmp(ra, regs, BF_HLL_REGISTERS) == 0, "hll: merge is the union",
		  "registers differ");
	free(regs);
	free(ra);
	free(rb);
}


/*
 * bf_insert_many reorders large inserts for the cache; the filter must be
 * the one the keys give inserted one by one, whatever the path taken.
 */
void
test_insert_many(void)
{
	const size_t n = 200000;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *tmp = malloc(n * sizeof(uint64_t));
	/* 64 KiB (fits cache) and 4 MiB (reordered) filters */
	const uint64_t sizes[] = {UINT64_C(1) << 19, UINT64_C(1) << 25};

	for (size_t i = 0; i < n; i++)
		h[i] = bf_hash_int64(3, (int64_t) i);
	for (int layout = BF_LAYOUT_CLASSIC; layout <= BF_LAYOUT_BLOCKED; layout++)
		for (int s = 0; s < 2; s++)
		{
			tfilter		a = tf_new(layout, 7, 3, sizes[s]);
			tfilter		b = tf_new(layout, 7, 3, sizes[s]);
			tfilter		c = tf_new(layout, 7, 3, sizes[s]);

			for (size_t i = 0; i < n; i++)
				bf_insert_hash(&a.v, h[i]);
			bf_insert_many(&b.v, h, n, tmp);
			bf_insert_many(&c.v, h, n, NULL);
			check(memcmp(a.v.bits, b.v.bits, sizes[s] / 8) == 0 &&
				  memcmp(a.v.bits, c.v.bits, sizes[s] / 8) == 0 &&
				  b.v.added == n && c.v.added == n,
				  "insert_many: same filter as one by one",
				  "%s, %" PRIu64 " bits", bf_layout_name(layout), sizes[s]);
			tf_free(&a);
			tf_free(&b);
			tf_free(&c);
		}
	free(h);
	free(tmp);
}

/*
 * The one-pass dedup keeps the first of each hash, in order (0 included),
 * and, with a table too small for the distinct hashes, drops repeats only
 * until its set is half full, keeping everything after that.
 */
void
test_dedup(void)
{
	const size_t n = 20000;
	uint64_t   *h = xmalloc(n * sizeof(uint64_t));
	uint64_t   *a = xmalloc(n * sizeof(uint64_t));
	uint64_t   *want = xmalloc(n * sizeof(uint64_t));
	uint64_t   *table = xmalloc(8192 * sizeof(uint64_t));
	rng			r = {91};
	size_t		nw = 0,
				m;

	/* 1000 distinct values (0 among them), in random order with repeats */
	for (size_t i = 0; i < n; i++)
		h[i] = i < 1000 ? (i == 500 ? 0 : rng_next(&r)) : h[rng_below(&r, 1000)];
	for (size_t i = n - 1; i > 0; i--)
	{
		size_t		j = rng_below(&r, i + 1);
		uint64_t	t = h[i];

		h[i] = h[j];
		h[j] = t;
	}
	for (size_t i = 0; i < n; i++)
	{
		bool		seen = false;

		for (size_t j = 0; j < nw && !seen; j++)
			seen = want[j] == h[i];
		if (!seen)
			want[nw++] = h[i];
	}
	memcpy(a, h, n * sizeof(uint64_t));
	m = bf_dedup_hashes(a, n, table, 4096);
	check(m == nw && m == 1000 && memcmp(a, want, m * sizeof(uint64_t)) == 0,
		  "dedup: first of each, in order", "%zu left, want %zu", m, nw);

	/*
	 * A set of 1024 slots takes 512 hashes (0 is kept apart and does not
	 * count): from then on the input is kept as it is.
	 */
	nw = 0;
	{
		size_t		used = 0;
		bool		zero = false;

		for (size_t i = 0; i < n; i++)
		{
			bool		seen = false;

			if (used >= 512)
			{
				memcpy(want + nw, h + i, (n - i) * sizeof(uint64_t));
				nw += n - i;
				break;
			}
			if (h[i] == 0)
			{
				if (!zero)
					want[nw++] = 0;
				zero = true;
				continue;
			}
			for (size_t j = 0; j < nw && !seen; j++)
				seen = want[j] == h[i];
			if (!seen)
			{
				want[nw++] = h[i];
				used++;
			}
		}
	}
	memcpy(a, h, n * sizeof(uint64_t));
	m = bf_dedup_hashes(a, n, table, 1024);
	check(m == nw && m > 1000 && m < n && memcmp(a, want, m * sizeof(uint64_t)) == 0,
		  "dedup: a full set keeps the rest", "%zu left, want %zu", m, nw);
	free(h);
	free(a);
	free(want);
	free(table);
}

/*
 * The bucketed path of the self-sizing aggregate: counting and sketching
 * in one pass give what bf_hll_add gives; the scatter leaves every hash,
 * bucket by bucket; inserting runs a bucket at a time, or a whole array
 * with the loop chosen once for (layout, k), gives the filter the keys
 * give one by one, for every k the dispatch singles out and others.
 */
void
test_bucketed(void)
{
	const size_t n = 30000;
	const int	parts = 3;
	static const int ks[] = {1, 3, 6, 7, 9, 12, 16};
	uint64_t   *h = xmalloc(n * sizeof(uint64_t));
	uint64_t   *out = xmalloc(n * sizeof(uint64_t));
	uint32_t	count[3][BF_HASH_BUCKETS];
	uint8_t    *ra = xmalloc(BF_HLL_REGISTERS);
	uint8_t    *rb = xmalloc(BF_HLL_REGISTERS);
	bf_hash_run runs[3];
	rng			r = {77};
	bool		ordered = true;

	for (size_t i = 0; i < n; i++)
		h[i] = (i % 5 == 4) ? h[rng_below(&r, i)] : rng_next(&r);

	memset(ra, 0, BF_HLL_REGISTERS);
	memset(rb, 0, BF_HLL_REGISTERS);
	for (size_t i = 0; i < n; i++)
		bf_hll_add(ra, h[i]);
	bf_hll_add_many(rb, h, n / 2);

	/* three runs over thirds of h, each in bucket order */
	for (int p = 0; p < parts; p++)
	{
		size_t		lo = n * p / parts,
					hi = n * (p + 1) / parts;
		size_t		pos[BF_HASH_BUCKETS];
		size_t		total;

		memset(count[p], 0, sizeof(count[p]));
		bf_count_buckets(h + lo, hi - lo, count[p], p == 0 ? NULL : rb);
		total = bf_bucket_starts(count[p], pos);
		check(total == hi - lo && pos[0] == 0 &&
			  pos[BF_HASH_BUCKETS - 1] + count[p][BF_HASH_BUCKETS - 1] == total,
			  "bucketed: counts add up", "part %d: %zu", p, total);
		bf_scatter_buckets(h + lo, hi - lo, pos, out + lo);
		for (size_t i = lo + 1; i < hi; i++)
			if (BF_HASH_BUCKET(out[i - 1]) > BF_HASH_BUCKET(out[i]))
				ordered = false;
		runs[p].h = out + lo;
		runs[p].count = count[p];
	}
	check(ordered, "bucketed: scatter orders by top byte", "out of order");
	/* part 0 was counted without a sketch; add it the plain way */
	bf_hll_add_many(rb, h, n / parts);
	check(memcmp(ra, rb, BF_HLL_REGISTERS) == 0, "bucketed: sketch while counting",
		  "registers differ from bf_hll_add");
	{
		uint64_t   *a = xmalloc(n * sizeof(uint64_t));
		uint64_t   *b = xmalloc(n * sizeof(uint64_t));

		memcpy(a, h, n * sizeof(uint64_t));
		memcpy(b, out, n * sizeof(uint64_t));
		qsort(a, n, sizeof(uint64_t), cmp_u64);
		qsort(b, n, sizeof(uint64_t), cmp_u64);
		check(memcmp(a, b, n * sizeof(uint64_t)) == 0, "bucketed: scatter keeps every hash",
			  "not a permutation");
		free(a);
		free(b);
	}

	for (int layout = BF_LAYOUT_CLASSIC; layout <= BF_LAYOUT_BLOCKED; layout++)
		for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		{
			uint64_t	nbits = UINT64_C(1) << 18;
			tfilter		a = tf_new(layout, ks[ki], 0, nbits);
			tfilter		b = tf_new(layout, ks[ki], 0, nbits);
			tfilter		c = tf_new(layout, ks[ki], 0, nbits);

			for (size_t i = 0; i < n; i++)
				bf_insert_hash(&a.v, h[i]);
			bf_insert_batch(&b.v, h, n);
			bf_insert_bucketed(&c.v, runs, parts);
			check(memcmp(a.v.bits, b.v.bits, nbits / 8) == 0 && b.v.added == n,
				  "bucketed: insert_hashes as one by one", "%s k=%d",
				  bf_layout_name(layout), ks[ki]);
			check(memcmp(a.v.bits, c.v.bits, nbits / 8) == 0 && c.v.added == n,
				  "bucketed: runs as one by one", "%s k=%d",
				  bf_layout_name(layout), ks[ki]);
			tf_free(&a);
			tf_free(&b);
			tf_free(&c);
		}

	/* the count saturates */
	{
		tfilter		f = tf_new(BF_LAYOUT_BLOCKED, 7, 0, 512);

		f.v.added = UINT64_MAX - 1;
		bf_insert_batch(&f.v, h, 10);
		check(f.v.added == UINT64_MAX, "bucketed: added saturates", "%" PRIu64, f.v.added);
		tf_free(&f);
	}
	free(h);
	free(out);
	free(ra);
	free(rb);
}
