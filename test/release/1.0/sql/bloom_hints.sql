--
-- The errors a newcomer meets first, and whether their hints point at the
-- form that was meant (issue #27, item 9): a filter or an array given where
-- a key goes, a number of keys given where bloom_agg(x, fpr) takes a rate,
-- a union refused for the filters' sizes; enum and extension types named
-- in family messages (and bloom_info) by their type's name when the type is
-- of this database, by their tag otherwise; one range of rates for
-- bloom_empty and the self-sizing bloom_agg.
--
\set VERBOSITY default

CREATE TABLE hf AS SELECT bloom_agg(g) AS f FROM generate_series(1, 100) g;

-- a filter where a key goes: @>> tests a superset, | unites
SELECT f @> f FROM hf;
SELECT bloom_add(f, f) FROM hf;
-- what the hint points at answers
SELECT f @>> (SELECT bloom_agg(g) FROM generate_series(1, 100) g) AS superset,
	   bloom_cardinality(f | f) > 0 AS united FROM hf;

-- an array where a key goes: bloom_contains_all probes its elements,
-- bloom_add_all adds them
SELECT f @> ARRAY[1, 2] FROM hf;
SELECT bloom_contains(f, ARRAY[1, 2]) FROM hf;
SELECT bloom_add(f, ARRAY[1, 2]) FROM hf;
SELECT bloom_contains_all(f, ARRAY[1, 2, 1000]) FROM hf;
-- a filter of array keys takes an array as one key: no error, no hint
SELECT bloom_contains(bloom_add(bloom_empty(10), ARRAY[1, 2]), ARRAY[1, 2]);
-- another family, no better form to offer: the cast
SELECT f @> 'x'::text FROM hf;

-- bloom_agg(x, 1000): a number of keys where the rate goes
SELECT bloom_agg(g, 1000) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 1) FROM generate_series(1, 10) g;
-- no hint for a rate that is merely out of range
SELECT bloom_agg(g, 0) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 'NaN') FROM generate_series(1, 10) g;

-- bloom_empty and the self-sizing bloom_agg take the same rates: (0, 1),
-- as long as some filter reaches the rate
-- (one call site per rate: a rate is fixed per aggregate call)
SELECT 0.99::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 0.99))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 0.99))).hashes AS empty_hashes
UNION ALL
SELECT 0.6::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 0.6))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 0.6))).hashes AS empty_hashes
UNION ALL
SELECT 0.5::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 0.5))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 0.5))).hashes AS empty_hashes
UNION ALL
SELECT 0.01::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 0.01))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 0.01))).hashes AS empty_hashes
UNION ALL
SELECT 1e-9::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 1e-9))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 1e-9))).hashes AS empty_hashes
UNION ALL
SELECT 1e-12::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 1e-12))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 1e-12))).hashes AS empty_hashes
UNION ALL
SELECT 1e-20::float8 AS r, (SELECT (bloom_info(bloom_agg(g, 1e-20))).hashes FROM generate_series(1, 10) g) AS agg_hashes,
	(bloom_info(bloom_empty(10, 1e-20))).hashes AS empty_hashes;
-- below what any filter reaches: both refuse
SELECT bloom_agg(g, 1e-300) FROM generate_series(1, 10) g;
SELECT bloom_agg(g, 1e-25) FROM generate_series(1, 10) g;
SELECT bloom_empty(10, 1e-25);
SELECT (bloom_info(bloom_empty(10, 1e-25, 'classic'))).hashes;
SELECT bloom_empty(10, 1e-300);
-- the filters a rate above 0.5 gives still hold their keys
SELECT bool_and(f @> g) FROM (SELECT bloom_agg(x, 0.9) AS f FROM generate_series(1, 1000) x) a,
	generate_series(1, 1000) g;

-- a union refused for the filters' sizes says how to size them
SELECT bloom_empty(1000) | bloom_empty(3000);
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(1000)), (bloom_empty(3000))) v(f);
SELECT cbloom_empty(1000) | cbloom_empty(3000);

-- enum and extension types by name, in messages and in bloom_info
CREATE TYPE hcolor AS ENUM ('red', 'green');
CREATE TYPE hmood AS ENUM ('calm');
SET client_min_messages = warning;  -- quiet whether or not an earlier test created it
CREATE EXTENSION IF NOT EXISTS citext;
RESET client_min_messages;
CREATE TABLE hfam AS
SELECT 'enum' AS kind, bloom_agg(c) AS f FROM unnest(ARRAY['red', 'green']::hcolor[]) c
UNION ALL
SELECT 'citext', bloom_agg(c) FROM unnest(ARRAY['Ab', 'cD']::citext[]) c;
SELECT kind, (bloom_info(f)).key_family FROM hfam ORDER BY kind;
SELECT f @> 1 FROM hfam WHERE kind = 'enum';
SELECT f @> 'calm'::hmood FROM hfam WHERE kind = 'enum';
SELECT f @> 'ab'::text FROM hfam WHERE kind = 'citext';
SELECT (bloom_info(bloom_empty(10) | f)).key_family FROM hfam WHERE kind = 'enum';
-- still answering for their own keys
SELECT kind, CASE kind WHEN 'enum' THEN f @> 'red'::hcolor ELSE f @> 'ab'::citext END
FROM hfam ORDER BY kind;
-- a type of this database no more: the tag
DROP TYPE hcolor;
SELECT kind, (bloom_info(f)).key_family ~ '^enum \(type tag [0-9a-f]{8}\)$' AS by_tag
FROM hfam WHERE kind = 'enum';
-- and again by name when a type of that name and kind is back
CREATE TYPE hcolor AS ENUM ('blue');
SELECT (bloom_info(f)).key_family FROM hfam WHERE kind = 'enum';
