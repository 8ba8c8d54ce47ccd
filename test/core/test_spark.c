/*
 * test_spark.c
 *		The 'spark' layout's core (bf_spark.c) against Spark's own answers
 *		in test/vectors/spark/spark_vectors.tsv (made by Spark's sketch
 *		classes; see the README beside it): sizing gives Spark's numBits
 *		and k, the same keys give writeTo's bytes exactly, readFrom's bytes
 *		parse back to the same filter with every key probing true, and
 *		non-members answer as Spark answered.  Then every kind of damaged
 *		input is refused.
 *
 * The file is found at $BF_SPARK_VECTORS, else at its place in the tree
 * (make check-core runs from the top of the tree).
 */
#include "test_core.h"

#include "bf_spark.h"

#define MAX_LINE (1 << 20)

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes the hex string s into a new buffer; *len its bytes. */
static uint8_t *
unhex(const char *s, size_t *len)
{
	size_t		n = strlen(s);
	uint8_t    *buf = xmalloc(n / 2 + 1);

	for (size_t i = 0; i + 1 < n; i += 2)
		buf[i / 2] = (uint8_t) (hexval(s[i]) << 4 | hexval(s[i + 1]));
	*len = n / 2;
	return buf;
}

/* One filter of the file, as Spark made it and as we rebuild it. */
typedef struct spark_case
{
	int			id;
	int			version;
	int32_t		seed;
	uint8_t    *spark;			/* writeTo's bytes */
	size_t		spark_len;
	uint8_t    *bits;			/* ours, rebuilt from the keys */
	uint64_t	nbits;
	int			k;
	bool		sizing_ok;
} spark_case;

static uint64_t
key_hash(const char *kind, const uint8_t *b, size_t len, int32_t seed)
{
	if (strcmp(kind, "long") == 0)
	{
		uint64_t	v = 0;

		for (size_t i = 0; i < len; i++)
			v = v << 8 | b[i];
		return bf_spark_hash_long((uint32_t) seed, (int64_t) v);
	}
	/* putString is putBinary of the UTF-8 bytes */
	return bf_spark_hash_bytes((uint32_t) seed, b, len);
}

/* Compares the rebuilt filter with Spark's bytes. */
static void
finish_case(spark_case *c, int *nfilters)
{
	size_t		len;
	uint8_t    *ours;
	bf_spark_info info;
	bf_spark_status st;

	if (c->spark == NULL)
		return;
	len = bf_spark_serialized_size(c->version, c->nbits);
	ours = xmalloc(len);
	bf_spark_write(ours, c->version, c->k, c->seed, c->bits, c->nbits);
	check(c->sizing_ok && len == c->spark_len && memcmp(ours, c->spark, len) == 0,
		  "spark: the same keys give writeTo's bytes",
		  "filter %d (version %d): %zu bytes against Spark's %zu", c->id, c->version,
		  len, c->spark_len);
	st = bf_spark_parse(c->spark, c->spark_len, &info);
	if (check(st == BF_SPARK_OK, "spark: readFrom's bytes parse", "filter %d: %s",
			  c->id, bf_spark_status_message(st)))
	{
		uint8_t    *bits = xmalloc(info.nbits / 8);

		bf_spark_words_in(info.words, info.nbits, bits);
		check(info.version == c->version && info.hashes == c->k &&
			  info.seed == c->seed && info.nbits == c->nbits &&
			  memcmp(bits, c->bits, c->nbits / 8) == 0,
			  "spark: parsed as written", "filter %d", c->id);
		free(bits);
	}
	free(ours);
	free(c->spark);
	free(c->bits);
	c->spark = NULL;
	(*nfilters)++;
}

