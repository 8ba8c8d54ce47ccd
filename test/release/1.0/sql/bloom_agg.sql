--
-- Aggregates: bloom_agg with an explicit size, bloom_union_agg and
-- bloom_intersect_agg; in place state, parallel plans, determinism.
--

CREATE TABLE agg_keys AS SELECT g AS id, g % 10 AS grp, md5(g::text) AS name
FROM generate_series(1, 200000) g;
ANALYZE agg_keys;

-- bloom_agg gives the same filter as adding the keys one by one
SELECT bloom_agg(id, 1000, 0.01) = bloom_add_all(bloom_empty(1000, 0.01), array_agg(id)) AS same
FROM (SELECT id FROM agg_keys WHERE id <= 1000) s;

-- it finds every key, and counts the adds
SELECT (SELECT count(*) FROM agg_keys WHERE NOT id <@ f) AS false_negatives,
       (bloom_info(f)).added, (bloom_info(f)).key_family
FROM (SELECT bloom_agg(id, 200000, 0.01) AS f FROM agg_keys) s;

-- NULL keys are skipped; no rows at all give NULL
SELECT (bloom_info(bloom_agg(x, 100, 0.01))).added FROM (VALUES (1), (NULL), (3)) v(x);
SELECT bloom_agg(x, 100, 0.01) IS NULL AS no_rows FROM (SELECT 1 WHERE false) v(x);

-- row order does not matter: the same keys give byte-identical filters
SELECT (SELECT bloom_agg(id, 200000, 0.01) FROM (SELECT id FROM agg_keys ORDER BY id) s) =
       (SELECT bloom_agg(id, 200000, 0.01) FROM (SELECT id FROM agg_keys ORDER BY name) s) AS order_free;

-- parallel aggregation: partial filters are serialized, combined, and give
-- the filter a serial plan gives
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(id, 200000, 0.01) FROM agg_keys;
CREATE TABLE agg_parallel AS SELECT bloom_agg(id, 200000, 0.01) AS f FROM agg_keys;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT f = (SELECT bloom_agg(id, 200000, 0.01) FROM agg_keys) AS parallel_equals_serial FROM agg_parallel;
RESET max_parallel_workers_per_gather;

-- GROUP BY, hashed and sorted, gives one filter per group, the same either way
SET enable_sort = off;
CREATE TABLE agg_hashed AS SELECT grp, bloom_agg(name, 20000, 0.01) AS f FROM agg_keys GROUP BY grp;
RESET enable_sort;
SET enable_hashagg = off;
CREATE TABLE agg_sorted AS SELECT grp, bloom_agg(name, 20000, 0.01) AS f FROM agg_keys GROUP BY grp;
RESET enable_hashagg;
SELECT count(*) AS groups, bool_and(h.f = s.f) AS same
FROM agg_hashed h JOIN agg_sorted s USING (grp);

-- bloom_union_agg of the per-group filters is the filter of all keys
SELECT bloom_union_agg(f) = (SELECT bloom_agg(name, 20000, 0.01) FROM agg_keys) AS union_of_groups
FROM agg_hashed;
SELECT (SELECT count(*) FROM agg_keys WHERE NOT name <@ u) AS false_negatives
FROM (SELECT bloom_union_agg(f) AS u FROM agg_hashed) s;

-- the filter aggregates run in parallel too, with the same result
CREATE TABLE agg_many AS SELECT g, bloom_empty(1000) + g AS f FROM generate_series(1, 20000) g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM agg_many;
CREATE TABLE agg_many_parallel AS
SELECT bloom_union_agg(f) AS u, bloom_intersect_agg(f) AS i,
       bloom_union_agg(f) FILTER (WHERE g < 0) AS none
FROM agg_many;
SET max_parallel_workers_per_gather = 0;
SELECT u = (SELECT bloom_union_agg(f) FROM agg_many) AS union_same,
       i = (SELECT bloom_intersect_agg(f) FROM agg_many) AS intersect_same,
       none IS NULL AS empty_is_null
