// bloomfilter: the PostgreSQL extension's filters in JavaScript.
//
// A BloomFilter holds the portable bytes of src/core/FORMAT.md (the header
// and the bit array); add, contains, union and intersect give the bits the
// server gives, and toBytes()/toText() the bytes it sends.  Keys are hashed
// with XXH3-64 (@node-rs/xxhash) seeded with the filter's seed.

import { xxh3 } from '@node-rs/xxhash';
import { OUT, mul64, xxh3Bitflip, xxh3_8 } from './xxh3_8.js';
import {
  BloomKey, Family, FAMILY_NAMES, FAMILY_OUT, encodeKey, familyDisplay,
} from './keys.js';
import {
  BLOCK_BITS, MAX_HASHES, MAX_NBITS, MIN_HASHES, estCardinality, estFpr,
  popcount, sizeFor,
} from './sizing.js';

export { BloomKey, Family };

/** This client's release (package.json's version; a test keeps them equal). */
export const CLIENT_VERSION = '1.1.0';
/** The format version this client writes (src/core/FORMAT.md, "Compatibility"). */
export const FORMAT_VERSION = 1;
/** Version 2: the layouts of other engines (parquet, spark), which this client refuses by name. */
const FORMAT_VERSION_2 = 2;
/** The format versions this client reads; a newer one is refused with the release that reads it. */
export const READ_FORMAT_VERSIONS = Object.freeze([FORMAT_VERSION, FORMAT_VERSION_2]);

// the server's other formats: refused, by name
const OTHER_MAGICS = { BLMW: 'bloomwindow', BLMS: 'scalablebloom', BFAS: 'bloomfilter_aggstate' };

/**
 * What to do about a format version this client does not read: a newer one
 * comes with a later minor release (formats change only in minor or major
 * releases), so it names the next one.
 */
function versionDetail(version) {
  const reads = READ_FORMAT_VERSIONS.join(', ');
  if (version > Math.max(...READ_FORMAT_VERSIONS)) {
    const [major, minor] = CLIENT_VERSION.split('.').map(Number);
    return `format version ${version} needs bloomfilter client ${major}.${minor + 1} or later; this client (${CLIENT_VERSION}) reads format version ${reads}`;
  }
  return `format version ${version} was never written; this client (${CLIENT_VERSION}) reads format version ${reads}`;
}

const HEADER = 52;
const OFF_VERSION = 4;
const OFF_LAYOUT = 6;
const OFF_HASHES = 7;
const OFF_SEED = 8;
const OFF_NBITS = 16;
const OFF_ADDED = 24;
const OFF_FAMILY = 32;
const OFF_FLAGS = 34;
const OFF_TYPETAG = 36;
const OFF_RESERVED = 40;
const OFF_CHECKSUM = 44;
const LAYOUTS = { classic: 1, blocked: 2 };
const LAYOUT_NAMES = [undefined, 'classic', 'blocked'];
const U64_MAX = 2n ** 64n - 1n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const TAGGED = new Set([11, 14, 15, 16]);

if (new Uint8Array(Uint32Array.of(1).buffer)[0] !== 1) {
  throw new Error('bloomfilter: this client reads the bit array as little-endian 32-bit words; this machine is big-endian');
}

/**
 * An error in bytes or text given as a filter, or in combining filters.
 * code says which check failed ('truncated', 'magic', 'version', 'layout',
 * 'hashes', 'nbits', 'size', 'family', 'reserved', 'checksum', 'added',
 * 'base64', 'incompatible').
 */
export class BloomFilterError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'BloomFilterError';
    this.code = code;
  }
}

// scratch space for integer keys; a key's hash, as 32-bit halves in H32
// (H32[0] the low bits) and, for the package's answer, as H64
const KEY8 = new Uint8Array(8);
const KEY8_DV = new DataView(KEY8.buffer);
const H32 = OUT;
const H64 = new BigUint64Array(H32.buffer, 0, 1);

/**
 * The hash of an integer key (8 bytes little-endian: the low word, then the
 * high) into H32, for a filter's seed bitflip: the hot path, in JavaScript.
 */
