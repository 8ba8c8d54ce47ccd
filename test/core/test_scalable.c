/*
 * test_scalable.c
 *		Core unit tests: scalable filters (core bf_scalable.c), and the size
 *		bound across every type (BF_MAX_TOTAL_BYTES).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- scalable filters (bf_scalable.c) ---- */

#define TS_MAX_ENTRIES 64

/* A scalable container in its own exact-size buffer, decoded. */
typedef struct tscal
{
	uint8_t    *buf;
	size_t		len;
	bfs_header	h;
	uint32_t	n;
	bfs_entry	e[TS_MAX_ENTRIES];
} tscal;

static void
ts_decode(tscal *s)
{
	bfs_read_header(s->buf, &s->h);
	s->n = bfs_entries(s->buf, s->len, s->e);
}

static tscal *
ts_new(int layout, uint64_t n0, double p, int growth, double r, uint64_t seed)
{
	tscal	   *s = xmalloc(sizeof(tscal));
	uint64_t	nbits;
	int			k;
	double		p0 = bfs_level_fpr(p, r, 0);

	memset(s, 0, sizeof(*s));
	if (!bf_size_for(layout, (double) n0, p0, &nbits, &k))
	{
		fprintf(stderr, "test bug: cannot size %" PRIu64 " at %g\n", n0, p0);
		exit(2);
	}
	s->len = BFS_HEADER_SIZE + bfs_entry_size(nbits);
	s->buf = xmalloc(s->len);
	s->h.kind = BFS_KIND_SCALABLE;
	s->h.layout = (uint8_t) layout;
	s->h.growth = (uint8_t) growth;
	s->h.seed = seed;
	s->h.fpr = p;
	s->h.tightening = r;
	s->h.initial_capacity = n0;
	s->h.nfilters = 1;
	bfs_write_header(s->buf, &s->h);
	bfs_init_entry(s->buf + BFS_HEADER_SIZE, n0, p0, 0, 0, layout, k, seed, nbits);
	ts_decode(s);
	return s;
}

static void
ts_free(tscal *s)
{
	free(s->buf);
	free(s);
}

/*
 * Adds an integer key the way the server does: counted only if some
 * sub-filter reports it, else inserted into the last, which grows first
 * when full.  Returns false if the container cannot grow.
 */
static bool
ts_add_int(tscal *s, int64_t key)
{
	uint64_t	h = bf_hash_int64(s->h.seed, key);
	bfs_entry  *last;

	s->h.added++;
	s->h.family = BF_FAMILY_INTEGER;
	bfs_write_header(s->buf, &s->h);
	if (bfs_probe_hash(s->e, s->n, h))
		return true;
	last = &s->e[s->n - 1];
	if (last->v.added >= last->capacity)
	{
		uint64_t	cap,
					nbits;
		double		fpr;
		uint32_t	level;
		int			k;
		uint8_t    *nb;

		if (s->n == TS_MAX_ENTRIES ||
			bfs_plan_growth(&s->h, last, s->len, &cap, &fpr, &level, &nbits, &k) != BFS_GROW_OK)
			return false;
		nb = copy_exact(s->buf, s->len, s->len + bfs_entry_size(nbits));
		bfs_init_entry(nb + s->len, cap, fpr, 0, level, s->h.layout, k, s->h.seed, nbits);
		free(s->buf);
		s->buf = nb;
		s->len += bfs_entry_size(nbits);
		s->h.nfilters++;
		bfs_write_header(s->buf, &s->h);
		ts_decode(s);
		last = &s->e[s->n - 1];
	}
	bf_insert_hash(&last->v, h);
	last->v.family = BF_FAMILY_INTEGER;
	bfs_store_entry(last);
	return true;
}

static bool
ts_has_int(const tscal *s, int64_t key)
{
	return bfs_probe_hash(s->e, s->n, bf_hash_int64(s->h.seed, key));
}

