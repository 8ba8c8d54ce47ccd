/*
 * fuzz_counting.c
 *		libFuzzer target: arbitrary bytes through the counting-filter
 *		validator, and, for whatever it accepts, every operation the server
 *		would then run on it: probe, count, add, remove, fold, union, the
 *		conversion to a bloomfilter, and the text round trip.
 *
 * The validator must never read outside the buffer, and a buffer it
 * accepts must be safe to operate on and stay valid after every operation.
 */
#include <stdlib.h>

#include "bf_counting.h"
#include "fuzz_input.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf;
	bfc_view	v;
	uint64_t	n,
				nz,
				sat;
	volatile uint64_t sink = 0;

	buf = fuzz_value(data, size, bf_seal, BF_HEADER_SIZE, &size);
	if (buf == NULL)
		return 0;
	if (bfc_validate(buf, size) != BF_OK)
	{
		free(buf);
		return 0;
	}

	bf_unseal(buf);
	bfc_view_of(buf, &v);
	for (int64_t k = 0; k < 32; k++)
	{
		uint64_t	h = bf_hash_int64(v.seed, k);

		sink += bfc_contains_hash(&v, h) + bfc_count_hash(&v, h);
		if (k % 3 == 0)
			bfc_add_hash(&v, h);
		else
			sink += bfc_remove_hash(&v, h);
	}
	bfc_counter_stats(&v, &nz, &sat);
	sink += nz + sat;

	/* still valid after the operations (family set as the server would) */
	if (v.family == BF_FAMILY_NONE)
		v.family = BF_FAMILY_INTEGER;
	bfc_store_header(buf, &v);
	bf_seal(buf, size);
	if (bfc_validate(buf, size) != BF_OK)
		abort();
	bf_unseal(buf);

	/* the bloomfilter it converts to is valid */
	{
		size_t		blen = bf_buffer_size(v.ncounters);
		uint8_t    *b = malloc(blen);

		bfc_to_bloom(&v, b);
		bf_seal(b, blen);
		if (bf_validate(b, blen) != BF_OK)
			abort();
		free(b);
	}

	/* union with itself, and a fold to half the size when there is one */
	if (bfc_compatible(&v, &v, &n) == BF_COMPAT_OK)
	{
		uint64_t	half = v.ncounters / 2;
		uint64_t	m = bfc_check_geometry(v.layout, v.hashes, v.width, half) == BF_OK ? half : v.ncounters;
		size_t		rlen = bfc_buffer_size(m, v.width);
		uint8_t    *r = malloc(rlen);
		bfc_view	rv;

		bfc_init(r, v.layout, v.hashes, v.seed, m, v.width);
		bfc_view_of(r, &rv);
		if (bfc_compatible(&rv, &v, &n) == BF_COMPAT_OK)
		{
			bfc_fold_add(&rv, &v);
			bfc_fold_add(&rv, &v);
			bfc_merge_header(&rv, &v, &v);
			bfc_store_header(r, &rv);
			bf_seal(r, rlen);
			if (bfc_validate(r, rlen) != BF_OK)
				abort();
		}
		free(r);
	}

	/* the text form round-trips */
	{
		size_t		tlen = bf_base64_encoded_len(size);
		char	   *text = malloc(tlen);
		uint8_t    *back = malloc(bf_base64_decoded_max(tlen) + 1);

		bf_seal(buf, size);
		bf_base64_encode(buf, size, text);
		if (bf_base64_decode(text, tlen, back) != (long long) size ||
			memcmp(back, buf, size) != 0 || bfc_validate(back, size) != BF_OK)
			abort();
		free(text);
		free(back);
	}
	(void) sink;
	free(buf);
	return 0;
}
