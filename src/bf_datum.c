/*
 * bf_datum.c
 *		The bloomfilter datum, as every folder of the glue reads it
 *		(bloomfilter.h): allocated, made from untrusted bytes (validated by
 *		the core first), viewed with its header checked, and taken from a
 *		function's arguments.
 *
 * A bloomfilter datum is a varlena whose payload is the portable format
 * byte for byte, with the checksum field kept zero in memory and on disk.
 */
#include "bloomfilter.h"
#include "bf_report.h"

struct varlena *
bloomfilter_alloc(uint64 nbits)
{
	size_t		len = VARHDRSZ + bf_buffer_size(nbits);
	struct varlena *f = (struct varlena *) palloc(len);

	SET_VARSIZE(f, len);
	return f;
}

struct varlena *
bloomfilter_from_bytes(const uint8 *data, size_t len, int sqlstate)
{
	bf_problem	p;
	struct varlena *f;

	if (!bf_diagnose(data, len, &p))
		bloom_report_problem(&p, sqlstate);
	f = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(f, VARHDRSZ + len);
	memcpy(VARDATA(f), data, len);
	bf_unseal((uint8 *) VARDATA(f));
	return f;
}

void
bloomfilter_view(struct varlena *f, bf_view *v)
{
	size_t		len = VARSIZE_ANY_EXHDR(f);

	if (len < BF_HEADER_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomfilter datum is damaged: %zu bytes", len)));
	bloom_check_stored_version("bloomfilter", (const uint8 *) VARDATA_ANY(f), len,
							   BF_FORMAT_VERSION, BF_FORMAT_VERSION_MAX);
	bf_view_of((uint8 *) VARDATA_ANY(f), v);
	if (bf_check_filter_geometry(v->layout, v->hashes, v->nbits) != BF_OK ||
		len != bf_buffer_size(v->nbits))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomfilter datum is damaged: its header does not match its %zu bytes", len)));
}

struct varlena *
bloomfilter_getarg_copy(FunctionCallInfo fcinfo, int n, bf_view *v)
{
	struct varlena *f = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(n));

	bloomfilter_view(f, v);
	return f;
}

struct varlena *
bloomfilter_getarg(FunctionCallInfo fcinfo, int n, bf_view *v)
{
	/* packed: an inline datum, even with a 1-byte header, is used in place */
	struct varlena *f = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(n));

	bloomfilter_view(f, v);
	return f;
}
