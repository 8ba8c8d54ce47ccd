/*
 * bf_gist.c
 *		GiST operator class for bloomfilter columns: "which stored filters
 *		may contain key x" (col @> x) and "which stored filters are supersets
 *		of filter q" (col @>> q).
 *
 * The tree is a signature tree in the shape of contrib/intarray's
 * _intbig_gist.c: an inner key is a fixed-length bit signature, the OR of
 * the signatures below it (union = OR; penalty and picksplit by Hamming
 * distance), with an all-ones shortcut.
 *
 * Signatures and geometry.  A column may hold filters of any size, layout,
 * number of hashes and seed.  A filter's bits are mapped onto the S = 8 *
 * siglen bits of a signature by *position*, the way folding maps a filter
 * onto a smaller one.  Both layouts place a key with the high bits of a
 * hash (multiply-shift): in a classic filter of m bits, a key's i-th bit is
 * at floor(x_i * m / 2^64) for a 64-bit value x_i that does not depend on m.
 * Bit p of such a filter therefore stands for the interval [p/m, (p+1)/m)
 * of x_i / 2^64, and it is mapped to every signature bit whose own interval
 * meets it: bits floor(p*S/m) .. ceil((p+1)*S/m) - 1.  A probe of key x
 * asks for signature bit floor(x_i * S / 2^64), which lies in that range,
 * whatever m is.  A blocked filter is mapped the same way block by block
 * (its block is chosen by the high 32 bits of the hash; the bits inside a
 * block do not depend on the size), onto a signature of S / 512 blocks.
 * When m is a multiple of S this is exactly folding; a smaller filter
 * spreads each bit over several signature bits.  Either way the signature
 * is a filter of S bits of the same hashing, holding (at least) the keys of
 * every filter mapped into it, so an inner key is probed with the core's
 * own bf_probe_hash and nothing here repeats how positions are derived:
 * only the rule the format documents for folding is relied on.
 *
 * So the signature of every filter that hashes keys the same way (same
 * layout, k and seed: one "hashing") is comparable, whatever its size: if
 * a filter may contain x, every signature bit x asks for is set in the
 * filter's signature and so in every inner key above it.  An inner key
 * records the hashing of the filters below it; when they differ it is
 * marked MIXED_HASHING and answers "maybe" to everything.  Penalty and
 * picksplit keep hashings apart, so in a column with a few hashings only
 * the keys near the root are mixed.
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
 * of bloom_contains (bf_planner.c) rewrites `col @> x` into
 * `col @> gbloom_key(x)`, whose right side boxes the value with its type.
 * `@>`(bloomfilter, text) and `@>>` are in the operator class as they are.
 */
#include "bf_index.h"

#include "nodes/makefuncs.h"

#include <math.h>

#include "access/gist.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gbloom_contains);
PG_FUNCTION_INFO_V1(gbloomfilter_in);
PG_FUNCTION_INFO_V1(gbloomfilter_out);
PG_FUNCTION_INFO_V1(gbloom_consistent);
PG_FUNCTION_INFO_V1(gbloom_union);
PG_FUNCTION_INFO_V1(gbloom_compress);
PG_FUNCTION_INFO_V1(gbloom_decompress);
PG_FUNCTION_INFO_V1(gbloom_penalty);
PG_FUNCTION_INFO_V1(gbloom_picksplit);
PG_FUNCTION_INFO_V1(gbloom_same);
PG_FUNCTION_INFO_V1(gbloom_options);

/* bf_ops.c: the exact superset test, with folding and its errors */
extern PGDLLEXPORT Datum bloomfilter_contains_filter(PG_FUNCTION_ARGS);

/* Strategies (the operator class in the install script) */
#define GBLOOM_STRAT_KEY		1	/* @>(bloomfilter, gbloom_key) */
/* strategy 2, @>(bloomfilter, text), is no more: text keys are boxed too */
#define GBLOOM_STRAT_SUPERSET	3	/* @>>(bloomfilter, bloomfilter) */

/*
 * The signature length option.  A multiple of 64 bytes so that a blocked
 * signature is whole 512-bit blocks; at most 1920 so that a key (header +
 * signature, or leaf header + filter of up to siglen bytes of bits) fits in
 * GiST's limit of a quarter page.
 */
#define GBLOOM_SIGLEN_DEFAULT	256
#define GBLOOM_SIGLEN_MIN		64
#define GBLOOM_SIGLEN_MAX		1920

typedef struct GBloomOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			siglen;			/* signature length in bytes */
} GBloomOptions;

