--
-- Errors: every way bytes enter (the bytea cast, text input, binary recv)
-- validates them before use, and every bad argument is refused; each error
-- has a SQLSTATE and a message that says what is wrong.  Never a crash,
-- never a filter that answers wrongly.
--

\set VERBOSITY default
\set SHOW_CONTEXT never

-- err_try(q): runs q and, if it fails, re-raises the error with its SQLSTATE
-- put in front of the message (DETAIL and HINT kept as they were), so the
-- expected output pins both the code and the text.  A statement that
-- unexpectedly succeeds prints NOTICE "no error".
CREATE FUNCTION err_try(q text) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
  st text;
  msg text;
  det text;
  hnt text;
BEGIN
  BEGIN
    EXECUTE q;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
  END;
  IF st IS NULL THEN
    RAISE NOTICE 'no error';
    RETURN;
  END IF;
  msg := st || ': ' || msg;
  IF det <> '' AND hnt <> '' THEN
    RAISE EXCEPTION USING ERRCODE = st, MESSAGE = msg, DETAIL = det, HINT = hnt;
  ELSIF det <> '' THEN
    RAISE EXCEPTION USING ERRCODE = st, MESSAGE = msg, DETAIL = det;
  ELSIF hnt <> '' THEN
    RAISE EXCEPTION USING ERRCODE = st, MESSAGE = msg, HINT = hnt;
  ELSE
    RAISE EXCEPTION USING ERRCODE = st, MESSAGE = msg;
  END IF;
END
$f$;

