/*
 * test_counting.c
 *		Core unit tests: counting filters (core bf_counting.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ==================================================================== */
/* ---- counting filters (bf_counting.c) ---- */
/* ==================================================================== */

/* A counting filter in its own exact-size buffer. */
typedef struct tcfilter
{
	uint8_t    *buf;
	size_t		len;
	bfc_view	v;
} tcfilter;

static tcfilter
tc_new(int layout, int hashes, uint64_t seed, uint64_t m, int width)
{
	tcfilter	f;

	if (bfc_check_geometry(layout, hashes, width, m) != BF_OK)
	{
		fprintf(stderr, "test bug: bad counting geometry %d/%d/%" PRIu64 "/%d\n",
				layout, hashes, m, width);
		exit(2);
	}
	f.len = bfc_buffer_size(m, width);
	f.buf = xmalloc(f.len);
	bfc_init(f.buf, layout, hashes, seed, m, width);
	bfc_view_of(f.buf, &f.v);
	return f;
}

static void
tc_free(tcfilter *f)
{
	free(f->buf);
	f->buf = NULL;
}

static void
tc_add_int(tcfilter *f, int64_t key)
{
	bfc_add_hash(&f->v, bf_hash_int64(f->v.seed, key));
	f->v.family = BF_FAMILY_INTEGER;
}

static bool
tc_remove_int(tcfilter *f, int64_t key)
{
	return bfc_remove_hash(&f->v, bf_hash_int64(f->v.seed, key));
}

static bool
tc_has_int(const tcfilter *f, int64_t key)
{
	return bfc_contains_hash(&f->v, bf_hash_int64(f->v.seed, key));
}

static void
tc_seal(tcfilter *f)
{
	bfc_store_header(f->buf, &f->v);
	bf_seal(f->buf, f->len);
}