#define GET_SIGLEN() (PG_HAS_OPCLASS_OPTIONS() ? \
					  ((GBloomOptions *) PG_GET_OPCLASS_OPTIONS())->siglen : \
					  GBLOOM_SIGLEN_DEFAULT)

/* ---- index keys ---- */

/* Key flags */
#define GBK_LEAF			0x01	/* holds the leaf filter itself */
#define GBK_ALLTRUE			0x02	/* signature all ones; no bits stored */
#define GBK_MIXED_HASHING	0x04	/* filters below hash differently; no bits */
#define GBK_MIXED_FAMILY	0x08	/* filters below hold different key families */
#define GBK_MIXED_SIZE		0x10	/* filters below differ in size class */

#define GBK_MIXED (GBK_MIXED_HASHING | GBK_MIXED_FAMILY | GBK_MIXED_SIZE)

/*
 * A signature key (inner entries, and leaf entries of large filters).  The
 * fields describe the filters below: their hashing (layout, k, seed), key
 * family (BF_FAMILY_NONE while all are empty) and size class.
 */
typedef struct GBloomSig
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		flags;			/* GBK_* */
	uint8		layout;
	uint8		hashes;
	uint8		unused;
	uint16		family;
	uint16		unused2;
	uint32		type_tag;
	uint64		seed;
	uint64		size_odd;		/* odd part of m: sizes fold iff equal */
	uint8		sig[FLEXIBLE_ARRAY_MEMBER]; /* siglen bytes, or none */
} GBloomSig;

#define GBK_SIG_HDRSZ	offsetof(GBloomSig, sig)

/*
 * A leaf key holding the filter: 8 bytes (varlena header, flags, padding)
 * then a complete bloomfilter datum, usable as one.
 */
#define GBK_LEAF_HDRSZ	8

#define GBK_FLAGS(k)		(((const uint8 *) (k))[VARHDRSZ])
#define GBK_IS_LEAF(k)		((GBK_FLAGS(k) & GBK_LEAF) != 0)
#define GBK_LEAF_FILTER(k)	((struct varlena *) ((char *) (k) + GBK_LEAF_HDRSZ))

/*
 * A filter, or a set of filters, as seen by union, penalty and picksplit:
 * the descriptor of a signature key and the signature bits, materialized
 * (all ones for ALLTRUE; NULL when the hashing is mixed).
 */
typedef struct GBloomSummary
{
	uint8		flags;			/* GBK_ALLTRUE and GBK_MIXED_* only */
	uint8		layout;
	uint8		hashes;
	uint16		family;
	uint32		type_tag;
	uint64		seed;
	uint64		size_odd;
	uint8	   *sig;			/* siglen bytes, or NULL */
} GBloomSummary;

static inline uint64
odd_part(uint64 n)
{
	return n >> __builtin_ctzll(n);
}

static inline uint64
load64(const uint8 *p)
{
	uint64		w;

	memcpy(&w, p, 8);
	return w;
}

static inline void
store64(uint8 *p, uint64 w)
{
	memcpy(p, &w, 8);
}

static inline void
set_bit(uint8 *sig, uint64 bit)
{
	sig[bit >> 3] |= (uint8) (1u << (bit & 7));
}

static inline bool
get_bit(const uint8 *sig, uint64 bit)
{
	return (sig[bit >> 3] >> (bit & 7)) & 1;
}

