--
-- bloomslice index (bloomfilter_slice_ops): col @> key and col @>> filter
-- through the index give exactly the rows (and the errors) of a sequential
-- scan, over a column mixing geometries (sizes that fold and do not,
-- layouts, hashes, seeds, families, NULL, empty, larger than max_bits),
-- before and after INSERT, UPDATE, DELETE and VACUUM, with the pending
-- area empty, half full and flushed when full.  Random data, fixed seed;
-- the checks print row counts and the rows that differ (always 0).
--

SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.2);

-- compare_plans() and error_of(): the index-vs-sequential-scan helpers
\set ECHO none
\i sql/compare_plans.inc
\set ECHO all

CREATE FUNCTION rand_keys(n int) RETURNS int[] LANGUAGE sql VOLATILE AS $$
	SELECT array_agg(1 + floor(random() * 6000)::int) FROM generate_series(1, n)
$$;

CREATE FUNCTION rand_filter(r int) RETURNS bloomfilter LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	n int := 1 + floor(random() * 200)::int;
	lay text := (ARRAY['classic', 'blocked'])[1 + floor(random() * 2)::int];
	seed int8 := (ARRAY[0, 0, 1, 42, -7])[1 + floor(random() * 5)::int];
BEGIN
	CASE r % 14
		WHEN 0, 1, 2 THEN
			RETURN (SELECT bloom_agg(k) FROM unnest(rand_keys((ARRAY[3, 40, 120, 400, 900])[1 + floor(random() * 5)::int])) k);
		WHEN 3, 4 THEN
			RETURN (SELECT bloom_agg(k, 300, (ARRAY[0.1, 0.01, 0.001])[1 + floor(random() * 3)::int]) FROM unnest(rand_keys(n)) k);
		WHEN 5, 6 THEN
			RETURN bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048, 4096, 1536, 3000])[1 + floor(random() * 6)::int],
				1 + floor(random() * 6)::int, lay, seed), rand_keys(n));
		WHEN 7 THEN
			RETURN bloom_add_all(bloom_empty_bits(512, 2, lay, seed), rand_keys(n));
		WHEN 8 THEN
			RETURN NULL;
		WHEN 9 THEN
			RETURN (ARRAY[bloom_empty(100), bloom_empty_bits(1024, 3, 'classic', 5),
				bloom_empty(500, 0.01, 'classic')])[1 + floor(random() * 3)::int];
		WHEN 10 THEN
			-- more bits than max_bits (8192 below): not sliced, rechecked
			RETURN bloom_add_all(bloom_empty_bits(16384, 4, lay, seed), rand_keys(n));
		ELSE
			RETURN bloom_add_all(bloom_empty_bits(1024, 3, lay, 0), rand_keys(n));
	END CASE;
END $$;
-- random filters, some past their capacity on purpose: the WARNING that says
-- so would come and go with the random draw
ALTER FUNCTION rand_filter(int) SET client_min_messages = error;

