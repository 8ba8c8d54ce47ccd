/*
 * index/gist/bf_gist.c
 *		GiST operator class for bloomfilter columns: "which stored filters
 *		may contain key x" (col @> x) and "which stored filters are supersets
 *		of filter q" (col @>> q).
 *
 * This file searches the tree: a scan's query state, the consistent
 * function, and gbloom_contains; the keys and the building of the tree are
 * in index/gist/bf_gist_keys.c, with how a filter's bits map onto a signature.
 *
 * Results equal a sequential scan's.  Leaf entries hold the filter itself
 * when its bit array is no larger than the signature, and the leaf test is
 * then the real probe or superset test, exact (no recheck).  A larger
 * filter is stored as its signature and its matches are rechecked on the
 * table.  An inner key answers "no" only when no filter below can match:
 * for a probe, when some bit the key asks for is clear; for a superset
 * test of q, when some bit of q cannot be covered (see superset_req).  And
 * a sequential scan raises an ERROR for a filter of another key family (or
 * one q cannot be compared with); so that the index raises it too, an
 * inner key never prunes a subtree that could hold such a filter: it
 * records the key family and the size class (odd part of m) of its
 * filters, or MIXED.
 *
 * Queries.  The executor gives a GiST consistent function the query datum
 * but not its type, and `@>`(bloomfilter, anyelement) is polymorphic.  So
 * that operator is not in the operator class; the planner support function
 * of bloom_contains (type/bf_planner.c) rewrites `col @> x` into
 * `col @> gbloom_key(x)`, whose right side boxes the value with its type
 * (text keys too: `@>`(bloomfilter, text) is not in the operator class).
 * The operator class holds that operator (strategy 1) and `@>>`
 * (strategy 3).
 */
#include "engines/bf_engines.h"
#include "index/gist/bf_gist_index.h"

#include "access/gist.h"
#include "access/stratnum.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gbloom_contains);
PG_FUNCTION_INFO_V1(gbloom_consistent);

static inline bool
get_bit(const uint8 *sig, uint64 bit)
{
	return (sig[bit >> 3] >> (bit & 7)) & 1;
}

/* Bits of b not in a (zero: b is a subset of a). */
static int
sig_added(const uint8 *a, const uint8 *b, int siglen)
{
	int			n = 0;

	for (int i = 0; i < siglen; i += 8)
		n += bf_popcount64(load64(b + i) & ~load64(a + i));
	return n;
}

/* ---- the query state of a scan (or of a gbloom_contains call site) ---- */

#define GBLOOM_NCACHE 8

/* What a superset query needs of a signature (see superset_req). */
typedef struct GBloomRange
{
	uint32		lo;
	uint32		hi;
	uint8		mask[BF_BLOCK_BYTES];	/* blocked, parquet: q's bits; else
										 * unused */
} GBloomRange;

typedef struct GBloomQuery
{
	/*
	 * Memory.  The state lives as long as the call site (GiST keeps fn_extra
	 * across rescans, and a nested loop rescans once per outer row with a
	 * new key), so nothing built for one query may be left behind when the
	 * next arrives: a per-rescan leak grows without bound.  Everything built
	 * for one query datum goes in qcxt, reset when the datum changes.  The
	 * key type (with its FmgrInfos, whose functions keep their own caches
	 * in fn_extra, allocated in the FmgrInfo's context) goes in typecxt,
	 * reset only when the type changes, so a nested loop does not look its
	 * type up again for every outer row.  Hashing runs in hashcxt, reset
	 * after each hash, so that what the hashing code allocates is never
	 * kept, whatever the caller's context is.
	 */
	MemoryContext qcxt;
	MemoryContext typecxt;
	MemoryContext hashcxt;

	/* the type of the keys, kept from query to query */
	Oid			kt_typid;		/* InvalidOid until kt is set */
	Oid			kt_collation;	/* the collation kt was built under */
	BloomKeyType kt;

	/* ---- from here on, the state of one query datum ---- */

	/* the query datum this state was built for (strategy 0: none) */
	Size		qlen;
	char	   *qbytes;
	int			strategy;

	/* key probes: the key, its hash per hashing and seed */
	Datum		value;
	BloomLayoutHashes lh;

	/* superset queries: q, and what it needs of a signature */
	struct varlena *qf;
	bf_view		qv;
	GBloomSummary qs;
	int			req_siglen;		/* 0 until superset_req ran */
	uint8	   *req_single;
	int			nranges;
	GBloomRange *ranges;
	/* q folded to the sizes of smaller filters; a buffer to fold larger ones */
	int			nfolded;
	bf_view		folded[GBLOOM_NCACHE];
	uint8	   *scratch;
} GBloomQuery;

