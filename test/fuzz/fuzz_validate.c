/*
 * fuzz_validate.c
 *		libFuzzer target: arbitrary bytes through the portable-format
 *		validator, and, for whatever it accepts, every read-only operation
 *		the server would then run on the filter.
 *
 * The validator must never read outside the buffer, and a buffer it
 * accepts must be safe to probe, estimate, fold and combine: that is the
 * promise that lets the server trust a filter after one check.
 */
#include <stdlib.h>

#include "bf_core.h"
#include "fuzz_input.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf;
	bf_view		v;
	uint64_t	nbits;
	volatile double sink = 0;

	buf = fuzz_value(data, size, bf_seal, BF_HEADER_SIZE, &size);
	if (buf == NULL)
		return 0;
	if (bf_validate(buf, size) != BF_OK)
	{
		free(buf);
		return 0;
	}

	bf_unseal(buf);
	bf_view_of(buf, &v);
	{
		uint64_t	h[64];
		uint8_t		out[64];

		for (uint64_t k = 0; k < 64; k++)
		{
			h[k] = bf_hash_int64(v.seed, (int64_t) k);
			sink += bf_probe_hash(&v, h[k]);
		}
		/*
		 * the batch probe (with AVX2, where the CPU has it) reads the same
		 * bits and must answer as the scalar one-key probe
		 */
		bf_probe_batch(&v, h, 64, out);
		for (uint64_t k = 0; k < 64; k++)
			if (out[k] != (uint8_t) bf_probe_hash(&v, h[k]))
				abort();
	}
	sink += (double) bf_popcount(&v);
	sink += bf_est_cardinality(&v);
	sink += bf_est_fpr(&v);

	/* fold into a filter half the size, when the geometry allows one */
	if (bf_check_geometry(v.layout, v.hashes, v.nbits / 2) == BF_OK &&
		bf_compatible(&v, &v, &nbits) == BF_COMPAT_OK)
	{
		size_t		half = bf_buffer_size(v.nbits / 2);
		uint8_t    *hb = malloc(half);
		bf_view		hv;

		bf_init(hb, v.layout, v.hashes, v.seed, v.nbits / 2);
		bf_view_of(hb, &hv);
		if (bf_compatible(&hv, &v, &nbits) == BF_COMPAT_OK)
		{
			bf_fold_or(&hv, &v);
			sink += bf_is_superset(&hv, &hv);
		}
		free(hb);
	}

	/* union and intersection with itself, and the text round trip */
	{
		uint8_t    *copy = malloc(size);
		bf_view		cv;
		size_t		tlen = bf_base64_encoded_len(size);
		char	   *text = malloc(tlen);
		uint8_t    *back = malloc(bf_base64_decoded_max(tlen) + 1);

		memcpy(copy, buf, size);
		bf_view_of(copy, &cv);
		bf_or(&cv, &v);
		bf_and(&cv, &v);
		sink += bf_is_superset(&v, &cv);
		bf_seal(copy, size);
		bf_base64_encode(copy, size, text);
		if (bf_base64_decode(text, tlen, back) != (long long) size ||
			memcmp(back, copy, size) != 0 || bf_validate(back, size) != BF_OK)
			abort();			/* the text form must round-trip exactly */
		free(copy);
		free(text);
		free(back);
	}
	(void) sink;
	free(buf);
	return 0;
}
