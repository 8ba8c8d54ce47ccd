/*
 * bf_problem.c
 *		Why a value's bytes were refused, in the words the user sees: one
 *		function per format runs its validator and describes what it found.
 *
 * The details read header fields of bytes that failed validation, so each
 * read is guarded by what the failed status proves: a status past
 * TRUNCATED means the whole header is there (every validator checks the
 * magic and version on the first bytes, then the header's length, before
 * anything else).  test/fuzz/fuzz_problem.c runs these on arbitrary bytes.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bf_problem.h"
#include "bf_counting.h"
#include "bf_window.h"
#include "bf_scalable.h"
#include "bf_aggstate.h"

/* What the sentences of one format name, and what they compare with. */
typedef struct format_words
{
	const char *typname;		/* "bloomfilter", ... */
	const char *noun;			/* "filter" or "window", in the details */
	int			header_size;
	int			version;		/* the newest format version this build reads */
	int			min_version;	/* the oldest */
	/* the format's status codes for the cases every format words alike */
	int			ok;
	int			truncated;
	int			bad_version;
} format_words;

static const format_words filter_words = {
	"bloomfilter", "filter", BF_HEADER_SIZE, BF_FORMAT_VERSION_MAX, 1,
	BF_OK, BF_ERR_TRUNCATED, BF_ERR_VERSION
};
static const format_words counting_words = {
	"countingbloom", "filter", BF_HEADER_SIZE, BFC_FORMAT_VERSION, BFC_FORMAT_VERSION,
	BF_OK, BF_ERR_TRUNCATED, BF_ERR_VERSION
};
static const format_words window_words = {
	"bloomwindow", "window", BFW_HEADER_SIZE, BFW_FORMAT_VERSION, BFW_FORMAT_VERSION,
	BFW_OK, BFW_ERR_TRUNCATED, BFW_ERR_VERSION
};
static const format_words scalable_words = {
	"scalablebloom", "filter", BFS_HEADER_SIZE, BFS_FORMAT_VERSION, BFS_FORMAT_VERSION,
	BFS_OK, BFS_ERR_TRUNCATED, BFS_ERR_VERSION
};

/* every format keeps its version at the same offset, behind the magic */
#if BF_OFF_VERSION != BF_OFF_ANY_VERSION || BFW_OFF_VERSION != BF_OFF_ANY_VERSION || \
	BFS_OFF_VERSION != BF_OFF_ANY_VERSION
#error "a format's version field moved: bf_format_version reads offset 4"
#endif

