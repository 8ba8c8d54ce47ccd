#!/bin/bash
# autojoin_newcomer_bench.sh: the automatic Bloom-join (bloomfilter.join_pushdown)
# as a new user meets it (issue #18): nothing is ever analyzed, neither the
# foreign tables nor the local ones nor the remote tables (autovacuum off
# on the remotes), and no server sets use_remote_estimate.  Two goals:
#
#   (a) the newcomer's join takes at most 0.3 of the plain join's time, over
#       the issue's shapes: inner join, IN, EXISTS, LEFT JOIN with the
#       foreign table nullable, text keys, and a table partitioned over two
#       foreign tables (ROWS remote rows, ROWS/100 local keys, 1% match);
#   (b) a join the filter cannot pay for (a 1,000-row remote table, a
#       1,000,000-row local side) takes at most 1.1 of the plain join's time
#       with the setting on: cannot_pay (the local side never analyzed
#       either) and cannot_pay_an (the local side analyzed, the foreign
#       table not).
#
#   bash test/bench/autojoin_newcomer_bench.sh [ROWS [RUNS [LOCAL_ROWS]]]
#       (defaults 2000000 5 1000000; SHAPES="cannot_pay cannot_pay_an" runs only those)
#
# Three throwaway clusters on loopback from PG_CONFIG's install (local with
# shared_preload_libraries = 'bloomfilter'; r0; r1), as autojoin_bench.sh
# sets them up.  Each shape runs with SET bloomfilter.join_pushdown = off
# and = on, every variant of every shape interleaved and rotated in one
# session (sql_bench_lib.sh's bench_run: one warm-up round, then RUNS
# rounds); the ratios are on/off of the best and of the median.  The
# result of every run (a count and a sum) is kept and compared between on
# and off, and the "on" plan is checked for the filter.
#
# For the cannot_pay shapes, where the time goes with the setting on: its plans on and
# off side by side (the remote's size, asked once per session, replaces
# postgres_fdw's guess of the never-analyzed table and may change the
# join's plan even where no filter is added), and planning and execution
# time apart (EXPLAIN ANALYZE, TIMING OFF), both in one session (the size
# cached) and as the first query of fresh sessions (the size asked; the
# connection to the remote opened at planning with the setting on, at
# execution with it off).  Nothing is asserted.
#
# Runs from PG_CONFIG's install; in the Debian chroots (PostgreSQL 17, 18):
#   bash test/chroot.sh bench trixie test/bench/autojoin_newcomer_bench.sh 2000000 7
set -euo pipefail
cd "$(dirname "$0")/../.."

ROWS=${1:-2000000}
RUNS=${2:-5}
LOCAL_ROWS=${3:-1000000}
KEYS=$((ROWS / 100))
HALF=$((ROWS / 2))
# shellcheck source=test/bench/sql_bench_lib.sh
source test/bench/sql_bench_lib.sh

bench_clusters_init newcomer
# the newcomer: the library preloaded, nothing else
bench_cluster_start local "shared_preload_libraries = 'bloomfilter'"
bench_cluster_start r0
bench_cluster_start r1
LPORT=${bench_port[local]}
R0PORT=${bench_port[r0]}
R1PORT=${bench_port[r1]}
# sql_bench_lib.sh's bench_run runs its script through psql_run: the local server
psql_run() {
	psql_at "$LPORT" "$@"
}

