// The client against the server (a cluster with the extension installed,
// reached through the PG* variables, as pg_virtualenv sets them): bytes,
// probes, sizing, combining, refusals and the node-postgres type parser.
//   pg_virtualenv -t node --test src/clients/js/test/*.test.mjs
// Random keys: BLOOM_TEST_SEED=<n> replays a run (the seed is printed).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { xxh3 } from '@node-rs/xxhash';

import { BloomFilter, BloomFilterError } from '../index.js';
import { registerBloomFilter, setKeyTypeParsers } from '../pg.js';
import { FAMILIES, SEED, ensureExtension, rng, serverSkip } from './helpers.mjs';

const N_KEYS = Number(process.env.BLOOM_TEST_KEYS ?? 300);

console.log(`# server tests: BLOOM_TEST_SEED=${SEED}`);

describe('against the server', { skip: serverSkip() }, () => {
  let client;

  before(async () => {
    client = new pg.Client();
    await client.connect();
    await client.query('SET client_min_messages = warning');
    await ensureExtension(client);
    await registerBloomFilter(client);
  });

  after(async () => {
    await client?.end();
  });

  const q = async (text, values) => (await client.query(text, values)).rows;

  /** The server's bytes for bloom_add_all(bloom_empty(...), keys). */
  async function serverBuilt(fam, values, { capacity, fpr, layout, seed }) {
    const rows = await q(
      `SELECT bloom_add_all(bloom_empty($2, $3, $4, $5), $1::${fam.sqlType}[])::bytea AS b`,
      [values.map(fam.param), capacity, fpr, layout, String(seed)]);
    return new Uint8Array(rows[0].b);
  }

  const geometries = [
    { capacity: 1000, fpr: 0.01, layout: 'blocked', seed: 0 },
    { capacity: 50, fpr: 0.001, layout: 'classic', seed: 0 },
    { capacity: 20000, fpr: 0.05, layout: 'blocked', seed: -7n },
    { capacity: 300, fpr: 0.2, layout: 'classic', seed: 9007199254740993n },
  ];

  for (const [name, fam] of Object.entries(FAMILIES)) {
    test(`${name}: client bytes equal the server's, probes agree both ways`, async () => {
      const r = rng(SEED + name.length * 7919);
      for (const geo of geometries) {
        const values = Array.from({ length: N_KEYS }, () => fam.gen(r));
        const others = Array.from({ length: N_KEYS }, () => fam.gen(r));
        const f = BloomFilter.empty(geo.capacity, geo);
        f.addAll(values.map(fam.key));
        const srv = await serverBuilt(fam, values, geo);
        assert.deepEqual(f.toBytes(), srv, `${name} ${JSON.stringify(geo, (k, v) => (typeof v === 'bigint' ? String(v) : v))}`);

        // the client probes the server's filter: every key added is found
        const g = BloomFilter.fromBytes(srv);
        for (const v of values) assert.equal(g.contains(fam.key(v)), true, `false negative on ${String(v)}`);

        // the server probes the client's filter with the same answers
        const all = values.concat(others);
        const rows = await q(
          `SELECT array_agg(bloom_contains($1::bloomfilter, k) ORDER BY o) AS a
             FROM unnest($2::${fam.sqlType}[]) WITH ORDINALITY u(k, o)`,
          [f, all.map(fam.param)]);
        const mine = all.map((v) => f.contains(fam.key(v)));
        assert.deepEqual(rows[0].a, mine);
        assert.ok(mine.slice(0, values.length).every((x) => x), 'a key added probes true');
      }
    });
  }

  test('bloom_agg(x, capacity, fpr) gives the bytes of BloomFilter.empty(capacity, {fpr}) plus the keys', async () => {
    const r = rng(SEED + 1);
    const keys = Array.from({ length: 2000 }, () => BigInt.asIntN(64, r.u64()));
    const rows = await q('SELECT bloom_agg(k, 5000, 0.02)::bytea AS b FROM unnest($1::int8[]) k',
      [keys.map(String)]);
    const f = BloomFilter.empty(5000, { fpr: 0.02 }).addAll(keys);
    assert.deepEqual(f.toBytes(), new Uint8Array(rows[0].b));
  });

  test('float4 values read back through node-postgres hash as the server\'s float4 keys', async () => {
    const sql = `SELECT array_agg(x) AS xs, bloom_agg(x, 100, 0.01)::bytea AS b
      FROM unnest('{1.1, 0.1, -3.4028235e38, 1e-45, 3.14159, 16777217, NaN, -Infinity}'::float4[]) x`;
    // as text (setKeyTypeParsers): the server's shortest text of each float4
    const t = new pg.Client();
    await t.connect();
    try {
      setKeyTypeParsers(t);
      const { rows } = await t.query(sql);
      assert.equal(rows[0].xs[0], '1.1');
      const f = BloomFilter.empty(100).addAll(rows[0].xs.map((x) => BloomFilter.float4(x)));
      assert.deepEqual(f.toBytes(), new Uint8Array(rows[0].b));
    } finally {
      await t.end();
    }
    // node-postgres's numbers are the nearest doubles of that text, not
    // float4 values: refused, pointing to the text
    const rows = await q(sql);
    assert.throws(() => BloomFilter.float4(rows[0].xs[0]), /BloomKey.float4\('1.1'\)/);
  });

  test('sizing: bits and hashes equal bloom_empty\'s for many (capacity, fpr, layout)', async () => {
    await q(`CREATE OR REPLACE FUNCTION pg_temp.sz(c int8, p float8, l text) RETURNS text
      LANGUAGE plpgsql AS $$
      BEGIN
        RETURN (SELECT bits || '/' || hashes FROM bloom_info(bloom_empty(c, p, l)));
      EXCEPTION WHEN program_limit_exceeded THEN
        RETURN 'too large';
      END $$`);
    const caps = [];
    const fprs = [];
    const layouts = [];
    const r = rng(SEED + 2);
    const fixedFprs = [0.9, 0.5, 0.3, 0.1, 0.05, 0.01, 0.001, 1e-4, 1e-5, 1e-6, 1e-7, 1e-9, 1e-12];
    const fixedCaps = [1, 2, 3, 10, 100, 1000, 12345, 1e5, 1e6, 1e7, 1e8, 1e9];
    for (const layout of ['blocked', 'classic']) {
      for (const c of fixedCaps) {
        for (const p of fixedFprs) {
          caps.push(c); fprs.push(p); layouts.push(layout);
        }
      }
      for (let i = 0; i < 150; i++) {
        caps.push(1 + Math.floor(10 ** (r.float() * 8)));
        fprs.push(10 ** (-r.float() * 8) * 0.999);
        layouts.push(layout);
      }
    }
    // the server allocates each filter: leave out those past 16 MB (but keep
    // the pairs the client finds too large, which the server refuses at once)
    for (let i = caps.length - 1; i >= 0; i--) {
      let big = false;
      try {
        big = BloomFilter.empty(caps[i], { fpr: fprs[i], layout: layouts[i] }).bits > 2 ** 27;
      } catch (e) {
        big = false;
      }
      if (big) {
        caps.splice(i, 1); fprs.splice(i, 1); layouts.splice(i, 1);
      }
    }
    assert.ok(caps.length > 400, `${caps.length} pairs left`);
    const rows = await q(`SELECT array_agg(pg_temp.sz(c, p, l) ORDER BY o) AS s
      FROM unnest($1::int8[], $2::float8[], $3::text[]) WITH ORDINALITY u(c, p, l, o)`,
    [caps.map(String), fprs.map(String), layouts]);
    const mine = caps.map((c, i) => {
      try {
        const f = BloomFilter.empty(c, { fpr: fprs[i], layout: layouts[i] });
        return `${f.bits}/${f.hashes}`;
      } catch (e) {
        if (e instanceof RangeError && /exceed the largest/.test(e.message)) return 'too large';
        throw e;
      }
    });
    const diffs = mine.map((m, i) => (m === rows[0].s[i] ? null : `${caps[i]} ${fprs[i]} ${layouts[i]}: client ${m}, server ${rows[0].s[i]}`))
      .filter((x) => x !== null);
    assert.deepEqual(diffs, [], `${diffs.length} of ${caps.length} differ`);
  });

  test('emptyBits rounds as bloom_empty_bits', async () => {
    for (const [bits, hashes, layout] of [[1, 1, 'classic'], [65, 3, 'classic'], [1, 7, 'blocked'], [513, 32, 'blocked'], [100000, 5, 'blocked']]) {
      const rows = await q('SELECT bloom_empty_bits($1, $2, $3, 3)::bytea AS b', [bits, hashes, layout]);
      assert.deepEqual(BloomFilter.emptyBits(bits, hashes, { layout, seed: 3 }).toBytes(), new Uint8Array(rows[0].b));
    }
  });

  test('union and intersection, folded to the smaller size, equal the server\'s', async () => {
    const r = rng(SEED + 3);
    for (const layout of ['blocked', 'classic']) {
      for (const [ba, bb] of [[8192, 8192], [32768, 4096], [4096, 16384]]) {
        const a = BloomFilter.emptyBits(ba, 4, { layout });
        const b = BloomFilter.emptyBits(bb, 4, { layout });
        const ka = Array.from({ length: 300 }, () => r.below(100000));
        const kb = Array.from({ length: 200 }, () => r.below(100000));
        a.addAll(ka);
        b.addAll(kb);
        const rows = await q(`SELECT bloom_union($1::bloomfilter, $2::bloomfilter)::bytea AS u,
            bloom_intersect($1::bloomfilter, $2::bloomfilter)::bytea AS i`, [a, b]);
        const u = a.union(b);
        assert.deepEqual(u.toBytes(), new Uint8Array(rows[0].u));
        assert.deepEqual(a.intersect(b).toBytes(), new Uint8Array(rows[0].i));
        for (const k of ka.concat(kb)) assert.equal(u.contains(k), true);
      }
    }
    // a filter with no key yet unites with any family
    const e = BloomFilter.emptyBits(4096, 4);
    const t = BloomFilter.emptyBits(4096, 4).add('x');
    const rows = await q('SELECT bloom_union($1::bloomfilter, $2::bloomfilter)::bytea AS u', [e, t]);
    assert.deepEqual(e.union(t).toBytes(), new Uint8Array(rows[0].u));
  });

  test('filters that cannot combine are refused by both', async () => {
    const base = BloomFilter.emptyBits(4096, 4).add(1);
    const cases = [
      BloomFilter.emptyBits(4096, 4, { seed: 1 }).add(1),
      BloomFilter.emptyBits(4096, 5).add(1),
      BloomFilter.emptyBits(4096, 4, { layout: 'blocked' }).add(1),
      BloomFilter.emptyBits(4096 * 3, 4).add(1),
      BloomFilter.emptyBits(4096, 4).add('one'),
    ];
    for (const g of cases) {
      assert.throws(() => base.union(g), BloomFilterError);
      assert.throws(() => base.intersect(g), BloomFilterError);
      await assert.rejects(q('SELECT bloom_union($1::bloomfilter, $2::bloomfilter)', [base, g]), /cannot union/);
    }
  });

  test('the same corrupt bytes and text are refused by both', async () => {
    const good = BloomFilter.empty(100).addAll([1, 2, 3]).toBytes();
    const edit = (fn, reseal = false) => {
      const b = good.slice();
      const dv = new DataView(b.buffer);
      const out = fn(b, dv) ?? b;
      if (reseal) {
        const d2 = new DataView(out.buffer, out.byteOffset, out.length);
        d2.setBigUint64(44, xxh3.Xxh3.withSeed(0n).update(out.subarray(0, 44)).update(out.subarray(52)).digest(), true);
      }
      return out;
    };
    const corrupt = {
      empty: [new Uint8Array(0), 'truncated'],
      five: [good.slice(0, 5), 'truncated'],
      'short header': [good.slice(0, 51), 'truncated'],
      magic: [edit((b) => { b[0] = 0x41; }), 'magic'],
      'counting magic': [edit((b) => { b[3] = 0x43; }), 'magic'],
      version: [edit((b, dv) => { dv.setUint16(4, 3, true); }), 'version'],
      'layout 0': [edit((b) => { b[6] = 0; }), 'layout'],
      'layout 3': [edit((b) => { b[6] = 3; }), 'layout'],
      'hashes 0': [edit((b) => { b[7] = 0; }), 'hashes'],
      'hashes 33': [edit((b) => { b[7] = 33; }), 'hashes'],
      'nbits 0': [edit((b, dv) => { dv.setBigUint64(16, 0n, true); }), 'nbits'],
      'nbits not whole blocks': [edit((b, dv) => { dv.setBigUint64(16, 64n, true); }), 'nbits'],
      'nbits past the limit': [edit((b, dv) => { dv.setBigUint64(16, 2n ** 40n, true); }), 'nbits'],
      'a byte more': [(() => { const b = new Uint8Array(good.length + 1); b.set(good); return b; })(), 'size'],
      'a byte less': [good.slice(0, good.length - 1), 'size'],
      'family 17': [edit((b, dv) => { dv.setUint16(32, 17, true); }, true), 'family'],
      'tagged family without a tag': [edit((b, dv) => { dv.setUint16(32, 11, true); }, true), 'family'],
      'untagged family with a tag': [edit((b, dv) => { dv.setUint32(36, 5, true); }, true), 'family'],
      flags: [edit((b, dv) => { dv.setUint16(34, 1, true); }, true), 'reserved'],
      reserved: [edit((b, dv) => { dv.setUint32(40, 1, true); }, true), 'reserved'],
      checksum: [edit((b) => { b[44] ^= 1; }), 'checksum'],
      'a bit flipped': [edit((b) => { b[60] ^= 0x10; }), 'checksum'],
      'bits but no add': [edit((b, dv) => { dv.setBigUint64(24, 0n, true); }, true), 'added'],
      'bits but no family': [edit((b, dv) => { dv.setUint16(32, 0, true); }, true), 'added'],
    };
    for (const [name, [bytes, code]] of Object.entries(corrupt)) {
      assert.throws(() => BloomFilter.fromBytes(bytes), (e) => e instanceof BloomFilterError && e.code === code,
        `client accepts ${name}`);
      await assert.rejects(q('SELECT $1::bytea::bloomfilter', [Buffer.from(bytes)]), /invalid bloomfilter|bloomfilter/,
        `server accepts ${name}`);
      await assert.rejects(q('SELECT $1::bloomfilter', [Buffer.from(bytes).toString('base64')]), /bloomfilter/,
        `server accepts the text of ${name}`);
    }
    // 68 bytes: the text ends in one '=', which the padding cases need
    const padded = BloomFilter.emptyBits(128, 3).add(1).toBytes();
    const text = Buffer.from(padded).toString('base64');
    assert.match(text, /[^=]=$/);
    const badText = {
      truncated: text.slice(0, -4),
      'no padding': text.replace(/=+$/, ''),
      'white space, a character short': `${text.slice(0, 8)} ${text.slice(8, -1)}`,
      'a form feed': `${text.slice(0, 4)}\f${text.slice(4)}`,
      'stray bits': text.replace(/.(=+)$/, (m, p) => String.fromCharCode(m.charCodeAt(0) + 1) + p),
      'bad character': `*${text.slice(1)}`,
      'url alphabet': text.replace(/\+/g, '-').replace(/\//g, '_').replace(/^./, '-'),
    };
    for (const [name, s] of Object.entries(badText)) {
      assert.throws(() => BloomFilter.fromText(s), BloomFilterError, `client accepts ${name}`);
      await assert.rejects(q('SELECT $1::bloomfilter', [s]), /bloomfilter/, `server accepts ${name}`);
    }
    // and both accept the good ones, white space (as base64 tools break lines) skipped
    assert.ok(BloomFilter.fromText(text).equals(BloomFilter.fromBytes(padded)));
    const spaced = ` ${text.slice(0, 76)}\n${text.slice(76, 80)}\r\n\t${text.slice(80)} `;
    assert.ok(BloomFilter.fromText(spaced).equals(BloomFilter.fromBytes(padded)));
    const srvSpaced = await q('SELECT $1::bloomfilter::bytea AS b', [spaced]);
    assert.deepEqual(new Uint8Array(srvSpaced[0].b), padded);
    await q('SELECT $1::bloomfilter, $2::bytea::bloomfilter', [text, Buffer.from(good)]);
  });

  test('300 random damages, half sealed again: client and server refuse alike, for the same reason', async () => {
    await q(`CREATE OR REPLACE FUNCTION pg_temp.rd(b bytea) RETURNS text LANGUAGE plpgsql AS $$
      BEGIN
        RETURN 'ok ' || encode(b::bloomfilter::bytea, 'hex');
      EXCEPTION WHEN others THEN
        RETURN SQLERRM;
      END $$`);
    const r = rng(SEED + 5);
    const seal = (out) => {
      const dv = new DataView(out.buffer, out.byteOffset, out.length);
      if (out.length >= 52) {
        dv.setBigUint64(44, xxh3.Xxh3.withSeed(0n).update(out.subarray(0, 44)).update(out.subarray(52)).digest(), true);
      }
      return out;
    };
    const bases = [
      BloomFilter.empty(200, { layout: 'blocked' }).addAll([1, 2, 3]).toBytes(),
      BloomFilter.emptyBits(256, 3, { layout: 'classic' }).addAll(['a', 'b']).toBytes(),
      BloomFilter.emptyBits(512, 2, { layout: 'blocked' }).toBytes(),
    ];
    const damaged = [];
    for (let i = 0; i < 300; i++) {
      let b = r.pick(bases).slice();
      const kind = r.below(6);
      if (kind === 0) b = b.slice(0, r.below(b.length));
      else if (kind === 1) {
        const c = new Uint8Array(b.length + 1 + r.below(70));
        c.set(b);
        b = c;
      } else {
        // one to three bytes, mostly in the header, where the checks are
        for (let j = 0, n = 1 + r.below(3); j < n; j++) {
          const at = r.below(3) ? r.below(52) : r.below(b.length);
          b[at] = r.below(2) ? b[at] ^ (1 << r.below(8)) : r.below(256);
        }
      }
      damaged.push(i % 2 ? seal(b) : b);
    }
    const rows = await q('SELECT array_agg(pg_temp.rd(b) ORDER BY o) AS a FROM unnest($1::bytea[]) WITH ORDINALITY u(b, o)',
      [damaged.map((b) => Buffer.from(b))]);
    let refused = 0;
    damaged.forEach((b, i) => {
      const srv = rows[0].a[i];
      let mine;
      try {
        mine = `ok ${Buffer.from(BloomFilter.fromBytes(b).toBytes()).toString('hex')}`;
      } catch (e) {
        assert.ok(e instanceof BloomFilterError, e.message);
        mine = e.message;
        refused++;
      }
      // the client's message is the server's, then a detail in parentheses
      assert.ok(mine === srv || mine.startsWith(`${srv} (`), `damage ${i}: client "${mine}", server "${srv}"`);
    });
    assert.ok(refused > 200, `${refused} refused`);
  });

  test('a key of another family is an error on both sides, never a silent false', async () => {
    const f = BloomFilter.empty(100).add(1);
    assert.throws(() => f.contains('1'), /family "integer", not "text"/);
    assert.throws(() => f.contains(BloomFilter.float8(1)), /not "float"/);
    await assert.rejects(q("SELECT bloom_contains($1::bloomfilter, '1'::text)", [f]), /family/);
    // a family the client does not encode (numeric) is refused when probed
    const rows = await q('SELECT bloom_add(bloom_empty(10), 1.5::numeric)::bytea AS b');
    const n = BloomFilter.fromBytes(new Uint8Array(rows[0].b));
    assert.equal(n.keyFamily, 'numeric');
    assert.throws(() => n.contains(1), /family "numeric"/);
    assert.throws(() => n.contains('1.5'), /family "numeric"/);
  });

  test('the node-postgres type parser and serializer round-trip a filter', async () => {
    const rows = await q('SELECT bloom_add_all(bloom_empty(100), ARRAY[1, 2, 3]) AS f');
    const f = rows[0].f;
    assert.ok(f instanceof BloomFilter);
    assert.equal(f.contains(2), true);
    assert.equal(f.contains(4), false);
    const back = await q('SELECT $1::bloomfilter = bloom_add_all(bloom_empty(100), ARRAY[1, 2, 3]) AS eq, 2 <@ $1::bloomfilter AS has', [f]);
    assert.deepEqual(back[0], { eq: true, has: true });
    // binary results go through the binary parser
    const bin = await client.query({ text: 'SELECT bloom_add(bloom_empty(100), 7) AS f', binary: true });
    assert.ok(bin.rows[0].f instanceof BloomFilter);
    assert.equal(bin.rows[0].f.contains(7), true);
    // a client-built filter as a typed parameter, in a WHERE clause
    const g = BloomFilter.empty(1000).addAll([10, 20, 30]);
    const hits = await q('SELECT array_agg(i ORDER BY i) AS a FROM generate_series(1, 100) i WHERE i <@ $1::bloomfilter', [g]);
    assert.ok([10, 20, 30].every((k) => hits[0].a.includes(k)));
  });

  test('parquet and spark filters from the server are refused by the type parser, not read as blocked', async () => {
    for (const layout of ['parquet', 'spark']) {
      const refused = (e) => e instanceof BloomFilterError && e.code === 'layout' &&
        new RegExp(`the ${layout} layout is not supported`).test(e.message);
      const sql = 'SELECT bloom_add_all(bloom_empty(1000, 0.01, $1), ARRAY[1, 2, 3]) AS f';
      // text results (base64) and binary results, through registerBloomFilter's parsers
      await assert.rejects(client.query(sql, [layout]), refused);
      await assert.rejects(client.query({ text: sql, values: [layout], binary: true }), refused);
      // the bytes and the text, parsed by hand
      const rows = await q(`SELECT f::bytea AS b, f::text AS t FROM (${sql}) s`, [layout]);
      const b = new Uint8Array(rows[0].b);
      assert.equal(b[4], 2);
      assert.equal(b[6], layout === 'parquet' ? 3 : 4);
      assert.throws(() => BloomFilter.fromBytes(b), refused);
      assert.throws(() => BloomFilter.fromText(rows[0].t), refused);
    }
    // the connection goes on, and blocked filters still parse
    const ok = await q("SELECT bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), ARRAY[1, 2, 3]) AS f");
    assert.ok(ok[0].f instanceof BloomFilter && [1, 2, 3].every((k) => ok[0].f.contains(k)));
  });

  test('info() equals bloom_info(), and the estimates bloom_cardinality and bloom_fpr', async () => {
    const r = rng(SEED + 4);
    for (const layout of ['blocked', 'classic']) {
      const f = BloomFilter.empty(5000, { layout, seed: -3 });
      for (let i = 0; i < 4000; i++) f.add(r.u32());
      const rows = await q('SELECT (bloom_info($1::bloomfilter)).*, bloom_cardinality($1::bloomfilter) AS c, bloom_fpr($1::bloomfilter) AS p', [f]);
      const s = rows[0];
      const mine = f.info();
      // the estimates are sums of library powers and logarithms: equal
      // within a relative 1e-12 (FORMAT.md, "Test vectors"), the rest exactly
      const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
      for (const [a, b] of [[mine.est_cardinality, s.est_cardinality], [mine.est_fpr, s.est_fpr],
        [f.cardinality(), s.c], [f.fpr(), s.p]]) {
        assert.ok(close(a, b), `${a} vs ${b}`);
      }
      mine.est_cardinality = s.est_cardinality;
      mine.est_fpr = s.est_fpr;
      assert.deepEqual(
        { ...mine, seed: String(mine.seed), added: String(mine.added) },
        {
          layout: s.layout, bits: Number(s.bits), hashes: s.hashes, bytes: Number(s.bytes),
          seed: s.seed, key_family: s.key_family, added: s.added, bits_set: Number(s.bits_set),
          fill_ratio: s.fill_ratio, est_cardinality: s.est_cardinality, est_fpr: s.est_fpr,
          format_version: s.format_version,
        });
    }
  });
});