static void
test_spark_vectors(void)
{
	const char *path = getenv("BF_SPARK_VECTORS");
	FILE	   *f;
	char	   *line = xmalloc(MAX_LINE);
	spark_case c = {0};
	int			nfilters = 0,
				nkeys = 0,
				nprobes = 0,
				keys_true = 0,
				probes_agree = 0;

	if (path == NULL)
		path = "test/vectors/spark/spark_vectors.tsv";
	f = fopen(path, "r");
	if (!check(f != NULL, "spark: vectors file", "cannot open %s", path))
	{
		free(line);
		return;
	}
	while (fgets(line, MAX_LINE, f) != NULL)
	{
		char	   *fld[10];
		int			n = 0;
		char	   *save = NULL;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		for (char *t = strtok_r(line, "\t", &save); t != NULL && n < 10;
			 t = strtok_r(NULL, "\t", &save))
			fld[n++] = t;
		/* an empty key is an empty field, which strtok skips */
		if (n >= 3 && strcmp(fld[0], "filter") != 0 && n == 3)
			fld[n++] = "";
		if (strcmp(fld[0], "filter") == 0 && n == 9)
		{
			uint64_t	n_items = strtoull(fld[3], NULL, 10);
			double		fpp = strtod(fld[4], NULL);
			int64_t		numbits = strtoll(fld[6], NULL, 10);
			int			k = atoi(fld[7]);

			finish_case(&c, &nfilters);
			c.id = atoi(fld[1]);
			c.version = atoi(fld[2]);
			c.seed = (int32_t) strtol(fld[5], NULL, 10);
			c.spark = unhex(fld[8], &c.spark_len);
			/* BloomFilter.create(n, fpp)'s geometry */
			c.sizing_ok = check(bf_spark_optimal_bits(n_items, fpp) == numbits &&
								bf_spark_optimal_hashes(n_items, numbits) == k,
								"spark: sizing as BloomFilter.create",
								"filter %d: n %" PRIu64 " fpp %g: bits %" PRId64 " (Spark %" PRId64 "), k %" PRId64 " (Spark %d)",
								c.id, n_items, fpp, bf_spark_optimal_bits(n_items, fpp),
								numbits, bf_spark_optimal_hashes(n_items, numbits), k);
			c.nbits = bf_spark_round_bits((uint64_t) numbits);
			c.k = k;
			c.bits = calloc(1, c.nbits / 8);
		}
		else if (strcmp(fld[0], "key") == 0 && n == 4 && c.spark != NULL)
		{
			size_t		len;
			uint8_t    *b = unhex(fld[3], &len);
			uint64_t	h = key_hash(fld[2], b, len, c.seed);

			bf_spark_insert(c.bits, c.nbits, c.k, c.version, h);
			nkeys++;
			free(b);
		}
		else if (strcmp(fld[0], "probe") == 0 && n == 5 && c.spark != NULL)
		{
			size_t		len;
			uint8_t    *b = unhex(fld[3], &len);
			bf_spark_info info;

			/* probes go against Spark's own bytes, parsed */
			if (bf_spark_parse(c.spark, c.spark_len, &info) == BF_SPARK_OK)
			{
				uint8_t    *bits = xmalloc(info.nbits / 8);
				bool		got;

				bf_spark_words_in(info.words, info.nbits, bits);
				got = bf_spark_probe(bits, info.nbits, info.hashes, info.version,
									 key_hash(fld[2], b, len, info.seed));
				probes_agree += got == (fld[4][0] == 't');
				free(bits);
			}
			nprobes++;
			free(b);
		}
	}
	finish_case(&c, &nfilters);
	fclose(f);

	/* every key probes true in the filter read back from Spark's bytes */
	rewind(f = fopen(path, "r"));
	{
		uint8_t    *bits = NULL;
		bf_spark_info info = {0};
		uint8_t    *spark = NULL;

		while (fgets(line, MAX_LINE, f) != NULL)
		{
			char	   *fld[10];
			int			n = 0;
			char	   *save = NULL;

			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '#')
				continue;
			for (char *t = strtok_r(line, "\t", &save); t != NULL && n < 10;
				 t = strtok_r(NULL, "\t", &save))
				fld[n++] = t;
			if (n == 3)
				fld[n++] = "";
			if (strcmp(fld[0], "filter") == 0)
			{
				size_t		len;

				free(bits);
				free(spark);
				bits = NULL;
				spark = unhex(fld[8], &len);
				if (bf_spark_parse(spark, len, &info) == BF_SPARK_OK)
				{
					bits = xmalloc(info.nbits / 8);
					bf_spark_words_in(info.words, info.nbits, bits);
				}
			}
			else if (strcmp(fld[0], "key") == 0 && bits != NULL)
			{
				size_t		len;
				uint8_t    *b = unhex(fld[3], &len);

				keys_true += bf_spark_probe(bits, info.nbits, info.hashes, info.version,
											key_hash(fld[2], b, len, info.seed));
				free(b);
			}
		}
		free(bits);
		free(spark);
		fclose(f);
	}
	free(line);
	check(nfilters >= 20 && nkeys > 1000 && nprobes > 1000,
		  "spark: the vectors hold enough", "%d filters, %d keys, %d probes",
		  nfilters, nkeys, nprobes);
	check(keys_true == nkeys, "spark: every key Spark put probes true",
		  "%d of %d", keys_true, nkeys);
	check(probes_agree == nprobes, "spark: non-members answer as Spark answered",
		  "%d of %d", probes_agree, nprobes);
}

