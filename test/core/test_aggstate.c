/*
 * test_aggstate.c
 *		Core unit tests: the aggregates' partial-state wire format
 *		(bf_aggstate.c): the layout byte for byte, round trips of every tag,
 *		and the refusal of every truncation and of each field out of range.
 */
#include "test_core.h"

#include "bf_aggstate.h"
#include "bf_problem.h"

static const bfa_target agg_target = {0.01, 7, 64, 1024};

/* An 'S' state of n hashes, with or without a sketch, exact-size. */
static uint8_t *
agg_buffer(bool with_sketch, const uint64_t *h, uint32_t n, size_t *len)
{
	uint8_t		sketch[BF_HLL_REGISTERS] = {0};
	uint8_t    *p;

	for (uint32_t i = 0; i < n; i++)
		bf_hll_add(sketch, h[i]);
	*len = bfa_buffer_len(with_sketch, n);
	p = xmalloc(*len);
	bfa_encode_buffer(p, &agg_target, BF_FAMILY_TEXT, 0, 1000 + n,
					  with_sketch ? sketch : NULL, h, n);
	return p;
}

/* A 'B' state of the n hashes, bucketed, exact-size. */
static uint8_t *
agg_bucketed(const uint64_t *h, uint32_t n, size_t *len)
{
	uint8_t		sketch[BF_HLL_REGISTERS] = {0};
	uint32_t	count[BF_HASH_BUCKETS] = {0};
	size_t		pos[BF_HASH_BUCKETS];
	uint8_t    *p;

	bf_count_buckets(h, n, count, sketch);
	(void) bf_bucket_starts(count, pos);
	*len = BFA_BUCKETED_HEAD + (size_t) n * 8;
	p = xmalloc(*len);
	bfa_encode_bucketed_head(p, &agg_target, BF_FAMILY_INTEGER, 0, n, sketch, n, count);
	/* scattered apart: the bytes at p + BFA_BUCKETED_HEAD are not aligned */
	{
		uint64_t   *sorted = xmalloc((size_t) n * 8);

		bf_scatter_buckets(h, n, pos, sorted);
		bfa_store_hashes(sorted, n);
		memcpy(p + BFA_BUCKETED_HEAD, sorted, (size_t) n * 8);
		free(sorted);
	}
	return p;
}

/* Every shorter copy of p is refused; returns how many were accepted. */
static int
truncations_accepted(const uint8_t *p, size_t len)
{
	int			bad = 0;

	for (size_t l = 0; l < len; l++)
	{
		uint8_t    *q = copy_exact(p, len, l);
		bfa_state	s;

		bad += bfa_decode(q, l, &s) == NULL;
		free(q);
	}
	return bad;
}

/* The reason a copy of p with byte off set to v is refused, or NULL. */
static const char *
with_byte(const uint8_t *p, size_t len, size_t off, uint8_t v)
{
	uint8_t    *q = copy_exact(p, len, len);
	bfa_state	s;
	const char *why;

	q[off] = v;
	why = bfa_decode(q, len, &s);
	free(q);
	return why;
}

