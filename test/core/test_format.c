/*
 * test_format.c
 *		Core unit tests: the geometry checks and the portable format (bf_format.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"
#include "bf_aggstate.h"

/* ---- 1. geometry ---- */

void
test_geometry(void)
{
	static const struct
	{
		int			layout;
		int			hashes;
		uint64_t	nbits;
		bf_status	want;
	}			cases[] = {
		{BF_LAYOUT_CLASSIC, 7, 64, BF_OK},
		{BF_LAYOUT_CLASSIC, 7, 128, BF_OK},
		{BF_LAYOUT_BLOCKED, 7, 512, BF_OK},
		{BF_LAYOUT_BLOCKED, 7, 1536, BF_OK},
		{BF_LAYOUT_CLASSIC, 1, 64, BF_OK},
		{BF_LAYOUT_CLASSIC, 32, 64, BF_OK},
		{BF_LAYOUT_BLOCKED, 1, 512, BF_OK},
		{BF_LAYOUT_BLOCKED, 32, 512, BF_OK},
		{BF_LAYOUT_CLASSIC, 7, BF_MAX_NBITS, BF_OK},
		{BF_LAYOUT_BLOCKED, 7, BF_MAX_NBITS, BF_OK},
		{0, 7, 512, BF_ERR_LAYOUT},
		{3, 7, 512, BF_ERR_LAYOUT},
		{-1, 7, 512, BF_ERR_LAYOUT},
		{255, 7, 512, BF_ERR_LAYOUT},
		{BF_LAYOUT_CLASSIC, 0, 512, BF_ERR_HASHES},
		{BF_LAYOUT_CLASSIC, 33, 512, BF_ERR_HASHES},
		{BF_LAYOUT_BLOCKED, 0, 512, BF_ERR_HASHES},
		{BF_LAYOUT_BLOCKED, 33, 512, BF_ERR_HASHES},
		{BF_LAYOUT_BLOCKED, -1, 512, BF_ERR_HASHES},
		{BF_LAYOUT_CLASSIC, 7, 0, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, 0, BF_ERR_NBITS},
		{BF_LAYOUT_CLASSIC, 7, 63, BF_ERR_NBITS},
		{BF_LAYOUT_CLASSIC, 7, 65, BF_ERR_NBITS},
		{BF_LAYOUT_CLASSIC, 7, 8, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, 64, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, 576, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, 1024 + 256, BF_ERR_NBITS},
		{BF_LAYOUT_CLASSIC, 7, BF_MAX_NBITS + 64, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, BF_MAX_NBITS + 512, BF_ERR_NBITS},
		{BF_LAYOUT_CLASSIC, 7, UINT64_MAX - 63, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, UINT64_MAX - 511, BF_ERR_NBITS},
		{BF_LAYOUT_BLOCKED, 7, UINT64_C(1) << 63, BF_ERR_NBITS},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bf_status	got = bf_check_geometry(cases[i].layout, cases[i].hashes,
											cases[i].nbits);

		check(got == cases[i].want, "geometry",
			  "bf_check_geometry(%d, %d, %" PRIu64 ") = %d, want %d",
			  cases[i].layout, cases[i].hashes, cases[i].nbits,
			  (int) got, (int) cases[i].want);
	}

	/*
	 * The largest filter must fit PostgreSQL's 1 GB allocation limit twice
	 * over: as a varlena (4-byte header) and as its text form (base64 plus
	 * a terminator), or it could be stored but never dumped.  The largest
	 * plus one block must not.  The blocked block count must fit the
	 * 32-bit multiply-shift.
	 */
	check(bf_buffer_size(BF_MAX_NBITS) + 4 <= (size_t) 0x3fffffff &&
		  bf_base64_encoded_len(bf_buffer_size(BF_MAX_NBITS)) + 1 <= (size_t) 0x3fffffff,
		  "geometry: max size fits 1 GB", "bf_buffer_size(BF_MAX_NBITS) = %zu, text %zu",
		  bf_buffer_size(BF_MAX_NBITS),
		  bf_base64_encoded_len(bf_buffer_size(BF_MAX_NBITS)));
	check(bf_base64_encoded_len(bf_buffer_size(BF_MAX_NBITS + BF_BLOCK_BITS)) + 1 >
		  (size_t) 0x3fffffff,
		  "geometry: max size is the largest", "one more block still fits: "
		  "BF_MAX_NBITS = %" PRIu64, (uint64_t) BF_MAX_NBITS);
	check(BF_MAX_NBITS % BF_BLOCK_BITS == 0 &&
		  BF_MAX_NBITS / BF_BLOCK_BITS <= UINT32_MAX,
		  "geometry: max blocks", "BF_MAX_NBITS = %" PRIu64,
		  (uint64_t) BF_MAX_NBITS);

	/* Names round-trip, and unknown ones are reported as such. */
	for (int i = 0; i < 2; i++)
		check(bf_layout_from_name(bf_layout_name(layouts[i])) == layouts[i],
			  "geometry: layout names", "layout %d -> \"%s\"", layouts[i],
			  bf_layout_name(layouts[i]));
	check(bf_layout_from_name("Classic") == 0 &&
		  bf_layout_from_name("") == 0 &&
		  strcmp(bf_layout_name(3), "parquet") == 0 && bf_layout_from_name("parquet") == BF_LAYOUT_PARQUET &&
		  strcmp(bf_layout_name(4), "spark") == 0 && bf_layout_from_name("spark") == BF_LAYOUT_SPARK &&
		  strcmp(bf_layout_name(9), "unknown") == 0,
		  "geometry: unknown layout names", "accepted a bad name");
	for (int a = BF_FAMILY_NONE; a <= BF_FAMILY_MAX; a++)
	{
		bool		ok = bf_family_name(a)[0] != '\0' &&
			strcmp(bf_family_name(a), "unknown") != 0;

		for (int b = BF_FAMILY_NONE; b < a; b++)
			if (strcmp(bf_family_name(a), bf_family_name(b)) == 0)
				ok = false;
		check(ok, "geometry: family names", "family %d is \"%s\"", a,
			  bf_family_name(a));
	}
	/* layout spark's family of filters read from Spark comes next */
	check(BF_FAMILY_SPARK == BF_FAMILY_MAX + 1 &&
		  strcmp(bf_family_name(BF_FAMILY_SPARK), "spark") == 0,
		  "geometry: spark family name", "got \"%s\"", bf_family_name(BF_FAMILY_SPARK));
	check(strcmp(bf_family_name(BF_FAMILY_SPARK + 1), "unknown") == 0,
		  "geometry: unknown family name", "got \"%s\"",
		  bf_family_name(BF_FAMILY_SPARK + 1));
}


