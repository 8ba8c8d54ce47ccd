-- test/pg_upgrade/setup.sql: what the old cluster stores before pg_upgrade
-- (run by test/pg_upgrade.sh in a database where CREATE EXTENSION has
-- run).  Only 1.0's SQL API: one of the databases is at version 1.0.
-- Deterministic: the same keys and values on every run and version.
-- filters past their capacity on purpose: no WARNING about it
SET client_min_messages = error;
SET TimeZone = 'UTC';

-- the keys of each stored value, as text, with the family they are added
-- and probed as (helpers below); gen_keys(i, fam, j1, j2): keys j1..j2 of
-- set i (values.sql probes keys 50001.. of each set as non-members)
CREATE FUNCTION gen_keys(i int, fam text, j1 int, j2 int) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY(SELECT CASE fam
		WHEN 'int' THEN ((i * 7919 + j::int8 * 104729) % 100000)::text
		WHEN 'text' THEN 'key ' || i || '/' || j
		WHEN 'bytea' THEN '\x' || md5(i || '/' || j)
		WHEN 'uuid' THEN md5(i || ':' || j)::uuid::text
		WHEN 'numeric' THEN (i + j / 100.0)::text
		WHEN 'float8' THEN (i * 0.5 + j * 0.25)::float8::text
		WHEN 'timestamptz' THEN ('2026-01-01 00:00+00'::timestamptz + (i * 60 + j) * interval '1 second')::text
		END FROM generate_series(j1, j2) j ORDER BY j)
$$;
CREATE TABLE keysets (id int PRIMARY KEY, fam text NOT NULL, keys text[] NOT NULL);
INSERT INTO keysets
SELECT i, fam, gen_keys(i, fam, 1, n)
FROM (SELECT i, (ARRAY['int', 'text', 'bytea', 'uuid', 'numeric', 'float8', 'timestamptz'])[1 + i % 7] AS fam,
		(ARRAY[0, 1, 5, 60, 400, 2000, 9000])[1 + (i / 7) % 7] AS n
	  FROM generate_series(1, 49) i) s;

-- keys of a family, and a probe of one; user functions over the
-- extension's types, which pg_upgrade dumps and restores too
CREATE FUNCTION add_keys(f bloomfilter, fam text, k text[]) RETURNS bloomfilter
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN bloom_add_all(f, k::int4[])
		WHEN 'text' THEN bloom_add_all(f, k)
		WHEN 'bytea' THEN bloom_add_all(f, k::bytea[])
		WHEN 'uuid' THEN bloom_add_all(f, k::uuid[])
		WHEN 'numeric' THEN bloom_add_all(f, k::numeric[])
		WHEN 'float8' THEN bloom_add_all(f, k::float8[])
		WHEN 'timestamptz' THEN bloom_add_all(f, k::timestamptz[]) END
$$;
CREATE FUNCTION add_keys(f countingbloom, fam text, k text[]) RETURNS countingbloom
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN cbloom_add_all(f, k::int4[])
		WHEN 'text' THEN cbloom_add_all(f, k)
		WHEN 'bytea' THEN cbloom_add_all(f, k::bytea[])
		WHEN 'uuid' THEN cbloom_add_all(f, k::uuid[])
		WHEN 'numeric' THEN cbloom_add_all(f, k::numeric[])
		WHEN 'float8' THEN cbloom_add_all(f, k::float8[])
		WHEN 'timestamptz' THEN cbloom_add_all(f, k::timestamptz[]) END
$$;
CREATE FUNCTION add_keys(f scalablebloom, fam text, k text[]) RETURNS scalablebloom
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN bloom_add_all(f, k::int4[])
		WHEN 'text' THEN bloom_add_all(f, k)
		WHEN 'bytea' THEN bloom_add_all(f, k::bytea[])
		WHEN 'uuid' THEN bloom_add_all(f, k::uuid[])
		WHEN 'numeric' THEN bloom_add_all(f, k::numeric[])
		WHEN 'float8' THEN bloom_add_all(f, k::float8[])
		WHEN 'timestamptz' THEN bloom_add_all(f, k::timestamptz[]) END
$$;

