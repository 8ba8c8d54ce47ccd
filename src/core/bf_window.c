/*
 * bf_window.c
 *		bloomwindow: a ring of G time buckets, each a bloomfilter of one
 *		geometry, in one buffer.  Building, adding, probing, merging,
 *		sealing and validating.  See bf_window.h and FORMAT.md.
 */
#include "bf_window.h"

bfw_status
bfw_check_geometry(int layout, int hashes, uint64_t nbits, int64_t buckets,
				   int64_t bucket_us)
{
	switch (bf_check_geometry(layout, hashes, nbits))
	{
		case BF_OK:
			break;
		case BF_ERR_LAYOUT:
			return BFW_ERR_LAYOUT;
		case BF_ERR_HASHES:
			return BFW_ERR_HASHES;
		default:
			return BFW_ERR_NBITS;
	}
	if (buckets < 1 || buckets > BFW_MAX_BUCKETS)
		return BFW_ERR_BUCKETS;
	if (bucket_us <= 0 || bucket_us > INT64_MAX / buckets)
		return BFW_ERR_WIDTH;
	/* nbits <= BF_MAX_NBITS and buckets <= 1024: no overflow here */
	if (bfw_buffer_size((uint32_t) buckets, nbits) > BF_MAX_TOTAL_BYTES)
		return BFW_ERR_TOO_LARGE;
	return BFW_OK;
}

/* Makes slot i empty: no bucket, an empty filter of the window's geometry. */
static void
slot_clear(const bfw_view *w, uint32_t i)
{
	uint8_t    *s = bfw_slot(w, i);

	bf_store_le64(s + BFW_SLOT_OFF_BUCKET, (uint64_t) BFW_EMPTY);
	bf_init(s + BFW_SLOT_OFF_FILTER, w->layout, w->hashes, w->seed, w->nbits);
	memset(s + BFW_SLOT_OFF_FILTER + bf_buffer_size(w->nbits), 0, BFW_SLOT_PAD);
}

void
bfw_init(uint8_t *buf, int layout, int hashes, uint64_t seed, uint64_t nbits,
		 uint32_t buckets, int64_t bucket_us)
{
	bfw_view	w;

	memset(buf, 0, BFW_HEADER_SIZE);
	buf[BFW_OFF_MAGIC + 0] = BF_MAGIC_0;
	buf[BFW_OFF_MAGIC + 1] = BF_MAGIC_1;
	buf[BFW_OFF_MAGIC + 2] = BF_MAGIC_2;
	buf[BFW_OFF_MAGIC + 3] = BFW_MAGIC_3;
	bf_store_le16(buf + BFW_OFF_VERSION, BFW_FORMAT_VERSION);
	buf[BFW_OFF_LAYOUT] = (uint8_t) layout;
	buf[BFW_OFF_HASHES] = (uint8_t) hashes;
	bf_store_le64(buf + BFW_OFF_SEED, seed);
	bf_store_le64(buf + BFW_OFF_NBITS, nbits);
	bf_store_le64(buf + BFW_OFF_WIDTH, (uint64_t) (bucket_us * (int64_t) buckets));
	bf_store_le64(buf + BFW_OFF_BUCKET, (uint64_t) bucket_us);
	bf_store_le32(buf + BFW_OFF_BUCKETS, buckets);
	bfw_view_of(buf, &w);
	for (uint32_t i = 0; i < buckets; i++)
		slot_clear(&w, i);
}

void
bfw_view_of(uint8_t *buf, bfw_view *w)
{
	w->buf = buf;
	w->layout = buf[BFW_OFF_LAYOUT];
	w->hashes = buf[BFW_OFF_HASHES];
	w->seed = bf_load_le64(buf + BFW_OFF_SEED);
	w->nbits = bf_load_le64(buf + BFW_OFF_NBITS);
	w->width_us = (int64_t) bf_load_le64(buf + BFW_OFF_WIDTH);
	w->bucket_us = (int64_t) bf_load_le64(buf + BFW_OFF_BUCKET);
	w->buckets = bf_load_le32(buf + BFW_OFF_BUCKETS);
	w->family = bf_load_le16(buf + BFW_OFF_FAMILY);
	w->type_tag = bf_load_le32(buf + BFW_OFF_TYPETAG);
	w->slot_size = bfw_slot_size(w->nbits);
}

void
bfw_store_header(const bfw_view *w)
{
	bf_store_le16(w->buf + BFW_OFF_FAMILY, w->family);
	bf_store_le32(w->buf + BFW_OFF_TYPETAG, w->type_tag);
}

