--
-- Layout 'spark': Spark's own BloomFilter, bit for bit.
--
-- The conformance vectors (test/vectors/spark/spark_vectors.tsv, made by
-- Spark's sketch classes: see the README beside them): our bytes for the
-- same keys are Spark's, bloom_from_spark reads Spark's bytes with every key
-- probing true, and keys not put answer as Spark answered.
--
CREATE TEMP TABLE spark_raw (line text);
\copy spark_raw FROM 'test/vectors/spark/spark_vectors.tsv' WITH (FORMAT text, DELIMITER E'\x01')
CREATE TEMP TABLE spark_filters AS
SELECT split_part(line, E'\t', 2)::int AS id, split_part(line, E'\t', 3)::int AS version,
       split_part(line, E'\t', 4)::bigint AS n, split_part(line, E'\t', 5)::float8 AS fpp,
       split_part(line, E'\t', 6)::int AS seed, split_part(line, E'\t', 8)::int AS k,
       decode(split_part(line, E'\t', 9), 'hex') AS spark
FROM spark_raw WHERE line LIKE E'filter\t%';
CREATE TEMP TABLE spark_keys AS
SELECT split_part(line, E'\t', 1) AS what, split_part(line, E'\t', 2)::int AS id,
       split_part(line, E'\t', 3) AS kind, decode(split_part(line, E'\t', 4), 'hex') AS bytes,
       split_part(line, E'\t', 5) = 't' AS spark_answer
FROM spark_raw WHERE line LIKE E'key\t%' OR line LIKE E'probe\t%';
-- longs as bigint, strings as text (UTF-8), binaries as bytea
CREATE TEMP VIEW spark_probe AS
SELECT k.*, f.version, f.spark, bloom_from_spark(f.spark) AS ours,
       CASE k.kind
         WHEN 'long' THEN bloom_contains(bloom_from_spark(f.spark), ('x' || encode(k.bytes, 'hex'))::bit(64)::bigint)
         WHEN 'string' THEN bloom_contains(bloom_from_spark(f.spark), convert_from(k.bytes, 'UTF8'))
         ELSE bloom_contains(bloom_from_spark(f.spark), k.bytes)
       END AS answer
FROM spark_keys k JOIN spark_filters f USING (id);
SELECT count(*) > 20 AS filters, (SELECT count(*) FROM spark_keys WHERE what = 'key') > 1000 AS keys,
       (SELECT count(*) FROM spark_keys WHERE what = 'probe') > 1000 AS probes
FROM spark_filters;
-- every key Spark put probes true in the filter read from Spark's bytes
SELECT id, kind, encode(bytes, 'hex') FROM spark_probe WHERE what = 'key' AND NOT answer;
-- non-members answer as Spark's mightContain* answered
SELECT id, kind, encode(bytes, 'hex'), answer, spark_answer FROM spark_probe
WHERE what = 'probe' AND answer IS DISTINCT FROM spark_answer;
SELECT count(*) FILTER (WHERE spark_answer) AS spark_false_positives FROM spark_probe WHERE what = 'probe';
-- read and written back: Spark's bytes unchanged
SELECT id FROM spark_filters WHERE bloom_to_spark(bloom_from_spark(spark)) <> spark;
-- Spark's version 1 filters built here from the same keys: Spark's bytes
-- (bloom_empty sizes as BloomFilter.create(n, fpp); version 2 comes from
-- Spark only, so its filters are checked by reading)
CREATE TEMP TABLE spark_built AS
SELECT f.id, f.spark,
       (SELECT bloom_add_all(bloom_add_all(bloom_add_all(bloom_empty(f.n, f.fpp, 'spark'),
                 (SELECT coalesce(array_agg(('x' || encode(bytes, 'hex'))::bit(64)::bigint), '{}')
                  FROM spark_keys WHERE id = f.id AND what = 'key' AND kind = 'long')),
                 (SELECT coalesce(array_agg(convert_from(bytes, 'UTF8')), '{}')
                  FROM spark_keys WHERE id = f.id AND what = 'key' AND kind = 'string')),
                 (SELECT coalesce(array_agg(bytes), '{}')
                  FROM spark_keys WHERE id = f.id AND what = 'key' AND kind = 'binary'))) AS built
FROM spark_filters f WHERE f.version = 1;
SELECT count(*) AS v1_filters_built,
       count(*) FILTER (WHERE bloom_to_spark(built) = spark) AS equal_to_spark
FROM spark_built;
-- one key at a time gives the same bits as a batch
SELECT bool_and(bloom_to_spark(b) = s.spark) AS one_by_one FROM (
  SELECT f.id, f.spark, (SELECT bloom_union_agg(x) FROM (
      SELECT bloom_add(bloom_empty(f.n, f.fpp, 'spark'), ('x' || encode(bytes, 'hex'))::bit(64)::bigint) AS x
      FROM spark_keys WHERE id = f.id AND what = 'key' AND kind = 'long') q) AS b
  FROM spark_filters f WHERE f.version = 1 AND f.id IN (1, 2, 3)) s;

--
-- Keys: int2, int4, int8 are Spark's putLong; text, varchar, name its
-- putString (trailing spaces kept, as Spark's strings keep them); bytea its
-- putBinary.  Each probes true from a filter built from another of its
-- family, as Spark's put(Object) widens every integral type to long.
--
WITH f AS (SELECT bloom_add(bloom_add(bloom_add(bloom_empty(100, 0.01, 'spark'),
                  7::int2), 70000::int4), (-5000000000)::int8) AS f)
SELECT bloom_contains(f, 7::int8) AS i2_as_i8, bloom_contains(f, 70000::int8) AS i4_as_i8,
       bloom_contains(f, (-5000000000)::int8) AS i8, bloom_contains(f, 7::int4) AS i2_as_i4,
       bloom_contains(f, 70000) AS literal, bloom_contains(f, 8::int2) AS non_member
FROM f;
WITH f AS (SELECT bloom_add(bloom_add(bloom_empty(100, 0.01, 'spark'), 'a '::text), 'é'::varchar) AS f)
SELECT bloom_contains(f, 'a '::varchar) AS varchar_probe, bloom_contains(f, 'a '::name) AS name_probe,
       bloom_contains(f, 'a'::text) AS without_space, bloom_contains(f, 'é') AS multibyte
FROM f;
-- a string and its UTF-8 bytes are one key in Spark (putString is putBinary
-- of the bytes); here text and bytea are two families: refused, never false
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01, 'spark'), 'ab'::text), '\x6162'::bytea);
-- keys of two kinds in one filter, as Spark allows: it answers for both
WITH f AS (SELECT bloom_add(bloom_add(bloom_empty(100, 0.01, 'spark'), 'ab'::text), 5) AS f)
SELECT (bloom_info(f)).key_family, bloom_contains(f, 'ab'::text) AS s, bloom_contains(f, 5) AS i,
       bloom_contains(f, '\x6162'::bytea) AS same_bytes_as_string FROM f;
