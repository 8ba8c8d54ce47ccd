-- Layout 'parquet': Parquet's split-block Bloom filter (FORMAT.md "Version
-- 2"; README "Formats other engines use").  The bytes against DuckDB's are
-- checked by test/engines/duckdb_conformance.mjs; here: sizing, keys of
-- every type and their probes across types, import and export, combining,
-- the aggregate, the indexes.
\set VERBOSITY default
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- sized as parquet-java and Arrow: -8n/ln(1 - p^(1/8)) bits, a power of two,
-- 32 bytes to 128 MiB; k is 8; written as format version 2
SELECT n, p, (bloom_info(bloom_empty(n, p, 'parquet'))).bits,
       (bloom_info(bloom_empty(n, p, 'parquet'))).hashes,
       (bloom_info(bloom_empty(n, p, 'parquet'))).format_version
FROM (VALUES (1::bigint, 0.01::float8), (1000, 0.005), (1000000, 0.01),
             (100000000000, 0.01)) v(n, p);
SELECT (bloom_info(bloom_empty_bits(300, 8, 'parquet'))).bits;
SELECT bloom_empty_bits(512, 7, 'parquet');
SELECT bloom_empty(10, 0.01, 'parquet', 1);
SELECT cbloom_empty(10, 0.01, 'parquet');

-- the bytes a Parquet writer puts in a file: header, then the bitset
SELECT bloom_to_parquet(bloom_add(bloom_empty(1, 0.01, 'parquet'), 42));
SELECT bloom_to_parquet(bloom_add(bloom_empty(1, 0.01, 'parquet'), 'abc'::text));

-- integers: int2/int4 write INT32, int8 INT64; a probe converts
CREATE TEMP TABLE pq AS
SELECT bloom_add_all(bloom_empty(100, 0.01, 'parquet'), ARRAY[1, -7, 2147483647]) AS i32,
       bloom_add_all(bloom_empty(100, 0.01, 'parquet'), ARRAY[1, -7, 5000000000]::int8[]) AS i64;
SELECT (bloom_info(i32)).key_family, (bloom_info(i64)).key_family FROM pq;
SELECT bloom_contains(i32, 1::int2) AS i2, bloom_contains(i32, -7::int8) AS i8,
       bloom_contains(i32, 2147483647::int8) AS max,
       bloom_contains(i32, 5000000000::int8) AS beyond_int32,
       bloom_contains(i64, 1::int2) AS i64_i2, bloom_contains(i64, 5000000000) AS i64_big
FROM pq;
SELECT bloom_contains(i32, 1.0::float8) FROM pq;
SELECT bloom_add(i32, 5000000000::int8) FROM pq;
SELECT bloom_add(i32, 1.5::float8) FROM pq;
SELECT bloom_contains(i32, 'x'::text) FROM pq;

-- floats: -0 and 0 are equal, every NaN is equal; float4 widens exactly
WITH f AS (SELECT bloom_add_all(bloom_empty(100, 0.01, 'parquet'), ARRAY['-0', '1.5', 'NaN', '0.1']::float8[]) d,
                  bloom_add_all(bloom_empty(100, 0.01, 'parquet'), ARRAY['0', '0.1', '-Infinity']::float4[]) r)
SELECT bloom_contains(d, 0::float8) AS zero, bloom_contains(d, 1.5::float4) AS f4,
       bloom_contains(d, 'NaN'::float8) AS nan, bloom_contains(d, 0.1::float8) AS tenth,
       bloom_contains(d, 0.1::float4) AS tenth_f4_is_another_value,
       bloom_contains(r, '-0'::float8) AS r_negzero, bloom_contains(r, 0.1::float4) AS r_tenth,
       bloom_contains(r, 0.1::float8) AS r_tenth_f8_no_float_equals,
       bloom_contains(r, '-Infinity'::float8) AS r_inf,
       (bloom_info(d)).key_family AS d_type, (bloom_info(r)).key_family AS r_type