function hashSafeInteger(key, bfHi, bfLo) {
  const hi = Math.floor(key / 4294967296);
  xxh3_8(key - hi * 4294967296, hi >>> 0, bfHi, bfLo);
}

/** The hash of key bytes into H32: 8 bytes in JavaScript, others by the package. */
function hashBytes(b, seed, bfHi, bfLo) {
  if (b.length === 8) {
    xxh3_8((b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0,
      (b[4] | (b[5] << 8) | (b[6] << 16) | (b[7] << 24)) >>> 0, bfHi, bfLo);
  } else {
    H64[0] = xxh3.xxh64(b, seed);
  }
}

function checksum(buf) {
  return xxh3.Xxh3.withSeed(0n)
    .update(buf.subarray(0, OFF_CHECKSUM))
    .update(buf.subarray(HEADER))
    .digest();
}

function layoutArg(layout, dflt) {
  if (layout === undefined) return dflt;
  const l = LAYOUTS[layout];
  if (l === undefined) {
    throw new RangeError(`unknown bloomfilter layout "${layout}": the layouts are 'classic' and 'blocked'`);
  }
  return l;
}

/** The seed as the header's 64 bits: an int8 (number or bigint). */
function seedArg(seed) {
  if (seed === undefined) return 0n;
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`a seed is an integer, not ${seed}`);
    seed = BigInt(seed);
  }
  if (typeof seed !== 'bigint' || seed < INT64_MIN || seed > INT64_MAX) {
    throw new RangeError(`a seed is an int8 (a number or a bigint in [-2^63, 2^63-1]), not ${String(seed)}`);
  }
  return BigInt.asUintN(64, seed);
}

function positiveInt(x, what) {
  if (typeof x === 'bigint') {
    if (x > BigInt(Number.MAX_SAFE_INTEGER)) return Infinity;
    x = Number(x);
  }
  if (typeof x !== 'number' || !Number.isInteger(x)) {
    throw new TypeError(`${what} is an integer, not ${String(x)}`);
  }
  return x;
}

/** splitmix64's finalizer (bf_mix64) of (hi, lo), into out as [lo, hi]. */
function mix64(hi, lo, out) {
  lo = (lo ^ ((lo >>> 30) | (hi << 2))) >>> 0;
  hi = (hi ^ (hi >>> 30)) >>> 0;
  mul64(hi, lo, 0xbf58476d, 0x1ce4e5b9, out);
  lo = (out[0] ^ ((out[0] >>> 27) | (out[1] << 5))) >>> 0;
  hi = (out[1] ^ (out[1] >>> 27)) >>> 0;
  mul64(hi, lo, 0x94d049bb, 0x133111eb, out);
  lo = (out[0] ^ ((out[0] >>> 31) | (out[1] << 1))) >>> 0;
  hi = (out[1] ^ (out[1] >>> 31)) >>> 0;
  out[0] = lo;
  out[1] = hi;
}

const MIX = new Uint32Array(2);

/**
 * ((hi * nblocks) >> 32) exactly: nblocks < 2^24, so the product may pass
 * 2^53; then hi is split in 16-bit halves, every partial product exact.
 */
function blockOf(hi, nb) {
  if (nb < 2097152) return Math.floor(hi * nb / 4294967296);
  const a = (hi >>> 16) * nb;
  const b = (hi & 0xffff) * nb;
  return Math.floor((a + Math.floor(b / 65536)) / 65536);
}

/**
 * ((x * m) >> 64) exactly, x = xh * 2^32 + xl, m = mh * 2^16 + ml < 2^34
 * (mh < 2^18, ml < 2^16): each partial product stays below 2^53.
 */
function rangeHi(xl, xh, mh, ml) {
  const c = Math.floor((xl * mh + Math.floor(xl * ml / 65536)) / 65536);
  return Math.floor((xh * mh + Math.floor((xh * ml + c) / 65536)) / 65536);
}

/** For the tests: the exact-arithmetic helpers of the probe path. */
export const _internals = { blockOf, rangeHi, mix64 };

