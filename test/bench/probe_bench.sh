#!/bin/bash
# probe_bench.sh: the cost of probing a bloomfilter in a WHERE clause,
# against the builtin baselines, measured in the same run.
#
#   bash test/bench/probe_bench.sh
#
# Environment (optional): BENCH_ROWS (5000000), BENCH_KEYS (500000),
# BENCH_REPS (5).
#
# Builds and installs the extension, starts a throwaway cluster
# (pg_virtualenv -t, shared_buffers=1GB) and creates:
#   big(id bigint)             ids 1..BENCH_ROWS, prewarmed into shared buffers
#   keys(id bigint)            BENCH_KEYS ids of big (every 10th), so 10% match
#   filters(name text, f bloomfilter)
#                              'k': bloom_agg(id) over keys (blocked, self-sized);
#                              'k_classic': the same keys in a classic filter
#                              at 1% (bloom_empty(n, 0.01, 'classic') + bloom_add_all)
#                              'z16k', 'z1m', 'z16m': blocked filters of about
#                              16 KB, 1 MB and 16 MB (bloom_agg(x, n, 0.01))
#                              holding keys that are not in big, so that only
#                              false positives (about 1%) pass: with the
#                              builtin 'id = -1' (nothing passes) as baseline
#                              they give the probe's own cost per row, and
#                              how it grows as the filter outgrows the caches
# The filters are large enough to be stored out of line (TOAST).
#
# Every query is SELECT count(*) over big, serial (max_parallel_workers_per_
# gather = 0), jit = off, work_mem = 256MB (so that the IN (SELECT ...)
# baseline hashes in memory).  The variants run interleaved, BENCH_REPS
# times each after a warm-up; the table reports wall-clock best and median,
# the backend's best on-CPU time (see sql_bench_lib.sh), ns per row of big
# and ratios to the baselines (from the CPU time).  No time is asserted: on
# a shared 2-core machine only the ratios mean something.
set -euo pipefail

BENCH_SERVER_OPTS=(shared_buffers=1GB max_wal_size=4GB)
# shellcheck source=test/bench/sql_bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/sql_bench_lib.sh"
bench_setup_outside "$@"

rows=${BENCH_ROWS:-5000000}
nkeys=${BENCH_KEYS:-500000}
reps=${BENCH_REPS:-5}
step=$((rows / nkeys))

echo "== setup: big($rows rows), keys($nkeys), filters"
psql_run -v rows="$rows" -v nkeys="$nkeys" -v step="$step" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE big (id bigint);
INSERT INTO big SELECT g FROM generate_series(1, :rows) g;
CREATE TABLE keys (id bigint);
INSERT INTO keys SELECT g * :step FROM generate_series(1, :nkeys) g;
CREATE TABLE filters (name text, f bloomfilter);
INSERT INTO filters SELECT 'k', bloom_agg(id) FROM keys;
INSERT INTO filters
	SELECT 'k_classic', bloom_add_all(bloom_empty(:nkeys, 0.01, 'classic'), array_agg(id)) FROM keys;
-- keys from 10^12 on are not in big; capacities give 16 KB, 1 MB, 16 MB
INSERT INTO filters SELECT 'z' || name, bloom_agg(g, n, 0.01)
	FROM (VALUES ('16k', 13000), ('1m', 830000), ('16m', 13300000)) v(name, n),
		LATERAL generate_series(1000000000000, 1000000000000 + n - 1) g
	GROUP BY name;
VACUUM (FREEZE, ANALYZE) big, keys, filters;
SELECT pg_prewarm('big') + pg_prewarm('keys') + pg_prewarm('filters')
	+ pg_prewarm(reltoastrelid) AS pages_prewarmed
	FROM pg_class WHERE relname = 'filters' \gset
\echo '   pages prewarmed:' :pages_prewarmed
\echo
\echo '== the filters (stored: bytes as stored; a value stored over 2032 bytes is necessarily out of line)'
SELECT name, layout, bits, hashes, bytes,
	pg_column_size(f) AS stored,
	pg_column_size(f) < bytes AS compressed,
	pg_column_size(f) > 2032 AS out_of_line,
	round(est_fpr::numeric, 5) AS est_fpr,
	round((bits::numeric / added), 2) AS bits_per_key
