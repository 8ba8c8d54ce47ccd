#!/bin/bash
# window_bench.sh: "seen in the last hour" from a bloomwindow against the
# table-of-buckets pattern (rows of (bucket, bloomfilter) and
# bloom_union_agg over the last hour), on one stream, in one run.
#
#   bash test/bench/window_bench.sh
#
# Environment (optional): BENCH_EVENTS (1000000), BENCH_KEYS (400000),
# BENCH_REPS (3).
#
# Builds and installs the extension, starts a throwaway cluster
# (pg_virtualenv -t) and makes a stream of BENCH_EVENTS events over four
# hours (10:00 to 14:00 UTC): each event's key is one of BENCH_KEYS keys
# (bigint), and key k is active for half an hour from 10:00 + (k mod 210)
# minutes, so by 14:00 many keys have expired.  setseed() makes the stream
# the same every run.
#
# The question is asked at T = 13:59:59.999999, whose live buckets cover
# [13:00, 14:00) for both 6 buckets of 10 minutes and 12 of 5.  Probes:
#   live      every key with an event at or after 13:00 (must all be found)
#   expired   every key seen, but only before 13:00 (a false positive if found)
#   absent    200000 keys never seen (a false positive if found)
# Each bucket is sized for the most distinct keys any bucket of the stream
# holds ("cap"), at a 1% target for the whole window.  Variants, for 6 and
# 12 buckets:
#   window contains   bloom_window_contains(w, key, T): a probe of each live bucket
#   window union      key <@ bloom_window_filter(w, T): the live buckets ORed
#   table, same size  rows sized as the window's buckets; key <@ bloom_union_agg(f)
#                     over the live rows (the same bits as "window union")
#   table, union size rows sized for G * cap keys at 1%, so that their union
#                     meets the target; key <@ bloom_union_agg(f)
# Reported: false negatives (must be 0), the measured rate on expired and
# on absent keys against the 1% target, bytes (the window value; the live
# rows of the table) and bytes per live key, and the query time (all
# probes, best and median of BENCH_REPS interleaved runs, on-CPU time of
# the backend) as a ratio to "window contains".  No time is asserted.
set -euo pipefail

BENCH_SERVER_OPTS=(shared_buffers=512MB max_wal_size=4GB)
# shellcheck source=test/bench/sql_bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/sql_bench_lib.sh"
bench_setup_outside "$@"

events=${BENCH_EVENTS:-1000000}
keys=${BENCH_KEYS:-400000}
reps=${BENCH_REPS:-3}

echo "== setup: $events events of $keys keys over 4 hours"
psql_run -v events="$events" -v keys="$keys" <<'SQL'
CREATE EXTENSION bloomfilter;
SET TimeZone = 'UTC';
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.42);
CREATE TABLE events AS
SELECT k AS key,
       timestamptz '2024-05-01 10:00' + (k % 210) * interval '1 minute'
		+ random() * interval '30 minutes' AS at
FROM (SELECT floor(random() * :keys)::bigint AS k FROM generate_series(1, :events)) s
ORDER BY at;
ANALYZE events;

CREATE TABLE probes AS
SELECT key, CASE WHEN max(at) >= '2024-05-01 13:00' THEN 'live' ELSE 'expired' END AS class
FROM events GROUP BY key
UNION ALL
SELECT :keys + g, 'absent' FROM generate_series(1, 200000) g;
ANALYZE probes;

-- per layout: bucket width and the most distinct keys in one bucket
CREATE TABLE configs AS
SELECT g, (3600 / g) * interval '1 second' AS bw,
       (SELECT max(n) FROM (SELECT count(DISTINCT key) AS n FROM events
			GROUP BY date_bin((3600 / g) * interval '1 second', at, '2000-01-01')) c) AS cap
FROM (VALUES (6), (12)) v(g);
SELECT g AS buckets, bw AS bucket_width, cap AS most_keys_in_a_bucket FROM configs ORDER BY g;

CREATE TABLE wins AS
SELECT c.g, (SELECT bloom_window_agg(key, at, '1 hour', c.g, c.cap, 0.01) FROM events) AS w
FROM configs c;

-- the table pattern: one row per bucket, sized as the window's buckets
-- (the bucket rate 1 - 0.99^(1/G)) or for the union of G buckets
CREATE TABLE buckets AS
SELECT c.g, 'same' AS sizing, date_bin(c.bw, e.at, '2000-01-01') AS bucket,
       bloom_agg(e.key, c.cap, 1 - power(0.99, 1.0 / c.g)) AS f
FROM configs c, events e GROUP BY 1, 2, 3
UNION ALL
SELECT c.g, 'union', date_bin(c.bw, e.at, '2000-01-01'),
       bloom_agg(e.key, c.g * c.cap, 0.01)
FROM configs c, events e GROUP BY 1, 2, 3;
ANALYZE wins, buckets;
SQL