export class BloomFilter {
  /** Use BloomFilter.empty, emptyBits, fromBytes or fromText. */
  constructor(buf) {
    this._buf = buf;
    this._words = new Uint32Array(buf.buffer, buf.byteOffset + HEADER, (buf.length - HEADER) >>> 2);
    const dv = new DataView(buf.buffer, buf.byteOffset, HEADER);
    this._layout = buf[OFF_LAYOUT];
    this._hashes = buf[OFF_HASHES];
    this._seed = dv.getBigUint64(OFF_SEED, true);
    this._nbits = Number(dv.getBigUint64(OFF_NBITS, true));
    this._nblocks = this._nbits / BLOCK_BITS;
    this._addedBase = dv.getBigUint64(OFF_ADDED, true);
    this._addedMore = 0; // adds since _addedBase: a number, cheaper than a bigint per add
    this._family = dv.getUint16(OFF_FAMILY, true);
    this._typeTag = dv.getUint32(OFF_TYPETAG, true);
    const bf = xxh3Bitflip(this._seed);
    this._bfHi = Number(bf >> 32n);
    this._bfLo = Number(bf & 0xffffffffn);
  }

  /** The add count, saturating at 2^64-1 as the server's. */
  get _added() {
    if (this._addedMore !== 0) {
      const s = this._addedBase + BigInt(this._addedMore);
      this._addedBase = s > U64_MAX ? U64_MAX : s;
      this._addedMore = 0;
    }
    return this._addedBase;
  }

  set _added(v) {
    this._addedBase = v;
    this._addedMore = 0;
  }

  static _make(layout, hashes, seed, nbits) {
    const buf = new Uint8Array(HEADER + nbits / 8);
    const dv = new DataView(buf.buffer);
    buf.set([0x42, 0x4c, 0x4d, 0x46]);
    dv.setUint16(OFF_VERSION, FORMAT_VERSION, true);
    buf[OFF_LAYOUT] = layout;
    buf[OFF_HASHES] = hashes;
    dv.setBigUint64(OFF_SEED, seed, true);
    dv.setBigUint64(OFF_NBITS, BigInt(nbits), true);
    return new BloomFilter(buf);
  }

  /**
   * The smallest filter of the layout that keeps the rate at or under fpr
   * after capacity distinct keys: bloom_empty(capacity, fpr, layout, seed).
   */
  static empty(capacity, { fpr = 0.01, layout = 'blocked', seed = 0 } = {}) {
    const l = layoutArg(layout, 2);
    const n = positiveInt(capacity, 'capacity');
    if (!(n > 0)) throw new RangeError(`bloomfilter capacity must be positive, not ${capacity}`);
    if (typeof fpr !== 'number' || !(fpr > 0 && fpr < 1)) {
      throw new RangeError(`bloomfilter false-positive rate must be between 0 and 1 (exclusive), not ${fpr}`);
    }
    const s = seedArg(seed);
    const g = Number.isFinite(n) ? sizeFor(l, n, fpr) : null;
    if (g === null) {
      throw new RangeError(`a bloomfilter for ${capacity} keys at rate ${fpr} would exceed the largest bloomfilter`);
    }
    return BloomFilter._make(l, g.hashes, s, g.nbits);
  }

  /**
   * Explicit bits and hashes: bloom_empty_bits(bits, hashes, layout, seed).
   * bits is rounded up to whole 64-bit words (classic) or 512-bit blocks.
   */
  static emptyBits(bits, hashes, { layout = 'classic', seed = 0 } = {}) {
    const l = layoutArg(layout, 1);
    const b = positiveInt(bits, 'bits');
    if (!(b > 0)) throw new RangeError(`bloomfilter size must be positive, not ${bits} bits`);
    if (b > MAX_NBITS) {
      throw new RangeError(`a bloomfilter of ${bits} bits would exceed the largest bloomfilter (${MAX_NBITS} bits)`);
    }
    if (!Number.isInteger(hashes) || hashes < MIN_HASHES || hashes > MAX_HASHES) {
      throw new RangeError(`bloomfilter hashes must be between ${MIN_HASHES} and ${MAX_HASHES}, not ${hashes}`);
    }
    const unit = l === 2 ? BLOCK_BITS : 64;
    return BloomFilter._make(l, hashes, seedArg(seed), Math.ceil(b / unit) * unit);
  }

