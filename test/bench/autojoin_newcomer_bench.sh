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
#       with the setting on.
#
#   bash test/bench/autojoin_newcomer_bench.sh [ROWS [RUNS [LOCAL_ROWS]]]
#       (defaults 2000000 5 1000000; SHAPES="cannot_pay" runs only those)
#
# Three throwaway clusters on loopback from PG_CONFIG's install (local with
# shared_preload_libraries = 'bloomfilter'; r0; r1), as autojoin_bench.sh
# sets them up.  Each shape runs with SET bloomfilter.join_pushdown = off
# and = on, every variant of every shape interleaved and rotated in one
# session (sql_bench_lib.sh's bench_run: one warm-up round, then RUNS
# rounds); the ratios are on/off of the best and of the median.  The
# result of every run (a count and a sum) is kept and compared between on
# and off, and the "on" plan is checked for the filter.  Nothing is
# asserted.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROWS=${1:-2000000}
RUNS=${2:-5}
LOCAL_ROWS=${3:-1000000}
KEYS=$((ROWS / 100))
HALF=$((ROWS / 2))
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)

# shellcheck source=test/bench/sql_bench_lib.sh
source test/bench/sql_bench_lib.sh

as_pg=()
if [ "$(id -u)" = 0 ]; then as_pg=(runuser -u postgres --); fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-newcomer.XXXXXX")
chmod 755 "$work"
[ ${#as_pg[@]} -gt 0 ] && chown postgres "$work"

free_port() {
	local p=$1
	while ss -Htln "( sport = :$p )" | grep -q . || [ -e "$work/.s.PGSQL.$p" ]; do
		p=$((p + 1))
	done
	echo "$p"
}
base=$((50000 + RANDOM % 10000))
LPORT=$(free_port "$base")
R0PORT=$(free_port $((LPORT + 1)))
R1PORT=$(free_port $((R0PORT + 1)))

cleanup() {
	for c in local r0 r1; do
		[ -d "$work/$c" ] && "${as_pg[@]}" "$bindir/pg_ctl" -D "$work/$c" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

for c in local:$LPORT r0:$R0PORT r1:$R1PORT; do
	name=${c%%:*}
	port=${c##*:}
	"${as_pg[@]}" "$bindir/initdb" -D "$work/$name" -A trust -N -U postgres >/dev/null
	cat >>"$work/$name/postgresql.conf" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
fsync = off
shared_buffers = 256MB
EOF
	# the newcomer: the library preloaded, nothing else
	[ "$name" = local ] && echo "shared_preload_libraries = 'bloomfilter'" >>"$work/$name/postgresql.conf"
	"${as_pg[@]}" "$bindir/pg_ctl" -D "$work/$name" -l "$work/$name.log" -w start >/dev/null
done

psql_at() {
	local port=$1
	shift
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p "$port" -U postgres -d postgres "$@"
}
psql_run() {
	psql_at "$LPORT" "$@"
}

echo "== $("$bindir/postgres" --version); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== source: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain -- src sql 2>/dev/null | grep -q . && echo ' + uncommitted changes in src/ or sql/')"
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
EOF

# SHAPES="cannot_pay" (say) runs only those
read -r -a shapes <<<"${SHAPES:-inner in exists left text partitioned cannot_pay}"
declare -A query=(
	[inner]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip JOIN events r USING (k)"
	[in]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM events r WHERE r.k IN (SELECT k FROM vip)"
	[exists]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM events r WHERE EXISTS (SELECT 1 FROM vip v WHERE v.k = r.k)"
	[left]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip v LEFT JOIN events r ON r.k = v.k"
	[text]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip v JOIN events r ON r.tk = v.tk"
	[partitioned]="SELECT count(*) AS c, sum(length(r.payload)) AS s FROM vip JOIN all_events r USING (k)"
	[cannot_pay]="SELECT count(*) AS c, sum(b.id) AS s FROM big b JOIN small r ON r.k = b.k"
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
	printf '  %-12s on: %-3s off: %s\n' "$s" "$on" "$off"
done
psql_run -P footer=off <<'SQL'
SELECT variant, count(*) AS runs, round(min(ms)::numeric, 1) AS best_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) AS median_ms,
       min(result) = max(result) AS steady, min(result) AS "count/sum"
FROM bench_result GROUP BY variant ORDER BY variant;
SQL
echo "on / off, best and median (goal: at most 0.3; cannot_pay at most 1.1); same result on and off:"
psql_run -At -F' ' <<'SQL'
WITH v AS (SELECT split_part(variant, ' ', 1) AS shape, split_part(variant, ' ', 2) AS setting,
                  min(ms) AS best, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median,
                  min(result) AS res
           FROM bench_result GROUP BY variant)
SELECT format('  %-12s %5s %5s  %s', n.shape, round((n.best / f.best)::numeric, 2),
              round((n.median / f.median)::numeric, 2), CASE WHEN n.res = f.res THEN 'same' ELSE 'DIFFERENT' END)
FROM v n JOIN v f ON f.shape = n.shape AND f.setting = 'off'
WHERE n.setting = 'on' ORDER BY n.shape;
SQL
