--
-- Equality: a key that was added always probes true.
--
-- The contract (DESIGN.md, "Elements"; issue #12): for every type with =,
-- wherever x = y holds under the operator PostgreSQL resolves, y <@ (f + x)
-- and x <@ (f + y) hold, for every filter of the extension (bloomfilter,
-- countingbloom, scalablebloom, bloomwindow), the batch functions, the
-- aggregates and the GiST key, in any encoding, client encoding, plan and
-- setting.  Where a type cannot be hashed so, adding or probing it is an
-- ERROR with SQLSTATE 0A000 (feature_not_supported), never a silent false.
-- A filter of one key family probed with another family is an ERROR 42804
-- (datatype_mismatch); that answer is accepted where x and y are of two
-- families, a false never is.
--
-- The pairs are a table of SQL expressions (type, x, y); a function runs
-- every check on every pair in both directions, and the queries print only
-- the failures (so the expected output shows zero rows) and, per type, how
-- many pairs and checks ran (so a check that stops running would show).
--
-- Multi-database parts (a LATIN1 database, enums created in two databases
-- in another order and filters shipped both ways) are in
-- test/t/010_equality_encodings.pl.
--

-- Its own UTF8 database, whatever the cluster's default encoding: the
-- non-ASCII keys below need it, and the ICU collation too.
\set regdb :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS bloom_key_hashing;
RESET client_min_messages;
CREATE DATABASE bloom_key_hashing ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c bloom_key_hashing
CREATE EXTENSION bloomfilter;
CREATE EXTENSION citext;
SET timezone = 'UTC';
SET datestyle = 'ISO, MDY';

-- explain_neutral(): EXPLAIN printed alike by every PostgreSQL version
\set ECHO none
\i sql/explain_neutral.inc
\set ECHO all

----------------------------------------------------------------------
-- Types and values the pairs use
----------------------------------------------------------------------

-- a nondeterministic collation: 'ABC' = 'abc' under it
CREATE COLLATION eq_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT 'ABC' COLLATE eq_ci = 'abc' COLLATE eq_ci AS ci_equal;

CREATE TYPE eq_color AS ENUM ('red', 'green', 'blue');
-- labels outside ASCII, written with chr() so that this file is ASCII: one
-- enum whose labels LATIN1 can show, one with labels it cannot
DO $$
BEGIN
	EXECUTE format('CREATE TYPE eq_latin AS ENUM (%L, %L, %L, %L)',
		'caf' || chr(233), 'na' || chr(239) || 've', chr(201) || 't' || chr(233), 'plain');
	EXECUTE format('CREATE TYPE eq_wide AS ENUM (%L, %L, %L)',
		chr(8364) || '1', chr(1078) || chr(1091) || chr(1082), chr(26085) || chr(26412));
END $$;
CREATE TYPE eq_pair AS (a int, b text);
CREATE TYPE eq_nest AS (p eq_pair, tags varchar[], c eq_color);
CREATE TYPE eq_bpair AS (a bigint, c char(5));
CREATE DOMAIN eq_posint AS int CHECK (VALUE > 0);
CREATE DOMAIN eq_amount AS numeric(12, 2);
CREATE DOMAIN eq_code AS varchar(10);
CREATE DOMAIN eq_code2 AS eq_code;
CREATE DOMAIN eq_bpc AS char(5);
CREATE DOMAIN eq_doc AS jsonb;
CREATE DOMAIN eq_span AS interval;
CREATE DOMAIN eq_nums AS numeric[];
CREATE DOMAIN eq_pair_d AS eq_pair;
CREATE DOMAIN eq_rng AS numrange;
CREATE DOMAIN eq_colord AS eq_color;
CREATE DOMAIN eq_ts AS timestamptz;
CREATE DOMAIN eq_flt AS float8;
-- types whose = cannot be hashed (below, they must be refused)
CREATE TYPE eq_jpair AS (a int, j json);
CREATE TYPE eq_cipair AS (a int, t text COLLATE eq_ci);
CREATE DOMAIN eq_cid AS text COLLATE eq_ci;
CREATE DOMAIN eq_jd AS json;
CREATE DOMAIN eq_boxd AS box;

-- values read from a table: short (1-byte) varlena headers, compressed and
-- out-of-line (TOAST) values, which the same values built in a query do
-- not have
CREATE TABLE eq_store (k text PRIMARY KEY, t text, tx text, n numeric, b bytea, j jsonb,
	a numeric[], c eq_pair, e eq_color, r numrange, v varchar, bp char(8));
ALTER TABLE eq_store ALTER COLUMN tx SET STORAGE EXTERNAL;
INSERT INTO eq_store VALUES
	('small', 'ab', 'ab', 1.50, '\x6162', '{"a": 1.0}', ARRAY[1.0, 2.50], ROW(1, 'ab'), 'green',
	 numrange(1.0, 2.50), 'ab ', 'ab'),
	('big', repeat('xyz', 5000), repeat('xyz', 5000), 10.0 ^ 200 + 0.5,
	 decode(repeat('abcd', 5000), 'hex'), jsonb_build_object('a', 1.0, 'pad', repeat('p', 5000)),
	 array_fill(1.50, ARRAY[1000]), ROW(7, repeat('q', 5000)), 'blue', numrange(0.10, 1.0),
	 repeat('v', 3000) || '   ', repeat('w', 6));
SELECT k, pg_column_size(t) < octet_length(t) AS t_compressed,
	pg_column_size(tx) >= octet_length(tx) AS tx_uncompressed
FROM eq_store ORDER BY k;

----------------------------------------------------------------------
-- The pairs
----------------------------------------------------------------------
-- ok: what each check may answer
--   T              true
--   T|42804        true, or datatype_mismatch: x and y are of two families
--   T|0A000        true, or feature_not_supported: types whose hashing the
--                  contract leaves open (refusing them is allowed)
--   T|0A000|42804  either
--   0A000          = holds but cannot be hashed: must be refused
-- eq: how x = y is checked, when (x) = (y) is not how PostgreSQL compares
--   them (no operator between the two types, or NULL fields)
-- settings: false when the value of x or y depends on a session setting
--   (they are left out of the settings pass)
CREATE TABLE eq_pairs (id serial PRIMARY KEY, type text NOT NULL, x text NOT NULL,
	y text NOT NULL, ok text NOT NULL DEFAULT 'T', eq text, settings bool NOT NULL DEFAULT true);

INSERT INTO eq_pairs (type, x, y) VALUES
-- integers: int2, int4 and int8 across each other
('int', $$1::int2$$, $$1::int4$$),
('int', $$1::int2$$, $$1::int8$$),
('int', $$1::int4$$, $$1::int8$$),
('int', $$(-1)::int2$$, $$(-1)::int8$$),
('int', $$32767::int2$$, $$'32767'::int8$$),
('int', $$(-32768)::int2$$, $$(-32768)::int4$$),
('int', $$(-2147483648)::int4$$, $$(-2147483648)::int8$$),
('int', $$0::int2$$, $$(-0)::int8$$),
('int', $$'  42 '::int4$$, $$42::int2$$),
('int', $$9223372036854775807::int8$$, $$'+9223372036854775807'::int8$$),
('int', $$(SELECT count(*) FROM eq_store)$$, $$2::int2$$),
-- float4 and float8: -0 and 0, every NaN, a float4 and its widening
('float', $$'-0'::float8$$, $$0::float8$$),
('float', $$'-0'::float4$$, $$0::float8$$),
('float', $$'-0'::float4$$, $$'0'::float4$$),
('float', $$-(0::float8)$$, $$0::float4$$),
('float', $$'NaN'::float8$$, $$'Infinity'::float8 - 'Infinity'::float8$$),
('float', $$'NaN'::float8$$, $$-('NaN'::float8)$$),
('float', $$'NaN'::float4$$, $$-('NaN'::float8)$$),
('float', $$'nan'::float4$$, $$'NaN'::float4::float8$$),
('float', $$'Infinity'::float8 * 0$$, $$'NaN'::float4$$),
('float', $$0.1::float4$$, $$0.1::float4::float8$$),
('float', $$1.5::float4$$, $$1.5::float8$$),
('float', $$'1e-45'::float4$$, $$'1e-45'::float4::float8$$),
('float', $$'3.4028235e38'::float4$$, $$'3.4028235e38'::float4::float8$$),
('float', $$'1e300'::float8$$, $$'1E+300'::float8$$),
('float', $$'Infinity'::float4$$, $$'inf'::float8$$),
('float', $$'-Infinity'::float8$$, $$'-inf'::float4$$),
('float', $$0.1::float8 + 0.2::float8$$, $$'0.30000000000000004'::float8$$),
('float', $$'2.5e-324'::float8$$, $$'4.9406564584124654e-324'::float8$$),
-- numeric: by value, whatever the scale
('numeric', $$1.0$$, $$1.00$$),
('numeric', $$1::numeric$$, $$1.000$$),
('numeric', $$-0.0$$, $$0::numeric$$),
('numeric', $$'-0.000'::numeric$$, $$0.0$$),
('numeric', $$'NaN'::numeric$$, $$'nan'::numeric$$),
('numeric', $$'Infinity'::numeric$$, $$'inf'::numeric$$),
('numeric', $$'-Infinity'::numeric$$, $$'-inf'::numeric$$),
('numeric', $$1e-20$$, $$0.00000000000000000001000$$),
('numeric', $$1e20$$, $$100000000000000000000.000$$),
('numeric', $$'1e1000'::numeric$$, $$('1' || repeat('0', 1000))::numeric$$),
('numeric', $$'1e-1000'::numeric$$, $$('0.' || repeat('0', 999) || '1000')::numeric$$),
('numeric', $$123456789012345678901234567890.123456789$$, $$123456789012345678901234567890.12345678900000$$),
('numeric', $$10::numeric$$, $$1e1$$),
('numeric', $$1.10$$, $$1.1$$),
('numeric', $$round(2.5, 5)$$, $$2.5$$),
('numeric', $$1.5::numeric(10, 4)$$, $$1.5::numeric(3, 1)$$),
('numeric', $$(SELECT n FROM eq_store WHERE k = 'small')$$, $$1.5$$),
('numeric', $$(SELECT n FROM eq_store WHERE k = 'big')$$, $$10.0 ^ 200 + 0.50$$),
('numeric', $$0.0001 * 10000$$, $$1::numeric$$),
-- the text family: text, varchar, char(n), name, with the trailing spaces
-- char(n) ignores, and outside ASCII
('text', $$'ab'::text$$, $$'ab'::varchar$$),
('text', $$'ab'::text$$, $$'ab'::name$$),
('text', $$'ab'::varchar$$, $$'ab'::name$$),
('text', $$'ab'::char(5)$$, $$'ab'::varchar$$),
('text', $$'ab '::varchar$$, $$'ab'::char(5)$$),
('text', $$'ab   '::varchar$$, $$'ab'::char(2)$$),
('text', $$'ab'::char(5)$$, $$'ab'::text$$),
('text', $$'ab  '::char(5)$$, $$'ab'::text$$),
('text', $$'ab'::char(5)$$, $$'ab '::char(3)$$),
('text', $$'ab'::name$$, $$'ab'::char(5)$$),
('text', $$''::text$$, $$'   '::char(3)$$),
('text', $$'  '::varchar$$, $$''::char(1)$$),
('text', $$'abc'::varchar(2)$$, $$'ab'::text$$),
('text', $$'ab'::varchar(10)$$, $$'ab'::text$$),
('text', $$'caf' || chr(233)$$, $$U&'caf\00E9'::varchar$$),
('text', $$('caf' || chr(233))::char(6)$$, $$U&'caf\00e9  '::varchar$$),
('text', $$(chr(233) || ' ')::char(4)$$, $$chr(233)::text$$),
('text', $$chr(8364)::name$$, $$U&'\20AC'::text$$),
('text', $$(chr(26085) || chr(26412))::varchar$$, $$U&'\65E5\672C'::name$$),
('text', $$U&'\+01F600'$$, $$chr(128512)::varchar$$),
('text', $$(SELECT t FROM eq_store WHERE k = 'big')$$, $$repeat('xyz', 5000)$$),
('text', $$(SELECT tx FROM eq_store WHERE k = 'big')$$, $$repeat('xyz', 5000)::varchar$$),
('text', $$(SELECT t FROM eq_store WHERE k = 'small')$$, $$'ab'::char(4)$$),
('text', $$(SELECT v FROM eq_store WHERE k = 'small')$$, $$'ab'::char(4)$$),
('text', $$(SELECT bp FROM eq_store WHERE k = 'small')$$, $$'ab '::varchar$$),
('text', $$(SELECT v FROM eq_store WHERE k = 'big')$$, $$repeat('v', 3000)::char(3000)$$),
-- bytea, uuid, bool
('bytea', $$'\x616263'::bytea$$, $$'abc'::bytea$$),
('bytea', $$E'\\141\\142\\143'::bytea$$, $$'\x616263'::bytea$$),
('bytea', $$''::bytea$$, $$'\x'::bytea$$),
('bytea', $$decode('AAEC', 'base64')$$, $$'\x000102'::bytea$$),
('bytea', $$(SELECT b FROM eq_store WHERE k = 'big')$$, $$decode(repeat('ABCD', 5000), 'hex')$$),
('uuid', $$'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid$$, $$'{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}'::uuid$$),
('uuid', $$'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid$$, $$'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid$$),
('bool', $$true$$, $$'t'::bool$$),
('bool', $$'yes'::bool$$, $$'on'::bool$$),
('bool', $$false$$, $$'off'::bool$$),
('bool', $$'f'::bool$$, $$'0'::bool$$),
('bool', $$1::int::bool$$, $$'TRUE'::bool$$),
-- date, timestamp, timestamptz: by value, infinities
('date', $$'2024-03-10'::date$$, $$'March 10, 2024'::date$$),
('date', $$'2024-03-10'::date$$, $$'20240310'::date$$),
('date', $$'2024-03-10'::date$$, $$'2024-03-09'::date + 1$$),
('date', $$'infinity'::date$$, $$'Infinity'::date$$),
('date', $$'-infinity'::date$$, $$'-INFINITY'::date$$),
('date', $$'epoch'::date$$, $$'1970-01-01'::date$$),
('date', $$'4713-01-01 BC'::date$$, $$'4713-01-01 BC'::date + 0$$),
('timestamp', $$'2024-03-10 12:00'::timestamp$$, $$'2024-03-10T12:00:00.000'::timestamp$$),
('timestamp', $$'2024-03-10 12:00'::timestamp$$, $$'March 10 2024 12:00 PM'::timestamp$$),
('timestamp', $$'2024-03-10 12:00:00.1'::timestamp$$, $$'2024-03-10 12:00:00.100000'::timestamp$$),
('timestamp', $$'2024-03-10'::date + '12:00'::time$$, $$'2024-03-10 12:00'::timestamp$$),
('timestamp', $$'infinity'::timestamp$$, $$'Infinity'::timestamp$$),
('timestamp', $$'-infinity'::timestamp$$, $$'-infinity'::timestamp + '1 day'::interval$$),
('timestamp', $$'epoch'::timestamp$$, $$'1970-01-01 00:00:00'::timestamp$$),
('timestamptz', $$'2024-01-10 12:00+00'::timestamptz$$, $$'2024-01-10 21:00+09'::timestamptz$$),
('timestamptz', $$'2024-01-10 12:00+00'::timestamptz$$, $$'2024-01-10 17:45:00+05:45'::timestamptz$$),
('timestamptz', $$'2024-01-10 12:00 UTC'::timestamptz$$, $$'2024-01-10 07:00 America/New_York'::timestamptz$$),
('timestamptz', $$'2024-01-10 12:00+00'::timestamptz$$, $$timezone('UTC', '2024-01-10 12:00'::timestamp)$$),
('timestamptz', $$'epoch'::timestamptz$$, $$to_timestamp(0)$$),
('timestamptz', $$'infinity'::timestamptz$$, $$'INFINITY'::timestamptz$$),
('timestamptz', $$'-infinity'::timestamptz$$, $$'-infinity'::timestamptz - '1 year'::interval$$),
-- time, timetz, interval
('time', $$'12:00'::time$$, $$'12:00:00.000000'::time$$),
('time', $$'00:00'::time$$, $$'allballs'::time$$),
('time', $$'12:00 PM'::time$$, $$'12:00'::time$$),
('time', $$'24:00:00'::time$$, $$'24:00'::time$$),
('time', $$'12:00:00.4'::time(0)$$, $$'12:00'::time$$),
('timetz', $$'12:00:00+00'::timetz$$, $$'12:00 +00:00'::timetz$$),
('timetz', $$'12:00:00+05:30'::timetz$$, $$'12:00:00+0530'::timetz$$),
('timetz', $$'12:00 PM -03'::timetz$$, $$'12:00:00-03:00'::timetz$$),
('interval', $$'1 day'::interval$$, $$'24 hours'::interval$$),
('interval', $$'1 mon'::interval$$, $$'30 days'::interval$$),
('interval', $$'1 hour'::interval$$, $$'60 min'::interval$$),
('interval', $$'1 hour'::interval$$, $$'3600 seconds'::interval$$),
('interval', $$'1 year'::interval$$, $$'12 mons'::interval$$),
('interval', $$'1 year'::interval$$, $$'360 days'::interval$$),
('interval', $$'1 mon -30 days'::interval$$, $$'0'::interval$$),
('interval', $$'1 day -24 hours'::interval$$, $$'00:00:00'::interval$$),
('interval', $$'-1 day'::interval$$, $$'-24 hours'::interval$$),
('interval', $$'P1D'::interval$$, $$'1 day'::interval$$),
('interval', $$'1.5 days'::interval$$, $$'36 hours'::interval$$),
('interval', $$'1 day 1 hour'::interval$$, $$'25:00:00'::interval$$),
('interval', $$'1000 years'::interval$$, $$'360000 days'::interval$$),
('interval', $$'1 mon 1 day'::interval$$, $$'31 days'::interval$$),
('interval', $$'00:00:01.000001'::interval$$, $$'1 second 1 microsecond'::interval$$),
-- jsonb: canonical form
('jsonb', $$'1'::jsonb$$, $$'1.0'::jsonb$$),
('jsonb', $$'{"a":1,"b":2}'::jsonb$$, $$'{"b":2.0, "a":1}'::jsonb$$),
('jsonb', $$'{"a":[1,{"b":2}]}'::jsonb$$, $$'{"a":[1.00,{"b":2e0}]}'::jsonb$$),
('jsonb', $$'"\u00e9"'::jsonb$$, $$('"' || chr(233) || '"')::jsonb$$),
('jsonb', $$'{"k\u00e9y": "\u20ac"}'::jsonb$$, $$jsonb_build_object('k' || chr(233) || 'y', chr(8364))$$),
('jsonb', $$'"ab"'::jsonb$$, $$'"\u0061b"'::jsonb$$),
('jsonb', $$'[1, 2]'::jsonb$$, $$'[1,2]'::jsonb$$),
('jsonb', $$'{"a":1,"a":2}'::jsonb$$, $$'{"a":2}'::jsonb$$),
('jsonb', $$'null'::jsonb$$, $$' null '::jsonb$$),
('jsonb', $$'1e2'::jsonb$$, $$'100'::jsonb$$),
('jsonb', $$'-0'::jsonb$$, $$'0'::jsonb$$),
('jsonb', $$'0.10'::jsonb$$, $$'0.1'::jsonb$$),
('jsonb', $$'{}'::jsonb$$, $$'{ }'::jsonb$$),
('jsonb', $$'[[], {}]'::jsonb$$, $$'[ [ ] , { } ]'::jsonb$$),
('jsonb', $$'{"b": {"d": [1.0, "x"], "c": true}, "a": null}'::jsonb$$, $$'{"a": null, "b": {"c": true, "d": [1, "x"]}}'::jsonb$$),
('jsonb', $$to_jsonb(1.50)$$, $$'1.5'::jsonb$$),
('jsonb', $$(SELECT j FROM eq_store WHERE k = 'small')$$, $$'{"a": 1}'::jsonb$$),
('jsonb', $$(SELECT j FROM eq_store WHERE k = 'big')$$, $$jsonb_build_object('pad', repeat('p', 5000), 'a', 1.000)$$),
-- enums: by label
('enum', $$'red'::eq_color$$, $$'red'::eq_color$$),
('enum', $$(SELECT e FROM eq_store WHERE k = 'small')$$, $$'green'::eq_color$$),
('enum', $$('caf' || chr(233))::eq_latin$$, $$U&'caf\00E9'::eq_latin$$),
('enum', $$(enum_range(NULL::eq_wide))[2]$$, $$U&'\0436\0443\043A'::eq_wide$$),
-- arrays: from their elements; shape, lower bounds and NULLs as array_eq
-- treats them (array_eq compares lower bounds: '[0:1]={1,2}' <> '{1,2}')
('array', $$ARRAY[1.0]$$, $$ARRAY[1.00]$$),
('array', $$'{1.0,2.50}'::numeric[]$$, $$ARRAY[1, 2.5]$$),
('array', $$ARRAY[1, NULL]$$, $$'{1,NULL}'::int[]$$),
('array', $$'[0:1]={1,2}'::int[]$$, $$'[0:1]={01, +2}'::int[]$$),
('array', $$'[5:6][1:1]={{1.0},{2}}'::numeric[]$$, $$'[5:6][1:1]={{1},{2.00}}'::numeric[]$$),
('array', $$'{}'::numeric[]$$, $$array_fill(1.0, ARRAY[0])$$),
('array', $$ARRAY['ab  ']::char(5)[]$$, $$ARRAY['ab']::char(3)[]$$),
('array', $$ARRAY['ab', 'c ']::char(4)[]$$, $$'{"ab  ","c"}'::char(2)[]$$),
('array', $$ARRAY['1'::jsonb, '{"a":1}']$$, $$ARRAY['1.0'::jsonb, '{"a":1.0}']$$),
('array', $$ARRAY['1 day'::interval]$$, $$ARRAY['24 hours'::interval]$$),
('array', $$ARRAY['2024-01-10 12:00+00'::timestamptz]$$, $$ARRAY['2024-01-10 21:00+09'::timestamptz]$$),
('array', $$ARRAY['red'::eq_color, 'blue']$$, $$'{red,blue}'::eq_color[]$$),
('array', $$ARRAY[ROW(1, 'a')::eq_pair]$$, $$'{"(1,a)"}'::eq_pair[]$$),
('array', $$ARRAY[numrange(1, 2)]$$, $$ARRAY[numrange(1.0, 2.00)]$$),
('array', $$(SELECT a FROM eq_store WHERE k = 'small')$$, $$ARRAY[1, 2.5]$$),
('array', $$(SELECT a FROM eq_store WHERE k = 'big')$$, $$array_fill(1.5, ARRAY[1000])$$),
-- records and composite types: from their fields
('record', $$ROW(1::bigint)$$, $$ROW(1)$$),
('record', $$ROW(1::int2, 'a'::text)$$, $$ROW(1, 'a'::varchar)$$),
('record', $$ROW(1, 'ab'::char(5))$$, $$ROW(1::bigint, 'ab '::varchar)$$),
('record', $$ROW(1.0, 2)$$, $$ROW(1.00, 2::int8)$$),
('record', $$ROW('1 day'::interval, '1'::jsonb)$$, $$ROW('24 hours'::interval, '1.0'::jsonb)$$),
('record', $$ROW('-0'::float8, 'NaN'::numeric)$$, $$ROW(0::float4, 'nan'::numeric)$$),
('record', $$ROW('caf' || chr(233), chr(8364))$$, $$ROW(U&'caf\00E9'::varchar, U&'\20AC'::name)$$),
('record', $$ROW('caf' || chr(233), 1, chr(8364))$$, $$ROW(U&'caf\00E9'::text, 1, U&'\20AC'::text)$$),
('record', $$ROW('ab', 1)$$, $$ROW('ab'::text, 1::int8)$$),
('record', $$ROW(1, 'a')::eq_pair$$, $$ROW(1, 'a'::text)$$),
('record', $$ROW(1, 'a')::eq_pair$$, $$'(1,a)'::eq_pair$$),
('record', $$ROW(ROW(1, 2.0), 'x')$$, $$ROW(ROW(1, 2.00), 'x'::varchar)$$),
('record', $$ROW(ROW(1, 'a'), '{x}', 'red')::eq_nest$$, $$'("(1,a)",{x},red)'::eq_nest$$),
('record', $$ROW(ROW(1, 'a'), ARRAY['x '], 'red')::eq_nest$$, $$ROW(ROW(1, 'a'), ARRAY['x ']::varchar[], 'red'::eq_color)::eq_nest$$),
('record', $$ROW(1, 'ab')::eq_bpair$$, $$ROW(1, 'ab   ')::eq_bpair$$),
('record', $$ROW(numrange(1, 2), ARRAY[1.0])$$, $$ROW(numrange(1.0, 2.0), ARRAY[1.00])$$),
('record', $$(SELECT c FROM eq_store WHERE k = 'small')$$, $$ROW(1, 'ab')::eq_pair$$),
('record', $$(SELECT c FROM eq_store WHERE k = 'big')$$, $$ROW(7, repeat('q', 5000))::eq_pair$$),
('record', $$ROW('2024-01-10 12:00+00'::timestamptz)$$, $$ROW('2024-01-10 21:00+09'::timestamptz)$$),
-- ranges and multiranges: from their bounds, canonical form
('range', $$numrange(1, 2)$$, $$numrange(1.0, 2.0)$$),
('range', $$numrange(1, 2, '[]')$$, $$numrange(1.00, 2.000, '[]')$$),
('range', $$int4range(1, 3)$$, $$'(0,2]'::int4range$$),
('range', $$'[1,3)'::int8range$$, $$int8range(1, 2, '[]')$$),
('range', $$'empty'::int4range$$, $$int4range(3, 3)$$),
('range', $$'empty'::numrange$$, $$numrange(1.0, 1.00)$$),
('range', $$numrange(NULL, 2)$$, $$'(,2.00)'::numrange$$),
('range', $$'(,)'::numrange$$, $$numrange(NULL, NULL)$$),
('range', $$numrange(1, 'Infinity')$$, $$'[1.0,Infinity)'::numrange$$),
('range', $$daterange('2024-01-01', '2024-01-31', '[]')$$, $$'[2024-01-01,2024-02-01)'::daterange$$),
('range', $$daterange('2024-01-01', 'infinity')$$, $$'[2024-01-01,infinity)'::daterange$$),
('range', $$tstzrange('2024-01-10 12:00+00', '2024-01-11 00:00+00')$$, $$'[2024-01-10 21:00+09,2024-01-11 09:00+09)'::tstzrange$$),
('range', $$tsrange('2024-01-10 12:00', NULL)$$, $$'[2024-01-10T12:00:00,)'::tsrange$$),
('range', $$(SELECT r FROM eq_store WHERE k = 'small')$$, $$numrange(1, 2.5)$$),
('multirange', $$'{[1,2),[2,3)}'::int4multirange$$, $$'{[1,3)}'::int4multirange$$),
('multirange', $$nummultirange(numrange(1, 2), numrange(3, 4))$$, $$'{[1.0,2.00),[3,4)}'::nummultirange$$),
('multirange', $$'{}'::int4multirange$$, $$int4multirange()$$),
('multirange', $$'{[1,3)}'::int4multirange$$, $$'{[1,2]}'::int4multirange$$),
('multirange', $$'{(,5), [7,)}'::int8multirange$$, $$int8multirange(int8range(NULL, 4, '[]'), int8range(7, NULL))$$),
-- domains over all of the above hash as their base types
('domain', $$5::eq_posint$$, $$5::int8$$),
('domain', $$1.5::eq_amount$$, $$1.50::numeric$$),
('domain', $$'ab'::eq_code$$, $$'ab'::char(5)$$),
('domain', $$'ab '::eq_code2$$, $$'ab'::eq_bpc$$),
('domain', $$'ab'::eq_bpc$$, $$'ab'::text$$),
('domain', $$'{"a":1}'::eq_doc$$, $$'{"a":1.0}'::jsonb$$),
('domain', $$'1 day'::eq_span$$, $$'24 hours'::interval$$),
('domain', $$ARRAY[1.0]::eq_nums$$, $$ARRAY[1.00]$$),
('domain', $$ROW(1, 'a')::eq_pair_d$$, $$ROW(1, 'a')::eq_pair$$),
('domain', $$numrange(1, 2)::eq_rng$$, $$numrange(1.0, 2.0)$$),
('domain', $$'2024-01-10 12:00+00'::eq_ts$$, $$'2024-01-10 21:00+09'::timestamptz$$),
('domain', $$'-0'::eq_flt$$, $$0::float4$$),
-- network and other built-in types
('inet', $$'10.0.0.0/8'::inet$$, $$'10.0.0.0/8'::cidr$$),
('inet', $$'10/8'::cidr$$, $$'10.0.0.0/8'::cidr$$),
('inet', $$'192.168.0.1'::inet$$, $$'192.168.0.1/32'::inet$$),
('inet', $$'::1'::inet$$, $$'0:0:0:0:0:0:0:1'::inet$$),
('inet', $$'2001:db8::1'::inet$$, $$'2001:DB8:0:0:0:0:0:1'::inet$$),
('inet', $$'::ffff:1.2.3.4'::inet$$, $$'::ffff:102:304'::inet$$),
('macaddr', $$'08:00:2b:01:02:03'::macaddr$$, $$'08-00-2b-01-02-03'::macaddr$$),
('macaddr', $$'0800.2b01.0203'::macaddr$$, $$'08002B010203'::macaddr$$),
('macaddr', $$'08:00:2b:01:02:03'::macaddr$$, $$'0800-2b01-0203'::macaddr$$),
('macaddr8', $$'08:00:2b:01:02:03:04:05'::macaddr8$$, $$'0800-2b01-0203-0405'::macaddr8$$),
('macaddr8', $$'08:00:2b:01:02:03'::macaddr8$$, $$'08:00:2b:ff:fe:01:02:03'::macaddr8$$),
('macaddr8', $$'08002b0102030405'::macaddr8$$, $$'08.00.2b.01.02.03.04.05'::macaddr8$$),
('money', $$'1.00'::money$$, $$'$1'::money$$),
('money', $$12.34::numeric::money$$, $$'12.34'::money$$),
('money', $$'-0.00'::money$$, $$0::int::money$$),
('oid', $$1::oid$$, $$'0001'::oid$$),
('oid', $$'-1'::oid$$, $$4294967295::oid$$),
('char', $$'a'::"char"$$, $$'abc'::"char"$$),
('bit', $$B'101'$$, $$'101'::bit(3)$$),
('bit', $$X'A'$$, $$B'1010'::bit(4)$$),
('bit', $$B'1'::bit(3)$$, $$B'100'$$),
('bit', $$'101'::bit(3)$$, $$'101'::varbit$$),
('bit', $$B'101'::varbit$$, $$'101'::varbit(10)$$),
('bit', $$''::varbit$$, $$B''$$),
('pg_lsn', $$'0/16B3748'::pg_lsn$$, $$'00000000/016b3748'::pg_lsn$$),
('pg_lsn', $$'16/B374D848'::pg_lsn$$, $$'16/b374d848'::pg_lsn$$);

-- pairs that cross key families: true or datatype_mismatch
INSERT INTO eq_pairs (type, x, y, ok) VALUES
('cross-family', $$1::int$$, $$1.0$$, 'T|42804'),
('cross-family', $$1::int8$$, $$1::float8$$, 'T|42804'),
('cross-family', $$1.5::float8$$, $$1.50$$, 'T|42804'),
('cross-family', $$'2024-03-10'::date$$, $$'2024-03-10 00:00'::timestamp$$, 'T|42804'),
('cross-family', $$'infinity'::date$$, $$'infinity'::timestamp$$, 'T|42804'),
('cross-family', $$1::oid$$, $$1::int4$$, 'T|42804'),
('cross-family', $$'a'::"char"$$, $$'a'::text$$, 'T|42804'),
('cross-family', $$ROW(1.0)$$, $$ROW(1)$$, 'T|42804'),
('cross-family', $$ROW('2024-03-10'::date)$$, $$ROW('2024-03-10'::timestamp)$$, 'T|42804'),
('cross-family', $$ROW(1, 1.5::float8)$$, $$ROW(1, 1.5)$$, 'T|42804');
-- equality that depends on TimeZone (this file runs under UTC)
INSERT INTO eq_pairs (type, x, y, ok, settings) VALUES
('cross-family', $$'2024-01-10 12:00'::timestamp$$, $$'2024-01-10 12:00+00'::timestamptz$$, 'T|42804', false),
('cross-family', $$'2024-01-10'::date$$, $$'2024-01-10 00:00+00'::timestamptz$$, 'T|42804', false);
-- no = between the two types, or NULL fields (= gives NULL; DISTINCT,
-- GROUP BY and btree indexes treat the values as equal)
INSERT INTO eq_pairs (type, x, y, ok, eq) VALUES
('array', $$ARRAY[1, 2]::int4[]$$, $$ARRAY[1, 2]::int8[]$$, 'T', $$(%1$s)::int8[] = (%2$s)$$),
('array', $$ARRAY[1, 2]::int2[]$$, $$'{1,2}'::int4[]$$, 'T', $$(%1$s)::int4[] = (%2$s)$$),
('array', $$ARRAY[NULL::int]$$, $$'{NULL}'::int8[]$$, 'T', $$(%1$s)::int8[] = (%2$s)$$),
('array', $$ARRAY[[1, 2], [3, 4]]$$, $$'{{1,2},{3,4}}'::int8[]$$, 'T', $$(%1$s)::int8[] = (%2$s)$$),
('array', $$'{}'::int[]$$, $$ARRAY[]::int8[]$$, 'T', $$(%1$s)::int8[] = (%2$s)$$),
('array', $$ARRAY['ab']::text[]$$, $$ARRAY['ab']::varchar[]$$, 'T', $$(%1$s) = (%2$s)::text[]$$),
('array', $$ARRAY['ab', NULL]::text[]$$, $$ARRAY['ab', NULL]::varchar[]$$, 'T', $$(%1$s) = (%2$s)::text[]$$),
('array', $$ARRAY['ab']::name[]$$, $$ARRAY['ab']::text[]$$, 'T', $$(%1$s)::text[] = (%2$s)$$),
('array', $$ARRAY['caf' || chr(233)]$$, $$ARRAY[U&'caf\00e9']::name[]$$, 'T', $$(%1$s) = (%2$s)::text[]$$),
('array', $$ARRAY['-0'::float8, 'NaN']$$, $$ARRAY[0::float4, 'NaN']$$, 'T', $$(%1$s) = (%2$s)::float8[]$$),
('array', $$ARRAY[1.0, 2]$$, $$ARRAY[1, 2]$$, 'T|42804', $$(%1$s) = (%2$s)::numeric[]$$),
('domain', $$'red'::eq_colord$$, $$'red'::eq_color$$, 'T', $$(%1$s)::eq_color = (%2$s)$$),
-- (an untyped NULL makes a column of type text: its row is of another family)
('record', $$ROW(1, NULL::int)$$, $$ROW(1::bigint, NULL)$$, 'T|42804', $$(%1$s) IS NOT DISTINCT FROM (%2$s)$$),
('record', $$ROW(1, NULL)::eq_pair$$, $$'(1,)'::eq_pair$$, 'T', $$(%1$s) IS NOT DISTINCT FROM (%2$s)$$),
('record', $$ROW(NULL::int, NULL::text)$$, $$ROW(NULL::int8, NULL::varchar)$$, 'T', $$(%1$s) IS NOT DISTINCT FROM (%2$s)$$),
('macaddr8', $$'08:00:2b:01:02:03'::macaddr$$, $$'08:00:2b:ff:fe:01:02:03'::macaddr8$$, 'T|42804', $$(%1$s)::macaddr8 = (%2$s)$$);

-- types whose hashing the contract leaves open: true, or refused
INSERT INTO eq_pairs (type, x, y, ok) VALUES
('other', $$'(0,1)'::tid$$, $$'(0, 1)'::tid$$, 'T|0A000'),
('other', $$'10'::xid$$, $$'0xa'::xid$$, 'T|0A000'),
('other', $$'10'::xid8$$, $$10::text::xid8$$, 'T|0A000'),
('other', $$'a & b'::tsquery$$, $$'a&b'::tsquery$$, 'T|0A000'),
('other', $$'pg_class'::regclass$$, $$1259::oid::regclass$$, 'T|0A000'),
('other', $$'int4'::regtype$$, $$'integer'::regtype$$, 'T|0A000'),
('citext', $$'ABC'::citext$$, $$'abc'::citext$$, 'T|0A000|42804'),
('citext', $$'ab'::citext$$, $$'ab'::citext$$, 'T|0A000|42804'),
('collation', $$'ABC' COLLATE eq_ci$$, $$'abc' COLLATE eq_ci$$, 'T|0A000'),
('collation', $$'abc'::eq_cid$$, $$'ABC'::eq_cid$$, 'T|0A000');

-- = holds, and cannot be hashed: box and circle compare areas, path the
-- number of points, line its equation, tsvector is refused by the design
INSERT INTO eq_pairs (type, x, y, ok) VALUES
('refused', $$'(0,0),(1,1)'::box$$, $$'(0,0),(2,0.5)'::box$$, '0A000'),
('refused', $$'<(0,0),1>'::circle$$, $$'<(5,5),1>'::circle$$, '0A000'),
('refused', $$'((0,0),(1,1))'::path$$, $$'((0,0),(5,5))'::path$$, '0A000'),
('refused', $$'{1,2,3}'::line$$, $$'{2,4,6}'::line$$, '0A000'),
('refused', $$'a:1 b'::tsvector$$, $$'b a:1'::tsvector$$, '0A000'),
('refused', $$'(0,0),(1,1)'::eq_boxd$$, $$'(0,0),(2,0.5)'::box$$, '0A000'),
('refused', $$ROW(1, 'ABC')::eq_cipair$$, $$ROW(1, 'abc')::eq_cipair$$, '0A000'),
('refused', $$ARRAY['ABC' COLLATE eq_ci]$$, $$ARRAY['abc' COLLATE eq_ci]$$, '0A000');

----------------------------------------------------------------------
-- The checks
----------------------------------------------------------------------
-- Each check builds a filter from a and probes it with b (%1$s is a, %2$s
-- is b); every pair runs each check as (x, y) and as (y, x).  scalar: the
-- check puts the key into an array (ARRAY[a]), which for an array key
-- would give a multi-dimensional array of its elements, so it runs on
-- non-array keys only.
CREATE TABLE eq_checks (name text PRIMARY KEY, scalar bool NOT NULL, sql text NOT NULL);
INSERT INTO eq_checks VALUES
('contained_op',     false, $$(%2$s) <@ (bloom_empty(100) + (%1$s))$$),
('contains_fn',      false, $$bloom_contains(bloom_add(bloom_empty(100), (%1$s)), (%2$s))$$),
('classic',          false, $$(bloom_empty_bits(4096, 7, 'classic') + (%1$s)) @> (%2$s)$$),
('seeded',           false, $$(bloom_empty(100, 0.01, 'blocked', 42) + (%1$s)) @> (%2$s)$$),
('add_all',          true,  $$bloom_add_all(bloom_empty(100), ARRAY[(%1$s)]) @> (%2$s)$$),
('contains_all',     true,  $$(bloom_contains_all(bloom_empty(100) + (%1$s), ARRAY[(%2$s)]))[1]$$),
('filter_array',     true,  $$cardinality(bloom_filter_array(bloom_empty(100) + (%1$s), ARRAY[(%2$s)])) = 1$$),
('agg',              false, $$(SELECT bloom_agg(v) FROM (SELECT (%1$s) AS v) s) @> (%2$s)$$),
('agg_sized',        false, $$(SELECT bloom_agg(v, 100, 0.01) FROM (SELECT (%1$s) AS v) s) @> (%2$s)$$),
('shipped_bytea',    false, $$((bloom_empty(100) + (%1$s))::bytea::bloomfilter) @> (%2$s)$$),
('shipped_text',     false, $$((bloom_empty(100) + (%1$s))::text::bloomfilter) @> (%2$s)$$),
('cbloom_op',        false, $$(%2$s) <@ (cbloom_empty(100) + (%1$s))$$),
('cbloom_count',     false, $$cbloom_count(cbloom_add(cbloom_empty(100), (%1$s)), (%2$s)) = 1$$),
('cbloom_remove',    false, $$NOT cbloom_contains(cbloom_remove(cbloom_empty(100) + (%1$s), (%2$s)), (%1$s))$$),
('cbloom_agg',       false, $$(SELECT cbloom_agg(v, 100, 0.01) FROM (SELECT (%1$s) AS v) s) @> (%2$s)$$),
('cbloom_to_bloom',  false, $$cbloom_to_bloom(cbloom_empty(100) + (%1$s)) @> (%2$s)$$),
('sbloom_op',        false, $$(%2$s) <@ (sbloom_empty(100) + (%1$s))$$),
('sbloom_fn',        false, $$bloom_contains(bloom_add(sbloom_empty(10, 0.01, 2, 0.9, 'classic'), (%1$s)), (%2$s))$$),
('sbloom_agg',       false, $$(SELECT sbloom_agg(v) FROM (SELECT (%1$s) AS v) s) @> (%2$s)$$),
('window',           false, $$bloom_window_contains(bloom_window_add(bloom_window_empty('1 hour', 2, 100), (%1$s), '2024-01-10 12:00+00'), (%2$s), '2024-01-10 12:10+00')$$),
('window_filter',    false, $$bloom_window_filter(bloom_window_add(bloom_window_empty('1 hour', 2, 100), (%1$s), '2024-01-10 12:00+00'), '2024-01-10 12:10+00') @> (%2$s)$$),
('window_agg',       false, $$bloom_window_contains((SELECT bloom_window_agg(v, '2024-01-10 12:00+00'::timestamptz, '1 hour', 2, 100, 0.01) FROM (SELECT (%1$s) AS v) s), (%2$s), '2024-01-10 12:10+00')$$);

-- One row per check run: the answer as 'true', 'false', 'null' or the error as
-- 'E:SQLSTATE: message'.
CREATE TABLE eq_results (pair int, dir text, chk text, got text);

-- eq_allowed(ok, got): whether an answer is allowed
CREATE FUNCTION eq_allowed(ok text, got text) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN got = 'true' THEN ok LIKE 'T%'
	            WHEN got LIKE 'E:42804%' THEN ok LIKE '%42804%'
	            WHEN got LIKE 'E:0A000%' THEN ok LIKE '%0A000%'
	            ELSE false END $$;

-- Runs one boolean SQL expression, catching its error.
CREATE FUNCTION eq_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r bool;
BEGIN
	EXECUTE 'SELECT (' || q || ')::bool' INTO r;
	RETURN coalesce(r::text, 'null');
EXCEPTION WHEN OTHERS THEN
	RETURN 'E:' || SQLSTATE || ': ' || SQLERRM;
END $$;

-- Whether an expression's value is an array (or a domain over one).
CREATE FUNCTION eq_is_array(expr text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	t regtype;
BEGIN
	EXECUTE format('SELECT pg_typeof(%s)', expr) INTO t;
	RETURN (SELECT typcategory = 'A' FROM pg_type WHERE oid = t);
END $$;

-- Runs every check on every pair, both directions.  The checks of one
-- direction run in one statement when none fails; otherwise one by one,
-- to tell which.  The GiST check stores the filter alone in an indexed
-- table and probes it through the index.  (Alone: a GiST scan checks the
-- keys of every index entry, dead ones too, and a filter of another family
-- would make the probe an error.)
CREATE TEMP TABLE eq_gist (f bloomfilter);
CREATE INDEX ON eq_gist USING gist (f);
CREATE FUNCTION eq_run() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	p record;
	d record;
	names text[];
	sqls text[];
	got text[];
	r text;
BEGIN
	FOR p IN SELECT *, NOT eq_is_array(x) AND NOT eq_is_array(y) AS scalar_ok
	         FROM eq_pairs ORDER BY id LOOP
		INSERT INTO eq_results VALUES (p.id, 'x = y', 'equal',
			eq_try(format(coalesce(p.eq, '(%1$s) = (%2$s)'), p.x, p.y)));
		SELECT array_agg(dir || ' ' || name ORDER BY dir, name),
		       array_agg(format(sql, a, b) ORDER BY dir, name)
		  INTO names, sqls
		  FROM eq_checks, (VALUES ('x->y', p.x, p.y), ('y->x', p.y, p.x)) v(dir, a, b)
		 WHERE p.scalar_ok OR NOT scalar;
		BEGIN
			EXECUTE 'SELECT ARRAY[' ||
				(SELECT string_agg('coalesce((' || q || ')::text, ''null'')', ', ') FROM unnest(sqls) q)
				|| ']' INTO got;
		EXCEPTION WHEN OTHERS THEN
			got := ARRAY(SELECT eq_try(q) FROM unnest(sqls) WITH ORDINALITY u(q, i) ORDER BY i);
		END;
		INSERT INTO eq_results
			SELECT p.id, split_part(n, ' ', 1), split_part(n, ' ', 2), g FROM unnest(names, got) u(n, g);
		-- the GiST index: the filter alone in the table, found through the index
		FOR d IN SELECT * FROM (VALUES ('x->y', p.x, p.y), ('y->x', p.y, p.x)) v(dir, a, b) LOOP
			TRUNCATE eq_gist;
			BEGIN
				EXECUTE format('INSERT INTO eq_gist VALUES (bloom_empty(100) + (%s))', d.a);
				PERFORM set_config('enable_seqscan', 'off', true);
				r := eq_try(format('(SELECT count(*) = 1 FROM eq_gist WHERE f @> (%s))', d.b));
				PERFORM set_config('enable_seqscan', 'on', true);
			EXCEPTION WHEN OTHERS THEN
				r := 'E:' || SQLSTATE || ': ' || SQLERRM;
			END;
			INSERT INTO eq_results VALUES (p.id, d.dir, 'gist_scan', r);
		END LOOP;
	END LOOP;
END $$;

-- the GiST check does go through the index
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT 1 FROM eq_gist WHERE f @> numrange(1, 2);
RESET enable_seqscan;

SELECT eq_run();

-- pairs and checks run, per type
SELECT type, count(DISTINCT pair) AS pairs, count(*) AS checks
FROM eq_results JOIN eq_pairs ON id = pair GROUP BY type ORDER BY type;

-- the failures: must be none.  One row per pair, direction and answer,
-- with the checks that gave it ('all' when every check of the direction
-- did).
SELECT type, x, y, dir, got,
       CASE WHEN count(*) = (SELECT count(*) FROM eq_results a WHERE a.pair = r.pair AND a.dir = r.dir)
            THEN 'all ' || count(*) ELSE string_agg(chk, ' ' ORDER BY chk) END AS checks
FROM eq_results r JOIN eq_pairs ON id = pair
WHERE NOT CASE WHEN chk = 'equal' THEN got = 'true' ELSE eq_allowed(ok, got) END
GROUP BY pair, type, x, y, dir, got
ORDER BY pair, dir, got;

----------------------------------------------------------------------
-- Types that must be refused: adding or probing is 0A000, never an answer
----------------------------------------------------------------------
CREATE TABLE eq_refuse (id serial, type text, x text);
INSERT INTO eq_refuse (type, x) VALUES
('json',            $$'{"a":1}'::json$$),
('xml',             $$'<a/>'::xml$$),
('point',           $$'(1,2)'::point$$),
('box',             $$'(0,0),(1,1)'::box$$),
('circle',          $$'<(0,0),1>'::circle$$),
('lseg',            $$'[(0,0),(1,1)]'::lseg$$),
('path',            $$'((0,0),(1,1))'::path$$),
('polygon',         $$'((0,0),(1,1),(1,0))'::polygon$$),
('line',            $$'{1,2,3}'::line$$),
('tsvector',        $$'a b'::tsvector$$),
('text ci',         $$'abc' COLLATE eq_ci$$),
('varchar ci',      $$'abc'::varchar COLLATE eq_ci$$),
('char ci',         $$'abc'::char(5) COLLATE eq_ci$$),
('name ci',         $$'abc'::name COLLATE eq_ci$$),
('domain ci',       $$'abc'::eq_cid$$),
('domain json',     $$'{}'::eq_jd$$),
('domain box',      $$'(0,0),(1,1)'::eq_boxd$$),
('json[]',          $$ARRAY['{}'::json]$$),
('point[]',         $$ARRAY['(1,2)'::point]$$),
('text ci[]',       $$ARRAY['abc' COLLATE eq_ci]$$),
('tsvector[]',      $$ARRAY['a'::tsvector]$$),
('record json',     $$ROW(1, '{}'::json)$$),
('record box',      $$ROW('x', '(0,0),(1,1)'::box)$$),
('composite json',  $$ROW(1, '{}')::eq_jpair$$),
('composite ci',    $$ROW(1, 'abc')::eq_cipair$$),
('nested json',     $$ROW(ROW(1, '{}'::json), 2)$$),
('json[] in record', $$ROW(1, ARRAY['{}'::json])$$);

CREATE TABLE eq_refuse_checks (name text PRIMARY KEY, sql text NOT NULL);
INSERT INTO eq_refuse_checks VALUES
('add_op',        $$bloom_empty(100) + (%1$s)$$),
('add_fn',        $$bloom_add(bloom_empty(100), (%1$s))$$),
('add_all',       $$bloom_add_all(bloom_empty(100), ARRAY[(%1$s)])$$),
('probe_op',      $$bloom_empty(100) @> (%1$s)$$),
('probe_commute', $$(%1$s) <@ bloom_empty(100)$$),
('probe_fn',      $$bloom_contains(bloom_empty(100), (%1$s))$$),
('contains_all',  $$bloom_contains_all(bloom_empty(100), ARRAY[(%1$s)])$$),
('filter_array',  $$bloom_filter_array(bloom_empty(100), ARRAY[(%1$s)])$$),
('agg',           $$(SELECT bloom_agg(v) FROM (SELECT (%1$s) AS v) s)$$),
('agg_sized',     $$(SELECT bloom_agg(v, 100, 0.01) FROM (SELECT (%1$s) AS v) s)$$),
('gist_scan',     $$(SELECT count(*) FROM eq_gist WHERE f @> (%1$s))$$),
('cbloom_add',    $$cbloom_empty(100) + (%1$s)$$),
('cbloom_probe',  $$cbloom_empty(100) @> (%1$s)$$),
('cbloom_count',  $$cbloom_count(cbloom_empty(100), (%1$s))$$),
('cbloom_remove', $$cbloom_remove(cbloom_empty(100), (%1$s))$$),
('cbloom_agg',    $$(SELECT cbloom_agg(v, 100, 0.01) FROM (SELECT (%1$s) AS v) s)$$),
('sbloom_add',    $$sbloom_empty(100) + (%1$s)$$),
('sbloom_probe',  $$sbloom_empty(100) @> (%1$s)$$),
('sbloom_agg',    $$(SELECT sbloom_agg(v) FROM (SELECT (%1$s) AS v) s)$$),
('window_add',    $$bloom_window_add(bloom_window_empty('1 hour', 2, 100), (%1$s), '2024-01-10 12:00+00')$$),
('window_probe',  $$bloom_window_contains(bloom_window_empty('1 hour', 2, 100), (%1$s), '2024-01-10 12:00+00')$$),
('window_agg',    $$(SELECT bloom_window_agg(v, '2024-01-10 12:00+00'::timestamptz, '1 hour', 2, 100, 0.01) FROM (SELECT (%1$s) AS v) s)$$);

-- The SQLSTATEs each type gives over all the checks: '0A000' alone, for
-- every type (an answer instead of an error shows as 'no error'); and the
-- error names the type (the key's, or the one inside it that is the
-- cause: culprit) and has a hint that says what to do.
ALTER TABLE eq_refuse ADD COLUMN culprit text;
UPDATE eq_refuse SET culprit = CASE
	WHEN type LIKE '%ci%' THEN 'eq_ci'
	WHEN type LIKE '%json%' THEN 'json'
	WHEN type LIKE '%box%' THEN 'box'
	ELSE split_part(split_part(type, ' ', 1), '[', 1) END;
CREATE FUNCTION eq_refused(x text) RETURNS TABLE (chk text, state text, said text, hint text)
LANGUAGE plpgsql AS $$
DECLARE
	c eq_refuse_checks;
	msg text;
	detail text;
BEGIN
	FOR c IN SELECT * FROM eq_refuse_checks ORDER BY name LOOP
		chk := c.name;
		said := NULL;
		hint := NULL;
		BEGIN
			EXECUTE format('SELECT (' || c.sql || ') IS NULL', x);
			state := 'no error';
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL,
				hint = PG_EXCEPTION_HINT;
			state := SQLSTATE;
			said := msg || coalesce(' ' || detail, '');
		END;
		RETURN NEXT;
	END LOOP;
END $$;
-- the GiST check probes one empty filter through the index
TRUNCATE eq_gist;
INSERT INTO eq_gist VALUES (bloom_empty(100));
SET enable_seqscan = off;
CREATE TABLE eq_refused AS
	SELECT id, type, culprit, x, r.* FROM eq_refuse, eq_refused(x) r;
RESET enable_seqscan;
SELECT type, string_agg(DISTINCT state, ', ') AS sqlstates, count(*) AS checks
FROM eq_refused GROUP BY id, type ORDER BY id;
-- which checks answered: none
SELECT type, string_agg(chk, ', ' ORDER BY chk) AS not_refused
FROM eq_refused WHERE state <> '0A000' GROUP BY id, type ORDER BY id;
-- errors that do not name the type or give no hint: none
CREATE FUNCTION eq_typeof(x text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t text;
BEGIN
	EXECUTE format('SELECT pg_typeof(%s)::text', x) INTO t;
	RETURN t;
END $$;
SELECT type, chk, said, hint
FROM eq_refused
WHERE state = '0A000'
  AND (NOT (strpos(said, culprit) > 0 OR strpos(said, eq_typeof(x)) > 0) OR coalesce(hint, '') = '')
ORDER BY id, chk;

----------------------------------------------------------------------
-- Session settings: the same value hashes alike under any TimeZone,
-- DateStyle, IntervalStyle, extra_float_digits, bytea_output and
-- client_encoding, and a filter built under one answers under another
----------------------------------------------------------------------
-- Each step, under the settings of the moment, checks x = y, builds a
-- filter of x and one of y, probes its own filters with the value each
-- holds, and the filters of every earlier step with x and with y.  The
-- pairs' expressions give the same values under every setting (explicit
-- offsets, ISO dates); those that do not are left out (settings = false).
CREATE TABLE eq_set_filters (label text, pair int, fx bloomfilter, fy bloomfilter, ex text, ey text);
CREATE TABLE eq_set_results (label text, pair int, chk text, got text, n serial);
CREATE FUNCTION eq_try_f(q text, f bloomfilter) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r bool;
BEGIN
	EXECUTE 'SELECT (' || q || ')::bool' INTO r USING f;
	RETURN coalesce(r::text, 'null');
EXCEPTION WHEN OTHERS THEN
	RETURN 'E:' || SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE FUNCTION eq_settings_step(step text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	p eq_pairs;
	s eq_set_filters;
	fx bloomfilter;
	fy bloomfilter;
	ex text;
	ey text;
	n int := 0;
BEGIN
	FOR p IN SELECT * FROM eq_pairs WHERE settings AND ok <> '0A000' ORDER BY id LOOP
		n := n + 1;
		INSERT INTO eq_set_results VALUES (step, p.id, 'equal',
			eq_try(format(coalesce(p.eq, '(%1$s) = (%2$s)'), p.x, p.y)));
		fx := NULL; fy := NULL; ex := NULL; ey := NULL;
		BEGIN
			EXECUTE format('SELECT bloom_empty_bits(4096, 7) + (%s)', p.x) INTO fx;
		EXCEPTION WHEN OTHERS THEN
			ex := 'E:' || SQLSTATE || ': ' || SQLERRM;
		END;
		BEGIN
			EXECUTE format('SELECT bloom_empty_bits(4096, 7) + (%s)', p.y) INTO fy;
		EXCEPTION WHEN OTHERS THEN
			ey := 'E:' || SQLSTATE || ': ' || SQLERRM;
		END;
		INSERT INTO eq_set_filters VALUES (step, p.id, fx, fy, ex, ey);
		FOR s IN SELECT * FROM eq_set_filters f WHERE f.pair = p.id LOOP
			INSERT INTO eq_set_results VALUES
				(step, p.id, s.label || ': x in f(x)',
				 coalesce(s.ex, eq_try_f(format('$1 @> (%s)', p.x), s.fx))),
				(step, p.id, s.label || ': y in f(y)',
				 coalesce(s.ey, eq_try_f(format('$1 @> (%s)', p.y), s.fy)));
			IF s.label <> step THEN
				INSERT INTO eq_set_results VALUES
					(step, p.id, s.label || ': y in f(x)',
					 coalesce(s.ex, eq_try_f(format('$1 @> (%s)', p.y), s.fx))),
					(step, p.id, s.label || ': x in f(y)',
					 coalesce(s.ey, eq_try_f(format('$1 @> (%s)', p.x), s.fy)));
			END IF;
		END LOOP;
	END LOOP;
	RETURN n;
END $$;

SELECT eq_settings_step('utc') AS pairs;
SET timezone = 'Asia/Kathmandu';
SET datestyle = 'SQL, DMY';
SET intervalstyle = 'sql_standard';
SET extra_float_digits = -15;
SET bytea_output = 'escape';
SET client_encoding = 'LATIN1';
SELECT eq_settings_step('kathmandu latin1') AS pairs;
SET timezone = 'America/St_Johns';
SET datestyle = 'German, DMY';
SET intervalstyle = 'iso_8601';
SET extra_float_digits = 3;
SET bytea_output = 'hex';
SET client_encoding = 'WIN1251';
SELECT eq_settings_step('st_johns win1251') AS pairs;
SET timezone = 'Pacific/Chatham';
SET datestyle = 'Postgres, YMD';
SET intervalstyle = 'postgres_verbose';
SET extra_float_digits = 0;
SET client_encoding = 'SQL_ASCII';
SELECT eq_settings_step('chatham sql_ascii') AS pairs;
RESET timezone;
RESET datestyle;
RESET intervalstyle;
RESET extra_float_digits;
RESET bytea_output;
RESET client_encoding;
SET timezone = 'UTC';
SET datestyle = 'ISO, MDY';

-- checks run per step
SELECT label AS step, count(DISTINCT pair) AS pairs, count(*) AS checks
FROM eq_set_results GROUP BY label ORDER BY min(n);
-- the failures: none.  (Pairs that fail above under UTC are left out:
-- their filters miss whatever the settings.)
SELECT label AS step, type, x, y, got, string_agg(chk, ', ' ORDER BY chk) AS checks
FROM eq_set_results JOIN eq_pairs ON id = pair
WHERE NOT CASE WHEN chk = 'equal' THEN got = 'true' ELSE eq_allowed(ok, got) END
  AND pair NOT IN (SELECT pair FROM eq_results JOIN eq_pairs ON id = pair
                   WHERE NOT CASE WHEN chk = 'equal' THEN got = 'true' ELSE eq_allowed(ok, got) END)
GROUP BY pair, type, x, y, label, got
ORDER BY pair, min(n), got;
-- the same value gave the same bytes under every setting: no pair differs
SELECT type, x, y, count(DISTINCT fx::bytea) AS fx_versions, count(DISTINCT fy::bytea) AS fy_versions
FROM eq_set_filters JOIN eq_pairs ON id = pair
GROUP BY pair, type, x, y
HAVING count(DISTINCT fx::bytea) > 1 OR count(DISTINCT fy::bytea) > 1
ORDER BY pair;

----------------------------------------------------------------------
-- Serial and parallel plans under client_encoding = 'LATIN1': the same
-- bytes, and the filter finds all of the table's own rows
----------------------------------------------------------------------
-- enum columns (one whose labels LATIN1 can show, one whose it cannot), a
-- text column, a composite and a jsonb with non-ASCII text.  One CREATE
-- TABLE AS per filter and plan: INSERT ... SELECT never runs in parallel in
-- PostgreSQL 15, and one failing aggregate must not hide the others.
CREATE TABLE eq_par AS
SELECT g, (enum_range(NULL::eq_latin))[1 + g % 4] AS el,
	(enum_range(NULL::eq_wide))[1 + g % 3] AS ew,
	(enum_range(NULL::eq_latin))[1 + g % 4]::text || (g % 1000) || (enum_range(NULL::eq_wide))[1 + g % 3]::text AS t,
	ROW(g % 100, (enum_range(NULL::eq_latin))[1 + g % 4]::text || chr(8364))::eq_pair AS c,
	jsonb_build_object((enum_range(NULL::eq_latin))[1 + g % 4]::text, g % 50, 'w', chr(1078)) AS j
FROM generate_series(1, 60000) g;
ANALYZE eq_par;

-- serial, client_encoding UTF8 (the reference)
SET max_parallel_workers_per_gather = 0;
CREATE TABLE eq_u8_el AS SELECT bloom_agg(el) AS f FROM eq_par;
CREATE TABLE eq_u8_ew AS SELECT bloom_agg(ew) AS f FROM eq_par;
CREATE TABLE eq_u8_t AS SELECT bloom_agg(t) AS f FROM eq_par;
CREATE TABLE eq_u8_c AS SELECT bloom_agg(c) AS f FROM eq_par;
CREATE TABLE eq_u8_j AS SELECT bloom_agg(j) AS f FROM eq_par;
SET client_encoding = 'LATIN1';
-- serial, LATIN1
CREATE TABLE eq_ser_el AS SELECT bloom_agg(el) AS f FROM eq_par;
CREATE TABLE eq_ser_ew AS SELECT bloom_agg(ew) AS f FROM eq_par;
CREATE TABLE eq_ser_t AS SELECT bloom_agg(t) AS f FROM eq_par;
CREATE TABLE eq_ser_c AS SELECT bloom_agg(c) AS f FROM eq_par;
CREATE TABLE eq_ser_j AS SELECT bloom_agg(j) AS f FROM eq_par;
-- parallel, LATIN1
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) CREATE TABLE eq_par_el AS SELECT bloom_agg(el) AS f FROM eq_par;
CREATE TABLE eq_par_el AS SELECT bloom_agg(el) AS f FROM eq_par;
CREATE TABLE eq_par_ew AS SELECT bloom_agg(ew) AS f FROM eq_par;
CREATE TABLE eq_par_t AS SELECT bloom_agg(t) AS f FROM eq_par;
CREATE TABLE eq_par_c AS SELECT bloom_agg(c) AS f FROM eq_par;
CREATE TABLE eq_par_j AS SELECT bloom_agg(j) AS f FROM eq_par;
-- the rows of the table each filter misses (none): the filters built in
-- the serial and the parallel plan, and the one built under client_encoding
-- UTF8, probed in a parallel plan (the probes run in the workers) and then
-- in a serial one
SELECT * FROM explain_neutral($$
SELECT count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_ser_el)) FROM eq_par$$);
SELECT 'el' AS col,
       count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_ser_el)) AS serial_built,
       count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_par_el)) AS parallel_built,
       count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_u8_el)) AS utf8_client_built
