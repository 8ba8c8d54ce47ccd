// Shared by the tests: a seeded random source (so that a failure can be
// replayed: BLOOM_TEST_SEED=<n>), random keys of every family the client
// encodes, and how each is written as a PostgreSQL array parameter.

import { BloomKey } from '../index.js';

/**
 * The skip reason of the server tests when no server is configured, or
 * false.  BLOOMFILTER_SERVER_TESTS=require (test/run-all.sh) makes a
 * missing server a failure instead.
 */
export function serverSkip() {
  if (process.env.PGHOST || process.env.PGPORT || process.env.PGDATABASE) return false;
  if (process.env.BLOOMFILTER_SERVER_TESTS === 'require') {
    throw new Error('BLOOMFILTER_SERVER_TESTS=require, but no server: set PGHOST/PGPORT (pg_virtualenv does)');
  }
  return 'no server: set PGHOST/PGPORT (pg_virtualenv does)';
}

/**
 * CREATE EXTENSION bloomfilter unless there: the test files run at once
 * (node --test starts one process per file), so two may race to create it.
 */
export async function ensureExtension(client) {
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS bloomfilter');
  } catch (e) {
    const { rows } = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'bloomfilter'");
    if (rows.length === 0) throw e;
  }
}

export const SEED = Number(process.env.BLOOM_TEST_SEED ?? (Date.now() % 1000000));

/** mulberry32: a small seeded generator of uint32. */
export function rng(seed = SEED) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const r = {
    u32: next,
    below: (n) => Math.floor(next() / 4294967296 * n),
    float: () => next() / 4294967296,
    u64: () => (BigInt(next()) << 32n) | BigInt(next()),
    pick: (arr) => arr[Math.floor(next() / 4294967296 * arr.length)],
    bytes: (n) => {
      const b = new Uint8Array(n);
      for (let i = 0; i < n; i++) b[i] = next() & 0xff;
      return b;
    },
  };
  return r;
}

function pad(n, w) {
  return String(n).padStart(w, '0');
}

function randomText(r) {
  const len = r.below(12);
  let s = '';
  for (let i = 0; i < len; i++) {
    const kind = r.below(5);
    let cp;
    if (kind === 0) cp = 0x20; // spaces, trailing ones too
    else if (kind === 1) cp = 0x21 + r.below(0x5e);
    else if (kind === 2) cp = 0xa0 + r.below(0x700);
    else if (kind === 3) cp = 0x1f300 + r.below(0x200); // astral: surrogate pairs
    else cp = 0x3000 + r.below(0x5000);
    s += String.fromCodePoint(cp);
  }
  if (r.below(4) === 0) s += '  ';
  return s;
}

function civil(days) {
  // days since 2000-01-01 to y, m, d (proleptic Gregorian; Hinnant's civil_from_days)
  const z = days + 10957 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: era * 400 + yoe + (m <= 2 ? 1 : 0), m, d };
}

