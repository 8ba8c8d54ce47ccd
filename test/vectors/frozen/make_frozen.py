#!/usr/bin/python3
"""Writes the frozen known-good values of one release:
test/vectors/frozen/<version>/values.tsv (format: src/core/FORMAT.md,
"Frozen values").  Run ONCE per format release, then never again:

    PGHOST=... PGPORT=... PGUSER=... python3 test/vectors/frozen/make_frozen.py 1.0

It refuses (exit 3) when the directory of that version exists: frozen
values are what an earlier build wrote, and every later build must read
them with the same answers (FORMAT.md, "Compatibility").  A later build
that cannot is wrong, not the file; if a later format needs values of its
own, they go into a new directory (frozen/1.2/...) written by a later
build of this script.  test/vectors/frozen/check_frozen.py checks that the
files are unchanged (SHA256SUMS) and that this script refuses.

Needs python3-psycopg.  Every key's bytes are written here by the rules
of FORMAT.md "Key families" and checked against the server (a one-key
filter of the key and one of its bytes as a bytea key must set the same
bits), so a wrong key byte cannot reach the file.
"""
import base64
import datetime
import hashlib
import json
import os
import struct
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))

# the time bloom_window_info is read at, for every window's info record
WINDOW_INFO_AT = "2026-01-01 06:00:00+00"

FAMILY = {"none": 0, "integer": 1, "float": 2, "numeric": 3, "text": 4, "bytea": 5,
          "uuid": 6, "boolean": 7, "date": 8, "timestamp": 9, "timestamptz": 10,
          "other": 11, "interval": 12, "jsonb": 13, "enum": 14, "composite": 15,
          "hashed": 16}

# ---- key bytes, by FORMAT.md "Key families" ----
EPOCH = datetime.datetime(2000, 1, 1)


def le64(n):
    return struct.pack("<q", n)


def le32(n):
    return struct.pack("<i", n)


def k_int(s):
    return le64(int(s))


def k_float(s):
    v = float(s)
    if v != v:
        return bytes.fromhex("000000000000f87f")
    if v == 0:
        v = 0.0
    return struct.pack("<d", v)


def k_text(s):
    return s.rstrip(" ").encode("utf-8")


def k_bytea(s):
    return bytes.fromhex(s[2:])


def k_uuid(s):
    return uuid.UUID(s).bytes


def k_bool(s):
    return b"\x01" if s == "true" else b"\x00"


def k_date(s):
    if s == "infinity":
        return le64(2147483647)
    if s == "-infinity":
        return le64(-2147483648)
    return le64((datetime.date.fromisoformat(s) - EPOCH.date()).days)


def micros(td):
    return (td.days * 86400 + td.seconds) * 1000000 + td.microseconds


def k_timestamp(s):
    if s == "infinity":
        return le64((1 << 63) - 1)
    if s == "-infinity":
        return le64(-(1 << 63))
    return le64(micros(datetime.datetime.fromisoformat(s) - EPOCH))


def k_timestamptz(s):
    t = datetime.datetime.fromisoformat(s).astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return le64(micros(t - EPOCH))


def k_time(s):
    h, m, sec = s.split(":")
    return le64(((int(h) * 60 + int(m)) * 60) * 1000000 + round(float(sec) * 1000000))


def k_interval(months, days, us):
    v = us + (months * 30 + days) * 86400000000
    return (v & ((1 << 128) - 1)).to_bytes(16, "little")


def part(b):
    return b"\x01" + le32(len(b)) + b if b is not None else b"\x00"


def k_int_array(elems, lower=1):
    """a one-dimensional array of integers (None for NULL)"""
    if not elems:
        return le32(0)
    return le32(1) + le32(len(elems)) + le32(lower) + b"".join(
        part(None if e is None else le64(e)) for e in elems)


def k_int_array2(rows):
    out = le32(2) + le32(len(rows)) + le32(1) + le32(len(rows[0])) + le32(1)
    return out + b"".join(part(le64(e)) for r in rows for e in r)


def k_int_range(lo, hi, flags):
    """lo, hi: finite bounds (or None); flags as FORMAT.md's range byte"""
    out = bytes([flags])
    if lo is not None:
        out += part(le64(lo))
    if hi is not None:
        out += part(le64(hi))
    return out


def j_num(t):
    return b"d" + le32(len(t)) + t.encode()


def j_str(t):
    b = t.encode("utf-8")
    return b"s" + le32(len(b)) + b


def j_key(t):
    b = t.encode("utf-8")
    return b"k" + le32(len(b)) + b


# ---- the values ----
# Each value: name, SQL type, the SQL expression that builds it, members,
# non-members.  A key: (SQL type, literal, family name, key bytes[, at]).
# Non-members record whatever the server answers (a false positive is
# recorded as such).

def ints(sqltype, vals):
    return [(sqltype, str(v), "integer", le64(v)) for v in vals]


def texts(vals, sqltype="text"):
    return [(sqltype, v, "text", k_text(v)) for v in vals]


def arr_literal(sqltype, lits):
    return "ARRAY[%s]::%s[]" % (", ".join("%s::%s" % (sql_quote(x), sqltype) for x in lits), sqltype)


def sql_quote(s):
    return "'" + s.replace("'", "''") + "'"


def add_all(base, keys):
    """bloom_add(...) of each key in turn (keys: (SQL type, literal))"""
    expr = base
    for t, lit in keys:
        expr = "bloom_add(%s, %s::%s)" % (expr, sql_quote(lit), t)
    return expr