FROM eq_par;
SELECT 'ew' AS col,
       count(*) FILTER (WHERE NOT ew <@ (SELECT f FROM eq_ser_ew)) AS serial_built,
       count(*) FILTER (WHERE NOT ew <@ (SELECT f FROM eq_par_ew)) AS parallel_built,
       count(*) FILTER (WHERE NOT ew <@ (SELECT f FROM eq_u8_ew)) AS utf8_client_built
FROM eq_par;
SELECT 't' AS col,
       count(*) FILTER (WHERE NOT t <@ (SELECT f FROM eq_ser_t)) AS serial_built,
       count(*) FILTER (WHERE NOT t <@ (SELECT f FROM eq_par_t)) AS parallel_built,
       count(*) FILTER (WHERE NOT t <@ (SELECT f FROM eq_u8_t)) AS utf8_client_built
FROM eq_par;
SELECT 'c' AS col,
       count(*) FILTER (WHERE NOT c <@ (SELECT f FROM eq_ser_c)) AS serial_built,
       count(*) FILTER (WHERE NOT c <@ (SELECT f FROM eq_par_c)) AS parallel_built,
       count(*) FILTER (WHERE NOT c <@ (SELECT f FROM eq_u8_c)) AS utf8_client_built
FROM eq_par;
SELECT 'j' AS col,
       count(*) FILTER (WHERE NOT j <@ (SELECT f FROM eq_ser_j)) AS serial_built,
       count(*) FILTER (WHERE NOT j <@ (SELECT f FROM eq_par_j)) AS parallel_built,
       count(*) FILTER (WHERE NOT j <@ (SELECT f FROM eq_u8_j)) AS utf8_client_built
