--
-- Memory of probes rescanned once per outer row: a nested loop through a
-- GiST index on a bloomfilter column, and the same probes without one.
-- A GiST scan keeps its consistent function's state (fn_extra) across
-- rescans, so anything built for one outer row's key and left there grows
-- with the number of rows.  Each case runs one plan (a generic plan of a
-- prepared statement) for 1,000 and for 20,000 outer rows and reads the
-- backend's memory, all memory contexts, at the end of the join while the
-- executor and its scans are still open.  The memory must not grow with
-- the number of rows.
--

-- explain_neutral(): EXPLAIN printed alike by every PostgreSQL version
\set ECHO none
\i sql/explain_neutral.inc
\set ECHO all

SET max_parallel_workers_per_gather = 0;
-- no JIT: the plans forced below cost enough to be compiled on every run
SET jit = off;
SET plan_cache_mode = force_generic_plan;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;

-- backend_memory(x): the bytes held by all of this backend's memory
-- contexts (x only makes the call wait for the join that computes it)
CREATE FUNCTION backend_memory(anyelement) RETURNS bigint
LANGUAGE sql VOLATILE AS $$
	SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts
$$;

-- memory_growth(stmt): runs the prepared statement stmt, whose parameter
-- is the number of outer rows and which returns backend_memory at the end
-- of the join, for 1,000 rows (twice: the first run fills the caches) and
-- for 20,000 rows.  'flat' when the memory grew by less than 512 kB (28
-- bytes an outer row), else by how much it grew.
CREATE FUNCTION memory_growth(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	small bigint;
	big bigint;
BEGIN
	EXECUTE format('EXECUTE %I(1000)', stmt) INTO small;
	EXECUTE format('EXECUTE %I(1000)', stmt) INTO small;
	EXECUTE format('EXECUTE %I(20000)', stmt) INTO big;
	IF big - small < 512 * 1024 THEN
		RETURN 'flat';
	END IF;
	RETURN 'grew by ' || pg_size_pretty(big - small) || ' from 1,000 to 20,000 outer rows';
END $$;

-- outer rows with keys of three types: int[], a composite type and text.
-- 100 filters of 20 such keys (stored whole in the index, tested exactly)
-- and 20 of 400 keys (stored as signatures: their matches are rechecked on
-- the table)
CREATE TYPE mem_pair AS (a int, b text);
CREATE TABLE mem_outer AS
SELECT g, ARRAY[g, g % 20] AS k, ROW(g, 'p')::mem_pair AS p, 'key ' || g AS t
FROM generate_series(1, 20000) g;
CREATE TABLE mem_filters (id int, f bloomfilter, fp bloomfilter, ft bloomfilter);
INSERT INTO mem_filters
SELECT (g - 1) / 200, bloom_agg(ARRAY[g, g % 20]), bloom_agg(ROW(g, 'p')::mem_pair),
	bloom_agg('key ' || g)
FROM generate_series(1, 20000) g WHERE (g - 1) % 200 < 20 GROUP BY (g - 1) / 200;
INSERT INTO mem_filters
SELECT 1000 + (g - 1) / 1000, bloom_agg(ARRAY[g, g % 20]), bloom_agg(ROW(g, 'p')::mem_pair),
	bloom_agg('key ' || g)
FROM generate_series(1, 20000) g WHERE (g - 1) % 1000 < 400 GROUP BY (g - 1) / 1000;
CREATE INDEX mem_filters_f ON mem_filters USING gist (f);
CREATE INDEX mem_filters_fp ON mem_filters USING gist (fp);
CREATE INDEX mem_filters_ft ON mem_filters USING gist (ft);
-- a few filters without an index, for the probes without one
CREATE TABLE mem_few AS SELECT * FROM mem_filters WHERE id % 10 = 0;
ANALYZE mem_outer, mem_filters, mem_few;

-- the index holds both kinds of leaves
SELECT count(*) FILTER (WHERE (bloom_info(f)).bytes < 256) AS stored_whole,
	count(*) FILTER (WHERE (bloom_info(f)).bytes > 256) AS stored_as_signatures
FROM mem_filters;

-- an index scan per outer row: int[] keys (hashed as a whole value, the
-- index condition f @> gbloom_key(o.k))
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE idx_array(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o JOIN mem_filters m ON m.f @> o.k
						WHERE o.g <= $1)
SELECT backend_memory(c) FROM j;
SELECT * FROM explain_neutral($$EXECUTE idx_array(1000)$$);
SELECT memory_growth('idx_array');

-- a composite type's keys
PREPARE idx_composite(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o JOIN mem_filters m ON m.fp @> o.p
						WHERE o.g <= $1)
SELECT backend_memory(c) FROM j;
SELECT * FROM explain_neutral($$EXECUTE idx_composite(1000)$$);
SELECT memory_growth('idx_composite');

-- text keys (the operator class's own @>(bloomfilter, text))
PREPARE idx_text(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o JOIN mem_filters m ON m.ft @> o.t
						WHERE o.g <= $1)
SELECT backend_memory(c) FROM j;
SELECT * FROM explain_neutral($$EXECUTE idx_text(1000)$$);
SELECT memory_growth('idx_text');

-- superset queries, a query filter per outer row
PREPARE idx_superset(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o
						JOIN mem_filters m ON m.f @>> (bloom_empty(20) + o.k)
						WHERE o.g <= $1)
SELECT backend_memory(c) FROM j;
SELECT memory_growth('idx_superset');

-- a bitmap index scan per outer row
SET enable_bitmapscan = on;
SET enable_indexscan = off;
PREPARE bitmap_array(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o JOIN mem_filters m ON m.f @> o.k
						WHERE o.g <= $1)
SELECT backend_memory(c) FROM j;
SELECT * FROM explain_neutral($$EXECUTE bitmap_array(1000)$$);
SELECT memory_growth('bitmap_array');
RESET enable_indexscan;

-- without an index: the probe as a join filter, in a rescanned EXISTS
-- subplan, and on a filter a correlated subplan returns per outer row
SET enable_seqscan = on;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
PREPARE join_array(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o JOIN mem_few m ON m.f @> o.k
						WHERE o.g <= $1)
SELECT backend_memory(c) FROM j;
SELECT * FROM explain_neutral($$EXECUTE join_array(1000)$$);
SELECT memory_growth('join_array');

PREPARE exists_array(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o
						WHERE o.g <= $1 AND EXISTS (SELECT FROM mem_few m WHERE m.f @> o.k))
SELECT backend_memory(c) FROM j;
SELECT memory_growth('exists_array');

PREPARE subplan_array(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o
						WHERE o.g <= $1
						  AND o.k <@ (SELECT f FROM mem_few m WHERE m.id = 10 * (o.g % 10)))
SELECT backend_memory(c) FROM j;
SELECT memory_growth('subplan_array');

-- the same with filters stored out of line (TOAST), a different one each
-- row: the probe's cache fetches and keeps a copy of each in turn
CREATE TABLE mem_big AS
SELECT (g - 1) / 2000 AS id, bloom_agg(ARRAY[g, g % 20]) AS f
FROM generate_series(1, 20000) g GROUP BY (g - 1) / 2000;
ANALYZE mem_big;
SELECT pg_relation_size(reltoastrelid) > 0 AS toasted FROM pg_class WHERE oid = 'mem_big'::regclass;
PREPARE toast_array(int) AS
WITH j AS MATERIALIZED (SELECT count(*) AS c FROM mem_outer o
						WHERE o.g <= $1
						  AND o.k <@ (SELECT f FROM mem_big m WHERE m.id = o.g % 10))
SELECT backend_memory(c) FROM j;
SELECT memory_growth('toast_array');

RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;
DEALLOCATE ALL;
DROP TABLE mem_outer, mem_filters, mem_few, mem_big;
DROP TYPE mem_pair;
DROP FUNCTION memory_growth(text), backend_memory(anyelement);
RESET enable_material;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET plan_cache_mode;
RESET max_parallel_workers_per_gather;
RESET jit;
