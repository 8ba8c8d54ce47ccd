--
-- Key families: how each SQL type becomes the bytes that are hashed.
--
-- The contract (DESIGN.md, "Elements"): keys are hashed with XXH3-64 over a
-- canonical, machine-independent encoding; values SQL considers equal
-- across types of one family hash alike; a filter remembers its family and
-- probing it with another family is an ERROR, never a silent false.
--
-- Most checks compare whole filters with = (identical bytes) rather than
-- probing, so they cannot pass by a lucky false positive and they fail the
-- moment two encodings that must agree drift apart.
--

SET timezone = 'UTC';

-- bf_fam_bits(f): the bit array alone, i.e. the portable bytes after the
-- 52-byte header (so the family field does not take part in comparisons)
CREATE FUNCTION bf_fam_bits(bloomfilter) RETURNS bytea
	LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT substring($1::bytea FROM 53) $$;

-- bf_fam_one(x): a fixed 4096-bit, 7-hash classic filter holding x alone
CREATE FUNCTION bf_fam_one(anyelement) RETURNS bloomfilter
	LANGUAGE sql IMMUTABLE AS $$ SELECT bloom_add(bloom_empty_bits(4096, 7, 'classic'), $1) $$;

----------------------------------------------------------------------
-- 1. Integers: int2, int4 and int8 are one family, hashed by value
----------------------------------------------------------------------

-- the same value through each integer type gives byte-identical filters
SELECT bloom_add(bloom_empty(100), 5::int2) = bloom_add(bloom_empty(100), 5::int8) AS int2_eq_int8,
       bloom_add(bloom_empty(100), 5::int4) = bloom_add(bloom_empty(100), 5::int8) AS int4_eq_int8,
       bloom_empty(100) + 5::int2 = bloom_empty(100) + 5 AS int2_eq_int4;

-- negative values are sign-extended alike (-1 is not 65535 or 4294967295)
SELECT bf_fam_one((-1)::int2) = bf_fam_one((-1)::int8) AS neg_int2_eq_int8,
       bf_fam_one((-32768)::int2) = bf_fam_one((-32768)::int4) AS min_int2_eq_int4,
       bf_fam_one((-1)::int2) <> bf_fam_one(65535) AS not_65535,
       bf_fam_one((-1)::int4) <> bf_fam_one(4294967295::int8) AS not_4294967295;

-- int8 values beyond the int4 range keep all 64 bits (5000000000 is not
-- confused with its low 32 bits, 705032704)
SELECT bf_fam_one(5000000000::int8) <> bf_fam_one(705032704) AS no_truncation,
       bf_fam_one(9223372036854775807::int8) <> bf_fam_one((-1)::int4) AS max_int8_differs,
       (bloom_empty(100) + 5000000000::int8) @> 5000000000::int8 AS big_found;

-- a filter built from an int4 column answers int8 and int2 probes of the
-- same values, and int8 probes of values beyond int4 are found in an int8 filter
CREATE TABLE bf_fam_ints (i4 int4, i8 int8);
INSERT INTO bf_fam_ints SELECT g, g * 3000000000::int8 FROM generate_series(-500, 500) g;
SELECT count(*) FILTER (WHERE NOT (i4::int8 <@ f)) AS int8_misses,
       count(*) FILTER (WHERE NOT (i4::int2 <@ f)) AS int2_misses,
       count(*) FILTER (WHERE NOT bloom_contains(f, i4::int8)) AS fn_misses
FROM bf_fam_ints, (SELECT bloom_agg(i4, 1001, 0.01) AS f FROM bf_fam_ints) s;
SELECT count(*) FILTER (WHERE NOT (i8 <@ f)) AS big_misses
FROM bf_fam_ints, (SELECT bloom_agg(i8, 1001, 0.01) AS f FROM bf_fam_ints) s;
-- aggregates over int2, int4 and int8 columns of the same values agree byte for byte
SELECT (SELECT bloom_agg(i4::int2, 1001, 0.01) FROM bf_fam_ints)
         = (SELECT bloom_agg(i4::int8, 1001, 0.01) FROM bf_fam_ints) AS agg_int2_eq_int8,
       (SELECT bloom_agg(i4, 1001, 0.01) FROM bf_fam_ints)
         = (SELECT bloom_agg(i4::int8, 1001, 0.01) FROM bf_fam_ints) AS agg_int4_eq_int8;
DROP TABLE bf_fam_ints;

-- the family is recorded and reported as "integer" whichever type was added
SELECT (bloom_info(bloom_empty(10) + 1::int2)).key_family AS int2,
       (bloom_info(bloom_empty(10) + 1::int4)).key_family AS int4,
       (bloom_info(bloom_empty(10) + 1::int8)).key_family AS int8;

----------------------------------------------------------------------
-- 2. Text: text, varchar, bpchar and name are one family, by their bytes
----------------------------------------------------------------------

-- the same characters through each text type give identical filters
SELECT bf_fam_one('ab'::text) = bf_fam_one('ab'::varchar) AS varchar_eq,
       bf_fam_one('ab'::text) = bf_fam_one('ab'::name) AS name_eq,
       bf_fam_one('ab'::text) = bf_fam_one('ab'::char(5)) AS bpchar_eq,
       bf_fam_one('ab'::text) = bf_fam_one('ab'::varchar(10)) AS varchar10_eq;

-- bpchar ignores its trailing spaces, as its = does, and varchar = bpchar
-- compares as bpchar; so every member of the family drops trailing spaces:
-- 'ab'::char(5), 'ab  '::text and 'ab' are one key (a false positive at
-- worst for text keys, never a lost row)
SELECT bloom_empty(100) + 'ab'::char(5) = bloom_empty(100) + 'ab'::text AS bpchar_is_ab,
       bloom_empty(100) + 'ab  '::char(5) = bloom_empty(100) + 'ab'::text AS padded_bpchar_is_ab,
       bloom_empty(100) + 'ab  '::text = bloom_empty(100) + 'ab'::text AS text_spaces_dropped,
       bloom_empty(100) + ' ab'::char(5) <> bloom_empty(100) + 'ab'::text AS leading_spaces_kept,
       (bloom_empty(100) + 'ab'::text) @> 'ab'::char(5) AS bpchar_probe;

-- the bpchar and name encodings reached through the element type itself
-- (aggregate, bloom_add_all), not through the text overloads of + and @>
SELECT (SELECT bloom_agg(v::char(8), 10, 0.01) FROM unnest(ARRAY['ab', 'c', '']) v)
         = (SELECT bloom_agg(v::text, 10, 0.01) FROM unnest(ARRAY['ab', 'c', '']) v) AS agg_bpchar_eq_text,
       (SELECT bloom_agg(v::name, 10, 0.01) FROM unnest(ARRAY['ab', 'c', '']) v)
         = (SELECT bloom_agg(v::text, 10, 0.01) FROM unnest(ARRAY['ab', 'c', '']) v) AS agg_name_eq_text,
       (SELECT bloom_agg(v::varchar, 10, 0.01) FROM unnest(ARRAY['ab', 'c', '']) v)
         = (SELECT bloom_agg(v::text, 10, 0.01) FROM unnest(ARRAY['ab', 'c', '']) v) AS agg_varchar_eq_text;
