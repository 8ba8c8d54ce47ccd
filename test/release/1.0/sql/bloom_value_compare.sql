--
-- Equality, order and hashing of whole values, for every type of the
-- extension: DISTINCT, count(DISTINCT), ORDER BY, GROUP BY (sorted and
-- hashed), array_agg(DISTINCT), window partitions, merge and hash joins,
-- hash partitioning and btree indexes.
--
-- f = g compares whole values (geometry, seed, family, add counts and
-- bits), and the btree order agrees with it: the stored bytes (the
-- portable format with its checksum field zero) compared as bytea
-- compares bytes.  Values are compared by content whatever their form:
-- a 1-byte or 4-byte header, compressed, out of line.
--
SET default_toast_compression = pglz;

-- whether the plan of a query has a node (or names a relation)
CREATE FUNCTION uses(node text, query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF strpos(line, node) > 0 THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;

-- how a value is held, from its size as stored, its raw size and its
-- compression (a compressed value that large cannot have stayed in line)
CREATE FUNCTION held_as(size int, raw int, compression text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN compression IS NOT NULL AND size < 2000 THEN 'compressed in line'
	            WHEN compression IS NOT NULL THEN 'compressed out of line'
	            WHEN size = raw + 1 THEN '1-byte header'
	            WHEN size = raw + 4 THEN '4-byte header'
	            WHEN size = raw THEN 'out of line'
	            ELSE 'unknown' END $$;

-- how many values of a table are stored out of line
CREATE FUNCTION toasted_values(tbl regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s',
	               (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = tbl)) INTO n;
	RETURN n;
END $$;

-- the bytes a value is stored as: its portable bytes (the bytea cast),
-- with the checksum field that the cast fills in set back to zero
CREATE FUNCTION stored_bytes(b bytea, checksum_at int) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT overlay(b PLACING '\x0000000000000000'::bytea FROM checksum_at + 1 FOR 8) $$;

-- -1, 0 or 1 as bytea orders a and b
CREATE FUNCTION byte_order(a bytea, b bytea) RETURNS int
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE WHEN a < b THEN -1 WHEN a > b THEN 1 ELSE 0 END $$;

-- The properties of a btree operator class and of its hash operator class,
-- over every pair (and every triple) of the values of a sample table
-- (column f); each property's row counts the pairs or values that break it.
CREATE FUNCTION order_check(tbl regclass, checksum_at int)
RETURNS TABLE (property text, value bigint) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TEMP TABLE s AS SELECT f, stored_bytes(f::bytea, %s) AS b FROM %s',
	               checksum_at, tbl);
	RETURN QUERY EXECUTE $q$
		SELECT 'values', count(*) FROM s
		UNION ALL
		SELECT 'distinct values', count(DISTINCT b) FROM s
	$q$;
	RETURN QUERY EXECUTE $q$
		SELECT 'failures: ' || v.property, count(*) FILTER (WHERE v.bad)
		FROM (SELECT x.f AS a, y.f AS b, x.b AS ab, y.b AS bb, bloom_cmp(x.f, y.f) AS c
		      FROM s x, s y) p,
		LATERAL (VALUES
			(1, 'bloom_cmp(a, b) = -bloom_cmp(b, a)', sign(c) <> -sign(bloom_cmp(b, a))),
			(2, 'bloom_cmp(a, b) = 0 exactly when a = b', (c = 0) <> (a = b)),
			(3, 'a <> b exactly when not a = b', (a <> b) = (a = b)),
			(4, '<, <=, >, >= as bloom_cmp', (a < b) <> (c < 0) OR (a <= b) <> (c <= 0)
			                                 OR (a > b) <> (c > 0) OR (a >= b) <> (c >= 0)),
			(5, 'bloom_cmp orders as bytea orders the stored bytes', sign(c) <> byte_order(ab, bb)),
			(6, 'a = b hash alike (bloom_hash; bloom_hash_extended, seeds 0, 42, -1)',
			    a = b AND (bloom_hash(a) <> bloom_hash(b)
			               OR bloom_hash_extended(a, 0) <> bloom_hash_extended(b, 0)
			               OR bloom_hash_extended(a, 42) <> bloom_hash_extended(b, 42)
			               OR bloom_hash_extended(a, -1) <> bloom_hash_extended(b, -1))))
			v(n, property, bad)
		GROUP BY v.n, v.property ORDER BY v.n
	$q$;
	RETURN QUERY EXECUTE $q$
		SELECT 'failures: low 32 bits of bloom_hash_extended(f, 0) = bloom_hash(f)',
		       count(*) FILTER (WHERE bloom_hash_extended(f, 0)::bit(32) <> bloom_hash(f)::bit(32)) FROM s
		UNION ALL
		SELECT 'failures: bloom_hash_extended(f, 1) <> bloom_hash_extended(f, 0)',
		       count(*) FILTER (WHERE bloom_hash_extended(f, 1) = bloom_hash_extended(f, 0)) FROM s
		UNION ALL
		SELECT 'failures: <, <= and = transitive over every triple', count(*)
		FROM s x, s y, s z
		WHERE (x.f < y.f AND y.f < z.f AND NOT x.f < z.f)
		   OR (x.f <= y.f AND y.f <= z.f AND NOT x.f <= z.f)
		   OR (x.f = y.f AND y.f = z.f AND NOT x.f = z.f)
	$q$;
	DROP TABLE s;
END $$;

-- =====================================================================
-- bloomfilter
-- =====================================================================

-- Each group holds equal values: computed in several ways, stored in a
-- table (with a 1-byte header if at most 126 bytes, compressed in line if
-- medium, compressed out of line if large) and stored out of line without
-- compression.  Different groups hold different values.
CREATE VIEW bf_computed AS SELECT * FROM (VALUES
  (1, 'computed', bloom_empty(10)),
  (2, 'computed', bloom_empty(10) + 1),
  (2, 'computed by bloom_add_all', bloom_add_all(bloom_empty(10), ARRAY[1])),
  (2, 'computed by bloom_agg', (SELECT bloom_agg(1, 10, 0.01))),
  (2, 'text round trip', (bloom_empty(10) + 1)::text::bloomfilter),
  (2, 'bytea round trip', (bloom_empty(10) + 1)::bytea::bloomfilter),
  (3, 'computed', bloom_empty(10) + 1 + 1),
  (4, 'computed', bloom_empty(10) + 2),
  (5, 'computed', bloom_empty(10, 0.01, 'classic') + 1),
  (6, 'computed', bloom_empty(10, seed => 7) + 1),
  (7, 'computed', bloom_empty(5000) + 1),
  (8, 'computed', bloom_empty(300000) + 1)
) v(grp, form, f);
CREATE TABLE bf_stored (grp int, form text, f bloomfilter);
CREATE TABLE bf_external (grp int, form text, f bloomfilter);
ALTER TABLE bf_external ALTER COLUMN f SET STORAGE external;
INSERT INTO bf_stored SELECT grp, 'stored', f FROM bf_computed WHERE form = 'computed';
INSERT INTO bf_external SELECT grp, 'stored, storage external', f FROM bf_computed
WHERE form = 'computed' AND grp IN (2, 7, 8);
CREATE VIEW bf_all AS
SELECT * FROM bf_stored UNION ALL SELECT * FROM bf_external UNION ALL SELECT * FROM bf_computed;
SELECT toasted_values('bf_stored') AS stored_out_of_line, toasted_values('bf_external') AS external_out_of_line;

-- every stored form equals the value computed in memory: =, <>, the
-- comparison function both ways, the order operators and both hashes
SELECT s.grp, s.form, held_as(pg_column_size(s.f), octet_length(s.f::bytea), pg_column_compression(s.f)),
       s.f = c.f AS eq, s.f <> c.f AS ne, bloom_cmp(s.f, c.f) AS cmp, bloom_cmp(c.f, s.f) AS cmp_back,
       s.f <= c.f AND s.f >= c.f AND NOT s.f < c.f AND NOT s.f > c.f AS order_eq,
       bloom_hash(s.f) = bloom_hash(c.f) AS hash_eq,
       bloom_hash_extended(s.f, 0) = bloom_hash_extended(c.f, 0)
         AND bloom_hash_extended(s.f, 42) = bloom_hash_extended(c.f, 42) AS hash_ext_eq
FROM bf_all s JOIN bf_computed c ON c.grp = s.grp AND c.form = 'computed'
WHERE s.form <> 'computed'
ORDER BY s.grp, s.form;

-- over every pair, = holds exactly within a group, and the order is the
-- stored bytes' order (checksum field zero, at offset 44)
WITH v AS MATERIALIZED (SELECT grp, f, stored_bytes(f::bytea, 44) AS b FROM bf_all)
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (x.f = y.f) IS DISTINCT FROM (x.grp = y.grp)) AS wrong_eq,
       count(*) FILTER (WHERE sign(bloom_cmp(x.f, y.f)) IS DISTINCT FROM byte_order(x.b, y.b)) AS wrong_order
