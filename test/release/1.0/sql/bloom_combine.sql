--
-- Combining: union, intersection, superset test, and folding of filters
-- whose sizes differ by a power of two.
--

CREATE TABLE combine_sets AS
SELECT layout,
       bloom_add_all(bloom_empty(20000, 0.01, layout), (SELECT array_agg(g) FROM generate_series(1, 10000) g)) AS a,
       bloom_add_all(bloom_empty(20000, 0.01, layout), (SELECT array_agg(g) FROM generate_series(5001, 15000) g)) AS b,
       bloom_add_all(bloom_empty(20000, 0.01, layout), (SELECT array_agg(g) FROM generate_series(1, 15000) g)) AS ab
FROM (VALUES ('blocked'), ('classic')) l(layout);

-- the union of two filters has exactly the bits of the filter built from
-- the union of the sets; only the add count differs (added twice)
SELECT layout,
       (bloom_info(a | b)).bits_set = (bloom_info(ab)).bits_set AS same_bits,
       bloom_contains_filter(a | b, ab) AND bloom_contains_filter(ab, a | b) AS same_set,
       bloom_union(a, b) = (a | b) AS fn_eq_op,
       (bloom_info(a | b)).added AS added
FROM combine_sets ORDER BY layout;

-- union and intersection are commutative
SELECT layout, (a | b) = (b | a) AS union_commutes, (a & b) = (b & a) AS intersect_commutes
FROM combine_sets ORDER BY layout;

-- the intersection keeps every common key (5001..10000)
SELECT layout,
       (SELECT count(*) FROM generate_series(5001, 10000) g WHERE NOT g <@ (a & b)) AS lost_common_keys,
       bloom_intersect(a, b) = (a & b) AS fn_eq_op
FROM combine_sets ORDER BY layout;

-- and drops most keys of only one side
SELECT layout,
       (SELECT count(*) FROM generate_series(1, 5000) g WHERE g <@ (a & b)) < 500 AS mostly_gone
FROM combine_sets ORDER BY layout;

-- superset test: the union contains each side, not the other way round
SELECT layout,
       bloom_contains_filter(a | b, a) AS union_has_a,
       (a | b) @>> b AS union_has_b,
       a <<@ (a | b) AS a_in_union,
       bloom_contains_filter(a, a | b) AS a_has_union
FROM combine_sets ORDER BY layout;

-- an empty filter (no key family yet) combines with any
SELECT layout,
       (a | bloom_empty(20000, 0.01, layout)) = a AS union_identity,
       (bloom_info(a & bloom_empty(20000, 0.01, layout))).bits_set AS intersect_empty_bits,
       (bloom_info(bloom_empty(20000, 0.01, layout) | a)).key_family AS family
FROM combine_sets ORDER BY layout;

-- folding: filters whose sizes differ by a power of two combine at the
-- smaller size, and the result is exactly the small filter built directly
SELECT layout,
       (bloom_info(big | small)).bits AS bits,
       (big | small) = small_direct AS union_is_direct_build
FROM (
	SELECT layout,
	       bloom_add_all(bloom_empty_bits(8192 * 8, 5, layout), (SELECT array_agg(g) FROM generate_series(1, 500) g)) AS big,
	       bloom_empty_bits(8192, 5, layout) AS small,
	       bloom_add_all(bloom_empty_bits(8192, 5, layout), (SELECT array_agg(g) FROM generate_series(1, 500) g)) AS small_direct
	FROM (VALUES ('blocked'), ('classic')) l(layout)
) f ORDER BY layout;

-- folded filters still find every key of both sides
SELECT layout,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE NOT g <@ (big | small)) AS false_negatives
FROM (
	SELECT layout,
	       bloom_add_all(bloom_empty_bits(8192 * 4, 5, layout), (SELECT array_agg(g) FROM generate_series(1, 500) g)) AS big,
	       bloom_add_all(bloom_empty_bits(8192, 5, layout), (SELECT array_agg(g) FROM generate_series(501, 1000) g)) AS small
	FROM (VALUES ('blocked'), ('classic')) l(layout)
) f ORDER BY layout;

-- filters that cannot be combined say why
SELECT bloom_empty(100, 0.01, 'blocked') | bloom_empty(100, 0.01, 'classic');
SELECT bloom_empty_bits(1024, 3) | bloom_empty_bits(1024, 4);
SELECT bloom_empty(100, 0.01, 'blocked', 1) & bloom_empty(100, 0.01, 'blocked', 2);
SELECT (bloom_empty(100) + 1) | (bloom_empty(100) + 'one');
SELECT bloom_empty_bits(1024, 3) | bloom_empty_bits(3072, 3);

DROP TABLE combine_sets;
