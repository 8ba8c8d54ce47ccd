/*
 * test_problem.c
 *		Core unit tests: the words of a refusal (core bf_problem.c) for the
 *		four formats: the message, detail, hint and class the server shows.
 *
 * The expected sentences are the ones the pg_regress expected files show
 * (bloom_errors, bloom_counting, bloom_window, bloom_scalable); here each
 * is checked on its own, and the four types are checked to agree.
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

#include "bf_problem.h"

typedef bool (*diagnose_fn) (const uint8_t *buf, size_t len, bf_problem *p);

/* A sealed, valid value of each format, in its own exact-size buffer. */
typedef struct tvalue
{
	const char *typname;
	diagnose_fn diagnose;
	int			header_size;
	uint8_t    *buf;
	size_t		len;
} tvalue;

static tvalue
tv_filter(void)
{
	tfilter		f = sealed_filter(BF_LAYOUT_BLOCKED, 4096, 100);
	tvalue		t = {"bloomfilter", bf_diagnose, BF_HEADER_SIZE, f.buf, f.len};

	return t;
}

static tvalue
tv_counting(void)
{
	tvalue		t = {"countingbloom", bfc_diagnose, BF_HEADER_SIZE, NULL, 0};

	t.len = bfc_buffer_size(1024, 4);
	t.buf = xmalloc(t.len);
	bfc_init(t.buf, BF_LAYOUT_BLOCKED, 4, 7, 1024, 4);
	bf_seal(t.buf, t.len);
	return t;
}

static tvalue
tv_window(void)
{
	tvalue		t = {"bloomwindow", bfw_diagnose, BFW_HEADER_SIZE, NULL, 0};

	t.len = (size_t) bfw_buffer_size(4, 1024);
	t.buf = xmalloc(t.len);
	bfw_init(t.buf, BF_LAYOUT_BLOCKED, 6, 9, 1024, 4, INT64_C(600000000));
	bfw_seal(t.buf, t.len);
	return t;
}

static tvalue
tv_scalable(void)
{
	tfilter		f = sealed_filter(BF_LAYOUT_BLOCKED, 4096, 100);
	tvalue		t = {"scalablebloom", bfs_diagnose, BFS_HEADER_SIZE, NULL, 0};

	bf_unseal(f.buf);
	bf_view_of(f.buf, &f.v);
	t.len = bfs_wrap_size(f.v.nbits);
	t.buf = xmalloc(t.len);
	bfs_wrap(t.buf, &f.v, 0.01, 2, 0.85);
	bfs_seal(t.buf, t.len);
	tf_free(&f);
	return t;
}

static void
tv_free(tvalue *t)
{
	free(t->buf);
}

/* t's bytes with a little-endian field set and, if asked, resealed. */
static bool
tv_diagnose_with(const tvalue *t, size_t off, int width, uint64_t value,
				 bool reseal, bf_problem *p)
{
	uint8_t    *b = copy_exact(t->buf, t->len, t->len);
	bool		ok;

	store_field(b, (int) off, width, value);
	if (reseal)
	{
		if (t->diagnose == bfw_diagnose)
			bfw_seal(b, t->len);
		else if (t->diagnose == bfs_diagnose)
			bfs_seal(b, t->len);
		else
			bf_seal(b, t->len);
	}
	ok = t->diagnose(b, t->len, p);
	free(b);
	return ok;
}

static bool
same(const char *got, const char *want)
{
	return strcmp(got, want) == 0;
}

/* A problem's three texts against the expected ones ("" for none). */
static void
check_problem(const char *name, const bf_problem *p, bf_problem_class cls,
			  const char *what, const char *detail, const char *hint)
{
	check(p->cls == cls, name, "class %d, want %d", (int) p->cls, (int) cls);
	check(same(p->what, what), name, "message \"%s\", want \"%s\"", p->what, what);
	check(same(p->detail, detail), name, "detail \"%s\", want \"%s\"", p->detail, detail);
	check(same(p->hint, hint), name, "hint \"%s\", want \"%s\"", p->hint, hint);
}

