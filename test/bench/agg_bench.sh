#!/bin/bash
# agg_bench.sh: the cost of building filters with bloom_agg, against hll
# (postgresql-15-hll) and count(DISTINCT), measured in the same run.
#
#   bash test/bench/agg_bench.sh
#   PG_CONFIG=... bash test/bench/agg_bench.sh --own-cluster
#
# With --own-cluster nothing is built or installed: the extension already
# installed in PG_CONFIG's install (a private copy, another version to
# compare with, a chroot's server) is measured on a throwaway cluster of
# that install, which the script starts and removes (same settings).
#
# Environment (optional): BENCH_ROWS (5000000), BENCH_DISTINCT_FEW (50000),
# BENCH_REPS (3).
#
# Builds and installs the extension, starts a throwaway cluster
# (pg_virtualenv -t, shared_buffers=1GB) and creates two tables of
# BENCH_ROWS bigint rows, prewarmed into shared buffers:
#   u(id)   every id distinct (1..BENCH_ROWS), in random order
#   d(id)   BENCH_DISTINCT_FEW distinct ids, each repeated
# Over each it times, serial (max_parallel_workers_per_gather = 0) and
# parallel (2 workers, parallel costs zeroed so the planner takes them):
#   count(*)                             the scan, for scale
#   bloom_agg(id)                        self-sizing
#   bloom_agg(id, BENCH_ROWS, 0.01)      explicit size
#   hll_add_agg(hll_hash_bigint(id))     HyperLogLog, the baseline (goal: bloom_agg <= 1.0x)
#   count(DISTINCT id)                   exact (a sort; in PG 15 never a partial
#                                        aggregate: only its scan can be parallel)
# jit = off; work_mem = 256MB, so count(DISTINCT) sorts in memory.  The
# aggregates' results are tested IS NOT NULL so that only the aggregate
# (transition, combine and final functions) is timed, not the output.
# Variants run interleaved, BENCH_REPS times each after a warm-up; the
# report gives wall-clock best and median, the backend's best on-CPU time
# (see sql_bench_lib.sh), ns per row, and ratios (from the CPU time for
# serial plans, the wall clock for parallel ones).  Then the size of
# each result and the measured false-positive rate (1M probes of
# non-members) against the 1% target.  No time is asserted.
set -euo pipefail

BENCH_SERVER_OPTS=(shared_buffers=1GB max_wal_size=4GB max_worker_processes=8 max_parallel_workers=8)
# shellcheck source=test/bench/sql_bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/sql_bench_lib.sh"
if [ "${1:-}" = --own-cluster ]; then
	bench_clusters_init agg
	bench_cluster_start main "${BENCH_SERVER_OPTS[@]/=/ = }"
	export PATH=$bindir:$PATH PGHOST=$work PGPORT=${bench_port[main]} PGUSER=postgres PGDATABASE=postgres
	echo "== own cluster of $("$PG_CONFIG" --version) at $PG_CONFIG, port $PGPORT"
	echo "load:   $(cut -d' ' -f1-3 /proc/loadavg)"
else
	bench_setup_outside "$@"
fi

rows=${BENCH_ROWS:-5000000}
few=${BENCH_DISTINCT_FEW:-50000}
reps=${BENCH_REPS:-3}

echo "== setup: u($rows distinct ids), d($rows rows, $few distinct)"
psql_run -v rows="$rows" -v few="$few" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION hll;
CREATE EXTENSION pg_prewarm;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE u (id bigint);
-- in random order: count(DISTINCT) would otherwise sort presorted input
INSERT INTO u SELECT g FROM generate_series(1, :rows) g ORDER BY random();
CREATE TABLE d (id bigint);
INSERT INTO d SELECT g % :few FROM generate_series(1, :rows) g;
VACUUM (FREEZE, ANALYZE) u, d;
SELECT pg_prewarm('u') + pg_prewarm('d') AS pages_prewarmed \gset
\echo '   pages prewarmed:' :pages_prewarmed
SQL

