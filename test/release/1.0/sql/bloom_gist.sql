--
-- GiST index on bloomfilter columns: col @> key and col @>> filter answered
-- through the index, with exactly the rows a sequential scan gives.
--

-- explain_neutral(): EXPLAIN printed alike by every PostgreSQL version
\set ECHO none
\i sql/explain_neutral.inc
\set ECHO all

-- compare_plans() and error_of(): the index-vs-sequential-scan helpers
\set ECHO none
\i sql/compare_plans.inc
\set ECHO all

-- ---------------------------------------------------------------------
-- A column of mixed geometry: blocked and classic filters, sizes that fold
-- onto each other and sizes that do not, other numbers of hashes, another
-- seed, self-sized bloom_agg filters; filters of neighbouring ids share
-- keys.  Some filters are NULL and some are empty.  Filters whose bits
-- exceed the signature (256 bytes by default) are stored as signatures and
-- rechecked; smaller ones are stored whole and tested exactly.
-- ---------------------------------------------------------------------

CREATE FUNCTION doc_filter(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN i % 97 = 0 THEN NULL
		WHEN i % 89 = 0 THEN bloom_empty(100)
		ELSE bloom_add_all(CASE i % 7
				WHEN 0 THEN bloom_empty(100)
				WHEN 1 THEN bloom_empty(400)
				WHEN 2 THEN bloom_empty(100, 0.01, 'classic')
				WHEN 3 THEN bloom_empty(100, 0.01, 'blocked', 7)
				WHEN 4 THEN bloom_empty_bits(64 * (1 + i % 40), 3, 'classic')
				WHEN 5 THEN bloom_empty_bits(512 * (1 + i % 9), 5, 'blocked')
				ELSE bloom_empty(1000, 0.001, 'classic') END,
			ARRAY(SELECT i * 3 + j FROM generate_series(1, 10 + (i * 37) % 190) j))
	END
$$;

CREATE TABLE docs (id int, f bloomfilter);
INSERT INTO docs SELECT i, doc_filter(i) FROM generate_series(1, 3000) i;

-- the index is built on existing data ...
CREATE INDEX docs_f ON docs USING gist (f);

-- ... and takes inserts afterwards, self-sized filters among them
INSERT INTO docs SELECT i, doc_filter(i) FROM generate_series(3001, 5000) i;
INSERT INTO docs SELECT 10000 + i, bloom_agg(k)
FROM generate_series(1, 300) i, generate_series(i * 10, i * 10 + i % 50) k GROUP BY i;

SELECT count(*) AS filters, count(f) AS not_null,
	count(*) FILTER (WHERE (bloom_info(f)).added = 0) AS empty,
	count(DISTINCT (bloom_info(f)).layout || (bloom_info(f)).bits || '/' ||
		(bloom_info(f)).hashes || '/' || (bloom_info(f)).seed) AS geometries
FROM docs;

SET enable_seqscan = off;

-- every way to write a probe is answered through the index: the operator,
-- its commutator and the function (turned into f @> gbloom_key(x))
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE f @> 3000;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE 3000 <@ f;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE bloom_contains(f, 3000::int8);
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE f @> 3000;
RESET enable_bitmapscan;

-- an index scan needs no recheck on a filter stored whole, and rechecks one
-- stored as its signature on the table
SET enable_bitmapscan = off;
SELECT * FROM explain_neutral($$SELECT id FROM docs WHERE f @> 3000$$,
	'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF');
RESET enable_bitmapscan;

RESET enable_seqscan;

-- every key of a range, one index scan per key (a nested loop rescanning
-- the index with a new key each time), gives the rows a sequential scan
-- gives: int4 keys, int8 keys of the same family, both operators and the
-- function
CREATE TABLE probes AS SELECT k FROM generate_series(-20, 15600, 41) k;
SET enable_seqscan = off;
SELECT * FROM explain_neutral($$SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE f @> p.k) d$$);
RESET enable_seqscan;
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE f @> p.k) d');
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE p.k::int8 <@ f) d');
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE bloom_contains(f, p.k::int2)) d WHERE p.k < 32767');
SELECT * FROM compare_plans('SELECT id FROM docs WHERE f @> 7001');

