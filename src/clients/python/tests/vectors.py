"""Reads test/vectors/vectors.tsv (format: src/core/FORMAT.md, "Test vectors")."""
import datetime
import os
import uuid

VECTORS = os.environ.get("BLOOMFILTER_VECTORS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "test", "vectors", "vectors.tsv")

FAMILY_CODES = {"integer": 1, "float": 2, "text": 4, "bytea": 5, "uuid": 6, "boolean": 7,
                "date": 8, "timestamp": 9, "timestamptz": 10}


def records(kind=None):
    with open(VECTORS, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            f = line.split("\t")
            if kind is None or f[0] == kind:
                yield f


def value_of(family, text):
    """A key record's value field as the Python value."""
    if family == "integer":
        return int(text)
    if family == "float":
        return float({"Infinity": "inf", "-Infinity": "-inf"}.get(text, text))
    if family == "text":
        return bytes.fromhex(text).decode("utf-8")
    if family == "bytea":
        return bytes.fromhex(text)
    if family == "uuid":
        return uuid.UUID(text)
    if family == "boolean":
        return text == "true"
    if family == "date":
        return datetime.date.fromisoformat(text)
    if family in ("timestamp", "timestamptz"):
        return datetime.datetime.fromisoformat(text)
    raise AssertionError(family)


def hex_keys(field):
    if field == "-":
        return []
    return [bytes.fromhex(k) for k in field.split(",")]