static bool
same_str(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

void
test_aggstate_layout(void)
{
	uint64_t	h[3] = {UINT64_C(0x1122334455667788), 2, 3};
	size_t		len;
	uint8_t    *p = agg_buffer(false, h, 3, &len);
	uint64_t	fbits;
	double		fpr = 0.01;

	memcpy(&fbits, &fpr, 8);
	check(len == 1 + 21 + 14 + 1 + 4 + 24, "aggstate: 'S' length", "%zu", len);
	check(p[0] == 'S' && bf_load_le64(p + 1) == fbits && p[9] == 7 &&
		  bf_load_le64(p + 10) == 64 && bf_load_le32(p + 18) == 1024,
		  "aggstate: the target at 1: fpr, k, max_nblocks, buf_max", "tag %c", p[0]);
	check(bf_load_le16(p + 22) == BF_FAMILY_TEXT && bf_load_le32(p + 24) == 0 &&
		  bf_load_le64(p + 28) == 1003 && p[36] == 0 && bf_load_le32(p + 37) == 3 &&
		  bf_load_le64(p + 41) == h[0] && bf_load_le64(p + 57) == 3,
		  "aggstate: 'S' family, type tag, added, flag, count, hashes", "%s", "");
	free(p);
	check(BFA_BUCKETED_HEAD == 36 + BF_HLL_REGISTERS + 4 + 1024 + 4 &&
		  (4 + BFA_BUCKETED_HEAD) % 8 == 0,
		  "aggstate: 'B' head, hashes 8-byte aligned after a varlena header",
		  "%d", (int) BFA_BUCKETED_HEAD);
	{
		uint8_t		head[BFA_AUTO_FILTER_HEAD];
		uint8_t		sketch[BF_HLL_REGISTERS];

		memset(sketch, 3, sizeof(sketch));
		check(bfa_encode_filter_head(head, false, &agg_target, sketch) == 1 && head[0] == 'F',
			  "aggstate: 'F' head is the tag", "%s", "");
		check(bfa_encode_filter_head(head, true, &agg_target, sketch) == BFA_AUTO_FILTER_HEAD &&
			  head[0] == 'A' && head[9] == 7 && head[22] == 3 &&
			  head[BFA_AUTO_FILTER_HEAD - 1] == 3,
			  "aggstate: 'A' head: tag, target, sketch", "%s", "");
	}
}

void
test_aggstate_round_trip(void)
{
	rng			r = {77};
	int			bad = 0;

	for (int round = 0; round < 40; round++)
	{
		uint32_t	n = (uint32_t) rng_below(&r, 300);
		uint64_t   *h = xmalloc((size_t) n * 8);
		size_t		len;
		uint8_t    *p;
		bfa_state	s;

		for (uint32_t i = 0; i < n; i++)
			h[i] = rng_next(&r);
		p = agg_buffer(round % 2, h, n, &len);
		if (bfa_decode(p, len, &s) != NULL || s.tag != 'S' || s.count != n ||
			(s.sketch != NULL) != (round % 2) || s.family != BF_FAMILY_TEXT ||
			s.added != 1000 + n || s.target.fpr != 0.01 || s.target.hashes != 7 ||
			s.target.max_nblocks != 64 || s.target.buf_max != 1024)
			bad++;
		else
			for (uint32_t i = 0; i < n; i++)
				bad += bf_load_le64(s.hashes + 8 * i) != h[i];
		free(p);
		if (n <= agg_target.buf_max)
		{
			uint64_t	sum = 0;

			p = agg_bucketed(h, n, &len);
			if (bfa_decode(p, len, &s) != NULL || s.tag != 'B' || s.count != n ||
				s.sketch == NULL || s.hashes != p + BFA_BUCKETED_HEAD)
				bad++;
			else
				for (int b = 0; b < BF_HASH_BUCKETS; b++)
					sum += bf_load_le32(s.bucket_count + 4 * b);
			bad += sum != n;
			free(p);
		}
		free(h);
	}
	check(bad == 0, "aggstate: 'S' and 'B' states decode to what was encoded",
		  "%d differences", bad);

	{
		tfilter		f = tf_new(BF_LAYOUT_BLOCKED, 7, 0, 64 * BF_BLOCK_BITS);
		uint8_t		sketch[BF_HLL_REGISTERS] = {0};
		size_t		len = BFA_AUTO_FILTER_HEAD + f.len;
		uint8_t    *p = xmalloc(len);
		size_t		hlen;
		bfa_state	s;
		bf_view		v;

		tf_add_int(&f, 42);
		tf_seal(&f);
		hlen = bfa_encode_filter_head(p, true, &agg_target, sketch);
		memcpy(p + hlen, f.buf, f.len);
		check(bfa_decode(p, len, &s) == NULL && s.tag == 'A' &&
			  s.filter == p + BFA_AUTO_FILTER_HEAD && s.filter_len == f.len &&
			  bf_validate(s.filter, s.filter_len) == BF_OK,
			  "aggstate: an 'A' state gives its filter's bytes", "%s", "");
		bf_view_of(p + hlen, &v);
		check(bfa_check_filter(&s.target, &v) == NULL,
			  "aggstate: an 'A' state's filter matches its target", "%s", "");
		v.hashes = 6;
		check(same_str(bfa_check_filter(&s.target, &v), "filter does not match its target"),
			  "aggstate: a filter of other k does not match the target", "%s", "");
		v.hashes = 7;
		v.seed = 1;
		check(bfa_check_filter(&s.target, &v) != NULL,
			  "aggstate: a filter of other seed does not match the target", "%s", "");
		free(p);
		tf_free(&f);
	}
}

void
test_aggstate_validation(void)
{
	uint64_t	h[4] = {1, UINT64_C(0xff00000000000000), 3, 4};
	size_t		slen,
				blen;
	uint8_t    *sp = agg_buffer(true, h, 4, &slen);
	uint8_t    *bp = agg_bucketed(h, 4, &blen);
	uint8_t		one = 'F';
	uint8_t		x = 'Z';
	bfa_state	s;
	double		bad_fprs[] = {0.0, 1.0, -0.5, NAN};

	check(same_str(bfa_decode(&one, 0, &s), "empty"), "aggstate: empty is refused", "%s", "");
	check(same_str(bfa_decode(&x, 1, &s), "unknown tag"), "aggstate: unknown tag", "%s", "");
	check(truncations_accepted(sp, slen) == 0, "aggstate: every truncated 'S' state is refused",
		  "%d accepted", truncations_accepted(sp, slen));
	check(truncations_accepted(bp, blen) == 0, "aggstate: every truncated 'B' state is refused",
		  "%d accepted", truncations_accepted(bp, blen));
	{
		uint8_t    *q = copy_exact(sp, slen, slen + 1);

		check(bfa_decode(q, slen + 1, &s) != NULL, "aggstate: an 'S' state with a byte more is refused", "%s", "");
		free(q);
		q = copy_exact(bp, blen, blen + 8);
		check(bfa_decode(q, blen + 8, &s) != NULL, "aggstate: a 'B' state with a hash more is refused", "%s", "");
		free(q);
	}
	for (size_t i = 0; i < sizeof(bad_fprs) / sizeof(bad_fprs[0]); i++)
	{
		uint8_t    *q = copy_exact(sp, slen, slen);
		uint64_t	fbits;

		memcpy(&fbits, &bad_fprs[i], 8);
		bf_store_le64(q + 1, fbits);
		check(same_str(bfa_decode(q, slen, &s), "target out of range"),
			  "aggstate: a target rate out of (0, 1) is refused", "fpr %g", bad_fprs[i]);
		free(q);
	}
	check(same_str(with_byte(sp, slen, 9, 0), "target out of range") &&
		  same_str(with_byte(sp, slen, 9, BF_MAX_HASHES + 1), "target out of range"),
		  "aggstate: a target k out of range is refused", "%s", "");
	check(same_str(with_byte(sp, slen, 10, 3), "target out of range") &&
		  same_str(with_byte(sp, slen, 10, 0), "target out of range"),
		  "aggstate: a target max_nblocks not a power of two is refused", "%s", "");
	{
		uint8_t    *q = copy_exact(sp, slen, slen);

		bf_store_le32(q + 18, 0);
		check(same_str(bfa_decode(q, slen, &s), "target out of range"),
			  "aggstate: a target buf_max of 0 is refused", "%s", "");
		free(q);
	}
	check(same_str(with_byte(sp, slen, 22, BF_FAMILY_MAX + 1), "inconsistent buffer") &&
		  same_str(with_byte(bp, blen, 22, BF_FAMILY_MAX + 1), "inconsistent buffer"),
		  "aggstate: a family out of range is refused", "%s", "");
	check(same_str(with_byte(sp, slen, 22, BF_FAMILY_NONE), "inconsistent buffer") &&
		  same_str(with_byte(bp, blen, 22, BF_FAMILY_NONE), "inconsistent buffer"),
		  "aggstate: hashes under family none are refused", "%s", "");
	{
		uint8_t    *q = copy_exact(sp, slen, slen);

		bf_store_le64(q + 28, 0);
		check(same_str(bfa_decode(q, slen, &s), "inconsistent buffer"),
			  "aggstate: hashes with no added key recorded are refused", "%s", "");
		free(q);
		q = copy_exact(bp, blen, blen);
		bf_store_le64(q + 28, 0);
		check(same_str(bfa_decode(q, blen, &s), "inconsistent buffer"),
			  "aggstate: bucketed hashes with no added key recorded are refused", "%s", "");
		free(q);
	}
	check(same_str(with_byte(sp, slen, 36, 2), "inconsistent buffer"),
		  "aggstate: a sketch flag other than 0 or 1 is refused", "%s", "");
	check(same_str(with_byte(sp, slen, 37, 64 - BF_HLL_BITS + 2), "sketch register out of range") &&
		  same_str(with_byte(bp, blen, 36 + 5, 64 - BF_HLL_BITS + 2), "sketch register out of range") &&
		  with_byte(sp, slen, 37, 64 - BF_HLL_BITS + 1) == NULL,
		  "aggstate: a sketch register past 64 - b + 1 is refused", "%s", "");
	{
		size_t		counts = BFA_BUFFER_HEAD + BF_HLL_REGISTERS + 4;
		uint8_t    *q = copy_exact(bp, blen, blen);
		uint32_t	c0 = bf_load_le32(q + counts);

		/* a hash moved to another bucket: the counts no longer delimit them */
		bf_store_le32(q + counts, c0 + 1);
		check(same_str(bfa_decode(q, blen, &s), "inconsistent buffer"),
			  "aggstate: bucket counts that do not add up are refused", "%s", "");
		bf_store_le32(q + counts, c0);
		bf_store_le32(q + counts + 4 * BF_HASH_BUCKETS, 1);
		check(same_str(bfa_decode(q, blen, &s), "inconsistent buffer"),
			  "aggstate: a nonzero pad before the hashes is refused", "%s", "");
		free(q);
	}
	{
		/* more hashes than the target's buffer holds */
		bfa_target	small = agg_target;
		uint8_t    *q = copy_exact(bp, blen, blen);

		small.buf_max = 3;
		bfa_store_target(q + 1, &small);
		check(same_str(bfa_decode(q, blen, &s), "inconsistent buffer"),
			  "aggstate: a 'B' state past its buf_max is refused", "%s", "");
		free(q);
	}
	/* random single-byte changes: refused or decoded, never a bad read */
	{
		rng			r = {9};
		int			decoded = 0;

		for (int i = 0; i < 2000; i++)
		{
			const uint8_t *src = i % 2 ? sp : bp;
			size_t		len = i % 2 ? slen : blen;
			uint8_t    *q = copy_exact(src, len, len);

			q[rng_below(&r, len)] ^= (uint8_t) (1 + rng_below(&r, 255));
			decoded += bfa_decode(q, len, &s) == NULL;
			free(q);
		}
		info("aggstate: %d of 2000 mutated states decode", decoded);
		check(true, "aggstate: mutated states are read within their bytes", "%s", "");
	}
	free(sp);
	free(bp);
}

/*
 * bloomfilter_aggstate values: the 8-byte head, and bfas_diagnose refusing
 * a damaged head or payload with a reason, accepting the whole value.
 */
void
test_aggstate_values(void)
{
	uint64_t	h[3] = {5, 6, 7};
	size_t		slen;
	uint8_t    *sp = agg_buffer(true, h, 3, &slen);
	size_t		len = BFAS_HEAD_LEN + slen;
	uint8_t    *v = malloc(len);
	bf_problem	pr;

	bfas_store_head(v, BFAS_KIND_BLOOM);
	memcpy(v + BFAS_HEAD_LEN, sp, slen);
	check(memcmp(v, "BFAS", 4) == 0 && bf_load_le16(v + 4) == BFAS_FORMAT_VERSION &&
		  v[6] == 'b' && v[7] == 0 && bfas_kind(v, len) == 'b',
		  "aggstate value: head is magic, version, kind, zero", "%s", "");
	check(bfas_diagnose(v, len, &pr) && pr.cls == BF_PROBLEM_NONE,
		  "aggstate value: a whole 'b' value is accepted", "%s", pr.what);
	check(!bfas_diagnose(v, 7, &pr) && strstr(pr.what, "truncated") != NULL,
		  "aggstate value: 7 bytes are truncated", "%s", pr.what);
	check(!bfas_diagnose(v, len - 1, &pr) && pr.cls == BF_PROBLEM_INVALID,
		  "aggstate value: a payload one byte short is refused", "%s", pr.what);
	v[4] = 2;
	check(!bfas_diagnose(v, len, &pr) && pr.cls == BF_PROBLEM_NEWER_FORMAT &&
		  bfas_kind(v, len) == 0,
		  "aggstate value: a newer version is refused with the upgrade class", "%s", pr.what);
	v[4] = 1;
	v[6] = 'x';
	check(!bfas_diagnose(v, len, &pr) && strstr(pr.what, "unknown kind") != NULL,
		  "aggstate value: an unknown kind is refused", "%s", pr.what);
	v[6] = 'c';
	check(!bfas_diagnose(v, len, &pr) && strstr(pr.what, "countingbloom") != NULL,
		  "aggstate value: a bloom_agg payload under kind 'c' is not a countingbloom", "%s", pr.what);
	v[6] = 'b';
	v[7] = 1;
	check(!bfas_diagnose(v, len, &pr), "aggstate value: the reserved byte must be 0", "%s", pr.what);
	v[7] = 0;
	v[0] = 'X';
	check(!bfas_diagnose(v, len, &pr) && strstr(pr.what, "bad magic") != NULL,
		  "aggstate value: a bad magic is refused", "%s", pr.what);
	free(v);
	free(sp);
}

/*
 * An 'E' state (an explicitly sized bloom_agg's hashes): byte layout, round
 * trip, every truncation and each field out of range refused.
 */
void
test_aggstate_explicit(void)
{
	uint64_t	h[3] = {1, UINT64_C(0xff00000000000000), 3};
	uint64_t	nbits = 4 * BF_BLOCK_BITS;	/* room for 16 hashes */
	size_t		len = bfa_explicit_len(3);
	uint8_t    *p = xmalloc(len);
	uint8_t    *q;
	bfa_state	s;
	const char *why;

	check(len == BFA_EXPLICIT_HEAD + 24 && BFA_EXPLICIT_HEAD == 36,
		  "aggstate E: 36 bytes of head, 8 per hash", "%zu", len);
	bfa_encode_explicit(p, 7, nbits, BF_FAMILY_INTEGER, 0, 5, h, 3);
	check(p[0] == 'E' && p[1] == 7 && bf_load_le64(p + 2) == nbits &&
		  bf_load_le16(p + 10) == BF_FAMILY_INTEGER && bf_load_le64(p + 16) == 5 &&
		  bf_load_le32(p + 24) == 3 && bf_load_le64(p + 28) == bfa_explicit_checksum(p, len) &&
		  bf_load_le64(p + 36 + 8) == h[1],
		  "aggstate E: the layout, field by field", "%s", "");
	why = bfa_decode(p, len, &s);
	check(why == NULL && s.tag == 'E' && s.ex_hashes == 7 && s.ex_nbits == nbits &&
		  s.family == BF_FAMILY_INTEGER && s.added == 5 && s.count == 3 &&
		  bf_load_le64(s.hashes + 16) == 3,
		  "aggstate E: decodes to what was encoded", "%s", why ? why : "");
	check(truncations_accepted(p, len) == 0, "aggstate E: every truncation is refused",
		  "%d accepted", truncations_accepted(p, len));
	q = copy_exact(p, len, len + 8);
	check(bfa_decode(q, len + 8, &s) != NULL, "aggstate E: a hash more is refused", "%s", "");
	free(q);

	/* a bit of a hash, or of the head, altered: the checksum refuses it */
	q = copy_exact(p, len, len);
	q[len - 1] ^= 0x80;
	check(same_str(bfa_decode(q, len, &s), "checksum does not match"),
		  "aggstate E: a flipped bit of a hash is refused (its key would probe false)", "%s", "");
	q[len - 1] ^= 0x80;
	q[17] ^= 1;
	check(same_str(bfa_decode(q, len, &s), "checksum does not match"),
		  "aggstate E: a flipped bit of added is refused", "%s", "");
	free(q);

	/* fields out of range (checked before the checksum) */
	q = copy_exact(p, len, len);
	q[1] = 0;
	check(bfa_decode(q, len, &s) != NULL, "aggstate E: k = 0 is refused", "%s", "");
	q[1] = BF_MAX_HASHES + 1;
	check(bfa_decode(q, len, &s) != NULL, "aggstate E: k too large is refused", "%s", "");
	q[1] = 7;
	bf_store_le64(q + 2, nbits + 64);
	check(bfa_decode(q, len, &s) != NULL, "aggstate E: nbits not whole blocks is refused", "%s", "");
	bf_store_le64(q + 2, 0);
	check(bfa_decode(q, len, &s) != NULL, "aggstate E: nbits 0 is refused", "%s", "");
	bf_store_le64(q + 2, nbits);
	bf_store_le16(q + 10, BF_FAMILY_MAX + 1);
	check(bfa_decode(q, len, &s) != NULL, "aggstate E: unknown family is refused", "%s", "");
	bf_store_le16(q + 10, BF_FAMILY_NONE);
	check(bfa_decode(q, len, &s) != NULL,
		  "aggstate E: hashes under family none are refused (they would probe false)", "%s", "");
	bf_store_le16(q + 10, BF_FAMILY_INTEGER);
	bf_store_le64(q + 16, 2);
	check(bfa_decode(q, len, &s) != NULL, "aggstate E: fewer rows added than hashes is refused", "%s", "");
	bf_store_le64(q + 16, 5);
	check(bfa_decode(q, len, &s) == NULL, "aggstate E: the copy restored is accepted", "%s", "");
	free(q);
	free(p);

	/* a state with no keys yet: family none, added 0, no hash */
	len = bfa_explicit_len(0);
	p = xmalloc(len);
	bfa_encode_explicit(p, 7, nbits, BF_FAMILY_NONE, 0, 0, NULL, 0);
	check(bfa_decode(p, len, &s) == NULL && s.count == 0,
		  "aggstate E: an empty state is accepted", "%s", "");
	/* too many hashes for the filter: 17 for 4 blocks */
	free(p);
	{
		uint64_t	many[17] = {0};

		len = bfa_explicit_len(17);
		p = xmalloc(len);
		bfa_encode_explicit(p, 7, nbits, BF_FAMILY_INTEGER, 0, 17, many, 17);
		check(bfa_decode(p, len, &s) != NULL,
			  "aggstate E: 17 hashes for 4 blocks (more than half their bytes) are refused", "%s", "");
		free(p);
	}
}
