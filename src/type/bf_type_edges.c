/*
 * type/bf_type_edges.c
 *		What the value types say at their edges: a filter pushed past its
 *		capacity, and a bloomwindow key stamped ahead of the present.  (The
 *		third edge, a NULL operand of a union, is the macro in type/bf_type_edges.h.)
 *
 * Both say so with a WARNING, once per statement: the same filter updated
 * row after row, or a GROUP BY of many overfull groups, gives one.  A
 * statement is told by its start (GetCurrentStatementStartTimestamp), as
 * the remote-size lookup of automatic Bloom-joins tells it: every message
 * of the client sets it, so each statement a client sends warns anew, and
 * the statements a DO block or a function runs count as the one that
 * called them.
 */
#include "type/bf_type_edges.h"

#include "access/xact.h"
#include "utils/builtins.h"

/* The statement that was last warned, per warning. */
static TimestampTz overfull_warned = PG_INT64_MIN;
static TimestampTz ahead_warned = PG_INT64_MIN;

/* True, and the statement marked, if this statement was not warned yet. */
static bool
first_in_statement(TimestampTz *warned)
{
	TimestampTz stmt = GetCurrentStatementStartTimestamp();

	if (*warned == stmt)
		return false;
	*warned = stmt;
	return true;
}

/* Was this statement warned already (nothing marked)? */
static inline bool
warned_in_statement(TimestampTz warned)
{
	return warned == GetCurrentStatementStartTimestamp();
}

/*
 * Counting every bit of a large filter costs more than the add itself (a
 * pass over 1.2 MB for a million keys at 1%), and a filter past the adds
 * threshold by repeated keys would pay it at every add.  A sample of evenly
 * spaced words says first whether the filter may be near three quarters
 * full; only then are all its bits counted, and the count decides.  The
 * sample (256 words, 16,384 bits) estimates the fill within about 0.005
 * (one standard deviation, blocked layout included, whose words come from
 * different blocks), so a filter past 0.75 always passes the sample's bar
 * of 0.7; the sample is fixed, the decision deterministic.
 */
#define SAMPLE_WORDS		256
#define SAMPLE_COUNTERS		4096
#define SAMPLE_BAR			0.70

static inline uint64
load_word(const uint8 *p)
{
	uint64		w;

	memcpy(&w, p, 8);
	return w;
}

/* May the bit array be past three quarters full?  (False: surely not.) */
static bool
bits_may_be_past(const bf_view *v)
{
	uint64		nwords = v->nbits / 64;
	uint64		set = 0;

	if (nwords <= 2 * SAMPLE_WORDS)
		return true;
	for (uint64 i = 0; i < SAMPLE_WORDS; i++)
		set += bf_popcount64(load_word(v->bits + 8 * ((2 * i + 1) * nwords / (2 * SAMPLE_WORDS))));
	return (double) set > SAMPLE_BAR * SAMPLE_WORDS * 64;
}

static bool
counters_may_be_past(const bfc_view *v)
{
	uint64		nonzero = 0;

	if (v->ncounters <= 2 * SAMPLE_COUNTERS)
		return true;
	for (uint64 i = 0; i < SAMPLE_COUNTERS; i++)
		nonzero += bfc_get(v, (2 * i + 1) * v->ncounters / (2 * SAMPLE_COUNTERS)) != 0;
	return (double) nonzero > SAMPLE_BAR * SAMPLE_COUNTERS;
}

#define OVERFULL_DETAIL(what) \
	"A filter is past its capacity when more than three quarters of its " what ", at about twice the keys it was sized for; a key it does not hold then probes true at that rate."

/* ---- bloomfilter ---- */

void
bloom_warn_overfull(const bf_view *v)
{
	uint64		set;

	if (!bloom_may_be_overfull(v->nbits, v->hashes, v->added) ||
		warned_in_statement(overfull_warned) || !bits_may_be_past(v))
		return;
	set = bf_popcount(v);
	if (set * 4 <= v->nbits * 3 || !first_in_statement(&overfull_warned))
		return;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("bloomfilter of " UINT64_FORMAT " bits is past its capacity: %.0f%% of its bits are set, and its false-positive rate is now %.3g",
					v->nbits, 100.0 * (double) set / (double) v->nbits, bf_est_fpr(v)),
			 errdetail(OVERFULL_DETAIL("bits are set") " It has taken " UINT64_FORMAT " adds.",
					   v->added),
			 errhint("Size the filter for the keys it will hold, with bloom_empty(capacity, fpr) or bloom_agg(x, capacity, fpr); or let bloom_agg(x) size itself; or use a scalablebloom (sbloom_empty, sbloom_agg), which grows.")));
}

/* ---- countingbloom ---- */

