// The shared test vectors (test/vectors/vectors.tsv, written from the server
// by test/vectors/make_vectors.py; described in src/core/FORMAT.md "Test
// vectors"): no server needed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { BloomFilter, BloomFilterError, BloomKey } from '../index.js';

const path = fileURLToPath(new URL('../../../../test/vectors/vectors.tsv', import.meta.url));
const records = readFileSync(path, 'utf8').split('\n')
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((l) => l.split('\t'));
const of = (kind) => records.filter((r) => r[0] === kind);

const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'));
const utf8 = new TextDecoder('utf-8', { fatal: true });

const FAMILY_CODES = {
  integer: 1, float: 2, text: 4, bytea: 5, uuid: 6, boolean: 7, date: 8, timestamp: 9, timestamptz: 10,
};

/** A vector's value as an application holds it, as the client's key. */
function keyOf(family, value) {
  switch (family) {
    case 'integer': return BigInt(value);
    case 'float': return BloomKey.float8(Number(value));
    case 'text': return utf8.decode(unhex(value));
    case 'bytea': return unhex(value);
    case 'uuid': return BloomKey.uuid(value);
    case 'boolean': return value === 'true';
    case 'date': return BloomKey.date(value);
    case 'timestamp': return BloomKey.timestamp(value);
    case 'timestamptz': return BloomKey.timestamptz(value);
    default: throw new Error(`unknown family ${family} in the vectors`);
  }
}

function closeTo(a, b) {
  return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
}

test('the vectors are there', () => {
  for (const kind of ['key', 'sizing', 'filter', 'combine', 'corrupt', 'corrupt_text']) {
    assert.ok(of(kind).length > 0, `no ${kind} records in ${path}`);
  }
});

test('key records: the client writes the server\'s key bytes for every value', () => {
  const seen = new Set();
  for (const [, family, value, keyHex] of of('key')) {
    const k = keyOf(family, value);
    // the key bytes are what the client hashes: compare through a one-key filter
    const a = BloomFilter.emptyBits(512, 3, { layout: 'blocked' }).add(k);
    const b = BloomFilter.emptyBits(512, 3, { layout: 'blocked' }).add(new BloomKey(FAMILY_CODES[family], unhex(keyHex)));
    assert.equal(hex(a.toBytes()), hex(b.toBytes()), `${family} ${value}`);
    if (k instanceof BloomKey) assert.equal(hex(k.bytes), keyHex, `${family} ${value}`);
    seen.add(family);
  }
  assert.deepEqual([...seen].sort(), Object.keys(FAMILY_CODES).sort());
});

test('sizing records: BloomFilter.empty picks the server\'s bits and hashes', () => {
  for (const [, layout, capacity, fpr, nbits, hashes] of of('sizing')) {
    const what = `${layout} ${capacity} ${fpr}`;
    if (nbits === '-') {
      assert.throws(() => BloomFilter.empty(Number(capacity), { fpr: Number(fpr), layout }), /exceed/, what);
      continue;
    }
    const f = BloomFilter.empty(Number(capacity), { fpr: Number(fpr), layout });
    assert.equal(`${f.bits}/${f.hashes}`, `${nbits}/${hashes}`, what);
  }
});

test('filter records: the same keys give the server\'s bytes and estimates', () => {
  for (const [, name, layout, capacity, fpr, bits, hashes, seed, family, keys, card, estFpr, bytesHex] of of('filter')) {
    const f = capacity === '-'
      ? BloomFilter.emptyBits(Number(bits), Number(hashes), { layout, seed: BigInt(seed) })
      : BloomFilter.empty(Number(capacity), { fpr: Number(fpr), layout, seed: BigInt(seed) });
    if (keys !== '-') {
      for (const k of keys.split(',')) f.add(new BloomKey(Number(family), unhex(k)));
    }
    assert.equal(hex(f.toBytes()), bytesHex, name);
    const g = BloomFilter.fromBytes(unhex(bytesHex));
    assert.ok(closeTo(g.cardinality(), Number(card)), `${name}: cardinality ${g.cardinality()} vs ${card}`);
    assert.ok(closeTo(g.fpr(), Number(estFpr)), `${name}: fpr ${g.fpr()} vs ${estFpr}`);
    // no false negative: every key added probes true in the server's filter
    if (keys !== '-') {
      for (const k of keys.split(',')) assert.equal(g.contains(new BloomKey(Number(family), unhex(k))), true, name);
    }
  }
});

test('combine records: union and intersect give the server\'s bytes, or refuse as it does', () => {
  for (const [, op, a, b, result] of of('combine')) {
    const fa = BloomFilter.fromBytes(unhex(a));
    const fb = BloomFilter.fromBytes(unhex(b));
    const run = () => (op === 'union' ? fa.union(fb) : fa.intersect(fb));
    if (result.startsWith('error:')) {
      assert.throws(run, BloomFilterError, `${op} ${result}`);
    } else {
      assert.equal(hex(run().toBytes()), result, op);
    }
  }
});

test('corrupt records: the client refuses exactly what the server refuses', () => {
  for (const [, name, bytesHex, sqlstate, message] of of('corrupt')) {
    const bytes = unhex(bytesHex);
    if (sqlstate === '-') {
      BloomFilter.fromBytes(bytes);
    } else {
      // refused for the same reason: the client's message starts with the server's
      assert.throws(() => BloomFilter.fromBytes(bytes),
        (e) => e instanceof BloomFilterError && e.message.startsWith(message), `${name}: ${message}`);
    }
  }
  for (const [, name, textHex, sqlstate, message] of of('corrupt_text')) {
    const text = Buffer.from(textHex, 'hex').toString('latin1');
    if (sqlstate === '-') BloomFilter.fromText(text);
    else {
      assert.throws(() => BloomFilter.fromText(text),
        (e) => e instanceof BloomFilterError && e.message.startsWith(message), `${name}: ${message}`);
    }
  }
});
