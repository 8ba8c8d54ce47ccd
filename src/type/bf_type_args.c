/*
 * type/bf_type_args.c
 *		The arguments every constructor and sizing function checks
 *		(capacity, rate, layout, an engine's seed), and the sizing-math
 *		functions, as in the textbook.
 */
#include "key/bf_key.h"
#include "type/bf_type.h"
#include "engines/bf_engines.h"
#include "type/bf_type_detoast.h"
#include "type/bf_type_edges.h"

#include <math.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(bloomfilter_optimal_bits);
PG_FUNCTION_INFO_V1(bloomfilter_optimal_hashes);
PG_FUNCTION_INFO_V1(bloomfilter_expected_fpr);

/* ---- argument checks shared by the constructors and sizing functions ---- */

void
bloom_check_capacity(int64 capacity)
{
	if (capacity <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter capacity must be positive, not " INT64_FORMAT, capacity)));
}

void
bloom_check_fpr(double fpr)
{
	if (!(fpr > 0.0 && fpr < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter false-positive rate must be between 0 and 1 (exclusive), not %g", fpr)));
}

/*
 * A rate in (0, 1) that no blocked filter reaches, whatever its size (below
 * about 1e-24: 32 hashes in one 512-bit block): the same ERROR for every
 * constructor that sizes a blocked filter, self-sizing or not.
 */
void
bloom_check_blocked_rate(double fpr)
{
	if (!bf_auto_reachable(fpr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no blocked bloomfilter reaches a false-positive rate of %g", fpr),
				 errhint("Ask for a higher rate, or use the classic layout.")));
}

/*
 * The geometry of the smallest filter of the layout that holds capacity
 * keys at rate fpr, with the arguments checked: ERROR if none fits.
 */
void
bloom_size_for(int layout, int64 capacity, double fpr, uint64 *nbits, int *hashes)
{
	bloom_check_capacity(capacity);
	bloom_check_fpr(fpr);
	if (layout == BF_LAYOUT_BLOCKED)
		bloom_check_blocked_rate(fpr);
	if (!bf_size_for(layout, (double) capacity, fpr, nbits, hashes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomfilter for " INT64_FORMAT " keys at rate %g would exceed the largest bloomfilter",
						capacity, fpr)));
}

int
bloom_layout_arg(text *t)
{
	char	   *name = text_to_cstring(t);
	int			layout = bf_layout_from_name(name);

	if (layout == 0 || layout > BF_LAYOUT_BLOCKED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bloomfilter layout \"%s\"", name),
				 errhint(layout == 0 ? "The layouts are 'classic' and 'blocked'." :
						 "Only bloomfilter values take the layouts of other engines; the layouts here are 'classic' and 'blocked'.")));
	return layout;
}

/*
 * The layout argument of a bloomfilter constructor: classic, blocked, or a
 * layout of another engine (FORMAT.md, "Version 2").
 */
int
bloom_filter_layout_arg(text *t)
{
	char	   *name = text_to_cstring(t);
	int			layout = bf_layout_from_name(name);

	if (layout == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bloomfilter layout \"%s\"", name),
				 errhint("The layouts are 'classic', 'blocked', 'parquet' and 'spark'.")));
	return layout;
}

/* Parquet's filters hash without a seed: only 0 is theirs. */
void
bloom_check_engine_seed(int layout, int64 seed)
{
	if (layout == BF_LAYOUT_PARQUET && seed != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a parquet bloomfilter has seed 0, not " INT64_FORMAT, seed),
				 errdetail("Parquet hashes keys with XXH64 and seed 0.")));
}

/* ---- sizing math, as in the textbook ---- */

Datum
bloomfilter_optimal_bits(PG_FUNCTION_ARGS)
{
	int64		capacity = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	double		m;

	bloom_check_capacity(capacity);
	bloom_check_fpr(fpr);
	m = bf_optimal_bits((double) capacity, fpr);
	if (m >= (double) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bit count out of range for bigint")));
	PG_RETURN_INT64((int64) m);
}

Datum
bloomfilter_optimal_hashes(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int64		capacity = PG_GETARG_INT64(1);

	if (bits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size must be positive, not " INT64_FORMAT " bits", bits)));
	bloom_check_capacity(capacity);
	PG_RETURN_INT32(bf_optimal_hashes((double) bits, (double) capacity));
}

Datum
bloomfilter_expected_fpr(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int32		hashes = PG_GETARG_INT32(1);
	int64		n = PG_GETARG_INT64(2);

	if (bits <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size must be positive, not " INT64_FORMAT " bits", bits)));
	if (hashes < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter hashes must be positive, not %d", hashes)));
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of keys must not be negative, not " INT64_FORMAT, n)));
	PG_RETURN_FLOAT8(bf_expected_fpr((double) bits, hashes, (double) n));
}
