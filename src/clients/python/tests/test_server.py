"""The client against a running server with bloomfilter.

The connection comes from libpq's environment (PGHOST, PGPORT, PGUSER,
PGPASSWORD, PGDATABASE: what pg_virtualenv sets).  Without a server these
tests are skipped, unless BLOOMFILTER_SERVER_TESTS=require (as CI sets it),
where a missing server is a failure.  The random keys come from
BLOOMFILTER_TEST_SEED (printed at the start) so that a failure can be rerun.
"""
import datetime
import math
import os
import random
import struct
import uuid

import pytest

from bloomfilter import (BloomFilter, FamilyMismatchError, InvalidFilterError,
                         register_bloomfilter)
from vectors import records

if os.environ.get("BLOOMFILTER_SERVER_TESTS") == "require":
    import psycopg                      # CI: a missing psycopg is a failure
else:
    psycopg = pytest.importorskip("psycopg")

SEED = int(os.environ.get("BLOOMFILTER_TEST_SEED") or random.SystemRandom().randrange(1 << 32))
print("bloomfilter server tests: BLOOMFILTER_TEST_SEED=%d" % SEED)


@pytest.fixture(scope="module")
def conn():
    try:
        c = psycopg.connect(autocommit=True)
    except psycopg.OperationalError as e:
        if os.environ.get("BLOOMFILTER_SERVER_TESTS") == "require":
            pytest.fail("no server to test against: %s" % e)
        pytest.skip("no server (set PGHOST, PGPORT, ...): %s" % e)
    c.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    c.execute("SET extra_float_digits = 3")
    # the session's time zone must not matter to timestamptz keys
    c.execute("SET TimeZone = 'Asia/Kolkata'")
    register_bloomfilter(c)
    yield c
    c.close()


def one(conn, sql, params=()):
    return conn.execute(sql, params).fetchone()


# ---- random keys of every family ----

def rand_text(r):
    alphabet = "abcxyz019 \t\n'\"\\,{}é€😀\u00a0"
    s = "".join(r.choice(alphabet) for _ in range(r.randint(0, 10)))
    return s + " " * r.choice([0, 0, 0, 1, 2])


def rand_float(r):
    c = r.random()
    if c < 0.05:
        return r.choice([0.0, -0.0, float("nan"), float("inf"), float("-inf")])
    if c < 0.5:
        return r.uniform(-1e9, 1e9)
    v = struct.unpack("<d", struct.pack("<Q", r.getrandbits(64)))[0]
    return float("nan") if v != v else v


def rand_tz(r):
    return datetime.timezone(datetime.timedelta(minutes=r.randint(-14 * 60, 14 * 60)))


GEN = {
    # family: (SQL array type, generator)
    "int2": ("int2", lambda r: r.randint(-32768, 32767)),
    "int4": ("int4", lambda r: r.randint(-(1 << 31), (1 << 31) - 1)),
    "int8": ("int8", lambda r: r.randint(-(1 << 63), (1 << 63) - 1)),
    "float8": ("float8", rand_float),
    "float4": ("float4", lambda r: struct.unpack("<f", struct.pack("<f", r.uniform(-1e30, 1e30)))[0]),
    "text": ("text", rand_text),
    "bytea": ("bytea", lambda r: r.randbytes(r.randint(0, 20))),
    "uuid": ("uuid", lambda r: uuid.UUID(int=r.getrandbits(128))),
    "bool": ("bool", lambda r: r.random() < 0.5),
    "date": ("date", lambda r: datetime.date(1, 1, 1) + datetime.timedelta(days=r.randint(0, 3652058))),
    "timestamp": ("timestamp", lambda r: datetime.datetime(1, 1, 1) + datetime.timedelta(
        microseconds=r.randint(0, 315537897599999999))),
    "timestamptz": ("timestamptz", lambda r: (datetime.datetime(1, 1, 2, tzinfo=datetime.timezone.utc)
                                              + datetime.timedelta(microseconds=r.randint(0, 315537724800000000))
                                              ).astimezone(rand_tz(r))),
}


def keys_of(kind, r, n):
    gen = GEN[kind][1]
    return [gen(r) for _ in range(n)]


