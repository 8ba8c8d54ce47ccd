"""The frozen values of earlier releases (test/vectors/frozen/<release>/
values.tsv; src/core/FORMAT.md, "Frozen values"), never regenerated: this
client reads every bloomfilter among them with the same answers, and
refuses the other types and the aggregate states cleanly.  Also: which
format versions the client reads, and its refusal of a newer one."""
import datetime
import json
import math
import os
import uuid

import pytest

import bloomfilter
from bloomfilter import BloomFilter, InvalidFilterError

FROZEN = os.environ.get("BLOOMFILTER_FROZEN") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "test", "vectors", "frozen")
RELEASES = ["1.0"]


def load(release):
    recs = []
    with open(os.path.join(FROZEN, release, "values.tsv"), encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                recs.append(line.split("\t"))
    return recs


RECS = [(rel, r) for rel in RELEASES for r in load(rel)]
VALUES = {(rel, r[1]): r for rel, r in RECS if r[0] == "value"}
INFO = {(rel, r[1]): json.loads(r[2]) for rel, r in RECS if r[0] == "info"}


def of(kind, typ=None):
    for rel, r in RECS:
        if r[0] == kind and (typ is None or VALUES[(rel, r[1])][2] == typ):
            yield rel, r


def ident(x):
    rel, r = x
    return "%s-%s-%s" % (rel, r[1], "-".join(r[2:4])[:40])


def test_the_frozen_set_is_there():
    kinds = {}
    for _, r in RECS:
        kinds[r[0]] = kinds.get(r[0], 0) + 1
    assert kinds.get("value", 0) >= 50 and kinds.get("aggstate", 0) >= 14
    assert kinds.get("member", 0) >= 180 and kinds.get("nonmember", 0) >= 153
    types = {r[2] for _, r in of("value")}
    assert types == {"bloomfilter", "countingbloom", "bloomwindow", "scalablebloom"}


@pytest.mark.parametrize("rec", list(of("value", "bloomfilter")), ids=ident)
def test_bloomfilter_values_read_back(rec):
    rel, r = rec
    f = BloomFilter.from_text(r[3])
    assert str(f) == r[3]
    assert BloomFilter.from_bytes(bytes(f)) == f
    info = f.info()
    want = INFO[(rel, r[1])]
    for k in ("layout", "bits", "hashes", "bytes", "seed", "added", "bits_set", "format_version"):
        assert info[k] == want[k], k
    for k in ("fill_ratio", "est_cardinality", "est_fpr"):
        assert math.isclose(info[k], want[k], rel_tol=1e-12, abs_tol=0), k


def native(sqltype, lit):
    """The literal as the Python value an application would hold, for the
    families the client encodes (None: probe by key bytes only)."""
    if sqltype in ("int2", "int4", "int8"):
        return int(lit)
    if sqltype in ("text", "varchar", "bpchar", "name"):
        return lit
    if sqltype == "bytea":
        return bytes.fromhex(lit[2:])
    if sqltype == "uuid":
        return uuid.UUID(lit)
    if sqltype == "bool":
        return lit == "true"
    if sqltype == "float8":
        return float(lit)
    if "infinity" in lit:
        return None
    if sqltype == "date":
        return datetime.date.fromisoformat(lit)
    if sqltype == "timestamp":
        return datetime.datetime.fromisoformat(lit)
    if sqltype == "timestamptz":
        return datetime.datetime.fromisoformat(lit)
    return None


@pytest.mark.parametrize("rec", list(of("member", "bloomfilter")) + list(of("nonmember", "bloomfilter")),
                         ids=ident)
def test_bloomfilter_probes(rec):
    rel, r = rec
    _, name, sqltype, lit, family, keyhex, _at, answer = r
    f = BloomFilter.from_text(VALUES[(rel, name)][3])
    want = answer == "t"
    assert f.contains_key_bytes(int(family), bytes.fromhex(keyhex)) == want
    v = native(sqltype, lit)
    if v is not None:
        assert f.contains(v) == want
        assert (v in f) == want


OTHER = list(of("value", "countingbloom")) + list(of("value", "bloomwindow")) \
    + list(of("value", "scalablebloom")) + [(rel, r) for rel, r in RECS if r[0] == "aggstate"]


@pytest.mark.parametrize("rec", OTHER, ids=ident)
def test_other_types_refused_cleanly(rec):
    _, r = rec
    names = {"BLMC": "counting Bloom filter", "BLMW": "bloomwindow", "BLMS": "scalablebloom",
             "BFAS": "bloomfilter_aggstate"}
    for read in (lambda: BloomFilter.from_text(r[3]),
                 lambda: BloomFilter.from_bytes(__import__("base64").b64decode(r[3]))):
        with pytest.raises(InvalidFilterError) as e:
            read()
        assert e.value.message.startswith("invalid bloomfilter: ")
        magic = __import__("base64").b64decode(r[3])[:4].decode("ascii")
        assert names[magic] in str(e.value)


def test_the_versions_it_reads():
    assert bloomfilter.READ_FORMAT_VERSIONS == (1, 2)
    assert bloomfilter.FORMAT_VERSION in bloomfilter.READ_FORMAT_VERSIONS
    # every frozen filter is of a version it reads
    for _, r in of("value", "bloomfilter"):
        raw = __import__("base64").b64decode(r[3])
        assert raw[4] | raw[5] << 8 in bloomfilter.READ_FORMAT_VERSIONS


@pytest.mark.parametrize("version", [3, 4, 65535])
def test_a_newer_version_is_refused_naming_the_client_to_get(version):
    major, minor = (int(x) for x in bloomfilter.__version__.split(".")[:2])
    for _, r in of("value", "bloomfilter"):
        raw = bytearray(__import__("base64").b64decode(r[3]))
        raw[4:6] = version.to_bytes(2, "little")
        with pytest.raises(InvalidFilterError) as e:
            BloomFilter.from_bytes(bytes(raw))
        assert e.value.message == "invalid bloomfilter: the format version is not one this build reads"
        assert ("format version %d needs bloomfilter client %d.%d or later" % (version, major, minor + 1)
                in str(e.value))
        assert "reads format version 1, 2" in str(e.value)
        text = __import__("base64").b64encode(bytes(raw)).decode("ascii")
        with pytest.raises(InvalidFilterError, match="needs bloomfilter client"):
            BloomFilter.from_text(text)


def test_version_zero_is_refused():
    raw = bytearray(bytes(BloomFilter.empty(10)))
    raw[4] = 0
    with pytest.raises(InvalidFilterError, match="format version 0 was never written"):
        BloomFilter.from_bytes(bytes(raw))


@pytest.mark.skipif(os.environ.get("BLOOMFILTER_INSTALLED") != "1",
                    reason="tests the checkout's sources (BLOOMFILTER_INSTALLED=1: the installed package)")
def test_the_installed_package_is_the_one_tested():
    """test/clients_packaged.sh: the wheel, installed, is what these tests import."""
    import importlib.metadata
    prefix = os.environ.get("BLOOMFILTER_PACKAGE_PREFIX")
    if prefix:
        assert os.path.abspath(bloomfilter.__file__).startswith(prefix)
    assert importlib.metadata.version("pg-bloomfilter") == bloomfilter.__version__
    files = [str(f) for f in importlib.metadata.files("pg-bloomfilter")]
    assert "bloomfilter/__init__.py" in files and not any(f.startswith("tests") for f in files)
