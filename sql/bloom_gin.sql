--
-- GIN index on bloomfilter columns (bloomfilter_gin_ops): col @> key and
-- col @>> filter answered through the index, with exactly the rows (and
-- the errors) a sequential scan gives, over columns that mix every
-- geometry, before and after INSERT, UPDATE, DELETE and VACUUM, with the
-- pending list (fastupdate) on and off.
--
-- The filters and keys are random (setseed makes them the same every run);
-- the checks print row counts and the number of rows that differ between
-- the two plans, which is 0 when the index is right.
--

-- explain_neutral(): EXPLAIN printed alike by every PostgreSQL version
\set ECHO none
\i sql/explain_neutral.inc
\set ECHO all

SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.13);

-- check(q) runs q with the GIN index forced (bitmap scans only: GIN has no
-- plain index scan) and with a sequential scan, and reports whether the
-- first plan used a GIN index, the rows of each, and how many rows differ
-- between the two (always 0).
CREATE FUNCTION check_gin(q text, OUT gin_used boolean,
	OUT index_rows bigint, OUT seq_rows bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	gin_used := false;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line ~ 'Bitmap Index Scan on \w*gin' THEN
			gin_used := true;
		END IF;
	END LOOP;
	EXECUTE 'CREATE TEMP TABLE cmp_index AS ' || q;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	EXECUTE 'CREATE TEMP TABLE cmp_seq AS ' || q;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	SELECT count(*) INTO index_rows FROM cmp_index;
	SELECT count(*) INTO seq_rows FROM cmp_seq;
	SELECT count(*) INTO mismatches
	FROM ((TABLE cmp_index EXCEPT ALL TABLE cmp_seq)
		  UNION ALL (TABLE cmp_seq EXCEPT ALL TABLE cmp_index)) d;
	DROP TABLE cmp_index;
	DROP TABLE cmp_seq;
END $$;

-- error_of(q, use_index): the error q raises with the GIN index forced or
-- with a sequential scan, up to the first colon, and with the family of
-- the stored filter left out (the first offending filter a scan meets
-- depends on its order; the probe's family is kept)
CREATE FUNCTION error_of(q text, use_index boolean) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
	PERFORM set_config('enable_indexscan', use_index::text, true);
	PERFORM set_config('enable_bitmapscan', use_index::text, true);
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || regexp_replace(split_part(SQLERRM, ':', 1),
		'holds keys of family "[^"]*", not', 'holds keys of family "...", not');
END $$;

-- const_probes(tab, keys): one query per key, the key a constant in the
-- query text (so each query plans and discovers the index's geometries on
-- its own); the number of keys whose two plans differ, and their rows
CREATE FUNCTION const_probes(tab text, keys int[], OUT queries int,
	OUT rows bigint, OUT mismatches int)
LANGUAGE plpgsql AS $$
DECLARE
	k int;
	r record;
BEGIN
	queries := 0;
	rows := 0;
	mismatches := 0;
	FOREACH k IN ARRAY keys LOOP
		SELECT * INTO r FROM check_gin(format('SELECT id FROM %I WHERE f @> %s', tab, k));
		queries := queries + 1;
		rows := rows + r.index_rows;
		IF r.mismatches <> 0 OR NOT r.gin_used THEN
			mismatches := mismatches + 1;
		END IF;
	END LOOP;
END $$;

-- ---------------------------------------------------------------------
-- A column of integer filters of every geometry.  rand_filter(r) is one
-- random filter; r picks its kind:
--   self-sized bloom_agg(k) of 1 to 2500 keys (512 to 32768 bits),
--   bloom_agg(k, n, p) for three p (so 3, 7 and 10 hashes),
--   bloom_empty and bloom_empty_bits, classic and blocked, seed 0 and
--   others, sizes that fold onto each other and sizes that do not,
--   a few large filters (2^21 bits, more than the default max_bits),
--   NULL, and empty filters of each constructor.
-- Keys come from 1..6000, so most probes find some filters.
-- ---------------------------------------------------------------------

CREATE FUNCTION rand_keys(n int) RETURNS int[] LANGUAGE sql VOLATILE AS $$
	SELECT array_agg(1 + floor(random() * 6000)::int) FROM generate_series(1, n)
$$;

CREATE FUNCTION rand_filter(r int) RETURNS bloomfilter LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	n int := 1 + floor(random() * 200)::int;
	layouts text[] := ARRAY['classic', 'blocked'];
	lay text := layouts[1 + floor(random() * 2)::int];
	seed int8 := (ARRAY[0, 0, 1, 42, -7])[1 + floor(random() * 5)::int];
BEGIN
	CASE r % 16
		WHEN 0, 1, 2 THEN
			-- self-sized, of many sizes
			RETURN (SELECT bloom_agg(k) FROM unnest(rand_keys((ARRAY[3, 40, 120, 400, 900, 2500])[1 + floor(random() * 6)::int])) k);
		WHEN 3, 4 THEN
			RETURN (SELECT bloom_agg(k, 300, (ARRAY[0.1, 0.01, 0.001])[1 + floor(random() * 3)::int]) FROM unnest(rand_keys(n)) k);
		WHEN 5, 6 THEN
			RETURN bloom_add_all(bloom_empty((ARRAY[100, 200, 400, 1000])[1 + floor(random() * 4)::int],
				(ARRAY[0.05, 0.01])[1 + floor(random() * 2)::int], lay, seed), rand_keys(n));
		WHEN 7, 8 THEN
			RETURN bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048, 4096, 1536, 3000])[1 + floor(random() * 6)::int],
				1 + floor(random() * 6)::int, lay, seed), rand_keys(n));
		WHEN 9 THEN
			-- small filters, nearly full
			RETURN bloom_add_all(bloom_empty_bits(512, 2, lay, seed), rand_keys(n));
		WHEN 10 THEN
			RETURN NULL;
		WHEN 11 THEN
			RETURN (ARRAY[bloom_empty(100), bloom_empty_bits(1024, 3, 'classic', 5),
				(SELECT bloom_agg(k) FROM generate_series(1, 0) k),
				bloom_empty(500, 0.01, 'classic')])[1 + floor(random() * 4)::int];
		WHEN 12 THEN
			-- large: more bits than the index keeps (max_bits)
			IF random() < 0.1 THEN
				RETURN bloom_add_all(bloom_empty_bits(2097152, 3, lay, seed), rand_keys(n));
			END IF;
			RETURN bloom_add_all(bloom_empty_bits(16384, 4, lay, seed), rand_keys(n));
		ELSE
			RETURN (SELECT bloom_agg(k) FROM unnest(rand_keys(n)) k);
	END CASE;