/* ---- 5. the portable format ---- */

/* A sealed filter with some integer keys, the subject of the format tests. */
tfilter
sealed_filter(int layout, uint64_t nbits, int nkeys)
{
	tfilter		f = tf_new(layout, 5, UINT64_C(0x0123456789abcdef), nbits);

	for (int64_t i = 0; i < nkeys; i++)
		tf_add_int(&f, i * 7919);
	tf_seal(&f);
	return f;
}

void
store_field(uint8_t *buf, int off, int width, uint64_t value)
{
	for (int i = 0; i < width; i++)
		buf[off + i] = (uint8_t) (value >> (8 * i));
}

void
test_format_statuses(void)
{
	for (int li = 0; li < 2; li++)
	{
		int			layout = layouts[li];
		tfilter		f = sealed_filter(layout, 4096, 200);
		const char *ln = bf_layout_name(layout);
		uint64_t	nbits = f.v.nbits;
		const field_case cases[] = {
			{"magic byte 0", BF_OFF_MAGIC, 1, 'b', BF_ERR_MAGIC},
			{"magic byte 1", BF_OFF_MAGIC + 1, 1, 'l', BF_ERR_MAGIC},
			{"magic byte 2", BF_OFF_MAGIC + 2, 1, 'N', BF_ERR_MAGIC},
			{"magic byte 3", BF_OFF_MAGIC + 3, 1, 'G', BF_ERR_MAGIC},
			{"magic", BF_OFF_MAGIC, 4, 0, BF_ERR_MAGIC},
			{"version 3", BF_OFF_VERSION, 2, 3, BF_ERR_VERSION},
			{"version 0", BF_OFF_VERSION, 2, 0, BF_ERR_VERSION},
			{"version 0x0101", BF_OFF_VERSION, 2, 0x0101, BF_ERR_VERSION},
			{"layout 0", BF_OFF_LAYOUT, 1, 0, BF_ERR_LAYOUT},
			{"layout 3", BF_OFF_LAYOUT, 1, 3, BF_ERR_LAYOUT},
			{"layout 255", BF_OFF_LAYOUT, 1, 255, BF_ERR_LAYOUT},
			{"hashes 0", BF_OFF_HASHES, 1, 0, BF_ERR_HASHES},
			{"hashes 33", BF_OFF_HASHES, 1, 33, BF_ERR_HASHES},
			{"hashes 255", BF_OFF_HASHES, 1, 255, BF_ERR_HASHES},
			{"nbits 0", BF_OFF_NBITS, 8, 0, BF_ERR_NBITS},
			{"nbits odd", BF_OFF_NBITS, 8, nbits + 1, BF_ERR_NBITS},
			{"nbits not a word", BF_OFF_NBITS, 8, nbits - 8, BF_ERR_NBITS},
			{"nbits not a block", BF_OFF_NBITS, 8, nbits - 64,
			layout == BF_LAYOUT_BLOCKED ? BF_ERR_NBITS : BF_ERR_SIZE},
			{"nbits huge", BF_OFF_NBITS, 8, BF_MAX_NBITS + 512, BF_ERR_NBITS},
			{"nbits max", BF_OFF_NBITS, 8, BF_MAX_NBITS, BF_ERR_SIZE},
			{"nbits all ones", BF_OFF_NBITS, 8, UINT64_MAX, BF_ERR_NBITS},
			{"nbits 2^63", BF_OFF_NBITS, 8, UINT64_C(1) << 63, BF_ERR_NBITS},
			{"nbits doubled", BF_OFF_NBITS, 8, nbits * 2, BF_ERR_SIZE},
			{"family 17", BF_OFF_FAMILY, 2, 17, BF_ERR_FAMILY},
			{"family 0xffff", BF_OFF_FAMILY, 2, 0xffff, BF_ERR_FAMILY},
			{"family other, tag 0", BF_OFF_FAMILY, 2, BF_FAMILY_OTHER, BF_ERR_FAMILY},
			{"family enum, tag 0", BF_OFF_FAMILY, 2, BF_FAMILY_ENUM, BF_ERR_FAMILY},
			{"family composite, tag 0", BF_OFF_FAMILY, 2, BF_FAMILY_COMPOSITE, BF_ERR_FAMILY},
			{"family hashed, tag 0", BF_OFF_FAMILY, 2, BF_FAMILY_HASHED, BF_ERR_FAMILY},
			{"tag with integer", BF_OFF_TYPETAG, 4, 23, BF_ERR_FAMILY},
			{"flags", BF_OFF_FLAGS, 2, 1, BF_ERR_RESERVED},
			{"flags high", BF_OFF_FLAGS + 1, 1, 0x80, BF_ERR_RESERVED},
			{"reserved", BF_OFF_RESERVED, 4, 1, BF_ERR_RESERVED},
			{"reserved high", BF_OFF_RESERVED + 3, 1, 0x80, BF_ERR_RESERVED},
			{"added 0", BF_OFF_ADDED, 8, 0, BF_ERR_ADDED},
			{"family none", BF_OFF_FAMILY, 2, BF_FAMILY_NONE, BF_ERR_ADDED},
			/* Fields that may hold anything: still valid. */
			{"added huge", BF_OFF_ADDED, 8, UINT64_MAX, BF_OK},
			{"seed", BF_OFF_SEED, 8, 0, BF_OK},
			{"family text", BF_OFF_FAMILY, 2, BF_FAMILY_TEXT, BF_OK},
		};
		uint8_t    *p;
		bf_status	st;

		/* The sealed filter, and an empty one, are valid. */
		st = bf_validate(f.buf, f.len);
		check(st == BF_OK, "format: sealed filter valid", "%s: status %d", ln, (int) st);
		{
			tfilter		e = tf_new(layout, 7, 0, 512);

			bf_seal(e.buf, e.len);
			st = bf_validate(e.buf, e.len);
			check(st == BF_OK, "format: empty filter valid", "%s: status %d", ln, (int) st);
			tf_free(&e);
		}

		/*
		 * Sealing writes the checksum; unsealing zeroes it (the in-memory
		 * form), and sealing again restores the same bytes.
		 */
		{
			tfilter		c = tf_copy(&f);

			bf_unseal(c.buf);
			check(bf_load_le64(c.buf + BF_OFF_CHECKSUM) == 0 &&
				  bf_validate(c.buf, c.len) == BF_ERR_CHECKSUM,
				  "format: unseal", "%s", ln);
			bf_seal(c.buf, c.len);
			check(memcmp(c.buf, f.buf, f.len) == 0 &&
				  bf_load_le64(c.buf + BF_OFF_CHECKSUM) == bf_checksum(c.buf, c.len),
				  "format: reseal", "%s", ln);
			tf_free(&c);
		}

		/* The header is what FORMAT.md says, byte by byte. */
		check(memcmp(f.buf, "BLMF", 4) == 0 &&
			  bf_load_le16(f.buf + BF_OFF_VERSION) == BF_FORMAT_VERSION &&
			  f.buf[BF_OFF_LAYOUT] == layout && f.buf[BF_OFF_HASHES] == 5 &&
			  bf_load_le64(f.buf + BF_OFF_SEED) == UINT64_C(0x0123456789abcdef) &&
			  f.buf[BF_OFF_SEED] == 0xef &&
			  bf_load_le64(f.buf + BF_OFF_NBITS) == 4096 &&
			  bf_load_le64(f.buf + BF_OFF_ADDED) == 200 &&
			  bf_load_le16(f.buf + BF_OFF_FAMILY) == BF_FAMILY_INTEGER &&
			  f.len == BF_HEADER_SIZE + 512,
			  "format: header fields", "%s", ln);

		/* Every proper prefix is too short to be a filter. */
		for (size_t len = 0; len < BF_HEADER_SIZE; len++)
		{
			p = copy_exact(f.buf, f.len, len);
			st = bf_validate(p, len);
			check(st == BF_ERR_TRUNCATED, "format: truncated header",
				  "%s: %zu bytes gave status %d", ln, len, (int) st);
			free(p);
		}

		/* Truncated inside the bits, or one byte short or long. */
		{
			static const long deltas[] = {-1, +1, -8, +8, -64, +64, -511, -512};

			for (size_t i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++)
			{
				size_t		len = (size_t) ((long) f.len + deltas[i]);

				p = copy_exact(f.buf, f.len, len);
				bf_seal(p, len);
				st = bf_validate(p, len);
				check(st == BF_ERR_SIZE, "format: length mismatch",
					  "%s: length %+ld gave status %d", ln, deltas[i], (int) st);
				free(p);
			}
		}

		/*
		 * Each field mutation, with the checksum recomputed (so that it is
		 * the field that is rejected, not the checksum) and without (the
		 * field checks come first, so the answer is the same).
		 */
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			for (int reseal = 1; reseal >= 0; reseal--)
			{
				bf_status	want = cases[i].want;

				p = copy_exact(f.buf, f.len, f.len);
				store_field(p, cases[i].off, cases[i].width, cases[i].value);
				if (reseal)
					bf_seal(p, f.len);
				else if (want == BF_OK || want == BF_ERR_ADDED)
					want = BF_ERR_CHECKSUM;
				st = bf_validate(p, f.len);
				check(st == want, "format: field mutation",
					  "%s: %s (%s) gave status %d, want %d", ln, cases[i].what,
					  reseal ? "resealed" : "stale checksum", (int) st, (int) want);
				free(p);
			}
		}

		/* A type tag goes with "other" keys, and only with them. */
		p = copy_exact(f.buf, f.len, f.len);
		store_field(p, BF_OFF_FAMILY, 2, BF_FAMILY_OTHER);
		store_field(p, BF_OFF_TYPETAG, 4, 600);
		bf_seal(p, f.len);
		st = bf_validate(p, f.len);
		check(st == BF_OK, "format: other with tag", "%s: status %d", ln, (int) st);
		store_field(p, BF_OFF_FAMILY, 2, BF_FAMILY_NONE);
		bf_seal(p, f.len);
		st = bf_validate(p, f.len);
		check(st == BF_ERR_FAMILY, "format: none with tag", "%s: status %d", ln, (int) st);
		free(p);

		/*
		 * Any flipped bit, in the bits or in a header field the structural
		 * checks cannot catch (seed, added, k within range), breaks the
		 * checksum; so does a corrupted checksum field.
		 */
		{
			static const int flips[] = {
				BF_HEADER_SIZE * 8, BF_HEADER_SIZE * 8 + 1234, (BF_HEADER_SIZE + 511) * 8 + 7,
				BF_OFF_SEED * 8 + 3, BF_OFF_ADDED * 8 + 60, BF_OFF_HASHES * 8 + 1,
				BF_OFF_CHECKSUM * 8, BF_OFF_CHECKSUM * 8 + 63,
			};

			for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++)
			{
				p = copy_exact(f.buf, f.len, f.len);
				p[flips[i] / 8] ^= (uint8_t) (1u << (flips[i] % 8));
				st = bf_validate(p, f.len);
				check(st == BF_ERR_CHECKSUM, "format: flipped bit",
					  "%s: bit %d gave status %d", ln, flips[i], (int) st);
				free(p);
			}
		}

		/*
		 * Bits set in a filter that records no key (family none) even with a
		 * correct checksum: such a filter could not type-check its probes.
		 */
		{
			tfilter		e = tf_new(layout, 5, 0, 4096);

			e.v.bits[100] = 0x10;
			bf_seal(e.buf, e.len);
			st = bf_validate(e.buf, e.len);
			check(st == BF_ERR_ADDED, "format: bits without keys",
				  "%s: status %d", ln, (int) st);
			e.v.bits[100] = 0;
			e.v.bits[511] = 0x80;	/* the very last bit */
			bf_seal(e.buf, e.len);
			st = bf_validate(e.buf, e.len);
			check(st == BF_ERR_ADDED, "format: last bit without keys",
				  "%s: status %d", ln, (int) st);
			tf_free(&e);
		}
		tf_free(&f);
	}

	/* Every status has its own message, and none is empty. */
	for (int a = BF_OK; a <= BF_ERR_ADDED; a++)
	{
		const char *ma = bf_status_message((bf_status) a);
		bool		ok = ma != NULL && ma[0] != '\0';

		for (int b = BF_OK; ok && b < a; b++)
			if (strcmp(ma, bf_status_message((bf_status) b)) == 0)
				ok = false;
		check(ok, "format: status messages", "status %d: \"%s\"", a, ma ? ma : "(null)");
	}
	for (int a = BF_COMPAT_OK; a <= BF_COMPAT_SIZE; a++)
	{
		const char *ma = bf_compat_message((bf_compat) a);
		bool		ok = ma != NULL && ma[0] != '\0';

		for (int b = BF_COMPAT_OK; ok && b < a; b++)
			if (strcmp(ma, bf_compat_message((bf_compat) b)) == 0)
				ok = false;
		check(ok, "format: compat messages", "reason %d: \"%s\"", a, ma ? ma : "(null)");
	}
}

