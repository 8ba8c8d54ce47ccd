--
-- bloomslice scans repeated in one session.  A scan finds each index page
-- through the buffer this backend last read it from (a hint that
-- ReadRecentBuffer checks), and reads the next block's head and prefetches
-- its slice pages while it reads a block.  Its answers must stay a
-- sequential scan's when the index's storage changes under those hints:
-- REINDEX, TRUNCATE and refill (committed and rolled back), VACUUM FULL,
-- DELETE and VACUUM with new rows pending, and for a temporary table
-- (local buffers: no hints).  Fixed data; the checks print how many keys'
-- answers differ (always 0).
--

SET max_parallel_workers_per_gather = 0;

-- compare_plans(): the index-vs-sequential-scan helper
\set ECHO none
\i sql/compare_plans.inc
\set ECHO all

-- filter i holds 40 keys of 0..2999; 2,000 filters of one geometry: four
-- blocks
CREATE FUNCTION ss_filter(i int, salt int) RETURNS bloomfilter
LANGUAGE sql IMMUTABLE AS $$
	SELECT bloom_add_all(bloom_empty_bits(2048, 5),
		ARRAY(SELECT (i * 7 + j * 13 + salt) % 3000 FROM generate_series(1, 40) j))
$$;

CREATE TABLE ss (id int, f bloomfilter);
INSERT INTO ss SELECT i, ss_filter(i, 0) FROM generate_series(1, 2000) i;
CREATE INDEX ss_bs ON ss USING bloomslice (f);

-- ss_check(tab): the index is used, as a plain index scan and as a bitmap
-- scan; for keys 0, 7, .. 2996, count(*) of f @> k through each and by a
-- sequential scan, and of f @>> q for three stored filters: queries run,
-- rows found, queries whose counts differ between the three ways
CREATE FUNCTION ss_check(tab text, OUT used boolean, OUT probes int,
	OUT rows_found bigint, OUT differ int)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	way text;
	qs text[] := '{}';
	plan text;
	a bigint;
	b bigint;
	c bigint;
BEGIN
	FOR k IN 0 .. 2999 BY 7 LOOP
		qs := qs || format('SELECT count(*) FROM %I WHERE f @> %s', tab, k);
	END LOOP;
	FOR i IN 1 .. 3 LOOP
		qs := qs || format('SELECT count(*) FROM %I WHERE f @>> %L::bloomfilter', tab,
			ss_filter(i * 300, 0));
	END LOOP;
	used := true;
	FOREACH way IN ARRAY ARRAY['Index Scan using', 'Bitmap Index Scan on'] LOOP
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('enable_indexscan', (way = 'Index Scan using')::text, true);
		PERFORM set_config('enable_bitmapscan', (way <> 'Index Scan using')::text, true);
		plan := '';
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || qs[1] LOOP
			plan := plan || line;
		END LOOP;
		used := used AND plan ~ (way || ' ' || tab || '_bs');
	END LOOP;
	probes := array_length(qs, 1);
	rows_found := 0;
	differ := 0;
	FOREACH line IN ARRAY qs LOOP
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('enable_indexscan', 'on', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		EXECUTE line INTO a;
		PERFORM set_config('enable_indexscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'on', true);
		EXECUTE line INTO c;
		PERFORM set_config('enable_seqscan', 'on', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		EXECUTE line INTO b;
		rows_found := rows_found + a;
		IF a IS DISTINCT FROM b OR c IS DISTINCT FROM b THEN
			differ := differ + 1;
		END IF;
	END LOOP;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
END $$;

-- first scans fill the hints, the next ones use them
SELECT * FROM ss_check('ss');
SELECT * FROM ss_check('ss');

-- a new relfilenode under the same index
REINDEX INDEX ss_bs;
SELECT * FROM ss_check('ss');

-- TRUNCATE and other rows, rolled back: the old storage comes back
BEGIN;
TRUNCATE ss;
INSERT INTO ss SELECT i, ss_filter(i, 1) FROM generate_series(1, 1500) i;
SELECT * FROM ss_check('ss');
ROLLBACK;
SELECT * FROM ss_check('ss');

-- and committed
TRUNCATE ss;
INSERT INTO ss SELECT i, ss_filter(i, 2) FROM generate_series(1, 2500) i;
SELECT * FROM ss_check('ss');

VACUUM FULL ss;
SELECT * FROM ss_check('ss');

-- dead rows removed from their blocks, new rows pending
DELETE FROM ss WHERE id % 3 = 0;
VACUUM ss;
INSERT INTO ss SELECT i, ss_filter(i, 3) FROM generate_series(3001, 3400) i;
SELECT * FROM ss_check('ss');

-- local buffers
CREATE TEMP TABLE ts AS SELECT * FROM ss;
CREATE INDEX ts_bs ON ts USING bloomslice (f);
SELECT * FROM ss_check('ts');
SELECT * FROM ss_check('ts');

-- a plain index scan whose answer outgrows work_mem: its TIDs go through a
-- sort (on disk past 64 kB) instead of memory; rows whose filters are too
-- large to slice come back for recheck among them, and rows still pending
-- after the others; each key's rows equal a sequential scan's
CREATE TABLE big (id int, f bloomfilter);
INSERT INTO big SELECT i, bloom_add_all(bloom_empty_bits(CASE WHEN i % 97 = 0 THEN 2048 ELSE 512 END, 3),
	ARRAY[1, i, 100000 + i % 3]) FROM generate_series(1, 30000) i;
CREATE INDEX big_bs ON big USING bloomslice (f) WITH (max_bits = 512);
INSERT INTO big SELECT i, bloom_add_all(bloom_empty_bits(512, 3), ARRAY[1, i, 100000 + i % 3])
FROM generate_series(30001, 30500) i;
SET work_mem = '64kB';
SELECT * FROM compare_plans('SELECT k, id FROM (VALUES (1), (100001), (77), (-5)) v(k),
	LATERAL (SELECT id FROM big WHERE f @> k) b', 'Index Scan (using|on) big_bs');
RESET work_mem;

-- each scan counts in pg_stat_user_indexes.idx_scan
BEGIN;
SET LOCAL enable_seqscan = off;
SELECT count(*) FROM big WHERE f @> 77;
SELECT pg_stat_get_xact_numscans('big_bs'::regclass) > 0 AS counted;
COMMIT;

DROP TABLE ss, ts, big;
DROP FUNCTION ss_check(text), compare_plans(text, text), error_of(text, boolean, boolean);
DROP FUNCTION ss_filter(int, int);
