"""Sizing: a port of src/core/bf_sizing.c, step by step, so that
BloomFilter.empty(capacity, fpr, layout) picks the bits and hashes
bloom_empty(capacity, fpr, layout) picks.

Every floating-point step is the C one in the same order.  Python's float
operations are IEEE-754 doubles and math.log/exp/expm1/pow/sqrt call the C
library's; math.lgamma does not (CPython has its own), so lgamma comes from
the C library through ctypes when it can.
"""
import ctypes
import ctypes.util
import math
from functools import lru_cache

BLOCK_BITS = 512
MIN_HASHES = 1
MAX_HASHES = 32
# BF_MAX_TOTAL_BYTES = (0x3ffffffe - 6) // 4 * 3; m/8 + 52 within it, whole blocks
MAX_TOTAL_BYTES = (0x3FFFFFFE - 6) // 4 * 3
MAX_NBITS = (MAX_TOTAL_BYTES - 52) * 8 // 512 * 512

LN2 = 0.69314718055994530942

LAYOUT_CLASSIC = 1
LAYOUT_BLOCKED = 2


def _libm_lgamma():
    for name in (ctypes.util.find_library("m"), "libm.so.6"):
        if not name:
            continue
        try:
            f = ctypes.CDLL(name).lgamma
        except (OSError, AttributeError):
            continue
        f.restype = ctypes.c_double
        f.argtypes = [ctypes.c_double]
        return f
    return math.lgamma


_lgamma = _libm_lgamma()


def _c_round(x):
    """C's round(): halves away from zero (Python's round() goes to even)."""
    if x != x or math.isinf(x):
        return x
    f = math.floor(x)
    if x - f >= 0.5:
        return f + 1.0
    return float(f)


def optimal_bits(n, p):
    return float(math.ceil(-n * math.log(p) / (LN2 * LN2)))


def optimal_hashes(m, n):
    k = _c_round(m / n * LN2)
    if not (k >= MIN_HASHES):
        return MIN_HASHES
    if k > MAX_HASHES:
        return MAX_HASHES
    return int(k)


def expected_fpr(m, k, n):
    return math.pow(-math.expm1(-float(k) * n / m), k)


def blocked_expected_fpr(nblocks, k, n):
    lam = n / nblocks
    miss_per_key = math.pow(1.0 - 1.0 / BLOCK_BITS, k)
    if lam <= 0.0:
        return 0.0
    if lam > 4096.0:
        return math.pow(-math.expm1(lam * math.log(miss_per_key)), k)
    spread = 12.0 * math.sqrt(lam) + 30.0
    lo = float(math.floor(lam - spread))
    if lo < 0:
        lo = 0.0
    hi = float(math.ceil(lam + spread))
    pmf = math.exp(lo * math.log(lam) - lam - _lgamma(lo + 1.0))
    miss = math.pow(miss_per_key, lo)
    s = 0.0
    l = lo
    while l <= hi:
        s += pmf * math.pow(1.0 - miss, k)
        pmf *= lam / (l + 1.0)
        miss *= miss_per_key
        l += 1.0
    return s


def blocked_margin(p):
    m = 1.08
    if p < 1e-6:
        m *= 1.0 + 0.03 * math.log10(1e-6 / p)
    return m


def _blocked_bits_per_key(k, p):
    lo = 0.5
    hi = 4096.0
    if blocked_expected_fpr(1.0, k, BLOCK_BITS / hi) > p:
        return math.inf
    i = 0
    while i < 60 and hi - lo > 1e-4 * lo:
        mid = 0.5 * (lo + hi)
        if blocked_expected_fpr(1.0, k, BLOCK_BITS / mid) > p:
            lo = mid
        else:
            hi = mid
        i += 1
    return hi


def _size_classic(n, p):
    m = math.ceil(optimal_bits(n, p) / 64.0) * 64.0
    while True:
        k = optimal_hashes(m, n)
        best_k = k
        best = expected_fpr(m, k, n)
        for kk in (k - 1, k, k + 1):
            if kk < MIN_HASHES or kk > MAX_HASHES:
                continue
            f = expected_fpr(m, kk, n)
            if f < best:
                best = f
                best_k = kk
        if m > float(MAX_NBITS):
            return None
        if best <= p:
            return int(m), best_k
        m += max(64.0, math.ceil(m / 2048.0 / 64.0) * 64.0)


@lru_cache(maxsize=256)
def _blocked_best_hashes(p):
    best_c = math.inf
    best_k = MIN_HASHES
    for k in range(MIN_HASHES, MAX_HASHES + 1):
        c = _blocked_bits_per_key(k, p)
        if c < best_c:
            best_c = c
            best_k = k
        elif c > best_c * 1.02:
            break
    return best_k, best_c


def _size_blocked(n, p):
    best_k, best_c = _blocked_best_hashes(p)
    if not math.isfinite(best_c):
        return None
    nblocks = float(math.ceil(n * best_c / BLOCK_BITS))
    if nblocks < 1:
        nblocks = 1.0
    while blocked_expected_fpr(nblocks, best_k, n) > p:
        if nblocks * BLOCK_BITS > float(MAX_NBITS):
            return None
        nblocks += max(1.0, float(math.ceil(nblocks / 4096.0)))
    if nblocks * BLOCK_BITS > float(MAX_NBITS):
        return None
    return int(nblocks) * BLOCK_BITS, best_k


def size_for(layout, n, p):
    """(nbits, hashes) of the smallest filter of the layout for n keys at
    rate p, or None when it would pass the largest filter (bf_size_for)."""
    n = float(n)
    if not (n >= 1.0):
        n = 1.0
    if not (0.0 < p < 1.0):
        return None
    if layout == LAYOUT_BLOCKED:
        return _size_blocked(n, p / blocked_margin(p))
    return _size_classic(n, p)
