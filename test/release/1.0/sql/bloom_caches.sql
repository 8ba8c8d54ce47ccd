--
-- The probe caches: a probe keeps what it decoded of the filter last seen
-- (type/bf_ops.c, bf_scalable.c, bf_counting.c, bf_window.c over the one detoast
-- cache of type/bf_type_detoast.c; index/gist/bf_gist.c).  A cache hit must never reuse
-- state decoded from other bytes: a sort, a group, a window or a nested
-- loop hands value after value at one address, values of equal headers
-- can hold different sub-filters or bits, and a caught ERROR must not
-- leave half a load behind.  Every probe below is of a key
-- that was added: any miss is a false negative, and the counts must be 0.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;

-- ---- scalablebloom: equal container headers, different sub-filters ----

-- The two unions are at one address one after the other (sort-based
-- GroupAggregate), with equal container headers (initial capacity 10, 15
-- adds, two sub-filters, same length); group 2's sub-filters are another
-- size than group 1's.  Probing group 2 with group 1's geometry found
-- none of its keys 101..110.
CREATE TEMP TABLE parts (grp int, s scalablebloom);
INSERT INTO parts VALUES
 (1, bloom_add_all(sbloom_empty(10,0.1,2,0.1), ARRAY(SELECT generate_series(1,15)))),
 (2, bloom_add_all(sbloom_empty(10,0.1,2,0.1), ARRAY(SELECT generate_series(1,5)))),
 (2, bloom_add_all(sbloom_empty(40,0.1,2,0.1), ARRAY(SELECT generate_series(101,110))));
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
SELECT grp, (SELECT count(*) FROM generate_series(101,110) k WHERE k <@ u) AS found_of_10
FROM (SELECT grp, bloom_union_agg(s) u FROM parts GROUP BY grp) x ORDER BY grp;
SELECT grp, (SELECT count(*) FROM generate_series(101,110) k WHERE k <@ u) AS found_of_10
FROM (SELECT grp, bloom_union_agg(s) u FROM parts GROUP BY grp) x ORDER BY grp;
-- the two containers have equal headers (bytes 0..59: all but the
-- checksum, which is filled in only when the bytes leave) and lengths
SELECT count(DISTINCT substr(u::bytea, 1, 60)) AS distinct_headers,
       count(DISTINCT length(u::bytea)) AS distinct_lengths,
       count(DISTINCT u::bytea) AS distinct_values
FROM (SELECT grp, bloom_union_agg(s) u FROM parts GROUP BY grp) x;
-- the same through bloom_contains, the other probe direction
SELECT grp, (SELECT count(*) FROM generate_series(101,110) k WHERE bloom_contains(u, k)) AS found_of_10
FROM (SELECT grp, bloom_union_agg(s) u FROM parts GROUP BY grp) x ORDER BY grp;
RESET enable_hashagg;
DROP TABLE parts;

-- Randomized: 400 groups, each the union of 1 to 4 containers of random
-- initial capacities and numbers of keys.  Groups use one of three
-- parameter sets (rate, growth, tightening).  Half of them hold exactly 24
-- keys from initial capacities of at most 8, so that many have equal
-- container headers (bytes 0..59, the checksum aside) and lengths but
-- sub-filters of other levels, hence other k; the other half are random
-- sizes up to 2,000 keys (stored, they are inline, compressed or TOASTed).
-- The groups are then numbered in the order of their headers, so that
-- groups of equal headers come one after the other: the adversarial order
-- for a cache that compares headers.  Every key added to a group is then
-- probed in its group's union.
SET client_min_messages = error;	-- the unions' rate WARNINGs
SELECT setseed(0.4242);
CREATE TEMP TABLE sb_params (pset int, fpr float8, growth int, tightening float8);
INSERT INTO sb_params VALUES (0, 0.1, 2, 0.1), (1, 0.05, 4, 0.5), (2, 0.01, 2, 0.85);
CREATE TEMP TABLE sb_groups AS
SELECT g AS grp, floor(random() * 3)::int AS pset, random() < 0.5 AS fixed_total,
       1 + floor(random() * 4)::int AS nparts