  // ---- keys ----

  /** The key's 64-bit hash into H32[0] (low) and H32[1] (high); returns its family. */
  _hashKey(key) {
    const bytes = encodeKey(key, KEY8, KEY8_DV);
    hashBytes(bytes, this._seed, this._bfHi, this._bfLo);
    return FAMILY_OUT.family;
  }

  _familyError(family) {
    return new TypeError(`the filter holds keys of family "${familyDisplay(this._family, this._typeTag)}", not "${FAMILY_NAMES[family]}": ` +
      'a filter answers only for keys of the family it was built from');
  }

  /**
   * Adds key (see BloomKey for what a key may be); returns this.  null and
   * undefined are skipped, as bloom_add skips NULL.
   */
  add(key) {
    if (key === null || key === undefined) return this;
    if (typeof key === 'number' && Number.isSafeInteger(key) && this._family === Family.INTEGER) {
      hashSafeInteger(key, this._bfHi, this._bfLo);
      this._insert(H32[0], H32[1]);
      this._addedMore++;
      return this;
    }
    const family = this._hashKey(key);
    if (family !== this._family) {
      if (this._family !== Family.NONE) throw this._familyError(family);
      this._family = family;
      this._typeTag = 0;
    }
    this._insert(H32[0], H32[1]);
    this._addedMore++;
    return this;
  }

  /**
   * Adds every key of an iterable (null and undefined skipped, as
   * bloom_add_all skips NULL elements); returns this.  All or nothing, as
   * the server's: every key is encoded and hashed before any bit is set, so
   * a refused key, or keys of two families, leave the filter as it was.
   */
  addAll(keys) {
    let lo = new Uint32Array(1024);
    let hi = new Uint32Array(1024);
    let n = 0;
    let family = this._family;
    const bfHi = this._bfHi;
    const bfLo = this._bfLo;
    for (const key of keys) {
      let fam;
      if (typeof key === 'number' && Number.isSafeInteger(key)) {
        hashSafeInteger(key, bfHi, bfLo);
        fam = Family.INTEGER;
      } else if (key === null || key === undefined) {
        continue;
      } else {
        fam = this._hashKey(key);
      }
      if (fam !== family) {
        if (family !== Family.NONE) {
          if (this._family === Family.NONE) {
            throw new TypeError(`the keys mix families ("${FAMILY_NAMES[family]}" and "${FAMILY_NAMES[fam]}"): ` +
              'a filter holds keys of one family; nothing was added');
          }
          throw this._familyError(fam);
        }
        family = fam;
      }
      if (n === lo.length) {
        const l2 = new Uint32Array(n * 2);
        const h2 = new Uint32Array(n * 2);
        l2.set(lo);
        h2.set(hi);
        lo = l2;
        hi = h2;
      }
      lo[n] = H32[0];
      hi[n] = H32[1];
      n++;
    }
    if (n === 0) return this;
    if (this._family === Family.NONE) {
      this._family = family;
      this._typeTag = 0;
    }
    for (let i = 0; i < n; i++) this._insert(lo[i], hi[i]);
    this._addedMore += n;
    return this;
  }

  /**
   * May key be in the set?  false is certain; true is wrong at about the
   * filter's rate.  A key of another family than the filter's is an error.
   */
  contains(key) {
    if (key === null || key === undefined) {
      throw new TypeError(`a ${key} key has no answer (SQL's bloom_contains gives NULL for a NULL key)`);
    }
    if (typeof key === 'number' && Number.isSafeInteger(key) && this._family === Family.INTEGER) {
      hashSafeInteger(key, this._bfHi, this._bfLo);
      return this._probe(H32[0], H32[1]);
    }
    const family = this._hashKey(key);
    if (family !== this._family) {
      if (this._family === Family.NONE) return false;
      throw this._familyError(family);
    }
    return this._probe(H32[0], H32[1]);
  }

