# sql_bench_lib.sh: shared by the SQL benchmarks (probe_bench.sh, agg_bench.sh).
# Sourced, not run.  Bash; expects `set -euo pipefail` in the caller.
#
# A benchmark script calls, in order:
#   bench_setup_outside "$@"   (outside the cluster: machine, build, re-exec
#                               inside `pg_virtualenv -t`; returns only inside)
#   psql_run <<'SQL' ... SQL  (setup, on the throwaway cluster)
#   bench_timed NAME 'SQL'     (once per variant: NAME and its query)
#   bench_run REPS PRELUDE     (interleaved, timed runs into bench_result)
# and then prints its report with psql_run.
#
# Timing: each query runs in one long-lived psql session, bracketed by
# clock_timestamp() on the server (execution plus one client round trip,
# well under 1 ms here) and by the backend's own on-CPU time, read from
# /proc/self/schedstat (Linux; NULL elsewhere).  On a shared, oversubscribed
# machine the wall clock also counts the time the backend waited for a
# CPU; its CPU time does not, so it is the steadier measure of the work a
# query does (a parallel query's workers are not in it, only the leader).
# Both go into bench_result(variant, rep, ms, cpu_ms, result).  Variants
# are interleaved and the order rotates every repetition, so slow phases of
# the machine spread over all variants; reports use the best (minimum) and
# the median.

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Prints the machine, builds and installs the extension, and re-runs the
# calling script inside a throwaway cluster (pg_virtualenv -t).  Extra
# server settings come from the caller's BENCH_SERVER_OPTS array.
bench_setup_outside() {
	if [[ -n "${BF_BENCH_INSIDE:-}" ]]; then
		cd "$bench_root"
		return 0
	fi
	local self
	self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
	cd "$bench_root"
	echo "== machine"
	echo "nproc:  $(nproc)"
	echo "cpu:    $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')"
	echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
	echo "kernel: $(uname -sr)"
	echo "load:   $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "server: $(pg_config --version)"
	if git -C "$bench_root" rev-parse --git-dir >/dev/null 2>&1; then
		echo "source: $(git -C "$bench_root" rev-parse --short HEAD)$(git -C "$bench_root" status --porcelain -- src sql Makefile | grep -q . && echo ' + uncommitted changes in src/, sql/ or Makefile')"
	fi
	echo
	echo "== build and install"
	make -s
	make -s install
	echo
	local opts=()
	for o in "${BENCH_SERVER_OPTS[@]}"; do
		opts+=(-o "$o")
	done
	echo "== throwaway cluster: pg_virtualenv -t ${opts[*]}"
	BF_BENCH_INSIDE=1 exec pg_virtualenv -t "${opts[@]}" bash "$self" "$@"
}

# psql on the throwaway cluster, stopping at the first error.
psql_run() {
	psql -X -q -v ON_ERROR_STOP=1 "$@"
}

bench_names=()
bench_queries=()

# bench_timed NAME QUERY: registers a timed variant.  QUERY returns one row
# with one column named "res" (kept in bench_result.result, to check the
# answers).  It may use psql variables (:'var') set by the session prelude.
bench_timed() {
	bench_names+=("$1")
	bench_queries+=("$2")
}

# bench_run REPS PRELUDE: runs one warm-up of every variant, then REPS
# interleaved repetitions, in one psql session that first runs PRELUDE
# (session settings, \gset variables, PREPAREs).
bench_run() {
	local reps=$1 prelude=$2
	local n=${#bench_names[@]}
	local script r i j
	script=$(mktemp)
	{
		echo '\set ON_ERROR_STOP 1'
		echo "$prelude"
		echo "CREATE TABLE IF NOT EXISTS bench_result (variant text, rep int, ms float8, cpu_ms float8, result text);"
		# the backend's on-CPU nanoseconds, or NULL where /proc/self/schedstat is missing
		echo "CREATE FUNCTION pg_temp.bench_cpu_ns() RETURNS bigint LANGUAGE plpgsql AS \$\$
BEGIN
	RETURN split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END \$\$;"
		for ((r = 0; r <= reps; r++)); do
			for ((j = 0; j < n; j++)); do
				i=$(((j + r) % n))
				echo "SELECT clock_timestamp() AS bench_t0, coalesce(pg_temp.bench_cpu_ns()::text, '') AS bench_c0 \\gset"
				echo "${bench_queries[$i]} \\gset bench_r_"
				if ((r > 0)); then
					echo "INSERT INTO bench_result VALUES ('${bench_names[$i]}', $r, extract(epoch FROM clock_timestamp() - :'bench_t0'::timestamptz) * 1000, (pg_temp.bench_cpu_ns() - NULLIF(:'bench_c0', '')::bigint) / 1e6, :'bench_r_res');"
				fi
			done
			if ((r == 0)); then
				echo "\\echo '   warm-up done'"
			else
				echo "\\echo '   repetition $r of $reps done'"
			fi
		done
	} >"$script"
	psql_run -f "$script"
	rm -f "$script"
}