def values():
    V = []

    def val(name, typ, expr, members=(), nonmembers=()):
        V.append({"name": name, "type": typ, "expr": expr,
                  "members": list(members), "nonmembers": list(nonmembers)})

    # -- bloomfilter: empty filters of both layouts, seeds --
    val("bf_empty_blocked", "bloomfilter", "bloom_empty(1000, 0.01, 'blocked', 0)",
        [], ints("int8", [1, 2]) + texts(["a"]))
    val("bf_empty_classic_seed", "bloomfilter", "bloom_empty(100, 0.05, 'classic', -7)",
        [], ints("int4", [0]) + texts([""]))
    val("bf_empty_bits_k32", "bloomfilter",
        "bloom_empty_bits(1024, 32, 'blocked', -9223372036854775808)", [], ints("int8", [5]))

    # -- integer: int2, int4, int8 are one family --
    mem = [(t, str(v), "integer", le64(v)) for t, v in
           (("int2", 1), ("int4", 2), ("int8", 50), ("int8", -9223372036854775808),
            ("int8", 9223372036854775807), ("int2", -32768))]
    val("bf_integer_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(200, 0.01, 'blocked', 0), ARRAY(SELECT generate_series(1, 50)::int8)"
        " || ARRAY[-9223372036854775808, 9223372036854775807, -32768]::int8[])",
        mem, ints("int8", list(range(51, 61)) + [0, -1]))
    val("bf_integer_classic_seed", "bloomfilter",
        "bloom_add_all(bloom_empty(300, 0.02, 'classic', 42), ARRAY(SELECT g * 1000003 FROM generate_series(-100, 100) g)::int8[])",
        ints("int8", [-100000300, 0, 1000003, 100000300]) + ints("int4", [2000006]),
        ints("int8", [1, 2, 3, 1000004, 100000303]))
    # k = 1, 64 bits: a small, full filter (its non-members mostly probe true)
    val("bf_bits_k1_classic", "bloomfilter",
        add_all("bloom_empty_bits(64, 1, 'classic', 1)", [("int4", str(i)) for i in range(20)]),
        ints("int4", [0, 19]), ints("int4", [20, 21, 22, 23, 24, 25]))
    val("bf_bits_k32_blocked", "bloomfilter",
        add_all("bloom_empty_bits(1024, 32, 'blocked', -9223372036854775808)",
                [("int8", "7"), ("int8", "8")]),
        ints("int8", [7, 8]), ints("int8", [9, 10, 11]))

    # -- float: float4 widened exactly, -0 is 0, every NaN one key --
    fl = ["1.5", "-0", "NaN", "Infinity", "-Infinity", "0.1", "1e300", "-2.25"]
    val("bf_float_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(50, 0.01, 'classic', -1), %s || ARRAY['0.1'::float4::float8])"
        % arr_literal("float8", fl),
        [("float8", s, "float", k_float(s)) for s in ["1.5", "0", "NaN", "Infinity", "-Infinity", "0.1", "1e300"]]
        + [("float4", "-2.25", "float", k_float("-2.25")), ("float4", "0.1", "float",
                                                            struct.pack("<d", struct.unpack("<f", struct.pack("<f", 0.1))[0]))],
        [("float8", s, "float", k_float(s)) for s in ["2.5", "0.2", "1e299", "-1.5"]])

    # -- numeric: its normalized decimal text --
    val("bf_numeric_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(50, 0.01, 'blocked', 3), ARRAY['1.50', '2.000', '-0.0', '1e-3', 'NaN', "
        "'123456789012345678901234567890.5', '-7']::numeric[])",
        [("numeric", a, "numeric", b.encode()) for a, b in
         (("1.5", "1.5"), ("2", "2"), ("0", "0"), ("0.001", "0.001"), ("NaN", "NaN"),
          ("123456789012345678901234567890.50", "123456789012345678901234567890.5"), ("-7.0", "-7"))],
        [("numeric", a, "numeric", a.encode()) for a in ("1.51", "3", "-0.001", "Infinity")])

    # -- text: text, varchar, bpchar, name; trailing spaces dropped --
    tx = ["apple", "é", "😀 smile", "trailing  ", "", "a\u3000", "Straße"]
    val("bf_text_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(100, 0.01, 'classic', 0), %s)" % arr_literal("text", tx),
        texts(["apple", "é", "😀 smile", "trailing", "", "a\u3000"]) + texts(["Straße"], "varchar")
        + texts(["trailing   "], "bpchar") + texts(["apple"], "name"),
        texts(["Apple", "e", "strasse", "trailing_", "b"]))
    val("bf_text_blocked_seed", "bloomfilter",
        "bloom_add_all(bloom_empty(1000, 0.001, 'blocked', 8675309), ARRAY(SELECT 'user-' || g FROM generate_series(1, 400) g))",
        texts(["user-1", "user-200", "user-400"]),
        texts(["user-0", "user-401", "user-1000", "user-"]))

    # -- bytea --
    val("bf_bytea_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'blocked', 99), ARRAY['\\x', '\\x00', '\\xdeadbeef']::bytea[])",
        [("bytea", s, "bytea", k_bytea(s)) for s in ("\\x", "\\x00", "\\xdeadbeef")],
        [("bytea", s, "bytea", k_bytea(s)) for s in ("\\x0000", "\\xdeadbeee", "\\x01")])

    # -- uuid --
    us = ["00000000-0000-0000-0000-000000000000", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
          "ffffffff-ffff-ffff-ffff-ffffffffffff"]
    val("bf_uuid_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'classic', 5), %s)" % arr_literal("uuid", us),
        [("uuid", u, "uuid", k_uuid(u)) for u in us[:2]] + [("uuid", "{FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF}", "uuid", k_uuid(us[2]))],
        [("uuid", u, "uuid", k_uuid(u)) for u in ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12",
                                                  "00000000-0000-0000-0000-000000000001")])

    # -- boolean --
    val("bf_boolean_blocked", "bloomfilter", "bloom_add(bloom_empty(10, 0.01, 'blocked', 0), true)",
        [("bool", "true", "boolean", k_bool("true"))], [("bool", "false", "boolean", k_bool("false"))])

    # -- date, timestamp, timestamptz --
    ds = ["2024-05-01", "infinity", "-infinity", "0001-01-01", "2000-01-01", "1999-12-31"]
    val("bf_date_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'blocked', -2), %s)" % arr_literal("date", ds),
        [("date", d, "date", k_date(d)) for d in ds],
        [("date", d, "date", k_date(d)) for d in ("2024-05-02", "2000-01-02", "9999-12-31")])
    tss = ["2026-01-01 00:00:00", "1999-12-31 23:59:59.999999", "infinity", "-infinity",
           "0001-01-01 00:00:00"]
    val("bf_timestamp_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'classic', 5), %s)" % arr_literal("timestamp", tss),
        [("timestamp", t, "timestamp", k_timestamp(t)) for t in tss],
        [("timestamp", t, "timestamp", k_timestamp(t)) for t in ("2026-01-01 00:00:00.000001",
                                                                 "2000-01-01 00:00:00")])
    tzs = ["2026-01-01 00:00:00+00:00", "2026-06-30 12:30:00-07:00", "2000-01-01 00:00:00+00:00"]
    val("bf_timestamptz_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'blocked', 0), %s)" % arr_literal("timestamptz", tzs),
        [("timestamptz", t, "timestamptz", k_timestamptz(t)) for t in tzs]
        + [("timestamptz", "2026-01-01 01:00:00+01:00", "timestamptz",
            k_timestamptz("2026-01-01 01:00:00+01:00"))],
        [("timestamptz", t, "timestamptz", k_timestamptz(t)) for t in ("2026-01-01 00:00:00+01:00",
                                                                       "2026-06-30 12:30:00+00:00")])

    # -- other (bitwise equality; time, OID 1083, is built in) --
    tm = ["12:34:56", "00:00:00", "23:59:59.999999"]
    val("bf_other_time_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'classic', 11), %s)" % arr_literal("time", tm),
        [("time", t, "other", k_time(t)) for t in tm],
        [("time", t, "other", k_time(t)) for t in ("12:34:57", "01:00:00")])

    # -- interval: the span, a month as 30 days --
    val("bf_interval_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'blocked', 0), ARRAY['1 day', '1 mon', '1 year 2 hours', '-5 seconds']::interval[])",
        [("interval", "24 hours", "interval", k_interval(0, 0, 86400000000)),
         ("interval", "30 days", "interval", k_interval(0, 30, 0)),
         ("interval", "1 year 2 hours", "interval", k_interval(12, 0, 7200000000)),
         ("interval", "-5 seconds", "interval", k_interval(0, 0, -5000000))],
        [("interval", "2 days", "interval", k_interval(0, 2, 0)),
         ("interval", "5 seconds", "interval", k_interval(0, 0, 5000000))])

    # -- jsonb: tokens --
    j1 = (b"{" + j_key("a") + b"[" + j_num("1") + b"n]" + j_key("b") + j_num("2.5") + b"}")
    val("bf_jsonb_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'classic', 0), ARRAY['{\"b\": 2.50, \"a\": [1, null]}', '\"x\"', '[true, false]', 'null', '3']::jsonb[])",
        [("jsonb", '{"a": [1.0, null], "b": 2.5}', "jsonb", j1),
         ("jsonb", '"x"', "jsonb", j_str("x")),
         ("jsonb", "[true,false]", "jsonb", b"[tf]"),
         ("jsonb", "null", "jsonb", b"n"),
         ("jsonb", "3.00", "jsonb", j_num("3"))],
        [("jsonb", '"y"', "jsonb", j_str("y")), ("jsonb", "[false,true]", "jsonb", b"[ft]"),
         ("jsonb", "{}", "jsonb", b"{}")])

    # -- enum (the test creates public.frozen_mood) --
    val("bf_enum_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(10, 0.01, 'blocked', 0), ARRAY['sad', 'happy']::frozen_mood[])",
        [("frozen_mood", "sad", "enum", b"sad"), ("frozen_mood", "happy", "enum", b"happy")],
        [("frozen_mood", "ok", "enum", b"ok")])

    # -- composite: arrays, ranges, records --
    val("bf_composite_array_classic", "bloomfilter",
        add_all("bloom_empty(20, 0.01, 'classic', 0)",
                [("int4[]", a) for a in ("{1,2}", "{}", "{1,NULL}", "[0:1]={7,8}")]),
        [("int4[]", "{1,2}", "composite", k_int_array([1, 2])),
         ("int8[]", "{1,2}", "composite", k_int_array([1, 2])),
         ("int4[]", "{}", "composite", k_int_array([])),
         ("int4[]", "{1,NULL}", "composite", k_int_array([1, None])),
         ("int4[]", "[0:1]={7,8}", "composite", k_int_array([7, 8], 0))],
        [("int4[]", "{2,1}", "composite", k_int_array([2, 1])),
         ("int4[]", "{7,8}", "composite", k_int_array([7, 8])),
         ("int4[]", "{{1,2},{3,4}}", "composite", k_int_array2([[1, 2], [3, 4]]))])
    val("bf_composite_range_blocked", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'blocked', 77), ARRAY['[1,3)', 'empty', '[5,)']::int4range[])",
        [("int4range", "[1,2]", "composite", k_int_range(1, 3, 0x02)),
         ("int4range", "empty", "composite", b"\x01"),
         ("int8range", "(4,)", "composite", k_int_range(5, None, 0x02 | 0x10))],
        [("int4range", "[1,4)", "composite", k_int_range(1, 4, 0x02)),
         ("int4range", "(,)", "composite", b"\x18")])

    # -- hashed: the type's extended hash at seed 0 (xid; filled in by main) --
    val("bf_hashed_xid_classic", "bloomfilter",
        "bloom_add_all(bloom_empty(20, 0.01, 'classic', 0), ARRAY['123', '4000000000', '3']::xid[])",
        [("xid", "123", "hashed", None), ("xid", "4000000000", "hashed", None), ("xid", "3", "hashed", None)],
        [("xid", "124", "hashed", None), ("xid", "0", "hashed", None)])

    # -- a union of two sizes (folded to the smaller) --
    val("bf_union_folded_blocked", "bloomfilter",
        "bloom_union(bloom_add_all(bloom_empty_bits(4096, 5, 'blocked', 0), ARRAY[1, 2, 3]::int8[]), "
        "bloom_add_all(bloom_empty_bits(1024, 5, 'blocked', 0), ARRAY[10, 20]::int8[]))",
        ints("int8", [1, 2, 3, 10, 20]), ints("int8", [4, 11, 21]))

    # -- countingbloom: empty, 4-bit classic with removes, 8-bit blocked with repeats --
    val("cb_empty", "countingbloom", "cbloom_empty(100)", [], ints("int8", [1]))
    val("cb_classic_4bit", "countingbloom",
        "cbloom_remove(cbloom_remove(cbloom_add_all(cbloom_empty(100, 0.01, 'classic', 7, 4), "
        "ARRAY(SELECT generate_series(1, 30))::int8[] || ARRAY[3, 3, 3]::int8[]), 5::int8), 3::int8)",
        ints("int8", [1, 2, 3, 4, 6, 30]),
        ints("int8", [5, 31, 32, 100]))
    val("cb_blocked_8bit", "countingbloom",
        "cbloom_add_all(cbloom_empty(200, 0.01, 'blocked', 0, 8), "
        "ARRAY(SELECT 'k' || (g % 40) FROM generate_series(1, 100) g))",
        texts(["k0", "k1", "k39"]), texts(["k40", "k", "K1"]))

    # -- bloomwindow: several buckets, one fallen out --
    def w_add(base, keys):
        expr = base
        for t, lit, at in keys:
            expr = "bloom_window_add(%s, %s::%s, %s::timestamptz)" % (expr, sql_quote(lit), t, sql_quote(at))
        return expr

    val("bw_empty", "bloomwindow", "bloom_window_empty('1 hour', 4, 100, 0.01)", [],
        [("int8", "1", "integer", le64(1), "2026-01-01 00:00:00+00")])
    adds = [("int8", str(i), "2026-01-01 %02d:%02d:00+00" % (i // 4, (i % 4) * 15)) for i in range(24)]
    wmem, wnon = [], []
    for t, lit, at in adds:
        hour = int(lit) // 4
        # the window is 4 hours of 1-hour buckets; its newest bucket is 05:00
        if hour >= 2:
            wmem.append((t, lit, "integer", le64(int(lit)), "2026-01-01 05:59:59+00"))
        else:
            wnon.append((t, lit, "integer", le64(int(lit)), "2026-01-01 05:59:59+00"))
    # a key of bucket 03:00 probed before it and after it fell out
    wnon.append(("int8", "12", "integer", le64(12), "2026-01-01 02:59:59+00"))
    wnon.append(("int8", "12", "integer", le64(12), "2026-01-01 07:00:00+00"))
    wmem.append(("int8", "12", "integer", le64(12), "2026-01-01 06:59:59.999999+00"))
    wnon += [("int8", str(v), "integer", le64(v), "2026-01-01 05:00:00+00") for v in (24, 25, 100)]
    val("bw_blocked_4buckets", "bloomwindow",
        w_add("bloom_window_empty('4 hours', 4, 50, 0.01, 'blocked', 11)", adds), wmem, wnon)
    tadds = [("text", "ev-%d" % i, "2026-01-01 0%d:%02d:00+00" % (i % 3, i)) for i in range(12)]
    val("bw_classic_3buckets", "bloomwindow",
        w_add("bloom_window_empty('90 minutes', 3, 20, 0.05, 'classic', -5)", tadds),
        [(t, lit, "text", k_text(lit), "2026-01-01 02:29:00+00") for t, lit, at in tadds if at >= "2026-01-01 01:00"],
        [(t, lit, "text", k_text(lit), "2026-01-01 02:29:00+00") for t, lit, at in tadds if at < "2026-01-01 01:00"]
        + [("text", "ev-99", "text", k_text("ev-99"), "2026-01-01 02:00:00+00")])

    # -- scalablebloom: empty, grown through several stages, cast, union --
    val("sb_empty", "scalablebloom", "sbloom_empty(10)", [], ints("int8", [1]))
    val("sb_grown_blocked", "scalablebloom",
        "bloom_add_all(sbloom_empty(8, 0.01, 2, 0.85, 'blocked', 0), ARRAY(SELECT generate_series(1, 300))::int8[])",
        ints("int8", [1, 8, 9, 24, 25, 100, 299, 300]) + ints("int4", [150]),
        ints("int8", [0, 301, 302, 1000, -1]))
    val("sb_grown_classic_g4", "scalablebloom",
        "bloom_add_all(sbloom_empty(5, 0.05, 4, 0.5, 'classic', -3), ARRAY(SELECT 's' || g FROM generate_series(1, 200) g))",
        texts(["s1", "s5", "s6", "s25", "s200"]), texts(["s0", "s201", "t1", "S1"]))
    val("sb_from_bloomfilter", "scalablebloom",
        "bloom_add_all(bloom_empty(50, 0.01, 'classic', 9), ARRAY(SELECT generate_series(1, 40))::int8[])::scalablebloom",
        ints("int8", [1, 40]), ints("int8", [41, 42, 0]))
    val("sb_union", "scalablebloom",
        "bloom_union(bloom_add_all(sbloom_empty(4), ARRAY(SELECT generate_series(1, 20))::int8[]), "
        "bloom_add_all(sbloom_empty(4), ARRAY(SELECT generate_series(100, 110))::int8[]))",
        ints("int8", [1, 20, 100, 110]), ints("int8", [21, 99, 111]))
    return V


# ---- aggregate states: (name, SQL of the state, final function, final type,
# members, non-members); the final value becomes a value of its own ----
def aggstates():
    A = []

    def st(name, expr, final, ftype, members, nonmembers):
        A.append({"name": name, "expr": expr, "final": final, "type": ftype,
                  "members": members, "nonmembers": nonmembers})

    ks = "FROM generate_series(1, %d) g"
    st("as_b_E_sized", "(SELECT frozen_sized(g::int8, 1000, 0.01) " + ks % 5 + ")",
       "bloomfilter_agg_final", "bloomfilter", ints("int8", [1, 5]), ints("int8", [6, 7, 0]))
    st("as_b_F_sized", "(SELECT frozen_sized(g::int8, 100, 0.01) " + ks % 200 + ")",
       "bloomfilter_agg_final", "bloomfilter", ints("int8", [1, 100, 200]), ints("int8", [201, 202, 0]))
    st("as_b_S_auto", "(SELECT frozen_auto('u' || g) " + ks % 100 + ")",
       "bloomfilter_agg_final", "bloomfilter", texts(["u1", "u100"]), texts(["u101", "u0"]))
    st("as_b_S_auto_fpr", "(SELECT frozen_auto_fpr(g::int4, 0.001) " + ks % 30 + ")",
       "bloomfilter_agg_final", "bloomfilter", ints("int4", [1, 30]), ints("int4", [31, 32]))
    # past its buffer at the smallest agg_max_capacity: its filter (set below)
    st("as_b_A_auto", "(SELECT frozen_auto(g::int8 % 6000) " + ks % 12000 + ")",
       "bloomfilter_agg_final", "bloomfilter", ints("int8", [0, 1, 5999]), ints("int8", [6000, 6001, -1]))
    st("as_b_F_union", "(SELECT frozen_union(f) FROM (VALUES (bloom_add_all(bloom_empty(100), ARRAY[1, 2]::int8[])), "
       "(bloom_add_all(bloom_empty(100), ARRAY[3]::int8[]))) v(f))",
       "bloomfilter_agg_final", "bloomfilter", ints("int8", [1, 2, 3]), ints("int8", [4, 5]))
    st("as_b_F_intersect", "(SELECT frozen_inter(f) FROM (VALUES (bloom_add_all(bloom_empty(100), ARRAY[1, 2]::int8[])), "
       "(bloom_add_all(bloom_empty(100), ARRAY[2, 3]::int8[]))) v(f))",
       "bloomfilter_agg_final", "bloomfilter", ints("int8", [2]), ints("int8", [1, 3, 4]))
    st("as_b_S_sbloom", "(SELECT frozen_sbloom(g::int8) " + ks % 50 + ")",
       "scalablebloom_agg_final", "scalablebloom", ints("int8", [1, 50]), ints("int8", [51, 0]))
    st("as_c_counting", "(SELECT frozen_cbloom(g::int8, 100, 0.01) " + ks % 20 + ")",
       "countingbloom_agg_final", "countingbloom", ints("int8", [1, 20]), ints("int8", [21, 0]))
    st("as_c_counting_8bit", "(SELECT frozen_cbloom('c' || g, 100, 0.01, 8) " + ks % 20 + ")",
       "countingbloom_agg_final", "countingbloom", texts(["c1", "c20"]), texts(["c21"]))
    st("as_c_union", "(SELECT frozen_cunion(c) FROM (VALUES (cbloom_add(cbloom_empty(50), 1::int8)), "
       "(cbloom_add(cbloom_empty(50), 2::int8))) v(c))",
       "countingbloom_agg_final", "countingbloom", ints("int8", [1, 2]), ints("int8", [3]))
    st("as_w_window", "(SELECT frozen_window(g::int8, timestamptz '2026-01-01 00:00+00' + g * interval '10 minutes', "
       "interval '2 hours', 4, 100, 0.01) " + ks % 20 + ")",
       "bloomwindow_agg_final", "bloomwindow",
       [("int8", str(g), "integer", le64(g), "2026-01-01 03:20:00+00") for g in (12, 20)],
       [("int8", str(g), "integer", le64(g), "2026-01-01 03:20:00+00") for g in (1, 5, 21)])
    st("as_w_union", "(SELECT frozen_wunion(w) FROM (VALUES (bloom_window_add(bloom_window_empty('1 hour', 2, 20, 0.01), 1::int8, "
       "'2026-01-01 00:10+00')), (bloom_window_add(bloom_window_empty('1 hour', 2, 20, 0.01), 2::int8, '2026-01-01 00:40+00'))) v(w))",
       "bloomwindow_agg_final", "bloomwindow",
       [("int8", str(g), "integer", le64(g), "2026-01-01 00:50:00+00") for g in (1, 2)],
       [("int8", "3", "integer", le64(3), "2026-01-01 00:50:00+00")])
    st("as_s_union", "(SELECT frozen_sunion(s) FROM (VALUES (bloom_add_all(sbloom_empty(4), ARRAY[1, 2, 3, 4, 5]::int8[])), "
       "(bloom_add_all(sbloom_empty(4), ARRAY[6]::int8[]))) v(s))",
       "scalablebloom_union_agg_final", "scalablebloom", ints("int8", [1, 5, 6]), ints("int8", [7, 0]))
    return A


# the partial aggregates that give the states (the transition function
# alone, as a Citus worker runs it); the test creates the same ones
SETUP = """
CREATE TYPE frozen_mood AS ENUM ('sad', 'ok', 'happy');
CREATE AGGREGATE frozen_auto(anyelement) (SFUNC = bloomfilter_auto_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_auto_fpr(anyelement, float8) (SFUNC = bloomfilter_auto_agg_trans_fpr, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_sized(anyelement, bigint, float8) (SFUNC = bloomfilter_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_union(bloomfilter) (SFUNC = bloomfilter_union_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_inter(bloomfilter) (SFUNC = bloomfilter_intersect_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_cbloom(anyelement, bigint, float8) (SFUNC = countingbloom_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_cbloom(anyelement, bigint, float8, integer) (SFUNC = countingbloom_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_window(anyelement, timestamptz, interval, int, bigint, float8) (SFUNC = bloomwindow_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_sbloom(anyelement) (SFUNC = scalablebloom_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_sunion(scalablebloom) (SFUNC = scalablebloom_union_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_cunion(countingbloom) (SFUNC = countingbloom_union_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE frozen_wunion(bloomwindow) (SFUNC = bloomwindow_union_agg_trans, STYPE = bloomfilter_aggstate);
"""

# bloomslice: a table whose index the test rebuilds with the same heap,
# then replaces by the pages this release wrote (test/t/021_frozen_slice.pl)
SLICE_SETUP = [
    "CREATE TABLE frozen_slice (id int, f bloomfilter) WITH (autovacuum_enabled = off)",
    # integer filters of five geometries (classic and blocked, seeds 0, 1
    # and -3, two sizes), an empty filter, NULLs, and filters past max_bits
    # (one key family: a probe of another family is an error, not a false)
    "INSERT INTO frozen_slice SELECT g, CASE WHEN g % 50 = 0 THEN NULL WHEN g % 97 = 0 THEN "
    "bloom_empty_bits(512, 4, 'blocked', 0) ELSE bloom_add_all(bloom_empty_bits(512, 4, "
    "CASE WHEN g % 3 = 0 THEN 'classic' ELSE 'blocked' END, g % 2), "
    "ARRAY(SELECT g * 7 + k FROM generate_series(0, 9) k)::int8[]) END FROM generate_series(1, 1200) g",
    "INSERT INTO frozen_slice SELECT 2000 + g, bloom_add_all(bloom_empty_bits(1024, 5, 'blocked', -3), "
    "ARRAY(SELECT 50000 + g + k FROM generate_series(0, 4) k)::int8[]) FROM generate_series(1, 100) g",
    "INSERT INTO frozen_slice SELECT 3000 + g, bloom_add_all(bloom_empty_bits(8192, 3, 'classic', 0), "
    "ARRAY[g, g + 1]::int8[]) FROM generate_series(1, 10) g",
    "CREATE INDEX frozen_slice_idx ON frozen_slice USING bloomslice (f) WITH (max_bits = 4096)",
    # rows after the build: the pending area
    "INSERT INTO frozen_slice SELECT 4000 + g, bloom_add_all(bloom_empty_bits(512, 4, 'blocked', 0), "
    "ARRAY[g * 3, 100000 + g]::int8[]) FROM generate_series(1, 60) g",
]
SLICE_KEYS = ["0::int8", "1::int8", "7::int8", "100::int8", "2000::int8", "4207::int8", "8393::int8",
              "3005::int8", "100030::int8", "999999::int8", "-1::int8", "50005::int8", "50104::int8",
              "60000::int8"]


def slice_queries(one):
    # probes only: a superset query (@>>) on a column of several geometries
    # is an error for the rows of another geometry, as the sequential scan's
    return ["f @> %s" % k for k in SLICE_KEYS]


PROBE = {
    "bloomfilter": "bloom_contains(%s::bloomfilter, %s)",
    "countingbloom": "cbloom_contains(%s::countingbloom, %s)",
    "scalablebloom": "bloom_contains(%s::scalablebloom, %s)",
    "bloomwindow": "bloom_window_contains(%s::bloomwindow, %s, %s::timestamptz)",
}

# each type's info record, as JSON (the server test runs the same SQL)
INFO = {
    "bloomfilter": "SELECT row_to_json(bloom_info(%s::bloomfilter))::jsonb::text",
    "countingbloom": "SELECT row_to_json(cbloom_info(%s::countingbloom))::jsonb::text",
    "scalablebloom": "SELECT json_build_object('info', bloom_info(v), 'filters', "
                     "(SELECT json_agg(f ORDER BY f.index) FROM sbloom_filters(v) f))::jsonb::text "
                     "FROM (SELECT %s::scalablebloom AS v) s",
    "bloomwindow": "SELECT json_build_object('params', bloom_window_params(v), 'slots', "
                   "(SELECT json_agg(i ORDER BY i.slot) FROM bloom_window_info(v, '" + WINDOW_INFO_AT
                   + "') i))::jsonb::text FROM (SELECT %s::bloomwindow AS v) s",
}


def check_field(s):
    if "\t" in s or "\n" in s or "\r" in s:
        sys.exit("make_frozen: a field holds a tab or a newline: %r" % s)
    return s


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_frozen.py VERSION   (e.g. 1.0)")
    version = sys.argv[1]
    outdir = os.path.join(HERE, version)
    if os.path.exists(outdir):
        print("make_frozen: %s exists: frozen values are never regenerated (src/core/FORMAT.md, "
              "\"Frozen values\"); a new format's values go into a new directory" % outdir,
              file=sys.stderr)
        sys.exit(3)

    import psycopg
    # a database of its own, made afresh (the server's database is left alone)
    admin = psycopg.connect(autocommit=True)
    admin.execute("DROP DATABASE IF EXISTS bloomfilter_frozen")
    admin.execute("CREATE DATABASE bloomfilter_frozen TEMPLATE template0 ENCODING 'UTF8'")
    admin.close()
    conn = psycopg.connect(dbname="bloomfilter_frozen", autocommit=True)
    one = lambda sql, params=(): conn.execute(sql, params or None).fetchone()  # noqa: E731
    conn.execute("CREATE EXTENSION bloomfilter VERSION '%s'" % version)
    conn.execute("SET TimeZone = 'UTC'")
    conn.execute(SETUP)
    extver = one("SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")[0]
    server = one("SELECT version()")[0].split(" on ")[0]

    lines = []
    counts = {}

    def record(kind, *fields):
        counts[kind] = counts.get(kind, 0) + 1
        lines.append("\t".join([kind] + [check_field(str(f)) for f in fields]))

    def keys(v, kind):
        for key in v[kind]:
            sqltype, lit, fam, kb = key[:4]
            at = key[4] if len(key) > 4 else None
            if (at is None) != (v["type"] != "bloomwindow"):
                sys.exit("make_frozen: %s: a window's keys need a time, others none" % v["name"])
            if kb is None:          # hashed xid: hashint4extended of its bits
                x = int(lit)
                kb = le64(one("SELECT hashint4extended(%s, 0)", (x - (1 << 32) if x >= 1 << 31 else x,))[0])
            # the key bytes, checked: a one-key filter of the key sets the
            # bits one of its bytes sets (the header's family differs)
            a, b = one("SELECT substr(bloom_add(e, %s::" + sqltype + ")::bytea, 53), "
                       "substr(bloom_add(e, %s::bytea)::bytea, 53) FROM bloom_empty_bits(4096, 7, 'classic', %s) e",
                       (lit, kb, 0))
            if a != b:
                sys.exit("make_frozen: %s: the key bytes %s of %s %r disagree with the server"
                         % (v["name"], kb.hex(), sqltype, lit))
            srvfam = one("SELECT (bloom_info(bloom_add(bloom_empty(10), %s::" + sqltype + "))).key_family", (lit,))[0]
            if srvfam.split(" ")[0] != fam:
                sys.exit("make_frozen: %s: %s %r is of family %s, not %s" % (v["name"], sqltype, lit, srvfam, fam))
            if v["type"] == "bloomwindow":
                ans = one("SELECT " + PROBE["bloomwindow"] % ("%s", "%s::" + sqltype, "%s"), (v["text"], lit, at))[0]
            else:
                ans = one("SELECT " + PROBE[v["type"]] % ("%s", "%s::" + sqltype), (v["text"], lit))[0]
            if kind == "members" and ans is not True:
                sys.exit("make_frozen: %s: member %s %r probes %s" % (v["name"], sqltype, lit, ans))
            record("member" if kind == "members" else "nonmember", v["name"], sqltype, lit,
                   FAMILY[fam], kb.hex(), at or "-", "t" if ans else "f")

    def value(v):
        v["text"] = one("SELECT (%s)::%s::text" % (v["expr"], v["type"]))[0]
        back = one("SELECT %s::" + v["type"] + "::text", (v["text"],))[0]
        if back != v["text"]:
            sys.exit("make_frozen: %s: the text form does not read back" % v["name"])
        record("value", v["name"], v["type"], v["text"])
        info = one(INFO[v["type"]], (v["text"],))[0]
        json.loads(info)
        record("info", v["name"], info)
        keys(v, "members")
        keys(v, "nonmembers")

    for v in values():
        value(v)
    for a in aggstates():
        if a["name"] == "as_b_A_auto":
            conn.execute("SET bloomfilter.agg_max_capacity = 65536")
        text = one("SELECT (%s)::text" % a["expr"])[0]
        conn.execute("RESET bloomfilter.agg_max_capacity")
        kind = one("SELECT chr(get_byte(bloomfilter_aggstate_send(%s::bloomfilter_aggstate), 6))", (text,))[0]
        tag = one("SELECT chr(get_byte(bloomfilter_aggstate_send(%s::bloomfilter_aggstate), 8))", (text,))[0]
        if kind == "b" and a["name"].split("_")[2] != tag:
            sys.exit("make_frozen: %s: the state has tag %s" % (a["name"], tag))
        record("aggstate", a["name"], kind + (tag if kind == "b" else ""), text)
        fin = one("SELECT %s(%%s::bloomfilter_aggstate)::text" % a["final"], (text,))[0]
        record("final", a["name"], a["final"], a["type"], a["name"] + ".final")
        value({"name": a["name"] + ".final", "type": a["type"], "expr": "%s::%s" % (sql_quote(fin), a["type"]),
               "members": a["members"], "nonmembers": a["nonmembers"]})

    # ---- bloomslice pages ----
    conn.execute("CREATE EXTENSION pageinspect")
    for sql in SLICE_SETUP:
        conn.execute(sql)
    slines = []
    for sql in SLICE_SETUP:
        slines.append("setup\t" + check_field(sql))
    nblocks = one("SELECT pg_relation_size('frozen_slice_idx') / current_setting('block_size')::int")[0]
    for b in range(nblocks):
        page = bytearray(one("SELECT get_raw_page('frozen_slice_idx', 'main', %s)", (b,))[0])
        page[0:10] = bytes(10)      # pd_lsn and pd_checksum: of no other cluster
        slines.append("page\t%d\t%s" % (b, base64.b64encode(bytes(page)).decode("ascii")))
    conn.execute("SET enable_seqscan = off")
    for q in slice_queries(one):
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN SELECT id FROM frozen_slice WHERE " + q).fetchall())
        if "frozen_slice_idx" not in plan:
            sys.exit("make_frozen: the index is not used for %s" % q)
        got = one("SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '-') FROM frozen_slice WHERE " + q)[0]
        conn.execute("SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_seqscan = on")
        seq = one("SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '-') FROM frozen_slice WHERE " + q)[0]
        conn.execute("RESET enable_indexscan; RESET enable_bitmapscan; SET enable_seqscan = off")
        if got != seq:
            sys.exit("make_frozen: the index answers %s for %s, a sequential scan %s" % (got, q, seq))
        slines.append("query\t%s\t%s" % (check_field(q), got))
    scounts = {"page": nblocks, "query": len(slines) - nblocks - len(SLICE_SETUP)}

    header = [
        "# FROZEN: bloomfilter %s's stored bytes and its answers.  NEVER REGENERATE OR EDIT THIS FILE." % extver,
        "# Every later build must read these values with the same answers (src/core/FORMAT.md,",
        "# \"Compatibility\" and \"Frozen values\"): a failure is a bug of the build, not of this file.",
        "# Written once by test/vectors/frozen/make_frozen.py %s (server %s, %s);" % (version, server,
                                                                                      datetime.date.today().isoformat()),
        "# test/vectors/frozen/check_frozen.py checks it against SHA256SUMS.  Tab-separated:",
        "#   value     name type text-form",
        "#   info      name json (bloom_info / cbloom_info / bloom_info+sbloom_filters / bloom_window_params+bloom_window_info at %s)" % WINDOW_INFO_AT,
        "#   member    name sql-type literal family-code key-hex at(window; else -) t",
        "#   nonmember name sql-type literal family-code key-hex at(window; else -) recorded-answer(t|f)",
        "#   aggstate  name kind(b+tag|c|w|s) text-form-of-bloomfilter_aggstate",
        "#   final     name final-function result-type name-of-the-result's-value-record",
        "# Counts: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())),
    ]
    os.makedirs(outdir)
    path = os.path.join(outdir, "values.tsv")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(header + lines) + "\n")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(HERE, "SHA256SUMS"), "a", encoding="ascii") as f:
        f.write("%s  %s/values.tsv\n" % (digest, version))
    spath = os.path.join(outdir, "bloomslice.tsv")
    sheader = [
        "# FROZEN: a bloomslice index as bloomfilter %s wrote it.  NEVER REGENERATE OR EDIT THIS FILE." % extver,
        "# Every later build must read these pages with the same answers (src/core/FORMAT.md,",
        "# \"Compatibility\" and \"Frozen values\"); test/t/021_frozen_slice.pl runs the setup, puts",
        "# these pages in place of the index it built, and checks every query.  Written once by",
        "# test/vectors/frozen/make_frozen.py %s (server %s, block size %s)." % (
            version, server, one("SELECT current_setting('block_size')")[0]),
        "#   setup  SQL (in order; frozen_slice_idx is the index)",
        "#   page   block number, the page in base64 (pd_lsn and pd_checksum zeroed)",
        "#   query  WHERE clause on frozen_slice, the ids it selects (comma-separated, - for none)",
    ]
    with open(spath, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(sheader + slines) + "\n")
    with open(spath, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(HERE, "SHA256SUMS"), "a", encoding="ascii") as f:
        f.write("%s  %s/bloomslice.tsv\n" % (digest, version))
    conn.close()
    admin = psycopg.connect(autocommit=True)
    admin.execute("DROP DATABASE bloomfilter_frozen")
    admin.close()
    print("make_frozen: wrote %s: %s; %s: %s" % (path, ", ".join("%s %d" % kv for kv in sorted(counts.items())),
                                                spath, ", ".join("%s %d" % kv for kv in sorted(scounts.items()))))


if __name__ == "__main__":
    main()
