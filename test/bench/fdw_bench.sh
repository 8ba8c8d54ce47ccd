#!/bin/bash
# Bloom-join benchmark across two clusters on loopback.
#
# "remote" holds big(id int, payload text) with ROWS rows; "local" holds keys,
# ROWS/100 ids that all exist remotely (1%).  The same join,
#     SELECT k.id, r.payload FROM keys k JOIN remote_big r ON r.id = k.id
# runs plain (every remote row crosses) and as a Bloom-join (adding
# WHERE r.id <@ (SELECT bloom_agg(id) FROM keys), which postgres_fdw ships to
# the remote), over postgres_fdw at its default fetch_size (100) and at 10000,
# and over dblink.  For each: median wall time of RUNS runs (psql \timing,
# after a warm-up run; the Bloom-join's time includes building the filter),
# rows fetched (EXPLAIN ANALYZE of the Foreign Scan; the row count dblink
# returns), and bytes on the wire: the kernel's TCP counters (ss -ti:
# bytes_received, bytes_sent) of the coordinator's connection to the remote,
# read before and after one run: every byte of the protocol (rows, the
# filter parameter, the FETCH round trips), nothing estimated.
#
# Usage: bash test/bench/fdw_bench.sh [ROWS [RUNS]]   (defaults 2000000 5)
# Needs bloomfilter installed (make && make install), postgres_fdw, dblink
# and ss (iproute2).  As root, the clusters run as the user postgres.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROWS=${1:-2000000}
RUNS=${2:-5}
KEYS=$((ROWS / 100))
# shellcheck source=test/bench/sql_bench_lib.sh
source test/bench/sql_bench_lib.sh

if ! command -v ss >/dev/null; then
	echo "fdw_bench.sh: needs ss to read the TCP byte counters (apt-get install iproute2)" >&2
	exit 2
fi

bench_clusters_init fdwbench
bench_cluster_start local "shared_buffers = 512MB"
bench_cluster_start remote "shared_buffers = 512MB"
LPORT=${bench_port[local]}
RPORT=${bench_port[remote]}

bench_header
echo "setting up: $ROWS remote rows, $KEYS local keys (1%), ports $LPORT (local) and $RPORT (remote)" >&2
psql_at "$RPORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE TABLE big AS SELECT g AS id, md5(g::text) AS payload FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE big;
EOF
psql_at "$LPORT" <<EOF
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION dblink;
CREATE SERVER big_srv FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$RPORT', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER big_srv;
CREATE FOREIGN TABLE remote_big (id int, payload text) SERVER big_srv OPTIONS (table_name 'big');
CREATE TABLE keys AS SELECT g * 100 - 37 AS id FROM generate_series(1, $KEYS) g;
ANALYZE keys;
EOF

PLAIN="SELECT k.id, r.payload FROM keys k JOIN remote_big r ON r.id = k.id"
BLOOM="$PLAIN WHERE r.id <@ (SELECT bloom_agg(id) FROM keys)"
DB_PLAIN="SELECT k.id, r.payload FROM keys k
	JOIN dblink('bench', 'SELECT id, payload FROM big') AS r(id int, payload text) ON r.id = k.id"
DB_BLOOM="SELECT k.id, r.payload FROM keys k
	JOIN dblink('bench', format('SELECT id, payload FROM big WHERE id <@ %L::bloomfilter',
	                            (SELECT bloom_agg(id) FROM keys))) AS r(id int, payload text) ON r.id = k.id"
DB_PLAIN_ROWS="SELECT count(*) FROM dblink('bench', 'SELECT id, payload FROM big') AS r(id int, payload text)"
DB_BLOOM_ROWS="SELECT count(*) FROM dblink('bench', format('SELECT id, payload FROM big WHERE id <@ %L::bloomfilter',
	                            (SELECT bloom_agg(id) FROM keys))) AS r(id int, payload text)"
DB_CONNECT="SELECT dblink_connect('bench', 'host=127.0.0.1 port=$RPORT dbname=postgres user=postgres');"

# the TCP counters of the coordinator's established connections to the remote
cat >"$work/snapshot.sh" <<EOF
ss -Htin state established '( dport = :$RPORT )' | awk '
	/^[0-9]/ { split(\$3, a, ":"); port = a[2] }
	/bytes_/ { s = 0; r = 0
	           if (match(\$0, /bytes_sent:[0-9]+/)) s = substr(\$0, RSTART + 11, RLENGTH - 11)
	           if (match(\$0, /bytes_received:[0-9]+/)) r = substr(\$0, RSTART + 15, RLENGTH - 15)
	           print port, s, r }'
EOF
snapshot="sh $work/snapshot.sh"

