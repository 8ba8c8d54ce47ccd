/*
 * bf_defs.h
 *		The portable format's constants and limits, the families, the
 *		status codes and the decoded view of a filter buffer.
 *
 * Part of the core (see bf_core.h, which includes every header of this
 * kind): no PostgreSQL header may be included here.
 */
#ifndef BF_DEFS_H
#define BF_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_MAGIC_0 'B'
#define BF_MAGIC_1 'L'
#define BF_MAGIC_2 'M'
#define BF_MAGIC_3 'F'
#define BF_FORMAT_VERSION 1
/*
 * Version 2 (FORMAT.md, "Version 2") adds the layouts of other engines
 * (parquet, spark) and gives the flags field to the layout's parameter.
 * Values of layouts classic and blocked are still written as version 1, so
 * their bytes do not change; a reader takes either version.
 */
#define BF_FORMAT_VERSION_2 2
#define BF_FORMAT_VERSION_MAX BF_FORMAT_VERSION_2

/*
 * Header offsets.  52 bytes so that, behind PostgreSQL's 4-byte varlena
 * header, the bit array starts 8-byte aligned (4 + 52 = 56).
 */
#define BF_OFF_MAGIC	0			/* 4 bytes "BLMF" */
#define BF_OFF_VERSION	4			/* uint16 */
#define BF_OFF_LAYOUT	6			/* uint8 */
#define BF_OFF_HASHES	7			/* uint8 */
#define BF_OFF_SEED		8			/* uint64 */
#define BF_OFF_NBITS	16			/* uint64 */
#define BF_OFF_ADDED	24			/* uint64 */
#define BF_OFF_FAMILY	32			/* uint16 */
#define BF_OFF_FLAGS	34			/* uint16: 0 in version 1; the layout's
									 * parameter in version 2 */
#define BF_OFF_TYPETAG	36			/* uint32 */
#define BF_OFF_RESERVED 40			/* uint32, must be 0 */
#define BF_OFF_CHECKSUM 44			/* uint64 */
#define BF_HEADER_SIZE	52

/*
 * The format version of a stored value of any type of this extension
 * (bloomfilter, countingbloom, scalablebloom, bloomwindow, an aggregate's
 * partial state): every format keeps it as a little-endian uint16 at
 * offset 4, behind its 4-byte magic (bf_problem.c checks that the offsets
 * agree).  It is the field a reader looks at before anything else: a
 * version it does not read is refused, never read by its own rules
 * (FORMAT.md, "Compatibility").  False if buf is too short to hold it.
 */
#define BF_OFF_ANY_VERSION	4
static inline bool
bf_format_version(const uint8_t *buf, size_t len, unsigned *version)
{
	if (len < BF_OFF_ANY_VERSION + 2)
		return false;
	*version = (unsigned) buf[BF_OFF_ANY_VERSION] |
		(unsigned) buf[BF_OFF_ANY_VERSION + 1] << 8;
	return true;
}

/* Layouts */
#define BF_LAYOUT_CLASSIC	1
#define BF_LAYOUT_BLOCKED	2
#define BF_LAYOUT_PARQUET	3		/* format version 2: Parquet split-block */
#define BF_LAYOUT_SPARK		4		/* format version 2: Spark's sketch */
#define BF_LAYOUT_MAX		BF_LAYOUT_SPARK

/* The format version a value of the layout is written with. */
#define BF_LAYOUT_VERSION(layout) \
	((layout) >= BF_LAYOUT_PARQUET ? BF_FORMAT_VERSION_2 : BF_FORMAT_VERSION)

/* A blocked filter keeps all of a key's bits in one 64-byte cache line. */
#define BF_BLOCK_BITS	512
#define BF_BLOCK_BYTES	64

#define BF_MIN_HASHES	1
#define BF_MAX_HASHES	32

/*
 * Largest value of any type of the extension, in bytes.  Its text form
 * (padded base64: 4 * ceil(L / 3) characters) must be displayable and
 * dumpable, or a value could be stored but never selected or dumped.
 * PostgreSQL builds the text of a row in a StringInfo, and
 * enlargeStringInfo (src/common/stringinfo.c) refuses to let one hold more
 * than MaxAllocSize - 1 = 0x3ffffffe bytes.  The fullest such buffer is a
 * SELECT's DataRow message (printtup() in printtup.c): a 2-byte column
 * count, a 4-byte length, then the text, 6 bytes more than the text of a
 * one-column row.  Every other step needs less: a COPY TO line (copyto.c)
 * and COPY FROM's line buffer (copyfromparse.c) add a newline, and the
 * output function's string adds its terminator against palloc's
 * MaxAllocSize.  Hence 4 * ceil(L / 3) + 6 <= 0x3ffffffe, and L is at most
 * (0x3ffffffe - 6) / 4 * 3 = 805,306,362.  The other columns of the row
 * share the same buffer.  test/maxsize_dump.sh builds the largest value of
 * each type and selects, copies, dumps and restores it.
 */
