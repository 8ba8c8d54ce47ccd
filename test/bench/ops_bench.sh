#!/bin/bash
# ops_bench.sh: what keeping a large filter in a table and updating it costs,
# and which storage, fillfactor and vacuum settings help (README,
# "Operations").
#
# One row per table holds a 1.2 MB filter (bloom_empty(1000000, 0.01) with
# 500,000 keys in it).  Every round updates each table once,
#     UPDATE t SET f = f | (SELECT bloom_agg(k, 1000000, 0.01) FROM <1,000 new keys>)
# in turn (interleaved, so a slow phase of the machine hits every variant),
# timed on the server with clock_timestamp().  The variants:
#   default        STORAGE extended (PostgreSQL's default: compressed, TOASTed)
#   external       STORAGE external (TOASTed, never compressed)
#   main           STORAGE main (compressed, kept inline if it fits: it does not)
#   fillfactor50   default storage, fillfactor 50
#   vacuum10       STORAGE external and a VACUUM of the table every 10 rounds
#   select only    the same expression in a SELECT, nothing stored: the cost of
#                  reading the filter and computing the union
# Autovacuum is off on every table, so the sizes show what accumulates
# between vacuums.  Then: how long EXPLAIN's text and a statement's text
# (what the server's log holds) are with the filter as a literal, as a
# parameter and as a subquery.
#
# Usage: pg_virtualenv -t bash test/bench/ops_bench.sh     (throwaway cluster)
#    or: PGHOST=... PGPORT=... bash test/bench/ops_bench.sh  (a server with
#        bloomfilter installed: it creates and drops database ops_bench)
# ROUNDS=100 by default.
set -euo pipefail
ROUNDS=${ROUNDS:-100}

echo "== machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -At -d postgres -c 'SHOW server_version')"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ops_bench" -c "CREATE DATABASE ops_bench"
P() { psql -X -q -v ON_ERROR_STOP=1 -d ops_bench "$@"; }

P <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE seed AS SELECT bloom_agg(k, 1000000, 0.01) AS f FROM generate_series(1, 500000) k;
CREATE TABLE t_default (id int PRIMARY KEY, f bloomfilter)
    WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off);
CREATE TABLE t_external (id int PRIMARY KEY, f bloomfilter)
    WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off);
ALTER TABLE t_external ALTER COLUMN f SET STORAGE external;
CREATE TABLE t_main (id int PRIMARY KEY, f bloomfilter)
    WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off);
ALTER TABLE t_main ALTER COLUMN f SET STORAGE main;
CREATE TABLE t_fillfactor50 (id int PRIMARY KEY, f bloomfilter)
    WITH (fillfactor = 50, autovacuum_enabled = off, toast.autovacuum_enabled = off);
CREATE TABLE t_vacuum10 (id int PRIMARY KEY, f bloomfilter)
    WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off);
ALTER TABLE t_vacuum10 ALTER COLUMN f SET STORAGE external;
INSERT INTO t_default SELECT 1, f FROM seed;
INSERT INTO t_external SELECT 1, f FROM seed;
INSERT INTO t_main SELECT 1, f FROM seed;
INSERT INTO t_fillfactor50 SELECT 1, f FROM seed;
INSERT INTO t_vacuum10 SELECT 1, f FROM seed;
CREATE TABLE timings (variant text, round int, ms float8);
CREATE TABLE sizes_before AS
SELECT c.relname AS variant, pg_total_relation_size(c.oid) AS bytes
FROM pg_class c WHERE c.relname LIKE 't\_%';
SELECT pg_column_size(f) AS stored_bytes, (bloom_info(f)).bytes AS filter_bytes FROM t_default;
SQL

script=$(mktemp)
trap 'rm -f "$script"' EXIT
variants=(default external main fillfactor50 vacuum10 select)
for ((r = 1; r <= ROUNDS; r++)); do
	lo=$((1000000 + r * 1000))
	hi=$((lo + 999))
	# rotate the order every round
	for ((i = 0; i < ${#variants[@]}; i++)); do
		v=${variants[$(((i + r) % ${#variants[@]}))]}
		if [ "$v" = select ]; then
			q="SELECT length((f | (SELECT bloom_agg(k, 1000000, 0.01) FROM generate_series($lo, $hi) k))::bytea) FROM t_default"
		else
			q="UPDATE t_$v SET f = f | (SELECT bloom_agg(k, 1000000, 0.01) FROM generate_series($lo, $hi) k)"
		fi
		cat >>"$script" <<EOF
SELECT clock_timestamp() AS t0 \\gset
$q \\g /dev/null
INSERT INTO timings VALUES ('$v', $r, extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) * 1000);
EOF
	done
	if ((r % 10 == 0)); then
		echo "VACUUM t_vacuum10;" >>"$script"
	fi
done
echo "== $ROUNDS rounds of updates"
P -f "$script"

P <<'SQL'
\echo == per update (ms) and table size after the rounds (heap, TOAST and index; before: one filter)
SELECT t.variant, round(min(ms)::numeric, 1) AS best_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) AS median_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) /
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM timings WHERE variant = 'default'))::numeric, 2) AS median_vs_default,
       pg_size_pretty(pg_total_relation_size(nullif('t_' || t.variant, 't_select')::regclass)) AS size_after,
       pg_size_pretty(b.bytes) AS size_before
FROM timings t LEFT JOIN sizes_before b ON b.variant = 't_' || t.variant
GROUP BY t.variant, b.bytes ORDER BY median_ms;

\echo == after VACUUM (the dead TOAST chunks are reusable, not returned) and VACUUM FULL
VACUUM t_default;
SELECT pg_size_pretty(pg_total_relation_size('t_default')) AS default_after_vacuum;
VACUUM FULL t_default;
SELECT pg_size_pretty(pg_total_relation_size('t_default')) AS default_after_vacuum_full;

\echo == a literal filter in a statement: the text EXPLAIN prints and the log records
CREATE TABLE ids AS SELECT g AS id FROM generate_series(1, 1000) g;
CREATE FUNCTION explain_len(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE l int := 0; r text;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP l := l + length(r) + 1; END LOOP;
  RETURN l;
END $$;
SELECT f::text AS lit FROM t_external \gset
SELECT length(:'lit') AS literal_chars,
       explain_len(format('SELECT count(*) FROM ids WHERE id <@ %L::bloomfilter', :'lit')) AS explain_chars_literal,
       explain_len('SELECT count(*) FROM ids WHERE id <@ (SELECT f FROM t_external WHERE id = 1)') AS explain_chars_subquery,
       length(format('SELECT count(*) FROM ids WHERE id <@ %L::bloomfilter', :'lit')) AS statement_chars_literal,
       length('SELECT count(*) FROM ids WHERE id <@ $1') AS statement_chars_parameter;
SQL
psql -X -q -d postgres -c "DROP DATABASE ops_bench"
