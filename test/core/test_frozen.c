/*
 * test_frozen.c
 *		The core against the frozen values of earlier releases
 *		(test/vectors/frozen/<version>/values.tsv; src/core/FORMAT.md,
 *		"Frozen values"), which are never regenerated: every value of the
 *		four types and every aggregate state decodes from its text form,
 *		validates, and re-encodes to the same text; every member's key
 *		bytes probe true and every non-member's answer as recorded.
 *
 * The files are found under $BF_FROZEN, else test/vectors/frozen (make
 * check-core runs from the top of the tree).  A failure here means this
 * build no longer reads what an earlier one stored: the build is wrong,
 * not the file.
 */
#include "test_core.h"

#include "bf_aggstate.h"
#include "bf_base64.h"
#include "bf_problem.h"

#define FROZEN_MAX_FIELDS 9
#define FROZEN_MAX_VALUES 256

/* the versions frozen so far, oldest first */
static const char *const frozen_versions[] = {"1.0"};

typedef struct frozen_value
{
	char	   *name;
	char	   *type;
	uint8_t    *buf;			/* the decoded bytes */
	size_t		len;
	bool		valid;
} frozen_value;

static frozen_value fvals[FROZEN_MAX_VALUES];
static int	nfvals;
static int	n_members,
			n_nonmembers,
			n_values,
			n_states;

static int
split_fields(char *line, char **fields)
{
	int			n = 0;
	char	   *p = line;

	for (;;)
	{
		char	   *tab = strchr(p, '\t');

		if (n == FROZEN_MAX_FIELDS)
			return n;
		fields[n++] = p;
		if (tab == NULL)
			return n;
		*tab = '\0';
		p = tab + 1;
	}
}

static uint8_t *
frozen_unhex(const char *s, size_t *out_len)
{
	size_t		len = strlen(s);
	uint8_t    *buf = xmalloc(len / 2 + 1);

	for (size_t i = 0; i + 1 < len; i += 2)
	{
		unsigned	b;

		if (sscanf(s + i, "%2x", &b) != 1)
		{
			fprintf(stderr, "test_frozen: bad hex \"%s\"\n", s);
			exit(2);
		}
		buf[i / 2] = (uint8_t) b;
	}
	*out_len = len / 2;
	return buf;
}