/* The schedule and the bound on the overall rate. */
void
test_scalable_schedule(void)
{
	static const double rs[] = {0.1, 0.5, 0.8, 0.85, 0.9, 0.99};
	static const double ps[] = {0.1, 0.01, 1e-4, 1e-7};

	for (size_t ri = 0; ri < sizeof(rs) / sizeof(rs[0]); ri++)
		for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++)
		{
			double		p = ps[pi],
						r = rs[ri],
						sum = 0.0,
						none = 0.0;
			int			bad = 0;

			for (uint32_t L = 0; L <= BFS_MAX_LEVEL; L++)
			{
				double		pl = bfs_level_fpr(p, r, L);

				if (rel_err(pl, p * (1 - r) * pow(r, L)) > 1e-12)
					bad++;
				sum += pl;
				none += log1p(-pl);	/* log of prod(1 - p_i), without cancellation */
				/*
				 * The rates sum to p (1 - r^L) < p (equal to p within
				 * rounding once r^L is negligible); the overall rate is at
				 * most that sum.
				 */
				if (fabs(sum - bfs_rate_bound(p, r, L + 1)) > 1e-12 * p ||
					!(sum <= p * (1 + 1e-12)) || !(-expm1(none) <= sum * (1 + 1e-12)))
					bad++;
			}
			check(bad == 0, "scalable: rate schedule and bound",
				  "p=%g r=%g: %d bad levels", p, r, bad);
		}

	/* capacities multiply by s, rates by r, sizes grow */
	for (int growth = 2; growth <= 4; growth += 2)
	{
		tscal	   *s = ts_new(BF_LAYOUT_BLOCKED, 1000, 0.01, growth, 0.85, 7);
		bfs_entry	last = s->e[0];
		int			bad = 0;
		uint32_t	levels = 0;

		for (;;)
		{
			uint64_t	cap,
						nbits;
			double		fpr;
			uint32_t	level;
			int			k;
			bfs_grow	g = bfs_plan_growth(&s->h, &last, 0, &cap, &fpr, &level, &nbits, &k);

			if (g != BFS_GROW_OK)
			{
				check(g == BFS_GROW_CAPACITY || g == BFS_GROW_SIZE,
					  "scalable: growth stops at a limit", "stopped with %d", (int) g);
				break;
			}
			if (cap != last.capacity * (uint64_t) growth || level != last.level + 1 ||
				fpr != bfs_level_fpr(0.01, 0.85, level) || nbits < last.v.nbits)
				bad++;
			last.capacity = cap;
			last.level = level;
			last.v.nbits = nbits;
			levels++;
		}
		/* from 1000 keys up to the largest filter: 2^20 or 4^9 times more */
		check(bad == 0 && levels >= (growth == 2 ? 18u : 8u), "scalable: growth schedule",
			  "s=%d: %d bad of %u levels", growth, bad, levels);
		ts_free(s);
	}
	check(bfs_check_params(BF_LAYOUT_BLOCKED, 2, 0.01, 0.85, 1) == BFS_OK &&
		  bfs_check_params(BF_LAYOUT_BLOCKED, 3, 0.01, 0.85, 1) == BFS_ERR_PARAMS &&
		  bfs_check_params(BF_LAYOUT_BLOCKED, 2, 0.0, 0.85, 1) == BFS_ERR_PARAMS &&
		  bfs_check_params(BF_LAYOUT_BLOCKED, 2, 0.01, 1.0, 1) == BFS_ERR_PARAMS &&
		  bfs_check_params(BF_LAYOUT_BLOCKED, 2, 0.01, NAN, 1) == BFS_ERR_PARAMS &&
		  bfs_check_params(BF_LAYOUT_BLOCKED, 2, 0.01, 0.85, 0) == BFS_ERR_PARAMS &&
		  bfs_check_params(0, 2, 0.01, 0.85, 1) == BFS_ERR_PARAMS,
		  "scalable: parameter checks", "a bad parameter was accepted");
}

/*
 * Growth from a small start: no key is ever lost, the container stays
 * valid, and the measured rate of absent keys stays under the target.
 */
void
test_scalable_growth(void)
{
	for (int li = 0; li < 2; li++)
		for (int growth = 2; growth <= 4; growth += 2)
		{
			const int64_t nkeys = 200000;
			const int64_t nprobes = 1000000;
			tscal	   *s = ts_new(layouts[li], 1000, 0.01, growth, 0.85, 99);
			int64_t		lost = 0,
						fp = 0;
			bfs_problem pr;
			bfs_status	st;
			double		measured,
						est;

			for (int64_t i = 0; i < nkeys; i++)
			{
				if (!ts_add_int(s, i))
				{
					check(false, "scalable: growth", "could not grow at key %" PRId64, i);
					break;
				}
				/* spot-check earlier keys while it grows */
				if (i % 997 == 0)
					for (int64_t j = 0; j <= i; j += 1 + i / 50)
						lost += !ts_has_int(s, j);
			}
			for (int64_t i = 0; i < nkeys; i++)
				lost += !ts_has_int(s, i);
			for (int64_t i = 0; i < nprobes; i++)
				fp += ts_has_int(s, nkeys + 1000000 + i);
			measured = (double) fp / (double) nprobes;
			est = bfs_est_fpr(s->e, s->n);
			check(lost == 0, "scalable: no false negatives across growth",
				  "%s s=%d: %" PRId64 " lost", bf_layout_name(layouts[li]), growth, lost);
			check(measured <= 0.01, "scalable: measured rate under the target",
				  "%s s=%d: %g over %u sub-filters", bf_layout_name(layouts[li]), growth,
				  measured, s->n);
			check(rel_err(est, measured) < 0.25, "scalable: estimated rate",
				  "%s s=%d: estimated %g, measured %g", bf_layout_name(layouts[li]),
				  growth, est, measured);
			check(s->n >= (growth == 2 ? 7u : 4u) && s->e[0].capacity == 1000 &&
				  s->e[1].capacity == 1000u * (uint64_t) growth,
				  "scalable: grew by the schedule", "%u sub-filters", s->n);
			info("scalable %s s=%d: %" PRId64 " keys, %u sub-filters, %.2f bytes/key, "
				 "measured fpr %.5f, estimated %.5f, bound %.5f",
				 bf_layout_name(layouts[li]), growth, nkeys, s->n,
				 (double) s->len / (double) nkeys, measured, est,
				 bfs_rate_bound(0.01, 0.85, s->n));
			bfs_seal(s->buf, s->len);
			st = bfs_validate(s->buf, s->len, &pr);
			check(st == BFS_OK, "scalable: grown container validates",
				  "status %d (%s), entry %u, inner %d", (int) st, bfs_status_message(st),
				  pr.entry, (int) pr.inner);
			ts_free(s);
		}
}