CREATE TABLE sdocs (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO sdocs SELECT i, rand_filter(floor(random() * 14)::int) FROM generate_series(1, 1500) i;
SELECT count(*) AS filters, count(f) AS not_null,
	count(*) FILTER (WHERE (bloom_info(f)).added = 0) AS empty,
	count(DISTINCT (bloom_info(f)).layout || (bloom_info(f)).bits || '/' ||
		(bloom_info(f)).hashes || '/' || (bloom_info(f)).seed) > 30 AS many_geometries
FROM sdocs;

CREATE TABLE probes AS
SELECT 1 + floor(random() * 6000)::int AS k FROM generate_series(1, 40)
UNION ALL VALUES (0), (7000), (NULL);

CREATE INDEX sdocs_bs ON sdocs USING bloomslice (f) WITH (max_bits = 8192, pending_limit = 64);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'bloomfilter_slice_ops';

SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE f @> 3000;
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE 3000::int8 <@ f;
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE bloom_contains(f, 3000::int2);
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE bloom_contains_filter(f, bloom_empty_bits(1024, 3));
-- as a bitmap scan the table evaluates the probe again on every row: the
-- planner keeps a clause whose index condition it derived as a Filter there
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE f @> 3000;
RESET enable_indexscan;
RESET enable_seqscan;

CREATE FUNCTION check_all(tab text)
RETURNS TABLE (probe text, used boolean, index_rows bigint, seq_rows bigint, mismatches bigint)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	c record;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE f @> p.k) d',
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE bloom_contains(f, p.k::int8)) d',
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE f @> p.k AND f @> p.k + 1) d',
		-- each key's first two rows (in heap order whatever the plan): a
		-- plain index scan stopped early, then scanned again
		'SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM %I WHERE f @> p.k LIMIT 2) d']
	LOOP
		SELECT * INTO c FROM compare_plans(format(q, tab), 'Index Scan (using|on) \w*_bs');
		probe := substring(q FROM 'WHERE (.*)\)');
		used := c.index_used;
		index_rows := c.index_rows;
		seq_rows := c.seq_rows;
		mismatches := c.differences;
		RETURN NEXT;
	END LOOP;
END $$;

-- pending area empty (just built)
SELECT * FROM check_all('sdocs');

-- pending area half full (30 small inserts: less than 64 kB)
INSERT INTO sdocs SELECT 2000 + i, rand_filter(floor(random() * 14)::int) FROM generate_series(1, 30) i;
SELECT * FROM check_all('sdocs');

-- flushed when full (each insert its own statement adds to the pending area)
INSERT INTO sdocs SELECT 3000 + i, rand_filter(floor(random() * 14)::int) FROM generate_series(1, 400) i;
SELECT * FROM check_all('sdocs');

-- UPDATE, DELETE, VACUUM
UPDATE sdocs SET f = rand_filter(floor(random() * 14)::int) WHERE id % 7 = 0;
DELETE FROM sdocs WHERE id % 5 = 0;
SELECT * FROM check_all('sdocs');
VACUUM sdocs;
SELECT * FROM check_all('sdocs');
INSERT INTO sdocs SELECT 5000 + i, rand_filter(floor(random() * 14)::int) FROM generate_series(1, 200) i;
SELECT * FROM check_all('sdocs');

-- a column with text filters too: a probe with an integer raises the
-- family error for visible rows only, with either plan
CREATE TABLE mdocs (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO mdocs SELECT i, (SELECT bloom_agg(k) FROM unnest(rand_keys(50)) k) FROM generate_series(1, 300) i;
CREATE INDEX mdocs_bs ON mdocs USING bloomslice (f);
INSERT INTO mdocs VALUES (1000, (SELECT bloom_agg(k::text) FROM generate_series(1, 20) k));
SELECT error_of('SELECT count(*) FROM mdocs WHERE f @> 3000', true, true) AS index_error,
	error_of('SELECT count(*) FROM mdocs WHERE f @> 3000', false, true) AS seq_error;
DELETE FROM mdocs WHERE id = 1000;
SELECT error_of('SELECT count(*) FROM mdocs WHERE f @> 3000', true, true) AS index_after_delete,
	error_of('SELECT count(*) FROM mdocs WHERE f @> 3000', false, true) AS seq_after_delete;
SELECT * FROM check_all('mdocs');

-- costs: this table is small and mixes about a hundred geometries (a
-- block each to read), so a sequential scan is cheaper; a condition the
-- index cannot use never takes it
ANALYZE sdocs;
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE f @> 3000;
EXPLAIN (COSTS OFF) SELECT id FROM sdocs WHERE bloom_cardinality(f) > 5;

-- REINDEX, and REINDEX CONCURRENTLY
REINDEX INDEX sdocs_bs;
SELECT * FROM check_all('sdocs');
REINDEX INDEX CONCURRENTLY sdocs_bs;
SELECT * FROM check_all('sdocs');

-- superset queries (f @>> q, bloom_contains_filter): one layout, k and
-- seed per table (other geometries raise the sequential scan's error),
-- sizes that fold onto each other, empty and NULL filters, q larger and
-- smaller than f
CREATE FUNCTION sup_filter(lay text) RETURNS bloomfilter LANGUAGE sql VOLATILE AS $$
	SELECT CASE WHEN random() < 0.05 THEN NULL
		WHEN random() < 0.05 THEN bloom_empty_bits(1024, 3, lay)
		ELSE bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048, 4096])[1 + floor(random() * 4)::int], 3, lay),
			rand_keys(1 + floor(random() * 60)::int)) END