FROM eq_par;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT 'el' AS col,
       count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_ser_el)) AS serial_built,
       count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_par_el)) AS parallel_built,
       count(*) FILTER (WHERE NOT el <@ (SELECT f FROM eq_u8_el)) AS utf8_client_built
FROM eq_par;
SELECT 'ew' AS col,
       count(*) FILTER (WHERE NOT ew <@ (SELECT f FROM eq_ser_ew)) AS serial_built,
       count(*) FILTER (WHERE NOT ew <@ (SELECT f FROM eq_par_ew)) AS parallel_built,
       count(*) FILTER (WHERE NOT ew <@ (SELECT f FROM eq_u8_ew)) AS utf8_client_built
FROM eq_par;
SELECT 't' AS col,
       count(*) FILTER (WHERE NOT t <@ (SELECT f FROM eq_ser_t)) AS serial_built,
       count(*) FILTER (WHERE NOT t <@ (SELECT f FROM eq_par_t)) AS parallel_built,
       count(*) FILTER (WHERE NOT t <@ (SELECT f FROM eq_u8_t)) AS utf8_client_built
FROM eq_par;
SELECT 'c' AS col,
       count(*) FILTER (WHERE NOT c <@ (SELECT f FROM eq_ser_c)) AS serial_built,
       count(*) FILTER (WHERE NOT c <@ (SELECT f FROM eq_par_c)) AS parallel_built,
       count(*) FILTER (WHERE NOT c <@ (SELECT f FROM eq_u8_c)) AS utf8_client_built