/* Days from 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t		era;
	unsigned	yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned) (y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t) doe - 719468;
}

/* "YYYY-MM-DD HH:MM:SS[.ffffff]+00" as microseconds since 2000-01-01 UTC */
static int64_t
frozen_time(const char *s)
{
	int			y,
				mo,
				d,
				h,
				mi,
				sec,
				used = 0;
	int64_t		us = 0;
	const char *p;

	if (sscanf(s, "%d-%d-%d %d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6)
	{
		fprintf(stderr, "test_frozen: bad time \"%s\"\n", s);
		exit(2);
	}
	p = s + used;
	if (*p == '.')
	{
		int			digits = 0;

		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			us = us * 10 + (*p - '0');
		for (; digits < 6; digits++)
			us *= 10;
	}
	if (strcmp(p, "+00") != 0)
	{
		fprintf(stderr, "test_frozen: a time not in UTC \"%s\"\n", s);
		exit(2);
	}
	return ((days_from_civil(y, (unsigned) mo, (unsigned) d) - days_from_civil(2000, 1, 1)) * 86400
			+ h * 3600 + mi * 60 + sec) * INT64_C(1000000) + us;
}

static frozen_value *
find_value(const char *name)
{
	for (int i = 0; i < nfvals; i++)
		if (strcmp(fvals[i].name, name) == 0)
			return &fvals[i];
	return NULL;
}

/* value (or aggstate): decode, validate, re-encode to the same text */
static void
frozen_read_value(const char *version, char **f, bool state)
{
	frozen_value *v;
	const char *text = f[3];
	size_t		tl = strlen(text);
	long long	dl;
	char	   *again;
	bf_problem	p;
	const char *type = state ? "bloomfilter_aggstate" : f[2];

	if (nfvals == FROZEN_MAX_VALUES)
	{
		fprintf(stderr, "test_frozen: more than %d values\n", FROZEN_MAX_VALUES);
		exit(2);
	}
	v = &fvals[nfvals++];
	v->name = strdup(f[1]);
	v->type = strdup(type);
	v->buf = xmalloc(bf_base64_decoded_max(tl) + 1);
	dl = bf_base64_decode(text, tl, v->buf);
	v->valid = false;
	if (!check(dl >= 0, "frozen: base64", "%s %s: the text form does not decode", version, v->name))
		return;
	v->len = (size_t) dl;
	again = xmalloc(bf_base64_encoded_len(v->len) + 1);
	bf_base64_encode(v->buf, v->len, again);
	again[bf_base64_encoded_len(v->len)] = '\0';
	check(strcmp(again, text) == 0, "frozen: text round trip", "%s %s", version, v->name);
	free(again);

	if (strcmp(type, "bloomfilter") == 0)
		v->valid = bf_diagnose(v->buf, v->len, &p);
	else if (strcmp(type, "countingbloom") == 0)
		v->valid = bfc_diagnose(v->buf, v->len, &p);
	else if (strcmp(type, "bloomwindow") == 0)
		v->valid = bfw_diagnose(v->buf, v->len, &p);
	else if (strcmp(type, "scalablebloom") == 0)
		v->valid = bfs_diagnose(v->buf, v->len, &p);
	else
	{
		v->valid = bfas_diagnose(v->buf, v->len, &p);
		if (v->valid)
		{
			/* the kind and, for b, the partial state's tag, as recorded */
			char		kind[3] = {(char) bfas_kind(v->buf, v->len), 0, 0};

			if (kind[0] == 'b')
				kind[1] = (char) v->buf[BFAS_HEAD_LEN];
			check(strcmp(kind, f[2]) == 0, "frozen: state kind", "%s %s: %s, recorded %s",
				  version, v->name, kind, f[2]);
		}
		n_states++;
	}
	if (!state)
		n_values++;
	check(v->valid, "frozen: valid", "%s %s (%s): %s %s", version, v->name, type,
		  v->valid ? "" : p.what, v->valid ? "" : p.detail);
}

/* member / nonmember: name, sql type, literal, family, key hex, at, answer */
static void
frozen_probe(const char *version, char **f, bool member)
{
	frozen_value *v = find_value(f[1]);
	size_t		klen;
	uint8_t    *key;
	bool		want = strcmp(f[7], "t") == 0;
	bool		got = false;
	uint8_t    *copy;

	if (!check(v != NULL, "frozen: probe's value", "%s %s", version, f[1]) || !v->valid)
		return;
	key = frozen_unhex(f[5], &klen);
	/* probe a copy: the views read the header and bits, never write */
	copy = copy_exact(v->buf, v->len, v->len);
	if (strcmp(v->type, "bloomfilter") == 0)
	{
		bf_view		bv;

		bf_view_of(copy, &bv);
		got = bv.family != 0 && bf_probe_hash(&bv, bf_hash_bytes(bv.seed, key, klen));
	}
	else if (strcmp(v->type, "countingbloom") == 0)
	{
		bfc_view	cv;

		bfc_view_of(copy, &cv);
		got = cv.family != 0 && bfc_contains_hash(&cv, bf_hash_bytes(cv.seed, key, klen));
	}
	else if (strcmp(v->type, "bloomwindow") == 0)
	{
		bfw_view	wv;
		int64_t		bucket;

		bfw_view_of(copy, &wv);
		if (check(bfw_bucket_of(wv.bucket_us, frozen_time(f[6]), &bucket),
				  "frozen: window time", "%s %s at %s", version, f[1], f[6]))
			got = wv.family != 0 && bfw_probe_hash(&wv, bucket, bf_hash_bytes(wv.seed, key, klen));
	}
	else if (strcmp(v->type, "scalablebloom") == 0)
	{
		bfs_header	h;
		bfs_entry  *e;
		uint32_t	n;

		bfs_read_header(copy, &h);
		e = xmalloc(sizeof(bfs_entry) * (h.nfilters + 1));
		n = bfs_entries(copy, v->len, e);
		got = h.family != 0 && bfs_probe_hash(e, n, bf_hash_bytes(h.seed, key, klen));
		free(e);
	}
	check(got == want, member ? "frozen: member probes true" : "frozen: non-member as recorded",
		  "%s %s (%s): %s %s '%s' answers %s, recorded %s", version, v->name, v->type,
		  member ? "member" : "non-member", f[2], f[3], got ? "t" : "f", f[7]);
	if (member)
		n_members++;
	else
		n_nonmembers++;
	free(copy);
	free(key);
}

static void
frozen_file(const char *dir, const char *version)
{
	char		path[4096];
	FILE	   *fh;
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		got;
	char	   *f[FROZEN_MAX_FIELDS];

	snprintf(path, sizeof(path), "%s/%s/values.tsv", dir, version);
	fh = fopen(path, "r");
	if (!check(fh != NULL, "frozen: file", "cannot open %s (set BF_FROZEN)", path))
		return;
	while ((got = getline(&line, &cap, fh)) > 0)
	{
		int			n;

		if (line[got - 1] == '\n')
			line[--got] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		n = split_fields(line, f);
		if (strcmp(f[0], "value") == 0 && n == 4)
			frozen_read_value(version, f, false);
		else if (strcmp(f[0], "aggstate") == 0 && n == 4)
			frozen_read_value(version, f, true);
		else if ((strcmp(f[0], "member") == 0 || strcmp(f[0], "nonmember") == 0) && n == 8)
			frozen_probe(version, f, f[0][0] == 'm');
		else if (strcmp(f[0], "info") != 0 && strcmp(f[0], "final") != 0)
			check(false, "frozen: record", "%s: a %s record of %d fields", version, f[0], n);
	}
	free(line);
	fclose(fh);
	for (int i = 0; i < nfvals; i++)
	{
		free(fvals[i].name);
		free(fvals[i].type);
		free(fvals[i].buf);
	}
	nfvals = 0;
}

void
test_frozen(void)
{
	const char *dir = getenv("BF_FROZEN") ? getenv("BF_FROZEN") : "test/vectors/frozen";

	for (size_t i = 0; i < sizeof(frozen_versions) / sizeof(frozen_versions[0]); i++)
		frozen_file(dir, frozen_versions[i]);
	/* the files hold every type and kind: a short read would pass quietly */
	check(n_values >= 50 && n_states >= 14 && n_members >= 180 && n_nonmembers >= 153,
		  "frozen: all read", "%d values, %d states, %d members, %d non-members",
		  n_values, n_states, n_members, n_nonmembers);
	info("frozen: %d values, %d states, %d members, %d non-members",
		 n_values, n_states, n_members, n_nonmembers);
}
