/*
 * bf_scalable.c
 *		The scalablebloom container ("BLMS"): building, decoding, sealing,
 *		validating, growth planning and estimates.  See bf_scalable.h for
 *		the schedule and FORMAT.md for the bytes.
 */
#include <math.h>

#include "bf_scalable.h"

static double
load_f64(const uint8_t *p)
{
	uint64_t	u = bf_load_le64(p);
	double		d;

	memcpy(&d, &u, 8);
	return d;
}

static void
store_f64(uint8_t *p, double d)
{
	uint64_t	u;

	memcpy(&u, &d, 8);
	bf_store_le64(p, u);
}

bfs_status
bfs_check_params(int layout, int growth, double fpr, double tightening,
				 uint64_t initial_capacity)
{
	if (layout != BF_LAYOUT_CLASSIC && layout != BF_LAYOUT_BLOCKED)
		return BFS_ERR_PARAMS;
	if (growth != 2 && growth != 4)
		return BFS_ERR_PARAMS;
	/* the negated forms also refuse NaN */
	if (!(fpr > 0.0 && fpr < 1.0) || !(tightening > 0.0 && tightening < 1.0))
		return BFS_ERR_PARAMS;
	if (initial_capacity < 1 || initial_capacity > BFS_MAX_CAPACITY)
		return BFS_ERR_PARAMS;
	return BFS_OK;
}

/*
 * Multiplications only, in a fixed order: IEEE-754 rounds each one
 * exactly, so every machine computes the same rates and a container
 * written on one validates on another.
 */
double
bfs_level_fpr(double fpr, double tightening, uint32_t level)
{
	double		p = fpr * (1.0 - tightening);

	for (uint32_t i = 0; i < level; i++)
		p *= tightening;
	return p;
}

double
bfs_rate_bound(double fpr, double tightening, uint32_t nlevels)
{
	return fpr * (1.0 - pow(tightening, (double) nlevels));
}

void
bfs_read_header(const uint8_t *buf, bfs_header *h)
{
	h->kind = buf[BFS_OFF_KIND];
	h->layout = buf[BFS_OFF_LAYOUT];
	h->seed = bf_load_le64(buf + BFS_OFF_SEED);
	h->fpr = load_f64(buf + BFS_OFF_FPR);
	h->tightening = load_f64(buf + BFS_OFF_TIGHTENING);
	h->initial_capacity = bf_load_le64(buf + BFS_OFF_INITIAL);
	h->added = bf_load_le64(buf + BFS_OFF_ADDED);
	h->family = bf_load_le16(buf + BFS_OFF_FAMILY);
	h->growth = buf[BFS_OFF_GROWTH];
	h->type_tag = bf_load_le32(buf + BFS_OFF_TYPETAG);
	h->nfilters = bf_load_le32(buf + BFS_OFF_NFILTERS);
}

void
bfs_write_header(uint8_t *buf, const bfs_header *h)
{
	memset(buf, 0, BFS_HEADER_SIZE);
	buf[0] = BF_MAGIC_0;
	buf[1] = BF_MAGIC_1;
	buf[2] = BF_MAGIC_2;
	buf[3] = BFS_MAGIC_3;
	bf_store_le16(buf + BFS_OFF_VERSION, BFS_FORMAT_VERSION);
	buf[BFS_OFF_KIND] = h->kind;
	buf[BFS_OFF_LAYOUT] = h->layout;
	bf_store_le64(buf + BFS_OFF_SEED, h->seed);
	store_f64(buf + BFS_OFF_FPR, h->fpr);
	store_f64(buf + BFS_OFF_TIGHTENING, h->tightening);
	bf_store_le64(buf + BFS_OFF_INITIAL, h->initial_capacity);
	bf_store_le64(buf + BFS_OFF_ADDED, h->added);
	bf_store_le16(buf + BFS_OFF_FAMILY, h->family);
	buf[BFS_OFF_GROWTH] = h->growth;
	bf_store_le32(buf + BFS_OFF_TYPETAG, h->type_tag);
	bf_store_le32(buf + BFS_OFF_NFILTERS, h->nfilters);
}

