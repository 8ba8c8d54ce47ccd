/*
 * bf_format.c
 *		The portable format: building, decoding, sealing and validating
 *		filter buffers.  See FORMAT.md for the byte-by-byte description.
 */
#include "bf_core.h"
#include "bf_spark.h"

/*
 * Checks the geometry of a filter about to be made.  Classic filters need
 * a whole number of 64-bit words, blocked ones a whole number of 512-bit
 * blocks; the block count must fit the 32-bit multiply-shift.
 */
bf_status
bf_check_geometry(int layout, int hashes, uint64_t nbits)
{
	if (layout != BF_LAYOUT_CLASSIC && layout != BF_LAYOUT_BLOCKED)
		return BF_ERR_LAYOUT;
	if (hashes < BF_MIN_HASHES || hashes > BF_MAX_HASHES)
		return BF_ERR_HASHES;
	if (nbits == 0 || nbits > BF_MAX_NBITS)
		return BF_ERR_NBITS;
	if (layout == BF_LAYOUT_CLASSIC && nbits % 64 != 0)
		return BF_ERR_NBITS;
	if (layout == BF_LAYOUT_BLOCKED && nbits % BF_BLOCK_BITS != 0)
		return BF_ERR_NBITS;
	return BF_OK;
}

/*
 * Every layout a bloomfilter may have.  One case per layout of format
 * version 2: the geometry its engine allows.
 */
bf_status
bf_check_filter_geometry(int layout, int hashes, uint64_t nbits)
{
	switch (layout)
	{
		case BF_LAYOUT_CLASSIC:
		case BF_LAYOUT_BLOCKED:
			return bf_check_geometry(layout, hashes, nbits);
		case BF_LAYOUT_SPARK:
			return bf_spark_check_geometry(hashes, nbits);
		case BF_LAYOUT_PARQUET:
			return bf_parquet_check_geometry(hashes, nbits);
	}
	return BF_ERR_LAYOUT;
}

/*
 * Version 1 knows classic and blocked only, with flags 0.  In version 2 the
 * flags field holds the layout's parameter: still 0 for classic and
 * blocked, and what each other layout's own check allows.
 */
bool
bf_layout_param_valid(int version, int layout, unsigned param, uint64_t seed)
{
	switch (layout)
	{
		case BF_LAYOUT_CLASSIC:
		case BF_LAYOUT_BLOCKED:
			return param == 0;
		case BF_LAYOUT_SPARK:
			return version >= BF_FORMAT_VERSION_2 && bf_spark_param_valid(param, seed);
		case BF_LAYOUT_PARQUET:
			return version >= BF_FORMAT_VERSION_2 &&
				bf_parquet_type_valid(param) && seed == 0;
	}
	return false;
}

void
bf_init(uint8_t *buf, int layout, int hashes, uint64_t seed, uint64_t nbits)
{
	memset(buf, 0, bf_buffer_size(nbits));
	buf[BF_OFF_MAGIC + 0] = BF_MAGIC_0;
	buf[BF_OFF_MAGIC + 1] = BF_MAGIC_1;
	buf[BF_OFF_MAGIC + 2] = BF_MAGIC_2;
	buf[BF_OFF_MAGIC + 3] = BF_MAGIC_3;
	bf_store_le16(buf + BF_OFF_VERSION, BF_LAYOUT_VERSION(layout));
	/* a spark filter made here is Spark's version 1, which every Spark reads */
	if (layout == BF_LAYOUT_SPARK)
		bf_store_le16(buf + BF_OFF_FLAGS, BF_SPARK_V1);
	buf[BF_OFF_LAYOUT] = (uint8_t) layout;
	buf[BF_OFF_HASHES] = (uint8_t) hashes;
	bf_store_le64(buf + BF_OFF_SEED, seed);
	bf_store_le64(buf + BF_OFF_NBITS, nbits);
}

void
bf_view_of(uint8_t *buf, bf_view *v)
{
	v->layout = buf[BF_OFF_LAYOUT];
	v->hashes = buf[BF_OFF_HASHES];
	v->seed = bf_load_le64(buf + BF_OFF_SEED);
	v->nbits = bf_load_le64(buf + BF_OFF_NBITS);
	v->added = bf_load_le64(buf + BF_OFF_ADDED);
	v->family = bf_load_le16(buf + BF_OFF_FAMILY);
	v->type_tag = bf_load_le32(buf + BF_OFF_TYPETAG);
	v->param = bf_load_le16(buf + BF_OFF_FLAGS);
	v->bits = buf + BF_HEADER_SIZE;
}