export function dateString(days) {
  const { y, m, d } = civil(days);
  if (y <= 0) return `${pad(1 - y, 4)}-${pad(m, 2)}-${pad(d, 2)} BC`;
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

function randomDays(r) {
  const k = r.below(10);
  if (k === 0) return r.below(2) ? 'infinity' : '-infinity';
  if (k < 3) return -2451545 + r.below(2451545 + 3000000); // BC through 10000 AD
  return -20000 + r.below(40000);
}

function timeString(r) {
  const frac = r.below(3) === 0 ? '' : '.' + pad(r.below(1000000), 6);
  return `${pad(r.below(24), 2)}:${pad(r.below(60), 2)}:${pad(r.below(60), 2)}${frac}`;
}

function randomTimestamp(r, withZone) {
  if (r.below(12) === 0) return r.pick(['infinity', '-infinity']);
  // now and then BC (down to 4713 BC) or far ahead (to 9999 AD)
  const k = r.below(6);
  const days = k === 0 ? -2451000 + r.below(2451000) : k === 1 ? r.below(2900000) : -200000 + r.below(400000);
  const { y, m, d } = civil(days);
  const bc = y <= 0 ? ' BC' : '';
  const date = `${pad(y <= 0 ? 1 - y : y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
  let zone = '';
  if (withZone) {
    const k = r.below(4);
    if (k === 0) zone = 'Z';
    else {
      const sign = r.below(2) ? '+' : '-';
      zone = `${sign}${pad(r.below(15), 2)}` + (k > 1 ? `:${pad(r.pick([0, 30, 45]), 2)}` : '');
    }
  }
  return `${date}${r.below(2) ? ' ' : 'T'}${timeString(r)}${zone}${bc}`;
}

function randomDouble(r) {
  const k = r.below(10);
  if (k === 0) return r.pick([0, -0, NaN, Infinity, -Infinity, 1, -1, 5e-324, 1.7976931348623157e308]);
  if (k < 4) return (r.below(2000000) - 1000000) / r.pick([1, 2, 3, 7, 10, 1000]);
  const b = new DataView(r.bytes(8).buffer);
  return b.getFloat64(0, true);
}

function uuidString(r) {
  const h = [...r.bytes(16)].map((b) => b.toString(16).padStart(2, '0')).join('');
  const forms = [
    () => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    () => h.toUpperCase(),
    () => `{${h}}`,
    () => h.replace(/(.{4})/g, '$1-').slice(0, -1),
  ];
  return r.pick(forms)();
}

/**
 * Per family: sqlType (the array element type of the server's side),
 * gen (a random value as the application holds it), key (the client key),
 * param (the value in the array parameter).
 */
export const FAMILIES = {
  int8: {
    sqlType: 'int8',
    gen: (r) => (r.below(2) ? BigInt.asIntN(64, r.u64()) : r.below(2000001) - 1000000),
    key: (v) => v,
    param: (v) => String(v),
  },
  int4: {
    sqlType: 'int4',
    gen: (r) => (r.u32() | 0),
    key: (v) => v,
    param: (v) => String(v),
  },
  int2: {
    sqlType: 'int2',
    gen: (r) => ((r.u32() << 16) >> 16),
    key: (v) => v,
    param: (v) => String(v),
  },
  text: { sqlType: 'text', gen: randomText, key: (v) => v, param: (v) => v },
  varchar: { sqlType: 'varchar', gen: randomText, key: (v) => v, param: (v) => v },
  bpchar: { sqlType: 'char(20)', gen: randomText, key: (v) => v, param: (v) => v },
  bytea: {
    sqlType: 'bytea',
    gen: (r) => r.bytes(r.below(40)),
    key: (v) => v,
    param: (v) => Buffer.from(v),
  },
  uuid: { sqlType: 'uuid', gen: uuidString, key: (v) => BloomKey.uuid(v), param: (v) => v },
  bool: { sqlType: 'bool', gen: (r) => r.below(2) === 1, key: (v) => v, param: (v) => v },
  float8: {
    sqlType: 'float8',
    gen: randomDouble,
    key: (v) => BloomKey.float8(v),
    param: (v) => String(v),
  },
  float4: {
    sqlType: 'float4',
    gen: (r) => Math.fround(randomDouble(r)),
    key: (v) => BloomKey.float4(v),
    param: (v) => String(v),
  },
  date: {
    sqlType: 'date',
    gen: (r) => {
      const d = randomDays(r);
      return typeof d === 'string' ? d : dateString(d);
    },
    key: (v) => BloomKey.date(v),
    param: (v) => v,
  },
  timestamp: {
    sqlType: 'timestamp',
    gen: (r) => randomTimestamp(r, false),
    key: (v) => BloomKey.timestamp(v),
    param: (v) => v,
  },
  timestamptz: {
    sqlType: 'timestamptz',
    gen: (r) => randomTimestamp(r, true),
    key: (v) => BloomKey.timestamptz(v),
    param: (v) => v,
  },
  'timestamptz (Date)': {
    sqlType: 'timestamptz',
    gen: (r) => new Date(Date.UTC(1900, 0, 1) + r.below(200 * 365) * 86400000 + r.below(86400000)),
    key: (v) => v,
    param: (v) => v.toISOString(),
  },
};

// ---- float4 values halfway between two float4s, as decimal text ----

const F32H = new Float32Array(1);
const U32H = new Uint32Array(F32H.buffer);
const F64H = new Float64Array(1);
const U64H = new BigUint64Array(F64H.buffer);

/** The exact decimal text of a finite double ('digits' 'e' exponent). */
export function exactDecimal(x) {
  if (x === 0) return '0';
  F64H[0] = Math.abs(x);
  const bits = U64H[0];
  const be = Number(bits >> 52n);
  let m = bits & ((1n << 52n) - 1n);
  let e;
  if (be === 0) e = -1074;
  else { m |= 1n << 52n; e = be - 1075; }
  const sign = x < 0 ? '-' : '';
  if (e >= 0) return sign + String(m << BigInt(e));
  // m * 2^e = m * 5^-e / 10^-e
  return `${sign}${m * 5n ** BigInt(-e)}e${e}`;
}

/** Adds one to the last digit of a decimal text ('digits[e exp]'). */
function bumpLast(t) {
  const [mant, ex] = t.split('e');
  const neg = mant.startsWith('-');
  const digits = BigInt(neg ? mant.slice(1) : mant) + 1n;
  return `${neg ? '-' : ''}${digits}${ex === undefined ? '' : 'e' + ex}`;
}

/** The first n significant digits of a decimal text, the rest cut off. */
function cutDigits(t, n) {
  const [mant, ex] = t.split('e');
  const neg = mant.startsWith('-');
  const d = neg ? mant.slice(1) : mant;
  if (d.length <= n) return t;
  const exp = Number(ex ?? 0) + d.length - n;
  return `${neg ? '-' : ''}${d.slice(0, n)}e${exp}`;
}

/**
 * Decimal texts of float4 values at and around the midpoints of random
 * neighbouring float4s (normal and subnormal, both signs, up to the
 * largest): the midpoint's shortest double text (String(x), what
 * node-postgres sends for the number), its exact decimal, that plus one in
 * its last digit, and cut to 9 to 20 digits (just below).  Each is within
 * the server's range unless it sits at the edges (2^-150, past FLT_MAX),
 * where both sides must refuse alike.
 */
export function halfwayFloat4Texts(r, n) {
  const out = [];
  while (out.length < n) {
    const k = r.below(10);
    let bits;
    if (k === 0) bits = r.below(0x800000); // subnormal
    else if (k === 1) bits = 0x7f7fffff - r.below(64); // near FLT_MAX
    else bits = r.below(0x7f7fffff);
    U32H[0] = bits;
    const a = F32H[0];
    U32H[0] = bits + 1;
    // past FLT_MAX the neighbour is 2^128, the edge of rounding to infinity
    const b = bits === 0x7f7fffff ? 2 ** 128 : F32H[0];
    let mid = (a + b) / 2;
    if (bits === 0 && r.below(2) === 0) mid = 2 ** -150; // halfway to zero
    if (r.below(2)) mid = -mid;
    const exact = exactDecimal(mid);
    const forms = [String(mid), exact, bumpLast(exact), cutDigits(exact, 9 + r.below(12))];
    out.push(r.pick(forms));
  }
  return out;
}
