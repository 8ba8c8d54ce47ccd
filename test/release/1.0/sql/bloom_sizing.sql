--
-- Sizing math: the textbook formulas, and filters that meet their rate.
--

-- m = -n ln p / (ln 2)^2, k = (m/n) ln 2, p = (1 - e^(-kn/m))^k
SELECT bloom_optimal_bits(1000000, 0.01) AS m_1pct,
       bloom_optimal_bits(1000000, 0.001) AS m_01pct,
       bloom_optimal_hashes(9585059, 1000000) AS k_1pct,
       bloom_optimal_hashes(14377588, 1000000) AS k_01pct,
       round(bloom_expected_fpr(9585059, 7, 1000000)::numeric, 6) AS p_1pct;
SELECT bloom_optimal_hashes(1, 1000) AS at_least_one,
       bloom_optimal_hashes(1000000, 1) AS at_most_32,
       bloom_expected_fpr(1000, 3, 0) AS empty;

-- bits per key of filters sized by bloom_empty: classic is the textbook
-- size (rounded so a whole k meets the rate), blocked needs a few percent
-- more (the exact Poisson model of block loads)
SELECT l.layout, r.p, round(i.bits::numeric / 1000000, 2) AS bits_per_key, i.hashes
FROM (VALUES ('classic'), ('blocked')) l(layout),
     (VALUES (0.1::float8), (0.01), (0.001), (0.0001)) r(p),
     bloom_info(bloom_empty(1000000, r.p, l.layout)) i
ORDER BY l.layout DESC, r.p DESC;

-- a filter for one key is one block / one word, not zero
SELECT l.layout, i.bits FROM (VALUES ('classic'), ('blocked')) l(layout),
     bloom_info(bloom_empty(1, 0.01, l.layout)) i ORDER BY l.layout;

-- sizes grow with capacity and with stricter rates
SELECT (bloom_info(bloom_empty(2000))).bits > (bloom_info(bloom_empty(1000))).bits AS grows_with_n,
       (bloom_info(bloom_empty(1000, 0.001))).bits > (bloom_info(bloom_empty(1000, 0.01))).bits AS grows_with_rate;

-- past the 1 GB varlena limit is an error that gives the limit
SELECT bloom_empty_bits(9000000000, 1);