/*
 * Uses a buffer that bf_validate accepted the way the extension would:
 * probe, insert, estimate, and combine it with a known-good filter.  Under
 * ASan any out-of-bounds access aborts the run.  Returns a description of
 * the first broken invariant, or NULL.
 */
static const char *
exercise_valid(uint8_t *buf, size_t len, const tfilter *good, rng *r)
{
	bf_view		v;
	uint64_t	nout;
	double		est;
	uint64_t	pop;

	bf_view_of(buf, &v);
	if (bf_check_geometry(v.layout, v.hashes, v.nbits) != BF_OK)
		return "accepted a bad geometry";
	if (bf_buffer_size(v.nbits) != len)
		return "accepted a length that does not match nbits";
	if (v.family > BF_FAMILY_MAX)
		return "accepted a bad family";

	pop = bf_popcount(&v);
	if (pop > v.nbits)
		return "popcount above nbits";
	est = bf_est_cardinality(&v);
	if (!isfinite(est) || est < 0)
		return "cardinality estimate not finite";
	est = bf_est_fpr(&v);
	if (!(est >= 0.0 && est <= 1.0))
		return "fpr estimate out of [0, 1]";

	for (int i = 0; i < 64; i++)
		(void) bf_probe_hash(&v, rng_next(r));

	/* Combine with the good filter when the core says they combine. */
	if (bf_compatible(&good->v, &v, &nout) == BF_COMPAT_OK)
	{
		tfilter		u = tf_new(v.layout, v.hashes, v.seed, nout);
		tfilter		s = tf_new(v.layout, v.hashes, v.seed, nout);

		if (bf_compatible(&v, &good->v, &nout) != BF_COMPAT_OK)
			return "bf_compatible not symmetric";
		bf_fold_or(&u.v, &good->v);
		bf_fold_or(&u.v, &v);
		bf_merge_family(&u.v, &good->v, &v);
		bf_fold_or(&s.v, &v);
		if (!bf_is_superset(&u.v, &s.v))
			return "union is not a superset of its part";
		bf_and(&s.v, &u.v);
		bf_or(&s.v, &u.v);
		if (!tf_same_bits(&s, &u))
			return "(s & u) | u != u";
		(void) bf_est_cardinality(&u.v);
		(void) bf_est_fpr(&u.v);
		tf_free(&u);
		tf_free(&s);
	}

	/* Self-combination and inserting into it in place. */
	if (!bf_is_superset(&v, &v))
		return "a filter is not a superset of itself";
	bf_or(&v, &v);
	bf_and(&v, &v);
	if (bf_popcount(&v) != pop)
		return "v | v or v & v changed the bits";
	for (int i = 0; i < 16; i++)
	{
		uint64_t	h = rng_next(r);

		bf_insert_hash(&v, h);
		if (!bf_probe_hash(&v, h))
			return "inserted hash not found";
	}
	return NULL;
}