static bool
sig_all_ones(const uint8 *sig, int siglen)
{
	for (int i = 0; i < siglen; i += 8)
		if (load64(sig + i) != ~UINT64CONST(0))
			return false;
	return true;
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

static int
sig_hamming(const uint8 *a, const uint8 *b, int siglen)
{
	int			n = 0;

	for (int i = 0; i < siglen; i += 8)
		n += bf_popcount64(load64(a + i) ^ load64(b + i));
	return n;
}

static void
sig_or(uint8 *dst, const uint8 *src, int siglen)
{
	for (int i = 0; i < siglen; i += 8)
		store64(dst + i, load64(dst + i) | load64(src + i));
}

/*
 * Maps a filter's bits onto a signature (see the file header): classic bit
 * p to signature bits floor(p*S/m) .. ceil((p+1)*S/m) - 1, blocked block b
 * of n to signature blocks floor(b*B/n) .. ceil((b+1)*B/n) - 1, its 512
 * bits ORed into each.  p*S stays below 2^48 (m < 2^33, S < 2^14).
 */
static void
filter_to_sig(const bf_view *v, uint8 *sig, int siglen)
{
	uint64		sbits = (uint64) siglen * 8;

	memset(sig, 0, siglen);
	if (v->layout == BF_LAYOUT_BLOCKED)
	{
		uint64		nb = v->nbits / BF_BLOCK_BITS;
		uint64		sb = sbits / BF_BLOCK_BITS;

		for (uint64 b = 0; b < nb; b++)
		{
			const uint8 *blk = v->bits + b * BF_BLOCK_BYTES;
			uint64		any = 0;

			for (int i = 0; i < BF_BLOCK_BYTES; i += 8)
				any |= load64(blk + i);
			if (any == 0)
				continue;
			for (uint64 s = b * sb / nb; s <= ((b + 1) * sb - 1) / nb; s++)
			{
				uint8	   *dst = sig + s * BF_BLOCK_BYTES;

				for (int i = 0; i < BF_BLOCK_BYTES; i += 8)
					store64(dst + i, load64(dst + i) | load64(blk + i));
			}
		}
	}
	else if (v->nbits == sbits)
		memcpy(sig, v->bits, siglen);
	else
	{
		uint64		m = v->nbits;

		for (uint64 w = 0; w < m / 64; w++)
		{
			uint64		word = BF_BSWAP64(load64(v->bits + w * 8));

			while (word)
			{
				uint64		p = w * 64 + (uint64) __builtin_ctzll(word);
				uint64		hi = ((p + 1) * sbits - 1) / m;

				for (uint64 s = p * sbits / m; s <= hi; s++)
					set_bit(sig, s);
				word &= word - 1;
			}
		}
	}
}

/* The descriptor of one filter. */
static void
summary_of_view(const bf_view *v, GBloomSummary *s)
{
	s->flags = 0;
	s->layout = v->layout;
	s->hashes = v->hashes;
	s->family = v->family;
	s->type_tag = v->type_tag;
	s->seed = v->seed;
	s->size_odd = odd_part(v->nbits);
}

static void
check_sig_key(const GBloomSig *k, int siglen)
{
	Size		len = VARSIZE(k);
	bool		nobits = (k->flags & (GBK_ALLTRUE | GBK_MIXED_HASHING)) != 0;

	if (len != GBK_SIG_HDRSZ + (nobits ? 0 : (Size) siglen) ||
		(!(k->flags & GBK_MIXED_HASHING) &&
		 bf_check_geometry(k->layout, k->hashes,
						   k->layout == BF_LAYOUT_BLOCKED ? BF_BLOCK_BITS : 64) != BF_OK))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("bloomfilter GiST signature key is damaged"),
				 errdetail("The key has %zu bytes, layout %u and %u hashes; the index's signatures have %d bytes.",
						   len, (unsigned) k->layout, (unsigned) k->hashes, siglen),
				 errhint("REINDEX the index.")));
}

/* The filter held by a leaf key, checked and decoded. */
static struct varlena *
leaf_filter(const void *key, bf_view *v)
{
	struct varlena *f = GBK_LEAF_FILTER(key);

	if (VARSIZE(key) < GBK_LEAF_HDRSZ + VARHDRSZ ||
		VARSIZE(f) != VARSIZE(key) - GBK_LEAF_HDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("bloomfilter GiST leaf key is damaged"),
				 errhint("REINDEX the index.")));
	bloomfilter_view(f, v);
	return f;
}

/*
 * The summary of any key.  The signature is written into buf (siglen
 * bytes) when it must be computed or materialized, else it points into the
 * key itself (read-only).
 */
static void
summarize(const void *key, int siglen, GBloomSummary *s, uint8 *buf)
{
	if (GBK_IS_LEAF(key))
	{
		bf_view		v;

		leaf_filter(key, &v);
		summary_of_view(&v, s);
		filter_to_sig(&v, buf, siglen);
		s->sig = buf;
		return;
	}
	else
	{
		const GBloomSig *k = (const GBloomSig *) key;

		check_sig_key(k, siglen);
		s->flags = k->flags & (GBK_ALLTRUE | GBK_MIXED);
		s->layout = k->layout;
		s->hashes = k->hashes;
		s->family = k->family;
		s->type_tag = k->type_tag;
		s->seed = k->seed;
		s->size_odd = k->size_odd;
		if (k->flags & GBK_MIXED_HASHING)
			s->sig = NULL;
		else if (k->flags & GBK_ALLTRUE)
		{
			memset(buf, 0xff, siglen);
			s->sig = buf;
		}
		else
			s->sig = (uint8 *) k->sig;
	}
}

