#!/bin/bash
# edges_bench.sh: what the capacity check (README "Past capacity") costs an
# add, the hot path of a loop that updates a stored filter.  Compares two
# servers, each with its own build of the extension (before and after a
# change), on the same adds, interleaved so that a slow phase of the shared
# machine hits both.
#
# Each case is one DO block of ADDS single adds (f := f + i: a copy of the
# filter each, as an UPDATE loop makes), timed by the backend's CPU time
# (/proc/self/schedstat) and by the wall clock; the best of REPS runs is
# reported, in microseconds per add.  The cases:
#   within     bloom_empty(1000000, 0.01) holding 500,000 keys: half full, the
#              adds far under the check's threshold (3m/4k adds)
#   repeats    the same filter after 1,500,000 adds of 1,000 keys: past the
#              threshold by its adds, a tenth of its bits set, so every add
#              counts the bits (the check's worst case)
#   overfull   bloom_empty(100000, 0.01) holding 1,000,000 keys: the first
#              add warns, the others know the statement warned
#   small      bloom_empty(1000, 0.01) (1.3 kB) holding 3,000 repeats of 100 keys: a
#              small filter past the threshold, counted every add
#
# Usage: bash test/bench/edges_bench.sh 'host=/tmp/a port=5432 user=postgres' 'host=/tmp/b port=5433 user=postgres'
#   (A and B: servers with bloomfilter installed; it creates and drops the
#   database edges_bench on each).  ADDS=300 REPS=5 by default.
set -euo pipefail
A=$1
B=$2
ADDS=${ADDS:-300}
REPS=${REPS:-5}

setup() {
	psql -X -q -v ON_ERROR_STOP=1 "$1 dbname=postgres" -c "DROP DATABASE IF EXISTS edges_bench" -c "CREATE DATABASE edges_bench"
	psql -X -q -v ON_ERROR_STOP=1 "$1 dbname=edges_bench" <<'SQL'
CREATE EXTENSION bloomfilter;
SET client_min_messages = error;
CREATE TABLE cases (name text PRIMARY KEY, f bloomfilter);
INSERT INTO cases SELECT 'within', bloom_agg(g, 1000000, 0.01) FROM generate_series(1, 500000) g;
INSERT INTO cases SELECT 'repeats', bloom_agg(g % 1000, 1000000, 0.01) FROM generate_series(1, 1500000) g;
INSERT INTO cases SELECT 'overfull', bloom_agg(g, 100000, 0.01) FROM generate_series(1, 1000000) g;
INSERT INTO cases SELECT 'small', bloom_agg(g % 100, 1000, 0.01) FROM generate_series(1, 3000) g;
CREATE FUNCTION cpu_us() RETURNS float8 LANGUAGE sql AS
$$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 / 1000 $$;
SQL
}

# one timed run: prints "cpu_us_per_add wall_us_per_add"
run() {
	psql -X -q -At -v ON_ERROR_STOP=1 "$1 dbname=edges_bench" <<SQL
SET client_min_messages = error;
SELECT cpu_us() AS c0, extract(epoch FROM clock_timestamp()) * 1e6 AS w0 \gset
DO \$\$
DECLARE f bloomfilter := (SELECT f FROM cases WHERE name = '$2');
BEGIN
	FOR i IN 1..$ADDS LOOP
		f := f + (2000000 + i);
	END LOOP;
END \$\$;
SELECT round(((cpu_us() - :c0) / $ADDS)::numeric, 2) || ' ' ||
       round(((extract(epoch FROM clock_timestamp()) * 1e6 - :w0) / $ADDS)::numeric, 2);
SQL
}

echo "== machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
setup "$A"
setup "$B"
declare -A best
for ((r = 1; r <= REPS; r++)); do
	for c in within repeats overfull small; do
		for s in A B; do
			conn=$A
			[ "$s" = B ] && conn=$B
			read -r cpu wall <<<"$(run "$conn" "$c")"
			k="$c $s"
			if [ -z "${best[$k]:-}" ] || awk "BEGIN{exit !($cpu < ${best[$k]%% *})}"; then
				best[$k]="$cpu $wall"
			fi
		done
	done
done
printf '%-10s %14s %14s %8s\n' case "A cpu us/add" "B cpu us/add" "B/A"
for c in within repeats overfull small; do
	a=${best["$c A"]%% *}
	b=${best["$c B"]%% *}
	printf '%-10s %14s %14s %8s\n' "$c" "$a" "$b" "$(awk "BEGIN{printf \"%.2f\", $b / $a}")"
done
for s in "$A" "$B"; do
	psql -X -q "$s dbname=postgres" -c "DROP DATABASE IF EXISTS edges_bench"
done
