"""The filter: the portable format of src/core/FORMAT.md, read, validated,
built, probed and combined as the server does (src/core/bf_format.c,
bf_combine.c, bf_estimate.c, bf_kernels.h)."""
import base64
import binascii
import math
import struct
import warnings

import xxhash

from . import _keys
from ._errors import (FamilyMismatchError, IncompatibleFiltersError,
                      InvalidArgumentError, InvalidFilterError)
from ._keys import FAMILY_NONE, FAMILY_MAX, TAGGED_FAMILIES, family_display
from ._sizing import (BLOCK_BITS, LAYOUT_BLOCKED, LAYOUT_CLASSIC, MAX_HASHES,
                      MAX_NBITS, MIN_HASHES, size_for)

HEADER_SIZE = 52
# The format version this client writes, and the versions it reads
# (src/core/FORMAT.md, "Compatibility"): a newer one is refused with the
# client release that reads it.
FORMAT_VERSION = 1
# version 2: the layouts of other engines (parquet, spark), which this
# client refuses by name
_FORMAT_VERSION_2 = 2
READ_FORMAT_VERSIONS = (FORMAT_VERSION, _FORMAT_VERSION_2)
MAGIC = b"BLMF"
# every type's format version: a little-endian uint16 behind the magic
_OFF_VERSION = 4
OFF_CHECKSUM = 44

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
GOLDEN64 = 0x9E3779B97F4A7C15
BLOCK_MULT = 0x9E3779B9

LAYOUT_NAMES = {LAYOUT_CLASSIC: "classic", LAYOUT_BLOCKED: "blocked"}
_LAYOUT_CODES = {"classic": LAYOUT_CLASSIC, "blocked": LAYOUT_BLOCKED}

# header: magic, version, layout, hashes, seed, nbits, added, family, flags,
# type tag, reserved, checksum
_HDR = struct.Struct("<4sHBBQQQHHIIQ")
assert _HDR.size == HEADER_SIZE

_xxh3 = xxhash.xxh3_64_intdigest
_PACK_Q = struct.Struct("<q").pack
# add_all hashes this many keys before setting their bits
_CHUNK = 1 << 16


# _BLOCK_MULTS[k]: 0x9e3779b9^i mod 2^32 for i < k.  The blocked layout's
# i-th bit of a key is ((x * _BLOCK_MULTS[k][i]) mod 2^32) >> 23.
_BLOCK_MULTS = tuple(tuple(pow(BLOCK_MULT, i, 1 << 32) for i in range(k))
                     for k in range(MAX_HASHES + 1))


def mix64(v):
    """splitmix64's finalizer (bf_mix64)."""
    v ^= v >> 30
    v = (v * 0xBF58476D1CE4E5B9) & M64
    v ^= v >> 27
    v = (v * 0x94D049BB133111EB) & M64
    v ^= v >> 31
    return v


def checksum(header, bits):
    """XXH3-64, seed 0, over header bytes 0..43 and the bit array."""
    h = xxhash.xxh3_64()
    h.update(header[:OFF_CHECKSUM])
    h.update(bits)
    return h.intdigest()


# the server's other formats: refused, by name
_OTHER_MAGICS = {b"BLMW": "bloomwindow", b"BLMS": "scalablebloom",
                 b"BFAS": "bloomfilter_aggstate"}


def _version_detail(version):
    """What to do about a format version this client does not read: a newer
    one comes with a later minor release (FORMAT.md: formats change only in
    minor or major releases), so it names the next one."""
    from . import __version__ as client     # the package is loaded by now
    reads = ", ".join(str(v) for v in READ_FORMAT_VERSIONS)
    if version > max(READ_FORMAT_VERSIONS):
        major, minor = (int(x) for x in client.split(".")[:2])
        return ("format version %d needs bloomfilter client %d.%d or later; this client (%s) "
                "reads format version %s" % (version, major, minor + 1, client, reads))
    return ("format version %d was never written; this client (%s) reads format version %s"
            % (version, client, reads))