void
bfs_init_entry(uint8_t *dst, uint64_t capacity, double fpr, uint64_t tag,
			   uint32_t level, int layout, int hashes, uint64_t seed,
			   uint64_t nbits)
{
	bf_store_le64(dst + BFS_EOFF_CAPACITY, capacity);
	store_f64(dst + BFS_EOFF_FPR, fpr);
	bf_store_le64(dst + BFS_EOFF_TAG, tag);
	bf_store_le32(dst + BFS_EOFF_LEVEL, level);
	bf_init(dst + BFS_ENTRY_HEADER_SIZE, layout, hashes, seed, nbits);
}

static void
read_entry(uint8_t *buf, size_t off, bfs_entry *e)
{
	e->capacity = bf_load_le64(buf + off + BFS_EOFF_CAPACITY);
	e->fpr = load_f64(buf + off + BFS_EOFF_FPR);
	e->tag = bf_load_le64(buf + off + BFS_EOFF_TAG);
	e->level = bf_load_le32(buf + off + BFS_EOFF_LEVEL);
	e->offset = off;
	e->filter = buf + off + BFS_ENTRY_HEADER_SIZE;
	bf_view_of(e->filter, &e->v);
	e->len = bfs_entry_size(e->v.nbits);
}

uint32_t
bfs_entries(uint8_t *buf, size_t len, bfs_entry *out)
{
	uint32_t	n = bf_load_le32(buf + BFS_OFF_NFILTERS);
	size_t		off = BFS_HEADER_SIZE;
	uint32_t	i;

	for (i = 0; i < n && off < len; i++)
	{
		read_entry(buf, off, &out[i]);
		off += out[i].len;
	}
	return i;
}

void
bfs_store_entry(bfs_entry *e)
{
	bf_store_header(e->filter, &e->v);
}

/*
 * Checks only what decoding reads: each entry's header and its filter's
 * header are there, the filter's geometry gives its length, and the
 * lengths add up to len exactly.  Every read is preceded by a check that
 * the bytes are there.
 */
bool
bfs_walk(const uint8_t *buf, size_t len, bfs_header *h)
{
	size_t		off = BFS_HEADER_SIZE;

	if (len < BFS_HEADER_SIZE ||
		buf[0] != BF_MAGIC_0 || buf[1] != BF_MAGIC_1 ||
		buf[2] != BF_MAGIC_2 || buf[3] != BFS_MAGIC_3)
		return false;
	bfs_read_header(buf, h);
	if (h->nfilters < 1 || h->nfilters > BFS_MAX_FILTERS)
		return false;
	for (uint32_t i = 0; i < h->nfilters; i++)
	{
		const uint8_t *f = buf + off + BFS_ENTRY_HEADER_SIZE;
		uint64_t	nbits;

		if (len - off < BFS_ENTRY_HEADER_SIZE + BF_HEADER_SIZE)
			return false;
		nbits = bf_load_le64(f + BF_OFF_NBITS);
		if (bf_check_geometry(f[BF_OFF_LAYOUT], f[BF_OFF_HASHES], nbits) != BF_OK ||
			bfs_entry_size(nbits) > len - off)
			return false;
		off += bfs_entry_size(nbits);
	}
	return off == len;
}

/*
 * The first entry's capacity is what v's geometry holds at the first
 * level's rate (at most BFS_MAX_CAPACITY).  The sub-filter's count of adds
 * is the number of distinct keys its bits suggest, at most v's adds and at
 * least 1 when a bit is set: the count of a filter built from repeated keys
 * would call it full early.  The container keeps v's adds, and knows v's
 * family only if v has had keys added; a sub-filter with no bit set holds
 * no key and so no family.
 */
