/*
 * test_parquet.c
 *		Layout parquet (bf_parquet.c, bf_parquet.h): the split-block kernels
 *		against the specification's description, folding, sizing as
 *		parquet-java and Arrow size, the version-2 header, and the Thrift
 *		compact BloomFilterHeader reader on good and bad bytes.
 */
#include "test_core.h"

/* The spec's algorithm written out plainly, word by word. */
static void
spec_insert(uint8_t *bits, uint64_t nbits, uint64_t h)
{
	static const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
		0xa2b7289dU, 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
	uint64_t	nblocks = nbits / 256;
	uint64_t	block = ((h >> 32) * nblocks) >> 32;

	for (int i = 0; i < 8; i++)
	{
		uint8_t    *w = bits + block * 32 + i * 4;
		uint32_t	word = (uint32_t) w[0] | (uint32_t) w[1] << 8 |
			(uint32_t) w[2] << 16 | (uint32_t) w[3] << 24;

		word |= UINT32_C(1) << (((uint32_t) h * salt[i]) >> 27);
		w[0] = (uint8_t) word;
		w[1] = (uint8_t) (word >> 8);
		w[2] = (uint8_t) (word >> 16);
		w[3] = (uint8_t) (word >> 24);
	}
}

static tfilter
pq_new(uint64_t nbits)
{
	return tf_new(BF_LAYOUT_PARQUET, 8, 0, nbits);
}

void
test_parquet_kernels(void)
{
	rng			r = {35};
	const uint64_t sizes[] = {256, 512, 768, 4096, 256 * 1000, 1 << 20};

	/* XXH64 of the empty input, seed 0: the published value */
	check(bf_parquet_hash_bytes("", 0) == UINT64_C(0xef46db3751d8e999),
		  "parquet: XXH64 of nothing", "%" PRIx64, bf_parquet_hash_bytes("", 0));

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		tfilter		f = pq_new(sizes[s]);
		uint8_t    *spec = calloc(1, sizes[s] / 8);
		tfilter		b = pq_new(sizes[s]);
		uint64_t	hs[3000];
		bool		all = true,
					same_pos = true,
					one_per_word = true;

		for (int i = 0; i < 3000; i++)
		{
			uint64_t	h = rng_next(&r);
			uint64_t	pos[8];

			hs[i] = h;
			bf_insert_hash(&f.v, h);
			spec_insert(spec, sizes[s], h);
			bf_positions(BF_LAYOUT_PARQUET, sizes[s], 8, h, pos);
			for (int j = 0; j < 8; j++)
			{
				if (!(f.v.bits[pos[j] >> 3] & (1u << (pos[j] & 7))))
					same_pos = false;
				/* position j lies in word j of one block */
				if ((pos[j] % 256) / 32 != (uint64_t) j ||
					pos[j] / 256 != pos[0] / 256)
					one_per_word = false;
			}
		}
		for (int i = 0; i < 3000; i++)
			all &= bf_probe_hash(&f.v, hs[i]);
		bf_insert_batch(&b.v, hs, 3000);
		check(memcmp(f.v.bits, spec, sizes[s] / 8) == 0,
			  "parquet: insert sets the spec's bits", "%" PRIu64 " bits", sizes[s]);
		check(all, "parquet: every inserted hash probes true", "%" PRIu64, sizes[s]);
		check(same_pos && one_per_word, "parquet: positions are the set bits, one per word",
			  "%" PRIu64, sizes[s]);
		check(tf_same_bits(&f, &b) && f.v.added == 3000 && b.v.added == 3000,
			  "parquet: batch insert equals one by one", "%" PRIu64, sizes[s]);
		{
			uint8_t		out[3000];
			size_t		hits = bf_probe_batch(&f.v, hs, 3000, out);
			bool		agree = hits == 3000;
			uint64_t	fp = 0;

			for (int i = 0; i < 3000; i++)
			{
				uint64_t	h = rng_next(&r);

				hs[i] = h;
				fp += bf_probe_hash(&f.v, h);
			}
			hits = bf_probe_batch(&f.v, hs, 3000, out);
			agree &= hits == fp;
			for (int i = 0; i < 3000; i++)
				agree &= out[i] == bf_probe_hash(&f.v, hs[i]);
			check(agree, "parquet: batch probe equals one by one", "%" PRIu64, sizes[s]);
		}
		free(spec);
		tf_free(&f);
		tf_free(&b);
	}

	/* folding: a filter of n 2^j blocks, folded, is the one built at n */
	for (int j = 1; j <= 4; j++)
	{
		tfilter		small = pq_new(256 * 12);
		tfilter		big = pq_new((uint64_t) 256 * 12 << j);
		tfilter		fold = pq_new(256 * 12);
		uint64_t	nb;

		for (int i = 0; i < 500; i++)
		{
			uint64_t	h = rng_next(&r);

			bf_insert_hash(&small.v, h);
			bf_insert_hash(&big.v, h);
		}
		check(bf_compatible(&big.v, &small.v, &nb) == BF_COMPAT_OK && nb == small.v.nbits,
			  "parquet: 2^j sizes are compatible", "j %d", j);
		bf_fold_or(&fold.v, &big.v);
		check(tf_same_bits(&fold, &small), "parquet: folding equals building small", "j %d", j);
		tf_free(&small);
		tf_free(&big);
		tf_free(&fold);
	}

	/* estimates: near the truth for a moderately full filter */
	{
		tfilter		f = pq_new(1 << 16);
		double		n,
					fpr;
		uint64_t	fp = 0;

		for (int i = 0; i < 4000; i++)
			bf_insert_hash(&f.v, rng_next(&r));
		n = bf_est_cardinality(&f.v);
		fpr = bf_est_fpr(&f.v);
		for (int i = 0; i < 200000; i++)
			fp += bf_probe_hash(&f.v, rng_next(&r));
		check(fabs(n - 4000) < 4000 * 0.05, "parquet: cardinality estimate", "%g", n);
		check(rel_err(fpr, fp / 200000.0) < 0.15, "parquet: fpr estimate near measured",
			  "est %g, measured %g", fpr, fp / 200000.0);
		tf_free(&f);
	}
}