/* A sealed container with three sub-filters holding integer keys. */
static tscal *
ts_sample(void)
{
	tscal	   *s = ts_new(BF_LAYOUT_BLOCKED, 20, 0.01, 2, 0.85, 12345);

	for (int64_t i = 0; i < 100; i++)
		ts_add_int(s, i);
	bfs_seal(s->buf, s->len);
	return s;
}

/* Copies s's bytes, applies f at offset off, reseals if asked, validates. */
static bfs_status
ts_corrupt(const tscal *s, size_t off, int width, uint64_t value, bool reseal,
		   bfs_problem *pr)
{
	uint8_t    *p = copy_exact(s->buf, s->len, s->len);
	bfs_status	st;

	if (width == 8)
		bf_store_le64(p + off, value);
	else if (width == 4)
		bf_store_le32(p + off, (uint32_t) value);
	else if (width == 2)
		bf_store_le16(p + off, (uint16_t) value);
	else
		p[off] = (uint8_t) value;
	if (reseal)
		bfs_seal(p, s->len);
	st = bfs_validate(p, s->len, pr);
	free(p);
	return st;
}

static uint64_t
f64_bits(double d)
{
	uint64_t	u;

	memcpy(&u, &d, 8);
	return u;
}

/* Every field of the container, corrupted, is refused with its reason. */
void
test_scalable_validation(void)
{
	tscal	   *s = ts_sample();
	size_t		e1 = s->e[1].offset;	/* second entry header */
	size_t		f1 = e1 + BFS_ENTRY_HEADER_SIZE;	/* its BLMF buffer */
	bfs_problem pr;
	bfs_status	st;
	const struct
	{
		const char *what;
		size_t		off;
		int			width;
		uint64_t	value;
		bfs_status	want;
	}			cases[] = {
		{"magic", 3, 1, 'F', BFS_ERR_MAGIC},
		{"version", BFS_OFF_VERSION, 2, 2, BFS_ERR_VERSION},
		{"kind 0", BFS_OFF_KIND, 1, 0, BFS_ERR_KIND},
		{"kind 2", BFS_OFF_KIND, 1, 2, BFS_ERR_KIND},
		{"layout", BFS_OFF_LAYOUT, 1, 3, BFS_ERR_PARAMS},
		{"growth 3", BFS_OFF_GROWTH, 1, 3, BFS_ERR_PARAMS},
		{"growth 0", BFS_OFF_GROWTH, 1, 0, BFS_ERR_PARAMS},
		{"fpr 0", BFS_OFF_FPR, 8, f64_bits(0.0), BFS_ERR_PARAMS},
		{"fpr 1", BFS_OFF_FPR, 8, f64_bits(1.0), BFS_ERR_PARAMS},
		{"fpr NaN", BFS_OFF_FPR, 8, f64_bits(NAN), BFS_ERR_PARAMS},
		{"tightening 1", BFS_OFF_TIGHTENING, 8, f64_bits(1.0), BFS_ERR_PARAMS},
		{"tightening -0.5", BFS_OFF_TIGHTENING, 8, f64_bits(-0.5), BFS_ERR_PARAMS},
		{"initial capacity 0", BFS_OFF_INITIAL, 8, 0, BFS_ERR_PARAMS},
		{"initial capacity huge", BFS_OFF_INITIAL, 8, UINT64_MAX, BFS_ERR_PARAMS},
		{"family 17", BFS_OFF_FAMILY, 2, 17, BFS_ERR_FAMILY},
		{"type tag without family 11", BFS_OFF_TYPETAG, 4, 23, BFS_ERR_FAMILY},
		{"flags", BFS_OFF_FLAGS, 1, 1, BFS_ERR_RESERVED},
		{"no sub-filters", BFS_OFF_NFILTERS, 4, 0, BFS_ERR_COUNT},
		{"too many sub-filters", BFS_OFF_NFILTERS, 4, BFS_MAX_FILTERS + 1, BFS_ERR_COUNT},
		{"fewer sub-filters than bytes", BFS_OFF_NFILTERS, 4, 2, BFS_ERR_SIZE},
		{"more sub-filters than bytes", BFS_OFF_NFILTERS, 4, 4, BFS_ERR_SIZE},
		{"container added below the entries'", BFS_OFF_ADDED, 8, 50, BFS_ERR_ADDED},
		{"container added 0", BFS_OFF_ADDED, 8, 0, BFS_ERR_ADDED},
		{"entry capacity 0", e1 + BFS_EOFF_CAPACITY, 8, 0, BFS_ERR_SCHEDULE},
		{"entry capacity huge", e1 + BFS_EOFF_CAPACITY, 8, BFS_MAX_CAPACITY + 1, BFS_ERR_SCHEDULE},
		{"entry rate off the schedule", e1 + BFS_EOFF_FPR, 8, f64_bits(0.01), BFS_ERR_SCHEDULE},
		{"entry rate NaN", e1 + BFS_EOFF_FPR, 8, f64_bits(NAN), BFS_ERR_SCHEDULE},
		{"entry level before the previous", e1 + BFS_EOFF_LEVEL, 4, 0, BFS_ERR_SCHEDULE},
		{"entry level past the last", e1 + BFS_EOFF_LEVEL, 4, BFS_MAX_LEVEL + 1, BFS_ERR_SCHEDULE},
		{"entry tag", e1 + BFS_EOFF_TAG, 8, 1, BFS_ERR_MISMATCH},
		{"entry magic", f1 + 3, 1, 'S', BFS_ERR_ENTRY},
		{"entry version", f1 + BF_OFF_VERSION, 2, 9, BFS_ERR_ENTRY},
		{"entry hashes 0", f1 + BF_OFF_HASHES, 1, 0, BFS_ERR_ENTRY},
		{"entry nbits not whole blocks", f1 + BF_OFF_NBITS, 8, 1000, BFS_ERR_ENTRY},
		{"entry nbits past the end", f1 + BF_OFF_NBITS, 8, UINT64_C(1) << 30, BFS_ERR_SIZE},
		{"entry nbits shorter", f1 + BF_OFF_NBITS, 8, 512, BFS_ERR_ENTRY},
		{"entry flags", f1 + BF_OFF_FLAGS, 2, 1, BFS_ERR_ENTRY},
		{"entry family 17", f1 + BF_OFF_FAMILY, 2, 17, BFS_ERR_ENTRY},
		{"entry checksum not zero", f1 + BF_OFF_CHECKSUM, 8, 1, BFS_ERR_ENTRY},
		{"entry added 0 with bits set", f1 + BF_OFF_ADDED, 8, 0, BFS_ERR_ENTRY},
		{"entry added past the container's", f1 + BF_OFF_ADDED, 8, 1000, BFS_ERR_ADDED},
		{"entry layout", f1 + BF_OFF_LAYOUT, 1, BF_LAYOUT_CLASSIC, BFS_ERR_MISMATCH},
		{"entry seed", f1 + BF_OFF_SEED, 8, 1, BFS_ERR_MISMATCH},
		{"entry family", f1 + BF_OFF_FAMILY, 2, BF_FAMILY_TEXT, BFS_ERR_MISMATCH},
	};

	st = bfs_validate(s->buf, s->len, &pr);
	if (!check(st == BFS_OK && s->n == 3, "scalable validation: sample is valid",
			   "status %d, %u sub-filters", (int) st, s->n))
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		st = ts_corrupt(s, cases[i].off, cases[i].width, cases[i].value, true, &pr);
		check(st == cases[i].want, "scalable validation: corrupted field",
			  "%s: status %d (%s), want %d", cases[i].what, (int) st,
			  bfs_status_message(st), (int) cases[i].want);
		if (st == BFS_ERR_ENTRY || st == BFS_ERR_MISMATCH || st == BFS_ERR_SCHEDULE)
			/* a shortened entry makes the next one's bytes the culprit */
			check(pr.entry == 1 || (pr.entry == 2 && strstr(cases[i].what, "shorter")),
				  "scalable validation: entry at fault",
				  "%s: entry %u", cases[i].what, pr.entry);
	}

	/* without resealing, any change is a checksum failure */
	st = ts_corrupt(s, f1 + BF_HEADER_SIZE + 3, 1, 0xff, false, &pr);
	check(st == BFS_ERR_CHECKSUM, "scalable validation: checksum", "status %d", (int) st);
	st = ts_corrupt(s, BFS_OFF_ADDED, 8, 1000, false, &pr);
	check(st == BFS_ERR_CHECKSUM, "scalable validation: header checksum", "status %d", (int) st);

	/* every truncation and a few extensions are refused, reading nothing past the end */
	{
		int			bad = 0;

		for (size_t len = 0; len < s->len; len++)
		{
			uint8_t    *p = copy_exact(s->buf, s->len, len);

			if (bfs_validate(p, len, &pr) == BFS_OK)
				bad++;
			if (len >= BFS_HEADER_SIZE)
			{
				bfs_seal(p, len);
				if (bfs_validate(p, len, &pr) == BFS_OK)
					bad++;
			}
			free(p);
		}
		for (size_t extra = 1; extra <= 600; extra += 7)
		{
			uint8_t    *p = copy_exact(s->buf, s->len, s->len + extra);

			bfs_seal(p, s->len + extra);
			if (bfs_validate(p, s->len + extra, &pr) != BFS_ERR_SIZE)
				bad++;
			free(p);
		}
		check(bad == 0, "scalable validation: truncations and extensions", "%d accepted", bad);
	}
	ts_free(s);
}