static bool
same_hashing(const GBloomSummary *a, const GBloomSummary *b)
{
	return !((a->flags | b->flags) & GBK_MIXED_HASHING) &&
		a->layout == b->layout && a->hashes == b->hashes && a->seed == b->seed;
}

/* Would a and b disagree on family or size (a reason for a seq-scan error)? */
static bool
other_mismatch(const GBloomSummary *a, const GBloomSummary *b)
{
	if ((a->flags | b->flags) & (GBK_MIXED_FAMILY | GBK_MIXED_SIZE))
		return true;
	if (a->size_odd != b->size_odd)
		return true;
	return a->family != BF_FAMILY_NONE && b->family != BF_FAMILY_NONE &&
		(a->family != b->family || a->type_tag != b->type_tag);
}

/*
 * acc |= s: descriptors merged, signatures ORed (acc->sig must be a
 * writable siglen buffer unless the hashing is or becomes mixed).
 */
static void
summary_merge(GBloomSummary *acc, const GBloomSummary *s, int siglen)
{
	if (!same_hashing(acc, s))
	{
		acc->flags |= GBK_MIXED_HASHING;
		acc->sig = NULL;
	}
	acc->flags |= s->flags & (GBK_MIXED_FAMILY | GBK_MIXED_SIZE);
	if (acc->size_odd != s->size_odd)
		acc->flags |= GBK_MIXED_SIZE;
	if (acc->family == BF_FAMILY_NONE)
	{
		acc->family = s->family;
		acc->type_tag = s->type_tag;
	}
	else if (s->family != BF_FAMILY_NONE &&
			 (acc->family != s->family || acc->type_tag != s->type_tag))
		acc->flags |= GBK_MIXED_FAMILY;
	if (acc->sig != NULL)
		sig_or(acc->sig, s->sig, siglen);
}

/* A signature key for a summary; all ones becomes ALLTRUE. */
static GBloomSig *
make_sig_key(const GBloomSummary *s, int siglen)
{
	uint8		flags = s->flags & GBK_MIXED;
	bool		nobits;
	GBloomSig  *k;

	if (!(flags & GBK_MIXED_HASHING) && sig_all_ones(s->sig, siglen))
		flags |= GBK_ALLTRUE;
	nobits = (flags & (GBK_ALLTRUE | GBK_MIXED_HASHING)) != 0;
	k = palloc0(GBK_SIG_HDRSZ + (nobits ? 0 : siglen));
	SET_VARSIZE(k, GBK_SIG_HDRSZ + (nobits ? 0 : siglen));
	k->flags = flags;
	k->layout = s->layout;
	k->hashes = s->hashes;
	k->family = s->family;
	k->type_tag = s->type_tag;
	k->seed = s->seed;
	k->size_odd = s->size_odd;
	if (!nobits)
		memcpy(k->sig, s->sig, siglen);
	return k;
}

/* ---- the query state of a scan (or of a gbloom_contains call site) ---- */

#define GBLOOM_NCACHE 8

