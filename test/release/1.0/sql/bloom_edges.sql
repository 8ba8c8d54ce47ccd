--
-- Edges a newcomer meets: a NULL operand of a union, a filter pushed past
-- its capacity, a bloomwindow key stamped ahead of the present, the batch
-- forms of the counting filter, the window's operators, untyped parameters.
--
SET TimeZone = 'UTC';
-- tables of their own: the names are the README's
CREATE SCHEMA edges;
SET search_path = edges, public;

-- 1. A NULL operand of a union is the empty set (f | NULL is f, as array_cat
-- treats NULL), for every type that has a union; NULL | NULL is NULL.
CREATE TABLE edge_f AS
SELECT bloom_add_all(bloom_empty(1000), ARRAY[1, 2, 3]) AS f,
       cbloom_add(cbloom_add(cbloom_empty(1000), 1), 2) AS c,
       bloom_add_all(sbloom_empty(1000), ARRAY[1, 2, 3]) AS s;
SELECT (f | NULL) = f AS f_or_null, (NULL | f) = f AS null_or_f,
       bloom_union(f, NULL) = f AS fn_f_null, bloom_union(NULL, f) = f AS fn_null_f,
       (NULL::bloomfilter | NULL::bloomfilter) IS NULL AS null_or_null,
       bloom_union(NULL::bloomfilter, NULL) IS NULL AS fn_null_null
FROM edge_f;
SELECT (c | NULL) = c AS c_or_null, (NULL | c) = c AS null_or_c,
       cbloom_union(c, NULL) = c AS fn_c_null, cbloom_union(NULL, c) = c AS fn_null_c,
       (NULL::countingbloom | NULL::countingbloom) IS NULL AS null_or_null
FROM edge_f;
SELECT (s | NULL) = s AS s_or_null, (NULL | s) = s AS null_or_s,
       bloom_union(s, NULL) = s AS fn_s_null, bloom_union(NULL, s) = s AS fn_null_s,
       (NULL::scalablebloom | NULL::scalablebloom) IS NULL AS null_or_null
FROM edge_f;
-- the intersection stays strict: f & NULL is NULL ("no keys known")
SELECT (f & NULL) IS NULL AS f_and_null, bloom_intersect(f, NULL) IS NULL AS fn_f_and_null FROM edge_f;

-- The union aggregates skip NULL rows and give NULL over no rows (as
-- array_agg does), so they can feed a union that keeps the stored filter.
SELECT bloom_union_agg(x) = (SELECT f FROM edge_f) AS skips_nulls
FROM (VALUES ((SELECT f FROM edge_f)), (NULL)) v(x);
SELECT bloom_union_agg(x) IS NULL AS no_rows FROM (SELECT f FROM edge_f WHERE false) v(x);
SELECT bloom_union_agg(x) = (SELECT s FROM edge_f) AS skips_nulls
FROM (VALUES ((SELECT s FROM edge_f)), (NULL)) v(x);
SELECT bloom_union_agg(x) IS NULL AS no_rows FROM (SELECT s FROM edge_f WHERE false) v(x);

-- The README's cache recipe, literally: a batch with no rows keeps the
-- stored filter (it was NULL after such a batch, and every later probe NULL).
CREATE TABLE requests AS
SELECT g AS n, CASE WHEN g % 4 = 0 THEN 'page/' || (g * 7 % 997) ELSE 'once/' || g END AS url
FROM generate_series(1, 3000) g;
CREATE TABLE seen AS SELECT bloom_empty(1000000, 0.01) AS f;
UPDATE seen SET f = f | (SELECT bloom_agg(url, 1000000, 0.01) FROM requests
                         WHERE n > 0 AND n <= 1000);
-- the next batch has no rows
UPDATE seen SET f = f | (SELECT bloom_agg(url, 1000000, 0.01) FROM requests
                         WHERE n > 5000 AND n <= 6000);
SELECT f IS NOT NULL AS kept, (bloom_info(f)).added AS added,
       (SELECT bool_and(url <@ f) FROM requests WHERE n <= 1000) AS every_key_found
FROM seen;
-- the same with bloom_union and a counting or scalable filter
CREATE TABLE seen_c AS SELECT cbloom_agg(url, 10000, 0.01) AS c, sbloom_agg(url) AS s FROM requests WHERE n <= 1000;
UPDATE seen_c SET c = c | (SELECT cbloom_agg(url, 10000, 0.01) FROM requests WHERE n > 5000),
                  s = bloom_union(s, (SELECT sbloom_agg(url) FROM requests WHERE n > 5000));