/* Spark's Murmur3 against values computed by hand from its definition. */
static void
test_spark_murmur3(void)
{
	/* hashLong is the byte hash of the 8 little-endian bytes */
	rng			r = {35};

	for (int i = 0; i < 1000; i++)
	{
		int64_t		v = (int64_t) rng_next(&r);
		uint8_t		le[8];

		bf_store_le64(le, (uint64_t) v);
		if (!check(bf_spark_hash_long(7, v) == bf_spark_hash_bytes(7, le, 8),
				   "spark: hashLong is the hash of the little-endian bytes", "%" PRId64, v))
			break;
	}
	/* a tail byte is sign-extended: 0x80 and 0x7f..0xff differ from unsigned */
	{
		uint8_t		a = 0x80;

		check(bf_spark_murmur3(&a, 1, 0) != bf_spark_murmur3("\x00", 1, 0),
			  "spark: tail bytes hash", "%08x", bf_spark_murmur3(&a, 1, 0));
	}
}

/* Every refusal of bf_spark_parse, and no read outside the buffer. */
static void
test_spark_parse(void)
{
	uint8_t		bits[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	uint8_t		buf[BF_SPARK_V2_HEADER + 16];
	bf_spark_info info;

	for (int version = 1; version <= 2; version++)
	{
		size_t		len = bf_spark_serialized_size(version, 128);
		size_t		hdr = len - 16;

		bf_spark_write(buf, version, 3, version == 2 ? -5 : 0, bits, 128);
		check(bf_spark_parse(buf, len, &info) == BF_SPARK_OK && info.seed == (version == 2 ? -5 : 0),
			  "spark: a written filter parses", "version %d", version);
		/* every shorter length, each in an exact-size copy (ASan sees overreads) */
		for (size_t l = 0; l < len; l++)
		{
			uint8_t    *p = copy_exact(buf, len, l);
			bf_spark_status st = bf_spark_parse(p, l, &info);

			free(p);
			if (!check(st == (l < hdr ? BF_SPARK_TRUNCATED : BF_SPARK_LENGTH),
					   "spark: a truncated filter is refused", "version %d, %zu bytes: %s",
					   version, l, bf_spark_status_message(st)))
				break;
		}
		{
			uint8_t    *p = copy_exact(buf, len, len + 1);

			p[len] = 0;
			check(bf_spark_parse(p, len + 1, &info) == BF_SPARK_LENGTH,
				  "spark: a byte after the words is refused", "version %d", version);
			free(p);
		}
		/* k */
		for (int k = -1; k <= 34; k += 1)
		{
			uint8_t		b2[sizeof(buf)];
			bf_spark_status want = k >= 1 && k <= 32 ? BF_SPARK_OK : BF_SPARK_HASHES;

			memcpy(b2, buf, len);
			b2[4] = (uint8_t) ((uint32_t) k >> 24);
			b2[5] = (uint8_t) ((uint32_t) k >> 16);
			b2[6] = (uint8_t) ((uint32_t) k >> 8);
			b2[7] = (uint8_t) k;
			if (!check(bf_spark_parse(b2, len, &info) == want, "spark: k checked", "k %d", k))
				break;
		}
		/* numWords: 0, negative, huge, one more than the bytes hold */
		{
			uint32_t	words[] = {0, 0x80000000u, 0xffffffffu, 0x7fffffffu, 3, 1};
			bf_spark_status want[] = {BF_SPARK_WORDS, BF_SPARK_WORDS, BF_SPARK_WORDS,
			BF_SPARK_TOO_LARGE, BF_SPARK_LENGTH, BF_SPARK_LENGTH};

			for (int i = 0; i < 6; i++)
			{
				uint8_t		b2[sizeof(buf)];

				memcpy(b2, buf, len);
				b2[hdr - 4] = (uint8_t) (words[i] >> 24);
				b2[hdr - 3] = (uint8_t) (words[i] >> 16);
				b2[hdr - 2] = (uint8_t) (words[i] >> 8);
				b2[hdr - 1] = (uint8_t) words[i];
				check(bf_spark_parse(b2, len, &info) == want[i], "spark: numWords checked",
					  "numWords %u: %s", words[i], bf_spark_status_message(bf_spark_parse(b2, len, &info)));
			}
		}
	}
	/* versions other than 1 and 2 */
	{
		uint32_t	versions[] = {0, 3, 0x01000000u, 0xffffffffu};

		for (int i = 0; i < 4; i++)
		{
			bf_spark_write(buf, 1, 3, 0, bits, 128);
			buf[0] = (uint8_t) (versions[i] >> 24);
			buf[1] = (uint8_t) (versions[i] >> 16);
			buf[2] = (uint8_t) (versions[i] >> 8);
			buf[3] = (uint8_t) versions[i];
			check(bf_spark_parse(buf, bf_spark_serialized_size(1, 128), &info) == BF_SPARK_VERSION,
				  "spark: version checked", "%08x", versions[i]);
		}
	}
	/* random bytes never crash, and what parses is self-consistent */
	{
		rng			r = {3535};

		for (int i = 0; i < 20000; i++)
		{
			size_t		len = (size_t) rng_below(&r, 48);
			uint8_t    *p = xmalloc(len + 1);

			rng_fill(&r, p, len);
			if (len >= 4 && rng_below(&r, 2))
			{
				p[0] = p[1] = p[2] = 0;
				p[3] = (uint8_t) (1 + rng_below(&r, 2));
			}
			if (bf_spark_parse(p, len, &info) == BF_SPARK_OK)
				check(info.hashes >= 1 && info.hashes <= 32 && info.nbits > 0 &&
					  bf_spark_serialized_size(info.version, info.nbits) == len,
					  "spark: random bytes that parse are consistent", "%zu bytes", len);
			free(p);
		}
	}
}

/* Sizing at the edges: Spark's refusals and Java's conversions. */
static void
test_spark_sizing(void)
{
	check(bf_spark_optimal_bits(1, 0.9) == 0, "spark: too few bits is 0",
		  "%" PRId64, bf_spark_optimal_bits(1, 0.9));
	check(bf_spark_optimal_bits(1000000, 0.03) == 7298440, "spark: a million keys at 3%",
		  "%" PRId64, bf_spark_optimal_bits(1000000, 0.03));
	check(bf_spark_optimal_hashes(1000000, 7298440) == 5, "spark: k for a million keys at 3%",
		  "%" PRId64, bf_spark_optimal_hashes(1000000, 7298440));
	check(bf_spark_optimal_hashes(1000, 1) == 1, "spark: k is at least 1", "%" PRId64,
		  bf_spark_optimal_hashes(1000, 1));
	check(bf_spark_round_bits(1) == 64 && bf_spark_round_bits(64) == 64 &&
		  bf_spark_round_bits(65) == 128, "spark: whole words", "%s", "rounding");
}

void
test_spark(void)
{
	test_spark_murmur3();
	test_spark_sizing();
	test_spark_parse();
	test_spark_vectors();
}
