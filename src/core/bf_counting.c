/*
 * bf_counting.c
 *		The counting Bloom filter: format, validation, add, remove, probe,
 *		count, union with folding, and the conversion to a bloomfilter.
 *		See FORMAT.md, "The counting filter format".
 */
#include "bf_counting.h"

bf_status
bfc_check_geometry(int layout, int hashes, int width, uint64_t ncounters)
{
	bf_status	st;

	if (width != 4 && width != 8)
		return BF_ERR_WIDTH;
	/* the same positions as a bloomfilter of ncounters bits */
	st = bf_check_geometry(layout, hashes, ncounters);
	if (st != BF_OK)
		return st;
	if (ncounters > BFC_MAX_COUNTERS(width))
		return BF_ERR_NBITS;
	return BF_OK;
}

void
bfc_init(uint8_t *buf, int layout, int hashes, uint64_t seed,
		 uint64_t ncounters, int width)
{
	memset(buf, 0, bfc_buffer_size(ncounters, width));
	buf[BF_OFF_MAGIC + 0] = BF_MAGIC_0;
	buf[BF_OFF_MAGIC + 1] = BF_MAGIC_1;
	buf[BF_OFF_MAGIC + 2] = BF_MAGIC_2;
	buf[BF_OFF_MAGIC + 3] = BFC_MAGIC_3;
	bf_store_le16(buf + BF_OFF_VERSION, BFC_FORMAT_VERSION);
	buf[BF_OFF_LAYOUT] = (uint8_t) layout;
	buf[BF_OFF_HASHES] = (uint8_t) hashes;
	bf_store_le64(buf + BF_OFF_SEED, seed);
	bf_store_le64(buf + BFC_OFF_NCOUNTERS, ncounters);
	bf_store_le16(buf + BFC_OFF_WIDTH, (uint16_t) width);
}

void
bfc_view_of(uint8_t *buf, bfc_view *v)
{
	v->layout = buf[BF_OFF_LAYOUT];
	v->hashes = buf[BF_OFF_HASHES];
	v->width = (uint8_t) bf_load_le16(buf + BFC_OFF_WIDTH);
	v->seed = bf_load_le64(buf + BF_OFF_SEED);
	v->ncounters = bf_load_le64(buf + BFC_OFF_NCOUNTERS);
	v->items = bf_load_le64(buf + BFC_OFF_ITEMS);
	v->family = bf_load_le16(buf + BF_OFF_FAMILY);
	v->type_tag = bf_load_le32(buf + BF_OFF_TYPETAG);
	v->counters = buf + BF_HEADER_SIZE;
}

void
bfc_store_header(uint8_t *buf, const bfc_view *v)
{
	bf_store_le64(buf + BFC_OFF_ITEMS, v->items);
	bf_store_le16(buf + BF_OFF_FAMILY, v->family);
	bf_store_le32(buf + BF_OFF_TYPETAG, v->type_tag);
}

static bool
has_magic(const uint8_t *buf, size_t len, uint8_t last)
{
	return len >= 4 && buf[0] == BF_MAGIC_0 && buf[1] == BF_MAGIC_1 &&
		buf[2] == BF_MAGIC_2 && buf[3] == last;
}

bool
bfc_is_counting_magic(const uint8_t *buf, size_t len)
{
	return has_magic(buf, len, BFC_MAGIC_3);
}

bool
bfc_is_plain_magic(const uint8_t *buf, size_t len)
{
	return has_magic(buf, len, BF_MAGIC_3);
}

static bool
any_byte_set(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return true;
	return false;
}

/*
 * The order of the bloomfilter's validator, with the width checked before
 * the size it determines, and a last check of the invariants every
 * sequence of operations keeps (see FORMAT.md).
 */
