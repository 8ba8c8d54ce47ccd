#!/bin/bash
# index_choice_bench.sh: with both a bloomslice and a GiST index on one
# bloomfilter column, which one the planner chooses, and what each costs
# when forced (the other dropped inside a rolled-back transaction, and
# enable_seqscan off), beside a sequential scan (issue #27, item 8).
#
#   PG_CONFIG=/path/to/pg_config bash test/bench/index_choice_bench.sh
#
# Runs on a throwaway cluster of PG_CONFIG's install (the extension must be
# installed there).  Environment (optional):
#   CHOICE_BENCH_N     filters in tables a, b and sparse (default 20000)
#   CHOICE_BENCH_KEYS  probes (and 1/4 as many superset queries) per table
#                      (default 20)
# Tables (filters 1 .. N):
#   readme  the README's Indexing example: 1,000 filters of
#           bloom_agg(f * 500 + k, 1000, 0.01), 1,000 keys each
#   a       bloom_agg(f * 50 + k, 1000, 0.01), 1,000 keys each (one
#           geometry, half the bits set; a key is held by about 20 filters)
#   b       self-sized bloom_agg(k) of 50-2,000 keys (several sizes)
#   sparse  bloom_empty(1000) holding 5 keys each (about 3% of bits set)
# Queries: f @> x for keys some filters hold; f @>> q for q of 10 keys of
# one stored filter at its geometry.  Times are the mean per query in ms
# (planning included, each query its own statement; the best of three
# passes after a warm-up pass); chosen_vs_best is the chosen plan's time
# over the fastest of the three forced plans (1.0: the planner chose well).
# No time is asserted.
set -euo pipefail

# shellcheck source=test/bench/sql_bench_lib.sh
. "$(dirname "$0")/sql_bench_lib.sh"
n=${CHOICE_BENCH_N:-20000}
nkeys=${CHOICE_BENCH_KEYS:-20}

bench_clusters_init choice
bench_cluster_start main "shared_buffers = 1GB" "max_wal_size = 4GB"
psql_run() { psql_at "${bench_port[main]}" "$@"; }
bench_header
echo "== $n filters in a, b and sparse; $nkeys probes per table"

psql_run -v n="$n" <<'SQL'
CREATE EXTENSION bloomfilter;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE t_readme AS
SELECT f AS id, bloom_agg(f * 500 + k, 1000, 0.01) AS f
FROM generate_series(1, 1000) f, generate_series(1, 1000) k GROUP BY 1;
CREATE TABLE t_a AS
SELECT f AS id, bloom_agg(f * 50 + k, 1000, 0.01) AS f
FROM generate_series(1, :n) f, generate_series(1, 1000) k GROUP BY 1;
CREATE TABLE t_b AS
SELECT f AS id, bloom_agg(f * 50 + k) AS f
FROM generate_series(1, :n) f, LATERAL generate_series(1, 50 + (f * 7919) % 1951) k GROUP BY 1;
CREATE TABLE t_sparse AS
SELECT f AS id, bloom_add_all(bloom_empty(1000), ARRAY(SELECT f * 5 + k FROM generate_series(1, 5) k)) AS f
FROM generate_series(1, :n) f;
SELECT format('CREATE INDEX %I ON %I USING bloomslice (f)', t || '_bs', t),
	   format('CREATE INDEX %I ON %I USING gist (f)', t || '_gist', t),
	   format('VACUUM ANALYZE %I', t)
FROM unnest(ARRAY['t_readme', 't_a', 't_b', 't_sparse']) t \gexec

-- the mean ms of a query over keys (%s: the key), one statement each: the
-- best of three passes, after a warm-up pass
CREATE FUNCTION run(q text, keys bigint[]) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	k bigint;
	t0 timestamptz;
	n bigint;
	best float8 := 'Infinity';
BEGIN
	FOREACH k IN ARRAY keys LOOP
		EXECUTE format(q, k) INTO n;
	END LOOP;
	FOR pass IN 1 .. 3 LOOP
		t0 := clock_timestamp();
		FOREACH k IN ARRAY keys LOOP
			EXECUTE format(q, k) INTO n;
		END LOOP;
		best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000 / cardinality(keys));
	END LOOP;
	RETURN best;
END $$;

-- the superset queries' filters (an index: GiST is forced with
-- enable_seqscan off, which must not turn this lookup into the cost)
CREATE TABLE qs (tab text, id bigint, q bloomfilter);
CREATE INDEX ON qs (tab, id);

