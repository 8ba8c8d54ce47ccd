--
-- Counting Bloom filters (countingbloom): add, remove, probe, count, union,
-- the cast to bloomfilter, the aggregate, I/O, family rules and errors.
--

\set VERBOSITY default
\set SHOW_CONTEXT never

-- cb_catch(q): "SQLSTATE: message" of the error q raises, or "no error".
CREATE FUNCTION cb_catch(q text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;

-- ---------------------------------------------------------------------
-- Geometry: the same m and k as bloom_empty, a counter per bit
-- ---------------------------------------------------------------------

SELECT c.layout, c.counters, c.hashes, c.counter_bits, c.bytes, c.items,
       c.counters = b.bits AS same_m, c.hashes = b.hashes AS same_k
FROM (VALUES ('classic', 4), ('blocked', 4), ('classic', 8), ('blocked', 8)) v(l, w),
     cbloom_info(cbloom_empty(1000, 0.01, l, 0, w)) c,
     bloom_info(bloom_empty(1000, 0.01, l)) b;
SELECT (cbloom_info(cbloom_empty(100000, 0.001))).bytes * 2 =
       (bloom_info(bloom_empty(100000, 0.001))).bytes * 8 - 52 * 6 AS four_bits_cost_4x_the_array;
SELECT counters, hashes, layout FROM cbloom_info(cbloom_empty_counters(100, 3));
SELECT counters, hashes, layout FROM cbloom_info(cbloom_empty_counters(1000, 5, 'blocked', 7, 8));

-- ---------------------------------------------------------------------
-- Add, contains, count, remove
-- ---------------------------------------------------------------------

CREATE TABLE cb (name text PRIMARY KEY, c countingbloom);
INSERT INTO cb VALUES ('empty', cbloom_empty(1000));
UPDATE cb SET c = cbloom_add(c, 42);
UPDATE cb SET c = c + 42 + 7;
SELECT cbloom_contains(c, 42) AS has_42, c @> 7 AS has_7, 7 <@ c AS has_7_commuted,
       c @> 1000 AS has_1000, cbloom_count(c, 42) AS count_42, cbloom_count(c, 7) AS count_7,
       cbloom_count(c, 1000) AS count_1000, (cbloom_info(c)).items
FROM cb;
-- remove takes one occurrence away; the key stays until its last remove
UPDATE cb SET c = cbloom_remove(c, 42);
SELECT c @> 42 AS has_42, cbloom_count(c, 42) AS count_42, (cbloom_info(c)).items FROM cb;
UPDATE cb SET c = c - 42;
SELECT c @> 42 AS has_42, cbloom_count(c, 42) AS count_42, c @> 7 AS has_7, (cbloom_info(c)).items FROM cb;
-- removing a key the filter surely does not hold (a counter at zero) is a
-- no-op: the bytes do not change and items stays
SELECT (c - 42)::bytea = c::bytea AS absent_remove_unchanged,
       (c - 123456)::bytea = c::bytea AS never_added_unchanged FROM cb;
-- removing every key gives back the empty filter, family aside
UPDATE cb SET c = c - 7;
SELECT (cbloom_info(c)).items, (cbloom_info(c)).nonzero_counters, (cbloom_info(c)).key_family,
       c @> 7 AS has_7 FROM cb;

-- NULL keys change nothing; a NULL filter stays NULL; probing NULL is NULL
SELECT (c + NULL::int)::bytea = c::bytea AS add_null, (c - NULL::int)::bytea = c::bytea AS remove_null,
       cbloom_contains(c, NULL::int) IS NULL AS contains_null,
       cbloom_add(NULL::countingbloom, 1) IS NULL AS null_filter
FROM cb;

-- untyped literals are text
SELECT cbloom_empty(10) + 'abc' @> 'abc' AS text_literal,
       cbloom_count(cbloom_empty(10) + 'abc' + 'abc', 'abc') AS twice,
       ((cbloom_empty(10) + 'abc') - 'abc') @> 'abc' AS removed;

-- Many keys: add 20000, remove the odd ones; no even key is lost, and the
-- odd ones answer like non-members (rate near the target)
CREATE TABLE cb_many AS
SELECT cbloom_agg(g, 20000, 0.01) AS c FROM generate_series(1, 20000) g;
SELECT (cbloom_info(c)).items, (cbloom_info(c)).saturated_counters FROM cb_many;
CREATE FUNCTION cb_remove_all(c countingbloom, keys int[]) RETURNS countingbloom
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE k int;
BEGIN
  FOREACH k IN ARRAY keys LOOP c := c - k; END LOOP;
  RETURN c;
END $$;
UPDATE cb_many SET c = cb_remove_all(c, ARRAY(SELECT g FROM generate_series(1, 20000, 2) g));
SELECT (cbloom_info(c)).items,
       (SELECT count(*) FROM generate_series(2, 20000, 2) g WHERE NOT g <@ c) AS false_negatives,
       (SELECT count(*) FROM generate_series(1, 20000, 2) g WHERE g <@ c) < 10000 * 0.01 AS removed_gone,
       (SELECT count(*) FROM generate_series(100001, 200000) g WHERE g <@ c) < 100000 * 0.01 AS rate_ok
FROM cb_many;

-- ---------------------------------------------------------------------
-- Saturation: 4-bit counters stop at 15, 8-bit at 255, and stay there
-- ---------------------------------------------------------------------

CREATE TABLE cb_sat AS
SELECT w, cbloom_agg(1, 100, 0.01, w) AS c FROM generate_series(1, 300), (VALUES (4), (8)) v(w) GROUP BY w;
SELECT w, cbloom_count(c, 1) AS count, (cbloom_info(c)).items, (cbloom_info(c)).saturated_counters,
       (cbloom_info(c)).hashes FROM cb_sat ORDER BY w;
-- 20 adds then 20 removes: a saturated counter never comes down, so the
-- key stays (count 15 means "15 or more")
SELECT cbloom_count(cb_remove_all(c, array_fill(1, ARRAY[20])), 1) AS count_after_removes,
       cb_remove_all(c, array_fill(1, ARRAY[20])) @> 1 AS still_there
FROM cb_sat WHERE w = 4;
-- below saturation, 8-bit counters count exactly: 300 adds saturate, 200 do not
SELECT cbloom_count(cb_remove_all(cbloom_agg(1, 100, 0.01, 8), array_fill(1, ARRAY[150])), 1) AS left_of_200
FROM generate_series(1, 200);

-- ---------------------------------------------------------------------
-- The cast to bloomfilter: the bloomfilter the same keys build
-- ---------------------------------------------------------------------

CREATE TABLE cb_cast AS
SELECT l, w,
       (SELECT cbloom_empty(5000, 0.01, l, 99, w) + 0 + 1 + 2) AS c3,
       (SELECT bloom_empty(5000, 0.01, l, 99) + 0 + 1 + 2) AS b3
FROM (VALUES ('classic'), ('blocked')) v(l), (VALUES (4), (8)) u(w);
SELECT l, w, c3::bloomfilter = b3 AS same_filter, cbloom_to_bloom(c3) = b3 AS same_by_function
FROM cb_cast ORDER BY l, w;
-- after adding many keys and removing some, the cast equals the filter of
-- the keys that remain
SELECT cb_remove_all(cbloom_agg(g, 5000, 0.01), ARRAY(SELECT generate_series(2001, 3000)))::bloomfilter
       = (SELECT bloom_agg(g, 5000, 0.01) FROM generate_series(1, 2000) g) AS same_after_removes
FROM generate_series(1, 3000) g;
-- and it probes like any bloomfilter
SELECT count(*) FILTER (WHERE g <@ f) AS found FROM generate_series(1, 3000) g,
  (SELECT cbloom_agg(x, 5000, 0.01)::bloomfilter AS f FROM generate_series(1, 3000) x) s;

-- ---------------------------------------------------------------------
-- Union: counters summed, saturating; sizes m * 2^j fold to m
-- ---------------------------------------------------------------------

SELECT cbloom_count(a | b, 1) AS count_1, cbloom_count(a | b, 2) AS count_2, (cbloom_info(a | b)).items,
       cbloom_union(a, b)::bytea = (a | b)::bytea AS function_same
FROM (SELECT cbloom_empty(100) + 1 + 2 AS a, cbloom_empty(100) + 1 AS b) s;
-- union of halves equals the aggregate of the whole
SELECT ((SELECT cbloom_agg(g, 10000, 0.01) FROM generate_series(1, 5000) g) |
        (SELECT cbloom_agg(g, 10000, 0.01) FROM generate_series(3001, 9000) g))::bytea
     = (SELECT cbloom_agg(g, 10000, 0.01) FROM (SELECT generate_series(1, 5000) UNION ALL SELECT generate_series(3001, 9000)) s(g))::bytea
  AS union_is_whole;
-- saturating sum
SELECT cbloom_count(a | a | a, 1) AS sum_saturates
FROM (SELECT cbloom_agg(1, 10, 0.1) AS a FROM generate_series(1, 6)) s;
-- folding: a filter of 4m counters folds to m, exactly as if built at m
SELECT l, (big | small)::bytea = ((SELECT cbloom_empty_counters(1024, 3, l) + 1 + 2 + 3 + 4) )::bytea AS folds_exactly,
       (cbloom_info(big | small)).counters
FROM (VALUES ('classic'), ('blocked')) v(l),
     LATERAL (SELECT cbloom_empty_counters(4096, 3, l) + 1 + 2 AS big,
                     cbloom_empty_counters(1024, 3, l) + 3 + 4 AS small) s;
-- filters that cannot be combined
SELECT cb_catch($$SELECT cbloom_empty(100) | cbloom_empty(100, 0.01, 'classic')$$);
SELECT cb_catch($$SELECT cbloom_empty_counters(1024, 3) | cbloom_empty_counters(1024, 4)$$);
SELECT cb_catch($$SELECT cbloom_empty(100) | cbloom_empty(100, 0.01, 'blocked', 1)$$);
SELECT cb_catch($$SELECT cbloom_empty(100) | cbloom_empty(100, 0.01, 'blocked', 0, 8)$$);
SELECT cb_catch($$SELECT cbloom_empty_counters(1024, 3) | cbloom_empty_counters(3072, 3)$$);
SELECT cb_catch($$SELECT (cbloom_empty(100) + 1) | (cbloom_empty(100) + 'a'::text)$$);

-- ---------------------------------------------------------------------
-- Key families: the bloomfilter rules
-- ---------------------------------------------------------------------

-- an int4 added answers an int8 (and int2) probe, and is removed by one
SELECT c @> 5::int8 AS int8_probe, c @> 5::int2 AS int2_probe,
       (c - 5::int8) @> 5 AS removed_by_int8
FROM (SELECT cbloom_empty(100) + 5::int4 AS c) s;
SELECT cb_catch($$SELECT (cbloom_empty(100) + 5) @> 'five'::text$$);
SELECT cb_catch($$SELECT (cbloom_empty(100) + 5) + 'five'::text$$);
SELECT cb_catch($$SELECT (cbloom_empty(100) + 5) - 'five'::text$$);
SELECT cb_catch($$SELECT cbloom_count(cbloom_empty(100) + 5, 'five'::text)$$);
-- an empty filter answers false for any family, and count 0
SELECT cbloom_empty(100) @> 'x'::text AS text_probe, cbloom_count(cbloom_empty(100), 1.5::float8) AS count,
       (cbloom_empty(100) - 'x'::text)::bytea = cbloom_empty(100)::bytea AS remove_noop;
-- the key family goes with the cast
SELECT (bloom_info((cbloom_empty(100) + 'x'::text)::bloomfilter)).key_family;
SELECT cb_catch($$SELECT (cbloom_empty(100) + 'x'::text)::bloomfilter @> 1$$);

-- ---------------------------------------------------------------------
-- I/O: text, bytea and binary send give the same filter back
-- ---------------------------------------------------------------------

CREATE TABLE cb_io (id int, c countingbloom);
INSERT INTO cb_io
SELECT 1, cbloom_empty(1000)
UNION ALL SELECT 2, cbloom_agg(g, 1000, 0.01) FROM generate_series(1, 800) g
UNION ALL SELECT 3, cbloom_agg('k' || g, 1000, 0.001, 8) FROM generate_series(1, 800) g
UNION ALL SELECT 4, cbloom_empty_counters(64, 1) + 1.5::float8
UNION ALL SELECT 5, cbloom_empty(100000, 0.01, 'classic', -1) + date '2024-02-29'
UNION ALL SELECT 6, cbloom_agg(g, 100000, 0.01) FROM generate_series(1, 80000) g;
SELECT id, c::text::countingbloom::bytea = c::bytea AS text_rt,
       c::bytea::countingbloom::bytea = c::bytea AS bytea_rt,
       countingbloom_send(c)::countingbloom::bytea = c::bytea AS send_rt,
       c::text = translate(encode(c::bytea, 'base64'), E'\n', '') AS text_is_base64,
       substr(c::bytea, 1, 4) AS magic
FROM cb_io ORDER BY id;
-- binary COPY through a file
\copy cb_io TO 'results/cb_copy.bin' (FORMAT binary)
CREATE TABLE cb_io2 (id int, c countingbloom);
\copy cb_io2 FROM 'results/cb_copy.bin' (FORMAT binary)
SELECT count(*) AS rows, bool_and(a.c::bytea = b.c::bytea) AS same FROM cb_io a JOIN cb_io2 b USING (id);
-- stored filters, compressed in the row or TOASTed out of it, answer like
-- the ones in memory (the TOASTed one is fetched once per probe call site)
SELECT id, (SELECT count(*) FROM generate_series(1, 800) g WHERE g <@ c) AS found,
       pg_column_size(c) < (cbloom_info(c)).bytes AS compressed
FROM cb_io WHERE id = 2;
SELECT count(*) AS found, min(pg_column_size(c)) > 8000 AS toasted
FROM cb_io, generate_series(1, 80000) g WHERE id = 6 AND g <@ c;
SELECT count(*) AS counted FROM cb_io, generate_series(1, 80000) g WHERE id = 6 AND cbloom_count(c, g) > 0;

-- ---------------------------------------------------------------------
-- Bad bytes through every input path
-- ---------------------------------------------------------------------

CREATE FUNCTION cb_b64(b bytea) RETURNS text LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT translate(encode(b, 'base64'), E'\n', '') $$;
-- a sealed, valid filter's bytes, and a way to corrupt them and reseal:
-- reseal is not possible from SQL, so each corruption below is either
-- caught before the checksum, or by it
CREATE TABLE cb_good AS SELECT (cbloom_empty_counters(512, 3, 'blocked') + 1 + 2)::bytea AS b;
CREATE TABLE cb_cases (what text, b bytea);
INSERT INTO cb_cases SELECT 'valid', b FROM cb_good
UNION ALL SELECT '0 bytes', ''::bytea
UNION ALL SELECT '51 bytes', substr(b, 1, 51) FROM cb_good
UNION ALL SELECT 'bloomfilter bytes', (bloom_empty(10) + 1)::bytea
UNION ALL SELECT 'wrong magic', overlay(b placing 'BLMX'::bytea from 1) FROM cb_good
UNION ALL SELECT 'version 2', overlay(b placing '\x0200'::bytea from 5) FROM cb_good
UNION ALL SELECT 'layout 3', overlay(b placing '\x03'::bytea from 7) FROM cb_good
UNION ALL SELECT 'hashes 0', overlay(b placing '\x00'::bytea from 8) FROM cb_good
UNION ALL SELECT 'width 5', overlay(b placing '\x0500'::bytea from 35) FROM cb_good
UNION ALL SELECT 'width 8, 4-bit length', overlay(b placing '\x0800'::bytea from 35) FROM cb_good
UNION ALL SELECT 'one byte short', substr(b, 1, length(b) - 1) FROM cb_good
UNION ALL SELECT 'one byte more', b || '\x00'::bytea FROM cb_good
UNION ALL SELECT 'family 17', overlay(b placing '\x1100'::bytea from 33) FROM cb_good
UNION ALL SELECT 'reserved', overlay(b placing '\x01'::bytea from 41) FROM cb_good
UNION ALL SELECT 'counter flipped', overlay(b placing '\xff'::bytea from 60) FROM cb_good;
-- the bytea cast (22P03)
SELECT what, cb_catch(format('SELECT %L::bytea::countingbloom', b)) FROM cb_cases;
-- text input (22P02)
SELECT what, cb_catch(format('SELECT %L::countingbloom', cb_b64(b))) FROM cb_cases WHERE what <> '0 bytes';
SELECT cb_catch($$SELECT 'not base64!'::countingbloom$$);
-- a bloomfilter reader refuses counting bytes, and says what they are
SELECT cb_catch(format('SELECT %L::bytea::bloomfilter', b)) FROM cb_good;
SELECT b::bloomfilter FROM cb_good;
-- a newer format version: the detail, and the hint to upgrade that every
-- type gives; version 0 (never written) gets no hint
SELECT overlay(b placing '\x0200'::bytea from 5)::countingbloom FROM cb_good;
SELECT overlay(b placing '\x0000'::bytea from 5)::countingbloom FROM cb_good;
-- binary recv, through COPY FROM (FORMAT binary): a bytea column's binary
-- file is a countingbloom column's with the same bytes.  Each bad case is
-- read twice: with its message (the CONTEXT line shows recv ran for column
-- c), then with only its SQLSTATE, 22P03.  The valid case goes in first.
CREATE TABLE cb_recv (c countingbloom);
\copy (SELECT b FROM cb_cases WHERE what = 'valid') TO 'results/cb_bad.bin' (FORMAT binary)
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set SHOW_CONTEXT errors
\copy (SELECT b FROM cb_cases WHERE what = 'bloomfilter bytes') TO 'results/cb_bad.bin' (FORMAT binary)
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM cb_cases WHERE what = 'counter flipped') TO 'results/cb_bad.bin' (FORMAT binary)
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM cb_cases WHERE what = 'width 5') TO 'results/cb_bad.bin' (FORMAT binary)
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY default
\copy (SELECT b FROM cb_cases WHERE what = '51 bytes') TO 'results/cb_bad.bin' (FORMAT binary)
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy cb_recv FROM 'results/cb_bad.bin' (FORMAT binary)
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT count(*) AS received, bool_and(c::bytea = (SELECT b FROM cb_good)) AS only_the_valid_one FROM cb_recv;

