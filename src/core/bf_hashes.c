/*
 * bf_hashes.c
 *		Sets of 64-bit key hashes, for filters that size themselves: a sort
 *		that removes duplicates when a buffer of hashes fills up, a small
 *		HyperLogLog sketch that estimates how many distinct hashes a set has,
 *		and inserts of many hashes at once, bucketed by top byte so that a
 *		large filter is swept in order rather than missed key by key.
 */
#include <math.h>
#include <string.h>

#include "bf_core.h"

/*
 * LSD radix sort, 8 bits a pass: the hashes are uniform, so no pass can be
 * skipped, but each is two linear sweeps.  Eight passes leave the result
 * in a.
 */
void
bf_sort_hashes(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t   *src = a,
			   *dst = tmp;

	for (int shift = 0; shift < 64; shift += 8)
	{
		size_t		count[256] = {0};
		size_t		pos = 0;

		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		for (int d = 0; d < 256; d++)
		{
			size_t		c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];

		{
			uint64_t   *t = src;

			src = dst;
			dst = t;
		}
	}
}

/*
 * Inserts n hashed keys.  A filter that fits in cache takes them as they
 * come.  A larger one would take a cache miss per key; the keys are first
 * bucketed by their top byte (one counting pass, one scatter into tmp,
 * which has room for n), which for both layouts orders them by region of
 * the array, so the inserts sweep it 1/256th at a time.  Without tmp, the
 * batch insert's prefetching overlaps the misses instead.  Every path
 * goes through bf_insert_batch, which picks the loop for the layout and k
 * once instead of once per key.
 */
void
bf_insert_many(bf_view *v, const uint64_t *h, size_t n, uint64_t *tmp)
{
	if (v->nbits / 8 <= BF_BUCKETED_INSERT_BYTES || tmp == NULL)
	{
		bf_insert_batch(v, h, n);
		return;
	}
	{
		uint32_t	count[BF_HASH_BUCKETS] = {0};
		size_t		pos[BF_HASH_BUCKETS];

		bf_count_buckets(h, n, count, NULL);
		(void) bf_bucket_starts(count, pos);
		bf_scatter_buckets(h, n, pos, tmp);
		bf_insert_batch(v, tmp, n);
	}
}

/*
 * HyperLogLog over 2^BF_HLL_BITS one-byte registers.  The register index
 * and rank come from a remix of the hash, so they are independent of the
 * bits that place the key in a filter.
 */
static inline void
hll_add(uint8_t *regs, uint64_t h)
{
	uint64_t	x = bf_mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));
	uint32_t	idx = (uint32_t) (x >> (64 - BF_HLL_BITS));
	uint64_t	rest = (x << BF_HLL_BITS) | (UINT64_C(1) << (BF_HLL_BITS - 1));
	uint8_t		rank = (uint8_t) (__builtin_clzll(rest) + 1);

	if (rank > regs[idx])
		regs[idx] = rank;
}

void
bf_hll_add(uint8_t *regs, uint64_t h)
{
	hll_add(regs, h);
}

void
bf_hll_add_many(uint8_t *regs, const uint64_t *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hll_add(regs, h[i]);
}

void
bf_count_buckets(const uint64_t *h, size_t n, uint32_t *count, uint8_t *regs)
{
	if (regs == NULL)
		for (size_t i = 0; i < n; i++)
			count[BF_HASH_BUCKET(h[i])]++;
	else
		for (size_t i = 0; i < n; i++)
		{
			count[BF_HASH_BUCKET(h[i])]++;
			hll_add(regs, h[i]);
		}
}

size_t
bf_bucket_starts(const uint32_t *count, size_t *pos)
{
	size_t		at = 0;

	for (int b = 0; b < BF_HASH_BUCKETS; b++)
	{
		pos[b] = at;
		at += count[b];
	}
	return at;
}

void
bf_scatter_buckets(const uint64_t *h, size_t n, size_t *pos, uint64_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[pos[BF_HASH_BUCKET(h[i])]++] = h[i];
}

void
bf_insert_bucketed(bf_view *v, const bf_hash_run *runs, int nruns)
{
	const uint64_t *next[64];

	/* callers have a handful of runs; more are inserted 64 at a time */
	if (nruns > 64)
	{
		for (int r = 0; r < nruns; r += 64)
			bf_insert_bucketed(v, runs + r, nruns - r < 64 ? nruns - r : 64);
		return;
	}
	for (int r = 0; r < nruns; r++)
		next[r] = runs[r].h;
	for (int b = 0; b < BF_HASH_BUCKETS; b++)
		for (int r = 0; r < nruns; r++)
		{
			bf_insert_batch(v, next[r], runs[r].count[b]);
			next[r] += runs[r].count[b];
		}
}

/*
 * Drops repeated hashes from h[0, n) in place, keeping the first of each
 * and the order, with an open-addressing set of the hashes seen in table
 * (size entries, a power of two; overwritten).  Once the set is half full
 * the rest of h is kept as it is: the caller sizes the table for the
 * distinct hashes it expects, and a wrong guess costs only duplicates left
 * in.  Returns the new length.
 */
size_t
bf_dedup_hashes(uint64_t *h, size_t n, uint64_t *table, size_t size)
{
	const size_t mask = size - 1;
	size_t		used = 0;
	size_t		w = 0;
	bool		zero_seen = false;	/* 0 marks a free slot: tracked apart */

	memset(table, 0, size * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	x = h[i];
		size_t		j;

		if (used >= size / 2)
		{
			memmove(h + w, h + i, (n - i) * sizeof(uint64_t));
			return w + (n - i);
		}
		if (x == 0)
		{
			if (!zero_seen)
				h[w++] = 0;
			zero_seen = true;
			continue;
		}
		/* the top byte is shared within a bucket: index by other bits */
		j = (size_t) (x ^ (x >> 29)) & mask;
		while (table[j] != 0 && table[j] != x)
			j = (j + 1) & mask;
		if (table[j] == 0)
		{
			table[j] = x;
			used++;
			h[w++] = x;
		}
	}
	return w;
}

/* Drops duplicates from sorted a[0, n); returns the new length. */
size_t
bf_unique_hashes(uint64_t *a, size_t n)
{
	size_t		w = 0;

	for (size_t i = 0; i < n; i++)
		if (w == 0 || a[w - 1] != a[i])
			a[w++] = a[i];
	return w;
}

void
bf_hll_merge(uint8_t *dst, const uint8_t *src)
{
	for (int i = 0; i < BF_HLL_REGISTERS; i++)
		if (src[i] > dst[i])
			dst[i] = src[i];
}

/* The standard estimate, with linear counting for small sets. */
double
bf_hll_estimate(const uint8_t *regs)
{
	double		m = BF_HLL_REGISTERS;
	double		sum = 0.0;
	int			zeros = 0;
	double		e;

	for (int i = 0; i < BF_HLL_REGISTERS; i++)
	{
		sum += ldexp(1.0, -regs[i]);
		if (regs[i] == 0)
			zeros++;
	}
	e = (0.7213 / (1.0 + 1.079 / m)) * m * m / sum;
	if (e <= 2.5 * m && zeros > 0)
		e = m * log(m / zeros);
	return e;
}
