--
-- Basics: constructors, adding, probing, operators, equality.
--

-- bloom_empty sizes the filter for a capacity and a rate; blocked is the default
SELECT layout, bits, hashes, bytes, seed, key_family, added, bits_set, format_version
FROM bloom_info(bloom_empty(1000));
SELECT layout, bits, hashes, bytes FROM bloom_info(bloom_empty(1000, 0.01, 'classic'));
SELECT layout, bits, hashes, seed FROM bloom_info(bloom_empty(1000, 0.001, 'blocked', 42));

-- bloom_empty_bits takes m and k as given, m rounded up to whole 64-bit
-- words (classic) or 512-bit blocks (blocked)
SELECT layout, bits, hashes FROM bloom_info(bloom_empty_bits(1000, 5));
SELECT layout, bits, hashes FROM bloom_info(bloom_empty_bits(1024, 3, 'classic'));
SELECT layout, bits, hashes FROM bloom_info(bloom_empty_bits(1000, 5, 'blocked'));

-- an empty filter contains nothing and has no key family yet
SELECT bloom_contains(bloom_empty(100), 1), bloom_contains(bloom_empty(100), 'x'::text);

-- adding: function and operator agree, and the added key is found
SELECT bloom_add(bloom_empty(100), 42) = bloom_empty(100) + 42 AS same;
SELECT bloom_contains(bloom_empty(100) + 42, 42) AS has_42,
       (bloom_empty(100) + 42) @> 42 AS op_has_42,
       42 <@ (bloom_empty(100) + 42) AS op_in_42;

-- a key that was not added is (here) not found
SELECT bloom_contains(bloom_empty(100) + 42, 43) AS has_43;

-- adding does not modify its input (filters are values)
WITH f AS (SELECT bloom_empty(100) AS f)
SELECT (bloom_info(f)).added AS before, (bloom_info(f + 1)).added AS after,
       (bloom_info(f)).added AS before_again
FROM f;

-- adding the same key twice sets no new bit but counts the add
SELECT (bloom_info(bloom_empty(100) + 7)).bits_set = (bloom_info(bloom_empty(100) + 7 + 7)).bits_set AS same_bits,
       (bloom_info(bloom_empty(100) + 7 + 7)).added AS added;

-- NULL element: the filter is unchanged; NULL filter stays NULL
SELECT bloom_add(bloom_empty(100), NULL::int) = bloom_empty(100) AS unchanged;
SELECT bloom_add(NULL::bloomfilter, 1) IS NULL AS null_filter;
SELECT bloom_contains(bloom_empty(100) + 1, NULL::int) IS NULL AS null_probe;

-- bloom_add_all adds every non-NULL element of an array
SELECT bloom_add_all(bloom_empty(100), ARRAY[1, 2, 3]) = bloom_empty(100) + 1 + 2 + 3 AS same,
       (bloom_info(bloom_add_all(bloom_empty(100), ARRAY[1, NULL, 3]))).added AS added;
SELECT bloom_add_all(bloom_empty(100), '{}'::int[]) = bloom_empty(100) AS empty_array;
SELECT k, bloom_add_all(bloom_empty(100), ARRAY['a', 'b']) @> k AS found
FROM unnest(ARRAY['a', 'b']) AS k;

-- untyped literals are text
SELECT (bloom_empty(100) + 'apple') @> 'apple' AS apple,
       'apple' <@ (bloom_empty(100) + 'apple') AS apple_in,
       (bloom_empty(100) + 'apple') @> 'apple'::varchar AS as_varchar;

-- equality is identity of the whole filter: geometry, seed, family and bits
SELECT bloom_empty(100) = bloom_empty(100) AS eq,
       bloom_empty(100) <> bloom_empty(100, 0.01, 'blocked', 1) AS seed_differs,
       bloom_empty(100) + 1 <> bloom_empty(100) + 2 AS bits_differ,
       bloom_empty(100) + 1 + 2 = bloom_empty(100) + 2 + 1 AS order_free;

-- the seed changes where keys land
SELECT (bloom_empty(100, 0.01, 'blocked', 1) + 1)::bytea <> (bloom_empty(100, 0.01, 'blocked', 2) + 1)::bytea AS differ;

-- filters can be grouped and hashed
SELECT count(*) FROM (SELECT f FROM (VALUES (bloom_empty(10) + 1), (bloom_empty(10) + 1), (bloom_empty(10) + 2)) v(f) GROUP BY f) g;

-- filters in a table, updated in place with +
CREATE TABLE bf_basics (id int PRIMARY KEY, f bloomfilter);
INSERT INTO bf_basics VALUES (1, bloom_empty(1000)), (2, bloom_empty(1000, 0.01, 'classic'));
UPDATE bf_basics SET f = f + 'x';
UPDATE bf_basics SET f = f + 'y';
SELECT id, f @> 'x' AS x, f @> 'y' AS y, (bloom_info(f)).added FROM bf_basics ORDER BY id;
SELECT id FROM bf_basics WHERE 'y' <@ f ORDER BY id;
DROP TABLE bf_basics;

-- a large filter stored out of line (TOAST) is probed from a subquery
CREATE TABLE bf_big (name text, f bloomfilter);
INSERT INTO bf_big SELECT 'evens', bloom_agg(g * 2, 500000, 0.01) FROM generate_series(1, 500000) g;
SELECT pg_column_size(f) > 100000 AS toasted_size FROM bf_big;
SELECT count(*) AS hits FROM generate_series(1, 20000) x
WHERE x <@ (SELECT f FROM bf_big WHERE name = 'evens');
DROP TABLE bf_big;
