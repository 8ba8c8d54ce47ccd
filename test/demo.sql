-- bloomfilter demo: a Bloom-join between two databases.
--
-- "shop" holds a small table of VIP customers; "warehouse" holds two million
-- events.  Instead of pulling every event across to join them, shop builds a
-- Bloom filter of its keys, ships it inside the remote query (its text form
-- is a plain string), lets warehouse drop the events that cannot match, and
-- finishes the join on the few candidates that come back.
\set ON_ERROR_STOP 1
\pset footer off
\getenv port PGPORT
\getenv password PGPASSWORD
\set remote 'host=localhost port=' :port ' dbname=warehouse user=postgres password=' :password

SET client_min_messages = warning;
DROP DATABASE IF EXISTS shop;
DROP DATABASE IF EXISTS warehouse;
CREATE DATABASE shop;
CREATE DATABASE warehouse;

\c warehouse
CREATE EXTENSION bloomfilter;
CREATE TABLE events AS
SELECT g AS id, ((g::bigint * 7919) % 1000000)::int AS customer_id, md5(g::text) AS payload
FROM generate_series(1, 2000000) g;

\c shop
CREATE EXTENSION bloomfilter;
CREATE EXTENSION dblink;
CREATE TABLE vip AS SELECT (g * 997) % 1000000 AS customer_id FROM generate_series(1, 1000) g;

\echo '== 1. build a filter of the 1,000 VIP customers'
CREATE TABLE shipped AS SELECT bloom_agg(customer_id, 1000, 0.01) AS f FROM vip;
SELECT layout, bits, hashes, bytes, key_family, added, round(est_cardinality) AS est_cardinality,
       round(est_fpr::numeric, 5) AS est_fpr
FROM shipped, bloom_info(f);

\echo '== 2. the plain way: every event crosses to shop, then the join'
\timing on
SELECT count(*) AS rows_moved, count(v.customer_id) AS joined_rows
FROM dblink(:'remote', 'SELECT id, customer_id FROM events') AS e(id int, customer_id int)
LEFT JOIN vip v USING (customer_id);

\echo '== 3. the Bloom-join: the filter goes to warehouse, only candidates come back'
SELECT count(*) AS rows_moved, count(v.customer_id) AS joined_rows
FROM dblink(:'remote',
            format('SELECT id, customer_id FROM events WHERE customer_id <@ %L::bloomfilter',
                   (SELECT f FROM shipped)::text)) AS e(id int, customer_id int)
LEFT JOIN vip v USING (customer_id);
\timing off

\echo '== 4. same answer: the Bloom-join returns exactly the plain join''s rows'
SELECT (SELECT array_agg(id ORDER BY id)
        FROM dblink(:'remote', 'SELECT id, customer_id FROM events') AS e(id int, customer_id int)
        JOIN vip USING (customer_id))
     = (SELECT array_agg(id ORDER BY id)
        FROM dblink(:'remote',
                    format('SELECT id, customer_id FROM events WHERE customer_id <@ %L::bloomfilter',
                           (SELECT f FROM shipped)::text)) AS e(id int, customer_id int)
        JOIN vip USING (customer_id)) AS same_rows;

\c postgres
DROP DATABASE shop;
DROP DATABASE warehouse;
