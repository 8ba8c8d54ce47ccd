#!/bin/bash
# autojoin_bench.sh: the automatic Bloom-join (issue #14, setting
# bloomfilter.join_pushdown) against the plain join, over postgres_fdw, on
# one remote table and on a table partitioned over two shards.
#
#   bash test/bench/autojoin_bench.sh [ROWS [RUNS]]   (defaults 2000000 5)
#
# Three throwaway clusters on loopback, from PG_CONFIG's install:
#   local   shared_preload_libraries = 'bloomfilter'; vip(k), ROWS/100 keys
#           (20,000), k = 100 g - 37
#   r0      events(id, k, payload): ROWS rows, k a permutation of 1..ROWS, so
#           exactly 1% of the rows have a key in vip; and events_p0, the
#           rows of events with k <= ROWS/2
#   r1      events_p1, the rows of events with k > ROWS/2
# On local: the foreign table events (server r0), and all_events, a table
# partitioned by range of k over the foreign tables events_p0 (r0) and
# events_p1 (r1); servers with extensions 'bloomfilter' (and async_capable
# for the shards); every table ANALYZEd (the foreign ones through
# postgres_fdw).  The query, on each:
#     SELECT count(*), sum(length(r.payload)) FROM vip JOIN <table> r USING (k)
# run with SET bloomfilter.join_pushdown = off and = on, and, as the
# reference, written by hand as a Bloom-join (setting off):
#     ... WHERE r.k <@ (SELECT bloom_agg(k) FROM vip)
#
# Time: wall clock on the local server around each query, in one session
# per topology, variants interleaved and rotated every round, one warm-up
# round then RUNS rounds (test/bench/sql_bench_lib.sh's bench_run); the
# table gives the best and the median and the ratios to "off".  Rows moved:
# the actual rows of the Foreign Scans in EXPLAIN (ANALYZE, VERBOSE), summed
# over the shards.  Bytes moved: the kernel's TCP counters (ss -ti) of the
# local server's connections to the remotes, read before and after one
# query in the same session, as test/bench/fdw_bench.sh does: every byte of
# the protocol, the rows, the filter sent as a parameter and the FETCH round
# trips; "in" is remote to local.  Same rows: an md5 of the joined rows
# (ordered) with each variant.  Nothing is asserted.
#
# Until the planner part of issue #14 is installed, the setting does not
# exist: the script says so and runs the plain join ("off" without the SET)
# and the hand-written Bloom-join only.
#
# Needs bloomfilter installed in PG_CONFIG's install (make install),
# postgres_fdw, and ss (iproute2).  As root, the servers run as postgres.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROWS=${1:-2000000}
RUNS=${2:-5}
KEYS=$((ROWS / 100))
HALF=$((ROWS / 2))
# shellcheck source=test/bench/sql_bench_lib.sh
source test/bench/sql_bench_lib.sh

if ! command -v ss >/dev/null; then
	echo "autojoin_bench.sh: needs ss to read the TCP byte counters (apt-get install iproute2)" >&2
	exit 2
fi

bench_clusters_init autojoin
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
echo "setting up: $ROWS remote rows, $KEYS local keys (1% of the remote rows match), ports $LPORT (local), $R0PORT (r0), $R1PORT (r1)" >&2
psql_at "$R0PORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE TABLE events AS
SELECT g AS id, ((g::bigint * 7919) % $ROWS + 1)::int AS k, md5(g::text) AS payload
FROM generate_series(1, $ROWS) g;
CREATE TABLE events_p0 AS SELECT * FROM events WHERE k <= $HALF;
VACUUM ANALYZE events;
VACUUM ANALYZE events_p0;
EOF
psql_at "$R1PORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE TABLE events_p1 AS
SELECT g AS id, ((g::bigint * 7919) % $ROWS + 1)::int AS k, md5(g::text) AS payload
FROM generate_series(1, $ROWS) g WHERE (g::bigint * 7919) % $ROWS + 1 > $HALF;
VACUUM ANALYZE events_p1;
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
CREATE FOREIGN TABLE events (id int, k int, payload text) SERVER r0 OPTIONS (table_name 'events');
CREATE TABLE all_events (id int, k int, payload text) PARTITION BY RANGE (k);
CREATE FOREIGN TABLE all_events_0 PARTITION OF all_events FOR VALUES FROM (MINVALUE) TO ($((HALF + 1)))
	SERVER r0 OPTIONS (table_name 'events_p0');