/*
 * Random mutations, resealed half of the time: validation is total and
 * deterministic, and what it accepts can be decoded, probed and estimated.
 */
void
test_scalable_mutations(void)
{
	tscal	   *s = ts_sample();
	rng			r = {77};
	int			broken = 0,
				accepted = 0;

	for (int it = 0; it < 20000; it++)
	{
		size_t		len = s->len;
		uint8_t    *p = copy_exact(s->buf, s->len, len);
		bfs_problem pr;
		bfs_status	st,
					st2;

		switch (rng_below(&r, 4))
		{
			case 0:
				p[rng_below(&r, len)] ^= (uint8_t) (1u << rng_below(&r, 8));
				break;
			case 1:
				p[rng_below(&r, len)] = (uint8_t) rng_next(&r);
				break;
			case 2:
				{
					size_t		newlen = (size_t) rng_below(&r, len + 1);
					uint8_t    *q = copy_exact(p, len, newlen);

					free(p);
					p = q;
					len = newlen;
					break;
				}
			default:
				{
					size_t		off = (size_t) rng_below(&r, len >= 8 ? len - 7 : 1);

					if (len >= 8)
						bf_store_le64(p + off, rng_below(&r, 2) ? rng_next(&r) : rng_below(&r, 70));
					break;
				}
		}
		if (len >= BFS_HEADER_SIZE && rng_below(&r, 2))
			bfs_seal(p, len);
		st = bfs_validate(p, len, &pr);
		st2 = bfs_validate(p, len, &pr);
		if (st != st2 || (int) st < BFS_OK || (int) st > BFS_ERR_TOO_LARGE)
			broken++;
		if (st == BFS_OK)
		{
			bfs_header	h;
			bfs_entry  *e;
			uint32_t	n;
			volatile double sink = 0;

			accepted++;
			bfs_unseal(p);
			bfs_read_header(p, &h);
			e = xmalloc(sizeof(bfs_entry) * h.nfilters);
			n = bfs_entries(p, len, e);
			if (n != h.nfilters)
				broken++;
			for (int64_t k = 0; k < 200; k++)
				sink += bfs_probe_hash(e, n, bf_hash_int64(h.seed, k));
			sink += bfs_est_fpr(e, n) + bfs_est_cardinality(e, n);
			(void) sink;
			free(e);
		}
		free(p);
	}
	info("scalable mutations: %d accepted of 20000", accepted);
	check(broken == 0, "scalable: mutations", "%d broken", broken);
	ts_free(s);
}