$$;
CREATE TABLE sup_c (id int, f bloomfilter) WITH (autovacuum_enabled = off);
CREATE TABLE sup_b (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO sup_c SELECT i, sup_filter('classic') FROM generate_series(1, 1200) i;
INSERT INTO sup_b SELECT i, sup_filter('blocked') FROM generate_series(1, 1200) i;
CREATE TABLE qs AS
SELECT i AS qid, lay, bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048, 4096])[1 + i % 4], 3, lay),
	(SELECT array_agg(k) FROM generate_series(1, 1 + i % 3) j, LATERAL (SELECT 1 + floor(random() * 6000)::int + j * 0 AS k) r)) AS q
FROM generate_series(1, 24) i, unnest(ARRAY['classic', 'blocked']) lay;
CREATE INDEX sup_c_bs ON sup_c USING bloomslice (f) WITH (pending_limit = 64);
CREATE INDEX sup_b_bs ON sup_b USING bloomslice (f) WITH (pending_limit = 64);
-- supersets of a stored filter: the filter itself is one
INSERT INTO qs SELECT 100 + id, 'classic', f FROM sup_c WHERE f IS NOT NULL AND id <= 6;

CREATE FUNCTION check_sup()
RETURNS TABLE (query text, used boolean, index_rows bigint, seq_rows bigint, mismatches bigint)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	c record;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT q.qid, d.id FROM qs q, LATERAL (SELECT id FROM sup_c WHERE f @>> q.q) d WHERE q.lay = ''classic''',
		'SELECT q.qid, d.id FROM qs q, LATERAL (SELECT id FROM sup_b WHERE f @>> q.q) d WHERE q.lay = ''blocked''',
		'SELECT q.qid, d.id FROM qs q, LATERAL (SELECT id FROM sup_c WHERE bloom_contains_filter(f, q.q)) d WHERE q.lay = ''classic''']
	LOOP
		SELECT * INTO c FROM compare_plans(q, 'Index Scan (using|on) \w*_bs');
		query := substring(q FROM 'WHERE (.*)\)');
		used := c.index_used;
		index_rows := c.index_rows;
		seq_rows := c.seq_rows;
		mismatches := c.differences;
		RETURN NEXT;
	END LOOP;
END $$;
SELECT * FROM check_sup();
INSERT INTO sup_c SELECT 2000 + i, sup_filter('classic') FROM generate_series(1, 50) i;
INSERT INTO sup_b SELECT 2000 + i, sup_filter('blocked') FROM generate_series(1, 50) i;
DELETE FROM sup_c WHERE id % 4 = 0;
SELECT * FROM check_sup();
VACUUM sup_c;
VACUUM sup_b;
SELECT * FROM check_sup();
-- a q of another k: the sequential scan's error, with either plan
SELECT error_of('SELECT count(*) FROM sup_c WHERE f @>> bloom_empty_bits(1024, 4)', true) AS index_error,
	error_of('SELECT count(*) FROM sup_c WHERE f @>> bloom_empty_bits(1024, 4)', false) AS seq_error;

DROP TABLE sdocs, mdocs, probes, qs, sup_c, sup_b;
DROP FUNCTION check_sup(), sup_filter(text);
DROP FUNCTION check_all(text), compare_plans(text, text), error_of(text, boolean, boolean), rand_filter(int), rand_keys(int);
