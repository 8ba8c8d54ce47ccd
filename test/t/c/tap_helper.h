/*
 * tap_helper.h
 *		What the C helpers of the TAP tests (the .c files of test/t/c) share: hex
 *		decoding of the lines the Perl side writes, recomputing a format's
 *		checksum, and error text on one line.
 *
 * Each helper is built by the test that uses it (BloomCluster::build_c_helper)
 * against libpq and xxhash.h, the way FORMAT.md defines the checksum.
 */
#ifndef TAP_HELPER_H
#define TAP_HELPER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static inline int
hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

/* the bytes of the hex digits at h (up to a newline or the end) into out */
static inline size_t
unhex(const char *h, uint8_t *out)
{
	size_t		n = 0;

	while (h[0] && h[1] && h[0] != '\n')
	{
		out[n++] = (uint8_t) (hexval(h[0]) << 4 | hexval(h[1]));
		h += 2;
	}
	return n;
}

/*
 * Set the 8 bytes at offset at to XXH3-64 (seed 0) of every other byte of
 * the buffer, little-endian: the checksum of every format of FORMAT.md.
 * Nothing happens when at < 0 or the buffer does not hold those bytes.
 */
static inline void
reseal_at(uint8_t *b, size_t len, long at)
{
	uint8_t    *tmp;
	uint64_t	h;
	int			i;

	if (at < 0 || len < (size_t) at + 8)
		return;
	tmp = malloc(len);
	memcpy(tmp, b, at);
	memcpy(tmp + at, b + at + 8, len - at - 8);
	h = XXH3_64bits(tmp, len - 8);
	free(tmp);
	for (i = 0; i < 8; i++)
		b[at + i] = (uint8_t) (h >> (8 * i));
}

/* newlines to spaces, so that a message fits on one line of the output */
static inline void
oneline(char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			*s = ' ';
}

#endif							/* TAP_HELPER_H */
