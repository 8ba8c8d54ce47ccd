// Key encodings: a JavaScript value to the key family and key bytes the
// server hashes for the same SQL value (src/core/FORMAT.md, "Key families").
//
// Plain values map to the family their JavaScript type names without doubt:
//   number (a safe integer) or bigint (int8's range)  -> integer (int2/int4/int8)
//   string                                            -> text
//   Uint8Array (and Buffer)                           -> bytea
//   boolean                                           -> boolean
//   Date                                              -> timestamptz
// Everything else is said with a wrapper (BloomKey.uuid('...'),
// BloomKey.float8(1.5), BloomKey.date('2024-05-01'), ...): a JavaScript
// number that is not an integer is refused rather than guessed to be a
// float, because 1.0 and 1 are one JavaScript value and the integer and
// float families hash differently.

export const Family = Object.freeze({
  NONE: 0,
  INTEGER: 1,
  FLOAT: 2,
  NUMERIC: 3,
  TEXT: 4,
  BYTEA: 5,
  UUID: 6,
  BOOLEAN: 7,
  DATE: 8,
  TIMESTAMP: 9,
  TIMESTAMPTZ: 10,
  OTHER: 11,
  INTERVAL: 12,
  JSONB: 13,
  ENUM: 14,
  COMPOSITE: 15,
  HASHED: 16,
});

export const FAMILY_NAMES = [
  'none', 'integer', 'float', 'numeric', 'text', 'bytea', 'uuid', 'boolean',
  'date', 'timestamp', 'timestamptz', 'other', 'interval', 'jsonb', 'enum',
  'composite', 'hashed',
];

const TAGGED = new Set([11, 14, 15, 16]);

