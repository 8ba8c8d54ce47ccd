--
-- Probes of many keys in one call: bloom_contains_all(f, keys) answers for
-- every element, bloom_filter_array(f, keys) keeps the elements that may be
-- in f.  Both must answer exactly as bloom_contains does element by element.
--

-- explain_neutral(): EXPLAIN printed alike by every PostgreSQL version
\set ECHO none
\i sql/explain_neutral.inc
\set ECHO all

-- Filters of several layouts, k and key families.  'int_k20' has k = 20
-- (the batch loop for k above 16 is a shared one); 'int_big' is large
-- enough to be stored out of line, so that calls on many rows read it
-- through the probe cache.
CREATE TABLE bf (name text PRIMARY KEY, f bloomfilter);
INSERT INTO bf SELECT 'int_blocked', bloom_agg(g) FROM generate_series(1, 3000, 3) g;
INSERT INTO bf SELECT 'int_classic', bloom_add_all(bloom_empty(1000, 0.05, 'classic'), array_agg(g))
	FROM generate_series(1, 3000, 3) g;
INSERT INTO bf SELECT 'int_k20', bloom_add_all(bloom_empty_bits(8192, 20, 'blocked', 7), array_agg(g))
	FROM generate_series(1, 3000, 3) g;
INSERT INTO bf SELECT 'int_big', bloom_agg(g, 200000, 0.01) FROM generate_series(1, 200000, 2) g;
INSERT INTO bf SELECT 'text', bloom_agg('k' || g) FROM generate_series(1, 500) g;
INSERT INTO bf SELECT 'numeric', bloom_agg(g / 4.0) FROM generate_series(1, 500) g;
INSERT INTO bf VALUES ('empty', bloom_empty(100));
SELECT name, layout, hashes, added, pg_column_size(f) > 2032 AS out_of_line
FROM bf, bloom_info(f) ORDER BY name;

-- Keys: 5,000 integers (more than one 1,024-key chunk), every 97th NULL,
-- members and non-members mixed.
CREATE TABLE keys AS
	SELECT array_agg(CASE WHEN g % 97 = 0 THEN NULL ELSE g END ORDER BY g) AS ints
	FROM generate_series(1, 5000) g;

-- The answers of bloom_contains one element at a time, in order.
CREATE FUNCTION one_by_one(f bloomfilter, a anyarray) RETURNS boolean[]
	LANGUAGE sql AS $$
	SELECT coalesce(array_agg(bloom_contains(f, e) ORDER BY i), '{}')
	FROM unnest(a) WITH ORDINALITY u(e, i) $$;
CREATE FUNCTION kept_one_by_one(f bloomfilter, a anyarray) RETURNS anyarray
	LANGUAGE sql AS $$
	SELECT coalesce(array_agg(e ORDER BY i) FILTER (WHERE bloom_contains(f, e)), a[1:0])
	FROM unnest(a) WITH ORDINALITY u(e, i) $$;

-- Every integer filter, int8, int4 and int2 keys: the same answers as one
-- by one, and how many elements may be in each (so that a filter answering
-- all false or all true would show)
SELECT name, t AS key_type,
	bloom_contains_all(f, k) = one_by_one(f, k) AS same_answers,
	bloom_filter_array(f, k) = kept_one_by_one(f, k) AS same_kept,
	cardinality(bloom_filter_array(f, k)) AS kept,
	(SELECT count(*) FROM unnest(bloom_contains_all(f, k)) b WHERE b IS NULL) AS nulls
FROM bf, keys,
	LATERAL (VALUES ('int8', ints::int8[]), ('int4', ints::int4[])) v(t, k)
WHERE name LIKE 'int%'
UNION ALL
SELECT name, 'int2', bloom_contains_all(f, k) = one_by_one(f, k),
	bloom_filter_array(f, k) = kept_one_by_one(f, k),
	cardinality(bloom_filter_array(f, k)), NULL
FROM bf, (SELECT ints[1:3000]::int2[] AS k FROM keys) s
WHERE name LIKE 'int%'
ORDER BY 1, 2;