FROM f;

-- dates (INT32 days since 1970), timestamps (INT64 microseconds since 1970,
-- timestamptz in UTC); date = timestamp compares at midnight
SET timezone = 'America/New_York';
WITH f AS (SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), date '2024-02-29') d,
                  bloom_add(bloom_empty(100, 0.01, 'parquet'), timestamp '2024-02-29 00:00') ts,
                  bloom_add(bloom_empty(100, 0.01, 'parquet'), timestamptz '2024-02-29 12:00+00') tz)
SELECT bloom_contains(d, date '2024-02-29') AS d, bloom_contains(d, timestamp '2024-02-29 00:00') AS d_ts,
       bloom_contains(d, timestamp '2024-02-29 00:00:01') AS d_ts_not_midnight,
       bloom_contains(ts, date '2024-02-29') AS ts_d,
       bloom_contains(ts, timestamptz '2024-02-29 00:00-05') AS ts_tz_session_zone,
       bloom_contains(tz, timestamptz '2024-02-29 07:00-05') AS tz,
       bloom_contains(tz, timestamp '2024-02-29 07:00') AS tz_ts_session_zone,
       bloom_contains(d, date 'infinity') AS inf
FROM f;
RESET timezone;
SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), date 'infinity');
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01, 'parquet'), 5::int8), date '2024-01-01');

-- text, varchar and name as UTF-8 bytes, trailing spaces kept; bytea; uuid
WITH f AS (SELECT bloom_add_all(bloom_empty(100, 0.01, 'parquet'), ARRAY['a', 'b ', 'é']) t,
                  bloom_add(bloom_empty(100, 0.01, 'parquet'), '\x00ff'::bytea) b,
                  bloom_add(bloom_empty(100, 0.01, 'parquet'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) u)
SELECT bloom_contains(t, 'a'::varchar) AS varchar, bloom_contains(t, 'b '::name) AS name,
       bloom_contains(t, 'b') AS b_without_space_is_another_text, bloom_contains(t, 'é') AS utf8,
       bloom_contains(b, '\x00ff'::bytea) AS bytea,
       bloom_contains(u, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS uuid,
       (bloom_info(u)).key_family
FROM f;
SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), 'a'::bpchar);
SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), 1.5::numeric);
SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), true);
SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), ARRAY[1]);

-- import: every byte checked, a clean error with its SQLSTATE
\set VERBOSITY sqlstate
SELECT bloom_from_parquet('', 'INT32');
SELECT bloom_from_parquet('\x15401c1c00001c1c00001c1c000000', 'INT32');
SELECT bloom_from_parquet('\x15401c2c00001c1c00001c1c000000' || '\x'::bytea || decode(repeat('00', 32), 'hex'), 'INT32');
SELECT bloom_from_parquet('\x15421c1c00001c1c00001c1c000000' || decode(repeat('00', 33), 'hex'), 'INT32');
SELECT bloom_from_parquet(bloom_to_parquet(bloom_empty(1, 0.01, 'parquet')), 'INT96');
\set VERBOSITY default
SELECT bloom_from_parquet('\x15401c1c00001c1c00001c2c000000' || decode(repeat('00', 32), 'hex'), 'INT32');
-- round trips: export, import, the portable bytes, text
WITH f AS (SELECT bloom_agg(g, 1000, 0.01, 'parquet') f FROM generate_series(1, 500) g)
SELECT bloom_from_parquet(bloom_to_parquet(f), 'INT32') @> 77 AS imported,
       substring(bloom_from_parquet(bloom_to_parquet(f), 'INT32')::bytea FROM 53) = substring(f::bytea FROM 53) AS same_bits,
       f::bytea::bloomfilter = f AS bytea, f::text::bloomfilter = f AS text,
       (bloom_info(bloom_from_parquet(bloom_to_parquet(f), 'DATE'))).key_family AS as_date,
       round((bloom_info(f)).est_cardinality) AS est_n