/*
 * The valid bucket numbers: those whose start (b * bucket_us) and end
 * ((b + 1) * bucket_us) fit an int64, less INT64_MIN, the empty mark.
 */
static inline int64_t
bucket_lo(int64_t bucket_us)
{
	return INT64_MIN / bucket_us + 1;
}

static inline int64_t
bucket_hi(int64_t bucket_us)
{
	return INT64_MAX / bucket_us - 1;
}

bool
bfw_bucket_of(int64_t bucket_us, int64_t t, int64_t *bucket)
{
	int64_t		q = t / bucket_us;

	/* C division truncates toward zero; times before 2000 round down */
	if (t % bucket_us < 0)
		q--;
	if (q < bucket_lo(bucket_us) || q > bucket_hi(bucket_us))
		return false;
	*bucket = q;
	return true;
}

int64_t
bfw_newest(const bfw_view *w)
{
	int64_t		newest = BFW_EMPTY;

	for (uint32_t i = 0; i < w->buckets; i++)
	{
		int64_t		b = bfw_slot_bucket(w, i);

		if (b != BFW_EMPTY && (newest == BFW_EMPTY || b > newest))
			newest = b;
	}
	return newest;
}

bool
bfw_slot_for(bfw_view *w, int64_t b, int64_t *newest, uint32_t *slot)
{
	uint32_t	pos = bfw_ring_pos(b, w->buckets);

	if (*newest != BFW_EMPTY && !bfw_in_range(b, *newest, w->buckets))
	{
		if (b < *newest)
			return false;		/* too old: the ring has moved past it */

		/* a newer bucket: whatever is not in its range goes */
		for (uint32_t i = 0; i < w->buckets; i++)
		{
			int64_t		sb = bfw_slot_bucket(w, i);

			if (sb != BFW_EMPTY && !bfw_in_range(sb, b, w->buckets))
				slot_clear(w, i);
		}
	}
	if (*newest == BFW_EMPTY || b > *newest)
		*newest = b;
	if (bfw_slot_bucket(w, pos) == BFW_EMPTY)
		bf_store_le64(bfw_slot(w, pos) + BFW_SLOT_OFF_BUCKET, (uint64_t) b);
	*slot = pos;
	return true;
}

bool
bfw_add_hash(bfw_view *w, int64_t b, int64_t *newest, uint64_t h)
{
	uint32_t	pos;
	bf_view		v;

	if (!bfw_slot_for(w, b, newest, &pos))
		return false;
	bfw_slot_view(w, pos, &v);
	bf_insert_hash(&v, h);
	v.family = w->family;
	v.type_tag = w->type_tag;
	bf_store_header(bfw_slot(w, pos) + BFW_SLOT_OFF_FILTER, &v);
	return true;
}

bool
bfw_probe_hash(const bfw_view *w, int64_t at, uint64_t h)
{
	for (uint32_t i = 0; i < w->buckets; i++)
	{
		bf_view		v;

		if (!bfw_in_range(bfw_slot_bucket(w, i), at, w->buckets))
			continue;
		bfw_slot_view(w, i, &v);
		if (bf_probe_hash(&v, h))
			return true;
	}
	return false;
}

uint64_t
bfw_union_live(const bfw_view *w, int64_t at, bf_view *dst)
{
	uint64_t	added = 0;

	for (uint32_t i = 0; i < w->buckets; i++)
	{
		bf_view		v;

		if (!bfw_in_range(bfw_slot_bucket(w, i), at, w->buckets))
			continue;
		bfw_slot_view(w, i, &v);
		bf_or(dst, &v);
		added = added > UINT64_MAX - v.added ? UINT64_MAX : added + v.added;
	}
	return added;
}

bool
bfw_same_geometry(const bfw_view *a, const bfw_view *b)
{
	return a->layout == b->layout && a->hashes == b->hashes &&
		a->seed == b->seed && a->nbits == b->nbits &&
		a->buckets == b->buckets && a->bucket_us == b->bucket_us &&
		a->width_us == b->width_us;
}