# measure NAME FETCH_SIZE SETUP_SQL QUERY [ROWS_QUERY]
results=()
measure() {
	local name=$1 fetch=$2 setup=$3 query=$4 rowsq=${5:-}
	if [ "$fetch" != dblink ]; then
		psql_at "$LPORT" -c "ALTER SERVER big_srv OPTIONS (SET fetch_size '$fetch')" 2>/dev/null ||
			psql_at "$LPORT" -c "ALTER SERVER big_srv OPTIONS (ADD fetch_size '$fetch')"
	fi
	local out
	out=$(
		{
			echo "$setup"
			echo "SELECT count(*), sum(length(payload)) FROM ($query) j;" # warm-up, opens the connection
			echo "\\! $snapshot > $work/before"
			echo "SELECT count(*), sum(length(payload)) FROM ($query) j;"
			echo "\\! $snapshot > $work/after"
			echo "\\timing on"
			for _ in $(seq "$RUNS"); do
				echo "SELECT count(*), sum(length(payload)) FROM ($query) j;"
			done
		} | psql_at "$LPORT" -At
	)
	local ms
	ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sort -n |
		awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
	local joined
	joined=$(echo "$out" | grep -m1 '|' | cut -d'|' -f1)
	local bytes
	bytes=$(awk 'NR == FNR { s[$1] = $2; r[$1] = $3; next }
		{ ds += $2 - s[$1]; dr += $3 - r[$1] } END { printf "%d %d", dr, ds }' \
		"$work/before" "$work/after")
	local rows
	if [ -n "$rowsq" ]; then
		rows=$(printf '%s\n%s\n' "$setup" "$rowsq" | psql_at "$LPORT" -At | tail -1)
	else
		rows=$(psql_at "$LPORT" -At -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $query" |
			sed -n 's/.*Foreign Scan on public.remote_big r (actual rows=\([0-9]*\).*/\1/p')
	fi
	results+=("$name|$ms|$rows|${bytes% *}|${bytes#* }|$joined")
}

fsize=$(psql_at "$LPORT" -At -c "SELECT length(f::bytea) || ' bytes, ' || length(f::text) || ' as text' FROM (SELECT bloom_agg(id) f FROM keys) s")
echo "filter of $KEYS keys: $fsize" >&2
psql_at "$LPORT" -c "EXPLAIN (VERBOSE, COSTS OFF) $PLAIN" >"$work/plan-plain.txt"
psql_at "$LPORT" -c "EXPLAIN (VERBOSE, COSTS OFF) $BLOOM" >"$work/plan-bloom.txt"
grep -q 'OPERATOR(public.<@)' "$work/plan-bloom.txt" || {
	echo "the Bloom predicate was not pushed down:" >&2
	cat "$work/plan-bloom.txt" >&2
	exit 1
}

for fetch in 100 10000; do
	echo "postgres_fdw, fetch_size $fetch ..." >&2
	measure "postgres_fdw plain join (fetch_size $fetch)" "$fetch" "" "$PLAIN"
	measure "postgres_fdw Bloom-join (fetch_size $fetch)" "$fetch" "" "$BLOOM"
done
echo "dblink ..." >&2
measure "dblink plain join" dblink "$DB_CONNECT" "$DB_PLAIN" "$DB_PLAIN_ROWS"
measure "dblink Bloom-join" dblink "$DB_CONNECT" "$DB_BLOOM" "$DB_BLOOM_ROWS"

echo
echo "Bloom-join benchmark: $ROWS remote rows, $KEYS local keys (1%), median of $RUNS runs; filter $fsize"
printf '%-44s %10s %10s %14s %12s %8s\n' "query" "time ms" "rows" "bytes in" "bytes out" "joined"
for r in "${results[@]}"; do
	IFS='|' read -r n ms rows bin bout joined <<<"$r"
	printf '%-44s %10.1f %10s %14s %12s %8s\n' "$n" "$ms" "$rows" "$bin" "$bout" "$joined"
done
echo
echo "Bloom-join / plain join:"
for i in 0 2 4; do
	IFS='|' read -r n1 ms1 rows1 bin1 bout1 _ <<<"${results[$i]}"
	IFS='|' read -r n2 ms2 rows2 bin2 bout2 _ <<<"${results[$((i + 1))]}"
	label=$(echo "${n1/plain join/}" | tr -s ' ')
	awk -v l="$label" -v t1="$ms1" -v t2="$ms2" -v r1="$rows1" -v r2="$rows2" -v b1="$bin1" -v b2="$bin2" \
		'BEGIN { printf "  %-40s time %.2f   rows %.1fx fewer   bytes in %.1fx fewer\n", l, t2 / t1, r1 / r2, b1 / b2 }'
done
echo "(bytes in: remote to local, bytes out: local to remote, both counted by the kernel on the coordinator's connection)"