#define BF_PG_STRING_MAX	((uint64_t) 0x3ffffffe)
#define BF_DATAROW_OVERHEAD 6
#define BF_MAX_TOTAL_BYTES	((BF_PG_STRING_MAX - BF_DATAROW_OVERHEAD) / 4 * 3)

/*
 * Largest bloomfilter: kept a whole number of 512-bit blocks so both layouts
 * share one bound.
 */
#define BF_MAX_NBITS \
	((((BF_MAX_TOTAL_BYTES - BF_HEADER_SIZE) / BF_BLOCK_BYTES) * BF_BLOCK_BYTES) * 8)

/*
 * Key families: values of different SQL types hash alike when their family
 * is the same (int2/int4/int8 are "integer", float4/float8 are "float" ...).
 * A filter records the family of the keys it holds; BF_FAMILY_NONE means no
 * key has been added yet.  The tagged families (other, enum, composite,
 * hashed) cover many types each, and the header's type tag tells which:
 * keys of two types of one tagged family never mix.  FORMAT.md says how
 * each family's values are written as key bytes.
 */
typedef enum bf_family
{
	BF_FAMILY_NONE = 0,
	BF_FAMILY_INTEGER = 1,
	BF_FAMILY_FLOAT = 2,
	BF_FAMILY_NUMERIC = 3,
	BF_FAMILY_TEXT = 4,
	BF_FAMILY_BYTEA = 5,
	BF_FAMILY_UUID = 6,
	BF_FAMILY_BOOL = 7,
	BF_FAMILY_DATE = 8,
	BF_FAMILY_TIMESTAMP = 9,
	BF_FAMILY_TIMESTAMPTZ = 10,
	BF_FAMILY_OTHER = 11,		/* bitwise equality: the stored bytes */
	BF_FAMILY_INTERVAL = 12,
	BF_FAMILY_JSONB = 13,
	BF_FAMILY_ENUM = 14,		/* by label */
	BF_FAMILY_COMPOSITE = 15,	/* arrays, rows, ranges, multiranges */
	BF_FAMILY_HASHED = 16		/* the type's own extended hash function */
} bf_family;

#define BF_FAMILY_MAX BF_FAMILY_HASHED

/*
 * Beyond BF_FAMILY_MAX, valid in a filter of layout spark only (the other
 * formats refuse it): a filter read from Spark's bytes, which do not say
 * whether putLong, putString or putBinary made them.  It answers probes of
 * any key Spark hashes (integer, text, bytea).
 */
#define BF_FAMILY_SPARK 17

/* Whether keys of a family carry a (non-zero) type tag. */
static inline bool
bf_family_tagged(unsigned family)
{
	return family == BF_FAMILY_OTHER || family == BF_FAMILY_ENUM ||
		family == BF_FAMILY_COMPOSITE || family == BF_FAMILY_HASHED;
}

/* A known family, with a type tag exactly when the family has one. */
static inline bool
bf_family_valid(unsigned family, uint32_t tag)
{
	return family <= BF_FAMILY_MAX && bf_family_tagged(family) == (tag != 0);
}

/* Validation results: one code per thing that can be wrong with a buffer. */
typedef enum bf_status
{
	BF_OK = 0,
	BF_ERR_TRUNCATED,			/* shorter than a header */
	BF_ERR_MAGIC,				/* not a bloomfilter at all */
	BF_ERR_VERSION,				/* a format version we do not read */
	BF_ERR_LAYOUT,				/* unknown layout byte */
	BF_ERR_HASHES,				/* k out of range */
	BF_ERR_NBITS,				/* m zero, too large or not a whole block */
	BF_ERR_SIZE,				/* length does not match m */
	BF_ERR_FAMILY,				/* unknown key family or bad type tag */
	BF_ERR_RESERVED,			/* flags or reserved bytes not zero */
	BF_ERR_CHECKSUM,			/* bytes altered after they were written */
	BF_ERR_ADDED,				/* bits set but no key was ever added */
	BF_ERR_WIDTH,				/* counting filter: counter width not 4 or 8 */
	BF_ERR_PARAM				/* version 2: the layout's parameter (flags)
								 * or seed is not one the layout allows */
} bf_status;

/*
 * A decoded view of a filter buffer.  "bits" points into the buffer; the
 * view never owns memory.
 */
typedef struct bf_view
{
	uint8_t		layout;			/* BF_LAYOUT_* */
	uint8_t		hashes;			/* k */
	uint16_t	family;			/* bf_family */
	uint32_t	type_tag;		/* which type, for the tagged families */
	uint64_t	seed;			/* hash seed */
	uint64_t	nbits;			/* m; a multiple of 64 (classic) or 512 */
	uint64_t	added;			/* add operations performed (saturating) */
	uint16_t	param;			/* version 2: the layout's parameter (the
								 * flags field); 0 for classic and blocked */
	uint8_t    *bits;			/* nbits / 8 bytes */
} bf_view;

#endif							/* BF_DEFS_H */