void
bfw_merge(bfw_view *dst, const bfw_view *src)
{
	int64_t		nd = bfw_newest(dst);
	int64_t		ns = bfw_newest(src);
	int64_t		newest;

	if (ns == BFW_EMPTY)
		return;
	newest = (nd == BFW_EMPTY || ns > nd) ? ns : nd;

	/*
	 * Slot i of either holds a bucket congruent to i; of those, only one
	 * can be in the kept range, so matching slots hold the same bucket.
	 */
	for (uint32_t i = 0; i < dst->buckets; i++)
	{
		int64_t		bd = bfw_slot_bucket(dst, i);
		int64_t		bs = bfw_slot_bucket(src, i);
		bool		keep_d = bfw_in_range(bd, newest, dst->buckets);
		bool		keep_s = bfw_in_range(bs, newest, dst->buckets);
		bf_view		vd,
					vs;

		if (!keep_d)
		{
			slot_clear(dst, i);
			if (!keep_s)
				continue;
			bf_store_le64(bfw_slot(dst, i) + BFW_SLOT_OFF_BUCKET, (uint64_t) bs);
		}
		if (!keep_s)
			continue;
		bfw_slot_view(dst, i, &vd);
		bfw_slot_view(src, i, &vs);
		bf_or(&vd, &vs);
		vd.added = vd.added > UINT64_MAX - vs.added ? UINT64_MAX : vd.added + vs.added;
		vd.family = vs.family;
		vd.type_tag = vs.type_tag;
		bf_store_header(bfw_slot(dst, i) + BFW_SLOT_OFF_FILTER, &vd);
	}
	if (dst->family == BF_FAMILY_NONE)
	{
		dst->family = src->family;
		dst->type_tag = src->type_tag;
		bfw_store_header(dst);
	}
}

/*
 * XXH3-64 (seed 0) over the header before the checksum field, then every
 * slot (whose own filters' checksum fields are zero).
 */
uint64_t
bfw_checksum(const uint8_t *buf, size_t len)
{
	XXH3_state_t st;

	XXH3_INITSTATE(&st);
	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, buf, BFW_OFF_CHECKSUM);
	XXH3_64bits_update(&st, buf + BFW_HEADER_SIZE, len - BFW_HEADER_SIZE);
	return XXH3_64bits_digest(&st);
}

void
bfw_seal(uint8_t *buf, size_t len)
{
	bf_store_le64(buf + BFW_OFF_CHECKSUM, bfw_checksum(buf, len));
}

void
bfw_unseal(uint8_t *buf)
{
	bf_store_le64(buf + BFW_OFF_CHECKSUM, 0);
}

static bfw_status
fail(bfw_error *err, bfw_status st, int slot, bf_status inner)
{
	if (err)
	{
		err->slot = slot;
		err->inner = inner;
	}
	return st;
}

/*
 * Validates untrusted bytes, in the order FORMAT.md gives: the header
 * alone, then the length, the checksum, each slot on its own, and last
 * what the slots must say together.
 */
