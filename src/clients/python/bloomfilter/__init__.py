"""bloomfilter: the PostgreSQL extension's Bloom filters in Python.

Builds, reads, probes and combines the same bytes as the server
(src/core/FORMAT.md): BloomFilter.empty(capacity, fpr, layout, seed) plus
the same keys gives the bytes of bloom_add_all(bloom_empty(...), keys).
"""
from ._errors import (BloomFilterError, FamilyMismatchError,
                      IncompatibleFiltersError, InvalidArgumentError,
                      InvalidFilterError, UnsupportedKeyError)
from ._filter import BloomFilter
from ._keys import key_bytes


def register_bloomfilter(conn, typename="bloomfilter"):
    """Registers the psycopg 3 adapter on a connection (or cursor): a
    BloomFilter is sent as a bloomfilter parameter (binary or text) and a
    bloomfilter column comes back as a BloomFilter (both formats)."""
    from ._psycopg import register
    return register(conn, typename)


__all__ = [
    "BloomFilter", "BloomFilterError", "FamilyMismatchError",
    "IncompatibleFiltersError", "InvalidArgumentError", "InvalidFilterError",
    "UnsupportedKeyError", "key_bytes", "register_bloomfilter",
]
__version__ = "1.1.0"