#define GBLOOM_QUERY_PART offsetof(GBloomQuery, qlen)

/*
 * The state for a query datum, cached in fn_extra.  GiST keeps fn_extra
 * across rescans, and a runtime key (a nested loop's parameter) is often
 * rebuilt at the same address with new contents, so the cache is keyed on
 * the datum's bytes, compared in full (as pg_trgm does).  For a superset
 * query that costs no more than the exact test of one leaf.  A query that
 * is a TOAST pointer is compared as the pointer's bytes: its identity.
 * The key (the bytes) is written last, so a build that fails (an ERROR
 * for a key type, a damaged filter) leaves no state that a later call
 * with the same query would take as built.
 */
static GBloomQuery *
query_state(FunctionCallInfo fcinfo, Datum query, int strategy)
{
	GBloomQuery *q = (GBloomQuery *) fcinfo->flinfo->fn_extra;
	Pointer		ptr;
	Size		len;
	MemoryContext old;
	Oid			typid;

	/*
	 * A pointer to memory (an expanded or indirect value) would compare
	 * equal with other contents behind it: compare the value itself.
	 */
	if (VARATT_IS_EXTERNAL(DatumGetPointer(query)) &&
		!VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(query)))
		query = PointerGetDatum(PG_DETOAST_DATUM_PACKED(query));
	ptr = DatumGetPointer(query);
	len = VARSIZE_ANY(ptr);
	if (q != NULL && q->strategy == strategy && q->qlen == len &&
		memcmp(q->qbytes, ptr, len) == 0)
		return q;

	if (q == NULL)
	{
		MemoryContext fn_mcxt = fcinfo->flinfo->fn_mcxt;

		q = MemoryContextAllocZero(fn_mcxt, sizeof(GBloomQuery));
		q->qcxt = AllocSetContextCreate(fn_mcxt, "bloomfilter GiST query",
										ALLOCSET_SMALL_SIZES);
		q->typecxt = AllocSetContextCreate(fn_mcxt, "bloomfilter GiST key type",
										   ALLOCSET_SMALL_SIZES);
		q->hashcxt = AllocSetContextCreate(fn_mcxt, "bloomfilter GiST hashing",
										   ALLOCSET_SMALL_SIZES);
		fcinfo->flinfo->fn_extra = q;
	}
	else
	{
		/*
		 * A new query (a nested loop may bring millions): all of the old
		 * one's goes.  The state is empty (strategy 0) until the new one is
		 * complete, so that an error half-way leaves nothing to match.
		 */
		MemoryContextReset(q->qcxt);
		memset((char *) q + GBLOOM_QUERY_PART, 0,
			   sizeof(GBloomQuery) - GBLOOM_QUERY_PART);
	}

	old = MemoryContextSwitchTo(q->qcxt);
	if (strategy == GBLOOM_STRAT_SUPERSET)
	{
		q->qf = PG_DETOAST_DATUM_COPY(query);
		bloomfilter_view(q->qf, &q->qv);
		gbloom_summary_of_view(&q->qv, &q->qs);
	}
	else
	{
		BloomIndexQueryKey key;

		bloom_index_unbox(query, &key);
		q->value = key.value;
		typid = key.typid;

		/*
		 * Records, and arrays of records, are looked at per value: the row
		 * type (and so the key family) comes from the value itself.
		 */
		if (typid != q->kt_typid || bloom_index_key_per_value(typid) ||
			PG_GET_COLLATION() != q->kt_collation)
		{
			q->kt_typid = InvalidOid;
			MemoryContextReset(q->typecxt);
			MemoryContextSwitchTo(q->typecxt);
			bloom_index_key_type(&q->kt, typid, q->value, PG_GET_COLLATION(),
								 q->typecxt);
			MemoryContextSwitchTo(q->qcxt);
			q->kt_typid = typid;
			q->kt_collation = PG_GET_COLLATION();
		}
	}
	q->qbytes = palloc(len);
	memcpy(q->qbytes, ptr, len);
	q->strategy = strategy;
	q->qlen = len;
	MemoryContextSwitchTo(old);
	return q;
}

