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
	MarkGUCPrefixReserved("bloomfilter");
}
