/*
 * type/bf_type_keys.c
 *		A key against a filter's layout: which family a filter of each
 *		layout takes, checked when a key is probed and adopted when one is
 *		added.  The layouts of this extension check the family the key
 *		API gives (key/); the layouts of other engines ask their own
 *		rules (engines/bf_engines_parquet.c, engines/bf_engines_spark.c).
 */
#include "type/bf_type.h"
#include "engines/bf_engines.h"

/*
 * Layout spark: the key must be one Spark hashes; a filter read from Spark
 * (family "spark") holds keys of any such type.
 */
static bool
spark_family_ok(const bf_view *v, const BloomKeyType *kt)
{
	bloom_spark_check_key(kt);
	return v->family == BF_FAMILY_SPARK;
}

bool
bloom_check_family(const bf_view *v, const BloomKeyType *kt)
{
	if (v->layout == BF_LAYOUT_SPARK && spark_family_ok(v, kt))
		return true;
	/* parquet: the key's type against the filter's physical type */
	if (v->layout == BF_LAYOUT_PARQUET)
		return bloom_parquet_check_probe(v, kt);
	if (v->family == BF_FAMILY_NONE)
		return false;
	if (v->family != kt->family || v->type_tag != kt->type_tag)
		bloom_family_mismatch(v, kt, false);
	return true;
}

void
bloom_adopt_family(bf_view *v, const BloomKeyType *kt)
{
	if (v->layout == BF_LAYOUT_SPARK && spark_family_ok(v, kt))
		return;
	/* Spark puts longs, strings and binaries in one filter: it holds both */
	if (v->layout == BF_LAYOUT_SPARK && v->family != BF_FAMILY_NONE &&
		v->family != kt->family)
	{
		v->family = BF_FAMILY_SPARK;
		return;
	}
	if (v->layout == BF_LAYOUT_PARQUET)
	{
		bloom_parquet_adopt(v, kt);
		return;
	}
	if (v->family == BF_FAMILY_NONE)
	{
		v->family = kt->family;
		v->type_tag = kt->type_tag;
	}
	else if (v->family != kt->family || v->type_tag != kt->type_tag)
		bloom_family_mismatch(v, kt, true);
}
