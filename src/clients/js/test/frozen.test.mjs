// The frozen values of earlier releases (test/vectors/frozen/<release>/
// values.tsv; src/core/FORMAT.md, "Frozen values"), never regenerated: this
// client reads every bloomfilter among them with the same answers, and
// refuses the other types and the aggregate states cleanly.  Also: which
// format versions it reads, and its refusal of a newer one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  BloomFilter, BloomFilterError, BloomKey, CLIENT_VERSION, FORMAT_VERSION, READ_FORMAT_VERSIONS,
} from '../index.js';

const dir = process.env.BLOOMFILTER_FROZEN
  ?? fileURLToPath(new URL('../../../../test/vectors/frozen', import.meta.url));
const RELEASES = ['1.0'];

const recs = [];
for (const rel of RELEASES) {
  for (const line of readFileSync(join(dir, rel, 'values.tsv'), 'utf8').split('\n')) {
    if (line !== '' && !line.startsWith('#')) recs.push([rel, line.split('\t')]);
  }
}
const values = new Map(recs.filter(([, r]) => r[0] === 'value').map(([rel, r]) => [`${rel}/${r[1]}`, r]));
const infos = new Map(recs.filter(([, r]) => r[0] === 'info').map(([rel, r]) => [`${rel}/${r[1]}`, JSON.parse(r[2])]));
const typeOf = (rel, name) => values.get(`${rel}/${name}`)[2];
const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'));
const fromBase64 = (s) => new Uint8Array(Buffer.from(s, 'base64'));

/** The literal as the value an application holds, for the families the client encodes. */
function native(sqltype, lit) {
  switch (sqltype) {
    case 'int2': case 'int4': case 'int8': return BigInt(lit);
    case 'text': case 'varchar': case 'bpchar': case 'name': return lit;
    case 'bytea': return unhex(lit.slice(2));
    case 'uuid': return BloomKey.uuid(lit.replace(/[{}]/g, ''));
    case 'bool': return lit === 'true';
    case 'float8': return BloomKey.float8(Number(lit));
    case 'date': return BloomKey.date(lit);
    case 'timestamp': return BloomKey.timestamp(lit);
    case 'timestamptz': return BloomKey.timestamptz(lit);
    default: return undefined;
  }
}

test('the frozen set is there', () => {
  const count = (k) => recs.filter(([, r]) => r[0] === k).length;
  assert.ok(count('value') >= 50 && count('aggstate') >= 14);
  assert.ok(count('member') >= 180 && count('nonmember') >= 153);
  assert.deepEqual([...new Set([...values.values()].map((r) => r[2]))].sort(),
    ['bloomfilter', 'bloomwindow', 'countingbloom', 'scalablebloom']);
});

test('every frozen bloomfilter reads back: text, bytes, info', () => {
  let n = 0;
  for (const [rel, r] of recs) {
    if (r[0] !== 'value' || r[2] !== 'bloomfilter') continue;
    const f = BloomFilter.fromText(r[3]);
    assert.equal(f.toText(), r[3], r[1]);
    assert.deepEqual(BloomFilter.fromBytes(f.toBytes()).toBytes(), fromBase64(r[3]), r[1]);
    const info = f.info();
    const want = infos.get(`${rel}/${r[1]}`);
    for (const k of ['layout', 'bits', 'hashes', 'bytes', 'added', 'bits_set', 'format_version']) {
      assert.equal(Number(info[k]), Number(want[k]), `${r[1]} ${k}`);
    }
    assert.equal(BigInt(info.seed), BigInt(want.seed), `${r[1]} seed`);
    for (const k of ['fill_ratio', 'est_cardinality', 'est_fpr']) {
      const a = info[k];
      const b = want[k];
      assert.ok(a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b)), `${r[1]} ${k}: ${a} ${b}`);
    }
    n++;
  }
  assert.ok(n >= 30);
});

test('every member probes true and every non-member as recorded', () => {
  let n = 0;
  for (const [rel, r] of recs) {
    if ((r[0] !== 'member' && r[0] !== 'nonmember') || typeOf(rel, r[1]) !== 'bloomfilter') continue;
    const [, name, sqltype, lit, family, keyHex, , answer] = r;
    const f = BloomFilter.fromText(values.get(`${rel}/${name}`)[3]);
    const want = answer === 't';
    assert.equal(f.contains(new BloomKey(Number(family), unhex(keyHex))), want, `${name} ${sqltype} ${lit}`);
    const v = native(sqltype, lit);
    if (v !== undefined) assert.equal(f.contains(v), want, `${name} ${sqltype} ${lit} (as a value)`);
    n++;
  }
  assert.ok(n >= 209);
});

test('the other types and the aggregate states are refused cleanly, by name', () => {
  const names = {
    BLMC: 'counting Bloom filter', BLMW: 'bloomwindow', BLMS: 'scalablebloom', BFAS: 'bloomfilter_aggstate',
  };
  let n = 0;
  for (const [, r] of recs) {
    if (!((r[0] === 'value' && r[2] !== 'bloomfilter') || r[0] === 'aggstate')) continue;
    const bytes = fromBase64(r[3]);
    const magic = Buffer.from(bytes.subarray(0, 4)).toString('latin1');
    for (const read of [() => BloomFilter.fromText(r[3]), () => BloomFilter.fromBytes(bytes)]) {
      assert.throws(read, (e) => e instanceof BloomFilterError && e.code === 'magic'
        && e.message.startsWith('invalid bloomfilter: ') && e.message.includes(names[magic]), r[1]);
    }
    n++;
  }
  assert.ok(n >= 32);
});

test('the format versions it reads, and the client version is package.json\'s', () => {
  assert.deepEqual([...READ_FORMAT_VERSIONS], [1, 2]);
  assert.ok(READ_FORMAT_VERSIONS.includes(FORMAT_VERSION));
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'));
  assert.equal(CLIENT_VERSION, pkg.version);
});

test('a newer format version is refused, naming the client release to get', () => {
  const [major, minor] = CLIENT_VERSION.split('.').map(Number);
  for (const version of [3, 4, 65535]) {
    for (const [, r] of recs) {
      if (r[0] !== 'value' || r[2] !== 'bloomfilter') continue;
      const b = fromBase64(r[3]);
      new DataView(b.buffer, b.byteOffset, b.length).setUint16(4, version, true);
      const want = `format version ${version} needs bloomfilter client ${major}.${minor + 1} or later`;
      assert.throws(() => BloomFilter.fromBytes(b), (e) => e instanceof BloomFilterError && e.code === 'version'
        && e.message.startsWith('invalid bloomfilter: the format version is not one this build reads')
        && e.message.includes(want) && e.message.includes('reads format version 1, 2'), `${r[1]} v${version}`);
      assert.throws(() => BloomFilter.fromText(Buffer.from(b).toString('base64')), /needs bloomfilter client/);
    }
  }
  const b = BloomFilter.empty(10).toBytes();
  b[4] = 0;
  assert.throws(() => BloomFilter.fromBytes(b), /format version 0 was never written/);
});
