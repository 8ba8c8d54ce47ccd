"""Key families and key bytes (FORMAT.md "Key families"), for the Python
values an application produces.

    int (not bool)          integer      int2/int4/int8: the value as int64 LE
    float                   float        float4/float8: IEEE double LE, -0 as 0,
                                         every NaN as 0x7ff8000000000000
    str                     text         UTF-8, trailing U+0020 spaces dropped
    bytes/bytearray/memoryview  bytea    the bytes
    uuid.UUID               uuid         its 16 bytes
    bool                    boolean      one byte, 0 or 1
    datetime.date           date         days since 2000-01-01 as int64 LE
    datetime.datetime naive timestamp    microseconds since 2000-01-01 as int64 LE
    datetime.datetime aware timestamptz  microseconds since 2000-01-01 00:00 UTC

Any other value is an UnsupportedKeyError (a TypeError): never a silent
false.
"""
import datetime
import math
import numbers
import re
import struct
import uuid

from ._errors import UnsupportedKeyError

FAMILY_NONE = 0
FAMILY_INTEGER = 1
FAMILY_FLOAT = 2
FAMILY_NUMERIC = 3
FAMILY_TEXT = 4
FAMILY_BYTEA = 5
FAMILY_UUID = 6
FAMILY_BOOL = 7
FAMILY_DATE = 8
FAMILY_TIMESTAMP = 9
FAMILY_TIMESTAMPTZ = 10
FAMILY_OTHER = 11
FAMILY_INTERVAL = 12
FAMILY_JSONB = 13
FAMILY_ENUM = 14
FAMILY_COMPOSITE = 15
FAMILY_HASHED = 16
FAMILY_MAX = 16

FAMILY_NAMES = {
    0: "none", 1: "integer", 2: "float", 3: "numeric", 4: "text",
    5: "bytea", 6: "uuid", 7: "boolean", 8: "date", 9: "timestamp",
    10: "timestamptz", 11: "other", 12: "interval", 13: "jsonb",
    14: "enum", 15: "composite", 16: "hashed",
}
TAGGED_FAMILIES = (FAMILY_OTHER, FAMILY_ENUM, FAMILY_COMPOSITE, FAMILY_HASHED)

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_Q = struct.Struct("<q")
_D = struct.Struct("<d")
_NAN_BITS = struct.pack("<Q", 0x7FF8000000000000)
_EPOCH_DATE = datetime.date(2000, 1, 1)
_EPOCH = datetime.datetime(2000, 1, 1)
_EPOCH_UTC = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)


def family_display(family, type_tag=0):
    """The family as the server names it (bloom_info's key_family)."""
    name = FAMILY_NAMES.get(family, "unknown")
    if family in (FAMILY_OTHER, FAMILY_HASHED) and type_tag < 16384:
        return "%s (type oid %u)" % (name, type_tag)
    if family in TAGGED_FAMILIES:
        return "%s (type tag %08x)" % (name, type_tag)
    return name


def encode_int(v):
    if not INT64_MIN <= v <= INT64_MAX:
        raise OverflowError(
            "integer key %d is out of range: integer keys are int2, int4 "
            "or int8 values, from -2^63 to 2^63-1" % v)
    return _Q.pack(v)


def encode_float(v):
    if v != v:
        return _NAN_BITS
    if v == 0.0:
        v = 0.0
    return _D.pack(v)


# ---- float4 values ----

_F = struct.Struct("<f")
# strtof's decimal syntax (C locale), as float4in takes it: hexadecimal
# floats and "nan(...)", which glibc also takes, are refused (refusing more
# than the server is safe, reading otherwise is not)
_FLOAT_RE = re.compile(r"([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?\Z", re.ASCII)
_SPECIAL_RE = re.compile(r"([+-]?)(nan|inf|infinity)\Z", re.ASCII | re.IGNORECASE)
_C_SPACE = " \t\n\v\f\r"
# significant digits kept; past them only whether any is nonzero matters (a
# float4 halfway point has fewer than 120 significant digits)
_MAX_DIGITS = 200


def _exact_float4(digits, exp):
    """The positive decimal digits * 10**exp rounded to the nearest float4,
    ties to even, exactly: 0.0 if it rounds to zero, inf past the largest."""
    if len(digits) > _MAX_DIGITS:
        exp += len(digits) - _MAX_DIGITS
        digits = digits[:_MAX_DIGITS - 1] + "1"   # a sticky digit
    num, den = int(digits), 1
    if exp >= 0:
        num *= 10 ** exp
    else:
        den = 10 ** -exp
    # value = q * 2**e with 2**23 <= q < 2**24, or e = -149 (subnormal)
    e = max(-149, num.bit_length() - den.bit_length() - 24)
    while True:
        n, d = (num, den << e) if e >= 0 else (num << -e, den)
        if e > -149 and n < (d << 23):
            e -= 1
            continue
        if n >= (d << 24):
            e += 1
            continue
        break
    q, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    if q == 1 << 24:
        q >>= 1
        e += 1
    if e > 104:
        return math.inf
    return math.ldexp(q, e)


