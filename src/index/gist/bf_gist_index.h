/*
 * index/gist/bf_gist_index.h
 *		What the two files of the GiST operator class share: the index keys,
 *		the siglen option and a few bit helpers.
 *
 * index/gist/bf_gist_keys.c builds the tree: a filter's signature, the keys, and the
 * support functions that build and maintain the tree (compress,
 * decompress, union, same, penalty, picksplit, the siglen option, the
 * storage type's I/O).  index/gist/bf_gist.c searches it: a scan's query state and
 * the consistent function, and gbloom_contains, the operator of the index
 * condition.
 */
#ifndef BF_GIST_INDEX_H
#define BF_GIST_INDEX_H

#include "index/bf_index.h"
#include "nodes/pathnodes.h"

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

/* Strategies (the operator class in the install script) */
#define GBLOOM_STRAT_KEY		1	/* @>(bloomfilter, gbloom_key) */
/* strategy 2, @>(bloomfilter, text), is no more: text keys are boxed too */
#define GBLOOM_STRAT_SUPERSET	3	/* @>>(bloomfilter, bloomfilter) */

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
	uint16		param;			/* the layout's parameter (parquet: physical
								 * type, spark: version); 0 for classic and
								 * blocked, as the padding it was in 1.0 */
	uint32		type_tag;
	uint64		seed;
	uint64		size_odd;		/* odd part of m: sizes fold iff equal
								 * (spark: m, as its sizes never fold) */
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
	uint16		param;
	uint32		type_tag;
	uint64		seed;
	uint64		size_odd;
	uint8	   *sig;			/* siglen bytes, or NULL */
} GBloomSummary;

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

static inline void
sig_or(uint8 *dst, const uint8 *src, int siglen)
{
	for (int i = 0; i < siglen; i += 8)
		store64(dst + i, load64(dst + i) | load64(src + i));
}

/*
 * The bit-to-signature mapping (see index/gist/bf_gist_keys.c's header), in one place
 * for the keys (filter_to_sig) and the superset query (superset_req): span
 * is called once per set bit p of a classic filter, with the signature
 * bits lo..hi it maps to (floor(p*S/m) .. ceil((p+1)*S/m) - 1) and blk
 * NULL, and once per non-empty block b of n of a blocked or parquet
 * filter, with the signature blocks lo..hi it maps to (floor(b*B/n) ..
 * ceil((b+1)*B/n) - 1) and blk its bblk bytes (64 blocked, 32 parquet).
 * A spark filter's bit p stands for every signature bit s with s = p
 * modulo g = gcd(m, S) (both are whole 64-bit words): span is called
 * with lo = hi = s and blk NULL for each.  p*S stays below 2^48 (m < 2^33,
 * S < 2^14).  Inlined, so that each caller's span is too.
 */
static inline void
gbloom_sig_spans(const bf_view *v, int siglen,
				 void (*span) (uint64 lo, uint64 hi, const uint8 *blk, int bblk, void *arg),
				 void *arg)
{
	uint64		sbits = (uint64) siglen * 8;

	if (v->layout == BF_LAYOUT_BLOCKED || v->layout == BF_LAYOUT_PARQUET)
	{
		uint64		bbits = v->layout == BF_LAYOUT_BLOCKED ?
			BF_BLOCK_BITS : BF_PARQUET_BLOCK_BITS;
		int			bblk = (int) (bbits / 8);
		uint64		nb = v->nbits / bbits;
		uint64		sb = sbits / bbits;

		for (uint64 b = 0; b < nb; b++)
		{
			const uint8 *blk = v->bits + b * bblk;
			uint64		any = 0;

			for (int i = 0; i < bblk; i += 8)
				any |= load64(blk + i);
			if (any != 0)
				span(b * sb / nb, ((b + 1) * sb - 1) / nb, blk, bblk, arg);
		}
	}
	else if (v->layout == BF_LAYOUT_SPARK)
	{
		/* fold to g = gcd(m, S) bits, whole words, then repeat it over S */
		uint64		a = v->nbits,
					g = sbits;
		uint64		gw;
		uint64		folded[GBLOOM_SIGLEN_MAX / 8];

		while (a != 0)
		{
			uint64		t = g % a;

			g = a;
			a = t;
		}
		gw = g / 64;
		memset(folded, 0, gw * 8);
		for (uint64 w = 0; w < v->nbits / 64; w++)
			folded[w % gw] |= load64(v->bits + w * 8);
		for (uint64 w = 0; w < gw; w++)
		{
			uint64		word = BF_BSWAP64(folded[w]);

			while (word)
			{
				uint64		p = w * 64 + (uint64) __builtin_ctzll(word);

				word &= word - 1;
				for (uint64 s = p; s < sbits; s += g)
					span(s, s, NULL, 0, arg);
			}
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

				word &= word - 1;
				span(p * sbits / m, ((p + 1) * sbits - 1) / m, NULL, 0, arg);
			}
		}
	}
}

/* index/gist/bf_gist_keys.c: keys as the search sees them */
extern void gbloom_summary_of_view(const bf_view *v, GBloomSummary *s);
/* The descriptor of a signature key (s->sig is left to the caller). */
extern void gbloom_summary_of_sig(const GBloomSig *k, GBloomSummary *s);
extern void gbloom_check_sig_key(const GBloomSig *k, int siglen);
extern struct varlena *gbloom_leaf_filter(const void *key, bf_view *v);
extern bool gbloom_same_hashing(const GBloomSummary *a,
								const GBloomSummary *b);
extern bool gbloom_other_mismatch(const GBloomSummary *a,
								  const GBloomSummary *b);

/* ---- index/gist/bf_gist_cost.c ---- */

/*
 * The amcostestimate of a GiST index of the operator class for probes
 * (bloomfilter_support sets it): GiST's own, corrected from a sample of
 * the tree for the share of it a probe reads.
 */
extern void gbloom_costestimate(PlannerInfo *root, IndexPath *path,
								double loop_count, Cost *indexStartupCost,
								Cost *indexTotalCost,
								Selectivity *indexSelectivity,
								double *indexCorrelation, double *indexPages);

#endif							/* BF_GIST_INDEX_H */
