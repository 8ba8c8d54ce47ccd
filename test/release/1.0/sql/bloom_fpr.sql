--
-- Measured false-positive rates: a filter sized for n keys at rate p,
-- filled with n keys, answers true for at most 1.25 p of keys that were
-- never added, for both layouts at 1% and 0.1%.  And no false negatives.
--

CREATE TABLE fpr_cases (layout text, p float8, f bloomfilter);
INSERT INTO fpr_cases
SELECT layout, p, bloom_add_all(bloom_empty(100000, p, layout), array_agg(g))
FROM (VALUES ('blocked'), ('classic')) l(layout),
     (VALUES (0.01::float8), (0.001)) r(p),
     generate_series(1, 100000) g
GROUP BY layout, p;

-- every added key is found
SELECT layout, p,
       (SELECT count(*) FROM generate_series(1, 100000) g WHERE NOT g <@ f) AS false_negatives
FROM fpr_cases ORDER BY layout, p;

-- 1M keys that were never added: the measured rate, as a ratio of the target
SELECT layout, p, round((hits / 1e6 / p)::numeric, 2) AS ratio_to_target,
       hits / 1e6 <= 1.25 * p AS within_125
FROM (SELECT layout, p,
             (SELECT count(*) FROM generate_series(1000001, 2000000) g WHERE g <@ f) AS hits
      FROM fpr_cases) m
ORDER BY layout, p;

-- the filter's own estimate of its rate agrees with what was measured
SELECT layout, p, abs(bloom_fpr(f) / p - 1) < 0.1 AS estimate_near_target
FROM fpr_cases ORDER BY layout, p;

-- the same holds for text keys
SELECT round((count(*) FILTER (WHERE md5(g::text) <@ f) / 200000.0 / 0.01)::numeric, 2) AS ratio_to_target,
       count(*) FILTER (WHERE md5(g::text) <@ f) / 200000.0 <= 0.0125 AS within_125
FROM (SELECT bloom_agg(md5(('k' || g)::text), 50000, 0.01) AS f FROM generate_series(1, 50000) g) b,
     generate_series(1, 200000) g;

DROP TABLE fpr_cases;