FROM f;

-- bloom_agg(x, capacity, fpr, layout): the bytes of bloom_add_all, serial and parallel
CREATE TEMP TABLE pqk AS SELECT g::int8 AS x, g::text AS s FROM generate_series(1, 30000) g;
ANALYZE pqk;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT l, bloom_agg(x, 30000, 0.01, l) = (SELECT bloom_add_all(bloom_empty(30000, 0.01, l), array_agg(x)) FROM pqk) AS ints,
       bloom_agg(s, 30000, 0.01, l) = (SELECT bloom_add_all(bloom_empty(30000, 0.01, l), array_agg(s)) FROM pqk) AS texts
FROM pqk, (VALUES ('classic'), ('blocked'), ('parquet')) v(l) GROUP BY l ORDER BY l;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT bloom_agg(x, 30000, 0.01, 'parquet') IS NULL AS no_rows FROM pqk WHERE false;

-- union folds power-of-two sizes (the block index is multiply-shift), as
-- building at the smaller size would; physical types must agree
SELECT substring(bloom_union(bloom_agg(x, 1000, 0.01, 'parquet'), bloom_agg(x, 8000, 0.01, 'parquet'))::bytea FROM 53)
       = substring(bloom_agg(x, 1000, 0.01, 'parquet')::bytea FROM 53) AS folded,
       bloom_intersect(bloom_agg(x, 1000, 0.01, 'parquet'), bloom_agg(x, 1000, 0.01, 'parquet')) @> 5 AS intersect
FROM pqk WHERE x <= 700;
SELECT bloom_union(bloom_add(bloom_empty(10, 0.01, 'parquet'), 1), bloom_add(bloom_empty(10, 0.01, 'parquet'), 1::int8));
SELECT bloom_union(bloom_empty(10, 0.01, 'parquet'), bloom_empty(10, 0.01, 'blocked'));

-- the lake index: one filter a file, behind bloomslice and GiST
CREATE TEMP TABLE lake AS
SELECT i AS file, bloom_agg(g, 1000, 0.01, 'parquet') AS f
FROM generate_series(1, 40) i, generate_series(i * 100, i * 100 + 99) g GROUP BY i;
CREATE INDEX lake_slice ON lake USING bloomslice (f);
CREATE INDEX lake_gist ON lake USING gist (f);
SET enable_seqscan = off;
SELECT file FROM lake WHERE f @> 1234;
SELECT file FROM lake WHERE f @> 1234::int8;
SELECT file FROM lake WHERE f @> 9000000000::int8;
INSERT INTO lake SELECT 99, bloom_agg(g::int8, 1000, 0.01, 'parquet') FROM generate_series(1230, 1240) g;
SELECT file FROM lake WHERE f @> 1234 ORDER BY file;
RESET enable_seqscan;
SELECT file FROM lake WHERE f @> 1234 ORDER BY file;
-- filters past bloomslice's slicing size are rechecked by the index's
-- operator (gbloom_contains), which hashes parquet keys as bloom_contains
CREATE TEMP TABLE big_lake AS
SELECT l, bloom_agg(o, 20000, 0.01, l) AS f
FROM (VALUES ('blocked'), ('parquet')) v(l), generate_series(120000::bigint, 139999) o GROUP BY l;
CREATE INDEX ON big_lake USING bloomslice (f);
SET enable_seqscan = off;
SELECT l, (bloom_info(f)).bits FROM big_lake WHERE f @> 123456::bigint ORDER BY l;
RESET enable_seqscan;

-- a scalablebloom holds classic and blocked filters only: a parquet or
-- spark filter is refused, not wrapped into a container no reader takes
SELECT bloom_add(bloom_empty(100, 0.01, 'parquet'), 1)::scalablebloom;
SELECT bloom_empty(100, 0.01, 'spark')::scalablebloom;

