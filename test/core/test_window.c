/*
 * test_window.c
 *		Core unit tests: bloomwindow (core bf_window.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- bloomwindow: a ring of time buckets ---- */

#define TW_MIN	INT64_C(60000000)	/* a minute in microseconds */

typedef struct twindow
{
	uint8_t    *buf;			/* bfw_buffer_size bytes exactly */
	size_t		len;
	bfw_view	w;
	int64_t		newest;
} twindow;

static twindow
tw_new(int layout, int k, uint64_t seed, uint64_t nbits, uint32_t g, int64_t bucket_us)
{
	twindow		t;

	if (bfw_check_geometry(layout, k, nbits, g, bucket_us) != BFW_OK)
	{
		fprintf(stderr, "test bug: bad window geometry\n");
		exit(2);
	}
	t.len = (size_t) bfw_buffer_size(g, nbits);
	t.buf = xmalloc(t.len);
	bfw_init(t.buf, layout, k, seed, nbits, g, bucket_us);
	bfw_view_of(t.buf, &t.w);
	t.newest = BFW_EMPTY;
	return t;
}

static twindow
tw_copy(const twindow *src)
{
	twindow		t = *src;

	t.buf = copy_exact(src->buf, src->len, src->len);
	bfw_view_of(t.buf, &t.w);
	return t;
}

/* Adds integer key at time t (microseconds); false if dropped. */
static bool
tw_add(twindow *t, int64_t key, int64_t time)
{
	int64_t		b;

	if (!bfw_bucket_of(t->w.bucket_us, time, &b))
		return false;
	t->w.family = BF_FAMILY_INTEGER;
	bfw_store_header(&t->w);
	return bfw_add_hash(&t->w, b, &t->newest, bf_hash_int64(t->w.seed, key));
}

static bool
tw_has(const twindow *t, int64_t key, int64_t at)
{
	int64_t		b;

	if (!bfw_bucket_of(t->w.bucket_us, at, &b))
		return false;
	return bfw_probe_hash(&t->w, b, bf_hash_int64(t->w.seed, key));
}

static bfw_status
tw_validate_sealed(twindow *t, bfw_error *err)
{
	bfw_status	st;

	bfw_seal(t->buf, t->len);
	st = bfw_validate(t->buf, t->len, err);
	bfw_unseal(t->buf);
	return st;
}