-- err_catch(q): the same, as a value ("SQLSTATE: message", or "no error"), for
-- checking many inputs in one query.
CREATE FUNCTION err_catch(q text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;

-- The text form of a bytea as bloomfilter_in wants it: padded base64 on one
-- line (PostgreSQL's encode() breaks lines every 76 characters).
CREATE FUNCTION err_b64(b bytea) RETURNS text LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT translate(encode(b, 'base64'), E'\n', '') $$;

-- ---------------------------------------------------------------------
-- Bad portable bytes
-- ---------------------------------------------------------------------

-- Two valid filters to start from: a classic one of 64 bits (60 bytes)
-- and a blocked one of 512 bits (116 bytes), each holding one integer.
-- Every bad input below is one of them with one thing changed.  The
-- validator checks, in order: length >= 6, magic, version, length >= 52,
-- layout, hashes, bits, length = 52 + bits/8, family and type tag, flags
-- and reserved, checksum, and "bits set implies a key was added".  Every
-- check but the last two comes before the checksum, so a changed header
-- field is reported as itself even though the checksum is then stale too.
CREATE TABLE err_good (name text PRIMARY KEY, b bytea NOT NULL);
INSERT INTO err_good VALUES
  ('classic', (bloom_empty_bits(64, 3, 'classic') + 1)::bytea),
  ('blocked', (bloom_empty_bits(512, 3, 'blocked') + 1)::bytea);
CREATE FUNCTION err_g(name text) RETURNS bytea LANGUAGE sql STABLE
AS $$ SELECT b FROM err_good WHERE err_good.name = err_g.name $$;

-- the starting points are valid, through every path
SELECT name, octet_length(b) AS bytes,
       b::bloomfilter = b::bloomfilter::bytea::bloomfilter AS bytea_ok,
       err_b64(b)::bloomfilter::bytea = b AS text_ok,
       bloom_contains(b::bloomfilter, 1) AS has_1
FROM err_good ORDER BY name;

-- The bad inputs, one per row.  Offsets: magic 0, version 4 (uint16),
-- layout 6, hashes 7, seed 8, bits 16 (uint64), added 24, family 32
-- (uint16), flags 34 (uint16), type tag 36 (uint32), reserved 40 (uint32),
-- checksum 44 (uint64), bit array 52; all little-endian.  overlay() counts
-- from 1, get_bit/set_bit count bits from 0.
CREATE TABLE err_cases (id int PRIMARY KEY, what text UNIQUE NOT NULL, b bytea NOT NULL);
INSERT INTO err_cases VALUES
  -- not a filter at all
  (1, 'wrong magic', overlay(err_g('classic') PLACING 'XLMF'::bytea FROM 1)),
  (2, 'base64 text sent as bytes', convert_to(err_b64(err_g('classic')), 'UTF8')),
  -- a format version this build does not read
  (3, 'version 3', overlay(err_g('classic') PLACING '\x0300'::bytea FROM 5)),
  (4, 'version 0', overlay(err_g('classic') PLACING '\x0000'::bytea FROM 5)),
  (5, 'version 256 (big-endian 1)', overlay(err_g('classic') PLACING '\x0001'::bytea FROM 5)),
  -- version 3 with its checksum recomputed (offline, XXH3-64 seed 0): the
  -- version check fires, not the checksum check
  (6, 'version 3, valid checksum', '\x424c4d46030001030000000000000000400000000000000000000000000000000000000000000000000000000e6a0d9bc0dd1de20000000000000000'),
  -- truncated
  (7, '0 bytes', ''),
  (8, '3 bytes', substring(err_g('classic') FROM 1 FOR 3)),
  (9, '5 bytes (magic and half a version)', substring(err_g('classic') FROM 1 FOR 5)),
  (10, '51 bytes (one short of a header)', substring(err_g('classic') FROM 1 FOR 51)),
  (11, '52 bytes (header, no bit array)', substring(err_g('classic') FROM 1 FOR 52)),
  (12, 'one byte short of the bit array', substring(err_g('classic') FROM 1 FOR 59)),
  (13, 'blocked, one byte short', substring(err_g('blocked') FROM 1 FOR 115)),
  -- extended
  (14, 'one extra byte', err_g('classic') || '\x00'::bytea),
  (15, 'blocked, 64 bytes too many', err_g('blocked') || substring(err_g('blocked') FROM 53)),
  -- geometry
  (16, 'layout 0', overlay(err_g('classic') PLACING '\x00'::bytea FROM 7)),
  (17, 'layout 3', overlay(err_g('classic') PLACING '\x03'::bytea FROM 7)),
  (18, 'layout 255', overlay(err_g('classic') PLACING '\xff'::bytea FROM 7)),
  (19, 'hashes 0', overlay(err_g('classic') PLACING '\x00'::bytea FROM 8)),
  (20, 'hashes 33', overlay(err_g('classic') PLACING '\x21'::bytea FROM 8)),
  (21, 'hashes 255', overlay(err_g('blocked') PLACING '\xff'::bytea FROM 8)),
  (22, 'bits 0', overlay(err_g('classic') PLACING '\x0000000000000000'::bytea FROM 17)),
  (23, 'bits 100 (not a multiple of 64)', overlay(err_g('classic') PLACING '\x6400000000000000'::bytea FROM 17)),
  (24, 'blocked, bits 64 (not a whole block)', overlay(err_g('blocked') PLACING '\x4000000000000000'::bytea FROM 17)),
  (25, 'bits 2^33 (past the 1 GB limit)', overlay(err_g('classic') PLACING '\x0000000002000000'::bytea FROM 17)),
  (26, 'bits 2^64-1', overlay(err_g('classic') PLACING '\xffffffffffffffff'::bytea FROM 17)),
  (27, 'bits 128 with 64 bits of array', overlay(err_g('classic') PLACING '\x8000000000000000'::bytea FROM 17)),
  -- key family and type tag
  (28, 'family 17', overlay(err_g('classic') PLACING '\x1100'::bytea FROM 33)),
  (29, 'family 65535', overlay(err_g('classic') PLACING '\xffff'::bytea FROM 33)),
  (30, 'family other without a type tag', overlay(err_g('classic') PLACING '\x0b00'::bytea FROM 33)),
  (31, 'family integer with a type tag', overlay(err_g('classic') PLACING '\x17000000'::bytea FROM 37)),
  -- reserved fields
  (32, 'flags 1', overlay(err_g('classic') PLACING '\x0100'::bytea FROM 35)),
  (33, 'flags 0x8000', overlay(err_g('classic') PLACING '\x0080'::bytea FROM 35)),
  (34, 'reserved 1', overlay(err_g('classic') PLACING '\x01000000'::bytea FROM 41)),
  (35, 'reserved 0x80000000', overlay(err_g('classic') PLACING '\x00000080'::bytea FROM 41)),
  -- bytes altered in transit: only the checksum can tell
  (36, 'a bit of the array flipped', set_bit(err_g('classic'), 52 * 8, 1 - get_bit(err_g('classic'), 52 * 8))),
  (37, 'last bit of a blocked array flipped', set_bit(err_g('blocked'), 116 * 8 - 1, 1 - get_bit(err_g('blocked'), 116 * 8 - 1))),
  (38, 'added count changed', overlay(err_g('classic') PLACING '\x02'::bytea FROM 25)),
  (39, 'seed changed', overlay(err_g('classic') PLACING '\x01'::bytea FROM 9)),
  (40, 'hashes changed (still valid)', overlay(err_g('classic') PLACING '\x04'::bytea FROM 8)),
  (41, 'checksum flipped', set_bit(err_g('classic'), 44 * 8, 1 - get_bit(err_g('classic'), 44 * 8))),
  (42, 'checksum zero (the in-memory form)', overlay(err_g('classic') PLACING '\x0000000000000000'::bytea FROM 45)),
  -- valid checksums (computed offline) over inconsistent contents: bits
  -- set but no key recorded
  (43, 'bits set, added 0', '\x424c4d46010001030000000000000000400000000000000000000000000000000100000000000000000000005c96947bcf1c644f0100000000000000'),
  (44, 'bits set, family none', '\x424c4d460100010300000000000000004000000000000000010000000000000000000000000000000000000032c2a3cb05599e630100000000000000');

-- Through the bytea cast: one statement per case, with its full message.
-- SQLSTATE 22P03 (invalid_binary_representation) throughout.
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'wrong magic'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'base64 text sent as bytes'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'version 3'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'version 0'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'version 256 (big-endian 1)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'version 3, valid checksum'$$);
-- format version 2 (layouts parquet and spark) reads a classic or blocked
-- value too, and writes it back as version 1: the same filter
SELECT '\x424c4d460200010300000000000000004000000000000000000000000000000000000000000000000000000088b878c629c4e4ca0000000000000000'::bytea::bloomfilter
       = bloom_empty_bits(64, 3, 'classic', 0) AS v2_classic_read,
       substring('\x424c4d460200010300000000000000004000000000000000000000000000000000000000000000000000000088b878c629c4e4ca0000000000000000'::bytea::bloomfilter::bytea FROM 5 FOR 2) AS written_version;
-- a version-1 value of layout 3 is refused: version 1 has no such layout
SELECT err_try($$SELECT overlay(err_g('classic') PLACING '\x03'::bytea FROM 7)::bloomfilter$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = '0 bytes'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = '3 bytes'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = '5 bytes (magic and half a version)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = '51 bytes (one short of a header)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = '52 bytes (header, no bit array)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'one byte short of the bit array'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'blocked, one byte short'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'one extra byte'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'blocked, 64 bytes too many'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'layout 0'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'layout 3'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'layout 255'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'hashes 0'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'hashes 33'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'hashes 255'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits 0'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits 100 (not a multiple of 64)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'blocked, bits 64 (not a whole block)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits 2^33 (past the 1 GB limit)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits 2^64-1'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits 128 with 64 bits of array'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'family 17'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'family 65535'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'family other without a type tag'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'family integer with a type tag'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'flags 1'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'flags 0x8000'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'reserved 1'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'reserved 0x80000000'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'a bit of the array flipped'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'last bit of a blocked array flipped'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'added count changed'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'seed changed'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'hashes changed (still valid)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'checksum flipped'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'checksum zero (the in-memory form)'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits set, added 0'$$);
SELECT err_try($$SELECT b::bloomfilter FROM err_cases WHERE what = 'bits set, family none'$$);

-- Through text input: the base64 of every bad input is refused with the
-- same message, SQLSTATE 22P02 (invalid_text_representation).
SELECT id, what, err_catch(format('SELECT %L::bloomfilter', err_b64(b))) AS text_input_error
FROM err_cases ORDER BY id;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE err_catch(format('SELECT %L::bloomfilter', err_b64(b)))
                              = replace(err_catch(format('SELECT %L::bytea::bloomfilter', b)), '22P03: ', '22P02: ')) AS same_message
FROM err_cases;

-- ... and through the functions that take a bloomfilter, the error comes
-- from the input (a bad value never reaches them)
SELECT err_try($$SELECT bloom_contains(b::bloomfilter, 1) FROM err_cases WHERE what = 'a bit of the array flipped'$$);
SELECT err_try($$SELECT * FROM bloom_info((SELECT err_b64(b) FROM err_cases WHERE what = 'bits 2^64-1')::bloomfilter)$$);

-- ---------------------------------------------------------------------
-- Bad text
-- ---------------------------------------------------------------------

-- characters outside the base64 alphabet
SELECT err_try($$SELECT 'QkxNRgEA!QMA'::bloomfilter$$);
SELECT err_try($$SELECT 'QkxN-gEA'::bloomfilter$$);
-- base64url is not base64: '_' (and '-') are refused in an otherwise
-- valid text
SELECT err_try($$SELECT overlay(err_b64(err_g('classic')) PLACING '_' FROM 10)::bloomfilter$$);
-- white space inside the value is skipped, as PostgreSQL's own
-- decode(..., 'base64') does, so that the line breaks of
-- encode(..., 'base64') and of the base64 tool are accepted (what the
-- characters spell is still checked)
SELECT encode(err_g('classic'), 'base64') ~ E'\n' AS has_line_breaks,
       encode(err_g('classic'), 'base64')::bloomfilter = err_g('classic')::bloomfilter AS accepted;
SELECT err_try($$SELECT 'QkxN RgEA'::bloomfilter$$);
-- a length that is not a multiple of 4 (missing padding, stray characters)
-- (the blocked filter's 116 bytes end in one '=' of padding)
SELECT right(err_b64(err_g('blocked')), 2) AS blocked_text_ends;
SELECT err_try($$SELECT rtrim(err_b64(err_g('blocked')), '=')::bloomfilter$$);
SELECT err_try($$SELECT 'Q'::bloomfilter$$);
SELECT err_try($$SELECT 'QkxNRgE'::bloomfilter$$);
SELECT err_try($$SELECT (err_b64(err_g('classic')) || 'A')::bloomfilter$$);
-- non-canonical padding: stray bits under the padding, '=' in the middle,
-- too much padding
SELECT err_try($$SELECT 'QR=='::bloomfilter$$);
SELECT err_try($$SELECT 'QUJ='::bloomfilter$$);
SELECT err_try($$SELECT 'QQ==QUJD'::bloomfilter$$);
SELECT err_try($$SELECT 'Q==='::bloomfilter$$);
SELECT err_try($$SELECT '===='::bloomfilter$$);
-- valid base64 that is not a filter
SELECT err_try($$SELECT 'aGVsbG8gd29ybGQ='::bloomfilter$$);
-- empty, or only white space: zero bytes
SELECT err_try($$SELECT ''::bloomfilter$$);
SELECT err_try($$SELECT E' \t\n '::bloomfilter$$);
-- long input: 4 MB of 'A' decode to 3 MB of zero bytes, refused by the
-- magic check without trouble.  (The "input is too long" check, for text
-- longer than the largest filter's text form, about 1.4 GB, cannot be
-- reached from SQL: no text value exceeds 1 GB.)
SELECT err_try($$SELECT repeat('A', 4000000)::bloomfilter$$);
-- text COPY goes through the same input function
CREATE TABLE err_recv (f bloomfilter);
\copy (SELECT 'QkxNRgEA!QMA') TO 'results/bloom_bad.txt'
\set SHOW_CONTEXT errors
\copy err_recv FROM 'results/bloom_bad.txt'
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.txt'
\set VERBOSITY default
\set SHOW_CONTEXT never

-- ---------------------------------------------------------------------
-- Bad binary recv
-- ---------------------------------------------------------------------

-- bloomfilter_recv is reached by COPY FROM (FORMAT binary).  A binary COPY
-- file of a one-column bytea table is byte for byte a file of a
-- one-column bloomfilter table holding the same bytes (bytea's send is its
-- raw bytes), so each bad input is written out with \copy from err_cases
-- and read back into err_recv.  Each is read twice: with the message (the
-- CONTEXT line shows recv ran for column f), then with only the SQLSTATE,
-- 22P03.  A good filter goes in first, as a control.
\copy (SELECT err_g('blocked')) TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
SELECT count(*) AS received, bool_and(f = err_g('blocked')::bloomfilter) AS equal FROM err_recv;
\set SHOW_CONTEXT errors
\copy (SELECT b FROM err_cases WHERE what = 'wrong magic') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'version 3') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = '0 bytes') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = '51 bytes (one short of a header)') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'one byte short of the bit array') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'one extra byte') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'hashes 33') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'family 17') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'a bit of the array flipped') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM err_cases WHERE what = 'bits set, added 0') TO 'results/bloom_bad.bin' (FORMAT binary)
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy err_recv FROM 'results/bloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
\set SHOW_CONTEXT never
-- nothing bad got in
SELECT count(*) AS rows FROM err_recv;
-- (Aggregate deserialization validates its bytes the same way, but its
-- input only ever comes from a parallel worker's serialize function: SQL
-- cannot hand it crafted bytes, so it is not tested here.)