FROM v x, v y;

-- GROUP BY and DISTINCT by sorting
SET enable_hashagg = off;
SELECT uses('GroupAggregate', 'SELECT f, count(*) FROM bf_all GROUP BY f') AS sorted_group_by,
       uses('Unique', 'SELECT DISTINCT f FROM bf_all') AS sorted_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM bf_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM bf_all) d;
RESET enable_hashagg;

-- GROUP BY and DISTINCT by hashing
SET enable_sort = off;
SELECT uses('HashAggregate', 'SELECT f, count(*) FROM bf_all GROUP BY f') AS hashed_group_by,
       uses('HashAggregate', 'SELECT DISTINCT f FROM bf_all') AS hashed_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM bf_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM bf_all) d;
RESET enable_sort;

-- count(DISTINCT) and array_agg(DISTINCT), which sort; the array ascends
SELECT count(DISTINCT f) AS distinct_f, count(DISTINCT grp) AS groups,
       cardinality(array_agg(DISTINCT f)) AS array_length FROM bf_all;
SELECT bool_and(a[i] < a[i + 1]) AS ascending
FROM (SELECT array_agg(DISTINCT f) AS a FROM bf_all) x, generate_subscripts(a, 1) i
WHERE i < cardinality(a);

-- ORDER BY: each group's values are adjacent (as many runs as groups),
-- in the stored bytes' order, and DESC is the reverse
SELECT count(*) FILTER (WHERE prev IS DISTINCT FROM grp) AS runs,
       bool_and(r = rb) AS as_stored_bytes, bool_and(r + rd = groups + 1) AS desc_reverses
FROM (SELECT grp, lag(grp) OVER (ORDER BY f, grp) AS prev,
             dense_rank() OVER (ORDER BY f) AS r,
             dense_rank() OVER (ORDER BY stored_bytes(f::bytea, 44)) AS rb,
             dense_rank() OVER (ORDER BY f DESC) AS rd
      FROM bf_all) x,
     (SELECT count(DISTINCT grp) AS groups FROM bf_all) g;

-- window partitions
SELECT uses('WindowAgg', 'SELECT count(*) OVER (PARTITION BY f) FROM bf_all') AS windowed,
       bool_and(n_f = n_grp AND lo = hi) AS partitions_are_groups
FROM (SELECT count(*) OVER (PARTITION BY f) AS n_f, count(*) OVER (PARTITION BY grp) AS n_grp,
             min(grp) OVER (PARTITION BY f) AS lo, max(grp) OVER (PARTITION BY f) AS hi
      FROM bf_all) w;

-- merge join, then hash join: the pairs of each group, and only those
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT uses('Merge Join', 'SELECT * FROM bf_all a JOIN bf_all b ON a.f = b.f') AS merge_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs,
       (SELECT sum(n * n) FROM (SELECT count(*) AS n FROM bf_all GROUP BY grp) g) AS expected
FROM bf_all a JOIN bf_all b ON a.f = b.f;
RESET enable_hashjoin;
SET enable_mergejoin = off;
SELECT uses('Hash Join', 'SELECT * FROM bf_all a JOIN bf_all b ON a.f = b.f') AS hash_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs
FROM bf_all a JOIN bf_all b ON a.f = b.f;
RESET enable_mergejoin;
RESET enable_nestloop;

-- hash partitioning (hash support function 2): equal values, whatever
-- their form, go to one partition, and a lookup by value is pruned to it
CREATE TABLE bf_hashed (grp int, form text, f bloomfilter) PARTITION BY HASH (f);
CREATE TABLE bf_hashed_0 PARTITION OF bf_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE bf_hashed_1 PARTITION OF bf_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE bf_hashed_2 PARTITION OF bf_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO bf_hashed SELECT * FROM bf_all;
SELECT count(*) FILTER (WHERE parts <> 1) AS groups_split, count(*) AS groups,
       (SELECT count(DISTINCT tableoid) FROM bf_hashed) > 1 AS spread