FROM eq_par;
SELECT 'j' AS col,
       count(*) FILTER (WHERE NOT j <@ (SELECT f FROM eq_ser_j)) AS serial_built,
       count(*) FILTER (WHERE NOT j <@ (SELECT f FROM eq_par_j)) AS parallel_built,
       count(*) FILTER (WHERE NOT j <@ (SELECT f FROM eq_u8_j)) AS utf8_client_built
FROM eq_par;
-- the bytes: parallel = serial = serial under client_encoding UTF8
SELECT 'el' AS col, s.f = p.f AS parallel_same, s.f = u.f AS utf8_client_same
FROM eq_ser_el s, eq_par_el p, eq_u8_el u;
SELECT 'ew' AS col, s.f = p.f AS parallel_same, s.f = u.f AS utf8_client_same
FROM eq_ser_ew s, eq_par_ew p, eq_u8_ew u;
SELECT 't' AS col, s.f = p.f AS parallel_same, s.f = u.f AS utf8_client_same
FROM eq_ser_t s, eq_par_t p, eq_u8_t u;
SELECT 'c' AS col, s.f = p.f AS parallel_same, s.f = u.f AS utf8_client_same
FROM eq_ser_c s, eq_par_c p, eq_u8_c u;
SELECT 'j' AS col, s.f = p.f AS parallel_same, s.f = u.f AS utf8_client_same
FROM eq_ser_j s, eq_par_j p, eq_u8_j u;
RESET max_parallel_workers_per_gather;
RESET client_encoding;

