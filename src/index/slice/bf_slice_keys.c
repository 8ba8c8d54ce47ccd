/*
 * index/slice/bf_slice_keys.c
 *		What a bloomslice scan's keys ask of the filters: which keys a
 *		block's geometry can answer from its slices and at which positions
 *		(a probe's hash as the group's layout hashes it: parquet's one
 *		encoding in the group's physical type, spark's version; a superset
 *		test's set bits, folded), which it leaves to the table's recheck,
 *		and the same questions of a pending filter, probed as it is.
 *		bf_slice_scan.c reads the pages these positions name.
 *
 * No row is lost here: whatever cannot be answered from the bits (another
 * key family, a key Spark does not hash, an incompatible or too dense q,
 * an unsliced block) is a candidate for the recheck, never a "no".
 */
#include "index/slice/bf_slice_keys.h"
#include "engines/bf_engines.h"

#include <limits.h>

#include "access/skey.h"

/*
 * The most positions a superset query's q may give (a set bit each): 2^24
 * positions take 128 MB (twice: the key's and the block's), and
 * bfsl_sort_unique counts in an int.  A q with more set bits (millions of
 * keys) is answered by the table: each filter of a geometry it fits is a
 * candidate, rechecked.
 */
#define BS_MAX_SUPERSET_POSITIONS (INT64CONST(1) << 24)

/*
 * Sets up keys[] for the scan keys, in the current memory context (cxt
 * for the key types' caches); false when a key is NULL, which no filter
 * matches.
 */
bool
bs_keys_init(ScanKey scankeys, int nkeys, BsKeyState *keys, MemoryContext cxt)
{
	for (int i = 0; i < nkeys; i++)
	{
		ScanKey		sk = &scankeys[i];
		BsKeyState *ks = &keys[i];

		if (sk->sk_flags & SK_ISNULL)
			return false;	/* strict operators: nothing matches NULL */
		ks->strategy = sk->sk_strategy;
		if (ks->strategy == BS_STRAT_KEY)
		{
			BloomIndexQueryKey key;

			bloom_index_unbox(sk->sk_argument, &key);
			bloom_index_key_type(&ks->kt, key.typid, key.value, key.collation, cxt);
			ks->value = key.value;
		}
		else if (ks->strategy == BS_STRAT_SUPERSET)
		{
			struct varlena *q = (struct varlena *) PG_DETOAST_DATUM_COPY(sk->sk_argument);

			bloomfilter_view(q, &ks->q);

			/*
			 * A position per set bit of q (folding only merges them), so
			 * the memory follows q's keys, not its size.  Past
			 * BS_MAX_SUPERSET_POSITIONS the table answers (every filter
			 * of a compatible geometry is a candidate, rechecked).
			 */
			ks->maxpos = (int64) bf_popcount(&ks->q);
			if (ks->maxpos > BS_MAX_SUPERSET_POSITIONS)
			{
				ks->too_dense = true;
				ks->maxpos = 0;
			}
			ks->pos = palloc(Max(ks->maxpos, 1) * sizeof(uint64));
		}
		else
			elog(ERROR, "unrecognized bloomslice strategy number %d", ks->strategy);
	}
	return true;
}

/* The positions q's superset test reads in filters of geometry g. */
static bool
superset_positions(BsKeyState *ks, const BsGeom *g)
{
	if (!ks->pos_valid || ks->pos_layout != g->layout || ks->pos_nbits != g->nbits)
	{
		ks->npos = bfsl_superset_positions(g->layout, g->nbits, ks->q.bits, ks->q.nbits,
										 ks->pos, ks->maxpos, &ks->shift);
		ks->pos_valid = true;
		ks->pos_layout = g->layout;
		ks->pos_nbits = g->nbits;
	}
	/* a filter 2^7 times q's size or more: rechecked instead */
	return ks->npos >= 0 && ks->shift <= 6;
}

static bool
geom_compatible(const BsGeom *g, const bf_view *q)
{
	bf_view		fv;
	uint64		nbits;

	memset(&fv, 0, sizeof(fv));
	fv.layout = g->layout;
	fv.hashes = g->hashes;
	fv.family = g->family;
	fv.type_tag = g->type_tag;
	fv.seed = g->seed;
	fv.nbits = g->nbits;
	fv.param = (uint16) g->param;
	return bf_compatible(&fv, q, &nbits) == BF_COMPAT_OK;
}