  _insert(lo, hi) {
    const w = this._words;
    if (this._layout === 2) {
      const base = this._block(hi) * 16;
      let x = lo;
      for (let i = 0; i < this._hashes; i++) {
        const bit = x >>> 23;
        w[base + (bit >>> 5)] |= 1 << (bit & 31);
        x = Math.imul(x, 0x9e3779b9) >>> 0;
      }
      return;
    }
    this._classic(lo, hi, true);
  }

  _probe(lo, hi) {
    const w = this._words;
    if (this._layout === 2) {
      const base = this._block(hi) * 16;
      let x = lo;
      for (let i = 0; i < this._hashes; i++) {
        const bit = x >>> 23;
        if ((w[base + (bit >>> 5)] & (1 << (bit & 31))) === 0) return false;
        x = Math.imul(x, 0x9e3779b9) >>> 0;
      }
      return true;
    }
    return this._classic(lo, hi, false);
  }

  _block(hi) {
    return blockOf(hi, this._nblocks);
  }

  /**
   * Classic positions: x, y, z in the 2^64 ring as 32-bit halves, each
   * position ((x * m) >> 64) exact with m < 2^34 split in 16-bit parts.
   */
  _classic(lo, hi, set) {
    const w = this._words;
    const m = this._nbits;
    const mh = Math.floor(m / 65536);
    const ml = m % 65536;
    let xl = lo;
    let xh = hi;
    mix64(hi, lo, MIX);
    let yl = MIX[0];
    let yh = MIX[1];
    mix64((hi ^ 0x9e3779b9) >>> 0, (lo ^ 0x7f4a7c15) >>> 0, MIX);
    const zl = MIX[0];
    const zh = MIX[1];
    for (let i = 0; i < this._hashes; i++) {
      const pos = rangeHi(xl, xh, mh, ml);
      const word = Math.floor(pos / 32);
      const mask = 1 << (pos % 32);
      if (set) w[word] |= mask;
      else if ((w[word] & mask) === 0) return false;
      let s = xl + yl;
      xl = s >>> 0;
      xh = (xh + yh + (s > 0xffffffff ? 1 : 0)) >>> 0;
      s = yl + zl;
      yl = s >>> 0;
      yh = (yh + zh + (s > 0xffffffff ? 1 : 0)) >>> 0;
    }
    return true;
  }

  // ---- combining ----

  _compatible(g, what) {
    if (!(g instanceof BloomFilter)) throw new TypeError(`cannot ${what} a bloomfilter with ${String(g)}`);
    let why = null;
    if (this._layout !== g._layout) why = "the filters have different layouts";
    else if (this._hashes !== g._hashes) why = 'the filters use different numbers of hashes';
    else if (this._seed !== g._seed) why = 'the filters use different seeds';
    else if (this._family !== 0 && g._family !== 0 &&
      (this._family !== g._family || this._typeTag !== g._typeTag)) {
      why = 'the filters hold keys of different families';
    } else {
      const big = Math.max(this._nbits, g._nbits);
      const small = Math.min(this._nbits, g._nbits);
      let r = big / small;
      if (!Number.isInteger(r) || (r & (r - 1)) !== 0 ||
        (this._layout === 2 && small % BLOCK_BITS !== 0)) {
        why = "the filters' sizes are neither equal nor a power-of-two multiple of one another, so they cannot be folded to one size";
      }
    }
    if (why !== null) {
      throw new BloomFilterError('incompatible', `cannot ${what} bloomfilters: ${why}; ` +
        `the first is ${this._describe()}, the second ${g._describe()}`);
    }
    return Math.min(this._nbits, g._nbits);
  }

  _describe() {
    return `${LAYOUT_NAMES[this._layout]} with ${this._nbits} bits, ${this._hashes} hashes, ` +
      `seed ${BigInt.asIntN(64, this._seed)} and key family "${familyDisplay(this._family, this._typeTag)}"`;
  }

