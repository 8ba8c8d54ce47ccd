"""Exceptions.  Each is also the built-in exception a Python programmer
would catch for it (ValueError, TypeError)."""


class BloomFilterError(Exception):
    """Base class of this package's errors.  sqlstate is the SQLSTATE the
    server reports for the same mistake, detail its DETAIL line (or None)."""

    sqlstate = None

    def __init__(self, message, detail=None, sqlstate=None):
        super().__init__(message if detail is None else "%s (%s)" % (message, detail))
        self.message = message
        self.detail = detail
        if sqlstate is not None:
            self.sqlstate = sqlstate


class InvalidFilterError(BloomFilterError, ValueError):
    """Bytes or text that are not a valid bloomfilter (the server refuses
    them with the same message, "invalid bloomfilter: ...")."""

    sqlstate = "22P03"


class FamilyMismatchError(BloomFilterError, TypeError):
    """A key of one family probed in or added to a filter of another."""

    sqlstate = "42804"


class IncompatibleFiltersError(BloomFilterError, ValueError):
    """Two filters that cannot be combined (layout, hashes, seed, family or
    sizes that do not fold to one)."""

    sqlstate = "22023"


class UnsupportedKeyError(BloomFilterError, TypeError):
    """A value of a type this client does not encode."""

    sqlstate = "0A000"


class InvalidArgumentError(BloomFilterError, ValueError):
    """An argument out of range: capacity, rate, layout, bits, hashes, seed."""

    sqlstate = "22023"
