/*
 * fuzz_parquet.c
 *		libFuzzer target: arbitrary bytes as a Parquet Bloom filter (the
 *		Thrift compact BloomFilterHeader and bitset bloom_from_parquet
 *		reads), and, for what the reader accepts, the filter the server
 *		makes of it: valid, probed, estimated, folded, written back.
 *
 * The reader must never read outside the buffer (the bytes come from any
 * Parquet file), and what it accepts must make a valid parquet filter
 * whose export reads back to the same bitset.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bf_core.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *in = malloc(size ? size : 1);
	size_t		off;
	uint32_t	nbytes;
	uint8_t    *buf;
	bf_view		v;
	volatile double sink = 0;

	memcpy(in, data, size);
	if (bf_parquet_read(in, size, &off, &nbytes) != BF_PQ_OK)
	{
		free(in);
		return 0;
	}
	if (off + nbytes != size || nbytes % BF_PARQUET_BLOCK_BYTES != 0 ||
		bf_check_filter_geometry(BF_LAYOUT_PARQUET, 8, (uint64_t) nbytes * 8) != BF_OK)
		abort();

	/* the filter bloom_from_parquet makes */
	buf = malloc(bf_buffer_size((uint64_t) nbytes * 8));
	bf_init(buf, BF_LAYOUT_PARQUET, 8, 0, (uint64_t) nbytes * 8);
	bf_view_of(buf, &v);
	memcpy(v.bits, in + off, nbytes);
	v.param = BF_PQ_INT64;
	v.family = BF_FAMILY_INTEGER;
	v.added = 1;
	bf_store_header(buf, &v);
	bf_seal(buf, bf_buffer_size(v.nbits));
	if (bf_validate(buf, bf_buffer_size(v.nbits)) != BF_OK)
		abort();
	bf_unseal(buf);

	for (int64_t i = 0; i < 64; i++)
		sink += bf_probe_hash(&v, bf_parquet_hash_int64(i));
	sink += bf_est_cardinality(&v) + bf_est_fpr(&v);

	/* written back: the same header fields and bitset */
	{
		uint8_t		hdr[BF_PQ_HEADER_MAX];
		size_t		hl = bf_parquet_write_header(hdr, nbytes);
		uint8_t    *out = malloc(hl + nbytes);
		size_t		off2;
		uint32_t	nb2;

		memcpy(out, hdr, hl);
		memcpy(out + hl, v.bits, nbytes);
		if (bf_parquet_read(out, hl + nbytes, &off2, &nb2) != BF_PQ_OK ||
			nb2 != nbytes || memcmp(out + off2, in + off, nbytes) != 0)
			abort();
		free(out);
	}

	/* folded to half, when the block count allows */
	if (nbytes % (2 * BF_PARQUET_BLOCK_BYTES) == 0)
	{
		uint8_t    *half = malloc(bf_buffer_size((uint64_t) nbytes * 4));
		bf_view		hv;
		uint64_t	nb;

		bf_init(half, BF_LAYOUT_PARQUET, 8, 0, (uint64_t) nbytes * 4);
		bf_view_of(half, &hv);
		if (bf_compatible(&v, &hv, &nb) != BF_COMPAT_OK)
			abort();
		bf_fold_or(&hv, &v);
		sink += bf_est_fpr(&hv);
		free(half);
	}
	(void) sink;
	free(buf);
	free(in);
	return 0;
}