/*
 * Applies one random mutation to *pbuf / *plen, reallocating to the exact
 * new length when it changes.  Returns a short name of what was done.
 */
const char *
mutate(uint8_t **pbuf, size_t *plen, rng *r)
{
	static const struct
	{
		int			off;
		int			width;
	}			fields[] = {
		{BF_OFF_MAGIC, 4}, {BF_OFF_VERSION, 2}, {BF_OFF_LAYOUT, 1},
		{BF_OFF_HASHES, 1}, {BF_OFF_SEED, 8}, {BF_OFF_NBITS, 8},
		{BF_OFF_ADDED, 8}, {BF_OFF_FAMILY, 2}, {BF_OFF_FLAGS, 2},
		{BF_OFF_TYPETAG, 4}, {BF_OFF_RESERVED, 4}, {BF_OFF_CHECKSUM, 8},
	};
	uint8_t    *buf = *pbuf;
	size_t		len = *plen;

	switch (rng_below(r, 6))
	{
		case 0:
			if (len == 0)
				return "nothing";
			buf[rng_below(r, len)] ^= (uint8_t) (1u << rng_below(r, 8));
			return "bit flip";
		case 1:
			{
				static const uint8_t vals[] = {0x00, 0xff};

				if (len == 0)
					return "nothing";
				buf[rng_below(r, len)] = rng_below(r, 3) == 2 ?
					(uint8_t) rng_next(r) : vals[rng_below(r, 2)];
				return "byte overwrite";
			}
		case 2:
			{
				/* Mostly short cuts (inside the header), sometimes anywhere. */
				size_t		newlen = rng_below(r, 2) ?
					(size_t) rng_below(r, BF_HEADER_SIZE + 1) :
					(size_t) rng_below(r, len + 1);

				*pbuf = copy_exact(buf, len, newlen);
				*plen = newlen;
				free(buf);
				return "truncation";
			}
		case 3:
			{
				/*
				 * Longer buffers: a few stray bytes, or whole words or
				 * blocks with nbits raised to match (a plausible larger
				 * filter that the checksum then decides on).
				 */
				size_t		extra;
				uint8_t    *p;

				switch (rng_below(r, 3))
				{
					case 0:
						extra = 1 + (size_t) rng_below(r, 16);
						break;
					case 1:
						extra = 8 * (1 + (size_t) rng_below(r, 8));
						break;
					default:
						extra = len > BF_HEADER_SIZE ? len - BF_HEADER_SIZE : 64;
						break;
				}
				p = copy_exact(buf, len, len + extra);
				if (rng_below(r, 2))
					rng_fill(r, p + len, extra);
				if (len >= BF_HEADER_SIZE && extra % 8 == 0 && rng_below(r, 4))
					bf_store_le64(p + BF_OFF_NBITS,
								  bf_load_le64(p + BF_OFF_NBITS) + extra * 8);
				free(buf);
				*pbuf = p;
				*plen = len + extra;
				return "extension";
			}
		default:
			{
				/* A header field set to an extreme or a plausible value. */
				int			fi = (int) rng_below(r, sizeof(fields) / sizeof(fields[0]));
				int			off = fields[fi].off;
				int			width = fields[fi].width;
				uint64_t	ones = width == 8 ? UINT64_MAX :
					(UINT64_C(1) << (8 * width)) - 1;
				uint64_t	value;

				switch (rng_below(r, 8))
				{
					case 0:
						value = 0;
						break;
					case 1:
						value = ones;
						break;
					case 2:
						value = UINT64_C(1) << (8 * width - 1);
						break;
					case 3:
						value = rng_next(r) & ones;
						break;
					case 4:
						value = rng_below(r, 40);
						break;
					case 5:
						value = ones - rng_below(r, 4);
						break;
					case 6:
						/* sizes near this length's, for nbits */
						value = (len > BF_HEADER_SIZE ? (len - BF_HEADER_SIZE) * 8 : 0) +
							(uint64_t) ((int64_t) rng_below(r, 17) - 8) * 64;
						break;
					default:
						value = rng_below(r, 2) ? BF_MAX_NBITS : BF_MAX_NBITS + 512;
						break;
				}
				if ((size_t) (off + width) > len)
					return "nothing";
				store_field(buf, off, width, value & ones);
				return "header field";
			}
	}
}