SELECT (SELECT bool_and(url <@ c AND url <@ s) FROM requests WHERE n <= 1000) AS every_key_found FROM seen_c;

-- "Certainly not" needs a filter: a probe of a NULL filter (an aggregate
-- over no rows) is NULL, not false; coalesce with an empty filter to get false.
SELECT 42 <@ (SELECT bloom_agg(g) FROM generate_series(1, 10) g WHERE false) AS probe_of_null,
       42 <@ coalesce((SELECT bloom_agg(g) FROM generate_series(1, 10) g WHERE false), bloom_empty(1)) AS certainly_not;

-- 2. A filter pushed past its capacity (more than three quarters of its
-- bits set, about twice the keys it was sized for) says so with a WARNING,
-- once per statement.
-- Sized for 100 keys, given 10,000: one warning for the three groups.
SELECT g % 3 AS grp, (bloom_info(bloom_agg(g, 100, 0.01))).fill_ratio = 1 AS full
FROM generate_series(1, 10000) g GROUP BY 1 ORDER BY 1;
SELECT (bloom_info(bloom_add_all(bloom_empty(100), ARRAY(SELECT generate_series(1, 10000))))).est_fpr > 0.9 AS overfull;
SELECT (cbloom_info(cbloom_agg(g, 100, 0.01))).nonzero_counters FROM generate_series(1, 10000) g;
SELECT (cbloom_info(cbloom_add_all(cbloom_empty(100), ARRAY(SELECT generate_series(1, 10000))))).items;
-- an UPDATE that adds a key to many overfull filters warns once
CREATE TABLE parts AS
SELECT p, bloom_agg(g, 100, 0.01) AS f FROM generate_series(1, 1000) g, generate_series(1, 3) p GROUP BY p;
UPDATE parts SET f = f + 1001;
UPDATE parts SET f = bloom_add(f, 1002);
UPDATE parts SET f = bloom_add_all(f, ARRAY[1003, 1004]);
-- and every statement that adds to one warns again
UPDATE parts SET f = f + 1005 WHERE p = 1;
-- the counting filter's add, and a window's bucket (at its add and at the
-- aggregate's end)
SELECT (cbloom_info(cbloom_add(cbloom_agg(g, 100, 0.01), 0))).items FROM generate_series(1, 300) g;
SELECT (cbloom_info(cbloom_agg(g, 100, 0.01) + 0)).items FROM generate_series(1, 300) g;
SELECT count(*) FROM bloom_window_info(
  (SELECT bloom_window_agg(g, '2024-05-01 10:05+00', '1 hour', 6, 100, 0.01) FROM generate_series(1, 1000) g),
  '2024-05-01 10:05+00') WHERE added > 0;
SELECT count(*) FROM bloom_window_info(
  bloom_window_add((SELECT bloom_window_agg(g, '2024-05-01 10:05+00', '1 hour', 6, 1000, 0.01) FROM generate_series(1, 2500) g),
                   0, '2024-05-01 10:05+00'),
  '2024-05-01 10:05+00') WHERE added > 0;

-- Large filters are sampled before their bits are counted: the sample
-- misses none just past three quarters, and warns for none just under
SELECT round(fill_ratio::numeric, 3) AS just_under
FROM bloom_info(bloom_add_all(bloom_empty(100000, 0.01), ARRAY(SELECT generate_series(1, 200000))));
SELECT round(fill_ratio::numeric, 3) AS just_past
FROM bloom_info(bloom_add_all(bloom_empty(100000, 0.01), ARRAY(SELECT generate_series(1, 215000))));
SELECT round(fill_ratio::numeric, 3) AS just_past_classic
FROM bloom_info(bloom_add_all(bloom_empty(100000, 0.01, 'classic'), ARRAY(SELECT generate_series(1, 195000))));
SELECT round((nonzero_counters::float8 / counters)::numeric, 3) AS just_past_counting
FROM cbloom_info(cbloom_add_all(cbloom_empty(100000, 0.01), ARRAY(SELECT generate_series(1, 215000))));

-- No warning for a filter within its capacity, however it was sized: at
-- capacity about half the bits are set, never three quarters.
SELECT l, p, round((bloom_info(f)).fill_ratio::numeric, 2) AS fill_at_capacity
FROM unnest(ARRAY['classic', 'blocked']) l, unnest(ARRAY[0.5, 0.3, 0.1, 0.01, 0.001, 1e-6]) p,
     LATERAL (SELECT bloom_add_all(bloom_empty(1000, p, l), ARRAY(SELECT generate_series(1, 1000))) AS f) x
ORDER BY l, p;
SELECT (bloom_info(bloom_agg(g, 10000, 0.01))).added FROM generate_series(1, 10000) g;
SELECT (cbloom_info(cbloom_agg(g, 10000, 0.01))).items FROM generate_series(1, 10000) g;
-- nor for the same key added many times (the adds count, not the bits)
SELECT (bloom_info(bloom_add_all(bloom_empty(100), array_fill(7, ARRAY[10000])))).added;
-- nor for a self-sized bloom_agg(x) or a scalablebloom, which never overfill
SELECT (bloom_info(bloom_agg(g))).fill_ratio < 0.75 AS self_sized FROM generate_series(1, 100000) g;
SELECT (bloom_info(bloom_add_all(sbloom_empty(100), ARRAY(SELECT generate_series(1, 10000))))).added;

-- 3. A bloomwindow key stamped ahead of the present never makes the keys of
-- the present vanish: it is kept in the present's bucket (with a WARNING
-- when it is more than a second ahead); small clock skew just works.
-- (terse: the WARNING's detail names the server's clock)
\set VERBOSITY terse
CREATE TABLE ww AS SELECT bloom_window_empty('1 hour', 6, 1000) AS w;
UPDATE ww SET w = bloom_window_add(w, 'key1');
UPDATE ww SET w = bloom_window_add(w, 'keyX', '2999-01-01 00:00+00');
UPDATE ww SET w = bloom_window_add(w, 'key2');
UPDATE ww SET w = bloom_window_add(w, 'keyS', clock_timestamp() + interval '500 milliseconds');
SELECT bloom_window_contains(w, 'key1') AS key1, bloom_window_contains(w, 'key2') AS key2,
       bloom_window_contains(w, 'keyX') AS key_x, bloom_window_contains(w, 'keyS') AS key_s,
       bloom_window_contains(w, 'key3') AS key3