  /** The bits folded to nbits (a power-of-two fraction of this filter's). */
  _foldedWords(nbits) {
    if (nbits === this._nbits) return this._words;
    const out = new Uint32Array(nbits / 32);
    const src = this._words;
    const shift = Math.round(Math.log2(this._nbits / nbits));
    if (this._layout === 2) {
      for (let b = 0; b < this._nblocks; b++) {
        const d = (b >>> shift) * 16;
        for (let i = 0; i < 16; i++) out[d + i] |= src[b * 16 + i];
      }
    } else {
      for (let wi = 0; wi < src.length; wi++) {
        let s = src[wi];
        while (s !== 0) {
          const bit = 31 - Math.clz32(s & -s);
          const p = Math.floor((wi * 32 + bit) / 2 ** shift);
          out[p >>> 5] |= 1 << (p & 31);
          s &= s - 1;
        }
      }
    }
    return out;
  }

  _combine(g, what, op) {
    const nbits = this._compatible(g, what);
    const r = BloomFilter._make(this._layout, this._hashes, this._seed, nbits);
    const a = this._foldedWords(nbits);
    const b = g._foldedWords(nbits);
    const w = r._words;
    if (op === 'or') for (let i = 0; i < w.length; i++) w[i] = a[i] | b[i];
    else for (let i = 0; i < w.length; i++) w[i] = a[i] & b[i];
    const from = this._family !== 0 ? this : g;
    r._family = from._family;
    r._typeTag = from._typeTag;
    return r;
  }

  /** Every key of either (bloom_union, f | g): a new filter. */
  union(g) {
    const r = this._combine(g, 'union', 'or');
    const s = this._added + g._added;
    r._added = s > U64_MAX ? U64_MAX : s;
    warnUnionRate(r, this, g);
    return r;
  }

  /** The AND of the bits (bloom_intersect, f & g): a new filter. */
  intersect(g) {
    const r = this._combine(g, 'intersect', 'and');
    r._added = this._added < g._added ? this._added : g._added;
    return r;
  }

  /** Same header fields and bits (the server's f = g). */
  equals(g) {
    if (!(g instanceof BloomFilter)) return false;
    const a = this.toBytes();
    const b = g.toBytes();
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }

  // ---- bytes and text ----

  /** The portable bytes, sealed with their checksum (what f::bytea gives). */
  toBytes() {
    const out = this._buf.slice();
    const dv = new DataView(out.buffer);
    dv.setBigUint64(OFF_ADDED, this._added, true);
    dv.setUint16(OFF_FAMILY, this._family, true);
    dv.setUint32(OFF_TYPETAG, this._typeTag, true);
    dv.setBigUint64(OFF_CHECKSUM, checksum(out), true);
    return out;
  }

  /** The text form: padded base64 of toBytes() (what f::text gives). */
  toText() {
    const b = this.toBytes();
    return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
  }

  toString() {
    return this.toText();
  }

  /** node-postgres: a parameter's value (binary; type it as $1::bloomfilter). */
  toPostgres() {
    const b = this.toBytes();
    return Buffer.from(b.buffer, b.byteOffset, b.length);
  }

