// float4 and timestamptz keys at the edges, against the bytes the server's
// float4in and timestamptz_in made of the same text (PostgreSQL 15,
// TimeZone irrelevant: every string has its offset; float4send and
// timestamptz_send, byte order reversed to the key's).  A key the client
// computes otherwise would probe false on the server's filter; null: the
// client refuses the text (refusing more than the server is safe).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BloomKey } from '../keys.js';

const hex = (k) => Buffer.from(k.bytes).toString('hex');
const be2le = (h) => h.match(/../g).reverse().join('');
// a float4 key is the float8 key of the float4 value (one family)
const f4key = (h) => hex(BloomKey.float8(new Float32Array(new Uint32Array([parseInt(h, 16)]).buffer)[0]));

const FLOAT4 = [
  ['1e-50', null], [' 1.5 ', '3fc00000'], ['+1', '3f800000'], ['.5', '3f000000'],
  ['inf', '7f800000'], ['-infinity', 'ff800000'], ['-0', '80000000'], ['NaN', '7fc00000'],
  ['1.4e-45', '00000001'], ['7e-46', null], ['7.1e-46', '00000001'], ['8e-46', '00000001'],
  ['1.17549435e-38', '00800000'], ['3.4028235e38', '7f7fffff'], ['1e39', null],
  ['3.40282356779733661637539395458142568448e38', null],
  ['3.40282356779733661637539395458142568447e38', '7f7fffff'],
  ['1.00000005960464477550', '3f800001'], ['1.000000059604644775390625', '3f800000'],
  ['16777217', '4b800000'], ['\t2.5\t', '40200000'], ['1e+00001', '41200000'], ['1.', '3f800000'],
];

const TSTZ = [
  ['2020-01-01 00:00:00+05:30', '00023e02ea965a00'],
  ['2020-01-01 00:00:00-03:30:15', '00023e0a76abffc0'],
  ['0001-01-01 00:00:00+00 BC', 'ff1fc63d1bb12000'],
  ['4714-11-24 00:00:00+00 BC', 'fd0f7cc1411fa000'],
  ['2020-01-01 23:59:60+00', '00023e1ba499c000'],
  ['2020-01-01 24:00:00+00', '00023e1ba499c000'],
  ['infinity', '7fffffffffffffff'], ['-infinity', '8000000000000000'],
  ['2000-02-29 00:00:00.5Z', '000004a2e0aac120'],
  ['2020-01-01 00:00:00+15:59:59', '00023dfa1d976240'],
  ['294276-12-31 23:59:59.999999+00', '7fffff5bb3b29fff'],
  ['294276-12-31 23:59:59.999999-01', null],
  ['2020-01-01 12:00:00.1234567+00', null], // the server rounds to 6 digits
];

test('float4 keys from edge texts are the server\'s bytes', () => {
  for (const [s, want] of FLOAT4) {
    let got = null;
    try { got = hex(BloomKey.float4(s)); } catch { /* refused */ }
    if (want === null) assert.equal(got, null, `${JSON.stringify(s)}: the server refuses it`);
    else if (got !== null) assert.equal(got, f4key(want), JSON.stringify(s));
    else assert.fail(`${JSON.stringify(s)}: refused, the server reads ${want}`);
  }
});

test('timestamptz keys from edge texts are the server\'s bytes', () => {
  for (const [s, want] of TSTZ) {
    let got = null;
    try { got = hex(BloomKey.timestamptz(s)); } catch { /* refused */ }
    if (want === null || got === null) continue; // refusing is safe
    assert.equal(got, be2le(want), JSON.stringify(s));
  }
});