bench_header
echo "setting up: $ROWS remote rows, $KEYS local keys (1% match); a 1,000-row remote table and $LOCAL_ROWS local rows; nothing analyzed" >&2
psql_at "$R0PORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE TABLE events (id int, k int, tk text, payload text) WITH (autovacuum_enabled = false);
INSERT INTO events
SELECT g, k, 'k' || k, md5(g::text)
FROM generate_series(1, $ROWS) g, LATERAL (SELECT ((g::bigint * 7919) % $ROWS + 1)::int AS k) s;
CREATE TABLE events_p0 (id int, k int, tk text, payload text) WITH (autovacuum_enabled = false);
INSERT INTO events_p0 SELECT * FROM events WHERE k <= $HALF;
CREATE TABLE small (id int, k int) WITH (autovacuum_enabled = false);
INSERT INTO small SELECT g, g * 997 FROM generate_series(1, 1000) g;
EOF
psql_at "$R1PORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE TABLE events_p1 (id int, k int, tk text, payload text) WITH (autovacuum_enabled = false);
INSERT INTO events_p1
SELECT g, k, 'k' || k, md5(g::text)
FROM generate_series(1, $ROWS) g, LATERAL (SELECT ((g::bigint * 7919) % $ROWS + 1)::int AS k) s
WHERE k > $HALF;
EOF
psql_at "$LPORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER r0 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$R0PORT', dbname 'postgres', extensions 'bloomfilter', async_capable 'true');
CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$R1PORT', dbname 'postgres', extensions 'bloomfilter', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER r0;
CREATE USER MAPPING FOR CURRENT_USER SERVER r1;
CREATE FOREIGN TABLE events (id int, k int, tk text, payload text) SERVER r0;
CREATE FOREIGN TABLE small (id int, k int) SERVER r0;
CREATE TABLE all_events (id int, k int, tk text, payload text) PARTITION BY RANGE (k);
CREATE FOREIGN TABLE all_events_0 PARTITION OF all_events FOR VALUES FROM (MINVALUE) TO ($((HALF + 1)))
	SERVER r0 OPTIONS (table_name 'events_p0');
CREATE FOREIGN TABLE all_events_1 PARTITION OF all_events FOR VALUES FROM ($((HALF + 1))) TO (MAXVALUE)
	SERVER r1 OPTIONS (table_name 'events_p1');
-- no ANALYZE anywhere, and autovacuum off on the local tables too, so that
-- every round plans from the same state (autovacuum would analyze them at
-- some point of the run, and the plain join's plan would change under it)
CREATE TABLE vip WITH (autovacuum_enabled = false) AS
SELECT g * 100 - 37 AS k, 'k' || (g * 100 - 37) AS tk FROM generate_series(1, $KEYS) g;
CREATE TABLE big WITH (autovacuum_enabled = false) AS
SELECT g AS id, g AS k FROM generate_series(1, $LOCAL_ROWS) g;
-- the same local side, analyzed (cannot_pay_an): a user who analyzes
-- the local tables but not the foreign ones
-- 10 local rows against the same remote table: a join that takes a few
-- milliseconds, where what the setting adds to a session's first query
-- shows
CREATE TABLE big_an WITH (autovacuum_enabled = false) AS SELECT * FROM big;
ANALYZE big_an;
CREATE TABLE tiny WITH (autovacuum_enabled = false) AS
SELECT g AS id, g * 997 AS k FROM generate_series(1, 10) g;
EOF

# SHAPES="cannot_pay" (say) runs only those
read -r -a shapes <<<"${SHAPES:-inner in exists left text partitioned cannot_pay cannot_pay_an}"
declare -A query=(
	[inner]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip JOIN events r USING (k)"
	[in]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM events r WHERE r.k IN (SELECT k FROM vip)"
	[exists]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM events r WHERE EXISTS (SELECT 1 FROM vip v WHERE v.k = r.k)"
	[left]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip v LEFT JOIN events r ON r.k = v.k"
	[text]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip v JOIN events r ON r.tk = v.tk"
	[partitioned]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip JOIN all_events r USING (k)"
	[cannot_pay]="SELECT count(*) AS c, sum(b.id) AS s FROM big b JOIN small r ON r.k = b.k"
	[cannot_pay_an]="SELECT count(*) AS c, sum(b.id) AS s FROM big_an b JOIN small r ON r.k = b.k"
)
bench_names=()
bench_queries=()
for s in "${shapes[@]}"; do
	for setting in off on; do
		bench_timed "$s $setting" "SET bloomfilter.join_pushdown = $setting; SELECT c || '/' || coalesce(s, 0) AS res FROM (${query[$s]}) j"
	done
done
echo "$((RUNS + 1)) interleaved rounds of ${#bench_names[@]} variants ..." >&2
bench_run "$RUNS" "SET client_min_messages = warning;" >/dev/null

echo
echo "Automatic Bloom-join for a newcomer: nothing analyzed; $ROWS remote rows, $KEYS local keys (1% match); cannot_pay: 1,000 remote rows, $LOCAL_ROWS local rows"
echo "filter in the plan with the setting on (and never with it off):"
for s in "${shapes[@]}"; do
	on=$(psql_at "$LPORT" -At -c "SET bloomfilter.join_pushdown = on" -c "EXPLAIN (VERBOSE, COSTS OFF) ${query[$s]}" |
		grep -q 'Remote SQL: .*OPERATOR(public.<@)' && echo yes || echo no)
	off=$(psql_at "$LPORT" -At -c "SET bloomfilter.join_pushdown = off" -c "EXPLAIN (VERBOSE, COSTS OFF) ${query[$s]}" |
		grep -q 'Remote SQL: .*OPERATOR(public.<@)' && echo yes || echo no)
	printf '  %-14s on: %-3s off: %s\n' "$s" "$on" "$off"
done
psql_run -P footer=off <<'SQL'
SELECT variant, count(*) AS runs, round(min(ms)::numeric, 1) AS best_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) AS median_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms))::numeric, 1) AS median_cpu_ms,
       min(result) = max(result) AS steady, min(result) AS "count/sum"