----------------------------------------------------------------------
-- A Bloom semi-join never returns fewer rows than IN
----------------------------------------------------------------------
-- varchar = char(n) ignores trailing spaces: 'ab ' IN (SELECT 'ab'::char(5))
CREATE TABLE eq_codes (c char(5));
INSERT INTO eq_codes VALUES ('ab');
CREATE TABLE eq_lookups (v varchar);
INSERT INTO eq_lookups VALUES ('ab '), ('ab');
SELECT (SELECT count(*) FROM eq_lookups WHERE v IN (SELECT c FROM eq_codes)) AS in_rows,
       (SELECT count(*) FROM eq_lookups WHERE v <@ (SELECT bloom_agg(c) FROM eq_codes)) AS bloom_rows;
-- and the filter built from the other side
SELECT (SELECT count(*) FROM eq_codes WHERE c IN (SELECT v FROM eq_lookups)) AS in_rows,
       (SELECT count(*) FROM eq_codes WHERE c <@ (SELECT bloom_agg(v) FROM eq_lookups)) AS bloom_rows;

-- randomized: words of 1 to 5 letters of 'a', 'b', e-acute, euro sign
-- and space with 0 to 2 trailing spaces, in two halves, each as char(4),
-- varchar, text and name; for every pair of types, the filter of one half
-- probed by the other.  (in_rows: the IN count; the words are drawn so
-- that about half of them match)
SELECT setseed(0.25);
CREATE TABLE eq_sj AS
SELECT g, g % 2 AS side, w || repeat(' ', floor(random() * 3)::int) AS s
FROM (SELECT g, (SELECT string_agg((ARRAY['a', 'b', chr(233), chr(8364), ' '])[1 + floor(random() * 5)::int], '')
                 FROM generate_series(0, g % 5) i) AS w
      FROM generate_series(1, 4000) g) q;