/* What the slices of a block of geometry g can answer for ks. */
KeyAnswer
bs_key_answer(BsKeyState *ks, const BsGeom *g)
{
	if (g->flags & BS_HEAD_UNSLICED)
		return KA_RECHECK;
	if (ks->strategy == BS_STRAT_KEY)
	{
		/* a key Spark does not hash: the table raises the error */
		if (g->layout == BF_LAYOUT_SPARK && !bloom_spark_key_ok(&ks->kt))
			return KA_RECHECK;
		if (g->family == BF_FAMILY_NONE)
			return KA_NONE;		/* holds no key: every probe is false */
		/* a filter read from Spark holds any key Spark hashes */
		if (g->layout == BF_LAYOUT_SPARK && g->family == BF_FAMILY_SPARK)
			return KA_SLICES;
		if (g->family != ks->kt.family || g->type_tag != ks->kt.type_tag)
			return KA_RECHECK;	/* the table raises the family error */
		return KA_SLICES;
	}
	if (ks->too_dense || !geom_compatible(g, &ks->q) || !superset_positions(ks, g))
		return KA_RECHECK;
	return KA_SLICES;
}

/*
 * The slice positions the keys read in a block of geometry g, unsorted,
 * into pos (room for every key's); clears mask when a key says no filter
 * of g matches, and sets *recheck when one cannot answer from the bits.
 * Superset keys of filters larger than q (shift > 0) are read apart.
 */
int64
bs_gather_positions(BsKeyState *keys, int nkeys, const BsGeom *g, MemoryContext hashcxt,
					uint64 *pos, bfsl_mask *mask, bool *recheck)
{
	int64		npos = 0;

	for (int i = 0; i < nkeys; i++)
	{
		BsKeyState   *ks = &keys[i];

		switch (bs_key_answer(ks, g))
		{
			case KA_NONE:
				memset(mask, 0, sizeof(*mask));
				continue;
			case KA_RECHECK:
				*recheck = true;
				continue;
			case KA_SLICES:
				break;
		}
		if (ks->strategy == BS_STRAT_KEY && g->layout == BF_LAYOUT_PARQUET)
		{
			/* the one encoding the key has in the group's physical type */
			uint64		hash;

			switch (bloom_parquet_index_hash(g->param, g->family, &ks->kt,
											 ks->value, &hash))
			{
				case 0:
					memset(mask, 0, sizeof(*mask));
					continue;
				case 1:
					bf_positions(g->layout, g->nbits, g->hashes, hash, pos + npos);
					npos += g->hashes;
					continue;
				default:
					*recheck = true;
					continue;
			}
		}
		if (ks->strategy == BS_STRAT_KEY)
		{
			uint64		hash = bloom_index_layout_hash(&ks->lh, &ks->kt, ks->value,
													   g->layout, g->seed, hashcxt);

			/* spark: the positions of the group's version */
			bf_positions(g->layout == BF_LAYOUT_SPARK ?
						 BF_LAYOUT_SPARK | (int) (g->param << 8) : g->layout,
						 g->nbits, g->hashes, hash, pos + npos);
			npos += g->hashes;
		}
		else if (ks->shift == 0)
		{
			memcpy(pos + npos, ks->pos, ks->npos * sizeof(uint64));
			npos += ks->npos;
		}
	}
	return npos;
}

/* Is the pending filter v (of item flags) a candidate?  *recheck if so. */
bool
bs_pending_match(BsKeyState *keys, int nkeys, const bf_view *v, MemoryContext hashcxt,
				 bool *recheck)
{
	for (int i = 0; i < nkeys; i++)
	{
		BsKeyState   *ks = &keys[i];
		BsGeom		g;

		bs_geom_of(v, INT_MAX, &g);
		switch (bs_key_answer(ks, &g))
		{
			case KA_NONE:
				return false;
			case KA_RECHECK:
				*recheck = true;
				continue;
			case KA_SLICES:
				break;
		}
		if (ks->strategy == BS_STRAT_KEY && v->layout == BF_LAYOUT_PARQUET)
		{
			uint64		hash;

			switch (bloom_parquet_index_hash(v->param, v->family, &ks->kt,
											 ks->value, &hash))
			{
				case 0:
					return false;
				case 1:
					if (!bf_probe_hash(v, hash))
						return false;
					break;
				default:
					*recheck = true;
					break;
			}
		}
		else if (ks->strategy == BS_STRAT_KEY)
		{
			if (!bf_probe_hash(v, bloom_index_layout_hash(&ks->lh, &ks->kt, ks->value,
														  v->layout, v->seed, hashcxt)))
				return false;
		}
		else
		{
			for (int64 j = 0; j < ks->npos; j++)
			{
				bool		any = false;

				for (uint64 f = 0; f < (UINT64CONST(1) << ks->shift) && !any; f++)
				{
					uint64		b = bfsl_fold_slice(v->layout, ks->pos[j], ks->shift, f);

					any = (v->bits[b >> 3] >> (b & 7)) & 1;
				}
				if (!any)
					return false;
			}
		}
	}
	return true;
}
