--
-- bloomfilter_join_probe(x, f): the probe automatic Bloom-joins ship to a
-- remote of bloomfilter 1.1 or later (src/autojoin/bf_autojoin_probe.c).
-- It answers as x <@ f for a key of f's family, and true, never an ERROR,
-- for a key of another family or one whose key bytes could fail: a remote
-- column changed since the planner asked must never fail the join.
--

CREATE TABLE jp AS SELECT g AS i, g::numeric AS n, g::text AS t, g::int8 AS b
FROM generate_series(1, 2000) g;
CREATE TABLE jpf AS SELECT bloom_agg(i) AS fi, bloom_agg(t) AS ft,
	(SELECT bloom_agg(x) FROM generate_series(1, 0) x) AS fnone
FROM jp WHERE i % 10 = 0;

-- a key of the filter's family: the same answer as <@, row by row (int4 and
-- int8 are one family)
SELECT count(*) AS rows, count(*) FILTER (WHERE bloomfilter_join_probe(i, fi)) AS passed,
       bool_and(bloomfilter_join_probe(i, fi) = (i <@ fi)) AS as_operator,
       bool_and(bloomfilter_join_probe(b, fi) = (b <@ fi)) AS int8_as_operator,
       bool_and(bloomfilter_join_probe(i, fi)) FILTER (WHERE i % 10 = 0) AS no_false_negative
FROM jp, jpf;
SELECT bool_and(bloomfilter_join_probe(t, ft) = (t <@ ft)) AS text_as_operator FROM jp, jpf;

-- another family: every row passes, where <@ raises an ERROR
SELECT bool_and(bloomfilter_join_probe(n, fi)) AS numeric_passes,
       bool_and(bloomfilter_join_probe(t, fi)) AS text_passes,
       bool_and(bloomfilter_join_probe(i, ft)) AS int_over_text_passes
FROM jp, jpf;
SELECT count(*) FROM jp, jpf WHERE n <@ fi;

-- keys that cannot be keys here, or whose bytes could fail: they pass
SELECT bloomfilter_join_probe('{"a": 1}'::jsonb, fi) AS jsonb_passes,
       bloomfilter_join_probe(ROW(1, 2), fi) AS record_passes,
       bloomfilter_join_probe(ARRAY[1, 2], fi) AS array_passes,
       bloomfilter_join_probe(point(1, 2), fi) AS point_passes
FROM jpf;

-- text under a nondeterministic collation: passes, where <@ raises an ERROR
CREATE COLLATION jp_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT bool_and(bloomfilter_join_probe(t COLLATE jp_ci, ft)) AS nondeterministic_passes FROM jp, jpf;
SELECT count(*) FROM jp, jpf WHERE t COLLATE jp_ci <@ ft;

-- a filter that holds no key: false, as <@; NULL: NULL (STRICT)
SELECT bloomfilter_join_probe(5, bloom_empty(100)) AS empty_filter,
       bloomfilter_join_probe(NULL::int, bloom_empty(100)) IS NULL AS null_key;

-- many filters through one call site (the detoast cache): each its own answer
SELECT g, bloomfilter_join_probe(g, f) AS int_key, bloomfilter_join_probe(g::numeric, f) AS numeric_key
FROM (VALUES (1, bloom_add(bloom_empty(100), 1)), (2, bloom_add(bloom_empty(100), 3)),
             (3, bloom_add(bloom_empty(100), '3'::text))) v(g, f)
ORDER BY g;

DROP TABLE jp, jpf;
DROP COLLATION jp_ci;