def _status(message, detail=None, sqlstate=None):
    return InvalidFilterError("invalid bloomfilter: " + message, detail, sqlstate)


def validate(buf, sqlstate=None):
    """Raises InvalidFilterError, with the server's message and detail, if
    buf is not a valid sealed filter ("Validation order")."""
    n = len(buf)
    if n < 6:
        raise _status("the buffer is shorter than a bloomfilter header",
                      "A bloomfilter takes at least 52 bytes; %d bytes were given." % n, sqlstate)
    if bytes(buf[0:4]) != MAGIC:
        if bytes(buf[0:4]) == b"BLMC":
            raise _status("this is a counting Bloom filter (magic \"BLMC\"), not a bloomfilter",
                          None, sqlstate)
        other = _OTHER_MAGICS.get(bytes(buf[0:4]))
        raise _status("the buffer does not start with the bloomfilter magic \"BLMF\"",
                      None if other is None else
                      "The bytes are a %s (magic \"%s\"); this client reads bloomfilter values only."
                      % (other, bytes(buf[0:4]).decode("ascii")), sqlstate)
    version = buf[_OFF_VERSION] | (buf[_OFF_VERSION + 1] << 8)
    if version not in READ_FORMAT_VERSIONS:
        raise _status("the format version is not one this build reads", _version_detail(version), sqlstate)
    if n < HEADER_SIZE:
        raise _status("the buffer is shorter than a bloomfilter header",
                      "A bloomfilter takes at least 52 bytes; %d bytes were given." % n, sqlstate)
    (_, _, layout, hashes, _seed, nbits, added, family, flags, tag, reserved,
     csum) = _HDR.unpack_from(buf, 0)
    if version == _FORMAT_VERSION_2 and layout in (3, 4):
        # format version 2's layouts of other engines (FORMAT.md)
        raise _status("the %s layout is not supported by this client"
                      % ("parquet" if layout == 3 else "spark"),
                      "Probe it in PostgreSQL, or read it with that engine's own library.",
                      sqlstate)
    if layout not in LAYOUT_NAMES:
        raise _status("the layout is unknown",
                      "The layout byte is %d; 1 is classic and 2 is blocked." % layout, sqlstate)
    if not MIN_HASHES <= hashes <= MAX_HASHES:
        raise _status("the number of hashes is out of range",
                      "The header gives %d hashes; a filter uses %d to %d."
                      % (hashes, MIN_HASHES, MAX_HASHES), sqlstate)
    unit = BLOCK_BITS if layout == LAYOUT_BLOCKED else 64
    if nbits == 0 or nbits > MAX_NBITS or nbits % unit:
        raise _status("the number of bits is zero, too large, or not a whole number of words or blocks",
                      "The header gives %d bits for a %s filter; it needs a positive multiple of %d, at most %d."
                      % (nbits, LAYOUT_NAMES[layout], unit, MAX_NBITS), sqlstate)
    if n - HEADER_SIZE != nbits // 8:
        raise _status("the length does not match the number of bits in the header",
                      "The header gives %d bits, which take %d bytes with the header, but %d bytes were given."
                      % (nbits, HEADER_SIZE + nbits // 8, n), sqlstate)
    if family > FAMILY_MAX or (family in TAGGED_FAMILIES) != (tag != 0):
        raise _status("the key family or type tag is invalid",
                      "The header gives key family %d with type tag %d; families go from 0 to %d, "
                      "and families 11, 14, 15 and 16, and only they, have a type tag."
                      % (family, tag, FAMILY_MAX), sqlstate)
    if flags != 0 or reserved != 0:
        raise _status("reserved header fields are not zero", None, sqlstate)
    bits = memoryview(buf)[HEADER_SIZE:]
    if csum != checksum(bytes(buf[:HEADER_SIZE]), bits):
        raise _status("the checksum does not match the contents", None, sqlstate)
    if (family == FAMILY_NONE or added == 0) and any(bits):
        raise _status("bits are set but the header records no added key", None, sqlstate)


def _layout_code(layout):
    code = _LAYOUT_CODES.get(layout) if isinstance(layout, str) else None
    if code is None:
        raise InvalidArgumentError("unknown bloomfilter layout \"%s\"" % (layout,),
                                   "Valid layouts are \"blocked\" and \"classic\".")
    return code


def _seed_bits(seed):
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidArgumentError("the seed must be an integer, not %s" % type(seed).__qualname__)
    if not -(1 << 63) <= seed <= M64:
        raise InvalidArgumentError("the seed %d is out of range: it is a bigint (or its 64 bits unsigned)" % seed)
    return seed & M64


# folding a classic array by one level: bits 2i and 2i+1 go to bit i
def _pair_table(shift):
    t = bytearray(256)
    for b in range(256):
        v = 0
        for i in range(4):
            if b & (3 << (2 * i)):
                v |= 1 << i
        t[b] = v << shift
    return bytes(t)


_B64_SPACE = {ord(c): None for c in " \t\n\r"}
_FOLD_LO = _pair_table(0)
_FOLD_HI = _pair_table(4)


def _or_bytes(a, b):
    n = len(a)
    return (int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(n, "little")


def _and_bytes(a, b):
    n = len(a)
    return (int.from_bytes(a, "little") & int.from_bytes(b, "little")).to_bytes(n, "little")


def _fold(layout, bits, shift):
    """The bit array folded 2^shift times (bf_fold_or)."""
    bits = bytes(bits)
    for _ in range(shift):
        if layout == LAYOUT_BLOCKED:
            nblocks = len(bits) // 64
            even = b"".join(bits[b * 64:(b + 1) * 64] for b in range(0, nblocks, 2))
            odd = b"".join(bits[b * 64:(b + 1) * 64] for b in range(1, nblocks, 2))
            bits = _or_bytes(even, odd)
        else:
            lo = bits[0::2].translate(_FOLD_LO)
            hi = bits[1::2].translate(_FOLD_HI)
            bits = _or_bytes(lo, hi)
    return bits


def _power_of_two_shift(big, small):
    if small == 0 or big < small or big % small:
        return None
    q = big // small
    if q & (q - 1):
        return None
    return q.bit_length() - 1


class BloomFilter:
    """A Bloom filter in the bloomfilter extension's portable format.

    Build one with BloomFilter.empty(capacity, fpr, layout, seed) (sized as
    bloom_empty) or BloomFilter.empty_bits(bits, hashes, layout, seed), read
    one with BloomFilter.from_bytes(b) or BloomFilter.from_text(s).
    """

    __slots__ = ("_layout", "_hashes", "_seed", "_nbits", "_added",
                 "_family", "_tag", "_bits")
    __hash__ = None             # mutable

    def __init__(self, layout, hashes, seed, nbits, added=0, family=0, tag=0, bits=None):
        self._layout = layout
        self._hashes = hashes
        self._seed = seed
        self._nbits = nbits
        self._added = added
        self._family = family
        self._tag = tag
        self._bits = bytearray(nbits // 8) if bits is None else bytearray(bits)

    # ---- making ----

    @classmethod
    def empty(cls, capacity, fpr=0.01, layout="blocked", seed=0):
        """The filter bloom_empty(capacity, fpr, layout, seed) returns: the
        smallest of the layout that keeps the rate at or under fpr after
        capacity distinct keys."""
        code = _layout_code(layout)
        if isinstance(capacity, bool) or not isinstance(capacity, int):
            raise InvalidArgumentError("bloomfilter capacity must be an integer, not %s"
                                       % type(capacity).__qualname__)
        if capacity <= 0:
            raise InvalidArgumentError("bloomfilter capacity must be positive, not %d" % capacity)
        if capacity > (1 << 63) - 1:
            raise InvalidArgumentError("bloomfilter capacity %d is out of range for bigint" % capacity)
        fpr = float(fpr)
        if not 0.0 < fpr < 1.0:
            raise InvalidArgumentError(
                "bloomfilter false-positive rate must be between 0 and 1 (exclusive), not %g" % fpr)
        seed = _seed_bits(seed)
        geom = size_for(code, float(capacity), fpr)
        if geom is None:
            raise InvalidArgumentError(
                "a bloomfilter for %d keys at rate %g would exceed the largest bloomfilter"
                % (capacity, fpr), sqlstate="54000")
        return cls(code, geom[1], seed, geom[0])

    @classmethod
    def empty_bits(cls, bits, hashes, layout="classic", seed=0):
        """The filter bloom_empty_bits(bits, hashes, layout, seed) returns:
        bits rounded up to whole 64-bit words (classic) or 512-bit blocks."""
        code = _layout_code(layout)
        if isinstance(bits, bool) or not isinstance(bits, int) or \
                isinstance(hashes, bool) or not isinstance(hashes, int):
            raise InvalidArgumentError("bits and hashes must be integers")
        if bits <= 0:
            raise InvalidArgumentError("bloomfilter size must be positive, not %d bits" % bits)
        if bits > MAX_NBITS:
            raise InvalidArgumentError(
                "a bloomfilter of %d bits would exceed the largest bloomfilter" % bits,
                "The largest bloomfilter has %d bits, so that its text form fits in 1 GB." % MAX_NBITS,
                sqlstate="54000")
        if not MIN_HASHES <= hashes <= MAX_HASHES:
            raise InvalidArgumentError("bloomfilter hashes must be between %d and %d, not %d"
                                       % (MIN_HASHES, MAX_HASHES, hashes))
        seed = _seed_bits(seed)
        unit = BLOCK_BITS if code == LAYOUT_BLOCKED else 64
        return cls(code, hashes, seed, (bits + unit - 1) // unit * unit)

    @classmethod
    def from_bytes(cls, data):
        """A filter from its portable bytes (what f::bytea and binary send
        give), validated: InvalidFilterError says what is wrong."""
        if isinstance(data, memoryview):
            data = data.tobytes()
        elif not isinstance(data, (bytes, bytearray)):
            raise TypeError("from_bytes takes bytes, not %s" % type(data).__qualname__)
        validate(data)
        return cls._from_valid(data)

    @classmethod
    def _from_valid(cls, data):
        (_, _, layout, hashes, seed, nbits, added, family, _, tag, _, _) = \
            _HDR.unpack_from(data, 0)
        return cls(layout, hashes, seed, nbits, added, family, tag, data[HEADER_SIZE:])

    @classmethod
    def from_text(cls, text):
        """A filter from its text form (padded base64 of its bytes, as the
        server prints it; white space is skipped as the server does)."""
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("ascii", "replace")
        if not isinstance(text, str):
            raise TypeError("from_text takes a str, not %s" % type(text).__qualname__)
        s = text.translate(_B64_SPACE)
        bad = InvalidFilterError("invalid input syntax for type bloomfilter",
                                 "A bloomfilter's text form is padded base64 of its portable bytes.",
                                 "22P02")
        try:
            raw = base64.b64decode(s.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise bad from None
        # only the canonical form (no stray bits after the last byte)
        if base64.b64encode(raw).decode("ascii") != s:
            raise bad
        validate(raw, "22P02")
        return cls._from_valid(raw)

    def copy(self):
        return BloomFilter(self._layout, self._hashes, self._seed, self._nbits,
                           self._added, self._family, self._tag, self._bits)

    # ---- the forms ----

    def _header(self, csum=0):
        return _HDR.pack(MAGIC, FORMAT_VERSION, self._layout, self._hashes, self._seed,
                         self._nbits, self._added, self._family, 0, self._tag, 0, csum)

    def __bytes__(self):
        """The portable bytes, checksum filled in (what f::bytea gives)."""
        hdr = self._header()
        return self._header(checksum(hdr, self._bits)) + bytes(self._bits)

    to_bytes = __bytes__

    def __str__(self):
        """The server's text form: padded base64 of the portable bytes."""
        return base64.b64encode(bytes(self)).decode("ascii")

    to_text = __str__

    def __repr__(self):
        return "<BloomFilter %s, %d bits, %d hashes, seed %d, family %s, %d added>" % (
            LAYOUT_NAMES[self._layout], self._nbits, self._hashes, self.seed,
            family_display(self._family, self._tag), self._added)

    def __eq__(self, other):
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self._header() == other._header() and self._bits == other._bits

    # ---- the header ----

    @property
    def layout(self):
        return LAYOUT_NAMES[self._layout]

    @property
    def nbits(self):
        return self._nbits

    @property
    def hashes(self):
        return self._hashes

    @property
    def seed(self):
        """The seed as SQL shows it (a signed bigint)."""
        return self._seed - (1 << 64) if self._seed >> 63 else self._seed

    @property
    def added(self):
        return self._added

    @property
    def family(self):
        """The key family's name ("none" before the first key)."""
        return family_display(self._family, self._tag)

    # ---- keys ----

    def _hash(self, key):
        return _keys.key_bytes(key)

    def _check_family(self, family, what, held=None):
        if held is None:
            held = self._family
        if held != family and held != FAMILY_NONE:
            key_family = family_display(family)
            raise FamilyMismatchError(
                "the filter holds keys of family \"%s\", not \"%s\""
                % (family_display(held, self._tag), key_family),
                "Values of Python type %s hash as family \"%s\"; a filter answers only for keys "
                "of the family it was built from." % (what, key_family))

    def _set_many(self, hashes):
        """Sets the bits of every hash (the positions of "Hashing and
        positions"; the blocked ones as x * 0x9e3779b9^i, the same values
        as the recurrence, without its dependency)."""
        bits = self._bits
        k = self._hashes
        if self._layout == LAYOUT_BLOCKED:
            nblocks = self._nbits >> 9
            mults = _BLOCK_MULTS[k]
            for h in hashes:
                base = (((h >> 32) * nblocks) >> 32) << 6
                x = h & M32
                for p in mults:
                    b = ((x * p) & M32) >> 23
                    bits[base + (b >> 3)] |= 1 << (b & 7)
        else:
            m = self._nbits
            for h in hashes:
                x = h
                y = mix64(h)
                z = mix64(h ^ GOLDEN64)
                for _ in range(k):
                    p = (x * m) >> 64
                    bits[p >> 3] |= 1 << (p & 7)
                    x = (x + y) & M64
                    y = (y + z) & M64

    def _test(self, h):
        bits = self._bits
        if self._layout == LAYOUT_BLOCKED:
            base = (((h >> 32) * (self._nbits >> 9)) >> 32) << 6
            x = h & M32
            for p in _BLOCK_MULTS[self._hashes]:
                b = ((x * p) & M32) >> 23
                if not bits[base + (b >> 3)] & (1 << (b & 7)):
                    return False
            return True
        m = self._nbits
        x = h
        y = mix64(h)
        z = mix64(h ^ GOLDEN64)
        for _ in range(self._hashes):
            p = (x * m) >> 64
            if not bits[p >> 3] & (1 << (p & 7)):
                return False
            x = (x + y) & M64
            y = (y + z) & M64
        return True

    def add_key_bytes(self, family, data):
        """Adds a key given as its family code and key bytes (FORMAT.md)."""
        if not 1 <= family <= FAMILY_MAX or family in TAGGED_FAMILIES:
            raise InvalidArgumentError("family %r cannot be given without a type tag" % (family,))
        self._check_family(family, "bytes")
        self._set_many((_xxh3(bytes(data), self._seed),))
        self._family = family
        self._added = min(self._added + 1, M64)

    def contains_key_bytes(self, family, data):
        self._check_family(family, "bytes")
        if self._family == FAMILY_NONE:
            return False
        return self._test(_xxh3(bytes(data), self._seed))

    def add(self, key):
        """Adds a key (None is skipped, as bloom_add skips NULL).  Returns
        the filter, so adds chain."""
        if key is None:
            return self
        family, data = _keys.key_bytes(key)
        self._check_family(family, type(key).__qualname__)
        self._set_many((_xxh3(data, self._seed),))
        self._family = family
        self._added = min(self._added + 1, M64)
        return self

    def add_all(self, keys):
        """Adds every key of an iterable (None skipped, as bloom_add_all
        skips NULL elements).  Returns the filter.  All or nothing: if a
        key is refused, the filter is left as it was."""
        key_bytes = _keys.key_bytes
        seed = self._seed
        pack = _PACK_Q
        fam = self._family
        before = None
        n = 0
        hashes = []
        append = hashes.append
        try:
            for key in keys:
                if type(key) is int:
                    try:
                        data = pack(key)
                    except struct.error:
                        _keys.encode_int(key)       # raises its OverflowError
                        raise
                    family = 1
                elif key is None:
                    continue
                else:
                    family, data = key_bytes(key)
                if family != fam:
                    self._check_family(family, type(key).__qualname__, fam)
                    fam = family
                append(_xxh3(data, seed))
                if len(hashes) == _CHUNK:
                    if before is None:
                        before = (bytes(self._bits), self._family)
                    self._set_many(hashes)
                    n += len(hashes)
                    hashes.clear()
        except BaseException:
            if before is not None:
                self._bits[:] = before[0]
            raise
        self._set_many(hashes)
        n += len(hashes)
        if n:
            self._family = fam
        self._added = min(self._added + n, M64)
        return self

    def contains(self, key):
        """May the key be in the set?  True: maybe; False: certainly not."""
        if type(key) is int and self._family == 1:
            # the common case, without the general dispatch
            try:
                data = _PACK_Q(key)
            except struct.error:
                _keys.encode_int(key)       # raises its OverflowError
                raise
            return self._test(_xxh3(data, self._seed))
        family, data = _keys.key_bytes(key)
        self._check_family(family, type(key).__qualname__)
        if self._family == FAMILY_NONE:
            return False
        return self._test(_xxh3(data, self._seed))

    __contains__ = contains

    # ---- combining ----

    def _common(self, other, what):
        if not isinstance(other, BloomFilter):
            raise TypeError("cannot %s a BloomFilter with %s" % (what, type(other).__qualname__))
        a, b = self, other
        problem = None
        if a._layout != b._layout:
            problem = "the filters have different layouts"
        elif a._hashes != b._hashes:
            problem = "the filters use different numbers of hashes"
        elif a._seed != b._seed:
            problem = "the filters use different seeds"
        elif a._family != FAMILY_NONE and b._family != FAMILY_NONE and \
                (a._family != b._family or a._tag != b._tag):
            problem = "the filters hold keys of different families"
        else:
            big, small = max(a._nbits, b._nbits), min(a._nbits, b._nbits)
            shift = _power_of_two_shift(big, small)
            if shift is None or (a._layout == LAYOUT_BLOCKED and small % BLOCK_BITS):
                problem = ("the filters' sizes are neither equal nor a power-of-two multiple "
                           "of one another, so they cannot be folded to one size")
        if problem is not None:
            cls = FamilyMismatchError if "families" in problem else IncompatibleFiltersError
            raise cls("cannot %s bloomfilters: %s" % (what, problem),
                      "The first is %s with %d bits, %d hashes, seed %d and key family \"%s\"; "
                      "the second is %s with %d bits, %d hashes, seed %d and key family \"%s\"."
                      % (a.layout, a._nbits, a._hashes, a.seed, a.family,
                         b.layout, b._nbits, b._hashes, b.seed, b.family))
        abits = a._bits if a._nbits == small else _fold(a._layout, a._bits, _power_of_two_shift(a._nbits, small))
        bbits = b._bits if b._nbits == small else _fold(b._layout, b._bits, _power_of_two_shift(b._nbits, small))
        src = a if a._family != FAMILY_NONE else b
        return small, abits, bbits, src._family, src._tag

    def union(self, other):
        """The union (bloom_union, f | g): folded to the smaller size when
        the sizes differ by a power of two."""
        nbits, x, y, family, tag = self._common(other, "union")
        r = BloomFilter(self._layout, self._hashes, self._seed, nbits,
                        min(self._added + other._added, M64), family, tag, _or_bytes(x, y))
        fpr = r.fpr()
        if fpr > 0.05:
            # the server's WARNING (bloom_warn_union_rate), as a Python warning
            inputs = max(self.fpr(), other.fpr())
            if fpr > 10 * inputs:
                if self._nbits != other._nbits:
                    msg = ("bloomfilter union folded a filter of %d bits to %d bits; its "
                           "false-positive rate is now %.3g"
                           % (max(self._nbits, other._nbits), nbits, fpr))
                else:
                    msg = ("bloomfilter union of filters of %d bits has a false-positive rate "
                           "of %.3g; the filters united had at most %.3g" % (nbits, fpr, inputs))
                warnings.warn(msg, stacklevel=2)
        return r

    def intersection(self, other):
        """The intersection (bloom_intersect, f & g): every key of both
        probes true; added is the smaller count."""
        nbits, x, y, family, tag = self._common(other, "intersect")
        return BloomFilter(self._layout, self._hashes, self._seed, nbits,
                           min(self._added, other._added), family, tag, _and_bytes(x, y))

    def issuperset(self, other):
        """Is every bit of other set in this filter (f @>> g)?"""
        nbits, x, y, _, _ = self._common(other, "compare")
        xi = int.from_bytes(x, "little")
        return (int.from_bytes(y, "little") & ~xi) == 0

    __or__ = union
    __and__ = intersection

    # ---- estimates (bf_estimate.c) ----

    def _block_hist(self):
        hist = [0] * (BLOCK_BITS + 1)
        bits = bytes(self._bits)
        for b in range(0, len(bits), 64):
            hist[int.from_bytes(bits[b:b + 64], "little").bit_count()] += 1
        return hist

    def bits_set(self):
        return int.from_bytes(self._bits, "little").bit_count()

    @staticmethod
    def _swamidass_baldi(x, m, k):
        if x >= m:
            x = m - 0.5
        return -(m / k) * math.log1p(-x / m)

    def cardinality(self):
        """Estimated distinct keys (bloom_cardinality)."""
        k = self._hashes
        if self._layout == LAYOUT_BLOCKED:
            n = 0.0
            for x, c in enumerate(self._block_hist()):
                if x and c:
                    n += float(c) * self._swamidass_baldi(float(x), float(BLOCK_BITS), k)
            return n
        return self._swamidass_baldi(float(self.bits_set()), float(self._nbits), k)

    def fpr(self):
        """The rate at which a key not in the set probes true, given the
        bits set now (bloom_fpr)."""
        k = self._hashes
        if self._layout == LAYOUT_BLOCKED:
            s = 0.0
            for x, c in enumerate(self._block_hist()):
                if x and c:
                    s += float(c) * math.pow(float(x) / BLOCK_BITS, k)
            return s / float(self._nbits // BLOCK_BITS)
        return math.pow(float(self.bits_set()) / float(self._nbits), k)

    def info(self):
        """bloom_info(f)'s fields, as a dict."""
        bits_set = self.bits_set()
        return {
            "layout": self.layout,
            "bits": self._nbits,
            "hashes": self._hashes,
            "bytes": HEADER_SIZE + self._nbits // 8,
            "seed": self.seed,
            "key_family": self.family,
            "added": min(self._added, (1 << 63) - 1),
            "bits_set": bits_set,
            "fill_ratio": float(bits_set) / float(self._nbits),
            "est_cardinality": self.cardinality(),
            "est_fpr": self.fpr(),
            "format_version": FORMAT_VERSION,
        }