def float4_from_text(s):
    """The float4 the server's float4in makes of text s (strtof: the exact
    decimal rounded to the nearest float4, ties to even), as a float;
    ValueError for what it refuses."""
    t = s.strip(_C_SPACE)
    m = _SPECIAL_RE.match(t)
    if m:
        if m.group(2).lower() == "nan":
            return math.nan
        return -math.inf if m.group(1) == "-" else math.inf
    m = _FLOAT_RE.match(t)
    if not m:
        raise ValueError('invalid input syntax for type real: "%s"' % s)
    if m.group(4) is None:
        intpart, frac = m.group(2), m.group(3)
    else:
        intpart, frac = "", m.group(4)
    digits = (intpart + frac).lstrip("0")
    if not digits:
        return -0.0 if m.group(1) == "-" else 0.0
    e10 = m.group(5) or "0"
    if len(e10.lstrip("+-").lstrip("0")) > 9:
        # past any float4 either way: only its sign matters
        e10 = "-1000000000" if e10.startswith("-") else "1000000000"
    exp = int(e10) - len(frac)
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    lead = len(digits) - 1 + exp
    # at least 1e39 (past the largest float4), or below 1e-46 (rounds to zero)
    v = 0.0 if lead < -46 else math.inf if lead >= 39 else _exact_float4(digits, exp)
    if v == 0.0 or math.isinf(v):
        raise ValueError('"%s" is out of range for type real' % s)
    return -v if m.group(1) == "-" else v


def float4(x):
    """The float4 (real) value a key of a float4 column has, as a float (a
    key of the float family, as every float).

    A str is the decimal text the server was given or gives ('1.1',
    '-3.4028235e38', 'NaN', 'Infinity'), rounded as its float4in rounds it:
    once, from the exact decimal.  A float is rounded to single precision
    as the server rounds a float8 parameter cast to float4 (what psycopg
    sends a Python float as).  What the server refuses is refused
    (ValueError): past the largest float4, or a nonzero value that rounds to
    zero.  The two differ for values halfway between two float4s: a float4
    written as text (a SQL literal, COPY, another client) takes its key from
    that text."""
    if isinstance(x, str):
        return float4_from_text(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise UnsupportedKeyError(
            "float4() takes the float4's text (str) or a float, not %s"
            % type(x).__qualname__)
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        v = _F.unpack(_F.pack(x))[0]
    except OverflowError:
        raise ValueError("value out of range: overflow (%r is past the largest float4)" % x) from None
    if v == 0.0 and x != 0.0:
        raise ValueError("value out of range: underflow (%r rounds to zero as a float4)" % x)
    return v


def encode_text(v):
    try:
        b = v.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("text key is not valid Unicode (%s); PostgreSQL "
                         "text cannot hold it" % e.reason) from None
    if "\x00" in v:
        raise ValueError("text key contains a NUL character, which "
                         "PostgreSQL text cannot hold")
    return b.rstrip(b" ")


def encode_date(v):
    return _Q.pack((v - _EPOCH_DATE).days)


def _micros(delta):
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


def encode_datetime(v):
    """(family, key bytes) of a datetime: naive is timestamp, aware is
    timestamptz (its instant in UTC)."""
    off = v.utcoffset()
    if off is None:
        return FAMILY_TIMESTAMP, _Q.pack(_micros(v.replace(tzinfo=None) - _EPOCH))
    return FAMILY_TIMESTAMPTZ, _Q.pack(_micros(v - _EPOCH_UTC))


def key_bytes(key):
    """(family, key bytes) of a Python value."""
    t = type(key)
    # the common cases first, by exact type
    if t is int:
        return FAMILY_INTEGER, encode_int(key)
    if t is str:
        return FAMILY_TEXT, encode_text(key)
    if t is bool:
        return FAMILY_BOOL, b"\x01" if key else b"\x00"
    if t is float:
        return FAMILY_FLOAT, encode_float(key)
    if t is bytes:
        return FAMILY_BYTEA, key
    if isinstance(key, bool):
        return FAMILY_BOOL, b"\x01" if key else b"\x00"
    if isinstance(key, int):
        return FAMILY_INTEGER, encode_int(int(key))
    if isinstance(key, float):
        return FAMILY_FLOAT, encode_float(float(key))
    if isinstance(key, str):
        return FAMILY_TEXT, encode_text(str(key))
    if isinstance(key, (bytes, bytearray, memoryview)):
        return FAMILY_BYTEA, bytes(key)
    if isinstance(key, uuid.UUID):
        return FAMILY_UUID, key.bytes
    # datetime is a subclass of date: test it first
    if isinstance(key, datetime.datetime):
        return encode_datetime(key)
    if isinstance(key, datetime.date):
        return FAMILY_DATE, encode_date(key)
    # other integer types (numpy.int64, ...): by their value
    if isinstance(key, numbers.Integral):
        return FAMILY_INTEGER, encode_int(int(key))
    if key is None:
        raise UnsupportedKeyError("a NULL key (None) cannot be probed")
    raise UnsupportedKeyError(
        "values of type %s cannot be keys of this client: it encodes int, "
        "float, str, bytes, uuid.UUID, bool, datetime.date and "
        "datetime.datetime (the integer, float, text, bytea, uuid, boolean, "
        "date, timestamp and timestamptz families)" % t.__qualname__)