FROM filters, bloom_info(f) ORDER BY name;
SQL

bench_timed a0_count "SELECT count(*) AS res FROM big"
bench_timed a_base "SELECT count(*) AS res FROM big WHERE id <> -1"
bench_timed a_sel "SELECT count(*) AS res FROM big WHERE id <= $((rows / 10))"
bench_timed a_none "SELECT count(*) AS res FROM big WHERE id = -1"
bench_timed b_probe "SELECT count(*) AS res FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'k')"
bench_timed b_classic "SELECT count(*) AS res FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'k_classic')"
bench_timed b_literal "SELECT count(*) AS res FROM big WHERE id <@ :'fb64'::bloomfilter"
bench_timed b_param "EXECUTE probe_param(:'fb64')"
bench_timed c_in_keys "SELECT count(*) AS res FROM big WHERE id IN (SELECT id FROM keys)"
bench_timed z16k "SELECT count(*) AS res FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'z16k')"
bench_timed z1m "SELECT count(*) AS res FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'z1m')"
bench_timed z16m "SELECT count(*) AS res FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'z16m')"
# the fixed cost of a probe: one row, so detoasting the filter and one probe
for z in z16k z1m z16m; do
	bench_timed "one_$z" "SELECT (f @> 1::bigint)::int AS res FROM filters WHERE name = '$z'"
done

echo
echo "== timed runs: ${#bench_names[@]} variants, 1 warm-up + $reps repetitions, interleaved"
bench_run "$reps" "
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
SET plan_cache_mode = force_generic_plan;
SELECT f::text AS fb64 FROM filters WHERE name = 'k' \\gset
PREPARE probe_param(bloomfilter) AS SELECT count(*) AS res FROM big WHERE id <@ \$1;
"

echo
echo "== plans"
psql_run <<'SQL'
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
SET plan_cache_mode = force_generic_plan;
\echo '-- b_probe'
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'k');
\echo '-- b_param (generic plan: the filter is a PARAM_EXTERN)'
PREPARE p(bloomfilter) AS SELECT count(*) FROM big WHERE id <@ $1;
EXPLAIN (COSTS OFF) EXECUTE p(bloom_empty(1));
\echo '-- c_in_keys'
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE id IN (SELECT id FROM keys);
SQL

echo "== results ($reps repetitions)"
echo "   wall: best and median elapsed; cpu: best on-CPU time of the backend (leaves out time"
echo "   spent waiting for a CPU on a busy machine).  ns/row and the ratios use cpu (wall where"
echo "   cpu is not available): ns/row = cpu best / $rows rows."
psql_run -v rows="$rows" -v nkeys="$nkeys" <<'SQL'
CREATE TEMP TABLE descr (ord serial, variant text, description text);
INSERT INTO descr (variant, description) VALUES
	('a0_count', 'count(*) alone: the scan'),
	('a_base', '(a) WHERE id <> -1: builtin predicate'),
	('a_sel', 'WHERE id <= rows/10: builtin, 10% pass like (b)'),
	('a_none', 'WHERE id = -1: builtin, nothing passes'),
	('b_probe', '(b) id <@ (SELECT f ...): blocked, TOASTed'),
	('b_classic', 'id <@ (SELECT f ...): classic, TOASTed'),
	('b_literal', 'id <@ ''...''::bloomfilter: a literal (Const)'),
	('b_param', 'EXECUTE p(f): generic plan, $1 parameter'),
	('c_in_keys', '(c) id IN (SELECT id FROM keys): hash semi-join'),
	('z16k', 'probe, 16 KB filter, no key of big in it'),
	('z1m', 'probe, 1 MB filter, no key of big in it'),
	('z16m', 'probe, 16 MB filter, no key of big in it'),
	('one_z16k', 'one-row probe of z16k (fixed cost)'),
	('one_z1m', 'one-row probe of z1m (fixed cost)'),
	('one_z16m', 'one-row probe of z16m (fixed cost)');