serial="SET max_parallel_workers_per_gather = 0;"
parallel="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
for t in u d; do
	for mode in serial parallel; do
		p=${t}_${mode:0:3}
		set_mode=${!mode}
		bench_timed "${p}_count" "$set_mode SELECT count(*)::text AS res FROM $t"
		bench_timed "${p}_bloom" "$set_mode SELECT (bloom_agg(id) IS NOT NULL)::text AS res FROM $t"
		bench_timed "${p}_bloom_sized" "$set_mode SELECT (bloom_agg(id, $rows, 0.01) IS NOT NULL)::text AS res FROM $t"
		bench_timed "${p}_hll" "$set_mode SELECT (hll_add_agg(hll_hash_bigint(id)) IS NOT NULL)::text AS res FROM $t"
		bench_timed "${p}_count_distinct" "$set_mode SELECT count(DISTINCT id)::text AS res FROM $t"
	done
done

echo
echo "== parallel mode: the plan, and the workers each aggregate launches (EXPLAIN ANALYZE on u)"
psql_run <<SQL
SET jit = off;
SET work_mem = '256MB';
$parallel
EXPLAIN (COSTS OFF) SELECT bloom_agg(id) IS NOT NULL FROM u;
SQL
for agg in "bloom_agg(id)" "bloom_agg(id, $rows, 0.01)" "hll_add_agg(hll_hash_bigint(id))" "count(DISTINCT id)"; do
	launched=$(psql_run -At -c "SET jit = off" -c "SET work_mem = '256MB'" -c "$parallel" \
		-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT $agg IS NOT NULL FROM u" |
		sed -n 's/^.*Workers Launched: *//p')
	printf '   %-36s workers launched: %s\n' "$agg" "${launched:-none (serial plan)}"
done
echo

echo "== timed runs: ${#bench_names[@]} variants, 1 warm-up + $reps repetitions, interleaved"
bench_run "$reps" "
SET jit = off;
SET work_mem = '256MB';
"

echo
echo "== results ($reps repetitions)"
echo "   wall: best and median elapsed; cpu: best on-CPU time of the backend (the leader only,"
echo "   not the workers).  ns/row and the ratios use cpu for serial plans (it leaves out time"
echo "   spent waiting for a CPU on a busy machine) and wall for parallel ones."
psql_run -v rows="$rows" <<'SQL'
CREATE TEMP VIEW s AS
	SELECT split_part(variant, '_', 1) AS tab, split_part(variant, '_', 2) AS mode,
		substr(variant, 7) AS agg,
		min(ms) AS wall, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS wall_med,
		min(cpu_ms) AS cpu,
		CASE WHEN split_part(variant, '_', 2) = 'ser' THEN coalesce(min(cpu_ms), min(ms))
			ELSE min(ms) END AS best,
		CASE WHEN split_part(variant, '_', 2) = 'ser'
			THEN coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms),
				percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))
			ELSE percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) END AS med,
		min(result) AS res
	FROM bench_result GROUP BY variant;
SELECT CASE s.tab WHEN 'u' THEN 'u: all distinct' ELSE 'd: few distinct' END AS "table",
	CASE s.mode WHEN 'ser' THEN 'serial' ELSE 'parallel 2' END AS mode,
	CASE s.agg WHEN 'count' THEN 'count(*)'
		WHEN 'bloom' THEN 'bloom_agg(id)'
		WHEN 'bloom_sized' THEN 'bloom_agg(id, n, 0.01)'
		WHEN 'hll' THEN 'hll_add_agg(hll_hash_bigint(id))'
		WHEN 'count_distinct' THEN 'count(DISTINCT id)' END AS aggregate,
	round(s.wall::numeric, 1) AS wall_best_ms, round(s.wall_med::numeric, 1) AS wall_median_ms,
	round(s.cpu::numeric, 1) AS cpu_best_ms,
	round((s.best * 1e6 / :rows)::numeric, 1) AS ns_row,
	round(((s.best - c.best) * 1e6 / :rows)::numeric, 1) AS ns_row_over_scan,
	round((s.best / h.best)::numeric, 2) AS vs_hll,
	round((s.best / cd.best)::numeric, 2) AS vs_count_distinct
FROM s
	JOIN s c ON c.tab = s.tab AND c.mode = s.mode AND c.agg = 'count'
	JOIN s h ON h.tab = s.tab AND h.mode = s.mode AND h.agg = 'hll'
	JOIN s cd ON cd.tab = s.tab AND cd.mode = s.mode AND cd.agg = 'count_distinct'
