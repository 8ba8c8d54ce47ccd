--
-- I/O: every way a filter leaves the server and comes back (text output and
-- input, the bytea casts, binary send/recv, COPY in text and binary format)
-- carries the same filter: equal bytes, the same answers, the same key family.
--

-- A fixture of filters: both layouts, empty and filled, 1 to 32 hashes,
-- non-zero seeds, and keys of most families (integer, text, uuid, float,
-- numeric, bytea, date, timestamptz, boolean, and "other": a built-in type
-- tagged by OID and a user type tagged by name).
CREATE TYPE io_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE io_filters (id int PRIMARY KEY, what text NOT NULL, f bloomfilter NOT NULL);
INSERT INTO io_filters
SELECT 1, 'classic empty', bloom_empty(1000, 0.01, 'classic')
UNION ALL SELECT 2, 'blocked empty', bloom_empty(1000, 0.01, 'blocked')
UNION ALL SELECT 3, 'classic integer', bloom_add_all(bloom_empty(1000, 0.01, 'classic'), array_agg(i)) FROM generate_series(1, 500) i
UNION ALL SELECT 4, 'blocked integer', bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), array_agg(i::int8)) FROM generate_series(1, 500) i
UNION ALL SELECT 5, 'classic text', bloom_add_all(bloom_empty(1000, 0.01, 'classic'), array_agg('key ' || i)) FROM generate_series(1, 500) i
UNION ALL SELECT 6, 'blocked text', bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), array_agg('key ' || i)) FROM generate_series(1, 500) i
UNION ALL SELECT 7, 'blocked uuid', bloom_add_all(bloom_empty(1000), array_agg(md5(i::text)::uuid)) FROM generate_series(1, 500) i
UNION ALL SELECT 8, 'classic float', bloom_add_all(bloom_empty(1000, 0.01, 'classic'), array_agg(i / 7.0::float8)) FROM generate_series(1, 500) i
UNION ALL SELECT 9, 'blocked numeric', bloom_add_all(bloom_empty(1000), array_agg(i::numeric / 8)) FROM generate_series(1, 500) i
UNION ALL SELECT 10, 'classic bytea', bloom_add_all(bloom_empty(1000, 0.01, 'classic'), array_agg(decode(md5(i::text), 'hex'))) FROM generate_series(1, 500) i
UNION ALL SELECT 11, 'blocked date', bloom_add_all(bloom_empty(1000), array_agg(date '2000-01-01' + i)) FROM generate_series(1, 500) i
UNION ALL SELECT 12, 'classic timestamptz', bloom_add_all(bloom_empty(1000, 0.01, 'classic'), array_agg(timestamptz '2020-01-01 00:00:00+00' + i * interval '1 hour')) FROM generate_series(1, 500) i
UNION ALL SELECT 13, 'blocked boolean', bloom_empty(10) + true
UNION ALL SELECT 14, 'classic inet', bloom_add_all(bloom_empty(1000, 0.01, 'classic'), array_agg(('10.0.' || i / 256 || '.' || i % 256)::inet)) FROM generate_series(1, 500) i
UNION ALL SELECT 15, 'blocked enum', bloom_empty(10) + 'ok'::io_mood
UNION ALL SELECT 16, 'blocked seed -1', bloom_add_all(bloom_empty(1000, 0.01, 'blocked', -1), array_agg(i)) FROM generate_series(1, 500) i
UNION ALL SELECT 17, 'classic seed max', bloom_add_all(bloom_empty(1000, 0.01, 'classic', 9223372036854775807), array_agg(i)) FROM generate_series(1, 500) i
UNION ALL SELECT 18, 'classic 1 hash', bloom_empty_bits(64, 1) + 42
UNION ALL SELECT 19, 'blocked 32 hashes', bloom_empty_bits(1024, 32, 'blocked') + 'x'::text
UNION ALL SELECT 20, 'classic integer 10k', bloom_add_all(bloom_empty(10000, 0.01, 'classic'), array_agg(i)) FROM generate_series(1, 10000) i
UNION ALL SELECT 21, 'blocked text 10k', bloom_agg('k' || i, 10000, 0.01) FROM generate_series(1, 10000) i
UNION ALL SELECT 22, 'classic large empty', bloom_empty(1000000, 0.001, 'classic')
UNION ALL SELECT 23, 'blocked large filled', bloom_agg(i, 100000, 0.001) FROM generate_series(1, 100000) i;

