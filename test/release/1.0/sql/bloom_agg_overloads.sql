--
-- bloom_agg's overloads for one key type (int2 ... timestamptz, see the
-- install script): they exist so that Citus runs bloom_agg on its workers,
-- and must change nothing else.  For a wide list of key types, whichever
-- aggregate a key resolves to (an overload or the polymorphic one), the
-- filter is the one the polymorphic functions build from the same keys
-- (bytes for the sized form, key family for the self-sized ones), every key
-- probes true, and no call is ambiguous.
--
CREATE EXTENSION IF NOT EXISTS citext;

-- every implicit cast into a type with an overload, from a type without
-- one: each such source type is in the list below, and resolves as shown
SELECT c.castsource::regtype AS source, c.casttarget::regtype AS target, c.castmethod
FROM pg_cast c
WHERE c.castcontext = 'i'
  AND c.casttarget IN (SELECT DISTINCT p.proargtypes[0] FROM pg_proc p
                       WHERE p.proname = 'bloom_agg' AND p.proargtypes[0] <> 'anyelement'::regtype)
  AND c.castsource NOT IN (SELECT DISTINCT p.proargtypes[0] FROM pg_proc p
                           WHERE p.proname = 'bloom_agg')
ORDER BY 1::text, 2::text;

CREATE DOMAIN ov_int4 AS int4;
CREATE DOMAIN ov_int2 AS int2 CHECK (VALUE > -100);
CREATE DOMAIN ov_numeric AS numeric(12, 2);
CREATE DOMAIN ov_text AS text;
CREATE DOMAIN ov_ts AS timestamptz;
CREATE TYPE ov_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE ov_pair AS (a int, b text);

-- the polymorphic path: the same C transition and final functions under
-- polymorphic aggregates, as bloom_agg(anyelement) and the others use them
-- (internal there; the state is the same object)
CREATE AGGREGATE ov_bloom(anyelement) (SFUNC = bloomfilter_auto_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final);
CREATE AGGREGATE ov_bloom(anyelement, float8) (SFUNC = bloomfilter_auto_agg_trans_fpr,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final);
CREATE AGGREGATE ov_bloom(anyelement, bigint, float8) (SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final);
CREATE AGGREGATE ov_cbloom(anyelement, bigint, float8) (SFUNC = countingbloom_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = countingbloom_agg_final);
CREATE AGGREGATE ov_cbloom(anyelement, bigint, float8, integer) (SFUNC = countingbloom_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = countingbloom_agg_final);
CREATE AGGREGATE ov_window(anyelement, timestamptz, interval) (SFUNC = bloomwindow_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomwindow_agg_final);
CREATE AGGREGATE ov_window(anyelement, timestamptz, interval, int, bigint, float8) (SFUNC = bloomwindow_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomwindow_agg_final);
CREATE AGGREGATE ov_sbloom(anyelement) (SFUNC = scalablebloom_agg_trans,
	STYPE = bloomfilter_aggstate, FINALFUNC = scalablebloom_agg_final);

-- and key by key, through bloom_add
DO $$ BEGIN
	EXECUTE format('CREATE AGGREGATE ov_fold(anycompatible) (SFUNC = bloom_add, STYPE = bloomfilter, INITCOND = %L)',
		bloom_empty(1000, 0.01)::text);
END $$;

-- ov_check(type, rows): a table of the keys, the aggregate each call
-- resolves to (read from the dependencies of a view: the type of its key
-- argument, anyelement for the polymorphic one), whether the text form of
-- each result equals the polymorphic path's (bloom_agg's three forms, then
-- cbloom_agg's two, bloom_window_agg's two, sbloom_agg), whether the sized
-- bloom_agg equals bloom_add key by key, and whether every key probes true
CREATE FUNCTION ov_check(typ text, vals text,
	OUT key_type text, OUT resolves_to text, OUT bloom_agg_same text, OUT others_same text,
	OUT fold_same boolean, OUT all_found boolean)