-- ---------------------------------------------------------------------
-- Bad arguments (SQLSTATE 22023 invalid_parameter_value, 54000
-- program_limit_exceeded for sizes past 1 GB)
-- ---------------------------------------------------------------------

-- bloom_empty: capacity must be positive
SELECT err_try($$SELECT bloom_empty(0, 0.01)$$);
SELECT err_try($$SELECT bloom_empty(-1, 0.01)$$);
-- the rate must lie strictly between 0 and 1, and be a number
SELECT err_try($$SELECT bloom_empty(100, 0)$$);
SELECT err_try($$SELECT bloom_empty(100, 1)$$);
SELECT err_try($$SELECT bloom_empty(100, -0.5)$$);
SELECT err_try($$SELECT bloom_empty(100, 1.5)$$);
SELECT err_try($$SELECT bloom_empty(100, 'NaN')$$);
SELECT err_try($$SELECT bloom_empty(100, 'Infinity')$$);
-- the layout must be one of the two (names are exact)
SELECT err_try($$SELECT bloom_empty(100, 0.01, 'bitsliced')$$);
SELECT err_try($$SELECT bloom_empty(100, 0.01, '')$$);
SELECT err_try($$SELECT bloom_empty(100, 0.01, 'Blocked')$$);
-- a filter past the 1 GB value limit
SELECT err_try($$SELECT bloom_empty(10000000000, 0.0001)$$);
SELECT err_try($$SELECT bloom_empty(10000000000, 0.0001, 'classic')$$);
SELECT err_try($$SELECT bloom_empty(9223372036854775807, 0.5)$$);

