/*
 * test_combine.c
 *		Core unit tests: combining filters (bf_combine.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- 7. combining ---- */

void
test_combining(void)
{
	for (int li = 0; li < 2; li++)
	{
		int			layout = layouts[li];
		const char *ln = bf_layout_name(layout);
		tfilter		a = tf_sized(layout, 60000, 0.01, 5);
		tfilter		b = tf_new(layout, a.v.hashes, 5, a.v.nbits);
		tfilter		ab = tf_new(layout, a.v.hashes, 5, a.v.nbits);
		tfilter		c = tf_new(layout, a.v.hashes, 5, a.v.nbits);
		tfilter		u,
					x;
		int			missing = 0;
		uint64_t	nout = 0;

		/* A = [0, 30000), B = [20000, 50000): 10000 keys in common. */
		for (int64_t i = 0; i < 30000; i++)
			tf_add_int(&a, i);
		for (int64_t i = 20000; i < 50000; i++)
			tf_add_int(&b, i);
		for (int64_t i = 0; i < 50000; i++)
			tf_add_int(&ab, i);
		for (int64_t i = 0; i < 30000; i++)
			tf_add_int(&c, (INT64_C(1) << 50) + i);

		/* Union is exactly the filter of the union: OR is lossless. */
		u = tf_copy(&a);
		check(bf_compatible(&a.v, &b.v, &nout) == BF_COMPAT_OK && nout == a.v.nbits,
			  "combine: same geometry compatible", "%s", ln);
		bf_or(&u.v, &b.v);
		check(tf_same_bits(&u, &ab), "combine: union is the filter of A|B", "%s", ln);

		/* Intersection keeps every common key (it may keep more). */
		x = tf_copy(&a);
		bf_and(&x.v, &b.v);
		for (int64_t i = 20000; i < 30000; i++)
			if (!tf_has_int(&x, i))
				missing++;
		check(missing == 0, "combine: intersection keeps A&B",
			  "%s: %d common keys missing", ln, missing);

		check(bf_is_superset(&u.v, &a.v) && bf_is_superset(&u.v, &b.v),
			  "combine: union is a superset", "%s", ln);
		check(bf_is_superset(&a.v, &x.v) && bf_is_superset(&b.v, &x.v),
			  "combine: intersection is a subset", "%s", ln);
		check(!bf_is_superset(&a.v, &u.v), "combine: part is not a superset", "%s", ln);
		check(!bf_is_superset(&c.v, &a.v) && !bf_is_superset(&a.v, &c.v),
			  "combine: unrelated not a superset", "%s", ln);
		check(bf_is_superset(&a.v, &a.v), "combine: superset of itself", "%s", ln);

		/*
		 * The superset test must look at every bit: a filter with any one
		 * bit set is not a subset of the empty filter.  (A word-wise loop
		 * that skips the last word, or a mask that drops a bit, fails.)
		 */
		{
			tfilter		e = tf_new(layout, 3, 5, 1024);
			tfilter		g = tf_new(layout, 3, 5, 1024);
			int			bad = 0;
			int			first_bad = -1;

			for (int bit = 0; bit < 1024; bit++)
			{
				memset(e.v.bits, 0, 128);
				e.v.bits[bit / 8] = (uint8_t) (1u << (bit % 8));
				if ((bf_is_superset(&g.v, &e.v) || !bf_is_superset(&e.v, &g.v)) &&
					bad++ == 0)
					first_bad = bit;
			}
			check(bad == 0, "combine: superset sees every bit",
				  "%s: %d bits missed, first bit %d", ln, bad, first_bad);
			tf_free(&e);
			tf_free(&g);
		}
		tf_free(&a);
		tf_free(&b);
		tf_free(&ab);
		tf_free(&c);
		tf_free(&u);
		tf_free(&x);
	}

	/*
	 * bf_compatible: every reason, in both argument orders, and the sizes
	 * that fold.  Each case pairs the base filter (classic or blocked, k 6,
	 * seed 77, 4096 bits) with one other; both sides' key families are
	 * given, since "no keys yet" (none) must combine with anything.
	 */
	for (int li = 0; li < 2; li++)
	{
		int			layout = layouts[li];
		int			other = layout == BF_LAYOUT_CLASSIC ? BF_LAYOUT_BLOCKED : BF_LAYOUT_CLASSIC;
		const char *ln = bf_layout_name(layout);
		const uint64_t m = 4096;
		const int	I = BF_FAMILY_INTEGER;
		const int	O = BF_FAMILY_OTHER;
		const int	N = BF_FAMILY_NONE;
		const struct
		{
			const char *what;
			int			layout,
						hashes;
			uint64_t	seed,
						nbits;
			int			base_family;
			uint32_t	base_tag;
			int			family;
			uint32_t	tag;
			bf_compat	want;
			uint64_t	want_nbits;
		}			cases[] = {
			{"other layout", other, 6, 77, m, I, 0, I, 0, BF_COMPAT_LAYOUT, 0},
			{"other hashes", layout, 7, 77, m, I, 0, I, 0, BF_COMPAT_HASHES, 0},
			{"other seed", layout, 6, 78, m, I, 0, I, 0, BF_COMPAT_SEED, 0},
			{"other family", layout, 6, 77, m, I, 0, BF_FAMILY_TEXT, 0, BF_COMPAT_FAMILY, 0},
			{"other type tag", layout, 6, 77, m, O, 1000, O, 1001, BF_COMPAT_FAMILY, 0},
			{"same type tag", layout, 6, 77, m, O, 1000, O, 1000, BF_COMPAT_OK, m},
			{"size 3x", layout, 6, 77, m * 3, I, 0, I, 0, BF_COMPAT_SIZE, 0},
			{"size 6x", layout, 6, 77, m * 6, I, 0, I, 0, BF_COMPAT_SIZE, 0},
			{"size 1.125x", layout, 6, 77, m + 512, I, 0, I, 0, BF_COMPAT_SIZE, 0},
			{"size 1x", layout, 6, 77, m, I, 0, I, 0, BF_COMPAT_OK, m},
			{"size 2x", layout, 6, 77, m * 2, I, 0, I, 0, BF_COMPAT_OK, m},
			{"size 4x", layout, 6, 77, m * 4, I, 0, I, 0, BF_COMPAT_OK, m},
			{"size 1/8x", layout, 6, 77, m / 8, I, 0, I, 0, BF_COMPAT_OK, m / 8},
			{"none with integer", layout, 6, 77, m, I, 0, N, 0, BF_COMPAT_OK, m},
			{"none with other", layout, 6, 77, m, O, 4242, N, 0, BF_COMPAT_OK, m},
			{"none with none", layout, 6, 77, m, N, 0, N, 0, BF_COMPAT_OK, m},
			{"none, size 4x", layout, 6, 77, m * 4, I, 0, N, 0, BF_COMPAT_OK, m},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			tfilter		a = tf_new(layout, 6, 77, m);
			tfilter		b = tf_new(cases[i].layout, cases[i].hashes,
								   cases[i].seed, cases[i].nbits);
			tfilter		d = tf_new(layout, 6, 77, m);
			uint64_t	nab = 0,
						nba = 0;
			bf_compat	ab,
						ba;

			a.v.family = (uint16_t) cases[i].base_family;
			a.v.type_tag = cases[i].base_tag;
			b.v.family = (uint16_t) cases[i].family;
			b.v.type_tag = cases[i].tag;
			ab = bf_compatible(&a.v, &b.v, &nab);
			ba = bf_compatible(&b.v, &a.v, &nba);
			check(ab == cases[i].want && ba == cases[i].want,
				  "combine: bf_compatible reason",
				  "%s %s: got %d/%d, want %d", ln, cases[i].what,
				  (int) ab, (int) ba, (int) cases[i].want);
			if (cases[i].want == BF_COMPAT_OK)
			{
				check(nab == cases[i].want_nbits && nba == cases[i].want_nbits,
					  "combine: common size is the smaller",
					  "%s %s: %" PRIu64 "/%" PRIu64 ", want %" PRIu64,
					  ln, cases[i].what, nab, nba, cases[i].want_nbits);

				/*
				 * The combined filter takes the family that is not none, in
				 * either order.
				 */
				bf_merge_family(&d.v, &a.v, &b.v);
				check(d.v.family == a.v.family && d.v.type_tag == a.v.type_tag,
					  "combine: merged family", "%s %s: %d/%u", ln, cases[i].what,
					  d.v.family, d.v.type_tag);
				d.v.family = BF_FAMILY_NONE;
				d.v.type_tag = 0;
				bf_merge_family(&d.v, &b.v, &a.v);
				check(d.v.family == a.v.family && d.v.type_tag == a.v.type_tag,
					  "combine: merged family (swapped)", "%s %s: %d/%u", ln,
					  cases[i].what, d.v.family, d.v.type_tag);
			}
			tf_free(&a);
			tf_free(&b);
			tf_free(&d);
		}
	}
}

