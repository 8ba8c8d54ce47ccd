/*
 * bf_sizing.c
 *		Sizing math: the textbook formulas, and the search for the smallest
 *		filter of each layout that really meets a target rate.
 */
#include <math.h>
#include <string.h>

#include "bf_core.h"

/* ln 2; BF_LN2 is not in ISO C */
#define BF_LN2 0.69314718055994530942

double
bf_optimal_bits(double n, double p)
{
	return ceil(-n * log(p) / (BF_LN2 * BF_LN2));
}

int
bf_optimal_hashes(double m, double n)
{
	double		k = round(m / n * BF_LN2);

	if (!(k >= BF_MIN_HASHES))	/* also catches NaN */
		return BF_MIN_HASHES;
	if (k > BF_MAX_HASHES)
		return BF_MAX_HASHES;
	return (int) k;
}

double
bf_expected_fpr(double m, int k, double n)
{
	return pow(-expm1(-(double) k * n / m), k);
}

/*
 * A blocked filter's rate is the mean, over the Poisson-distributed number
 * of keys that land in a block, of that block's own rate.  The textbook
 * formula applied to the whole array ignores that some blocks get many
 * more keys than the mean, and so undersizes the filter.
 *
 * XXX: bit positions within a block are treated as independent uniform
 * draws; the golden-ratio remultiplication is close to that (the unit
 * tests compare measured rates against this model).
 */
double
bf_blocked_expected_fpr(double nblocks, int k, double n)
{
	double		lambda = n / nblocks;
	double		spread,
				lo,
				hi,
				pmf,
				miss,
				sum = 0.0;
	double		miss_per_key = pow(1.0 - 1.0 / BF_BLOCK_BITS, k);

	if (lambda <= 0.0)
		return 0.0;

	/*
	 * With thousands of keys per block every block is full to within
	 * rounding: the Poisson spread no longer matters, and summing hundreds
	 * of thousands of terms would (the self-sizing aggregate asks this for
	 * n up to 10^8 in one block).
	 */
	if (lambda > 4096.0)
		return pow(-expm1(lambda * log(miss_per_key)), k);

	spread = 12.0 * sqrt(lambda) + 30.0;
	lo = floor(lambda - spread);
	if (lo < 0)
		lo = 0;
	hi = ceil(lambda + spread);

	/* pmf and miss^l by recurrence from the first term: no exp per term */
	pmf = exp(lo * log(lambda) - lambda - lgamma(lo + 1.0));
	miss = pow(miss_per_key, lo);
	for (double l = lo; l <= hi; l += 1.0)
	{
		sum += pmf * pow(1.0 - miss, k);
		pmf *= lambda / (l + 1.0);
		miss *= miss_per_key;
	}
	return sum;
}

/*
 * The model above takes a block's fill as fixed once its number of keys is
 * known; in truth the fill varies around that mean, and as the rate is its
 * k-th power the mean rate comes out higher (Jensen).  Long runs measure
 * rates about 2% over the model at p = 1%, 5% at 0.01%, and more below.
 * Sizing aims under the target by a margin that grows as p shrinks, so that
 * the promise "at most p" holds.
 */
static double
blocked_margin(double p)
{
	double		m = 1.08;

	if (p < 1e-6)
		m *= 1.0 + 0.03 * log10(1e-6 / p);
	return m;
}

double
bf_blocked_margin(double p)
{
	return blocked_margin(p);
}