-- bloom_empty_bits: bits and hashes in range, a known layout
SELECT err_try($$SELECT bloom_empty_bits(0, 3)$$);
SELECT err_try($$SELECT bloom_empty_bits(-64, 3)$$);
SELECT err_try($$SELECT bloom_empty_bits(64, 0)$$);
SELECT err_try($$SELECT bloom_empty_bits(64, 33)$$);
SELECT err_try($$SELECT bloom_empty_bits(64, -1)$$);
SELECT err_try($$SELECT bloom_empty_bits(64, 3, 'cuckoo')$$);
SELECT err_try($$SELECT bloom_empty_bits(8589934081, 3)$$);
SELECT err_try($$SELECT bloom_empty_bits(9223372036854775807, 3, 'blocked')$$);

-- the sizing formulas
SELECT err_try($$SELECT bloom_optimal_bits(0, 0.01)$$);
SELECT err_try($$SELECT bloom_optimal_bits(-1, 0.01)$$);
SELECT err_try($$SELECT bloom_optimal_bits(100, 0)$$);
SELECT err_try($$SELECT bloom_optimal_bits(100, 1)$$);
SELECT err_try($$SELECT bloom_optimal_bits(100, 'NaN')$$);
SELECT err_try($$SELECT bloom_optimal_bits(9223372036854775807, 1e-300)$$);
SELECT err_try($$SELECT bloom_optimal_hashes(0, 100)$$);
SELECT err_try($$SELECT bloom_optimal_hashes(-1, 100)$$);
SELECT err_try($$SELECT bloom_optimal_hashes(1000, 0)$$);
SELECT err_try($$SELECT bloom_optimal_hashes(1000, -5)$$);
SELECT err_try($$SELECT bloom_expected_fpr(0, 3, 100)$$);
SELECT err_try($$SELECT bloom_expected_fpr(1000, 0, 100)$$);
SELECT err_try($$SELECT bloom_expected_fpr(1000, -3, 100)$$);
SELECT err_try($$SELECT bloom_expected_fpr(1000, 3, -1)$$);