LANGUAGE plpgsql AS $$
BEGIN
	DROP VIEW IF EXISTS ov_v;
	DROP TABLE IF EXISTS ov_t;
	EXECUTE format('CREATE TEMP TABLE ov_t (v %s)', typ);
	EXECUTE format('INSERT INTO ov_t VALUES %s', vals);
	CREATE TEMP VIEW ov_v AS
		SELECT bloom_agg(v) AS a, bloom_agg(v, 0.02) AS b, bloom_agg(v, 1000, 0.01) AS c,
		       ov_bloom(v) AS pa, ov_bloom(v, 0.02) AS pb, ov_bloom(v, 1000, 0.01) AS pc,
		       cbloom_agg(v, 1000, 0.01) AS d, cbloom_agg(v, 1000, 0.01, 8) AS e,
		       ov_cbloom(v, 1000, 0.01) AS pd, ov_cbloom(v, 1000, 0.01, 8) AS pe,
		       bloom_window_agg(v, timestamptz '2026-11-27 08:00+00', '1 hour') AS w,
		       bloom_window_agg(v, timestamptz '2026-11-27 08:00+00', '1 hour', 3, 100, 0.01) AS x,
		       ov_window(v, timestamptz '2026-11-27 08:00+00', '1 hour') AS pw,
		       ov_window(v, timestamptz '2026-11-27 08:00+00', '1 hour', 3, 100, 0.01) AS px,
		       sbloom_agg(v) AS s, ov_sbloom(v) AS ps
		FROM ov_t;
	key_type := typ;
	SELECT string_agg(DISTINCT p.proargtypes[0]::regtype::text, ', ') INTO resolves_to
	FROM pg_rewrite r
	JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
	JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND d.refobjid = p.oid
	WHERE r.ev_class = 'ov_v'::regclass
	  AND p.proname IN ('bloom_agg', 'cbloom_agg', 'bloom_window_agg', 'sbloom_agg');
	SELECT concat_ws(' ', v.a::text = v.pa::text, v.b::text = v.pb::text, v.c::text = v.pc::text),
	       concat_ws(' ', v.d::text = v.pd::text, v.e::text = v.pe::text, v.w::text = v.pw::text,
	                 v.x::text = v.px::text, v.s::text = v.ps::text),
	       v.c::text = (SELECT ov_fold(t.v) FROM ov_t t)::text,
	       (SELECT bool_and(bloom_contains(v.a, t.v) AND bloom_contains(v.b, t.v) AND bloom_contains(v.c, t.v)
	                        AND cbloom_contains(v.d, t.v) AND cbloom_contains(v.e, t.v)
	                        AND bloom_window_contains(v.w, t.v, timestamptz '2026-11-27 08:00+00')
	                        AND bloom_window_contains(v.x, t.v, timestamptz '2026-11-27 08:00+00')
	                        AND bloom_contains(v.s, t.v))
	        FROM ov_t t WHERE t.v IS NOT NULL)
	INTO bloom_agg_same, others_same, fold_same, all_found
	FROM ov_v v;
END
$$;