CREATE FOREIGN TABLE all_events_1 PARTITION OF all_events FOR VALUES FROM ($((HALF + 1))) TO (MAXVALUE)
	SERVER r1 OPTIONS (table_name 'events_p1');
CREATE TABLE vip AS SELECT g * 100 - 37 AS k FROM generate_series(1, $KEYS) g;
ANALYZE vip;
ANALYZE events;
ANALYZE all_events;
EOF

setting=$(psql_at "$LPORT" -At -c "SELECT current_setting('bloomfilter.join_pushdown', true)")
if [ -n "$setting" ]; then
	have_setting=1
	echo "bloomfilter.join_pushdown exists (default $setting)" >&2
else
	have_setting=0
	echo "bloomfilter.join_pushdown: setting not available (the planner part of issue #14 is not installed)" >&2
fi
fsize=$(psql_at "$LPORT" -At -c "SELECT length(f::bytea) || ' bytes' FROM (SELECT bloom_agg(k) f FROM vip) s")
matching=$(psql_at "$R0PORT" -At -c "SELECT count(*) FROM events WHERE k % 100 = 63")

# variants: name, session setting, the query's extra WHERE
names=(off on hand)
sets=("SET bloomfilter.join_pushdown = off;" "SET bloomfilter.join_pushdown = on;" "SET bloomfilter.join_pushdown = off;")
wheres=("" "" "WHERE r.k <@ (SELECT bloom_agg(k) FROM vip)")
if [ $have_setting = 0 ]; then
	names=(plain hand)
	sets=("" "")
	wheres=("" "WHERE r.k <@ (SELECT bloom_agg(k) FROM vip)")
fi

# the TCP counters of the local server's established connections to PORTS
snapshot() {
	local filter="" p
	for p in "$@"; do filter+="${filter:+ or }dport = :$p"; done
	cat >"$work/snapshot.sh" <<EOF
ss -Htin state established '( $filter )' | awk '
	/^[0-9]/ { split(\$3, a, ":"); port = a[2] }
	/bytes_/ { s = 0; r = 0
	           if (match(\$0, /bytes_sent:[0-9]+/)) s = substr(\$0, RSTART + 11, RLENGTH - 11)
	           if (match(\$0, /bytes_received:[0-9]+/)) r = substr(\$0, RSTART + 15, RLENGTH - 15)
	           print port, s, r }'
EOF
	echo "sh $work/snapshot.sh"
}

