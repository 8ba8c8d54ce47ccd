/*
 * fuzz_window.c
 *		libFuzzer target: arbitrary bytes through the bloomwindow validator
 *		and, for whatever it accepts, every operation the server would then
 *		run on the window.
 *
 * The validator must never read outside the buffer, and a window it
 * accepts must be safe to probe, union, merge and add to; what those
 * operations return must validate again (the server stores it), and the
 * text form must round-trip.
 */
#include <stdlib.h>

#include "bf_window.h"
#include "fuzz_input.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Seals a copy and aborts unless it validates: operations keep windows valid. */
static void
must_validate(const uint8_t *buf, size_t len)
{
	uint8_t    *copy = malloc(len);

	memcpy(copy, buf, len);
	bfw_seal(copy, len);
	if (bfw_validate(copy, len, NULL) != BFW_OK)
		abort();
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf;
	bfw_view	w;
	bfw_error	err;
	volatile uint64_t sink = 0;
	int64_t		newest;

	buf = fuzz_value(data, size, bfw_seal, BFW_HEADER_SIZE, &size);
	if (buf == NULL)
		return 0;
	if (bfw_validate(buf, size, &err) != BFW_OK)
	{
		if (bfw_validate(buf, size, NULL) == BFW_OK)
			abort();			/* the verdict must not depend on err */
		free(buf);
		return 0;
	}
	bfw_unseal(buf);
	bfw_view_of(buf, &w);
	newest = bfw_newest(&w);

	/* probes and unions at the newest bucket and around it */
	{
		size_t		flen = bf_buffer_size(w.nbits);
		uint8_t    *f = malloc(flen);
		bf_view		fv;
		int64_t		ats[4] = {0, -1, 5, INT64_MAX / 2};

		if (newest != BFW_EMPTY)
		{
			ats[0] = newest;
			if (newest > INT64_MIN + BFW_MAX_BUCKETS)
				ats[1] = newest - (int64_t) w.buckets;
		}
		for (int a = 0; a < 4; a++)
		{
			for (int64_t key = 0; key < 16; key++)
				sink += bfw_probe_hash(&w, ats[a], bf_hash_int64(w.seed, key));
			bf_init(f, w.layout, w.hashes, w.seed, w.nbits);
			bf_view_of(f, &fv);
			fv.added = bfw_union_live(&w, ats[a], &fv);
			if (fv.added > 0)
				fv.family = w.family == BF_FAMILY_NONE ? BF_FAMILY_INTEGER : w.family;
			fv.type_tag = bf_family_tagged(fv.family) ? w.type_tag : 0;
			bf_store_header(f, &fv);
			bf_seal(f, flen);
			if (bf_validate(f, flen) != BF_OK)
				abort();		/* the union of valid buckets is a valid filter */
		}
		free(f);
	}

	/* merge into a copy of itself and into an empty window of its geometry */
	{
		uint8_t    *copy = malloc(size);
		uint8_t    *empty = malloc(size);
		bfw_view	cv,
					ev;

		memcpy(copy, buf, size);
		bfw_view_of(copy, &cv);
		bfw_merge(&cv, &w);
		must_validate(copy, size);
		bfw_init(empty, w.layout, w.hashes, w.seed, w.nbits, w.buckets, w.bucket_us);
		bfw_view_of(empty, &ev);
		bfw_merge(&ev, &w);
		if (memcmp(empty, buf, size) != 0)
			abort();			/* merging into nothing gives the window back */
		free(copy);
		free(empty);
	}

	/* adds: a late key, the newest bucket, one bucket on, far ahead */
	{
		int64_t		targets[4];
		int			nt = 0;

		if (newest != BFW_EMPTY)
		{
			if (newest > INT64_MIN + BFW_MAX_BUCKETS)
				targets[nt++] = newest - (int64_t) w.buckets;
			targets[nt++] = newest;
			if (newest < INT64_MAX / w.bucket_us - 2)
				targets[nt++] = newest + 1;
		}
		targets[nt++] = INT64_MAX / w.bucket_us / 2;
		if (w.family == BF_FAMILY_NONE)
		{
			w.family = BF_FAMILY_INTEGER;
			bfw_store_header(&w);
		}
		for (int i = 0; i < nt; i++)
		{
			bool		added = bfw_add_hash(&w, targets[i], &newest, bf_hash_int64(w.seed, i));

			if (added && !bfw_probe_hash(&w, targets[i], bf_hash_int64(w.seed, i)))
				abort();		/* no false negatives */
			must_validate(buf, size);
		}
	}

	/* the text form round-trips */
	{
		size_t		tlen = bf_base64_encoded_len(size);
		char	   *text = malloc(tlen);
		uint8_t    *back = malloc(bf_base64_decoded_max(tlen) + 1);

		bfw_seal(buf, size);
		bf_base64_encode(buf, size, text);
		if (bf_base64_decode(text, tlen, back) != (long long) size ||
			memcmp(back, buf, size) != 0 || bfw_validate(back, size, NULL) != BFW_OK)
			abort();
		free(text);
		free(back);
	}
	(void) sink;
	free(buf);
	return 0;
}
