/*
 * bf_aggstate.c
 *		The aggregates' partial-state wire format: writing and validating
 *		reading (see bf_aggstate.h and FORMAT.md).
 */
#include "bf_aggstate.h"

#include <string.h>

#include "bf_format.h"
#include "bf_hashfn.h"
#include "bf_le.h"

static bool
sketch_valid(const uint8_t *regs)
{
	for (int r = 0; r < BF_HLL_REGISTERS; r++)
		if (regs[r] > 64 - BF_HLL_BITS + 1)
			return false;
	return true;
}

/* Reads the self-sizing target that follows the tag. */
static const char *
read_target(const uint8_t *p, size_t len, bfa_target *t)
{
	uint64_t	fbits;

	if (len < 1 + BFA_TARGET_LEN)
		return "truncated";
	fbits = bf_load_le64(p + 1);
	memcpy(&t->fpr, &fbits, 8);
	t->hashes = p[9];
	t->max_nblocks = bf_load_le64(p + 10);
	t->buf_max = bf_load_le32(p + 18);
	if (!(t->fpr > 0.0 && t->fpr < 1.0) ||
		t->hashes < BF_MIN_HASHES || t->hashes > BF_MAX_HASHES ||
		t->max_nblocks == 0 || (t->max_nblocks & (t->max_nblocks - 1)) != 0 ||
		t->max_nblocks > BF_MAX_NBITS / BF_BLOCK_BITS || t->buf_max == 0)
		return "target out of range";
	return NULL;
}

/* family, type tag and added, after the target */
static void
read_buffer_head(const uint8_t *p, bfa_state *st)
{
	const size_t head = 1 + BFA_TARGET_LEN;

	st->family = bf_load_le16(p + head);
	st->type_tag = bf_load_le32(p + head + 2);
	st->added = bf_load_le64(p + head + 6);
}

/*
 * Buffered hashes must come with the family and count of the keys they are
 * of, as a filter's set bits must (bf_format.c): a state of hashes under
 * family "none" would finalize into a filter whose probes never reach its
 * bits, so every key it was built from would probe false.
 */
static bool
keys_recorded(const bfa_state *st)
{
	return st->count == 0 ||
		(st->family != BF_FAMILY_NONE && st->added != 0);
}

static const char *
decode_buffer(const uint8_t *p, size_t len, bfa_state *st)
{
	size_t		off = BFA_BUFFER_HEAD + 1;	/* after the sketch flag */
	uint8_t		flag;

	if (len < off + 4)
		return "truncated";
	read_buffer_head(p, st);
	flag = p[BFA_BUFFER_HEAD];
	if (st->family > BF_FAMILY_MAX || flag > 1)
		return "inconsistent buffer";
	if (flag == 1)
	{
		if (len < off + BF_HLL_REGISTERS + 4)
			return "truncated";
		st->sketch = p + off;
		if (!sketch_valid(st->sketch))
			return "sketch register out of range";
		off += BF_HLL_REGISTERS;
	}
	st->count = bf_load_le32(p + off);
	off += 4;
	if (len != off + (size_t) st->count * 8 || !keys_recorded(st))
		return "inconsistent buffer";
	st->hashes = p + off;
	return NULL;
}

static const char *
decode_bucketed(const uint8_t *p, size_t len, bfa_state *st)
{
	size_t		off = BFA_BUFFER_HEAD;
	uint64_t	sum = 0;

	if (len < BFA_BUCKETED_HEAD)
		return "truncated";
	read_buffer_head(p, st);
	if (st->family > BF_FAMILY_MAX)
		return "inconsistent buffer";
	st->sketch = p + off;
	if (!sketch_valid(st->sketch))
		return "sketch register out of range";
	off += BF_HLL_REGISTERS;
	st->count = bf_load_le32(p + off);
	off += 4;
	st->bucket_count = p + off;
	for (int b = 0; b < BF_HASH_BUCKETS; b++)
		sum += bf_load_le32(p + off + 4 * b);
	off += 4 * BF_HASH_BUCKETS;
	/* the bucket counts delimit the inserts: they must add up */
	if (bf_load_le32(p + off) != 0 || sum != st->count ||
		st->count > st->target.buf_max ||
		len != BFA_BUCKETED_HEAD + (size_t) st->count * 8 ||
		!keys_recorded(st))
		return "inconsistent buffer";
	st->hashes = p + BFA_BUCKETED_HEAD;
	return NULL;
}