  /** Reads and validates portable bytes; a BloomFilterError says what is wrong. */
  static fromBytes(bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new TypeError(`BloomFilter.fromBytes takes a Uint8Array, not ${typeof bytes}`);
    }
    validate(bytes);
    // a copy in an ArrayBuffer of its own (a Buffer's slice() is a view, and
    // may start at an offset the bit array's 32-bit words cannot)
    const buf = new Uint8Array(bytes.length);
    buf.set(bytes);
    buf.fill(0, OFF_CHECKSUM, HEADER);
    return new BloomFilter(buf);
  }

  /**
   * Reads the text form as the server does: canonical padded base64, white
   * space (space, tab, CR, LF) anywhere skipped.
   */
  static fromText(text) {
    if (typeof text !== 'string') {
      throw new TypeError(`BloomFilter.fromText takes a string, not ${typeof text}`);
    }
    if (/[ \t\n\r]/.test(text)) text = text.replace(/[ \t\n\r]+/g, '');
    if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
      throw new BloomFilterError('base64', "invalid input syntax for type bloomfilter: a bloomfilter's text form is padded base64 of its portable bytes");
    }
    const b = Buffer.from(text, 'base64');
    if (b.toString('base64') !== text) {
      throw new BloomFilterError('base64', "invalid input syntax for type bloomfilter: a bloomfilter's text form is padded base64 of its portable bytes");
    }
    return BloomFilter.fromBytes(new Uint8Array(b.buffer, b.byteOffset, b.length));
  }

  // ---- inspection ----

  get layout() { return LAYOUT_NAMES[this._layout]; }

  get bits() { return this._nbits; }

  get hashes() { return this._hashes; }

  /** The seed as SQL shows it (a signed int8), a bigint. */
  get seed() { return BigInt.asIntN(64, this._seed); }

  /** Add operations recorded (a bigint; saturates at 2^64-1). */
  get added() { return this._added; }

  get keyFamily() { return familyDisplay(this._family, this._typeTag); }

  /** Estimated number of distinct keys (bloom_cardinality). */
  cardinality() {
    return estCardinality(this._layout, this._words, this._nbits, this._hashes);
  }

  /** Estimated false-positive rate now (bloom_fpr). */
  fpr() {
    return estFpr(this._layout, this._words, this._nbits, this._hashes);
  }

  /** The columns of bloom_info(f), by the same names. */
  info() {
    const set = popcount(this._words);
    return {
      layout: this.layout,
      bits: this._nbits,
      hashes: this._hashes,
      bytes: this._buf.length,
      seed: this.seed,
      key_family: this.keyFamily,
      added: this._added > INT64_MAX ? INT64_MAX : this._added,
      bits_set: set,
      fill_ratio: set / this._nbits,
      est_cardinality: this.cardinality(),
      est_fpr: this.fpr(),
      format_version: FORMAT_VERSION,
    };
  }

  // key helpers, also reachable as BloomFilter.uuid(...) etc.
  static int(x) { return BloomKey.int(x); }

  static text(s) { return BloomKey.text(s); }

  static bytea(b) { return BloomKey.bytea(b); }

  static bool(b) { return BloomKey.bool(b); }

  static uuid(u) { return BloomKey.uuid(u); }

  static float4(x) { return BloomKey.float4(x); }

  static float8(x) { return BloomKey.float8(x); }

  static date(d) { return BloomKey.date(d); }

  static timestamp(t) { return BloomKey.timestamp(t); }

  static timestamptz(t) { return BloomKey.timestamptz(t); }
}

/*
 * The server's WARNING for a union whose rate is high (bloom_warn_union_rate),
 * as a process warning: the union is right, but may prune nothing.
 */
function warnUnionRate(r, a, b) {
  const fpr = r.fpr();
  if (!(fpr > 0.05)) return;
  const input = Math.max(a.fpr(), b.fpr());
  if (!(fpr > 10 * input)) return;
  const hint = 'Filters that will be combined keep their rate when built at one size for all their keys, ' +
    'with bloom_agg(x, capacity, fpr), or as scalablebloom filters, with sbloom_agg(x).';
  const larger = a._nbits !== b._nbits ? Math.max(a._nbits, b._nbits) : 0;
  const msg = larger > r._nbits
    ? `bloomfilter union folded a filter of ${larger} bits to ${r._nbits} bits; its false-positive rate is now ${fpr.toPrecision(3)}`
    : `bloomfilter union of filters of ${r._nbits} bits has a false-positive rate of ${fpr.toPrecision(3)}; the filters united had at most ${input.toPrecision(3)}`;
  if (typeof process !== 'undefined' && typeof process.emitWarning === 'function') {
    process.emitWarning(`${msg}. ${hint}`, 'BloomFilterWarning');
  }
}

// ---- validation, in FORMAT.md's order ----