/* The key's hash for a layout and seed (a few seeds are remembered). */
static uint64
query_hash(GBloomQuery *q, int layout, uint64 seed)
{
	return bloom_index_layout_hash(&q->lh, &q->kt, q->value, layout, seed,
								   q->hashcxt);
}

typedef struct ReqBuild
{
	GBloomQuery *q;
	int			cap;			/* ranges allocated */
} ReqBuild;

/* One span of gbloom_sig_spans: into req_single, or a range of its own */
static void
req_span(uint64 lo64, uint64 hi64, const uint8 *blk, int bblk, void *arg)
{
	ReqBuild   *rb = (ReqBuild *) arg;
	GBloomQuery *q = rb->q;
	uint32		lo = (uint32) lo64;
	uint32		hi = (uint32) hi64;

	if (lo == hi)
	{
		if (blk != NULL)
			sig_or(q->req_single + (Size) lo * bblk, blk, bblk);
		else
			set_bit(q->req_single, lo);
		return;
	}
	if (q->nranges > 0 && q->ranges[q->nranges - 1].lo == lo &&
		q->ranges[q->nranges - 1].hi == hi)
	{
		if (blk != NULL)
			sig_or(q->ranges[q->nranges - 1].mask, blk, bblk);
		return;
	}
	if (q->nranges == rb->cap)
	{
		rb->cap *= 2;
		q->ranges = repalloc(q->ranges, rb->cap * sizeof(GBloomRange));
	}
	q->ranges[q->nranges].lo = lo;
	q->ranges[q->nranges].hi = hi;
	if (blk != NULL)
		memcpy(q->ranges[q->nranges].mask, blk, bblk);
	q->nranges++;
}

/*
 * What q asks of the signature of any filter that is a superset of it.
 * If f ⊇ q (after folding to the smaller size), then for each bit of q the
 * signature of f has at least one bit set among the bits q's bit maps to:
 * when f is the larger, the f bits that fold onto q's bit map into that
 * range; when f is the smaller, q's bit folds onto a bit of f whose range
 * contains it.  (Blocked: per bit inside the block, over q's block range.)
 * Ranges of one bit (one block) are collected into a single mask tested at
 * once; wider ones are listed.
 */
static void
superset_req(GBloomQuery *q, int siglen)
{
	ReqBuild	rb = {q, 16};
	MemoryContext old = MemoryContextSwitchTo(q->qcxt);

	q->req_single = palloc0(siglen);
	q->ranges = palloc(rb.cap * sizeof(GBloomRange));
	q->nranges = 0;
	gbloom_sig_spans(&q->qv, siglen, req_span, &rb);
	q->req_siglen = siglen;
	MemoryContextSwitchTo(old);
}

/* Does a signature meet q's requirement (may a superset of q be below)? */
static bool
superset_sig_ok(const GBloomQuery *q, const uint8 *sig, int siglen)
{
	if (sig_added(sig, q->req_single, siglen) != 0)
		return false;
	for (int r = 0; r < q->nranges; r++)
	{
		const GBloomRange *rg = &q->ranges[r];

		if (q->qv.layout == BF_LAYOUT_BLOCKED || q->qv.layout == BF_LAYOUT_PARQUET)
		{
			int			bblk = q->qv.layout == BF_LAYOUT_BLOCKED ?
				BF_BLOCK_BYTES : BF_PARQUET_BLOCK_BYTES;
			uint8		acc[BF_BLOCK_BYTES] = {0};

			for (uint32 s = rg->lo; s <= rg->hi; s++)
				sig_or(acc, sig + (Size) s * bblk, bblk);
			if (sig_added(acc, rg->mask, bblk) != 0)
				return false;
		}
		else
		{
			bool		any = false;

			for (uint32 s = rg->lo; s <= rg->hi && !any; s++)
				any = get_bit(sig, s);
			if (!any)
				return false;
		}
	}
	return true;
}

/* ---- consistent ---- */

/*
 * May the filters summarized by a signature key contain the key?  The
 * signature of one hashing is itself a filter of S bits of that hashing
 * (filter_to_sig maps each bit exactly where a probe at size S looks), so
 * the test is the core's own probe on it.  A parquet key is hashed as the
 * one encoding it has in the filters' physical type; where it has several
 * (-0.0 and 0.0, NaN) or the table must judge, the key says "maybe".
 */