CREATE TABLE eq_sj_a AS SELECT s::char(4) AS c, s::varchar AS v, s::text AS t, s::name AS n FROM eq_sj WHERE side = 0;
CREATE TABLE eq_sj_b AS SELECT s::char(4) AS c, s::varchar AS v, s::text AS t, s::name AS n FROM eq_sj WHERE side = 1;
CREATE FUNCTION eq_semijoins() RETURNS TABLE (filter_of text, probed_by text, in_rows bigint, never_below bool)
LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
	bloom_rows bigint;
BEGIN
	FOREACH a IN ARRAY ARRAY['c', 'v', 't', 'n'] LOOP
		FOREACH b IN ARRAY ARRAY['c', 'v', 't', 'n'] LOOP
			filter_of := (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			              WHERE attrelid = 'eq_sj_a'::regclass AND attname = a);
			probed_by := (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			              WHERE attrelid = 'eq_sj_b'::regclass AND attname = b);
			EXECUTE format('SELECT count(*) FROM eq_sj_b WHERE %2$I IN (SELECT %1$I FROM eq_sj_a)', a, b)
				INTO in_rows;
			EXECUTE format('SELECT count(*) FROM eq_sj_b WHERE %2$I <@ (SELECT bloom_agg(%1$I) FROM eq_sj_a)', a, b)
				INTO bloom_rows;
			never_below := bloom_rows >= in_rows;
			RETURN NEXT;
		END LOOP;
	END LOOP;
END $$;
SELECT * FROM eq_semijoins();

\c :regdb
DROP DATABASE bloom_key_hashing;
