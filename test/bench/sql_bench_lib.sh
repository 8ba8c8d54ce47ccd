# sql_bench_lib.sh: shared by the SQL benchmarks.  Sourced, not run.  Bash;
# expects `set -euo pipefail` in the caller.
#
# Two ways to get a server:
#   - one throwaway cluster of the system's install (pg_virtualenv -t):
#     bench_setup_outside (agg_bench.sh, batch_bench.sh, ...);
#   - several clusters of PG_CONFIG's install talking to each other over
#     loopback (fdw_bench.sh, autojoin_bench.sh, autojoin_newcomer_bench.sh):
#     bench_clusters_init and bench_cluster_start, below.  These run
#     anywhere PG_CONFIG points, the Debian chroots of test/chroot.sh
#     included (`bash test/chroot.sh bench SUITE [DIR] SCRIPT [ARGS]`).
# Either way, the timed part is bench_timed and bench_run.
#
# With pg_virtualenv, a benchmark script calls, in order:
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

# Clusters on loopback ------------------------------------------------------
#
#   bench_clusters_init TAG        bindir (from PG_CONFIG), a work directory
#                                  /tmp/bloomfilter-TAG.XXXXXX for the data
#                                  directories and sockets, and a trap that
#                                  stops the servers and removes it on exit
#                                  (BENCH_KEEP=1 leaves them running, to
#                                  look at, and says how to reach them)
#   bench_cluster_start NAME [CONF...]
#                                  initdb and start cluster NAME on the next
#                                  free port (bench_port[NAME]): trust on
#                                  127.0.0.1 and the work directory's socket,
#                                  fsync off, shared_buffers 256MB, then the
#                                  postgresql.conf lines CONF
#   psql_at PORT [ARGS]            psql as postgres on that cluster, stopping
#                                  at the first error
#   bench_header                   prints the server's version, the machine
#                                  and its load, and the source's commit
#
# As root the servers run as postgres.  Ports start at a random one in
# 50000-59999 (BENCH_BASE_PORT to choose), skipping any in use.

declare -A bench_port=()
bench_clusters=()

bench_clusters_init() {
	PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
	bindir=$("$PG_CONFIG" --bindir)
	as_pg=()
	if [ "$(id -u)" = 0 ]; then as_pg=(runuser -u postgres --); fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-$1.XXXXXX")
	chmod 755 "$work"
	if [ ${#as_pg[@]} -gt 0 ]; then chown postgres "$work"; fi
	bench_next_port=${BENCH_BASE_PORT:-$((50000 + RANDOM % 10000))}
	trap bench_clusters_cleanup EXIT
}

bench_clusters_cleanup() {
	local c
	if [ -n "${BENCH_KEEP:-}" ]; then
		echo "BENCH_KEEP: clusters left running in $work:" >&2
		for c in "${bench_clusters[@]}"; do
			echo "  $c: $bindir/psql -h $work -p ${bench_port[$c]} -U postgres postgres" >&2
		done
		echo "  stop: for d in $work/*/; do ${as_pg[*]} $bindir/pg_ctl -D "'$d'" -m immediate stop; done" >&2
		return
	fi
	for c in "${bench_clusters[@]}"; do
		"${as_pg[@]}" "$bindir/pg_ctl" -D "$work/$c" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}

# whether something listens on 127.0.0.1:PORT (ss where it exists, as on the
# host; else a connection attempt, as in a minimal chroot without iproute2)
bench_port_in_use() {
	if command -v ss >/dev/null; then
		ss -Htln "( sport = :$1 )" | grep -q .
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

bench_cluster_start() {
	local name=$1 p line
	shift
	p=$bench_next_port
	while bench_port_in_use "$p" || [ -e "$work/.s.PGSQL.$p" ]; do
		p=$((p + 1))
	done
	bench_next_port=$((p + 1))
	bench_port[$name]=$p
	bench_clusters+=("$name")
	"${as_pg[@]}" "$bindir/initdb" -D "$work/$name" -A trust -N -U postgres >/dev/null
	{
		echo "port = $p"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$work'"
		echo "fsync = off"
		echo "shared_buffers = 256MB"
		for line in "$@"; do echo "$line"; done
	} >>"$work/$name/postgresql.conf"
	"${as_pg[@]}" "$bindir/pg_ctl" -D "$work/$name" -l "$work/$name.log" -w start >/dev/null
}

psql_at() {
	local port=$1
	shift
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p "$port" -U postgres -d postgres "$@"
}

# The source's commit: BENCH_SOURCE when set (test/chroot.sh sets it: its
# copy of the checkout has no .git), else git's.
bench_header() {
	local src=${BENCH_SOURCE:-}
	if [ -z "$src" ]; then
		src=$(git -C "$bench_root" rev-parse --short HEAD 2>/dev/null || echo '?')
		if git -C "$bench_root" status --porcelain -- src sql Makefile 2>/dev/null | grep -q .; then
			src+=" + uncommitted changes in src/, sql/ or Makefile"
		fi
	fi
	echo "== $("$bindir/postgres" --version); $(nproc) CPUs ($(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')); load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "== source: $src"
}

# psql on the throwaway cluster, stopping at the first error.  The
# loopback scripts redefine it (psql_at on the cluster bench_run talks to).
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
