// Keys whose node-postgres values are not the server's, against the server:
// float4 values halfway between two float4s (the server rounds the decimal
// text it is given, once) and timestamps in a DST gap of the process's time
// zone (node-postgres makes local Dates, and JavaScript moves a skipped
// 02:30 to 03:30).  The process runs in Europe/Berlin, whatever TZ says.
//   BLOOMFILTER_SERVER_TESTS=require node --test test/keytext.test.mjs

process.env.TZ = 'Europe/Berlin';

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';

import { BloomFilter, BloomKey } from '../index.js';
import { parseFloat4 } from '../keys.js';
import { registerBloomFilter, setKeyTypeParsers } from '../pg.js';
import { SEED, ensureExtension, halfwayFloat4Texts, rng, serverSkip } from './helpers.mjs';

console.log(`# key text tests: BLOOM_TEST_SEED=${SEED}`);

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** The float4 bits of v as float4send writes them (hex, big-endian). */
function float4Hex(v) {
  F32[0] = v;
  return U32[0].toString(16).padStart(8, '0');
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

/** Timestamps in (and just after) Berlin's spring-forward gaps, 1981 to 2037. */
function gapTimestamps(r, n, withMicros) {
  const out = [];
  while (out.length < n) {
    const y = 1981 + r.below(57);
    // the last Sunday of March
    const last = new Date(Date.UTC(y, 2, 31));
    const day = 31 - last.getUTCDay();
    const h = r.below(3) === 0 ? 3 : 2; // 03:xx: the gap's shadow
    const frac = withMicros ? `.${pad(r.below(1000000), 6)}` : r.below(2) ? `.${pad(r.below(1000), 3)}` : '';
    out.push(`${y}-03-${pad(day)} ${pad(h)}:${pad(r.below(60))}:${pad(r.below(60))}${frac}`);
  }
  return out;
}

describe('key values through node-postgres, against the server', { skip: serverSkip() }, () => {
  let plain; // node-postgres's own parsers
  let text; // setKeyTypeParsers: the server's text

  before(async () => {
    plain = new pg.Client();
    await plain.connect();
    await plain.query('SET client_min_messages = warning');
    await ensureExtension(plain);
    await registerBloomFilter(plain);
    text = new pg.Client();
    await text.connect();
    await registerBloomFilter(text);
    setKeyTypeParsers(text);
    // the server's float4 of a text, or NULL where it refuses it
    for (const c of [plain, text]) {
      await c.query(`CREATE FUNCTION pg_temp.f4(t text) RETURNS float4 LANGUAGE plpgsql AS $$
        BEGIN RETURN t::float4; EXCEPTION WHEN others THEN RETURN NULL; END $$`);
    }
  });

  after(async () => {
    await plain?.end();
    await text?.end();
  });

  test('float4 halfway numbers sent by node-postgres: refused, or found (never a false negative)', async () => {
    const r = rng(SEED + 3);
    const mids = [];
    while (mids.length < 20000) {
      U32[0] = r.below(0x7f7fffff); // up to the float4 before FLT_MAX
      const a = F32[0];
      U32[0] += 1;
      const mid = (a + F32[0]) / 2;
      if (mid > 2 ** -150) mids.push(r.below(2) ? -mid : mid);
    }
    // the server gets each as node-postgres sends a number: String(x)
    const { rows } = await plain.query(
      'SELECT bloom_add_all(bloom_empty(40000, 0.01), $1::float4[]) AS f', [mids]);
    const g = rows[0].f;
    let refused = 0;
    let missed = 0;
    for (const x of mids) {
      let k;
      try {
        k = BloomKey.float4(x);
      } catch (e) {
        assert.ok(e instanceof RangeError && /BloomKey\.float4\('/.test(e.message), e.message);
        refused++;
        continue;
      }
      if (!g.contains(k)) missed++;
    }
    assert.equal(missed, 0, `${missed} of ${mids.length} float4 keys probe false`);
    assert.equal(refused, mids.length, 'a midpoint is no float4 value');
    // their text, as sent, finds every one
    for (const x of mids) assert.equal(g.contains(BloomKey.float4(String(x))), true, String(x));
  });

  test('float4 halfway texts: the client reads the float4 the server reads, and refuses what it refuses', async () => {
    const texts = halfwayFloat4Texts(rng(SEED + 5), 20000);
    const { rows } = await plain.query(`
      SELECT array_agg(coalesce(encode(float4send(v), 'hex'), 'refused') ORDER BY o) AS bits,
             bloom_add_all(bloom_empty(40000, 0.01), array_agg(v) FILTER (WHERE v IS NOT NULL)) AS f
      FROM (SELECT o, pg_temp.f4(t) AS v FROM unnest($1::text[]) WITH ORDINALITY u(t, o)) s`, [texts]);
    const mine = texts.map((t) => {
      try {
        return float4Hex(parseFloat4(t));
      } catch (e) {
        assert.ok(e instanceof RangeError, `${t}: ${e.message}`);
        return 'refused';
      }
    });
    for (let i = 0; i < texts.length; i++) assert.equal(mine[i], rows[0].bits[i], texts[i]);
    const f = BloomFilter.empty(40000, { fpr: 0.01 });
    f.addAll(texts.filter((t, i) => mine[i] !== 'refused').map((t) => BloomKey.float4(t)));
    assert.deepEqual(f.toBytes(), rows[0].f.toBytes());
    // float4 columns read back as text find every key, in arrays too
    const back = await text.query('SELECT array_agg(v) AS a FROM unnest($1::text[]) t, pg_temp.f4(t) v', [texts]);
    for (const t of back.rows[0].a) {
      if (t !== null) assert.equal(rows[0].f.contains(BloomKey.float4(t)), true, t);
    }
  });

  test('timestamps in a DST gap of the process time zone: Dates refused or found, text found', async () => {
    const values = gapTimestamps(rng(SEED + 7), 400, false);
    const { rows } = await plain.query(
      'SELECT bloom_add_all(bloom_empty(1000, 0.01), $1::timestamp[]) AS f, $1::timestamp[] AS dates', [values]);
    const g = rows[0].f;
    // node-postgres's Dates: 02:30 became 03:30
    let refused = 0;
    let missed = 0;
    for (const d of rows[0].dates) {
      let k;
      try {
        k = BloomKey.timestamp(d);
      } catch (e) {
        assert.ok(e instanceof RangeError && /skipped ahead/.test(e.message), e.message);
        refused++;
        continue;
      }
      if (!g.contains(k)) missed++;
    }
    assert.equal(missed, 0, `${missed} of ${values.length} timestamps probe false`);
    assert.ok(refused > 0);
    // the server's text: every value found, microseconds and all
    const micro = gapTimestamps(rng(SEED + 8), 400, true);
    const res = await text.query(`SELECT bloom_add_all(bloom_empty(1000, 0.01), $1::timestamp[]) AS f,
        $1::timestamp[] AS a, (SELECT array_agg(x::timestamp) FROM unnest($1::text[]) x) AS b`, [micro]);
    assert.equal(typeof res.rows[0].a[0], 'string');
    for (const t of res.rows[0].a.concat(res.rows[0].b)) {
      assert.equal(res.rows[0].f.contains(BloomKey.timestamp(t)), true, t);
    }
    const one = await text.query("SELECT '2026-03-29 02:30:00.000001'::timestamp AS t");
    assert.equal(one.rows[0].t, '2026-03-29 02:30:00.000001');
  });

  test('timestamptz and date as the server\'s text, in a session time zone with DST', async () => {
    await text.query("SET TimeZone = 'America/New_York'");
    const r = rng(SEED + 9);
    const values = [];
    for (let i = 0; i < 300; i++) {
      const ms = Date.UTC(1900, 0, 1) + r.below(150 * 365) * 86400000 + r.below(86400000);
      values.push(new Date(ms).toISOString().replace('Z', `${pad(r.below(1000), 3)}+00`));
    }
    values.push('infinity', '-infinity', '0044-03-15 12:00:00.5+00 BC', '1850-06-01 12:00:00+00');
    const { rows } = await text.query(`SELECT bloom_add_all(bloom_empty(1000, 0.01), $1::timestamptz[]) AS f,
        $1::timestamptz[] AS a, bloom_add_all(bloom_empty(1000, 0.01), $1::timestamptz[]::date[]) AS fd,
        $1::timestamptz[]::date[] AS d`, [values]);
    for (const t of rows[0].a) assert.equal(rows[0].f.contains(BloomKey.timestamptz(t)), true, t);
    for (const t of rows[0].d) assert.equal(rows[0].fd.contains(BloomKey.date(t)), true, t);
    assert.ok(rows[0].a.some((t) => /-04:56:02/.test(t)), 'local mean time offsets come with seconds');
    await text.query('RESET TimeZone');
  });

  test('a date Samoa skipped, read by node-postgres as a Date, is refused, not read as the next day', async () => {
    process.env.TZ = 'Pacific/Apia';
    try {
      const { rows } = await plain.query(
        "SELECT bloom_add(bloom_empty(10, 0.01), date '2011-12-30') AS f, date '2011-12-30' AS d");
      assert.equal(rows[0].d.getDate(), 31);
      assert.throws(() => rows[0].f.contains(BloomKey.date(rows[0].d)), /skipped ahead/);
      assert.equal(rows[0].f.contains(BloomKey.date('2011-12-30')), true);
    } finally {
      process.env.TZ = 'Europe/Berlin';
    }
  });
});