/* Capacity of a filter at a rate agrees with the sizing that made it. */
void
test_scalable_capacity(void)
{
	static const double ns[] = {10, 1000, 54321, 1e6};
	int			bad = 0;

	for (int li = 0; li < 2; li++)
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		{
			tfilter		f = tf_sized(layouts[li], ns[i], 0.0015, 1);
			uint64_t	c = bfs_capacity_of(&f.v, 0.0015);

			/* at least what it was sized for, and not much more */
			if ((double) c < ns[i] || (double) c > ns[i] * 1.05 + 64)
			{
				bad++;
				info("capacity %s n=%g: %" PRIu64, bf_layout_name(layouts[li]), ns[i], c);
			}
			tf_free(&f);
		}
	check(bad == 0, "scalable: capacity of a sized filter", "%d off", bad);
}

/*
 * The largest value of every type can be selected and dumped: its text form
 * (base64) plus the 6 bytes of a one-column DataRow fits a StringInfo
 * (MaxAllocSize - 1 bytes), and so do a COPY line (text + newline), the
 * output string (text + terminator, against MaxAllocSize) and a text datum.
 * BF_MAX_TOTAL_BYTES is the largest length that does, and every way a value
 * is made or read in stops there.  test/maxsize_dump.sh checks the same
 * against a server, by hand (GBs of memory).
 */
static bool
text_fits(uint64_t len)
{
	uint64_t	t = bf_base64_encoded_len(len);

	return t + BF_DATAROW_OVERHEAD <= BF_PG_STRING_MAX &&	/* DataRow */
		t + 1 <= BF_PG_STRING_MAX &&	/* COPY line */
		t + 1 <= UINT64_C(0x3fffffff) &&	/* cstring, MaxAllocSize */
		t + 4 <= UINT64_C(0x3fffffff);	/* text datum */
}

/*
 * The structural walk of a stored container (bfs_walk): it accepts every
 * valid container, refuses any whose structure would let decoding read
 * outside the buffer, and whatever it accepts decodes completely inside.
 */
