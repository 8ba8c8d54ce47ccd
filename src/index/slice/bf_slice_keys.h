/*
 * index/slice/bf_slice_keys.h
 *		What a bloomslice scan's keys ask of a block or a pending filter:
 *		private to index/slice/bf_slice_scan.c and bf_slice_keys.c.
 */
#ifndef BF_SLICE_KEYS_H
#define BF_SLICE_KEYS_H

#include "index/slice/bf_slice_index.h"
#include "index/bf_index.h"

/* One scan key: a probe f @> x, or a superset test f @>> q. */
typedef struct BsKeyState
{
	int			strategy;
	/* a probe */
	BloomKeyType kt;
	Datum		value;
	BloomLayoutHashes lh;
	/* a superset test: q, and its positions for the last geometry asked */
	bf_view		q;
	uint64	   *pos;			/* room for maxpos: q's set bits */
	int64		maxpos;
	int64		npos;
	bool		too_dense;		/* too many set bits: rechecked instead */
	int			shift;
	bool		pos_valid;
	uint8		pos_layout;
	uint64		pos_nbits;
} BsKeyState;

/* What a block's slices can answer for a key */
typedef enum KeyAnswer
{
	KA_NONE,					/* no filter of the geometry matches */
	KA_RECHECK,					/* the table must say */
	KA_SLICES					/* the slices say */
} KeyAnswer;

extern KeyAnswer bs_key_answer(BsKeyState *ks, const BsGeom *g);

/* the scan keys, set up in the current memory context; false: a NULL key */
extern bool bs_keys_init(ScanKey scankeys, int nkeys, BsKeyState *keys,
						 MemoryContext cxt);

/*
 * The slice positions the keys read in a block of geometry g (see
 * bf_slice_keys.c); clears mask when no filter of g can match, sets
 * *recheck when the bits cannot answer.
 */
extern int64 bs_gather_positions(BsKeyState *keys, int nkeys, const BsGeom *g,
								 MemoryContext hashcxt, uint64 *pos,
								 bfsl_mask *mask, bool *recheck);

/* Is the pending filter v a candidate?  *recheck if the table must say. */
extern bool bs_pending_match(BsKeyState *keys, int nkeys, const bf_view *v,
							 MemoryContext hashcxt, bool *recheck);

#endif							/* BF_SLICE_KEYS_H */