-- what the fixture holds (integer columns only: stable everywhere)
-- (the user type's tag is a hash of its name, masked here: this test is
-- about round trips, not about the tag's value)
CREATE FUNCTION io_mask(t text) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT regexp_replace(t, 'type tag [0-9a-f]{8}', 'type tag ########', 'g') $$;
SELECT id, what, i.layout, i.bits, i.hashes, i.bytes, i.seed, io_mask(i.key_family) AS key_family, i.added
FROM io_filters, bloom_info(f) i ORDER BY id;

-- Text output then input, and the bytea cast both ways, give an equal
-- filter (= compares every header field and every bit); so does the bytes
-- of binary send read back through the bytea cast.  Text output then input
-- then output is the same text (the text form is canonical).
SELECT id, what,
       f::text::bloomfilter = f AS text_rt,
       f::bytea::bloomfilter = f AS bytea_rt,
       bloomfilter_send(f)::bloomfilter = f AS send_rt,
       f::text::bloomfilter::text = f::text AS text_stable,
       f::bytea::bloomfilter::bytea = f::bytea AS bytea_stable
FROM io_filters ORDER BY id;

-- The text form is padded base64 of exactly the bytes the bytea cast gives
-- (PostgreSQL's own base64 codec agrees, once its line breaks are removed),
-- 4 * ceil(bytes / 3) characters long: at most 1.5 times the binary size.
SELECT id,
       f::text ~ '^[A-Za-z0-9+/]*={0,2}$' AS base64_alphabet,
       f::text = translate(encode(f::bytea, 'base64'), E'\n', '') AS pg_encode_agrees,
       decode(f::text, 'base64') = f::bytea AS pg_decode_agrees,
       length(f::text) = 4 * ceil(octet_length(f::bytea) / 3.0) AS text_len_exact,
       length(f::text) <= 1.5 * octet_length(f::bytea) AS at_most_1_5x,
       octet_length(f::bytea) = (bloom_info(f)).bytes AS bytea_len_is_bytes
FROM io_filters ORDER BY id;

-- Binary send gives the same bytes as the bytea cast (one portable format).
SELECT count(*) AS filters,
       count(*) FILTER (WHERE bloomfilter_send(f) = f::bytea) AS send_equals_bytea
FROM io_filters;

-- The portable bytes start with the magic "BLMF" and format version 1
-- (uint16 little-endian), and their little-endian header fields say what
-- bloom_info says: layout (byte 6), hashes (7), seed (8..15), bits (16..23),
-- added (24..31), and the header is 52 bytes followed by bits/8 bytes.
CREATE FUNCTION io_le(b bytea, off int, n int) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT sum(get_byte(b, off + i) * (256::numeric ^ i)::numeric(20, 0))::numeric(20, 0) FROM generate_series(0, n - 1) i $$;
SELECT id,
       substring(f::bytea FROM 1 FOR 4) = 'BLMF'::bytea AS magic,
       io_le(f::bytea, 4, 2) AS version,
       io_le(f::bytea, 6, 1) = CASE i.layout WHEN 'classic' THEN 1 WHEN 'blocked' THEN 2 END AS layout_byte,
       io_le(f::bytea, 7, 1) = i.hashes AS hashes,
       io_le(f::bytea, 8, 8) = (i.seed::numeric + 18446744073709551616) % 18446744073709551616 AS seed,
       io_le(f::bytea, 16, 8) = i.bits AS bits,
       io_le(f::bytea, 24, 8) = i.added AS added,
       octet_length(f::bytea) = 52 + i.bits / 8 AS length,
       io_le(f::bytea, 44, 8) <> 0 AS checksum_filled
FROM io_filters, bloom_info(f) i ORDER BY id;

-- Golden values: two small filters written out in full.  These bytes are
-- the portable format; a change here breaks every filter already shipped.
SELECT bloom_empty_bits(64, 3, 'classic') + 1 + 2 + 3 AS classic_text;
SELECT (bloom_empty_bits(64, 3, 'classic') + 1 + 2 + 3)::bytea AS classic_bytea;
SELECT bloom_empty_bits(512, 2, 'blocked', 7) + 'abc'::text AS blocked_text;
SELECT ('QkxNRgEAAQMAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABZ4vE9PSmF9gAAAAAAAAAA'::bloomfilter
        = bloom_empty_bits(64, 3, 'classic')) AS golden_empty_reads_back;

-- Identical filters are byte-identical, whatever order they were built in:
-- keys added ascending, descending and shuffled; one by one, by array and
-- by aggregate (in several orders).
WITH k AS (SELECT i FROM generate_series(1, 2000) i),
forms AS (
  SELECT 'array asc' AS how, (SELECT bloom_add_all(bloom_empty(2000), array_agg(i ORDER BY i)) FROM k) AS f
  UNION ALL SELECT 'array desc', (SELECT bloom_add_all(bloom_empty(2000), array_agg(i ORDER BY i DESC)) FROM k)
  UNION ALL SELECT 'array shuffled', (SELECT bloom_add_all(bloom_empty(2000), array_agg(i ORDER BY md5(i::text))) FROM k)
  UNION ALL SELECT 'two halves, second first',
    (SELECT bloom_add_all(bloom_add_all(bloom_empty(2000), array_agg(i) FILTER (WHERE i > 1000)),
                          array_agg(i) FILTER (WHERE i <= 1000)) FROM k)
  UNION ALL SELECT 'agg asc', (SELECT bloom_agg(i, 2000, 0.01 ORDER BY i) FROM k)
  UNION ALL SELECT 'agg desc', (SELECT bloom_agg(i, 2000, 0.01 ORDER BY i DESC) FROM k)
  UNION ALL SELECT 'agg shuffled', (SELECT bloom_agg(i, 2000, 0.01 ORDER BY md5(i::text)) FROM k)
)
SELECT how,
       f::bytea = first_value(f::bytea) OVER (ORDER BY how) AS same_bytea,
       f::text = first_value(f::text) OVER (ORDER BY how) AS same_text,
       bloomfilter_send(f) = first_value(bloomfilter_send(f)) OVER (ORDER BY how) AS same_send
FROM forms ORDER BY how;

-- Text input tolerates white space around the value (pasted values), and
-- nothing else changes.
SELECT (E' \t\n' || f::text || E' \r\n')::bloomfilter = f AS padded_ok
FROM io_filters WHERE id = 3;

-- NULL stays NULL through the casts
SELECT NULL::bloomfilter::text IS NULL AS text_null, NULL::bloomfilter::bytea IS NULL AS bytea_null,
       NULL::bytea::bloomfilter IS NULL AS from_bytea_null;

-- A filter read back goes on working: keys added after the round trip give
-- the same filter as keys added before it (the header, including the add
-- count and key family, came back intact).  An empty filter read back still
-- has no family and adopts the first key's.
SELECT id,
       bloom_add(f::text::bloomfilter, 100001) = bloom_add(f, 100001) AS text_then_add,
       bloom_add(f::bytea::bloomfilter, 100001) = bloom_add(f, 100001) AS bytea_then_add
FROM io_filters WHERE id IN (1, 2, 3, 4, 16, 17, 20) ORDER BY id;
SELECT (bloom_info(f::text::bloomfilter + 'word'::text)).key_family AS empty_then_text
FROM io_filters WHERE id = 2;

-- COPY in binary format, through a file (client-side \copy), into a second
-- table: the rows read back are equal filters (bloomfilter_recv validates
-- and accepts every one), with the same bloom_info.
\copy io_filters TO 'results/bloom_copy.bin' (FORMAT binary)
CREATE TABLE io_copy_bin (LIKE io_filters);
\copy io_copy_bin FROM 'results/bloom_copy.bin' (FORMAT binary)
SELECT count(*) AS rows,
       count(*) FILTER (WHERE a.f = b.f) AS equal,
       count(*) FILTER (WHERE a.f::bytea = b.f::bytea) AS same_bytes,
       count(*) FILTER (WHERE bloom_info(a.f)::text = bloom_info(b.f)::text) AS same_info
FROM io_filters a JOIN io_copy_bin b USING (id);

-- COPY in text format, through a file, likewise (the text form needs no
-- COPY escaping: base64 has no tab, newline or backslash).
\copy io_filters TO 'results/bloom_copy.txt'
CREATE TABLE io_copy_txt (LIKE io_filters);
\copy io_copy_txt FROM 'results/bloom_copy.txt'
SELECT count(*) AS rows,
       count(*) FILTER (WHERE a.f = b.f) AS equal,
       count(*) FILTER (WHERE a.f::bytea = b.f::bytea) AS same_bytes,
       count(*) FILTER (WHERE bloom_info(a.f)::text = bloom_info(b.f)::text) AS same_info
FROM io_filters a JOIN io_copy_txt b USING (id);

-- COPY text output is the text form, one filter a line
COPY (SELECT f FROM io_filters WHERE id = 18) TO STDOUT;

-- No false negatives after any round trip: all 10000 keys of the integer
-- (classic) and text (blocked) filters are still found, and 10000 keys that
-- were never added get exactly the answers the original filter gives.
CREATE TABLE io_trips AS
SELECT id, 'original' AS trip, f FROM io_filters WHERE id IN (20, 21)
UNION ALL SELECT id, 'text', f::text::bloomfilter FROM io_filters WHERE id IN (20, 21)
UNION ALL SELECT id, 'bytea', f::bytea::bloomfilter FROM io_filters WHERE id IN (20, 21)
UNION ALL SELECT id, 'send', bloomfilter_send(f)::bloomfilter FROM io_filters WHERE id IN (20, 21)
UNION ALL SELECT id, 'copy binary', f FROM io_copy_bin WHERE id IN (20, 21)
UNION ALL SELECT id, 'copy text', f FROM io_copy_txt WHERE id IN (20, 21);
SELECT t.id, t.trip,
       count(*) FILTER (WHERE i <= 10000 AND NOT bloom_contains(t.f, i)) AS false_negatives,
       count(*) FILTER (WHERE i > 10000 AND bloom_contains(t.f, i) <> bloom_contains(o.f, i)) AS answers_differ
FROM io_trips t JOIN io_filters o USING (id), generate_series(1, 20000) i
WHERE t.id = 20
GROUP BY t.id, t.trip ORDER BY t.trip;
SELECT t.id, t.trip,
       count(*) FILTER (WHERE i <= 10000 AND NOT bloom_contains(t.f, 'k' || i)) AS false_negatives,
       count(*) FILTER (WHERE i > 10000 AND bloom_contains(t.f, 'k' || i) <> bloom_contains(o.f, 'k' || i)) AS answers_differ
FROM io_trips t JOIN io_filters o USING (id), generate_series(1, 20000) i
WHERE t.id = 21
GROUP BY t.id, t.trip ORDER BY t.trip;

-- bloom_info is unchanged by every round trip
SELECT t.id, t.trip, i.layout, i.bits, i.hashes, i.bytes, i.seed, i.key_family, i.added,
       i.bits_set, i.format_version,
       bloom_info(t.f)::text = bloom_info(o.f)::text AS info_unchanged
FROM io_trips t JOIN io_filters o USING (id), bloom_info(t.f) i
ORDER BY t.id, t.trip;

-- Every filter keeps its key family through every round trip.
SELECT a.id, io_mask((bloom_info(a.f)).key_family) AS key_family,
       (bloom_info(a.f::text::bloomfilter)).key_family = (bloom_info(a.f)).key_family AS text_rt,
       (bloom_info(b.f)).key_family = (bloom_info(a.f)).key_family AS copy_binary,
       (bloom_info(c.f)).key_family = (bloom_info(a.f)).key_family AS copy_text
FROM io_filters a JOIN io_copy_bin b USING (id) JOIN io_copy_txt c USING (id)
ORDER BY a.id;

-- ... and so still refuses keys of another family after it came back: an
-- integer filter probed with text is an error, never a silent false.
SELECT bloom_contains(f::text::bloomfilter, 'abc'::text) FROM io_filters WHERE id = 20;
SELECT bloom_contains(f::bytea::bloomfilter, 'abc'::text) FROM io_filters WHERE id = 20;
SELECT bloom_contains(f, 'abc'::text) FROM io_copy_bin WHERE id = 20;
SELECT bloom_contains(f, 'abc'::text) FROM io_copy_txt WHERE id = 20;
-- the user type's tag came back too: the enum key is found, text is refused
SELECT bloom_contains(f, 'ok'::io_mood) AS has_ok, bloom_contains(f, 'sad'::io_mood) AS has_sad
FROM io_copy_bin WHERE id = 15;
DO $$
BEGIN
  PERFORM bloom_contains(f, 'ok'::text) FROM io_copy_bin WHERE id = 15;
  RAISE NOTICE 'not refused';
EXCEPTION WHEN datatype_mismatch THEN
  RAISE NOTICE 'refused: %', io_mask(SQLERRM);
END
$$;
-- and the keys of the other families are found after the binary round trip
SELECT b.id, io_mask((bloom_info(b.f)).key_family) AS key_family,
       (SELECT count(*) FILTER (WHERE NOT CASE b.id
          WHEN 7 THEN bloom_contains(b.f, md5(i::text)::uuid)
          WHEN 8 THEN bloom_contains(b.f, i / 7.0::float8)
          WHEN 9 THEN bloom_contains(b.f, i::numeric / 8)
          WHEN 10 THEN bloom_contains(b.f, decode(md5(i::text), 'hex'))
          WHEN 11 THEN bloom_contains(b.f, date '2000-01-01' + i)
          WHEN 12 THEN bloom_contains(b.f, timestamptz '2020-01-01 00:00:00+00' + i * interval '1 hour')
          WHEN 14 THEN bloom_contains(b.f, ('10.0.' || i / 256 || '.' || i % 256)::inet)
        END)
        FROM generate_series(1, 500) i) AS false_negatives
FROM io_copy_bin b
WHERE b.id IN (7, 8, 9, 10, 11, 12, 14)
ORDER BY b.id;

DROP TABLE io_trips, io_copy_txt, io_copy_bin, io_filters;
DROP FUNCTION io_le(bytea, int, int), io_mask(text);
DROP TYPE io_mood;