static void set_detail(bf_problem *p, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

static void
set_detail(bf_problem *p, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
	va_end(ap);
}

/*
 * The bytes are the sibling format's, a likely mistake: the message says
 * what they are, the hint what to do.
 */
static void
sibling_problem(bf_problem *p, const format_words *f, const char *what,
				const char *hint)
{
	snprintf(p->what, sizeof(p->what), "invalid %s: %s", f->typname, what);
	snprintf(p->hint, sizeof(p->hint), "%s", hint);
}

static void
truncated_problem(bf_problem *p, const format_words *f, size_t len)
{
	set_detail(p, "A %s takes at least %d bytes; %zu bytes were given.",
			   f->typname, f->header_size, len);
}

/*
 * A format version this build does not read.  Only a newer version is a
 * reason to upgrade (an older one was never written: the first version is
 * 1), so only it gets the hint and the NEWER_FORMAT class.
 */
static void
version_problem(bf_problem *p, const format_words *f, const uint8_t *buf)
{
	unsigned	version = bf_load_le16(buf + BF_OFF_VERSION);

	if (f->min_version < f->version)
		set_detail(p, "The %s has format version %u; this build of bloomfilter reads versions %d to %d.",
				   f->noun, version, f->min_version, f->version);
	else
		set_detail(p, "The %s has format version %u; this build of bloomfilter reads version %d.",
				   f->noun, version, f->version);
	if (version > (unsigned) f->version)
	{
		p->cls = BF_PROBLEM_NEWER_FORMAT;
		snprintf(p->hint, sizeof(p->hint),
				 "The %s was written by a newer bloomfilter; upgrade the extension on this server.",
				 f->noun);
	}
}

/*
 * Starts p for status st of format f (message: the status in words).
 * Returns true if nothing is left to say: the bytes are valid, or the
 * status is one every format words alike (a short header, a version).
 * Otherwise p says "invalid <type>: <message>", class INVALID, and the
 * caller adds the format's own detail.
 */
static bool
start(bf_problem *p, const format_words *f, int st, const char *message,
	  const uint8_t *buf, size_t len)
{
	p->cls = BF_PROBLEM_NONE;
	p->what[0] = '\0';
	p->detail[0] = '\0';
	p->hint[0] = '\0';
	if (st == f->ok)
		return true;
	p->cls = BF_PROBLEM_INVALID;
	snprintf(p->what, sizeof(p->what), "invalid %s: %s", f->typname, message);
	if (st == f->truncated)
		truncated_problem(p, f, len);
	else if (st == f->bad_version)
		version_problem(p, f, buf);
	else
		return false;
	return true;
}

/* ---- bloomfilter ---- */

bool
bf_diagnose(const uint8_t *buf, size_t len, bf_problem *p)
{
	bf_status	st = bf_validate(buf, len);

	if (start(p, &filter_words, (int) st, bf_status_message(st), buf, len))
		return st == BF_OK;
	switch (st)
	{
		case BF_ERR_MAGIC:
			if (bfc_is_counting_magic(buf, len))
				sibling_problem(p, &filter_words,
								"this is a counting Bloom filter (magic \"BLMC\"), not a bloomfilter",
								"Read it as a countingbloom, and convert it with cbloom_to_bloom() or a cast to bloomfilter.");
			break;
		case BF_ERR_LAYOUT:
			if (bf_load_le16(buf + BF_OFF_VERSION) == BF_FORMAT_VERSION)
				set_detail(p, "The layout byte is %u; 1 is classic and 2 is blocked.",
						   (unsigned) buf[BF_OFF_LAYOUT]);
			else
				set_detail(p, "The layout byte is %u; format version 2 has 1 (classic), 2 (blocked), 3 (parquet) and 4 (spark).",
						   (unsigned) buf[BF_OFF_LAYOUT]);
			break;
		case BF_ERR_HASHES:
			if (buf[BF_OFF_LAYOUT] == BF_LAYOUT_PARQUET)
				set_detail(p, "The header gives %u hashes; a parquet filter uses %d.",
						   (unsigned) buf[BF_OFF_HASHES], BF_PARQUET_HASHES);
			else
				set_detail(p, "The header gives %u hashes; a filter uses %d to %d.",
						   (unsigned) buf[BF_OFF_HASHES], BF_MIN_HASHES, BF_MAX_HASHES);
			break;
		case BF_ERR_NBITS:
			set_detail(p, "The header gives %" PRIu64 " bits for a %s filter; it needs a positive multiple of %d, at most %" PRIu64 ".",
					   bf_load_le64(buf + BF_OFF_NBITS),
					   bf_layout_name(buf[BF_OFF_LAYOUT]),
					   buf[BF_OFF_LAYOUT] == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS :
					   buf[BF_OFF_LAYOUT] == BF_LAYOUT_PARQUET ? BF_PARQUET_BLOCK_BITS : 64,
					   buf[BF_OFF_LAYOUT] == BF_LAYOUT_PARQUET ?
					   (uint64_t) BF_PARQUET_MAX_BYTES * 8 : (uint64_t) BF_MAX_NBITS);
			break;
		case BF_ERR_FAMILY:
			set_detail(p, "The header gives key family %u with type tag %u; families go from 0 to %d, and families %d, %d, %d and %d, and only they, have a type tag.",
					   (unsigned) bf_load_le16(buf + BF_OFF_FAMILY),
					   (unsigned) bf_load_le32(buf + BF_OFF_TYPETAG),
					   BF_FAMILY_MAX, BF_FAMILY_OTHER, BF_FAMILY_ENUM,
					   BF_FAMILY_COMPOSITE, BF_FAMILY_HASHED);
			break;
		case BF_ERR_SIZE:
			set_detail(p, "The header gives %" PRIu64 " bits, which take %" PRIu64 " bytes with the header, but %zu bytes were given.",
					   bf_load_le64(buf + BF_OFF_NBITS),
					   (uint64_t) BF_HEADER_SIZE + bf_load_le64(buf + BF_OFF_NBITS) / 8,
					   len);
			break;
		default:
			break;
	}
	return false;
}

/* ---- countingbloom ---- */

bool
bfc_diagnose(const uint8_t *buf, size_t len, bf_problem *p)
{
	bf_status	st = bfc_validate(buf, len);

	if (start(p, &counting_words, (int) st, bfc_status_message(st), buf, len))
		return st == BF_OK;
	switch (st)
	{
		case BF_ERR_MAGIC:
			if (bfc_is_plain_magic(buf, len))
				sibling_problem(p, &counting_words,
								"this is a bloomfilter (magic \"BLMF\"), not a counting Bloom filter",
								"A bloomfilter has bits, not counters, and cannot become a countingbloom; read it as a bloomfilter.");
			break;
		case BF_ERR_WIDTH:
			set_detail(p, "The header gives %u bits per counter.",
					   (unsigned) bf_load_le16(buf + BFC_OFF_WIDTH));
			break;
		case BF_ERR_SIZE:
			{
				uint64_t	ncounters = bf_load_le64(buf + BFC_OFF_NCOUNTERS);
				unsigned	width = bf_load_le16(buf + BFC_OFF_WIDTH);

				set_detail(p, "The header gives %" PRIu64 " counters of %u bits, which take %" PRIu64 " bytes with the header, but %zu bytes were given.",
						   ncounters, width,
						   (uint64_t) BF_HEADER_SIZE + ncounters / 8 * width,
						   len);
				break;
			}
		default:
			break;
	}
	return false;
}

/* ---- bloomwindow ---- */

bool
bfw_diagnose(const uint8_t *buf, size_t len, bf_problem *p)
{
	bfw_error	err;
	bfw_status	st = bfw_validate(buf, len, &err);

	if (start(p, &window_words, (int) st, bfw_status_message(st), buf, len))
		return st == BFW_OK;
	switch (st)
	{
		case BFW_ERR_BUCKETS:
			set_detail(p, "The header gives %u buckets; a window has 1 to %d.",
					   (unsigned) bf_load_le32(buf + BFW_OFF_BUCKETS), BFW_MAX_BUCKETS);
			break;
		case BFW_ERR_SIZE:
			{
				uint32_t	buckets = bf_load_le32(buf + BFW_OFF_BUCKETS);
				uint64_t	nbits = bf_load_le64(buf + BFW_OFF_NBITS);

				set_detail(p, "The header gives %u buckets of %" PRIu64 " bits, which take %" PRIu64 " bytes with the header, but %zu bytes were given.",
						   (unsigned) buckets, nbits,
						   (uint64_t) bfw_buffer_size(buckets, nbits), len);
				break;
			}
		case BFW_ERR_SLOT_FILTER:
			set_detail(p, "The filter of slot %d is invalid: %s.",
					   err.slot, err.inner == BF_ERR_CHECKSUM ?
					   "its checksum field is not zero (the window's checksum covers it)" :
					   bf_status_message(err.inner));
			break;
		default:
			if (err.slot >= 0)
				set_detail(p, "The first such slot is slot %d.", err.slot);
			break;
	}
	return false;
}

/* ---- scalablebloom ---- */

bool
bfs_diagnose(const uint8_t *buf, size_t len, bf_problem *p)
{
	bfs_problem pr;
	bfs_status	st = bfs_validate(buf, len, &pr);

	if (start(p, &scalable_words, (int) st, bfs_status_message(st), buf, len))
		return st == BFS_OK;
	switch (st)
	{
		case BFS_ERR_ENTRY:
			set_detail(p, "Sub-filter %u: %s.", (unsigned) pr.entry,
					   bf_status_message(pr.inner));
			break;
		case BFS_ERR_MISMATCH:
		case BFS_ERR_SCHEDULE:
			set_detail(p, "The first such sub-filter is number %u.",
					   (unsigned) pr.entry);
			break;
		case BFS_ERR_TOO_LARGE:
			set_detail(p, "The value has %zu bytes; the largest has %" PRIu64 ", so that its text form can be selected and dumped.",
					   len, (uint64_t) BF_MAX_TOTAL_BYTES);
			break;
		case BFS_ERR_COUNT:
			set_detail(p, "The header gives %u sub-filters; a scalablebloom has 1 to %d.",
					   (unsigned) bf_load_le32(buf + BFS_OFF_NFILTERS), BFS_MAX_FILTERS);
			break;
		default:
			break;
	}
	return false;
}

/* ---- bloomfilter_aggstate ---- */

static bool
aggstate_problem(bf_problem *p, const char *what, const char *detail)
{
	p->cls = BF_PROBLEM_INVALID;
	snprintf(p->what, sizeof(p->what), "invalid bloomfilter_aggstate: %s", what);
	snprintf(p->detail, sizeof(p->detail), "%s", detail);
	p->hint[0] = '\0';
	return false;
}

bool
bfas_diagnose(const uint8_t *buf, size_t len, bf_problem *p)
{
	const uint8_t *pay = buf + BFAS_HEAD_LEN;
	size_t		plen = len - BFAS_HEAD_LEN;
	bfa_state	s;
	unsigned	version = 0;
	const char *why;

	p->cls = BF_PROBLEM_NONE;
	p->what[0] = p->detail[0] = p->hint[0] = '\0';
	if (len < BFAS_HEAD_LEN)
	{
		aggstate_problem(p, "truncated", "");
		set_detail(p, "A bloomfilter_aggstate takes at least %d bytes; %zu bytes were given.",
				   BFAS_HEAD_LEN, len);
		return false;
	}
	if (memcmp(buf, "BFAS", 4) != 0)
		return aggstate_problem(p, "bad magic",
								"A bloomfilter_aggstate starts with \"BFAS\".");
	if (!bf_format_version(buf, len, &version) || version != BFAS_FORMAT_VERSION)
	{
		aggstate_problem(p, "unsupported format version", "");
		set_detail(p, "The state has format version %u; this build of bloomfilter reads version %d.",
				   version, BFAS_FORMAT_VERSION);
		if (version > BFAS_FORMAT_VERSION)
		{
			p->cls = BF_PROBLEM_NEWER_FORMAT;
			snprintf(p->hint, sizeof(p->hint),
					 "The state was written by a newer bloomfilter; install the same version of the extension on every server.");
		}
		return false;
	}
	if (bfas_kind(buf, len) == 0)
	{
		aggstate_problem(p, "unknown kind", "");
		set_detail(p, "The kind byte is %u and the reserved byte %u; the kinds are 'b', 'c', 'w' and 's', and the reserved byte is 0.",
				   (unsigned) buf[6], (unsigned) buf[7]);
		return false;
	}
	switch (buf[6])
	{
		case BFAS_KIND_COUNTING:
			return bfc_diagnose(pay, plen, p);
		case BFAS_KIND_WINDOW:
			return bfw_diagnose(pay, plen, p);
		case BFAS_KIND_SCALABLE:
			return bfs_diagnose(pay, plen, p);
		default:
			break;
	}
	if ((why = bfa_decode(pay, plen, &s)) != NULL)
		return aggstate_problem(p, why,
								"The state of a bloom_agg, bloom_union_agg or bloom_intersect_agg is not valid.");
	if (s.tag == BFA_TAG_FILTER || s.tag == BFA_TAG_AUTO_FILTER)
	{
		bf_view		v;

		if (!bf_diagnose(s.filter, s.filter_len, p))
			return false;
		bf_view_of((uint8_t *) s.filter, &v);
		if (s.tag == BFA_TAG_AUTO_FILTER &&
			(why = bfa_check_filter(&s.target, &v)) != NULL)
			return aggstate_problem(p, why,
									"The filter of a self-sizing bloom_agg state must have the geometry of its target.");
	}
	return true;
}

/* ---- stored datums ---- */

void
bf_problem_damaged(bf_problem *p, const char *typname, size_t len)
{
	p->cls = BF_PROBLEM_DAMAGED;
	snprintf(p->what, sizeof(p->what),
			 "%s datum is damaged: its header does not match its %zu bytes",
			 typname, len);
	p->detail[0] = '\0';
	p->hint[0] = '\0';
}