/*
 * About 20000 random mutations of valid filters.  bf_validate must read
 * nothing past the length it is given (ASan), and whatever it accepts must
 * be safe to use.  In half of the cases the checksum is recomputed so that
 * the checks behind it (the added-count check, and acceptance itself) are
 * reached.
 */
void
test_format_mutations(void)
{
	tfilter		bases[4];
	rng			r = {20240611};
	int			counts[BF_ERR_ADDED + 1] = {0};
	int			broken = 0;
	char		first[200] = "";
	const int	iterations = 20000;

	bases[0] = sealed_filter(BF_LAYOUT_CLASSIC, 2048, 150);
	bases[1] = sealed_filter(BF_LAYOUT_BLOCKED, 2048, 150);
	bases[2] = sealed_filter(BF_LAYOUT_CLASSIC, 64, 3);
	bases[3] = tf_new(BF_LAYOUT_BLOCKED, 5, UINT64_C(0x0123456789abcdef), 512);
	bf_seal(bases[3].buf, bases[3].len);	/* empty, family none */

	for (int it = 0; it < iterations; it++)
	{
		const tfilter *base = &bases[it % 4];
		size_t		len = base->len;
		uint8_t    *p = copy_exact(base->buf, base->len, len);
		int			nmut = 1 + (int) rng_below(&r, 3);
		const char *what = "";
		bf_status	st,
					st2;

		for (int m = 0; m < nmut; m++)
			what = mutate(&p, &len, &r);
		if (len >= BF_HEADER_SIZE && rng_below(&r, 2))
			bf_seal(p, len);

		st = bf_validate(p, len);
		st2 = bf_validate(p, len);
		if ((int) st < BF_OK || (int) st > BF_ERR_ADDED)
		{
			if (broken++ == 0)
				snprintf(first, sizeof(first), "iteration %d (%s): status %d",
						 it, what, (int) st);
		}
		else
			counts[st]++;
		if (st != st2 && broken++ == 0)
			snprintf(first, sizeof(first), "iteration %d (%s): status %d then %d",
					 it, what, (int) st, (int) st2);
		if (st == BF_OK)
		{
			const char *why = exercise_valid(p, len, &bases[it % 2], &r);

			if (why != NULL && broken++ == 0)
				snprintf(first, sizeof(first), "iteration %d (%s): %s",
						 it, what, why);
		}
		free(p);
	}

	info("mutations: ok=%d truncated=%d magic=%d version=%d layout=%d hashes=%d "
		 "nbits=%d size=%d family=%d reserved=%d checksum=%d added=%d",
		 counts[BF_OK], counts[BF_ERR_TRUNCATED], counts[BF_ERR_MAGIC],
		 counts[BF_ERR_VERSION], counts[BF_ERR_LAYOUT], counts[BF_ERR_HASHES],
		 counts[BF_ERR_NBITS], counts[BF_ERR_SIZE], counts[BF_ERR_FAMILY],
		 counts[BF_ERR_RESERVED], counts[BF_ERR_CHECKSUM], counts[BF_ERR_ADDED]);
	check(broken == 0, "format: mutations", "%d broken, first %s", broken, first);

	/*
	 * The loop is only worth something if it reaches every outcome,
	 * acceptance included.
	 */
	for (int s = BF_OK; s <= BF_ERR_ADDED; s++)
		check(counts[s] > 0, "format: mutations reach every status",
			  "status %d (%s) never returned", s, bf_status_message((bf_status) s));

	for (int i = 0; i < 4; i++)
		tf_free(&bases[i]);
}

