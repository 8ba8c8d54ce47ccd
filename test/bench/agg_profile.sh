#!/bin/bash
# agg_profile.sh: where the time of a parallel bloom_agg(id) goes, as a
# timeline of the leader, the workers and the idle CPUs.
#
#   bash test/bench/agg_profile.sh
#
# Environment (optional): BENCH_ROWS (5000000), BENCH_WORKERS (2),
# PROFILE_BIN_MS (25), PROFILE_AGG ('bloom_agg(id)').
#
# Needs perf (Debian: linux-perf) and a kernel that lets root sample every
# CPU (perf record -a; the cpu-clock software event, so it works in VMs
# without hardware counters).  Builds and installs the extension, starts a
# throwaway cluster (pg_virtualenv -t), creates u(id) with BENCH_ROWS
# distinct ids in random order, prewarmed, and runs the aggregate three
# times in a parallel plan under perf.  For the last run it prints, per
# time bin, the number of samples of the leader (the backend that runs the
# final function), of the workers, and of idle CPUs, each with its two
# busiest functions; then the leader's and the workers' busiest functions
# over the whole run.  With 2 vCPUs a bin of 25 ms holds about 200 samples.
# The README's Performance section reads this timeline.
set -euo pipefail

BENCH_SERVER_OPTS=(shared_buffers=1GB max_worker_processes=8 max_parallel_workers=8)
# shellcheck source=test/bench/sql_bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/sql_bench_lib.sh"
if ! command -v perf >/dev/null; then
	echo "agg_profile.sh: needs perf (apt-get install linux-perf)" >&2
	exit 1
fi
bench_setup_outside "$@"

rows=${BENCH_ROWS:-5000000}
workers=${BENCH_WORKERS:-2}
bin_ms=${PROFILE_BIN_MS:-25}
agg=${PROFILE_AGG:-bloom_agg(id)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== setup: u($rows distinct ids)"
psql_run -v rows="$rows" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
CREATE TABLE u (id bigint);
INSERT INTO u SELECT g FROM generate_series(1, :rows) g ORDER BY random();
VACUUM (FREEZE, ANALYZE) u;
SELECT pg_prewarm('u') AS pages_prewarmed;
SQL

cat >"$tmp/q.sql" <<SQL
SET jit = off;
SET max_parallel_workers_per_gather = $workers;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\o $tmp/leader
SELECT pg_backend_pid();
\o
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT $agg IS NOT NULL FROM u;
SELECT $agg IS NOT NULL FROM u;
SELECT pg_sleep(0.3);
SELECT $agg IS NOT NULL FROM u;
SQL

echo "== perf record -a -e cpu-clock: 3 runs of SELECT $agg over u, $workers workers"
perf record -q -a -e cpu-clock -F 4000 -o "$tmp/perf.data" -- psql -X -q -f "$tmp/q.sql" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; exit 1; }
grep -i "workers launched" "$tmp/out" | sed 's/^ */   /'
leader=$(grep -Eo '[0-9]+' "$tmp/leader" | head -n 1)
echo "   leader (backend) pid: $leader"
echo

# one line per sample: pid, time, symbol ("[unknown]" where perf has none)
perf script -i "$tmp/perf.data" -F pid,time,ip,sym 2>/dev/null |
	awk '/^ *[0-9]+ +[0-9.]+:/ { printf "%s %.6f %s\n", $1, $2 + 0, ($4 == "" ? "?" : $4) }' >"$tmp/samples"

# the last run: from the leader's last sample back to the first after the
# 300 ms pg_sleep before it
awk -v leader="$leader" -v bin_ms="$bin_ms" '
	function top2(role, b,    k, n, best1, best2, c1, c2, name) {
		c1 = c2 = 0; best1 = best2 = ""
		for (k in cnt) {
			split(k, parts, SUBSEP)
			if (parts[1] != b || parts[2] != role) continue
			n = cnt[k]; name = parts[3]
			if (n > c1) { c2 = c1; best2 = best1; c1 = n; best1 = name }
			else if (n > c2) { c2 = n; best2 = name }
		}
		return c1 == 0 ? "" : best1 "(" c1 ")" (c2 ? " " best2 "(" c2 ")" : "")
	}
	{ pid[NR] = $1; t[NR] = $2; sym[NR] = $3; if ($1 == leader) last_leader = NR }
	END {
		end = last_leader; start = end
		for (i = end; i >= 1; i--) {
			if (pid[i] != leader) continue
			if (t[start] - t[i] > 0.2) break
			start = i
		}
		t0 = t[start]
		for (i = 1; i <= NR; i++) {
			if (t[i] < t0 || t[i] > t[end]) continue
			# "workers": every other process (psql and the daemons add only
			# a few samples to those of the parallel workers)
			role = pid[i] == leader ? "leader" : (pid[i] == 0 ? "idle" : "workers")
			b = int((t[i] - t0) * 1000 / bin_ms)
			if (b > maxb) maxb = b
			tot[b, role]++
			cnt[b, role, sym[i]]++
			all[role, sym[i]]++
			alltot[role]++
		}
		printf "== timeline of the last run (%.0f ms), %d ms bins: samples and busiest functions\n",
			(t[end] - t0) * 1000, bin_ms
		printf "%6s | %-44s | %-44s | %s\n", "ms", "leader", "workers", "idle"
		for (b = 0; b <= maxb; b++)
			printf "%6d | %3d %-40s | %3d %-40s | %3d\n", b * bin_ms,
				tot[b, "leader"], substr(top2("leader", b), 1, 40),
				tot[b, "workers"], substr(top2("workers", b), 1, 40), tot[b, "idle"]
		for (r = 1; r <= 2; r++) {
			role = r == 1 ? "leader" : "workers"
			printf "\n== %s: busiest functions over the last run (%d samples)\n", role, alltot[role]
			n = 0
			for (k in all) {
				split(k, parts, SUBSEP)
				if (parts[1] == role) line[++n] = sprintf("%6d %5.1f%%  %s", all[k], 100 * all[k] / alltot[role], parts[2])
			}
			# print the 12 largest
			for (j = 1; j <= 12 && j <= n; j++) {
				best = 0
				for (m = 1; m <= n; m++) if (line[m] != "" && (best == 0 || line[m] + 0 > line[best] + 0)) best = m
				print line[best]; line[best] = ""
			}
		}
	}' "$tmp/samples"