void
test_parquet_sizing(void)
{
	uint64_t	nbits;
	int			k;

	/* 1e6 values at 1%: 9.68 Mbit, rounded up to 2 MiB (parquet-java, Arrow) */
	check(bf_parquet_optimal_bits(1e6, 0.01) == (uint64_t) 2 * 1024 * 1024 * 8,
		  "parquet sizing: 1M at 1%", "%" PRIu64, bf_parquet_optimal_bits(1e6, 0.01));
	check(bf_parquet_optimal_bits(1, 0.01) == 256, "parquet sizing: at least 32 bytes", "%" PRIu64,
		  bf_parquet_optimal_bits(1, 0.01));
	check(bf_parquet_optimal_bits(1e12, 0.01) == (uint64_t) 1 << 30,
		  "parquet sizing: at most 128 MiB", "%" PRIu64, bf_parquet_optimal_bits(1e12, 0.01));
	/* 1000 at 0.005: -8000 / ln(1 - 0.005^(1/8)) = 11540 bits, so 16384 */
	check(bf_parquet_optimal_bits(1000, 0.005) == 16384, "parquet sizing: 1000 at 0.5%",
		  "%" PRIu64, bf_parquet_optimal_bits(1000, 0.005));
	for (double n = 1; n < 1e9; n *= 3.7)
	{
		uint64_t	b = bf_parquet_optimal_bits(n, 0.001);

		if (!check((b & (b - 1)) == 0 && b >= 256 && b <= ((uint64_t) 1 << 30) &&
				   (b == ((uint64_t) 1 << 30) ||
					(double) b >= -8.0 * n / log(1.0 - pow(0.001, 1.0 / 8.0)) - 1.0),
				   "parquet sizing: a power of two that holds n", "n %g: %" PRIu64, n, b))
			break;
	}
	check(bf_size_for(BF_LAYOUT_PARQUET, 1e6, 0.01, &nbits, &k) && k == 8 &&
		  nbits == (uint64_t) 1 << 24, "parquet sizing: bf_size_for", "%" PRIu64 "/%d", nbits, k);
}