static bool
probe_sig_consistent(GBloomQuery *q, const GBloomSig *k, int siglen)
{
	bf_view		sv;
	uint64		h;

	/* keys of other hashings, or families that would raise an error: go on */
	if (k->flags & (GBK_MIXED_HASHING | GBK_MIXED_FAMILY))
		return true;
	memset(&sv, 0, sizeof(sv));
	sv.layout = k->layout;
	sv.hashes = k->hashes;
	sv.seed = k->seed;
	sv.param = k->param;
	sv.family = k->family;
	sv.type_tag = k->type_tag;
	sv.nbits = (uint64) siglen * 8;
	sv.bits = (uint8 *) k->sig;
	if (k->layout == BF_LAYOUT_PARQUET)
	{
		/* a probe the table refuses: the recheck raises the error */
		if (!bloom_parquet_can_probe(&sv, &q->kt))
			return true;
		switch (bloom_parquet_index_hash(k->param, k->family, &q->kt, q->value, &h))
		{
			case 0:
				return false;	/* no such filter can hold the key */
			case 1:
				break;
			default:
				return true;
		}
		return (k->flags & GBK_ALLTRUE) || bf_probe_hash(&sv, h);
	}
	if (k->layout == BF_LAYOUT_SPARK && !bloom_spark_key_ok(&q->kt))
		return true;			/* the table raises the error */
	if (k->family == BF_FAMILY_NONE)
		return false;			/* all empty: they contain nothing */
	/* a filter read from Spark holds any key Spark hashes */
	if (!(k->layout == BF_LAYOUT_SPARK && k->family == BF_FAMILY_SPARK) &&
		(k->family != q->kt.family || k->type_tag != q->kt.type_tag))
		return true;
	if (k->flags & GBK_ALLTRUE)
		return true;
	return bf_probe_hash(&sv, query_hash(q, k->layout, k->seed));
}

/* May a filter summarized by a signature key be a superset of q? */
static bool
superset_sig_consistent(GBloomQuery *q, const GBloomSig *k, int siglen)
{
	GBloomSummary ks;

	/* filters q cannot be compared with raise an error: go on to them */
	gbloom_summary_of_sig(k, &ks);
	if (!gbloom_same_hashing(&ks, &q->qs) ||
		gbloom_other_mismatch(&ks, &q->qs))
		return true;
	if (k->flags & GBK_ALLTRUE)
		return true;
	if (q->req_siglen != siglen)
		superset_req(q, siglen);
	return superset_sig_ok(q, k->sig, siglen);
}

/* q folded to nbits (a smaller filter's size), made once per size. */
static const bf_view *
query_folded(GBloomQuery *q, uint64 nbits)
{
	bf_view    *fv;

	for (int i = 0; i < q->nfolded; i++)
		if (q->folded[i].nbits == nbits)
			return &q->folded[i];
	if (q->nfolded == GBLOOM_NCACHE)
	{
		/* many sizes: start over */
		for (int i = 0; i < q->nfolded; i++)
			pfree(q->folded[i].bits);
		q->nfolded = 0;
	}
	fv = &q->folded[q->nfolded++];
	*fv = q->qv;
	fv->nbits = nbits;
	fv->bits = MemoryContextAllocZero(q->qcxt, nbits / 8);
	bf_fold_or(fv, &q->qv);
	return fv;
}

/*
 * The exact superset test on a filter held by a leaf key, folding the
 * larger of the two to the smaller's size as bloom_contains_filter does,
 * but into buffers kept for the scan instead of a new datum per leaf.
 */
static bool
superset_leaf(GBloomQuery *q, const void *key, bool *recheck)
{
	bf_view		lv;
	uint64		nbits;
	bf_view		sv;

	(void) gbloom_leaf_filter(key, &lv);
	if (bf_compatible(&lv, &q->qv, &nbits) != BF_COMPAT_OK)
	{
		/*
		 * A sequential scan raises an error for this filter, if its row is
		 * visible: the recheck on the table does that (the row may be dead).
		 */
		*recheck = true;
		return true;
	}
	if (lv.nbits == q->qv.nbits)
		return bf_is_superset(&lv, &q->qv);
	if (lv.nbits < q->qv.nbits)
		return bf_is_superset(&lv, query_folded(q, nbits));

	/* the leaf is larger: fold it to q's size */
	if (q->scratch == NULL)
		q->scratch = MemoryContextAlloc(q->qcxt, q->qv.nbits / 8);
	sv = lv;
	sv.nbits = nbits;
	sv.bits = q->scratch;
	memset(sv.bits, 0, nbits / 8);
	bf_fold_or(&sv, &lv);
	return bf_is_superset(&sv, &q->qv);
}

