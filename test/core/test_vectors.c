/*
 * test_vectors.c
 *		The core against the server's answers in test/vectors/vectors.tsv
 *		(format: src/core/FORMAT.md, "Test vectors"): every filter rebuilt
 *		from its key bytes is the server's bytes, sizing picks the server's
 *		geometry, combining gives the server's result or refusal, and the
 *		corrupt inputs the server refused are refused with its message.
 *
 * The file is found at $BF_VECTORS, else test/vectors/vectors.tsv (make
 * check-core runs from the top of the tree).  Key records are the clients'
 * business (they test value -> key bytes); the core starts from key bytes.
 */
#include "test_core.h"

#include "bf_problem.h"

#define MAX_FIELDS 16

static int	n_records[6];

/* equal, or within a relative 1e-12 (FORMAT.md: the estimates) */
static bool
close_enough(double a, double b)
{
	return a == b || rel_err(a, b) <= 1e-12;
}

/* Splits line at tabs, in place; returns the number of fields. */
static int
split_tabs(char *line, char **fields)
{
	int			n = 0;
	char	   *p = line;

	for (;;)
	{
		char	   *tab = strchr(p, '\t');

		if (n == MAX_FIELDS)
			return n;
		fields[n++] = p;
		if (tab == NULL)
			return n;
		*tab = '\0';
		p = tab + 1;
	}
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes hex of length len into a new buffer; *out_len its bytes. */
static uint8_t *
unhex(const char *s, size_t len, size_t *out_len)
{
	uint8_t    *buf = xmalloc(len / 2 + 1);

	if (len % 2 != 0)
	{
		fprintf(stderr, "test_vectors: odd hex length %zu\n", len);
		exit(2);
	}
	for (size_t i = 0; i < len; i += 2)
	{
		int			hi = hexval(s[i]),
					lo = hexval(s[i + 1]);

		if (hi < 0 || lo < 0)
		{
			fprintf(stderr, "test_vectors: bad hex \"%.*s\"\n", 2, s + i);
			exit(2);
		}
		buf[i / 2] = (uint8_t) (hi << 4 | lo);
	}
	*out_len = len / 2;
	return buf;
}

static int
layout_of(const char *name)
{
	int			l = bf_layout_from_name(name);

	if (l == 0)
	{
		fprintf(stderr, "test_vectors: unknown layout \"%s\"\n", name);
		exit(2);
	}
	return l;
}

/* sizing: layout, capacity, fpr, nbits, hashes[, sqlstate] */
static void
vector_sizing(char **f, int n)
{
	uint64_t	nbits = 0;
	int			k = 0;
	bool		ok;

	if (n < 6)
		return;
	ok = bf_size_for(layout_of(f[1]), strtod(f[2], NULL), strtod(f[3], NULL),
					 &nbits, &k);
	if (strcmp(f[4], "-") == 0)
		check(!ok, "vectors: sizing refused", "%s %s %s sized %" PRIu64 "/%d",
			  f[1], f[2], f[3], nbits, k);
	else
		check(ok && nbits == strtoull(f[4], NULL, 10) && k == atoi(f[5]),
			  "vectors: sizing", "%s %s %s: %" PRIu64 " bits %d hashes, server %s/%s",
			  f[1], f[2], f[3], nbits, k, f[4], f[5]);
}

/*
 * filter: name, layout, capacity, fpr, bits, hashes, seed, family, keys,
 * cardinality, est_fpr, hex
 */
static void
vector_filter(char **f, int n)
{
	int			layout;
	uint64_t	seed;
	tfilter		t;
	uint64_t	added = 0;
	size_t		len;
	uint8_t    *server;

	if (n < 13)
	{
		check(false, "vectors: filter record", "%d fields", n);
		return;
	}
	layout = layout_of(f[2]);
	seed = (uint64_t) strtoll(f[7], NULL, 10);
	if (strcmp(f[3], "-") == 0)
	{
		uint64_t	unit = layout == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS : 64;
		uint64_t	bits = strtoull(f[5], NULL, 10);

		t = tf_new(layout, atoi(f[6]), seed, (bits + unit - 1) / unit * unit);
	}
	else
		t = tf_sized(layout, strtod(f[3], NULL), strtod(f[4], NULL), seed);

	if (strcmp(f[9], "-") != 0)
	{
		char	   *p = f[9];

		for (;;)
		{
			char	   *comma = strchr(p, ',');
			size_t		klen = comma ? (size_t) (comma - p) : strlen(p);
			size_t		kb;
			uint8_t    *key = unhex(p, klen, &kb);

			bf_insert_hash(&t.v, bf_hash_bytes(seed, key, kb));
			free(key);
			added++;
			if (comma == NULL)
				break;
			p = comma + 1;
		}
	}
	t.v.family = (uint16_t) atoi(f[8]);
	t.v.added = added;
	tf_seal(&t);

	server = unhex(f[12], strlen(f[12]), &len);
	if (check(len == t.len && memcmp(server, t.buf, len) == 0,
			  "vectors: filter bytes", "%s: the core's %zu bytes differ from the server's %zu",
			  f[1], t.len, len))
	{
		check(bf_validate(server, len) == BF_OK, "vectors: filter valid", "%s", f[1]);
		check(close_enough(bf_est_cardinality(&t.v), strtod(f[10], NULL)),
			  "vectors: cardinality", "%s: %.17g, server %s", f[1],
			  bf_est_cardinality(&t.v), f[10]);
		check(close_enough(bf_est_fpr(&t.v), strtod(f[11], NULL)),
			  "vectors: fpr", "%s: %.17g, server %s", f[1], bf_est_fpr(&t.v), f[11]);
	}
	free(server);
	tf_free(&t);
}

/* A filter from hex, validated, in a tfilter of its own. */
static tfilter
tf_from_hex(const char *hex)
{
	tfilter		t;

	t.buf = unhex(hex, strlen(hex), &t.len);
	if (bf_validate(t.buf, t.len) != BF_OK)
	{
		fprintf(stderr, "test_vectors: a combine input is invalid\n");
		exit(2);
	}
	bf_unseal(t.buf);
	bf_view_of(t.buf, &t.v);
	return t;
}

/* combine: op, hex a, hex b, result */
static void
vector_combine(char **f, int n)
{
	tfilter		a,
				b,
				r,
				bf;
	uint64_t	nbits;
	bf_compat	c;
	bool		is_union;

	if (n < 5)
		return;
	is_union = strcmp(f[1], "union") == 0;
	a = tf_from_hex(f[2]);
	b = tf_from_hex(f[3]);
	c = bf_compatible(&a.v, &b.v, &nbits);
	if (strncmp(f[4], "error:", 6) == 0)
	{
		const char *want = c == BF_COMPAT_FAMILY ? "42804" : "22023";

		check(c != BF_COMPAT_OK && strcmp(f[4] + 6, want) == 0,
			  "vectors: combine refused", "%s: %s, the core says %s", f[1], f[4],
			  bf_compat_message(c));
	}
	else if (check(c == BF_COMPAT_OK, "vectors: combine accepted", "%s: %s",
				   f[1], bf_compat_message(c)))
	{
		size_t		len;
		uint8_t    *server = unhex(f[4], strlen(f[4]), &len);

		r = tf_new(a.v.layout, a.v.hashes, a.v.seed, nbits);
		bf_fold_or(&r.v, &a.v);
		bf = tf_new(b.v.layout, b.v.hashes, b.v.seed, nbits);
		bf_fold_or(&bf.v, &b.v);
		if (is_union)
		{
			bf_or(&r.v, &bf.v);
			r.v.added = a.v.added + b.v.added < a.v.added ? UINT64_MAX : a.v.added + b.v.added;
		}
		else
		{
			bf_and(&r.v, &bf.v);
			r.v.added = a.v.added < b.v.added ? a.v.added : b.v.added;
		}
		bf_merge_family(&r.v, &a.v, &b.v);
		tf_seal(&r);
		check(len == r.len && memcmp(server, r.buf, len) == 0,
			  "vectors: combine bytes", "%s of %" PRIu64 " and %" PRIu64 " bits",
			  f[1], a.v.nbits, b.v.nbits);
		free(server);
		tf_free(&r);
		tf_free(&bf);
	}
	tf_free(&a);
	tf_free(&b);
}

/* corrupt: name, hex, sqlstate, message (bytes) or the text's hex */
static void
vector_corrupt(char **f, int n, bool text)
{
	size_t		len;
	uint8_t    *raw;
	uint8_t    *buf;
	bf_problem	p;
	bool		valid;
	bool		syntax_ok = true;

	if (n < 5)
		return;
	raw = unhex(f[2], strlen(f[2]), &len);
	buf = raw;
	if (text)
	{
		/* white space is skipped, as the server's input function does */
		char	   *s = xmalloc(len + 1);
		size_t		sl = 0;
		long long	dl;

		for (size_t i = 0; i < len; i++)
			if (!strchr(" \t\n\r", raw[i]))
				s[sl++] = (char) raw[i];
		buf = xmalloc(bf_base64_decoded_max(sl) + 1);
		dl = bf_base64_decode(s, sl, buf);
		free(s);
		syntax_ok = dl >= 0;
		len = syntax_ok ? (size_t) dl : 0;
	}
	if (!syntax_ok)
		check(strcmp(f[4], "invalid input syntax for type bloomfilter") == 0,
			  "vectors: corrupt text syntax", "%s: the core refuses the base64, the server says %s",
			  f[1], f[4]);
	else
	{
		valid = bf_diagnose(buf, len, &p);
		if (strcmp(f[3], "-") == 0)
			check(valid, "vectors: corrupt accepted", "%s: %s", f[1], p.what);
		else
			check(!valid && strcmp(p.what, f[4]) == 0, "vectors: corrupt refused",
				  "%s: the core says \"%s\", the server \"%s\"", f[1],
				  valid ? "valid" : p.what, f[4]);
	}
	if (buf != raw)
		free(buf);
	free(raw);
}

void
test_vectors(void)
{
	const char *path = getenv("BF_VECTORS") ? getenv("BF_VECTORS") : "test/vectors/vectors.tsv";
	FILE	   *fh = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		got;
	static const char *const kinds[6] = {"sizing", "filter", "combine", "corrupt",
	"corrupt_text", "key"};

	if (!check(fh != NULL, "vectors: file", "cannot open %s (set BF_VECTORS)", path))
		return;
	while ((got = getline(&line, &cap, fh)) > 0)
	{
		char	   *f[MAX_FIELDS];
		int			n;

		if (line[got - 1] == '\n')
			line[--got] = '\0';
		if (got == 0 || line[0] == '#')
			continue;
		n = split_tabs(line, f);
		if (strcmp(f[0], "sizing") == 0)
			vector_sizing(f, n), n_records[0]++;
		else if (strcmp(f[0], "filter") == 0)
			vector_filter(f, n), n_records[1]++;
		else if (strcmp(f[0], "combine") == 0)
			vector_combine(f, n), n_records[2]++;
		else if (strcmp(f[0], "corrupt") == 0)
			vector_corrupt(f, n, false), n_records[3]++;
		else if (strcmp(f[0], "corrupt_text") == 0)
			vector_corrupt(f, n, true), n_records[4]++;
		else if (strcmp(f[0], "key") == 0)
			n_records[5]++;
		else
			check(false, "vectors: record kind", "unknown record \"%s\"", f[0]);
	}
	free(line);
	fclose(fh);
	for (int i = 0; i < 6; i++)
		check(n_records[i] > 0, "vectors: every kind of record", "no %s record", kinds[i]);
	info("vectors: %d sizing, %d filter, %d combine, %d corrupt, %d corrupt_text records",
		 n_records[0], n_records[1], n_records[2], n_records[3], n_records[4]);
}