/*
 * Folding: both layouts map a hash to a position with the high bits, so a
 * filter of m * 2^j bits folded down to m bits must be byte for byte the
 * filter of m bits built from the same keys.  This is what makes filters of
 * different sizes combine exactly; a fold that merely "looks right" (no
 * false negatives) would still make union differ from rebuilding.
 */
void
test_folding(void)
{
	static const int factors[] = {1, 2, 4, 8};

	for (int li = 0; li < 2; li++)
	{
		int			layout = layouts[li];
		const char *ln = bf_layout_name(layout);

		/* Odd multiples of the granule: the fold must not assume 2^j sizes. */
		uint64_t	m = layout == BF_LAYOUT_CLASSIC ? 64 * 1001 : 512 * 37;

		for (size_t fi = 0; fi < sizeof(factors) / sizeof(factors[0]); fi++)
		{
			uint64_t	big_m = m * (uint64_t) factors[fi];
			tfilter		big = tf_new(layout, 7, 11, big_m);
			tfilter		small = tf_new(layout, 7, 11, m);
			tfilter		dst = tf_new(layout, 7, 11, m);
			tfilter		both = tf_new(layout, 7, 11, m);
			tfilter		dst2 = tf_new(layout, 7, 11, m);
			uint64_t	nout = 0;
			bf_compat	c;

			for (int64_t i = 0; i < 6000; i++)
			{
				tf_add_int(&big, i * 31337);
				tf_add_int(&small, i * 31337);
				tf_add_int(&both, i * 31337);
			}
			c = bf_compatible(&big.v, &dst.v, &nout);
			check(c == BF_COMPAT_OK && nout == m, "fold: compatible",
				  "%s %dx: compat %d, nbits %" PRIu64, ln, factors[fi], (int) c, nout);
			bf_fold_or(&dst.v, &big.v);
			check(tf_same_bits(&dst, &small), "fold: equals the direct filter",
				  "%s m=%" PRIu64 " folded from %dx", ln, m, factors[fi]);

			/* ORed into, not overwritten: a non-empty dst keeps its keys. */
			for (int64_t i = 0; i < 3000; i++)
			{
				tf_add_int(&dst2, -i - 1);
				tf_add_int(&both, -i - 1);
			}
			bf_fold_or(&dst2.v, &big.v);
			check(tf_same_bits(&dst2, &both), "fold: ORs into dst",
				  "%s %dx", ln, factors[fi]);

			tf_free(&big);
			tf_free(&small);
			tf_free(&dst);
			tf_free(&both);
			tf_free(&dst2);
		}
	}
}
