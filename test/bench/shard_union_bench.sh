#!/bin/bash
# shard_union_bench.sh: which per-shard filters keep their false-positive
# rate once the coordinator unions them.
#
#   bash test/bench/shard_union_bench.sh [SIZES ...]
#
# Runs on the server that psql reaches (PGHOST, PGPORT, PGUSER), in a
# scratch database it creates and drops (BENCH_DB, default
# bf_shard_union_bench); bloomfilter must be installed there.  Each shard
# is a table of its own disjoint integer keys (by default four shards of
# 1,000, 10,000, 100,000 and 1,000,000 keys; the arguments give other
# sizes, one per shard).  postgres_fdw would push each per-shard aggregate
# to its shard and bring back the filter alone; the filters, and so the
# rates, are the same here without the network.
#
# For each way of building the per-shard filters, the coordinator's union
# (bloom_union_agg) is probed with BENCH_PROBES (1,000,000) keys that are in
# no shard, and with every key of every shard:
#   bloom_agg(k)                    self-sized per shard, bloomfilter union
#   bloom_agg(k, total, 0.01)       one explicit size (all keys) on every shard
#   bloom_agg(k)::scalablebloom     self-sized, cast, scalablebloom union
#   sbloom_agg(k)                   self-sized at the first level's rate,
#                                   scalablebloom union
# and, as the reference, bloom_agg(k) over all keys in one place.
# Columns: bytes of the per-shard filters (what crosses to the coordinator),
# bytes and bits of the union (sub-filters for a scalablebloom), bloom_fpr
# of the union, the measured rate, the keys of the shards the union misses
# (must be 0), whether the union raised a WARNING, and the time of the
# probes (wall clock, one run: indicative only).  Nothing is asserted
# (test/t/002_sharding.pl checks the recommended way).
set -euo pipefail

db=${BENCH_DB:-bf_shard_union_bench}
probes=${BENCH_PROBES:-1000000}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000 1000000)

psql_db() {
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true' EXIT

total=0
values=""
start=1
for i in "${!sizes[@]}"; do
	n=${sizes[$i]}
	values+="${values:+,}($i, $start, $((start + n - 1)))"
	start=$((start + n))
	total=$((total + n))
done
echo "== $(psql -X -At -d postgres -c 'SELECT version()' | cut -d, -f1); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== ${#sizes[@]} shards of ${sizes[*]} keys ($total in all), $probes absent probes, target 1%"

psql_db -v probes="$probes" -v total="$total" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
SET jit = off;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE shard_keys (shard int, k int);
INSERT INTO shard_keys SELECT s, g FROM (VALUES $values) v(s, lo, hi), generate_series(lo, hi) g;
ANALYZE shard_keys;
CREATE TABLE result (variant text, shipped bigint, bytes bigint, geometry text, est_fpr float8,
	measured float8, lost bigint, warned text, probe_ms float8);
SQL

# variant NAME PER_SHARD_EXPR TYPE: per-shard filters, their union, its rate
variant() {
	local name=$1 expr=$2 type=$3 warn geometry
	psql_db -c "CREATE TABLE f AS SELECT shard, $expr AS f FROM shard_keys GROUP BY shard"
	warn=$(psql_db -c "CREATE TABLE u AS SELECT bloom_union_agg(f) AS u FROM f" 2>&1 | grep -c WARNING || true)
	if [ "$type" = bloomfilter ]; then
		geometry="(SELECT bits || ' bits' FROM bloom_info(u))"
	else
		geometry="(SELECT count(*) || ' sub-filters, ' || sum(bits) || ' bits' FROM sbloom_filters(u))"
	fi
	psql_db -v probes="$probes" -v name="$name" -v warned="$([ "$warn" -gt 0 ] && echo yes || echo no)" <<SQL
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) FILTER (WHERE k <@ (SELECT u FROM u)) AS hits
FROM generate_series(-1, -:probes, -1) k \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0') * 1000 AS probe_ms \gset
INSERT INTO result
SELECT :'name', (SELECT sum(length(f::bytea)) FROM f), length(u::bytea), $geometry,
	bloom_fpr(u), :hits::float8 / :probes,
	(SELECT count(*) FROM shard_keys WHERE NOT k <@ (SELECT u FROM u)),
	:'warned', :probe_ms
FROM u;
DROP TABLE f, u;
SQL
}

variant "bloom_agg(k), self-sized" "bloom_agg(k)" bloomfilter
variant "bloom_agg(k, $total, 0.01)" "bloom_agg(k, $total, 0.01)" bloomfilter
variant "bloom_agg(k)::scalablebloom" "bloom_agg(k)::scalablebloom" scalablebloom
variant "sbloom_agg(k)" "sbloom_agg(k)" scalablebloom
# the reference: one filter of all the keys, built in one place
psql_db -c "ALTER TABLE shard_keys RENAME COLUMN shard TO real_shard" -c "ALTER TABLE shard_keys ADD COLUMN shard int DEFAULT 0"
variant "reference: bloom_agg(k) of all keys" "bloom_agg(k)" bloomfilter

psql_db -P footer=off <<'SQL'
SELECT variant AS "per-shard filter, then bloom_union_agg",
       shipped AS "shipped bytes", bytes AS "union bytes", geometry AS "union geometry",
       round(est_fpr::numeric, 5) AS "bloom_fpr", round(measured::numeric, 5) AS "measured fpr",
       lost AS "keys lost", warned AS "WARNING", round(probe_ms::numeric) AS "probe ms"
FROM result;
SQL