END $$;

-- (autovacuum off: it would flush the pending list at times of its own)
CREATE TABLE gdocs (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO gdocs SELECT i, rand_filter(floor(random() * 16)::int) FROM generate_series(1, 1500) i;

-- the mix: NULL, empty, geometries, the large ones
SELECT count(*) AS filters, count(f) AS not_null,
	count(*) FILTER (WHERE (bloom_info(f)).added = 0) AS empty,
	count(DISTINCT (bloom_info(f)).layout || (bloom_info(f)).bits || '/' ||
		(bloom_info(f)).hashes || '/' || (bloom_info(f)).seed) > 50 AS many_geometries,
	count(DISTINCT (bloom_info(f)).hashes) > 5 AS many_hashes,
	count(DISTINCT (bloom_info(f)).seed) AS seeds,
	count(DISTINCT (bloom_info(f)).layout) AS layouts,
	count(*) FILTER (WHERE (bloom_info(f)).bits > 1048576) > 0 AS large
FROM gdocs;

-- the probes: 60 random keys, a few outside the key range, NULL
CREATE TABLE probes AS
SELECT 1 + floor(random() * 6000)::int AS k FROM generate_series(1, 60)
UNION ALL VALUES (0), (-5), (7000), (NULL);

-- fastupdate off: every insert goes into the index's tree at once
CREATE INDEX gdocs_gin ON gdocs USING gin (f) WITH (fastupdate = off);

-- every way to write a probe goes through the index: the operator, its
-- commutator, the function, a key of another integer type, a parameter of
-- a nested loop
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM gdocs WHERE f @> 3000;
EXPLAIN (COSTS OFF) SELECT id FROM gdocs WHERE 3000::int8 <@ f;
EXPLAIN (COSTS OFF) SELECT id FROM gdocs WHERE bloom_contains(f, 3000::int2);
SELECT * FROM explain_neutral($$SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM gdocs WHERE f @> p.k) d$$);
RESET enable_seqscan;