-- what Spark cannot hash is refused, naming a cast
SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), 'a'::char(3));
SELECT bloom_contains(bloom_from_spark(bloom_to_spark(bloom_add(bloom_empty(100, 0.01, 'spark'), 1))), 'a'::bpchar);
SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), 1.5::float8);
SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), now()::date);
-- text under a nondeterministic collation is refused
CREATE COLLATION spark_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), 'a'::text COLLATE spark_ci);
DROP COLLATION spark_ci;
-- a filter read from Spark takes any key Spark hashes (its bytes do not say which)
WITH f AS (SELECT bloom_from_spark(bloom_to_spark(
             bloom_add(bloom_empty(100, 0.01, 'spark'), 42)) ) AS f)
SELECT (bloom_info(f)).key_family, bloom_contains(f, 42::int2) AS member,
       bloom_contains(f, 'x'::text) AS string_probe, bloom_contains(f, '\x00'::bytea) AS binary_probe,
       bloom_contains(bloom_add(f, 'y'::text), 'y'::text) AS added_string,
       bloom_contains(bloom_add(f, 'y'::text), 42) AS still_member
FROM f;

--
-- Sizing: BloomFilter.create(n, fpp): optimalNumOfBits rounded up to words,
-- optimalNumOfHashFunctions from the bits before rounding.
--
SELECT n, fpp, (bloom_info(bloom_empty(n, fpp, 'spark'))).bits, (bloom_info(bloom_empty(n, fpp, 'spark'))).hashes
FROM (VALUES (1::bigint, 0.5::float8), (10, 0.03), (1000000, 0.03), (1000, 0.000001)) v(n, fpp);
SELECT (bloom_info(bloom_empty_bits(100, 3, 'spark'))).bits AS bits_rounded_to_words;
SELECT bloom_empty(1, 0.9, 'spark');           -- Spark makes no bits: refused
SELECT bloom_empty(100, 1e-12, 'spark');       -- Spark would use 40 hashes
SELECT bloom_empty(100, 0.01, 'spark', 7);     -- version 1 has no seed
SELECT bloom_empty_bits(64, 33, 'spark');
-- the layouts of other engines are bloomfilters only
SELECT cbloom_empty(100, 0.01, 'spark');
SELECT sbloom_empty(100, 0.01, 2, 0.9, 'spark');
SELECT bloom_empty(100, 0.01, 'nosuch');

