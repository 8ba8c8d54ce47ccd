/*
 * bf_guc.c
 *		Module load and the extension's settings.
 */
#include "bloomfilter.h"

#include <limits.h>

#include "utils/guc.h"

/* bloomfilter.default_fpr: the rate bloom_agg(x) sizes its filters for */
double		bloomfilter_default_fpr = 0.01;

/*
 * bloomfilter.agg_max_capacity: how many distinct keys a self-sizing
 * bloom_agg(x) filter can hold at the target rate.  It sets the size of the
 * largest filter the aggregate makes, and so its peak memory per group (the
 * hash buffer that comes first takes at most half of that).
 */
int			bloomfilter_agg_max_capacity = 100000000;

/*
 * bloomfilter.simd: probes of many keys in one call (bloom_contains_all,
 * bloom_filter_array) use AVX2 on blocked filters when the CPU has it.
 * The answers are the same either way; off exists to measure the
 * difference (test/bench/batch_bench.sh) and to rule the SIMD path out.
 */
static bool bloomfilter_simd = true;

static void
assign_simd(bool newval, void *extra pg_attribute_unused())
{
#if BF_HAVE_AVX2_PROBE
	bf_use_avx2 = newval && bf_cpu_has_avx2;
#else
	(void) newval;
#endif
}

static const char *
show_simd(void)
{
#if BF_HAVE_AVX2_PROBE
	if (bf_use_avx2)
		return "on (avx2)";
	if (bloomfilter_simd)
		return "on (this CPU has no AVX2: scalar)";
#else
	if (bloomfilter_simd)
		return "on (built without the AVX2 code: scalar)";
#endif
	return "off";
}

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomRealVariable("bloomfilter.default_fpr",
							 "False-positive rate that bloom_agg(x) sizes its filters for.",
							 "Filters built for different rates use different numbers of hashes and cannot be combined.",
							 &bloomfilter_default_fpr,
							 0.01, 1e-9, 0.5,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.agg_max_capacity",
							"Distinct keys a self-sizing bloom_agg(x) filter can hold at its target rate.",
							"It sets the largest filter bloom_agg(x) makes, and so its memory per group.",
							&bloomfilter_agg_max_capacity,
							100000000, 65536, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("bloomfilter.simd",
							 "Probes of many keys in one call use AVX2 instructions on blocked filters when the CPU has them.",
							 "The answers are the same; SHOW tells whether AVX2 is in use. A probe of one key is always scalar.",
							 &bloomfilter_simd,
							 true,
							 PGC_USERSET, 0,
							 NULL, assign_simd, show_simd);
	MarkGUCPrefixReserved("bloomfilter");
}