/** The server's display of a family (bloom_family_display, without a catalog). */
export function familyDisplay(family, typeTag) {
  const name = FAMILY_NAMES[family] ?? 'unknown';
  if (TAGGED.has(family)) {
    if ((family === 11 || family === 16) && typeTag < 16384) {
      return `${name} (type oid ${typeTag})`;
    }
    return `${name} (type tag ${typeTag.toString(16).padStart(8, '0')})`;
  }
  return name;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A key of an explicit family: its family code and the bytes the server
 * hashes.  Made by the static helpers (BloomKey.uuid, BloomKey.float8, ...);
 * frozen.
 */
export class BloomKey {
  constructor(family, bytes) {
    this.family = family;
    this.bytes = bytes;
    Object.freeze(this);
  }

  /** An integer of any width (int2, int4, int8): a safe integer or a bigint. */
  static int(x) {
    return new BloomKey(Family.INTEGER, int64Bytes(checkInteger(x)));
  }

  /** text, varchar, char(n), name. */
  static text(s) {
    if (typeof s !== 'string') {
      throw new TypeError(`BloomKey.text takes a string, not ${describe(s)}`);
    }
    return new BloomKey(Family.TEXT, textBytes(s));
  }

  /** bytea. */
  static bytea(b) {
    if (!(b instanceof Uint8Array)) {
      throw new TypeError(`BloomKey.bytea takes a Uint8Array, not ${describe(b)}`);
    }
    return new BloomKey(Family.BYTEA, Uint8Array.prototype.slice.call(b));
  }

  static bool(b) {
    if (typeof b !== 'boolean') {
      throw new TypeError(`BloomKey.bool takes a boolean, not ${describe(b)}`);
    }
    return new BloomKey(Family.BOOLEAN, Uint8Array.of(b ? 1 : 0));
  }

  /**
   * uuid: its text form as PostgreSQL reads it (hex digits, a hyphen
   * allowed after any group of four, optional braces), or its 16 bytes.
   */
  static uuid(u) {
    if (u instanceof Uint8Array) {
      if (u.length !== 16) {
        throw new RangeError(`a uuid has 16 bytes, not ${u.length}`);
      }
      return new BloomKey(Family.UUID, Uint8Array.prototype.slice.call(u));
    }
    if (typeof u !== 'string') {
      throw new TypeError(`BloomKey.uuid takes a string or 16 bytes, not ${describe(u)}`);
    }
    return new BloomKey(Family.UUID, parseUuid(u));
  }

  /** float8 (double precision): the number as it is. */
  static float8(x) {
    return new BloomKey(Family.FLOAT, floatBytes(checkNumber(x, 'float8')));
  }

  /**
   * float4 (real): the value the server makes of the decimal text it is
   * given (float4in: strtof, the exact decimal rounded to the nearest
   * float4, ties to even), so a string: '1.1', '-3.4028235e38', '1e-45',
   * 'NaN', 'Infinity', as written in SQL, sent as a parameter, or read
   * back as text (setKeyTypeParsers).  What the server refuses is refused:
   * a value that rounds to infinity, or a nonzero one that rounds to zero.
   * A number is taken only when it is a float4 value itself
   * (Math.fround(x) === x): otherwise which float4 the server holds
   * depends on the decimal text it was given, which a JavaScript number
   * does not keep (node-postgres sends String(x), and rounding the number
   * instead rounds twice: a value halfway between two float4s then lands
   * on the other one).
   */
  static float4(x) {
    if (typeof x === 'string') return new BloomKey(Family.FLOAT, floatBytes(parseFloat4(x)));
    checkNumber(x, 'float4');
    if (!Number.isNaN(x) && Math.fround(x) !== x) {
      throw new RangeError(`BloomKey.float4(${x}): the number is not a float4 value, and the float4 the server ` +
        'holds for it depends on the decimal text it was given: pass that text, ' +
        `BloomKey.float4('${String(x)}') for a number node-postgres sent as a parameter (it sends String(x)), ` +
        'or read float4 columns as text (setKeyTypeParsers in bloomfilter/pg)');
    }
    return new BloomKey(Family.FLOAT, floatBytes(x));
  }

  /**
   * date: its text as the server gives it in DateStyle ISO ('YYYY-MM-DD',
   * ' BC' may follow, 'infinity', '-infinity'), or a Date read by its
   * local calendar day.  A Date made from a day the process's time zone
   * skips (node-postgres makes local midnight) is refused: it holds
   * another day.
   */
  static date(d) {
    let days;
    if (d instanceof Date) {
      checkDate(d);
      checkNoGap(d, 'date', true);
      days = daysFromCivil(d.getFullYear(), d.getMonth() + 1, d.getDate());
    } else if (typeof d === 'string') {
      days = parseDate(d);
    } else {
      throw new TypeError(`BloomKey.date takes a string or a Date, not ${describe(d)}`);
    }
    if (days !== DATE_NEG_INF && days !== DATE_POS_INF &&
        (days < DATE_MIN || days > DATE_MAX)) {
      throw new RangeError(`date out of range: ${String(d)}`);
    }
    return new BloomKey(Family.DATE, int64Bytes(BigInt(days)));
  }

  /**
   * timestamp (without time zone): its text as the server gives it in
   * DateStyle ISO ('YYYY-MM-DD HH:MM:SS[.ffffff]', or with a 'T', ' BC'
   * may follow; 'infinity', '-infinity'): exact to the microsecond, in any
   * time zone.  A string with a time zone is refused: which wall-clock
   * time it means is unclear.  A Date is read by its local wall-clock time
   * (milliseconds only), and refused where that reading is ambiguous: a
   * Date node-postgres made from a time the process's time zone skips
   * (02:30 on a spring-forward night) shows the time after the gap.  Read
   * timestamp columns as text (setKeyTypeParsers in bloomfilter/pg).
   */
  static timestamp(t) {
    let us;
    if (t instanceof Date) {
      checkDate(t);
      checkNoGap(t, 'timestamp', false);
      us = BigInt(daysFromCivil(t.getFullYear(), t.getMonth() + 1, t.getDate())) * DAY_US +
        BigInt(((t.getHours() * 60 + t.getMinutes()) * 60 + t.getSeconds()) * 1000 +
          t.getMilliseconds()) * 1000n;
    } else if (typeof t === 'string') {
      us = parseTimestamp(t, false);
    } else {
      throw new TypeError(`BloomKey.timestamp takes a string or a Date, not ${describe(t)}`);
    }
    return new BloomKey(Family.TIMESTAMP, int64Bytes(checkTimestamp(us, t)));
  }

  /**
   * timestamptz: a Date (an instant), or a string with its offset
   * ('2024-05-01 10:00:00.123456+02', '...Z'), 'infinity', '-infinity'.
   * A string without an offset is refused: the server would read it in
   * the session's TimeZone.
   */
  static timestamptz(t) {
    let us;
    if (t instanceof Date) {
      checkDate(t);
      us = (BigInt(t.getTime()) - EPOCH_2000_MS) * 1000n;
    } else if (typeof t === 'string') {
      us = parseTimestamp(t, true);
    } else {
      throw new TypeError(`BloomKey.timestamptz takes a string or a Date, not ${describe(t)}`);
    }
    return new BloomKey(Family.TIMESTAMPTZ, int64Bytes(checkTimestamp(us, t)));
  }
}

// ---- plain values ----

/**
 * The family and key bytes of a key given as a plain value or a BloomKey.
 * out8 is a scratch 8-byte array for the integer path (returned as the
 * bytes); the caller hashes it before the next call.
 */
export function encodeKey(key, out8, dv8) {
  switch (typeof key) {
    case 'number':
      if (!Number.isSafeInteger(key)) {
        if (Number.isInteger(key)) {
          throw new RangeError(`the integer key ${key} is past Number.MAX_SAFE_INTEGER: pass it as a bigint`);
        }
        throw new TypeError(`the key ${key} is not an integer: a float key is BloomKey.float8(x) or BloomKey.float4(x)`);
      }
      {
        const hi = Math.floor(key / 4294967296);
        dv8.setUint32(0, key - hi * 4294967296, true);
        dv8.setInt32(4, hi, true);
      }
      FAMILY_OUT.family = Family.INTEGER;
      return out8;
    case 'bigint':
      if (key < INT64_MIN || key > INT64_MAX) {
        throw new RangeError(`the integer key ${key} is out of int8's range`);
      }
      dv8.setBigInt64(0, key, true);
      FAMILY_OUT.family = Family.INTEGER;
      return out8;
    case 'string':
      FAMILY_OUT.family = Family.TEXT;
      return textBytes(key);
    case 'boolean':
      FAMILY_OUT.family = Family.BOOLEAN;
      return key ? ONE : ZERO;
    case 'object':
      if (key instanceof BloomKey) {
        FAMILY_OUT.family = key.family;
        return key.bytes;
      }
      if (key instanceof Uint8Array) {
        FAMILY_OUT.family = Family.BYTEA;
        return key;
      }
      if (key instanceof Date) {
        const k = BloomKey.timestamptz(key);
        FAMILY_OUT.family = k.family;
        return k.bytes;
      }
      break;
    default:
      break;
  }
  throw new TypeError(`cannot use ${describe(key)} as a bloomfilter key: keys are integers (number or bigint), ` +
    'strings (text), Uint8Array (bytea), booleans, Dates (timestamptz), or BloomKey values ' +
    '(BloomKey.uuid, float4, float8, date, timestamp, timestamptz)');
}

/** The family of the last encodeKey call (saves an allocation per key). */
export const FAMILY_OUT = { family: 0 };

const ONE = Uint8Array.of(1);
const ZERO = Uint8Array.of(0);

function describe(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'object') return `an object (${x.constructor?.name ?? 'Object'})`;
  return `a ${typeof x} (${String(x)})`;
}

