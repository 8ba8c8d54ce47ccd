/*
 * bf_base64.c
 *		The text form of a filter: padded base64 (RFC 4648) of the portable
 *		bytes, 4/3 of the binary size.  Strict on input: no white space, no
 *		missing padding, no stray bits in the last group, so every filter has
 *		exactly one text form.
 */
#include "bf_core.h"

/* 64 characters and the string literal's NUL */
static const char enc_table[65] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* -1 for characters outside the alphabet */
static const signed char dec_table[256] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
	-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
	-1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

size_t
bf_base64_encoded_len(size_t len)
{
	return (len + 2) / 3 * 4;
}

void
bf_base64_encode(const uint8_t *src, size_t len, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= len; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = enc_table[v >> 18];
		*dst++ = enc_table[(v >> 12) & 63];
		*dst++ = enc_table[(v >> 6) & 63];
		*dst++ = enc_table[v & 63];
	}
	if (len - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = enc_table[v >> 18];
		*dst++ = enc_table[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (len - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = enc_table[v >> 18];
		*dst++ = enc_table[(v >> 12) & 63];
		*dst++ = enc_table[(v >> 6) & 63];
		*dst++ = '=';
	}
}

size_t
bf_base64_decoded_max(size_t srclen)
{
	return srclen / 4 * 3;
}

long long
bf_base64_decode(const char *src, size_t srclen, uint8_t *dst)
{
	const unsigned char *s = (const unsigned char *) src;
	size_t		out = 0;

	if (srclen % 4 != 0)
		return -1;
	for (size_t i = 0; i < srclen; i += 4)
	{
		int			a = dec_table[s[i]],
					b = dec_table[s[i + 1]],
					c,
					d;
		bool		last = (i + 4 == srclen);

		if (a < 0 || b < 0)
			return -1;
		if (last && s[i + 2] == '=' && s[i + 3] == '=')
		{
			if (b & 15)
				return -1;		/* stray bits: not the canonical form */
			dst[out++] = (uint8_t) ((a << 2) | (b >> 4));
			break;
		}
		c = dec_table[s[i + 2]];
		if (c < 0)
			return -1;
		if (last && s[i + 3] == '=')
		{
			if (c & 3)
				return -1;
			dst[out++] = (uint8_t) ((a << 2) | (b >> 4));
			dst[out++] = (uint8_t) (((b & 15) << 4) | (c >> 2));
			break;
		}
		d = dec_table[s[i + 3]];
		if (d < 0)
			return -1;
		dst[out++] = (uint8_t) ((a << 2) | (b >> 4));
		dst[out++] = (uint8_t) (((b & 15) << 4) | (c >> 2));
		dst[out++] = (uint8_t) (((c & 3) << 6) | d);
	}
	return (long long) out;
}
