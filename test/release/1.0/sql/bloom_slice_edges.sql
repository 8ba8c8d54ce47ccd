--
-- bloomslice at its edges, each state reached by counting and shown from
-- the index's own pages (pageinspect): a block of exactly 512 filters,
-- 511 and 513; the last column filled by a flush; freed columns refilled
-- by other filters (their old bits must go); the pending area one item
-- below its limit, flushed by the insert that reaches it, and one item
-- past the flush; the largest filter a pending page takes and the
-- smallest it does not; the largest sliced filter and the smallest
-- unsliced one; a column of text keys under random DML.  In each state
-- the index answers exactly as a sequential scan (differences always 0).
--

SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.5);

-- compare_plans() and error_of(): the index-vs-sequential-scan helpers
\set ECHO none
\i sql/compare_plans.inc
-- explain_neutral(): EXPLAIN printed alike by every PostgreSQL version
\i sql/explain_neutral.inc
\set ECHO all

CREATE EXTENSION pageinspect;

-- le(page, offset, length): a little-endian unsigned integer of a page
CREATE FUNCTION le(b bytea, off int, len int) RETURNS int8
LANGUAGE sql IMMUTABLE AS $$
	SELECT sum((get_byte(b, off + i)::int8) << (8 * i))::int8 FROM generate_series(0, len - 1) i
$$;

-- the metapage (BsMeta after the 24-byte page header): pending pages,
-- pending filters, block heads, filters in blocks
CREATE FUNCTION bs_meta(idx regclass, OUT pending_pages int8, OUT pending int8,
	OUT blocks int8, OUT sliced int8)
LANGUAGE sql AS $$
	SELECT le(p, 40, 4), le(p, 48, 8), le(p, 60, 4), le(p, 72, 8)
	FROM get_raw_page(idx::text, 0) p
$$;

-- the blocks, newest first (BsHead: next, npages, geometry, live columns)
CREATE FUNCTION bs_blocks(idx regclass)
RETURNS TABLE (block int, live int, unsliced boolean, bits int8)
LANGUAGE plpgsql AS $$
DECLARE
	blk int8 := le(get_raw_page(idx::text, 0), 56, 4);
	p bytea;
BEGIN
	block := 0;
	WHILE blk <> 4294967295 LOOP
		p := get_raw_page(idx::text, blk);
		block := block + 1;
		live := bit_count(substring(p FROM 65 FOR 64));
		unsliced := le(p, 40, 4) & 1 = 1;
		bits := le(p, 56, 8);
		RETURN NEXT;
		blk := le(p, 24, 4);
	END LOOP;
END $$;

-- the free bytes of the pending area's last page
CREATE FUNCTION bs_tail_free(idx regclass) RETURNS int
LANGUAGE sql AS $$
	SELECT CASE WHEN le(m, 36, 4) = 4294967295 THEN NULL
		ELSE (SELECT upper - lower FROM page_header(get_raw_page(idx::text, le(m, 36, 4)))) END
	FROM get_raw_page(idx::text, 0) m
$$;

-- row i's filter: one geometry, its own key i, a key 100000 + i % 7 that
-- many rows share, and 20 random keys
CREATE FUNCTION edge_filter(i int) RETURNS bloomfilter LANGUAGE sql VOLATILE AS $$
	SELECT bloom_add_all(bloom_empty_bits(1024, 3, 'classic'),
		ARRAY[i, 100000 + i % 7] || (SELECT array_agg(1 + floor(random() * 50000)::int)
									 FROM generate_series(1, 20)))
$$;

-- every row's own key, the shared keys, and keys of no row
CREATE TABLE eprobes AS
SELECT k FROM generate_series(1, 1100) k
UNION ALL SELECT 100000 + k FROM generate_series(0, 6) k
UNION ALL SELECT 1 + floor(random() * 50000)::int FROM generate_series(1, 100)
UNION ALL VALUES (0), (-5), (NULL);

-- index against sequential scan for every probe; a superset query too
CREATE FUNCTION check_edge(tab text)
RETURNS TABLE (query text, used boolean, index_rows bigint, seq_rows bigint, differences bigint)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	c record;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT p.k, d.id FROM eprobes p, LATERAL (SELECT id FROM %I WHERE f @> p.k) d',
		'SELECT p.k, d.id FROM eprobes p, LATERAL (SELECT id FROM %I WHERE f @>> bloom_add(bloom_empty_bits(1024, 3, ''classic''), p.k)) d']
	LOOP
		SELECT * INTO c FROM compare_plans(format(q, tab), 'Index Scan (using|on) \w*_bs');
		query := CASE WHEN q ~ '@>>' THEN 'f @>> q' ELSE 'f @> k' END;
		used := c.index_used;
		index_rows := c.index_rows;
		seq_rows := c.seq_rows;
		differences := c.differences;
		RETURN NEXT;
	END LOOP;