FROM ww;
-- the ring did not move ahead of the present
SELECT newest_end <= now() + interval '20 minutes' AS not_ahead FROM ww, bloom_window_params(w);
-- the aggregate too, and rows in the past are as they were
SELECT bloom_window_contains(w, 'a') AND bloom_window_contains(w, 'b') AS present_keys_found,
       bloom_window_contains(w, 'f') AS future_key_kept
FROM (SELECT bloom_window_agg(k, t, '1 hour') AS w
      FROM (VALUES ('a', now()), ('f', '2999-01-01 00:00+00'), ('b', now())) v(k, t)) s;
SELECT bloom_window_contains(w, 'a', '2024-05-01 10:30+00') AND bloom_window_contains(w, 'b', '2024-05-01 10:30+00') AS past_keys
FROM (SELECT bloom_window_agg(k, t::timestamptz, '1 hour')
      FROM (VALUES ('a', '2024-05-01 10:00+00'), ('b', '2024-05-01 10:20+00')) v(k, t)) s(w);
-- one warning per statement, however many keys are ahead
SELECT bloom_window_contains(bloom_window_agg(g, '2999-01-01 00:00+00'::timestamptz + g * interval '1 hour', '1 hour'), 3)
FROM generate_series(1, 5) g;
\set VERBOSITY default
-- a lead of seconds into the next bucket is not silent either: the key
-- ages out up to its lead earlier than its stamp would have it.  Buckets of
-- a minute; the key stamped half a second into the next minute, 5 to 65
-- seconds ahead (the WARNING's text names the times: its SQLSTATE only)
CREATE TABLE wm AS SELECT bloom_window_empty('1 hour', 60, 1000) AS w;
SELECT CASE WHEN nb - clock_timestamp() > interval '5 seconds' THEN nb ELSE nb + interval '1 minute' END AS lead_t
FROM (SELECT date_trunc('minute', clock_timestamp()) + interval '1 minute 0.5 second' AS nb) s \gset
\set VERBOSITY sqlstate
UPDATE wm SET w = bloom_window_add(w, 'keyL', :'lead_t');
\set VERBOSITY default
SELECT bloom_window_contains(w, 'keyL') AS key_l, newest_end <= clock_timestamp() + interval '1 minute' AS not_ahead
FROM wm, bloom_window_params(w);

-- 10. w @> key and key <@ w: bloom_window_contains(w, key) at now()
SELECT w @> 'key1'::text AS op_contains, 'key1' <@ w AS op_contained, w @> 'key3' AS absent,
       'key2'::varchar <@ w AS varchar_key, bloom_window_contained_in('key1', w) AS fn
FROM ww;
SELECT count(*) FILTER (WHERE (w @> k) IS DISTINCT FROM bloom_window_contains(w, k, now())) AS disagree
FROM ww, unnest(ARRAY['key1', 'key2', 'keyX', 'keyS', 'key3', 'key4']) k;
SELECT w @> 1 FROM ww;

-- cbloom_add_all and cbloom_remove_all: what cbloom_add and cbloom_remove
-- give one element after the other, in one call
CREATE FUNCTION one_by_one(c countingbloom, keys int[], add bool) RETURNS countingbloom
LANGUAGE plpgsql AS $$
DECLARE k int;
BEGIN
  FOREACH k IN ARRAY keys LOOP
    c := CASE WHEN add THEN c + k ELSE c - k END;
  END LOOP;
  RETURN c;
END $$;
SELECT cbloom_add_all(cbloom_empty(500), a) = one_by_one(cbloom_empty(500), a, true) AS add_all,
       cbloom_remove_all(cbloom_add_all(cbloom_empty(500), a), r) = one_by_one(one_by_one(cbloom_empty(500), a, true), r, false) AS remove_all
FROM (SELECT ARRAY(SELECT g % 300 FROM generate_series(1, 600) g) AS a,
             -- keys added, keys added twice, and keys never added
             ARRAY(SELECT g FROM generate_series(150, 450) g) AS r) x;
SELECT cbloom_add_all(cbloom_empty(100), ARRAY[1, 2]) = cbloom_add(cbloom_add(cbloom_empty(100), 1), 2) AS same_bytes,
       cbloom_count(cbloom_add_all(cbloom_empty(100), ARRAY[5, 5, 5]), 5) AS count_5;
-- NULL elements are skipped, a NULL array or an empty one changes nothing
SELECT cbloom_add_all(c, ARRAY[NULL, 9, NULL]::int[]) = c + 9 AS nulls_skipped,
       cbloom_add_all(c, NULL::int[]) = c AS null_array, cbloom_remove_all(c, NULL::int[]) = c AS null_array_rm,
       cbloom_add_all(c, '{}'::int[]) = c AS empty_array, cbloom_remove_all(c, '{}'::int[]) = c AS empty_array_rm,
       cbloom_remove_all(c, ARRAY[1, NULL]) = c - 1 AS rm_nulls_skipped,
       cbloom_add_all(NULL, ARRAY[1]) IS NULL AS null_filter
FROM edge_f;
-- a filter that never held a key is returned as it is; another family is an ERROR
SELECT cbloom_remove_all(cbloom_empty(100), ARRAY['a']) = cbloom_empty(100) AS never_held;
SELECT cbloom_remove_all(c, ARRAY['a']) FROM edge_f;
SELECT cbloom_add_all(c, ARRAY['a']) FROM edge_f;
-- removing 40,000 keys is one statement: the 10,000 kept all remain
CREATE TABLE cart AS SELECT cbloom_agg(g, 50000, 0.01) AS c FROM generate_series(1, 50000) g;
UPDATE cart SET c = cbloom_remove_all(c, ARRAY(SELECT generate_series(1, 40000)));
SELECT (cbloom_info(c)).items, (SELECT bool_and(g <@ c) FROM generate_series(40001, 50000) g) AS kept_found,
       (SELECT count(*) FILTER (WHERE g <@ c) FROM generate_series(1, 40000) g) < 400 AS removed_mostly_gone
FROM cart;
SELECT c = (SELECT cbloom_agg(g, 50000, 0.01) FROM generate_series(40001, 50000) g) AS as_if_never_added FROM cart;

-- 12. An untyped parameter cannot tell which filter type it is: several
-- <@ operators take an integer on the left.  Typed, it works.
PREPARE untyped AS SELECT 42 <@ $1;
SELECT bloom_agg(g) AS filter_text FROM generate_series(40, 45) g \gset
PREPARE typed(bloomfilter) AS SELECT 42 <@ $1 AS has_42;
EXECUTE typed(:'filter_text');
PREPARE cast_in_query AS SELECT 42 <@ $1::bloomfilter AS has_42, 7 <@ $1::bloomfilter AS has_7;
EXECUTE cast_in_query(:'filter_text');
-- an untyped key is text, as an untyped literal is: against an integer
-- filter it is the family error; type it too
PREPARE untyped_key AS SELECT $1::bloomfilter @> $2;
EXECUTE untyped_key(:'filter_text', '42');
PREPARE typed_key AS SELECT $1::bloomfilter @> $2::int AS has_42;
EXECUTE typed_key(:'filter_text', '42');

RESET search_path;
DROP SCHEMA edges CASCADE;
