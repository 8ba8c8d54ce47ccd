--
-- bloomfilter_aggstate: the state of every aggregate (the transition type
-- of the union aggregates; the aggregates over keys keep internal, for
-- Citus, but their functions also take the type).  Citus's flow simulated
-- without Citus: partial states per "shard" from the
-- transition function (worker_partial_agg), through the type's text
-- output and input (coord_combine_agg) or its binary send and receive,
-- combined by the combine function and finalized, must give the bytes the
-- one-node aggregate gives, whatever the order of the shards, with an
-- empty shard (a NULL state) and a shard whose keys are all NULL.  Hostile
-- states are refused with a clean ERROR and SQLSTATE.
--

-- the shards: 0 small, 1 and 2 large, 3 all-NULL keys; 4 (no rows) below
CREATE TABLE ev AS
SELECT g AS id,
       CASE WHEN g > 199980 THEN NULL ELSE (g * 7919) % 150000 END AS k,
       CASE WHEN g > 199980 THEN NULL ELSE 'u' || (g % 40000) END AS u,
       timestamptz '2026-01-01 00:00+00' + (g % 3600) * interval '1 second' AS at,
       CASE WHEN g <= 100 THEN 0 WHEN g <= 130000 THEN 1
            WHEN g <= 199980 THEN 2 ELSE 3 END AS shard
FROM generate_series(1, 200000) g;
ANALYZE ev;

-- filters to unite, in 12 groups spread over the shards, and NULL ones
CREATE TABLE fl AS
SELECT id % 12 AS grp, (id % 12) % 3 AS shard,
       bloom_agg(k, 200000, 0.01) AS f, cbloom_agg(k, 200000, 0.01) AS c,
       sbloom_agg(k) AS s, bloom_window_agg(k, at, interval '1 hour', 4, 20000, 0.01) AS w
FROM ev WHERE k IS NOT NULL GROUP BY id % 12;
INSERT INTO fl VALUES (12, 3, NULL, NULL, NULL, NULL), (13, 3, NULL, NULL, NULL, NULL);