ORDER BY s.tab DESC, s.mode DESC,
	array_position(ARRAY['count', 'bloom', 'bloom_sized', 'hll', 'count_distinct'], s.agg);

\echo 'goal: bloom_agg(id) / hll_add_agg <= 1.0 (ratio of best times [of medians] {of best wall times})'
SELECT CASE b.tab WHEN 'u' THEN 'u: all distinct' ELSE 'd: few distinct' END AS "table",
	CASE b.mode WHEN 'ser' THEN 'serial (cpu)' ELSE 'parallel 2 (wall)' END AS mode,
	format('%s [%s] {%s}', round((b.best / h.best)::numeric, 2), round((b.med / h.med)::numeric, 2),
		round((b.wall / h.wall)::numeric, 2)) AS "bloom_agg(id) / hll",
	format('%s [%s] {%s}', round((bs.best / h.best)::numeric, 2), round((bs.med / h.med)::numeric, 2),
		round((bs.wall / h.wall)::numeric, 2)) AS "bloom_agg(id, n, p) / hll",
	CASE WHEN b.best <= h.best THEN 'met' ELSE 'NOT met' END AS "goal (self-sizing)"
FROM s b
	JOIN s h ON h.tab = b.tab AND h.mode = b.mode AND h.agg = 'hll'
	JOIN s bs ON bs.tab = b.tab AND bs.mode = b.mode AND bs.agg = 'bloom_sized'
WHERE b.agg = 'bloom'
ORDER BY b.tab DESC, b.mode DESC;

\echo 'answers: count(DISTINCT) per table'
SELECT tab, mode, res AS count_distinct FROM s WHERE agg = 'count_distinct' ORDER BY tab DESC, mode DESC;
SQL

echo "== result sizes and measured false-positive rate (1M probes of non-members; target 1%)"
psql_run -v rows="$rows" -v few="$few" <<'SQL'
SET jit = off;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE r AS
	SELECT 'u' AS tab, 'bloom_agg(id)' AS agg, bloom_agg(id) AS f FROM u
	UNION ALL SELECT 'u', 'bloom_agg(id, n, 0.01)', bloom_agg(id, :rows, 0.01) FROM u
	UNION ALL SELECT 'd', 'bloom_agg(id)', bloom_agg(id) FROM d
	UNION ALL SELECT 'd', 'bloom_agg(id, n, 0.01)', bloom_agg(id, :rows, 0.01) FROM d;
-- every id of u and d is at most rows; these are not in either
SELECT CASE r.tab WHEN 'u' THEN 'u: all distinct' ELSE 'd: few distinct' END AS "table", agg,
	i.bytes, i.hashes,
	round(i.bits::numeric / CASE r.tab WHEN 'u' THEN :rows ELSE :few END, 2) AS bits_per_distinct_key,
	round(i.est_fpr::numeric, 5) AS est_fpr,
	(SELECT round(avg((g <@ r.f)::int), 5)
	 FROM generate_series(:rows::bigint + 1, :rows::bigint + 1000000) g) AS measured_fpr,
	0.01 AS target
FROM r, bloom_info(r.f) i ORDER BY r.tab DESC, agg;
SELECT 'u' AS "table", pg_column_size(hll_add_agg(hll_hash_bigint(id))) AS hll_bytes,
	round(hll_cardinality(hll_add_agg(hll_hash_bigint(id)))) AS hll_estimate FROM u
UNION ALL
SELECT 'd', pg_column_size(hll_add_agg(hll_hash_bigint(id))),
	round(hll_cardinality(hll_add_agg(hll_hash_bigint(id)))) FROM d;

\echo 'same bytes serial and parallel (the self-sizing filter does not depend on the plan):'
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT r.tab AS "table", r.f = (CASE r.tab WHEN 'u' THEN (SELECT bloom_agg(id) FROM u)
		ELSE (SELECT bloom_agg(id) FROM d) END) AS parallel_equals_serial
FROM r WHERE agg = 'bloom_agg(id)' ORDER BY r.tab DESC;
SQL
