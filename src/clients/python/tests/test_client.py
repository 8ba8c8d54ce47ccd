"""The client's own behaviour (no server): families, errors, forms."""
import base64
import datetime
import re
import decimal
import math
import struct
import uuid

import pytest

from bloomfilter import (BloomFilter, FamilyMismatchError, IncompatibleFiltersError,
                         InvalidArgumentError, InvalidFilterError, UnsupportedKeyError,
                         float4, key_bytes)


def test_families_of_python_values():
    utc = datetime.timezone.utc
    cases = [(1, 1), (-(1 << 63), 1), (1.0, 2), ("a", 4), (b"a", 5), (bytearray(b"a"), 5),
             (memoryview(b"a"), 5), (uuid.uuid4(), 6), (True, 7), (False, 7),
             (datetime.date(2020, 1, 1), 8), (datetime.datetime(2020, 1, 1), 9),
             (datetime.datetime(2020, 1, 1, tzinfo=utc), 10)]
    for v, fam in cases:
        assert key_bytes(v)[0] == fam, v


def test_key_bytes_by_hand():
    assert key_bytes(1)[1] == bytes.fromhex("0100000000000000")
    assert key_bytes(-0.0) == key_bytes(0.0)
    assert key_bytes(float("nan"))[1] == bytes.fromhex("000000000000f87f")
    assert key_bytes("ab  ")[1] == b"ab"
    assert key_bytes("ab\t")[1] == b"ab\t"       # only U+0020 is dropped
    assert key_bytes(datetime.date(2000, 1, 2))[1] == bytes.fromhex("0100000000000000")
    assert key_bytes(datetime.date(1999, 12, 31))[1] == bytes.fromhex("ffffffffffffffff")
    assert key_bytes(datetime.datetime(2000, 1, 1, 0, 0, 0, 1))[1] == bytes.fromhex("0100000000000000")
    ist = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
    assert key_bytes(datetime.datetime(2000, 1, 1, 5, 30, tzinfo=ist)) == (10, bytes(8))
    assert key_bytes(True) == (7, b"\x01")


@pytest.mark.parametrize("v", [decimal.Decimal("1.5"), [1], (1,), {"a": 1}, 1 + 2j,
                               datetime.time(1, 2), datetime.timedelta(1), object(), {1}])
def test_other_types_refused(v):
    f = BloomFilter.empty(10)
    with pytest.raises(UnsupportedKeyError) as e:
        f.add(v)
    assert isinstance(e.value, TypeError)
    with pytest.raises(UnsupportedKeyError):
        v in f                                    # noqa: B015 -- never a silent False
    assert f.added == 0


def test_none():
    f = BloomFilter.empty(10).add(None).add_all([None, 1, None])
    assert f.added == 1
    with pytest.raises(UnsupportedKeyError):
        f.contains(None)


def test_int_range():
    f = BloomFilter.empty(10)
    f.add((1 << 63) - 1).add(-(1 << 63))
    for v in (1 << 63, -(1 << 63) - 1, 1 << 100):
        with pytest.raises(OverflowError):
            f.add(v)
        with pytest.raises(OverflowError):
            f.add_all([1, v])
        with pytest.raises(OverflowError):
            v in f                                # noqa: B015
    assert f.added == 2