-- what a worker runs: the transition function alone, the state returned
CREATE AGGREGATE p_auto(anyelement) (SFUNC = bloomfilter_auto_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_fpr(anyelement, float8) (SFUNC = bloomfilter_auto_agg_trans_fpr, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_sized(anyelement, bigint, float8) (SFUNC = bloomfilter_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_union(bloomfilter) (SFUNC = bloomfilter_union_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_inter(bloomfilter) (SFUNC = bloomfilter_intersect_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_cbloom(anyelement, bigint, float8) (SFUNC = countingbloom_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_cbloom(anyelement, bigint, float8, integer) (SFUNC = countingbloom_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_window(anyelement, timestamptz, interval) (SFUNC = bloomwindow_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_window(anyelement, timestamptz, interval, int, bigint, float8) (SFUNC = bloomwindow_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_sbloom(anyelement) (SFUNC = scalablebloom_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_sunion(scalablebloom) (SFUNC = scalablebloom_union_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_cunion(countingbloom) (SFUNC = countingbloom_union_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE p_wunion(bloomwindow) (SFUNC = bloomwindow_union_agg_trans, STYPE = bloomfilter_aggstate);

-- what the coordinator runs: the combine function over the states, then
-- the final function
CREATE AGGREGATE c_bloom(bloomfilter_aggstate) (SFUNC = bloomfilter_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final);
CREATE AGGREGATE c_inter(bloomfilter_aggstate) (SFUNC = bloomfilter_intersect_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final);
CREATE AGGREGATE c_sbloom(bloomfilter_aggstate) (SFUNC = bloomfilter_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = scalablebloom_agg_final);
CREATE AGGREGATE c_counting(bloomfilter_aggstate) (SFUNC = countingbloom_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = countingbloom_agg_final);
CREATE AGGREGATE c_window(bloomfilter_aggstate) (SFUNC = bloomwindow_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomwindow_agg_final);
CREATE AGGREGATE c_sunion(bloomfilter_aggstate) (SFUNC = scalablebloom_union_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = scalablebloom_union_agg_final);

-- the partial states of every aggregate, shard by shard (shard 4: no rows)
CREATE TABLE parts (agg text, comb text, shard int, st bloomfilter_aggstate);
INSERT INTO parts SELECT 'bloom_agg(x)', 'bloom', shard, p_auto(k) FROM ev GROUP BY shard
	UNION ALL SELECT 'bloom_agg(x)', 'bloom', 4, p_auto(k) FROM ev WHERE false;
INSERT INTO parts SELECT 'bloom_agg(x, fpr)', 'bloom', shard, p_fpr(u, 0.001) FROM ev GROUP BY shard
	UNION ALL SELECT 'bloom_agg(x, fpr)', 'bloom', 4, p_fpr(u, 0.001) FROM ev WHERE false;
INSERT INTO parts SELECT 'bloom_agg(x, n, p)', 'bloom', shard, p_sized(k, 200000, 0.01) FROM ev GROUP BY shard
	UNION ALL SELECT 'bloom_agg(x, n, p)', 'bloom', 4, p_sized(k, 200000, 0.01) FROM ev WHERE false;
INSERT INTO parts SELECT 'bloom_union_agg(bloomfilter)', 'bloom', shard, p_union(f) FROM fl GROUP BY shard
	UNION ALL SELECT 'bloom_union_agg(bloomfilter)', 'bloom', 4, p_union(f) FROM fl WHERE false;
INSERT INTO parts SELECT 'bloom_intersect_agg', 'inter', shard, p_inter(f) FROM fl GROUP BY shard
	UNION ALL SELECT 'bloom_intersect_agg', 'inter', 4, p_inter(f) FROM fl WHERE false;
INSERT INTO parts SELECT 'cbloom_agg(x, n, p)', 'counting', shard, p_cbloom(k, 200000, 0.01) FROM ev GROUP BY shard
	UNION ALL SELECT 'cbloom_agg(x, n, p)', 'counting', 4, p_cbloom(k, 200000, 0.01) FROM ev WHERE false;
INSERT INTO parts SELECT 'cbloom_agg(x, n, p, bits)', 'counting', shard, p_cbloom(u, 50000, 0.01, 8) FROM ev GROUP BY shard
	UNION ALL SELECT 'cbloom_agg(x, n, p, bits)', 'counting', 4, p_cbloom(u, 50000, 0.01, 8) FROM ev WHERE false;
INSERT INTO parts SELECT 'bloom_window_agg(x, t, w)', 'window', shard, p_window(k, at, interval '1 hour') FROM ev GROUP BY shard
	UNION ALL SELECT 'bloom_window_agg(x, t, w)', 'window', 4, p_window(k, at, interval '1 hour') FROM ev WHERE false;
INSERT INTO parts SELECT 'bloom_window_agg(x, t, w, b, n, p)', 'window', shard, p_window(u, at, interval '1 hour', 4, 5000, 0.01) FROM ev GROUP BY shard
	UNION ALL SELECT 'bloom_window_agg(x, t, w, b, n, p)', 'window', 4, p_window(u, at, interval '1 hour', 4, 5000, 0.01) FROM ev WHERE false;
INSERT INTO parts SELECT 'sbloom_agg', 'sbloom', shard, p_sbloom(k) FROM ev GROUP BY shard
	UNION ALL SELECT 'sbloom_agg', 'sbloom', 4, p_sbloom(k) FROM ev WHERE false;
INSERT INTO parts SELECT 'bloom_union_agg(scalablebloom)', 'sunion', shard, p_sunion(s) FROM fl GROUP BY shard
	UNION ALL SELECT 'bloom_union_agg(scalablebloom)', 'sunion', 4, p_sunion(s) FROM fl WHERE false;
INSERT INTO parts SELECT 'bloom_union_agg(countingbloom)', 'counting', shard, p_cunion(c) FROM fl GROUP BY shard
	UNION ALL SELECT 'bloom_union_agg(countingbloom)', 'counting', 4, p_cunion(c) FROM fl WHERE false;
INSERT INTO parts SELECT 'bloom_union_agg(bloomwindow)', 'window', shard, p_wunion(w) FROM fl GROUP BY shard
	UNION ALL SELECT 'bloom_union_agg(bloomwindow)', 'window', 4, p_wunion(w) FROM fl WHERE false;
-- a self-sizing aggregate past its buffer (states in the filter phase)
SET bloomfilter.agg_max_capacity = 65536;
INSERT INTO parts SELECT 'bloom_agg(x), filter phase', 'bloom', shard, p_auto(k % 50000) FROM ev GROUP BY shard
	UNION ALL SELECT 'bloom_agg(x), filter phase', 'bloom', 4, p_auto(k % 50000) FROM ev WHERE false;
RESET bloomfilter.agg_max_capacity;

-- the one-node results
CREATE TABLE want (agg text, result text);
INSERT INTO want
SELECT 'bloom_agg(x)', bloom_agg(k)::text FROM ev UNION ALL
SELECT 'bloom_agg(x, fpr)', bloom_agg(u, 0.001)::text FROM ev UNION ALL
SELECT 'bloom_agg(x, n, p)', bloom_agg(k, 200000, 0.01)::text FROM ev UNION ALL
SELECT 'bloom_union_agg(bloomfilter)', bloom_union_agg(f)::text FROM fl UNION ALL
SELECT 'bloom_intersect_agg', bloom_intersect_agg(f)::text FROM fl UNION ALL
SELECT 'cbloom_agg(x, n, p)', cbloom_agg(k, 200000, 0.01)::text FROM ev UNION ALL
SELECT 'cbloom_agg(x, n, p, bits)', cbloom_agg(u, 50000, 0.01, 8)::text FROM ev UNION ALL
SELECT 'bloom_window_agg(x, t, w)', bloom_window_agg(k, at, interval '1 hour')::text FROM ev UNION ALL
SELECT 'bloom_window_agg(x, t, w, b, n, p)', bloom_window_agg(u, at, interval '1 hour', 4, 5000, 0.01)::text FROM ev UNION ALL
SELECT 'sbloom_agg', sbloom_agg(k)::text FROM ev UNION ALL
SELECT 'bloom_union_agg(scalablebloom)', bloom_union_agg(s)::text FROM fl UNION ALL
SELECT 'bloom_union_agg(countingbloom)', bloom_union_agg(c)::text FROM fl UNION ALL
SELECT 'bloom_union_agg(bloomwindow)', bloom_union_agg(w)::text FROM fl;
SET bloomfilter.agg_max_capacity = 65536;
INSERT INTO want SELECT 'bloom_agg(x), filter phase', bloom_agg(k % 50000)::text FROM ev;
RESET bloomfilter.agg_max_capacity;

-- the coordinator's result from states of table tbl, shards in either order
CREATE FUNCTION coordinated(tbl regclass, descending bool)
RETURNS TABLE (agg text, result text) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
	SELECT agg, coalesce(
		(c_bloom(st ORDER BY shard %1$s) FILTER (WHERE comb = 'bloom'))::text,
		(c_inter(st ORDER BY shard %1$s) FILTER (WHERE comb = 'inter'))::text,
		(c_sbloom(st ORDER BY shard %1$s) FILTER (WHERE comb = 'sbloom'))::text,
		(c_counting(st ORDER BY shard %1$s) FILTER (WHERE comb = 'counting'))::text,
		(c_window(st ORDER BY shard %1$s) FILTER (WHERE comb = 'window'))::text,
		(c_sunion(st ORDER BY shard %1$s) FILTER (WHERE comb = 'sunion'))::text)
	FROM %2$s GROUP BY agg$q$, CASE WHEN descending THEN 'DESC' ELSE '' END, tbl);
END $$;

-- the states as they travel in text: output, then input
CREATE TABLE parts_text AS
SELECT agg, comb, shard, st::text::bloomfilter_aggstate AS st FROM parts;

-- one NULL state per aggregate (the empty shard) and none else; the shard of
-- NULL keys has a state for the aggregates over keys, none for the unions
SELECT agg, count(*) FILTER (WHERE st IS NULL) AS null_states,
       bool_or(shard = 3 AND st IS NOT NULL) AS null_keys_state
FROM parts GROUP BY agg ORDER BY agg;

-- byte-identical to one node, shards in either order, through text
SELECT w.agg, a.result = w.result AS text_same, d.result = w.result AS text_same_reversed,
       length(w.result) > 0 AS nonempty
FROM want w
JOIN coordinated('parts_text', false) a USING (agg)
JOIN coordinated('parts_text', true) d USING (agg)
ORDER BY w.agg;

-- and through the binary form (send, then receive)
\copy parts TO 'results/bloom_aggstate.bin' WITH (FORMAT binary)
CREATE TABLE parts_bin (LIKE parts);
\copy parts_bin FROM 'results/bloom_aggstate.bin' WITH (FORMAT binary)
SELECT count(*) AS states, bool_and(b.st::text = p.st::text OR (b.st IS NULL AND p.st IS NULL)) AS same_bytes
FROM parts p JOIN parts_bin b USING (agg, shard);
SELECT w.agg, a.result = w.result AS binary_same
FROM want w JOIN coordinated('parts_bin', true) a USING (agg)
ORDER BY w.agg;

-- no key probes false in the coordinator's filter
SELECT count(*) AS false_negatives
FROM ev
WHERE k IS NOT NULL AND NOT (SELECT result::bloomfilter FROM coordinated('parts_text', true)
                             WHERE agg = 'bloom_agg(x)') @> k;

-- a state is the same value however often it is printed (flattening it
-- leaves the object as it was)
SELECT count(*) AS states, bool_and(st::text = st::text::bloomfilter_aggstate::text) AS stable
FROM parts WHERE st IS NOT NULL;

-- hostile states: a clean ERROR with its SQLSTATE, never a crash or a filter
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- bytes of one state of each payload tag, to damage
CREATE TABLE sample AS
SELECT agg, shard, decode(st::text, 'base64') AS b FROM parts
WHERE (agg, shard) IN (('bloom_agg(x)', 0), ('bloom_agg(x)', 1), ('bloom_agg(x, n, p)', 0), ('bloom_agg(x, n, p)', 1),
                       ('bloom_agg(x), filter phase', 1), ('cbloom_agg(x, n, p)', 1),
                       ('bloom_window_agg(x, t, w)', 1), ('bloom_union_agg(scalablebloom)', 1));
-- the tags: S (a small buffer), B (bucketed), F (filter), A (auto filter),
-- E (the hashes of an explicitly sized state that saw few keys)
SELECT agg, shard, chr(get_byte(b, 6)) AS kind,
       CASE WHEN get_byte(b, 6) = 98 THEN chr(get_byte(b, 8)) END AS tag, length(b) > 8 AS has_payload
FROM sample ORDER BY agg, shard;
-- bloom_agg(x, n, p)'s partial states: hashes (E) while they take at most
-- half the bytes of the filter (200,000 keys at 1%: 15,000 hashes), the
-- filter (F) past that; E states are small
SELECT shard, chr(get_byte(decode(st::text, 'base64'), 8)) AS tag,
       length(decode(st::text, 'base64')) AS bytes
FROM parts WHERE agg = 'bloom_agg(x, n, p)' AND st IS NOT NULL ORDER BY shard;
SELECT try('SELECT ''not base64!''::bloomfilter_aggstate');
SELECT try('SELECT ''''::bloomfilter_aggstate');
SELECT agg, shard, try(format('SELECT %L::bloomfilter_aggstate', encode(substr(b, 1, n), 'base64'))) AS truncated
FROM sample, (VALUES (4), (8), (9), (40), (5000)) v(n)
WHERE length(b) > n ORDER BY agg, shard, n;
SELECT agg, try(format('SELECT %L::bloomfilter_aggstate', encode(substr(b, 1, length(b) - 1), 'base64'))) AS last_byte_cut
FROM sample ORDER BY agg, shard;
SELECT try(format('SELECT %L::bloomfilter_aggstate', encode(set_byte(b, 4, 2), 'base64'))) AS newer_version,
       try(format('SELECT %L::bloomfilter_aggstate', encode(set_byte(b, 0, 0), 'base64'))) AS bad_magic,
       try(format('SELECT %L::bloomfilter_aggstate', encode(set_byte(b, 6, 120), 'base64'))) AS unknown_kind,
       try(format('SELECT %L::bloomfilter_aggstate', encode(set_byte(b, 8, 90), 'base64'))) AS unknown_tag
FROM sample WHERE agg = 'bloom_agg(x)' AND shard = 0;
-- inconsistent lengths: the count of an S state, a bucket count of a B
-- state, the bits of the filter of an F state; a bit flipped in a filter
SELECT try(format('SELECT %L::bloomfilter_aggstate',
                  encode(set_byte(b, 8 + 1 + 21 + 14 + 1 + 2, get_byte(b, 8 + 1 + 21 + 14 + 1 + 2) + 1), 'base64'))) AS s_count
FROM sample WHERE agg = 'bloom_agg(x)' AND shard = 0;
SELECT try(format('SELECT %L::bloomfilter_aggstate',
                  encode(set_byte(b, 8 + 1 + 21 + 14 + 4096 + 4, get_byte(b, 8 + 1 + 21 + 14 + 4096 + 4) # 1), 'base64'))) AS b_bucket
FROM sample WHERE agg = 'bloom_agg(x)' AND shard = 1;
SELECT try(format('SELECT %L::bloomfilter_aggstate',
                  encode(set_byte(b, 8 + 1 + 9, get_byte(b, 8 + 1 + 9) # 1), 'base64'))) AS f_nbits,
       try(format('SELECT %L::bloomfilter_aggstate',
                  encode(set_byte(b, length(b) - 1, get_byte(b, length(b) - 1) # 128), 'base64'))) AS f_bit_flipped
FROM sample WHERE agg = 'bloom_agg(x, n, p)';
SELECT try(format('SELECT %L::bloomfilter_aggstate',
                  encode(set_byte(b, length(b) - 1, get_byte(b, length(b) - 1) # 128), 'base64'))) AS a_bit_flipped
FROM sample WHERE agg = 'bloom_agg(x), filter phase';
SELECT agg, try(format('SELECT %L::bloomfilter_aggstate',
                       encode(set_byte(b, 20, get_byte(b, 20) # 4), 'base64'))) AS header_damaged
FROM sample WHERE agg IN ('cbloom_agg(x, n, p)', 'bloom_window_agg(x, t, w)', 'bloom_union_agg(scalablebloom)')
ORDER BY agg;
-- a state of one aggregate given to another's functions
SELECT try($$SELECT c_counting(st) FROM parts WHERE agg = 'bloom_agg(x)'$$) AS bloom_to_counting,
       try($$SELECT c_bloom(st) FROM parts WHERE agg = 'bloom_union_agg(bloomwindow)'$$) AS window_to_bloom,
       try($$SELECT bloomfilter_agg_final(st) FROM parts WHERE agg = 'cbloom_agg(x, n, p)' AND shard = 1$$) AS final_of_other;
-- self-sizing states of different targets, and a sized state where a
-- self-sizing one is expected
SELECT try($$SELECT c_bloom(st) FROM parts WHERE agg IN ('bloom_agg(x)', 'bloom_agg(x, fpr)')$$) AS targets_differ,
       try($$SELECT c_bloom(st) FROM parts WHERE agg IN ('bloom_agg(x)', 'bloom_agg(x, n, p)')$$) AS sized_and_auto;
-- self-sizing states given to bloom_intersect_agg's combine: refused (they
-- would be united, not intersected), alone, two, or after a filter state
SELECT try($$SELECT c_inter(st) FROM parts WHERE agg = 'bloom_agg(x)' AND shard = 1$$) AS auto_to_intersect,
       try($$SELECT c_inter(st ORDER BY shard) FROM parts WHERE agg = 'bloom_agg(x)'$$) AS autos_to_intersect,
       try($$SELECT c_inter(st ORDER BY agg DESC) FROM parts
             WHERE agg IN ('bloom_agg(x)', 'bloom_intersect_agg') AND shard = 1$$) AS filter_then_auto;
-- a transition function outside an aggregate
SELECT try($$SELECT bloomfilter_auto_agg_trans(st, 1) FROM parts WHERE agg = 'bloom_agg(x)' AND shard = 1$$) AS outside;
-- a state given as an initial condition: validated when the aggregate is
-- made, then used if it is of the right kind and target
SELECT try($$CREATE AGGREGATE init_bad(anyelement) (SFUNC = bloomfilter_auto_agg_trans,
	STYPE = bloomfilter_aggstate, INITCOND = 'QkZBUwEAYgA=')$$) AS payload_missing;
\set ECHO none
SELECT format('CREATE AGGREGATE init_auto(anyelement) (SFUNC = bloomfilter_auto_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final, INITCOND = %L)', st::text),
       format('CREATE AGGREGATE init_sized(anyelement, bigint, float8) (SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final, INITCOND = %L)', st::text),
       format('CREATE AGGREGATE init_counting(anyelement, bigint, float8) (SFUNC = countingbloom_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = countingbloom_agg_final, INITCOND = %L)', st::text)
FROM parts WHERE agg = 'bloom_agg(x)' AND shard = 0 \gexec
\set ECHO all
SELECT init_auto(k)::text = (SELECT bloom_agg(k) FROM ev WHERE shard IN (0, 2))::text AS init_adds_its_keys
FROM ev WHERE shard = 2;
SELECT try('SELECT init_sized(1, 100, 0.01)') AS auto_state_to_sized,
       try('SELECT init_counting(1, 100, 0.01)') AS bloom_state_to_counting;
-- a state finalized directly, as a hand-written coord_combine_agg would
-- (each tag: S, B, A; F)
SELECT agg, shard, bloomfilter_agg_final(st)::text = (SELECT bloom_agg(k) FROM ev WHERE ev.shard = p.shard)::text AS final_direct
FROM parts p WHERE agg = 'bloom_agg(x)' AND shard IN (0, 1) ORDER BY shard;
SET bloomfilter.agg_max_capacity = 65536;
SELECT bloomfilter_agg_final(st)::text = (SELECT bloom_agg(k % 50000) FROM ev WHERE ev.shard = p.shard)::text AS final_direct_a
FROM parts p WHERE agg = 'bloom_agg(x), filter phase' AND shard = 1;
RESET bloomfilter.agg_max_capacity;
SELECT bloomfilter_agg_final(st)::text = (SELECT bloom_agg(k, 200000, 0.01) FROM ev WHERE ev.shard = p.shard)::text AS final_direct_f,
       scalablebloom_agg_final((SELECT st FROM parts WHERE agg = 'sbloom_agg' AND shard = 1))::text =
       (SELECT sbloom_agg(k) FROM ev WHERE shard = 1)::text AS final_direct_sbloom
FROM parts p WHERE agg = 'bloom_agg(x, n, p)' AND shard = 1;

-- parallel plans of the new union aggregates: byte-identical to serial
CREATE TABLE cw AS
SELECT id % 600 AS grp, cbloom_agg(k, 1000, 0.01) AS c,
       bloom_window_agg(k, at, interval '1 hour', 4, 1000, 0.01) AS w
FROM ev WHERE id <= 30000 GROUP BY id % 600;
ANALYZE cw;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(c), bloom_union_agg(w) FROM cw;
CREATE TABLE cw_parallel AS SELECT bloom_union_agg(c) AS c, bloom_union_agg(w) AS w FROM cw;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT p.c::bytea = s.c::bytea AS counting_same, p.w::bytea = s.w::bytea AS window_same,
       (cbloom_info(p.c)).items, cbloom_count(p.c, 7) >= 1 AS counts_7,
       (SELECT count(*) FROM ev WHERE id <= 30000 AND k IS NOT NULL
        AND NOT bloom_window_contains(p.w, k, timestamptz '2026-01-01 00:59+00')) AS window_false_negatives
FROM cw_parallel p, (SELECT bloom_union_agg(c) AS c, bloom_union_agg(w) AS w FROM cw) s;
RESET max_parallel_workers_per_gather;
-- union semantics: as cbloom_union, and as adding the keys to one window
SELECT bloom_union_agg(c)::bytea = (SELECT cbloom_union(a.c, b.c) FROM cw a, cw b WHERE a.grp = 1 AND b.grp = 2)::bytea AS as_cbloom_union
FROM cw WHERE grp IN (2, 1);
SELECT bloom_union_agg(w)::bytea = (SELECT bloom_window_agg(k, at, interval '1 hour', 4, 1000, 0.01)
                                    FROM ev WHERE id <= 30000 AND id % 600 IN (1, 2))::bytea AS as_one_window
FROM cw WHERE grp IN (2, 1);
-- NULLs skipped, NULL over nothing
SELECT bloom_union_agg(c) IS NULL AS c_none, bloom_union_agg(w) IS NULL AS w_none FROM cw WHERE false;
SELECT bloom_union_agg(x) IS NULL AS c_nulls FROM (VALUES (NULL::countingbloom)) v(x);
SELECT bloom_union_agg(c)::bytea = (SELECT c FROM cw WHERE grp = 5)::bytea AS c_one_and_null,
       bloom_union_agg(w)::bytea = (SELECT w FROM cw WHERE grp = 5)::bytea AS w_one_and_null
FROM (SELECT c, w FROM cw WHERE grp = 5 UNION ALL SELECT NULL, NULL) s;
-- different geometries are refused
SELECT try($$SELECT bloom_union_agg(w) FROM (SELECT w FROM cw WHERE grp = 1 UNION ALL
            SELECT bloom_window_agg(1, now(), interval '1 day')) s$$) AS window_geometry;

DROP TABLE ev, fl, parts, parts_text, parts_bin, want, sample, cw, cw_parallel;
DROP FUNCTION coordinated(regclass, bool);
DROP FUNCTION try(text);
DROP AGGREGATE init_auto(anyelement), init_sized(anyelement, bigint, float8),
	init_counting(anyelement, bigint, float8);
DROP AGGREGATE p_auto(anyelement), p_fpr(anyelement, float8), p_sized(anyelement, bigint, float8),
	p_union(bloomfilter), p_inter(bloomfilter), p_cbloom(anyelement, bigint, float8),
	p_cbloom(anyelement, bigint, float8, integer), p_window(anyelement, timestamptz, interval),
	p_window(anyelement, timestamptz, interval, int, bigint, float8), p_sbloom(anyelement),
	p_sunion(scalablebloom), p_cunion(countingbloom), p_wunion(bloomwindow),
	c_bloom(bloomfilter_aggstate), c_inter(bloomfilter_aggstate), c_sbloom(bloomfilter_aggstate),
	c_counting(bloomfilter_aggstate), c_window(bloomfilter_aggstate), c_sunion(bloomfilter_aggstate);