-- NULL: a NULL key matches no row (here an index scan whose key is NULL);
-- NULL filters are indexed and found by IS NULL; empty filters contain
-- nothing
SELECT * FROM compare_plans('SELECT p.k, d.id FROM (VALUES (NULL::int), (3000), (NULL)) p(k), LATERAL (SELECT id FROM docs WHERE f @> p.k) d');
SELECT * FROM compare_plans('SELECT id FROM docs WHERE f IS NULL');
SELECT * FROM compare_plans('SELECT id FROM docs WHERE (bloom_info(f)).added = 0 AND f @> 8900');

-- after deleting a third of the rows and VACUUM, still the same rows
DELETE FROM docs WHERE id % 3 = 0;
VACUUM docs;
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE f @> p.k) d');
INSERT INTO docs SELECT i, doc_filter(i) FROM generate_series(1, 5000, 3) i;
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE f @> p.k) d');

-- ---------------------------------------------------------------------
-- Keys of several types; a text key uses the class's @>(bloomfilter, text)
-- directly.
-- ---------------------------------------------------------------------

CREATE TABLE typed AS
SELECT i AS id,
	bloom_add_all(bloom_empty(60), ARRAY(SELECT 'k' || (i + j) FROM generate_series(1, 1 + i % 50) j)) AS ft,
	bloom_add_all(bloom_empty(60), ARRAY(SELECT (i + j) / 4.0 FROM generate_series(1, 1 + i % 50) j)) AS fn,
	bloom_add_all(bloom_empty(60), ARRAY(SELECT md5((i + j)::text)::uuid FROM generate_series(1, 1 + i % 50) j)) AS fu,
	bloom_add_all(bloom_empty(60), ARRAY(SELECT date '2024-01-01' + (i + j) FROM generate_series(1, 1 + i % 50) j)) AS fd,
	bloom_add_all(bloom_empty(60), ARRAY(SELECT (i + j) * 0.5::float8 FROM generate_series(1, 1 + i % 50) j)) AS ff
FROM generate_series(1, 2000) i;
CREATE INDEX typed_ft ON typed USING gist (ft);
CREATE INDEX typed_fn ON typed USING gist (fn);
CREATE INDEX typed_fu ON typed USING gist (fu);
CREATE INDEX typed_fd ON typed USING gist (fd);
CREATE INDEX typed_ff ON typed USING gist (ff);
CREATE TABLE tprobes AS SELECT k FROM generate_series(1, 2100, 13) k;

SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM typed WHERE ft @> 'k1000';
EXPLAIN (COSTS OFF) SELECT id FROM typed WHERE 'k1000' <@ ft;
EXPLAIN (COSTS OFF) SELECT id FROM typed WHERE bloom_contains(ft, 'k1000'::varchar);
EXPLAIN (COSTS OFF) SELECT id FROM typed WHERE fu @> md5('1000')::uuid;
RESET enable_seqscan;

SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE ft @> (''k'' || p.k)) t');
SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE (''k'' || p.k)::varchar <@ ft) t');
SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE fn @> p.k / 4.0) t');
SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE fn @> (p.k / 4.0)::numeric(20, 6)) t');
SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE fu @> md5(p.k::text)::uuid) t');
SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE fd @> date ''2024-01-01'' + p.k) t');
SELECT * FROM compare_plans('SELECT p.k, t.id FROM tprobes p, LATERAL (SELECT id FROM typed WHERE ff @> (p.k * 0.5)::float4) t');

-- Keys of type record and record[]: the columns come from the query's value
-- (no expression tells them to the scan), for every new query of a nested
-- loop
CREATE TABLE recs AS
SELECT i AS id, bloom_empty(60) + ROW(i, 'k' || i) AS fr,
	bloom_empty(60) + ARRAY[ROW(i, 'k' || i)] AS fa