report=()
# topology LABEL TABLE PORTS...
topology() {
	local label=$1 table=$2
	shift 2
	local snap i q
	snap=$(snapshot "$@")
	bench_names=()
	bench_queries=()
	for i in "${!names[@]}"; do
		q="SELECT count(*), sum(length(r.payload)) FROM vip JOIN $table r USING (k) ${wheres[$i]}"
		bench_timed "$label ${names[$i]}" "${sets[$i]} SELECT count || '/' || sum AS res FROM ($q) j"
	done
	echo "$label: $((RUNS + 1)) interleaved rounds of ${names[*]} ..." >&2
	bench_run "$RUNS" "SET client_min_messages = warning;" >/dev/null
	for i in "${!names[@]}"; do
		q="SELECT count(*), sum(length(r.payload)) FROM vip JOIN $table r USING (k) ${wheres[$i]}"
		local plan rows bytes same has_filter set_args=()
		[ -n "${sets[$i]}" ] && set_args=(-c "${sets[$i]}")
		plan=$(psql_at "$LPORT" -At "${set_args[@]}" -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $q")
		echo "$plan" >"$work/plan-$label-${names[$i]}.txt"
		rows=$(echo "$plan" | sed -n 's/.*Foreign Scan on .*(actual rows=\([0-9]*\) loops=\([0-9]*\)).*/\1 \2/p' |
			awk '{ s += $1 * $2 } END { print s + 0 }')
		has_filter=$(echo "$plan" | grep -q 'Remote SQL: .*OPERATOR(public.<@)' && echo yes || echo no)
		bytes=$(
			{
				echo "${sets[$i]}"
				echo "$q;"
				echo "\\! $snap > $work/before"
				echo "$q;"
				echo "\\! $snap > $work/after"
			} | psql_at "$LPORT" -At >/dev/null
			awk 'NR == FNR { s[$1] = $2; r[$1] = $3; next }
				{ ds += $2 - s[$1]; dr += $3 - r[$1] } END { printf "%d %d", dr, ds }' "$work/before" "$work/after"
		)
		same=$(psql_at "$LPORT" -At "${set_args[@]}" -c "SELECT md5(string_agg(r.id::text, ',' ORDER BY r.id))
			FROM vip JOIN $table r USING (k) ${wheres[$i]}")
		report+=("$label|${names[$i]}|$rows|${bytes% *}|${bytes#* }|$has_filter|$same")
	done
}

topology "one remote" events "$R0PORT"
topology "two shards" all_events "$R0PORT" "$R1PORT"

echo
echo "Automatic Bloom-join: $ROWS remote rows, $KEYS local keys, $matching remote rows match (1%); filter $fsize"
if [ $have_setting = 0 ]; then
	echo "bloomfilter.join_pushdown: setting not available; \"plain\" is the join without the SET, no on/off comparison"
fi
psql_at "$LPORT" -P footer=off -v runs="$RUNS" <<'SQL'
SELECT variant, count(*) AS runs, round(min(ms)::numeric, 1) AS best_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) AS median_ms,
       min(result) = max(result) AS steady, min(result) AS "count/sum"
FROM bench_result GROUP BY variant ORDER BY variant;
SQL
echo "time / time of the plain join (setting off), best and median:"
psql_at "$LPORT" -At -F' ' <<'SQL'
WITH v AS (SELECT variant, split_part(variant, ' ', 1) || ' ' || split_part(variant, ' ', 2) AS topo,
                  split_part(variant, ' ', 3) AS name, min(ms) AS best,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median
           FROM bench_result GROUP BY variant)
SELECT format('  %-12s %-5s %5s %5s', v.topo, v.name, round((v.best / o.best)::numeric, 2),
              round((v.median / o.median)::numeric, 2))
FROM v JOIN v o ON o.topo = v.topo AND o.name IN ('off', 'plain')
WHERE o.name <> v.name ORDER BY v.topo, v.name;
SQL
echo
printf '%-12s %-6s %10s %14s %12s %8s  %s\n' topology variant "rows" "bytes in" "bytes out" "<@ sent" "md5 of the joined rows"
for r in "${report[@]}"; do
	IFS='|' read -r t n rows bin bout hf md5 <<<"$r"
	printf '%-12s %-6s %10s %14s %12s %8s  %s\n' "$t" "$n" "$rows" "$bin" "$bout" "$hf" "$md5"
done
echo "(rows: actual rows of the Foreign Scans; bytes: the kernel's counters of the local server's connections to the remotes; <@ sent: a Remote SQL has the probe)"
# all_events holds the rows of events: every variant of both joins the same rows
if [ "$(printf '%s\n' "${report[@]}" | cut -d'|' -f7 | sort -u | wc -l)" = 1 ]; then
	echo "same rows: every variant of both topologies joins the same rows"
else
	echo "same rows: NO, the variants differ (see the md5 column)"
fi