/* Valid values pass with no problem; every type words the shared cases alike. */
void
test_problem_shared(void)
{
	tvalue		vals[4] = {tv_filter(), tv_counting(), tv_window(), tv_scalable()};

	for (int i = 0; i < 4; i++)
	{
		tvalue	   *t = &vals[i];
		const char *noun = t->diagnose == bfw_diagnose ? "window" : "filter";
		bf_problem	p;
		char		what[BF_PROBLEM_TEXT],
					detail[BF_PROBLEM_TEXT],
					hint[BF_PROBLEM_TEXT];
		bool		ok;

		ok = t->diagnose(t->buf, t->len, &p);
		check(ok && p.cls == BF_PROBLEM_NONE && p.what[0] == '\0',
			  "problem: a valid value has none", "%s: ok %d, class %d, \"%s\"",
			  t->typname, ok, (int) p.cls, p.what);

		/* a newer version: detail, and the hint to upgrade, for every type */
		ok = tv_diagnose_with(t, BF_OFF_VERSION, 2, 3, true, &p);
		snprintf(what, sizeof(what), "invalid %s: the format version is not one this build reads", t->typname);
		/* a bloomfilter reads versions 1 and 2 (FORMAT.md, "Version 2") */
		snprintf(detail, sizeof(detail), "The %s has format version 3; this build of bloomfilter reads %s.",
				 noun, t->diagnose == bf_diagnose ? "versions 1 to 2" : "version 1");
		snprintf(hint, sizeof(hint), "The %s was written by a newer bloomfilter; upgrade the extension on this server.", noun);
		check(!ok, "problem: newer version refused", "%s", t->typname);
		check_problem("problem: newer version", &p, BF_PROBLEM_NEWER_FORMAT,
					  what, detail, hint);

		/* an older one was never written: no reason to upgrade */
		(void) tv_diagnose_with(t, BF_OFF_VERSION, 2, 0, true, &p);
		snprintf(detail, sizeof(detail), "The %s has format version 0; this build of bloomfilter reads %s.",
				 noun, t->diagnose == bf_diagnose ? "versions 1 to 2" : "version 1");
		check_problem("problem: version 0", &p, BF_PROBLEM_INVALID, what, detail, "");

		/* a short header, at every length below it */
		for (size_t len = 0; len < (size_t) t->header_size; len++)
		{
			uint8_t    *b = copy_exact(t->buf, t->len, len ? len : 1);

			ok = t->diagnose(b, len, &p);
			free(b);
			snprintf(what, sizeof(what), "invalid %s: the buffer is shorter than a %s header",
					 t->typname, t->typname);
			snprintf(detail, sizeof(detail), "A %s takes at least %d bytes; %zu bytes were given.",
					 t->typname, t->header_size, len);
			if (!check(!ok, "problem: short header refused", "%s, %zu bytes", t->typname, len))
				continue;
			check_problem("problem: short header", &p, BF_PROBLEM_INVALID, what, detail, "");
		}

		/* an altered byte behind a right header: the checksum, no detail */
		{
			uint8_t    *b = copy_exact(t->buf, t->len, t->len);

			b[t->len - 1] ^= 0x40;
			ok = t->diagnose(b, t->len, &p);
			free(b);
			snprintf(what, sizeof(what), "invalid %s: the checksum does not match the contents", t->typname);
			check(!ok, "problem: checksum refused", "%s", t->typname);
			check_problem("problem: checksum", &p, BF_PROBLEM_INVALID, what, "", "");
		}
	}
	for (int i = 0; i < 4; i++)
		tv_free(&vals[i]);
}

