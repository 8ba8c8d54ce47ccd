/*
 * type/bf_io.c
 *		Type input/output, binary send/receive and the bytea casts.
 *
 * Every way bytes enter goes through bloomfilter_from_bytes, which runs
 * the core validator before anything else looks at them.  Every way bytes
 * leave fills in the checksum, so a filter altered in transit is refused
 * on the other side.
 */
#include "type/bf_type.h"
#include "bf_report.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(bloomfilter_in);
PG_FUNCTION_INFO_V1(bloomfilter_out);
PG_FUNCTION_INFO_V1(bloomfilter_recv);
PG_FUNCTION_INFO_V1(bloomfilter_send);
PG_FUNCTION_INFO_V1(bloomfilter_to_bytea);
PG_FUNCTION_INFO_V1(bloomfilter_from_bytea);

/* ---- the forms every type shares ---- */

/* A copy of a stored datum's payload with the checksum filled in. */
static uint8 *
sealed_copy(const BloomTypeIO *t, struct varlena *d, size_t *len)
{
	uint8	   *buf;

	t->check(d);				/* a damaged datum is an ERROR, not a wild seal */
	*len = VARSIZE_ANY_EXHDR(d);
	buf = palloc_extended(*len, MCXT_ALLOC_HUGE);
	memcpy(buf, VARDATA_ANY(d), *len);
	t->seal(buf, *len);
	return buf;
}

static inline bool
is_b64_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Text input: base64 of the portable bytes.  White space anywhere is
 * skipped, as PostgreSQL's decode(..., 'base64') does: encode() and the
 * base64 tool break lines every 76 characters, and pasted values carry
 * spaces.  Everything else must be the canonical padded base64.
 */
struct varlena *
bloom_type_in(const BloomTypeIO *t, const char *raw)
{
	const char *str = raw;
	size_t		len = strlen(raw);
	uint8	   *buf;
	long long	n;

	if (strpbrk(raw, " \t\n\r") != NULL)
	{
		char	   *s = palloc_extended(len + 1, MCXT_ALLOC_HUGE);

		len = 0;
		for (const char *p = raw; *p; p++)
			if (!is_b64_space(*p))
				s[len++] = *p;
		str = s;
	}

	/* the largest valid value has a known text length: refuse early */
	if (len > bf_base64_encoded_len(BF_MAX_TOTAL_BYTES))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("invalid input syntax for type %s: input is too long", t->name)));

	buf = palloc_extended(bf_base64_decoded_max(len) + 1, MCXT_ALLOC_HUGE);
	n = bf_base64_decode(str, len, buf);
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", t->name),
				 errdetail("A %s's text form is padded base64 of its portable bytes.", t->name)));
	return t->from_bytes(buf, (size_t) n, ERRCODE_INVALID_TEXT_REPRESENTATION);
}

char *
bloom_type_out(const BloomTypeIO *t, struct varlena *d)
{
	size_t		len;
	uint8	   *buf = sealed_copy(t, d, &len);
	size_t		outlen = bf_base64_encoded_len(len);
	char	   *out = palloc_extended(outlen + 1, MCXT_ALLOC_HUGE);

	bf_base64_encode(buf, len, out);
	out[outlen] = '\0';
	pfree(buf);
	return out;
}

/* Binary receive: the portable bytes, all of the remaining message. */
struct varlena *
bloom_type_recv(const BloomTypeIO *t, StringInfo msg)
{
	struct varlena *d;

	d = t->from_bytes((const uint8 *) msg->data + msg->cursor,
					  (size_t) (msg->len - msg->cursor),
					  ERRCODE_INVALID_BINARY_REPRESENTATION);
	msg->cursor = msg->len;
	return d;
}

bytea *
bloom_type_send(const BloomTypeIO *t, struct varlena *d)
{
	size_t		len;
	uint8	   *buf = sealed_copy(t, d, &len);
	StringInfoData out;

	pq_begintypsend(&out);
	pq_sendbytes(&out, (const char *) buf, len);
	pfree(buf);
	return pq_endtypsend(&out);
}

bytea *
bloom_type_to_bytea(const BloomTypeIO *t, struct varlena *d)
{
	size_t		len = VARSIZE_ANY_EXHDR(d);
	bytea	   *out;

	t->check(d);
	out = (bytea *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), VARDATA_ANY(d), len);
	t->seal((uint8 *) VARDATA(out), len);
	return out;
}

struct varlena *
bloom_type_from_bytea(const BloomTypeIO *t, bytea *b)
{
	return t->from_bytes((const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
						 ERRCODE_INVALID_BINARY_REPRESENTATION);
}

/* ---- bloomfilter ---- */

static void
bloomfilter_check(struct varlena *f)
{
	bf_view		v;

	bloomfilter_view(f, &v);
}

static const BloomTypeIO bloomfilter_io = {
	"bloomfilter", bloomfilter_from_bytes, bloomfilter_check, bf_seal
};

Datum
bloomfilter_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_type_in(&bloomfilter_io, PG_GETARG_CSTRING(0)));
}

Datum
bloomfilter_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(bloom_type_out(&bloomfilter_io,
									 PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0))));
}

Datum
bloomfilter_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_type_recv(&bloomfilter_io, (StringInfo) PG_GETARG_POINTER(0)));
}

/*
 * Not bloom_type_send: only a copy of the header is sealed, and the bit
 * array, which may be hundreds of megabytes, goes out as it is.
 */
Datum
bloomfilter_send(PG_FUNCTION_ARGS)
{
	struct varlena *f = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	const uint8 *data = (const uint8 *) VARDATA_ANY(f);
	size_t		len = VARSIZE_ANY_EXHDR(f);
	uint8		header[BF_HEADER_SIZE];
	StringInfoData buf;
	bf_view		v;

	bloomfilter_view(f, &v);

	/* seal a copy of the header only: the bit array goes out as it is */
	memcpy(header, data, BF_HEADER_SIZE);
	bf_store_le64(header + BF_OFF_CHECKSUM, bf_checksum(data, len));

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) header, BF_HEADER_SIZE);
	pq_sendbytes(&buf, (const char *) data + BF_HEADER_SIZE, len - BF_HEADER_SIZE);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bloomfilter_to_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(bloom_type_to_bytea(&bloomfilter_io,
										  PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0))));
}

Datum
bloomfilter_from_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_type_from_bytea(&bloomfilter_io, PG_GETARG_BYTEA_PP(0)));
}