void
test_scalable_walk(void)
{
	tscal	   *s = ts_sample();
	size_t		e1 = s->e[1].offset;
	size_t		f1 = e1 + BFS_ENTRY_HEADER_SIZE;
	bfs_header	h;
	rng			r = {4242};
	int			bad = 0;
	const struct
	{
		const char *what;
		size_t		off;
		int			width;
		uint64_t	value;
	}			refused[] = {
		{"magic", 3, 1, 'F'},
		{"no sub-filters", BFS_OFF_NFILTERS, 4, 0},
		{"fewer sub-filters than bytes", BFS_OFF_NFILTERS, 4, 2},
		{"more sub-filters than bytes", BFS_OFF_NFILTERS, 4, 4},
		{"too many sub-filters", BFS_OFF_NFILTERS, 4, BFS_MAX_FILTERS + 1},
		{"entry layout", f1 + BF_OFF_LAYOUT, 1, 3},
		{"entry hashes 0", f1 + BF_OFF_HASHES, 1, 0},
		{"entry nbits not whole blocks", f1 + BF_OFF_NBITS, 8, 1000},
		{"entry nbits shorter", f1 + BF_OFF_NBITS, 8, 512},
		{"entry nbits past the end", f1 + BF_OFF_NBITS, 8, UINT64_C(1) << 30},
		{"entry nbits all ones", f1 + BF_OFF_NBITS, 8, UINT64_MAX},
	};

	check(bfs_walk(s->buf, s->len, &h) && h.nfilters == 3 &&
		  h.seed == s->h.seed && h.added == s->h.added,
		  "scalable walk: sample", "%u sub-filters", h.nfilters);
	for (size_t len = 0; len < s->len + 64; len++)
	{
		uint8_t    *p;

		if (len == s->len)
			continue;
		p = copy_exact(s->buf, s->len, len ? len : 1);
		if (bfs_walk(p, len, &h))
			bad++;
		free(p);
	}
	check(bad == 0, "scalable walk: every other length refused",
		  "%d lengths accepted", bad);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		uint8_t    *p = copy_exact(s->buf, s->len, s->len);

		store_field(p, (int) refused[i].off, refused[i].width, refused[i].value);
		check(!bfs_walk(p, s->len, &h), "scalable walk: broken structure refused",
			  "%s accepted", refused[i].what);
		free(p);
	}
	/* the walk is not a validation: altered bits or counts keep the structure */
	{
		uint8_t    *p = copy_exact(s->buf, s->len, s->len);

		p[f1 + BF_HEADER_SIZE] ^= 1;
		store_field(p, (int) (e1 + BFS_EOFF_LEVEL), 4, 0);
		check(bfs_walk(p, s->len, &h) && h.nfilters == 3,
			  "scalable walk: structure only", "refused");
		free(p);
	}

	/* random damage: accepted means decodable inside the buffer */
	bad = 0;
	for (int round = 0; round < 4000; round++)
	{
		size_t		len = s->len - (round % 4 == 0 ? rng_below(&r, 200) : 0);
		uint8_t    *p = copy_exact(s->buf, s->len, len);
		bfs_problem pr;
		bool		walked;

		for (int m = 0; m < 2; m++)
		{
			/* mostly the headers, where the structure is */
			size_t		off = rng_below(&r, 2) ? rng_below(&r, f1 + BF_HEADER_SIZE) : rng_below(&r, len);

			if (off < len)
				p[off] = (uint8_t) rng_next(&r);
		}
		bfs_seal(p, len);
		walked = bfs_walk(p, len, &h);
		if (bfs_validate(p, len, &pr) == BFS_OK && !walked)
			bad++;
		if (walked)
		{
			bfs_entry  *e = xmalloc(sizeof(bfs_entry) * h.nfilters);
			uint32_t	n = bfs_entries(p, len, e);

			if (n != h.nfilters || e[n - 1].offset + e[n - 1].len != len)
				bad++;
			free(e);
		}
		free(p);
	}
	check(bad == 0, "scalable walk: random damage", "%d inconsistent", bad);
	ts_free(s);
}

/*
 * A bloomfilter wrapped as a container (bfs_wrap, the cast to
 * scalablebloom): valid, every key still found, the bits unchanged, and
 * the first level's schedule.
 */