FROM (SELECT grp, count(DISTINCT tableoid) AS parts FROM bf_hashed GROUP BY grp) g;
SELECT uses('bf_hashed_', 'SELECT * FROM bf_hashed WHERE f = (' || quote_literal(f::text) || ')::bloomfilter')
         AND NOT uses('Append', 'SELECT * FROM bf_hashed WHERE f = (' || quote_literal(f::text) || ')::bloomfilter') AS pruned_to_one
FROM bf_computed WHERE grp = 2 AND form = 'computed';
-- the same bits, added once and twice: different values, ordered apart
SELECT a @>> b AND b @>> a AS same_bits, substr(a::bytea, 53) = substr(b::bytea, 53) AS same_bit_bytes,
       (bloom_info(a)).added AS added_a, (bloom_info(b)).added AS added_b,
       a = b AS eq, a <> b AS ne, bloom_cmp(a, b) <> 0 AND bloom_cmp(a, b) = -bloom_cmp(b, a) AS ordered_apart
FROM (SELECT bloom_empty(10) + 1 AS a, bloom_empty(10) + 1 + 1 AS b) x;

-- a sample: four geometries (one compressed when stored), 0 to 3 keys of
-- 3, so that many values repeat and many share all but a few bytes
SELECT setseed(0.25);
CREATE TABLE bf_sample AS
SELECT bloom_add_all(CASE floor(random() * 4)::int
                       WHEN 0 THEN bloom_empty(10) WHEN 1 THEN bloom_empty(10, 0.01, 'classic')
                       WHEN 2 THEN bloom_empty(10, seed => 1) ELSE bloom_empty(5000) END,
                     ARRAY(SELECT floor(random() * 3)::int
                           FROM generate_series(1, floor(random() * 4)::int + 0 * g))) AS f
FROM generate_series(1, 40) g;

-- a random sample: a total order that agrees with =, hashes that agree
-- with =, and a btree index
SELECT * FROM order_check('bf_sample', 44);
CREATE INDEX bf_sample_f ON bf_sample (f);
SET enable_seqscan = off;
SELECT uses('bf_sample_f', 'SELECT count(*) FROM bf_sample WHERE f = (SELECT f FROM bf_sample LIMIT 1)') AS index_scan,
       bool_and((SELECT count(*) FROM bf_sample t WHERE t.f = s.f) = n) AS index_finds_all
FROM (SELECT f, count(*) OVER (PARTITION BY stored_bytes(f::bytea, 44)) AS n FROM bf_sample) s;
RESET enable_seqscan;
-- a unique index: refused over the sample, which repeats values, accepted
-- over its distinct values
\set VERBOSITY terse
CREATE UNIQUE INDEX bf_sample_u ON bf_sample (f);
\set VERBOSITY default
CREATE TABLE bf_distinct AS SELECT DISTINCT f FROM bf_sample;
CREATE UNIQUE INDEX bf_distinct_u ON bf_distinct (f);

-- =====================================================================
-- countingbloom
-- =====================================================================

-- Each group holds equal values: computed in several ways, stored in a
-- table (with a 1-byte header if at most 126 bytes, compressed in line if
-- medium, compressed out of line if large) and stored out of line without
-- compression.  Different groups hold different values.
CREATE VIEW cb_computed AS SELECT * FROM (VALUES
  (1, 'computed', cbloom_empty(10)),
  (2, 'computed', cbloom_empty(10) + 1),
  (2, 'computed by cbloom_agg', (SELECT cbloom_agg(1, 10, 0.01))),
  (2, 'computed by adding and removing 2', cbloom_empty(10) + 1 + 2 - 2),
  (2, 'text round trip', (cbloom_empty(10) + 1)::text::countingbloom),
  (2, 'bytea round trip', (cbloom_empty(10) + 1)::bytea::countingbloom),
  (3, 'computed', (SELECT cbloom_agg(1, 10, 0.01) FROM generate_series(1, 15))),
  (4, 'computed', (SELECT cbloom_agg(1, 10, 0.01) FROM generate_series(1, 16))),
  (5, 'computed', cbloom_empty(10) + 2),
  (6, 'computed', cbloom_empty(10, 0.01, 'classic') + 1),
  (7, 'computed', cbloom_empty(10, seed => 7) + 1),
  (8, 'computed', cbloom_empty(10, counter_bits => 8) + 1),
  (9, 'computed', cbloom_empty(1500) + 1),
  (10, 'computed', cbloom_empty(80000) + 1)
) v(grp, form, f);
CREATE TABLE cb_stored (grp int, form text, f countingbloom);
CREATE TABLE cb_external (grp int, form text, f countingbloom);
ALTER TABLE cb_external ALTER COLUMN f SET STORAGE external;
INSERT INTO cb_stored SELECT grp, 'stored', f FROM cb_computed WHERE form = 'computed';
INSERT INTO cb_external SELECT grp, 'stored, storage external', f FROM cb_computed
WHERE form = 'computed' AND grp IN (2, 9, 10);
CREATE VIEW cb_all AS
SELECT * FROM cb_stored UNION ALL SELECT * FROM cb_external UNION ALL SELECT * FROM cb_computed;
SELECT toasted_values('cb_stored') AS stored_out_of_line, toasted_values('cb_external') AS external_out_of_line;

-- every stored form equals the value computed in memory: =, <>, the
-- comparison function both ways, the order operators and both hashes
SELECT s.grp, s.form, held_as(pg_column_size(s.f), octet_length(s.f::bytea), pg_column_compression(s.f)),
       s.f = c.f AS eq, s.f <> c.f AS ne, bloom_cmp(s.f, c.f) AS cmp, bloom_cmp(c.f, s.f) AS cmp_back,
       s.f <= c.f AND s.f >= c.f AND NOT s.f < c.f AND NOT s.f > c.f AS order_eq,
       bloom_hash(s.f) = bloom_hash(c.f) AS hash_eq,
       bloom_hash_extended(s.f, 0) = bloom_hash_extended(c.f, 0)
         AND bloom_hash_extended(s.f, 42) = bloom_hash_extended(c.f, 42) AS hash_ext_eq
