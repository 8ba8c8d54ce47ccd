#!/bin/bash
# Runs the pg_regress suite against a throwaway PostgreSQL 15 server that
# runs under valgrind memcheck, then fails if valgrind reported any error
# that test/valgrind.supp does not suppress.
#
# Usage (as root, on Debian 12 with postgresql-15 and valgrind installed,
# after `make && make install`):
#
#   make installcheck-valgrind                      # the whole REGRESS list
#   make installcheck-valgrind REGRESS="bloom_io"   # a subset
#   bash test/valgrind.sh [test ...]                # same, called directly
#   bash test/valgrind.sh --scan DIR                # rescan a kept run's logs
#
# Environment (all optional):
#   REGRESS            tests to run (default: REGRESS from the Makefile)
#   VG_TRACK_ORIGINS   yes|no   --track-origins (default no: yes makes the
#                      run up to 2-3 times slower, but an "uninitialised
#                      value" report then says where the value came from;
#                      use it to rerun the test that reported one)
#   VG_START_TIMEOUT   seconds to wait for the server to accept connections
#                      (default 600)
#   VG_KEEP            1: keep the temp dir (logs, results) even when clean
#   VG_EXTRA_OPTS      more valgrind options
#   VG_SUPPRESSIONS    suppressions file (default test/valgrind.supp)
#   VG_SERVER_CONF     more postgresql.conf lines, e.g. 'wal_buffers = 64kB'
#   VG_ERROR_EXITCODE  exit code of a process with errors (default 1; see below)
#
# Exit status: 0 clean; 1 valgrind errors; 2 no valgrind errors, but
# pg_regress failed (output diffs, printed); 3 setup failure.  (Through
# make, any failure exits 2; make's "Error N" line gives the script's code.)
#
# What memcheck can and cannot see here.  Debian's PostgreSQL is not built
# with USE_VALGRIND, so the memory-context allocator (palloc) is opaque to
# valgrind: a context's blocks are malloc'd, and the chunks carved out of
# them are not marked individually.  So an overrun of a palloc'd chunk into
# the next chunk of the same block, a read of a pfree'd chunk, or a read of
# never-written palloc'd bytes that were previously written by someone else
# are NOT reported.  What is reported: reads and writes outside any malloc'd
# block (running off the end of a context block, or off a chunk of more than
# 8 kB, which gets a malloc'd block of its own: so an overrun of a large
# filter by more than its MAXALIGN padding is seen), use of values derived
# from never-written memory (uninitialised bytes reaching a conditional jump,
# a syscall such as write(), or a pointer: a fresh context block is
# undefined, a recycled chunk is not), invalid free()s, overlapping memcpy,
# and errors in memory malloc'd outside palloc (libc's own, say).  Shared
# memory (shared buffers, WAL buffers) is tracked per process: a process
# sees the definedness of only what it wrote there itself.
# Leaks are not checked (--leak-check=no): memory contexts are freed
# wholesale, and process exit takes the rest.
set -uo pipefail