FROM generate_series(1, 500) i;
CREATE INDEX recs_fr ON recs USING gist (fr);
CREATE INDEX recs_fa ON recs USING gist (fa);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM recs WHERE fa @> ARRAY[ROW(7, 'k7'::text)];
RESET enable_seqscan;
SELECT * FROM compare_plans('SELECT id FROM recs WHERE fr @> ROW(7::int8, ''k7''::varchar)');
SELECT * FROM compare_plans('SELECT id FROM recs WHERE fa @> ARRAY[ROW(7, ''k7''::text)]');
SELECT * FROM compare_plans('SELECT p.k, r.id FROM tprobes p, LATERAL (SELECT id FROM recs WHERE fr @> ROW(p.k, ''k'' || p.k)) r');
SELECT * FROM compare_plans('SELECT p.k, r.id FROM tprobes p, LATERAL (SELECT id FROM recs WHERE fa @> ARRAY[ROW(p.k, ''k'' || p.k)]) r');

-- ---------------------------------------------------------------------
-- Superset queries, col @>> q and bloom_contains_filter(col, q), on
-- columns of filters that can be compared: one hashing, sizes that fold.
-- ---------------------------------------------------------------------

CREATE TABLE fp AS
SELECT i AS id, bloom_add_all(bloom_empty_bits(256 << (i % 4), 3, 'classic', 1),
	ARRAY(SELECT (i * 13 + j * j) % 500 FROM generate_series(1, 5 + i % 60) j)) AS f
FROM generate_series(1, 4000) i;
INSERT INTO fp SELECT 9000 + i, bloom_empty_bits(256 << (i % 4), 3, 'classic', 1) FROM generate_series(1, 20) i;
CREATE INDEX fp_f ON fp USING gist (f);
-- queries of 1 to 4 keys, at every size, and an empty one (every filter
-- is a superset of it)
CREATE TABLE fq AS
SELECT q, bloom_add_all(bloom_empty_bits(256 << (q % 4), 3, 'classic', 1),
	ARRAY(SELECT (q * 7 + j * 11) % 500 FROM generate_series(1, 1 + q % 4) j)) AS qf
FROM generate_series(1, 200) q;
INSERT INTO fq VALUES (0, bloom_empty_bits(512, 3, 'classic', 1));

SET enable_seqscan = off;
SELECT * FROM explain_neutral($$SELECT id FROM fp WHERE f @>> (SELECT qf FROM fq WHERE q = 3)$$);
EXPLAIN (COSTS OFF) SELECT id FROM fp WHERE bloom_contains_filter(f, bloom_empty_bits(64, 3, 'classic', 1) + 7);
EXPLAIN (COSTS OFF) SELECT id FROM fp WHERE bloom_empty_bits(64, 3, 'classic', 1) + 7 <<@ f;
RESET enable_seqscan;
SELECT * FROM compare_plans('SELECT fq.q, d.id FROM fq, LATERAL (SELECT id FROM fp WHERE f @>> fq.qf) d');
SELECT * FROM compare_plans('SELECT fq.q, d.id FROM fq, LATERAL (SELECT id FROM fp WHERE bloom_contains_filter(f, fq.qf)) d');
SELECT * FROM compare_plans('SELECT fq.q, d.id FROM fq, LATERAL (SELECT id FROM fp WHERE fq.qf <<@ f) d');

-- blocked filters whose sizes fold, some stored whole and some as
-- signatures
CREATE TABLE fb AS
SELECT i AS id, bloom_add_all(bloom_empty_bits(512 << (i % 5), 4, 'blocked'),
	ARRAY(SELECT (i * 13 + j * j) % 3000 FROM generate_series(1, 5 + i % 150) j)) AS f
FROM generate_series(1, 3000) i;
CREATE INDEX fb_f ON fb USING gist (f);
CREATE TABLE bq AS
SELECT q, bloom_add_all(bloom_empty_bits(512 << (q % 5), 4, 'blocked'),
	ARRAY(SELECT (q * 7 + j * 11) % 3000 FROM generate_series(1, q % 4) j)) AS qf
FROM generate_series(1, 150) q;
SELECT * FROM compare_plans('SELECT bq.q, d.id FROM bq, LATERAL (SELECT id FROM fb WHERE f @>> bq.qf) d');
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM fb WHERE f @> p.k) d WHERE p.k < 3000');

