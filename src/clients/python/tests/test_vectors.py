"""The client against the server's answers in test/vectors/vectors.tsv: no
server needed."""
import base64
import math

import pytest

from bloomfilter import (BloomFilter, FamilyMismatchError, IncompatibleFiltersError,
                         InvalidArgumentError, InvalidFilterError, key_bytes)
from vectors import FAMILY_CODES, hex_keys, records, value_of


def test_vectors_present():
    kinds = {}
    for r in records():
        kinds[r[0]] = kinds.get(r[0], 0) + 1
    for kind in ("key", "sizing", "filter", "combine", "corrupt", "corrupt_text"):
        assert kinds.get(kind, 0) > 0, kind
    assert {r[1] for r in records("key")} == set(FAMILY_CODES)


@pytest.mark.parametrize("rec", list(records("key")), ids=lambda r: r[1] + ":" + r[2][:24])
def test_key_bytes(rec):
    _, family, text, hexkey = rec
    fam, kb = key_bytes(value_of(family, text))
    assert fam == FAMILY_CODES[family]
    assert kb.hex() == hexkey


@pytest.mark.parametrize("rec", list(records("sizing")), ids=lambda r: "-".join(r[1:4]))
def test_sizing(rec):
    layout, cap, fpr, nbits, hashes = rec[1:6]
    if nbits == "-":
        with pytest.raises(InvalidArgumentError) as e:
            BloomFilter.empty(int(cap), float(fpr), layout)
        assert e.value.sqlstate == rec[6]
        return
    f = BloomFilter.empty(int(cap), float(fpr), layout)
    assert (f.nbits, f.hashes) == (int(nbits), int(hashes))


def build(rec):
    name, layout, cap, fpr, bits, hashes, seed, family = rec[1:9]
    if cap == "-":
        f = BloomFilter.empty_bits(int(bits), int(hashes), layout, int(seed))
    else:
        f = BloomFilter.empty(int(cap), float(fpr), layout, int(seed))
    for kb in hex_keys(rec[9]):
        f.add_key_bytes(int(family), kb)
    return f


@pytest.mark.parametrize("rec", list(records("filter")), ids=lambda r: r[1])
def test_filter(rec):
    f = build(rec)
    server = bytes.fromhex(rec[12])
    assert bytes(f) == server
    # and read back: every key probes true, the estimates are the server's
    g = BloomFilter.from_bytes(server)
    assert g == f
    assert BloomFilter.from_text(base64.b64encode(server).decode()) == f
    for kb in hex_keys(rec[9]):
        assert g.contains_key_bytes(int(rec[8]), kb)
    assert math.isclose(g.cardinality(), float(rec[10]), rel_tol=1e-12, abs_tol=0)
    assert math.isclose(g.fpr(), float(rec[11]), rel_tol=1e-12, abs_tol=0)


@pytest.mark.parametrize("rec", list(records("combine")), ids=lambda r: r[1])
def test_combine(rec):
    op, a, b, result = rec[1:5]
    fa = BloomFilter.from_bytes(bytes.fromhex(a))
    fb = BloomFilter.from_bytes(bytes.fromhex(b))
    fn = (lambda: fa | fb) if op == "union" else (lambda: fa & fb)
    if result.startswith("error:"):
        exc = FamilyMismatchError if result == "error:42804" else IncompatibleFiltersError
        with pytest.raises(exc) as e:
            fn()
        assert e.value.sqlstate == result[6:]
    else:
        assert bytes(fn()).hex() == result


@pytest.mark.parametrize("rec", list(records("corrupt")), ids=lambda r: r[1])
def test_corrupt(rec):
    name, data, sqlstate, message = rec[1:5]
    data = bytes.fromhex(data)
    if sqlstate == "-":
        assert bytes(BloomFilter.from_bytes(data)) == data
        return
    with pytest.raises(InvalidFilterError) as e:
        BloomFilter.from_bytes(data)
    assert e.value.message == message
    assert e.value.sqlstate == sqlstate


@pytest.mark.parametrize("rec", list(records("corrupt_text")), ids=lambda r: r[1])
def test_corrupt_text(rec):
    name, text, sqlstate, message = rec[1:5]
    text = bytes.fromhex(text).decode("ascii")
    if sqlstate == "-":
        BloomFilter.from_text(text)
        return
    with pytest.raises(InvalidFilterError) as e:
        BloomFilter.from_text(text)
    assert e.value.message == message
    assert e.value.sqlstate == sqlstate
