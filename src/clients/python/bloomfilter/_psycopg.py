"""The psycopg 3 adapter: dumpers and loaders for the bloomfilter type,
found by name (and so by the OID it has in the connection's database)."""
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from ._errors import BloomFilterError
from ._filter import BloomFilter


def register(context, typename):
    conn = getattr(context, "connection", context)
    info = TypeInfo.fetch(conn, typename)
    if info is None:
        raise BloomFilterError(
            "type \"%s\" does not exist in this database" % typename,
            "Run CREATE EXTENSION bloomfilter, or give register_bloomfilter the "
            "schema-qualified name of the type.")
    info.register(context)
    oid = info.oid

    class BloomFilterTextDumper(Dumper):
        format = Format.TEXT

        def dump(self, obj):
            return str(obj).encode("ascii")

    class BloomFilterBinaryDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj):
            return bytes(obj)

    class BloomFilterTextLoader(Loader):
        format = Format.TEXT

        def load(self, data):
            return BloomFilter.from_text(bytes(data).decode("ascii"))

    class BloomFilterBinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            return BloomFilter.from_bytes(bytes(data))

    BloomFilterTextDumper.oid = oid
    BloomFilterBinaryDumper.oid = oid
    adapters = context.adapters
    # the binary dumper last: a plain %s parameter is sent in binary
    adapters.register_dumper(BloomFilter, BloomFilterTextDumper)
    adapters.register_dumper(BloomFilter, BloomFilterBinaryDumper)
    adapters.register_loader(oid, BloomFilterTextLoader)
    adapters.register_loader(oid, BloomFilterBinaryLoader)
    return info