FROM agg_many_parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- bloom_intersect_agg keeps the keys common to every filter
CREATE TABLE agg_windows AS
SELECT w, bloom_agg(g, 10000, 0.01) AS f
FROM generate_series(1, 3) w, generate_series(w * 1000, w * 1000 + 5000) g GROUP BY w;
SELECT (SELECT count(*) FROM generate_series(3000, 6000) g WHERE NOT g <@ i) AS lost_common,
       (SELECT count(*) FROM generate_series(1000, 2999) g WHERE g <@ i) < 100 AS others_mostly_gone
FROM (SELECT bloom_intersect_agg(f) AS i FROM agg_windows) s;

-- the filter aggregates skip NULLs and fold power-of-two sizes
SELECT (bloom_info(bloom_union_agg(f))).bits AS bits
FROM (VALUES (bloom_empty_bits(4096, 3) + 1), (NULL), (bloom_empty_bits(1024, 3) + 2)) v(f);
SELECT bloom_union_agg(f) IS NULL AS all_null FROM (VALUES (NULL::bloomfilter)) v(f);

-- and refuse filters that cannot be combined
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty_bits(1024, 3)), (bloom_empty_bits(1024, 4))) v(f);

DROP TABLE agg_keys, agg_parallel, agg_hashed, agg_sorted, agg_windows, agg_many, agg_many_parallel;

--
-- Self-sizing bloom_agg(x): no capacity given
--

-- the finished filter meets the target rate (1%)
-- within 1.25x and is within 2.2x of the optimal size, from a handful of keys
-- to a million (the smallest filter is one 512-bit block)
SELECT n, bits, hashes,
       bits <= greatest(512, 2.2 * bloom_optimal_bits(n, 0.01)) AS size_ok,
       (SELECT count(*) FROM generate_series(1000000000, 1000199999) x WHERE x <@ f) / 200000.0 <= 0.0125 AS fpr_ok
FROM (VALUES (1), (100), (1000), (65536), (100000), (1000000)) v(n),
     LATERAL (SELECT bloom_agg(g) AS f FROM generate_series(1, n) g) a, bloom_info(a.f)
ORDER BY n;

-- another target rate is an argument: bloom_agg(x, fpr)
SELECT hashes, (SELECT count(*) FROM generate_series(1000000000, 1000999999) x WHERE x <@ f) / 1e6 <= 0.00125 AS fpr_ok
FROM (SELECT bloom_agg(g, 0.001) AS f FROM generate_series(1, 100000) g) a, bloom_info(a.f);
-- at 1% it is bloom_agg(x), byte for byte
SELECT (SELECT bloom_agg(g, 0.01) FROM generate_series(1, 50000) g) =
       (SELECT bloom_agg(g) FROM generate_series(1, 50000) g) AS fpr_form_at_1pct_same;
-- the rate must be one for all the rows of a group, in range, not NULL;
-- the range is bloom_empty's, (0, 1) (bloom_hints.sql has its edges)
SELECT bloom_agg(g, CASE WHEN g < 5 THEN 0.01 ELSE 0.001 END) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 1.5) FROM generate_series(1, 10) g;
SELECT (bloom_info(bloom_agg(g, 0.9))).hashes FROM generate_series(1, 10) g;
SELECT bloom_agg(g, NULL::float8) FROM generate_series(1, 10) g;

-- No setting changes what an immutable aggregate returns: postgres_fdw ships
-- bloom_agg(x) to servers whose settings differ.  bloom_agg(x), sbloom_agg(x)
-- and bloom_agg(x, fpr) give the same bytes whatever bloomfilter.default_fpr
-- says, and whatever bloomfilter.agg_max_capacity says while the keys fit
-- under it.
CREATE TABLE agg_settings AS
SELECT md5((SELECT bloom_agg(g) FROM generate_series(1, 50000) g)::bytea) AS a,
       md5((SELECT sbloom_agg(g) FROM generate_series(1, 50000) g)::bytea) AS s,
       md5((SELECT bloom_agg(g, 0.001) FROM generate_series(1, 50000) g)::bytea) AS f;
