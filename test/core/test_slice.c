/*
 * test_slice.c
 *		Unit tests of the bit-sliced blocks: transposing filters into
 *		slices and back, a probe's AND of slices against a probe of each
 *		filter, and a superset test's slices against bf_is_superset after
 *		folding, over both layouts and folded sizes.
 */
#include "test_core.h"

#include "bf_slice.h"

/* the keys' hashes: one seeded generator, so a failure reproduces */
static rng	slice_rng = {88172645463325252ULL};

/* n random filters of a geometry, each with nkeys keys */
static uint8_t **
make_filters(int layout, uint64_t nbits, int k, int n, int nkeys, bf_view *views)
{
	uint8_t   **bufs = malloc(sizeof(uint8_t *) * (size_t) n);

	for (int i = 0; i < n; i++)
	{
		bufs[i] = calloc(1, bf_buffer_size(nbits));
		bf_init(bufs[i], layout, k, 7, nbits);
		bf_view_of(bufs[i], &views[i]);
		for (int j = 0; j < nkeys; j++)
			bf_insert_hash(&views[i], rng_next(&slice_rng));
	}
	return bufs;
}

static void
test_transpose_roundtrip(int layout, uint64_t nbits, int n)
{
	bf_view    *v = malloc(sizeof(bf_view) * (size_t) n);
	uint8_t   **bufs = make_filters(layout, nbits, 5, n, (int) (nbits / 16), v);
	const uint8_t **bits = malloc(sizeof(uint8_t *) * (size_t) n);
	int		   *cols = malloc(sizeof(int) * (size_t) n);
	uint64_t   *slices = malloc(nbits * BFSL_SLICE_BYTES);
	uint8_t    *back = malloc(nbits / 8);
	bool		ok = true;
	int			bad = -1;

	/* garbage first: a written column must not keep any of it */
	for (uint64_t i = 0; i < nbits * BFSL_WORDS; i++)
		slices[i] = rng_next(&slice_rng);
	for (int i = 0; i < n; i++)
	{
		bits[i] = v[i].bits;
		cols[i] = (int) ((i * 37) % BFSL_C);	/* scattered columns */
	}
	/* in pieces of 100 slices, as pages hold them */
	for (uint64_t s0 = 0; s0 < nbits; s0 += 100)
		bfsl_transpose(slices + s0 * BFSL_WORDS, s0, 100, bits, cols, n, nbits);
	for (int i = 0; i < n && ok; i++)
	{
		bfsl_untranspose(slices, nbits, cols[i], back);
		ok = memcmp(back, v[i].bits, nbits / 8) == 0;
		if (!ok)
			bad = cols[i];
	}
	check(ok, "slice: transpose then untranspose gives each filter back",
		  "layout %d, %" PRIu64 " bits, %d filters: column %d differs",
		  layout, nbits, n, bad);

	/* probes: the AND of a key's slices is each filter's probe */
	ok = true;
	for (int t = 0; t < 2000 && ok; t++)
	{
		uint64_t	h = rng_next(&slice_rng);
		uint64_t	pos[BF_MAX_HASHES];
		bfsl_mask		m;

		bf_positions(layout, nbits, 5, h, pos);
		bfsl_mask_fill(&m, BFSL_C);
		for (int j = 0; j < 5; j++)
			bfsl_mask_and(&m, slices + pos[j] * BFSL_WORDS);
		for (int i = 0; i < n && ok; i++)
			if (bfsl_mask_test(&m, cols[i]) != bf_probe_hash(&v[i], h))
			{
				ok = false;
				bad = cols[i];
			}
	}
	check(ok, "slice: the AND of a key's slices equals each filter's probe",
		  "layout %d, %" PRIu64 " bits, %d filters: column %d differs",
		  layout, nbits, n, bad);

	for (int i = 0; i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(v);
	free(bits);
	free(cols);
	free(slices);
	free(back);
}

/*
 * Superset tests through slices against bf_is_superset after folding both
 * to the common size, with q of qnbits against filters of nbits.
 */
static void
test_superset(int layout, uint64_t nbits, uint64_t qnbits)
{
	int			n = 200;
	bf_view    *v = malloc(sizeof(bf_view) * (size_t) n);
	uint8_t   **bufs = make_filters(layout, nbits, 3, n, (int) (nbits / 6), v);
	const uint8_t **bits = malloc(sizeof(uint8_t *) * (size_t) n);
	int		   *cols = malloc(sizeof(int) * (size_t) n);
	uint64_t   *slices = calloc(nbits, BFSL_SLICE_BYTES);
	uint64_t   *pos = malloc(sizeof(uint64_t) * qnbits);
	bool		ok = true;
	int			nsup = 0;
	int			bad_t = -1,
				bad_col = -1;

	for (int i = 0; i < n; i++)
	{
		bits[i] = v[i].bits;
		cols[i] = i;
	}
	bfsl_transpose(slices, 0, (uint32_t) nbits, bits, cols, n, nbits);
	for (int t = 0; t < 40; t++)
	{
		uint8_t    *qb = calloc(1, bf_buffer_size(qnbits));
		bf_view		q;
		int			shift;
		int64_t		np;
		bfsl_mask		m;
		int			nkeys = t % 4 == 0 ? 0 : 1 + t % 5;

		bf_init(qb, layout, 3, 7, qnbits);
		bf_view_of(qb, &q);
		/* q: keys of filter t (a superset there), or random keys */
		slice_rng.s = 1000 + (uint64_t) t;
		for (int j = 0; j < nkeys; j++)
			bf_insert_hash(&q, rng_next(&slice_rng));
		if (t % 3 == 0 && qnbits == nbits)
			memcpy(q.bits, v[t].bits, nbits / 8);
		np = bfsl_superset_positions(layout, nbits, q.bits, qnbits, pos,
								   (int64_t) qnbits, &shift);
		bfsl_mask_fill(&m, BFSL_C);
		for (int64_t j = 0; j < np; j++)
		{
			bfsl_mask		o = {{0}};

			for (uint64_t i = 0; i < (UINT64_C(1) << shift); i++)
				bfsl_mask_or(&o, slices + bfsl_fold_slice(layout, pos[j], shift, i) * BFSL_WORDS);
			bfsl_mask_and(&m, o.w);
		}
		for (int i = 0; i < n; i++)
		{
			uint64_t	common = nbits < qnbits ? nbits : qnbits;
			uint8_t    *a = calloc(1, bf_buffer_size(common));
			uint8_t    *b = calloc(1, bf_buffer_size(common));
			bf_view		av,
						bv;
			bool		want;

			bf_init(a, layout, 3, 7, common);
			bf_init(b, layout, 3, 7, common);
			bf_view_of(a, &av);
			bf_view_of(b, &bv);
			bf_fold_or(&av, &v[i]);
			bf_fold_or(&bv, &q);
			want = bf_is_superset(&av, &bv);
			nsup += want;
			if (ok && (np < 0 || bfsl_mask_test(&m, i) != want))
			{
				ok = false;
				bad_t = t;
				bad_col = i;
			}
			free(a);
			free(b);
		}
		free(qb);
	}
	check(ok, "slice: a superset test through slices equals bf_is_superset after folding",
		  "layout %d, filters of %" PRIu64 " bits, q of %" PRIu64 " bits: q %d, column %d",
		  layout, nbits, qnbits, bad_t, bad_col);
	check(nsup > 0, "slice: the superset tests include supersets",
		  "layout %d, filters of %" PRIu64 " bits, q of %" PRIu64 " bits: none",
		  layout, nbits, qnbits);
	for (int i = 0; i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(v);
	free(bits);
	free(cols);
	free(slices);
	free(pos);
}

/* masks at the block's edges: column 0, a word's last and first, 511 */
void
test_slice_masks(void)
{
	bfsl_mask		m;

	bfsl_mask_fill(&m, 70);
	check(bfsl_mask_count(&m) == 70 && bfsl_mask_test(&m, 69) && !bfsl_mask_test(&m, 70),
		  "slice: a mask of the first 70 columns", "count %d", bfsl_mask_count(&m));
	bfsl_mask_fill(&m, BFSL_C);
	check(bfsl_mask_count(&m) == BFSL_C && bfsl_mask_test(&m, 0) && bfsl_mask_test(&m, BFSL_C - 1),
		  "slice: a mask of every column", "count %d", bfsl_mask_count(&m));
	bfsl_mask_fill(&m, BFSL_C - 1);
	check(bfsl_mask_count(&m) == BFSL_C - 1 && bfsl_mask_test(&m, BFSL_C - 2) &&
		  !bfsl_mask_test(&m, BFSL_C - 1),
		  "slice: a mask of all but the last column", "count %d", bfsl_mask_count(&m));
	bfsl_mask_fill(&m, 0);
	check(bfsl_mask_empty(&m) && bfsl_mask_count(&m) == 0,
		  "slice: a mask of no column", "count %d", bfsl_mask_count(&m));
	bfsl_mask_set(&m, BFSL_C - 1);
	bfsl_mask_set(&m, 63);
	bfsl_mask_set(&m, 64);
	check(bfsl_mask_count(&m) == 3 && !bfsl_mask_empty(&m) && bfsl_mask_test(&m, 63) &&
		  bfsl_mask_test(&m, 64) && !bfsl_mask_test(&m, 62) && !bfsl_mask_test(&m, 65),
		  "slice: columns set at the words' edges", "count %d", bfsl_mask_count(&m));
	bfsl_mask_clear(&m, 63);
	bfsl_mask_clear(&m, 64);
	check(bfsl_mask_count(&m) == 1 && bfsl_mask_test(&m, BFSL_C - 1),
		  "slice: the last column alone", "count %d", bfsl_mask_count(&m));
	bfsl_mask_clear(&m, BFSL_C - 1);
	check(bfsl_mask_empty(&m), "slice: every column cleared", "count %d", bfsl_mask_count(&m));
}

/* a full block, a block one short, one column, in pieces as pages hold */
void
test_slice_transpose(void)
{
	test_transpose_roundtrip(BF_LAYOUT_CLASSIC, 4096, BFSL_C);
	test_transpose_roundtrip(BF_LAYOUT_BLOCKED, 8192, BFSL_C - 1);
	test_transpose_roundtrip(BF_LAYOUT_BLOCKED, 8192, 300);
	test_transpose_roundtrip(BF_LAYOUT_CLASSIC, 1600, 17);
	test_transpose_roundtrip(BF_LAYOUT_CLASSIC, 512, 1);
}

void
test_slice_superset(void)
{
	test_superset(BF_LAYOUT_CLASSIC, 2048, 2048);
	test_superset(BF_LAYOUT_CLASSIC, 4096, 1024);
	test_superset(BF_LAYOUT_CLASSIC, 1024, 4096);
	test_superset(BF_LAYOUT_BLOCKED, 2048, 2048);
	test_superset(BF_LAYOUT_BLOCKED, 4096, 1024);
	test_superset(BF_LAYOUT_BLOCKED, 1024, 4096);
	/* parquet folds whole 256-bit blocks, as blocked folds its 512-bit ones */
	test_superset(BF_LAYOUT_PARQUET, 2048, 2048);
	test_superset(BF_LAYOUT_PARQUET, 4096, 1024);
	test_superset(BF_LAYOUT_PARQUET, 1024, 4096);
}

/*
 * An index scan's candidates: random TIDs at the packing's edges, each
 * added one to three times with random recheck flags, come back once each,
 * in heap order, rechecked if any copy was; checked against a brute-force
 * count over the same draws.
 */
void
test_slice_tid_items(void)
{
	enum
	{
		NTID = 600
	};
	uint32_t	blocks[NTID];
	uint16_t	offsets[NTID];
	int			want_recheck[NTID];
	uint64_t   *items = malloc(sizeof(uint64_t) * NTID * 3);
	size_t		n = 0,
				m;
	int			bad = 0;

	for (int i = 0; i < NTID; i++)
	{
		uint64_t	r = rng_next(&slice_rng);

		/* distinct TIDs: the draw's index is in the offset or the block */
		blocks[i] = i % 3 == 0 ? 0xFFFFFFFEu - (uint32_t) i : (uint32_t) (r >> 40);
		offsets[i] = i % 3 == 0 ? (uint16_t) (r & 0xFFFF) | 1 : (uint16_t) (i + 1);
		want_recheck[i] = 0;
		for (int c = 0; c < 1 + (int) (r % 3); c++)
		{
			int			rc = (int) ((r >> (8 + c)) & 1);

			want_recheck[i] |= rc;
			items[n++] = bfsl_tid_item(blocks[i], offsets[i], rc);
		}
	}
	/* shuffle, so the merge cannot lean on the order of the adds */
	for (size_t i = n - 1; i > 0; i--)
	{
		size_t		j = (size_t) (rng_next(&slice_rng) % (i + 1));
		uint64_t	t = items[i];

		items[i] = items[j];
		items[j] = t;
	}
	m = bfsl_tid_items_merge(items, n);
	check(m == NTID, "slice: one item per TID after the merge", "%zu items, %d TIDs", m, NTID);
	for (size_t i = 1; i < m; i++)
		if (items[i - 1] >= items[i])
			bad++;
	check(bad == 0, "slice: merged items in heap order", "%d out of order", bad);
	bad = 0;
	for (int i = 0; i < NTID; i++)
	{
		int			found = 0;

		for (size_t j = 0; j < m; j++)
			if (bfsl_tid_item_block(items[j]) == blocks[i] &&
				bfsl_tid_item_offset(items[j]) == offsets[i])
			{
				found++;
				if (bfsl_tid_item_recheck(items[j]) != want_recheck[i])
					bad++;
			}
		if (found != 1)
			bad++;
	}
	check(bad == 0, "slice: each TID back once, rechecked if any copy was",
		  "%d wrong", bad);
	check(bfsl_tid_items_merge(items, 0) == 0 && bfsl_tid_items_merge(items, 1) == 1,
		  "slice: merging no item and one item", "-");

	/* already in heap order, each TID twice (the second rechecked) */
	n = 0;
	for (int i = 0; i < NTID; i++)
	{
		items[n++] = bfsl_tid_item((uint32_t) i / 7, (uint16_t) (1 + i % 7), 0);
		items[n++] = bfsl_tid_item((uint32_t) i / 7, (uint16_t) (1 + i % 7), 1);
	}
	m = bfsl_tid_items_merge(items, n);
	bad = 0;
	for (size_t i = 0; i < m; i++)
		if (!bfsl_tid_item_recheck(items[i]) || bfsl_tid_item_block(items[i]) != i / 7 ||
			bfsl_tid_item_offset(items[i]) != 1 + i % 7)
			bad++;
	check(m == NTID && bad == 0, "slice: items already in heap order, merged in place",
		  "%zu items, %d wrong", m, bad);
	free(items);
}