FROM generate_series(1, 400) g;
CREATE TEMP TABLE sb_parts0 AS
SELECT grp, part,
       CASE WHEN fixed_total THEN (ARRAY[1, 2, 4, 8])[1 + floor(random() * 4)::int]
            ELSE 1 + floor(random() * 200)::int END AS n0,
       CASE WHEN fixed_total THEN 24 / nparts + CASE WHEN part <= 24 % nparts THEN 1 ELSE 0 END
            ELSE 1 + floor(random() * 500)::int END AS nkeys
FROM sb_groups, LATERAL generate_series(1, nparts) part;
CREATE TEMP TABLE sb_in0 AS
SELECT p.grp, p.part,
       bloom_add_all(sbloom_empty(p.n0, sp.fpr, sp.growth, sp.tightening),
                     ARRAY(SELECT p.grp * 10000 + p.part * 1000 + i FROM generate_series(1, p.nkeys) i)) AS s
FROM sb_parts0 p JOIN sb_groups g USING (grp) JOIN sb_params sp USING (pset);
CREATE TEMP TABLE sb_order AS
SELECT grp AS grp0,
       row_number() OVER (ORDER BY substr(u::bytea, 1, 60), length(u::bytea), grp)::int AS grp
FROM (SELECT grp, bloom_union_agg(s) u FROM sb_in0 GROUP BY grp) x;
CREATE TEMP TABLE sb_parts AS
SELECT o.grp, p.part, p.n0, p.nkeys, p.grp AS grp0 FROM sb_parts0 p JOIN sb_order o ON o.grp0 = p.grp;
CREATE TEMP TABLE sb_in AS
SELECT o.grp, i.part, i.s FROM sb_in0 i JOIN sb_order o ON o.grp0 = i.grp;
CREATE TEMP TABLE sb_keys AS
SELECT p.grp, p.grp0 * 10000 + p.part * 1000 + i AS k
FROM sb_parts p, LATERAL generate_series(1, p.nkeys) i;
CREATE INDEX ON sb_keys (grp);
ANALYZE sb_in, sb_keys;
-- how many groups follow one of equal header and length but other
-- sub-filter geometry (the case the cache must not confuse)
SELECT count(*) >= 10 AS at_least_10_adversarial_neighbours
FROM (SELECT grp, substr(u::bytea, 1, 60) AS header, length(u::bytea) AS len,
             (SELECT string_agg(bits || 'x' || hashes, ',' ORDER BY index) FROM sbloom_filters(u)) AS geometry,
             lag(substr(u::bytea, 1, 60)) OVER w AS prev_header, lag(length(u::bytea)) OVER w AS prev_len,
             lag((SELECT string_agg(bits || 'x' || hashes, ',' ORDER BY index) FROM sbloom_filters(u))) OVER w AS prev_geometry
      FROM (SELECT grp, bloom_union_agg(s) u FROM sb_in GROUP BY grp) x
      WINDOW w AS (ORDER BY grp)) y
WHERE header = prev_header AND len = prev_len AND geometry <> prev_geometry;
-- unions one after the other at one address, probed by a correlated subquery
SET enable_hashagg = off;
SELECT count(*) AS groups, sum(misses) AS misses
FROM (SELECT grp, (SELECT count(*) FROM sb_keys k WHERE k.grp = x.grp AND NOT k.k <@ x.u) AS misses
      FROM (SELECT grp, bloom_union_agg(s) u FROM sb_in GROUP BY grp) x) y;
