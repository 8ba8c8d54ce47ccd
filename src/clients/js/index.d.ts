/**
 * bloomfilter: the PostgreSQL extension's filters (src/core/FORMAT.md) in
 * JavaScript. Same bytes, same hashing, same sizing as the server.
 */

/** This client's release, as in its package.json. */
export declare const CLIENT_VERSION: string;
/** The format version this client writes (FORMAT.md, "Compatibility"). */
export declare const FORMAT_VERSION: 1;
/** The format versions this client reads; a newer one is refused, naming the client release to get. */
export declare const READ_FORMAT_VERSIONS: readonly number[];

/** Key family codes of the format (FORMAT.md, "Key families"). */
export declare const Family: Readonly<{
  NONE: 0; INTEGER: 1; FLOAT: 2; NUMERIC: 3; TEXT: 4; BYTEA: 5; UUID: 6;
  BOOLEAN: 7; DATE: 8; TIMESTAMP: 9; TIMESTAMPTZ: 10; OTHER: 11;
  INTERVAL: 12; JSONB: 13; ENUM: 14; COMPOSITE: 15; HASHED: 16;
}>;

/** A key of an explicit family: what the server hashes for one SQL value. */
export declare class BloomKey {
  private constructor(family: number, bytes: Uint8Array);
  readonly family: number;
  readonly bytes: Uint8Array;
  /** int2, int4, int8: a safe integer or a bigint in int8's range. */
  static int(x: number | bigint): BloomKey;
  /** text, varchar, char(n), name: trailing spaces are dropped, as the server does. */
  static text(s: string): BloomKey;
  static bytea(b: Uint8Array): BloomKey;
  static bool(b: boolean): BloomKey;
  /** uuid: text as PostgreSQL reads it, or its 16 bytes. */
  static uuid(u: string | Uint8Array): BloomKey;
  /** float8 (double precision). */
  static float8(x: number): BloomKey;
  /**
   * float4 (real): its decimal text, rounded as the server's float4in rounds
   * it (exactly, ties to even; 'NaN', 'Infinity'; out of range refused), or a
   * number that is a float4 value itself (Math.fround(x) === x): any other
   * number is a RangeError (pass the text the server was given: String(x) for
   * a number node-postgres sent).
   */
  static float4(x: string | number): BloomKey;
  /**
   * date: 'YYYY-MM-DD' [' BC'], 'infinity', '-infinity' (the server's text), or
   * a Date's local calendar day (refused for a day the time zone skips).
   */
  static date(d: string | Date): BloomKey;
  /**
   * timestamp: the server's text, 'YYYY-MM-DD HH:MM:SS[.ffffff]' [' BC'],
   * '[-]infinity', or a Date's local wall-clock time (refused within a DST
   * gap's length after the gap: node-postgres moves skipped times).
   */
  static timestamp(t: string | Date): BloomKey;
  /** timestamptz: a Date, or a string with its offset ('...+02', '...Z'), '[-]infinity'. */
  static timestamptz(t: string | Date): BloomKey;
}

/**
 * What a key may be: an integer (number that is a safe integer, or bigint),
 * a string (text), a Uint8Array (bytea), a boolean, a Date (timestamptz),
 * or a BloomKey for any family (uuid, float4/float8, date, timestamp, ...).
 * A number that is not an integer is refused: use BloomKey.float8(x).
 */
export type Key = number | bigint | string | Uint8Array | boolean | Date | BloomKey;

export type Layout = 'blocked' | 'classic';

/** Bad bytes or text given as a filter, or filters that cannot be combined. */
export declare class BloomFilterError extends Error {
  readonly code:
    | 'truncated' | 'magic' | 'version' | 'layout' | 'hashes' | 'nbits' | 'size'
    | 'family' | 'reserved' | 'checksum' | 'added' | 'base64' | 'incompatible';
}

/** The columns of SQL's bloom_info(f), by the same names. */
export interface BloomInfo {
  layout: Layout;
  bits: number;
  hashes: number;
  bytes: number;
  seed: bigint;
  key_family: string;
  /** add operations; past int8's range reported as 2^63-1, as SQL does */
  added: bigint;
  bits_set: number;
  fill_ratio: number;
  est_cardinality: number;
  est_fpr: number;
  format_version: number;
}

export declare class BloomFilter {
  private constructor();

  /** bloom_empty(capacity, fpr, layout, seed): defaults fpr 0.01, 'blocked', seed 0. */
  static empty(capacity: number | bigint,
    options?: { fpr?: number; layout?: Layout; seed?: number | bigint }): BloomFilter;
  /** bloom_empty_bits(bits, hashes, layout, seed): defaults 'classic', seed 0. */
  static emptyBits(bits: number | bigint, hashes: number,
    options?: { layout?: Layout; seed?: number | bigint }): BloomFilter;
  /** Validates portable bytes (every check of FORMAT.md); throws BloomFilterError. */
  static fromBytes(bytes: Uint8Array): BloomFilter;
  /** Reads the text form (strict padded base64). */
  static fromText(text: string): BloomFilter;

  add(key: Key): this;
  addAll(keys: Iterable<Key>): this;
  /** false: certainly absent; true: present, or a false positive. */
  contains(key: Key): boolean;
  /** bloom_union (f | g): a new filter. */
  union(g: BloomFilter): BloomFilter;
  /** bloom_intersect (f & g): a new filter. */
  intersect(g: BloomFilter): BloomFilter;
  /** Same header fields and bits. */
  equals(g: BloomFilter): boolean;

  /** The portable bytes, with their checksum (f::bytea). */
  toBytes(): Uint8Array;
  /** Padded base64 of toBytes() (f::text). */
  toText(): string;
  toString(): string;
  /** node-postgres parameter value: the bytes, sent in binary. Type it $1::bloomfilter. */
  toPostgres(): Uint8Array;

  readonly layout: Layout;
  readonly bits: number;
  readonly hashes: number;
  readonly seed: bigint;
  readonly added: bigint;
  readonly keyFamily: string;
  /** bloom_cardinality(f) */
  cardinality(): number;
  /** bloom_fpr(f) */
  fpr(): number;
  /** bloom_info(f) */
  info(): BloomInfo;

  static int(x: number | bigint): BloomKey;
  static text(s: string): BloomKey;
  static bytea(b: Uint8Array): BloomKey;
  static bool(b: boolean): BloomKey;
  static uuid(u: string | Uint8Array): BloomKey;
  static float4(x: string | number): BloomKey;
  static float8(x: number): BloomKey;
  static date(d: string | Date): BloomKey;
  static timestamp(t: string | Date): BloomKey;
  static timestamptz(t: string | Date): BloomKey;
}
