--
-- Which index the planner chooses when a bloomfilter column has both a
-- bloomslice and a GiST index (issue #27, item 8).  GiST's generic estimate
-- reads index pages in proportion to the rows found, which a signature tree
-- of filters of normal density does not do: its inner keys are all ones
-- and a probe reads the whole tree (src/bf_gist_cost.c).  So:
--   - filters of normal density (sized for the keys they hold, as the
--     README creates them): bloomslice, the faster by far;
--   - sparse filters (a large geometry holding few keys): GiST, whose tree
--     then narrows a probe to a few pages;
--   - with GiST alone on normal-density filters: a sequential scan, not a
--     GiST scan that reads every page and rechecks most rows.
--
SET max_parallel_workers_per_gather = 0;

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