# The whole script is one { } block, read before it runs: editing this file
# during a run (it takes a while) cannot change the run.
{

cd "$(dirname "$0")/.."
top=$(pwd)

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
pkglibdir=$("$PG_CONFIG" --pkglibdir)
pgxs=$("$PG_CONFIG" --pgxs)
pg_regress="$(dirname "$pgxs")/../test/regress/pg_regress"

die() { echo "valgrind.sh: $*" >&2; exit 3; }

# ---- scan the valgrind logs ----
# Every error is between VALGRINDERROR-BEGIN and -END (with the suppression
# that would silence it); those with a bloomfilter.so frame come first.
scan_logs() {
	local dir=$1
	perl - "$dir"/vg.*.log "$dir/server.log" <<'PERL'

use strict;
use warnings;
# a frame in the extension: its .so, or (with its debug info) one of its files
my $ext = qr/bloomfilter\.so|\((?:bf_\w+|bloomfilter|xxhash)\.[ch]:\d+\)/;
my $server_log = pop @ARGV;
my (@ours, @theirs, %where, @bad, %used);
for my $f (@ARGV) {
	open my $fh, '<', $f or die "$f: $!";
	my ($in, $supp, $done, @b);
	while (<$fh>) {
		# -s: which suppressions matched, how often
		$used{$2} += $1 if /used_suppression:\s+(\d+) (\S+)/;
		# -s repeats the errors after the first summary: count them once
		if (/ERROR SUMMARY/) {
			push @bad, "$f: $_" if !$done && /ERROR SUMMARY: [1-9]/;
			$done = 1;
			next;
		}
		next if $done;
		# the suppression valgrind generates comes right after the error
		if ($supp) {
			$$supp .= $_;
			undef $supp if /^\}/ || /^==\d+==/;
			next;
		}
		if (/VALGRINDERROR-BEGIN/) { $in = 1; @b = ("--- $f"); next }
		if (/VALGRINDERROR-END/) {
			$in = 0;
			my $text = join("\n", @b) . "\n";
			my ($kind) = grep { !/^---/ && /\S/ } @b;
			# the first frame in PostgreSQL or the extension, not libc
			my @frames = grep { /^\s*(at|by) 0x/ } @b;
			my ($at) = grep { /$ext/ } @frames;
			($at) = grep { /\(in \S*postgres\)/ && !/: \?\?\? / } @frames unless $at;
			$at //= $frames[0];
			$at //= '?';
			$at =~ s/^\s*(at|by) 0x[0-9A-F]+: //;
			$where{"$kind | $at"}++;
			my $list = $text =~ $ext ? \@ours : \@theirs;
			push @$list, $text;
			$supp = \$list->[-1];
			next;
		}
		if ($in) { s/^==\d+== //; chomp; push @b, $_ }
		push @bad, "$f: $_" if /Process terminating/;
	}
}
if (open my $fh, '<', $server_log) {
	while (<$fh>) { push @bad, "server.log: $_" if /terminated by signal|exited with exit code (?!1\b)/ }
}
if (%used) {
	print "== suppressed (test/valgrind.supp):";
	print " $_ $used{$_}x" for sort keys %used;
	print "\n";
}
my $n = @ours + @theirs;
if ($n == 0 && !@bad) { print "== no valgrind errors\n"; exit 0 }
print "\n== VALGRIND ERRORS: $n (", scalar(@ours), " with bloomfilter.so frames)\n";
if (@ours) { print "\n== errors with bloomfilter.so frames:\n", join("\n", @ours) }
if (@theirs) { print "\n== other errors:\n", join("\n", @theirs) }
print "\n== where (reports, kind | first named PostgreSQL or extension frame):\n";
printf "%5d  %s\n", $where{$_}, $_ for sort { $where{$b} <=> $where{$a} } keys %where;
print "\n== processes with errors / abnormal exits:\n", @bad if @bad;
print "\n== for where uninitialised values come from, rerun the test with VG_TRACK_ORIGINS=yes\n"
	if grep({ /uninitialised/ } @ours, @theirs) && !grep({ /was created by/ } @ours, @theirs);
exit 1;
PERL
}

# bash test/valgrind.sh --scan DIR: only scan the logs a run kept in DIR
if [ "${1:-}" = --scan ]; then
	scan_logs "$2"
	exit $?
fi

[ "$(id -u)" = 0 ] || die "run as root (the server runs as user postgres)"
id postgres >/dev/null 2>&1 || die "user postgres does not exist"
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
[ -x "$bindir/postgres" ] || die "no postgres in $bindir"
[ -x "$pg_regress" ] || die "no pg_regress at $pg_regress (apt-get install postgresql-server-dev-15)"
[ -f "$pkglibdir/bloomfilter.so" ] || die "bloomfilter is not installed: make && make install"
if [ -f bloomfilter.so ] && ! cmp -s bloomfilter.so "$pkglibdir/bloomfilter.so"; then
	echo "valgrind.sh: warning: $pkglibdir/bloomfilter.so differs from ./bloomfilter.so; testing the installed one (make install?)" >&2
fi

# The tests: arguments, else $REGRESS, else the Makefile's REGRESS.
if [ $# -gt 0 ]; then
	tests="$*"
elif [ -n "${REGRESS:-}" ]; then
	tests=$REGRESS
else
	tests=$(make -s --no-print-directory --eval='vg-print-regress: ; @echo $(REGRESS)' vg-print-regress) ||
		die "cannot read REGRESS from the Makefile"
fi
# A test listed without its sql/ file (someone is adding it) is skipped and
# makes the run count as a pg_regress failure, not a setup failure.
regress_failed=0
present=""
for t in $tests; do
	if [ -f "sql/$t.sql" ]; then
		present="$present $t"
	else
		echo "valgrind.sh: warning: no sql/$t.sql; skipping $t" >&2
		regress_failed=1
	fi
done
tests=${present# }
[ -n "$tests" ] || die "no tests to run"

tmp=$(mktemp -d /tmp/bloomfilter-valgrind.XXXXXX) || die "mktemp failed"
chmod 755 "$tmp"
chown postgres: "$tmp"
data=$tmp/data
out=$tmp/out
mkdir "$out"
# valgrind runs as postgres: give it its own copy of the suppressions
cp "${VG_SUPPRESSIONS:-test/valgrind.supp}" "$tmp/valgrind.supp"
chmod 644 "$tmp/valgrind.supp"

as_pg() { runuser -u postgres -- "$@"; }

# The server listens only on a unix socket in $tmp, so almost any port
# number will do; avoid one that a local server uses (its socket exists),
# as the port also seeds the shared-memory key.
port=""
for _ in $(seq 1 50); do
	p=$((20000 + RANDOM % 40000))
	if ! ls /tmp/.s.PGSQL.$p /var/run/postgresql/.s.PGSQL.$p >/dev/null 2>&1; then
		port=$p
		break
	fi
done
[ -n "$port" ] || die "no free port"

server_pid=""
stop_server() {
	[ -f "$data/postmaster.pid" ] || return 0
	echo "== stopping the server (valgrind makes this slow)"
	as_pg "$bindir/pg_ctl" stop -D "$data" -m fast -t 900 >/dev/null ||
		as_pg "$bindir/pg_ctl" stop -D "$data" -m immediate -t 300 >/dev/null
}
cleanup() {
	stop_server
}
trap cleanup EXIT
trap 'exit 3' INT TERM

echo "== temp dir $tmp, port $port"
echo "== tests: $tests"

as_pg "$bindir/initdb" -D "$data" -U postgres -A trust --no-sync -E UTF8 --locale=C \
	>"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log"; die "initdb failed"; }

# jit=off: LLVM-generated code under valgrind is slow and noisy, and the
# extension's code is not JIT-compiled anyway.  Parallel query stays on, so
# the aggregates' serial/deserial/combine functions run in workers.
cat >>"$data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$tmp'
port = $port
jit = off
fsync = off
huge_pages = off
logging_collector = off
log_line_prefix = '%m [%p] '
${VG_SERVER_CONF:-}
EOF

vg_opts=(
	--tool=memcheck
	--trace-children=yes
	--error-exitcode="${VG_ERROR_EXITCODE:-1}"
	--leak-check=no
	--track-origins="${VG_TRACK_ORIGINS:-no}"
	--num-callers=40
	--error-limit=no
	--read-var-info=no
	--gen-suppressions=all
	--error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END
	--log-file="$tmp/vg.%p.log"
	--suppressions="$tmp/valgrind.supp"
	--show-error-list=yes
)
# shellcheck disable=SC2206
vg_opts+=(${VG_EXTRA_OPTS:-})

# --error-exitcode=1: a process with valgrind errors exits with 1, which the
# postmaster takes for an ordinary FATAL exit.  Any other code (128, say) is
# a crash to it: it would reset every session, so the first error would
# break the rest of the run and hide later errors.  The errors are found by
# scanning the logs below, not by exit codes.
echo "== starting postgres under valgrind: valgrind ${vg_opts[*]} postgres -D $data"
start=$(date +%s)
as_pg valgrind "${vg_opts[@]}" "$bindir/postgres" -D "$data" >"$tmp/server.log" 2>&1 &
server_pid=$!
timeout=${VG_START_TIMEOUT:-600}
until "$bindir/pg_isready" -q -h "$tmp" -p "$port" -U postgres; do
	if ! kill -0 "$server_pid" 2>/dev/null; then
		cat "$tmp/server.log"
		scan_logs "$tmp"
		die "the server exited during startup (logs in $tmp)"
	fi
	if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
		cat "$tmp/server.log"
		die "the server did not accept connections within ${timeout}s"
	fi
	sleep 2
done
echo "== server up after $(($(date +%s) - start))s"

# One pg_regress run, as `make installcheck` does it (its own output gives
# each test's time); results and diffs go to $out, not the source tree.
echo "== running pg_regress"
# bloom_io and bloom_errors \copy files to and from results/ beside the
# sql/ files (psql runs here); make installcheck creates it there too
mkdir -p results
"$pg_regress" --inputdir="$top" --outputdir="$out" --bindir="$bindir" \
	--host="$tmp" --port="$port" --user=postgres \
	--dbname=contrib_regression --load-extension=bloomfilter \
	$tests 2>&1 | tee "$out/pg_regress.log"
[ "${PIPESTATUS[0]}" = 0 ] || regress_failed=1
total=$(($(date +%s) - start))

stop_server
trap - EXIT
echo "== total ${total}s (server start to last test)"

shopt -s nullglob
logs=("$tmp"/vg.*.log)
echo "== ${#logs[@]} valgrind logs in $tmp"
status=0
scan_logs "$tmp" || status=1

if [ $regress_failed = 1 ]; then
	echo "== pg_regress FAILED (a missing test, or output diffs: not a valgrind finding)"
	[ -f "$out/regression.diffs" ] && head -n 300 "$out/regression.diffs"
	[ $status = 0 ] && status=2
fi

if [ $status = 0 ] && [ "${VG_KEEP:-0}" != 1 ]; then
	rm -rf "$tmp"
	echo "== valgrind: clean"
else
	echo "== logs kept in $tmp (server.log, vg.<pid>.log, out/: results, regression.diffs, pg_regress.log)"
	[ $status = 0 ] && echo "== valgrind: clean"
fi
exit $status
}