-- the index a query's plan uses
CREATE FUNCTION chosen(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line ~ '_bs\M' THEN RETURN 'bloomslice'; END IF;
		IF line ~ '_gist\M' THEN RETURN 'GiST'; END IF;
	END LOOP;
	RETURN 'seq scan';
END $$;

CREATE TABLE result (tab text, query text, chosen text, chosen_ms float8,
	bloomslice_ms float8, gist_ms float8, seq_ms float8);
SQL

for t in readme a b sparse; do
	psql_run -v t="t_$t" -v nkeys="$nkeys" <<'SQL'
SET max_parallel_workers_per_gather = 0;
SELECT array_agg(k) AS keys FROM (
	SELECT CASE WHEN :'t' = 't_readme' THEN 250250 + i * 397
				WHEN :'t' = 't_a' THEN 1000 + i * 997
				WHEN :'t' = 't_b' THEN 100 + i * 4999
				ELSE 10 + i * 4999 END AS k
	FROM generate_series(1, :nkeys) i) s \gset
-- superset queries: q holds keys of stored filter id, at its geometry
SELECT array_agg(id) AS ids FROM (SELECT 1 + i * 37 AS id FROM generate_series(1, greatest(:nkeys / 4, 1)) i) s \gset
INSERT INTO qs
SELECT :'t', t.id, bloom_add_all(bloom_empty_bits(i.bits, i.hashes, i.layout),
	ARRAY(SELECT t.id * CASE :'t' WHEN 't_readme' THEN 500 WHEN 't_sparse' THEN 5 ELSE 50 END + k
		  FROM generate_series(1, CASE :'t' WHEN 't_sparse' THEN 3 ELSE 10 END) k))
FROM :t t, bloom_info(t.f) i WHERE t.id = ANY (:'ids'::bigint[]);
ANALYZE qs;
\set probe 'SELECT count(*) FROM ' :t ' WHERE f @> %s'
\set super 'SELECT count(*) FROM ' :t ' WHERE f @>> (SELECT q FROM qs WHERE tab = ''' :t ''' AND id = %s)'
INSERT INTO result
SELECT :'t', 'f @> x', chosen(format(:'probe', 1)), run(:'probe', :'keys'), NULL, NULL, NULL;
INSERT INTO result
SELECT :'t', 'f @>> q', chosen(format(:'super', 1)), run(:'super', :'ids'), NULL, NULL, NULL;
BEGIN;
SELECT format('DROP INDEX %I', :'t' || '_gist') \gexec
SET LOCAL enable_seqscan = off;
SELECT run(:'probe', :'keys') AS p, run(:'super', :'ids') AS s \gset bs_
ROLLBACK;
BEGIN;
SELECT format('DROP INDEX %I', :'t' || '_bs') \gexec
SET LOCAL enable_seqscan = off;
SELECT run(:'probe', :'keys') AS p, run(:'super', :'ids') AS s \gset gist_
ROLLBACK;
BEGIN;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT run(:'probe', :'keys') AS p, run(:'super', :'ids') AS s \gset seq_
ROLLBACK;
UPDATE result SET bloomslice_ms = :bs_p, gist_ms = :gist_p, seq_ms = :seq_p WHERE tab = :'t' AND query = 'f @> x';
UPDATE result SET bloomslice_ms = :bs_s, gist_ms = :gist_s, seq_ms = :seq_s WHERE tab = :'t' AND query = 'f @>> q';
SQL
	echo "   $t done"
done

psql_run <<'SQL'
\pset footer off
SELECT tab, query, chosen, round(chosen_ms::numeric, 2) AS chosen_ms,
	round(bloomslice_ms::numeric, 2) AS bloomslice_ms, round(gist_ms::numeric, 2) AS gist_ms,
	round(seq_ms::numeric, 2) AS seq_ms,
	round((chosen_ms / least(bloomslice_ms, gist_ms, seq_ms))::numeric, 1) AS chosen_vs_best,
	CASE WHEN least(bloomslice_ms, gist_ms, seq_ms) = bloomslice_ms THEN 'bloomslice'
		 WHEN least(bloomslice_ms, gist_ms, seq_ms) = gist_ms THEN 'GiST' ELSE 'seq scan' END AS fastest
FROM result ORDER BY array_position(ARRAY['t_readme', 't_a', 't_b', 't_sparse'], tab), query;
SQL
