// The client on its own: key encodings and their refusals, the exact
// 64-bit arithmetic of the probe path against BigInt, folding, family
// rules, argument checks.  No server.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BloomFilter, BloomFilterError, BloomKey, _internals } from '../index.js';
import { SEED, halfwayFloat4Texts, rng } from './helpers.mjs';
import { exactFloat4, parseFloat4 } from '../keys.js';
import { parseBloomFilter, setBloomFilterTypeParsers } from '../pg.js';

const hex = (b) => Buffer.from(b).toString('hex');

test('integers: one family for number and bigint, safe integers only', () => {
  const f = BloomFilter.empty(100).add(5);
  assert.equal(f.contains(5n), true);
  assert.equal(f.contains(BloomKey.int(5)), true);
  assert.equal(hex(BloomKey.int(-2).bytes), 'feffffffffffffff');
  assert.equal(hex(BloomKey.int(2 ** 40 + 3).bytes), '0300000000010000');
  assert.throws(() => f.add(1.5), /not an integer: a float key is BloomKey.float8/);
  assert.throws(() => f.add(NaN), TypeError);
  assert.throws(() => f.add(2 ** 53), /past Number.MAX_SAFE_INTEGER: pass it as a bigint/);
  assert.throws(() => f.add(2n ** 63n), /out of int8's range/);
  assert.throws(() => f.add(-(2n ** 63n) - 1n), /out of int8's range/);
  f.add(-(2n ** 63n)).add(2n ** 63n - 1n);
  // 1.0 is the integer 1 in JavaScript, and is taken as one
  assert.equal(f.contains(5.0), true);
  // the number path and the bigint path write the same bytes, negative ones too
  const r = rng(SEED);
  for (let i = 0; i < 2000; i++) {
    const v = (r.u32() * 2 ** 21 + (r.u32() >>> 11)) * (r.below(2) ? 1 : -1);
    const a = BloomFilter.emptyBits(512, 2).add(v);
    const b = BloomFilter.emptyBits(512, 2).add(BigInt(v));
    assert.equal(hex(a.toBytes()), hex(b.toBytes()), String(v));
  }
});

test('what is not a key is refused, never hashed as something else', () => {
  const f = BloomFilter.empty(100);
  for (const bad of [{}, [], [1], Symbol('x'), () => 1, new Map(), 1.25, 1n / 1n === 1n ? 0.5 : 0]) {
    assert.throws(() => f.add(bad), TypeError, String(typeof bad));
    assert.throws(() => f.contains(bad), TypeError, String(typeof bad));
  }
  for (const bad of [null, undefined]) assert.throws(() => f.contains(bad), TypeError);
  assert.throws(() => f.add(new Date(NaN)), /Invalid Date/);
  assert.equal(f.added, 0n);
});

test('text: UTF-8, trailing spaces dropped, strings PostgreSQL cannot hold refused', () => {
  assert.equal(hex(BloomKey.text('é ').bytes), 'c3a9');
  assert.equal(hex(BloomKey.text(' a\t ').bytes), '206109');
  assert.equal(hex(BloomKey.text('😀').bytes), 'f09f9880');
  const f = BloomFilter.empty(10).add('abc   ');
  assert.equal(f.contains('abc'), true);
  assert.throws(() => f.add('a\uD800'), /unpaired surrogate/);
  assert.throws(() => f.add('a\u0000b'), /NUL/);
});

test('uuid: the forms PostgreSQL reads, and nothing else', () => {
  const want = 'a0eebc999c0b4ef8bb6d6bb9bd380a11';
  for (const s of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
    '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', 'a0eebc999c0b4ef8bb6d6bb9bd380a11',
    'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11', '{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}']) {
    assert.equal(hex(BloomKey.uuid(s).bytes), want, s);
  }
  for (const s of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111',
    'a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11', '{a0eebc999c0b4ef8bb6d6bb9bd380a11', 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11',
    'a0eebc999c0b4ef8bb6d6bb9bd380a11-', 'g0eebc999c0b4ef8bb6d6bb9bd380a11', '']) {
    assert.throws(() => BloomKey.uuid(s), SyntaxError, s);
  }
  assert.equal(hex(BloomKey.uuid(Buffer.from(want, 'hex')).bytes), want);
  assert.throws(() => BloomKey.uuid(new Uint8Array(15)), RangeError);
  // a uuid and its text are different keys: a text filter refuses a uuid probe
  const t = BloomFilter.empty(10).add('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  assert.throws(() => t.contains(BloomKey.uuid(want)), /family "text", not "uuid"/);
});

test('floats: explicit, -0 as 0, one NaN, float4 from its text or an exact float4 number', () => {
  assert.equal(hex(BloomKey.float8(-0).bytes), hex(BloomKey.float8(0).bytes));
  assert.equal(hex(BloomKey.float8(NaN).bytes), '000000000000f87f');
  assert.equal(hex(BloomKey.float8(-NaN).bytes), '000000000000f87f');
  assert.equal(hex(BloomKey.float8(1).bytes), '000000000000f03f');
  assert.equal(hex(BloomKey.float4('1.1').bytes), hex(BloomKey.float8(Math.fround(1.1)).bytes));
  assert.notEqual(hex(BloomKey.float4('1.1').bytes), hex(BloomKey.float8(1.1).bytes));
  // a number is taken only when it is a float4 value: 1.1 is not, and which
  // float4 the server holds for it depends on the text it was given
  assert.equal(hex(BloomKey.float4(Math.fround(1.1)).bytes), hex(BloomKey.float4('1.1').bytes));
  assert.throws(() => BloomKey.float4(1.1), /not a float4 value.*BloomKey.float4\('1.1'\)/);
  assert.equal(hex(BloomKey.float4(NaN).bytes), '000000000000f87f');
  assert.equal(hex(BloomKey.float4(-0).bytes), hex(BloomKey.float4(0).bytes));
  assert.equal(BloomKey.float4(Infinity).bytes.length, 8);
  assert.throws(() => BloomKey.float8('1.5'), TypeError);
  const f = BloomFilter.empty(10).add(BloomKey.float8(1));
  assert.throws(() => f.contains(1), /family "float", not "integer"/);
});

test('float4 from text: the decimal rounded once, as strtof (float4in) rounds it', () => {
  const f4 = (t) => new DataView(BloomKey.float4(t).bytes.buffer).getFloat64(0, true);
  const cases = [
    // halfway between 1 and its successor, 1 + 2^-24, and either side of it
    ['1.000000059604644775390625', 1], // ties to even
    ['1.000000059604644775390624', 1],
    ['1.000000059604644775390626', 1 + 2 ** -23],
    ['1.00000005960464477539', 1], // what a JavaScript number cannot keep
    ['1.0000000596046448', 1 + 2 ** -23], // String(1 + 2^-24): above it
    // String(1 + 3 * 2^-24) is just below it: down, where Math.fround's tie goes up
    ['1.0000001788139343', 1 + 2 ** -23],
    // the edges: the largest, the smallest subnormal, halfway to zero
    ['3.4028235e38', 3.4028234663852886e38],
    ['3.40282356779733661637539395458142568447e38', 3.4028234663852886e38],
    ['1e-45', 2 ** -149],
    ['7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015626e-46', 2 ** -149],
    ['1.1754942e-38', 1.1754942106924411e-38], // subnormal
    // syntax as float4in takes it: white space, signs, points, exponents
    [' \t1.5\n', 1.5], ['+.5', 0.5], ['5.', 5], ['-2.5E+1', -25], ['1e0000000000000000000002', 100],
    ['0e999999999', 0], ['-0', 0], ['0.000', 0],
    ['NaN', NaN], ['-nan', NaN], ['Infinity', Infinity], ['-inf', -Infinity], ['+INFINITY', Infinity],
    [`0.${'0'.repeat(400)}1e400`, 0.10000000149011612], // many digits
    [`1.${'0'.repeat(300)}1`, 1], // a sticky digit far out
    [`1.000000059604644775390625${'0'.repeat(300)}1`, 1 + 2 ** -23], // just above halfway, far out
  ];
  for (const [t, want] of cases) assert.equal(f4(t), want, JSON.stringify(t));
  // what the server refuses: past the largest (halfway to 2^128 rounds up),
  // a nonzero value that rounds to zero (2^-150 ties to zero), bad syntax
  for (const t of ['3.40282356779733661637539395458142568448e38', '1e39', '-1e400', '1e-46',
    '7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015625e-46',
    '1e-99999999999']) {
    assert.throws(() => BloomKey.float4(t), /out of range for type real/, t);
  }
  for (const t of ['', ' ', '.', 'e5', '1e', '1e+', '1.5x', '0x1p3', 'nan(1)', '1 2', '--1', '\u00a01', 'Inf inity']) {
    assert.throws(() => BloomKey.float4(t), /invalid input syntax for type real/, JSON.stringify(t));
  }
});

test('float4 halfway values: the fast path agrees with exact rounding; Math.fround does not', () => {
  const r = rng(SEED + 17);
  const texts = halfwayFloat4Texts(r, 20000);
  let frounds = 0;
  for (const t of texts) {
    const m = /^(-?)(\d+)(?:e(-?\d+))?$/.exec(t.replace(/^(-?)(\d*)\.(\d*)e(-?\d+)$/, (_, s, a, b, e) => `${s}${a}${b}e${Number(e) - b.length}`));
    let got;
    try {
      got = parseFloat4(t);
    } catch (e) {
      got = 'refused';
    }
    if (m) {
      const digits = m[2].replace(/^0+/, '');
      const exact = exactFloat4(digits, Number(m[3] ?? 0));
      const want = exact === 0 || !Number.isFinite(exact) ? 'refused' : (m[1] ? -exact : exact);
      assert.equal(got, want, t);
    }
    if (got !== 'refused' && Math.fround(Number(t)) !== got) frounds++;
  }
  // the old BloomKey.float4(Number(text)) missed these
  assert.ok(frounds > 100, `Math.fround differs on ${frounds} of ${texts.length}`);
});

test('dates and times: strings, Dates and infinities', () => {
  assert.equal(hex(BloomKey.date('2000-01-01').bytes), '0000000000000000');
  assert.equal(hex(BloomKey.date('2000-01-02').bytes), '0100000000000000');
  assert.equal(hex(BloomKey.date('1999-12-31').bytes), 'ffffffffffffffff');
  assert.equal(hex(BloomKey.date('infinity').bytes), 'ffffff7f00000000');
  assert.equal(hex(BloomKey.date('-infinity').bytes), '00000080ffffffff');
  assert.equal(hex(BloomKey.date('0001-01-01 BC').bytes), hex(BloomKey.int(-730485).bytes));
  assert.equal(hex(BloomKey.date(new Date(2000, 0, 2, 23, 59)).bytes), '0100000000000000');
  // leap years BC are the astronomical year's: 1 BC (year 0) and 5 BC (-4) are leap years
  assert.equal(hex(BloomKey.date('0001-02-29 BC').bytes), hex(BloomKey.int(-730485 + 59).bytes));
  BloomKey.date('0005-02-29 BC');
  BloomKey.date('2969-02-29 BC');
  BloomKey.timestamp('0005-02-29 12:00:00 BC');
  for (const bad of ['2000-02-30', '2001-02-29', '2000-13-01', '2000-1-1', 'yesterday', '0000-01-01 BC',
    '0004-02-29 BC', '0002-02-29 BC']) {
    assert.throws(() => BloomKey.date(bad), Error, bad);
  }
  assert.equal(hex(BloomKey.timestamp('2000-01-01 00:00:01').bytes), hex(BloomKey.int(1000000).bytes));
  assert.equal(hex(BloomKey.timestamp('2000-01-01T00:00:00.5').bytes), hex(BloomKey.int(500000).bytes));
  assert.equal(hex(BloomKey.timestamp('infinity').bytes), 'ffffffffffffff7f');
  assert.equal(hex(BloomKey.timestamp('-infinity').bytes), '0000000000000080');
  assert.equal(hex(BloomKey.timestamp(new Date(2000, 0, 1, 0, 0, 1)).bytes), hex(BloomKey.int(1000000).bytes));
  assert.throws(() => BloomKey.timestamp('2000-01-01 00:00:00+02'), /no time zone/);
  assert.throws(() => BloomKey.timestamp('2000-01-01 00:00:00.1234567'), SyntaxError);
  const d = new Date(Date.UTC(2024, 4, 1, 10, 0, 0, 123));
  assert.equal(hex(BloomKey.timestamptz(d).bytes), hex(BloomKey.timestamptz('2024-05-01 12:00:00.123+02').bytes));
  assert.equal(hex(BloomKey.timestamptz(d).bytes), hex(BloomKey.timestamptz('2024-05-01T10:00:00.123Z').bytes));
  assert.equal(hex(BloomKey.timestamptz('2024-05-01 05:30:00.123-04:30').bytes), hex(BloomKey.timestamptz(d).bytes));
  assert.throws(() => BloomKey.timestamptz('2024-05-01 10:00:00'), /needs its offset/);
  // a plain Date is a timestamptz key
  const f = BloomFilter.empty(10).add(d);
  assert.equal(f.keyFamily, 'timestamptz');
  assert.equal(f.contains(BloomKey.timestamptz('2024-05-01T10:00:00.123Z')), true);
  assert.throws(() => f.contains(BloomKey.timestamp('2024-05-01 10:00:00.123')), /not "timestamp"/);
});

test('dates and times from text: what the server accepts, exactly; what it refuses, refused', () => {
  const ts = (t) => new DataView(BloomKey.timestamp(t).bytes.buffer).getBigInt64(0, true);
  const tz = (t) => new DataView(BloomKey.timestamptz(t).bytes.buffer).getBigInt64(0, true);
  // microseconds, BC, years past 9999, 24:00 and a leap second as the server rolls them
  assert.equal(ts('2000-01-01 00:00:00.000001'), 1n);
  assert.equal(ts('1999-12-31 23:59:59.999999'), -1n);
  assert.equal(ts('2000-01-01 24:00:00'), 86400000000n);
  assert.equal(ts('1999-12-31 23:59:60'), 0n);
  assert.equal(ts('0001-01-01 00:00:00 BC') + 366n * 86400000000n, ts('0001-01-01 00:00:00'));
  assert.equal(ts('10000-01-01 00:00:00'), BigInt(new Date('+010000-01-01T00:00:00Z').getTime() - 946684800000) * 1000n);
  // offsets as the server writes them (+HH, +HH:MM, +HH:MM:SS: local mean time) and compact ones
  assert.equal(tz('2000-01-01 00:53:28+00:53:28'), 0n);
  assert.equal(tz('2000-01-01 00:53:28+005328'), 0n);
  assert.equal(tz('2000-01-01 05:30:00+0530'), 0n);
  assert.equal(tz('1999-12-31 22:00:00-02'), 0n);
  // the server's range, its local date checked before the offset
  BloomKey.timestamp('4714-11-24 00:00:00 BC');
  BloomKey.timestamp('294276-12-31 23:59:59.999999');
  BloomKey.timestamptz('4714-11-24 01:00:00+01 BC');
  for (const bad of ['4714-11-23 23:59:59.999999 BC', '294277-01-01 00:00:00', '0000-01-01 00:00:00',
    '2000-01-01 24:00:00.000001', '2000-01-01 23:60:00', '2000-02-30 00:00:00']) {
    assert.throws(() => BloomKey.timestamp(bad), RangeError, bad);
  }
  for (const bad of ['4714-11-23 23:30:00-01 BC', '4714-11-24 00:30:00+01 BC', '294276-12-31 23:59:59-01',
    '2000-01-01 00:00:00+16', '2000-01-01 00:00:00+05:60']) {
    assert.throws(() => BloomKey.timestamptz(bad), RangeError, bad);
  }
  // forms the client does not read are refused, never guessed (the server's other DateStyles too)
  for (const bad of ['03/29/2026 02:30:00', '29.03.2026 02:30:00', 'Sun Mar 29 02:30:00 2026', 'now', 'epoch',
    '2026-03-29 02:30:00+05:3028', '2026-03-29 02:30', '\u00a02026-03-29 02:30:00']) {
    assert.throws(() => BloomKey.timestamptz(bad), SyntaxError, bad);
  }
  assert.throws(() => BloomKey.date('0000-01-01'), RangeError);
  assert.throws(() => BloomKey.date('03/29/2026'), SyntaxError);
});

test('Dates in a DST gap of the process time zone are refused, never read as another time', () => {
  const saved = process.env.TZ;
  try {
    process.env.TZ = 'Europe/Berlin';
    // node-postgres reads '2026-03-29 02:30:00' (a time Berlin skips) as new Date(2026, 2, 29, 2, 30)
    const moved = new Date(2026, 2, 29, 2, 30);
    assert.equal(moved.getHours(), 3);
    assert.throws(() => BloomKey.timestamp(moved), /skipped ahead/);
    // and 03:30 itself is refused: the Date cannot say which it was
    assert.throws(() => BloomKey.timestamp(new Date(2026, 2, 29, 3, 30)), /skipped ahead/);
    // outside the gap's shadow: read as before
    assert.equal(hex(BloomKey.timestamp(new Date(2026, 2, 29, 4, 0)).bytes),
      hex(BloomKey.timestamp('2026-03-29 04:00:00').bytes));
    assert.equal(hex(BloomKey.timestamp(new Date(2026, 2, 29, 1, 59, 59, 999)).bytes),
      hex(BloomKey.timestamp('2026-03-29 01:59:59.999').bytes));
    // autumn's repeated hour is no gap: either instant reads as its wall-clock time
    assert.equal(hex(BloomKey.timestamp(new Date(2026, 9, 25, 2, 30)).bytes),
      hex(BloomKey.timestamp('2026-10-25 02:30:00').bytes));
    // a date: midnight exists every day in Berlin
    assert.equal(hex(BloomKey.date(new Date(2026, 2, 29)).bytes), hex(BloomKey.date('2026-03-29').bytes));
    // Samoa skipped 2011-12-30 whole: node-postgres's Date for it is the 31st
    process.env.TZ = 'Pacific/Apia';
    const skipped = new Date(2011, 11, 30);
    assert.equal(skipped.getDate(), 31);
    assert.throws(() => BloomKey.date(skipped), /skipped ahead/);
    assert.equal(hex(BloomKey.date(new Date(2012, 0, 2)).bytes), hex(BloomKey.date('2012-01-02').bytes));
    // a zone whose midnight is skipped keeps the day: 00:30 of the same date
    process.env.TZ = 'America/Sao_Paulo';
    const shifted = new Date(2018, 10, 4);
    assert.equal(shifted.getHours(), 1);
    assert.equal(hex(BloomKey.date(shifted).bytes), hex(BloomKey.date('2018-11-04').bytes));
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
});

test('blocked block index and classic positions are exact 64-bit arithmetic', () => {
  const { blockOf, rangeHi } = _internals;
  const r = rng(SEED + 11);
  const maxBlocks = 6442450432 / 512;
  for (let i = 0; i < 20000; i++) {
    const hi = r.u32();
    const nb = i % 3 === 0 ? maxBlocks - r.below(1000) : 1 + r.below(maxBlocks);
    assert.equal(blockOf(hi, nb), Number((BigInt(hi) * BigInt(nb)) >> 32n), `${hi} ${nb}`);
    const x = r.u64();
    const m = (i % 3 === 0 ? 6442450432 - 64 * r.below(1000) : 64 * (1 + r.below(6442450432 / 64)));
    const want = Number((x * BigInt(m)) >> 64n);
    const got = rangeHi(Number(x & 0xffffffffn), Number(x >> 32n), Math.floor(m / 65536), m % 65536);
    assert.equal(got, want, `${x} ${m}`);
  }
  for (const hi of [0, 1, 0xffffffff, 0x80000000]) {
    assert.equal(blockOf(hi, maxBlocks), Number((BigInt(hi) * BigInt(maxBlocks)) >> 32n));
  }
});

test('folding: a union at the smaller size is the filter built at that size', () => {
  for (const layout of ['blocked', 'classic']) {
    const keys = Array.from({ length: 500 }, (_, i) => i * 7919);
    const big = BloomFilter.emptyBits(65536, 5, { layout }).addAll(keys.slice(0, 250));
    const small = BloomFilter.emptyBits(8192, 5, { layout }).addAll(keys.slice(250));
    const direct = BloomFilter.emptyBits(8192, 5, { layout }).addAll(keys);
    const u = big.union(small);
    assert.equal(u.bits, 8192);
    assert.ok(u.equals(direct), layout);
    assert.ok(small.union(big).equals(direct), layout);
    for (const k of keys) assert.equal(u.contains(k), true);
    // intersection: the keys of both probe true
    const i = BloomFilter.emptyBits(65536, 5, { layout }).addAll(keys).intersect(
      BloomFilter.emptyBits(8192, 5, { layout }).addAll(keys.slice(100)));
    for (const k of keys.slice(100)) assert.equal(i.contains(k), true);
    assert.equal(i.added, 400n);
  }
});

test('families: an empty filter answers false for any key and adopts the first key\'s', () => {
  const f = BloomFilter.empty(100);
  assert.equal(f.contains('x'), false);
  assert.equal(f.contains(1), false);
  assert.equal(f.keyFamily, 'none');
  f.add('x');
  assert.equal(f.keyFamily, 'text');
  assert.throws(() => f.add(1), /family "text", not "integer"/);
  assert.throws(() => f.contains(new Uint8Array([120])), /not "bytea"/);
  assert.throws(() => f.contains(true), /not "boolean"/);
  assert.equal(f.added, 1n);
  // adding to a copy leaves the original as it was
  const g = BloomFilter.fromBytes(f.toBytes());
  g.add('y');
  assert.equal(f.added, 1n);
  assert.equal(g.added, 2n);
});

test('added saturates at 2^64-1 in a union, as the server counts', () => {
  const a = BloomFilter.emptyBits(512, 2).add(1);
  const bytes = a.toBytes();
  const dv = new DataView(bytes.buffer);
  dv.setBigUint64(24, 2n ** 64n - 2n, true);
  // reseal: the checksum covers the header
  const { xxh3 } = _xxh;
  dv.setBigUint64(44, xxh3.Xxh3.withSeed(0n).update(bytes.subarray(0, 44)).update(bytes.subarray(52)).digest(), true);
  const big = BloomFilter.fromBytes(bytes);
  assert.equal(big.union(a).added, 2n ** 64n - 1n);
  assert.equal(big.union(a).union(a).added, 2n ** 64n - 1n);
  assert.equal(big.info().added, 2n ** 63n - 1n);
});

test('arguments: the server\'s refusals', () => {
  assert.throws(() => BloomFilter.empty(0), /capacity must be positive/);
  assert.throws(() => BloomFilter.empty(-5), /capacity must be positive/);
  assert.throws(() => BloomFilter.empty(10, { fpr: 0 }), /between 0 and 1/);
  assert.throws(() => BloomFilter.empty(10, { fpr: 1 }), /between 0 and 1/);
  assert.throws(() => BloomFilter.empty(10, { layout: 'split' }), /unknown bloomfilter layout/);
  assert.throws(() => BloomFilter.empty(1e12), /exceed the largest/);
  assert.throws(() => BloomFilter.empty(10n ** 20n), /exceed the largest/);
  assert.throws(() => BloomFilter.emptyBits(0, 3), /must be positive/);
  assert.throws(() => BloomFilter.emptyBits(64, 33), /hashes must be between 1 and 32/);
  assert.throws(() => BloomFilter.emptyBits(64, 0), /hashes must be between 1 and 32/);
  assert.throws(() => BloomFilter.emptyBits(6442450433, 3), /exceed the largest/);
  assert.throws(() => BloomFilter.empty(10, { seed: 2n ** 63n }), RangeError);
  assert.throws(() => BloomFilter.empty(10, { seed: 1.5 }), RangeError);
  assert.equal(BloomFilter.empty(10, { seed: -1 }).seed, -1n);
  assert.equal(BloomFilter.emptyBits(65, 3).bits, 128);
  assert.equal(BloomFilter.emptyBits(1, 3, { layout: 'blocked' }).bits, 512);
  assert.throws(() => BloomFilter.fromBytes('QkxN'), TypeError);
  assert.throws(() => BloomFilter.fromText(new Uint8Array(4)), TypeError);
});

test('text and bytes round-trip; info() names bloom_info\'s columns', () => {
  const f = BloomFilter.empty(1000, { layout: 'classic', seed: 42n }).addAll(['a', 'b', 'c']);
  const g = BloomFilter.fromText(f.toText());
  assert.ok(g.equals(f));
  assert.equal(String(f), f.toText());
  assert.ok(BloomFilter.fromBytes(f.toBytes()).equals(f));
  const info = f.info();
  assert.deepEqual(Object.keys(info), ['layout', 'bits', 'hashes', 'bytes', 'seed', 'key_family', 'added',
    'bits_set', 'fill_ratio', 'est_cardinality', 'est_fpr', 'format_version']);
  assert.equal(info.layout, 'classic');
  assert.equal(info.seed, 42n);
  assert.equal(info.added, 3n);
  assert.equal(info.bytes, f.toBytes().length);
  assert.ok(Math.abs(info.est_cardinality - 3) < 0.5);
  assert.throws(() => BloomFilter.fromText('not base64!'), BloomFilterError);
});

// the hash module, for resealing a hand-edited header
const _xxh = await import('@node-rs/xxhash');

test('addAll is all or nothing, and skips null as SQL skips NULL', () => {
  const f = BloomFilter.empty(100).addAll([1, null, 2, undefined]);
  assert.equal(f.added, 2n);
  const before = hex(f.toBytes());
  assert.throws(() => f.addAll([3, 4, 'five']), /family "integer", not "text"/);
  assert.throws(() => f.addAll([3, 4, 1.5]), /not an integer/);
  assert.equal(hex(f.toBytes()), before);
  const e = BloomFilter.empty(100);
  assert.throws(() => e.addAll(['a', 1]), /mix families/);
  assert.equal(e.keyFamily, 'none');
  assert.equal(e.added, 0n);
  assert.equal(e.add(null).added, 0n);
  assert.throws(() => e.contains(null), /NULL/);
  // addAll and add one by one give the same bytes
  const keys = Array.from({ length: 3000 }, (_, i) => i * 31 - 40000);
  const one = BloomFilter.empty(5000);
  for (const k of keys) one.add(k);
  assert.equal(hex(BloomFilter.empty(5000).addAll(keys).toBytes()), hex(one.toBytes()));
});

test('the 8-byte XXH3 in JavaScript is the package\'s XXH3-64, bit for bit', async () => {
  const { xxh3_8, xxh3Bitflip, OUT } = await import('../xxh3_8.js');
  const { xxh3 } = _xxh;
  const r = rng(SEED + 12);
  const b = new Uint8Array(8);
  const dv = new DataView(b.buffer);
  const seeds = [0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 0x9e3779b97f4a7c15n];
  for (let i = 0; i < 100000; i++) {
    const seed = i < seeds.length * 20 ? seeds[i % seeds.length] : r.u64();
    const w0 = i % 7 === 0 ? 0 : r.u32();
    const w1 = i % 11 === 0 ? 0xffffffff : r.u32();
    dv.setUint32(0, w0, true);
    dv.setUint32(4, w1, true);
    const bf = xxh3Bitflip(seed);
    xxh3_8(w0, w1, Number(bf >> 32n), Number(bf & 0xffffffffn));
    const got = (BigInt(OUT[1]) << 32n) | BigInt(OUT[0]);
    const want = xxh3.xxh64(b, seed);
    if (got !== want) assert.fail(`seed ${seed}, bytes ${hex(b)}: ${got.toString(16)} vs ${want.toString(16)}`);
  }
});

test('splitmix64 in 32-bit halves is bf_mix64', () => {
  const { mix64 } = _internals;
  const ref = (v) => {
    v ^= v >> 30n;
    v = BigInt.asUintN(64, v * 0xbf58476d1ce4e5b9n);
    v ^= v >> 27n;
    v = BigInt.asUintN(64, v * 0x94d049bb133111ebn);
    v ^= v >> 31n;
    return v;
  };
  const r = rng(SEED + 13);
  const out = new Uint32Array(2);
  for (let i = 0; i < 50000; i++) {
    const v = i < 3 ? [0n, 2n ** 64n - 1n, 2n ** 63n][i] : r.u64();
    mix64(Number(v >> 32n), Number(v & 0xffffffffn), out);
    assert.equal((BigInt(out[1]) << 32n) | BigInt(out[0]), ref(v), String(v));
  }
});

test('fromBytes copies: a Buffer view at any offset, left as it was', () => {
  const f = BloomFilter.empty(100).addAll([1, 2, 3]);
  const bytes = Buffer.from(f.toBytes());
  for (let off = 1; off < 4; off++) {
    const view = Buffer.concat([Buffer.alloc(off), bytes]).subarray(off);
    const before = view.toString('hex');
    const g = BloomFilter.fromBytes(view);
    assert.ok(g.equals(f));
    g.add(4);
    assert.equal(view.toString('hex'), before);
  }
  const raw = Buffer.from('abc');
  const k = BloomKey.bytea(raw);
  raw[0] = 0x7a;
  assert.equal(hex(k.bytes), '616263');
});

// A filter of layout spark (Spark's BloomFilter, format version 2), as the
// server's f::bytea gives it: bloom_add_all(bloom_empty(5, 0.1, 'spark'),
// ARRAY[101, 102, 103, 104, 105]).  The client does not place keys as Spark
// does, so it refuses the value rather than probe it wrongly.
test('a filter of layout spark is refused, not probed', () => {
  const hex = '424c4d46020004030000000000000000400000000000000005000000000000000100' +
    '010000000000000000009657518c74f785d4040240d41c002088';
  const bytes = Uint8Array.from(hex.match(/../g).map((h) => parseInt(h, 16)));
  assert.throws(() => BloomFilter.fromBytes(bytes), (e) => e instanceof BloomFilterError &&
    /format version|layout/.test(e.message));
});

// A filter of layout parquet (Parquet's split-block Bloom filter, format
// version 2), as the server's f::bytea gives it:
//   SELECT bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY[101, 102, 103, 104, 105])::bytea;
// A valid format-2 header and a bitset of one 256-bit block: read as
// blocked, it would answer for keys placed another way.
test('a filter of layout parquet is refused by name, from its bytes and its text', () => {
  const hex = '424c4d4602000308000000000000000000010000000000000500000000000000010001' +
    '000000000000000000e0934cc9c65ed7e60010428020088060003190001020840200100690' +
    '810800408000291080000096';
  const bytes = Uint8Array.from(hex.match(/../g).map((h) => parseInt(h, 16)));
  const refused = (e) => e instanceof BloomFilterError && e.code === 'layout' &&
    /the parquet layout is not supported/.test(e.message);
  assert.throws(() => BloomFilter.fromBytes(bytes), refused);
  assert.throws(() => BloomFilter.fromText(Buffer.from(bytes).toString('base64')), refused);
  // a Buffer, as node-postgres's binary parser hands it over
  assert.throws(() => BloomFilter.fromBytes(Buffer.from(bytes)), refused);
  // pg.js: parseBloomFilter and the parsers it installs, text and binary
  assert.throws(() => parseBloomFilter(Buffer.from(bytes)), refused);
  assert.throws(() => parseBloomFilter(Buffer.from(bytes).toString('base64')), refused);
  const parsers = {};
  setBloomFilterTypeParsers({ setTypeParser: (oid, fmt, fn) => { parsers[fmt] = fn; } }, 12345);
  assert.throws(() => parsers.text(Buffer.from(bytes).toString('base64')), refused);
  assert.throws(() => parsers.binary(Buffer.from(bytes)), refused);
});