SELECT bloom_add_all(bloom_empty(100), ARRAY['ab  ', 'x']::char(4)[])
         = bloom_add_all(bloom_empty(100), ARRAY['ab', 'x']::text[]) AS add_all_bpchar,
       bloom_add_all(bloom_empty(100), ARRAY['ab', 'x']::name[])
         = bloom_add_all(bloom_empty(100), ARRAY['ab', 'x']::text[]) AS add_all_name,
       (SELECT bloom_agg(v, 10, 0.01) FROM unnest(ARRAY['ab   '::char(5)]) v)
         = (SELECT bloom_agg(v, 10, 0.01) FROM unnest(ARRAY['ab   '::text]) v) AS agg_text_spaces_dropped;

-- the empty string is a key like any other: it sets bits, is found, and a
-- blank char(3) is the empty string
SELECT bloom_empty(100) + ''::text <> bloom_empty(100) AS empty_sets_bits,
       (bloom_info(bloom_empty(100) + ''::text)).added AS added,
       (bloom_empty(100) + ''::text) @> ''::text AS empty_found,
       bloom_empty(100) + ''::text = bloom_empty(100) + '   '::char(3) AS blank_bpchar_is_empty,
       bloom_add_all(bloom_empty(100), ARRAY['   '::char(3)]) = bloom_empty(100) + ''::text AS blank_bpchar_agg;