void
bfs_wrap(uint8_t *dst, const bf_view *v, double fpr, int growth,
		 double tightening)
{
	double		p0 = bfs_level_fpr(fpr, tightening, 0);
	uint64_t	capacity = bfs_capacity_of(v, p0);
	uint8_t    *filter = dst + BFS_HEADER_SIZE + BFS_ENTRY_HEADER_SIZE;
	bfs_header	h = {0};
	bf_view		ev;

	if (capacity > BFS_MAX_CAPACITY)
		capacity = BFS_MAX_CAPACITY;
	h.kind = BFS_KIND_SCALABLE;
	h.layout = v->layout;
	h.growth = (uint8_t) growth;
	h.seed = v->seed;
	h.fpr = fpr;
	h.tightening = tightening;
	h.initial_capacity = capacity;
	h.added = v->added;
	h.family = v->added > 0 ? v->family : BF_FAMILY_NONE;
	h.type_tag = v->added > 0 ? v->type_tag : 0;
	h.nfilters = 1;
	bfs_write_header(dst, &h);
	bfs_init_entry(dst + BFS_HEADER_SIZE, capacity, p0, 0, 0, v->layout,
				   v->hashes, v->seed, v->nbits);
	memcpy(filter + BF_HEADER_SIZE, v->bits, v->nbits / 8);
	bf_view_of(filter, &ev);
	ev.family = v->family;
	ev.type_tag = v->type_tag;
	ev.added = 0;
	if (bf_popcount(&ev) > 0)
	{
		double		distinct = ceil(bf_est_cardinality(&ev));

		/* min(adds, max(1, distinct)), converting only what fits */
		if (!(distinct >= 1.0))
			distinct = 1.0;
		ev.added = distinct >= (double) v->added ? v->added : (uint64_t) distinct;
	}
	else
	{
		ev.family = BF_FAMILY_NONE;
		ev.type_tag = 0;
	}
	bf_store_header(filter, &ev);
}

uint64_t
bfs_checksum(const uint8_t *buf, size_t len)
{
	XXH3_state_t st;

	XXH3_INITSTATE(&st);
	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, buf, BFS_OFF_CHECKSUM);
	XXH3_64bits_update(&st, buf + BFS_HEADER_SIZE, len - BFS_HEADER_SIZE);
	return XXH3_64bits_digest(&st);
}

void
bfs_seal(uint8_t *buf, size_t len)
{
	bf_store_le64(buf + BFS_OFF_CHECKSUM, bfs_checksum(buf, len));
}

void
bfs_unseal(uint8_t *buf)
{
	bf_store_le64(buf + BFS_OFF_CHECKSUM, 0);
}

/* Saturating add, as the counts of a filter's adds. */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * Validates untrusted bytes: the length against the largest value, the
 * header, then each entry in turn (its place, its BLMF buffer, its
 * agreement with the container and the schedule), the total length, the
 * checksum, and last the counts.  Every read is preceded by a check that
 * the bytes are there.
 */