static const char *
decode_explicit(const uint8_t *p, size_t len, bfa_state *st)
{
	if (len < BFA_EXPLICIT_HEAD)
		return "truncated";
	st->ex_hashes = p[1];
	st->ex_nbits = bf_load_le64(p + 2);
	st->family = bf_load_le16(p + 10);
	st->type_tag = bf_load_le32(p + 12);
	st->added = bf_load_le64(p + 16);
	st->count = bf_load_le32(p + 24);
	if (bf_check_geometry(BF_LAYOUT_BLOCKED, st->ex_hashes, st->ex_nbits) != BF_OK)
		return "target out of range";
	if (st->family > BF_FAMILY_MAX || st->count > BFA_EXPLICIT_MAX(st->ex_nbits) ||
		st->count > st->added ||
		len != BFA_EXPLICIT_HEAD + (size_t) st->count * 8 || !keys_recorded(st))
		return "inconsistent buffer";
	if (bf_load_le64(p + 28) != bfa_explicit_checksum(p, len))
		return "checksum does not match";
	st->hashes = p + BFA_EXPLICIT_HEAD;
	return NULL;
}

const char *
bfa_decode(const uint8_t *p, size_t len, bfa_state *st)
{
	const char *why;

	memset(st, 0, sizeof(*st));
	if (len < 1)
		return "empty";
	st->tag = p[0];
	switch (p[0])
	{
		case BFA_TAG_FILTER:
			st->filter = p + 1;
			st->filter_len = len - 1;
			return NULL;
		case BFA_TAG_AUTO_FILTER:
			if ((why = read_target(p, len, &st->target)) != NULL)
				return why;
			if (len < BFA_AUTO_FILTER_HEAD)
				return "truncated";
			st->sketch = p + 1 + BFA_TARGET_LEN;
			if (!sketch_valid(st->sketch))
				return "sketch register out of range";
			st->filter = p + BFA_AUTO_FILTER_HEAD;
			st->filter_len = len - BFA_AUTO_FILTER_HEAD;
			return NULL;
		case BFA_TAG_BUFFER:
			if ((why = read_target(p, len, &st->target)) != NULL)
				return why;
			return decode_buffer(p, len, st);
		case BFA_TAG_BUCKETED:
			if ((why = read_target(p, len, &st->target)) != NULL)
				return why;
			return decode_bucketed(p, len, st);
		case BFA_TAG_EXPLICIT:
			return decode_explicit(p, len, st);
		default:
			return "unknown tag";
	}
}

const char *
bfa_check_filter(const bfa_target *t, const bf_view *v)
{
	if (v->layout != BF_LAYOUT_BLOCKED || v->hashes != t->hashes ||
		v->seed != 0 || v->nbits != t->max_nblocks * BF_BLOCK_BITS)
		return "filter does not match its target";
	return NULL;
}

void
bfa_store_target(uint8_t *p, const bfa_target *t)
{
	uint64_t	fbits;

	memcpy(&fbits, &t->fpr, 8);
	bf_store_le64(p, fbits);
	p[8] = (uint8_t) t->hashes;
	bf_store_le64(p + 9, t->max_nblocks);
	bf_store_le32(p + 17, t->buf_max);
}

static void
store_buffer_head(uint8_t *out, uint8_t tag, const bfa_target *t,
				  uint16_t family, uint32_t type_tag, uint64_t added)
{
	out[0] = tag;
	bfa_store_target(out + 1, t);
	bf_store_le16(out + 1 + BFA_TARGET_LEN, family);
	bf_store_le32(out + 1 + BFA_TARGET_LEN + 2, type_tag);
	bf_store_le64(out + 1 + BFA_TARGET_LEN + 6, added);
}

size_t
bfa_buffer_len(bool has_sketch, uint32_t count)
{
	return BFA_BUFFER_HEAD + 1 + (has_sketch ? BF_HLL_REGISTERS : 0) + 4 +
		(size_t) count * 8;
}