CREATE TEMP VIEW s AS
	SELECT variant, min(ms) AS wall, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS wall_med,
		min(cpu_ms) AS cpu,
		coalesce(min(cpu_ms), min(ms)) AS best,
		coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)) AS med,
		min(result) AS res, count(DISTINCT result) AS nres
	FROM bench_result GROUP BY variant;
SELECT s.variant, d.description, s.res AS count,
	round(s.wall::numeric, 1) AS wall_best_ms, round(s.wall_med::numeric, 1) AS wall_median_ms,
	round(s.cpu::numeric, 1) AS cpu_best_ms,
	round((s.best * 1e6 / :rows)::numeric, 1) AS ns_row,
	round(((s.best - c.best) * 1e6 / :rows)::numeric, 1) AS ns_row_over_scan,
	round((s.best / a.best)::numeric, 2) AS vs_a,
	round((s.best / k.best)::numeric, 2) AS vs_c
FROM s JOIN descr d USING (variant),
	(SELECT best FROM s WHERE variant = 'a0_count') c,
	(SELECT best FROM s WHERE variant = 'a_base') a,
	(SELECT best FROM s WHERE variant = 'c_in_keys') k
ORDER BY d.ord;

\echo 'goals: ratio of best cpu times [of median cpu times] {of best wall times}'
SELECT format('%s [%s] {%s}, goal <= 1.3: %s',
		round((b.best / a.best)::numeric, 2), round((b.med / a.med)::numeric, 2),
		round((b.wall / a.wall)::numeric, 2),
		CASE WHEN b.best / a.best <= 1.3 THEN 'met' ELSE 'NOT met' END) AS "(b)/(a)",
	format('%s [%s] {%s}, goal <= 0.3: %s',
		round((b.best / c.best)::numeric, 2), round((b.med / c.med)::numeric, 2),
		round((b.wall / c.wall)::numeric, 2),
		CASE WHEN b.best / c.best <= 0.3 THEN 'met' ELSE 'NOT met' END) AS "(b)/(c)",
	format('%s ns/row over (a); %s ns/row over a builtin predicate passing as many rows (a_sel)',
		round(((b.best - a.best) * 1e6 / :rows)::numeric, 1),
		round(((b.best - sel.best) * 1e6 / :rows)::numeric, 1)) AS "(b)-(a)"
FROM (SELECT * FROM s WHERE variant = 'b_probe') b,
	(SELECT * FROM s WHERE variant = 'a_base') a,
	(SELECT * FROM s WHERE variant = 'a_sel') sel,
	(SELECT * FROM s WHERE variant = 'c_in_keys') c
\gx
\echo 'cost of the probe itself by filter size (z*: only false positives pass), over the builtin'
\echo 'id = -1, with the fixed cost (a one-row probe: detoast the filter, probe once) taken out:'
SELECT s.variant, pg_size_pretty(bytes) AS filter_size,
	round(o.best::numeric, 2) AS fixed_ms,
	round(((s.best - n.best - o.best) * 1e6 / :rows)::numeric, 1) AS ns_row_over_builtin,
	round(((s.med - n.med - o.med) * 1e6 / :rows)::numeric, 1) AS same_by_median,
	round((s.res::bigint::numeric / :rows), 4) AS passed
FROM s JOIN filters ON name = s.variant, bloom_info(f),
	(SELECT * FROM s WHERE variant = 'a_none') n,
	LATERAL (SELECT * FROM s o WHERE o.variant = 'one_' || s.variant) o
ORDER BY bytes;
\echo 'answers: every repetition of a variant gave the same count'
SELECT bool_and(nres = 1) AS stable_answers,
	(SELECT res FROM s WHERE variant = 'c_in_keys')::bigint AS true_matches,
	round(((SELECT res FROM s WHERE variant = 'b_probe')::bigint - :nkeys)::numeric
		/ (:rows - :nkeys), 5) AS measured_fpr_blocked,
	round(((SELECT res FROM s WHERE variant = 'b_classic')::bigint - :nkeys)::numeric
		/ (:rows - :nkeys), 5) AS measured_fpr_classic
FROM s;
SQL