void
test_scalable_wrap(void)
{
	for (int li = 0; li < 2; li++)
	{
		int			layout = layouts[li];
		const char *ln = bf_layout_name(layout);
		tfilter		f = tf_new(layout, 5, UINT64_C(0x0123456789abcdef), 4096);
		double		p0 = bfs_level_fpr(0.01, 0.85, 0);

		for (int shape = 0; shape < 3; shape++)
		{
			/* 0: 100 keys; 1: 10 keys added 100 times each; 2: empty */
			tfilter		g = tf_copy(&f);
			uint8_t    *buf;
			size_t		len = bfs_wrap_size(g.v.nbits);
			bfs_header	h;
			bfs_entry	e[1];
			bfs_problem pr;
			bfs_status	st;
			int			missing = 0;
			uint64_t	cap;

			for (int64_t i = 0; shape < 2 && i < 1000; i++)
				if (shape == 1 || i < 100)
					tf_add_int(&g, shape == 0 ? i * 7919 : (i % 10) * 7919);
			buf = xmalloc(len);
			bfs_wrap(buf, &g.v, 0.01, 2, 0.85);
			bfs_seal(buf, len);
			st = bfs_validate(buf, len, &pr);
			if (!check(st == BFS_OK, "scalable wrap: valid", "%s shape %d: status %d (%s), entry %u inner %d",
					   ln, shape, (int) st, bfs_status_message(st), pr.entry, (int) pr.inner))
			{
				free(buf);
				tf_free(&g);
				continue;
			}
			bfs_unseal(buf);
			bfs_read_header(buf, &h);
			check(bfs_entries(buf, len, e) == 1 && h.nfilters == 1,
				  "scalable wrap: one sub-filter", "%s shape %d: %u", ln, shape, h.nfilters);
			for (int64_t i = 0; i < (shape == 0 ? 100 : shape == 1 ? 10 : 0); i++)
				if (!bfs_probe_hash(e, 1, bf_hash_int64(h.seed, i * 7919)))
					missing++;
			check(missing == 0, "scalable wrap: no false negative", "%s shape %d: %d keys lost",
				  ln, shape, missing);
			check(memcmp(e[0].v.bits, g.v.bits, g.v.nbits / 8) == 0 &&
				  e[0].v.nbits == g.v.nbits && e[0].v.hashes == g.v.hashes &&
				  h.seed == g.v.seed && h.layout == layout && e[0].v.seed == g.v.seed,
				  "scalable wrap: the filter's bits and geometry", "%s shape %d", ln, shape);
			cap = bfs_capacity_of(&g.v, p0);
			check(h.growth == 2 && h.fpr == 0.01 && h.tightening == 0.85 &&
				  e[0].level == 0 && e[0].fpr == p0 && e[0].tag == 0 &&
				  e[0].capacity == (cap < BFS_MAX_CAPACITY ? cap : BFS_MAX_CAPACITY) &&
				  h.initial_capacity == e[0].capacity,
				  "scalable wrap: the first level's schedule", "%s shape %d: capacity %" PRIu64,
				  ln, shape, e[0].capacity);
			check(h.added == g.v.added, "scalable wrap: the container keeps the adds",
				  "%s shape %d: %" PRIu64 " of %" PRIu64, ln, shape, h.added, g.v.added);
			if (shape == 2)
				check(e[0].v.added == 0 && h.family == BF_FAMILY_NONE &&
					  e[0].v.family == BF_FAMILY_NONE,
					  "scalable wrap: empty", "%s: added %" PRIu64 ", family %u",
					  ln, e[0].v.added, (unsigned) h.family);
			else
				check(h.family == BF_FAMILY_INTEGER && e[0].v.family == BF_FAMILY_INTEGER &&
					  e[0].v.added >= 1 && e[0].v.added <= g.v.added &&
					  (shape == 0 || e[0].v.added < 20),
					  "scalable wrap: the sub-filter counts distinct keys",
					  "%s shape %d: %" PRIu64 " of %" PRIu64 " adds", ln, shape,
					  e[0].v.added, g.v.added);
			free(buf);
			tf_free(&g);
		}
		tf_free(&f);
	}
}