void
test_parquet_format(void)
{
	tfilter		f = pq_new(512);
	uint8_t    *p;

	check(bf_check_filter_geometry(BF_LAYOUT_PARQUET, 7, 512) == BF_ERR_HASHES &&
		  bf_check_filter_geometry(BF_LAYOUT_PARQUET, 8, 384) == BF_ERR_NBITS &&
		  bf_check_filter_geometry(BF_LAYOUT_PARQUET, 8, 768) == BF_OK &&
		  bf_check_filter_geometry(BF_LAYOUT_PARQUET, 8, (uint64_t) 1 << 30) == BF_OK &&
		  bf_check_filter_geometry(BF_LAYOUT_PARQUET, 8, ((uint64_t) 1 << 30) + 256) == BF_ERR_NBITS &&
		  bf_check_filter_geometry(BF_LAYOUT_PARQUET, 8, 0) == BF_ERR_NBITS &&
		  bf_check_geometry(BF_LAYOUT_PARQUET, 8, 512) == BF_ERR_LAYOUT,
		  "parquet: geometry", "%s", "");
	check(bf_load_le16(f.buf + BF_OFF_VERSION) == 2, "parquet: written as version 2", "%u",
		  bf_load_le16(f.buf + BF_OFF_VERSION));

	/* a physical type in the flags, kept by the header writer */
	f.v.param = BF_PQ_INT64;
	bf_insert_hash(&f.v, bf_parquet_hash_int64(42));
	f.v.family = BF_FAMILY_INTEGER;
	bf_store_header(f.buf, &f.v);
	tf_seal(&f);
	check(bf_validate(f.buf, f.len) == BF_OK && bf_load_le16(f.buf + BF_OFF_FLAGS) == BF_PQ_INT64,
		  "parquet: valid with its physical type", "%d", (int) bf_validate(f.buf, f.len));

	p = copy_exact(f.buf, f.len, f.len);
	{
		struct
		{
			const char *name;
			int			off;
			int			width;
			uint64_t	val;
			bf_status	want;
		}			cases[] = {
			{"version 1 refuses layout 3", BF_OFF_VERSION, 2, 1, BF_ERR_LAYOUT},
			{"version 3", BF_OFF_VERSION, 2, 3, BF_ERR_VERSION},
			{"physical type 3 (INT96)", BF_OFF_FLAGS, 2, 3, BF_ERR_PARAM},
			{"physical type 8", BF_OFF_FLAGS, 2, 8, BF_ERR_PARAM},
			{"physical type 0x0102", BF_OFF_FLAGS, 2, 0x0102, BF_ERR_PARAM},
			{"seed 1", BF_OFF_SEED, 8, 1, BF_ERR_PARAM},
			{"hashes 7", BF_OFF_HASHES, 1, 7, BF_ERR_HASHES},
			{"layout 5", BF_OFF_LAYOUT, 1, 5, BF_ERR_LAYOUT},
			{"layout 255", BF_OFF_LAYOUT, 1, 255, BF_ERR_LAYOUT},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			bf_status	st;

			memcpy(p, f.buf, f.len);
			for (int b = 0; b < cases[i].width; b++)
				p[cases[i].off + b] = (uint8_t) (cases[i].val >> (8 * b));
			bf_seal(p, f.len);
			st = bf_validate(p, f.len);
			/* layout 4 belongs to engineer spark's branch: either refusal */
			if (cases[i].off == BF_OFF_LAYOUT && cases[i].val == 4 && st != BF_OK)
				st = BF_ERR_LAYOUT;
			check(st == cases[i].want, "parquet: header field refused", "%s: %d, want %d",
				  cases[i].name, (int) st, (int) cases[i].want);
		}
		/* a version-2 classic value is valid, and bf_unseal makes it version 1 */
		{
			tfilter		c = tf_new(BF_LAYOUT_CLASSIC, 3, 0, 64);

			bf_store_le16(c.buf + BF_OFF_VERSION, 2);
			tf_seal(&c);
			check(bf_validate(c.buf, c.len) == BF_OK, "parquet: version-2 classic read", "%s", "");
			bf_unseal(c.buf);
			check(bf_load_le16(c.buf + BF_OFF_VERSION) == 1, "parquet: written back as version 1",
				  "%u", bf_load_le16(c.buf + BF_OFF_VERSION));
			bf_store_le16(c.buf + BF_OFF_FLAGS, BF_PQ_INT32);
			bf_store_le16(c.buf + BF_OFF_VERSION, 2);
			bf_seal(c.buf, c.len);
			check(bf_validate(c.buf, c.len) == BF_ERR_RESERVED, "parquet: classic keeps flags 0 in v2",
				  "%d", (int) bf_validate(c.buf, c.len));
			tf_free(&c);
		}
	}
	free(p);
	tf_free(&f);
}