void
test_window_geometry(void)
{
	twindow		t = tw_new(BF_LAYOUT_BLOCKED, 7, 0, 1024, 6, 10 * TW_MIN);
	uint64_t	nbits;
	int			k;

	check(t.len == 64 + 6 * (64 + 128), "window: size", "%zu bytes", t.len);
	check(bfw_newest(&t.w) == BFW_EMPTY, "window: new is empty", "newest %" PRId64, bfw_newest(&t.w));
	check(tw_validate_sealed(&t, NULL) == BFW_OK, "window: new validates", "status");
	check(t.w.width_us == 60 * TW_MIN, "window: width is G * bucket", "%" PRId64, t.w.width_us);

	/* behind a 4-byte varlena header, every slot's bits are 8-byte aligned */
	for (uint32_t g = 1; g <= 9; g++)
		for (uint64_t m = 64; m <= 64 * 9; m += 64)
		{
			bool		ok = true;

			for (uint32_t i = 0; i < g; i++)
				ok &= (4 + BFW_HEADER_SIZE + i * bfw_slot_size(m) +
					   BFW_SLOT_OFF_FILTER + BF_HEADER_SIZE) % 8 == 0;
			check(ok, "window: bit arrays 8-byte aligned", "G %u, m %" PRIu64, g, m);
		}

	check(bfw_check_geometry(3, 7, 1024, 6, 1) == BFW_ERR_LAYOUT, "window geometry: layout", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 0, 1024, 6, 1) == BFW_ERR_HASHES, "window geometry: hashes", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1000, 6, 1) == BFW_ERR_NBITS, "window geometry: nbits", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1024, 0, 1) == BFW_ERR_BUCKETS, "window geometry: 0 buckets", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1024, BFW_MAX_BUCKETS + 1, 1) == BFW_ERR_BUCKETS,
		  "window geometry: too many buckets", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1024, 6, 0) == BFW_ERR_WIDTH, "window geometry: zero width", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1024, 6, -5) == BFW_ERR_WIDTH, "window geometry: negative width", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1024, 6, INT64_MAX / 5) == BFW_ERR_WIDTH,
		  "window geometry: width overflows", " ");
	check(bfw_check_geometry(BF_LAYOUT_BLOCKED, 7, 1024, BFW_MAX_BUCKETS, INT64_MAX / BFW_MAX_BUCKETS) == BFW_OK,
		  "window geometry: widest", " ");
	check(bf_size_for(BF_LAYOUT_BLOCKED, 1e8, 0.01, &nbits, &k) &&
		  bfw_check_geometry(BF_LAYOUT_BLOCKED, k, nbits, 64, 1) == BFW_ERR_TOO_LARGE,
		  "window geometry: too large", " ");
	free(t.buf);

	/* floor division, before and after 2000-01-01, and the ends of time */
	{
		int64_t		b = 0;

		check(bfw_bucket_of(10, 0, &b) && b == 0, "window bucket: 0", "%" PRId64, b);
		check(bfw_bucket_of(10, 9, &b) && b == 0, "window bucket: 9", "%" PRId64, b);
		check(bfw_bucket_of(10, 10, &b) && b == 1, "window bucket: 10", "%" PRId64, b);
		check(bfw_bucket_of(10, -1, &b) && b == -1, "window bucket: -1", "%" PRId64, b);
		check(bfw_bucket_of(10, -10, &b) && b == -1, "window bucket: -10", "%" PRId64, b);
		check(bfw_bucket_of(10, -11, &b) && b == -2, "window bucket: -11", "%" PRId64, b);
		check(bfw_ring_pos(-1, 6) == 5 && bfw_ring_pos(-6, 6) == 0 && bfw_ring_pos(13, 6) == 1,
			  "window: ring position is floor modulo", " ");
		check(!bfw_bucket_of(1, INT64_MIN, &b) && !bfw_bucket_of(1, INT64_MAX, &b) &&
			  !bfw_bucket_of(10, INT64_MAX, &b),
			  "window bucket: ends of time refused", " ");
	}
}

void
test_window_rotation(void)
{
	const int64_t bw = 10 * TW_MIN;
	twindow		t = tw_new(BF_LAYOUT_BLOCKED, 7, 42, 2048, 6, bw);
	int			bad = 0;

	/* buckets 100..105: one key each, every slot used */
	for (int64_t b = 100; b < 106; b++)
		check(tw_add(&t, b, b * bw + 7), "window rotation: fill", "bucket %" PRId64, b);
	for (uint32_t i = 0; i < 6; i++)
	{
		int64_t		b = bfw_slot_bucket(&t.w, i);

		bad += bfw_ring_pos(b, 6) != i || b < 100 || b > 105;
	}
	check(bad == 0 && t.newest == 105 && bfw_newest(&t.w) == 105,
		  "window rotation: slots hold their buckets", "%d bad, newest %" PRId64, bad, t.newest);
	check(tw_validate_sealed(&t, NULL) == BFW_OK, "window rotation: full ring validates", " ");

	/* one bucket on: only bucket 100 goes, and its slot now holds 106 */
	check(tw_add(&t, 106, 106 * bw), "window rotation: advance by one", " ");
	check(bfw_slot_bucket(&t.w, bfw_ring_pos(106, 6)) == 106, "window rotation: reused slot", " ");
	for (int64_t key = 101; key <= 106; key++)
		check(tw_has(&t, key, 106 * bw), "window rotation: live keys kept", "key %" PRId64, key);
	check(!tw_has(&t, 100, 106 * bw) && !tw_has(&t, 100, 105 * bw),
		  "window rotation: evicted key gone", " ");

	/* a jump of more than G buckets empties every other slot */
	check(tw_add(&t, 500, 500 * bw), "window rotation: jump", " ");
	bad = 0;
	for (uint32_t i = 0; i < 6; i++)
		bad += (bfw_slot_bucket(&t.w, i) != BFW_EMPTY) != (i == bfw_ring_pos(500, 6));
	check(bad == 0, "window rotation: jump clears the rest", "%d slots wrong", bad);
	check(tw_validate_sealed(&t, NULL) == BFW_OK, "window rotation: after jump validates", " ");

	/* late keys: bucket newest - G is dropped, newest - G + 1 kept */
	{
		twindow		before = tw_copy(&t);

		check(!tw_add(&t, 7, 494 * bw + bw - 1), "window late: newest - G dropped", " ");
		check(memcmp(before.buf, t.buf, t.len) == 0, "window late: drop changes nothing", " ");
		check(!tw_add(&t, 7, -1000 * bw), "window late: far past dropped", " ");
		check(tw_add(&t, 8, 495 * bw), "window late: newest - G + 1 kept", " ");
		check(tw_has(&t, 8, 500 * bw) && !tw_has(&t, 7, 500 * bw), "window late: probes", " ");
		free(before.buf);
	}
	free(t.buf);
}

