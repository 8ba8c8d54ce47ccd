/*
 * test_estimate.c
 *		Core unit tests: estimates (bf_estimate.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- 8. estimates ---- */

void
test_estimates(void)
{
	static const int ns[] = {1000, 10000, 100000, 1000000};

	for (int li = 0; li < 2; li++)
	{
		int			layout = layouts[li];
		const char *ln = bf_layout_name(layout);

		for (int ni = 0; ni < 4; ni++)
		{
			int			n = ns[ni];
			tfilter		f = tf_sized(layout, n, 0.01, (uint64_t) n);
			double		est;

			for (int64_t i = 0; i < n; i++)
				tf_add_int(&f, i * INT64_C(2654435761) + n);
			est = bf_est_cardinality(&f.v);
			info("cardinality %s n=%d: est %.1f (%+.2f%%)", ln, n, est,
				 100.0 * (est - n) / n);
			check(rel_err(est, n) <= 0.05, "estimate: cardinality within 5%",
				  "%s n=%d: estimate %.1f", ln, n, est);
			tf_free(&f);
		}

		/*
		 * Union and intersection from the bits: A = [0, 100k), B = [50k,
		 * 150k), sized for the union.  The intersection is estimated by
		 * inclusion-exclusion, so its error is the sum of three.
		 */
		{
			tfilter		a = tf_sized(layout, 150000, 0.01, 3);
			tfilter		b = tf_new(layout, a.v.hashes, 3, a.v.nbits);
			tfilter		u;
			double		ea,
						eb,
						eu,
						ei;

			for (int64_t i = 0; i < 100000; i++)
				tf_add_int(&a, i);
			for (int64_t i = 50000; i < 150000; i++)
				tf_add_int(&b, i);
			u = tf_copy(&a);
			bf_or(&u.v, &b.v);
			ea = bf_est_cardinality(&a.v);
			eb = bf_est_cardinality(&b.v);
			eu = bf_est_cardinality(&u.v);
			ei = ea + eb - eu;
			info("union %s: est %.1f of 150000 (%+.2f%%); intersection est %.1f of 50000 (%+.2f%%)",
				 ln, eu, 100.0 * (eu - 150000) / 150000, ei, 100.0 * (ei - 50000) / 50000);
			check(rel_err(eu, 150000) <= 0.10, "estimate: union within 10%",
				  "%s: %.1f", ln, eu);
			check(rel_err(ei, 50000) <= 0.10, "estimate: intersection within 10%",
				  "%s: %.1f", ln, ei);
			tf_free(&a);
			tf_free(&b);
			tf_free(&u);
		}

		/* Empty: nothing, and nothing probes true. */
		{
			tfilter		e = tf_sized(layout, 1000, 0.01, 0);
			double		c = bf_est_cardinality(&e.v);
			double		r = bf_est_fpr(&e.v);

			check(c == 0.0 && r == 0.0 && bf_popcount(&e.v) == 0,
				  "estimate: empty filter", "%s: cardinality %g, fpr %g", ln, c, r);
			tf_free(&e);
		}

		/* Full: every probe is true, and the estimate stays finite. */
		{
			tfilter		e = tf_sized(layout, 1000, 0.01, 0);
			double		c,
						r;

			memset(e.v.bits, 0xff, e.v.nbits / 8);
			c = bf_est_cardinality(&e.v);
			r = bf_est_fpr(&e.v);
			check(isfinite(c) && c > 0 && r == 1.0 && bf_popcount(&e.v) == e.v.nbits,
				  "estimate: full filter", "%s: cardinality %g, fpr %g", ln, c, r);
			tf_free(&e);
		}

		/* One key: k bits at most, and an estimate of about one. */
		{
			tfilter		e = tf_sized(layout, 1000, 0.01, 0);
			uint64_t	pop;
			double		c;

			tf_add_int(&e, 12345);
			pop = bf_popcount(&e.v);
			c = bf_est_cardinality(&e.v);
			check(pop >= 1 && pop <= (uint64_t) e.v.hashes && c > 0.7 && c < 1.3,
				  "estimate: one key", "%s: %" PRIu64 " bits, estimate %g", ln, pop, c);
			tf_free(&e);
		}
	}
}