def sql_filter(conn, kind, keys, geom):
    """The server's bloom_add_all(bloom_empty(...), keys) as a BloomFilter."""
    typ = GEN[kind][0]
    if geom[0] == "bits":
        base = "bloom_empty_bits(%s, %s, %s, %s)"
    else:
        base = "bloom_empty(%s, %s, %s, %s)"
    return one(conn, "SELECT bloom_add_all(" + base + ", %s::" + typ + "[])",
               list(geom[1:]) + [keys])[0]


def client_filter(keys, geom):
    if geom[0] == "bits":
        f = BloomFilter.empty_bits(*geom[1:])
    else:
        f = BloomFilter.empty(*geom[1:])
    return f.add_all(keys)


@pytest.mark.parametrize("kind", sorted(GEN))
@pytest.mark.parametrize("layout", ["blocked", "classic"])
def test_same_bytes_and_probes(conn, kind, layout):
    r = random.Random("%d/%s/%s" % (SEED, kind, layout))
    for round_ in range(3):
        n = r.choice([1, 10, 200])
        keys = keys_of(kind, r, n)
        seed = r.choice([0, 1, -1, r.randint(-(1 << 63), (1 << 63) - 1)])
        geom = r.choice([("empty", r.choice([10, 100, 1000]), r.choice([0.01, 0.1, 0.001]), layout, seed),
                         ("bits", r.randint(1, 5000), r.randint(1, 12), layout, seed)])
        ctx = "seed %d, %s %s %r" % (SEED, kind, layout, geom)
        srv = sql_filter(conn, kind, keys, geom)
        cli = client_filter(keys, geom)
        assert isinstance(srv, BloomFilter)
        assert bytes(cli) == bytes(srv), ctx
        # no false negative on either side, and the same answers for others
        others = keys_of(kind, r, 300)
        probe = keys + others
        typ = GEN[kind][0]
        server_says = one(conn, "SELECT array_agg(bloom_contains(%s, k) ORDER BY i) "
                                "FROM unnest(%s::" + typ + "[]) WITH ORDINALITY AS t(k, i)",
                          (cli, probe))[0]
        client_says = [srv.contains(k) for k in probe]
        assert all(client_says[:n]), ctx
        assert server_says == client_says, ctx
        # the estimates
        card, fpr = one(conn, "SELECT bloom_cardinality(%s), bloom_fpr(%s)", (cli, cli))
        assert math.isclose(cli.cardinality(), card, rel_tol=1e-12) or cli.cardinality() == card
        assert math.isclose(cli.fpr(), fpr, rel_tol=1e-12) or cli.fpr() == fpr


def test_bloom_agg_sizing(conn):
    """BloomFilter.empty(capacity, fpr) plus the keys is bloom_agg(x, capacity, fpr)."""
    r = random.Random(SEED)
    for _ in range(5):
        keys = keys_of("int8", r, r.randint(1, 3000))
        cap, p = r.randint(1, 5000), r.choice([0.5, 0.01, 0.02, 1e-5])
        srv = one(conn, "SELECT bloom_agg(k, %s, %s) FROM unnest(%s::int8[]) k", (cap, p, keys))[0]
        assert bytes(BloomFilter.empty(cap, p).add_all(keys)) == bytes(srv)


def test_sizing_many_pairs(conn):
    r = random.Random(SEED + 1)
    pairs = []
    for _ in range(400):
        cap = int(10 ** r.uniform(0, 6.3))
        p = 10 ** r.uniform(-9, -0.01)
        pairs.append((cap, p, r.choice(["blocked", "classic"])))
    pairs += [(c, p, l) for c in (1, 2, 1000, 1000000) for p in (0.01, 0.001, 0.5, 0.999999, 1e-12)
              for l in ("blocked", "classic")]
    rows = conn.execute(
        "SELECT (i).bits, (i).hashes FROM unnest(%s::int8[], %s::float8[], %s::text[]) "
        "WITH ORDINALITY AS t(c, p, l, o), LATERAL (SELECT bloom_info(bloom_empty(c, p, l)) AS i) s ORDER BY o",
        ([c for c, _, _ in pairs], [p for _, p, _ in pairs], [l for _, _, l in pairs])).fetchall()
    for (cap, p, layout), (bits, hashes) in zip(pairs, rows):
        f = BloomFilter.empty(cap, p, layout)
        assert (f.nbits, f.hashes) == (bits, hashes), (cap, p, layout)