/*
 * The exact probe of a filter held by a leaf key, as bloom_contains does
 * it.  Where a sequential scan raises an error (another key family, a key
 * the layout does not take), the row goes to the table's recheck, which
 * raises it only if the row is visible.
 */
static bool
probe_leaf(GBloomQuery *q, const bf_view *v, bool *recheck)
{
	if (v->layout == BF_LAYOUT_PARQUET)
	{
		if (!bloom_parquet_can_probe(v, &q->kt))
		{
			*recheck = true;
			return true;
		}
		if (v->param == BF_PQ_UNSET)
			return false;		/* empty: contains nothing */
		/* every encoding of the key, as bloom_contains tries them */
		return bloom_parquet_probe(v, &q->kt, q->value);
	}
	if (v->layout == BF_LAYOUT_SPARK && !bloom_spark_key_ok(&q->kt))
	{
		*recheck = true;
		return true;
	}
	if (v->family == BF_FAMILY_NONE)
		return false;			/* empty: contains nothing */
	if (!(v->layout == BF_LAYOUT_SPARK && v->family == BF_FAMILY_SPARK) &&
		(v->family != q->kt.family || v->type_tag != q->kt.type_tag))
	{
		*recheck = true;
		return true;
	}
	return bf_probe_hash(v, query_hash(q, v->layout, v->seed));
}

/*
 * gbloom_consistent(entry, query, strategy, subtype, recheck).  Leaf keys
 * holding a filter are tested exactly; signature keys say "maybe", and a
 * leaf signature's "maybe" is rechecked on the table.
 */
Datum
gbloom_consistent(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	Datum		query = PG_GETARG_DATUM(1);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);
	int			siglen = GET_SIGLEN();
	void	   *key = DatumGetPointer(entry->key);
	GBloomQuery *q;
	bool		res;

	if (strategy != GBLOOM_STRAT_KEY &&
		strategy != GBLOOM_STRAT_SUPERSET)
		elog(ERROR, "unrecognized bloomfilter GiST strategy number %d", strategy);

	q = query_state(fcinfo, query, strategy);
	*recheck = false;

	if (GBK_IS_LEAF(key))
	{
		if (strategy == GBLOOM_STRAT_SUPERSET)
			res = superset_leaf(q, key, recheck);
		else
		{
			bf_view		v;

			gbloom_leaf_filter(key, &v);
			res = probe_leaf(q, &v, recheck);
		}
		PG_RETURN_BOOL(res);
	}

	gbloom_check_sig_key((GBloomSig *) key, siglen);
	if (strategy == GBLOOM_STRAT_SUPERSET)
		res = superset_sig_consistent(q, (GBloomSig *) key, siglen);
	else
		res = probe_sig_consistent(q, (GBloomSig *) key, siglen);
	if (res && GIST_LEAF(entry))
		*recheck = true;
	PG_RETURN_BOOL(res);
}

/*
 * gbloom_contains(f, gbloom_key(x)) = f @> gbloom_key(x): bloom_contains(f,
 * x), the operator of the index condition and its recheck.
 */
Datum
gbloom_contains(PG_FUNCTION_ARGS)
{
	GBloomQuery *q = query_state(fcinfo, PG_GETARG_DATUM(1), GBLOOM_STRAT_KEY);
	bf_view		v;

	bloomfilter_getarg(fcinfo, 0, &v);
	if (!bloom_check_family(&v, &q->kt))
		PG_RETURN_BOOL(false);
	/* parquet: every encoding of the key, as bloom_contains tries them */
	if (v.layout == BF_LAYOUT_PARQUET)
		PG_RETURN_BOOL(bloom_parquet_probe(&v, &q->kt, q->value));
	PG_RETURN_BOOL(bf_probe_hash(&v, query_hash(q, v.layout, v.seed)));
}
