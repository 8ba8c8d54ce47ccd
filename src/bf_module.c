/*
 * bf_module.c
 *		The module's entry point: its magic block, _PG_init, and the
 *		definition of every bloomfilter.* setting.
 *
 * It stands above every folder of src/ and calls down into them: each
 * concern owns the variables of its settings (agg/: agg_max_capacity;
 * autojoin/: default_fpr and join_pushdown*), and offers what must run at
 * load (autojoin/: the planner hook; index/slice/: the reloptions).  No
 * file calls into this one.
 */
#include "bloomfilter.h"
#include "agg/bf_agg.h"
#include "autojoin/bf_autojoin.h"
#include "index/slice/bf_slice_index.h"

#include <limits.h>

#include "access/xact.h"
#include "commands/extension.h"
#include "tcop/tcopprot.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

/* the module's one magic block, beside its load function (_PG_init) */
PG_MODULE_MAGIC;

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

/*
 * SHOW bloomfilter.join_pushdown says when "on" does nothing: the planner
 * part is installed only when the library is loaded at start.
 */
static const char *
show_join_pushdown(void)
{
	if (!bloomfilter_join_pushdown)
		return "off";
	if (!bloom_autojoin_installed())
		return "on (inactive: bloomfilter is not in shared_preload_libraries or session_preload_libraries)";

	/*
	 * Preloaded, the library is in every database, the extension (its types
	 * and operators, which a filter is made of) only where it was created.
	 * The catalog can be read only inside a transaction (SHOW and pg_settings
	 * always are).
	 */
	if (IsTransactionState() &&
		!OidIsValid(get_extension_oid("bloomfilter", true)))
		return "on (inactive: the extension is not created in this database)";
	return "on";
}

/*
 * ---- settings given before the library loaded ----
 *
 * Until the library is loaded, PostgreSQL keeps `SET bloomfilter.x = v`
 * (and postgresql.conf's, ALTER DATABASE's, a connection's options) as text
 * it cannot check.  When a Define*Variable below takes such a placeholder
 * over, PostgreSQL applies its value and, if the value is refused, says why
 * in a WARNING and keeps the setting's default (or the value before it):
 * the user's value is gone.  One more WARNING says so, naming the setting,
 * the value refused and the value in force.
 */
static const char *const bloom_setting_names[] = {
	"bloomfilter.default_fpr",
	"bloomfilter.agg_max_capacity",
	"bloomfilter.simd",
	"bloomfilter.join_pushdown",
	"bloomfilter.join_pushdown_min_rows",
	"bloomfilter.join_pushdown_max_fraction",
};
#define BLOOM_NSETTINGS lengthof(bloom_setting_names)

/* The placeholders' values, before the settings are defined. */
static void
placeholders_before(char **before)
{
	int			i;

	for (i = 0; i < (int) BLOOM_NSETTINGS; i++)
	{
		const char *v = GetConfigOption(bloom_setting_names[i], true, false);

		before[i] = v ? MemoryContextStrdup(TopMemoryContext, v) : NULL;
	}
}

/* Warn of each placeholder value the definition refused. */
static void
placeholders_check(char **before)
{
	int			i;

	for (i = 0; i < (int) BLOOM_NSETTINGS; i++)
	{
		if (before[i] == NULL)
			continue;
		/* the check SET makes, changing nothing, saying nothing: 0 if refused */
		if (set_config_option(bloom_setting_names[i], before[i], PGC_USERSET,
							  PGC_S_SESSION, GUC_ACTION_SET, false, DEBUG5,
							  false) == 0)
			ereport(WARNING,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s = '%s', given before bloomfilter was loaded, is refused: the setting is %s",
							bloom_setting_names[i], before[i],
							GetConfigOption(bloom_setting_names[i], false, false)),
					 errhint("Set it again now that the library is loaded (pg_settings gives its range), or load the library before setting it: LOAD 'bloomfilter', or preload it.")));
		pfree(before[i]);
	}
}

void		_PG_init(void);

void
_PG_init(void)
{
	char	   *before[BLOOM_NSETTINGS];

	placeholders_before(before);
	DefineCustomRealVariable("bloomfilter.default_fpr",
							 "False-positive rate of the filters automatic Bloom-joins build (bloomfilter.join_pushdown).",
							 "A planner setting: no function's result depends on it. bloom_agg(x) always sizes for 1%; bloom_agg(x, fpr) takes another rate.",
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
	DefineCustomBoolVariable("bloomfilter.join_pushdown",
							 "Joins with postgres_fdw foreign tables ship a Bloom filter of the other side's keys into the remote query.",
							 "Only when the library is loaded at start (shared_preload_libraries or session_preload_libraries).",
							 &bloomfilter_join_pushdown,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, show_join_pushdown);
	DefineCustomRealVariable("bloomfilter.join_pushdown_min_rows",
							 "Fewest rows a foreign scan must be expected to return for bloomfilter.join_pushdown to filter it.",
							 NULL,
							 &bloomfilter_join_pushdown_min_rows,
							 10000, 0, 1e15,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.join_pushdown_max_fraction",
							 "Largest fraction of a foreign scan's rows an automatic Bloom filter may be expected to keep.",
							 NULL,
							 &bloomfilter_join_pushdown_max_fraction,
							 0.5, 0, 1,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("bloomfilter");
	placeholders_check(before);

	/*
	 * The planner hook only when the library is loaded at start: by
	 * shared_preload_libraries (in the postmaster), or by
	 * session_preload_libraries, which PostgreSQL 15 runs at backend start
	 * before the first query arrives (so with no query string; it runs
	 * inside a transaction, which therefore tells nothing, and has no flag
	 * of its own).  Loaded lazily (CREATE EXTENSION, the first call of one
	 * of its functions, LOAD), always while serving a query and possibly
	 * in the middle of planning it, the library leaves the planner alone:
	 * whether a join gets a filter must not depend on what the session
	 * happened to call before.
	 */
	if (process_shared_preload_libraries_in_progress || debug_query_string == NULL)
		bloom_autojoin_install();

	/* the bloomslice index's max_bits and pending_limit */
	bs_register_reloptions();
}
