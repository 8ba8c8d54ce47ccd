// The JavaScript client beside a plain Set and the server's bloom_agg: build
// and probe a million integer keys; and the two XXH3-64 packages the client
// could hash with (@node-rs/xxhash, hash-wasm), side by side.  Ratios against
// peers measured in the same run (absolute times depend on the machine).
//   cd src/clients/js && npm ci
//   node ../../../test/bench/clients_bench_js.mjs            # client, Set, hashes
//   PGHOST=... PGPORT=... node ../../../test/bench/clients_bench_js.mjs   # and the server
// BENCH_KEYS=n changes the million; BENCH_ROUNDS=r the rounds (best is kept).

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const clientDir = fileURLToPath(new URL('../../src/clients/js/', import.meta.url));
const require = createRequire(clientDir);
const { BloomFilter } = await import(new URL('../../src/clients/js/index.js', import.meta.url));
const { xxh3 } = require('@node-rs/xxhash');
let hashWasm = null;
try {
  hashWasm = require('hash-wasm');
} catch {
  console.log('# hash-wasm not installed (npm ci installs it as a dev dependency): skipped');
}

const N = Number(process.env.BENCH_KEYS ?? 1000000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function best(fn) {
  let min = Infinity;
  let out;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    out = fn();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s < min) min = s;
  }
  return { s: min, out };
}

async function bestAsync(fn) {
  let min = Infinity;
  let out;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    out = await fn();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s < min) min = s;
  }
  return { s: min, out };
}

const rows = [];
function report(name, s, peer) {
  const ns = (s * 1e9) / N;
  rows.push(`${name.padEnd(58)} ${s.toFixed(3).padStart(8)} s  ${ns.toFixed(0).padStart(6)} ns/key` +
    (peer ? `  ${(s / peer.s).toFixed(2).padStart(6)} x ${peer.name}` : ''));
}

const keys = Array.from({ length: N }, (_, i) => i + 1);
const absent = Array.from({ length: N }, (_, i) => -(i + 1));

// ---- the hash packages: one 8-byte key a call, as the client hashes ----
{
  const buf = new Uint8Array(8);
  const dv = new DataView(buf.buffer);
  const seed = 0n;
  const nr = best(() => {
    let acc = 0n;
    for (let i = 0; i < N; i++) {
      dv.setUint32(0, i, true);
      acc ^= xxh3.xxh64(buf, seed);
    }
    return acc;
  });
  report('hash 8-byte keys: @node-rs/xxhash xxh3.xxh64(u8, seed)', nr.s);
  if (hashWasm) {
    const h = await hashWasm.createXXHash3(0, 0);
    const hw = best(() => {
      let acc = 0n;
      for (let i = 0; i < N; i++) {
        dv.setUint32(0, i, true);
        h.init();
        h.update(buf);
        const d = h.digest('binary');
        acc ^= new DataView(d.buffer, d.byteOffset, 8).getBigUint64(0, false);
      }
      return acc;
    });
    if (hw.out !== nr.out) throw new Error('hash-wasm and @node-rs/xxhash disagree');
    report('hash 8-byte keys: hash-wasm createXXHash3 init/update/digest', hw.s, { s: nr.s, name: '@node-rs' });
    const one = await bestAsync(async () => {
      let acc = 0;
      const M = Math.min(N, 100000);
      for (let i = 0; i < M; i++) {
        dv.setUint32(0, i, true);
        acc ^= (await hashWasm.xxhash3(buf, 0, 0)).length;
      }
      return acc * (N / M);
    });
    report('hash 8-byte keys: hash-wasm xxhash3() (async, hex), scaled', one.s * (N / Math.min(N, 100000)), { s: nr.s, name: '@node-rs' });
  }
}

// ---- the client beside a Set ----
const setAdd = best(() => {
  const s = new Set();
  for (const k of keys) s.add(k);
  return s;
});
const set = setAdd.out;
const setHas = best(() => {
  let c = 0;
  for (const k of keys) if (set.has(k)) c++;
  for (const k of absent) if (set.has(k)) c++;
  return c;
});
const build = best(() => BloomFilter.empty(N, { fpr: 0.01 }).addAll(keys));
const f = build.out;
const probe = best(() => {
  let c = 0;
  for (const k of keys) if (f.contains(k)) c++;
  let fp = 0;
  for (const k of absent) if (f.contains(k)) fp++;
  return [c, fp];
});
if (probe.out[0] !== N) throw new Error('a false negative');
const buildBig = best(() => BloomFilter.empty(N, { fpr: 0.01 }).addAll(keys.map(BigInt)));
const buildClassic = best(() => BloomFilter.empty(N, { fpr: 0.01, layout: 'classic' }).addAll(keys));

report('Set: add 1M numbers', setAdd.s);
report('Set: has, 1M present + 1M absent', setHas.s);
report('BloomFilter.empty(1M, 1%) blocked: addAll 1M numbers', build.s, { s: setAdd.s, name: 'Set add' });
report('BloomFilter blocked: contains, 1M present + 1M absent', probe.s, { s: setHas.s, name: 'Set has' });
report('BloomFilter blocked: addAll 1M bigints', buildBig.s, { s: build.s, name: 'numbers' });
report('BloomFilter classic: addAll 1M numbers', buildClassic.s, { s: build.s, name: 'blocked' });
rows.push(`# false positives among ${N} absent keys: ${probe.out[1]} (${(probe.out[1] / N * 100).toFixed(2)}%)`);
rows.push(`# memory: Set of ${N} numbers vs the filter's ${f.toBytes().length} bytes`);

// ---- the server ----
if (process.env.PGHOST || process.env.PGPORT) {
  const pg = require('pg');
  const client = new pg.Client();
  await client.connect();
  await client.query('SET client_min_messages = warning');
  await client.query('CREATE EXTENSION IF NOT EXISTS bloomfilter');
  await client.query(`CREATE TEMP TABLE bench_keys AS SELECT i::int8 AS k FROM generate_series(1, ${N}) i`);
  await client.query('VACUUM ANALYZE bench_keys');
  await client.query('SET max_parallel_workers_per_gather = 0');
  const scan = await bestAsync(() => client.query('SELECT count(k) FROM bench_keys'));
  const agg = await bestAsync(() => client.query(`SELECT bloom_agg(k, ${N}, 0.01)::bytea AS b FROM bench_keys`));
  const same = Buffer.compare(Buffer.from(f.toBytes()), agg.out.rows[0].b) === 0;
  const sprobe = await bestAsync(() => client.query('SELECT count(*) FROM bench_keys WHERE k <@ $1::bloomfilter', [f]));
  if (Number(sprobe.out.rows[0].count) !== N) throw new Error('a false negative on the server');
  report('server: SELECT count(k) over the 1M rows (the scan)', scan.s);
  report('server: bloom_agg(k, 1M, 0.01) over the 1M rows', agg.s, { s: scan.s, name: 'scan' });
  report('server: count(*) WHERE k <@ f over the 1M rows', sprobe.s, { s: scan.s, name: 'scan' });
  rows.push(`# the client's filter ${same ? 'is' : 'is NOT'} byte-identical to bloom_agg's`);
  rows.push(`# client build / server bloom_agg: ${(build.s / agg.s).toFixed(2)} x; ` +
    `client probe of 1M (half of the 2M above) / server probe of 1M rows: ${(probe.s / 2 / sprobe.s).toFixed(2)} x`);
  await client.end();
}

console.log(`# clients_bench_js: ${N} integer keys, best of ${ROUNDS}, node ${process.version}`);
for (const r of rows) console.log(r);