--
-- Combining: Spark's mergeInPlace and intersectInPlace rules (same
-- version, bit size, hash count and seed); sizes never fold.
--
WITH a AS (SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), 1) AS a),
     b AS (SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), 2) AS b)
SELECT bloom_contains(a | b, 1) AS u1, bloom_contains(a | b, 2) AS u2,
       bloom_contains(a & b, 1) AS i1, bloom_to_spark(a | b) = bloom_to_spark(b | a) AS symmetric
FROM a, b;
SELECT bloom_empty(100, 0.01, 'spark') | bloom_empty(200, 0.01, 'spark');
SELECT bloom_empty(100, 0.01, 'spark') | bloom_empty(100, 0.01, 'blocked');
-- version 1 and version 2 of the same size: refused, as Spark refuses
SELECT bloom_empty_bits(128, 3, 'spark') | bloom_from_spark('\x00000002000000030000000000000002' || '\x00000000000000000000000000000000'::bytea);
-- a union of an integer filter and a string filter holds both
WITH u AS (SELECT bloom_add(bloom_empty(100, 0.01, 'spark'), 1) | bloom_add(bloom_empty(100, 0.01, 'spark'), 'a'::text) AS u)
SELECT (bloom_info(u)).key_family, bloom_contains(u, 1) AS i, bloom_contains(u, 'a'::text) AS s FROM u;
-- union aggregate
SELECT bloom_contains(bloom_union_agg(bloom_add(bloom_empty(1000, 0.01, 'spark'), g)), 77)
FROM generate_series(1, 100) g;

--
-- Version 2: its seed and 64-bit index arithmetic, kept through a round trip.
--
WITH f AS (SELECT bloom_from_spark(spark) AS f, spark FROM spark_filters WHERE seed = 12345)
SELECT (bloom_info(f)).layout, (bloom_info(f)).seed, (bloom_info(f)).format_version,
       bloom_to_spark(f) = spark AS same_bytes,
       bloom_to_spark(bloom_add(f, 1)) = bloom_to_spark(bloom_add(f, 1::int2)) AS widened
FROM f;

--
-- Shipping: text, bytea and binary send carry the layout and its version.
--
WITH f AS (SELECT bloom_from_spark(spark) AS f FROM spark_filters WHERE seed = -7)
SELECT f::text::bloomfilter = f AS text_round_trip, f::bytea::bloomfilter = f AS bytea_round_trip,
       bloomfilter_send(f) = f::bytea AS send_is_portable,
       get_byte(f::bytea, 4) AS format_version, get_byte(f::bytea, 6) AS layout_code,
       get_byte(f::bytea, 34) AS spark_version