-- ... and by a lateral join (nested loop, the union a parameter)
SELECT count(*) AS groups, sum(misses) AS misses
FROM (SELECT grp, bloom_union_agg(s) u FROM sb_in GROUP BY grp) x,
     LATERAL (SELECT count(*) AS misses FROM sb_keys k WHERE k.grp = x.grp AND NOT bloom_contains(x.u, k.k)) l;
-- ... and by a join whose inner side brings the keys of each group
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) AS misses
FROM (SELECT grp, bloom_union_agg(s) u FROM sb_in GROUP BY grp) x
JOIN sb_keys k USING (grp) WHERE NOT k.k <@ x.u;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_hashagg;
-- stored: small unions inline, sparse ones compressed, large ones in TOAST
CREATE TEMP TABLE sb_unions AS SELECT grp, bloom_union_agg(s) u FROM sb_in GROUP BY grp;
ANALYZE sb_unions;
SELECT count(*) FILTER (WHERE pg_column_size(u) < length(u::bytea)) > 0 AS some_compressed,
       count(*) FILTER (WHERE pg_column_size(u) > 2032) > 0 AS some_out_of_line,
       count(*) FILTER (WHERE pg_column_size(u) = length(u::bytea) + 4) > 0 AS some_inline
FROM sb_unions;
SELECT count(*) AS misses
FROM sb_unions x JOIN sb_keys k USING (grp) WHERE NOT k.k <@ x.u;
SELECT count(*) AS groups, sum(misses) AS misses
FROM (SELECT grp, (SELECT count(*) FROM sb_keys k WHERE k.grp = x.grp AND NOT k.k <@ x.u) AS misses
      FROM (SELECT * FROM sb_unions ORDER BY grp) x) y;
-- a running union (a window aggregate), probed row by row with the
-- keys of its group seen so far
SELECT count(*) AS misses
FROM (SELECT grp, part,
             bloom_union_agg(s) OVER (PARTITION BY grp ORDER BY part) AS u
      FROM sb_in) w
JOIN sb_parts p USING (grp)
CROSS JOIN LATERAL generate_series(1, p.nkeys) i
WHERE p.part <= w.part AND NOT (p.grp0 * 10000 + p.part * 1000 + i) <@ w.u;
RESET client_min_messages;

-- ---- bloomfilter: equal headers, different bits, one address ----

-- 300 groups of exactly 30 keys each, bloom_agg(x, 50, 0.01): every
-- filter has the same header (geometry, family, count of adds) and its
-- own bits.
CREATE TEMP TABLE bf_keys AS
SELECT g AS grp, g * 1000 + (i * 37 + g) % 997 AS k
FROM generate_series(1, 300) g, generate_series(1, 30) i;
CREATE INDEX ON bf_keys (grp);
ANALYZE bf_keys;
SET enable_hashagg = off;
SELECT count(DISTINCT substr(f::bytea, 1, 44)) AS distinct_headers_without_checksum,
       count(DISTINCT f::bytea) AS distinct_filters
FROM (SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp) x;
SELECT count(*) AS groups, sum(misses) AS misses
FROM (SELECT grp, (SELECT count(*) FROM bf_keys k WHERE k.grp = x.grp AND NOT k.k <@ x.f) AS misses
      FROM (SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp) x) y;
SELECT sum(misses) AS misses
FROM (SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp) x,
     LATERAL (SELECT count(*) AS misses FROM bf_keys k WHERE k.grp = x.grp AND NOT bloom_contains(x.f, k.k)) l;
-- probes of many keys share the cache (type/bf_array.c)
SELECT sum(misses) AS misses
FROM (SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp) x,
     LATERAL (SELECT count(*) AS misses
              FROM unnest(bloom_contains_all(x.f, ARRAY(SELECT k FROM bf_keys k WHERE k.grp = x.grp))) c
              WHERE NOT c) l;
SELECT sum(misses) AS misses
FROM (SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp) x,
     LATERAL (SELECT 30 - cardinality(bloom_filter_array(x.f, ARRAY(SELECT k FROM bf_keys k WHERE k.grp = x.grp))) AS misses) l;
