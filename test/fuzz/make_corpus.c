/*
 * make_corpus.c
 *		Writes the fuzzers' seed corpus: valid sealed filters of both
 *		layouts, several sizes, hash counts and key families, with keys in
 *		them, so that mutations start from bytes that pass the validator.
 *		Usage: make_corpus DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_aggstate.h"
#include "bf_core.h"
#include "bf_spark.h"
#include "bf_counting.h"
#include "bf_window.h"
#include "bf_scalable.h"

static void
write_file(const char *dir, int n, const uint8_t *buf, size_t len)
{
	char		path[4096];
	FILE	   *f;

	/* the first byte is the fuzz target's mode: even = bytes as they are */
	uint8_t		mode = (uint8_t) (n & 1);

	snprintf(path, sizeof(path), "%s/seed-%03d", dir, n);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(&mode, 1, 1, f) != 1 || fwrite(buf, 1, len, f) != len)
	{
		perror(path);
		exit(1);
	}
	fclose(f);
}

/*
 * A partial state as a bloomfilter_aggstate value (fuzz_aggstate_text):
 * the head, then the state; once as bytes (mode 0), once as base64 text
 * (mode 1).
 */
static void
write_aggstate_value(const char *dir, int n, const uint8_t *state, size_t slen)
{
	size_t		len = BFAS_HEAD_LEN + slen;
	uint8_t    *val = malloc(len);
	size_t		tlen = bf_base64_encoded_len(len);
	uint8_t    *text = malloc(1 + tlen);
	char		path[4096];
	FILE	   *f;

	bfas_store_head(val, BFAS_KIND_BLOOM);
	memcpy(val + BFAS_HEAD_LEN, state, slen);
	text[0] = 1;
	bf_base64_encode(val, len, (char *) text + 1);
	for (int form = 0; form <= 1; form++)
	{
		uint8_t		mode = 0;

		snprintf(path, sizeof(path), "%s/aggstate-%03d-%s", dir, n, form ? "text" : "bytes");
		f = fopen(path, "wb");
		if (f == NULL ||
			(form == 0 && (fwrite(&mode, 1, 1, f) != 1 || fwrite(val, 1, len, f) != len)) ||
			(form == 1 && fwrite(text, 1, 1 + tlen, f) != 1 + tlen))
		{
			perror(path);
			exit(1);
		}
		fclose(f);
	}
	free(text);
	free(val);
}

/*
 * Aggregate partial states (fuzz_aggstate): a buffer with and without its
 * sketch, a bucketed buffer, an explicitly sized state's hashes, and a
 * filter-phase state.
 */
static int
write_agg_states(const char *dir, int n)
{
	bfa_target	t = {0.01, 7, 64, 1024};
	uint64_t	h[5] = {1, UINT64_C(0x0123456789abcdef), 3, UINT64_C(1) << 63, 5};
	uint8_t		sketch[BF_HLL_REGISTERS] = {0};
	uint32_t	count[BF_HASH_BUCKETS] = {0};
	size_t		len;
	uint8_t    *buf;

	for (int i = 0; i < 5; i++)
		bf_hll_add(sketch, h[i]);
	for (int with = 0; with <= 1; with++)
	{
		len = bfa_buffer_len(with, 5);
		buf = malloc(len);
		bfa_encode_buffer(buf, &t, BF_FAMILY_INTEGER, 0, 5, with ? sketch : NULL, h, 5);
		write_aggstate_value(dir, n, buf, len);
		write_file(dir, n++, buf, len);
		free(buf);
	}
	/* bucketed: the hashes in bucket order (their top bytes) */
	{
		uint64_t	sorted[5] = {1, 3, 5, UINT64_C(0x0123456789abcdef), UINT64_C(1) << 63};

		count[0] = 3;
		count[1] = 1;
		count[128] = 1;
		len = BFA_BUCKETED_HEAD + 5 * 8;
		buf = malloc(len);
		bfa_encode_bucketed_head(buf, &t, BF_FAMILY_INTEGER, 0, 5, sketch, 5, count);
		memcpy(buf + BFA_BUCKETED_HEAD, sorted, sizeof(sorted));
		bfa_store_hashes((uint64_t *) (buf + BFA_BUCKETED_HEAD), 5);
		write_aggstate_value(dir, n, buf, len);
		write_file(dir, n++, buf, len);
		free(buf);
	}
	/* an explicitly sized state's hashes: 5 of a filter of 8 blocks, k = 7 */
	{
		len = bfa_explicit_len(5);
		buf = malloc(len);
		bfa_encode_explicit(buf, 7, 8 * BF_BLOCK_BITS, BF_FAMILY_INTEGER, 0, 6, h, 5);
		write_aggstate_value(dir, n, buf, len);
		write_file(dir, n++, buf, len);
		free(buf);
	}
	/* filter phase: a blocked filter of max_nblocks blocks, seed 0 */
	{
		size_t		flen = bf_buffer_size(t.max_nblocks * BF_BLOCK_BITS);
		size_t		hlen;
		bf_view		v;

		buf = malloc(BFA_AUTO_FILTER_HEAD + flen);
		hlen = bfa_encode_filter_head(buf, true, &t, sketch);
		bf_init(buf + hlen, BF_LAYOUT_BLOCKED, t.hashes, 0, t.max_nblocks * BF_BLOCK_BITS);
		bf_view_of(buf + hlen, &v);
		for (int i = 0; i < 5; i++)
			bf_insert_hash(&v, h[i]);
		v.family = BF_FAMILY_INTEGER;
		bf_store_header(buf + hlen, &v);
		bf_seal(buf + hlen, flen);
		write_aggstate_value(dir, n, buf, hlen + flen);
		write_file(dir, n++, buf, hlen + flen);
		free(buf);
	}
	return n;
}