/* Bits per key a blocked filter with k hashes needs for rate p. */
static double
blocked_bits_per_key(int k, double p)
{
	double		lo = 0.5,
				hi = 4096.0;

	if (bf_blocked_expected_fpr(1.0, k, BF_BLOCK_BITS / hi) > p)
		return INFINITY;
	for (int i = 0; i < 60 && hi - lo > 1e-4 * lo; i++)
	{
		double		mid = 0.5 * (lo + hi);

		/* one key per block of BF_BLOCK_BITS / mid blocks: lambda = 512/mid */
		if (bf_blocked_expected_fpr(1.0, k, BF_BLOCK_BITS / mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

static bool
size_classic(double n, double p, uint64_t *nbits, int *hashes)
{
	double		m = ceil(bf_optimal_bits(n, p) / 64.0) * 64.0;

	/*
	 * The textbook m with a rounded k can miss p by a hair; grow m in small
	 * steps until some k near the optimum meets it.
	 */
	for (;;)
	{
		int			k = bf_optimal_hashes(m, n);
		int			best_k = k;
		double		best = bf_expected_fpr(m, k, n);

		for (int kk = k - 1; kk <= k + 1; kk++)
		{
			double		f;

			if (kk < BF_MIN_HASHES || kk > BF_MAX_HASHES)
				continue;
			f = bf_expected_fpr(m, kk, n);
			if (f < best)
			{
				best = f;
				best_k = kk;
			}
		}
		if (m > (double) BF_MAX_NBITS)
			return false;
		if (best <= p)
		{
			*nbits = (uint64_t) m;
			*hashes = best_k;
			return true;
		}
		m += fmax(64.0, ceil(m / 2048.0 / 64.0) * 64.0);
	}
}

/*
 * The sizing cache.  The exact model costs about half a millisecond per
 * blocked sizing (a binary search over the Poisson sum for every k), and a
 * query sizes a filter per group (bloom_agg(x, capacity, fpr)) or per row
 * (bloom_empty(capacity)); the arguments repeat.  Each process (each
 * backend) keeps the last answers of the two pure functions that cost,
 * keyed by their exact arguments, so a hit returns the very numbers the
 * computation would: nothing about a filter's bytes depends on the cache.
 * Direct-mapped, a few kilobytes; not shared between threads (the core is
 * used one thread per process).
 */
#define SIZING_CACHE_SLOTS 64

typedef struct best_hashes_entry
{
	double		p;				/* the key: the rate, exactly */
	double		c;				/* bits per key at best_k */
	int			k;
	bool		valid;
} best_hashes_entry;

typedef struct size_entry
{
	double		n;				/* the key: keys, rate and layout, exactly */
	double		p;
	int			layout;
	bool		valid;
	bool		ok;				/* bf_size_for's answer */
	int			hashes;
	uint64_t	nbits;
} size_entry;

static best_hashes_entry best_cache[SIZING_CACHE_SLOTS];
static size_entry size_cache[SIZING_CACHE_SLOTS];
static bool sizing_cache_on = true;

void
bf_sizing_cache_enable(bool on)
{
	sizing_cache_on = on;
	memset(best_cache, 0, sizeof(best_cache));
	memset(size_cache, 0, sizeof(size_cache));
}

/* A slot for the bits of some doubles (and an int): a multiplicative hash. */
static unsigned
cache_slot(double a, double b, int c)
{
	uint64_t	x,
				y;

	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	x = (x ^ (y * UINT64_C(0xff51afd7ed558ccd)) ^ (uint64_t) (unsigned) c) *
		UINT64_C(0x9e3779b97f4a7c15);
	return (unsigned) (x >> 58);	/* 64 slots */
}

static int	blocked_best_hashes_compute(double p, double *c_out);

/*
 * The k that needs the fewest bits per key for rate p; sets *c to them.
 * Cached (above): a pure function of p.
 */
static int
blocked_best_hashes(double p, double *c_out)
{
	best_hashes_entry *e;

	if (!sizing_cache_on)
		return blocked_best_hashes_compute(p, c_out);
	e = &best_cache[cache_slot(p, 0.0, 0)];
	/* == on p: a NaN never hits, and -0.0 == 0.0 gives the same answer */
	if (!(e->valid && e->p == p))
	{
		e->k = blocked_best_hashes_compute(p, &e->c);
		e->p = p;
		e->valid = true;
	}
	*c_out = e->c;
	return e->k;
}

static int
blocked_best_hashes_compute(double p, double *c_out)
{
	double		best_c = INFINITY;
	int			best_k = BF_MIN_HASHES;

	/* bits per key is unimodal in k: walk up until it stops improving */
	for (int k = BF_MIN_HASHES; k <= BF_MAX_HASHES; k++)
	{
		double		c = blocked_bits_per_key(k, p);

		if (c < best_c)
		{
			best_c = c;
			best_k = k;
		}
		else if (c > best_c * 1.02)
			break;
	}
	*c_out = best_c;
	return best_k;
}

bool
bf_auto_reachable(double p)
{
	double		c;

	if (!(p > 0.0 && p < 1.0))
		return false;
	(void) blocked_best_hashes(p / blocked_margin(p), &c);
	return isfinite(c);
}

int
bf_auto_hashes(double p)
{
	double		c;

	return blocked_best_hashes(p / blocked_margin(p), &c);
}

uint64_t
bf_auto_nblocks(double n, double p, int k, uint64_t max_nblocks)
{
	uint64_t	nb = 1;

	p /= blocked_margin(p);
	/* start near the answer: a block holds at most 512 keys' worth */
	while (nb < max_nblocks && (double) nb * 2 * BF_BLOCK_BITS < n)
		nb <<= 1;
	while (nb > 1 && bf_blocked_expected_fpr((double) (nb >> 1), k, n) <= p)
		nb >>= 1;
	while (nb < max_nblocks && bf_blocked_expected_fpr((double) nb, k, n) > p)
		nb <<= 1;
	return nb;
}

static bool
size_blocked(double n, double p, uint64_t *nbits, int *hashes)
{
	double		best_c;
	int			best_k = blocked_best_hashes(p, &best_c);
	double		nblocks;

	if (!isfinite(best_c))
		return false;

	nblocks = ceil(n * best_c / BF_BLOCK_BITS);
	if (nblocks < 1)
		nblocks = 1;
	/* the exact block count may round the rate up: add blocks until met */
	while (bf_blocked_expected_fpr(nblocks, best_k, n) > p)
	{
		if (nblocks * BF_BLOCK_BITS > (double) BF_MAX_NBITS)
			return false;
		nblocks += fmax(1.0, ceil(nblocks / 4096.0));
	}
	if (nblocks * BF_BLOCK_BITS > (double) BF_MAX_NBITS)
		return false;
	*nbits = (uint64_t) nblocks * BF_BLOCK_BITS;
	*hashes = best_k;
	return true;
}

static bool
size_for(int layout, double n, double p, uint64_t *nbits, int *hashes)
{
	if (layout == BF_LAYOUT_BLOCKED)
		return size_blocked(n, p / blocked_margin(p), nbits, hashes);
	if (layout == BF_LAYOUT_PARQUET)
	{
		/* as parquet-java and Arrow size it: never refused, at most 128 MiB */
		*nbits = bf_parquet_optimal_bits(n, p);
		*hashes = BF_PARQUET_HASHES;
		return true;
	}
	return size_classic(n, p, nbits, hashes);
}

bool
bf_size_for(int layout, double n, double p, uint64_t *nbits, int *hashes)
{
	size_entry *e;

	if (!(n >= 1.0))
		n = 1.0;
	if (!(p > 0.0 && p < 1.0))
		return false;
	if (!sizing_cache_on)
		return size_for(layout, n, p, nbits, hashes);
	e = &size_cache[cache_slot(n, p, layout)];
	if (!(e->valid && e->n == n && e->p == p && e->layout == layout))
	{
		e->nbits = 0;
		e->hashes = 0;
		e->ok = size_for(layout, n, p, &e->nbits, &e->hashes);
		e->n = n;
		e->p = p;
		e->layout = layout;
		e->valid = true;
	}
	if (e->ok)
	{
		*nbits = e->nbits;
		*hashes = e->hashes;
	}
	return e->ok;
}