-- unions of two such filters, one after the other
SELECT sum(misses) AS misses
FROM (SELECT grp / 2 AS pair, bloom_union_agg(f) f
      FROM (SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp) a GROUP BY grp / 2) x,
     LATERAL (SELECT count(*) AS misses FROM bf_keys k WHERE k.grp / 2 = x.pair AND NOT k.k <@ x.f) l;
RESET enable_hashagg;

-- ---- countingbloom and bloomwindow: the same, one address ----

SET enable_hashagg = off;
SELECT sum(misses) AS misses, sum(undercounts) AS undercounts
FROM (SELECT grp, cbloom_agg(k, 50, 0.01) c FROM bf_keys GROUP BY grp) x,
     LATERAL (SELECT count(*) FILTER (WHERE NOT k.k <@ x.c) AS misses,
                     count(*) FILTER (WHERE cbloom_count(x.c, k.k) < 1) AS undercounts
              FROM bf_keys k WHERE k.grp = x.grp) l;
SELECT sum(misses) AS misses
FROM (SELECT grp, bloom_window_agg(k, '2024-01-01 00:00+00'::timestamptz + (k % 7) * interval '1 minute',
                                   interval '1 hour', 6, 50, 0.01) w
      FROM bf_keys GROUP BY grp) x,
     LATERAL (SELECT count(*) AS misses FROM bf_keys k
              WHERE k.grp = x.grp
                AND NOT bloom_window_contains(x.w, k.k, '2024-01-01 00:30+00'::timestamptz)) l;
RESET enable_hashagg;

-- ---- GiST: the query state of a nested loop's runtime keys ----

CREATE TEMP TABLE gi_filters AS
SELECT grp, bloom_agg(k, 50, 0.01) f FROM bf_keys GROUP BY grp;
CREATE INDEX ON gi_filters USING gist (f);
ANALYZE gi_filters;
SET enable_seqscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
-- every key finds its own group's filter through the index, each outer
-- row a new runtime key for the same scan
EXPLAIN (COSTS OFF)
SELECT count(*) AS keys_without_their_filter
FROM bf_keys k
WHERE NOT EXISTS (SELECT 1 FROM gi_filters g WHERE g.f @> gbloom_key(k.k) AND g.grp = k.grp);
SELECT count(*) AS keys_without_their_filter
FROM bf_keys k
WHERE NOT EXISTS (SELECT 1 FROM gi_filters g WHERE g.f @> gbloom_key(k.k) AND g.grp = k.grp);
RESET enable_seqscan;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- ---- a caught ERROR leaves nothing half-loaded ----