void
test_max_size(void)
{
	int			bad = 0;

	/* PostgreSQL's MaxAllocSize is 0x3fffffff; a StringInfo holds one less */
	check(BF_PG_STRING_MAX == UINT64_C(0x3fffffff) - 1 && BF_DATAROW_OVERHEAD == 2 + 4,
		  "max size: PostgreSQL's bounds", "%" PRIu64, (uint64_t) BF_PG_STRING_MAX);
	check(text_fits(BF_MAX_TOTAL_BYTES) && !text_fits(BF_MAX_TOTAL_BYTES + 1) &&
		  bf_base64_encoded_len(BF_MAX_TOTAL_BYTES) + 6 == BF_PG_STRING_MAX,
		  "max size: the largest length whose text fits",
		  "BF_MAX_TOTAL_BYTES %" PRIu64 ", text %zu", (uint64_t) BF_MAX_TOTAL_BYTES,
		  bf_base64_encoded_len(BF_MAX_TOTAL_BYTES));
	check(BF_MAX_TOTAL_BYTES == UINT64_C(805306362) && BF_MAX_NBITS == UINT64_C(6442450432),
		  "max size: the documented figures (FORMAT.md, README)",
		  "%" PRIu64 " bytes, %" PRIu64 " bits", (uint64_t) BF_MAX_TOTAL_BYTES,
		  (uint64_t) BF_MAX_NBITS);

	/* bloomfilter: both layouts, the largest accepted and one step more */
	for (int li = 0; li < 2; li++)
	{
		uint64_t	gran = layouts[li] == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS : 64;

		check(bf_check_geometry(layouts[li], 7, BF_MAX_NBITS) == BF_OK &&
			  text_fits(bf_buffer_size(BF_MAX_NBITS)) &&
			  bf_check_geometry(layouts[li], 7, BF_MAX_NBITS + gran) == BF_ERR_NBITS,
			  "max size: bloomfilter", "%s", bf_layout_name(layouts[li]));
	}

	/* countingbloom: both widths */
	for (int w = 4; w <= 8; w += 4)
		check(bfc_check_geometry(BF_LAYOUT_BLOCKED, 7, w, BFC_MAX_COUNTERS(w)) == BF_OK &&
			  bfc_check_geometry(BF_LAYOUT_CLASSIC, 7, w, BFC_MAX_COUNTERS(w)) == BF_OK &&
			  text_fits(bfc_buffer_size(BFC_MAX_COUNTERS(w), w)) &&
			  bfc_check_geometry(BF_LAYOUT_CLASSIC, 7, w, BFC_MAX_COUNTERS(w) + 64) == BF_ERR_NBITS,
			  "max size: countingbloom", "width %d", w);

	/*
	 * bloomwindow: for every number of buckets and both layouts, the largest
	 * bit array accepted fits, and the next is refused as too large (or past
	 * the largest bloomfilter).
	 */
	for (uint32_t g = 1; g <= BFW_MAX_BUCKETS; g++)
		for (int li = 0; li < 2; li++)
		{
			uint64_t	gran = layouts[li] == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS : 64;
			uint64_t	room = (BF_MAX_TOTAL_BYTES - BFW_HEADER_SIZE) / g;
			uint64_t	m;
			bfw_status	next;

			m = (room - bfw_slot_size(0)) * 8 / gran * gran;
			if (m > BF_MAX_NBITS)
				m = BF_MAX_NBITS;
			next = bfw_check_geometry(layouts[li], 7, m + gran, g, 1);
			if (bfw_check_geometry(layouts[li], 7, m, g, 1) != BFW_OK ||
				!text_fits(bfw_buffer_size(g, m)) ||
				(next != BFW_ERR_TOO_LARGE && next != BFW_ERR_NBITS))
			{
				if (bad++ == 0)
					info("window %u buckets %s: m %" PRIu64, g,
						 bf_layout_name(layouts[li]), m);
			}
		}
	check(bad == 0, "max size: bloomwindow, every number of buckets", "%d wrong", bad);
	/*
	 * The one-bucket classic window is the largest value of all, and its
	 * DataRow fills a StringInfo exactly: the bound is reached, not just
	 * respected.
	 */
	{
		uint64_t	m = (BF_MAX_TOTAL_BYTES - BFW_HEADER_SIZE - bfw_slot_size(0)) / 8 * 64;

		check(bfw_check_geometry(BF_LAYOUT_CLASSIC, 7, m, 1, 1) == BFW_OK &&
			  bf_base64_encoded_len(bfw_buffer_size(1, m)) + BF_DATAROW_OVERHEAD == BF_PG_STRING_MAX,
			  "max size: the largest window", "%" PRIu64 " bytes", bfw_buffer_size(1, m));
	}

	/*
	 * scalablebloom: growth stops at the bound, and validation refuses a
	 * longer container from its length alone.  The buffer is as long as the
	 * length given, but only its first page is readable (the rest is never
	 * committed), so that reading past the header would crash the test.
	 */
	{
		tscal	   *s = ts_sample();
		const bfs_entry *last = &s->e[s->n - 1];
		uint64_t	cap,
					nbits;
		double		fpr;
		uint32_t	level;
		int			k;
		bfs_grow	g1,
					g2;
		bfs_problem pr;
		size_t		len = BF_MAX_TOTAL_BYTES + 1;
		long		page = sysconf(_SC_PAGESIZE);
		uint8_t    *p;

		g1 = bfs_plan_growth(&s->h, last, 0, &cap, &fpr, &level, &nbits, &k);
		g2 = bfs_plan_growth(&s->h, last, BF_MAX_TOTAL_BYTES - bfs_entry_size(nbits),
							 &cap, &fpr, &level, &nbits, &k);
		check(g1 == BFS_GROW_OK && g2 == BFS_GROW_OK &&
			  bfs_plan_growth(&s->h, last, BF_MAX_TOTAL_BYTES - bfs_entry_size(nbits) + 1,
							  &cap, &fpr, &level, &nbits, &k) == BFS_GROW_SIZE,
			  "max size: scalablebloom growth stops at the bound", "%d %d", (int) g1, (int) g2);

		p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (check(p != MAP_FAILED && mprotect(p, (size_t) page, PROT_READ | PROT_WRITE) == 0,
				  "max size: map a long buffer", "mmap of %zu bytes", len))
		{
			memcpy(p, s->buf, BFS_HEADER_SIZE + BFS_ENTRY_HEADER_SIZE + BF_HEADER_SIZE);
			check(bfs_validate(p, len, &pr) == BFS_ERR_TOO_LARGE,
				  "max size: scalablebloom longer than the bound", "status %d",
				  (int) bfs_validate(p, len, &pr));
			munmap(p, len);
		}
		ts_free(s);
	}
}
