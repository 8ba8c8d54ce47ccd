/*
 * bf_parquet.c
 *		Layout 'parquet' (bf_parquet.h): sizing as parquet-java and Arrow
 *		size a split-block filter, estimates from its bits, physical type
 *		names, and the Thrift compact BloomFilterHeader.
 */
#include <math.h>

#include "bf_core.h"

uint64_t
bf_parquet_optimal_bits(double ndv, double fpp)
{
	double		m = -8.0 * ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
	uint64_t	max = (uint64_t) BF_PARQUET_MAX_BYTES * 8;
	uint64_t	bits;
	uint64_t	p2;

	/* as both engines: an overflow or a NaN gives the largest filter */
	if (!(m >= 0.0) || m > (double) max)
		bits = max;
	else
		bits = (uint64_t) m;
	if (bits < (uint64_t) BF_PARQUET_MIN_BYTES * 8)
		bits = (uint64_t) BF_PARQUET_MIN_BYTES * 8;
	p2 = 1;
	while (p2 < bits)
		p2 <<= 1;
	return p2 > max ? max : p2;
}

/* Bits set in word i (0..7) of a 32-byte block. */
static inline unsigned
word_popcount(const uint8_t *block, int i)
{
	return bf_popcount64(bf_load_le32(block + i * 4));
}

/*
 * Each key sets one bit in each of its block's eight 32-bit words, so a
 * word is a one-hash filter of 32 bits over the block's keys: Swamidass &
 * Baldi per word (-32 ln(1 - x/32)), averaged over the eight words of a
 * block, summed over blocks.  A full word counts as one bit short of full.
 */
double
bf_parquet_est_cardinality(const bf_view *v)
{
	uint64_t	nblocks = v->nbits / BF_PARQUET_BLOCK_BITS;
	double		term[33];
	double		n = 0.0;

	for (int x = 0; x <= 32; x++)
		term[x] = -32.0 * log1p(-(x == 32 ? 31.5 : (double) x) / 32.0);
	for (uint64_t b = 0; b < nblocks; b++)
	{
		const uint8_t *block = v->bits + b * BF_PARQUET_BLOCK_BYTES;
		double		s = 0.0;

		for (int i = 0; i < 8; i++)
			s += term[word_popcount(block, i)];
		n += s / 8.0;
	}
	return n;
}

/*
 * A key not in the set probes true when its bit in each of the eight words
 * of its block is set: the product of the words' fills, averaged over the
 * blocks (exact for a uniformly hashed key, given the bits).
 */
double
bf_parquet_est_fpr(const bf_view *v)
{
	uint64_t	nblocks = v->nbits / BF_PARQUET_BLOCK_BITS;
	double		sum = 0.0;

	for (uint64_t b = 0; b < nblocks; b++)
	{
		const uint8_t *block = v->bits + b * BF_PARQUET_BLOCK_BYTES;
		double		p = 1.0;

		for (int i = 0; i < 8 && p > 0.0; i++)
			p *= (double) word_popcount(block, i) / 32.0;
		sum += p;
	}
	return sum / (double) nblocks;
}

static const struct
{
	unsigned	code;
	const char *name;
}			pq_types[] = {
	{BF_PQ_INT32, "INT32"},
	{BF_PQ_INT64, "INT64"},
	{BF_PQ_FLOAT, "FLOAT"},
	{BF_PQ_DOUBLE, "DOUBLE"},
	{BF_PQ_BYTE_ARRAY, "BYTE_ARRAY"},
	{BF_PQ_FLBA, "FIXED_LEN_BYTE_ARRAY"},
};

const char *
bf_parquet_type_name(unsigned t)
{
	for (size_t i = 0; i < sizeof(pq_types) / sizeof(pq_types[0]); i++)
		if (pq_types[i].code == t)
			return pq_types[i].name;
	return t == BF_PQ_UNSET ? "unset" : "unknown";
}

unsigned
bf_parquet_type_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(pq_types) / sizeof(pq_types[0]); i++)
		if (strcmp(pq_types[i].name, name) == 0)
			return pq_types[i].code;
	return 0;
}

/* ---- the Thrift compact protocol, as much as a BloomFilterHeader needs ---- */

/* compact type ids */
#define TC_TRUE		1
#define TC_FALSE	2
#define TC_BYTE		3
#define TC_I16		4
#define TC_I32		5
#define TC_I64		6
#define TC_DOUBLE	7
#define TC_BINARY	8
#define TC_LIST		9
#define TC_SET		10
#define TC_MAP		11
#define TC_STRUCT	12