/*
 * The window at time at covers the buckets (b(at) - G, b(at)]: a key
 * added at time x is found from the start of its bucket until the end of
 * the bucket G - 1 later, that is for between width - bucket and width
 * after x, and never before its bucket starts.
 */
void
test_window_edges(void)
{
	const int64_t bw = 10 * TW_MIN;
	const int64_t epochs[3] = {0, -INT64_C(946684800000000), INT64_C(757382400000000)};

	for (int e = 0; e < 3; e++)
	{
		int64_t		x = epochs[e] + 3 * bw + 123;	/* inside a bucket */
		int64_t		start = epochs[e] + 3 * bw; /* that bucket's start */
		twindow		t = tw_new(BF_LAYOUT_CLASSIC, 5, 0, 4096, 6, bw);

		tw_add(&t, 1, x);
		check(tw_has(&t, 1, x) && tw_has(&t, 1, start), "window edges: at its own bucket", "epoch %d", e);
		check(!tw_has(&t, 1, start - 1), "window edges: not before its bucket", "epoch %d", e);
		check(tw_has(&t, 1, start + 6 * bw - 1), "window edges: last microsecond", "epoch %d", e);
		check(!tw_has(&t, 1, start + 6 * bw), "window edges: expired exactly at width after bucket start",
			  "epoch %d", e);
		/* the same edges for the union of live buckets */
		{
			tfilter		f = tf_new(BF_LAYOUT_CLASSIC, 5, 0, 4096);
			int64_t		b;

			bfw_bucket_of(bw, start + 6 * bw - 1, &b);
			f.v.added = bfw_union_live(&t.w, b, &f.v);
			check(tf_has_int(&f, 1) && f.v.added == 1, "window edges: union at last microsecond", " ");
			tf_free(&f);
			f = tf_new(BF_LAYOUT_CLASSIC, 5, 0, 4096);
			bfw_bucket_of(bw, start + 6 * bw, &b);
			f.v.added = bfw_union_live(&t.w, b, &f.v);
			check(!tf_has_int(&f, 1) && f.v.added == 0, "window edges: union after expiry", " ");
			tf_free(&f);
		}
		free(t.buf);
	}
}

/* Fisher-Yates over n (key, time) pairs. */
static void
shuffle_events(int64_t *keys, int64_t *times, size_t n, rng *r)
{
	for (size_t i = n - 1; i > 0; i--)
	{
		size_t		j = (size_t) rng_below(r, i + 1);
		int64_t		k = keys[i],
					t = times[i];

		keys[i] = keys[j];
		times[i] = times[j];
		keys[j] = k;
		times[j] = t;
	}
}