--
-- Parquet strings (BYTE_ARRAY with the String logical type) are UTF-8: a
-- database in another encoding hashes a text key's UTF-8 bytes, so the
-- same keys give the same bitset in a LATIN1 and a UTF8 database, and a
-- filter made in either probes true in the other.  text, varchar and name.
--
SELECT encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::text[])), 'hex') AS pq_utf8_text,
       encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::varchar[])), 'hex') AS pq_utf8_varchar,
       encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::name[])), 'hex') AS pq_utf8_name \gset
-- the three spellings hash alike, and not as the LATIN1 bytes would
SELECT :'pq_utf8_text' = :'pq_utf8_varchar' AND :'pq_utf8_text' = :'pq_utf8_name' AS same_bytes_all_types,
       bloom_contains(bloom_from_parquet(decode(:'pq_utf8_text', 'hex'), 'BYTE_ARRAY'), convert_from('\x636166e9'::bytea, 'LATIN1')) AS cafe_probes,
       bloom_contains(bloom_from_parquet(decode(:'pq_utf8_text', 'hex'), 'BYTE_ARRAY'), '\x636166e9'::bytea) AS latin1_bytes_are_another_key;
SELECT current_database() AS regress_db \gset
CREATE DATABASE bloom_parquet_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c bloom_parquet_latin1
SET client_min_messages = warning;
SET client_encoding = 'UTF8';
CREATE EXTENSION bloomfilter;
SELECT octet_length('ñandú') AS latin1_octets,
       encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::text[])), 'hex') = :'pq_utf8_text' AS text_same_as_utf8,
       encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::varchar[])), 'hex') = :'pq_utf8_text' AS varchar_same_as_utf8,
       encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::name[])), 'hex') = :'pq_utf8_text' AS name_same_as_utf8;
-- a filter made in the UTF8 database probes true here, key by key and type by type
SELECT k, bloom_contains(f, k::text) AS text_probe, bloom_contains(f, k::varchar) AS varchar_probe,
       bloom_contains(f, k::name) AS name_probe, bloom_contains(bloom_add(bloom_empty(5, 0.1, 'parquet'), k::text), k::name) AS local_probe
FROM (SELECT bloom_from_parquet(decode(:'pq_utf8_text', 'hex'), 'BYTE_ARRAY') AS f) s,
     unnest(ARRAY['café', 'ñandú', 'Ø']) k ORDER BY k;
-- and through a bloomslice index: filters made here, and row 0 the filter
-- made in the UTF8 database
CREATE TABLE latin1_lake AS
SELECT i, bloom_add_all(bloom_empty(100, 0.01, 'parquet'), ARRAY['café' || i, 'ñandú' || i, 'Ø' || i]) AS f
FROM generate_series(1, 50) i;
INSERT INTO latin1_lake VALUES (0, bloom_from_parquet(decode(:'pq_utf8_text', 'hex'), 'BYTE_ARRAY'));
CREATE INDEX ON latin1_lake USING bloomslice (f);
SET enable_seqscan = off;
SELECT i FROM latin1_lake WHERE f @> 'ñandú7'::text;
SELECT i FROM latin1_lake WHERE f @> 'Ø42'::varchar;
SELECT i FROM latin1_lake WHERE f @> 'ñandú'::text;
SELECT i FROM latin1_lake WHERE f @> 'Ø'::name;
RESET enable_seqscan;
-- and a filter made here, shipped as Parquet bytes, probes true in UTF8
SELECT encode(bloom_to_parquet(bloom_add_all(bloom_empty(5, 0.1, 'parquet'), ARRAY['café', 'ñandú', 'Ø']::text[])), 'hex') AS pq_latin1_text \gset
\c :regress_db
DROP DATABASE bloom_parquet_latin1;
SELECT k, bloom_contains(bloom_from_parquet(decode(:'pq_latin1_text', 'hex'), 'BYTE_ARRAY'), k) AS probe_in_utf8
FROM unnest(ARRAY['café', 'ñandú', 'Ø']::text[]) k ORDER BY k;