-- ---------------------------------------------------------------------
-- Bad arguments
-- ---------------------------------------------------------------------

SELECT cb_catch($$SELECT cbloom_empty(0)$$);
SELECT cb_catch($$SELECT cbloom_empty(100, 1.5)$$);
SELECT cb_catch($$SELECT cbloom_empty(100, 0.01, 'sideways')$$);
SELECT cb_catch($$SELECT cbloom_empty(100, 0.01, 'blocked', 0, 2)$$);
SELECT cb_catch($$SELECT cbloom_empty(4000000000, 1e-9, 'blocked', 0, 8)$$);
-- fits a bloomfilter, not 8-bit counters
SELECT cb_catch($$SELECT cbloom_empty(100000000, 0.01, 'blocked', 0, 8)$$);
SELECT cb_catch($$SELECT cbloom_empty_counters(0, 3)$$);
SELECT cb_catch($$SELECT cbloom_empty_counters(100, 33)$$);
SELECT cb_catch($$SELECT cbloom_empty_counters(3000000000, 3, 'classic', 0, 8)$$);
SELECT cb_catch($$SELECT cbloom_agg(g, 0, 0.01) FROM generate_series(1, 3) g$$);
SELECT cb_catch($$SELECT cbloom_agg(g, 10, 0.01, 16) FROM generate_series(1, 3) g$$);
SELECT cb_catch($$SELECT cbloom_agg(g, NULL, 0.01) FROM generate_series(1, 3) g$$);