T="2024-05-01 13:59:59.999999+00"
LO="2024-05-01 13:00+00"

for g in 6 12; do
	bench_timed "contains_$g" "SELECT count(*)::text AS res FROM probes WHERE bloom_window_contains((SELECT w FROM wins WHERE g = $g), key, '$T')"
	bench_timed "wunion_$g" "SELECT count(*)::text AS res FROM probes WHERE key <@ (SELECT bloom_window_filter(w, '$T') FROM wins WHERE g = $g)"
	bench_timed "tsame_$g" "SELECT count(*)::text AS res FROM probes WHERE key <@ (SELECT bloom_union_agg(f) FROM buckets WHERE g = $g AND sizing = 'same' AND bucket >= '$LO' AND bucket <= '$T')"
	bench_timed "tunion_$g" "SELECT count(*)::text AS res FROM probes WHERE key <@ (SELECT bloom_union_agg(f) FROM buckets WHERE g = $g AND sizing = 'union' AND bucket >= '$LO' AND bucket <= '$T')"
done

echo
echo "== timed runs: ${#bench_names[@]} variants, 1 warm-up + $reps repetitions, interleaved"
bench_run "$reps" "SET jit = off; SET max_parallel_workers_per_gather = 0; SET TimeZone = 'UTC';"

echo
echo "== accuracy and size (T = $T; live buckets cover [13:00, 14:00); target 1%)"
psql_run <<SQL
SET jit = off;
SET max_parallel_workers_per_gather = 0;
-- each union computed once; the probes then read one value per variant
CREATE TEMP TABLE unions AS
SELECT g, 'window union' AS variant, bloom_window_filter(w, '$T') AS f FROM wins
UNION ALL
SELECT g, CASE sizing WHEN 'same' THEN 'table, same size' ELSE 'table, union size' END,
       bloom_union_agg(f)
FROM buckets WHERE bucket >= '$LO' AND bucket <= '$T' GROUP BY g, sizing;
CREATE TEMP TABLE answers AS
SELECT x.g, 'window contains' AS variant, p.class, bloom_window_contains(x.w, p.key, '$T') AS found
FROM wins x, probes p
UNION ALL
SELECT u.g, u.variant, p.class, p.key <@ u.f
FROM unions u, probes p;

CREATE TEMP TABLE sizes AS
SELECT g, 'window contains' AS variant, length(w::bytea) AS bytes FROM wins
UNION ALL SELECT g, 'window union', length(w::bytea) FROM wins
UNION ALL
SELECT g, CASE sizing WHEN 'same' THEN 'table, same size' ELSE 'table, union size' END,
       sum(length(f::bytea)) FROM buckets WHERE bucket >= '$LO' AND bucket <= '$T' GROUP BY 1, 2;

CREATE TEMP VIEW accuracy AS
SELECT a.g AS buckets, a.variant,
       count(*) FILTER (WHERE class = 'live' AND NOT found) AS false_neg,
       count(*) FILTER (WHERE class = 'live') AS live_keys,
       round(avg(found::int) FILTER (WHERE class = 'expired'), 5) AS fpr_expired,
       round(avg(found::int) FILTER (WHERE class = 'absent'), 5) AS fpr_absent,
       0.01 AS target,
       s.bytes,
       round(s.bytes::numeric / count(*) FILTER (WHERE class = 'live'), 2) AS bytes_per_live_key
FROM answers a JOIN sizes s USING (g, variant)
GROUP BY a.g, a.variant, s.bytes;
SELECT * FROM accuracy
ORDER BY buckets, array_position(ARRAY['window contains', 'window union', 'table, same size', 'table, union size'], variant);

\echo 'query time: all probes (live + expired + absent), best and median on-CPU ms; ratio of best to "window contains"'
CREATE TEMP VIEW t AS
SELECT split_part(variant, '_', 2)::int AS buckets, split_part(variant, '_', 1) AS v,
       min(coalesce(cpu_ms, ms)) AS best,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY coalesce(cpu_ms, ms)) AS med,
       min(ms) AS wall, min(result) AS answered_true
FROM bench_result GROUP BY variant;
SELECT t.buckets,
       CASE t.v WHEN 'contains' THEN 'window contains' WHEN 'wunion' THEN 'window union'
		WHEN 'tsame' THEN 'table, same size' ELSE 'table, union size' END AS variant,
       (SELECT count(*) FROM probes) AS probes,
       round(t.best::numeric, 1) AS cpu_best_ms, round(t.med::numeric, 1) AS cpu_median_ms,
       round(t.wall::numeric, 1) AS wall_best_ms,
       round((t.best / c.best)::numeric, 2) AS vs_window_contains,
       t.answered_true
FROM t JOIN t c ON c.buckets = t.buckets AND c.v = 'contains'
ORDER BY t.buckets, array_position(ARRAY['contains', 'wunion', 'tsame', 'tunion'], t.v);
SQL
