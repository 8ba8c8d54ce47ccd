#!/usr/bin/python3
"""Writes test/vectors/vectors.tsv from a running server with bloomfilter
(the file's format: src/core/FORMAT.md, "Test vectors").

    PGHOST=... PGPORT=... PGUSER=... python3 test/vectors/make_vectors.py [OUT]
    pg_virtualenv -t /usr/bin/python3 test/vectors/make_vectors.py   # the installed build

Needs python3-psycopg and python3-xxhash.  Then run the readers:
make check-core, python3 -m pytest src/clients/python/tests, and the
JavaScript client's tests (src/clients/js).

Every filter's and error's bytes are the server's.  The key bytes are the
Python client's encoding (src/clients/python); the script stops with an
error if a filter the client builds from them differs from the server's,
so a wrong encoding cannot reach the file.  Deterministic: a fixed random
seed, so a rerun on the same build writes the same file.
"""
import datetime
import os
import random
import struct
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "clients", "python"))

import psycopg  # noqa: E402

from bloomfilter import BloomFilter, key_bytes  # noqa: E402

R = random.Random(20261127)
UTC = datetime.timezone.utc

# family name, code, SQL types the values are cast to
FAMILIES = [
    ("integer", 1), ("float", 2), ("text", 4), ("bytea", 5), ("uuid", 6),
    ("boolean", 7), ("date", 8), ("timestamp", 9), ("timestamptz", 10),
]


ARRAY_TYPE = {"integer": "int8", "float": "float8", "text": "text", "bytea": "bytea",
              "uuid": "uuid", "boolean": "bool", "date": "date", "timestamp": "timestamp",
              "timestamptz": "timestamptz"}


def rand_text():
    alphabet = "abcxyz019 \t\n'\"\\,{}é€😀\u00a0"
    s = "".join(R.choice(alphabet) for _ in range(R.randint(0, 12)))
    if R.random() < 0.2:
        s += " " * R.randint(1, 3)      # trailing spaces: dropped
    return s


def rand_value(fam):
    """(python value, SQL text, SQL type, value column)."""
    if fam == "integer":
        t = R.choice(["int2", "int4", "int8"])
        bits = {"int2": 16, "int4": 32, "int8": 64}[t]
        v = R.choice([R.randint(-(1 << (bits - 1)), (1 << (bits - 1)) - 1), R.randint(-1000, 1000)])
        return v, str(v), t, str(v)
    if fam == "float":
        c = R.random()
        if c < 0.1:
            v = R.choice([0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.5, -2.25])
        elif c < 0.5:
            v = R.uniform(-1e6, 1e6)
        else:
            v = struct.unpack("<d", struct.pack("<Q", R.getrandbits(64)))[0]
            if v != v:
                v = float("nan")
        if R.random() < 0.3 and (v != v or abs(v) < 3e38):
            v = struct.unpack("<f", struct.pack("<f", v))[0]
            t = "float4"
        else:
            t = "float8"
        return v, float_text(v), t, float_text(v)
    if fam == "text":
        v = rand_text()
        return v, v, "text", v.encode("utf-8").hex()
    if fam == "bytea":
        v = bytes(R.getrandbits(8) for _ in range(R.randint(0, 16)))
        return v, "\\x" + v.hex(), "bytea", v.hex()
    if fam == "uuid":
        v = uuid.UUID(int=R.getrandbits(128))
        return v, str(v), "uuid", str(v)
    if fam == "boolean":
        v = R.random() < 0.5
        return v, "true" if v else "false", "bool", "true" if v else "false"
    if fam == "date":
        v = datetime.date(1, 1, 1) + datetime.timedelta(days=R.randint(0, 3652058))
        return v, v.isoformat(), "date", v.isoformat()
    if fam == "timestamp":
        v = datetime.datetime(1, 1, 1) + datetime.timedelta(
            microseconds=R.randint(0, 315537897599999999))
        return v, v.isoformat(sep=" "), "timestamp", v.isoformat(timespec="microseconds")
    if fam == "timestamptz":
        off = datetime.timezone(datetime.timedelta(minutes=15 * R.randint(-56, 56)))
        v = datetime.datetime(1, 1, 2, tzinfo=off) + datetime.timedelta(
            microseconds=R.randint(0, 315537810000000000))
        return v, v.isoformat(sep=" "), "timestamptz", v.isoformat(timespec="microseconds")
    raise AssertionError(fam)