SELECT (ov_check(t, v)).* FROM (VALUES
	('int2', '(1), (-3), (NULL), (32767)'),
	('int4', '(1), (-3), (NULL), (2147483647)'),
	('int8', '(1), (-3), (NULL), (9223372036854775807)'),
	('numeric', '(1), (1.50), (-3e10), (NULL), (''NaN'')'),
	('float4', '(1), (1.5), (-0.0), (NULL), (''NaN''), (''Infinity'')'),
	('float8', '(1), (1.5), (-0.0), (NULL), (''NaN''), (1e300)'),
	('bool', '(true), (false), (NULL)'),
	('bytea', '(''\x00ff''), (''\x''), (NULL)'),
	('uuid', '(''a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11''), (NULL)'),
	('date', '(''2026-11-27''), (''infinity''), (NULL)'),
	('timestamp', '(''2026-11-27 08:00''), (''-infinity''), (NULL)'),
	('timestamptz', '(''2026-11-27 08:00+00''), (''2026-11-27 10:00+02''), (NULL)'),
	('text', '(''a''), (''B ''), (''''), (NULL)'),
	('varchar(5)', '(''a''), (''ab ''), (NULL)'),
	('char(5)', '(''a''), (''ab   ''), (NULL)'),
	('name', '(''a''), (''ab''), (NULL)'),
	('"char"', '(''a''), (''b''), (NULL)'),
	('oid', '(1), (4294967295), (NULL)'),
	('regclass', '(''pg_class''), (''pg_proc''), (NULL)'),
	('money', '(1.5), (-3), (NULL)'),
	('interval', '(''1 day''), (''24 hours''), (NULL)'),
	('time', '(''08:00''), (NULL)'),
	('jsonb', '(''{"a": 1}''), (''[1, 2]''), (NULL)'),
	('citext', '(''Abc''), (''abc''), (''X''), (NULL)'),
	('ov_int4', '(1), (-3), (NULL)'),
	('ov_int2', '(1), (-3), (NULL)'),
	('ov_numeric', '(1), (1.5), (NULL)'),
	('ov_text', '(''a''), (''B ''), (NULL)'),
	('ov_ts', '(''2026-11-27 08:00+00''), (NULL)'),
	('ov_mood', '(''sad''), (''happy''), (NULL)'),
	('int4[]', '(''{1,2}''), (''{}''), (''{{1},{2}}''), (NULL)'),
	('text[]', '(''{a,b}''), (NULL)'),
	('ov_pair', '(ROW(1, ''a'')), (ROW(NULL, ''b'')), (NULL)'),
	('int4range', '(''[1,5)''), (''empty''), (NULL)')
) AS types(t, v);

-- a citext key gives citext's family (case-insensitive): a probe in
-- another case finds it, whichever aggregate it resolved to
SELECT bloom_contains(bloom_agg(v), 'ABC'::citext) AS citext_case_free,
       (bloom_info(bloom_agg(v))).key_family AS family
FROM (VALUES ('abc'::citext)) t(v);

-- literals and expressions: an untyped literal is text (polymorphic); an
-- int2 column and an int4 constant resolve to their own overloads
SELECT (bloom_info(bloom_agg(v))).key_family AS unknown_literal FROM (VALUES ('abc')) t(v);
SELECT bloom_agg(1::int2, 10, 0.01) = bloom_empty(10, 0.01) + 1::int2 AS int2_const,
       bloom_agg(1, 10, 0.01) = bloom_empty(10, 0.01) + 1 AS int4_const,
       bloom_agg(1.5, 10, 0.01) = bloom_empty(10, 0.01) + 1.5 AS numeric_const;

-- an anonymous record (no overload)
SELECT bloom_agg(ROW(g, 'x'), 100, 0.01) = bloom_add_all(bloom_empty(100, 0.01), array_agg(ROW(g, 'x'))) AS record_bytes
FROM generate_series(1, 10) g;

-- parallel plans give the bytes of a serial plan with the overloads
CREATE TABLE ov_keys AS
SELECT g::int4 AS i4, g::int8 * 1000003 AS i8, (g / 7.0)::numeric(12, 3) AS n,
       (g * 0.25)::float8 AS f8, date '2000-01-01' + g AS d,
       gen_random_uuid() AS u
FROM generate_series(1, 100000) g;
ANALYZE ov_keys;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(i4), cbloom_agg(i4, 100000, 0.01), sbloom_agg(i8) FROM ov_keys;
CREATE TABLE ov_par AS
SELECT bloom_agg(i4) AS a, bloom_agg(i8, 0.001) AS b, bloom_agg(n, 100000, 0.01) AS c,
       bloom_agg(f8) AS d, bloom_agg(d, 0.05) AS e, bloom_agg(u, 100000, 0.02) AS f,
       cbloom_agg(i4, 100000, 0.01)::text AS g, sbloom_agg(i8)::text AS h,
       bloom_window_agg(n, timestamptz '2026-01-01 00:00+00' + i4 * interval '1 second', '1 hour', 3, 100000, 0.01)::text AS w
FROM ov_keys;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT p.a = s.a AS a, p.b = s.b AS b, p.c = s.c AS c, p.d = s.d AS d, p.e = s.e AS e, p.f = s.f AS f,
       p.g = s.g AS g, p.h = s.h AS h, p.w = s.w AS w
FROM ov_par p,
     (SELECT bloom_agg(i4) AS a, bloom_agg(i8, 0.001) AS b, bloom_agg(n, 100000, 0.01) AS c,
             bloom_agg(f8) AS d, bloom_agg(d, 0.05) AS e, bloom_agg(u, 100000, 0.02) AS f,
             cbloom_agg(i4, 100000, 0.01)::text AS g, sbloom_agg(i8)::text AS h,
             bloom_window_agg(n, timestamptz '2026-01-01 00:00+00' + i4 * interval '1 second', '1 hour', 3, 100000, 0.01)::text AS w
      FROM ov_keys) s;
RESET max_parallel_workers_per_gather;
SELECT (SELECT count(*) FROM ov_keys k, ov_par p
        WHERE NOT (bloom_contains(p.a, k.i4) AND bloom_contains(p.b, k.i8) AND bloom_contains(p.c, k.n)
                   AND bloom_contains(p.d, k.f8) AND bloom_contains(p.e, k.d) AND bloom_contains(p.f, k.u)))
       AS false_negatives;

-- Citus's flow for an overload: partial states per shard, by the
-- overload's own transition function, through the text form, combined on
-- the "coordinator": the bytes of one node
CREATE AGGREGATE ov_p_auto(int8) (SFUNC = bloomfilter_auto_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE ov_p_sized(int8, bigint, float8) (SFUNC = bloomfilter_agg_trans, STYPE = bloomfilter_aggstate);
CREATE AGGREGATE ov_c_bloom(bloomfilter_aggstate) (SFUNC = bloomfilter_agg_combine,
	STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final);
SELECT ov_c_bloom(a::text::bloomfilter_aggstate) = (SELECT bloom_agg(i8) FROM ov_keys) AS auto_round_trip,
       ov_c_bloom(b::text::bloomfilter_aggstate) = (SELECT bloom_agg(i8, 100000, 0.01) FROM ov_keys) AS sized_round_trip
FROM (SELECT i4 % 4 AS shard, ov_p_auto(i8) AS a, ov_p_sized(i8, 100000, 0.01) AS b
      FROM ov_keys GROUP BY i4 % 4) s;

-- the README's recipe for a text key on Citus: aggregate its bytes (an
-- overload), probe with the same expression; the text itself is refused
SELECT bloom_contains(bloom_agg(convert_to(v, 'UTF8')), convert_to('b', 'UTF8')) AS same_expression
FROM (VALUES ('a'), ('b')) t(v);
\set VERBOSITY terse
SELECT bloom_contains(bloom_agg(convert_to(v, 'UTF8')), 'b'::text) AS text_probe
FROM (VALUES ('a'), ('b')) t(v);
\set VERBOSITY default

DROP TABLE ov_keys, ov_par;
DROP AGGREGATE ov_p_auto(int8);
DROP AGGREGATE ov_p_sized(int8, bigint, float8);
DROP AGGREGATE ov_c_bloom(bloomfilter_aggstate);
DROP VIEW ov_v;
DROP TABLE ov_t;
DROP FUNCTION ov_check(text, text);
DROP AGGREGATE ov_fold(anycompatible);
DROP AGGREGATE ov_bloom(anyelement), ov_bloom(anyelement, float8), ov_bloom(anyelement, bigint, float8),
	ov_cbloom(anyelement, bigint, float8), ov_cbloom(anyelement, bigint, float8, integer),
	ov_window(anyelement, timestamptz, interval), ov_window(anyelement, timestamptz, interval, int, bigint, float8),
	ov_sbloom(anyelement);
DROP TYPE ov_pair;
DROP TYPE ov_mood;
DROP DOMAIN ov_int4, ov_int2, ov_numeric, ov_text, ov_ts;