// the server's messages (bf_status_message), then the client's detail
const MESSAGES = {
  truncated: 'the buffer is shorter than a bloomfilter header',
  magic: 'the buffer does not start with the bloomfilter magic "BLMF"',
  version: 'the format version is not one this build reads',
  layout: 'the layout is unknown',
  hashes: 'the number of hashes is out of range',
  nbits: 'the number of bits is zero, too large, or not a whole number of words or blocks',
  size: 'the length does not match the number of bits in the header',
  family: 'the key family or type tag is invalid',
  reserved: 'reserved header fields are not zero',
  checksum: 'the checksum does not match the contents',
  added: 'bits are set but the header records no added key',
};

function fail(code, detail) {
  throw new BloomFilterError(code, `invalid bloomfilter: ${MESSAGES[code]}${detail ? ` (${detail})` : ''}`);
}

function validate(buf) {
  const len = buf.length;
  if (len < 6) fail('truncated', `${len} bytes were given`);
  if (buf[0] !== 0x42 || buf[1] !== 0x4c || buf[2] !== 0x4d || buf[3] !== 0x46) {
    if (buf[0] === 0x42 && buf[1] === 0x4c && buf[2] === 0x4d && buf[3] === 0x43) {
      throw new BloomFilterError('magic', 'invalid bloomfilter: this is a counting Bloom filter (magic "BLMC"), not a bloomfilter');
    }
    const other = OTHER_MAGICS[String.fromCharCode(buf[0], buf[1], buf[2], buf[3])];
    fail('magic', other && `the bytes are a ${other} (magic "${String.fromCharCode(buf[0], buf[1], buf[2], buf[3])}"); this client reads bloomfilter values only`);
  }
  const dv = new DataView(buf.buffer, buf.byteOffset, len);
  const version = dv.getUint16(OFF_VERSION, true);
  if (!READ_FORMAT_VERSIONS.includes(version)) fail('version', versionDetail(version));
  if (len < HEADER) fail('truncated', `a bloomfilter takes at least ${HEADER} bytes; ${len} bytes were given`);
  const layout = buf[OFF_LAYOUT];
  if (version === FORMAT_VERSION_2 && (layout === 3 || layout === 4)) {
    // format version 2's layouts of other engines (FORMAT.md)
    throw new BloomFilterError('layout', `invalid bloomfilter: the ${layout === 3 ? 'parquet' : 'spark'} layout is not supported by this client`);
  }
  if (layout !== 1 && layout !== 2) fail('layout', `the layout byte is ${layout}; 1 is classic and 2 is blocked`);
  const hashes = buf[OFF_HASHES];
  if (hashes < MIN_HASHES || hashes > MAX_HASHES) {
    fail('hashes', `the header gives ${hashes} hashes; a filter uses ${MIN_HASHES} to ${MAX_HASHES}`);
  }
  const nbits = dv.getBigUint64(OFF_NBITS, true);
  const unit = layout === 2 ? 512n : 64n;
  if (nbits === 0n || nbits > BigInt(MAX_NBITS) || nbits % unit !== 0n) {
    fail('nbits', `the header gives ${nbits} bits for a ${LAYOUT_NAMES[layout]} filter; it needs a positive multiple of ${unit}, at most ${MAX_NBITS}`);
  }
  if (BigInt(len - HEADER) !== nbits / 8n) {
    fail('size', `the header gives ${nbits} bits, which take ${Number(nbits / 8n) + HEADER} bytes with the header, but ${len} bytes were given`);
  }
  const family = dv.getUint16(OFF_FAMILY, true);
  const tag = dv.getUint32(OFF_TYPETAG, true);
  if (family > 16 || TAGGED.has(family) !== (tag !== 0)) {
    fail('family', `the header gives key family ${family} with type tag ${tag}; families go from 0 to 16, and families 11, 14, 15 and 16, and only they, have a type tag`);
  }
  if (dv.getUint16(OFF_FLAGS, true) !== 0 || dv.getUint32(OFF_RESERVED, true) !== 0) {
    fail('reserved');
  }
  if (dv.getBigUint64(OFF_CHECKSUM, true) !== checksum(buf)) {
    fail('checksum');
  }
  if (family === 0 || dv.getBigUint64(OFF_ADDED, true) === 0n) {
    for (let i = HEADER; i < len; i++) {
      if (buf[i] !== 0) fail('added');
    }
  }
}