FROM cb_all s JOIN cb_computed c ON c.grp = s.grp AND c.form = 'computed'
WHERE s.form <> 'computed'
ORDER BY s.grp, s.form;

-- over every pair, = holds exactly within a group, and the order is the
-- stored bytes' order (checksum field zero, at offset 44)
WITH v AS MATERIALIZED (SELECT grp, f, stored_bytes(f::bytea, 44) AS b FROM cb_all)
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (x.f = y.f) IS DISTINCT FROM (x.grp = y.grp)) AS wrong_eq,
       count(*) FILTER (WHERE sign(bloom_cmp(x.f, y.f)) IS DISTINCT FROM byte_order(x.b, y.b)) AS wrong_order
FROM v x, v y;

-- GROUP BY and DISTINCT by sorting
SET enable_hashagg = off;
SELECT uses('GroupAggregate', 'SELECT f, count(*) FROM cb_all GROUP BY f') AS sorted_group_by,
       uses('Unique', 'SELECT DISTINCT f FROM cb_all') AS sorted_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM cb_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM cb_all) d;
RESET enable_hashagg;

-- GROUP BY and DISTINCT by hashing
SET enable_sort = off;
SELECT uses('HashAggregate', 'SELECT f, count(*) FROM cb_all GROUP BY f') AS hashed_group_by,
       uses('HashAggregate', 'SELECT DISTINCT f FROM cb_all') AS hashed_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM cb_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM cb_all) d;
RESET enable_sort;

-- count(DISTINCT) and array_agg(DISTINCT), which sort; the array ascends
SELECT count(DISTINCT f) AS distinct_f, count(DISTINCT grp) AS groups,
       cardinality(array_agg(DISTINCT f)) AS array_length FROM cb_all;
SELECT bool_and(a[i] < a[i + 1]) AS ascending
FROM (SELECT array_agg(DISTINCT f) AS a FROM cb_all) x, generate_subscripts(a, 1) i
WHERE i < cardinality(a);

-- ORDER BY: each group's values are adjacent (as many runs as groups),
-- in the stored bytes' order, and DESC is the reverse
SELECT count(*) FILTER (WHERE prev IS DISTINCT FROM grp) AS runs,
       bool_and(r = rb) AS as_stored_bytes, bool_and(r + rd = groups + 1) AS desc_reverses
FROM (SELECT grp, lag(grp) OVER (ORDER BY f, grp) AS prev,
             dense_rank() OVER (ORDER BY f) AS r,
             dense_rank() OVER (ORDER BY stored_bytes(f::bytea, 44)) AS rb,
             dense_rank() OVER (ORDER BY f DESC) AS rd
      FROM cb_all) x,
     (SELECT count(DISTINCT grp) AS groups FROM cb_all) g;

-- window partitions
SELECT uses('WindowAgg', 'SELECT count(*) OVER (PARTITION BY f) FROM cb_all') AS windowed,
       bool_and(n_f = n_grp AND lo = hi) AS partitions_are_groups
FROM (SELECT count(*) OVER (PARTITION BY f) AS n_f, count(*) OVER (PARTITION BY grp) AS n_grp,
             min(grp) OVER (PARTITION BY f) AS lo, max(grp) OVER (PARTITION BY f) AS hi
      FROM cb_all) w;

-- merge join, then hash join: the pairs of each group, and only those
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT uses('Merge Join', 'SELECT * FROM cb_all a JOIN cb_all b ON a.f = b.f') AS merge_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs,
       (SELECT sum(n * n) FROM (SELECT count(*) AS n FROM cb_all GROUP BY grp) g) AS expected
FROM cb_all a JOIN cb_all b ON a.f = b.f;
RESET enable_hashjoin;
SET enable_mergejoin = off;
SELECT uses('Hash Join', 'SELECT * FROM cb_all a JOIN cb_all b ON a.f = b.f') AS hash_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs
FROM cb_all a JOIN cb_all b ON a.f = b.f;
RESET enable_mergejoin;
RESET enable_nestloop;

-- hash partitioning (hash support function 2): equal values, whatever
-- their form, go to one partition, and a lookup by value is pruned to it
CREATE TABLE cb_hashed (grp int, form text, f countingbloom) PARTITION BY HASH (f);
CREATE TABLE cb_hashed_0 PARTITION OF cb_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE cb_hashed_1 PARTITION OF cb_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE cb_hashed_2 PARTITION OF cb_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO cb_hashed SELECT * FROM cb_all;
SELECT count(*) FILTER (WHERE parts <> 1) AS groups_split, count(*) AS groups,
       (SELECT count(DISTINCT tableoid) FROM cb_hashed) > 1 AS spread
FROM (SELECT grp, count(DISTINCT tableoid) AS parts FROM cb_hashed GROUP BY grp) g;
SELECT uses('cb_hashed_', 'SELECT * FROM cb_hashed WHERE f = (' || quote_literal(f::text) || ')::countingbloom')
         AND NOT uses('Append', 'SELECT * FROM cb_hashed WHERE f = (' || quote_literal(f::text) || ')::countingbloom') AS pruned_to_one
FROM cb_computed WHERE grp = 2 AND form = 'computed';
-- the same counters (saturated at 15), added 15 and 16 times: different
-- values, ordered apart
SELECT substr(a::bytea, 53) = substr(b::bytea, 53) AS same_counters,
       (cbloom_info(a)).items AS items_a, (cbloom_info(b)).items AS items_b,
       a = b AS eq, a <> b AS ne, bloom_cmp(a, b) <> 0 AND bloom_cmp(a, b) = -bloom_cmp(b, a) AS ordered_apart
FROM (SELECT (SELECT cbloom_agg(1, 10, 0.01) FROM generate_series(1, 15)) AS a,
             (SELECT cbloom_agg(1, 10, 0.01) FROM generate_series(1, 16)) AS b) x;

-- a sample: four geometries (one compressed when stored), 0 to 3 keys of 3
CREATE FUNCTION cb_add_all(c countingbloom, keys int[]) RETURNS countingbloom
LANGUAGE plpgsql AS $$
DECLARE
	k int;
BEGIN
	FOREACH k IN ARRAY keys LOOP
		c := c + k;
	END LOOP;
	RETURN c;