/* Same header fields (in memory) and counters. */
static bool
tc_same(tcfilter *a, tcfilter *b)
{
	bfc_store_header(a->buf, &a->v);
	bfc_store_header(b->buf, &b->v);
	return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

static const int widths[2] = {4, 8};

/*
 * bf_positions gives exactly the bits bf_insert_hash sets, for both layouts,
 * every k and several sizes: the counting filter's counters sit where the
 * bloomfilter's bits do.
 */
void
test_counting_positions(void)
{
	const uint64_t sizes[] = {512, 1024, 64 * 1000 * 8, UINT64_C(1) << 22};
	long		bad = 0;
	char		first[160] = "";

	for (int li = 0; li < 2; li++)
		for (int si = 0; si < 4; si++)
			for (int k = 1; k <= BF_MAX_HASHES; k += (k < 10 ? 1 : 7))
			{
				int			layout = layouts[li];
				uint64_t	m = sizes[si];
				tfilter		f;
				uint8_t    *mine;

				if (bf_check_geometry(layout, k, m) != BF_OK)
					continue;
				f = tf_new(layout, k, 11, m);
				mine = xmalloc(m / 8);
				memset(mine, 0, m / 8);
				for (int64_t key = 0; key < 300; key++)
				{
					uint64_t	h = bf_hash_int64(11, key * 977);
					uint64_t	pos[BF_MAX_HASHES];

					bf_insert_hash(&f.v, h);
					bf_positions(layout, m, k, h, pos);
					for (int i = 0; i < k; i++)
						mine[pos[i] >> 3] |= (uint8_t) (1u << (pos[i] & 7));
				}
				if (memcmp(mine, f.v.bits, m / 8) != 0 && bad++ == 0)
					snprintf(first, sizeof(first), "%s k=%d m=%" PRIu64,
							 bf_layout_name(layout), k, m);
				free(mine);
				tf_free(&f);
			}
	check(bad == 0, "counting: positions are the bloomfilter's", "%ld cases differ, first %s",
		  bad, first);
}

/*
 * The cast: a counting filter of any width, converted, is byte for byte the
 * bloomfilter built from the same keys (duplicates included); and a probe
 * answers the same on both for members and non-members.
 */
void
test_counting_cast(void)
{
	for (int li = 0; li < 2; li++)
		for (int wi = 0; wi < 2; wi++)
		{
			int			layout = layouts[li];
			uint64_t	m = 0;
			int			k = 0;
			tcfilter	c;
			tfilter		b;
			uint8_t    *conv;
			long		disagree = 0;

			bf_size_for(layout, 5000, 0.01, &m, &k);
			c = tc_new(layout, k, 5, m, widths[wi]);
			b = tf_new(layout, k, 5, m);
			for (int64_t i = 0; i < 6000; i++)
			{
				/* keys 0..2999, each twice */
				tc_add_int(&c, i % 3000);
				tf_add_int(&b, i % 3000);
			}
			tf_seal(&b);
			bf_unseal(b.buf);
			conv = xmalloc(bf_buffer_size(m));
			bfc_to_bloom(&c.v, conv);
			check(memcmp(conv, b.buf, b.len) == 0, "counting: cast is the bloomfilter of the keys",
				  "%s, %d-bit", bf_layout_name(layout), widths[wi]);
			for (int64_t i = 0; i < 20000; i++)
				disagree += tc_has_int(&c, i) != tf_has_int(&b, i);
			check(disagree == 0, "counting: probes agree with the bloomfilter",
				  "%s, %d-bit: %ld keys differ", bf_layout_name(layout), widths[wi], disagree);
			/* the converted buffer passes the bloomfilter validator */
			bf_seal(conv, b.len);
			check(bf_validate(conv, b.len) == BF_OK, "counting: cast is a valid bloomfilter",
				  "%s, %d-bit", bf_layout_name(layout), widths[wi]);
			free(conv);
			tc_free(&c);
			tf_free(&b);
		}
}

/*
 * Remove: without saturation, removing keys that were added leaves exactly
 * the filter of the keys that remain (so no false negative), and a key that
 * is surely absent is a no-op.
 */
void
test_counting_remove(void)
{
	for (int li = 0; li < 2; li++)
		for (int wi = 0; wi < 2; wi++)
		{
			int			layout = layouts[li];
			uint64_t	m = 0;
			int			k = 0;
			tcfilter	all,
						rest;
			long		fn = 0,
						fp = 0;
			uint64_t	nz,
						sat;

			bf_size_for(layout, 20000, 0.01, &m, &k);
			all = tc_new(layout, k, 9, m, widths[wi]);
			rest = tc_new(layout, k, 9, m, widths[wi]);
			for (int64_t i = 0; i < 20000; i++)
			{
				tc_add_int(&all, i);
				if (i % 2 == 0)
					tc_add_int(&rest, i);
			}
			bfc_counter_stats(&all.v, &nz, &sat);
			check(sat == 0, "counting: no saturation at capacity",
				  "%s, %d-bit: %" PRIu64 " saturated", bf_layout_name(layout), widths[wi], sat);
			for (int64_t i = 1; i < 20000; i += 2)
				if (!tc_remove_int(&all, i))
					fn++;
			check(fn == 0, "counting: removing an added key succeeds", "%ld refused", fn);
			check(tc_same(&all, &rest), "counting: removes leave the filter of the rest",
				  "%s, %d-bit", bf_layout_name(layout), widths[wi]);
			fn = 0;
			for (int64_t i = 0; i < 20000; i += 2)
				fn += !tc_has_int(&all, i);
			for (int64_t i = 1; i < 20000; i += 2)
				fp += tc_has_int(&all, i);
			check(fn == 0, "counting: no false negative after removes", "%ld", fn);
			check(fp < 10000 * 0.02, "counting: removed keys answer like non-members",
				  "%ld of 10000", fp);
			info("counting %s %d-bit: %ld of 10000 removed keys still probe true",
				 bf_layout_name(layout), widths[wi], fp);

			/* a surely absent key: nothing changes */
			{
				tcfilter	e = tc_new(layout, k, 9, m, widths[wi]);
				int64_t		absent = -1;

				tc_add_int(&e, 1);
				while (tc_has_int(&e, absent))
					absent--;
				check(!tc_remove_int(&e, absent) && e.v.items == 1 && tc_has_int(&e, 1),
					  "counting: remove of an absent key is a no-op", "%s", bf_layout_name(layout));
				/* items never goes below zero */
				check(tc_remove_int(&e, 1) && e.v.items == 0 && !tc_has_int(&e, 1),
					  "counting: remove of the last key", "%s", bf_layout_name(layout));
				tc_free(&e);
			}
			tc_free(&all);
			tc_free(&rest);
		}

	/*
	 * A false-positive remove with counters shared by an added key: items
	 * stays at zero rather than wrapping, and counters never go below zero.
	 */
	{
		tcfilter	f = tc_new(BF_LAYOUT_CLASSIC, 2, 0, 64, 4);
		int64_t		fpkey;

		for (int64_t i = 0; i < 40; i++)
			tc_add_int(&f, i);
		for (int64_t i = 0; i < 40; i++)
			tc_remove_int(&f, i);
		check(f.v.items == 0, "counting: items back to zero", "%" PRIu64, f.v.items);
		tc_add_int(&f, 1);
		for (fpkey = 1000; !tc_has_int(&f, fpkey); fpkey++)
			;
		check(tc_remove_int(&f, fpkey) && f.v.items == 0,
			  "counting: false-positive remove, items not below zero", "%" PRIu64, f.v.items);
		tc_seal(&f);
		check(bfc_validate(f.buf, f.len) == BF_OK, "counting: still valid after it", "%d",
			  (int) bfc_validate(f.buf, f.len));
		tc_free(&f);
	}
}

/*
 * Saturation: a counter stops at 15 (4-bit) or 255 (8-bit) and never comes
 * down; count is exact below saturation.
 */
void
test_counting_saturation(void)
{
	for (int wi = 0; wi < 2; wi++)
	{
		int			w = widths[wi];
		unsigned	max = bfc_max_count(w);
		tcfilter	f = tc_new(BF_LAYOUT_BLOCKED, 7, 0, 1024, w);
		uint64_t	nz,
					sat;
		uint64_t	h = bf_hash_int64(0, 77);

		for (unsigned i = 1; i <= max + 5; i++)
		{
			tc_add_int(&f, 77);
			if (i < max && bfc_count_hash(&f.v, h) != i)
			{
				check(false, "counting: count exact below saturation", "%d-bit at %u: %u",
					  w, i, bfc_count_hash(&f.v, h));
				break;
			}
		}
		bfc_counter_stats(&f.v, &nz, &sat);
		check(bfc_count_hash(&f.v, h) == max && sat == nz && nz > 0,
			  "counting: saturates", "%d-bit: count %u, %" PRIu64 " of %" PRIu64 " saturated",
			  w, bfc_count_hash(&f.v, h), sat, nz);
		for (unsigned i = 0; i < max + 20; i++)
			tc_remove_int(&f, 77);
		check(bfc_count_hash(&f.v, h) == max && tc_has_int(&f, 77),
			  "counting: saturation sticks through removes", "%d-bit: %u", w,
			  bfc_count_hash(&f.v, h));
		tc_seal(&f);
		check(bfc_validate(f.buf, f.len) == BF_OK, "counting: saturated filter valid", "%d-bit", w);
		tc_free(&f);
	}

	/* 20 adds into 4-bit counters: count reads 15, "15 or more" */
	{
		tcfilter	f = tc_new(BF_LAYOUT_CLASSIC, 5, 0, 4096, 4);

		for (int i = 0; i < 20; i++)
			tc_add_int(&f, 3);
		for (int i = 0; i < 20; i++)
			tc_remove_int(&f, 3);
		check(bfc_count_hash(&f.v, bf_hash_int64(0, 3)) == 15,
			  "counting: 20 adds, 20 removes, 4-bit", "%u", bfc_count_hash(&f.v, bf_hash_int64(0, 3)));
		tc_free(&f);
	}

	/* count is an upper bound on the adds of each key (random multiset) */
	{
		tcfilter	f = tc_new(BF_LAYOUT_BLOCKED, 6, 0, 8192, 8);
		unsigned	times[500] = {0};
		rng			r = {4242};
		long		under = 0;

		for (int i = 0; i < 1500; i++)
		{
			int64_t		key = (int64_t) rng_below(&r, 500);

			tc_add_int(&f, key);
			times[key]++;
		}
		for (int64_t key = 0; key < 500; key++)
			under += bfc_count_hash(&f.v, bf_hash_int64(0, key)) < times[key];
		check(under == 0, "counting: count is an upper bound", "%ld keys under", under);
		tc_free(&f);
	}
}

/*
 * Union sums counters (saturating) and folds sizes m * 2^j to m: the union
 * of filters of two multisets is the filter of their sum, at any of the
 * sizes, saturation included (adds only).
 */
void
test_counting_union(void)
{
	for (int li = 0; li < 2; li++)
		for (int wi = 0; wi < 2; wi++)
			for (int shift = 0; shift <= 3; shift++)
			{
				int			layout = layouts[li];
				int			w = widths[wi];
				uint64_t	m = 1024;
				tcfilter	big = tc_new(layout, 4, 3, m << shift, w);
				tcfilter	small = tc_new(layout, 4, 3, m, w);
				tcfilter	whole = tc_new(layout, 4, 3, m, w);
				tcfilter	r = tc_new(layout, 4, 3, m, w);
				uint64_t	n = 0;

				/* key 0 many times, so that some sums saturate */
				for (int64_t i = 0; i < 400; i++)
				{
					int64_t		key = i % 3 == 0 ? 0 : i;

					if (i % 2)
						tc_add_int(&big, key);
					else
						tc_add_int(&small, key);
					tc_add_int(&whole, key);
				}
				check(bfc_compatible(&big.v, &small.v, &n) == BF_COMPAT_OK && n == m,
					  "counting: compatible after fold", "shift %d", shift);
				bfc_fold_add(&r.v, &big.v);
				bfc_fold_add(&r.v, &small.v);
				bfc_merge_header(&r.v, &big.v, &small.v);
				check(tc_same(&r, &whole), "counting: union (folded) is the filter of the sum",
					  "%s, %d-bit, shift %d", bf_layout_name(layout), w, shift);
				tc_free(&big);
				tc_free(&small);
				tc_free(&whole);
				tc_free(&r);
			}

	/* incompatible pairs */
	{
		tcfilter	a = tc_new(BF_LAYOUT_CLASSIC, 4, 0, 1024, 4);
		tcfilter	b8 = tc_new(BF_LAYOUT_CLASSIC, 4, 0, 1024, 8);
		tcfilter	bl = tc_new(BF_LAYOUT_BLOCKED, 4, 0, 1024, 4);
		tcfilter	k5 = tc_new(BF_LAYOUT_CLASSIC, 5, 0, 1024, 4);
		tcfilter	s1 = tc_new(BF_LAYOUT_CLASSIC, 4, 1, 1024, 4);
		tcfilter	m3 = tc_new(BF_LAYOUT_CLASSIC, 4, 0, 3072, 4);
		tcfilter	t = tc_new(BF_LAYOUT_CLASSIC, 4, 0, 1024, 4);
		uint64_t	n;

		tc_add_int(&a, 1);
		t.v.family = BF_FAMILY_TEXT;
		check(bfc_compatible(&a.v, &b8.v, &n) == BF_COMPAT_WIDTH &&
			  bfc_compatible(&a.v, &bl.v, &n) == BF_COMPAT_LAYOUT &&
			  bfc_compatible(&a.v, &k5.v, &n) == BF_COMPAT_HASHES &&
			  bfc_compatible(&a.v, &s1.v, &n) == BF_COMPAT_SEED &&
			  bfc_compatible(&a.v, &m3.v, &n) == BF_COMPAT_SIZE &&
			  bfc_compatible(&a.v, &t.v, &n) == BF_COMPAT_FAMILY,
			  "counting: incompatible pairs", "one of the six");
		tc_free(&a);
		tc_free(&b8);
		tc_free(&bl);
		tc_free(&k5);
		tc_free(&s1);
		tc_free(&m3);
		tc_free(&t);
	}
}

/* A sealed counting filter with some keys, for the format tests. */
static tcfilter
tc_sealed(int layout, int width, uint64_t m, int nkeys)
{
	tcfilter	f = tc_new(layout, 5, UINT64_C(0x0123456789abcdef), m, width);

	for (int64_t i = 0; i < nkeys; i++)
		tc_add_int(&f, i * 7919);
	tc_seal(&f);
	return f;
}

/*
 * Validation refuses every inconsistent buffer, with the status FORMAT.md
 * gives, and reads nothing past the length (ASan).
 */
void
test_counting_format(void)
{
	for (int li = 0; li < 2; li++)
		for (int wi = 0; wi < 2; wi++)
		{
			int			layout = layouts[li];
			int			w = widths[wi];
			tcfilter	f = tc_sealed(layout, w, 4096, 200);
			uint64_t	m = f.v.ncounters;
			const char *ln = bf_layout_name(layout);
			const field_case cases[] = {
				{"magic BLMF", BF_OFF_MAGIC + 3, 1, 'F', BF_ERR_MAGIC},
				{"magic BLMX", BF_OFF_MAGIC + 3, 1, 'X', BF_ERR_MAGIC},
				{"magic byte 0", BF_OFF_MAGIC, 1, 'b', BF_ERR_MAGIC},
				{"version 2", BF_OFF_VERSION, 2, 2, BF_ERR_VERSION},
				{"version 0", BF_OFF_VERSION, 2, 0, BF_ERR_VERSION},
				{"layout 0", BF_OFF_LAYOUT, 1, 0, BF_ERR_LAYOUT},
				{"layout 3", BF_OFF_LAYOUT, 1, 3, BF_ERR_LAYOUT},
				{"hashes 0", BF_OFF_HASHES, 1, 0, BF_ERR_HASHES},
				{"hashes 33", BF_OFF_HASHES, 1, 33, BF_ERR_HASHES},
				{"counters 0", BFC_OFF_NCOUNTERS, 8, 0, BF_ERR_NBITS},
				{"counters odd", BFC_OFF_NCOUNTERS, 8, m + 1, BF_ERR_NBITS},
				{"counters not a block", BFC_OFF_NCOUNTERS, 8, m - 64,
				layout == BF_LAYOUT_BLOCKED ? BF_ERR_NBITS : BF_ERR_SIZE},
				{"counters doubled", BFC_OFF_NCOUNTERS, 8, m * 2, BF_ERR_SIZE},
				{"counters past the width's limit", BFC_OFF_NCOUNTERS, 8,
				BFC_MAX_COUNTERS(w) + 512, BF_ERR_NBITS},
				{"counters all ones", BFC_OFF_NCOUNTERS, 8, UINT64_MAX, BF_ERR_NBITS},
				{"width 0", BFC_OFF_WIDTH, 2, 0, BF_ERR_WIDTH},
				{"width 1", BFC_OFF_WIDTH, 2, 1, BF_ERR_WIDTH},
				{"width 5", BFC_OFF_WIDTH, 2, 5, BF_ERR_WIDTH},
				{"width 16", BFC_OFF_WIDTH, 2, 16, BF_ERR_WIDTH},
				{"width high byte", BFC_OFF_WIDTH, 2, 0x100 | (unsigned) w, BF_ERR_WIDTH},
				{"width swapped", BFC_OFF_WIDTH, 2, w == 4 ? 8 : 4, BF_ERR_SIZE},
				{"family 17", BF_OFF_FAMILY, 2, 17, BF_ERR_FAMILY},
				{"family other, tag 0", BF_OFF_FAMILY, 2, BF_FAMILY_OTHER, BF_ERR_FAMILY},
				{"tag with integer", BF_OFF_TYPETAG, 4, 23, BF_ERR_FAMILY},
				{"reserved", BF_OFF_RESERVED, 4, 1, BF_ERR_RESERVED},
				{"reserved high", BF_OFF_RESERVED + 3, 1, 0x80, BF_ERR_RESERVED},
				{"family none", BF_OFF_FAMILY, 2, BF_FAMILY_NONE, BF_ERR_ADDED},
				/* may hold anything: still valid */
				{"items 0", BFC_OFF_ITEMS, 8, 0, BF_OK},
				{"items huge", BFC_OFF_ITEMS, 8, UINT64_MAX, BF_OK},
				{"seed", BF_OFF_SEED, 8, 0, BF_OK},
				{"family text", BF_OFF_FAMILY, 2, BF_FAMILY_TEXT, BF_OK},
			};

			check(bfc_validate(f.buf, f.len) == BF_OK, "counting format: sealed valid", "%s %d", ln, w);
			check(memcmp(f.buf, "BLMC", 4) == 0 &&
				  bf_load_le16(f.buf + BF_OFF_VERSION) == 1 &&
				  bf_load_le16(f.buf + BFC_OFF_WIDTH) == w &&
				  bf_load_le64(f.buf + BFC_OFF_NCOUNTERS) == 4096 &&
				  bf_load_le64(f.buf + BFC_OFF_ITEMS) == 200 &&
				  f.len == BF_HEADER_SIZE + 4096 * (size_t) w / 8,
				  "counting format: header fields", "%s %d", ln, w);
			/* the formats refuse each other */
			check(bf_validate(f.buf, f.len) == BF_ERR_MAGIC && bfc_is_counting_magic(f.buf, f.len),
				  "counting format: bloomfilter validator refuses it", "%s %d", ln, w);
			{
				tfilter		b = sealed_filter(layout, 4096, 10);

				check(bfc_validate(b.buf, b.len) == BF_ERR_MAGIC && bfc_is_plain_magic(b.buf, b.len),
					  "counting format: refuses a bloomfilter", "%s", ln);
				tf_free(&b);
			}
			/* counter p: byte p/2, low nibble for even p (4-bit) */
			{
				tcfilter	c = tc_new(layout, 1, 0, 512, w);

				bfc_put(&c.v, 6, 3);
				bfc_put(&c.v, 7, 9);
				check(w == 4 ? c.buf[BF_HEADER_SIZE + 3] == 0x93 :
					  (c.buf[BF_HEADER_SIZE + 6] == 3 && c.buf[BF_HEADER_SIZE + 7] == 9),
					  "counting format: counter packing", "%d-bit", w);
				tc_free(&c);
			}
			/* every proper prefix, and one byte more or less */
			for (size_t len = 0; len < BF_HEADER_SIZE; len++)
			{
				uint8_t    *p = copy_exact(f.buf, f.len, len);
				bf_status	st = bfc_validate(p, len);

				if (!check(st == BF_ERR_TRUNCATED,
						   "counting format: prefix truncated", "len %zu: %d", len, (int) st))
				{
					free(p);
					break;
				}
				free(p);
			}
			for (int d = -1; d <= 1; d += 2)
			{
				size_t		len = f.len + (size_t) d;
				uint8_t    *p = copy_exact(f.buf, f.len, len);

				check(bfc_validate(p, len) == BF_ERR_SIZE, "counting format: length off by one",
					  "%s %d, %+d", ln, w, d);
				free(p);
			}
			for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++)
			{
				uint8_t    *p = copy_exact(f.buf, f.len, f.len);
				bf_status	st;

				store_field(p, cases[ci].off, cases[ci].width, cases[ci].value);
				/* resealed, so that the field itself is what is judged */
				bf_seal(p, f.len);
				st = bfc_validate(p, f.len);
				check(st == cases[ci].want, "counting format: field", "%s %d-bit, %s: status %d, want %d",
					  ln, w, cases[ci].what, (int) st, (int) cases[ci].want);
				free(p);
			}
			/* a counter changed in transit: the checksum */
			{
				uint8_t    *p = copy_exact(f.buf, f.len, f.len);

				p[f.len - 1] ^= 0x10;
				check(bfc_validate(p, f.len) == BF_ERR_CHECKSUM, "counting format: checksum", "%s %d", ln, w);
				free(p);
			}
			/* items > 0 with every counter zero; an empty filter is valid */
			{
				tcfilter	e = tc_new(layout, 5, 0, 512, w);

				bf_seal(e.buf, e.len);
				check(bfc_validate(e.buf, e.len) == BF_OK, "counting format: empty valid", "%s", ln);
				e.v.items = 1;
				e.v.family = BF_FAMILY_INTEGER;
				tc_seal(&e);
				check(bfc_validate(e.buf, e.len) == BF_ERR_ADDED,
					  "counting format: items without counters", "%s", ln);
				tc_free(&e);
			}
			tc_free(&f);
		}

	/* new filters: the width and its size limit */
	check(bfc_check_geometry(BF_LAYOUT_BLOCKED, 7, 4, BFC_MAX_COUNTERS(4)) == BF_OK &&
		  bfc_check_geometry(BF_LAYOUT_BLOCKED, 7, 8, BFC_MAX_COUNTERS(8)) == BF_OK &&
		  bfc_check_geometry(BF_LAYOUT_BLOCKED, 7, 8, BFC_MAX_COUNTERS(8) + 512) == BF_ERR_NBITS &&
		  bfc_check_geometry(BF_LAYOUT_BLOCKED, 7, 2, 512) == BF_ERR_WIDTH &&
		  bfc_buffer_size(BFC_MAX_COUNTERS(8), 8) <= BF_MAX_TOTAL_BYTES &&
		  bfc_buffer_size(BFC_MAX_COUNTERS(4), 4) <= BF_MAX_TOTAL_BYTES,
		  "counting format: geometry limits", "%" PRIu64, (uint64_t) BFC_MAX_COUNTERS(4));

	/*
	 * Random mutations of valid counting filters: the validator reads
	 * nothing past the length, and whatever it accepts can be probed,
	 * counted, added to, removed from, folded and converted.
	 */
	{
		tcfilter	bases[4];
		rng			r = {777};
		int			accepted = 0,
					broken = 0;

		bases[0] = tc_sealed(BF_LAYOUT_CLASSIC, 4, 1024, 150);
		bases[1] = tc_sealed(BF_LAYOUT_BLOCKED, 8, 1024, 150);
		bases[2] = tc_sealed(BF_LAYOUT_CLASSIC, 8, 64, 3);
		bases[3] = tc_sealed(BF_LAYOUT_BLOCKED, 4, 512, 0);
		for (int it = 0; it < 20000; it++)
		{
			const tcfilter *base = &bases[it % 4];
			size_t		len = base->len;
			uint8_t    *p = copy_exact(base->buf, base->len, len);
			int			nmut = 1 + (int) rng_below(&r, 3);

			for (int mi = 0; mi < nmut; mi++)
				mutate(&p, &len, &r);
			if (len >= BF_HEADER_SIZE && rng_below(&r, 2))
				bf_seal(p, len);
			if (bfc_validate(p, len) == BF_OK)
			{
				bfc_view	v;
				uint8_t    *conv;
				uint64_t	nz,
							sat;

				accepted++;
				bf_unseal(p);
				bfc_view_of(p, &v);
				for (int64_t key = 0; key < 32; key++)
				{
					uint64_t	h = bf_hash_int64(v.seed, key);

					if ((bfc_count_hash(&v, h) > 0) != bfc_contains_hash(&v, h))
						broken++;
					bfc_add_hash(&v, h);
					if (!bfc_contains_hash(&v, h))
						broken++;
					(void) bfc_remove_hash(&v, h);
				}
				bfc_counter_stats(&v, &nz, &sat);
				conv = xmalloc(bf_buffer_size(v.ncounters));
				bfc_to_bloom(&v, conv);
				bf_seal(conv, bf_buffer_size(v.ncounters));
				if (bf_validate(conv, bf_buffer_size(v.ncounters)) != BF_OK)
					broken++;
				free(conv);
				if (v.ncounters >= 1024)
				{
					tcfilter	half = tc_new(v.layout, v.hashes, v.seed, v.ncounters / 2, v.width);
					uint64_t	n;

					if (bfc_compatible(&half.v, &v, &n) == BF_COMPAT_OK)
						bfc_fold_add(&half.v, &v);
					tc_free(&half);
				}
			}
			free(p);
		}
		info("counting mutations: %d of 20000 accepted", accepted);
		check(broken == 0 && accepted > 0, "counting format: mutations",
			  "%d broken, %d accepted", broken, accepted);
		for (int i = 0; i < 4; i++)
			tc_free(&bases[i]);
	}
}