FROM f;

--
-- A database in another encoding converts strings to UTF-8 first, as Spark's
-- strings are: 'é' is one key in both.
--
SELECT encode(bloom_to_spark(bloom_add(bloom_add(bloom_empty(10, 0.1, 'spark'), 'é'::text), 'naïve café'::text)), 'hex') AS utf8_bytes \gset
SELECT current_database() AS regress_db \gset
CREATE DATABASE bloom_spark_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c bloom_spark_latin1
SET client_min_messages = warning;
SET client_encoding = 'UTF8';
CREATE EXTENSION bloomfilter;
SELECT encode(bloom_to_spark(bloom_add(bloom_add(bloom_empty(10, 0.1, 'spark'), 'é'::text), 'naïve café'::text)), 'hex') = :'utf8_bytes' AS same_as_utf8,
       bloom_contains(bloom_from_spark(decode(:'utf8_bytes', 'hex')), 'é'::text) AS probe_latin1;
\c :regress_db
DROP DATABASE bloom_spark_latin1;

-- bloom_agg(x, capacity, fpr, 'spark'): the filter bloom_add_all gives, Spark's bytes
SELECT bloom_to_spark(bloom_agg(g::bigint, 1000, 0.01, 'spark'))
         = bloom_to_spark(bloom_add_all(bloom_empty(1000, 0.01, 'spark'), array_agg(g::bigint))) AS agg_is_add_all,
       bool_and(g <@ (SELECT bloom_agg(h, 1000, 0.01, 'spark') FROM generate_series(1, 1000) h)) AS every_key
FROM generate_series(1, 1000) g;

-- the same for more strings and every string type: text, varchar, name
-- (putString hashes UTF-8 bytes); both ways between LATIN1 and UTF8
SELECT encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::text[])), 'hex') AS sp_utf8_text,
       encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::varchar[])), 'hex') AS sp_utf8_varchar,
       encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::name[])), 'hex') AS sp_utf8_name \gset
SELECT :'sp_utf8_text' = :'sp_utf8_varchar' AND :'sp_utf8_text' = :'sp_utf8_name' AS same_bytes_all_types;
SELECT current_database() AS regress_db \gset
CREATE DATABASE bloom_spark_latin1b ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c bloom_spark_latin1b
SET client_min_messages = warning;
SET client_encoding = 'UTF8';
CREATE EXTENSION bloomfilter;
SELECT octet_length('ñandú') AS latin1_octets,
       encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::text[])), 'hex') = :'sp_utf8_text' AS text_same_as_utf8,
       encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::varchar[])), 'hex') = :'sp_utf8_text' AS varchar_same_as_utf8,
       encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::name[])), 'hex') = :'sp_utf8_text' AS name_same_as_utf8;
SELECT k, bloom_contains(f, k::text) AS text_probe, bloom_contains(f, k::varchar) AS varchar_probe,
       bloom_contains(f, k::name) AS name_probe
FROM (SELECT bloom_from_spark(decode(:'sp_utf8_text', 'hex')) AS f) s,
     unnest(ARRAY['café', 'ñandú', 'Ø']) k ORDER BY k;
SELECT encode(bloom_to_spark(bloom_add_all(bloom_empty(5, 0.1, 'spark'), ARRAY['café', 'ñandú', 'Ø']::text[])), 'hex') AS sp_latin1_text \gset
\c :regress_db
DROP DATABASE bloom_spark_latin1b;
SELECT k, bloom_contains(bloom_from_spark(decode(:'sp_latin1_text', 'hex')), k) AS probe_in_utf8
FROM unnest(ARRAY['café', 'ñandú', 'Ø']::text[]) k ORDER BY k;