-- One call site (a PL/pgSQL expression) probes an integer filter, then a
-- text filter twice at one address: the family ERROR must come both times.
-- The caches keep nothing of a load that failed (the key is written last),
-- so a call site that outlived the ERROR could not take the text filter
-- for the integer one.  (PL/pgSQL itself prepares an expression that
-- raised an ERROR afresh, so here the second call is a new call site
-- whatever the caches do: this checks the behaviour, not the order.)
CREATE FUNCTION cache_after_error(kind text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text := '';
	f bloomfilter := bloom_empty(100) + 1;
	s scalablebloom := bloom_add(sbloom_empty(100), 1);
BEGIN
	FOR i IN 1..3 LOOP
		IF i = 2 THEN
			f := bloom_empty(100) + 'one'::text;
			s := bloom_add(sbloom_empty(100), 'one'::text);
		END IF;
		BEGIN
			IF kind = 'bloomfilter' THEN
				r := r || (f @> 5)::text || ' ';
			ELSIF kind = 'bloom_contains_all' THEN
				r := r || bloom_contains_all(f, ARRAY[5, 6])::text || ' ';
			ELSE
				r := r || (s @> 5)::text || ' ';
			END IF;
		EXCEPTION WHEN datatype_mismatch THEN
			r := r || 'error ';
		END;
	END LOOP;
	RETURN r;
END $$;
SELECT cache_after_error('bloomfilter') AS bloomfilter,
       cache_after_error('bloom_contains_all') AS bloom_contains_all,
       cache_after_error('scalablebloom') AS scalablebloom;
DROP FUNCTION cache_after_error(text);

DROP TABLE sb_params, sb_groups, sb_parts0, sb_in0, sb_order, sb_parts, sb_in, sb_keys, sb_unions,
  bf_keys, gi_filters;

-- ---- one detoast cache under every type (type/bf_type_detoast.c) ----

-- The probes of all four types ask one cache whether the value passed is
-- the one seen last time: by its TOAST pointer (out of line), its
-- compressed bytes (compressed in the row), or in place by its length,
-- its headers and, for scalablebloom, each sub-filter's geometry.  Each
-- group's filter below has the group's own seed: equal lengths, other
-- headers and other bits, so that a cache that took one group's filter
-- for the next one's would probe the wrong bits.  Every probe is of a key
-- of the group's own filter: any miss is a false negative, and the counts
-- must be 0.  Each type is stored four ways: small (inline; bloomfilter
-- with a short varlena header), STORAGE main (compressed inline), STORAGE
-- external (out of line, not compressed), extended (compressed, out of
-- line).
CREATE FUNCTION dc_b(cap int, seed int, ks bigint[]) RETURNS bloomfilter
LANGUAGE sql AS $$ SELECT bloom_add_all(bloom_empty(cap, 0.01, 'blocked', seed), ks) $$;
CREATE FUNCTION dc_s(cap int, seed int, ks bigint[]) RETURNS scalablebloom
LANGUAGE sql AS $$ SELECT bloom_add_all(sbloom_empty(cap, 0.01, 2, 0.5, 'blocked', seed), ks) $$;
CREATE FUNCTION dc_c(cap int, seed int, ks bigint[]) RETURNS countingbloom
LANGUAGE plpgsql AS $$
DECLARE
	f countingbloom := cbloom_empty(cap, 0.01, 'blocked', seed);
	k bigint;
BEGIN
	FOREACH k IN ARRAY ks LOOP f := cbloom_add(f, k); END LOOP;
	RETURN f;
END $$;
CREATE FUNCTION dc_w(cap int, seed int, ks bigint[]) RETURNS bloomwindow
LANGUAGE plpgsql AS $$
DECLARE
	f bloomwindow := bloom_window_empty('1 hour', 6, cap, 0.01, 'blocked', seed);
	k bigint;
BEGIN
	FOREACH k IN ARRAY ks LOOP f := bloom_window_add(f, k, '2024-01-01 00:10+00'); END LOOP;
	RETURN f;
END $$;
CREATE TEMP TABLE dc_keys AS
SELECT g AS grp, g * 1000 + i AS k FROM generate_series(1, 12) g, generate_series(1, 30) i;
CREATE TEMP TABLE dc_small (grp int, b bloomfilter, s scalablebloom, c countingbloom, w bloomwindow);
CREATE TEMP TABLE dc_main (LIKE dc_small);
ALTER TABLE dc_main ALTER b SET STORAGE main, ALTER s SET STORAGE main,
  ALTER c SET STORAGE main, ALTER w SET STORAGE main;
-- a low toast_tuple_target: every column goes out of line
CREATE TEMP TABLE dc_external (LIKE dc_small) WITH (toast_tuple_target = 128);
ALTER TABLE dc_external ALTER b SET STORAGE external, ALTER s SET STORAGE external,
  ALTER c SET STORAGE external, ALTER w SET STORAGE external;
CREATE TEMP TABLE dc_extended (LIKE dc_small) WITH (toast_tuple_target = 128);
-- one row a group: the four types, of the capacities given
CREATE FUNCTION dc_rows(cb int, cs int, cc int, cw int)
RETURNS TABLE (grp int, b bloomfilter, s scalablebloom, c countingbloom, w bloomwindow)
LANGUAGE sql AS $$
	SELECT grp, dc_b(cb, grp / 3, ks), dc_s(cs, grp / 3, ks), dc_c(cc, grp / 3, ks), dc_w(cw, grp / 3, ks)
	FROM (SELECT grp, array_agg(k ORDER BY k) ks FROM dc_keys GROUP BY grp) x
$$;
-- small: a few sub-filters each; sparse: compressible
INSERT INTO dc_small SELECT * FROM dc_rows(50, 8, 50, 10);
INSERT INTO dc_main SELECT * FROM dc_rows(800, 800, 400, 200);
INSERT INTO dc_external SELECT * FROM dc_rows(800, 800, 400, 200);
INSERT INTO dc_extended SELECT * FROM dc_rows(100000, 100000, 30000, 20000);
-- how each is stored, by type: in place or short header, compressed, out of line
CREATE FUNCTION dc_stored(tbl text) RETURNS TABLE (typ text, lengths bigint, headers text,
  compressed text, out_of_line boolean) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT typ, count(DISTINCT len), CASE WHEN bool_and(sz = len + 1) THEN 'short'
			WHEN bool_and(sz = len + 4) THEN '4-byte' ELSE 'other' END,
			string_agg(DISTINCT coalesce(cm, 'no'), ','),
			(SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE oid = %L::regclass)
		FROM %I t, LATERAL (VALUES
			('b', length(b::bytea), pg_column_size(b), pg_column_compression(b)),
			('s', length(s::bytea), pg_column_size(s), pg_column_compression(s)),
			('c', length(c::bytea), pg_column_size(c), pg_column_compression(c)),
			('w', length(w::bytea), pg_column_size(w), pg_column_compression(w))) v(typ, len, sz, cm)
		GROUP BY typ ORDER BY typ$q$, tbl, tbl);
