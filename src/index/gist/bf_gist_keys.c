/*
 * index/gist/bf_gist_keys.c
 *		The keys of the GiST operator class for bloomfilter columns
 *		(index/gist/bf_gist.c searches the tree) and the support functions that build
 *		and maintain the tree: compress, decompress, union, same, penalty,
 *		picksplit, the siglen option and the storage type's I/O.
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
 * A parquet filter is mapped as a blocked one, with its 256-bit blocks
 * (chosen by the same multiply-shift).  A spark filter places a key's bits
 * at c mod m, for values c that do not depend on m: such a filter folds
 * exactly only onto a size dividing m.  Its bits are folded onto g =
 * gcd(m, S) bits (g is whole 64-bit words, as m and S are) and that is
 * repeated S / g times: signature bit s is set when some bit p = s mod g
 * is, and a key of the filter, at c mod m, has c mod S = c mod g modulo g,
 * so the bit a probe at size S asks for is set, whatever m is.  (Where g
 * is small the signature is dense and prunes little; it never loses a row.)
 *
 * So the signature of every filter that hashes keys the same way (same
 * layout, k and seed, and parquet's physical type or spark's version: one
 * "hashing") is comparable, whatever its size: if
 * a filter may contain x, every signature bit x asks for is set in the
 * filter's signature and so in every inner key above it.  An inner key
 * records the hashing of the filters below it; when they differ it is
 * marked MIXED_HASHING and answers "maybe" to everything.  Penalty and
 * picksplit keep hashings apart, so in a column with a few hashings only
 * the keys near the root are mixed.
 */
#include "index/gist/bf_gist_index.h"

#include <math.h>

#include "access/gist.h"
#include "access/reloptions.h"

PG_FUNCTION_INFO_V1(gbloomfilter_in);
PG_FUNCTION_INFO_V1(gbloomfilter_out);
PG_FUNCTION_INFO_V1(gbloom_union);
PG_FUNCTION_INFO_V1(gbloom_compress);
PG_FUNCTION_INFO_V1(gbloom_decompress);
PG_FUNCTION_INFO_V1(gbloom_penalty);
PG_FUNCTION_INFO_V1(gbloom_picksplit);
PG_FUNCTION_INFO_V1(gbloom_same);
PG_FUNCTION_INFO_V1(gbloom_options);

static inline uint64
odd_part(uint64 n)
{
	return n >> __builtin_ctzll(n);
}

static bool
sig_all_ones(const uint8 *sig, int siglen)
{
	for (int i = 0; i < siglen; i += 8)
		if (load64(sig + i) != ~UINT64CONST(0))
			return false;
	return true;
}

static int
sig_hamming(const uint8 *a, const uint8 *b, int siglen)
{
	int			n = 0;

	for (int i = 0; i < siglen; i += 8)
		n += bf_popcount64(load64(a + i) ^ load64(b + i));
	return n;
}

/* One span of gbloom_sig_spans: the bit, or the block's bits ORed, set */
static void
sig_span(uint64 lo, uint64 hi, const uint8 *blk, int bblk, void *arg)
{
	uint8	   *sig = (uint8 *) arg;

	for (uint64 s = lo; s <= hi; s++)
	{
		if (blk != NULL)
			sig_or(sig + s * bblk, blk, bblk);
		else
			set_bit(sig, s);
	}
}

/*
 * Maps a filter's bits onto a signature (see the file header, and
 * gbloom_sig_spans in index/gist/bf_gist_index.h): classic bit p to signature bits
 * floor(p*S/m) .. ceil((p+1)*S/m) - 1, blocked block b of n to signature
 * blocks floor(b*B/n) .. ceil((b+1)*B/n) - 1, its 512 bits ORed into each.
 */
static void
filter_to_sig(const bf_view *v, uint8 *sig, int siglen)
{
	memset(sig, 0, siglen);
	if (v->layout != BF_LAYOUT_BLOCKED && v->nbits == (uint64) siglen * 8)
		memcpy(sig, v->bits, siglen);
	else
		gbloom_sig_spans(v, siglen, sig_span, sig);
}

/* The descriptor of one filter. */
void
gbloom_summary_of_view(const bf_view *v, GBloomSummary *s)
{
	s->flags = 0;
	s->layout = v->layout;
	s->hashes = v->hashes;
	s->family = v->family;
	s->param = v->layout == BF_LAYOUT_PARQUET || v->layout == BF_LAYOUT_SPARK ?
		v->param : 0;
	s->type_tag = v->type_tag;
	s->seed = v->seed;
	/* spark sizes never fold (bf_compatible): the class is the size */
	s->size_odd = v->layout == BF_LAYOUT_SPARK ? v->nbits : odd_part(v->nbits);
}