bfs_status
bfs_validate(const uint8_t *buf, size_t len, bfs_problem *problem)
{
	bfs_header	h;
	size_t		off = BFS_HEADER_SIZE;
	uint32_t	prev_level = 0;
	uint64_t	entry_adds = 0;

	problem->entry = 0;
	problem->inner = BF_OK;
	if (len < BFS_OFF_VERSION + 2)
		return BFS_ERR_TRUNCATED;
	if (buf[0] != BF_MAGIC_0 || buf[1] != BF_MAGIC_1 ||
		buf[2] != BF_MAGIC_2 || buf[3] != BFS_MAGIC_3)
		return BFS_ERR_MAGIC;
	if (bf_load_le16(buf + BFS_OFF_VERSION) != BFS_FORMAT_VERSION)
		return BFS_ERR_VERSION;
	if (len < BFS_HEADER_SIZE)
		return BFS_ERR_TRUNCATED;

	/*
	 * Every entry is within the largest bloomfilter, but entries add up: a
	 * longer container could be stored but its text form neither selected
	 * nor dumped (see BF_MAX_TOTAL_BYTES).  Growth and unions stop there.
	 */
	if (len > BF_MAX_TOTAL_BYTES)
		return BFS_ERR_TOO_LARGE;

	bfs_read_header(buf, &h);
	if (h.kind != BFS_KIND_SCALABLE)
		return BFS_ERR_KIND;
	if (bfs_check_params(h.layout, h.growth, h.fpr, h.tightening,
						 h.initial_capacity) != BFS_OK)
		return BFS_ERR_PARAMS;
	if (!bf_family_valid(h.family, h.type_tag))
		return BFS_ERR_FAMILY;
	if (buf[BFS_OFF_FLAGS] != 0)
		return BFS_ERR_RESERVED;
	if (h.nfilters < 1 || h.nfilters > BFS_MAX_FILTERS)
		return BFS_ERR_COUNT;

	for (uint32_t i = 0; i < h.nfilters; i++)
	{
		const uint8_t *f;
		size_t		rest;
		size_t		flen;
		uint64_t	nbits;
		uint64_t	capacity;
		uint32_t	level;
		double		fpr,
					want;
		bf_status	st;

		problem->entry = i;
		if (len - off < BFS_ENTRY_HEADER_SIZE)
			return BFS_ERR_SIZE;
		f = buf + off + BFS_ENTRY_HEADER_SIZE;
		rest = len - off - BFS_ENTRY_HEADER_SIZE;

		/* the filter's own header decides its length: check it first */
		if (rest < BF_HEADER_SIZE ||
			bf_check_geometry(f[BF_OFF_LAYOUT], f[BF_OFF_HASHES],
							  bf_load_le64(f + BF_OFF_NBITS)) != BF_OK)
		{
			problem->inner = bf_validate_embedded(f, rest);
			if (problem->inner == BF_OK)	/* cannot happen; be safe */
				problem->inner = BF_ERR_NBITS;
			return BFS_ERR_ENTRY;
		}
		nbits = bf_load_le64(f + BF_OFF_NBITS);
		flen = bf_buffer_size(nbits);
		if (flen > rest)
			return BFS_ERR_SIZE;
		st = bf_validate_embedded(f, flen);
		if (st != BF_OK)
		{
			problem->inner = st;
			return BFS_ERR_ENTRY;
		}

		/* one way of hashing for the whole container, one family */
		if (f[BF_OFF_LAYOUT] != h.layout ||
			bf_load_le64(f + BF_OFF_SEED) != h.seed ||
			bf_load_le64(buf + off + BFS_EOFF_TAG) != 0)
			return BFS_ERR_MISMATCH;
		if (bf_load_le16(f + BF_OFF_FAMILY) != BF_FAMILY_NONE &&
			(bf_load_le16(f + BF_OFF_FAMILY) != h.family ||
			 bf_load_le32(f + BF_OFF_TYPETAG) != h.type_tag))
			return BFS_ERR_MISMATCH;

		/* levels in order, each at its rate of the schedule */
		capacity = bf_load_le64(buf + off + BFS_EOFF_CAPACITY);
		fpr = load_f64(buf + off + BFS_EOFF_FPR);
		level = bf_load_le32(buf + off + BFS_EOFF_LEVEL);
		if (level > BFS_MAX_LEVEL || level < prev_level)
			return BFS_ERR_SCHEDULE;
		if (capacity < 1 || capacity > BFS_MAX_CAPACITY)
			return BFS_ERR_SCHEDULE;
		want = bfs_level_fpr(h.fpr, h.tightening, level);
		if (!(fabs(fpr - want) <= 1e-9 * want))
			return BFS_ERR_SCHEDULE;
		prev_level = level;

		entry_adds = add_sat(entry_adds, bf_load_le64(f + BF_OFF_ADDED));
		off += BFS_ENTRY_HEADER_SIZE + flen;
	}
	problem->entry = 0;
	if (off != len)
		return BFS_ERR_SIZE;

	if (bf_load_le64(buf + BFS_OFF_CHECKSUM) != bfs_checksum(buf, len))
		return BFS_ERR_CHECKSUM;

	/*
	 * Every key inserted into a sub-filter was an add to the container; a
	 * container holding keys knows their family.
	 */
	if (entry_adds > h.added)
		return BFS_ERR_ADDED;
	if (h.family != BF_FAMILY_NONE && h.added == 0)
		return BFS_ERR_ADDED;
	return BFS_OK;
}

