// node-postgres support: bloomfilter values read as BloomFilter objects
// (text and binary results), and BloomFilter objects sent as parameters.
//
//   import pg from 'pg';
//   import { registerBloomFilter } from 'pg-bloomfilter/pg';
//   const client = new pg.Client(); await client.connect();
//   await registerBloomFilter(client);
//   const { rows } = await client.query('SELECT bloom_agg(id) AS f FROM t');
//   rows[0].f.contains(42);
//   await client.query('SELECT count(*) FROM t WHERE id <@ $1::bloomfilter', [rows[0].f]);
//
// Keys read from float4, date, timestamp or timestamptz columns: call
// setKeyTypeParsers(client) too, so that they come as the server's text
// (BloomKey.timestamp(row.at)): node-postgres's Dates lose microseconds
// and move times in a DST gap, and its float4 numbers are not float4 values.
//
// A BloomFilter parameter goes as its portable bytes in binary format
// (BloomFilter.prototype.toPostgres); type the parameter, $1::bloomfilter,
// or PostgreSQL cannot tell which <@ is meant.

import { BloomFilter } from './index.js';

/** Parses a bloomfilter result column in text (base64) or binary form. */
export function parseBloomFilter(value) {
  if (typeof value === 'string') return BloomFilter.fromText(value);
  return BloomFilter.fromBytes(value);
}

/**
 * Installs the parsers for the type oid into a type registry: a client
 * (client.setTypeParser), pg.types (every client), or a pg.TypeOverrides.
 */
export function setBloomFilterTypeParsers(types, oid) {
  types.setTypeParser(oid, 'text', (s) => BloomFilter.fromText(s));
  types.setTypeParser(oid, 'binary', (b) => BloomFilter.fromBytes(b));
}

// The key types whose node-postgres values are not the server's: float4
// (parsed to the nearest double of its text, not its float4 value), date,
// timestamp, timestamptz (parsed to Dates: local time, milliseconds; a
// timestamp in a gap of the process's time zone moves by the gap), and
// their arrays (oids are fixed for built-in types).
const KEY_TYPES = [[700, 1021], [1082, 1182], [1114, 1115], [1184, 1185]];

/**
 * Makes float4, date, timestamp and timestamptz results (and arrays of
 * them) come as the server's text in a type registry (a client, pg.types,
 * a pg.TypeOverrides): '1.1', '2026-03-29 02:30:00', '2024-05-01
 * 10:00:00.123456+02', 'infinity', exactly what BloomKey.float4, date,
 * timestamp and timestamptz read.  The text is the server's DateStyle
 * (ISO, the default: BloomKey refuses the others).  Text results only
 * (binary results keep node-postgres's parsers).
 */
export function setKeyTypeParsers(types) {
  const textArray = types.getTypeParser ? types.getTypeParser(1009, 'text') : null;
  for (const [oid, arrayOid] of KEY_TYPES) {
    types.setTypeParser(oid, 'text', (s) => s);
    if (textArray) types.setTypeParser(arrayOid, 'text', textArray);
  }
}

/**
 * Looks up the bloomfilter type of the client's database and installs its
 * parsers on that client (or on types, if given: pg.types for every
 * client).  Returns the type's oid.
 */
export async function registerBloomFilter(client, types = client) {
  const { rows } = await client.query("SELECT to_regtype('bloomfilter')::oid AS oid");
  const oid = rows[0].oid;
  if (oid === null || oid === undefined) {
    throw new Error('type bloomfilter does not exist in this database (CREATE EXTENSION bloomfilter, or set search_path to its schema)');
  }
  setBloomFilterTypeParsers(types, Number(oid));
  return Number(oid);
}