/* The details of each format, as the pg_regress expected files show them. */
void
test_problem_details(void)
{
	tvalue		f = tv_filter();
	tvalue		c = tv_counting();
	tvalue		w = tv_window();
	tvalue		s = tv_scalable();
	bf_problem	p;

	/* bloomfilter */
	(void) tv_diagnose_with(&f, BF_OFF_LAYOUT, 1, 3, true, &p);
	check_problem("problem: bloomfilter layout", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: the layout is unknown",
				  "The layout byte is 3; 1 is classic and 2 is blocked.", "");
	(void) tv_diagnose_with(&f, BF_OFF_HASHES, 1, 33, true, &p);
	check_problem("problem: bloomfilter hashes", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: the number of hashes is out of range",
				  "The header gives 33 hashes; a filter uses 1 to 32.", "");
	(void) tv_diagnose_with(&f, BF_OFF_NBITS, 8, 64, true, &p);
	check_problem("problem: bloomfilter bits", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: the number of bits is zero, too large, or not a whole number of words or blocks",
				  "The header gives 64 bits for a blocked filter; it needs a positive multiple of 512, at most 6442450432.", "");
	(void) tv_diagnose_with(&f, BF_OFF_NBITS, 8, 512, true, &p);
	check_problem("problem: bloomfilter size", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: the length does not match the number of bits in the header",
				  "The header gives 512 bits, which take 116 bytes with the header, but 564 bytes were given.", "");
	(void) tv_diagnose_with(&f, BF_OFF_FAMILY, 2, 17, true, &p);
	check_problem("problem: bloomfilter family", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: the key family or type tag is invalid",
				  "The header gives key family 17 with type tag 0; families go from 0 to 16, and families 11, 14, 15 and 16, and only they, have a type tag.", "");
	(void) f.diagnose(c.buf, c.len, &p);
	check_problem("problem: counting bytes read as a bloomfilter", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: this is a counting Bloom filter (magic \"BLMC\"), not a bloomfilter",
				  "", "Read it as a countingbloom, and convert it with cbloom_to_bloom() or a cast to bloomfilter.");
	(void) tv_diagnose_with(&f, 3, 1, 'X', false, &p);
	check_problem("problem: bloomfilter magic", &p, BF_PROBLEM_INVALID,
				  "invalid bloomfilter: the buffer does not start with the bloomfilter magic \"BLMF\"", "", "");

	/* countingbloom */
	(void) c.diagnose(f.buf, f.len, &p);
	check_problem("problem: bloomfilter bytes read as a countingbloom", &p, BF_PROBLEM_INVALID,
				  "invalid countingbloom: this is a bloomfilter (magic \"BLMF\"), not a counting Bloom filter",
				  "", "A bloomfilter has bits, not counters, and cannot become a countingbloom; read it as a bloomfilter.");
	(void) tv_diagnose_with(&c, BFC_OFF_WIDTH, 2, 5, true, &p);
	check_problem("problem: countingbloom width", &p, BF_PROBLEM_INVALID,
				  "invalid countingbloom: the counter width is not 4 or 8",
				  "The header gives 5 bits per counter.", "");
	(void) tv_diagnose_with(&c, BFC_OFF_WIDTH, 2, 8, true, &p);
	check_problem("problem: countingbloom size", &p, BF_PROBLEM_INVALID,
				  "invalid countingbloom: the length does not match the number of counters and the counter width in the header",
				  "The header gives 1024 counters of 8 bits, which take 1076 bytes with the header, but 564 bytes were given.", "");

	/* bloomwindow */
	(void) tv_diagnose_with(&w, BFW_OFF_BUCKETS, 4, 0, true, &p);
	check_problem("problem: bloomwindow buckets", &p, BF_PROBLEM_INVALID,
				  "invalid bloomwindow: the number of buckets is out of range",
				  "The header gives 0 buckets; a window has 1 to 1024.", "");
	{
		uint8_t    *b = copy_exact(w.buf, w.len, w.len + 1);
		char		detail[BF_PROBLEM_TEXT];
		size_t		f0 = BFW_HEADER_SIZE + BFW_SLOT_OFF_FILTER;	/* slot 0's filter */

		bfw_seal(b, w.len + 1);
		(void) w.diagnose(b, w.len + 1, &p);
		free(b);
		snprintf(detail, sizeof(detail),
				 "The header gives 4 buckets of 1024 bits, which take %zu bytes with the header, but %zu bytes were given.",
				 w.len, w.len + 1);
		check_problem("problem: bloomwindow size", &p, BF_PROBLEM_INVALID,
					  "invalid bloomwindow: the length does not match the number of buckets and bits in the header",
					  detail, "");
		(void) tv_diagnose_with(&w, f0 + 3, 1, 'X', true, &p);
		check_problem("problem: bloomwindow slot filter", &p, BF_PROBLEM_INVALID,
					  "invalid bloomwindow: a bucket's filter is invalid",
					  "The filter of slot 0 is invalid: the buffer does not start with the bloomfilter magic \"BLMF\".", "");
		(void) tv_diagnose_with(&w, f0 + BF_OFF_CHECKSUM, 8, 1, true, &p);
		check_problem("problem: bloomwindow slot checksum", &p, BF_PROBLEM_INVALID,
					  "invalid bloomwindow: a bucket's filter is invalid",
					  "The filter of slot 0 is invalid: its checksum field is not zero (the window's checksum covers it).", "");
		(void) tv_diagnose_with(&w, f0 + BF_OFF_HASHES, 1, 7, true, &p);
		check(p.cls == BF_PROBLEM_INVALID && same(p.detail, "The first such slot is slot 0."),
			  "problem: bloomwindow slot geometry", "\"%s\" / \"%s\"", p.what, p.detail);
	}

	/* scalablebloom */
	(void) tv_diagnose_with(&s, BFS_OFF_NFILTERS, 4, 0, true, &p);
	check_problem("problem: scalablebloom count", &p, BF_PROBLEM_INVALID,
				  "invalid scalablebloom: the number of sub-filters is zero or too large",
				  "The header gives 0 sub-filters; a scalablebloom has 1 to 1024.", "");
	(void) tv_diagnose_with(&s, BFS_HEADER_SIZE + BFS_ENTRY_HEADER_SIZE + BF_OFF_HASHES, 1, 0, true, &p);
	check_problem("problem: scalablebloom entry", &p, BF_PROBLEM_INVALID,
				  "invalid scalablebloom: a sub-filter is not a valid bloomfilter",
				  "Sub-filter 0: the number of hashes is out of range.", "");
	(void) tv_diagnose_with(&s, BFS_HEADER_SIZE + BFS_EOFF_TAG, 8, 1, true, &p);
	check_problem("problem: scalablebloom mismatch", &p, BF_PROBLEM_INVALID,
				  "invalid scalablebloom: a sub-filter's layout, seed, tag or key family differs from the container's",
				  "The first such sub-filter is number 0.", "");

	/* a stored datum */
	bf_problem_damaged(&p, "scalablebloom", 12);
	check_problem("problem: damaged datum", &p, BF_PROBLEM_DAMAGED,
				  "scalablebloom datum is damaged: its header does not match its 12 bytes", "", "");

	tv_free(&f);
	tv_free(&c);
	tv_free(&w);
	tv_free(&s);
}

/*
 * Arbitrary bytes: whatever the validator says, the words fit their
 * buffers and say something (ASan watches the reads of the header fields
 * behind a failed validation).
 */
void
test_problem_arbitrary(void)
{
	tvalue		vals[4] = {tv_filter(), tv_counting(), tv_window(), tv_scalable()};
	rng			r = {20211};
	int			bad = 0;

	for (int i = 0; i < 4; i++)
		for (int round = 0; round < 2000; round++)
		{
			tvalue	   *t = &vals[i];
			size_t		len = (size_t) rng_below(&r, t->len + 2);
			uint8_t    *b = copy_exact(t->buf, t->len, len ? len : 1);
			bf_problem	p;
			bool		ok;

			/* a few random bytes changed, resealed half of the time */
			for (int m = 0; m < 3 && len > 0; m++)
				b[rng_below(&r, len)] = (uint8_t) rng_next(&r);
			if ((round & 1) && len >= (size_t) t->header_size)
			{
				if (t->diagnose == bfw_diagnose)
					bfw_seal(b, len);
				else if (t->diagnose == bfs_diagnose)
					bfs_seal(b, len);
				else
					bf_seal(b, len);
			}
			ok = t->diagnose(b, len, &p);
			if (ok != (p.cls == BF_PROBLEM_NONE) ||
				(!ok && (strncmp(p.what, "invalid ", 8) != 0 ||
						 strlen(p.what) + 1 >= sizeof(p.what) ||
						 strlen(p.detail) + 1 >= sizeof(p.detail) ||
						 strlen(p.hint) + 1 >= sizeof(p.hint))))
				bad++;
			free(b);
		}
	check(bad == 0, "problem: arbitrary bytes", "%d malformed problems", bad);
	for (int i = 0; i < 4; i++)
		tv_free(&vals[i]);
}