SET bloomfilter.default_fpr = 0.001;
SET bloomfilter.agg_max_capacity = 65536;
SELECT a = md5((SELECT bloom_agg(g) FROM generate_series(1, 50000) g)::bytea) AS bloom_agg_same,
       s = md5((SELECT sbloom_agg(g) FROM generate_series(1, 50000) g)::bytea) AS sbloom_agg_same,
       f = md5((SELECT bloom_agg(g, 0.001) FROM generate_series(1, 50000) g)::bytea) AS bloom_agg_fpr_same
FROM agg_settings;
SET bloomfilter.default_fpr = 0.2;
SET bloomfilter.agg_max_capacity = 10000000;
SELECT a = md5((SELECT bloom_agg(g) FROM generate_series(1, 50000) g)::bytea) AS bloom_agg_same,
       s = md5((SELECT sbloom_agg(g) FROM generate_series(1, 50000) g)::bytea) AS sbloom_agg_same,
       f = md5((SELECT bloom_agg(g, 0.001) FROM generate_series(1, 50000) g)::bytea) AS bloom_agg_fpr_same
FROM agg_settings;
RESET bloomfilter.default_fpr;
RESET bloomfilter.agg_max_capacity;
DROP TABLE agg_settings;

-- Past bloomfilter.agg_max_capacity the filter is capped and its rate is
-- above the target: a WARNING with a HINT, once per aggregate (two groups
-- past it, one WARNING), none while the keys fit
SET bloomfilter.agg_max_capacity = 65536;
SELECT grp, bits, round(est_fpr::numeric, 2) > 0.01 AS above_target
FROM (SELECT g % 2 AS grp, bloom_agg(g) AS f FROM generate_series(1, 400000) g GROUP BY 1) s,
     bloom_info(s.f) ORDER BY grp;
SELECT bits FROM bloom_info((SELECT bloom_agg(g) FROM generate_series(1, 60000) g));
RESET bloomfilter.agg_max_capacity;

-- filters of two rates do not combine; the ERROR's HINT says how to build
-- them alike
SELECT (SELECT bloom_agg(g) FROM generate_series(1, 1000) g) |
       (SELECT bloom_agg(g, 0.001) FROM generate_series(1, 1000) g);

-- filters built from very different numbers of keys combine: their sizes
-- are powers of two apart and the larger folds; nothing is lost and the
-- result reports its real rate
CREATE TABLE agg_auto_parts AS
SELECT (SELECT bloom_agg(g) FROM generate_series(1, 1000) g) AS small,
       (SELECT bloom_agg(g) FROM generate_series(500001, 600000) g) AS big;
ALTER TABLE agg_auto_parts ADD COLUMN u bloomfilter;
UPDATE agg_auto_parts SET u = small | big;
SELECT (bloom_info(small)).bits AS small_bits, (bloom_info(big)).bits AS big_bits,
       (bloom_info(u)).bits AS union_bits,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE NOT g <@ u) +
       (SELECT count(*) FROM generate_series(500001, 600000) g WHERE NOT g <@ u) AS false_negatives,
       abs((SELECT count(*) FROM generate_series(2000001, 2100000) x WHERE x <@ u) / 100000.0
           - bloom_fpr(u)) < 0.1 * bloom_fpr(u) AS reported_rate_is_true
