--
-- Planner estimates of probes: x <@ f, f @> x and bloom_contains(f, x)
-- take their selectivity from the filter's own estimates when the planner
-- can see the filter (a constant, or a parameter in a custom plan):
--   sel = min(1, cardinality(f) / ndistinct(x)) * (1 - fpr(f)) + fpr(f)
-- times the fraction of non-NULL x.
--

-- plan_rows(query): the planner's row estimate for the query (the rows=
-- of EXPLAIN, whose costs vary from machine to machine)
CREATE FUNCTION plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;

-- one million events: a unique id, 1,000 customers, and a referrer that
-- is one of 1,000 customers or (half of the time) NULL
CREATE TABLE events (id int8, customer int, referrer int) WITH (autovacuum_enabled = off);
INSERT INTO events SELECT g, g % 1000, CASE WHEN g % 2 = 1 THEN (g / 2) % 1000 END
FROM generate_series(1, 1000000) g;
VACUUM ANALYZE events;

-- filters of 1,000 ids at the default rate and at 1 in 10,000, and of 100
-- customers; their own estimates
SELECT bloom_agg(g)::text AS ids_1pct FROM generate_series(1, 1000) g \gset
SELECT bloom_agg(g, 1000, 0.0001)::text AS ids_tiny FROM generate_series(1, 1000) g \gset
SELECT bloom_agg(g)::text AS customers FROM generate_series(1, 100) g \gset
SELECT round(bloom_cardinality(f)::numeric, -1) AS cardinality, bloom_fpr(f) < 0.01 AS fpr_under_1pct,
	bloom_fpr(f) < 0.0001 AS fpr_under_1e4
FROM (VALUES (:'ids_1pct'::bloomfilter), (:'ids_tiny'::bloomfilter), (:'customers'::bloomfilter)) v(f);

-- The estimate for 1,000 ids over a million unique ids is in the thousands
-- (the keys plus the false positives), not the 0.1% or 33% of a fixed
-- default; at 1 in 10,000 it is close to the 1,000 keys themselves.
SELECT plan_rows(format('SELECT * FROM events WHERE id <@ %L::bloomfilter', :'ids_1pct')) BETWEEN 2000 AND 12000 AS thousands,
	plan_rows(format('SELECT * FROM events WHERE id <@ %L::bloomfilter', :'ids_tiny')) BETWEEN 1000 AND 1200 AS about_1000;

-- exactly the formula, with the filter's estimates and the column's
-- statistics
SELECT round((plan_rows(format('SELECT * FROM events WHERE id <@ %L::bloomfilter', f))
	/ (1000000 * (least(1, bloom_cardinality(f::bloomfilter) / 1000000) * (1 - bloom_fpr(f::bloomfilter))
				 + bloom_fpr(f::bloomfilter))))::numeric, 3) AS ratio_to_formula
FROM (VALUES (:'ids_1pct'), (:'ids_tiny')) v(f);

-- every spelling of the probe gets the same estimate: the operator and its
-- commutator (through their RESTRICT function) and the function (through
-- its support function)
SELECT count(DISTINCT r) AS distinct_estimates, min(r) BETWEEN 1000 AND 1200 AS about_1000
FROM (VALUES (plan_rows(format('SELECT * FROM events WHERE id <@ %L::bloomfilter', :'ids_tiny'))),
			 (plan_rows(format('SELECT * FROM events WHERE %L::bloomfilter @> id', :'ids_tiny'))),
			 (plan_rows(format('SELECT * FROM events WHERE bloom_contains(%L::bloomfilter, id)', :'ids_tiny'))),
			 (plan_rows(format('SELECT * FROM events WHERE bloom_contained_in(id, %L::bloomfilter)', :'ids_tiny')))) v(r);

-- 100 of 1,000 customers: a tenth of the table (plus false positives)
SELECT plan_rows(format('SELECT * FROM events WHERE customer <@ %L::bloomfilter', :'customers')) BETWEEN 100000 AND 115000 AS a_tenth;

-- the same 1,000 values, but half of the rows NULL: a NULL never
-- matches, so half the estimate (ANALYZE samples rows at random, so the
-- null fraction it sees, and the ratio, varies by a percent or two)
SELECT (plan_rows(format('SELECT * FROM events WHERE referrer <@ %L::bloomfilter', :'customers'))
	/ plan_rows(format('SELECT * FROM events WHERE customer <@ %L::bloomfilter', :'customers')))
	BETWEEN 0.47 AND 0.53 AS with_half_nulls;

-- A filter the planner cannot see gets the default of 1% (a probe passes
-- at least at the filters' rate): a subquery, a generic plan's parameter.
-- A custom plan sees the parameter's value.
CREATE TABLE stored AS SELECT :'ids_tiny'::bloomfilter AS f;
SELECT plan_rows('SELECT * FROM events WHERE id <@ (SELECT f FROM stored)') AS from_subquery;
PREPARE probe(bloomfilter) AS SELECT * FROM events WHERE id <@ $1;
SET plan_cache_mode = force_generic_plan;
SELECT plan_rows(format('EXECUTE probe(%L)', :'ids_tiny')) AS generic_plan;
SET plan_cache_mode = force_custom_plan;
SELECT plan_rows(format('EXECUTE probe(%L)', :'ids_tiny')) BETWEEN 1000 AND 1200 AS custom_plan_about_1000;
RESET plan_cache_mode;
DEALLOCATE probe;

-- a NULL filter selects nothing (the planner folds the probe to NULL); an
-- empty filter nothing either (the planner's minimum is one row)
SELECT plan_rows('SELECT * FROM events WHERE id <@ NULL::bloomfilter') AS null_filter,
	plan_rows('SELECT * FROM events WHERE id <@ bloom_empty(10)') AS empty_filter;

-- Without statistics on the column the estimate assumes one row per key
-- (PostgreSQL's default of 200 distinct values would make any filter of a
-- few hundred keys select the whole table).
CREATE TABLE fresh (id int8) WITH (autovacuum_enabled = off);
INSERT INTO fresh SELECT g FROM generate_series(1, 200000) g;
SELECT plan_rows(format('SELECT * FROM fresh WHERE id <@ %L::bloomfilter', :'ids_tiny')) BETWEEN 800 AND 1500 AS one_row_per_key;

-- an expression key without statistics falls back the same way
SELECT plan_rows(format('SELECT * FROM events WHERE id + 1 <@ %L::bloomfilter', :'ids_tiny')) BETWEEN 1000 AND 1200 AS expression_key;

DROP TABLE events, stored, fresh;
DROP FUNCTION plan_rows(text);