const char *
bfs_status_message(bfs_status st)
{
	switch (st)
	{
		case BFS_OK:
			return "valid";
		case BFS_ERR_TRUNCATED:
			return "the buffer is shorter than a scalablebloom header";
		case BFS_ERR_MAGIC:
			return "the buffer does not start with the scalablebloom magic \"BLMS\"";
		case BFS_ERR_VERSION:
			return "the format version is not one this build reads";
		case BFS_ERR_KIND:
			return "the container kind is unknown";
		case BFS_ERR_PARAMS:
			return "the layout, growth factor, target rate, tightening ratio or initial capacity is out of range";
		case BFS_ERR_FAMILY:
			return "the key family or type tag is invalid";
		case BFS_ERR_RESERVED:
			return "reserved header fields are not zero";
		case BFS_ERR_COUNT:
			return "the number of sub-filters is zero or too large";
		case BFS_ERR_ENTRY:
			return "a sub-filter is not a valid bloomfilter";
		case BFS_ERR_MISMATCH:
			return "a sub-filter's layout, seed, tag or key family differs from the container's";
		case BFS_ERR_SCHEDULE:
			return "a sub-filter's level, capacity or rate does not follow the growth schedule";
		case BFS_ERR_SIZE:
			return "the length does not match the sub-filters the header announces";
		case BFS_ERR_CHECKSUM:
			return "the checksum does not match the contents";
		case BFS_ERR_TOO_LARGE:
			return "the container is longer than the largest value";
		case BFS_ERR_ADDED:
			return "the sub-filters record more added keys than the container";
	}
	return "unknown error";
}

double
bfs_est_fpr(const bfs_entry *e, uint32_t n)
{
	double		none = 1.0;

	for (uint32_t i = 0; i < n; i++)
		none *= 1.0 - bf_est_fpr(&e[i].v);
	return 1.0 - none;
}

double
bfs_est_cardinality(const bfs_entry *e, uint32_t n)
{
	double		sum = 0.0;

	for (uint32_t i = 0; i < n; i++)
		sum += bf_est_cardinality(&e[i].v);
	return sum;
}

bfs_grow
bfs_plan_growth(const bfs_header *h, const bfs_entry *last, size_t cur_len,
				uint64_t *capacity, double *fpr, uint32_t *level,
				uint64_t *nbits, int *hashes)
{
	if (last->level >= BFS_MAX_LEVEL || h->nfilters >= BFS_MAX_FILTERS)
		return BFS_GROW_LEVEL;
	if (last->capacity > BFS_MAX_CAPACITY / h->growth)
		return BFS_GROW_CAPACITY;
	*capacity = last->capacity * h->growth;
	*level = last->level + 1;
	*fpr = bfs_level_fpr(h->fpr, h->tightening, *level);
	if (!bf_size_for(h->layout, (double) *capacity, *fpr, nbits, hashes))
		return BFS_GROW_SIZE;
	if (bfs_entry_size(*nbits) > BF_MAX_TOTAL_BYTES - cur_len)
		return BFS_GROW_SIZE;
	return BFS_GROW_OK;
}

/* The sizing model's rate for n keys in v, and the rate it must meet. */
static bool
holds_at(const bf_view *v, double n, double p)
{
	if (v->layout == BF_LAYOUT_BLOCKED)
		return bf_blocked_expected_fpr((double) (v->nbits / BF_BLOCK_BITS),
									   v->hashes, n) <= p / bf_blocked_margin(p);
	return bf_expected_fpr((double) v->nbits, v->hashes, n) <= p;
}

uint64_t
bfs_capacity_of(const bf_view *v, double p)
{
	uint64_t	lo = 1,
				hi = 2;

	if (!holds_at(v, 1.0, p))
		return 1;
	/* the rate rises with n: double past it, then bisect */
	while (hi < v->nbits && holds_at(v, (double) hi, p))
	{
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (holds_at(v, (double) mid, p))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int
bfs_entry_cmp(const bfs_entry *a, const bfs_entry *b)
{
	int			c;

	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	c = memcmp(a->filter - BFS_ENTRY_HEADER_SIZE, b->filter - BFS_ENTRY_HEADER_SIZE, a->len);
	return c < 0 ? -1 : c > 0 ? 1 : 0;
}

const char *
bfs_incompatible(const bfs_header *a, const bfs_header *b)
{
	if (a->kind != b->kind)
		return "the filters are of different kinds";
	if (a->layout != b->layout)
		return "the filters have different layouts";
	if (a->seed != b->seed)
		return "the filters use different seeds";
	if (a->fpr != b->fpr)
		return "the filters have different target rates";
	if (a->tightening != b->tightening)
		return "the filters have different tightening ratios";
	if (a->growth != b->growth)
		return "the filters have different growth factors";
	return NULL;
}
