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

-- the polymorphic path key by key: bloom_add over the rows
DO $$ BEGIN
	EXECUTE format('CREATE AGGREGATE ov_fold(anycompatible) (SFUNC = bloom_add, STYPE = bloomfilter, INITCOND = %L)',
		bloom_empty(1000, 0.01)::text);
END $$;

-- ov_check(type, rows): a table of the keys, the aggregate each form of
-- bloom_agg resolves to (read from the dependencies of a view), and the
-- comparisons with the polymorphic functions
CREATE FUNCTION ov_check(typ text, vals text,
	OUT key_type text, OUT resolves_to text, OUT sized_bytes_equal boolean,
	OUT auto_family_equal boolean, OUT fpr_family_equal boolean, OUT all_found boolean)
LANGUAGE plpgsql AS $$
BEGIN
	DROP VIEW IF EXISTS ov_v;
	DROP TABLE IF EXISTS ov_t;
	EXECUTE format('CREATE TEMP TABLE ov_t (v %s)', typ);
	EXECUTE format('INSERT INTO ov_t VALUES %s', vals);
	CREATE TEMP VIEW ov_v AS
		SELECT bloom_agg(v) AS a, bloom_agg(v, 0.02) AS b, bloom_agg(v, 1000, 0.01) AS c FROM ov_t;
	key_type := typ;
	SELECT string_agg(DISTINCT p.proargtypes[0]::regtype::text, ', ') INTO resolves_to
	FROM pg_rewrite r
	JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
	JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND d.refobjid = p.oid
	WHERE r.ev_class = 'ov_v'::regclass AND p.proname = 'bloom_agg';
	SELECT v.c = (SELECT ov_fold(t.v) FROM ov_t t),
	       (bloom_info(v.a)).key_family = (bloom_info(bloom_add(bloom_empty(10), (SELECT t.v FROM ov_t t LIMIT 1)))).key_family,
	       (bloom_info(v.b)).key_family = (bloom_info(bloom_add(bloom_empty(10), (SELECT t.v FROM ov_t t LIMIT 1)))).key_family,
	       (SELECT bool_and(bloom_contains(v.a, t.v) AND bloom_contains(v.b, t.v) AND bloom_contains(v.c, t.v))
	        FROM ov_t t WHERE t.v IS NOT NULL)
	INTO sized_bytes_equal, auto_family_equal, fpr_family_equal, all_found
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
EXPLAIN (COSTS OFF) SELECT bloom_agg(i4) FROM ov_keys;
CREATE TABLE ov_par AS
SELECT bloom_agg(i4) AS a, bloom_agg(i8, 0.001) AS b, bloom_agg(n, 100000, 0.01) AS c,
       bloom_agg(f8) AS d, bloom_agg(d, 0.05) AS e, bloom_agg(u, 100000, 0.02) AS f
FROM ov_keys;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT p.a = s.a AS a, p.b = s.b AS b, p.c = s.c AS c, p.d = s.d AS d, p.e = s.e AS e, p.f = s.f AS f
FROM ov_par p,
     (SELECT bloom_agg(i4) AS a, bloom_agg(i8, 0.001) AS b, bloom_agg(n, 100000, 0.01) AS c,
             bloom_agg(f8) AS d, bloom_agg(d, 0.05) AS e, bloom_agg(u, 100000, 0.02) AS f
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

DROP TABLE ov_keys, ov_par;
DROP AGGREGATE ov_p_auto(int8);
DROP AGGREGATE ov_p_sized(int8, bigint, float8);
DROP AGGREGATE ov_c_bloom(bloomfilter_aggstate);
DROP VIEW ov_v;
DROP TABLE ov_t;
DROP FUNCTION ov_check(text, text);
DROP AGGREGATE ov_fold(anycompatible);
DROP TYPE ov_pair;
DROP TYPE ov_mood;
DROP DOMAIN ov_int4, ov_int2, ov_numeric, ov_text, ov_ts;