-- bloom_agg(x, capacity, fpr): the same rules, checked on the first row
SELECT err_try($$SELECT bloom_agg(i, 0, 0.01) FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, -10, 0.01) FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, 10, 2) FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, 10, 0) FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, 10, 'NaN') FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, NULL, 0.01) FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, 10, NULL) FROM generate_series(1, 10) i$$);
SELECT err_try($$SELECT bloom_agg(i, 10000000000, 0.0001) FROM generate_series(1, 10) i$$);
-- (with no rows there is no first row: the result is NULL, as for other
-- aggregates whose arguments are only read per row)
SELECT bloom_agg(i, 0, 0.01) IS NULL AS null_on_no_rows FROM generate_series(1, 0) i;

-- ---------------------------------------------------------------------
-- Keys of the wrong family: an error naming both families, never false
-- (SQLSTATE 42804 datatype_mismatch)
-- ---------------------------------------------------------------------

CREATE TABLE err_fam (name text PRIMARY KEY, f bloomfilter NOT NULL);
INSERT INTO err_fam VALUES
  ('integer', bloom_empty(100) + 1 + 2),
  ('text', bloom_empty(100) + 'a'::text),
  ('uuid', bloom_empty(100) + 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
  ('float', bloom_empty(100) + 1.5::float8),
  ('numeric', bloom_empty(100) + 1.5::numeric),
  ('inet', bloom_empty(100) + '10.0.0.1'::inet);
CREATE FUNCTION err_ef(name text) RETURNS bloomfilter LANGUAGE sql STABLE
AS $$ SELECT f FROM err_fam WHERE err_fam.name = err_ef.name $$;

-- an integer filter probed with text, a text filter with a uuid, a float
-- filter with numeric, and the reverse ways
SELECT err_try($$SELECT bloom_contains(err_ef('integer'), 'abc'::text)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('text'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('float'), 1.5::numeric)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('numeric'), 1.5::float8)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('text'), 1)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('uuid'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::text)$$);
-- a built-in "other" type is named: inet is not text, nor macaddr (cidr is
-- inet: it compares as inet, so it is no error)
SELECT err_try($$SELECT bloom_contains(err_ef('inet'), '10.0.0.1'::cidr)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('inet'), '08:00:2b:01:02:03'::macaddr)$$);
SELECT err_try($$SELECT bloom_contains(err_ef('integer'), '10.0.0.1'::inet)$$);
-- through the operators
SELECT err_try($$SELECT err_ef('integer') @> 'abc'$$);
SELECT err_try($$SELECT 'abc'::text <@ err_ef('integer')$$);
SELECT err_try($$SELECT 1.5::numeric <@ err_ef('float')$$);
-- adding a key of another family is refused too (bloom_add, +, bloom_add_all)
SELECT err_try($$SELECT bloom_add(err_ef('integer'), 'abc'::text)$$);
SELECT err_try($$SELECT err_ef('text') + 42$$);
SELECT err_try($$SELECT bloom_add_all(err_ef('float'), ARRAY[1.5, 2.5]::numeric[])$$);
-- while the same family's other types are fine: int2/int4/int8, float4/float8
SELECT bloom_contains(err_ef('integer'), 2::int8) AS int8_probe, bloom_contains(err_ef('integer'), 2::int2) AS int2_probe,
       bloom_contains(err_ef('float'), 1.5::float4) AS float4_probe;

