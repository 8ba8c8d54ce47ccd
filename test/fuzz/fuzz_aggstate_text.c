/*
 * fuzz_aggstate_text.c
 *		libFuzzer target: a bloomfilter_aggstate value from outside, as a
 *		Citus coordinator receives a worker's partial state (or a user's
 *		hand-written coord_combine_agg call gives one): the first byte's
 *		bit 0 picks the text form (base64, white space skipped, as
 *		bloomfilter_aggstate_in reads it) or the binary form (the bytes, as
 *		bloomfilter_aggstate_recv reads them).  bfas_diagnose validates the
 *		head and the whole payload; whatever it accepts must be readable by
 *		the payload's own decoder, and a text without white space must be
 *		the one text of its bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "bf_aggstate.h"
#include "bf_core.h"
#include "bf_problem.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_value(const uint8_t *p, size_t len)
{
	bf_problem	pr;
	bfa_state	s;

	if (!bfas_diagnose(p, len, &pr))
	{
		/* a refusal always says why */
		if (pr.cls == BF_PROBLEM_NONE || pr.what[0] == '\0')
			abort();
		return;
	}
	if (bfas_kind(p, len) == 0)
		abort();
	if (p[6] == BFAS_KIND_BLOOM &&
		bfa_decode(p + BFAS_HEAD_LEN, len - BFAS_HEAD_LEN, &s) != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text;
	size_t		tlen;
	char	   *clean;
	size_t		n = 0;
	bool		spaces = false;
	uint8_t    *out;
	long long	len;

	if (size == 0)
		return 0;
	if ((data[0] & 1) == 0)
	{
		/* binary: a buffer of exactly the value's size */
		uint8_t    *buf = malloc(size - 1 ? size - 1 : 1);

		memcpy(buf, data + 1, size - 1);
		check_value(buf, size - 1);
		free(buf);
		return 0;
	}
	text = (const char *) data + 1;
	tlen = size - 1;
	clean = malloc(tlen + 1);
	for (size_t i = 0; i < tlen; i++)
	{
		char		c = text[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			spaces = true;
		else
			clean[n++] = c;
	}
	out = malloc(bf_base64_decoded_max(n) + 1);
	len = bf_base64_decode(clean, n, out);
	if (len >= 0)
	{
		uint8_t    *val = malloc(len ? (size_t) len : 1);

		memcpy(val, out, (size_t) len);
		check_value(val, (size_t) len);
		if (!spaces)
		{
			char	   *again = malloc(bf_base64_encoded_len((size_t) len) + 1);

			bf_base64_encode(val, (size_t) len, again);
			if (bf_base64_encoded_len((size_t) len) != n || memcmp(again, clean, n) != 0)
				abort();
			free(again);
		}
		free(val);
	}
	free(out);
	free(clean);
	return 0;
}