/* What a superset query needs of a signature (see superset_req). */
typedef struct GBloomRange
{
	uint32		lo;
	uint32		hi;
	uint8		mask[BF_BLOCK_BYTES];	/* blocked: q's bits; classic: unused */
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

	/* key probes: the key, its hash per seed */
	Datum		value;
	int			nseeds;
	uint64		seeds[GBLOOM_NCACHE];
	uint64		hashes[GBLOOM_NCACHE];

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
	q->qbytes = palloc(len);
	memcpy(q->qbytes, ptr, len);

	if (strategy == GBLOOM_STRAT_SUPERSET)
	{
		q->qf = PG_DETOAST_DATUM_COPY(query);
		bloomfilter_view(q->qf, &q->qv);
		summary_of_view(&q->qv, &q->qs);
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
	q->qlen = len;
	q->strategy = strategy;
	return q;
}

/* The key's hash under a seed (a few seeds are remembered). */
static uint64
query_hash(GBloomQuery *q, uint64 seed)
{
	MemoryContext old;
	uint64		h;
	int			slot;

	for (int i = 0; i < q->nseeds; i++)
		if (q->seeds[i] == seed)
			return q->hashes[i];
	old = MemoryContextSwitchTo(q->hashcxt);
	h = bloom_hash_value(&q->kt, q->value, seed);
	MemoryContextSwitchTo(old);
	MemoryContextReset(q->hashcxt);
	slot = q->nseeds < GBLOOM_NCACHE ? q->nseeds++ : (int) (seed % GBLOOM_NCACHE);
	q->seeds[slot] = seed;
	q->hashes[slot] = h;
	return h;
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
	uint64		sbits = (uint64) siglen * 8;
	const bf_view *v = &q->qv;
	int			cap = 16;
	MemoryContext old = MemoryContextSwitchTo(q->qcxt);

	q->req_single = palloc0(siglen);
	q->ranges = palloc(cap * sizeof(GBloomRange));
	q->nranges = 0;

	if (v->layout == BF_LAYOUT_BLOCKED)
	{
		uint64		nb = v->nbits / BF_BLOCK_BITS;
		uint64		sb = sbits / BF_BLOCK_BITS;

		for (uint64 b = 0; b < nb; b++)
		{
			const uint8 *blk = v->bits + b * BF_BLOCK_BYTES;
			uint64		any = 0;
			uint32		lo = (uint32) (b * sb / nb);
			uint32		hi = (uint32) (((b + 1) * sb - 1) / nb);

			for (int i = 0; i < BF_BLOCK_BYTES; i += 8)
				any |= load64(blk + i);
			if (any == 0)
				continue;
			if (lo == hi)
			{
				sig_or(q->req_single + (Size) lo * BF_BLOCK_BYTES, blk, BF_BLOCK_BYTES);
				continue;
			}
			if (q->nranges > 0 && q->ranges[q->nranges - 1].lo == lo &&
				q->ranges[q->nranges - 1].hi == hi)
			{
				sig_or(q->ranges[q->nranges - 1].mask, blk, BF_BLOCK_BYTES);
				continue;
			}
			if (q->nranges == cap)
			{
				cap *= 2;
				q->ranges = repalloc(q->ranges, cap * sizeof(GBloomRange));
			}
			q->ranges[q->nranges].lo = lo;
			q->ranges[q->nranges].hi = hi;
			memcpy(q->ranges[q->nranges].mask, blk, BF_BLOCK_BYTES);
			q->nranges++;
		}
	}
	else
	{
		uint64		m = v->nbits;

		for (uint64 w = 0; w < m / 64; w++)
		{
			uint64		word = BF_BSWAP64(load64(v->bits + w * 8));

			while (word)
			{
				uint64		p = w * 64 + (uint64) __builtin_ctzll(word);
				uint32		lo = (uint32) (p * sbits / m);
				uint32		hi = (uint32) (((p + 1) * sbits - 1) / m);

				word &= word - 1;
				if (lo == hi)
				{
					set_bit(q->req_single, lo);
					continue;
				}
				if (q->nranges > 0 && q->ranges[q->nranges - 1].lo == lo &&
					q->ranges[q->nranges - 1].hi == hi)
					continue;
				if (q->nranges == cap)
				{
					cap *= 2;
					q->ranges = repalloc(q->ranges, cap * sizeof(GBloomRange));
				}
				q->ranges[q->nranges].lo = lo;
				q->ranges[q->nranges].hi = hi;
				q->nranges++;
			}
		}
	}
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

		if (q->qv.layout == BF_LAYOUT_BLOCKED)
		{
			uint8		acc[BF_BLOCK_BYTES] = {0};

			for (uint32 s = rg->lo; s <= rg->hi; s++)
				sig_or(acc, sig + (Size) s * BF_BLOCK_BYTES, BF_BLOCK_BYTES);
			if (sig_added(acc, rg->mask, BF_BLOCK_BYTES) != 0)
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
 * the test is the core's own probe on it.
 */
static bool
probe_sig_consistent(GBloomQuery *q, const GBloomSig *k, int siglen)
{
	bf_view		sv;

	/* keys of other hashings, or families that would raise an error: go on */
	if (k->flags & (GBK_MIXED_HASHING | GBK_MIXED_FAMILY))
		return true;
	if (k->family == BF_FAMILY_NONE)
		return false;			/* all empty: they contain nothing */
	if (k->family != q->kt.family || k->type_tag != q->kt.type_tag)
		return true;
	if (k->flags & GBK_ALLTRUE)
		return true;
	memset(&sv, 0, sizeof(sv));
	sv.layout = k->layout;
	sv.hashes = k->hashes;
	sv.seed = k->seed;
	sv.nbits = (uint64) siglen * 8;
	sv.bits = (uint8 *) k->sig;
	return bf_probe_hash(&sv, query_hash(q, k->seed));
}

/* May a filter summarized by a signature key be a superset of q? */
static bool
superset_sig_consistent(GBloomQuery *q, const GBloomSig *k, int siglen)
{
	GBloomSummary ks;

	/* filters q cannot be compared with raise an error: go on to them */
	ks.flags = k->flags;
	ks.layout = k->layout;
	ks.hashes = k->hashes;
	ks.seed = k->seed;
	ks.family = k->family;
	ks.type_tag = k->type_tag;
	ks.size_odd = k->size_odd;
	if (!same_hashing(&ks, &q->qs) || other_mismatch(&ks, &q->qs))
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
superset_leaf(GBloomQuery *q, const void *key)
{
	bf_view		lv;
	struct varlena *lf = leaf_filter(key, &lv);
	uint64		nbits;
	bf_view		sv;

	if (bf_compatible(&lv, &q->qv, &nbits) != BF_COMPAT_OK)
	{
		/* the error a sequential scan would raise, with its details */
		return DatumGetBool(DirectFunctionCall2(bloomfilter_contains_filter,
												PointerGetDatum(lf),
												PointerGetDatum(q->qf)));
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
			res = superset_leaf(q, key);
		else
		{
			bf_view		v;

			leaf_filter(key, &v);
			res = bloom_check_family(&v, &q->kt) &&
				bf_probe_hash(&v, query_hash(q, v.seed));
		}
		PG_RETURN_BOOL(res);
	}

	check_sig_key((GBloomSig *) key, siglen);
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
	PG_RETURN_BOOL(bf_probe_hash(&v, query_hash(q, v.seed)));
}

/* ---- compress, decompress, union, same ---- */

/*
 * A new leaf: the filter itself when its bit array is no larger than a
 * signature (exact tests, no recheck), else its signature.
 */
Datum
gbloom_compress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	int			siglen = GET_SIGLEN();
	GISTENTRY  *retval;
	struct varlena *f;
	bf_view		v;
	Pointer		key;

	if (!entry->leafkey)
		PG_RETURN_POINTER(entry);

	f = PG_DETOAST_DATUM(entry->key);
	bloomfilter_view(f, &v);
	if (v.nbits / 8 <= (uint64) siglen)
	{
		key = palloc0(GBK_LEAF_HDRSZ + VARSIZE(f));
		SET_VARSIZE(key, GBK_LEAF_HDRSZ + VARSIZE(f));
		((uint8 *) key)[VARHDRSZ] = GBK_LEAF;
		memcpy(key + GBK_LEAF_HDRSZ, f, VARSIZE(f));
	}
	else
	{
		GBloomSummary s;

		summary_of_view(&v, &s);
		s.sig = palloc(siglen);
		filter_to_sig(&v, s.sig, siglen);
		key = (Pointer) make_sig_key(&s, siglen);
	}

	retval = (GISTENTRY *) palloc(sizeof(GISTENTRY));
	gistentryinit(*retval, PointerGetDatum(key), entry->rel, entry->page,
				  entry->offset, false);
	PG_RETURN_POINTER(retval);
}

Datum
gbloom_decompress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	struct varlena *key = PG_DETOAST_DATUM(entry->key);

	/* keys are stored plain; a detoasted copy would be a surprise */
	if (key != (struct varlena *) DatumGetPointer(entry->key))
	{
		GISTENTRY  *retval = (GISTENTRY *) palloc(sizeof(GISTENTRY));

		gistentryinit(*retval, PointerGetDatum(key), entry->rel, entry->page,
					  entry->offset, false);
		PG_RETURN_POINTER(retval);
	}
	PG_RETURN_POINTER(entry);
}

/* The OR of the entries' signatures, with their descriptors merged. */
Datum
gbloom_union(PG_FUNCTION_ARGS)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	int		   *size = (int *) PG_GETARG_POINTER(1);
	int			siglen = GET_SIGLEN();
	uint8	   *acc = palloc(siglen);
	uint8	   *buf = palloc(siglen);
	GBloomSummary u;
	GBloomSig  *res;

	summarize(DatumGetPointer(entryvec->vector[0].key), siglen, &u, buf);
	if (u.sig != NULL)
	{
		memcpy(acc, u.sig, siglen);
		u.sig = acc;
	}
	for (int i = 1; i < entryvec->n; i++)
	{
		GBloomSummary s;

		summarize(DatumGetPointer(entryvec->vector[i].key), siglen, &s, buf);
		summary_merge(&u, &s, siglen);
	}
	res = make_sig_key(&u, siglen);
	*size = VARSIZE(res);
	PG_RETURN_POINTER(res);
}

Datum
gbloom_same(PG_FUNCTION_ARGS)
{
	Pointer		a = PG_GETARG_POINTER(0);
	Pointer		b = PG_GETARG_POINTER(1);
	bool	   *result = (bool *) PG_GETARG_POINTER(2);

	*result = VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0;
	PG_RETURN_POINTER(result);
}

/* ---- penalty and picksplit ---- */

/*
 * Distance between two entries or sets of entries: the Hamming distance of
 * their signatures, as _intbig_gist.c uses for both penalty and picksplit.
 * (The bits one would add to the other alone would steer every insert to
 * the fullest subtree, all-ones ones first, and leave the other half of
 * each split a third full.)  Another hashing is farther than any bit count,
 * and another key family or size class (which blocks pruning of the whole
 * subtree) costs a signature's worth, so such filters are kept apart.
 */
static double
distance(const GBloomSummary *a, const GBloomSummary *b, int siglen)
{
	double		sbits = (double) siglen * 8;

	if (!same_hashing(a, b))
		return 3 * sbits;
	return (double) sig_hamming(a->sig, b->sig, siglen) +
		(other_mismatch(a, b) ? sbits : 0.0);
}

/*
 * Penalty of adding the new entry under the original one.  GiST calls it
 * for every entry of each page on the way down with the same new entry;
 * its summary (a signature computed from a filter) is kept in fn_extra.
 */
typedef struct GBloomPenaltyCache
{
	Size		len;
	char	   *bytes;
	GBloomSummary s;
	uint8	   *sig;
	int			siglen;
} GBloomPenaltyCache;

Datum
gbloom_penalty(PG_FUNCTION_ARGS)
{
	GISTENTRY  *origentry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *newentry = (GISTENTRY *) PG_GETARG_POINTER(1);
	float	   *penalty = (float *) PG_GETARG_POINTER(2);
	int			siglen = GET_SIGLEN();
	Pointer		newkey = DatumGetPointer(newentry->key);
	Size		newlen = VARSIZE(newkey);
	GBloomPenaltyCache *c = (GBloomPenaltyCache *) fcinfo->flinfo->fn_extra;
	GBloomSummary os;
	uint8	   *obuf = palloc(siglen);

	if (c == NULL || c->siglen != siglen || c->len != newlen ||
		memcmp(c->bytes, newkey, newlen) != 0)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (c == NULL)
			c = palloc0(sizeof(GBloomPenaltyCache));
		else
		{
			if (c->bytes != NULL)
				pfree(c->bytes);
			if (c->sig != NULL)
				pfree(c->sig);
			c->bytes = NULL;
			c->sig = NULL;
		}
		/* not a match for anything until it is complete */
		c->len = 0;
		c->siglen = 0;
		fcinfo->flinfo->fn_extra = c;
		c->bytes = palloc(newlen);
		memcpy(c->bytes, newkey, newlen);
		c->sig = palloc(siglen);
		summarize(c->bytes, siglen, &c->s, c->sig);
		if (c->s.sig != NULL && c->s.sig != c->sig)
		{
			/* it pointed into the key: keep our own copy */
			memcpy(c->sig, c->s.sig, siglen);
			c->s.sig = c->sig;
		}
		c->siglen = siglen;
		c->len = newlen;
		MemoryContextSwitchTo(old);
	}

	summarize(DatumGetPointer(origentry->key), siglen, &os, obuf);
	*penalty = (float) distance(&os, &c->s, siglen);
	pfree(obuf);
	PG_RETURN_POINTER(penalty);
}