-- errors are the same with either plan: a query filter the stored filters
-- cannot be compared with (other k, a size that does not fold), a superset
-- query on a column of several geometries, a key of another family (the
-- index does not skip the filters a sequential scan would stop at)
SELECT q, error_of(q, true) AS with_index, error_of(q, false) AS with_seqscan
FROM (VALUES ('SELECT count(*) FROM fp WHERE f @>> bloom_empty_bits(256, 4, ''classic'', 1) + 7'),
			 ('SELECT count(*) FROM fp WHERE f @>> bloom_empty_bits(320, 3, ''classic'', 1) + 7'),
			 ('SELECT count(*) FROM docs WHERE f @>> bloom_empty(100) + 7'),
			 ('SELECT count(*) FROM docs WHERE f @> ''abc''::text')) v(q);

-- ---------------------------------------------------------------------
-- The siglen option: signature length in bytes, a multiple of 64 from 64
-- to 1920 (default 256).
-- ---------------------------------------------------------------------

DROP INDEX docs_f;
CREATE INDEX docs_f ON docs USING gist (f bloomfilter_gist_ops (siglen = 64));
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE f @> p.k) d');
DROP INDEX docs_f;
CREATE INDEX docs_f ON docs USING gist (f bloomfilter_gist_ops (siglen = 1920));
SELECT * FROM compare_plans('SELECT p.k, d.id FROM probes p, LATERAL (SELECT id FROM docs WHERE f @> p.k) d');
DROP INDEX fb_f;
CREATE INDEX fb_f ON fb USING gist (f bloomfilter_gist_ops (siglen = 64));
SELECT * FROM compare_plans('SELECT bq.q, d.id FROM bq, LATERAL (SELECT id FROM fb WHERE f @>> bq.qf) d');
DROP INDEX fp_f;
CREATE INDEX fp_f ON fp USING gist (f bloomfilter_gist_ops (siglen = 1024));
SELECT * FROM compare_plans('SELECT fq.q, d.id FROM fq, LATERAL (SELECT id FROM fp WHERE f @>> fq.qf) d');

CREATE INDEX ON fp USING gist (f bloomfilter_gist_ops (siglen = 100));
CREATE INDEX ON fp USING gist (f bloomfilter_gist_ops (siglen = 32));
CREATE INDEX ON fp USING gist (f bloomfilter_gist_ops (siglen = 4096));

-- A filter of another key family (or that q cannot be compared with) in a
-- deleted, not yet vacuumed row: a sequential scan never sees it, so the
-- index must not raise the error from the index either (the leaf asks the
-- table to recheck, which raises it only for a visible row)
CREATE TABLE deadfam (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO deadfam SELECT i, CASE WHEN i % 2 = 0 THEN bloom_empty(100) + i
	ELSE bloom_empty(100, 0.01, 'classic') + (i * 0.5)::float8 END FROM generate_series(1, 1000) i;
CREATE INDEX deadfam_f ON deadfam USING gist (f);
SET enable_seqscan = off;
SELECT count(*) FROM deadfam WHERE f @> 10;
DELETE FROM deadfam WHERE id % 2 = 1;
SELECT count(*) FROM deadfam WHERE f @> 10;
SELECT count(*) FROM deadfam WHERE f @>> (bloom_empty(100) + 10);
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM deadfam WHERE f @> 10;
SELECT count(*) FROM deadfam WHERE f @>> (bloom_empty(100) + 10);
RESET enable_indexscan;
RESET enable_bitmapscan;
DROP TABLE deadfam;

-- the operator class is the type's default and passes amvalidate
SELECT opcname, opcdefault, amvalidate(oid) FROM pg_opclass WHERE opcname = 'bloomfilter_gist_ops';

-- the key box of the index condition is internal: no input
SELECT 'x'::gbloom_key;
SELECT gbloom_key(42)::text AS shown, bloom_empty(10) + 42 @> gbloom_key(42) AS found;

DROP TABLE docs, probes, typed, tprobes, recs, fp, fq, fb, bq;
DROP FUNCTION doc_filter(int);
DROP FUNCTION compare_plans(text, text);
DROP FUNCTION error_of(text, boolean, boolean);