def float_text(v):
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0.0 and str(v).startswith("-"):
        return "-0"
    return repr(v)


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "vectors.tsv")
    conn = psycopg.connect(autocommit=True)
    conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    conn.execute("SET extra_float_digits = 3")
    lines = []

    def one(sql, params=()):
        return conn.execute(sql, params).fetchone()

    # ---- key encodings ----
    keysets = {}
    for fam, code in FAMILIES:
        keysets[fam] = []
        for _ in range(40 if fam != "boolean" else 4):
            keysets[fam].append(rand_value(fam))
    # fixed edge cases
    keysets["integer"] += [(v, str(v), "int8", str(v)) for v in (0, -1, (1 << 63) - 1, -(1 << 63))]
    keysets["text"] += [(s, s, "text", s.encode().hex()) for s in ("", " ", "a  ", "a\u3000")]
    keysets["bytea"].append((b"", "\\x", "bytea", ""))
    keysets["boolean"] += [(True, "true", "bool", "true"), (False, "false", "bool", "false")]
    keysets["date"] += [(datetime.date(2000, 1, 1), "2000-01-01", "date", "2000-01-01"),
                        (datetime.date(1999, 12, 31), "1999-12-31", "date", "1999-12-31")]
    for fam, code in FAMILIES:
        for v, sqltext, sqltype, col in keysets[fam]:
            f, kb = key_bytes(v)
            assert f == code, (fam, v)
            # one-key filters: the server must agree on every key by itself
            srv = one("SELECT bloom_add(bloom_empty_bits(64, 3, 'classic', 7), %s::" + sqltype + ")::bytea",
                      (sqltext,))[0]
            cli = BloomFilter.empty_bits(64, 3, "classic", 7)
            cli.add_key_bytes(code, kb)
            if bytes(cli) != srv:
                sys.exit("make_vectors: the client's key bytes %s for %s %r (%s) disagree with the server"
                         % (kb.hex(), fam, v, sqltype))
            lines.append("key\t%s\t%s\t%s" % (fam, col, kb.hex()))

    # ---- sizing ----
    caps = [1, 2, 3, 7, 10, 64, 100, 999, 1000, 4096, 12345, 100000, 1000000, 5000000]
    fprs = [0.5, 0.3333, 0.1, 0.05, 0.0123, 0.01, 0.001, 1e-4, 1e-6, 1e-9]
    for layout in ("blocked", "classic"):
        for c in caps:
            for p in fprs:
                if c * -2.1 * __import__("math").log(p) > 2e8:
                    continue
                bits, k = one("SELECT bits, hashes FROM bloom_info(bloom_empty(%s, %s, %s))", (c, p, layout))
                lines.append("sizing\t%s\t%d\t%r\t%d\t%d" % (layout, c, p, bits, k))
        for c, p in ((10 ** 10, 0.01), (10 ** 9, 1e-9)):
            try:
                one("SELECT bloom_empty(%s, %s, %s)", (c, p, layout))
                raise SystemExit("make_vectors: expected an error for %d at %g" % (c, p))
            except psycopg.Error as e:
                lines.append("sizing\t%s\t%d\t%r\t-\t-\t%s" % (layout, c, p, e.sqlstate))

    # ---- filters ----
    filters = []
    n = 0
    for fam, code in FAMILIES:
        pool = keysets[fam]
        for layout in ("blocked", "classic"):
            for geom in ((100, 0.01), (1000, 0.05), ("bits", 700, 4), (16, 0.3)):
                seed = R.choice([0, 42, -1, -(1 << 63), R.getrandbits(63)])
                nkeys = R.choice([0, 1, 5, 20, len(pool)]) if fam != "boolean" else R.choice([0, 1, 2])
                keys = R.sample(pool, min(nkeys, len(pool)))
                if geom[0] == "bits":
                    base = "bloom_empty_bits(%s, %s, %s, %s)"
                    args = [geom[1], geom[2], layout, seed]
                    cap, p, bits, k = "-", "-", str(geom[1]), str(geom[2])
                else:
                    base = "bloom_empty(%s, %s, %s, %s)"
                    args = [geom[0], geom[1], layout, seed]
                    cap, p, bits, k = str(geom[0]), repr(geom[1]), "-", "-"
                # one array type per family (the key records try each SQL type)
                sqltype = ARRAY_TYPE[fam]
                arr = [kk[1] for kk in keys]
                srv, card, efpr = one(
                    "SELECT f::bytea, bloom_cardinality(f), bloom_fpr(f) FROM (SELECT bloom_add_all("
                    + base + ", %s::text[]::" + sqltype + "[]) AS f) s", args + [arr])
                cli = (BloomFilter.empty_bits(geom[1], geom[2], layout, seed) if geom[0] == "bits"
                       else BloomFilter.empty(geom[0], geom[1], layout, seed))
                kbs = []
                for kk in keys:
                    f, kb = key_bytes(kk[0])
                    cli.add_key_bytes(f, kb)
                    kbs.append(kb.hex())
                if bytes(cli) != srv:
                    sys.exit("make_vectors: the client's filter differs from the server's for %s %s %r"
                             % (fam, layout, geom))
                n += 1
                name = "%s-%s-%d" % (fam, layout, n)
                filters.append((name, srv))
                lines.append("filter\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%r\t%r\t%s" % (
                    name, layout, cap, p, bits, k, seed, code if keys else 0,
                    ",".join(kbs) if keys else "-", card, efpr, srv.hex()))

    # ---- combining (folding included) ----
    def agg(layout, bits, k, seed, lo, hi):
        return one("SELECT bloom_add_all(bloom_empty_bits(%s, %s, %s, %s), "
                   "array(SELECT g FROM generate_series(%s::int8, %s) g))::bytea",
                   (bits, k, layout, seed, lo, hi))[0]
    cases = []
    for layout in ("blocked", "classic"):
        unit = 512 if layout == "blocked" else 64
        a = agg(layout, unit * 8, 3, 0, 1, 40)
        cases += [(a, agg(layout, unit * 8, 3, 0, 30, 60)),        # same size
                  (a, agg(layout, unit * 32, 3, 0, 50, 90)),       # folds 4x
                  (agg(layout, unit * 2, 3, 0, 1, 5), a),          # folds 4x, the other way
                  (a, agg(layout, unit * 12, 3, 0, 1, 3)),         # not a power of two
                  (a, agg(layout, unit * 8, 4, 0, 1, 3)),          # hashes
                  (a, agg(layout, unit * 8, 3, 5, 1, 3)),          # seed
                  (a, one("SELECT bloom_empty_bits(%s, 3, %s)::bytea", (unit * 16, layout))[0]),
                  (a, one("SELECT bloom_add(bloom_empty_bits(%s, 3, %s), 'x'::text)::bytea",
                          (unit * 8, layout))[0])]                  # family
    cases.append((agg("blocked", 4096, 3, 0, 1, 9), agg("classic", 4096, 3, 0, 1, 9)))  # layout
    for a, b in cases:
        for op, fn in (("union", "bloom_union"), ("intersect", "bloom_intersect")):
            try:
                r = one("SELECT %s(%%s::bytea::bloomfilter, %%s::bytea::bloomfilter)::bytea" % fn, (a, b))[0]
                res = r.hex()
            except psycopg.Error as e:
                res = "error:" + e.sqlstate
            lines.append("combine\t%s\t%s\t%s\t%s" % (op, a.hex(), b.hex(), res))

    # ---- corrupt inputs ----
    base = bytearray(filters[0][1])
    for name, srv in filters:
        if srv[24] != 0 and len(srv) < 400:     # a small filter with keys
            base = bytearray(srv)
            break
    import xxhash

    def reseal(b):
        b = bytearray(b)
        h = xxhash.xxh3_64()
        h.update(bytes(b[:44]))
        h.update(bytes(b[52:]))
        b[44:52] = struct.pack("<Q", h.intdigest())
        return bytes(b)

    def patched(off, fmt, val, seal=True):
        b = bytearray(base)
        struct.pack_into(fmt, b, off, val)
        return reseal(b) if seal else bytes(b)

    corrupt = [
        ("empty", b""), ("5-bytes", bytes(base[:5])), ("6-bytes", bytes(base[:6])),
        ("51-bytes", bytes(base[:51])), ("header-only", bytes(base[:52])),
        ("magic", b"BLMX" + bytes(base[4:])), ("counting-magic", b"BLMC" + bytes(base[4:])),
        ("version-0", patched(4, "<H", 0)), ("version-3", patched(4, "<H", 3)),
        ("layout-0", patched(6, "<B", 0)), ("layout-3", patched(6, "<B", 3)),
        ("hashes-0", patched(7, "<B", 0)), ("hashes-33", patched(7, "<B", 33)),
        ("nbits-0", patched(16, "<Q", 0)), ("nbits-odd", patched(16, "<Q", 520)),
        ("nbits-huge", patched(16, "<Q", 1 << 40)),
        ("nbits-max+512", patched(16, "<Q", 6442450432 + 512)),
        ("one-byte-more", reseal(bytes(base) + b"\0")),
        ("one-byte-less", bytes(base[:-1])),
        ("family-17", patched(32, "<H", 17)), ("family-11-no-tag", patched(32, "<H", 11)),
        ("tag-without-family", patched(36, "<I", 5)),
        ("flags", patched(34, "<H", 1)), ("reserved", patched(40, "<I", 1)),
        ("checksum", patched(44, "<Q", 12345, seal=False)),
        ("unsealed", patched(44, "<Q", 0, seal=False)),
        ("bit-flipped", bytes(base[:-1]) + bytes([base[-1] ^ 0x80])),
        ("bits-but-family-0", patched(32, "<H", 0)),
        ("bits-but-added-0", patched(24, "<Q", 0)),
        ("valid", bytes(base)),
        ("valid-empty", one("SELECT bloom_empty(10)::bytea")[0]),
        ("valid-added-max", patched(24, "<Q", (1 << 64) - 1)),
    ]
    for name, data in corrupt:
        try:
            one("SELECT %s::bytea::bloomfilter", (data,))
            lines.append("corrupt\t%s\t%s\t-\t-" % (name, data.hex()))
        except psycopg.Error as e:
            lines.append("corrupt\t%s\t%s\t%s\t%s" % (name, data.hex(), e.sqlstate,
                                                      e.diag.message_primary))
    good = one("SELECT bloom_add(bloom_empty_bits(64, 2), 1)::text")[0]
    texts = [("bad-char", "!!!!"), ("not-multiple-of-4", good[:-1]), ("stray-bits", good[:-2] + "B="),
             ("spaces-inside", good[:10] + " \n\t" + good[10:]), ("valid-text", good),
             ("empty-text", ""), ("padding-in-middle", "QQ==" + good),
             ("base64-of-garbage", "QUJDRA==")]
    if good.endswith("=="):
        texts[2] = ("stray-bits", good[:-3] + "B==")
    for name, t in texts:
        try:
            one("SELECT %s::bloomfilter::bytea", (t,))
            lines.append("corrupt_text\t%s\t%s\t-\t-" % (name, t.encode().hex()))
        except psycopg.Error as e:
            lines.append("corrupt_text\t%s\t%s\t%s\t%s" % (name, t.encode().hex(), e.sqlstate,
                                                           e.diag.message_primary))

    version = one("SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")[0]
    head = ["# bloomfilter test vectors: the server's bytes for keys of every client family,",
            "# both layouts, several sizes and seeds; sizing; combining; corrupt inputs.",
            "# Written by test/vectors/make_vectors.py (extension %s, %s); format:" % (
                version, conn.info.parameter_status("server_version")),
            "# src/core/FORMAT.md, \"Test vectors\".  One record a line, tab-separated."]
    with open(out_path, "w") as fh:
        fh.write("\n".join(head + lines) + "\n")
    print("make_vectors: %d records in %s" % (len(lines), out_path))


if __name__ == "__main__":
    main()
