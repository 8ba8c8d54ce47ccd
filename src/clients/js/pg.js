// node-postgres support: bloomfilter values read as BloomFilter objects
// (text and binary results), and BloomFilter objects sent as parameters.
//
//   import pg from 'pg';
//   import { registerBloomFilter } from 'bloomfilter/pg';
//   const client = new pg.Client(); await client.connect();
//   await registerBloomFilter(client);
//   const { rows } = await client.query('SELECT bloom_agg(id) AS f FROM t');
//   rows[0].f.contains(42);
//   await client.query('SELECT count(*) FROM t WHERE id <@ $1::bloomfilter', [rows[0].f]);
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