bf_status
bfc_validate(const uint8_t *buf, size_t len)
{
	uint64_t	ncounters;
	int			width;
	uint16_t	family;
	uint32_t	tag;
	uint64_t	items;
	bool		any;
	bf_status	st;

	if (len < BF_OFF_VERSION + 2)
		return BF_ERR_TRUNCATED;
	if (!bfc_is_counting_magic(buf, len))
		return BF_ERR_MAGIC;
	if (bf_load_le16(buf + BF_OFF_VERSION) != BFC_FORMAT_VERSION)
		return BF_ERR_VERSION;
	if (len < BF_HEADER_SIZE)
		return BF_ERR_TRUNCATED;

	/* the width's high byte must be zero too: the field is a uint16 */
	width = bf_load_le16(buf + BFC_OFF_WIDTH);
	ncounters = bf_load_le64(buf + BFC_OFF_NCOUNTERS);
	st = bf_check_geometry(buf[BF_OFF_LAYOUT], buf[BF_OFF_HASHES], ncounters);
	if (st != BF_OK)
		return st;
	if (width != 4 && width != 8)
		return BF_ERR_WIDTH;
	if (ncounters > BFC_MAX_COUNTERS(width))
		return BF_ERR_NBITS;
	if (len - BF_HEADER_SIZE != bfc_counter_bytes(ncounters, width))
		return BF_ERR_SIZE;

	family = bf_load_le16(buf + BF_OFF_FAMILY);
	tag = bf_load_le32(buf + BF_OFF_TYPETAG);
	if (!bf_family_valid(family, tag))
		return BF_ERR_FAMILY;
	if (bf_load_le32(buf + BF_OFF_RESERVED) != 0)
		return BF_ERR_RESERVED;

	if (bf_load_le64(buf + BF_OFF_CHECKSUM) != bf_checksum(buf, len))
		return BF_ERR_CHECKSUM;

	/*
	 * A counter above zero needs a key family, or probes could not be
	 * type-checked.  And items > 0 needs a counter above zero: each add
	 * puts the counters' sum up by k, each successful remove takes at most
	 * k off, so the sum stays at least k * items until a counter
	 * saturates, and a saturated counter never comes down.
	 */
	items = bf_load_le64(buf + BFC_OFF_ITEMS);
	any = any_byte_set(buf + BF_HEADER_SIZE, len - BF_HEADER_SIZE);
	if (any && family == BF_FAMILY_NONE)
		return BF_ERR_ADDED;
	if (items > 0 && !any)
		return BF_ERR_ADDED;
	return BF_OK;
}

const char *
bfc_status_message(bf_status st)
{
	switch (st)
	{
		case BF_ERR_TRUNCATED:
			return "the buffer is shorter than a countingbloom header";
		case BF_ERR_MAGIC:
			return "the buffer does not start with the countingbloom magic \"BLMC\"";
		case BF_ERR_NBITS:
			return "the number of counters is zero, too large, or not a whole number of words or blocks";
		case BF_ERR_SIZE:
			return "the length does not match the number of counters and the counter width in the header";
		case BF_ERR_RESERVED:
			return "reserved header fields are not zero";
		case BF_ERR_ADDED:
			return "the counters do not agree with the header's item count and key family";
		default:
			return bf_status_message(st);
	}
}

void
bfc_add_hash(bfc_view *v, uint64_t h)
{
	uint64_t	pos[BF_MAX_HASHES];
	unsigned	max = bfc_max_count(v->width);

	bf_positions(v->layout, v->ncounters, v->hashes, h, pos);
	for (int i = 0; i < v->hashes; i++)
	{
		unsigned	c = bfc_get(v, pos[i]);

		if (c < max)
			bfc_put(v, pos[i], c + 1);
	}
	if (v->items != UINT64_MAX)
		v->items++;
}

bool
bfc_remove_hash(bfc_view *v, uint64_t h)
{
	uint64_t	pos[BF_MAX_HASHES];
	unsigned	max = bfc_max_count(v->width);

	bf_positions(v->layout, v->ncounters, v->hashes, h, pos);
	for (int i = 0; i < v->hashes; i++)
		if (bfc_get(v, pos[i]) == 0)
			return false;
	for (int i = 0; i < v->hashes; i++)
	{
		unsigned	c = bfc_get(v, pos[i]);

		/* a repeated position may have reached zero on its first visit */
		if (c != 0 && c != max)
			bfc_put(v, pos[i], c - 1);
	}
	if (v->items > 0)
		v->items--;
	return true;
}

bool
bfc_contains_hash(const bfc_view *v, uint64_t h)
{
	uint64_t	pos[BF_MAX_HASHES];

	bf_positions(v->layout, v->ncounters, v->hashes, h, pos);
	for (int i = 0; i < v->hashes; i++)
		if (bfc_get(v, pos[i]) == 0)
			return false;
	return true;
}

