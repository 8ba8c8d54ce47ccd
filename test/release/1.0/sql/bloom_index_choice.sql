--
-- Which index the planner chooses when a bloomfilter column has both a
-- bloomslice and a GiST index (issue #27, item 8).  GiST's generic estimate
-- reads index pages in proportion to the rows found, which a signature tree
-- of filters of normal density does not do: its inner keys are all ones
-- and a probe reads the whole tree (src/index/gist/bf_gist_cost.c).  So:
--   - filters of normal density (sized for the keys they hold, as the
--     README creates them): bloomslice, the faster by far;
--   - sparse filters (a large geometry holding few keys): GiST, whose tree
--     then narrows a probe to a few pages;
--   - with GiST alone on normal-density filters: a sequential scan, not a
--     GiST scan that reads every page and rechecks most rows.
-- The same for superset queries (f @>> q, q <<@ f, bloom_contains_filter):
-- @>> is in both operator classes, so the planner matches it without the
-- support function, and its restriction estimator sets the tree-sampled
-- estimate on the table's GiST indexes.  Each choice holds without ANALYZE
-- (the README's examples run none), with q a constant, a subquery (not
-- known at planning time) or a generic plan's parameter; and each chosen
-- plan returns what a sequential scan returns.
-- Filters stored out of line (over about 2 kB): a sequential scan reads
-- them from the TOAST table, which PostgreSQL's costs leave out; the probe
-- and superset functions' support function charges each call its share of
-- those pages, so bloomslice is chosen there too, not the table.
--
SET max_parallel_workers_per_gather = 0;

-- chosen(query): the plan's scan, its index if any, printed alike by every
-- PostgreSQL version (EXPLAIN (COSTS OFF), the index's name or the scan)
CREATE FUNCTION chosen(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	m text[];
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		m := regexp_match(line, '(Index Scan|Bitmap Index Scan|Index Only Scan) (?:using |on )(\w+)');
		IF m IS NOT NULL THEN RETURN m[2]; END IF;
	END LOOP;
	RETURN 'seq scan';
END $$;

-- explain_lines(query): EXPLAIN (COSTS OFF)'s lines
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END $$;

-- same_as_seq(query): the rows of the chosen plan against a sequential
-- scan's (count of the chosen's, count differing: always 0)
CREATE FUNCTION same_as_seq(q text, OUT nrows bigint, OUT differences bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'CREATE TEMP TABLE cmp_chosen AS ' || q;
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	EXECUTE 'CREATE TEMP TABLE cmp_seq AS ' || q;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	SELECT count(*) INTO nrows FROM cmp_chosen;
	SELECT count(*) INTO differences
	FROM ((TABLE cmp_chosen EXCEPT ALL TABLE cmp_seq)
		  UNION ALL (TABLE cmp_seq EXCEPT ALL TABLE cmp_chosen)) x;
	DROP TABLE cmp_chosen, cmp_seq;
END $$;

-- 600 filters of 1,000 keys each, sized for them (about half their bits set)
CREATE TABLE ic_dense AS
SELECT f AS id, bloom_agg(f * 500 + k, 1000, 0.01) AS ks
FROM generate_series(1, 600) f, generate_series(1, 1000) k GROUP BY f;
CREATE INDEX ic_dense_bs ON ic_dense USING bloomslice (ks);
CREATE INDEX ic_dense_gist ON ic_dense USING gist (ks);
-- 5,000 filters sized for 1,000 keys, holding 5 each
CREATE TABLE ic_sparse AS
SELECT f AS id, bloom_add_all(bloom_empty(1000), ARRAY(SELECT f * 10 + k FROM generate_series(1, 5) k)) AS ks
FROM generate_series(1, 5000) f;
CREATE INDEX ic_sparse_bs ON ic_sparse USING bloomslice (ks);
CREATE INDEX ic_sparse_gist ON ic_sparse USING gist (ks);
VACUUM ANALYZE ic_dense, ic_sparse;

SELECT relname, round(avg((bloom_info(ks)).fill_ratio)::numeric, 2) AS fill
FROM (SELECT 'ic_dense' AS relname, ks FROM ic_dense UNION ALL SELECT 'ic_sparse', ks FROM ic_sparse) t
GROUP BY relname ORDER BY 1;

-- normal density: bloomslice, for each form of the probe
EXPLAIN (COSTS OFF) SELECT id FROM ic_dense WHERE ks @> 250250;
EXPLAIN (COSTS OFF) SELECT id FROM ic_dense WHERE 250250 <@ ks;
EXPLAIN (COSTS OFF) SELECT id FROM ic_dense WHERE bloom_contains(ks, 250250);
SELECT id FROM ic_dense WHERE ks @> 250250 ORDER BY id;

-- sparse: GiST
EXPLAIN (COSTS OFF) SELECT id FROM ic_sparse WHERE ks @> 12345;
SELECT id FROM ic_sparse WHERE ks @> 12345 ORDER BY id;

-- GiST alone on normal-density filters: the table is read instead
BEGIN;
DROP INDEX ic_dense_bs;
EXPLAIN (COSTS OFF) SELECT id FROM ic_dense WHERE ks @> 250250;
ROLLBACK;
-- and GiST alone on sparse ones is still used
BEGIN;
DROP INDEX ic_sparse_bs;
EXPLAIN (COSTS OFF) SELECT id FROM ic_sparse WHERE ks @> 12345;
ROLLBACK;

-- ---------------------------------------------------------------------
-- Superset queries
-- ---------------------------------------------------------------------
-- q: 11 keys of stored filter 500 (dense), 3 of filter 1234 (sparse), each
-- at its column's geometry; also in a table, for subqueries
CREATE TABLE ic_q (name text, q bloomfilter);
INSERT INTO ic_q
SELECT 'dense', bloom_agg(k, 1000, 0.01) FROM generate_series(250250, 250260) k
UNION ALL
SELECT 'sparse', bloom_add_all(bloom_empty(1000), ARRAY[12341, 12342, 12343]);
SELECT q AS qd FROM ic_q WHERE name = 'dense' \gset
SELECT q AS qs FROM ic_q WHERE name = 'sparse' \gset

-- normal density: bloomslice, for each form and each kind of q
SELECT form, chosen(format(query, 'ic_dense', quote_literal(:'qd') || '::bloomfilter')) AS const_q,
	   chosen(format(query, 'ic_dense', '(SELECT q FROM ic_q WHERE name = ''dense'')')) AS subquery_q
FROM (VALUES ('f @>> q', 'SELECT id FROM %s WHERE ks @>> %s'),
			 ('q <<@ f', 'SELECT id FROM %1$s WHERE %2$s <<@ ks'),
			 ('bloom_contains_filter', 'SELECT id FROM %s WHERE bloom_contains_filter(ks, %s)')) v(form, query);
-- sparse: GiST
SELECT form, chosen(format(query, 'ic_sparse', quote_literal(:'qs') || '::bloomfilter')) AS const_q,
	   chosen(format(query, 'ic_sparse', '(SELECT q FROM ic_q WHERE name = ''sparse'')')) AS subquery_q
FROM (VALUES ('f @>> q', 'SELECT id FROM %s WHERE ks @>> %s'),
			 ('q <<@ f', 'SELECT id FROM %1$s WHERE %2$s <<@ ks'),
			 ('bloom_contains_filter', 'SELECT id FROM %s WHERE bloom_contains_filter(ks, %s)')) v(form, query);
-- a generic plan's parameter
PREPARE sup_dense(bloomfilter) AS SELECT id FROM ic_dense WHERE ks @>> $1;
PREPARE sup_sparse(bloomfilter) AS SELECT id FROM ic_sparse WHERE ks @>> $1;
SET plan_cache_mode = force_generic_plan;
SELECT chosen(format('EXECUTE sup_dense(%L)', :'qd')) AS dense,
	   chosen(format('EXECUTE sup_sparse(%L)', :'qs')) AS sparse;
RESET plan_cache_mode;
-- the rows are a sequential scan's
SELECT * FROM same_as_seq('SELECT id FROM ic_dense WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''dense'')');
SELECT * FROM same_as_seq('SELECT id FROM ic_sparse WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''sparse'')');
SELECT id FROM ic_dense WHERE ks @>> :'qd'::bloomfilter ORDER BY id;
SELECT id FROM ic_sparse WHERE ks @>> :'qs'::bloomfilter ORDER BY id;

-- GiST alone: the table is read over normal-density filters, GiST over
-- sparse ones
BEGIN;
DROP INDEX ic_dense_bs;
DROP INDEX ic_sparse_bs;
SELECT chosen(format('SELECT id FROM ic_dense WHERE ks @>> %L::bloomfilter', :'qd')) AS dense_const,
	   chosen('SELECT id FROM ic_dense WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''dense'')') AS dense_subquery,
	   chosen(format('SELECT id FROM ic_sparse WHERE ks @>> %L::bloomfilter', :'qs')) AS sparse_const,
	   chosen('SELECT id FROM ic_sparse WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''sparse'')') AS sparse_subquery;
ROLLBACK;

-- ---------------------------------------------------------------------
-- Without ANALYZE, as the README's Indexing example creates its table:
-- CREATE TABLE AS, both indexes, then queries
-- ---------------------------------------------------------------------
CREATE TABLE ic_files AS
SELECT f AS file_id, bloom_agg(f * 500 + k, 1000, 0.01) AS customers
FROM generate_series(1, 1000) f, generate_series(1, 1000) k GROUP BY f;
CREATE INDEX ic_files_bs ON ic_files USING bloomslice (customers);
CREATE INDEX ic_files_gist ON ic_files USING gist (customers);
CREATE TABLE ic_small AS
SELECT f AS file_id, bloom_add_all(bloom_empty(1000), ARRAY(SELECT f * 10 + k FROM generate_series(1, 5) k)) AS customers
FROM generate_series(1, 5000) f;
CREATE INDEX ic_small_bs ON ic_small USING bloomslice (customers);
CREATE INDEX ic_small_gist ON ic_small USING gist (customers);
SELECT relname, reltuples >= 0 AS counted_by_create_index,
	   (SELECT count(*) FROM pg_statistic WHERE starelid = c.oid) AS statistics
FROM pg_class c WHERE relname IN ('ic_files', 'ic_small') ORDER BY 1;
SELECT chosen('SELECT file_id FROM ic_files WHERE customers @> 250250') AS files_probe,
	   chosen('SELECT file_id FROM ic_files WHERE customers @>> (SELECT q FROM ic_q WHERE name = ''dense'')') AS files_superset,
	   chosen('SELECT file_id FROM ic_small WHERE customers @> 12345') AS small_probe,
	   chosen('SELECT file_id FROM ic_small WHERE customers @>> (SELECT q FROM ic_q WHERE name = ''sparse'')') AS small_superset;
SELECT * FROM same_as_seq('SELECT file_id FROM ic_files WHERE customers @>> (SELECT q FROM ic_q WHERE name = ''dense'')');
SELECT * FROM same_as_seq('SELECT file_id FROM ic_small WHERE customers @>> (SELECT q FROM ic_q WHERE name = ''sparse'')');

-- A partitioned table: each partition's GiST index gets the estimate too
CREATE TABLE ic_parts (id int, ks bloomfilter) PARTITION BY RANGE (id);
CREATE TABLE ic_parts_1 PARTITION OF ic_parts FOR VALUES FROM (1) TO (301);
CREATE TABLE ic_parts_2 PARTITION OF ic_parts FOR VALUES FROM (301) TO (601);
INSERT INTO ic_parts SELECT id, ks FROM ic_dense;
CREATE INDEX ic_parts_bs ON ic_parts USING bloomslice (ks);
CREATE INDEX ic_parts_gist ON ic_parts USING gist (ks);
SELECT string_agg(DISTINCT a.amname, ', ') AS access_methods, count(*) AS index_scans
FROM regexp_matches((SELECT string_agg(l, E'\n') FROM (SELECT * FROM explain_lines(
	 'SELECT id FROM ic_parts WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''dense'')')) x(l)),
	 'Index Scan (?:using |on )(\w+)', 'g') m
JOIN pg_class c ON c.relname = m[1] JOIN pg_am a ON a.oid = c.relam;
SELECT * FROM same_as_seq('SELECT id FROM ic_parts WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''dense'')');

-- ---------------------------------------------------------------------
-- Filters stored out of line: self-sized filters of 2,000-3,000 keys
-- (2.4-3.6 kB, in the TOAST table), no ANALYZE
-- ---------------------------------------------------------------------
CREATE TABLE ic_large AS
SELECT f AS id, bloom_agg(f * 3000 + k) AS ks
FROM generate_series(1, 1000) f, LATERAL generate_series(1, 2000 + (f * 7919) % 1000) k GROUP BY f;
CREATE INDEX ic_large_bs ON ic_large USING bloomslice (ks);
CREATE INDEX ic_large_gist ON ic_large USING gist (ks);
SELECT pg_relation_size(reltoastrelid) > 20 * pg_relation_size(oid) AS mostly_toast
FROM pg_class WHERE relname = 'ic_large';
INSERT INTO ic_q SELECT 'large', bloom_add_all(bloom_empty_bits(i.bits, i.hashes, i.layout),
	ARRAY(SELECT 500 * 3000 + k FROM generate_series(1, 10) k))
FROM ic_large t, bloom_info(t.ks) i WHERE t.id = 500;
SELECT chosen('SELECT id FROM ic_large WHERE ks @> 1500005') AS probe,
	   chosen('SELECT id FROM ic_large WHERE bloom_contains(ks, 1500005)') AS probe_call,
	   chosen('SELECT id FROM ic_large WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''large'')') AS superset;
SELECT * FROM same_as_seq('SELECT id FROM ic_large WHERE ks @> 1500005');
SELECT * FROM same_as_seq('SELECT id FROM ic_large WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''large'')');

-- ---------------------------------------------------------------------
-- A multi-column GiST index whose first column is another operator
-- class's (range_ops): the tree-sampled estimate is for an index led by a
-- filter column only.  Set on it by a probe or superset call matched to
-- the second column, it read `r && ...` (strategy 3 of range_ops, as @>>
-- is of ours) as a superset query and the range as q: "bloomfilter datum
-- is damaged" at planning (with btree_gist's `id = 5`, a crash), and the
-- range keys of the tree as filters.
-- ---------------------------------------------------------------------
CREATE TABLE ic_multi AS
SELECT int4range(id, id + 10) AS r, ks FROM ic_sparse;
CREATE INDEX ic_multi_gist ON ic_multi USING gist (r, ks);
ANALYZE ic_multi;
SELECT chosen('SELECT r FROM ic_multi WHERE r && int4range(100, 110) AND bloom_contains_filter(ks, (SELECT q FROM ic_q WHERE name = ''sparse''))') AS superset_call,
	   chosen('SELECT r FROM ic_multi WHERE r && int4range(100, 110) AND bloom_contains(ks, 1005)') AS probe_call;
SELECT * FROM same_as_seq('SELECT r FROM ic_multi WHERE r && int4range(100, 110) AND bloom_contains_filter(ks, bloom_add(bloom_empty(1000), 1005))');
SELECT * FROM same_as_seq('SELECT r FROM ic_multi WHERE r << int4range(100, 110) AND bloom_contains(ks, 805)');

-- ---------------------------------------------------------------------
-- Filters stored in the row beside a long text column: the TOAST pages
-- are the text's, and a probe reads none of them.  Charged all of them,
-- a GiST scan (reading most of the tree, rechecking most rows) was chosen
-- over a sequential scan three times faster.  Once ANALYZE (or autovacuum)
-- has measured the filters' width in the row, none is charged.  (Before
-- that the pages are shared among the columns that can be stored out of
-- line, here half of them: GiST is still chosen without statistics.)
-- ---------------------------------------------------------------------
CREATE TABLE ic_inrow (id int, ks bloomfilter, body text);
ALTER TABLE ic_inrow ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO ic_inrow
SELECT s, bloom_agg(s * 1000 + k, 1000, 0.01), repeat('x', 9600)
FROM generate_series(1, 3000) s, generate_series(1, 500) k GROUP BY s;
CREATE INDEX ic_inrow_gist ON ic_inrow USING gist (ks);
SELECT pg_relation_size(reltoastrelid) > 5 * pg_relation_size(oid) AS mostly_toast,
	   (SELECT max(pg_column_size(ks)) FROM ic_inrow) < 2000 AS filters_in_row
FROM pg_class WHERE relname = 'ic_inrow';
ANALYZE ic_inrow;
SELECT chosen('SELECT id FROM ic_inrow WHERE ks @> 1000005') AS probe,
	   chosen('SELECT id FROM ic_inrow WHERE bloom_contains(ks, 1000005)') AS probe_call;
SELECT * FROM same_as_seq('SELECT id FROM ic_inrow WHERE ks @> 1000005');

-- ---------------------------------------------------------------------
-- A column of a domain over bloomfilter: the operators see it relabelled
-- to bloomfilter, and the planner matches it to the column's indexes
-- through the relabelling; the tree-sampled GiST estimate is set on them
-- the same way (without it GiST's generic estimate chose GiST for @>>).
-- ---------------------------------------------------------------------
CREATE DOMAIN ic_filter AS bloomfilter;
CREATE TABLE ic_dom (id int, ks ic_filter);
INSERT INTO ic_dom SELECT id, ks FROM ic_dense;
CREATE INDEX ic_dom_bs ON ic_dom USING bloomslice (ks);
CREATE INDEX ic_dom_gist ON ic_dom USING gist (ks);
SELECT chosen('SELECT id FROM ic_dom WHERE ks @> 250250') AS probe,
	   chosen('SELECT id FROM ic_dom WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''dense'')') AS superset;
SELECT * FROM same_as_seq('SELECT id FROM ic_dom WHERE ks @>> (SELECT q FROM ic_q WHERE name = ''dense'')');
