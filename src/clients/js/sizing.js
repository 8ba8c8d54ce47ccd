// Sizing and estimates: a line-by-line port of src/core/bf_sizing.c and
// bf_estimate.c, so that BloomFilter.empty(capacity, {fpr, layout}) picks
// exactly the bits and hashes bloom_empty and bloom_agg(x, capacity, fpr)
// pick.  The order of floating-point operations follows the C source; the
// tests compare the result with the server's for many (capacity, fpr).

export const BLOCK_BITS = 512;
export const MIN_HASHES = 1;
export const MAX_HASHES = 32;
// BF_MAX_TOTAL_BYTES = (0x3ffffffe - 6) / 4 * 3; BF_MAX_NBITS its whole blocks
export const MAX_TOTAL_BYTES = 805306362;
export const MAX_NBITS = Math.floor((MAX_TOTAL_BYTES - 52) / 64) * 64 * 8;

const LN2 = 0.69314718055994530942;

export function optimalBits(n, p) {
  return Math.ceil(-n * Math.log(p) / (LN2 * LN2));
}

export function optimalHashes(m, n) {
  // C's round() rounds halves away from zero; m / n * LN2 is positive
  const k = Math.round(m / n * LN2);
  if (!(k >= MIN_HASHES)) return MIN_HASHES;
  if (k > MAX_HASHES) return MAX_HASHES;
  return k;
}

export function expectedFpr(m, k, n) {
  return Math.pow(-Math.expm1(-k * n / m), k);
}

/*
 * ln Γ(x) for the whole numbers x >= 1 the Poisson sum asks (lo + 1):
 * the logarithm of the exact factorial while it is exact in a double,
 * Stirling's series past that (relative error far below the sum's).
 */
function lgammaInt(x) {
  if (x <= 2) return 0;
  if (x <= 23) {
    let f = 1;
    for (let i = 2; i < x; i++) f *= i;
    return Math.log(f);
  }
  const x2 = x * x;
  return (x - 0.5) * Math.log(x) - x + 0.91893853320467274178 +
    1 / (12 * x) - 1 / (360 * x * x2) + 1 / (1260 * x2 * x2 * x) - 1 / (1680 * x2 * x2 * x2 * x);
}

export function blockedExpectedFpr(nblocks, k, n) {
  const lambda = n / nblocks;
  const missPerKey = Math.pow(1.0 - 1.0 / BLOCK_BITS, k);
  if (lambda <= 0.0) return 0.0;
  if (lambda > 4096.0) return Math.pow(-Math.expm1(lambda * Math.log(missPerKey)), k);

  const spread = 12.0 * Math.sqrt(lambda) + 30.0;
  let lo = Math.floor(lambda - spread);
  if (lo < 0) lo = 0;
  const hi = Math.ceil(lambda + spread);

  let pmf = Math.exp(lo * Math.log(lambda) - lambda - lgammaInt(lo + 1.0));
  let miss = Math.pow(missPerKey, lo);
  let sum = 0.0;
  for (let l = lo; l <= hi; l += 1.0) {
    sum += pmf * Math.pow(1.0 - miss, k);
    pmf *= lambda / (l + 1.0);
    miss *= missPerKey;
  }
  return sum;
}

function blockedMargin(p) {
  let m = 1.08;
  if (p < 1e-6) m *= 1.0 + 0.03 * Math.log10(1e-6 / p);
  return m;
}

function blockedBitsPerKey(k, p) {
  let lo = 0.5;
  let hi = 4096.0;
  if (blockedExpectedFpr(1.0, k, BLOCK_BITS / hi) > p) return Infinity;
  for (let i = 0; i < 60 && hi - lo > 1e-4 * lo; i++) {
    const mid = 0.5 * (lo + hi);
    if (blockedExpectedFpr(1.0, k, BLOCK_BITS / mid) > p) lo = mid;
    else hi = mid;
  }
  return hi;
}

function sizeClassic(n, p) {
  let m = Math.ceil(optimalBits(n, p) / 64.0) * 64.0;
  for (;;) {
    const k = optimalHashes(m, n);
    let bestK = k;
    let best = expectedFpr(m, k, n);
    for (let kk = k - 1; kk <= k + 1; kk++) {
      if (kk < MIN_HASHES || kk > MAX_HASHES) continue;
      const f = expectedFpr(m, kk, n);
      if (f < best) {
        best = f;
        bestK = kk;
      }
    }
    if (m > MAX_NBITS) return null;
    if (best <= p) return { nbits: m, hashes: bestK };
    m += Math.max(64.0, Math.ceil(m / 2048.0 / 64.0) * 64.0);
  }
}

function blockedBestHashes(p) {
  let bestC = Infinity;
  let bestK = MIN_HASHES;
  for (let k = MIN_HASHES; k <= MAX_HASHES; k++) {
    const c = blockedBitsPerKey(k, p);
    if (c < bestC) {
      bestC = c;
      bestK = k;
    } else if (c > bestC * 1.02) {
      break;
    }
  }
  return { k: bestK, c: bestC };
}

function sizeBlocked(n, p) {
  const { k, c } = blockedBestHashes(p);
  if (!Number.isFinite(c)) return null;
  let nblocks = Math.ceil(n * c / BLOCK_BITS);
  if (nblocks < 1) nblocks = 1;
  while (blockedExpectedFpr(nblocks, k, n) > p) {
    if (nblocks * BLOCK_BITS > MAX_NBITS) return null;
    nblocks += Math.max(1.0, Math.ceil(nblocks / 4096.0));
  }
  if (nblocks * BLOCK_BITS > MAX_NBITS) return null;
  return { nbits: nblocks * BLOCK_BITS, hashes: k };
}

/** bf_size_for: {nbits, hashes}, or null when no filter within the limit fits. */
export function sizeFor(layout, n, p) {
  if (!(n >= 1.0)) n = 1.0;
  if (!(p > 0.0 && p < 1.0)) return null;
  if (layout === 2) return sizeBlocked(n, p / blockedMargin(p));
  return sizeClassic(n, p);
}

// ---- estimates (bf_estimate.c) ----

export function popcount32(x) {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function swamidassBaldi(x, m, k) {
  if (x >= m) x = m - 0.5;
  return -(m / k) * Math.log1p(-x / m);
}

/** Histogram of block popcounts (blocked) or the total popcount (classic). */
function blockHistogram(words) {
  const hist = new Float64Array(BLOCK_BITS + 1);
  for (let b = 0; b < words.length; b += 16) {
    let c = 0;
    for (let i = 0; i < 16; i++) c += popcount32(words[b + i]);
    hist[c]++;
  }
  return hist;
}

export function popcount(words) {
  let c = 0;
  for (let i = 0; i < words.length; i++) c += popcount32(words[i]);
  return c;
}

export function estCardinality(layout, words, nbits, k) {
  if (layout === 2) {
    const hist = blockHistogram(words);
    let n = 0.0;
    for (let x = 1; x <= BLOCK_BITS; x++) {
      if (hist[x]) n += hist[x] * swamidassBaldi(x, BLOCK_BITS, k);
    }
    return n;
  }
  return swamidassBaldi(popcount(words), nbits, k);
}

export function estFpr(layout, words, nbits, k) {
  if (layout === 2) {
    const hist = blockHistogram(words);
    let sum = 0.0;
    for (let x = 1; x <= BLOCK_BITS; x++) {
      if (hist[x]) sum += hist[x] * Math.pow(x / BLOCK_BITS, k);
    }
    return sum / (nbits / BLOCK_BITS);
  }
  return Math.pow(popcount(words) / nbits, k);
}
