-- test/pg_upgrade/indexes.sql: each index (GiST and bloomslice of docs,
-- sups and sups_grow) answers every probe as a sequential scan does.
-- For each table, index and query: the rows and the md5 of the sorted
-- result of the sequential scan (compared across pg_upgrade by
-- test/pg_upgrade.sh), and whether the forced plain index scan and the
-- forced bitmap scan used the index (used=yes) and gave the same rows
-- (plain=same bitmap=same).  The other index of the table is dropped in a
-- transaction that is rolled back, so each index answers on its own.
SET client_min_messages = error;
SET max_parallel_workers_per_gather = 0;
-- disabled plans cost enough to be compiled: seconds of JIT per query
SET jit = off;

CREATE FUNCTION pg_temp.check_index(tab text, idx text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	qs text[] := ARRAY[
		'SELECT p.k, d.id FROM probe_keys p, LATERAL (SELECT id FROM %I WHERE f @> p.k) d',
		'SELECT p.k, d.id FROM probe_keys p, LATERAL (SELECT id FROM %I WHERE p.k::int4 <@ f) d',
		'SELECT p.k, d.id FROM probe_keys p, LATERAL (SELECT id FROM %I WHERE bloom_contains(f, p.k)) d',
		'SELECT p.k, d.id FROM probe_keys p, LATERAL (SELECT id FROM %I WHERE f @> p.k AND f @> p.k + 3) d'];
	way text;
	plan text;
	line text;
	res text;
	used boolean;
	seq_rows bigint;
	seq_md5 text;
	ways text;
	n bigint;
	m text;
BEGIN
	IF tab <> 'docs' THEN
		qs := qs || ARRAY[
			'SELECT q.qid, d.id FROM probe_sets q, LATERAL (SELECT id FROM %I WHERE f @>> q.q) d',
			'SELECT q.qid, d.id FROM probe_sets q, LATERAL (SELECT id FROM %I WHERE bloom_contains_filter(f, q.q)) d'];
	END IF;
	FOREACH q IN ARRAY qs LOOP
		q := format(q, tab);
		PERFORM set_config('enable_seqscan', 'on', true);
		PERFORM set_config('enable_indexscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		EXECUTE format('SELECT count(*), md5(coalesce(string_agg(r::text, %L ORDER BY r::text), %L)) FROM (%s) r',
					   ',', '', q) INTO seq_rows, seq_md5;
		used := true;
		ways := '';
		PERFORM set_config('enable_seqscan', 'off', true);
		FOREACH way IN ARRAY ARRAY['plain', 'bitmap'] LOOP
			PERFORM set_config('enable_indexscan', (way = 'plain')::text, true);
			PERFORM set_config('enable_bitmapscan', (way = 'bitmap')::text, true);
			plan := '';
			FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
				plan := plan || line || E'\n';
			END LOOP;
			used := used AND plan ~ ('Index Scan (using|on) ' || idx || '\M');
			EXECUTE format('SELECT count(*), md5(coalesce(string_agg(r::text, %L ORDER BY r::text), %L)) FROM (%s) r',
						   ',', '', q) INTO n, m;
			ways := ways || ' ' || way || '=' || CASE WHEN n = seq_rows AND m = seq_md5 THEN 'same'
				ELSE format('DIFFERENT(%s rows)', n) END;
		END LOOP;
		RETURN NEXT format('%s %s %s: rows=%s md5=%s%s used=%s', tab, idx,
						   substring(q FROM 'WHERE (.*)\) d'), seq_rows, seq_md5, ways,
						   CASE WHEN used THEN 'yes' ELSE 'NO' END);
	END LOOP;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
END $$;

BEGIN;
DROP INDEX docs_slice;
SELECT pg_temp.check_index('docs', 'docs_gist');
ROLLBACK;
BEGIN;
DROP INDEX docs_gist;
SELECT pg_temp.check_index('docs', 'docs_slice');
ROLLBACK;
BEGIN;
DROP INDEX sups_slice;
SELECT pg_temp.check_index('sups', 'sups_gist');
ROLLBACK;
BEGIN;
DROP INDEX sups_gist;
SELECT pg_temp.check_index('sups', 'sups_slice');
ROLLBACK;
BEGIN;
DROP INDEX sups_grow_slice;
SELECT pg_temp.check_index('sups_grow', 'sups_grow_gist');
ROLLBACK;
BEGIN;
DROP INDEX sups_grow_gist;
SELECT pg_temp.check_index('sups_grow', 'sups_grow_slice');
ROLLBACK;
