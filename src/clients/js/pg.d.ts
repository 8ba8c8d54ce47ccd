import { BloomFilter } from './index.js';

/** Anything with node-postgres's setTypeParser: a Client, pg.types, a TypeOverrides. */
export interface TypeRegistry {
  setTypeParser(oid: number, format: 'text' | 'binary', parse: (value: any) => any): void;
  getTypeParser?(oid: number, format: 'text' | 'binary'): (value: any) => any;
}

/** A node-postgres Client (or anything with query()). */
export interface Queryable {
  query(text: string): Promise<{ rows: any[] }>;
}

/** Parses a bloomfilter result value: base64 text, or the portable bytes. */
export function parseBloomFilter(value: string | Uint8Array): BloomFilter;

/** Installs the text and binary parsers for the bloomfilter type oid. */
export function setBloomFilterTypeParsers(types: TypeRegistry, oid: number): void;

/**
 * Looks up the bloomfilter type in the client's database and installs its
 * parsers on the client (or on `types`, e.g. pg.types). Resolves to its oid.
 */
export function registerBloomFilter(client: Queryable & Partial<TypeRegistry>, types?: TypeRegistry): Promise<number>;

/**
 * Makes float4, date, timestamp and timestamptz results (and their arrays)
 * come as the server's text, which BloomKey.float4, date, timestamp and
 * timestamptz read exactly: node-postgres's Dates lose microseconds and move
 * times in a DST gap of the process's time zone, and its float4 numbers are
 * the nearest doubles of their text, not float4 values. Text results only.
 */
export function setKeyTypeParsers(types: TypeRegistry): void;
