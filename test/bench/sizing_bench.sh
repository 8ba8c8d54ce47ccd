#!/bin/bash
# sizing_bench.sh: bloom_agg(x, capacity, fpr) per group against bloom_agg(x)
# per group, and bloom_empty(capacity) per row, in the same run.  Sizing a
# blocked filter with the exact Poisson model costs about half a
# millisecond; bf_sizing.c caches the answers per backend.  Issue #27
# asked for bloom_agg(x, capacity, fpr) per group within 1.5x of
# bloom_agg(x) per group.
#
#   PG_CONFIG=/path/to/pg_config bash test/bench/sizing_bench.sh
#
# Runs on a throwaway cluster of PG_CONFIG's install (the extension must be
# installed there: make install).  Environment (optional):
#   SIZING_BENCH_GROUPS  groups of 20 rows (default 5000)
#   SIZING_BENCH_REPS    timed repetitions after a warm-up (default 3)
# Variants (each returns how many filters it built):
#   auto         bloom_agg(x) per group
#   sized        bloom_agg(x, 20, 0.01) per group
#   sized_mixed  bloom_agg(x, 20 + grp % 7, 0.001 * (1 + grp % 3)) per group
#                (21 (capacity, fpr) pairs, interleaved)
#   empty        bloom_empty(100 + g % 2), once per group
# Ratios are of the backend's CPU time (see sql_bench_lib.sh) against auto.
# No time is asserted.
set -euo pipefail

# shellcheck source=test/bench/sql_bench_lib.sh
. "$(dirname "$0")/sql_bench_lib.sh"
groups=${SIZING_BENCH_GROUPS:-5000}
reps=${SIZING_BENCH_REPS:-3}

bench_clusters_init sizing
bench_cluster_start main
psql_run() { psql_at "${bench_port[main]}" "$@"; }
bench_header
echo "== $groups groups of 20 rows, $reps repetitions"
psql_run -c "CREATE EXTENSION bloomfilter"

rows=$((groups * 20))
src="(SELECT g / 20 AS grp, g AS x FROM generate_series(0, $rows - 1) g) s"
bench_timed auto "SELECT count(f) AS res FROM (SELECT bloom_agg(x) AS f FROM $src GROUP BY grp) t"
bench_timed sized "SELECT count(f) AS res FROM (SELECT bloom_agg(x, 20, 0.01) AS f FROM $src GROUP BY grp) t"
bench_timed sized_mixed "SELECT count(f) AS res FROM (SELECT bloom_agg(x, 20 + grp % 7, 0.001 * (1 + grp % 3)) AS f FROM $src GROUP BY grp) t"
bench_timed empty "SELECT count(bloom_empty(100 + g % 2)) AS res FROM generate_series(1, $groups) g"
bench_run "$reps" "SET jit = off; SET max_parallel_workers_per_gather = 0;"

psql_run <<'SQL'
\pset footer off
WITH b AS (
	SELECT variant, min(ms) AS best_ms, percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS median_ms,
		   min(cpu_ms) AS cpu_ms, min(result) AS result
	FROM bench_result GROUP BY variant
)
SELECT b.variant, b.result AS filters, round(b.best_ms::numeric, 1) AS best_ms,
	   round(b.median_ms::numeric, 1) AS median_ms, round(b.cpu_ms::numeric, 1) AS cpu_ms,
	   round((coalesce(b.cpu_ms, b.best_ms) / coalesce(a.cpu_ms, a.best_ms))::numeric, 2) AS vs_auto
FROM b, b a WHERE a.variant = 'auto'
ORDER BY array_position(ARRAY['auto', 'sized', 'sized_mixed', 'empty'], b.variant);
SQL