FROM bench_result GROUP BY variant ORDER BY variant;
SQL
echo "on / off, best and median (goal: at most 0.3; cannot_pay and cannot_pay_an at most 1.1); the local backend's"
echo "CPU time on / off, median (steadier than the clock on a busy machine; the remotes' work is not in it); same result on and off:"
psql_run -At -F' ' <<'SQL'
WITH v AS (SELECT split_part(variant, ' ', 1) AS shape, split_part(variant, ' ', 2) AS setting,
                  min(ms) AS best, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms) AS cpu,
                  min(result) AS res
           FROM bench_result GROUP BY variant)
SELECT format('  %-14s %5s %5s  cpu %5s  %s', n.shape, round((n.best / f.best)::numeric, 2),
              round((n.median / f.median)::numeric, 2), coalesce(round((n.cpu / f.cpu)::numeric, 2)::text, '-'),
              CASE WHEN n.res = f.res THEN 'same' ELSE 'DIFFERENT' END)
FROM v n JOIN v f ON f.shape = n.shape AND f.setting = 'off'
WHERE n.setting = 'on' ORDER BY n.shape;
SQL

# The join the filter cannot pay for: where its time goes with the setting
# on.  No filter is added there (the cost gate says no), but the setting
# still does two things to it: it asks the remote for the never-analyzed
# table's size (once per session, cached), and it replaces postgres_fdw's
# guess with that size, which may change the join's plan (cannot_pay: the
# local side never analyzed either) or only its estimates (cannot_pay_an:
# the local side analyzed).
cp_shapes=()
for s in "${shapes[@]}"; do
	[[ $s == cannot_pay* ]] && cp_shapes+=("$s")
done
if [ ${#cp_shapes[@]} -gt 0 ]; then
	for s in "${cp_shapes[@]}"; do
		q=${query[$s]}
		echo
		echo "$s: the plans, setting off and on (EXPLAIN, costs off):"
		psql_at "$LPORT" -At -c "SET bloomfilter.join_pushdown = off" -c "EXPLAIN (COSTS OFF) $q" >"$work/plan-off.txt"
		psql_at "$LPORT" -At -c "SET bloomfilter.join_pushdown = on" -c "EXPLAIN (COSTS OFF) $q" >"$work/plan-on.txt"
		if cmp -s "$work/plan-off.txt" "$work/plan-on.txt"; then
			echo "  the same plan:"
			sed 's/^/    /' "$work/plan-on.txt"
		else
			echo "  different plans: off"
			sed 's/^/    /' "$work/plan-off.txt"
			echo "  on"
			sed 's/^/    /' "$work/plan-on.txt"
		fi
		for setting in off on; do
			echo "  the remote table's estimate, setting $setting: $(psql_at "$LPORT" -At -c "SET bloomfilter.join_pushdown = $setting" -c "EXPLAIN $q" |
				sed -n 's/.*Foreign Scan on small .*rows=\([0-9]*\).*/\1 rows/p')"
		done
	done

	# planning and execution apart (EXPLAIN ANALYZE with TIMING OFF: the
	# summary's two times, without a clock per row), interleaved rounds in
	# one session, as above: the remote's size is asked once, in the
	# warm-up round, and cached
	bench_names=()
	bench_queries=()
	for s in "${cp_shapes[@]}"; do
		for setting in off on; do
			bench_timed "$s $setting" "SET bloomfilter.join_pushdown = $setting; SELECT pg_temp.plan_exec(\$q\$${query[$s]}\$q\$) AS res"
		done
	done
	psql_run -c "ALTER TABLE bench_result RENAME TO bench_result_main"
	echo "${cp_shapes[*]}: planning and execution, $((RUNS + 1)) interleaved rounds in one session ..." >&2
	bench_run "$RUNS" "SET client_min_messages = warning;
CREATE FUNCTION pg_temp.plan_exec(q text) RETURNS text LANGUAGE plpgsql AS \$f\$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY, FORMAT JSON) ' || q INTO j;
	RETURN (j->0->>'Planning Time') || ' ' || (j->0->>'Execution Time');
