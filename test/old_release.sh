#!/bin/bash
# Old SQL, new library: what pg_upgrade leaves behind.  pg_upgrade keeps
# the extension's SQL objects of the version that was installed and loads
# today's library under them (ALTER EXTENSION ... UPDATE comes later, or
# never).  For each released version R frozen under test/release/R/ (its
# own pg_regress files as of the release: sql/, expected/, schedule.txt;
# copied once, never edited), a database gets CREATE EXTENSION bloomfilter
# VERSION 'R' and R's own suite runs in it against the installed library.
#
# Where R's expected output cannot hold against today's library (a bug
# fixed since, a version now offered), the difference is listed, with its
# reason, in test/release/R.differences: a unified diff against R's
# expected/*.out (prose before each file's diff is the reason; patch skips
# it).  Any other difference fails, and so does a listed one that no
# longer applies.
#
# Usage: [PG_CONFIG=...] bash test/old_release.sh [R...]
# against a running server (PGHOST, PGPORT, PGUSER; a superuser), after
# make install.  Runs every version under test/release/ by default.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)

PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
pg_regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
ext=bloomfilter

versions=("$@")
if [ ${#versions[@]} = 0 ]; then
	for d in test/release/*/; do
		versions+=("$(basename "$d")")
	done
fi

psql_db() {
	local db=$1
	shift
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
failed=0
for r in "${versions[@]}"; do
	src=test/release/$r
	[ -f "$src/schedule.txt" ] || { echo "old_release: no $src/schedule.txt" >&2; exit 2; }
	# a scratch copy: the files write results/ beside sql/ (\copy), and the
	# listed differences are applied to the copy, never to the frozen files
	run=$work/$r
	mkdir -p "$run"
	cp -r "$src/sql" "$src/expected" "$run/"
	if [ -s "test/release/$r.differences" ]; then
		if ! patch -s -p1 -d "$run" --no-backup-if-mismatch <"test/release/$r.differences"; then
			echo "old_release: FAILED: test/release/$r.differences does not apply to $src/expected"
			failed=1
			continue
		fi
		echo "old_release: $r: the differences listed in test/release/$r.differences are expected"
	fi
	# the server's user writes results/ (pg_regress runs as the caller)
	chmod -R a+rwX "$run"

	db=${ext}_${r//./_}_regress
	psql_db postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
		-c "CREATE DATABASE $db TEMPLATE template0" >/dev/null
	# as pg_regress sets up a database it makes itself
	for s in "lc_messages TO 'C'" "lc_monetary TO 'C'" "lc_numeric TO 'C'" "lc_time TO 'C'" \
		"bytea_output TO 'hex'" "timezone_abbreviations TO 'Default'"; do
		psql_db postgres -c "ALTER DATABASE $db SET $s" >/dev/null
	done
	echo "old_release: $r's own pg_regress files ($(wc -w <"$src/schedule.txt") tests) on $ext $r's SQL objects, today's library ($("$bindir/postgres" --version))"
	# one test at a time, each finding the extension at R: a test that
	# updates it (bloom_security walks the version chain) or drops it must
	# not leave the tests after it on another version's objects
	bad=()
	first=1
	: >"$run/all.diffs"
	for t in $(cat "$src/schedule.txt"); do
		v=$(psql_db "$db" -A -t -c "SELECT extversion FROM pg_extension WHERE extname = '$ext'")
		if [ "$v" != "$r" ]; then
			[ -z "$v" ] || psql_db "$db" -c "SET client_min_messages = warning" -c "DROP EXTENSION $ext CASCADE" >/dev/null
			psql_db "$db" -c "CREATE EXTENSION $ext VERSION '$r'" >/dev/null
			[ -n "$first" ] || echo "old_release: the test before $t left the extension ${v:+at }${v:-dropped}; created at $r again"
		fi
		first=""
		if ! (cd "$run" && "$pg_regress" --inputdir=. --outputdir=. --bindir="$bindir" \
			--use-existing --dbname="$db" "$t" >"$run/$t.log" 2>&1); then
			bad+=("$t")
			[ -f "$run/regression.diffs" ] && cat "$run/regression.diffs" >>"$run/all.diffs"
		fi
		grep -h '^\(ok\|not ok\|test\) ' "$run/$t.log" || true
	done
	if [ ${#bad[@]} = 0 ]; then
		echo "old_release: $r: ok"
	else
		cat "$run/all.diffs"
		echo "old_release: FAILED: $r's suite against today's library: ${bad[*]} (above: - $r's expected output, + today's; a difference that cannot hold goes into test/release/$r.differences with its reason)"
		failed=1
	fi
	psql_db postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null || true
done
exit $failed