unsigned
bfc_count_hash(const bfc_view *v, uint64_t h)
{
	uint64_t	pos[BF_MAX_HASHES];
	unsigned	min = UINT32_MAX;

	bf_positions(v->layout, v->ncounters, v->hashes, h, pos);
	for (int i = 0; i < v->hashes; i++)
	{
		unsigned	c = bfc_get(v, pos[i]);

		if (c < min)
			min = c;
	}
	return min;
}

/* As a bloomfilter view, for the rules the two formats share. */
static void
as_bloom_view(const bfc_view *c, bf_view *b)
{
	memset(b, 0, sizeof(*b));
	b->layout = c->layout;
	b->hashes = c->hashes;
	b->family = c->family;
	b->type_tag = c->type_tag;
	b->seed = c->seed;
	b->nbits = c->ncounters;
	b->added = c->items;
}

bf_compat
bfc_compatible(const bfc_view *a, const bfc_view *b, uint64_t *ncounters_out)
{
	bf_view		ba,
				bb;
	bf_compat	c;

	as_bloom_view(a, &ba);
	as_bloom_view(b, &bb);
	c = bf_compatible(&ba, &bb, ncounters_out);
	if (c == BF_COMPAT_OK && a->width != b->width)
		return BF_COMPAT_WIDTH;
	return c;
}

static inline void
add_saturating(bfc_view *dst, uint64_t p, unsigned add, unsigned max)
{
	unsigned	c = bfc_get(dst, p) + add;

	bfc_put(dst, p, c > max ? max : c);
}

void
bfc_fold_add(bfc_view *dst, const bfc_view *src)
{
	unsigned	max = bfc_max_count(dst->width);
	uint64_t	ratio = src->ncounters / dst->ncounters;
	int			shift = 0;

	while ((UINT64_C(1) << shift) < ratio)
		shift++;

	if (shift == 0 && dst->width == 8)
	{
		/* the common case, a byte at a time */
		size_t		n = bfc_counter_bytes(dst->ncounters, 8);

		for (size_t i = 0; i < n; i++)
		{
			unsigned	c = (unsigned) dst->counters[i] + src->counters[i];

			dst->counters[i] = (uint8_t) (c > max ? max : c);
		}
		return;
	}
	for (uint64_t p = 0; p < src->ncounters; p++)
	{
		unsigned	c = bfc_get(src, p);
		uint64_t	q;

		if (c == 0)
			continue;
		if (src->layout == BF_LAYOUT_BLOCKED)
			q = ((p / BF_BLOCK_BITS) >> shift) * BF_BLOCK_BITS + p % BF_BLOCK_BITS;
		else
			q = p >> shift;
		add_saturating(dst, q, c, max);
	}
}

void
bfc_merge_header(bfc_view *dst, const bfc_view *a, const bfc_view *b)
{
	const bfc_view *from = a->family != BF_FAMILY_NONE ? a : b;

	dst->items = a->items > UINT64_MAX - b->items ? UINT64_MAX : a->items + b->items;
	dst->family = from->family;
	dst->type_tag = from->type_tag;
}

void
bfc_to_bits(const bfc_view *v, uint8_t *bits)
{
	memset(bits, 0, (size_t) (v->ncounters / 8));
	for (uint64_t p = 0; p < v->ncounters; p++)
		if (bfc_get(v, p) != 0)
			bits[p >> 3] |= (uint8_t) (1u << (p & 7));
}

void
bfc_to_bloom(const bfc_view *v, uint8_t *buf)
{
	bf_view		b;

	bf_init(buf, v->layout, v->hashes, v->seed, v->ncounters);
	bf_view_of(buf, &b);
	bfc_to_bits(v, b.bits);
	b.added = v->items;
	if (b.added == 0 && any_byte_set(b.bits, (size_t) (v->ncounters / 8)))
		b.added = 1;
	b.family = v->family;
	b.type_tag = v->type_tag;
	bf_store_header(buf, &b);
}

void
bfc_counter_stats(const bfc_view *v, uint64_t *nonzero, uint64_t *saturated)
{
	unsigned	max = bfc_max_count(v->width);
	uint64_t	nz = 0,
				sat = 0;

	for (uint64_t p = 0; p < v->ncounters; p++)
	{
		unsigned	c = bfc_get(v, p);

		nz += c != 0;
		sat += c == max;
	}
	*nonzero = nz;
	*saturated = sat;
}