def test_info_matches(conn):
    r = random.Random(SEED + 2)
    for layout in ("blocked", "classic"):
        f = BloomFilter.empty(500, 0.02, layout, seed=-5).add_all(keys_of("text", r, 700))
        row = conn.execute("SELECT * FROM bloom_info(%s)", (f,))
        names = [d.name for d in row.description]
        srv = dict(zip(names, row.fetchone()))
        mine = f.info()
        assert set(srv) == set(mine)
        for k in srv:
            if isinstance(srv[k], float):
                assert math.isclose(mine[k], srv[k], rel_tol=1e-12), k
            else:
                assert mine[k] == srv[k], k


def test_union_intersect_fold(conn):
    r = random.Random(SEED + 3)
    for layout in ("blocked", "classic"):
        unit = 512 if layout == "blocked" else 64
        for mult in (1, 2, 8):
            a = BloomFilter.empty_bits(unit * 16, 4, layout, 9).add_all(keys_of("int8", r, 30))
            b = BloomFilter.empty_bits(unit * 16 * mult, 4, layout, 9).add_all(keys_of("int8", r, 30))
            u, i = one(conn, "SELECT bloom_union(%s, %s), bloom_intersect(%s, %s)", (a, b, a, b))
            assert bytes(a | b) == bytes(u)
            assert bytes(b | a) == bytes(one(conn, "SELECT bloom_union(%s, %s)", (b, a))[0])
            assert bytes(a & b) == bytes(i)
            assert one(conn, "SELECT %s @>> %s", (a | b, b))[0] is True
            assert (a | b).issuperset(b)


def test_family_mismatch_same_error(conn):
    f = BloomFilter.empty(100).add_all([1, 2, 3])
    with pytest.raises(psycopg.Error) as se:
        conn.execute("SELECT bloom_contains(%s, 'x'::text)", (f,))
    with pytest.raises(FamilyMismatchError) as ce:
        f.contains("x")
    assert se.value.sqlstate == ce.value.sqlstate
    assert se.value.diag.message_primary == ce.value.message
    with pytest.raises(FamilyMismatchError):
        f.add(1.5)
    g = BloomFilter.empty(100).add("a")
    with pytest.raises(psycopg.Error) as se:
        conn.execute("SELECT bloom_union(%s, %s)", (f, g))
    with pytest.raises(FamilyMismatchError) as ce:
        f | g
    assert se.value.diag.message_primary == ce.value.message


class RawFilterBytes(bytes):
    """Bytes sent as a binary bloomfilter parameter, unchecked."""


class RawFilterText(str):
    """Text sent as a text bloomfilter parameter, unchecked."""


def corrupt_cases():
    yield from ((r[1], bytes.fromhex(r[2])) for r in records("corrupt"))
    # and random damage to a valid filter
    r = random.Random(SEED + 4)
    goods = [bytes(BloomFilter.empty(50, 0.1, layout).add_all(range(20)))
             for layout in ("classic", "blocked")]
    for n in range(300):
        b = bytearray(goods[n % 2])
        what = r.random()
        if what < 0.3:
            b = b[:r.randrange(len(b))]
        elif what < 0.8:
            for _ in range(r.randint(1, 3)):
                b[r.randrange(52)] = r.randrange(256)
        else:
            b[r.randrange(len(b))] ^= 1 << r.randrange(8)
        if len(b) >= 52 and r.random() < 0.5:
            # sealed again, so that the checks after the checksum are reached
            import xxhash
            h = xxhash.xxh3_64()
            h.update(bytes(b[:44]))
            h.update(bytes(b[52:]))
            b[44:52] = struct.pack("<Q", h.intdigest())
        yield "random-%d" % n, bytes(b)


def test_corrupt_refused_alike(conn):
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    oid = one(conn, "SELECT 'bloomfilter'::regtype::oid")[0]

    class RawBinary(Dumper):
        format = Format.BINARY

        def dump(self, obj):
            return bytes(obj)

    class RawText(Dumper):
        format = Format.TEXT

        def dump(self, obj):
            return str(obj).encode()

    RawBinary.oid = oid
    RawText.oid = oid
    conn.adapters.register_dumper(RawFilterBytes, RawBinary)
    conn.adapters.register_dumper(RawFilterText, RawText)
    import base64
    n = 0
    for name, data in corrupt_cases():
        try:
            mine = bytes(BloomFilter.from_bytes(data))
            mine_err = None
        except InvalidFilterError as e:
            mine_err = e
        for how, param in (("binary", RawFilterBytes(data)), ("bytea", data),
                           ("text", RawFilterText(base64.b64encode(data).decode()))):
            sql = "SELECT %s::bytea::bloomfilter::bytea" if how == "bytea" else "SELECT %s::bytea"
            try:
                srv = one(conn, sql, (param,))[0]
                srv_err = None
            except psycopg.Error as e:
                srv_err = e
            if mine_err is None:
                assert srv_err is None, (name, how, srv_err)
                assert srv == mine, (name, how)
            else:
                assert srv_err is not None, (name, how, "the server accepted what the client refused")
                assert srv_err.diag.message_primary == mine_err.message, (name, how)
            n += 1
    assert n > 900