function checkInteger(x) {
  if (typeof x === 'bigint') {
    if (x < INT64_MIN || x > INT64_MAX) {
      throw new RangeError(`the integer key ${x} is out of int8's range`);
    }
    return x;
  }
  if (typeof x === 'number') {
    if (!Number.isSafeInteger(x)) {
      throw new TypeError(`the key ${x} is not a safe integer`);
    }
    return BigInt(x);
  }
  throw new TypeError(`an integer key is a number or a bigint, not ${describe(x)}`);
}

function checkNumber(x, what) {
  if (typeof x !== 'number') {
    throw new TypeError(`a ${what} key is a number, not ${describe(x)}`);
  }
  return x;
}

function int64Bytes(v) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, v, true);
  return b;
}

const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);

/** IEEE-754 double, -0 as 0, every NaN as 0x7ff8000000000000. */
function floatBytes(x) {
  const b = new Uint8Array(8);
  if (Number.isNaN(x)) {
    b[6] = 0xf8;
    b[7] = 0x7f;
    return b;
  }
  F64[0] = x === 0 ? 0 : x;
  b.set(F64_BYTES);
  return b;
}

// ---- float4 from its decimal text, as the server's float4in reads it ----

// strtof's decimal syntax (C locale): sign, digits with an optional point,
// an optional exponent.  Hexadecimal floats and "nan(...)", which glibc's
// strtof also takes, are refused here: refusing more than the server is
// safe, reading otherwise is not.
const FLOAT_RE = /^([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?$/;
const C_SPACE = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
// the most significant digits kept; past them only whether any is nonzero
// matters (a float4 midpoint has fewer than 120 significant digits)
const MAX_DIGITS = 200;

/**
 * The float4 the server's float4in makes of text s (a number, NaN and the
 * infinities as numbers); throws what it would refuse.
 */
export function parseFloat4(s) {
  if (typeof s !== 'string') throw new TypeError(`a float4 key string is a string, not ${describe(s)}`);
  const t = s.replace(C_SPACE, '');
  const special = /^([+-]?)(nan|inf|infinity)$/i.exec(t);
  if (special) {
    if (special[2].toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  const m = FLOAT_RE.exec(t);
  if (!m) throw new SyntaxError(`invalid input syntax for type real: "${s}"`);
  const neg = m[1] === '-';
  const intPart = m[4] === undefined ? m[2] : '';
  const fracPart = m[4] === undefined ? m[3] : m[4];
  let digits = (intPart + fracPart).replace(/^0+/, '');
  if (digits === '') return neg ? -0 : 0;
  // exponent of the last digit; an exponent past any float4 only says "out of range"
  const e10 = m[5] === undefined ? 0 : Math.max(-1e6, Math.min(1e6, Number(m[5])));
  let exp = e10 - fracPart.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exp += trailing;
  // value = digits * 10^exp, in [10^lead, 10^(lead+1))
  const lead = digits.length - 1 + exp;
  if (lead >= 39) throw outOfRange(s); // >= 1e39 > FLT_MAX
  if (lead < -46) throw outOfRange(s); // < 1e-46 < 2^-150: rounds to zero
  // the fast path: a correctly rounded double, then to float4, is right
  // unless the double is exactly halfway between two float4s
  const d = Number(`${digits}e${exp}`);
  const f = Math.fround(d);
  let v;
  if (f === d || (f !== 0 && Number.isFinite(f) && !halfway(d, f))) v = f;
  else v = exactFloat4(digits, exp);
  if (v === 0 || !Number.isFinite(v)) throw outOfRange(s);
  return neg ? -v : v;
}

function outOfRange(s) {
  return new RangeError(`"${s}" is out of range for type real`);
}

/** Whether double d lies exactly halfway between float4 f and its neighbour past d. */
function halfway(d, f) {
  F32[0] = f;
  U32[0] += (d > f) === (f > 0) ? 1 : -1;
  return (f + F32[0]) / 2 === d;
}

/**
 * The positive decimal digits * 10^exp rounded to the nearest float4, ties
 * to even (0 if it rounds to zero, Infinity past the largest), exactly.
 */
export function exactFloat4(digits, exp) {
  if (digits.length > MAX_DIGITS) {
    // a sticky digit stands for the nonzero digits cut off
    exp += digits.length - MAX_DIGITS;
    digits = digits.slice(0, MAX_DIGITS - 1) + '1';
  }
  let num = BigInt(digits);
  let den = 1n;
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den = 10n ** BigInt(-exp);
  // value = q * 2^e with 2^23 <= q < 2^24, or e = -149 (subnormal)
  let e = Math.max(-149, num.toString(2).length - den.toString(2).length - 24);
  for (;;) {
    const [n, dd] = e >= 0 ? [num, den << BigInt(e)] : [num << BigInt(-e), den];
    if (e > -149 && n < (dd << 23n)) { e--; continue; }
    if (n >= (dd << 24n)) { e++; continue; }
    let q = n / dd;
    const r2 = (n - q * dd) * 2n;
    if (r2 > dd || (r2 === dd && (q & 1n) === 1n)) q++;
    if (q === 1n << 24n) { q >>= 1n; e++; }
    if (e > 104) return Infinity;
    return Number(q) * 2 ** e;
  }
}

const ENCODER = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** UTF-8 without trailing spaces (U+0020), as the server hashes text. */
function textBytes(s) {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x20) end--;
  if (end !== s.length) s = s.slice(0, end);
  if (LONE_SURROGATE.test(s)) {
    throw new TypeError('a text key has an unpaired surrogate, which no PostgreSQL text holds');
  }
  if (s.includes('\0')) {
    throw new TypeError('a text key contains NUL (U+0000), which no PostgreSQL text holds');
  }
  return ENCODER.encode(s);
}

function hexVal(c) {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** PostgreSQL's string_to_uuid: 32 hex digits, '-' after any group of 4, optional braces. */
function parseUuid(s) {
  const out = new Uint8Array(16);
  let i = 0;
  const braces = s.charCodeAt(0) === 0x7b;
  if (braces) i++;
  for (let k = 0; k < 16; k++) {
    const a = hexVal(s.charCodeAt(i));
    const b = hexVal(s.charCodeAt(i + 1));
    if (a < 0 || b < 0) throw new SyntaxError(`invalid input syntax for type uuid: "${s}"`);
    out[k] = a * 16 + b;
    i += 2;
    if (s[i] === '-' && k % 2 === 1 && k < 15) i++;
  }
  if (braces) {
    if (s[i] !== '}') throw new SyntaxError(`invalid input syntax for type uuid: "${s}"`);
    i++;
  }
  if (i !== s.length) throw new SyntaxError(`invalid input syntax for type uuid: "${s}"`);
  return out;
}

// ---- dates and times ----

const DAY_US = 86400000000n;
const EPOCH_2000_MS = 946684800000n;
const DATE_NEG_INF = -2147483648;
const DATE_POS_INF = 2147483647;
// PostgreSQL's range: 4714-11-24 BC .. 5874897-12-31, as days since 2000-01-01
const DATE_MIN = -2451545;
const DATE_MAX = 2145031948;
// timestamps: 4714-11-24 BC 00:00 .. before 294277-01-01 00:00
const TS_MIN = -211813488000000000n;
const TS_END = 9223371331200000000n;

function checkDate(d) {
  if (Number.isNaN(d.getTime())) throw new RangeError('an Invalid Date is not a key');
}

/** The process's UTC offset at instant ms, in minutes east. */
function offsetAt(ms) {
  return -new Date(ms).getTimezoneOffset();
}

/**
 * Refuses a Date whose local reading may not be the wall-clock time it was
 * made from: JavaScript (and so node-postgres) turns a local time that
 * the process's time zone skips into the time after the gap, so a Date
 * within a gap's length after a forward transition may stand for either.
 * For a date, only when the skipped time was another calendar day.
 */
function checkNoGap(d, what, dayOnly) {
  const t = d.getTime();
  const now = offsetAt(t);
  // the offset two days before: a forward change since then is a gap
  const gap = now - offsetAt(t - 2 * 86400000);
  if (gap <= 0 || offsetAt(t - gap * 60000) === now) return;
  if (dayOnly) {
    const wall = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(),
      d.getMinutes(), d.getSeconds(), d.getMilliseconds());
    if (new Date(wall - gap * 60000).getUTCDate() === d.getDate()) return;
  }
  throw new RangeError(`BloomKey.${what}(Date): ${d.toString()} is within ${gap} minutes after the ` +
    'process\'s time zone skipped ahead, so it may have been made from a skipped local time that the ' +
    `server holds as it was: pass the server's text instead (BloomKey.${what}('...'), ` +
    'setKeyTypeParsers in bloomfilter/pg)');
}

function checkTimestamp(us, orig) {
  if (us === INT64_MIN || us === INT64_MAX) return us;
  if (us < TS_MIN || us >= TS_END) throw new RangeError(`timestamp out of range: ${String(orig)}`);
  return us;
}

/** Days since 2000-01-01 of a proleptic Gregorian date (year 0 = 1 BC). */
export function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468 - 10957;
}

function daysInMonth(y, m) {
  if (m === 2) return (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)) ? 29 : 28;
  return [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/**
 * Days since 2000-01-01 of the date fields m[1..3] (year, month, day),
 * checked; bc: the year is written BC (year Y BC is astronomical 1 - Y,
 * whose leap years are those of the proleptic Gregorian calendar).
 */
function civilDays(s, m, bc) {
  const written = Number(m[1]);
  const y = bc ? 1 - written : written;
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (written === 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) {
    throw new RangeError(`date/time field value out of range: "${s}"`);
  }
  return daysFromCivil(y, mo, d);
}

function parseDate(s) {
  const t = s.replace(C_SPACE, '').toLowerCase();
  if (t === 'infinity' || t === '+infinity') return DATE_POS_INF;
  if (t === '-infinity') return DATE_NEG_INF;
  const m = /^(\d{4,7})-(\d{2})-(\d{2})( bc)?$/.exec(t);
  if (!m) throw new SyntaxError(`a date key is 'YYYY-MM-DD', 'infinity' or '-infinity', not "${s}"`);
  return civilDays(s, m, Boolean(m[4]));
}

// the offset is +HH, +HH:MM, +HH:MM:SS, +HHMM or +HHMMSS (the server's own
// output uses the colon forms)
const TS_RE = /^(\d{4,6})-(\d{2})-(\d{2})[ t](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(?:(z)|([+-])(\d{2})(?::(\d{2})(?::(\d{2}))?|(\d{2})(\d{2})?)?)?( bc)?$/;

function parseTimestamp(s, withZone) {
  const t = s.replace(C_SPACE, '').toLowerCase();
  if (t === 'infinity' || t === '+infinity') return INT64_MAX;
  if (t === '-infinity') return INT64_MIN;
  const m = TS_RE.exec(t);
  if (!m) {
    throw new SyntaxError(`a ${withZone ? 'timestamptz' : 'timestamp'} key is ` +
      `'YYYY-MM-DD HH:MM:SS[.ffffff]${withZone ? '+HH[:MM]' : ''}', 'infinity' or '-infinity', not "${s}"`);
  }
  if (m[13] !== undefined) {
    m[11] = m[13];
    m[12] = m[14];
  }
  m[13] = m[15];
  const hasZone = m[8] !== undefined || m[9] !== undefined;
  if (withZone && !hasZone) {
    throw new SyntaxError(`a timestamptz key string needs its offset ('Z' or '+HH:MM'): "${s}" would be read in the session's TimeZone`);
  }
  if (!withZone && hasZone) {
    throw new SyntaxError(`a timestamp key string has no time zone: "${s}" (use BloomKey.timestamptz for an instant)`);
  }
  const days = civilDays(s, m, Boolean(m[13]));
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const sec = m[6] ? Number(m[6]) : 0;
  const frac = m[7] ? Number(m[7].padEnd(6, '0')) : 0;
  if (h > 24 || mi > 59 || sec > 60 || (h === 24 && (mi || sec || frac))) {
    throw new RangeError(`date/time field value out of range: "${s}"`);
  }
  // the local date is checked before the offset, as the server does
  if (days < DATE_MIN) throw new RangeError(`timestamp out of range: "${s}"`);
  let us = BigInt(days) * DAY_US + BigInt((h * 60 + mi) * 60 + sec) * 1000000n + BigInt(frac);
  if (m[9]) {
    const off = (Number(m[10]) * 60 + (m[11] ? Number(m[11]) : 0)) * 60 + (m[12] ? Number(m[12]) : 0);
    if (Number(m[10]) > 15 || (m[11] && Number(m[11]) > 59) || (m[12] && Number(m[12]) > 59)) {
      throw new RangeError(`time zone displacement out of range: "${s}"`);
    }
    // local = UTC + offset, so UTC = local - offset
    us -= BigInt(m[9] === '+' ? off : -off) * 1000000n;
  }
  return us;
}