typedef struct GBloomSplitCost
{
	OffsetNumber pos;
	double		cost;
} GBloomSplitCost;

static int
compare_split_cost(const void *a, const void *b)
{
	double		ca = ((const GBloomSplitCost *) a)->cost;
	double		cb = ((const GBloomSplitCost *) b)->cost;

	return ca > cb ? -1 : (ca < cb ? 1 : 0);
}

/* Starts a side of the split from its seed. */
static void
split_side_init(GBloomSummary *side, const GBloomSummary *seed, uint8 *buf,
				int siglen)
{
	*side = *seed;
	if (seed->sig != NULL)
	{
		memcpy(buf, seed->sig, siglen);
		side->sig = buf;
	}
}

/*
 * Splits a page in two: the two entries farthest apart seed the halves;
 * the others, most decided first, go to the nearer half (its union so
 * far).  Entries of another hashing never share a half when the other half
 * fits them.  Otherwise each half gets at least a third of the entries,
 * and at least two when there are four or more: a one-entry half, repeated
 * on inner pages that hold only a few large keys, builds chains of
 * one-entry pages.
 */
Datum
gbloom_picksplit(PG_FUNCTION_ARGS)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *v = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	int			siglen = GET_SIGLEN();
	OffsetNumber maxoff = entryvec->n - 1;
	int			n = maxoff;		/* entries are 1 .. maxoff */
	GBloomSummary *s = palloc((n + 1) * sizeof(GBloomSummary));
	uint8	   *bufs = palloc((Size) (n + 1) * siglen);
	GBloomSplitCost *order = palloc(n * sizeof(GBloomSplitCost));
	OffsetNumber seed_l = 0,
				seed_r = 0;
	double		worst = -1;
	GBloomSummary left,
				right;
	uint8	   *lbuf = palloc(siglen);
	uint8	   *rbuf = palloc(siglen);
	OffsetNumber *lpos,
			   *rpos;
	int			min_side = n < 4 ? 1 : Max(2, n / 3);

	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i++)
		summarize(DatumGetPointer(entryvec->vector[i].key), siglen, &s[i],
				  bufs + (Size) i * siglen);

	for (OffsetNumber i = FirstOffsetNumber; i < maxoff; i++)
		for (OffsetNumber j = i + 1; j <= maxoff; j++)
		{
			double		d = distance(&s[i], &s[j], siglen);

			if (d > worst)
			{
				worst = d;
				seed_l = i;
				seed_r = j;
			}
		}
	if (seed_l == 0)
	{
		seed_l = 1;
		seed_r = 2;
	}

	split_side_init(&left, &s[seed_l], lbuf, siglen);
	split_side_init(&right, &s[seed_r], rbuf, siglen);

	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i++)
	{
		order[i - 1].pos = i;
		order[i - 1].cost = fabs(distance(&left, &s[i], siglen) -
								 distance(&right, &s[i], siglen));
	}
	qsort(order, n, sizeof(GBloomSplitCost), compare_split_cost);

	v->spl_left = lpos = palloc((n + 1) * sizeof(OffsetNumber));
	v->spl_right = rpos = palloc((n + 1) * sizeof(OffsetNumber));
	v->spl_nleft = v->spl_nright = 0;

	/* the seeds are placed first, then the others in order */
	lpos[v->spl_nleft++] = seed_l;
	rpos[v->spl_nright++] = seed_r;
	for (int o = 0, unplaced = n - 2; o < n; o++)
	{
		OffsetNumber j = order[o].pos;
		bool		lsame,
					rsame;
		bool		to_left;

		if (j == seed_l || j == seed_r)
			continue;
		lsame = same_hashing(&left, &s[j]);
		rsame = same_hashing(&right, &s[j]);
		if (lsame != rsame)
			to_left = lsame;
		else if (v->spl_nleft + unplaced <= min_side)
			to_left = true;
		else if (v->spl_nright + unplaced <= min_side)
			to_left = false;
		else
		{
			double		cl = distance(&left, &s[j], siglen);
			double		cr = distance(&right, &s[j], siglen);

			to_left = cl < cr || (cl == cr && v->spl_nleft <= v->spl_nright);
		}
		summary_merge(to_left ? &left : &right, &s[j], siglen);
		unplaced--;
		if (to_left)
			lpos[v->spl_nleft++] = j;
		else
			rpos[v->spl_nright++] = j;
	}

	v->spl_ldatum = PointerGetDatum(make_sig_key(&left, siglen));
	v->spl_rdatum = PointerGetDatum(make_sig_key(&right, siglen));
	PG_RETURN_POINTER(v);
}

/* ---- the siglen option ---- */

static void
validate_siglen(void *parsed, relopt_value *vals, int nvals)
{
	GBloomOptions *o = (GBloomOptions *) parsed;

	(void) vals;
	(void) nvals;
	if (o->siglen % 64 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("siglen must be a multiple of 64, not %d", o->siglen),
				 errdetail("A signature is a whole number of 512-bit blocks.")));
}

Datum
gbloom_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(GBloomOptions));
	add_local_int_reloption(relopts, "siglen",
							"signature length in bytes (a multiple of 64)",
							GBLOOM_SIGLEN_DEFAULT, GBLOOM_SIGLEN_MIN,
							GBLOOM_SIGLEN_MAX,
							offsetof(GBloomOptions, siglen));
	register_reloptions_validator(relopts, validate_siglen);
	PG_RETURN_VOID();
}

/* ---- the storage type's I/O: internal only ---- */

Datum
gbloomfilter_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot accept a value of type %s", "gbloomfilter")));
	PG_RETURN_VOID();			/* keep compiler quiet */
}

Datum
gbloomfilter_out(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot display a value of type %s", "gbloomfilter")));
	PG_RETURN_VOID();			/* keep compiler quiet */
}