def test_adapter_round_trip(conn):
    f = BloomFilter.empty(1000, 0.01, "classic", 77).add_all(["a", "b", "ç "])
    # binary parameter, binary and text results
    for binary in (True, False):
        cur = conn.cursor(binary=binary)
        for fmt in ("%b", "%t", "%s"):
            got = cur.execute("SELECT " + fmt + "::bloomfilter", (f,)).fetchone()[0]
            assert isinstance(got, BloomFilter)
            assert got == f and bytes(got) == bytes(f)
    # the server's own filter comes back whole, and probes as SQL does
    g = one(conn, "SELECT bloom_agg(x, 100, 0.01) FROM generate_series(1, 50) x")[0]
    assert all(x in g for x in range(1, 51))
    assert one(conn, "SELECT count(*) FROM generate_series(1, 100) x WHERE x <@ %s::bloomfilter",
               (g,))[0] == sum(1 for x in range(1, 101) if x in g)
    # text form as the server prints it
    assert one(conn, "SELECT %s::bloomfilter::text", (f,))[0] == str(f)
    assert BloomFilter.from_text(one(conn, "SELECT bloom_add(bloom_empty(10), 1)::text")[0]) \
        == one(conn, "SELECT bloom_add(bloom_empty(10), 1)")[0]


@pytest.mark.parametrize("layout", ["parquet", "spark"])
def test_other_engines_layouts_refused(conn, layout):
    """A parquet or spark filter fetched from the server (format version 2,
    keys placed as that engine places them) is refused by name, through the
    adapter's binary and text loaders and from its bytes and text: never
    read as a blocked or classic filter that would answer false for its
    keys."""
    sql = ("SELECT bloom_add_all(bloom_empty(1000, 0.01, %s), ARRAY[1, 2, 3])")
    for binary in (True, False):
        cur = conn.cursor(binary=binary)
        with pytest.raises(InvalidFilterError, match="the %s layout is not supported" % layout):
            cur.execute(sql, (layout,)).fetchone()
    raw, text = one(conn, "SELECT f::bytea, f::text FROM (" + sql + ") s(f)", (layout,))
    assert raw[4] == 2 and raw[6] == (3 if layout == "parquet" else 4)
    with pytest.raises(InvalidFilterError, match="the %s layout is not supported" % layout):
        BloomFilter.from_bytes(raw)
    with pytest.raises(InvalidFilterError, match="the %s layout is not supported" % layout):
        BloomFilter.from_text(text)
    # the connection is still usable, and blocked filters still load
    g = one(conn, "SELECT bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), ARRAY[1, 2, 3])")[0]
    assert isinstance(g, BloomFilter) and all(x in g for x in (1, 2, 3))


def test_int_and_float_families(conn):
    """int2, int4 and int8 are one family; float4 keys are float8 keys."""
    f = BloomFilter.empty(100).add_all([1, 2, 40000])
    assert one(conn, "SELECT bloom_contains(%s, 1::int2) AND bloom_contains(%s, 2::int4) "
                     "AND bloom_contains(%s, 40000::int8)", (f, f, f))[0]
    g = BloomFilter.empty(100).add_all([1.5, -0.0, float("nan")])
    assert one(conn, "SELECT bloom_contains(%s, 1.5::float4) AND bloom_contains(%s, 0::float8) "
                     "AND bloom_contains(%s, 'NaN'::float4)", (g, g, g))[0]
    with pytest.raises(OverflowError):
        BloomFilter.empty(10).add(1 << 63)