/*
 * A stream of events over 40 buckets, in shuffled orders and split into
 * parts merged in either order: the same bytes every time, no false
 * negative for any key of a kept bucket at any probe time, and a measured
 * rate near the target for keys never added.
 */
void
test_window_stream(void)
{
	const int64_t bw = 10 * TW_MIN;
	const size_t n = 20000;
	const uint32_t g = 6;
	int64_t    *keys = xmalloc(n * sizeof(int64_t));
	int64_t    *times = xmalloc(n * sizeof(int64_t));
	rng			r = {777};
	uint64_t	nbits;
	int			k;
	twindow		ref;
	int			fn = 0;
	size_t		checked = 0;
	int64_t		base = -7 * bw;		/* straddles 2000-01-01 */

	/* 500 keys per bucket at a window rate of 1%: 1 - 0.99^(1/6) each */
	bf_size_for(BF_LAYOUT_BLOCKED, 500, 1 - pow(0.99, 1.0 / g), &nbits, &k);
	for (size_t i = 0; i < n; i++)
	{
		keys[i] = (int64_t) i;
		times[i] = base + (int64_t) rng_below(&r, (uint64_t) (40 * bw));
	}
	ref = tw_new(BF_LAYOUT_BLOCKED, k, 0, nbits, g, bw);
	for (size_t i = 0; i < n; i++)
		tw_add(&ref, keys[i], times[i]);
	check(tw_validate_sealed(&ref, NULL) == BFW_OK, "window stream: validates", " ");

	/* no false negatives: every kept key, at every time its bucket is live */
	for (size_t i = 0; i < n; i++)
	{
		int64_t		b;

		bfw_bucket_of(bw, times[i], &b);
		if (!bfw_in_range(b, ref.newest, g))
			continue;
		for (int64_t at = b; at < b + g && at <= ref.newest; at++)
		{
			checked++;
			if (!bfw_probe_hash(&ref.w, at, bf_hash_int64(0, keys[i])) && fn++ == 0)
				check(false, "window stream: no false negatives", "key %" PRId64 " at bucket %" PRId64,
					  keys[i], at);
		}
	}
	check(fn == 0 && checked > 10000, "window stream: no false negatives (all)", "%d of %zu", fn, checked);

	/* the rate of keys never added, at the newest bucket */
	{
		int			fp = 0;
		const int	probes = 200000;

		for (int i = 0; i < probes; i++)
			fp += bfw_probe_hash(&ref.w, ref.newest, bf_hash_int64(0, (int64_t) n + 1000 + i));
		info("window stream: measured rate %.5f (target 0.01, buckets of ~500 keys)",
			 (double) fp / probes);
		check((double) fp / probes < 0.015, "window stream: rate near target", "%d of %d", fp, probes);
	}

	/* any order gives the same bytes */
	for (int rep = 0; rep < 3; rep++)
	{
		twindow		t = tw_new(BF_LAYOUT_BLOCKED, k, 0, nbits, g, bw);

		shuffle_events(keys, times, n, &r);
		for (size_t i = 0; i < n; i++)
			tw_add(&t, keys[i], times[i]);
		check(memcmp(t.buf, ref.buf, ref.len) == 0, "window stream: order does not matter", "rep %d", rep);
		free(t.buf);
	}

	/* parts merged in any order give the same bytes, as parallel plans must */
	for (int rep = 0; rep < 4; rep++)
	{
		twindow		parts[3];
		int			order[3] = {rep % 3, (rep + 1) % 3, (rep + 2) % 3};

		for (int p = 0; p < 3; p++)
			parts[p] = tw_new(BF_LAYOUT_BLOCKED, k, 0, nbits, g, bw);
		for (size_t i = 0; i < n; i++)
		{
			/* rep 3 splits by time, so one part holds only old buckets */
			size_t		p = rep == 3 ? (size_t) ((times[i] - base) / (14 * bw)) : (size_t) rng_below(&r, 3);

			tw_add(&parts[p], keys[i], times[i]);
		}
		if (rep == 3)
			check(tw_validate_sealed(&parts[0], NULL) == BFW_OK, "window merge: old part validates", " ");
		bfw_merge(&parts[order[0]].w, &parts[order[1]].w);
		bfw_merge(&parts[order[0]].w, &parts[order[2]].w);
		check(memcmp(parts[order[0]].buf, ref.buf, ref.len) == 0,
			  "window merge: same bytes as one pass", "rep %d", rep);
		for (int p = 0; p < 3; p++)
			free(parts[p].buf);
	}

	/* merging an empty window changes nothing; into one, copies */
	{
		twindow		e = tw_new(BF_LAYOUT_BLOCKED, k, 0, nbits, g, bw);
		twindow		c = tw_copy(&ref);

		bfw_merge(&c.w, &e.w);
		check(memcmp(c.buf, ref.buf, ref.len) == 0, "window merge: empty source", " ");
		bfw_merge(&e.w, &ref.w);
		check(memcmp(e.buf, ref.buf, ref.len) == 0, "window merge: empty destination", " ");
		free(e.buf);
		free(c.buf);
	}
	free(ref.buf);
	free(keys);
	free(times);
}