void
cbloom_warn_overfull(const bfc_view *v)
{
	uint64		nonzero,
				saturated;
	bf_view		bv = {0};

	if (!bloom_may_be_overfull(v->ncounters, v->hashes, v->items) ||
		warned_in_statement(overfull_warned) || !counters_may_be_past(v))
		return;
	bfc_counter_stats(v, &nonzero, &saturated);
	if (nonzero * 4 <= v->ncounters * 3 || !first_in_statement(&overfull_warned))
		return;
	/* the rate is the bloomfilter's with the same bits set, as cbloom_info's */
	bv.layout = v->layout;
	bv.hashes = v->hashes;
	bv.nbits = v->ncounters;
	bv.bits = MemoryContextAllocHuge(CurrentMemoryContext, v->ncounters / 8);
	bfc_to_bits(v, bv.bits);
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("countingbloom of " UINT64_FORMAT " counters is past its capacity: %.0f%% of its counters are above zero, and its false-positive rate is now %.3g",
					v->ncounters, 100.0 * (double) nonzero / (double) v->ncounters, bf_est_fpr(&bv)),
			 errdetail(OVERFULL_DETAIL("counters are above zero") " It holds " UINT64_FORMAT " keys (adds less removes).",
					   v->items),
			 errhint("Size the filter for the keys it will hold, with cbloom_empty(capacity, fpr) or cbloom_agg(x, capacity, fpr), and remove the keys that are gone.")));
	pfree(bv.bits);
}

/* ---- bloomwindow ---- */

/* A bucket boundary as text in the session's time zone. */
static char *
boundary_text(int64 us)
{
	if (!IS_VALID_TIMESTAMP(us))
		return pstrdup("(out of range)");
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(us)));
}

/* Slot i of the window, warned about if past capacity. */
static void
window_slot_overfull(const bfw_view *w, uint32 i)
{
	bf_view		v;
	uint64		set;
	int64		b = bfw_slot_bucket(w, i);

	if (b == BFW_EMPTY)
		return;
	bfw_slot_view(w, i, &v);
	if (!bloom_may_be_overfull(v.nbits, v.hashes, v.added) ||
		warned_in_statement(overfull_warned) || !bits_may_be_past(&v))
		return;
	set = bf_popcount(&v);
	if (set * 4 <= v.nbits * 3 || !first_in_statement(&overfull_warned))
		return;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("bloomwindow bucket from %s to %s is past its capacity: %.0f%% of its " UINT64_FORMAT " bits are set, and its false-positive rate is now %.3g",
					boundary_text(b * w->bucket_us), boundary_text((b + 1) * w->bucket_us),
					100.0 * (double) set / (double) v.nbits, v.nbits, bf_est_fpr(&v)),
			 errdetail(OVERFULL_DETAIL("bits are set") " The bucket has taken " UINT64_FORMAT " adds.",
					   v.added),
			 errhint("A window's capacity is per bucket: size it for the most keys one bucket receives, or use more buckets.")));
}

void
bloom_window_warn_overfull(const bfw_view *w)
{
	for (uint32 i = 0; i < w->buckets; i++)
		window_slot_overfull(w, i);
}

void
bloom_window_warn_overfull_bucket(const bfw_view *w, int64 b)
{
	uint32		i = bfw_ring_pos(b, w->buckets);

	if (bfw_slot_bucket(w, i) == b)
		window_slot_overfull(w, i);
}

/*
 * A key stamped ahead of the present.  Put in its own bucket, it would
 * move the ring past the present and empty the buckets that are live now
 * (one key stamped two hours ahead would empty a one-hour window, and the
 * keys of the present would then be too old to keep): every key added at
 * a time inside the window would probe false.  It goes to the bucket of
 * the present instead (or the window's newest, if that is newer): it is
 * found from now on and ages out with that bucket, earlier than its own
 * time would have it.  The present is the server's clock, not the
 * transaction's start, so that a long transaction's keys stamped with
 * clock_timestamp() are never ahead.  Only the skew of clocks kept in step
 * (NTP keeps them within milliseconds) is kept so silently: up to a second
 * ahead, or a bucket if shorter.  Any larger lead gives a WARNING, since
 * the key ages out up to its lead earlier than its own stamp would have it
 * (a minute of silence, as before, hid keys that aged out a minute early).
 * Keeping a short lead in its own bucket instead would move the ring past
 * the present and drop the oldest live bucket early, losing other keys
 * before the window's promise (found for at least width - bucket width
 * after they were added).
 */
#define AHEAD_SILENT_US		USECS_PER_SEC

int64
bloom_window_bucket_for_add(const bfw_view *w, int64 b, int64 newest, TimestampTz t)
{
	TimestampTz now;
	int64		present;
	int64		target;

	if (newest != BFW_EMPTY && b <= newest)
		return b;				/* the ring does not move */
	now = GetCurrentTimestamp();
	if (!bfw_bucket_of(w->bucket_us, now, &present) || b <= present)
		return b;
	target = (newest != BFW_EMPTY && newest > present) ? newest : present;
	if (t - now > Min(AHEAD_SILENT_US, w->bucket_us) &&
		first_in_statement(&ahead_warned))
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("bloomwindow key stamped %s is ahead of the present: it was kept in the bucket of the present",
						boundary_text(t)),
				 errdetail("The server's clock reads %s; the key went to the bucket from %s to %s. In a bucket ahead of the present it would have pushed the buckets that are live now out of the window; where it is, it is found from now on and ages out with that bucket.",
						   boundary_text(now), boundary_text(target * w->bucket_us),
						   boundary_text((target + 1) * w->bucket_us)),
				 errhint("Check the clock of the writer that stamped it. Keys stamped up to a second (or a bucket, if shorter) ahead are kept so without a warning.")));
	return target;
}