void
bf_store_header(uint8_t *buf, const bf_view *v)
{
	bf_store_le64(buf + BF_OFF_ADDED, v->added);
	bf_store_le16(buf + BF_OFF_FAMILY, v->family);
	bf_store_le32(buf + BF_OFF_TYPETAG, v->type_tag);
	/* views made by hand for classic and blocked never touch the flags */
	if (v->layout >= BF_LAYOUT_PARQUET)
		bf_store_le16(buf + BF_OFF_FLAGS, v->param);
}

/*
 * XXH3-64 (seed 0) over the header bytes before the checksum field, then
 * the bit array.  The checksum is what tells a filter whose bits were
 * altered in transit from a filter that merely answers differently.
 */
uint64_t
bf_checksum(const uint8_t *buf, size_t len)
{
	XXH3_state_t st;

	XXH3_INITSTATE(&st);
	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, buf, BF_OFF_CHECKSUM);
	XXH3_64bits_update(&st, buf + BF_HEADER_SIZE, len - BF_HEADER_SIZE);
	return XXH3_64bits_digest(&st);
}

void
bf_seal(uint8_t *buf, size_t len)
{
	bf_store_le64(buf + BF_OFF_CHECKSUM, bf_checksum(buf, len));
}

/*
 * A value read in version 2 whose layout is written in version 1 (classic,
 * blocked) becomes version 1 here: what is read is written as this build
 * writes it, and equal filters stay equal bytes.
 */
void
bf_unseal(uint8_t *buf)
{
	bf_store_le64(buf + BF_OFF_CHECKSUM, 0);
	bf_store_le16(buf + BF_OFF_VERSION, BF_LAYOUT_VERSION(buf[BF_OFF_LAYOUT]));
}

/* Is any bit of the array set? */
static bool
any_bit_set(const uint8_t *bits, size_t nbytes)
{
	for (size_t i = 0; i < nbytes; i++)
		if (bits[i])
			return true;
	return false;
}

/*
 * Validates untrusted bytes.  Checks run from the cheapest and most telling
 * (is this a filter at all?) to the costliest (the checksum over the
 * whole array), and nothing is read before its presence is established.
 */
static bf_status validate(const uint8_t *buf, size_t len, bool sealed);

bf_status
bf_validate(const uint8_t *buf, size_t len)
{
	return validate(buf, len, true);
}

/*
 * A filter stored inside another value (a bloomwindow slot, a scalablebloom
 * entry) is covered by that value's checksum, so its own checksum field must
 * be zero instead, even in transit.  It is also format version 1: those
 * containers hold classic and blocked filters only, which are written as
 * version 1, so a version-2 header there would not survive a merge or a
 * rewrite byte for byte (found by fuzz_window).  Every other check is the
 * same.
 */
bf_status
bf_validate_embedded(const uint8_t *buf, size_t len)
{
	if (len >= BF_OFF_VERSION + 2 &&
		buf[0] == BF_MAGIC_0 && buf[1] == BF_MAGIC_1 &&
		buf[2] == BF_MAGIC_2 && buf[3] == BF_MAGIC_3 &&
		bf_load_le16(buf + BF_OFF_VERSION) != BF_FORMAT_VERSION)
		return BF_ERR_VERSION;
	return validate(buf, len, false);
}

static bf_status
validate(const uint8_t *buf, size_t len, bool sealed)
{
	uint64_t	nbits;
	int			layout;
	int			hashes;
	uint16_t	family;
	uint32_t	tag;
	unsigned	version;
	bf_status	st;

	if (len < BF_OFF_VERSION + 2)
		return BF_ERR_TRUNCATED;
	if (buf[0] != BF_MAGIC_0 || buf[1] != BF_MAGIC_1 ||
		buf[2] != BF_MAGIC_2 || buf[3] != BF_MAGIC_3)
		return BF_ERR_MAGIC;
	version = bf_load_le16(buf + BF_OFF_VERSION);
	if (version < BF_FORMAT_VERSION || version > BF_FORMAT_VERSION_MAX)
		return BF_ERR_VERSION;
	if (len < BF_HEADER_SIZE)
		return BF_ERR_TRUNCATED;

	layout = buf[BF_OFF_LAYOUT];
	hashes = buf[BF_OFF_HASHES];
	nbits = bf_load_le64(buf + BF_OFF_NBITS);
	/* version 1 has no layout past blocked */
	if (version == BF_FORMAT_VERSION && layout > BF_LAYOUT_BLOCKED)
		return BF_ERR_LAYOUT;
	st = bf_check_filter_geometry(layout, hashes, nbits);
	if (st != BF_OK)
		return st;
	if (len - BF_HEADER_SIZE != nbits / 8)
		return BF_ERR_SIZE;

	family = bf_load_le16(buf + BF_OFF_FAMILY);
	tag = bf_load_le32(buf + BF_OFF_TYPETAG);
	if (layout == BF_LAYOUT_SPARK ? !bf_spark_family_valid(family, tag) :
		!bf_family_valid(family, tag))
		return BF_ERR_FAMILY;
	if (bf_load_le32(buf + BF_OFF_RESERVED) != 0 ||
		(layout <= BF_LAYOUT_BLOCKED && bf_load_le16(buf + BF_OFF_FLAGS) != 0))
		return BF_ERR_RESERVED;
	if (!bf_layout_param_valid(version, layout, bf_load_le16(buf + BF_OFF_FLAGS),
							   bf_load_le64(buf + BF_OFF_SEED)))
		return BF_ERR_PARAM;
	/* parquet: a key's family comes with its physical type */
	if (layout == BF_LAYOUT_PARQUET && family != BF_FAMILY_NONE &&
		bf_load_le16(buf + BF_OFF_FLAGS) == BF_PQ_UNSET)
		return BF_ERR_PARAM;

	if (bf_load_le64(buf + BF_OFF_CHECKSUM) !=
		(sealed ? bf_checksum(buf, len) : 0))
		return BF_ERR_CHECKSUM;

	/*
	 * A filter with bits set must have had a key of some family added;
	 * otherwise its probes could not be checked for type.
	 */
	if ((family == BF_FAMILY_NONE || bf_load_le64(buf + BF_OFF_ADDED) == 0) &&
		any_bit_set(buf + BF_HEADER_SIZE, len - BF_HEADER_SIZE))
		return BF_ERR_ADDED;
	return BF_OK;
}