bfw_status
bfw_validate(const uint8_t *buf, size_t len, bfw_error *err)
{
	uint64_t	nbits;
	int64_t		bucket_us;
	int64_t		width_us;
	uint32_t	buckets;
	uint16_t	family;
	uint32_t	tag;
	bfw_status	st;
	bfw_view	w;
	int64_t		newest = BFW_EMPTY;
	bool		any_used = false;

	if (err)
	{
		err->slot = -1;
		err->inner = BF_OK;
	}
	if (len < BFW_OFF_VERSION + 2)
		return BFW_ERR_TRUNCATED;
	if (buf[0] != BF_MAGIC_0 || buf[1] != BF_MAGIC_1 ||
		buf[2] != BF_MAGIC_2 || buf[3] != BFW_MAGIC_3)
		return BFW_ERR_MAGIC;
	if (bf_load_le16(buf + BFW_OFF_VERSION) != BFW_FORMAT_VERSION)
		return BFW_ERR_VERSION;
	if (len < BFW_HEADER_SIZE)
		return BFW_ERR_TRUNCATED;

	nbits = bf_load_le64(buf + BFW_OFF_NBITS);
	buckets = bf_load_le32(buf + BFW_OFF_BUCKETS);
	bucket_us = (int64_t) bf_load_le64(buf + BFW_OFF_BUCKET);
	width_us = (int64_t) bf_load_le64(buf + BFW_OFF_WIDTH);
	st = bfw_check_geometry(buf[BFW_OFF_LAYOUT], buf[BFW_OFF_HASHES], nbits,
							buckets, bucket_us);
	if (st != BFW_OK)
		return st;
	if (width_us != bucket_us * (int64_t) buckets)
		return BFW_ERR_WIDTH;
	if (len != bfw_buffer_size(buckets, nbits))
		return BFW_ERR_SIZE;

	family = bf_load_le16(buf + BFW_OFF_FAMILY);
	tag = bf_load_le32(buf + BFW_OFF_TYPETAG);
	if (!bf_family_valid(family, tag))
		return BFW_ERR_FAMILY;
	if (bf_load_le16(buf + BFW_OFF_FLAGS) != 0 ||
		bf_load_le32(buf + BFW_OFF_RESERVED) != 0)
		return BFW_ERR_RESERVED;
	if (bf_load_le64(buf + BFW_OFF_CHECKSUM) != bfw_checksum(buf, len))
		return BFW_ERR_CHECKSUM;

	bfw_view_of((uint8_t *) buf, &w);
	for (uint32_t i = 0; i < buckets; i++)
	{
		const uint8_t *s = bfw_slot(&w, i);
		const uint8_t *f = s + BFW_SLOT_OFF_FILTER;
		size_t		flen = bf_buffer_size(nbits);
		int64_t		b = (int64_t) bf_load_le64(s + BFW_SLOT_OFF_BUCKET);
		bf_status	fst;
		bf_view		v;

		if (bf_load_le32(f + flen) != 0)
			return fail(err, BFW_ERR_RESERVED, (int) i, BF_OK);
		fst = bf_validate_embedded(f, flen);
		if (fst != BF_OK)
			return fail(err, BFW_ERR_SLOT_FILTER, (int) i, fst);
		bf_view_of((uint8_t *) f, &v);
		if (v.layout != w.layout || v.hashes != w.hashes ||
			v.seed != w.seed || v.nbits != w.nbits)
			return fail(err, BFW_ERR_SLOT_GEOMETRY, (int) i, BF_OK);
		if (b == BFW_EMPTY)
		{
			/* no bits either: a filter without adds or family has none */
			if (v.added != 0 || v.family != BF_FAMILY_NONE)
				return fail(err, BFW_ERR_SLOT_EMPTY, (int) i, BF_OK);
			continue;
		}
		if (b < bucket_lo(bucket_us) || b > bucket_hi(bucket_us) ||
			bfw_ring_pos(b, buckets) != i)
			return fail(err, BFW_ERR_SLOT_BUCKET, (int) i, BF_OK);
		if (v.added == 0 || v.family != family || v.type_tag != tag)
			return fail(err, BFW_ERR_SLOT_FAMILY, (int) i, BF_OK);
		any_used = true;
		if (newest == BFW_EMPTY || b > newest)
			newest = b;
	}

	for (uint32_t i = 0; i < buckets; i++)
	{
		int64_t		b = bfw_slot_bucket(&w, i);

		if (b != BFW_EMPTY && !bfw_in_range(b, newest, buckets))
			return fail(err, BFW_ERR_STALE, (int) i, BF_OK);
	}
	if (any_used != (family != BF_FAMILY_NONE))
		return BFW_ERR_WINDOW_FAMILY;
	return BFW_OK;
}

const char *
bfw_status_message(bfw_status st)
{
	switch (st)
	{
		case BFW_OK:
			return "valid";
		case BFW_ERR_TRUNCATED:
			return "the buffer is shorter than a bloomwindow header";
		case BFW_ERR_MAGIC:
			return "the buffer does not start with the bloomwindow magic \"BLMW\"";
		case BFW_ERR_VERSION:
			return "the format version is not one this build reads";
		case BFW_ERR_LAYOUT:
			return "the layout is unknown";
		case BFW_ERR_HASHES:
			return "the number of hashes is out of range";
		case BFW_ERR_NBITS:
			return "the number of bits is zero, too large, or not a whole number of words or blocks";
		case BFW_ERR_BUCKETS:
			return "the number of buckets is out of range";
		case BFW_ERR_WIDTH:
			return "the bucket width is not positive or the window width is not the number of buckets times it";
		case BFW_ERR_TOO_LARGE:
			return "the window would exceed the largest value";
		case BFW_ERR_SIZE:
			return "the length does not match the number of buckets and bits in the header";
		case BFW_ERR_FAMILY:
			return "the key family or type tag is invalid";
		case BFW_ERR_RESERVED:
			return "reserved fields are not zero";
		case BFW_ERR_CHECKSUM:
			return "the checksum does not match the contents";
		case BFW_ERR_SLOT_FILTER:
			return "a bucket's filter is invalid";
		case BFW_ERR_SLOT_GEOMETRY:
			return "a bucket's filter does not have the window's geometry";
		case BFW_ERR_SLOT_BUCKET:
			return "a bucket number is out of range or not in its ring position";
		case BFW_ERR_SLOT_EMPTY:
			return "an empty slot holds keys";
		case BFW_ERR_SLOT_FAMILY:
			return "a bucket records no added key or another key family than the window";
		case BFW_ERR_STALE:
			return "a bucket is older than the buckets the window keeps";
		case BFW_ERR_WINDOW_FAMILY:
			return "the window's key family does not match its buckets";
	}
	return "unknown error";
}
