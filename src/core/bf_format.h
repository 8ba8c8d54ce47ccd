/*
 * bf_format.h
 *		Buffers and views (bf_format.c): sizing a buffer, initialising,
 *		sealing and validating a filter, names of layouts and families.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_FORMAT_H
#define BF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "bf_defs.h"

/* Total buffer size (header + bits) of a filter of nbits bits. */
static inline size_t
bf_buffer_size(uint64_t nbits)
{
	return BF_HEADER_SIZE + (size_t) (nbits / 8);
}

/*
 * Checks layout, k and m for a new filter of layout classic or blocked (the
 * layouts counting filters, windows and scalable filters are made of);
 * BF_OK or the reason.
 */
extern bf_status bf_check_geometry(int layout, int hashes, uint64_t nbits);

/* The same for a bloomfilter, of any layout (version 2 ones included). */
extern bf_status bf_check_filter_geometry(int layout, int hashes, uint64_t nbits);

/*
 * Whether the flags field (the layout's parameter in version 2) and the
 * seed are valid for the layout, in a value of format version `version`.
 */
extern bool bf_layout_param_valid(int version, int layout, unsigned param,
								  uint64_t seed);

/*
 * Writes an empty filter into buf (bf_buffer_size(nbits) bytes).  The
 * geometry must have passed bf_check_geometry.
 */
extern void bf_init(uint8_t *buf, int layout, int hashes, uint64_t seed,
					uint64_t nbits);

/*
 * Decodes a trusted buffer (one already validated) into a view.  No checks:
 * use bf_validate for bytes from outside.
 */
extern void bf_view_of(uint8_t *buf, bf_view *v);

/*
 * Writes the view's header fields (added, family, type tag, and for the
 * layouts of format version 2 the parameter) back.
 */
extern void bf_store_header(uint8_t *buf, const bf_view *v);

/* Checksum over the header (less the checksum field) and the bit array. */
extern uint64_t bf_checksum(const uint8_t *buf, size_t len);

/*
 * Prepares a buffer for leaving the process: computes and stores the
 * checksum.  Internally the checksum field is kept zero so that equal
 * filters are equal bytes.
 */
extern void bf_seal(uint8_t *buf, size_t len);

/*
 * Clears the checksum field after a buffer was validated, and writes the
 * format version its layout is written with (a version-2 classic or
 * blocked value becomes version 1).
 */
extern void bf_unseal(uint8_t *buf);

/*
 * Validates untrusted bytes in the portable format: every header field,
 * the length against m, and the checksum.  Reads nothing outside
 * [buf, buf + len).
 */
extern bf_status bf_validate(const uint8_t *buf, size_t len);

/*
 * The same checks for a filter embedded in a larger checksummed value (a
 * bloomwindow slot, a scalablebloom entry): its checksum field must be zero
 * (BF_ERR_CHECKSUM otherwise).
 */
extern bf_status bf_validate_embedded(const uint8_t *buf, size_t len);

/* A lower-case sentence fragment describing a status, for error messages. */
extern const char *bf_status_message(bf_status st);

extern const char *bf_layout_name(int layout);
extern int	bf_layout_from_name(const char *name);	/* 0 if unknown */
extern const char *bf_family_name(int family);

#endif							/* BF_FORMAT_H */