-- bloomfilter.simd = off: the scalar batch loop, the same answers (where
-- the CPU has AVX2 the default uses it; SHOW names which, so only its
-- first word is shown here)
SELECT split_part(current_setting('bloomfilter.simd'), ' ', 1) AS simd_default;
SET bloomfilter.simd = off;
SHOW bloomfilter.simd;
SELECT name, bloom_contains_all(f, ints::int8[]) = one_by_one(f, ints::int8[]) AS same_answers,
	cardinality(bloom_filter_array(f, ints::int8[])) AS kept
FROM bf, keys WHERE name LIKE 'int%' ORDER BY name;
RESET bloomfilter.simd;

-- Other families: text (and varchar, which hashes as text), numeric
-- (1.0 and 1.00 alike)
SELECT bloom_contains_all(f, k) = one_by_one(f, k) AS same_answers,
	bloom_filter_array(f, k) AS kept
FROM bf, (VALUES (ARRAY['k1', 'k2', 'nope', NULL, 'k500', 'k501'])) v(k)
WHERE name = 'text';
SELECT bloom_filter_array(f, ARRAY['k3', 'x']::varchar[]) AS kept_varchar FROM bf WHERE name = 'text';
SELECT bloom_contains_all(f, ARRAY[0.25, 0.250, 1.00, 2.5, 125.0, 125.25]) AS answers,
	bloom_filter_array(f, ARRAY[0.25, 1.00, 125.25, 126]) AS kept
FROM bf WHERE name = 'numeric';

-- NULL elements: NULL answers, and left out of the kept elements
SELECT bloom_contains_all(f, ARRAY[1, NULL, 4, 2, NULL]) AS answers,
	bloom_filter_array(f, ARRAY[1, NULL, 4, 2, NULL]) AS kept,
	bloom_filter_array(f, ARRAY[NULL, NULL]::int[]) AS all_null_kept
FROM bf WHERE name = 'int_blocked';

-- empty arrays give empty arrays; a NULL filter or NULL array gives NULL
SELECT bloom_contains_all(f, '{}'::int[]) AS answers,
	bloom_filter_array(f, '{}'::int[]) AS kept,
	pg_typeof(bloom_filter_array(f, '{}'::int[])) AS kept_type,
	bloom_contains_all(f, NULL::int[]) IS NULL AS null_keys,
	bloom_filter_array(NULL, ARRAY[1]) IS NULL AS null_filter
FROM bf WHERE name = 'int_blocked';

-- Multi-dimensional arrays: the answers keep the dimensions and lower
-- bounds of the keys; the kept elements come in storage order (as unnest
-- reads them), as a one-dimensional array
SELECT bloom_contains_all(f, ARRAY[[1, 2], [4, NULL], [7, 8]]) AS answers,
	array_dims(bloom_contains_all(f, '[0:1][5:6]={{1,2},{4,5}}'::int[])) AS dims,
	bloom_filter_array(f, ARRAY[[1, 2], [4, NULL], [7, 8]]) AS kept,
	bloom_filter_array(f, '[3:5]={1,4,7}'::int[]) AS kept_bounds
FROM bf WHERE name = 'int_blocked';

-- A filter that holds no key: every answer false, nothing kept, and no
-- family check (as bloom_contains)
SELECT bloom_contains_all(f, ARRAY['a', NULL, 'b']) AS answers,
	bloom_filter_array(f, ARRAY[1, 2, 3]) AS kept
FROM bf WHERE name = 'empty';

-- Domains over the element type and arrays of a domain resolve to the base
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
SELECT bloom_filter_array(f, ARRAY[1, 2, 4]::posint[]) AS kept_domain FROM bf WHERE name = 'int_blocked';

-- A stored, out-of-line filter probed once per row for many rows (the
-- probe cache keeps it detoasted): the same answers as one by one
CREATE TABLE chunks AS
	SELECT c, array_agg(g ORDER BY g) AS ids
	FROM generate_series(1, 20000) g, LATERAL (SELECT g / 1000 AS c) s
	GROUP BY c;