END $$;
SELECT 'small' AS tbl, * FROM dc_stored('dc_small');
SELECT 'main' AS tbl, * FROM dc_stored('dc_main');
SELECT 'external' AS tbl, * FROM dc_stored('dc_external');
SELECT 'extended' AS tbl, * FROM dc_stored('dc_extended');
-- The misses of each type, through plans that hand one call site value
-- after value: 'stored', as stored, a lateral probing each row's keys;
-- 'moved', the value copied for each probe (a bytea round trip: a new
-- value at a reused address); 'nulls', a NULL filter between two groups.
CREATE FUNCTION dc_misses(tbl text) RETURNS TABLE (plan text, b numeric, s numeric, c numeric,
  w numeric) LANGUAGE plpgsql AS $$
DECLARE
	misses text := $m$
		count(*) FILTER (WHERE NOT k.k <@ %1$s.b),
		count(*) FILTER (WHERE NOT k.k <@ %1$s.s),
		count(*) FILTER (WHERE NOT k.k <@ %1$s.c OR cbloom_count(%1$s.c, k.k) < 1),
		count(*) FILTER (WHERE NOT bloom_window_contains(%1$s.w, k.k, '2024-01-01 00:30+00'))$m$;
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT 'stored', sum(mb), sum(ms), sum(mc), sum(mw)
		FROM %I t, LATERAL (SELECT %s FROM dc_keys k WHERE k.grp = t.grp) l(mb, ms, mc, mw)$q$,
		tbl, format(misses, 't'));
	RETURN QUERY EXECUTE format($q$
		SELECT 'moved', sum(mb), sum(ms), sum(mc), sum(mw)
		FROM %I t, LATERAL (SELECT %s FROM dc_keys k,
			LATERAL (SELECT t.b::bytea::bloomfilter, t.s::bytea::scalablebloom,
				t.c::bytea::countingbloom, t.w::bytea::bloomwindow) m(b, s, c, w)
			WHERE k.grp = t.grp) l(mb, ms, mc, mw)$q$,
		tbl, format(misses, 'm'));
	RETURN QUERY EXECUTE format($q$
		SELECT 'nulls', sum(mb), sum(ms), sum(mc), sum(mw)
		FROM (SELECT * FROM %I UNION ALL
			  SELECT grp, NULL, NULL, NULL, NULL FROM %I ORDER BY grp, b NULLS FIRST) t,
			LATERAL (SELECT %s FROM dc_keys k WHERE k.grp = t.grp) l(mb, ms, mc, mw)$q$,
		tbl, tbl, format(misses, 't'));