/* Is a signature key's hashing one a filter can have? */
static bool
sig_hashing_valid(const GBloomSig *k)
{
	switch (k->layout)
	{
		case BF_LAYOUT_CLASSIC:
			return k->param == 0 &&
				bf_check_filter_geometry(k->layout, k->hashes, 64) == BF_OK;
		case BF_LAYOUT_BLOCKED:
			return k->param == 0 &&
				bf_check_filter_geometry(k->layout, k->hashes, BF_BLOCK_BITS) == BF_OK;
		case BF_LAYOUT_PARQUET:
			return bf_parquet_type_valid(k->param) && k->seed == 0 &&
				bf_check_filter_geometry(k->layout, k->hashes,
										 BF_PARQUET_BLOCK_BITS) == BF_OK;
		case BF_LAYOUT_SPARK:
			return bf_spark_param_valid(k->param, k->seed) &&
				bf_check_filter_geometry(k->layout, k->hashes, 64) == BF_OK;
	}
	return false;
}

void
gbloom_check_sig_key(const GBloomSig *k, int siglen)
{
	Size		len = VARSIZE(k);
	bool		nobits = (k->flags & (GBK_ALLTRUE | GBK_MIXED_HASHING)) != 0;

	if (len != GBK_SIG_HDRSZ + (nobits ? 0 : (Size) siglen) ||
		(!(k->flags & GBK_MIXED_HASHING) && !sig_hashing_valid(k)))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("bloomfilter GiST signature key is damaged"),
				 errdetail("The key has %zu bytes, layout %u and %u hashes; the index's signatures have %d bytes.",
						   len, (unsigned) k->layout, (unsigned) k->hashes, siglen),
				 errhint("REINDEX the index.")));
}

/* The filter held by a leaf key, checked and decoded. */
struct varlena *
gbloom_leaf_filter(const void *key, bf_view *v)
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

		gbloom_leaf_filter(key, &v);
		gbloom_summary_of_view(&v, s);
		filter_to_sig(&v, buf, siglen);
		s->sig = buf;
		return;
	}
	else
	{
		const GBloomSig *k = (const GBloomSig *) key;

		gbloom_check_sig_key(k, siglen);
		gbloom_summary_of_sig(k, s);
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

void
gbloom_summary_of_sig(const GBloomSig *k, GBloomSummary *s)
{
	s->flags = k->flags & (GBK_ALLTRUE | GBK_MIXED);
	s->layout = k->layout;
	s->hashes = k->hashes;
	s->family = k->family;
	s->param = k->param;
	s->type_tag = k->type_tag;
	s->seed = k->seed;
	s->size_odd = k->size_odd;
	s->sig = NULL;
}

/*
 * Do a and b hash keys alike?  A parquet key's encoding also depends on
 * the filter's key family (a timestamptz probe of a timestamp column is
 * read in the session's zone), so for parquet the family is part of it.
 */
bool
gbloom_same_hashing(const GBloomSummary *a, const GBloomSummary *b)
{
	return !((a->flags | b->flags) & GBK_MIXED_HASHING) &&
		a->layout == b->layout && a->hashes == b->hashes && a->seed == b->seed &&
		a->param == b->param &&
		(a->layout != BF_LAYOUT_PARQUET ||
		 (a->family == b->family && a->type_tag == b->type_tag));
}

/* Would a and b disagree on family or size (a reason for a seq-scan error)? */
bool
gbloom_other_mismatch(const GBloomSummary *a, const GBloomSummary *b)
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
	if (!gbloom_same_hashing(acc, s))
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
	k->param = s->param;
	k->type_tag = s->type_tag;
	k->seed = s->seed;
	k->size_odd = s->size_odd;
	if (!nobits)
		memcpy(k->sig, s->sig, siglen);
	return k;
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

		gbloom_summary_of_view(&v, &s);
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

	if (!gbloom_same_hashing(a, b))
		return 3 * sbits;
	return (double) sig_hamming(a->sig, b->sig, siglen) +
		(gbloom_other_mismatch(a, b) ? sbits : 0.0);
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
		lsame = gbloom_same_hashing(&left, &s[j]);
		rsame = gbloom_same_hashing(&right, &s[j]);
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
