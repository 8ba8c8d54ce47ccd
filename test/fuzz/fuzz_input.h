/*
 * fuzz_input.h
 *		The start the format targets share: an input's first byte picks a
 *		mode, the rest is the candidate value.
 *
 * An odd first byte means "fix the checksum first": a mutated header then
 * reaches the checks (and the code) behind the checksum, which random
 * bytes almost never would.  The value is copied to a buffer of exactly its
 * size, so that ASan sees any read past its end.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The value of input data[0, size) in a malloc'd buffer of *len bytes (one
 * byte allocated for an empty value), resealed with seal when the mode asks
 * and the value has at least min_len bytes; NULL for an empty input.
 */
static inline uint8_t *
fuzz_value(const uint8_t *data, size_t size, void (*seal) (uint8_t *, size_t),
		   size_t min_len, size_t *len)
{
	uint8_t    *buf;

	if (size == 0)
		return NULL;
	*len = size - 1;
	buf = malloc(*len ? *len : 1);
	if (buf == NULL)
		abort();
	memcpy(buf, data + 1, *len);
	if ((data[0] & 1) && *len >= min_len)
		seal(buf, *len);
	return buf;
}

#endif							/* FUZZ_INPUT_H */
