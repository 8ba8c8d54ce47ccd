/*
 * fuzz_base64.c
 *		libFuzzer target: arbitrary text through the base64 decoder (the
 *		text input path), then through the validator.  Whatever decodes
 *		must encode back to the same text: there is one text form per
 *		filter.
 */
#include <stdlib.h>

#include "bf_core.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *out = malloc(bf_base64_decoded_max(size) + 1);
	long long	n = bf_base64_decode((const char *) data, size, out);

	if (n >= 0)
	{
		char	   *again = malloc(bf_base64_encoded_len((size_t) n) + 1);

		bf_base64_encode(out, (size_t) n, again);
		if (bf_base64_encoded_len((size_t) n) != size ||
			memcmp(again, data, size) != 0)
			abort();
		(void) bf_validate(out, (size_t) n);
		free(again);
	}
	free(out);
	return 0;
}