END $$;
SELECT 'small' AS tbl, * FROM dc_misses('dc_small');
SELECT 'main' AS tbl, * FROM dc_misses('dc_main');
SELECT 'external' AS tbl, * FROM dc_misses('dc_external');
SELECT 'extended' AS tbl, * FROM dc_misses('dc_extended');
-- a window function handing a new value for each row (one-row frames)
SET enable_hashagg = off;
SELECT count(*) FILTER (WHERE NOT k.k <@ x.b) AS b, count(*) FILTER (WHERE NOT k.k <@ x.s) AS s,
       count(*) FILTER (WHERE NOT k.k <@ x.c) AS c,
       count(*) FILTER (WHERE NOT bloom_window_contains(x.w, k.k, '2024-01-01 00:30+00')) AS w
FROM (SELECT grp, bloom_union_agg(b) OVER r AS b, bloom_union_agg(s) OVER r AS s,
             string_agg(c::bytea, ''::bytea) OVER r::countingbloom AS c,
             string_agg(w::bytea, ''::bytea) OVER r::bloomwindow AS w
      FROM dc_small WINDOW r AS (ORDER BY grp ROWS BETWEEN CURRENT ROW AND CURRENT ROW)) x,
     LATERAL (SELECT k FROM dc_keys k WHERE k.grp = x.grp) k;
RESET enable_hashagg;
-- a CTE producing two filters of one length, other seeds and keys
WITH two AS MATERIALIZED (
	SELECT n, ks, dc_b(50, n, ks) b, dc_s(8, n, ks) s, dc_c(50, n, ks) c, dc_w(10, n, ks) w
	FROM (VALUES (1, ARRAY[11, 12, 13]::bigint[]), (2, ARRAY[21, 22, 23]::bigint[])) v(n, ks))
SELECT count(DISTINCT length(b::bytea)) = 1 AND count(DISTINCT length(s::bytea)) = 1
         AND count(DISTINCT length(c::bytea)) = 1 AND count(DISTINCT length(w::bytea)) = 1 AS one_length,
       count(*) FILTER (WHERE NOT k <@ b) AS b, count(*) FILTER (WHERE NOT k <@ s) AS s,
       count(*) FILTER (WHERE NOT k <@ c) AS c,
       count(*) FILTER (WHERE NOT bloom_window_contains(w, k, '2024-01-01 00:30+00')) AS w
FROM two, unnest(ks) k;
-- UPDATE ... RETURNING: one call site sees each stored filter (TOAST, or
-- inline) and then its new value with one more key; the new values must
-- hold it.  Then the new stored values (new TOAST values) are probed.
CREATE FUNCTION dc_update(tbl text) RETURNS TABLE (b bigint, s bigint, c bigint, w bigint,
  old_holding_new_key bigint) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH u AS (UPDATE %I SET b = b + (grp * 1000 + 999)::bigint,
				s = bloom_add(s, (grp * 1000 + 999)::bigint),
				c = cbloom_add(c, (grp * 1000 + 999)::bigint),
				w = bloom_window_add(w, (grp * 1000 + 999)::bigint, '2024-01-01 00:10+00')
			RETURNING grp, b, s, c, w)
		SELECT count(*) FILTER (WHERE v = 'new' AND NOT k <@ x.b),
			count(*) FILTER (WHERE v = 'new' AND NOT k <@ x.s),
			count(*) FILTER (WHERE v = 'new' AND NOT k <@ x.c),
			count(*) FILTER (WHERE v = 'new' AND NOT bloom_window_contains(x.w, k, '2024-01-01 00:30+00')),
			count(*) FILTER (WHERE v = 'old' AND k <@ x.b AND k <@ x.s AND k <@ x.c)
		FROM (SELECT 'old' AS v, * FROM %I UNION ALL SELECT 'new', * FROM u ORDER BY grp, v DESC) x,
			LATERAL (SELECT (x.grp * 1000 + 999)::bigint AS k) k$q$, tbl, tbl);