FROM agg_auto_parts;
SELECT bloom_union_agg(f) = ((SELECT small FROM agg_auto_parts) | (SELECT big FROM agg_auto_parts)) AS union_agg_folds
FROM (SELECT small AS f FROM agg_auto_parts UNION ALL SELECT big FROM agg_auto_parts) u;
-- three or more: the WARNING still comes when an input meets a state that an
-- earlier fold already saturated (the rate to compare with is the inputs',
-- not that of the folded state), whatever the order of the inputs
CREATE TABLE agg_auto_shards AS
SELECT n, bloom_agg(g) AS f FROM (VALUES (1000), (10000), (100000)) v(n), generate_series(1, n) g GROUP BY n;
SELECT bits, round(est_fpr::numeric, 2) AS est_fpr
FROM bloom_info((SELECT bloom_union_agg(f ORDER BY n) FROM agg_auto_shards));
SELECT bits, round(est_fpr::numeric, 2) AS est_fpr
FROM bloom_info((SELECT bloom_union_agg(f ORDER BY n DESC) FROM agg_auto_shards));
-- filters of one size, each sized for its own keys, union without folding
-- but hold more keys than that size was for: a WARNING too
SELECT bits, round(est_fpr::numeric, 2) AS est_fpr
FROM bloom_info((SELECT bloom_union_agg(f) FROM
  (SELECT n, bloom_agg(g, 10000, 0.01) AS f FROM (VALUES (0), (10000), (20000)) v(n),
          generate_series(n + 1, n + 10000) g GROUP BY n) s));
SELECT round(bloom_fpr((SELECT bloom_agg(g, 10000, 0.01) FROM generate_series(1, 10000) g) |
                        (SELECT bloom_agg(g, 10000, 0.01) FROM generate_series(10001, 20000) g))::numeric, 2) AS or_fpr;
-- filters of one size for all the keys keep the rate, without a WARNING
SELECT bits, est_fpr < 0.01 AS keeps_rate
FROM bloom_info((SELECT bloom_union_agg(f) FROM
  (SELECT n, bloom_agg(g, 111000, 0.01) AS f FROM (VALUES (1000), (10000), (100000)) v(n),
          generate_series(1, n) g GROUP BY n) s));

-- the same keys give the same bytes whatever the plan.  A small
-- agg_max_capacity makes the full-size filter small, so that sets past the
-- exact phase (here about 6,000 distinct keys) are cheap to test
SET bloomfilter.agg_max_capacity = 100000;
CREATE TABLE agg_auto_keys AS SELECT g AS id, g % 7 AS grp FROM generate_series(1, 200000) g;
ANALYZE agg_auto_keys;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE agg_auto_serial AS
SELECT n, (SELECT bloom_agg(id) FROM agg_auto_keys WHERE id <= n) AS f
FROM (VALUES (100), (5000), (7000), (50000), (200000)) v(n);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(id) FROM agg_auto_keys WHERE id <= 7000;
-- one CREATE TABLE AS per size: INSERT ... SELECT never runs in parallel in
-- PostgreSQL 15, and a UNION ALL runs each aggregate whole in one worker
EXPLAIN (COSTS OFF) CREATE TABLE agg_auto_par_explain AS SELECT bloom_agg(id) AS f FROM agg_auto_keys WHERE id <= 200000;
CREATE TABLE agg_auto_par_100 AS SELECT bloom_agg(id) AS f FROM agg_auto_keys WHERE id <= 100;
CREATE TABLE agg_auto_par_5000 AS SELECT bloom_agg(id) AS f FROM agg_auto_keys WHERE id <= 5000;
CREATE TABLE agg_auto_par_7000 AS SELECT bloom_agg(id) AS f FROM agg_auto_keys WHERE id <= 7000;
CREATE TABLE agg_auto_par_50000 AS SELECT bloom_agg(id) AS f FROM agg_auto_keys WHERE id <= 50000;
CREATE TABLE agg_auto_par_200000 AS SELECT bloom_agg(id) AS f FROM agg_auto_keys WHERE id <= 200000;
CREATE TABLE agg_auto_parallel AS
SELECT 100 AS n, f FROM agg_auto_par_100
UNION ALL SELECT 5000, f FROM agg_auto_par_5000
UNION ALL SELECT 7000, f FROM agg_auto_par_7000
UNION ALL SELECT 50000, f FROM agg_auto_par_50000
UNION ALL SELECT 200000, f FROM agg_auto_par_200000;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT n, (bloom_info(s.f)).bits, s.f = p.f AS parallel_same,
       s.f = (SELECT bloom_agg(id) FROM (SELECT id FROM agg_auto_keys WHERE id <= n ORDER BY id DESC) r) AS reversed_same,
       (bloom_info(s.f)).bits_set = (bloom_info((SELECT bloom_agg(id) FROM (SELECT id FROM agg_auto_keys WHERE id <= n UNION ALL SELECT id FROM agg_auto_keys WHERE id <= n / 2) d))).bits_set AS duplicates_same_bits