CREATE FUNCTION has_key(f bloomfilter, fam text, k text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN bloom_contains(f, k::int8)
		WHEN 'text' THEN bloom_contains(f, k)
		WHEN 'bytea' THEN bloom_contains(f, k::bytea)
		WHEN 'uuid' THEN bloom_contains(f, k::uuid)
		WHEN 'numeric' THEN bloom_contains(f, k::numeric)
		WHEN 'float8' THEN bloom_contains(f, k::float8)
		WHEN 'timestamptz' THEN bloom_contains(f, k::timestamptz) END
$$;
CREATE FUNCTION has_key(f countingbloom, fam text, k text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN cbloom_contains(f, k::int8)
		WHEN 'text' THEN cbloom_contains(f, k)
		WHEN 'bytea' THEN cbloom_contains(f, k::bytea)
		WHEN 'uuid' THEN cbloom_contains(f, k::uuid)
		WHEN 'numeric' THEN cbloom_contains(f, k::numeric)
		WHEN 'float8' THEN cbloom_contains(f, k::float8)
		WHEN 'timestamptz' THEN cbloom_contains(f, k::timestamptz) END
$$;
CREATE FUNCTION has_key(f scalablebloom, fam text, k text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN bloom_contains(f, k::int8)
		WHEN 'text' THEN bloom_contains(f, k)
		WHEN 'bytea' THEN bloom_contains(f, k::bytea)
		WHEN 'uuid' THEN bloom_contains(f, k::uuid)
		WHEN 'numeric' THEN bloom_contains(f, k::numeric)
		WHEN 'float8' THEN bloom_contains(f, k::float8)
		WHEN 'timestamptz' THEN bloom_contains(f, k::timestamptz) END
$$;
-- the batch probe of bloomfilter (one detoast for many keys)
CREATE FUNCTION has_keys(f bloomfilter, fam text, k text[]) RETURNS boolean[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN bloom_contains_all(f, k::int8[])
		WHEN 'text' THEN bloom_contains_all(f, k)
		WHEN 'bytea' THEN bloom_contains_all(f, k::bytea[])
		WHEN 'uuid' THEN bloom_contains_all(f, k::uuid[])
		WHEN 'numeric' THEN bloom_contains_all(f, k::numeric[])
		WHEN 'float8' THEN bloom_contains_all(f, k::float8[])
		WHEN 'timestamptz' THEN bloom_contains_all(f, k::timestamptz[]) END
$$;
CREATE FUNCTION has_key(w bloomwindow, fam text, k text, at timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fam
		WHEN 'int' THEN bloom_window_contains(w, k::int4, at)
		WHEN 'text' THEN bloom_window_contains(w, k, at)
		WHEN 'bytea' THEN bloom_window_contains(w, k::bytea, at)
		WHEN 'uuid' THEN bloom_window_contains(w, k::uuid, at) END
$$;

-- bloomfilter: both layouts, sizes from a few bytes to TOASTed, seeds,
-- explicit geometry, self-sized aggregates, unions and intersections
CREATE TABLE vals_bloomfilter (id int PRIMARY KEY, fam text, keys text[], v bloomfilter);
INSERT INTO vals_bloomfilter
SELECT id, fam, keys, add_keys(CASE id % 5
		WHEN 0 THEN bloom_empty(greatest(cardinality(keys), 10), 0.01, 'blocked', id)
		WHEN 1 THEN bloom_empty(greatest(cardinality(keys), 10), 0.001, 'classic')
		WHEN 2 THEN bloom_empty_bits(512 * (1 + id % 9), 1 + id % 7, 'classic', -id)
		WHEN 3 THEN bloom_empty_bits(1024 * (1 + id % 5), 1 + id % 5, 'blocked')
		ELSE bloom_empty(200000, 0.001) END, fam, keys)
FROM keysets;
INSERT INTO vals_bloomfilter
SELECT 100 + k.id, k.fam, k.keys, CASE k.fam
		WHEN 'int' THEN (SELECT bloom_agg(x::int8) FROM unnest(k.keys) x)
		WHEN 'text' THEN (SELECT bloom_agg(x, 0.001) FROM unnest(k.keys) x)
		WHEN 'uuid' THEN (SELECT bloom_agg(x::uuid, 5000, 0.02) FROM unnest(k.keys) x)
		ELSE (SELECT bloom_agg(x::bytea) FROM unnest(k.keys) x) END
FROM keysets k WHERE k.fam IN ('int', 'text', 'uuid', 'bytea') AND cardinality(k.keys) > 0;
INSERT INTO vals_bloomfilter
SELECT 200 + a.id, a.fam, a.keys || b.keys,
	add_keys(bloom_empty_bits(4096, 4, 'classic'), a.fam, a.keys) |
	add_keys(bloom_empty_bits(4096, 4, 'classic'), b.fam, b.keys)
FROM keysets a JOIN keysets b ON b.id = a.id + 7
WHERE a.id <= 35;
INSERT INTO vals_bloomfilter
SELECT 300 + id, fam, '{}', v & bloom_add_all(bloom_empty_bits(512 * (1 + id % 9), 1 + id % 7, 'classic', -id), ARRAY[1, 2, 3])
FROM vals_bloomfilter WHERE id % 5 = 2 AND id < 100 AND fam = 'int';
INSERT INTO vals_bloomfilter VALUES (400, 'int', '{}', NULL);

-- countingbloom: counter widths, removed keys (the kept half are members)
CREATE TABLE vals_countingbloom (id int PRIMARY KEY, fam text, keys text[], v countingbloom);
INSERT INTO vals_countingbloom
SELECT id, fam, keys, add_keys(CASE id % 3
		WHEN 0 THEN cbloom_empty(greatest(cardinality(keys), 10), 0.01)
		WHEN 1 THEN cbloom_empty(greatest(cardinality(keys), 10), 0.001, 'classic', id, 8)
		ELSE cbloom_empty_counters(4096, 4) END, fam, keys)
FROM keysets WHERE cardinality(keys) <= 2000;
UPDATE vals_countingbloom
SET v = cbloom_remove_all(v, ARRAY(SELECT x::int4 FROM unnest(keys) WITH ORDINALITY u(x, o) WHERE o % 2 = 0)),
	keys = ARRAY(SELECT x FROM unnest(keys) WITH ORDINALITY u(x, o) WHERE o % 2 = 1 ORDER BY o)
WHERE fam = 'int';
INSERT INTO vals_countingbloom
SELECT 100 + id, fam, keys, (SELECT cbloom_agg(x, 3000, 0.01) FROM unnest(keys) x)
FROM keysets WHERE fam = 'text' AND cardinality(keys) > 0;

-- scalablebloom: empty, one stage, grown through several stages
CREATE TABLE vals_scalablebloom (id int PRIMARY KEY, fam text, keys text[], v scalablebloom);
INSERT INTO vals_scalablebloom
SELECT id, fam, keys, add_keys(CASE id % 3
		WHEN 0 THEN sbloom_empty(100)
		WHEN 1 THEN sbloom_empty(50, 0.001, 4, 0.5, 'classic', 3)
		ELSE sbloom_empty() END, fam, keys)
FROM keysets;
INSERT INTO vals_scalablebloom
SELECT 100 + id, fam, keys, (SELECT sbloom_agg(x) FROM unnest(keys) x)
FROM keysets WHERE fam = 'text' AND cardinality(keys) > 0;

-- bloomwindow: keys a second apart from a fixed time, over 4 buckets of
-- 15 minutes (probed at the time of the last key)
CREATE TABLE vals_bloomwindow (id int PRIMARY KEY, fam text, keys text[], v bloomwindow,
	last_at timestamptz);
CREATE FUNCTION key_times(k text[]) RETURNS TABLE (x text, at timestamptz) LANGUAGE sql IMMUTABLE AS $$
	SELECT x, '2026-03-01 00:00+00'::timestamptz + o * interval '1 second'
	FROM unnest(k[1:3000]) WITH ORDINALITY AS u(x, o)
$$;
INSERT INTO vals_bloomwindow
SELECT id, fam, keys, CASE fam
		WHEN 'int' THEN (SELECT bloom_window_agg(x::int8, at, '1 hour', 4, 500, 0.01) FROM key_times(keys))
		WHEN 'text' THEN (SELECT bloom_window_agg(x, at, '1 hour', 4, 500, 0.01) FROM key_times(keys))
		WHEN 'uuid' THEN (SELECT bloom_window_agg(x::uuid, at, '1 hour', 4, 500, 0.01) FROM key_times(keys))
		ELSE (SELECT bloom_window_agg(x::bytea, at, '1 hour', 4, 500, 0.01) FROM key_times(keys)) END,
	(SELECT max(at) FROM key_times(keys))
FROM keysets WHERE fam IN ('int', 'text', 'uuid', 'bytea') AND cardinality(keys) > 0;
UPDATE vals_bloomwindow SET keys = keys[1:3000];
INSERT INTO vals_bloomwindow
SELECT 100, 'int', '{}', bloom_window_empty('1 day', 24, 1000, 0.001, 'classic', 7), NULL;

-- Indexed tables of filters of integer keys.
-- docs: mixed geometry (layouts, sizes that fold and do not, hashes,
-- seeds, self-sized, NULL, empty, larger than bloomslice's max_bits),
-- probed by key.  Most rows before the indexes are built, some after:
-- bloomslice's pending area holds those when the old cluster stops.
CREATE FUNCTION doc_filter(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN i % 97 = 0 THEN NULL
		WHEN i % 89 = 0 THEN bloom_empty(100)
		WHEN i % 83 = 0 THEN (SELECT bloom_agg(i * 3 + j) FROM generate_series(1, 1 + i % 300) j)
		ELSE bloom_add_all(CASE i % 7
				WHEN 0 THEN bloom_empty(100)
				WHEN 1 THEN bloom_empty(400)
				WHEN 2 THEN bloom_empty(100, 0.01, 'classic')
				WHEN 3 THEN bloom_empty(100, 0.01, 'blocked', 7)
				WHEN 4 THEN bloom_empty_bits(64 * (1 + i % 40), 3, 'classic')
				WHEN 5 THEN bloom_empty_bits(512 * (1 + i % 9), 5, 'blocked')
				ELSE bloom_empty(1000, 0.001, 'classic') END,
			ARRAY(SELECT i * 3 + j FROM generate_series(1, 10 + (i * 37) % 190) j))
	END
$$;
CREATE TABLE docs (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO docs SELECT i, doc_filter(i) FROM generate_series(1, 2500) i;
CREATE INDEX docs_gist ON docs USING gist (f);
CREATE INDEX docs_slice ON docs USING bloomslice (f) WITH (max_bits = 4096, pending_limit = 64);
INSERT INTO docs SELECT i, doc_filter(i) FROM generate_series(2501, 2540) i;

-- sups: one layout, number of hashes and seed, sizes that fold onto each
-- other; probed by key and by superset queries (f @>> q).  sups_grow
-- starts as its copy and takes inserts, deletes and VACUUM on the new
-- cluster (test/pg_upgrade/grow.sql).
CREATE FUNCTION sup_filter(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN i % 53 = 0 THEN NULL
		WHEN i % 47 = 0 THEN bloom_empty_bits(1024, 3, 'classic')
		ELSE bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048, 4096])[1 + i % 4], 3, 'classic'),
			ARRAY(SELECT (i * 13 + j * 17) % 3000 FROM generate_series(1, 1 + (i * 31) % 60) j)) END
$$;
CREATE TABLE sups (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO sups SELECT i, sup_filter(i) FROM generate_series(1, 1500) i;
CREATE INDEX sups_gist ON sups USING gist (f);
CREATE INDEX sups_slice ON sups USING bloomslice (f) WITH (pending_limit = 64);
INSERT INTO sups SELECT i, sup_filter(i) FROM generate_series(1501, 1530) i;
CREATE TABLE sups_grow (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO sups_grow SELECT i, sup_filter(i) FROM generate_series(1, 1500) i;
CREATE INDEX sups_grow_gist ON sups_grow USING gist (f);
CREATE INDEX sups_grow_slice ON sups_grow USING bloomslice (f) WITH (pending_limit = 64);
INSERT INTO sups_grow SELECT i, sup_filter(i) FROM generate_series(1501, 1530) i;

-- the probes: keys that are in some filters and in none, and superset
-- queries (subsets of stored filters, empty, of each size)
CREATE TABLE probe_keys (k int8);
INSERT INTO probe_keys SELECT (i * 7907) % 8000 FROM generate_series(1, 30) i;
INSERT INTO probe_keys VALUES (0), (1), (3003), (7000), (123456789);
CREATE TABLE probe_sets (qid int, q bloomfilter);
INSERT INTO probe_sets
SELECT i, bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048, 4096])[1 + i % 4], 3, 'classic'),
	ARRAY(SELECT (i * 13 + j * 17) % 3000 FROM generate_series(1, 1 + i % 3) j))
FROM generate_series(1, 16) i;
INSERT INTO probe_sets VALUES (100, bloom_empty_bits(512, 3, 'classic')),
	(101, (SELECT f FROM sups WHERE id = 10)), (102, (SELECT f FROM sups WHERE id = 1001));

ANALYZE;
