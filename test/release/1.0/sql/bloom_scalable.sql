--
-- Scalable Bloom filters (scalablebloom): a filter that grows by adding
-- sub-filters of increasing size and tightening rate, so that its rate
-- stays under the target however many keys arrive.
--

\set VERBOSITY default
\set SHOW_CONTEXT never

-- sb_catch(q): the error of q as "SQLSTATE: message", or "no error"
CREATE FUNCTION sb_catch(q text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;

-- ---------------------------------------------------------------------
-- Construction and settings
-- ---------------------------------------------------------------------

-- the defaults: 1000 keys in the first sub-filter, 1% overall, growth 2,
-- tightening 0.85, so the first sub-filter is sized for 0.15%
SELECT * FROM sbloom_settings(sbloom_empty());
SELECT * FROM sbloom_filters(sbloom_empty());
SELECT layout, bits, hashes, bytes, key_family, added, bits_set, est_fpr, format_version
FROM bloom_info(sbloom_empty());
SELECT * FROM sbloom_settings(sbloom_empty(100, 0.001, 4, 0.5, 'classic', -7));
SELECT layout, seed FROM bloom_info(sbloom_empty(100, 0.001, 4, 0.5, 'classic', -7));

-- ---------------------------------------------------------------------
-- Adding and probing
-- ---------------------------------------------------------------------

-- any key type; an untyped literal is text; NULL keys change nothing
SELECT (sbloom_empty(100) + 42) @> 42 AS has_42, (sbloom_empty(100) + 42) @> 43 AS has_43,
       42 <@ (sbloom_empty(100) + 42::int8) AS int8_probe,
       bloom_contains(sbloom_empty(100) + 'abc', 'abc') AS text_literal,
       'abc' <@ bloom_add(sbloom_empty(100), 'abc') AS text_contained,
       bloom_contains(sbloom_empty(100), 1) AS empty,
       bloom_add(sbloom_empty(100), NULL::int)::bytea = sbloom_empty(100)::bytea AS null_key_noop,
       bloom_contains(sbloom_empty(100) + 1, NULL::int) IS NULL AS null_probe;

-- a key already reported is counted, not inserted again
SELECT (bloom_info(f)).added, x.added AS sub_filter_added, x.bits_set
FROM (SELECT bloom_add_all(sbloom_empty(100), ARRAY[1, 1, 1, 2, NULL]) AS f) s, sbloom_filters(f) x;

-- families are checked as for bloomfilter
SELECT sb_catch($$SELECT (sbloom_empty(100) + 1) @> 'x'::text$$);
SELECT sb_catch($$SELECT (sbloom_empty(100) + 1) + 'x'::text$$);
SELECT sb_catch($$SELECT bloom_add_all(sbloom_empty(100) + 1, ARRAY['x'])$$);

-- ---------------------------------------------------------------------
-- Growth: 5,000 keys into a filter started for 100
-- ---------------------------------------------------------------------

CREATE TABLE sb_grown AS
SELECT bloom_add_all(sbloom_empty(100), array_agg(g ORDER BY g)) AS f
FROM generate_series(1, 5000) g;

-- six sub-filters: capacities double, target rates shrink by 0.85; each
-- holds its capacity (less the keys an earlier one already reported),
-- and its estimated rate stays near or under its target
SELECT index, level, capacity, round(target_fpr::numeric, 6) AS target_fpr, bits, hashes,
       added, bits_set, round(est_cardinality) AS est_cardinality,
       est_fpr <= 1.1 * target_fpr AS under_target
FROM sb_grown, sbloom_filters(f);

-- bloom_info totals the sub-filters; est_fpr is 1 - prod(1 - est_fpr_i)
SELECT layout, bits, hashes, bytes, key_family, added, bits_set,
       round(fill_ratio::numeric, 4) AS fill_ratio,
       round(est_cardinality) AS est_cardinality,
       round(est_fpr::numeric, 5) AS est_fpr,
       abs(est_fpr - (SELECT 1 - exp(sum(ln(1 - est_fpr))) FROM sbloom_filters(f))) < 1e-12 AS est_fpr_is_product,
       bits = (SELECT sum(bits) FROM sbloom_filters(f)) AS bits_is_sum,
       abs(est_cardinality - bloom_cardinality(f)) < 1e-9 AND est_fpr = bloom_fpr(f) AS functions_agree
FROM sb_grown, bloom_info(f);
SELECT filters, round(rate_bound::numeric, 6) AS rate_bound, rate_bound < fpr AS bound_under_target
FROM sb_grown, sbloom_settings(f);

-- no key is lost, and the measured rate (200,000 absent keys) is under
-- the 1% target and near the estimate
SELECT (SELECT count(*) FROM generate_series(1, 5000) g WHERE NOT g <@ f) AS false_negatives,
       (SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE g <@ f) / 200000.0 < 0.01 AS fpr_ok,
       abs((SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE g <@ f) / 200000.0 - bloom_fpr(f))
         < 0.25 * bloom_fpr(f) AS estimate_ok
FROM sb_grown;

-- adding one key at a time grows the same way: the same bytes
SELECT f::bytea = (SELECT s::bytea FROM (
         WITH RECURSIVE r(i, s) AS (SELECT 0, sbloom_empty(100)
                                    UNION ALL SELECT i + 1, s + (i + 1) FROM r WHERE i < 5000)
         SELECT s FROM r WHERE i = 5000) x) AS one_by_one_same
FROM sb_grown;

-- growth 4: fewer, larger sub-filters
SELECT count(*) AS filters, max(capacity) AS largest
FROM (SELECT bloom_add_all(sbloom_empty(100, growth => 4), array_agg(g)) AS f
      FROM generate_series(1, 5000) g) s, sbloom_filters(f);

-- a container that cannot grow any more says so (a tightening this small
-- drives the next level's rate to zero)
SELECT sb_catch($$SELECT bloom_add_all(sbloom_empty(1, 0.01, 2, 1e-200), ARRAY[1, 2, 3, 4, 5, 6, 7, 8])$$);

-- ---------------------------------------------------------------------
-- Shipping: text, bytea and binary COPY carry the same container
-- ---------------------------------------------------------------------

SELECT f::text::scalablebloom::bytea = f::bytea AS text_round_trip,
       f::bytea::scalablebloom::bytea = f::bytea AS bytea_round_trip,
       length(f::bytea) = (bloom_info(f)).bytes AS bytea_is_payload,
       substr(f::bytea, 1, 4) = 'BLMS'::bytea AS magic
FROM sb_grown;
\copy sb_grown TO 'results/sb_copy.bin' (FORMAT binary)
CREATE TABLE sb_copy (f scalablebloom);
\copy sb_copy FROM 'results/sb_copy.bin' (FORMAT binary)
SELECT a.f::bytea = b.f::bytea AS copy_binary_same,
       (SELECT count(*) FROM generate_series(1, 5000) g WHERE NOT g <@ b.f) AS false_negatives
FROM sb_grown a, sb_copy b;

-- a bloomfilter becomes the first sub-filter (capacity: what it holds at
-- the first level's rate) and then grows
SELECT x.level, x.capacity, x.bits, x.added, (bloom_info(s)).added AS container_added,
       (SELECT count(*) FROM generate_series(1, 3) g WHERE NOT g <@ s) AS false_negatives
FROM (SELECT bloom_add_all(bloom_empty(1000, 0.0015), ARRAY[1, 2, 3])::scalablebloom AS s) c,
     sbloom_filters(c.s) x;
SELECT (SELECT count(*) FROM sbloom_filters(s)) AS filters,
       (SELECT count(*) FROM generate_series(1, 3000) g WHERE NOT g <@ s) AS false_negatives
FROM (SELECT bloom_add_all((bloom_empty(1000, 0.0015) + 0)::scalablebloom, array_agg(g)) AS s
      FROM generate_series(1, 3000) g) c;

-- ---------------------------------------------------------------------
-- Union
-- ---------------------------------------------------------------------

-- the union holds both sides' sub-filters (sorted, identical ones once):
-- no key of either is lost, and its rate is reported truthfully
CREATE TABLE sb_parts AS
SELECT bloom_add_all(sbloom_empty(100), (SELECT array_agg(g) FROM generate_series(1, 300) g)) AS a,
       bloom_add_all(sbloom_empty(100), (SELECT array_agg(g) FROM generate_series(10001, 10050) g)) AS b;
SELECT (SELECT count(*) FROM sbloom_filters(a)) AS a_filters,
       (SELECT count(*) FROM sbloom_filters(b)) AS b_filters,
       (SELECT count(*) FROM sbloom_filters(a | b)) AS union_filters,
       (SELECT array_agg(level ORDER BY index) FROM sbloom_filters(a | b)) AS union_levels,
       (bloom_info(a | b)).added,
       (SELECT count(*) FROM generate_series(1, 300) g WHERE NOT g <@ (a | b)) +
       (SELECT count(*) FROM generate_series(10001, 10050) g WHERE NOT g <@ (a | b)) AS false_negatives,
       abs(bloom_fpr(a | b) - (1 - (1 - bloom_fpr(a)) * (1 - bloom_fpr(b)))) < 1e-12 AS rate_combines,
       (a | b)::bytea = (b | a)::bytea AS commutative,
       bloom_union(a, b)::bytea = (a | b)::bytea AS function_is_operator
FROM sb_parts;

-- a filter united with itself keeps its sub-filters (and its rate)
SELECT (SELECT count(*) FROM sbloom_filters(a | a)) AS filters, bloom_fpr(a | a) = bloom_fpr(a) AS same_rate
FROM sb_parts;

-- keys added after a union go to the last sub-filter
SELECT ((a | b) + 777777) @> 777777 AS added_after_union FROM sb_parts;

-- the union of two full filters can pass the target (here each first
-- sub-filter is sized for 0.9%): a WARNING says so
SELECT round(bloom_fpr(u)::numeric, 4) AS union_fpr
FROM (SELECT bloom_add_all(sbloom_empty(1000, 0.01, 2, 0.1), (SELECT array_agg(g) FROM generate_series(1, 1000) g)) |
             bloom_add_all(sbloom_empty(1000, 0.01, 2, 0.1), (SELECT array_agg(g) FROM generate_series(2001, 3000) g)) AS u) s;

-- filters that are not alike cannot be united
SELECT sb_catch($$SELECT sbloom_empty(100) | sbloom_empty(100, seed => 1)$$);
SELECT sb_catch($$SELECT sbloom_empty(100) | sbloom_empty(100, 0.02)$$);
SELECT sb_catch($$SELECT sbloom_empty(100) | sbloom_empty(100, growth => 4)$$);
SELECT sb_catch($$SELECT sbloom_empty(100) | sbloom_empty(100, tightening => 0.9)$$);
SELECT sb_catch($$SELECT sbloom_empty(100) | sbloom_empty(100, layout => 'classic')$$);
SELECT sb_catch($$SELECT (sbloom_empty(100) + 1) | (sbloom_empty(100) + 'x'::text)$$);
-- an empty filter of another initial capacity can be united
SELECT (SELECT initial_capacity FROM sbloom_settings((sbloom_empty(100) + 1) | sbloom_empty(50))) AS initial_capacity;

-- ---------------------------------------------------------------------
-- Aggregates
-- ---------------------------------------------------------------------

-- sbloom_agg: bloom_agg's self-sizing filter at the first level's rate,
-- as sub-filter 0; later adds grow it
SELECT x.index, x.level, x.capacity, x.bits, x.hashes, x.added, (bloom_info(f)).added AS container_added
FROM (SELECT sbloom_agg(g) AS f FROM generate_series(1, 10000) g) s, sbloom_filters(f) x;
SELECT (SELECT count(*) FROM sbloom_filters(f)) AS filters,
       (SELECT count(*) FROM generate_series(1, 60000) g WHERE NOT g <@ f) AS false_negatives,
       (SELECT count(*) FROM generate_series(1000001, 1200000) g WHERE g <@ f) / 200000.0 < 0.01 AS fpr_ok
FROM (SELECT bloom_add_all(sbloom_agg(g), (SELECT array_agg(x) FROM generate_series(10001, 60000) x)) AS f
      FROM generate_series(1, 10000) g) s;
-- repeated keys do not make the first sub-filter look full
SELECT x.added < 1100 AS counts_distinct, (bloom_info(f)).added AS rows
FROM (SELECT sbloom_agg(g % 1000) AS f FROM generate_series(1, 20000) g) s, sbloom_filters(f) x;
-- NULL keys are skipped; no rows give NULL
SELECT (bloom_info(sbloom_agg(x))).added FROM (VALUES (1), (NULL), (3)) v(x);
SELECT sbloom_agg(x) IS NULL AS no_rows FROM (SELECT 1 WHERE false) v(x);

-- the same keys give the same bytes whatever the plan: serial, parallel,
-- and in another order.  A small agg_max_capacity makes bloom_agg's
-- full-size phase reachable at this size.
SET bloomfilter.agg_max_capacity = 100000;
CREATE TABLE sb_keys AS SELECT g AS id, g % 7 AS grp FROM generate_series(1, 200000) g;
ANALYZE sb_keys;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sb_serial AS
SELECT n, (SELECT sbloom_agg(id) FROM sb_keys WHERE id <= n) AS f,
       (SELECT sbloom_agg(id) FROM (SELECT id FROM sb_keys WHERE id <= n ORDER BY id DESC) r) AS reversed
FROM (VALUES (100), (7000), (200000)) v(n);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT sbloom_agg(id) FROM sb_keys;
-- one CREATE TABLE AS per size: INSERT ... SELECT never runs in parallel in
-- PostgreSQL 15, and a UNION ALL runs each aggregate whole in one worker
EXPLAIN (COSTS OFF) CREATE TABLE sb_par_explain AS SELECT sbloom_agg(id) AS f FROM sb_keys WHERE id <= 200000;
CREATE TABLE sb_par_100 AS SELECT sbloom_agg(id) AS f FROM sb_keys WHERE id <= 100;
CREATE TABLE sb_par_7000 AS SELECT sbloom_agg(id) AS f FROM sb_keys WHERE id <= 7000;
CREATE TABLE sb_par_200000 AS SELECT sbloom_agg(id) AS f FROM sb_keys WHERE id <= 200000;
CREATE TABLE sb_parallel AS
SELECT 100 AS n, f FROM sb_par_100
UNION ALL SELECT 7000, f FROM sb_par_7000
UNION ALL SELECT 200000, f FROM sb_par_200000;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT n, s.f::bytea = p.f::bytea AS parallel_same, s.f::bytea = s.reversed::bytea AS reversed_same
FROM sb_serial s JOIN sb_parallel p USING (n) ORDER BY n;

-- bloom_union_agg: the union of many filters, the same bytes serial and
-- parallel, and no key lost
CREATE TABLE sb_groups AS
SELECT grp, bloom_add_all(sbloom_empty(1000), array_agg(id ORDER BY id)) AS f
FROM sb_keys WHERE id <= 70000 GROUP BY grp;
CREATE TABLE sb_many AS SELECT g, sbloom_empty(10) + g AS f FROM generate_series(1, 2000) g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM sb_many;
CREATE TABLE sb_union_parallel AS SELECT bloom_union_agg(f) AS u FROM sb_many WHERE g <= 1000;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT u::bytea = (SELECT bloom_union_agg(f)::bytea FROM sb_many WHERE g <= 1000) AS parallel_same,
       u::bytea = (SELECT bloom_union_agg(f ORDER BY g DESC)::bytea FROM sb_many WHERE g <= 1000) AS order_free,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE NOT g <@ u) AS false_negatives,
       (SELECT count(*) FROM sbloom_filters(u)) AS filters
FROM sb_union_parallel;
-- 2,000 one-key filters are more sub-filters than a container holds
SELECT sb_catch($$SELECT bloom_union_agg(f) FROM sb_many$$);
SELECT (SELECT count(*) FROM sb_keys WHERE id <= 70000 AND NOT id <@ u) AS false_negatives,
       (bloom_info(u)).added,
       u::bytea = (SELECT bloom_union_agg(f ORDER BY grp DESC)::bytea FROM sb_groups) AS order_free
FROM (SELECT bloom_union_agg(f) AS u FROM sb_groups) s;
SELECT bloom_union_agg(f) IS NULL AS all_null FROM (VALUES (NULL::scalablebloom)) v(f);
SELECT sb_catch($$SELECT bloom_union_agg(f) FROM (VALUES (sbloom_empty(10)), (sbloom_empty(10, 0.05))) v(f)$$);
RESET max_parallel_workers_per_gather;
RESET bloomfilter.agg_max_capacity;

-- ---------------------------------------------------------------------
-- Bad arguments and bad bytes
-- ---------------------------------------------------------------------

SELECT sb_catch($$SELECT sbloom_empty(0)$$);
SELECT sb_catch($$SELECT sbloom_empty(100, 1.0)$$);
SELECT sb_catch($$SELECT sbloom_empty(100, 0.01, 3)$$);
SELECT sb_catch($$SELECT sbloom_empty(100, 0.01, 2, 1.0)$$);
SELECT sb_catch($$SELECT sbloom_empty(100, 0.01, 2, 'NaN')$$);
SELECT sb_catch($$SELECT sbloom_empty(100, layout => 'square')$$);
SELECT sb_catch($$SELECT sbloom_empty(10000000000000)$$);

-- a sealed container, and bytes changed at known offsets: the header is
-- 68 bytes, sub-filter 0's entry header follows (28 bytes), then its
-- bloomfilter (52-byte header, then the bits).  Fields checked before the
-- checksum are reported by name; anything else fails the checksum.
CREATE TABLE sb_bad AS
SELECT what, b FROM (SELECT (sbloom_empty(20) + 1 + 2)::bytea AS good) g,
LATERAL (VALUES
  ('good', good),
  ('bloomfilter bytes', (bloom_empty(20) + 1)::bytea),
  ('wrong magic', set_byte(good, 3, 88)),
  ('version 2', set_byte(good, 4, 2)),
  ('kind 2', set_byte(good, 6, 2)),
  ('growth 3', set_byte(good, 50, 3)),
  ('flags', set_byte(good, 51, 1)),
  ('no sub-filters', set_byte(good, 56, 0)),
  ('2 sub-filters announced', set_byte(good, 56, 2)),
  ('entry tag', set_byte(good, 68 + 16, 1)),
  ('entry level 64', set_byte(good, 68 + 24, 64)),
  ('entry magic', set_byte(good, 96 + 3, 88)),
  ('entry hashes 0', set_byte(good, 96 + 7, 0)),
  ('entry seed', set_byte(good, 96 + 8, 1)),
  ('a bit flipped', set_byte(good, length(good) - 1, get_byte(good, length(good) - 1) # 1)),
  ('truncated header', substr(good, 1, 60)),
  ('one byte short', substr(good, 1, length(good) - 1)),
  ('one extra byte', good || '\x00'::bytea),
  ('0 bytes', ''::bytea)
) v(what, b);

-- the bytea cast
SELECT what, sb_catch(format('SELECT %L::bytea::scalablebloom', b)) AS bytea_cast FROM sb_bad;
-- text input (the same bytes in base64)
SELECT what, sb_catch(format('SELECT %L::scalablebloom', translate(encode(b, 'base64'), E'\n', ''))) AS text_input
FROM sb_bad WHERE what IN ('good', 'wrong magic', 'entry magic', 'a bit flipped', 'one byte short');
SELECT sb_catch($$SELECT 'not base64!'::scalablebloom$$);
-- binary recv (COPY FROM binary: a bytea column's file is read as scalablebloom)
CREATE TABLE sb_recv (f scalablebloom);
\copy (SELECT b FROM sb_bad WHERE what = 'good') TO 'results/sb_bad.bin' (FORMAT binary)
\copy sb_recv FROM 'results/sb_bad.bin' (FORMAT binary)
\copy (SELECT b FROM sb_bad WHERE what = 'entry hashes 0') TO 'results/sb_bad.bin' (FORMAT binary)
\copy sb_recv FROM 'results/sb_bad.bin' (FORMAT binary)
\copy (SELECT b FROM sb_bad WHERE what = 'a bit flipped') TO 'results/sb_bad.bin' (FORMAT binary)
\copy sb_recv FROM 'results/sb_bad.bin' (FORMAT binary)
-- the detail and hint of a newer version, and the detail of a short header
SELECT b::scalablebloom FROM sb_bad WHERE what = 'version 2';
SELECT b::scalablebloom FROM sb_bad WHERE what = 'truncated header';
SELECT count(*) AS received FROM sb_recv;

DROP TABLE sb_par_100, sb_par_7000, sb_par_200000;
DROP TABLE sb_grown, sb_copy, sb_parts, sb_keys, sb_serial, sb_parallel, sb_groups, sb_many,
  sb_union_parallel, sb_bad, sb_recv;
DROP FUNCTION sb_catch(text);