const char *
bf_status_message(bf_status st)
{
	switch (st)
	{
		case BF_OK:
			return "valid";
		case BF_ERR_TRUNCATED:
			return "the buffer is shorter than a bloomfilter header";
		case BF_ERR_MAGIC:
			return "the buffer does not start with the bloomfilter magic \"BLMF\"";
		case BF_ERR_VERSION:
			return "the format version is not one this build reads";
		case BF_ERR_LAYOUT:
			return "the layout is unknown";
		case BF_ERR_HASHES:
			return "the number of hashes is out of range";
		case BF_ERR_NBITS:
			return "the number of bits is zero, too large, or not a whole number of words or blocks";
		case BF_ERR_SIZE:
			return "the length does not match the number of bits in the header";
		case BF_ERR_FAMILY:
			return "the key family or type tag is invalid";
		case BF_ERR_RESERVED:
			return "reserved header fields are not zero";
		case BF_ERR_CHECKSUM:
			return "the checksum does not match the contents";
		case BF_ERR_ADDED:
			return "bits are set but the header records no added key";
		case BF_ERR_WIDTH:
			return "the counter width is not 4 or 8";
		case BF_ERR_PARAM:
			return "the layout's parameter (flags) or its seed is not one the layout allows";
	}
	return "unknown error";
}

const char *
bf_layout_name(int layout)
{
	switch (layout)
	{
		case BF_LAYOUT_CLASSIC:
			return "classic";
		case BF_LAYOUT_BLOCKED:
			return "blocked";
		case BF_LAYOUT_SPARK:
			return "spark";
		case BF_LAYOUT_PARQUET:
			return "parquet";
	}
	return "unknown";
}

int
bf_layout_from_name(const char *name)
{
	if (strcmp(name, "classic") == 0)
		return BF_LAYOUT_CLASSIC;
	if (strcmp(name, "blocked") == 0)
		return BF_LAYOUT_BLOCKED;
	if (strcmp(name, "spark") == 0)
		return BF_LAYOUT_SPARK;
	if (strcmp(name, "parquet") == 0)
		return BF_LAYOUT_PARQUET;
	return 0;
}

const char *
bf_family_name(int family)
{
	switch ((bf_family) family)
	{
		case BF_FAMILY_NONE:
			return "none";
		case BF_FAMILY_INTEGER:
			return "integer";
		case BF_FAMILY_FLOAT:
			return "float";
		case BF_FAMILY_NUMERIC:
			return "numeric";
		case BF_FAMILY_TEXT:
			return "text";
		case BF_FAMILY_BYTEA:
			return "bytea";
		case BF_FAMILY_UUID:
			return "uuid";
		case BF_FAMILY_BOOL:
			return "boolean";
		case BF_FAMILY_DATE:
			return "date";
		case BF_FAMILY_TIMESTAMP:
			return "timestamp";
		case BF_FAMILY_TIMESTAMPTZ:
			return "timestamptz";
		case BF_FAMILY_OTHER:
			return "other";
		case BF_FAMILY_INTERVAL:
			return "interval";
		case BF_FAMILY_JSONB:
			return "jsonb";
		case BF_FAMILY_ENUM:
			return "enum";
		case BF_FAMILY_COMPOSITE:
			return "composite";
		case BF_FAMILY_HASHED:
			return "hashed";
	}
	if (family == BF_FAMILY_SPARK)
		return "spark";
	return "unknown";
}