SELECT count(*) AS chunks,
	bool_and(bloom_filter_array((SELECT f FROM bf WHERE name = 'int_big'), ids)
		= kept_one_by_one((SELECT f FROM bf WHERE name = 'int_big'), ids)) AS same_kept,
	sum(cardinality(bloom_filter_array((SELECT f FROM bf WHERE name = 'int_big'), ids))) AS kept
FROM chunks;

-- The semi-join shape: prune candidate ids in one call, then match.  The
-- scalar subquery around the call makes it run once (an InitPlan), not
-- once per row of t; the cast makes "= ANY" read it as an array, not as
-- a set of rows.
CREATE TABLE t AS SELECT g AS id FROM generate_series(1, 10000) g;
SELECT count(*) AS candidates,
	count(*) FILTER (WHERE id % 3 = 1) AS true_members
FROM t
WHERE id = ANY ((SELECT bloom_filter_array(f, ARRAY(SELECT id FROM t WHERE id <= 3000))
				 FROM bf WHERE name = 'int_blocked')::int[]);
SELECT * FROM explain_neutral($$
SELECT count(*) FROM t
WHERE id = ANY ((SELECT bloom_filter_array(f, ARRAY(SELECT id FROM t WHERE id <= 3000))
				 FROM bf WHERE name = 'int_blocked')::int[])$$);

-- Family errors, as bloom_contains raises them: integer filter, text keys
SELECT bloom_contains_all(f, ARRAY['1', '2']) FROM bf WHERE name = 'int_blocked';
SELECT bloom_filter_array(f, ARRAY[1.5]) FROM bf WHERE name = 'int_blocked';
SELECT bloom_filter_array(f, ARRAY[1, 2]) FROM bf WHERE name = 'text';

-- A filter whose keys are whole arrays: bloom_contains(f, array) probes an
-- array as one key, as before; the batch functions probe elements, which
-- such a filter cannot answer for, and say so
CREATE TABLE arrf AS SELECT bloom_add(bloom_add(bloom_empty(100), ARRAY[1, 2]), ARRAY[3, 4]) AS f;
SELECT bloom_contains(f, ARRAY[1, 2]) AS whole_12, bloom_contains(f, ARRAY[2, 1]) AS whole_21,
	ARRAY[3, 4] <@ f AS op_34
FROM arrf;
SELECT bloom_contains_all(f, ARRAY[1, 2]) FROM arrf;
SELECT bloom_filter_array(f, ARRAY[[1, 2], [3, 4]]) FROM arrf;
-- the same filter probed with elements of another type: the generic error
SELECT bloom_filter_array(f, ARRAY['a']) FROM arrf;

-- The key must be an array
SELECT bloom_contains_all(f, 1) FROM bf WHERE name = 'int_blocked';

DROP TABLE bf, keys, chunks, t, arrf;
DROP FUNCTION one_by_one(bloomfilter, anyarray), kept_one_by_one(bloomfilter, anyarray);
DROP DOMAIN posint;

-- An array of records with no key (empty, or NULLs only) adds nothing: no
-- element tells the columns, and none is needed
SELECT bloom_add_all(bloom_empty(100), ARRAY[]::record[]) = bloom_empty(100) AS empty_same,
       bloom_add_all(bloom_empty(100), ARRAY[NULL::record]) = bloom_empty(100) AS nulls_same,
       bloom_add_all(sbloom_empty(10, 0.1, 2, 0.1), ARRAY[]::record[]) = sbloom_empty(10, 0.1, 2, 0.1) AS scalable_same;
-- a call site whose first array is empty learns the columns from the next
SELECT i, ROW(i, 'a'::text) <@ bloom_add_all(bloom_empty(100),
           CASE WHEN i = 1 THEN ARRAY[]::record[] ELSE ARRAY[ROW(i, 'a'::text)] END) AS found
FROM generate_series(1, 3) i ORDER BY i;