END $$;
SELECT 'small' AS tbl, * FROM dc_update('dc_small');
SELECT 'external' AS tbl, * FROM dc_update('dc_external');
INSERT INTO dc_keys SELECT g, g * 1000 + 999 FROM generate_series(1, 12) g;
SELECT 'small' AS tbl, * FROM dc_misses('dc_small');
SELECT 'external' AS tbl, * FROM dc_misses('dc_external');
SELECT 'external' AS tbl, * FROM dc_stored('dc_external');
-- compressed in the row, of equal compressed lengths: one key each, the
-- filters sorted by their stored size, so that filters of one compressed
-- length and other bytes come one after the other
CREATE TEMP TABLE dc_cand (k bigint, b bloomfilter, s scalablebloom, c countingbloom, w bloomwindow);
ALTER TABLE dc_cand ALTER b SET STORAGE main, ALTER s SET STORAGE main,
  ALTER c SET STORAGE main, ALTER w SET STORAGE main;
INSERT INTO dc_cand
SELECT k, dc_b(2000, 0, ARRAY[k]), dc_s(2000, 0, ARRAY[k]), dc_c(800, 0, ARRAY[k]), dc_w(400, 0, ARRAY[k])
FROM generate_series(1, 40) k;
SELECT typ, bool_and(cm IS NOT NULL) AS all_compressed,
       count(*) FILTER (WHERE sz = prev_sz) >= 3 AS equal_lengths_in_a_row, sum(miss) AS misses
FROM (SELECT typ, cm, sz, lag(sz) OVER (PARTITION BY typ ORDER BY ord) AS prev_sz, miss
      FROM (SELECT 'b' AS typ, pg_column_compression(b) AS cm, pg_column_size(b) AS sz,
                   row_number() OVER () AS ord, (NOT k <@ b)::int AS miss
            FROM (SELECT * FROM dc_cand ORDER BY pg_column_size(b), k) x
            UNION ALL
            SELECT 's', pg_column_compression(s), pg_column_size(s), row_number() OVER (),
                   (NOT k <@ s)::int
            FROM (SELECT * FROM dc_cand ORDER BY pg_column_size(s), k) x
            UNION ALL
            SELECT 'c', pg_column_compression(c), pg_column_size(c), row_number() OVER (),
                   (NOT k <@ c)::int
            FROM (SELECT * FROM dc_cand ORDER BY pg_column_size(c), k) x
            UNION ALL
            SELECT 'w', pg_column_compression(w), pg_column_size(w), row_number() OVER (),
                   (NOT bloom_window_contains(w, k, '2024-01-01 00:30+00'))::int
            FROM (SELECT * FROM dc_cand ORDER BY pg_column_size(w), k) x) y) z
GROUP BY typ ORDER BY typ;
DROP TABLE dc_keys, dc_small, dc_main, dc_external, dc_extended, dc_cand;
DROP FUNCTION dc_b(int, int, bigint[]), dc_s(int, int, bigint[]), dc_c(int, int, bigint[]),
  dc_w(int, int, bigint[]), dc_rows(int, int, int, int), dc_stored(text), dc_misses(text), dc_update(text);