END $$;

-- ---------------------------------------------------------------------
-- A block exactly full (512 filters of one geometry at build), one more
-- (513: a full block and a block of one), one fewer (511)
-- ---------------------------------------------------------------------
CREATE TABLE e512 (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO e512 SELECT i, edge_filter(i) FROM generate_series(1, 512) i;
CREATE INDEX e512_bs ON e512 USING bloomslice (f);
SELECT * FROM bs_meta('e512_bs');
SELECT * FROM bs_blocks('e512_bs');
SELECT * FROM check_edge('e512');

CREATE TABLE e513 (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO e513 SELECT i, edge_filter(i) FROM generate_series(1, 513) i;
CREATE INDEX e513_bs ON e513 USING bloomslice (f);
SELECT * FROM bs_meta('e513_bs');
SELECT * FROM bs_blocks('e513_bs');
SELECT * FROM check_edge('e513');

CREATE TABLE e511 (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO e511 SELECT i, edge_filter(i) FROM generate_series(1, 511) i;
CREATE INDEX e511_bs ON e511 USING bloomslice (f);
SELECT * FROM bs_blocks('e511_bs');
SELECT * FROM check_edge('e511');
-- one pending filter beside a block with one free column
INSERT INTO e511 VALUES (512, edge_filter(512));
SELECT * FROM bs_meta('e511_bs');
SELECT * FROM check_edge('e511');
-- VACUUM moves it into the last column: the block is full
VACUUM e511;
SELECT * FROM bs_meta('e511_bs');
SELECT * FROM bs_blocks('e511_bs');
SELECT * FROM check_edge('e511');
-- the next one opens a block of its own
INSERT INTO e511 VALUES (513, edge_filter(513));
VACUUM e511;
SELECT * FROM bs_blocks('e511_bs');
SELECT * FROM check_edge('e511');

-- ---------------------------------------------------------------------
-- Freed columns refilled: rows 100 and 512 (a middle column and the last)
-- deleted and vacuumed away, two other filters flushed into their
-- columns.  Keys 100 and 512 must then find no row: a refilled column
-- that kept a bit of the old filter would answer for the new row
-- without a recheck.
-- ---------------------------------------------------------------------
DELETE FROM e512 WHERE id IN (100, 512);
VACUUM e512;
SELECT * FROM bs_blocks('e512_bs');
INSERT INTO e512 VALUES (1001, edge_filter(1001)), (1002, edge_filter(1002));
SELECT * FROM bs_meta('e512_bs');
SELECT * FROM check_edge('e512');
VACUUM e512;
SELECT * FROM bs_meta('e512_bs');
SELECT * FROM bs_blocks('e512_bs');
SELECT * FROM check_edge('e512');

-- ---------------------------------------------------------------------
-- The pending area at its limit.  pending_limit = 64 (kB) is 8 pages:
-- the insert that would start the 8th page moves everything into blocks
-- instead.  Rows go in one at a time until that happens; the state just
-- before (7 pages, the last one too full for another filter), just after
-- (nothing pending) and one filter later (one pending page) are checked.
-- ---------------------------------------------------------------------
CREATE TABLE epend (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO epend SELECT i, edge_filter(i) FROM generate_series(1, 100) i;
CREATE INDEX epend_bs ON epend USING bloomslice (f) WITH (pending_limit = 64);
CREATE TABLE epend_log (id int, pending_pages int8, pending int8, tail_free int);
DO $$
DECLARE
	i int := 100;
	m record;
BEGIN
	LOOP
		i := i + 1;
		INSERT INTO epend VALUES (i, edge_filter(i));
		SELECT * INTO m FROM bs_meta('epend_bs');
		INSERT INTO epend_log VALUES (i, m.pending_pages, m.pending, bs_tail_free('epend_bs'));
		EXIT WHEN m.pending = 0 OR i > 2000;
	END LOOP;
END $$;
-- the largest the area got, and the insert that flushed it
SELECT max(pending_pages) AS most_pages, count(*) FILTER (WHERE pending = 0) AS flushes,
	(SELECT pending_pages FROM epend_log ORDER BY id DESC OFFSET 1 LIMIT 1) AS pages_before_flush,
	(SELECT tail_free < 200 FROM epend_log ORDER BY id DESC OFFSET 1 LIMIT 1) AS tail_full_before_flush,
	(SELECT pending FROM epend_log ORDER BY id DESC OFFSET 1 LIMIT 1)
		= (SELECT max(id) - 101 FROM epend_log) AS every_insert_pending_until_then
FROM epend_log;
SELECT * FROM bs_meta('epend_bs');
SELECT * FROM check_edge('epend');
-- one below the limit again: the same count of inserts
SELECT max(id) - 100 AS inserts_to_flush FROM epend_log \gset
DELETE FROM epend_log;
INSERT INTO epend SELECT i, edge_filter(i) FROM generate_series(2001, 2000 + :inserts_to_flush - 1) i;
SELECT * FROM bs_meta('epend_bs');
SELECT bs_tail_free('epend_bs') < 200 AS tail_full;
SELECT * FROM check_edge('epend');
-- at the limit: flushed
INSERT INTO epend VALUES (3000, edge_filter(3000));
SELECT * FROM bs_meta('epend_bs');
SELECT * FROM check_edge('epend');
-- one past: a pending page again
INSERT INTO epend VALUES (3001, edge_filter(3001));
SELECT * FROM bs_meta('epend_bs');
SELECT * FROM check_edge('epend');
-- and with rows deleted and updated while half full
UPDATE epend SET f = edge_filter(id + 7) WHERE id % 9 = 0;
DELETE FROM epend WHERE id % 11 = 0;
SELECT * FROM check_edge('epend');
VACUUM epend;
SELECT * FROM bs_meta('epend_bs');
SELECT * FROM check_edge('epend');

-- ---------------------------------------------------------------------
-- Large filters: 64640 bits is the largest a pending page takes (an item
-- of 8144 bytes), 64704 bits goes straight into a block; 131072 bits is
-- the largest sliced, 131136 is rechecked (a pending item with no bits).
-- ---------------------------------------------------------------------
CREATE TABLE ebig (id int, f bloomfilter) WITH (autovacuum_enabled = off);
CREATE INDEX ebig_bs ON ebig USING bloomslice (f);
INSERT INTO ebig VALUES (1, bloom_add_all(bloom_empty_bits(64640, 3, 'classic'), ARRAY[1, 100000]));
SELECT * FROM bs_meta('ebig_bs');
INSERT INTO ebig VALUES (2, bloom_add_all(bloom_empty_bits(64704, 3, 'classic'), ARRAY[2, 100000]));
SELECT * FROM bs_meta('ebig_bs');
INSERT INTO ebig VALUES (3, bloom_add_all(bloom_empty_bits(131072, 3, 'blocked'), ARRAY[3, 100001]));
SELECT * FROM bs_meta('ebig_bs');
INSERT INTO ebig VALUES (4, bloom_add_all(bloom_empty_bits(131136, 3, 'classic'), ARRAY[4, 100001]));
SELECT * FROM bs_meta('ebig_bs');
SELECT * FROM bs_blocks('ebig_bs');
SELECT * FROM compare_plans('SELECT p.k, d.id FROM eprobes p, LATERAL (SELECT id FROM ebig WHERE f @> p.k) d',
	'Index Scan (using|on) \w*_bs');
VACUUM ebig;
SELECT * FROM bs_meta('ebig_bs');
SELECT * FROM bs_blocks('ebig_bs');
SELECT * FROM compare_plans('SELECT p.k, d.id FROM eprobes p, LATERAL (SELECT id FROM ebig WHERE f @> p.k) d',
	'Index Scan (using|on) \w*_bs');

-- ---------------------------------------------------------------------
-- A large, sparse superset query: q of 2^27 bits (16 MB) with two keys,
-- against small filters of both layouts, in blocks and pending.  The scan
-- keeps a position per set bit of q, not per bit (2^27 positions would
-- take 1 GB: "invalid memory alloc request size").  Few rows: the
-- sequential scan folds q for each one.
-- ---------------------------------------------------------------------
CREATE TABLE esq (id int, f bloomfilter) WITH (autovacuum_enabled = off);
CREATE TABLE esq_b (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO esq SELECT i, bloom_add_all(bloom_empty_bits(1024, 3, 'classic'),
	ARRAY[i, 100000 + i % 7]) FROM generate_series(1, 16) i;
INSERT INTO esq_b SELECT i, bloom_add_all(bloom_empty_bits(1024, 3, 'blocked'),
	ARRAY[i, 100000 + i % 7]) FROM generate_series(1, 16) i;
CREATE INDEX esq_bs ON esq USING bloomslice (f);
CREATE INDEX esq_b_bs ON esq_b USING bloomslice (f);
INSERT INTO esq SELECT i, bloom_add_all(bloom_empty_bits(1024, 3, 'classic'),
	ARRAY[i, 100000 + i % 7]) FROM generate_series(17, 24) i;
INSERT INTO esq_b SELECT i, bloom_add_all(bloom_empty_bits(1024, 3, 'blocked'),
	ARRAY[i, 100000 + i % 7]) FROM generate_series(17, 24) i;
SELECT * FROM bs_meta('esq_bs');
SELECT * FROM bs_meta('esq_b_bs');
-- a key of a row in a block (10, 17) or pending (24), with a key it shares
CREATE TABLE bigq AS
SELECT n, t, bloom_add_all(bloom_empty_bits(134217728, 3, CASE t WHEN 'esq' THEN 'classic' ELSE 'blocked' END),
						   ARRAY[100003, k]) AS q
FROM (VALUES (1, 'esq', 10), (2, 'esq_b', 17), (3, 'esq', 24), (4, 'esq_b', 24)) v(n, t, k);
SELECT n, t, i.layout, i.bits, i.bits_set FROM bigq, bloom_info(q) i ORDER BY n;
SELECT n, c.* FROM bigq,
	LATERAL compare_plans(format('SELECT id FROM %I WHERE f @>> (SELECT q FROM bigq WHERE n = %s)', t, n),
						  'Index Scan (using|on) \w*_bs') c
ORDER BY n;
-- the rows themselves, through the index
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM explain_neutral($$SELECT id FROM esq WHERE f @>> (SELECT q FROM bigq WHERE n = 1)$$);
SELECT id FROM esq WHERE f @>> (SELECT q FROM bigq WHERE n = 1);
SELECT id FROM esq_b WHERE f @>> (SELECT q FROM bigq WHERE n = 2);
SELECT id FROM esq WHERE f @>> (SELECT q FROM bigq WHERE n = 3);
SELECT id FROM esq_b WHERE f @>> (SELECT q FROM bigq WHERE n = 4);
RESET enable_seqscan;
RESET enable_bitmapscan;

-- ---------------------------------------------------------------------
-- Text keys (another family and type tag) under random DML, with the
-- pending area empty, half full and flushed
-- ---------------------------------------------------------------------
CREATE FUNCTION text_filter() RETURNS bloomfilter LANGUAGE sql VOLATILE AS $$
	SELECT bloom_add_all(bloom_empty_bits((ARRAY[512, 1024, 2048])[1 + floor(random() * 3)::int],
		1 + floor(random() * 4)::int, (ARRAY['classic', 'blocked'])[1 + floor(random() * 2)::int]),
		(SELECT array_agg('k' || floor(random() * 3000)::int) FROM generate_series(1, 1 + floor(random() * 60)::int)))
$$;
CREATE TABLE etext (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO etext SELECT i, text_filter() FROM generate_series(1, 800) i;
CREATE TABLE tprobes AS SELECT 'k' || floor(random() * 3100)::int AS k FROM generate_series(1, 60);
CREATE INDEX etext_bs ON etext USING bloomslice (f) WITH (pending_limit = 64);
CREATE FUNCTION check_text()
RETURNS TABLE (used boolean, index_rows bigint, seq_rows bigint, differences bigint)
LANGUAGE sql AS $$
	SELECT * FROM compare_plans('SELECT p.k, d.id FROM tprobes p, LATERAL (SELECT id FROM etext WHERE f @> p.k) d',
		'Index Scan (using|on) \w*_bs')
$$;
SELECT * FROM check_text();
INSERT INTO etext SELECT 1000 + i, text_filter() FROM generate_series(1, 40) i;
SELECT pending > 0 AS half_full FROM bs_meta('etext_bs');
SELECT * FROM check_text();
UPDATE etext SET f = text_filter() WHERE id % 6 = 0;
DELETE FROM etext WHERE id % 10 = 3;
SELECT * FROM check_text();
INSERT INTO etext SELECT 2000 + i, text_filter() FROM generate_series(1, 400) i;
SELECT * FROM check_text();
VACUUM etext;
SELECT pending AS after_vacuum FROM bs_meta('etext_bs');
SELECT * FROM check_text();

DROP TABLE e511, e512, e513, epend, epend_log, ebig, etext, eprobes, tprobes;
DROP FUNCTION check_edge(text), check_text(), edge_filter(int), text_filter(),
	bs_meta(regclass), bs_blocks(regclass), bs_tail_free(regclass), le(bytea, int, int),
	compare_plans(text, text), error_of(text, boolean, boolean);
DROP EXTENSION pageinspect;