void
bfa_encode_buffer(uint8_t *out, const bfa_target *t, uint16_t family,
				  uint32_t type_tag, uint64_t added, const uint8_t *sketch,
				  const uint64_t *hashes, uint32_t count)
{
	size_t		off = BFA_BUFFER_HEAD;

	store_buffer_head(out, BFA_TAG_BUFFER, t, family, type_tag, added);
	out[off++] = sketch != NULL ? 1 : 0;
	if (sketch != NULL)
	{
		memcpy(out + off, sketch, BF_HLL_REGISTERS);
		off += BF_HLL_REGISTERS;
	}
	bf_store_le32(out + off, count);
	off += 4;
	for (uint32_t j = 0; j < count; j++)
		bf_store_le64(out + off + (size_t) j * 8, hashes[j]);
}

size_t
bfa_explicit_len(uint32_t count)
{
	return BFA_EXPLICIT_HEAD + (size_t) count * 8;
}

uint64_t
bfa_explicit_checksum(const uint8_t *p, size_t len)
{
	return bf_hash_bytes(bf_hash_bytes(0, p, 28), p + BFA_EXPLICIT_HEAD,
						 len - BFA_EXPLICIT_HEAD);
}

void
bfa_encode_explicit(uint8_t *out, int hashes, uint64_t nbits, uint16_t family,
					uint32_t type_tag, uint64_t added, const uint64_t *h,
					uint32_t count)
{
	out[0] = BFA_TAG_EXPLICIT;
	out[1] = (uint8_t) hashes;
	bf_store_le64(out + 2, nbits);
	bf_store_le16(out + 10, family);
	bf_store_le32(out + 12, type_tag);
	bf_store_le64(out + 16, added);
	bf_store_le32(out + 24, count);
	for (uint32_t j = 0; j < count; j++)
		bf_store_le64(out + BFA_EXPLICIT_HEAD + (size_t) j * 8, h[j]);
	bf_store_le64(out + 28, bfa_explicit_checksum(out, bfa_explicit_len(count)));
}

void
bfa_encode_bucketed_head(uint8_t *out, const bfa_target *t, uint16_t family,
						 uint32_t type_tag, uint64_t added, const uint8_t *sketch,
						 uint32_t count, const uint32_t *bucket_count)
{
	uint8_t    *regs = out + BFA_BUFFER_HEAD;
	uint8_t    *counts = regs + BF_HLL_REGISTERS + 4;

	store_buffer_head(out, BFA_TAG_BUCKETED, t, family, type_tag, added);
	memcpy(regs, sketch, BF_HLL_REGISTERS);
	bf_store_le32(regs + BF_HLL_REGISTERS, count);
	for (int b = 0; b < BF_HASH_BUCKETS; b++)
		bf_store_le32(counts + 4 * b, bucket_count[b]);
	bf_store_le32(counts + 4 * BF_HASH_BUCKETS, 0);
}

void
bfa_store_hashes(uint64_t *h, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (size_t j = 0; j < n; j++)
		bf_store_le64((uint8_t *) (h + j), h[j]);
#else
	(void) h;
	(void) n;
#endif
}

size_t
bfa_encode_filter_head(uint8_t *out, bool auto_sized, const bfa_target *t,
					   const uint8_t *sketch)
{
	if (!auto_sized)
	{
		out[0] = BFA_TAG_FILTER;
		return 1;
	}
	out[0] = BFA_TAG_AUTO_FILTER;
	bfa_store_target(out + 1, t);
	memcpy(out + 1 + BFA_TARGET_LEN, sketch, BF_HLL_REGISTERS);
	return BFA_AUTO_FILTER_HEAD;
}

/* ---- bloomfilter_aggstate values ---- */

static const uint8_t bfas_magic[4] = {'B', 'F', 'A', 'S'};

void
bfas_store_head(uint8_t *out, uint8_t kind)
{
	memcpy(out, bfas_magic, 4);
	bf_store_le16(out + 4, BFAS_FORMAT_VERSION);
	out[6] = kind;
	out[7] = 0;
}

uint8_t
bfas_kind(const uint8_t *p, size_t len)
{
	if (len < BFAS_HEAD_LEN || memcmp(p, bfas_magic, 4) != 0 ||
		bf_load_le16(p + 4) != BFAS_FORMAT_VERSION || p[7] != 0)
		return 0;
	switch (p[6])
	{
		case BFAS_KIND_BLOOM:
		case BFAS_KIND_COUNTING:
		case BFAS_KIND_WINDOW:
		case BFAS_KIND_SCALABLE:
			return p[6];
		default:
			return 0;
	}
}