-- check_all(tab, all_forms): the checks run after each change: the probe
-- (every form of it when all_forms) with the index rescanned for each key
-- of probes (a nested loop), and a constant query for each of 15 keys
CREATE FUNCTION check_all(tab text, all_forms boolean DEFAULT false)
RETURNS TABLE (probe text, gin_used boolean,
	index_rows bigint, seq_rows bigint, mismatches bigint)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	c record;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE f @> p.k) d',
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE p.k::int8 <@ f) d',
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE bloom_contains(f, p.k::int2)) d']
	LOOP
		CONTINUE WHEN probe IS NOT NULL AND NOT all_forms;
		SELECT * INTO c FROM check_gin(format(q, tab));
		probe := substring(q FROM 'WHERE (.*)\)');
		gin_used := c.gin_used;
		index_rows := c.index_rows;
		seq_rows := c.seq_rows;
		mismatches := c.mismatches;
		RETURN NEXT;
	END LOOP;
	SELECT * INTO c FROM const_probes(tab, ARRAY(SELECT k FROM probes WHERE k IS NOT NULL LIMIT 15));
	probe := '15 constant keys';
	gin_used := c.mismatches = 0;
	index_rows := c.rows;
	seq_rows := NULL;
	mismatches := c.mismatches;
	RETURN NEXT;
END $$;

SELECT * FROM check_all('gdocs', true);