END $$;
SELECT setseed(0.25);
CREATE TABLE cb_sample AS
SELECT cb_add_all(CASE floor(random() * 4)::int
                    WHEN 0 THEN cbloom_empty(10) WHEN 1 THEN cbloom_empty(10, 0.01, 'classic')
                    WHEN 2 THEN cbloom_empty(10, counter_bits => 8) ELSE cbloom_empty(1500) END,
                  ARRAY(SELECT floor(random() * 3)::int
                        FROM generate_series(1, floor(random() * 4)::int + 0 * g))) AS f
FROM generate_series(1, 40) g;

-- a random sample: a total order that agrees with =, hashes that agree
-- with =, and a btree index
SELECT * FROM order_check('cb_sample', 44);
CREATE INDEX cb_sample_f ON cb_sample (f);
SET enable_seqscan = off;
SELECT uses('cb_sample_f', 'SELECT count(*) FROM cb_sample WHERE f = (SELECT f FROM cb_sample LIMIT 1)') AS index_scan,
       bool_and((SELECT count(*) FROM cb_sample t WHERE t.f = s.f) = n) AS index_finds_all
FROM (SELECT f, count(*) OVER (PARTITION BY stored_bytes(f::bytea, 44)) AS n FROM cb_sample) s;
RESET enable_seqscan;
-- a unique index: refused over the sample, which repeats values, accepted
-- over its distinct values
\set VERBOSITY terse
CREATE UNIQUE INDEX cb_sample_u ON cb_sample (f);
\set VERBOSITY default
CREATE TABLE cb_distinct AS SELECT DISTINCT f FROM cb_sample;
CREATE UNIQUE INDEX cb_distinct_u ON cb_distinct (f);

-- =====================================================================
-- scalablebloom
-- =====================================================================

-- Each group holds equal values: computed in several ways, stored in a
-- table (with a 1-byte header if at most 126 bytes, compressed in line if
-- medium, compressed out of line if large) and stored out of line without
-- compression.  Different groups hold different values.
CREATE VIEW sb_computed AS SELECT * FROM (VALUES
  (1, 'computed', sbloom_empty(10, 0.1, 2, 0.1)),
  (2, 'computed', sbloom_empty(10, 0.1, 2, 0.1) + 1),
  (2, 'computed by bloom_add_all', bloom_add_all(sbloom_empty(10, 0.1, 2, 0.1), ARRAY[1])),
  (2, 'text round trip', (sbloom_empty(10, 0.1, 2, 0.1) + 1)::text::scalablebloom),
  (2, 'bytea round trip', (sbloom_empty(10, 0.1, 2, 0.1) + 1)::bytea::scalablebloom),
  (3, 'computed', sbloom_empty(10, 0.1, 2, 0.1) + 1 + 1),
  (4, 'computed', sbloom_empty(10, 0.1, 2, 0.1) + 2),
  (5, 'computed', bloom_add_all(sbloom_empty(3, 0.1, 2, 0.1), ARRAY[1, 2, 3, 4, 5, 6, 7])),
  (6, 'computed', sbloom_empty(10, 0.1, 4, 0.1) + 1),
  (7, 'computed', (bloom_empty(10) + 1)::scalablebloom),
  (8, 'computed', sbloom_empty(3000) + 1),
  (9, 'computed', sbloom_empty(200000) + 1)
) v(grp, form, f);
CREATE TABLE sb_stored (grp int, form text, f scalablebloom);
CREATE TABLE sb_external (grp int, form text, f scalablebloom);
ALTER TABLE sb_external ALTER COLUMN f SET STORAGE external;
INSERT INTO sb_stored SELECT grp, 'stored', f FROM sb_computed WHERE form = 'computed';
INSERT INTO sb_external SELECT grp, 'stored, storage external', f FROM sb_computed
WHERE form = 'computed' AND grp IN (2, 8, 9);
CREATE VIEW sb_all AS
SELECT * FROM sb_stored UNION ALL SELECT * FROM sb_external UNION ALL SELECT * FROM sb_computed;
SELECT toasted_values('sb_stored') AS stored_out_of_line, toasted_values('sb_external') AS external_out_of_line;

-- every stored form equals the value computed in memory: =, <>, the
-- comparison function both ways, the order operators and both hashes
SELECT s.grp, s.form, held_as(pg_column_size(s.f), octet_length(s.f::bytea), pg_column_compression(s.f)),
       s.f = c.f AS eq, s.f <> c.f AS ne, bloom_cmp(s.f, c.f) AS cmp, bloom_cmp(c.f, s.f) AS cmp_back,
       s.f <= c.f AND s.f >= c.f AND NOT s.f < c.f AND NOT s.f > c.f AS order_eq,
       bloom_hash(s.f) = bloom_hash(c.f) AS hash_eq,
       bloom_hash_extended(s.f, 0) = bloom_hash_extended(c.f, 0)
         AND bloom_hash_extended(s.f, 42) = bloom_hash_extended(c.f, 42) AS hash_ext_eq
FROM sb_all s JOIN sb_computed c ON c.grp = s.grp AND c.form = 'computed'
WHERE s.form <> 'computed'
ORDER BY s.grp, s.form;

-- over every pair, = holds exactly within a group, and the order is the
-- stored bytes' order (checksum field zero, at offset 60)
WITH v AS MATERIALIZED (SELECT grp, f, stored_bytes(f::bytea, 60) AS b FROM sb_all)
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (x.f = y.f) IS DISTINCT FROM (x.grp = y.grp)) AS wrong_eq,
       count(*) FILTER (WHERE sign(bloom_cmp(x.f, y.f)) IS DISTINCT FROM byte_order(x.b, y.b)) AS wrong_order
FROM v x, v y;

-- GROUP BY and DISTINCT by sorting
SET enable_hashagg = off;
SELECT uses('GroupAggregate', 'SELECT f, count(*) FROM sb_all GROUP BY f') AS sorted_group_by,
       uses('Unique', 'SELECT DISTINCT f FROM sb_all') AS sorted_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM sb_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM sb_all) d;
RESET enable_hashagg;

-- GROUP BY and DISTINCT by hashing
SET enable_sort = off;
SELECT uses('HashAggregate', 'SELECT f, count(*) FROM sb_all GROUP BY f') AS hashed_group_by,
       uses('HashAggregate', 'SELECT DISTINCT f FROM sb_all') AS hashed_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM sb_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM sb_all) d;