-- ---------------------------------------------------------------------
-- Filters that cannot be combined (22023; 42804 for the key family)
-- ---------------------------------------------------------------------

-- different layout, hashes, seed, key family; sizes 3x apart (not a power
-- of two), for union, intersection and the superset test
SELECT err_try($$SELECT bloom_union(bloom_empty_bits(512, 3, 'classic'), bloom_empty_bits(512, 3, 'blocked'))$$);
SELECT err_try($$SELECT bloom_intersect(bloom_empty_bits(512, 3, 'classic'), bloom_empty_bits(512, 3, 'blocked'))$$);
SELECT err_try($$SELECT bloom_contains_filter(bloom_empty_bits(512, 3, 'classic'), bloom_empty_bits(512, 3, 'blocked'))$$);
SELECT err_try($$SELECT bloom_union(bloom_empty_bits(512, 3), bloom_empty_bits(512, 4))$$);
SELECT err_try($$SELECT bloom_intersect(bloom_empty_bits(512, 3), bloom_empty_bits(512, 4))$$);
SELECT err_try($$SELECT bloom_contains_filter(bloom_empty_bits(512, 3), bloom_empty_bits(512, 4))$$);
SELECT err_try($$SELECT bloom_union(bloom_empty_bits(512, 3, 'classic', 0), bloom_empty_bits(512, 3, 'classic', 1))$$);
SELECT err_try($$SELECT bloom_intersect(bloom_empty_bits(512, 3, 'classic', 0), bloom_empty_bits(512, 3, 'classic', -1))$$);
SELECT err_try($$SELECT bloom_contains_filter(bloom_empty_bits(512, 3, 'classic', 0), bloom_empty_bits(512, 3, 'classic', 1))$$);
SELECT err_try($$SELECT bloom_union(bloom_empty_bits(512, 3) + 1, bloom_empty_bits(512, 3) + 'a'::text)$$);
SELECT err_try($$SELECT bloom_intersect(bloom_empty_bits(512, 3) + 1, bloom_empty_bits(512, 3) + 1.5::float8)$$);
SELECT err_try($$SELECT bloom_contains_filter(bloom_empty_bits(512, 3) + '10.0.0.1'::inet, bloom_empty_bits(512, 3) + '08:00:2b:01:02:03'::macaddr)$$);
SELECT err_try($$SELECT bloom_union(bloom_empty_bits(512, 3), bloom_empty_bits(1536, 3))$$);
SELECT err_try($$SELECT bloom_intersect(bloom_empty_bits(1536, 3, 'blocked'), bloom_empty_bits(512, 3, 'blocked'))$$);
SELECT err_try($$SELECT bloom_contains_filter(bloom_empty_bits(640, 3), bloom_empty_bits(64, 3))$$);
-- the operators and the estimates say the same
SELECT err_try($$SELECT bloom_empty_bits(512, 3) | bloom_empty_bits(512, 4)$$);
SELECT err_try($$SELECT bloom_empty_bits(512, 3) & bloom_empty_bits(1536, 3)$$);
SELECT err_try($$SELECT bloom_jaccard(bloom_empty_bits(512, 3, 'classic'), bloom_empty_bits(512, 3, 'blocked'))$$);
SELECT err_try($$SELECT bloom_union_cardinality(bloom_empty_bits(512, 3) + 1, bloom_empty_bits(512, 3) + 'a'::text)$$);
SELECT err_try($$SELECT bloom_intersection_cardinality(bloom_empty_bits(512, 3, 'classic', 5), bloom_empty_bits(512, 3))$$);
-- and so do the aggregates over filters
SELECT err_try($$SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty_bits(512, 3)), (bloom_empty_bits(512, 4))) v(f)$$);
SELECT err_try($$SELECT bloom_intersect_agg(f) FROM (VALUES (bloom_empty_bits(512, 3)), (bloom_empty_bits(1536, 3))) v(f)$$);
SELECT err_try($$SELECT bloom_union_agg(f) FROM err_fam WHERE name IN ('integer', 'text')$$);
-- while an empty filter (no family yet) combines with any family, and
-- sizes a power of two apart fold
SELECT (bloom_info(bloom_union(bloom_empty_bits(512, 3), bloom_empty_bits(512, 3) + 'a'::text))).key_family AS empty_union_text,
       (bloom_info(bloom_union(bloom_empty_bits(512, 3) + 1, bloom_empty_bits(2048, 3) + 2))).bits AS folded_bits;

DROP TABLE err_recv, err_cases, err_good, err_fam;
DROP FUNCTION err_try(text), err_catch(text), err_b64(bytea), err_g(text), err_ef(text);
