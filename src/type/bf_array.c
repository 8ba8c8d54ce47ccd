/*
 * type/bf_array.c
 *		Probing a filter with every element of an array in one call:
 *		bloom_contains_all(f, keys) and bloom_filter_array(f, keys).
 *
 * The executor probes one row at a time, so each probe of a filter larger
 * than the caches waits for its own cache miss.  Here the elements are
 * hashed a chunk at a time and the chunk goes to bf_probe_batch, which
 * prefetches ahead so that the misses overlap, and which picks its loop
 * for the filter's layout and k once per chunk.
 *
 * The filter is read through bloom_contains's cache (type/bf_ops.c): a stored
 * filter passed to many calls, one per array, is detoasted once, and its
 * key family is checked once.  The keys are the array's elements, hashed
 * as bloom_contains hashes a key of the element type; a filter whose keys
 * were whole arrays cannot be probed element by element (an ERROR says so).
 */
#include "type/bf_type.h"
#include "engines/bf_engines.h"

#include "access/tupmacs.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(bloomfilter_contains_all);
PG_FUNCTION_INFO_V1(bloomfilter_filter_array);

/* Hashes per bf_probe_batch call: 8 kB of hashes, well inside L1 + L2. */
#define PROBE_CHUNK 1024

/* The answer for one element. */
#define ANS_NO		0
#define ANS_MAYBE	1
#define ANS_NULL	2

/*
 * Probes every element of arr (nitems of them, in storage order): ans[i]
 * is ANS_NO, ANS_MAYBE or ANS_NULL.  If values is not NULL, values[i] is
 * the element (pointing into arr) for each non-NULL one.  v NULL means the
 * filter holds no key: every element is ANS_NO, as bloom_contains says.
 */
static void
probe_elements(const bf_view *v, const BloomKeyType *kt, ArrayType *arr,
			   int nitems, uint8 *ans, Datum *values)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	char	   *p = ARR_DATA_PTR(arr);
	bits8	   *bitmap = ARR_NULLBITMAP(arr);
	int			bitmask = 1;
	uint64		h[PROBE_CHUNK];
	uint8		out[PROBE_CHUNK];
	int			at[PROBE_CHUNK];	/* element index of h[j] */
	int			m = 0;

	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &typlen, &typbyval, &typalign);
	for (int i = 0; i < nitems; i++)
	{
		if (bitmap != NULL && (*bitmap & bitmask) == 0)
			ans[i] = ANS_NULL;
		else
		{
			Datum		d = fetch_att(p, typbyval, typlen);

			p = att_addlength_pointer(p, typlen, p);
			p = (char *) att_align_nominal(p, typalign);
			if (values != NULL)
				values[i] = d;
			if (v == NULL)
				ans[i] = ANS_NO;
			else if (v->layout == BF_LAYOUT_PARQUET)
				/* every encoding equal to the element, one by one */
				ans[i] = bloom_parquet_probe(v, kt, d) ? ANS_MAYBE : ANS_NO;
			else
			{
				h[m] = bloom_hash_for(kt, d, v);
				at[m++] = i;
			}
		}
		if (bitmap != NULL)
		{
			bitmask <<= 1;
			if (bitmask == 0x100)
			{
				bitmap++;
				bitmask = 1;
			}
		}
		if (m == PROBE_CHUNK || (i == nitems - 1 && m > 0))
		{
			bf_probe_batch(v, h, (size_t) m, out);
			for (int j = 0; j < m; j++)
				ans[at[j]] = out[j] ? ANS_MAYBE : ANS_NO;
			m = 0;
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/*
 * bloom_contains_all(f, keys): bloom_contains(f, e) for every element e,
 * as a bool array of the same dimensions and bounds (NULL where e is
 * NULL).
 */
Datum
bloomfilter_contains_all(PG_FUNCTION_ARGS)
{
	const BloomKeyType *kt;
	const bf_view *v = bloom_probe_elements(fcinfo, 0, 1, &kt);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			ndim = ARR_NDIM(arr);
	int			nitems = ArrayGetNItems(ndim, ARR_DIMS(arr));
	uint8	   *ans;
	Datum	   *res;
	bool	   *nulls;

	if (nitems == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(BOOLOID));
	ans = palloc(nitems);
	probe_elements(v, kt, arr, nitems, ans, NULL);
	res = palloc(nitems * sizeof(Datum));
	nulls = palloc(nitems * sizeof(bool));
	for (int i = 0; i < nitems; i++)
	{
		res[i] = BoolGetDatum(ans[i] == ANS_MAYBE);
		nulls[i] = ans[i] == ANS_NULL;
	}
	PG_RETURN_ARRAYTYPE_P(construct_md_array(res, nulls, ndim, ARR_DIMS(arr),
											 ARR_LBOUND(arr), BOOLOID, 1, true,
											 TYPALIGN_CHAR));
}

/*
 * bloom_filter_array(f, keys): the elements that may be in f, in order, as
 * a one-dimensional array (a multi-dimensional one is read in storage
 * order, as unnest reads it); NULL elements are left out, as a WHERE
 * clause drops a NULL probe.
 */
Datum
bloomfilter_filter_array(PG_FUNCTION_ARGS)
{
	const BloomKeyType *kt;
	const bf_view *v = bloom_probe_elements(fcinfo, 0, 1, &kt);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int			nitems = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	int16		typlen;
	bool		typbyval;
	char		typalign;
	uint8	   *ans;
	Datum	   *values;
	int			kept = 0;

	if (nitems == 0 || v == NULL)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	ans = palloc(nitems);
	values = palloc(nitems * sizeof(Datum));
	probe_elements(v, kt, arr, nitems, ans, values);
	for (int i = 0; i < nitems; i++)
		if (ans[i] == ANS_MAYBE)
			values[kept++] = values[i];
	if (kept == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	PG_RETURN_ARRAYTYPE_P(construct_array(values, kept, elemtype, typlen,
										  typbyval, typalign));
}
