--
-- Estimates: cardinality (Swamidass & Baldi) within 5% of the truth, union
-- and intersection sizes within 10%, Jaccard, and the current rate.
--

CREATE TABLE est AS
SELECT layout, n,
       bloom_add_all(bloom_empty(n, 0.01, layout), (SELECT array_agg(g) FROM generate_series(1, n) g)) AS f
FROM (VALUES ('blocked'), ('classic')) l(layout),
     (VALUES (1000), (10000), (100000)) s(n);

-- cardinality within 5%
SELECT layout, n, abs(bloom_cardinality(f) / n - 1) < 0.05 AS within_5pct,
       (bloom_info(f)).est_cardinality = bloom_cardinality(f) AS info_agrees
FROM est ORDER BY layout, n;

-- an empty filter holds nothing and answers nothing
SELECT bloom_cardinality(bloom_empty(1000)) AS card, bloom_fpr(bloom_empty(1000)) AS fpr;

-- a filter filled far past its capacity says so: its rate climbs
SELECT bloom_fpr(f) > 0.5 AS saturated, bloom_cardinality(f) > 1000 AS past_capacity
FROM (SELECT bloom_add_all(bloom_empty(100), (SELECT array_agg(g) FROM generate_series(1, 100000) g)) AS f) s;

-- union and intersection sizes of two overlapping sets: A = 1..60000,
-- B = 30001..100000, |A u B| = 100000, |A n B| = 30000, Jaccard 0.3
CREATE TABLE est_pairs AS
SELECT layout,
       bloom_add_all(bloom_empty(100000, 0.01, layout), (SELECT array_agg(g) FROM generate_series(1, 60000) g)) AS a,
       bloom_add_all(bloom_empty(100000, 0.01, layout), (SELECT array_agg(g) FROM generate_series(30001, 100000) g)) AS b
FROM (VALUES ('blocked'), ('classic')) l(layout);

SELECT layout,
       abs(bloom_union_cardinality(a, b) / 100000 - 1) < 0.10 AS union_within_10pct,
       abs(bloom_intersection_cardinality(a, b) / 30000 - 1) < 0.10 AS intersection_within_10pct,
       abs(bloom_jaccard(a, b) - 0.3) < 0.03 AS jaccard_near_03
FROM est_pairs ORDER BY layout;

-- disjoint sets: intersection near zero, identical sets: Jaccard 1
SELECT layout,
       bloom_intersection_cardinality(a, bloom_add_all(bloom_empty(100000, 0.01, layout),
              (SELECT array_agg(g) FROM generate_series(200001, 260000) g))) < 1500 AS disjoint_small,
       round(bloom_jaccard(a, a)::numeric, 6) AS self_jaccard
FROM est_pairs ORDER BY layout;

-- estimates work across power-of-two sizes (the larger side is folded)
SELECT abs(bloom_union_cardinality(
		bloom_add_all(bloom_empty_bits(2048000, 7, 'classic'), (SELECT array_agg(g) FROM generate_series(1, 20000) g)),
		bloom_add_all(bloom_empty_bits(512000, 7, 'classic'), (SELECT array_agg(g) FROM generate_series(10001, 30000) g)))
	/ 30000 - 1) < 0.10 AS folded_union_within_10pct;

DROP TABLE est;
DROP TABLE est_pairs;