-- case and every byte matter (text hashes bytes, not a collation's idea of equality)
SELECT bf_fam_one('ab'::text) <> bf_fam_one('AB'::text) AS case_differs,
       bf_fam_one('ab'::text) <> bf_fam_one('ab'::text || chr(1)) AS extra_byte_differs;

SELECT (bloom_info(bloom_empty(10) + 'x'::text)).key_family AS text,
       (bloom_info(bloom_empty(10) + 'x'::varchar)).key_family AS varchar,
       (bloom_info(bloom_add_all(bloom_empty(10), ARRAY['x'::char(3)]))).key_family AS bpchar,
       (bloom_info(bloom_add_all(bloom_empty(10), ARRAY['x'::name]))).key_family AS name;

----------------------------------------------------------------------
-- 3. bytea, uuid and bool: their own families
----------------------------------------------------------------------

-- bytea hashes exactly its bytes (the bits equal those of the text with
-- the same bytes) but it is its own family
SELECT bf_fam_bits(bf_fam_one('\x616263'::bytea)) = bf_fam_bits(bf_fam_one('abc'::text)) AS bytea_same_bits,
       bf_fam_one('\x616263'::bytea) <> bf_fam_one('abc'::text) AS bytea_other_family,
       (bloom_info(bloom_empty(10) + '\x00'::bytea)).key_family AS family;
-- so probing a text filter with bytea, or a bytea filter with text, is an error naming both
SELECT (bloom_empty(100) + 'abc'::text) @> 'abc'::bytea;
SELECT (bloom_empty(100) + 'abc'::bytea) @> 'abc'::text;
-- the empty bytea is a key too
SELECT bloom_empty(100) + ''::bytea <> bloom_empty(100) AS empty_bytea_sets_bits;

-- uuid: its 16 bytes, and only those
SELECT bf_fam_bits(bf_fam_one('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid))
         = bf_fam_bits(bf_fam_one('\xa0eebc999c0b4ef8bb6d6bb9bd380a11'::bytea)) AS uuid_is_its_bytes,
       bf_fam_one('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
         = bf_fam_one('{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}'::uuid) AS spelling_free,
       (bloom_info(bloom_empty(10) + 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)).key_family AS family;

-- bool: one byte, 1 or 0; true and false are different keys
SELECT bf_fam_bits(bf_fam_one(true)) = bf_fam_bits(bf_fam_one('\x01'::bytea)) AS true_is_01,
       bf_fam_bits(bf_fam_one(false)) = bf_fam_bits(bf_fam_one('\x00'::bytea)) AS false_is_00,
       bf_fam_one(true) <> bf_fam_one(false) AS true_ne_false,
       (bloom_empty(100) + true) @> true AS true_found,
       (bloom_info(bloom_empty(10) + true)).key_family AS family;

----------------------------------------------------------------------
-- 4. Floats: float4 and float8 are one family, -0 is 0, every NaN is one NaN
----------------------------------------------------------------------

-- the same value through float4 and float8 gives identical filters (1.5 and
-- 0.25 are exact in both); 0.1 is not the same number in float4 and float8,
-- and SQL agrees (0.1::float4 = 0.1::float8 is false)
SELECT bloom_empty(100) + 1.5::float4 = bloom_empty(100) + 1.5::float8 AS f4_eq_f8,
       bf_fam_one(0.25::float4) = bf_fam_one(0.25::float8) AS quarter,
       bf_fam_one(0.1::float4) <> bf_fam_one(0.1::float8) AS tenth_differs,
       0.1::float4 = 0.1::float8 AS sql_says_equal;

-- -0 and 0 are one key, in both types
SELECT bf_fam_one('-0'::float8) = bf_fam_one(0::float8) AS neg_zero8,
       bf_fam_one('-0'::float4) = bf_fam_one(0::float8) AS neg_zero4,
       (bloom_empty(100) + '-0'::float8) @> 0::float4 AS found;

-- every NaN is one NaN: the canonical NaN, float4's NaN widened to float8,
-- and a NaN with the sign bit set (a different bit pattern, shown by float8send)
SELECT float8send('NaN'::float8) AS nan_bits, float8send(-'NaN'::float8) AS neg_nan_bits;
SELECT bf_fam_one('NaN'::float8) = bf_fam_one(-'NaN'::float8) AS neg_nan,
       bf_fam_one('NaN'::float8) = bf_fam_one('NaN'::float4) AS f4_nan,
       bf_fam_one('NaN'::float8) = bf_fam_one('NaN'::float4::float8) AS widened_nan,
       bf_fam_one('NaN'::float8) = bf_fam_one('Infinity'::float8 - 'Infinity'::float8) AS computed_nan,
       (bloom_empty(100) + -'NaN'::float8) @> 'NaN'::float4 AS found;

-- infinities are keys distinct from each other, from NaN and from the largest finite value
SELECT bf_fam_one('Infinity'::float8) <> bf_fam_one('-Infinity'::float8) AS inf_ne_neginf,
       bf_fam_one('Infinity'::float8) <> bf_fam_one('NaN'::float8) AS inf_ne_nan,
       bf_fam_one('Infinity'::float8) <> bf_fam_one(1.7976931348623157e308::float8) AS inf_ne_max,
       bf_fam_one('Infinity'::float4) = bf_fam_one('Infinity'::float8) AS f4_inf_eq_f8;

SELECT (bloom_info(bloom_empty(10) + 1::float4)).key_family AS float4,
       (bloom_info(bloom_empty(10) + 1::float8)).key_family AS float8;
-- floats are not integers
SELECT (bloom_empty(100) + 1::float8) @> 1;

----------------------------------------------------------------------
-- 5. numeric: by value, whatever the written scale
----------------------------------------------------------------------

SELECT bf_fam_one(1.0) = bf_fam_one(1.00) AS "1.0=1.00",
       bf_fam_one(1::numeric) = bf_fam_one(1.00) AS "1=1.00",
       bf_fam_one(0.0) = bf_fam_one(0::numeric) AS "0.0=0",
       bf_fam_one(-0.0) = bf_fam_one(0::numeric) AS "-0.0=0",
       bf_fam_one('-0.000'::numeric) = bf_fam_one(0::numeric) AS "-0.000=0",
       bf_fam_one(-1.50) = bf_fam_one(-1.5) AS "-1.50=-1.5";
SELECT bf_fam_one(10::numeric) = bf_fam_one(10.0) AS "10=10.0",
       bf_fam_one(10::numeric) = bf_fam_one(1e1) AS "10=1e1",
       bf_fam_one(100::numeric) = bf_fam_one(1.00e2) AS "100=1.00e2",
       bf_fam_one(1e-20) = bf_fam_one(0.00000000000000000001) AS "1e-20",
       bf_fam_one(1e-20) = bf_fam_one(0.000000000000000000010000) AS "1e-20 scale 24",
       bf_fam_one(123456789012345678901234567890.5) = bf_fam_one(123456789012345678901234567890.50000) AS big;
-- trimming zeros must stop at the point: 10, 100 and 1 stay distinct, as do 1.1 and 11
SELECT bf_fam_one(10::numeric) <> bf_fam_one(1::numeric) AS "10<>1",
       bf_fam_one(100::numeric) <> bf_fam_one(10::numeric) AS "100<>10",
       bf_fam_one(1.10) <> bf_fam_one(11::numeric) AS "1.10<>11",
       bf_fam_one(0.1) <> bf_fam_one(1::numeric) AS "0.1<>1",
       bf_fam_one(1e-20) <> bf_fam_one(1e-21) AS "1e-20<>1e-21",
       bf_fam_one(-1::numeric) <> bf_fam_one(1::numeric) AS "-1<>1";
-- NaN and the infinities are keys of their own
SELECT bf_fam_one('NaN'::numeric) = bf_fam_one('nan'::numeric) AS nan,
       bf_fam_one('NaN'::numeric) <> bf_fam_one(0::numeric) AS nan_ne_zero,
       bf_fam_one('Infinity'::numeric) <> bf_fam_one('-Infinity'::numeric) AS inf_ne_neginf,
       (bloom_empty(100) + 'NaN'::numeric) @> 'NaN'::numeric AS nan_found;
-- probing with another scale finds the key
SELECT (bloom_empty(100) + 2.50) @> 2.5000 AS found,
       (bloom_info(bloom_empty(10) + 1.5)).key_family AS family;
-- numeric is its own family: not integer, not float
SELECT (bloom_empty(100) + 1::numeric) @> 1;
SELECT (bloom_empty(100) + 1::numeric) @> 1::float8;

----------------------------------------------------------------------
-- 6. date, timestamp, timestamptz: by value
----------------------------------------------------------------------

-- timestamptz is an instant: the same instant written in another time zone
-- (or with an explicit offset) is the same key
CREATE TABLE bf_fam_tz AS
	SELECT bloom_empty(100) + '2024-03-10 12:00:00'::timestamptz AS f;   -- built under UTC
SET timezone = 'Asia/Tokyo';
SELECT f @> '2024-03-10 21:00:00'::timestamptz AS tokyo_found,
       f @> '2024-03-10 07:00:00-05'::timestamptz AS offset_found,
       f = bloom_empty(100) + '2024-03-10 21:00:00'::timestamptz AS tokyo_identical,
       f <> bloom_empty(100) + '2024-03-10 12:00:00'::timestamptz AS tokyo_noon_differs
FROM bf_fam_tz;
-- a timestamp (without time zone) does not depend on the session's zone
SELECT bloom_empty(100) + '2024-03-10 12:00:00'::timestamp AS f \gset tokyo_
SET timezone = 'America/New_York';
SELECT :'tokyo_f'::bloomfilter = bloom_empty(100) + '2024-03-10 12:00:00'::timestamp AS ts_zone_free,
       f @> '2024-03-10 08:00:00'::timestamptz AS new_york_found
FROM bf_fam_tz;
SET timezone = 'UTC';
DROP TABLE bf_fam_tz;

-- microseconds count; the same value spelled differently does not
SELECT bf_fam_one('2024-03-10 12:00:00'::timestamp) <> bf_fam_one('2024-03-10 12:00:00.000001'::timestamp) AS usec_differs,
       bf_fam_one('2024-03-10 12:00:00'::timestamp) = bf_fam_one('March 10 2024 12:00'::timestamp) AS spelling_free,
       bf_fam_one('2024-03-10'::date) = bf_fam_one('20240310'::date) AS date_spelling_free,
       bf_fam_one('2024-03-10'::date) <> bf_fam_one('2024-03-11'::date) AS next_day_differs,
       bf_fam_one('infinity'::date) <> bf_fam_one('-infinity'::date) AS date_infinities,
       bf_fam_one('infinity'::timestamptz) <> bf_fam_one('-infinity'::timestamptz) AS tstz_infinities;

SELECT (bloom_info(bloom_empty(10) + '2024-03-10'::date)).key_family AS date,
       (bloom_info(bloom_empty(10) + '2024-03-10'::timestamp)).key_family AS timestamp,
       (bloom_info(bloom_empty(10) + '2024-03-10'::timestamptz)).key_family AS timestamptz;
-- timestamp and timestamptz are distinct families, and date is neither
SELECT (bloom_empty(100) + '2024-03-10 12:00'::timestamptz) @> '2024-03-10 12:00'::timestamp;
SELECT (bloom_empty(100) + '2024-03-10 12:00'::timestamp) @> '2024-03-10 12:00'::timestamptz;
SELECT (bloom_empty(100) + '2024-03-10'::date) @> '2024-03-10'::timestamp;

----------------------------------------------------------------------
-- 7. Domains resolve to their base type
----------------------------------------------------------------------

CREATE DOMAIN bf_fam_posint AS int4 CHECK (VALUE > 0);
CREATE DOMAIN bf_fam_small AS bf_fam_posint CHECK (VALUE < 1000);   -- a domain over a domain
CREATE DOMAIN bf_fam_code AS varchar(10);
SELECT bloom_empty(100) + 5::bf_fam_posint = bloom_empty(100) + 5::int8 AS posint_eq_int8,
       bloom_empty(100) + 5::bf_fam_small = bloom_empty(100) + 5::int2 AS small_eq_int2,
       (bloom_empty(100) + 5::int8) @> 5::bf_fam_posint AS found,
       (bloom_info(bloom_empty(10) + 5::bf_fam_small)).key_family AS family;
SELECT bloom_empty(100) + 'AB-1'::bf_fam_code = bloom_empty(100) + 'AB-1'::text AS code_eq_text,
       (bloom_info(bloom_empty(10) + 'AB-1'::bf_fam_code)).key_family AS family;
-- an aggregate over a domain column builds the base type's filter
SELECT (SELECT bloom_agg(v::bf_fam_posint, 10, 0.01) FROM generate_series(1, 5) v)
         = (SELECT bloom_agg(v::int8, 10, 0.01) FROM generate_series(1, 5) v) AS agg_domain_eq_int8;

----------------------------------------------------------------------
-- 8. Every other type: by parts, by value, bitwise, or refused
----------------------------------------------------------------------
-- interval, jsonb, enums, arrays, rows, ranges and multiranges have
-- encodings that follow their = (section 13 shows them byte for byte);
-- any other type is accepted where its btree equality is bitwise
-- ("other") or it has a hash operator class ("hashed"), and refused
-- otherwise.

CREATE TYPE bf_fam_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE bf_fam_pair AS (a int, b text);

-- each adds, probes true, and records its family; built-in types are
-- named, the others are shown by their type tag
CREATE FUNCTION bf_fam_mask(t text) RETURNS text LANGUAGE sql
AS $$ SELECT regexp_replace(t, 'type tag [0-9a-f]{8}', 'type tag ########', 'g') $$;
SELECT t, bf_fam_mask((bloom_info(f)).key_family) AS key_family, (bloom_info(f)).added,
       f <> bloom_empty(100) AS set_bits
FROM (VALUES
	('inet',     bloom_empty(100) + '192.168.0.1'::inet),
	('cidr',     bloom_empty(100) + '10.0.0.0/8'::cidr),
	('int4[]',   bloom_empty(100) + ARRAY[1, 2, 3]),
	('text[]',   bloom_empty(100) + ARRAY['a', 'b']),
	('record',   bloom_empty(100) + ROW(1, 'a'::text)),
	('pair',     bloom_empty(100) + ROW(1, 'a')::bf_fam_pair),
	('enum',     bloom_empty(100) + 'ok'::bf_fam_mood),
	('interval', bloom_empty(100) + '1 day'::interval),
	('time',     bloom_empty(100) + '12:34'::time),
	('jsonb',    bloom_empty(100) + '{"a": 1}'::jsonb),
	('int4range', bloom_empty(100) + int4range(1, 10)),
	('xid',      bloom_empty(100) + '7'::xid)
) v(t, f);

SELECT (bloom_empty(100) + '192.168.0.1'::inet) @> '192.168.0.1'::inet AS inet,
       (bloom_empty(100) + ARRAY[1, 2, 3]) @> ARRAY[1, 2, 3] AS int_array,
       (bloom_empty(100) + ROW(1, 'a'::text)) @> ROW(1, 'a'::text) AS record,
       (bloom_empty(100) + ROW(1, 'a')::bf_fam_pair) @> ROW(1, 'a')::bf_fam_pair AS pair,
       (bloom_empty(100) + 'ok'::bf_fam_mood) @> 'ok'::bf_fam_mood AS enum,
       (bloom_empty(100) + '{"a": 1, "b": 2}'::jsonb) @> '{"b": 2, "a": 1}'::jsonb AS jsonb,
       (bloom_empty(100) + int4range(1, 10)) @> int4range(1, 10, '[)') AS range;

-- values that = calls equal, written differently, are one key
SELECT (bloom_empty(100) + '1 day'::interval) @> '24 hours'::interval AS interval_span,
       (bloom_empty(100) + '1 mon'::interval) @> '30 days'::interval AS interval_month,
       (bloom_empty(100) + '1.0'::jsonb) @> '1'::jsonb AS jsonb_number,
       (bloom_empty(100) + ARRAY[1.0]) @> ARRAY[1.00] AS array_numeric,
       (bloom_empty(100) + ARRAY[1, 2]) @> ARRAY[1, 2]::int8[] AS array_int4_int8,
       (bloom_empty(100) + ROW(1)) @> ROW(1::bigint) AS row_int4_int8,
       (bloom_empty(100) + ROW(1, 'a')::bf_fam_pair) @> ROW(1::int2, 'a  '::char(3)) AS named_and_anonymous,
       (bloom_empty(100) + numrange(1.0, 2.0)) @> numrange(1, 2) AS numrange_scale,
       (bloom_empty(100) + int4range(1, 3)) @> int4range(0, 2, '(]') AS range_canonical,
       (bloom_empty(100) + '{[1,3), [3,5)}'::int4multirange) @> '{[1,5)}'::int4multirange AS multirange,
       (bloom_empty(100) + '10.0.0.0/8'::inet) @> '10.0.0.0/8'::cidr AS inet_cidr;

-- different values of one type are different keys; element order matters,
-- and so do array bounds (array_eq compares them), and NULL is not a value
SELECT bf_fam_one(ARRAY[1, 2, 3]) <> bf_fam_one(ARRAY[3, 2, 1]) AS order_matters,
       bf_fam_one(ARRAY[1, 2]) <> bf_fam_one(ARRAY[1, 2, 3]) AS length_matters,
       bf_fam_one(ARRAY[1, 2]) <> bf_fam_one('[0:1]={1,2}'::int[]) AS bounds_matter,
       bf_fam_one(ARRAY[[1, 2]]) <> bf_fam_one(ARRAY[1, 2]) AS dims_matter,
       bf_fam_one(ARRAY[1, NULL]) <> bf_fam_one(ARRAY[1]) AS null_element,
       bf_fam_one(ROW(1, NULL::int)) <> bf_fam_one(ROW(1, 0)) AS null_column,
       bf_fam_one('ok'::bf_fam_mood) <> bf_fam_one('sad'::bf_fam_mood) AS enum_values_differ,
       bf_fam_one('192.168.0.1'::inet) <> bf_fam_one('192.168.0.2'::inet) AS inet_values_differ,
       bf_fam_one('[1]'::jsonb) <> bf_fam_one('1'::jsonb) AS jsonb_array_is_not_scalar,
       bf_fam_one('empty'::int4range) <> bf_fam_one(int4range(1, 2)) AS empty_range;

-- an int4[] filter is not a numeric[] filter: = would cast, the hashes do not
SELECT (bloom_empty(100) + ARRAY[1]) @> ARRAY[1.0];
-- probing an inet filter with text is an error naming both families
SELECT (bloom_empty(100) + '10.0.0.0/8'::inet) @> '10.0.0.0/8'::text;
-- an enum is not its label text, and two types created in the database differ
DO $$
BEGIN
	PERFORM (bloom_empty(100) + 'ok'::bf_fam_mood) @> 'ok'::text;
EXCEPTION WHEN datatype_mismatch THEN
	RAISE NOTICE 'refused: %', bf_fam_mask(SQLERRM);
END
$$;
DO $$
BEGIN
	PERFORM (bloom_empty(100) + 'ok'::bf_fam_mood) @> ROW(1, 'a')::bf_fam_pair;
EXCEPTION WHEN datatype_mismatch THEN
	RAISE NOTICE 'refused: %', bf_fam_mask(SQLERRM);
END
$$;

-- types whose = no byte encoding can follow are refused, naming the type:
-- no equality at all (json, point), an equality that is neither bitwise nor
-- hashable (box compares areas, tsvector), or a part of such a type inside
SELECT bloom_empty(100) + '{"a": 1}'::json;
SELECT bloom_empty(100) + point(1, 2);
SELECT bloom_empty(100) + box(point(0, 0), point(1, 1));
SELECT bloom_empty(100) + 'a b'::tsvector;
SELECT bloom_empty(100) + ARRAY['{}'::json];
SELECT bloom_empty(100) + ROW(1, point(1, 2));
SELECT point(1, 2) <@ bloom_empty(100);
SELECT bloom_agg(p) FROM (VALUES (point(1, 2))) v(p);

----------------------------------------------------------------------
-- 9. Empty filters: family "none", every probe false, no error
----------------------------------------------------------------------

SELECT key_family, added FROM bloom_info(bloom_empty(100));
SELECT bloom_empty(100) @> 1 AS int,
       bloom_empty(100) @> 'x'::text AS text,
       bloom_empty(100) @> '\x00'::bytea AS bytea,
       bloom_empty(100) @> 1.5::float8 AS float,
       bloom_empty(100) @> 'ok'::bf_fam_mood AS enum,
       '10.0.0.1'::inet <@ bloom_empty(100) AS inet,
       bloom_contains(bloom_empty(100), now()) AS tstz;
-- adding nothing (a NULL, an empty or all-NULL array) leaves it without a family
SELECT (bloom_info(bloom_empty(100) + NULL::int)).key_family AS null_add,
       (bloom_info(bloom_add_all(bloom_empty(100), '{}'::text[]))).key_family AS empty_array,
       (bloom_info(bloom_add_all(bloom_empty(100), ARRAY[NULL, NULL]::int[]))).key_family AS null_array;
-- ... so it still adopts the family of the first real key
SELECT (bloom_info(bloom_add_all(bloom_empty(100), ARRAY[NULL, NULL]::int[]) + 'x'::text)).key_family AS adopts;

----------------------------------------------------------------------
-- 10. Untyped literals resolve to text
----------------------------------------------------------------------

SELECT (bloom_info(bloom_empty(100) + 'abc')).key_family AS add_family,
       bloom_empty(100) + 'abc' = bloom_empty(100) + 'abc'::text AS add_is_text,
       bloom_add(bloom_empty(100), 'abc') = bloom_empty(100) + 'abc'::text AS fn_add_is_text,
       (bloom_empty(100) + 'abc') @> 'abc' AS contains,
       'abc' <@ (bloom_empty(100) + 'abc') AS contained_in,
       bloom_contains(bloom_empty(100) + 'abc', 'abc') AS fn_contains;
-- so a quoted number is text, not an integer: probing an integer filter with it is an error
SELECT (bloom_empty(100) + 5) @> '5';

----------------------------------------------------------------------
-- 11. NULL elements
----------------------------------------------------------------------

SELECT bloom_add(bloom_empty(100) + 7, NULL::int) = bloom_empty(100) + 7 AS add_null_unchanged,
       (bloom_empty(100) + 7) + NULL::int = bloom_empty(100) + 7 AS op_null_unchanged,
       (bloom_empty(100) + 7) + NULL = bloom_empty(100) + 7 AS untyped_null_unchanged,
       bloom_contains(bloom_empty(100) + 7, NULL::int) IS NULL AS contains_null,
       ((bloom_empty(100) + 7) @> NULL::int) IS NULL AS op_contains_null,
       (NULL::int <@ (bloom_empty(100) + 7)) IS NULL AS contained_in_null;
-- bloom_add_all skips NULL elements: 1 and 3 are added, and counted
SELECT bloom_add_all(bloom_empty(100), ARRAY[1, NULL, 3]) = bloom_empty(100) + 1 + 3 AS same_as_1_3,
       (bloom_info(bloom_add_all(bloom_empty(100), ARRAY[1, NULL, 3]))).added AS added;
-- the aggregate skips NULL rows too
SELECT (bloom_info(bloom_agg(v, 10, 0.01))).added AS agg_added,
       bloom_agg(v, 10, 0.01) = bloom_add_all(bloom_empty(10, 0.01), ARRAY[1, 3]) AS agg_same
FROM unnest(ARRAY[1, NULL, 3]) v;

----------------------------------------------------------------------
-- 12. No false negatives over 100,000 keys of several families
----------------------------------------------------------------------
-- For each type: every key added is found; absent keys are found at about
-- the target rate (a degenerate encoding, e.g. one that hashed only part
-- of a key, would be caught here); the filter's cardinality estimate is
-- close to the key count (many keys colliding into one encoding would not be).

CREATE TABLE bf_fam_keys AS
SELECT g,
       g * 2654435761::int8 - 4000000000000 AS i8,
       md5(g::text) AS t,
       md5('u' || g)::uuid AS u,
       g / 7.0 AS n,
       '2020-01-01 00:00:00+00'::timestamptz + g * interval '1.001 seconds' AS ts
FROM generate_series(1, 100000) g;
CREATE TABLE bf_fam_absent AS
SELECT g,
       -(g * 2654435761::int8) - 7 AS i8,
       md5('absent' || g) AS t,
       md5('v' || g)::uuid AS u,
       g / 7.0 + 0.00001 AS n,
       '2020-01-01 00:00:00+00'::timestamptz + g * interval '1.001 seconds' + interval '1 microsecond' AS ts
FROM generate_series(1, 100000) g;
CREATE TABLE bf_fam_f AS
SELECT bloom_agg(i8, 100000, 0.01) AS i8,
       bloom_agg(t, 100000, 0.01) AS t,
       bloom_agg(u, 100000, 0.01) AS u,
       bloom_agg(n, 100000, 0.01) AS n,
       bloom_agg(ts, 100000, 0.01) AS ts
FROM bf_fam_keys;

SELECT count(*) FILTER (WHERE NOT (k.i8 <@ f.i8)) AS int8_fn,
       count(*) FILTER (WHERE NOT (k.t <@ f.t)) AS text_fn,
       count(*) FILTER (WHERE NOT (k.u <@ f.u)) AS uuid_fn,
       count(*) FILTER (WHERE NOT (k.n <@ f.n)) AS numeric_fn,
       count(*) FILTER (WHERE NOT (k.ts <@ f.ts)) AS timestamptz_fn
FROM bf_fam_keys k, bf_fam_f f;
-- the same keys probed through the other types of their family
SELECT count(*) FILTER (WHERE NOT (k.t::varchar <@ f.t)) AS varchar_fn,
       count(*) FILTER (WHERE NOT (k.t::char(40) <@ f.t)) AS bpchar_fn,
       count(*) FILTER (WHERE NOT bloom_contains(f.t, k.t::name)) AS name_fn,
       count(*) FILTER (WHERE NOT (round(k.n, 30) <@ f.n)) AS rescaled_numeric_fn
FROM bf_fam_keys k, bf_fam_f f;
SELECT count(*) FILTER (WHERE a.i8 <@ f.i8) < 2000 AS int8_fp_ok,
       count(*) FILTER (WHERE a.t <@ f.t) < 2000 AS text_fp_ok,
       count(*) FILTER (WHERE a.u <@ f.u) < 2000 AS uuid_fp_ok,
       count(*) FILTER (WHERE a.n <@ f.n) < 2000 AS numeric_fp_ok,
       count(*) FILTER (WHERE a.ts <@ f.ts) < 2000 AS timestamptz_fp_ok
FROM bf_fam_absent a, bf_fam_f f;
SELECT abs(bloom_cardinality(i8) - 100000) < 5000 AS int8_card,
       abs(bloom_cardinality(t) - 100000) < 5000 AS text_card,
       abs(bloom_cardinality(u) - 100000) < 5000 AS uuid_card,
       abs(bloom_cardinality(n) - 100000) < 5000 AS numeric_card,
       abs(bloom_cardinality(ts) - 100000) < 5000 AS timestamptz_card,
       (bloom_info(i8)).key_family AS f1, (bloom_info(t)).key_family AS f2,
       (bloom_info(u)).key_family AS f3, (bloom_info(n)).key_family AS f4,
       (bloom_info(ts)).key_family AS f5
FROM bf_fam_f;

-- one family, one filter: the same 100,000 values aggregated through each
-- type of a family give byte-identical filters
SELECT (SELECT bloom_agg(t::char(40), 100000, 0.01) FROM bf_fam_keys) = t AS bpchar_agg,
       (SELECT bloom_agg(t::name, 100000, 0.01) FROM bf_fam_keys) = t AS name_agg,
       (SELECT bloom_agg(t::varchar, 100000, 0.01) FROM bf_fam_keys) = t AS varchar_agg,
       (SELECT bloom_agg(round(n, 25), 100000, 0.01) FROM bf_fam_keys) = n AS rescaled_numeric_agg
FROM bf_fam_f;
SELECT (SELECT bloom_agg(g::int4, 100000, 0.01) FROM bf_fam_keys)
         = (SELECT bloom_agg(g::int8, 100000, 0.01) FROM bf_fam_keys) AS int4_agg_eq_int8,
       (SELECT bloom_agg((g / 4.0)::float4, 100000, 0.01) FROM bf_fam_keys)
         = (SELECT bloom_agg((g / 4.0)::float8, 100000, 0.01) FROM bf_fam_keys) AS float4_agg_eq_float8;
-- every int2 value, negative ones included, built as int2 and probed as int4 and int8
SELECT count(*) FILTER (WHERE NOT (v::int4 <@ f)) AS int4_fn,
       count(*) FILTER (WHERE NOT (v::int8 <@ f)) AS int8_fn,
       count(*) AS keys
FROM generate_series(-32768, 32767) v,
     (SELECT bloom_agg(v::int2, 65536, 0.01) AS f FROM generate_series(-32768, 32767) v) s;
-- a timestamptz filter built under one zone answers the same instants under another
SET timezone = 'Pacific/Auckland';
SELECT count(*) FILTER (WHERE NOT (k.ts <@ f.ts)) AS auckland_fn,
       count(*) FILTER (WHERE NOT ((k.ts::text)::timestamptz <@ f.ts)) AS reparsed_fn
FROM bf_fam_keys k, bf_fam_f f;
SET timezone = 'UTC';
DROP TABLE bf_fam_keys, bf_fam_absent, bf_fam_f;

----------------------------------------------------------------------
-- 13. The encoding, byte for byte (machine independence)
----------------------------------------------------------------------
-- Keys are hashed with XXH3-64 (frozen since xxHash 0.8.0) over these
-- canonical key bytes (src/core/FORMAT.md), which do not depend on the
-- machine's byte order, the database or client encoding, or any setting:
--   integer      the value as 8 bytes, little-endian, two's complement
--   float        the IEEE 754 double's bits as 8 bytes, little-endian;
--                -0 as 0, every NaN as 0x7ff8000000000000
--   numeric      its text form, trailing fractional zeros and a bare point removed
--   text family  its characters as UTF-8, without trailing spaces
--   bytea        its bytes;  uuid  its 16 bytes;  bool  one byte, 1 or 0
--   date         days since 2000-01-01 as 8 bytes, little-endian
--   timestamp(tz) microseconds since 2000-01-01 00:00 UTC, 8 bytes, little-endian
--   interval     the span in microseconds (a month is 30 days), 16 bytes LE
--   enum         its label as UTF-8
--   jsonb        tokens: n t f, d+len+number, s+len+string, [ ... ],
--                { k+len+key value ... } with keys shorter first, then bytewise
--   array        ndims, then length and lower bound per dimension (4 bytes
--                LE each), then each element as a part
--   row          the number of columns (4 bytes LE), then each column as a part
--   range        flags (1 empty, 2 [, 4 ], 8 no lower, 16 no upper), then each
--                finite bound as a part;  multirange: count, each range as a part
--   part         0 for NULL, else 1, the length (4 bytes LE), the part's key bytes
--   other        bitwise types: their stored bytes (by-value types little-endian)
--   hashed       the type's extended hash at seed 0, 8 bytes LE
-- Each line below shows that the bits a key sets are exactly the bits set
-- by a bytea key holding its documented encoding.
SELECT bf_fam_bits(bf_fam_one(5)) = bf_fam_bits(bf_fam_one('\x0500000000000000'::bytea)) AS int_5,
       bf_fam_bits(bf_fam_one((-2)::int2)) = bf_fam_bits(bf_fam_one('\xfeffffffffffffff'::bytea)) AS int_minus_2,
       bf_fam_bits(bf_fam_one(5000000000::int8)) = bf_fam_bits(bf_fam_one('\x00f2052a01000000'::bytea)) AS int_5e9;
SELECT bf_fam_bits(bf_fam_one(1.5::float8)) = bf_fam_bits(bf_fam_one('\x000000000000f83f'::bytea)) AS float_1_5,
       bf_fam_bits(bf_fam_one('-0'::float4)) = bf_fam_bits(bf_fam_one('\x0000000000000000'::bytea)) AS float_neg_zero,
       bf_fam_bits(bf_fam_one(-'NaN'::float8)) = bf_fam_bits(bf_fam_one('\x000000000000f87f'::bytea)) AS float_nan,
       bf_fam_bits(bf_fam_one('-Infinity'::float4)) = bf_fam_bits(bf_fam_one('\x000000000000f0ff'::bytea)) AS float_neg_inf;
SELECT bf_fam_bits(bf_fam_one(1.50)) = bf_fam_bits(bf_fam_one('1.5'::bytea)) AS numeric_1_50,
       bf_fam_bits(bf_fam_one(1e1)) = bf_fam_bits(bf_fam_one('10'::bytea)) AS numeric_1e1,
       bf_fam_bits(bf_fam_one(-0.0)) = bf_fam_bits(bf_fam_one('0'::bytea)) AS numeric_neg_zero,
       bf_fam_bits(bf_fam_one(1e-3)) = bf_fam_bits(bf_fam_one('0.001'::bytea)) AS numeric_1e_3,
       bf_fam_bits(bf_fam_one('NaN'::numeric)) = bf_fam_bits(bf_fam_one('NaN'::bytea)) AS numeric_nan;
SELECT bf_fam_bits(bf_fam_one('ab'::text)) = bf_fam_bits(bf_fam_one('ab'::bytea)) AS text_ab,
       bf_fam_bits(bloom_add_all(bloom_empty_bits(4096, 7, 'classic'), ARRAY['ab'::char(6)]))
         = bf_fam_bits(bf_fam_one('ab'::bytea)) AS bpchar_ab,
       bf_fam_bits(bloom_add_all(bloom_empty_bits(4096, 7, 'classic'), ARRAY['ab'::name]))
         = bf_fam_bits(bf_fam_one('ab'::bytea)) AS name_ab;
SELECT bf_fam_bits(bf_fam_one('ab  '::text)) = bf_fam_bits(bf_fam_one('ab'::bytea)) AS text_spaces_dropped,
       bf_fam_bits(bf_fam_one(' ab'::varchar)) = bf_fam_bits(bf_fam_one(' ab'::bytea)) AS leading_spaces_kept;
SELECT bf_fam_bits(bf_fam_one('2000-01-02'::date)) = bf_fam_bits(bf_fam_one('\x0100000000000000'::bytea)) AS date_day_1,
       bf_fam_bits(bf_fam_one('1999-12-31'::date)) = bf_fam_bits(bf_fam_one('\xffffffffffffffff'::bytea)) AS date_day_minus_1,
       bf_fam_bits(bf_fam_one('2000-01-01 00:00:01'::timestamp)) = bf_fam_bits(bf_fam_one('\x40420f0000000000'::bytea)) AS ts_1s,
       bf_fam_bits(bf_fam_one('2000-01-01 09:00:01+09'::timestamptz)) = bf_fam_bits(bf_fam_one('\x40420f0000000000'::bytea)) AS tstz_1s;
-- infinite dates and timestamps are the extremes of their integers
SELECT bf_fam_bits(bf_fam_one('-infinity'::date)) = bf_fam_bits(bf_fam_one('\x00000080ffffffff'::bytea)) AS date_minus_inf,
       bf_fam_bits(bf_fam_one('infinity'::date)) = bf_fam_bits(bf_fam_one('\xffffff7f00000000'::bytea)) AS date_inf,
       bf_fam_bits(bf_fam_one('-infinity'::timestamp)) = bf_fam_bits(bf_fam_one('\x0000000000000080'::bytea)) AS ts_minus_inf,
       bf_fam_bits(bf_fam_one('infinity'::timestamptz)) = bf_fam_bits(bf_fam_one('\xffffffffffffff7f'::bytea)) AS tstz_inf;

-- the encodings of the composite and structured families, spelled with
-- helpers that read like FORMAT.md: le(v, n) is v as n bytes little-endian,
-- part(b) a non-null part holding the bytes b
CREATE FUNCTION bf_fam_le(v numeric, n int) RETURNS bytea LANGUAGE sql AS $$
	SELECT decode(string_agg(lpad(to_hex((div(w, power(256::numeric, i)) % 256)::int), 2, '0'), '' ORDER BY i), 'hex')
	FROM (SELECT CASE WHEN v < 0 THEN v + power(2::numeric, 8 * n) ELSE v END AS w) x,
	     generate_series(0, n - 1) i $$;
CREATE FUNCTION bf_fam_part(b bytea) RETURNS bytea LANGUAGE sql
AS $$ SELECT '\x01'::bytea || bf_fam_le(length(b), 4) || b $$;
CREATE FUNCTION bf_fam_is(key bloomfilter, bytes bytea) RETURNS bool LANGUAGE sql
AS $$ SELECT bf_fam_bits(key) = bf_fam_bits(bf_fam_one(bytes)) $$;
SELECT bf_fam_le(-2, 4) AS le_minus_2, bf_fam_part('\x61') AS part_a;
SELECT bf_fam_is(bf_fam_one('1 day'::interval), bf_fam_le(86400000000, 8) || bf_fam_le(0, 8)) AS interval_1_day,
       bf_fam_is(bf_fam_one('-1 mon 1 hour'::interval), bf_fam_le(-30 * 86400000000::numeric + 3600000000, 8) || bf_fam_le(-1, 8)) AS interval_negative,
       bf_fam_is(bf_fam_one('ok'::bf_fam_mood), 'ok'::bytea) AS enum_label,
       bf_fam_is(bf_fam_one('"x"'::jsonb), 's'::bytea || bf_fam_le(1, 4) || 'x'::bytea) AS jsonb_scalar,
       bf_fam_is(bf_fam_one('{"b": 2.50, "a": [1, null, true]}'::jsonb),
                 '{k'::bytea || bf_fam_le(1, 4) || 'a[d'::bytea || bf_fam_le(1, 4) || '1nt]k'::bytea
                 || bf_fam_le(1, 4) || 'bd'::bytea || bf_fam_le(3, 4) || '2.5}'::bytea) AS jsonb_object;
SELECT bf_fam_is(bf_fam_one(ARRAY[1, NULL]),
                 bf_fam_le(1, 4) || bf_fam_le(2, 4) || bf_fam_le(1, 4)
                 || bf_fam_part(bf_fam_le(1, 8)) || '\x00'::bytea) AS int_array,
       bf_fam_is(bf_fam_one('{}'::text[]), bf_fam_le(0, 4)) AS empty_array,
       bf_fam_is(bf_fam_one(ROW(1, NULL::text, 'a  '::char(3))),
                 bf_fam_le(3, 4) || bf_fam_part(bf_fam_le(1, 8)) || '\x00'::bytea
                 || bf_fam_part('a'::bytea)) AS row_of_three,
       bf_fam_is(bf_fam_one(int4range(1, 3)),
                 '\x02'::bytea || bf_fam_part(bf_fam_le(1, 8)) || bf_fam_part(bf_fam_le(3, 8))) AS int4range_1_3,
       bf_fam_is(bf_fam_one(numrange(1.50, NULL)), '\x12'::bytea || bf_fam_part('1.5'::bytea)) AS numrange_unbounded,
       bf_fam_is(bf_fam_one('empty'::numrange), '\x01'::bytea) AS empty_range,
       bf_fam_is(bf_fam_one('{[1,3)}'::int4multirange),
                 bf_fam_le(1, 4) || bf_fam_part('\x02'::bytea || bf_fam_part(bf_fam_le(1, 8))
                                                || bf_fam_part(bf_fam_le(3, 8)))) AS multirange;
SELECT bf_fam_is(bf_fam_one('192.168.0.1/24'::inet), '\x0218c0a80001'::bytea) AS inet_stored_bytes,
       bf_fam_is(bf_fam_one('12:34'::time), bf_fam_le(45240000000, 8)) AS time_by_value,
       bf_fam_is(bf_fam_one(1.5::money), bf_fam_le(150, 8)) AS money_by_value,
       bf_fam_is(bf_fam_one('7'::xid), bf_fam_le(hashint4extended(7, 0), 8)) AS xid_hashed;

-- Pinned filters.  These bytes are the portable format (header, checksum
-- and bits) of tiny filters holding fixed keys.  They must not change:
-- another machine, another build or another PostgreSQL version must
-- produce exactly these bytes, or filters shipped between them would
-- answer wrongly.  Changing the hash, a key encoding, the bit placement or
-- the header needs a new format version (and a new expected output here).
SELECT encode((bloom_empty_bits(64, 3, 'classic') + 1 + 2 + 3)::bytea, 'hex') AS int_1_2_3;
SELECT encode((bloom_empty_bits(64, 3, 'classic') + 'a'::text + 'b'::text + 'c'::text)::bytea, 'hex') AS text_a_b_c;
SELECT encode((bloom_empty_bits(64, 3, 'classic', 42) + 5000000000::int8 + (-1)::int2)::bytea, 'hex') AS int_seed_42;
SELECT encode((bloom_empty_bits(512, 3, 'blocked') + 1 + 2 + 3)::bytea, 'hex') AS blocked_int_1_2_3;
-- and one small filter per family: the bit array only, behind the family field
SELECT fam, encode(substring(f::bytea FROM 33 FOR 2), 'hex') AS family_field,
       encode(substring(f::bytea FROM 37 FOR 4), 'hex') AS type_tag,
       encode(bf_fam_bits(f), 'hex') AS bits
FROM (VALUES
	('float',       bloom_empty_bits(128, 3, 'classic') + 1.5::float8 + 'NaN'::float4),
	('numeric',     bloom_empty_bits(128, 3, 'classic') + 1.50 + 1e-20),
	('bytea',       bloom_empty_bits(128, 3, 'classic') + '\xdeadbeef'::bytea),
	('uuid',        bloom_empty_bits(128, 3, 'classic') + 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
	('bool',        bloom_empty_bits(128, 3, 'classic') + true),
	('date',        bloom_empty_bits(128, 3, 'classic') + '2024-03-10'::date),
	('timestamp',   bloom_empty_bits(128, 3, 'classic') + '2024-03-10 12:00'::timestamp),
	('timestamptz', bloom_empty_bits(128, 3, 'classic') + '2024-03-10 12:00+00'::timestamptz),
	('inet',        bloom_empty_bits(128, 3, 'classic') + '192.168.0.1'::inet),
	('int4[]',      bloom_empty_bits(128, 3, 'classic') + ARRAY[1, 2, 3]),
	('interval',    bloom_empty_bits(128, 3, 'classic') + '1 day 2 hours'::interval),
	('jsonb',       bloom_empty_bits(128, 3, 'classic') + '{"a": [1, "b"]}'::jsonb),
	('row',         bloom_empty_bits(128, 3, 'classic') + ROW(1, 'x'::text)),
	('int4range',   bloom_empty_bits(128, 3, 'classic') + int4range(1, 10))
) v(fam, f);

----------------------------------------------------------------------
-- 14. Types created in a database are identified by name, not by OID
----------------------------------------------------------------------
-- A filter is shipped to other databases, where a type created by the user
-- (enum, composite, domain, extension type) has another OID.  So the family
-- tag of such a type, and the bytes hashed for its values, must not depend
-- on its OID, nor on the session's search_path.

CREATE SCHEMA bf_fam_s;
CREATE TYPE bf_fam_s.color AS ENUM ('red', 'green');
CREATE TYPE bf_fam_s.tagged AS (c bf_fam_s.color, n int);
-- the tag does not depend on whether the type's schema is in search_path
SET search_path = public, bf_fam_s;
CREATE TABLE bf_fam_ship AS
	SELECT bloom_empty(100) + 'red'::bf_fam_s.color AS scalar;
SELECT scalar @> 'red'::bf_fam_s.color AS scalar_found FROM bf_fam_ship;
RESET search_path;
SELECT scalar @> 'red'::bf_fam_s.color AS scalar_found_other_path FROM bf_fam_ship;

-- arrays and rows of such types are written from their parts, never
-- their OIDs: an enum inside is its label, so they ship too
ALTER TABLE bf_fam_ship ADD arr bloomfilter, ADD named bloomfilter, ADD anon bloomfilter;
UPDATE bf_fam_ship SET arr = bloom_empty(100) + ARRAY['red'::bf_fam_s.color],
                       named = bloom_empty(100) + ROW('red', 1)::bf_fam_s.tagged,
                       anon = bloom_empty(100) + ROW('red'::bf_fam_s.color, 1);
SELECT arr @> ARRAY['red'::bf_fam_s.color] AS arr_found,
       named @> ROW('red', 1)::bf_fam_s.tagged AS named_found,
       anon @> ROW('red'::bf_fam_s.color, 1::int8) AS anon_found
FROM bf_fam_ship;

-- dropping and re-creating the type gives it a new OID, as in another
-- database: the same values must still be found
-- (and, as another database may, with the labels declared in another order)
DROP TYPE bf_fam_s.tagged;
DROP TYPE bf_fam_s.color;
CREATE TYPE bf_fam_s.color AS ENUM ('green', 'red');
CREATE TYPE bf_fam_s.tagged AS (c bf_fam_s.color, n int);
SELECT scalar @> 'red'::bf_fam_s.color AS scalar_found_new_oid,
       arr @> ARRAY['red'::bf_fam_s.color] AS arr_found_new_oid,
       named @> ROW('red', 1)::bf_fam_s.tagged AS named_found_new_oid,
       anon @> ROW('red'::bf_fam_s.color, 1) AS anon_found_new_oid
FROM bf_fam_ship;
DROP TYPE bf_fam_s.tagged;
DROP TABLE bf_fam_ship;
DROP TYPE bf_fam_s.color;
DROP SCHEMA bf_fam_s;

DROP FUNCTION bf_fam_is(bloomfilter, bytea);
DROP FUNCTION bf_fam_part(bytea);
DROP FUNCTION bf_fam_le(numeric, int);
DROP FUNCTION bf_fam_mask(text);
DROP FUNCTION bf_fam_one(anyelement);
DROP FUNCTION bf_fam_bits(bloomfilter);
DROP TYPE bf_fam_pair;
DROP TYPE bf_fam_mood;
DROP DOMAIN bf_fam_code;
DROP DOMAIN bf_fam_small;
DROP DOMAIN bf_fam_posint;
RESET timezone;