int
main(int argc, char **argv)
{
	static const uint64_t sizes[] = {64, 512, 1024, 4096, 8192};
	int			n = 0;

	if (argc != 2)
	{
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (int layout = BF_LAYOUT_CLASSIC; layout <= BF_LAYOUT_BLOCKED; layout++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int k = 1; k <= 8; k += 3)
				for (int keys = 0; keys <= 40; keys += 20)
				{
					uint64_t	nbits = sizes[s];
					size_t		len;
					uint8_t    *buf;
					bf_view		v;

					if (bf_check_geometry(layout, k, nbits) != BF_OK)
						continue;
					len = bf_buffer_size(nbits);
					buf = malloc(len);
					bf_init(buf, layout, k, (uint64_t) n * 7919, nbits);
					bf_view_of(buf, &v);
					if (keys > 0)
					{
						v.family = (uint16_t) (1 + n % BF_FAMILY_MAX);
						v.type_tag = bf_family_tagged(v.family) ? 23 : 0;
					}
					for (int i = 0; i < keys; i++)
						bf_insert_hash(&v, bf_hash_int64(v.seed, i));
					bf_store_header(buf, &v);
					bf_seal(buf, len);
					write_file(argv[1], n++, buf, len);
					free(buf);
				}
	/*
	 * parquet filters: the portable format (version 2) and, for
	 * fuzz_parquet, the header and bitset as a Parquet file holds them
	 */
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint64_t	nbits = sizes[s] < 256 ? 256 : sizes[s];
		size_t		len = bf_buffer_size(nbits);
		uint8_t    *buf = malloc(len);
		uint8_t		hdr[BF_PQ_HEADER_MAX];
		size_t		hl;
		uint8_t    *pq;
		bf_view		v;

		bf_init(buf, BF_LAYOUT_PARQUET, 8, 0, nbits);
		bf_view_of(buf, &v);
		v.param = BF_PQ_INT32;
		v.family = BF_FAMILY_INTEGER;
		for (int i = 0; i < 30; i++)
			bf_insert_hash(&v, bf_parquet_hash_int32(i));
		bf_store_header(buf, &v);
		hl = bf_parquet_write_header(hdr, (uint32_t) (nbits / 8));
		pq = malloc(hl + nbits / 8);
		memcpy(pq, hdr, hl);
		memcpy(pq + hl, v.bits, nbits / 8);
		write_file(argv[1], n++, pq, hl + nbits / 8);
		free(pq);
		bf_seal(buf, len);
		write_file(argv[1], n++, buf, len);
		free(buf);
	}

	/* counting filters, both widths, for fuzz_counting */
	for (int layout = BF_LAYOUT_CLASSIC; layout <= BF_LAYOUT_BLOCKED; layout++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int width = 4; width <= 8; width += 4)
				for (int keys = 0; keys <= 40; keys += 20)
				{
					uint64_t	m = sizes[s];
					size_t		len;
					uint8_t    *buf;
					bfc_view	v;

					if (bfc_check_geometry(layout, 3, width, m) != BF_OK)
						continue;
					len = bfc_buffer_size(m, width);
					buf = malloc(len);
					bfc_init(buf, layout, 3, (uint64_t) n * 7919, m, width);
					bfc_view_of(buf, &v);
					if (keys > 0)
						v.family = BF_FAMILY_INTEGER;
					/* some keys many times, so that counters saturate */
					for (int i = 0; i < keys; i++)
						bfc_add_hash(&v, bf_hash_int64(v.seed, i % 7));
					bfc_store_header(buf, &v);
					bf_seal(buf, len);
					write_file(argv[1], n++, buf, len);
					free(buf);
				}

	/* bloomwindows: 1 to 4 buckets, keys spread over up to 6 buckets */
	for (int layout = BF_LAYOUT_CLASSIC; layout <= BF_LAYOUT_BLOCKED; layout++)
		for (uint32_t g = 1; g <= 4; g++)
			for (int keys = 0; keys <= 30; keys += 15)
			{
				uint64_t	nbits = 512;
				size_t		len = (size_t) bfw_buffer_size(g, nbits);
				uint8_t    *buf = malloc(len);
				bfw_view	w;
				int64_t		newest = BFW_EMPTY;

				bfw_init(buf, layout, 3, (uint64_t) n, nbits, g, 600000000);
				bfw_view_of(buf, &w);
				if (keys > 0)
				{
					w.family = (uint16_t) (1 + n % BF_FAMILY_MAX);
					w.type_tag = bf_family_tagged(w.family) ? 23 : 0;
					bfw_store_header(&w);
				}
				for (int i = 0; i < keys; i++)
					bfw_add_hash(&w, 1000 + i % 6 - (int64_t) g, &newest,
								 bf_hash_int64(w.seed, i));
				bfw_seal(buf, len);
				write_file(argv[1], n++, buf, len);
				free(buf);
			}
	/* scalablebloom containers, grown to a few levels (fuzz_scalable) */
	for (int layout = BF_LAYOUT_CLASSIC; layout <= BF_LAYOUT_BLOCKED; layout++)
		for (int keys = 0; keys <= 120; keys += 40)
		{
			uint64_t	nbits,
						cap;
			int			k;
			double		fpr;
			uint32_t	level;
			bfs_header	h = {0};
			bfs_entry	e[8];
			size_t		len;
			uint8_t    *buf;

			bf_size_for(layout, 16, bfs_level_fpr(0.05, 0.8, 0), &nbits, &k);
			len = BFS_HEADER_SIZE + bfs_entry_size(nbits);
			buf = malloc(len);
			h.kind = BFS_KIND_SCALABLE;
			h.layout = (uint8_t) layout;
			h.growth = 2;
			h.seed = (uint64_t) n;
			h.fpr = 0.05;
			h.tightening = 0.8;
			h.initial_capacity = 16;
			h.nfilters = 1;
			bfs_write_header(buf, &h);
			bfs_init_entry(buf + BFS_HEADER_SIZE, 16, bfs_level_fpr(0.05, 0.8, 0), 0, 0,
						   layout, k, h.seed, nbits);
			for (int i = 0; i < keys; i++)
			{
				uint64_t	hash = bf_hash_int64(h.seed, i);
				uint32_t	ne = bfs_entries(buf, len, e);

				h.added++;
				h.family = BF_FAMILY_INTEGER;
				if (bfs_probe_hash(e, ne, hash))
					continue;
				if (e[ne - 1].v.added >= e[ne - 1].capacity && ne < 8 &&
					bfs_plan_growth(&h, &e[ne - 1], len, &cap, &fpr, &level, &nbits, &k) == BFS_GROW_OK)
				{
					buf = realloc(buf, len + bfs_entry_size(nbits));
					bfs_init_entry(buf + len, cap, fpr, 0, level, layout, k, h.seed, nbits);
					len += bfs_entry_size(nbits);
					h.nfilters++;
					bfs_write_header(buf, &h);
					ne = bfs_entries(buf, len, e);
				}
				bf_insert_hash(&e[ne - 1].v, hash);
				e[ne - 1].v.family = BF_FAMILY_INTEGER;
				bfs_store_entry(&e[ne - 1]);
			}
			bfs_write_header(buf, &h);
			bfs_seal(buf, len);
			write_file(argv[1], n++, buf, len);
			free(buf);
		}
	n = write_agg_states(argv[1], n);
	/* Spark's writeTo bytes (fuzz_spark): both versions, a few sizes */
	for (int version = 1; version <= 2; version++)
		for (uint64_t words = 1; words <= 9; words += 4)
		{
			uint8_t		bits[72] = {0};
			uint8_t		out[BF_SPARK_V2_HEADER + 72];

			for (uint64_t i = 0; i < words * 8; i += 3)
				bits[i] = (uint8_t) (i * 37 + 1);
			bf_spark_write(out, version, 3, version == 2 ? -9 : 0, bits, words * 64);
			write_file(argv[1], n++, out, bf_spark_serialized_size(version, words * 64));
		}
	printf("%d seeds written to %s\n", n, argv[1]);
	return 0;
}