END \$f\$;" >/dev/null
	psql_run -c "ALTER TABLE bench_result RENAME TO bench_result_session" -c "ALTER TABLE bench_result_main RENAME TO bench_result"

	# the first query of a fresh session: the size is asked there (on), and
	# the connection to the remote is opened at planning (on) or at
	# execution (off); RUNS sessions each, alternating which goes first.
	# Also with 10 local rows (tiny): the same remote table and lookup, a
	# join of a few milliseconds, so that what the setting adds to a
	# session's first query is not hidden by the plan it changes.
	psql_run -q -c "CREATE TABLE bench_first (query text, setting text, rep int, plan_ms float8, exec_ms float8)"
	echo "${cp_shapes[*]} and tiny: the first query of $RUNS fresh sessions per setting ..." >&2
	for ((r = 1; r <= RUNS; r++)); do
		order=(off on)
		((r % 2 == 0)) && order=(on off)
		for s in "${cp_shapes[@]}" tiny; do
			if [ "$s" = tiny ]; then
				q=${query[cannot_pay]/FROM big b/FROM tiny b}
			else
				q=${query[$s]}
			fi
			for setting in "${order[@]}"; do
				t=$(psql_at "$LPORT" -At -c "SET bloomfilter.join_pushdown = $setting" \
					-c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY, FORMAT JSON) $q" |
					tr -d '\n' | sed -n 's/.*"Planning Time": *\([0-9.]*\).*"Execution Time": *\([0-9.]*\).*/\1 \2/p')
				psql_run -c "INSERT INTO bench_first VALUES ('$s', '$setting', $r, ${t% *}, ${t#* })"
			done
		done
	done

	echo
	echo "the joins the filter cannot pay for, planning and execution (EXPLAIN ANALYZE, TIMING OFF; median ms; total on - off, on / off):"
	psql_run -P footer=off <<'SQL'
WITH s AS (SELECT split_part(variant, ' ', 1) AS query, split_part(variant, ' ', 2) AS setting,
                  split_part(result, ' ', 1)::float8 AS plan_ms, split_part(result, ' ', 2)::float8 AS exec_ms
           FROM bench_result_session),
     m AS (SELECT query, '1 one session, size cached' AS "when", setting, count(*) AS runs,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms) AS plan,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY exec_ms) AS exec,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms + exec_ms) AS total
           FROM s GROUP BY query, setting
           UNION ALL
           SELECT CASE query WHEN 'tiny' THEN 'tiny (10 local rows)' ELSE query END,
                  '2 first query of a session', setting, count(*),
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms),
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY exec_ms),
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms + exec_ms)
           FROM bench_first GROUP BY query, setting)
SELECT m.query, substr(m."when", 3) AS "when", m.setting, m.runs, round(m.plan::numeric, 2) AS planning_ms,
       round(m.exec::numeric, 1) AS execution_ms, round(m.total::numeric, 1) AS total_ms,
       round((m.total - o.total)::numeric, 1) AS "on - off",
       round((m.total / o.total)::numeric, 2) AS "on/off"
FROM m JOIN m o ON o.query = m.query AND o."when" = m."when" AND o.setting = 'off'
ORDER BY m.query LIKE 'tiny%', m.query, m."when", m.setting;
SQL
fi