def test_bool_is_not_int():
    f = BloomFilter.empty(10).add(1)
    with pytest.raises(FamilyMismatchError):
        True in f                                 # noqa: B015
    naive = BloomFilter.empty(10).add(datetime.datetime(2020, 1, 1))
    with pytest.raises(FamilyMismatchError):
        naive.contains(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
    with pytest.raises(FamilyMismatchError):
        naive.contains(datetime.date(2020, 1, 1))


def test_add_all_is_all_or_nothing():
    f = BloomFilter.empty(1000).add(5)
    before = bytes(f)
    with pytest.raises(FamilyMismatchError):
        f.add_all(list(range(200000)) + ["x"])
    assert bytes(f) == before
    g = BloomFilter.empty(10)
    with pytest.raises(FamilyMismatchError):
        g.add_all([1, "a"])
    assert bytes(g) == bytes(BloomFilter.empty(10))


def test_add_all_equals_adds():
    keys = list(range(-50, 70000, 7)) + [None]
    a = BloomFilter.empty(10000, 0.01, "classic", 3).add_all(iter(keys))
    b = BloomFilter.empty(10000, 0.01, "classic", 3)
    for k in keys:
        b.add(k)
    assert a == b and a.added == len(keys) - 1
    assert all(k in a for k in keys if k is not None)


def test_empty_probes_false():
    f = BloomFilter.empty(10)
    assert 1 not in f and "x" not in f and f.family == "none"


def test_arguments():
    for args in [(0,), (-1,), (10, 0.0), (10, 1.0), (10, float("nan")), (10, 0.01, "other"),
                 (10, 0.01, "blocked", 1 << 64), (True,), (10 ** 30, 0.01)]:
        with pytest.raises(InvalidArgumentError):
            BloomFilter.empty(*args)
    for args in [(0, 3), (100, 0), (100, 33), (6442450432 + 1, 3), (100, 3, "x")]:
        with pytest.raises(InvalidArgumentError):
            BloomFilter.empty_bits(*args)
    assert BloomFilter.empty_bits(1, 1).nbits == 64
    assert BloomFilter.empty_bits(1, 1, "blocked").nbits == 512
    assert BloomFilter.empty(10, seed=-1).seed == -1
    assert BloomFilter.empty(10, seed=(1 << 64) - 1) == BloomFilter.empty(10, seed=-1)
    with pytest.raises(IncompatibleFiltersError):
        BloomFilter.empty(10, seed=1) | BloomFilter.empty(10, seed=2)


def test_forms():
    f = BloomFilter.empty(100, 0.01, "classic", 5).add_all(["a", "b"])
    s = str(f)
    assert BloomFilter.from_text(s) == f
    assert BloomFilter.from_text(" \n".join(s[i:i + 76] for i in range(0, len(s), 76))) == f
    assert BloomFilter.from_bytes(bytes(f)) == f
    assert BloomFilter.from_bytes(bytearray(bytes(f))) == f
    assert BloomFilter.from_bytes(memoryview(bytes(f))) == f
    with pytest.raises(TypeError):
        BloomFilter.from_bytes("not bytes")
    with pytest.raises(InvalidFilterError):
        BloomFilter.from_text(s + "=")
    with pytest.raises(InvalidFilterError):
        BloomFilter.from_text("é" * 4)
    g = f.copy()
    g.add("c")
    assert g != f and "c" in g
    assert "BloomFilter classic" in repr(f)
    info = f.info()
    assert info["added"] == 2 and info["key_family"] == "text" and info["bytes"] == len(bytes(f))


# ---- float4 keys: from the text the server rounds, or a float as it casts one ----

def _f4_cases():
    big = "1.000000059604644775390625"
    return [
        # halfway between 1 and its successor, 1 + 2^-24, and either side of it
        (big, 1.0),                                  # ties to even
        ("1.000000059604644775390624", 1.0),
        ("1.000000059604644775390626", 1 + 2 ** -23),
        ("1.00000005960464477539", 1.0),             # a float cannot keep this
        ("1.0000000596046448", 1 + 2 ** -23),        # repr(1 + 2**-24): above it
        ("1.0000001788139343", 1 + 2 ** -23),        # repr(1 + 3 * 2**-24): below it
        ("3.4028235e38", 3.4028234663852886e38),
        ("3.40282356779733661637539395458142568447e38", 3.4028234663852886e38),
        ("1e-45", 2 ** -149),
        ("7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015626e-46", 2 ** -149),
        (" \t1.5\n", 1.5), ("+.5", 0.5), ("5.", 5.0), ("-2.5E+1", -25.0),
        ("1e0000000000000000000002", 100.0), ("0e999999999999999", 0.0), ("-0", 0.0),
        ("Infinity", math.inf), ("-inf", -math.inf), ("+INFINITY", math.inf),
        ("0." + "0" * 400 + "1e400", 0.10000000149011612),
        ("1." + "0" * 300 + "1", 1.0),
        (big + "0" * 300 + "1", 1 + 2 ** -23),
    ]


def test_float4_from_text_rounds_once_as_float4in():
    for text, want in _f4_cases():
        assert float4(text) == want, text
    assert math.isnan(float4("NaN")) and math.isnan(float4("-nan"))
    # as a key: the float family, the float4's value
    assert key_bytes(float4("1.1")) == key_bytes(struct.unpack("<f", struct.pack("<f", 1.1))[0])


def test_float4_refuses_what_the_server_refuses():
    for text in ["3.40282356779733661637539395458142568448e38", "1e39", "-1e400", "1e-46",
                 "7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015625e-46",
                 "1e-99999999999", "1e" + "9" * 5000]:
        with pytest.raises(ValueError, match="out of range for type real"):
            float4(text)
    for text in ["", " ", ".", "e5", "1e", "1e+", "1.5x", "0x1p3", "nan(1)", "1 2", "--1", "\u00a01", "Inf inity"]:
        with pytest.raises(ValueError, match="invalid input syntax for type real"):
            float4(text)


def test_float4_of_a_float_rounds_as_the_server_casts_float8():
    # psycopg sends a float as float8: the server rounds the double once, ties to even
    assert float4(1 + 2 ** -24) == 1.0
    assert float4(1 + 3 * 2 ** -24) == 1 + 2 ** -22
    assert float4(1.1) == struct.unpack("<f", struct.pack("<f", 1.1))[0]
    assert float4(5) == 5.0
    with pytest.raises(ValueError, match="overflow"):
        float4(3.5e38)
    with pytest.raises(ValueError, match="underflow"):
        float4(1e-46)
    with pytest.raises(TypeError):
        float4(True)
    with pytest.raises(TypeError):
        float4(decimal.Decimal("1.1"))


# A filter of layout spark (Spark's BloomFilter, format version 2), as the
# server's f::bytea gives it: bloom_add_all(bloom_empty(5, 0.1, 'spark'),
# ARRAY[101, 102, 103, 104, 105]).  The client does not place keys as Spark
# does, so it refuses the value rather than probe it wrongly.
SPARK_FILTER = bytes.fromhex(
    "424c4d46020004030000000000000000400000000000000005000000000000000100"
    "010000000000000000009657518c74f785d4040240d41c002088")


def test_spark_layout_refused():
    with pytest.raises(InvalidFilterError) as e:
        BloomFilter.from_bytes(SPARK_FILTER)
    assert re.search(r"format version|layout", str(e.value))


# A filter of layout parquet (Parquet's split-block Bloom filter, format
# version 2), as the server's f::bytea gives it:
#   SELECT bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY[101, 102, 103, 104, 105])::bytea;
# Its header is a valid format-2 header and its bitset one 256-bit block:
# read as blocked, it would answer for keys placed another way.
PARQUET_FILTER = bytes.fromhex(
    "424c4d4602000308000000000000000000010000000000000500000000000000010001"
    "000000000000000000e0934cc9c65ed7e60010428020088060003190001020840200100690"
    "810800408000291080000096")


def test_parquet_layout_refused():
    for load in (BloomFilter.from_bytes,
                 lambda b: BloomFilter.from_text(base64.b64encode(b).decode("ascii"))):
        with pytest.raises(InvalidFilterError) as e:
            load(PARQUET_FILTER)
        assert "parquet layout is not supported" in str(e.value)
    # the spark value says spark, not parquet
    with pytest.raises(InvalidFilterError, match="spark layout is not supported"):
        BloomFilter.from_bytes(SPARK_FILTER)