FROM agg_auto_serial s JOIN agg_auto_parallel p USING (n) ORDER BY n;
RESET max_parallel_workers_per_gather;

-- hashed and sorted GROUP BY agree, and each group finds its keys
SET enable_sort = off;
CREATE TABLE agg_auto_hashed AS SELECT grp, bloom_agg(id) AS f FROM agg_auto_keys GROUP BY grp;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) AS groups, bool_and(h.f = s.f) AS same
FROM agg_auto_hashed h JOIN (SELECT grp, bloom_agg(id) AS f FROM agg_auto_keys GROUP BY grp) s USING (grp);
RESET enable_hashagg;
SELECT sum((SELECT count(*) FROM agg_auto_keys k WHERE k.grp = h.grp AND NOT k.id <@ h.f)) AS false_negatives
FROM agg_auto_hashed h;
RESET bloomfilter.agg_max_capacity;

DROP TABLE agg_auto_parts, agg_auto_shards, agg_auto_keys, agg_auto_serial, agg_auto_parallel, agg_auto_hashed,
	agg_auto_par_100, agg_auto_par_5000, agg_auto_par_7000, agg_auto_par_50000, agg_auto_par_200000;

--
-- Large partial states in parallel plans.  Each process ships its buffer
-- sketched, bucketed by top byte and, when the sketch shows many repeats,
-- without them; the leader keeps the buffers as runs and inserts them
-- bucket by bucket, or, when they outgrow the buffer's limit, merges them
-- into one buffer and drops duplicates, or moves to the full-size filter.
-- Which of these happens depends on how the rows fall to the processes;
-- every way must give the bytes of the serial plan.  (An agg_max_capacity
-- of 1M limits the buffer to 131072 hashes.)
--
CREATE TABLE agg_big AS
SELECT g AS id, g % 3 AS grp FROM generate_series(1, 1000000) g ORDER BY g::bigint * 7919 % 1000003;
ANALYZE agg_big;
CREATE TABLE agg_big_cases (what text, capacity int, query text);
INSERT INTO agg_big_cases VALUES
	-- 1M distinct: three runs, a 2 MB filter filled bucket by bucket
	('distinct', 100000000, 'SELECT bloom_agg(id) FROM agg_big'),
	-- 20,000 distinct in 300,000 rows: repeats dropped before shipping
	('repeats', 100000000, 'SELECT bloom_agg(id % 20000) FROM agg_big WHERE id <= 300000'),
	-- each key three times: runs merged into the buffer, duplicates dropped
	('buffer limit', 1000000, 'SELECT bloom_agg(id % 70000) FROM agg_big WHERE id <= 210000'),
	-- 300,000 distinct: past the limit, the full-size filter, folded
	('filter phase', 1000000, 'SELECT bloom_agg(id) FROM agg_big WHERE id <= 300000'),
	-- one state per group (the md5 of each group's filter)
	('groups', 100000000, 'SELECT decode(string_agg(md5(f::bytea), '''' ORDER BY grp), ''hex'') FROM (SELECT grp, bloom_agg(id) AS f FROM agg_big GROUP BY grp) s'),
	-- sbloom_agg shares the states
	('sbloom_agg', 100000000, 'SELECT sbloom_agg(id) FROM agg_big WHERE id <= 300000');
-- (run from a function: INSERT ... SELECT never runs in parallel, but a
-- query a function executes for CREATE TABLE AS may)
CREATE FUNCTION agg_big_run(q text, capacity int, OUT b bytea, OUT parallel_plan bool)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	PERFORM set_config('bloomfilter.agg_max_capacity', capacity::text, true);
	parallel_plan := false;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT (' || q || ')::bytea' LOOP
		parallel_plan := parallel_plan OR line LIKE '%Gather%';
	END LOOP;
	EXECUTE 'SELECT (' || q || ')::bytea' INTO b;
END $$;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE agg_big_serial AS SELECT what, (agg_big_run(query, capacity)).* FROM agg_big_cases;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(id) FROM agg_big;
EXPLAIN (COSTS OFF) SELECT grp, bloom_agg(id) FROM agg_big GROUP BY grp;
CREATE TABLE agg_big_parallel AS SELECT what, (agg_big_run(query, capacity)).* FROM agg_big_cases;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT what, length(s.b) AS bytes, s.parallel_plan AS serial_plan_parallel,
       p.parallel_plan, s.b = p.b AS parallel_same
FROM agg_big_serial s JOIN agg_big_parallel p USING (what) ORDER BY what;

DROP FUNCTION agg_big_run(text, int);
DROP TABLE agg_big, agg_big_cases, agg_big_serial, agg_big_parallel;

-- Keys of type record tell their columns by their value: an aggregate
-- whose first key is NULL (a CASE, the NULL side of an outer join) waits
-- for the first key that is not, instead of failing because the columns
-- cannot be known (every aggregate that takes keys)
CREATE TABLE agg_rec (i int, t text);
INSERT INTO agg_rec VALUES (1, 'a'), (2, 'b'), (3, 'c');
SELECT ROW(2, 'b'::text) <@ bloom_agg(CASE WHEN i > 1 THEN ROW(i, t) END ORDER BY i) AS auto_found,
       ROW(2, 'b'::text) <@ bloom_agg(CASE WHEN i > 1 THEN ROW(i, t) END, 100, 0.01 ORDER BY i) AS sized_found,
       ROW(2, 'b'::text) <@ sbloom_agg(CASE WHEN i > 1 THEN ROW(i, t) END ORDER BY i) AS scalable_found,
       ROW(2, 'b'::text) <@ cbloom_agg(CASE WHEN i > 1 THEN ROW(i, t) END, 100, 0.01 ORDER BY i) AS counting_found,
       bloom_window_contains(bloom_window_agg(CASE WHEN i > 1 THEN ROW(i, t) END,
                                              '2024-01-01 00:00+00', '1 hour' ORDER BY i),
                             ROW(2, 'b'::text), '2024-01-01 00:00+00') AS window_found
FROM agg_rec;
-- the whole row of the NULL side of an outer join
SELECT count(*) FILTER (WHERE s <@ f) AS found, count(s) AS of_keys
FROM (SELECT bloom_agg(s ORDER BY g) AS f
      FROM generate_series(0, 3) g LEFT JOIN (SELECT i, t FROM agg_rec) s ON s.i = g) x,
     (SELECT i, t FROM agg_rec) s;
DROP TABLE agg_rec;

-- bloom_agg(x, capacity, fpr) that saw few keys keeps their hashes to the
-- end: its result, made from them in the final function (grouped: not
-- kept in the group's state), and the running result of the window form
-- (made once in the state), are the bytes of a bloom_add_all of the keys
SELECT count(*) AS groups,
       count(*) FILTER (WHERE f::bytea = bloom_add_all(bloom_empty(1000, 0.01), ks)::bytea) AS same_bytes,
       count(*) FILTER (WHERE true = ALL (bloom_contains_all(f, ks))) AS all_found
FROM (SELECT g % 50 AS grp, bloom_agg(CASE WHEN g % 7 = 0 THEN NULL ELSE g END, 1000, 0.01) AS f,
             array_agg(g) FILTER (WHERE g % 7 <> 0) AS ks
      FROM generate_series(1, 2000) g GROUP BY 1) s;
SELECT count(*) AS rows_,
       count(*) FILTER (WHERE f::bytea = bloom_add_all(bloom_empty(100000, 0.01), ks)::bytea) AS same_bytes
FROM (SELECT bloom_agg(g, 100000, 0.01) OVER w AS f, array_agg(g) OVER w AS ks
      FROM generate_series(1, 300) g WINDOW w AS (ORDER BY g)) s;