/* A window with keys in some slots and an empty slot, for mutation. */
static twindow
tw_sample(void)
{
	const int64_t bw = 10 * TW_MIN;
	twindow		t = tw_new(BF_LAYOUT_BLOCKED, 6, 9, 1024, 4, bw);

	for (int64_t key = 0; key < 40; key++)
		tw_add(&t, key, 1000 * bw + (key % 3) * bw + key);	/* buckets 1000..1002 */
	return t;
}

typedef struct wmut
{
	const char *name;
	size_t		off;			/* byte offset, or SIZE_MAX: the length */
	int			width;			/* 1, 2, 4, 8 */
	uint64_t	value;			/* stored little-endian */
	bfw_status	want;
	bf_status	inner;			/* for BFW_ERR_SLOT_FILTER */
} wmut;

void
test_window_validation(void)
{
	twindow		t = tw_sample();
	size_t		s0 = BFW_HEADER_SIZE;	/* slot 0 */
	size_t		ss = t.w.slot_size;
	uint32_t	used = bfw_ring_pos(1000, 4);	/* a used slot */
	uint32_t	empty = bfw_ring_pos(1003, 4);	/* the empty one */
	size_t		su = s0 + used * ss;
	size_t		se = s0 + empty * ss;
	size_t		fu = su + BFW_SLOT_OFF_FILTER;
	const wmut	muts[] = {
		{"magic", 3, 1, 'F', BFW_ERR_MAGIC, BF_OK},
		{"version", BFW_OFF_VERSION, 2, 2, BFW_ERR_VERSION, BF_OK},
		{"layout", BFW_OFF_LAYOUT, 1, 3, BFW_ERR_LAYOUT, BF_OK},
		{"hashes", BFW_OFF_HASHES, 1, 33, BFW_ERR_HASHES, BF_OK},
		{"nbits zero", BFW_OFF_NBITS, 8, 0, BFW_ERR_NBITS, BF_OK},
		{"nbits not whole", BFW_OFF_NBITS, 8, 1000, BFW_ERR_NBITS, BF_OK},
		{"nbits other", BFW_OFF_NBITS, 8, 512, BFW_ERR_SIZE, BF_OK},
		{"buckets zero", BFW_OFF_BUCKETS, 4, 0, BFW_ERR_BUCKETS, BF_OK},
		{"buckets too many", BFW_OFF_BUCKETS, 4, 1025, BFW_ERR_BUCKETS, BF_OK},
		{"buckets other", BFW_OFF_BUCKETS, 4, 5, BFW_ERR_WIDTH, BF_OK},
		{"bucket width zero", BFW_OFF_BUCKET, 8, 0, BFW_ERR_WIDTH, BF_OK},
		{"bucket width negative", BFW_OFF_BUCKET, 8, (uint64_t) -TW_MIN, BFW_ERR_WIDTH, BF_OK},
		{"window width", BFW_OFF_WIDTH, 8, 41 * TW_MIN, BFW_ERR_WIDTH, BF_OK},
		{"family", BFW_OFF_FAMILY, 2, 17, BFW_ERR_FAMILY, BF_OK},
		{"type tag without other", BFW_OFF_TYPETAG, 4, 25, BFW_ERR_FAMILY, BF_OK},
		{"flags", BFW_OFF_FLAGS, 2, 1, BFW_ERR_RESERVED, BF_OK},
		{"reserved", BFW_OFF_RESERVED, 4, 1, BFW_ERR_RESERVED, BF_OK},
		{"slot pad", su + ss - 4, 4, 1, BFW_ERR_RESERVED, BF_OK},
		{"slot filter magic", fu, 1, 'X', BFW_ERR_SLOT_FILTER, BF_ERR_MAGIC},
		{"slot filter version", fu + BF_OFF_VERSION, 2, 9, BFW_ERR_SLOT_FILTER, BF_ERR_VERSION},
		{"slot filter nbits", fu + BF_OFF_NBITS, 8, 512, BFW_ERR_SLOT_FILTER, BF_ERR_SIZE},
		{"slot filter checksum", fu + BF_OFF_CHECKSUM, 8, 1, BFW_ERR_SLOT_FILTER, BF_ERR_CHECKSUM},
		{"slot filter reserved", fu + BF_OFF_RESERVED, 4, 1, BFW_ERR_SLOT_FILTER, BF_ERR_RESERVED},
		{"slot filter added zero", fu + BF_OFF_ADDED, 8, 0, BFW_ERR_SLOT_FILTER, BF_ERR_ADDED},
		{"slot hashes", fu + BF_OFF_HASHES, 1, 7, BFW_ERR_SLOT_GEOMETRY, BF_OK},
		{"slot seed", fu + BF_OFF_SEED, 8, 10, BFW_ERR_SLOT_GEOMETRY, BF_OK},
		{"slot layout", fu + BF_OFF_LAYOUT, 1, 1, BFW_ERR_SLOT_GEOMETRY, BF_OK},
		{"slot family", fu + BF_OFF_FAMILY, 2, BF_FAMILY_TEXT, BFW_ERR_SLOT_FAMILY, BF_OK},
		{"bucket out of place", su, 8, 1001, BFW_ERR_SLOT_BUCKET, BF_OK},
		{"bucket at end of time", su, 8, (uint64_t) (INT64_MAX / (10 * TW_MIN) / 4 * 4 + used), BFW_ERR_SLOT_BUCKET, BF_OK},
		{"bucket stale", su, 8, 1000 - 4, BFW_ERR_STALE, BF_OK},
		{"empty slot with adds", se + BFW_SLOT_OFF_FILTER + BF_OFF_ADDED, 8, 1, BFW_ERR_SLOT_EMPTY, BF_OK},
		{"empty slot with family", se + BFW_SLOT_OFF_FILTER + BF_OFF_FAMILY, 2, 1, BFW_ERR_SLOT_EMPTY, BF_OK},
		{"empty slot with bits", se + BFW_SLOT_OFF_FILTER + BF_HEADER_SIZE, 1, 1, BFW_ERR_SLOT_FILTER, BF_ERR_ADDED},
		{"length short", SIZE_MAX, 0, 1, BFW_ERR_SIZE, BF_OK},
		{"length long", SIZE_MAX, 0, 2, BFW_ERR_SIZE, BF_OK},
		{"length header only", SIZE_MAX, 0, 3, BFW_ERR_SIZE, BF_OK},
		{"length truncated", SIZE_MAX, 0, 4, BFW_ERR_TRUNCATED, BF_OK},
		{"length tiny", SIZE_MAX, 0, 5, BFW_ERR_TRUNCATED, BF_OK},
	};

	check(tw_validate_sealed(&t, NULL) == BFW_OK, "window validation: sample is valid", " ");
	check(bfw_slot_bucket(&t.w, empty) == BFW_EMPTY, "window validation: sample has an empty slot", " ");

	for (size_t m = 0; m < sizeof(muts) / sizeof(muts[0]); m++)
	{
		size_t		len = t.len;
		uint8_t    *p;
		bfw_error	err;
		bfw_status	st;

		if (muts[m].off == SIZE_MAX)
			len = muts[m].value == 1 ? t.len - 1 : muts[m].value == 2 ? t.len + 1 :
				muts[m].value == 3 ? BFW_HEADER_SIZE : muts[m].value == 4 ? 40 : 5;
		p = copy_exact(t.buf, t.len, len);
		if (muts[m].off != SIZE_MAX)
		{
			uint8_t		le[8];

			bf_store_le64(le, muts[m].value);
			memcpy(p + muts[m].off, le, (size_t) muts[m].width);
		}
		/* the checksum is fixed up so that the check behind it is reached */
		if (len >= BFW_HEADER_SIZE)
			bfw_seal(p, len);
		st = bfw_validate(p, len, &err);
		check(st == muts[m].want && (st != BFW_ERR_SLOT_FILTER || err.inner == muts[m].inner),
			  "window validation: each field", "%s: status %d (%s) inner %d, want %d",
			  muts[m].name, (int) st, bfw_status_message(st), (int) err.inner, (int) muts[m].want);
		free(p);
	}

	/* the checksum itself, and the window family with no keys in slots */
	{
		uint8_t    *p = copy_exact(t.buf, t.len, t.len);

		bfw_seal(p, t.len);
		p[t.len - 7] ^= 0x10;	/* a slot pad byte: covered by the checksum */
		check(bfw_validate(p, t.len, NULL) == BFW_ERR_CHECKSUM, "window validation: checksum", " ");
		free(p);
	}
	{
		twindow		e = tw_new(BF_LAYOUT_BLOCKED, 6, 9, 1024, 4, 10 * TW_MIN);

		e.w.family = BF_FAMILY_INTEGER;
		bfw_store_header(&e.w);
		check(tw_validate_sealed(&e, NULL) == BFW_ERR_WINDOW_FAMILY, "window validation: family without keys", " ");
		free(e.buf);
	}

	/*
	 * Random mutations, resealed: any verdict but a crash (ASan) or an
	 * accepted window that cannot be probed, merged and unioned.
	 */
	{
		rng			r = {4242};
		int			accepted = 0;

		for (int it = 0; it < 20000; it++)
		{
			uint8_t    *p = copy_exact(t.buf, t.len, t.len);
			int			nmut = 1 + (int) rng_below(&r, 3);

			for (int m = 0; m < nmut; m++)
			{
				size_t		at = rng_below(&r, 3) == 0 ? (size_t) rng_below(&r, BFW_HEADER_SIZE) : (size_t) rng_below(&r, t.len);

				p[at] ^= (uint8_t) (1u << rng_below(&r, 8));
			}
			bfw_seal(p, t.len);
			if (bfw_validate(p, t.len, NULL) == BFW_OK)
			{
				bfw_view	w;
				twindow		c = tw_copy(&t);
				tfilter		f = tf_new(BF_LAYOUT_BLOCKED, 6, 9, 1024);

				accepted++;
				bfw_view_of(p, &w);
				for (int64_t key = 0; key < 50; key++)
					(void) bfw_probe_hash(&w, 1002, bf_hash_int64(9, key));
				if (bfw_same_geometry(&w, &c.w))
				{
					bfw_merge(&c.w, &w);
					(void) bfw_union_live(&c.w, 1002, &f.v);
				}
				free(c.buf);
				tf_free(&f);
			}
			free(p);
		}
		info("window mutations: %d of 20000 accepted (bit flips in key bits)", accepted);
		check(accepted > 0, "window validation: some mutations are harmless", " ");
	}
	free(t.buf);
}
