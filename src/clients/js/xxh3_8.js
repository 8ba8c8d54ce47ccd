// XXH3-64 of an 8-byte input with a seed, in 32-bit halves: the integer
// keys' hot path (the keys of the integer, float, date and timestamp
// families are 8 bytes).  It is XXH3's 4-to-8-byte path (xxhash.h 0.8,
// XXH3_len_4to8_64b and XXH3_rrmxmx) for len = 8, exact to the bit; the
// tests compare it with @node-rs/xxhash on random inputs and seeds.  A
// call into the native package costs several times the whole of this.

import { xxh3 } from '@node-rs/xxhash';

const MX2_HI = 0x9fb21c65;
const MX2_LO = 0x1e98df25;
// XXH3's default secret, bytes 8..15 and 16..23, read little-endian
const SECRET_8 = 0x1cad21f72c81017cn;
const SECRET_16 = 0xdb979083e96dd4den;

/** The per-seed constant: (secret[8..16) ^ secret[16..24)) - (seed ^ (swap32(seed) << 32)). */
export function xxh3Bitflip(seed) {
  const lo = Number(seed & 0xffffffffn);
  const swapped = BigInt((((lo & 0xff) << 24) | ((lo & 0xff00) << 8) | ((lo >>> 8) & 0xff00) | (lo >>> 24)) >>> 0);
  const s = seed ^ (swapped << 32n);
  return BigInt.asUintN(64, (SECRET_8 ^ SECRET_16) - s);
}

/** Output of xxh3_8: the hash's low and high 32 bits. */
export const OUT = new Uint32Array(2);

/**
 * (hi, lo) * (bHi, bLo) mod 2^64 into out (low word, high word): the low
 * words' full product from 16-bit parts (each partial product exact), the
 * cross terms' low 32 bits by Math.imul.
 */
export function mul64(hi, lo, bHi, bLo, out) {
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  out[0] = ((mid << 16) | (p00 & 0xffff)) >>> 0;
  out[1] = (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) +
    Math.imul(hi, bLo) + Math.imul(lo, bHi)) >>> 0;
}

function mulMx2(hi, lo) {
  mul64(hi, lo, MX2_HI, MX2_LO, OUT);
}

/**
 * XXH3-64 of the 8 bytes whose little-endian 32-bit words are w0 (bytes
 * 0..3) and w1 (bytes 4..7), for a seed's bitflip (bfHi, bfLo); the hash
 * goes to OUT[0] (low 32 bits) and OUT[1] (high).
 */
export function xxh3_8(w0, w1, bfHi, bfLo) {
  // input64 = w1 + (w0 << 32), then ^ bitflip
  let hi = (w0 ^ bfHi) >>> 0;
  let lo = (w1 ^ bfLo) >>> 0;
  // h ^= rotl(h, 49) ^ rotl(h, 24)
  const r49hi = (lo << 17) | (hi >>> 15);
  const r49lo = (hi << 17) | (lo >>> 15);
  const r24hi = (hi << 24) | (lo >>> 8);
  const r24lo = (lo << 24) | (hi >>> 8);
  hi = (hi ^ r49hi ^ r24hi) >>> 0;
  lo = (lo ^ r49lo ^ r24lo) >>> 0;
  mulMx2(hi, lo);
  hi = OUT[1];
  // h ^= (h >> 35) + len
  lo = (OUT[0] ^ ((hi >>> 3) + 8)) >>> 0;
  mulMx2(hi, lo);
  hi = OUT[1];
  lo = OUT[0];
  // h ^= h >> 28
  OUT[0] = (lo ^ ((lo >>> 28) | (hi << 4))) >>> 0;
  OUT[1] = (hi ^ (hi >>> 28)) >>> 0;
}

/** The same through the package, for the tests. */
export function xxh3Native(bytes, seed) {
  return xxh3.xxh64(bytes, seed);
}