/*
 * bf_format_version reads the version of a value of every type from the
 * same place, as written by each type's own init, and says when a buffer
 * is too short to hold it.
 */
void
test_format_version_field(void)
{
	uint8_t		filter[BF_HEADER_SIZE + 64];
	uint8_t    *counting = xmalloc(bfc_buffer_size(512, 4));
	uint8_t    *window = xmalloc(bfw_buffer_size(2, 512));
	uint8_t		state[BFAS_HEAD_LEN];
	unsigned	v = 0;

	bf_init(filter, BF_LAYOUT_BLOCKED, 5, 0, 512);
	check(bf_format_version(filter, sizeof(filter), &v) && v == BF_FORMAT_VERSION,
		  "format_version_bloomfilter", "read %u", v);
	bfc_init(counting, BF_LAYOUT_BLOCKED, 5, 0, 512, 4);
	check(bf_format_version(counting, bfc_buffer_size(512, 4), &v) && v == BFC_FORMAT_VERSION,
		  "format_version_counting", "read %u", v);
	bfw_init(window, BF_LAYOUT_BLOCKED, 5, 0, 512, 2, 1000000);
	check(bf_format_version(window, bfw_buffer_size(2, 512), &v) && v == BFW_FORMAT_VERSION,
		  "format_version_window", "read %u", v);
	bfas_store_head(state, BFAS_KIND_BLOOM);
	check(bf_format_version(state, sizeof(state), &v) && v == BFAS_FORMAT_VERSION,
		  "format_version_aggstate", "read %u", v);
	v = 77;
	check(!bf_format_version(filter, BF_OFF_ANY_VERSION + 1, &v) && v == 77,
		  "format_version_short", "a 5-byte buffer read as version %u", v);
	free(counting);
	free(window);
}
