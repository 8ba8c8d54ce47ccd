--
-- GiST and bloomslice over filters of layouts parquet and spark, alone and
-- mixed with classic and blocked ones in one column: every probe and
-- superset query through an index returns exactly the rows a sequential
-- scan returns (no false negative, no extra row).
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;

-- Spark's own filters (test/vectors/spark: V1 and V2, seeds 0, 12345, -7)
CREATE TEMP TABLE spark_raw (line text);
\copy spark_raw FROM 'test/vectors/spark/spark_vectors.tsv' WITH (FORMAT text, DELIMITER E'\x01')
CREATE TEMP TABLE spark_vec AS
SELECT split_part(line, E'\t', 2)::int AS vid, split_part(line, E'\t', 3)::int AS version,
       bloom_from_spark(decode(split_part(line, E'\t', 9), 'hex')) AS f
FROM spark_raw WHERE line LIKE E'filter\t%';
CREATE TEMP TABLE spark_vec_keys AS
SELECT split_part(line, E'\t', 2)::int AS vid, split_part(line, E'\t', 3) AS kind,
       decode(split_part(line, E'\t', 4), 'hex') AS bytes
FROM spark_raw WHERE line LIKE E'key\t%' OR line LIKE E'probe\t%';

-- idx_check(q): q's rows through index scans, through bitmap scans and
-- through a sequential scan; the rows one has and another has not (both
-- must be 0), and whether the index was used.  q must select (x, id).
CREATE FUNCTION idx_check(what text, q text,
  OUT label text, OUT seq_rows bigint, OUT idx_diff bigint, OUT bmp_diff bigint,
  OUT idx_used bool, OUT bmp_used bool)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  label := what;
  PERFORM set_config('client_min_messages', 'warning', true);
  DROP TABLE IF EXISTS r_idx, r_bmp, r_seq;
  PERFORM set_config('enable_seqscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  idx_used := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    idx_used := idx_used OR line LIKE '%Index Scan using%';
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE r_idx AS ' || q;
  PERFORM set_config('enable_bitmapscan', 'on', true);
  PERFORM set_config('enable_indexscan', 'off', true);
  bmp_used := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    bmp_used := bmp_used OR line LIKE '%Bitmap Index Scan%';
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE r_bmp AS ' || q;
  PERFORM set_config('enable_seqscan', 'on', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE r_seq AS ' || q;
  SELECT count(*) INTO seq_rows FROM r_seq;
  SELECT (SELECT count(*) FROM (SELECT * FROM r_idx EXCEPT ALL SELECT * FROM r_seq) a) +
         (SELECT count(*) FROM (SELECT * FROM r_seq EXCEPT ALL SELECT * FROM r_idx) b)
    INTO idx_diff;
  SELECT (SELECT count(*) FROM (SELECT * FROM r_bmp EXCEPT ALL SELECT * FROM r_seq) a) +
         (SELECT count(*) FROM (SELECT * FROM r_seq EXCEPT ALL SELECT * FROM r_bmp) b)
    INTO bmp_diff;
  PERFORM set_config('enable_seqscan', 'on', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_bitmapscan', 'on', true);
END $$;

-- Integer keys: parquet INT32, INT64 (values past INT32's range too) and
-- DOUBLE, spark V1 of many sizes (some a multiple of a signature's bits,
-- most not), spark V2 (Spark's, then with keys added), classic, blocked.
CREATE TEMP TABLE ints (id int, f bloomfilter);
INSERT INTO ints
SELECT i, bloom_agg(g, (ARRAY[40, 150, 600, 3000])[i % 4 + 1], 0.01, 'parquet')
FROM generate_series(1, 300) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
INSERT INTO ints
SELECT i, bloom_agg(CASE WHEN g % 3 = 0 THEN g + 5000000000 ELSE g END,
                    (ARRAY[40, 150, 600])[i % 3 + 1], 0.01, 'parquet')
FROM generate_series(301, 600) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
INSERT INTO ints
SELECT i, bloom_agg(g::float8, 100, 0.01, 'parquet')
FROM generate_series(601, 700) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
INSERT INTO ints
SELECT i, bloom_agg(g::int8, (ARRAY[30, 100, 250, 700, 2500])[i % 5 + 1], 0.01, 'spark')
FROM generate_series(701, 1000) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
-- spark V1 of exactly 2048 and 4096 bits: a signature's size and twice it
INSERT INTO ints
SELECT i, bloom_add_all(bloom_empty_bits((ARRAY[2048, 4096])[i % 2 + 1], 3, 'spark'),
                        ARRAY(SELECT g::int8 FROM generate_series(i * 7, i * 7 + 29) g))
FROM generate_series(1001, 1100) i;
INSERT INTO ints SELECT 2000 + vid, f FROM spark_vec;
INSERT INTO ints
SELECT 3000 + vid * 10 + j,
       bloom_add_all(f, ARRAY(SELECT g::int8 FROM generate_series(vid * 70 + j, vid * 70 + j + 9) g))
FROM spark_vec, generate_series(0, 9) j WHERE version = 2;
INSERT INTO ints
SELECT i, bloom_agg(g::int8, 60, 0.01, CASE WHEN i % 2 = 0 THEN 'classic' ELSE 'blocked' END)
FROM generate_series(1101, 1300) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
SELECT (bloom_info(f)).layout, count(*), min((bloom_info(f)).bits), max((bloom_info(f)).bits)
FROM ints GROUP BY 1 ORDER BY 1;

CREATE TEMP TABLE int_probes AS
SELECT x::int8 AS x FROM generate_series(-3, 9200, 11) x
UNION ALL SELECT x + 5000000000 FROM generate_series(2100, 4200, 5) x
UNION ALL VALUES (2147483647), (2147483648), (-2147483649), (4294967296 + 2107)
UNION ALL SELECT ('x' || encode(bytes, 'hex'))::bit(64)::bigint FROM spark_vec_keys WHERE kind = 'long';

-- Text keys: parquet BYTE_ARRAY, spark V1, Spark's own (V1 and V2),
-- classic, blocked.
CREATE TEMP TABLE texts (id int, f bloomfilter);
INSERT INTO texts
SELECT i, bloom_agg('k' || g, (ARRAY[40, 150, 600])[i % 3 + 1], 0.01,
                    (ARRAY['parquet', 'spark', 'classic', 'blocked'])[i % 4 + 1])
FROM generate_series(1, 800) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
INSERT INTO texts SELECT 2000 + vid, f FROM spark_vec;
CREATE TEMP TABLE text_probes AS
SELECT 'k' || x AS x FROM generate_series(0, 5700, 7) x
UNION ALL SELECT convert_from(bytes, 'UTF8') FROM spark_vec_keys WHERE kind = 'string'
UNION ALL VALUES (''), ('k');

-- Float keys: parquet DOUBLE with -0.0, 0.0 and NaN among them, and FLOAT
CREATE TEMP TABLE floats (id int, f bloomfilter);
INSERT INTO floats
SELECT i, bloom_agg(CASE WHEN i % 10 = 0 AND g % 7 = 0 THEN '-0'::float8
                         WHEN i % 10 = 1 AND g % 7 = 0 THEN 0::float8
                         WHEN i % 10 = 2 AND g % 7 = 0 THEN 'NaN'::float8
                         ELSE g / 4.0 END, (ARRAY[40, 300])[i % 2 + 1], 0.01, 'parquet')
FROM generate_series(1, 400) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
INSERT INTO floats
SELECT i, bloom_agg((g / 4.0)::float4, 100, 0.01, 'parquet')
FROM generate_series(401, 500) i, generate_series(i * 7, i * 7 + 29) g GROUP BY i;
CREATE TEMP TABLE float_probes AS
SELECT x / 4.0 AS x FROM generate_series(0, 14200, 5) x
UNION ALL VALUES ('-0'::float8), (0), ('NaN'), ('Infinity'), (1e300);

-- the probes of each index, each key type against each column
CREATE TEMP TABLE queries (label text, q text);
INSERT INTO queries VALUES
 ('int8', 'SELECT p.x, t.id FROM int_probes p, LATERAL (SELECT id FROM ints WHERE f @> p.x) t'),
 ('int4', 'SELECT p.x, t.id FROM int_probes p, LATERAL (SELECT id FROM ints WHERE f @> p.x::int4) t WHERE p.x BETWEEN -2147483648 AND 2147483647'),
 ('int2', 'SELECT p.x, t.id FROM int_probes p, LATERAL (SELECT id FROM ints WHERE f @> p.x::int2) t WHERE p.x BETWEEN -32768 AND 32767'),
 ('text', 'SELECT p.x, t.id FROM text_probes p, LATERAL (SELECT id FROM texts WHERE f @> p.x) t'),
 ('float8', 'SELECT p.x, t.id FROM float_probes p, LATERAL (SELECT id FROM floats WHERE f @> p.x) t'),
 ('float4', 'SELECT p.x, t.id FROM float_probes p, LATERAL (SELECT id FROM floats WHERE f @> p.x::float4) t WHERE p.x < 1e30'),
 ('int4 in floats', 'SELECT p.x, t.id FROM int_probes p, LATERAL (SELECT id FROM floats WHERE f @> p.x::int4) t WHERE p.x BETWEEN 0 AND 4000'),
 ('constant int8', 'SELECT 1234::int8, id FROM ints WHERE f @> 1234::int8'),
 ('constant NaN', 'SELECT 0, id FROM floats WHERE f @> ''NaN''::float8'),
 ('constant -0', 'SELECT 0, id FROM floats WHERE f @> ''-0''::float8');
ANALYZE ints, texts, floats, int_probes, text_probes, float_probes;

-- GiST, the default signature (2048 bits)
CREATE INDEX ints_gist ON ints USING gist (f);
CREATE INDEX texts_gist ON texts USING gist (f);
CREATE INDEX floats_gist ON floats USING gist (f);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ints WHERE f @> 1234::int8;
RESET enable_seqscan;
SELECT c.* FROM queries, idx_check(label, q) c;
DROP INDEX ints_gist, texts_gist, floats_gist;

-- GiST with the shortest signature (512 bits): most filters stored as
-- signatures, every spark size folded
CREATE INDEX ints_gist ON ints USING gist (f bloomfilter_gist_ops (siglen = 64));
CREATE INDEX texts_gist ON texts USING gist (f bloomfilter_gist_ops (siglen = 64));
CREATE INDEX floats_gist ON floats USING gist (f bloomfilter_gist_ops (siglen = 64));
SELECT c.* FROM queries, idx_check(label, q) c;
DROP INDEX ints_gist, texts_gist, floats_gist;

-- bloomslice, built over the table, then with rows inserted (pending area)
CREATE INDEX ints_slice ON ints USING bloomslice (f);
CREATE INDEX texts_slice ON texts USING bloomslice (f);
CREATE INDEX floats_slice ON floats USING bloomslice (f);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ints WHERE f @> 1234::int8;
RESET enable_seqscan;
SELECT c.* FROM queries, idx_check(label, q) c;
INSERT INTO ints SELECT id + 10000, f FROM ints WHERE id % 5 = 0;
INSERT INTO texts SELECT id + 10000, f FROM texts WHERE id % 5 = 0;
SELECT c.* FROM queries, idx_check(label, q) c WHERE queries.label IN ('int8', 'text');
DROP INDEX ints_slice, texts_slice, floats_slice;

-- Superset queries f @>> q: parquet filters of several sizes (q folded to
-- a smaller filter's size, or a larger filter's bits folded onto q's),
-- spark V1 and V2 filters of one geometry each
CREATE TEMP TABLE pq_sup (id int, f bloomfilter);
INSERT INTO pq_sup
SELECT i, bloom_agg(g, (ARRAY[40, 150, 600, 3000])[i % 4 + 1], 0.01, 'parquet')
FROM generate_series(1, 600) i, generate_series(i * 5, i * 5 + 24) g GROUP BY i;
CREATE TEMP TABLE pq_q AS
SELECT s, bloom_agg(g, (ARRAY[40, 150, 600, 3000])[s % 4 + 1], 0.01, 'parquet') AS q
FROM generate_series(0, 119) s, generate_series(s * 25 + 7, s * 25 + 9) g GROUP BY s;
CREATE TEMP TABLE sp_sup AS
SELECT i AS id, bloom_add_all(bloom_empty_bits(960, 4, 'spark'),
                              ARRAY(SELECT g::int8 FROM generate_series(i * 5, i * 5 + 24) g)) AS f
FROM generate_series(1, 400) i;
CREATE TEMP TABLE sp_q AS
SELECT s, bloom_add_all(bloom_empty_bits(960, 4, 'spark'),
                        ARRAY(SELECT g::int8 FROM generate_series(s * 25 + 7, s * 25 + 9) g)) AS q
FROM generate_series(0, 79) s;
-- V2, seed 12345: Spark's filter with more keys in each row and query
CREATE TEMP TABLE sp2_sup AS
SELECT j AS id, bloom_add_all(f, ARRAY(SELECT g::int8 FROM generate_series(j * 5, j * 5 + 24) g)) AS f
FROM spark_vec, generate_series(1, 300) j WHERE vid = 25;
CREATE TEMP TABLE sp2_q AS
SELECT s, bloom_add_all(f, ARRAY(SELECT g::int8 FROM generate_series(s * 25 + 7, s * 25 + 9) g)) AS q
FROM spark_vec, generate_series(0, 59) s WHERE vid = 25;
ANALYZE pq_sup, pq_q, sp_sup, sp_q, sp2_sup, sp2_q;
CREATE TEMP TABLE sup_queries (label text, q text);
INSERT INTO sup_queries VALUES
 ('parquet @>>', 'SELECT p.s, t.id FROM pq_q p, LATERAL (SELECT id FROM pq_sup WHERE f @>> p.q) t'),
 ('spark V1 @>>', 'SELECT p.s, t.id FROM sp_q p, LATERAL (SELECT id FROM sp_sup WHERE f @>> p.q) t'),
 ('spark V2 @>>', 'SELECT p.s, t.id FROM sp2_q p, LATERAL (SELECT id FROM sp2_sup WHERE f @>> p.q) t');
CREATE INDEX pq_sup_gist ON pq_sup USING gist (f bloomfilter_gist_ops (siglen = 64));
CREATE INDEX sp_sup_gist ON sp_sup USING gist (f bloomfilter_gist_ops (siglen = 64));
CREATE INDEX sp2_sup_gist ON sp2_sup USING gist (f bloomfilter_gist_ops (siglen = 64));
SELECT c.* FROM sup_queries, idx_check(label, q) c;
DROP INDEX pq_sup_gist, sp_sup_gist, sp2_sup_gist;
CREATE INDEX pq_sup_slice ON pq_sup USING bloomslice (f);
CREATE INDEX sp_sup_slice ON sp_sup USING bloomslice (f);
CREATE INDEX sp2_sup_slice ON sp2_sup USING bloomslice (f);
SELECT c.* FROM sup_queries, idx_check(label, q) c;
DROP INDEX pq_sup_slice, sp_sup_slice, sp2_sup_slice;

-- a probe a sequential scan refuses is refused through the indexes too
CREATE TEMP TABLE sp_only AS SELECT * FROM ints WHERE (bloom_info(f)).layout = 'spark';
CREATE TEMP TABLE pq_only AS SELECT * FROM ints WHERE (bloom_info(f)).layout = 'parquet';
CREATE INDEX ON sp_only USING gist (f);
CREATE INDEX ON pq_only USING bloomslice (f);
SET enable_seqscan = off;
SELECT id FROM sp_only WHERE f @> 1.5::numeric;
SELECT id FROM pq_only WHERE f @> 1.5::numeric;
SELECT id FROM sp_only WHERE f @> 'k1'::bpchar;
RESET enable_seqscan;