-- a query's rows are found through the bits of the key, not by listing
-- every filter: far fewer candidates than filters
SET enable_seqscan = off;
CREATE FUNCTION gin_candidates(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ 'Bitmap Index Scan' THEN
			RETURN substring(line FROM 'actual rows=(\d+)')::bigint;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;
SELECT gin_candidates('SELECT id FROM gdocs WHERE f @> 3000') < 200 AS selective;
RESET enable_seqscan;

-- changes with fastupdate off: inserts of every kind, updates that add a
-- key and that replace a filter by one of another geometry, NULL to
-- filter and back, deletes, VACUUM
INSERT INTO gdocs SELECT i, rand_filter(floor(random() * 16)::int) FROM generate_series(1501, 1800) i;
UPDATE gdocs SET f = f + 3000 WHERE id % 11 = 0 AND f IS NOT NULL;
UPDATE gdocs SET f = rand_filter(floor(random() * 16)::int) WHERE id % 13 = 0;
UPDATE gdocs SET f = NULL WHERE id % 17 = 0;
UPDATE gdocs SET f = rand_filter(0) WHERE id % 34 = 0;
SELECT * FROM check_all('gdocs');
DELETE FROM gdocs WHERE id % 5 = 0;
SELECT * FROM check_all('gdocs');
VACUUM gdocs;
SELECT * FROM check_all('gdocs');

-- ---------------------------------------------------------------------
-- The pending list: fastupdate = on with the smallest
-- gin_pending_list_limit (64 kB), so that inserts are queued and flushed
-- into the tree as the list fills; queries read both.
-- ---------------------------------------------------------------------

DROP INDEX gdocs_gin;
CREATE INDEX gdocs_gin ON gdocs USING gin (f) WITH (fastupdate = on, gin_pending_list_limit = 64);
INSERT INTO gdocs SELECT i, rand_filter(floor(random() * 16)::int) FROM generate_series(1801, 2200) i;
UPDATE gdocs SET f = f + 4321 WHERE id % 7 = 0 AND f IS NOT NULL;
UPDATE gdocs SET f = rand_filter(floor(random() * 16)::int) WHERE id % 19 = 0;
SELECT * FROM check_all('gdocs');
DELETE FROM gdocs WHERE id % 9 = 0;
SELECT * FROM check_all('gdocs');
VACUUM gdocs;
SELECT * FROM check_all('gdocs');

-- a large pending list that is not flushed: new geometries and keys are
-- only in the pending list when the queries run; then VACUUM moves them
-- into the tree
ALTER INDEX gdocs_gin SET (gin_pending_list_limit = 16384);
INSERT INTO gdocs SELECT i, rand_filter(floor(random() * 16)::int) FROM generate_series(2201, 2300) i;
INSERT INTO gdocs SELECT 5000 + i, bloom_add_all(bloom_empty_bits(2560, 5, 'classic', 99), rand_keys(50))
FROM generate_series(1, 30) i;
UPDATE gdocs SET f = f + 5555 WHERE id % 23 = 0 AND f IS NOT NULL;
SELECT * FROM check_all('gdocs');
SELECT gin_clean_pending_list('gdocs_gin') > 0 AS pending_list_was_used;
SELECT * FROM check_all('gdocs');

-- ---------------------------------------------------------------------
-- max_bits: filters of more bits are indexed by their geometry only and
-- rechecked by every query.  With the smallest values every large filter
-- takes that path.
-- ---------------------------------------------------------------------

DROP INDEX gdocs_gin;
CREATE INDEX gdocs_gin ON gdocs USING gin (f bloomfilter_gin_ops (max_bits = 2048));
SELECT * FROM check_all('gdocs');
SET enable_seqscan = off;
SELECT gin_candidates('SELECT id FROM gdocs WHERE f @> 3000') >
	(SELECT count(*) FROM gdocs WHERE (bloom_info(f)).bits > 2048) AS large_ones_are_candidates;
RESET enable_seqscan;
DROP INDEX gdocs_gin;
CREATE INDEX gdocs_gin ON gdocs USING gin (f bloomfilter_gin_ops (max_bits = 512));
SELECT * FROM check_all('gdocs');
CREATE INDEX ON gdocs USING gin (f bloomfilter_gin_ops (max_bits = 0));
CREATE INDEX ON gdocs USING gin (f bloomfilter_gin_ops (max_bits = 100000000));

-- ---------------------------------------------------------------------
-- Key families: a column of integer, text, numeric, float and uuid
-- filters.  A probe of one family meets filters of the others, where a
-- sequential scan raises an ERROR: the index raises the same one (it does
-- not skip the filters of other families).  Once the other families are
-- deleted, the probe works with both plans.
-- ---------------------------------------------------------------------

CREATE TABLE fdocs (id int, fam text, f bloomfilter);
INSERT INTO fdocs
SELECT i, fam, CASE fam
		WHEN 'int' THEN bloom_add_all(bloom_empty(100), rand_keys(20))
		WHEN 'text' THEN bloom_add_all(bloom_empty(100), ARRAY(SELECT 'k' || k FROM unnest(rand_keys(20)) k))
		WHEN 'numeric' THEN bloom_add_all(bloom_empty(100), ARRAY(SELECT k / 4.0 FROM unnest(rand_keys(20)) k))
		WHEN 'float' THEN bloom_add_all(bloom_empty(100, 0.01, 'classic'), ARRAY(SELECT k * 0.5::float8 FROM unnest(rand_keys(20)) k))
		ELSE bloom_add_all(bloom_empty(100), ARRAY(SELECT md5(k::text)::uuid FROM unnest(rand_keys(20)) k)) END
FROM generate_series(1, 1000) i,
	LATERAL (SELECT (ARRAY['int', 'text', 'numeric', 'float', 'uuid'])[1 + (i % 5)] AS fam) x;
INSERT INTO fdocs VALUES (2001, 'none', bloom_empty(100)), (2002, 'null', NULL);
CREATE INDEX fdocs_gin ON fdocs USING gin (f);

SELECT q, error_of(q, true) AS with_index, error_of(q, false) AS with_seqscan
FROM (VALUES ('SELECT count(*) FROM fdocs WHERE f @> 3000'),
			 ('SELECT count(*) FROM fdocs WHERE f @> ''k3000''::text'),
			 ('SELECT count(*) FROM fdocs WHERE f @> 750.0'),
			 ('SELECT count(*) FROM fdocs WHERE f @> md5(''3000'')::uuid'),
			 ('SELECT count(*) FROM fdocs WHERE bloom_contains(f, 1500::float8)')) v(q);

-- only the int filters and the ones of no family left (deleted, not yet
-- vacuumed: the index still holds the others)
DELETE FROM fdocs WHERE fam NOT IN ('int', 'none', 'null');
SELECT q, error_of(q, true) AS with_index, error_of(q, false) AS with_seqscan
FROM (VALUES ('SELECT count(*) FROM fdocs WHERE f @> 3000'),
			 ('SELECT count(*) FROM fdocs WHERE f @> ''k3000''::text')) v(q);
SELECT * FROM check_all('fdocs', true);
VACUUM fdocs;
SELECT * FROM check_all('fdocs', true);

-- text keys: the @>(bloomfilter, text) operator, text, varchar and bpchar
CREATE TABLE tdocs AS
SELECT i AS id, bloom_add_all(CASE WHEN i % 3 = 0 THEN bloom_empty(50) ELSE bloom_empty_bits(1024, 4, 'classic', 3) END,
	ARRAY(SELECT 'k' || k FROM unnest(rand_keys(1 + i % 40)) k)) AS f
FROM generate_series(1, 1500) i;
CREATE INDEX tdocs_gin ON tdocs USING gin (f);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM tdocs WHERE f @> 'k3000';
EXPLAIN (COSTS OFF) SELECT id FROM tdocs WHERE 'k3000' <@ f;
RESET enable_seqscan;
SELECT * FROM check_gin('SELECT p.k, t.id FROM probes p, LATERAL (SELECT id FROM tdocs WHERE f @> (''k'' || p.k)) t');
SELECT * FROM check_gin('SELECT p.k, t.id FROM probes p, LATERAL (SELECT id FROM tdocs WHERE (''k'' || p.k)::varchar <@ f) t');
SELECT * FROM check_gin('SELECT p.k, t.id FROM probes p, LATERAL (SELECT id FROM tdocs WHERE bloom_contains(f, (''k'' || p.k)::char(8))) t');

-- ---------------------------------------------------------------------
-- An index that starts empty, and a prepared statement whose generic plan
-- is made before the geometries it later meets exist: each execution
-- finds the filters added since, of new geometries too.
-- ---------------------------------------------------------------------

CREATE TABLE pdocs (id int, f bloomfilter);
CREATE INDEX pdocs_gin ON pdocs USING gin (f);
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
-- (the rows sorted below the aggregate: an ORDER BY in the aggregate is
-- planned as a Sort from PostgreSQL 16, done inside the aggregate before)
PREPARE probe(int) AS
SELECT array_agg(id) FROM (SELECT id FROM pdocs WHERE f @> $1 ORDER BY id) s;
EXPLAIN (COSTS OFF) EXECUTE probe(7);
EXECUTE probe(7);
INSERT INTO pdocs VALUES (1, bloom_empty(100) + 7), (2, NULL), (3, bloom_empty(100));
EXECUTE probe(7);
INSERT INTO pdocs VALUES (4, bloom_empty_bits(4096, 2, 'classic', 9) + 7), (5, bloom_empty_bits(4096, 2, 'classic', 9) + 8);
EXECUTE probe(7);
UPDATE pdocs SET f = bloom_empty(1000, 0.001, 'classic', 3) + 7 WHERE id = 3;
EXECUTE probe(7);
DELETE FROM pdocs WHERE id = 1;
EXECUTE probe(7);
DEALLOCATE probe;
RESET enable_seqscan;
RESET plan_cache_mode;

-- ---------------------------------------------------------------------
-- Superset queries, col @>> q, q <<@ col and bloom_contains_filter(col, q),
-- on columns whose filters can be compared with q: one hashing (layout,
-- hashes, seed, family), sizes that fold onto each other; NULL and empty
-- filters among them.  The query filters have the stored sizes, smaller
-- and larger ones by powers of two, 0 to 6 keys (0: every filter holds
-- it).  A query of another geometry is the sequential scan's ERROR.
-- ---------------------------------------------------------------------

CREATE TABLE sup_classic (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO sup_classic
SELECT i, CASE WHEN i % 50 = 0 THEN NULL
	ELSE bloom_add_all(bloom_empty_bits(512 << floor(random() * 4)::int, 3, 'classic', 1),
		ARRAY(SELECT floor(random() * 400)::int FROM generate_series(1, floor(random() * 80)::int))) END
FROM generate_series(1, 1200) i;
CREATE TABLE sup_blocked (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO sup_blocked
SELECT i, CASE WHEN i % 50 = 0 THEN NULL
	ELSE bloom_add_all(bloom_empty_bits(1024 << floor(random() * 4)::int, 5, 'blocked', 0),
		ARRAY(SELECT floor(random() * 400)::int FROM generate_series(1, floor(random() * 120)::int))) END
FROM generate_series(1, 1200) i;
-- many stored filters of one key: superset queries of one key find them
INSERT INTO sup_classic SELECT 3000 + i, bloom_empty_bits(1024, 3, 'classic', 1) + 7 FROM generate_series(1, 20) i;
INSERT INTO sup_blocked SELECT 3000 + i, bloom_empty_bits(2048, 5, 'blocked', 0) + 7 FROM generate_series(1, 20) i;
CREATE INDEX sup_classic_gin ON sup_classic USING gin (f);
CREATE INDEX sup_blocked_gin ON sup_blocked USING gin (f) WITH (fastupdate = on, gin_pending_list_limit = 64);

CREATE TABLE squeries AS
SELECT q, t, bloom_add_all(CASE t
		WHEN 'sup_classic' THEN bloom_empty_bits(256 << (q % 6), 3, 'classic', 1)
		ELSE bloom_empty_bits(512 << (q % 6), 5, 'blocked', 0) END,
	ARRAY(SELECT floor(random() * 400)::int FROM generate_series(1, q % 7))) AS qf
FROM generate_series(1, 60) q, (VALUES ('sup_classic'), ('sup_blocked')) v(t);
INSERT INTO squeries VALUES
	(200, 'sup_classic', bloom_empty_bits(1024, 3, 'classic', 1) + 7),
	(200, 'sup_blocked', bloom_empty_bits(4096, 5, 'blocked', 0) + 7);

SET enable_seqscan = off;
SELECT * FROM explain_neutral($$SELECT id FROM sup_classic WHERE f @>> (SELECT qf FROM squeries WHERE q = 200 AND t = 'sup_classic')$$);
SELECT * FROM explain_neutral($$SELECT id FROM sup_classic WHERE bloom_contains_filter(f, (SELECT qf FROM squeries WHERE q = 200 AND t = 'sup_classic'))$$);
SELECT * FROM explain_neutral($$SELECT id FROM sup_classic WHERE (SELECT qf FROM squeries WHERE q = 200 AND t = 'sup_classic') <<@ f$$);
RESET enable_seqscan;

CREATE FUNCTION check_superset() RETURNS TABLE (tab text, probe text, gin_used boolean,
	index_rows bigint, seq_rows bigint, mismatches bigint)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	c record;
BEGIN
	FOREACH tab IN ARRAY ARRAY['sup_classic', 'sup_blocked'] LOOP
		FOREACH q IN ARRAY ARRAY[
			'SELECT s.q, d.id FROM squeries s, LATERAL (SELECT id FROM %1$I WHERE f @>> s.qf) d WHERE s.t = %1$L',
			'SELECT s.q, d.id FROM squeries s, LATERAL (SELECT id FROM %1$I WHERE bloom_contains_filter(f, s.qf)) d WHERE s.t = %1$L',
			'SELECT s.q, d.id FROM squeries s, LATERAL (SELECT id FROM %1$I WHERE s.qf <<@ f) d WHERE s.t = %1$L']
		LOOP
			SELECT * INTO c FROM check_gin(format(q, tab));
			probe := substring(q FROM 'WHERE (.*)\) d');
			gin_used := c.gin_used;
			index_rows := c.index_rows;
			seq_rows := c.seq_rows;
			mismatches := c.mismatches;
			RETURN NEXT;
		END LOOP;
	END LOOP;
END $$;

SELECT * FROM check_superset();
-- a constant query (no nested loop) and an empty one
SELECT * FROM check_gin('SELECT id FROM sup_classic WHERE f @>> bloom_empty_bits(2048, 3, ''classic'', 1) + 7 + 8');
SELECT * FROM check_gin('SELECT id FROM sup_blocked WHERE f @>> bloom_empty_bits(1024, 5, ''blocked'', 0)');

-- changes, then the same queries
INSERT INTO sup_classic
SELECT 4000 + i, bloom_add_all(bloom_empty_bits(512 << floor(random() * 4)::int, 3, 'classic', 1),
	ARRAY(SELECT floor(random() * 400)::int FROM generate_series(1, floor(random() * 80)::int)))
FROM generate_series(1, 300) i;
INSERT INTO sup_blocked
SELECT 4000 + i, bloom_add_all(bloom_empty_bits(1024 << floor(random() * 4)::int, 5, 'blocked', 0),
	ARRAY(SELECT floor(random() * 400)::int FROM generate_series(1, floor(random() * 120)::int)))
FROM generate_series(1, 300) i;
UPDATE sup_classic SET f = f + 7 WHERE id % 10 = 1;
UPDATE sup_blocked SET f = f + 7 WHERE id % 10 = 1;
DELETE FROM sup_classic WHERE id % 4 = 0;
DELETE FROM sup_blocked WHERE id % 4 = 0;
SELECT * FROM check_superset();
VACUUM sup_classic;
VACUUM sup_blocked;
SELECT * FROM check_superset();

-- query filters the stored ones cannot be compared with: the same ERROR
-- with either plan (other hashes, other layout, other seed, a size that
-- does not fold, another key family; a column of mixed geometries)
SELECT q, error_of(q, true) AS with_index, error_of(q, false) AS with_seqscan
FROM (VALUES ('SELECT count(*) FROM sup_classic WHERE f @>> bloom_empty_bits(1024, 4, ''classic'', 1) + 7'),
			 ('SELECT count(*) FROM sup_classic WHERE f @>> bloom_empty_bits(1024, 3, ''blocked'', 1) + 7'),
			 ('SELECT count(*) FROM sup_classic WHERE f @>> bloom_empty_bits(1024, 3, ''classic'', 2) + 7'),
			 ('SELECT count(*) FROM sup_classic WHERE f @>> bloom_empty_bits(1536, 3, ''classic'', 1) + 7'),
			 ('SELECT count(*) FROM sup_classic WHERE f @>> bloom_empty_bits(1024, 3, ''classic'', 1) + ''x''::text'),
			 ('SELECT count(*) FROM sup_blocked WHERE f @>> bloom_empty_bits(2048, 5, ''classic'', 0) + 7'),
			 ('SELECT count(*) FROM gdocs WHERE f @>> bloom_empty(100) + 7')) v(q);

-- A box may name any index.  The discovery reads one only if the user may
-- read its table: otherwise every filter is a candidate (the guard), so the
-- answers stay right and the other table's geometries stay unknown.
CREATE TABLE gsecret (id int, f bloomfilter);
INSERT INTO gsecret SELECT i, bloom_empty(1000, 0.01, 'blocked', 4242) + i FROM generate_series(1, 50) i;
CREATE INDEX gsecret_gin ON gsecret USING gin (f);
REVOKE ALL ON gsecret FROM PUBLIC;
CREATE ROLE regress_gin_reader;
CREATE TABLE gmine (id int, f bloomfilter);
INSERT INTO gmine SELECT i, bloom_empty(1000, 0.01, 'blocked', 4242) + i FROM generate_series(1, 200) i;
CREATE INDEX gmine_gin ON gmine USING gin (f);
GRANT SELECT ON gmine TO regress_gin_reader;
GRANT EXECUTE ON FUNCTION gin_candidates(text) TO regress_gin_reader;
SET enable_seqscan = off;
-- naming the readable index: the discovery plans the geometry
SELECT gin_candidates('SELECT id FROM gmine WHERE f @> gbloom_index_key(7, ''gmine_gin''::regclass, 1)') AS own_index_candidates;
SET ROLE regress_gin_reader;
SELECT count(*) FROM gmine WHERE f @> gbloom_index_key(7, 'gsecret_gin'::regclass, 1);
SELECT gin_candidates('SELECT id FROM gmine WHERE f @> gbloom_index_key(7, ''gsecret_gin''::regclass, 1)') AS candidates_without_discovery;
SELECT count(*) FROM gmine WHERE f @> 7;
RESET ROLE;
-- the session's cache of discoveries does not answer for another role:
-- the owner discovers the secret index, then the reader names it again
SELECT count(*) FROM gsecret WHERE f @> 7;
SET ROLE regress_gin_reader;
SELECT gin_candidates('SELECT id FROM gmine WHERE f @> gbloom_index_key(7, ''gsecret_gin''::regclass, 1)') AS candidates_without_discovery;
RESET ROLE;
RESET enable_seqscan;
DROP TABLE gsecret, gmine;
REVOKE EXECUTE ON FUNCTION gin_candidates(text) FROM regress_gin_reader;
DROP ROLE regress_gin_reader;

-- the operator class is the type's default for GIN and passes amvalidate
SELECT opcname, opcdefault, amvalidate(oid) FROM pg_opclass
WHERE opcname = 'bloomfilter_gin_ops';

DROP TABLE gdocs, probes, fdocs, tdocs, pdocs, sup_classic, sup_blocked, squeries;
DROP FUNCTION check_all(text, boolean);
DROP FUNCTION check_superset();
DROP FUNCTION const_probes(text, int[]);
DROP FUNCTION check_gin(text);
DROP FUNCTION error_of(text, boolean);
DROP FUNCTION gin_candidates(text);
DROP FUNCTION rand_filter(int);
DROP FUNCTION rand_keys(int);