/* reads hex into a fresh buffer */
static uint8_t *
from_hex(const char *hex, size_t *len)
{
	size_t		n = strlen(hex) / 2;
	uint8_t    *b = xmalloc(n ? n : 1);

	for (size_t i = 0; i < n; i++)
	{
		unsigned	x;

		sscanf(hex + 2 * i, "%2x", &x);
		b[i] = (uint8_t) x;
	}
	*len = n;
	return b;
}

void
test_parquet_header(void)
{
	uint8_t		hdr[BF_PQ_HEADER_MAX];
	const uint32_t sizes[] = {32, 64, 1024, 1 << 20, BF_PARQUET_MAX_BYTES};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		size_t		hl = bf_parquet_write_header(hdr, sizes[i]);
		size_t		len = hl + sizes[i];
		uint8_t    *b = calloc(1, len);
		size_t		off = 0;
		uint32_t	nb = 0;

		memcpy(b, hdr, hl);
		check(bf_parquet_read(b, len, &off, &nb) == BF_PQ_OK && off == hl && nb == sizes[i],
			  "parquet header: round trip", "%u", sizes[i]);
		/* every shorter length is refused, never read past */
		for (size_t cut = 0; cut < hl + 2 && cut < len; cut++)
		{
			uint8_t    *c = copy_exact(b, len, cut);

			check(bf_parquet_read(c, cut, &off, &nb) != BF_PQ_OK,
				  "parquet header: truncated refused", "%u cut to %zu", sizes[i], cut);
			free(c);
		}
		free(b);
	}
	/* the bytes parquet-java and DuckDB write for 32 bytes: 15 40 1c1c0000 x3 00 */
	{
		size_t		hl = bf_parquet_write_header(hdr, 32);

		check(hl == 15 && hdr[0] == 0x15 && hdr[1] == 0x40 && hdr[2] == 0x1c && hdr[14] == 0,
			  "parquet header: the compact bytes", "%zu", hl);
	}
	{
		struct
		{
			const char *name;
			const char *hex;	/* header; 32 zero bytes of bitset follow */
			bf_pq_status want;
		}			cases[] = {
			{"canonical", "15401c1c00001c1c00001c1c000000", BF_PQ_OK},
			/* fields out of order, an unknown field 9 (a binary) skipped */
			{"reordered, unknown field", "3c1c0000" "0c041c0000" "78026162" "0c081c0000" "050240" "00", BF_PQ_OK},
			{"long-form field ids", "050240" "0c041c0000" "0c061c0000" "0c081c0000" "00", BF_PQ_OK},
			{"numBytes missing", "2c1c00001c1c00001c1c000000", BF_PQ_ERR_MISSING},
			{"compression missing", "15401c1c00001c1c000000", BF_PQ_ERR_MISSING},
			{"algorithm member 2", "15401c2c00001c1c00001c1c000000", BF_PQ_ERR_ALGORITHM},
			{"algorithm empty union", "15401c001c1c00001c1c000000", BF_PQ_ERR_ALGORITHM},
			{"algorithm two members", "15401c1c001c00001c1c00001c1c000000", BF_PQ_ERR_ALGORITHM},
			{"hash member 2", "15401c1c00001c2c00001c1c000000", BF_PQ_ERR_HASH},
			{"compression member 2", "15401c1c00001c1c00001c2c000000", BF_PQ_ERR_COMPRESSION},
			{"numBytes 0", "15001c1c00001c1c00001c1c000000", BF_PQ_ERR_NUMBYTES},
			{"numBytes -32", "153f1c1c00001c1c00001c1c000000", BF_PQ_ERR_NUMBYTES},
			{"numBytes 33", "15421c1c00001c1c00001c1c000000", BF_PQ_ERR_NUMBYTES},
			{"numBytes 64 for 32", "1580011c1c00001c1c00001c1c000000", BF_PQ_ERR_LENGTH},
			{"numBytes 2^31", "1580808080101c1c00001c1c00001c1c000000", BF_PQ_ERR_THRIFT},
			{"varint of 11 bytes", "15ffffffffffffffffffff011c1c00001c1c00001c1c000000", BF_PQ_ERR_THRIFT},
			{"type 13", "1d", BF_PQ_ERR_THRIFT},
			{"stop with an id", "10", BF_PQ_ERR_THRIFT},
			{"numBytes as i64", "16401c1c00001c1c00001c1c000000", BF_PQ_ERR_MISSING},
			{"list longer than the bytes", "99ff7f", BF_PQ_ERR_THRIFT},
			{"deep nesting", "1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c", BF_PQ_ERR_THRIFT},
			{"no stop", "15401c1c00001c1c00001c1c0000", BF_PQ_OK},	/* the bitset's 00 is read as the stop */
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			size_t		hl;
			uint8_t    *h = from_hex(cases[i].hex, &hl);
			size_t		len = hl + 32;
			uint8_t    *b = calloc(1, len);
			size_t		off;
			uint32_t	nb;
			bf_pq_status st;

			memcpy(b, h, hl);
			st = bf_parquet_read(b, len, &off, &nb);
			/* "no stop": the first bitset byte ends the header, 31 remain */
			if (i == sizeof(cases) / sizeof(cases[0]) - 1)
				check(st == BF_PQ_ERR_LENGTH, "parquet header: case", "%s: %d", cases[i].name, (int) st);
			else
				check(st == cases[i].want, "parquet header: case", "%s: %d, want %d (%s)",
					  cases[i].name, (int) st, (int) cases[i].want, bf_parquet_status_message(st));
			free(h);
			free(b);
		}
	}
	/* random bytes: the reader answers, in bounds (ASan watches) */
	{
		rng			r = {99};

		for (int i = 0; i < 20000; i++)
		{
			size_t		len = (size_t) rng_below(&r, 64);
			uint8_t    *b = xmalloc(len ? len : 1);
			size_t		off;
			uint32_t	nb;

			rng_fill(&r, b, len);
			if (len > 0 && rng_below(&r, 2))
				b[0] = 0x15;
			if (bf_parquet_read(b, len, &off, &nb) == BF_PQ_OK)
				check(off + nb == len && nb % 32 == 0, "parquet header: random accepted is whole",
					  "%zu", len);
			free(b);
		}
	}
}