-- ---------------------------------------------------------------------
-- cbloom_agg: NULLs skipped, order and plan do not change the bytes
-- ---------------------------------------------------------------------

SELECT (cbloom_info(cbloom_agg(x, 100, 0.01))).items FROM (VALUES (1), (NULL), (1), (3)) v(x);
SELECT cbloom_agg(x, 100, 0.01) IS NULL AS no_rows FROM (SELECT 1 WHERE false) v(x);
-- the aggregate equals adding the keys one by one
SELECT cbloom_agg(g, 1000, 0.01)::bytea =
       (cbloom_empty(1000, 0.01) + 1 + 2 + 3 + 2)::bytea AS same_as_adds
FROM (VALUES (1), (2), (3), (2)) v(g);

CREATE TABLE cb_keys AS SELECT g AS id, g % 10 AS grp, g % 5000 AS dup FROM generate_series(1, 100000) g;
ANALYZE cb_keys;
SELECT (SELECT cbloom_agg(dup, 5000, 0.01) FROM (SELECT dup FROM cb_keys ORDER BY id) s)::bytea =
       (SELECT cbloom_agg(dup, 5000, 0.01) FROM (SELECT dup FROM cb_keys ORDER BY id DESC) s)::bytea AS order_free;
-- parallel: partial states serialized, combined; byte-identical to serial
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cbloom_agg(dup, 5000, 0.01) FROM cb_keys;
CREATE TABLE cb_parallel AS
SELECT cbloom_agg(dup, 5000, 0.01) AS c4, cbloom_agg(id, 100000, 0.01, 8) AS c8 FROM cb_keys;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT c4::bytea = (SELECT cbloom_agg(dup, 5000, 0.01) FROM cb_keys)::bytea AS parallel_same_4,
       c8::bytea = (SELECT cbloom_agg(id, 100000, 0.01, 8) FROM cb_keys)::bytea AS parallel_same_8,
       cbloom_count(c4, 7) AS count_7, (cbloom_info(c4)).items
FROM cb_parallel;
RESET max_parallel_workers_per_gather;
-- hashed and sorted GROUP BY agree
SET enable_sort = off;
CREATE TABLE cb_hashed AS SELECT grp, cbloom_agg(id, 10000, 0.01) AS c FROM cb_keys GROUP BY grp;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) AS groups, bool_and(h.c::bytea = s.c::bytea) AS same
FROM cb_hashed h JOIN (SELECT grp, cbloom_agg(id, 10000, 0.01) AS c FROM cb_keys GROUP BY grp) s USING (grp);
RESET enable_hashagg;

-- inspection of a filled filter
SELECT layout, counters, hashes, counter_bits, bytes, seed, key_family, items,
       nonzero_counters > 0 AS some_set, saturated_counters, est_fpr < 0.011 AS fpr_ok, format_version
FROM cb_hashed, cbloom_info(c) WHERE grp = 3;

DROP TABLE cb, cb_many, cb_sat, cb_cast, cb_io, cb_io2, cb_good, cb_cases, cb_recv, cb_keys,
  cb_parallel, cb_hashed;
DROP FUNCTION cb_catch(text), cb_remove_all(countingbloom, int[]), cb_b64(bytea);