RESET enable_sort;

-- count(DISTINCT) and array_agg(DISTINCT), which sort; the array ascends
SELECT count(DISTINCT f) AS distinct_f, count(DISTINCT grp) AS groups,
       cardinality(array_agg(DISTINCT f)) AS array_length FROM sb_all;
SELECT bool_and(a[i] < a[i + 1]) AS ascending
FROM (SELECT array_agg(DISTINCT f) AS a FROM sb_all) x, generate_subscripts(a, 1) i
WHERE i < cardinality(a);

-- ORDER BY: each group's values are adjacent (as many runs as groups),
-- in the stored bytes' order, and DESC is the reverse
SELECT count(*) FILTER (WHERE prev IS DISTINCT FROM grp) AS runs,
       bool_and(r = rb) AS as_stored_bytes, bool_and(r + rd = groups + 1) AS desc_reverses
FROM (SELECT grp, lag(grp) OVER (ORDER BY f, grp) AS prev,
             dense_rank() OVER (ORDER BY f) AS r,
             dense_rank() OVER (ORDER BY stored_bytes(f::bytea, 60)) AS rb,
             dense_rank() OVER (ORDER BY f DESC) AS rd
      FROM sb_all) x,
     (SELECT count(DISTINCT grp) AS groups FROM sb_all) g;

-- window partitions
SELECT uses('WindowAgg', 'SELECT count(*) OVER (PARTITION BY f) FROM sb_all') AS windowed,
       bool_and(n_f = n_grp AND lo = hi) AS partitions_are_groups
FROM (SELECT count(*) OVER (PARTITION BY f) AS n_f, count(*) OVER (PARTITION BY grp) AS n_grp,
             min(grp) OVER (PARTITION BY f) AS lo, max(grp) OVER (PARTITION BY f) AS hi
      FROM sb_all) w;

-- merge join, then hash join: the pairs of each group, and only those
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT uses('Merge Join', 'SELECT * FROM sb_all a JOIN sb_all b ON a.f = b.f') AS merge_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs,
       (SELECT sum(n * n) FROM (SELECT count(*) AS n FROM sb_all GROUP BY grp) g) AS expected
FROM sb_all a JOIN sb_all b ON a.f = b.f;
RESET enable_hashjoin;
SET enable_mergejoin = off;
SELECT uses('Hash Join', 'SELECT * FROM sb_all a JOIN sb_all b ON a.f = b.f') AS hash_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs
FROM sb_all a JOIN sb_all b ON a.f = b.f;
RESET enable_mergejoin;
RESET enable_nestloop;

-- hash partitioning (hash support function 2): equal values, whatever
-- their form, go to one partition, and a lookup by value is pruned to it
CREATE TABLE sb_hashed (grp int, form text, f scalablebloom) PARTITION BY HASH (f);
CREATE TABLE sb_hashed_0 PARTITION OF sb_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE sb_hashed_1 PARTITION OF sb_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE sb_hashed_2 PARTITION OF sb_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO sb_hashed SELECT * FROM sb_all;
SELECT count(*) FILTER (WHERE parts <> 1) AS groups_split, count(*) AS groups,
       (SELECT count(DISTINCT tableoid) FROM sb_hashed) > 1 AS spread
FROM (SELECT grp, count(DISTINCT tableoid) AS parts FROM sb_hashed GROUP BY grp) g;
SELECT uses('sb_hashed_', 'SELECT * FROM sb_hashed WHERE f = (' || quote_literal(f::text) || ')::scalablebloom')
         AND NOT uses('Append', 'SELECT * FROM sb_hashed WHERE f = (' || quote_literal(f::text) || ')::scalablebloom') AS pruned_to_one
FROM sb_computed WHERE grp = 2 AND form = 'computed';
-- the same bits, added once and twice: different values, ordered apart
SELECT (SELECT array_agg(bits_set) FROM sbloom_filters(a)) = (SELECT array_agg(bits_set) FROM sbloom_filters(b)) AS same_bits,
       (bloom_info(a)).added AS added_a, (bloom_info(b)).added AS added_b,
       a = b AS eq, a <> b AS ne, bloom_cmp(a, b) <> 0 AND bloom_cmp(a, b) = -bloom_cmp(b, a) AS ordered_apart
FROM (SELECT sbloom_empty(10, 0.1, 2, 0.1) + 1 AS a, sbloom_empty(10, 0.1, 2, 0.1) + 1 + 1 AS b) x;

-- a sample: four settings (one that grows a sub-filter with a few keys,
-- one compressed when stored), 0 to 5 keys of 4
SELECT setseed(0.25);
CREATE TABLE sb_sample AS
SELECT bloom_add_all(CASE floor(random() * 4)::int
                       WHEN 0 THEN sbloom_empty(10, 0.1, 2, 0.1) WHEN 1 THEN sbloom_empty(2, 0.1, 2, 0.1)
                       WHEN 2 THEN sbloom_empty(10, 0.1, 4, 0.1) ELSE sbloom_empty(3000) END,
                     ARRAY(SELECT floor(random() * 4)::int
                           FROM generate_series(1, floor(random() * 6)::int + 0 * g))) AS f
FROM generate_series(1, 40) g;
SELECT count(*) FILTER (WHERE (sbloom_settings(f)).filters > 1) > 0 AS some_have_grown FROM sb_sample;

-- a random sample: a total order that agrees with =, hashes that agree
-- with =, and a btree index
SELECT * FROM order_check('sb_sample', 60);
CREATE INDEX sb_sample_f ON sb_sample (f);
SET enable_seqscan = off;
SELECT uses('sb_sample_f', 'SELECT count(*) FROM sb_sample WHERE f = (SELECT f FROM sb_sample LIMIT 1)') AS index_scan,
       bool_and((SELECT count(*) FROM sb_sample t WHERE t.f = s.f) = n) AS index_finds_all
FROM (SELECT f, count(*) OVER (PARTITION BY stored_bytes(f::bytea, 60)) AS n FROM sb_sample) s;
RESET enable_seqscan;
-- a unique index: refused over the sample, which repeats values, accepted
-- over its distinct values
\set VERBOSITY terse
CREATE UNIQUE INDEX sb_sample_u ON sb_sample (f);
\set VERBOSITY default
CREATE TABLE sb_distinct AS SELECT DISTINCT f FROM sb_sample;
CREATE UNIQUE INDEX sb_distinct_u ON sb_distinct (f);

