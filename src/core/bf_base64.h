/*
 * bf_base64.h
 *		The text codec (bf_base64.c).
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_BASE64_H
#define BF_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Base64 (RFC 4648, padded) length of len bytes. */
extern size_t bf_base64_encoded_len(size_t len);

/* Writes bf_base64_encoded_len(len) characters; no terminator. */
extern void bf_base64_encode(const uint8_t *src, size_t len, char *dst);

/*
 * Decodes exactly srclen characters (padded base64, no white space) into
 * dst, which must hold bf_base64_decoded_max(srclen) bytes.  Returns the
 * byte count, or -1 when the text is not valid base64.
 */
extern size_t bf_base64_decoded_max(size_t srclen);
extern long long bf_base64_decode(const char *src, size_t srclen, uint8_t *dst);

#endif							/* BF_BASE64_H */