/* Nesting deeper than this is refused (the header nests 2 levels). */
#define TC_MAX_DEPTH 16

typedef struct reader
{
	const uint8_t *p;
	const uint8_t *end;
} reader;

static bool
read_byte(reader *r, uint8_t *b)
{
	if (r->p >= r->end)
		return false;
	*b = *r->p++;
	return true;
}

/* An unsigned LEB128 varint of at most 10 bytes that fits 64 bits. */
static bool
read_varint(reader *r, uint64_t *out)
{
	uint64_t	v = 0;

	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8_t		b;

		if (!read_byte(r, &b))
			return false;
		if (shift == 63 && (b & 0x7e) != 0)
			return false;
		v |= (uint64_t) (b & 0x7f) << shift;
		if ((b & 0x80) == 0)
		{
			*out = v;
			return true;
		}
	}
	return false;
}

static int64_t
unzigzag(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

/* A zigzag i32: the varint must fit 32 bits. */
static bool
read_i32(reader *r, int32_t *out)
{
	uint64_t	v;

	if (!read_varint(r, &v) || v > UINT32_MAX)
		return false;
	*out = (int32_t) unzigzag(v);
	return true;
}

static bool skip_value(reader *r, int type, int depth);

/*
 * A field header: type in the low nibble, the id's delta in the high one,
 * or delta 0 and the id as a zigzag i16.  *type 0 is the stop.
 */
static bool
read_field(reader *r, int16_t *last_id, int *type, int16_t *id)
{
	uint8_t		b;

	if (!read_byte(r, &b))
		return false;
	*type = b & 0x0f;
	if (*type == 0)
		return b == 0;
	if (b >> 4)
		*id = (int16_t) (*last_id + (b >> 4));
	else
	{
		uint64_t	v;

		if (!read_varint(r, &v) || v > UINT16_MAX)
			return false;
		*id = (int16_t) unzigzag(v);
	}
	*last_id = *id;
	return *type <= TC_STRUCT;
}

static bool
skip_struct(reader *r, int depth)
{
	int16_t		last = 0;

	if (depth > TC_MAX_DEPTH)
		return false;
	for (;;)
	{
		int			type;
		int16_t		id;

		if (!read_field(r, &last, &type, &id))
			return false;
		if (type == 0)
			return true;
		if (!skip_value(r, type, depth + 1))
			return false;
	}
}

/* Skips one value of a type; in a struct field, booleans carry no byte. */
static bool
skip_elem(reader *r, int type, int depth)
{
	uint8_t		b;

	if (type == TC_TRUE || type == TC_FALSE)
		return read_byte(r, &b);	/* a list's boolean is one byte */
	return skip_value(r, type, depth);
}

static bool
skip_value(reader *r, int type, int depth)
{
	uint64_t	n;
	uint8_t		b;

	if (depth > TC_MAX_DEPTH)
		return false;
	switch (type)
	{
		case TC_TRUE:
		case TC_FALSE:
			return true;
		case TC_BYTE:
			return read_byte(r, &b);
		case TC_I16:
		case TC_I32:
		case TC_I64:
			return read_varint(r, &n);
		case TC_DOUBLE:
			if (r->end - r->p < 8)
				return false;
			r->p += 8;
			return true;
		case TC_BINARY:
			if (!read_varint(r, &n) || n > (uint64_t) (r->end - r->p))
				return false;
			r->p += n;
			return true;
		case TC_LIST:
		case TC_SET:
			{
				int			et;

				if (!read_byte(r, &b))
					return false;
				et = b & 0x0f;
				n = b >> 4;
				if (n == 15 && !read_varint(r, &n))
					return false;
				if (et == 0 || et > TC_STRUCT)
					return false;
				/* every element takes a byte at least: no spinning on n */
				if (n > (uint64_t) (r->end - r->p))
					return false;
				for (uint64_t i = 0; i < n; i++)
					if (!skip_elem(r, et, depth + 1))
						return false;
				return true;
			}
		case TC_MAP:
			{
				int			kt,
							vt;

				if (!read_varint(r, &n))
					return false;
				if (n == 0)
					return true;
				if (!read_byte(r, &b))
					return false;
				kt = b >> 4;
				vt = b & 0x0f;
				if (kt == 0 || kt > TC_STRUCT || vt == 0 || vt > TC_STRUCT ||
					n > (uint64_t) (r->end - r->p))
					return false;
				for (uint64_t i = 0; i < n; i++)
					if (!skip_elem(r, kt, depth + 1) || !skip_elem(r, vt, depth + 1))
						return false;
				return true;
			}
		case TC_STRUCT:
			return skip_struct(r, depth + 1);
	}
	return false;
}

/*
 * A Thrift union holding exactly one empty-or-unknown-content struct field:
 * *which is its field id (the member chosen), or 0 if the union is empty
 * or sets more than one member (both are invalid unions).
 */
static bool
read_union(reader *r, int depth, int16_t *which)
{
	int16_t		last = 0;
	int			members = 0;

	*which = 0;
	for (;;)
	{
		int			type;
		int16_t		id;

		if (!read_field(r, &last, &type, &id))
			return false;
		if (type == 0)
			break;
		if (type == TC_STRUCT)
		{
			if (members++ == 0)
				*which = id;
		}
		else
			members += 2;		/* not a member of these unions */
		if (!skip_value(r, type, depth + 1))
			return false;
	}
	if (members != 1)
		*which = 0;
	return true;
}

bf_pq_status
bf_parquet_read(const uint8_t *buf, size_t len, size_t *bitset_off,
				uint32_t *nbytes)
{
	reader		r = {buf, buf + len};
	int16_t		last = 0;
	bool		have[5] = {false, false, false, false, false};
	int16_t		member[5] = {0, 0, 0, 0, 0};
	int32_t		num = 0;

	for (;;)
	{
		int			type;
		int16_t		id;

		if (!read_field(&r, &last, &type, &id))
			return BF_PQ_ERR_THRIFT;
		if (type == 0)
			break;
		if (id == 1 && type == TC_I32)
		{
			if (!read_i32(&r, &num))
				return BF_PQ_ERR_THRIFT;
			have[1] = true;
		}
		else if (id >= 2 && id <= 4 && type == TC_STRUCT)
		{
			if (!read_union(&r, 1, &member[id]))
				return BF_PQ_ERR_THRIFT;
			have[id] = true;
		}
		else if (!skip_value(&r, type, 1))
			return BF_PQ_ERR_THRIFT;
	}
	if (!have[1] || !have[2] || !have[3] || !have[4])
		return BF_PQ_ERR_MISSING;
	/* BLOCK, XXHASH and UNCOMPRESSED are field 1 of their unions */
	if (member[2] != 1)
		return BF_PQ_ERR_ALGORITHM;
	if (member[3] != 1)
		return BF_PQ_ERR_HASH;
	if (member[4] != 1)
		return BF_PQ_ERR_COMPRESSION;
	if (num <= 0 || num % BF_PARQUET_BLOCK_BYTES != 0 ||
		num > BF_PARQUET_MAX_BYTES)
		return BF_PQ_ERR_NUMBYTES;
	if ((size_t) (r.end - r.p) != (size_t) num)
		return BF_PQ_ERR_LENGTH;
	*bitset_off = (size_t) (r.p - buf);
	*nbytes = (uint32_t) num;
	return BF_PQ_OK;
}

size_t
bf_parquet_write_header(uint8_t *out, uint32_t nbytes)
{
	size_t		n = 0;
	uint64_t	z = (uint64_t) nbytes << 1;	/* zigzag of a positive i32 */

	out[n++] = 0x15;			/* field 1, i32: numBytes */
	do
	{
		uint8_t		b = z & 0x7f;

		z >>= 7;
		out[n++] = b | (z ? 0x80 : 0);
	} while (z);
	/* fields 2, 3, 4: a union whose field 1 (an empty struct) is set */
	for (int f = 0; f < 3; f++)
	{
		out[n++] = 0x1c;
		out[n++] = 0x1c;
		out[n++] = 0x00;
		out[n++] = 0x00;
	}
	out[n++] = 0x00;			/* stop */
	return n;
}

const char *
bf_parquet_status_message(bf_pq_status st)
{
	switch (st)
	{
		case BF_PQ_OK:
			return "valid";
		case BF_PQ_ERR_THRIFT:
			return "the header is not a well-formed Thrift compact BloomFilterHeader";
		case BF_PQ_ERR_MISSING:
			return "the header lacks a required field (numBytes, algorithm, hash or compression)";
		case BF_PQ_ERR_ALGORITHM:
			return "the algorithm is not BLOCK (split-block)";
		case BF_PQ_ERR_HASH:
			return "the hash is not XXHASH";
		case BF_PQ_ERR_COMPRESSION:
			return "the bitset is compressed";
		case BF_PQ_ERR_NUMBYTES:
			return "numBytes is not a positive multiple of 32 of at most 128 MiB";
		case BF_PQ_ERR_LENGTH:
			return "the bytes after the header are not numBytes long";
	}
	return "unknown error";
}