def readme_examples():
    """The Python examples of the project's README and of the package's own
    (each a ```python block after a "clients-test: python" marker, then the
    plain block of what it prints): (file, code, shown) for each."""
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for path in (os.path.join(here, "..", "..", "..", "..", "README.md"),
                 os.path.join(here, "..", "README.md")):
        name = os.path.relpath(os.path.normpath(path), os.path.join(here, "..", "..", "..", ".."))
        text = open(path, encoding="utf-8").read()
        blocks = re.findall(r"<!-- clients-test: python[^>]*-->\n```python\n(.*?)```\n```\n(.*?)```", text, re.S)
        # every marker is followed by a block and its output (a marker whose
        # block did not parse would silently run nothing)
        assert len(blocks) == text.count("<!-- clients-test: python"), name
        assert blocks, "%s has no Python example marked clients-test" % name
        found += [(name, code, shown) for code, shown in blocks]
    return found


EXAMPLES = readme_examples()


@pytest.mark.parametrize("name,code,shown", EXAMPLES,
                         ids=["%s#%d" % (e[0], i) for i, e in enumerate(EXAMPLES)])
def test_readme_python_example(conn, name, code, shown):
    """The READMEs' Python examples run and print what the READMEs show."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "%s (Python example)" % name, "exec"), {})
    assert out.getvalue() == shown


def test_float4_keys_read_back(conn):
    """float4 keys read back in binary or as float8 probe true in a server
    filter (text format gives a shortest decimal, not the float4's value)."""
    conn.execute("CREATE TEMP TABLE f4 AS SELECT (g / 10.0)::float4 AS x FROM generate_series(1, 300) g")
    f = one(conn, "SELECT bloom_agg(x, 300, 0.01) FROM f4")[0]
    binary = [r[0] for r in conn.cursor(binary=True).execute("SELECT x FROM f4").fetchall()]
    widened = [r[0] for r in conn.execute("SELECT x::float8 FROM f4").fetchall()]
    assert binary == widened
    assert all(x in f for x in binary)
    g = BloomFilter.empty(300, 0.01).add_all(binary)
    assert bytes(g) == bytes(f)
    conn.execute("DROP TABLE f4")


def test_copy_binary_and_text(conn):
    """Filters go through COPY (binary and text) with the adapter."""
    fs = [BloomFilter.empty(100, 0.01, layout, seed).add_all(range(seed, seed + 50))
          for layout in ("blocked", "classic") for seed in (0, -3)]
    conn.execute("CREATE TEMP TABLE fc (i int, f bloomfilter)")
    for fmt in ("binary", "text"):
        conn.execute("TRUNCATE fc")
        cur = conn.cursor()
        with cur.copy("COPY fc (i, f) FROM STDIN (FORMAT %s)" % fmt) as cp:
            if fmt == "binary":
                cp.set_types(["int4", "bloomfilter"])
            for i, f in enumerate(fs):
                cp.write_row((i, f))
        assert one(conn, "SELECT count(*) FROM fc WHERE bloom_contains(f, 48)")[0] == sum(48 in f for f in fs)
        with cur.copy("COPY fc (i, f) TO STDOUT (FORMAT %s)" % fmt) as cp:
            cp.set_types(["int4", "bloomfilter"])
            back = sorted(cp.rows())
        assert [f for _, f in back] == fs
    conn.execute("DROP TABLE fc")


# ---- float4 keys and DST gaps: the values a key has on the server ----

def _halfway_float4_texts(r, n):
    """Decimal texts at and around the midpoints of random neighbouring
    float4s: repr of the midpoint, its exact decimal, that plus one in its
    last digit, and cut to 9 to 20 digits."""
    out = []
    while len(out) < n:
        k = r.randrange(10)
        bits = r.randrange(0x800000) if k == 0 else 0x7f7fffff - r.randrange(64) if k == 1 else r.randrange(0x7f7fffff)
        a = struct.unpack("<f", struct.pack("<I", bits))[0]
        b = 2.0 ** 128 if bits == 0x7f7fffff else struct.unpack("<f", struct.pack("<I", bits + 1))[0]
        mid = (a + b) / 2
        if bits == 0 and r.random() < 0.5:
            mid = 2.0 ** -150
        if r.random() < 0.5:
            mid = -mid
        num, den = mid.as_integer_ratio()
        e = den.bit_length() - 1            # den is a power of two
        digits = str(abs(num) * 5 ** e)
        sign = "-" if mid < 0 else ""
        exact = "%s%se-%d" % (sign, digits, e)
        bumped = "%s%de-%d" % (sign, int(digits) + 1, e)
        cut = 9 + r.randrange(12)
        cutf = "%s%se%d" % (sign, digits[:cut], len(digits) - cut - e) if len(digits) > cut else exact
        out.append(r.choice([repr(mid), exact, bumped, cutf]))
    return out


def test_float4_text_keys_are_the_servers(conn):
    """float4(text) is the float4 the server reads from the same text, and
    refuses what it refuses, on 20,000 texts halfway between float4s; the
    old recipe (round the float of the text) misses thousands."""
    from bloomfilter import float4
    r = random.Random(SEED + 31)
    texts = _halfway_float4_texts(r, 20000)
    conn.execute("""CREATE OR REPLACE FUNCTION pg_temp.f4(t text) RETURNS float4 LANGUAGE plpgsql AS $$
        BEGIN RETURN t::float4; EXCEPTION WHEN others THEN RETURN NULL; END $$""")
    bits, f = one(conn, """
        SELECT array_agg(coalesce(encode(float4send(v), 'hex'), 'refused') ORDER BY o),
               bloom_add_all(bloom_empty(40000, 0.01), array_agg(v) FILTER (WHERE v IS NOT NULL))
        FROM (SELECT o, pg_temp.f4(t) AS v FROM unnest(%s::text[]) WITH ORDINALITY u(t, o)) s""", (texts,))
    mine = []
    old_misses = 0
    for t in texts:
        try:
            v = float4(t)
        except ValueError as e:
            assert "out of range" in str(e), t
            mine.append("refused")
            continue
        mine.append(struct.pack(">f", v).hex())
        assert v in f, t
        try:
            if struct.unpack("<f", struct.pack("<f", float(t)))[0] != v:
                old_misses += 1
        except OverflowError:
            old_misses += 1
    assert mine == bits
    assert old_misses > 1000, old_misses


def test_float4_floats_sent_by_psycopg(conn):
    """A Python float sent by psycopg is a float8 parameter: the server
    rounds the double once, as float4(x) does, halfway values included."""
    from bloomfilter import float4
    r = random.Random(SEED + 37)
    mids = []
    while len(mids) < 20000:
        bits = r.randrange(0x7f7fffff)
        a = struct.unpack("<f", struct.pack("<I", bits))[0]
        b = struct.unpack("<f", struct.pack("<I", bits + 1))[0]
        m = (a + b) / 2
        if m > 2.0 ** -150:
            mids.append(m if r.random() < 0.5 else -m)
    got, f = one(conn, "SELECT array_agg(x::float8 ORDER BY o), bloom_add_all(bloom_empty(40000, 0.01), array_agg(x)) "
                       "FROM unnest(%s::float4[]) WITH ORDINALITY u(x, o)", (mids,))
    assert got == [float4(m) for m in mids]
    assert all(float4(m) in f for m in mids)


def test_timestamps_in_a_dst_gap(conn):
    """Naive datetimes in Berlin's spring-forward gaps (which no local
    clock shows), with microseconds, and timestamptz values there, read
    and probed in a Berlin process and session: every key found."""
    import time
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Berlin"
    time.tzset()
    try:
        conn.execute("SET TimeZone = 'Europe/Berlin'")
        r = random.Random(SEED + 41)
        values = []
        for _ in range(300):
            y = r.randrange(1981, 2038)
            day = 31 - (datetime.date(y, 3, 31).weekday() + 1) % 7   # the last Sunday of March
            values.append(datetime.datetime(y, 3, day, 2, r.randrange(60), r.randrange(60), r.randrange(1000000)))
        f, back = one(conn, "SELECT bloom_add_all(bloom_empty(1000, 0.01), %s::timestamp[]), %s::timestamp[]",
                      (values, values))
        assert back == values
        assert all(v in f for v in values)
        texts = [v.isoformat(" ") for v in values]
        ftz, tz = one(conn, "SELECT bloom_add_all(bloom_empty(1000, 0.01), %s::text[]::timestamptz[]), "
                            "%s::text[]::timestamptz[]", (texts, texts))
        assert all(t.utcoffset() == datetime.timedelta(hours=2) for t in tz)   # 02:30 read as 03:30+02
        assert all(t in ftz for t in tz)
        fd, = one(conn, "SELECT bloom_add_all(bloom_empty(1000, 0.01), %s::timestamp[]::date[])", (values,))
        assert all(v.date() in fd for v in values)
    finally:
        conn.execute("SET TimeZone = 'Asia/Kolkata'")
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