-- =====================================================================
-- bloomwindow
-- =====================================================================

-- Each group holds equal values: computed in several ways, stored in a
-- table (with a 1-byte header if at most 126 bytes, compressed in line if
-- medium, compressed out of line if large) and stored out of line without
-- compression.  Different groups hold different values.
CREATE VIEW bw_computed AS SELECT * FROM (VALUES
  (1, 'computed', bloom_window_empty('1 hour', 2, 10)),
  (2, 'computed', bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00')),
  (2, 'computed by bloom_window_agg', (SELECT bloom_window_agg(1, '2024-01-01 00:10+00', '1 hour', 2, 10, 0.01))),
  (2, 'text round trip', bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00')::text::bloomwindow),
  (2, 'bytea round trip', bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00')::bytea::bloomwindow),
  (3, 'computed', bloom_window_add(bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00'), 1, '2024-01-01 00:10+00')),
  (4, 'computed', bloom_window_add(bloom_window_empty('1 hour', 2, 10), 2, '2024-01-01 00:10+00')),
  (5, 'computed', bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00'::timestamptz + '40 minutes')),
  (6, 'computed', bloom_window_add(bloom_window_empty('1 hour', 3, 10), 1, '2024-01-01 00:10+00')),
  (7, 'computed', bloom_window_add(bloom_window_empty('1 hour', 2, 2000), 1, '2024-01-01 00:10+00')),
  (8, 'computed', bloom_window_add(bloom_window_empty('1 hour', 2, 150000), 1, '2024-01-01 00:10+00'))
) v(grp, form, f);
CREATE TABLE bw_stored (grp int, form text, f bloomwindow);
CREATE TABLE bw_external (grp int, form text, f bloomwindow);
ALTER TABLE bw_external ALTER COLUMN f SET STORAGE external;
INSERT INTO bw_stored SELECT grp, 'stored', f FROM bw_computed WHERE form = 'computed';
INSERT INTO bw_external SELECT grp, 'stored, storage external', f FROM bw_computed
WHERE form = 'computed' AND grp IN (2, 7, 8);
CREATE VIEW bw_all AS
SELECT * FROM bw_stored UNION ALL SELECT * FROM bw_external UNION ALL SELECT * FROM bw_computed;
SELECT toasted_values('bw_stored') AS stored_out_of_line, toasted_values('bw_external') AS external_out_of_line;

-- every stored form equals the value computed in memory: =, <>, the
-- comparison function both ways, the order operators and both hashes
SELECT s.grp, s.form, held_as(pg_column_size(s.f), octet_length(s.f::bytea), pg_column_compression(s.f)),
       s.f = c.f AS eq, s.f <> c.f AS ne, bloom_cmp(s.f, c.f) AS cmp, bloom_cmp(c.f, s.f) AS cmp_back,
       s.f <= c.f AND s.f >= c.f AND NOT s.f < c.f AND NOT s.f > c.f AS order_eq,
       bloom_hash(s.f) = bloom_hash(c.f) AS hash_eq,
       bloom_hash_extended(s.f, 0) = bloom_hash_extended(c.f, 0)
         AND bloom_hash_extended(s.f, 42) = bloom_hash_extended(c.f, 42) AS hash_ext_eq
FROM bw_all s JOIN bw_computed c ON c.grp = s.grp AND c.form = 'computed'
WHERE s.form <> 'computed'
ORDER BY s.grp, s.form;

-- over every pair, = holds exactly within a group, and the order is the
-- stored bytes' order (checksum field zero, at offset 56)
WITH v AS MATERIALIZED (SELECT grp, f, stored_bytes(f::bytea, 56) AS b FROM bw_all)
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (x.f = y.f) IS DISTINCT FROM (x.grp = y.grp)) AS wrong_eq,
       count(*) FILTER (WHERE sign(bloom_cmp(x.f, y.f)) IS DISTINCT FROM byte_order(x.b, y.b)) AS wrong_order
FROM v x, v y;

-- GROUP BY and DISTINCT by sorting
SET enable_hashagg = off;
SELECT uses('GroupAggregate', 'SELECT f, count(*) FROM bw_all GROUP BY f') AS sorted_group_by,
       uses('Unique', 'SELECT DISTINCT f FROM bw_all') AS sorted_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM bw_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM bw_all) d;
RESET enable_hashagg;

-- GROUP BY and DISTINCT by hashing
SET enable_sort = off;
SELECT uses('HashAggregate', 'SELECT f, count(*) FROM bw_all GROUP BY f') AS hashed_group_by,
       uses('HashAggregate', 'SELECT DISTINCT f FROM bw_all') AS hashed_distinct;
SELECT min(grp) AS grp, min(grp) = max(grp) AS one_group, count(*) AS n FROM bw_all GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_values FROM (SELECT DISTINCT f FROM bw_all) d;
RESET enable_sort;

-- count(DISTINCT) and array_agg(DISTINCT), which sort; the array ascends
SELECT count(DISTINCT f) AS distinct_f, count(DISTINCT grp) AS groups,
       cardinality(array_agg(DISTINCT f)) AS array_length FROM bw_all;
SELECT bool_and(a[i] < a[i + 1]) AS ascending
FROM (SELECT array_agg(DISTINCT f) AS a FROM bw_all) x, generate_subscripts(a, 1) i
WHERE i < cardinality(a);

-- ORDER BY: each group's values are adjacent (as many runs as groups),
-- in the stored bytes' order, and DESC is the reverse
SELECT count(*) FILTER (WHERE prev IS DISTINCT FROM grp) AS runs,
       bool_and(r = rb) AS as_stored_bytes, bool_and(r + rd = groups + 1) AS desc_reverses
FROM (SELECT grp, lag(grp) OVER (ORDER BY f, grp) AS prev,
             dense_rank() OVER (ORDER BY f) AS r,
             dense_rank() OVER (ORDER BY stored_bytes(f::bytea, 56)) AS rb,
             dense_rank() OVER (ORDER BY f DESC) AS rd
      FROM bw_all) x,
     (SELECT count(DISTINCT grp) AS groups FROM bw_all) g;

-- window partitions
SELECT uses('WindowAgg', 'SELECT count(*) OVER (PARTITION BY f) FROM bw_all') AS windowed,
       bool_and(n_f = n_grp AND lo = hi) AS partitions_are_groups
FROM (SELECT count(*) OVER (PARTITION BY f) AS n_f, count(*) OVER (PARTITION BY grp) AS n_grp,
             min(grp) OVER (PARTITION BY f) AS lo, max(grp) OVER (PARTITION BY f) AS hi
      FROM bw_all) w;

-- merge join, then hash join: the pairs of each group, and only those
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT uses('Merge Join', 'SELECT * FROM bw_all a JOIN bw_all b ON a.f = b.f') AS merge_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs,
       (SELECT sum(n * n) FROM (SELECT count(*) AS n FROM bw_all GROUP BY grp) g) AS expected
FROM bw_all a JOIN bw_all b ON a.f = b.f;
RESET enable_hashjoin;
SET enable_mergejoin = off;
SELECT uses('Hash Join', 'SELECT * FROM bw_all a JOIN bw_all b ON a.f = b.f') AS hash_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.grp <> b.grp) AS wrong_pairs
FROM bw_all a JOIN bw_all b ON a.f = b.f;
RESET enable_mergejoin;
RESET enable_nestloop;

-- hash partitioning (hash support function 2): equal values, whatever
-- their form, go to one partition, and a lookup by value is pruned to it
CREATE TABLE bw_hashed (grp int, form text, f bloomwindow) PARTITION BY HASH (f);
CREATE TABLE bw_hashed_0 PARTITION OF bw_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE bw_hashed_1 PARTITION OF bw_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE bw_hashed_2 PARTITION OF bw_hashed FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO bw_hashed SELECT * FROM bw_all;
SELECT count(*) FILTER (WHERE parts <> 1) AS groups_split, count(*) AS groups,
       (SELECT count(DISTINCT tableoid) FROM bw_hashed) > 1 AS spread
FROM (SELECT grp, count(DISTINCT tableoid) AS parts FROM bw_hashed GROUP BY grp) g;
SELECT uses('bw_hashed_', 'SELECT * FROM bw_hashed WHERE f = (' || quote_literal(f::text) || ')::bloomwindow')
         AND NOT uses('Append', 'SELECT * FROM bw_hashed WHERE f = (' || quote_literal(f::text) || ')::bloomwindow') AS pruned_to_one
FROM bw_computed WHERE grp = 2 AND form = 'computed';
-- the same bits, added once and twice: different values, ordered apart
SELECT (SELECT array_agg(bits_set ORDER BY slot) FROM bloom_window_info(a, '2024-01-01 00:10+00'))
     = (SELECT array_agg(bits_set ORDER BY slot) FROM bloom_window_info(b, '2024-01-01 00:10+00')) AS same_bits,
       (SELECT sum(added) FROM bloom_window_info(a, '2024-01-01 00:10+00')) AS added_a,
       (SELECT sum(added) FROM bloom_window_info(b, '2024-01-01 00:10+00')) AS added_b,
       a = b AS eq, a <> b AS ne, bloom_cmp(a, b) <> 0 AND bloom_cmp(a, b) = -bloom_cmp(b, a) AS ordered_apart
FROM (SELECT bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00') AS a,
             bloom_window_add(bloom_window_add(bloom_window_empty('1 hour', 2, 10), 1, '2024-01-01 00:10+00'),
                              1, '2024-01-01 00:10+00') AS b) x;

-- a sample: four geometries (one compressed when stored), 0 to 3 keys of
-- 6, key k added at 00:10 + (k / 2) * 40 minutes (so in one of 3 buckets)
CREATE FUNCTION bw_add_all(w bloomwindow, keys int[]) RETURNS bloomwindow
LANGUAGE plpgsql AS $$
DECLARE
	k int;
BEGIN
	FOREACH k IN ARRAY keys LOOP
		w := bloom_window_add(w, k, '2024-01-01 00:10+00'::timestamptz + (k / 2) * interval '40 minutes');
	END LOOP;
	RETURN w;
END $$;
SELECT setseed(0.25);
CREATE TABLE bw_sample AS
SELECT bw_add_all(CASE floor(random() * 4)::int
                    WHEN 0 THEN bloom_window_empty('1 hour', 2, 10) WHEN 1 THEN bloom_window_empty('1 hour', 3, 10)
                    WHEN 2 THEN bloom_window_empty('1 hour', 2, 10, seed => 1)
                    ELSE bloom_window_empty('1 hour', 2, 2000) END,
                  ARRAY(SELECT floor(random() * 6)::int
                        FROM generate_series(1, floor(random() * 4)::int + 0 * g))) AS f
FROM generate_series(1, 40) g;

-- a random sample: a total order that agrees with =, hashes that agree
-- with =, and a btree index
SELECT * FROM order_check('bw_sample', 56);
CREATE INDEX bw_sample_f ON bw_sample (f);
SET enable_seqscan = off;
SELECT uses('bw_sample_f', 'SELECT count(*) FROM bw_sample WHERE f = (SELECT f FROM bw_sample LIMIT 1)') AS index_scan,
       bool_and((SELECT count(*) FROM bw_sample t WHERE t.f = s.f) = n) AS index_finds_all
FROM (SELECT f, count(*) OVER (PARTITION BY stored_bytes(f::bytea, 56)) AS n FROM bw_sample) s;
RESET enable_seqscan;
-- a unique index: refused over the sample, which repeats values, accepted
-- over its distinct values
\set VERBOSITY terse
CREATE UNIQUE INDEX bw_sample_u ON bw_sample (f);
\set VERBOSITY default
CREATE TABLE bw_distinct AS SELECT DISTINCT f FROM bw_sample;
CREATE UNIQUE INDEX bw_distinct_u ON bw_distinct (f);

-- clean up: the tables hold values of the extension's types
DROP VIEW bf_all, cb_all, sb_all, bw_all, bf_computed, cb_computed, sb_computed, bw_computed;
DROP TABLE bf_stored, bf_external, bf_hashed, bf_sample, bf_distinct,
	cb_stored, cb_external, cb_hashed, cb_sample, cb_distinct,
	sb_stored, sb_external, sb_hashed, sb_sample, sb_distinct,
	bw_stored, bw_external, bw_hashed, bw_sample, bw_distinct;
DROP FUNCTION uses, held_as, toasted_values, stored_bytes, byte_order, order_check, cb_add_all, bw_add_all;
