#!/bin/bash
# The update chain of bloomfilter, walked from the scripts in sql/:
#
#   1. every version that has an install script (bloomfilter--V.sql; 1.0)
#      is created and updated step by step (bloomfilter--A--B.sql, in
#      version order) to the control file's default_version; after each
#      step the members of the extension (test/upgrade/members.sql: every
#      function, aggregate, type, operator, operator class and family with
#      its members, cast and access method, with its comment; names, not
#      OIDs) must equal the reference listing of that version,
#      test/upgrade/bloomfilter--V.members;
#   2. a fresh CREATE EXTENSION (the default version) must have exactly the
#      members of every updated database;
#   3. the whole pg_regress suite (the Makefile's REGRESS) runs on the
#      database that was created at the oldest version and updated, with
#      --use-existing instead of --load-extension.
#
# The references are written once per version, like pg_regress's expected
# files: a change to an update script changes the default version's listing
# and its diff is reviewed.  `--accept` writes the default version's
# listing (and a missing one); the listings of released versions never
# change.  Every difference is printed; the exit status is 1.
#
# Usage: [PG_CONFIG=...] bash test/upgrade_chain.sh [--accept] [--no-regress]
# against a running server (PGHOST, PGPORT, PGUSER as for psql; a
# superuser), after make install.  CI: pg_virtualenv -t on 15 (run-all.sh),
# inside the chroots' server on 17 and 18 (chroot.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
accept=""
regress=1
for a in "$@"; do
	case $a in
	--accept) accept=1 ;;
	--no-regress) regress="" ;;
	*) echo "usage: bash test/upgrade_chain.sh [--accept] [--no-regress]" >&2; exit 2 ;;
	esac
done

ext=bloomfilter
refdir=test/upgrade
work=$(mktemp -d)
dbs=()
cleanup() {
	for d in "${dbs[@]}"; do
		"$bindir/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

psql_db() {
	local db=$1
	shift
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

# a database as pg_regress makes its own (its per-database settings too),
# so that the suite can run in it with --use-existing
new_db() {
	local db=$1
	psql_db postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db TEMPLATE template0" >/dev/null
	dbs+=("$db")
	psql_db postgres >/dev/null <<-EOF
		ALTER DATABASE $db SET lc_messages TO 'C';
		ALTER DATABASE $db SET lc_monetary TO 'C';
		ALTER DATABASE $db SET lc_numeric TO 'C';
		ALTER DATABASE $db SET lc_time TO 'C';
		ALTER DATABASE $db SET bytea_output TO 'hex';
		ALTER DATABASE $db SET timezone_abbreviations TO 'Default';
	EOF
}

listing() {
	psql_db "$1" -A -t -f "$refdir/members.sql" >"$2"
	if grep -q '^UNHANDLED' "$2"; then
		grep '^UNHANDLED' "$2" >&2
		echo "upgrade_chain: members of a catalog test/upgrade/members.sql does not render (above)" >&2
		return 1
	fi
}

# versions from the file names: install scripts and update steps
default=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $ext.control)
bases=$(ls sql/ | sed -n "s/^$ext--\([^-]*\)\.sql$/\1/p" | sort -V)
steps=$(ls sql/ | sed -n "s/^$ext--\([^-]*\)--\([^-]*\)\.sql$/\1 \2/p" | sort -V)
[ -n "$default" ] && [ -n "$bases" ] || { echo "upgrade_chain: no default_version or no install script" >&2; exit 1; }
failed=0
fail() {
	echo "upgrade_chain: FAILED: $*"
	failed=1
}

# the server must offer exactly these versions (make install of this tree)
offered=$(psql_db postgres -A -t -c "SELECT version FROM pg_available_extension_versions WHERE name = '$ext'" | sort -V)
expected=$( (echo "$bases"; echo "$steps" | tr ' ' '\n') | sed '/^$/d' | sort -uV)
if [ "$offered" != "$expected" ]; then
	fail "the server offers versions [$(echo $offered)], sql/ has [$(echo $expected)] (make install? DATA in the Makefile?)"
	exit 1
fi

# compare LISTING with the reference of VERSION (writes it with --accept)
check_reference() {
	local version=$1 list=$2 ref=$refdir/$ext--$1.members
	if [ -n "$accept" ] && { [ "$version" = "$default" ] || [ ! -f "$ref" ]; }; then
		cp "$list" "$ref"
		echo "upgrade_chain: wrote $ref ($(grep -vc '^ ' "$ref") objects)"
		return 0
	fi
	if [ ! -f "$ref" ]; then
		fail "no reference listing $ref (bash test/upgrade_chain.sh --accept writes it; review it)"
		return 0
	fi
	if ! diff -u -F "^[^ ]" "$ref" "$list" >"$work/diff"; then
		cat "$work/diff"
		fail "$ext $version's members differ from $ref (above: - the reference, + this database)"
	fi
}

# the fresh install of the default version
new_db upgrade_chain_fresh
psql_db upgrade_chain_fresh -c "CREATE EXTENSION $ext" >/dev/null
listing upgrade_chain_fresh "$work/fresh"
members=$(psql_db upgrade_chain_fresh -A -t -c "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = '$ext'")
echo "upgrade_chain: a fresh CREATE EXTENSION $ext ($default) has $members members; listed: $(grep -vc '^ ' "$work/fresh") objects (the members but implicit array types, which appear under their element type, and the extension)"
check_reference "$default" "$work/fresh"

# each install script's version, updated one step at a time
n=0
regress_db=""
for base in $bases; do
	n=$((n + 1))
	db=upgrade_chain_$n
	new_db $db
	psql_db $db -c "CREATE EXTENSION $ext VERSION '$base'" >/dev/null
	listing $db "$work/$db"
	check_reference "$base" "$work/$db"
	path=$base
	v=$base
	while [ "$v" != "$default" ]; do
		# the next step: the update script from v with the lowest target
		next=$(echo "$steps" | awk -v v="$v" '$1 == v { print $2 }' | sort -V | head -1)
		[ -n "$next" ] || { fail "no update script from $v (sql/$ext--$v--*.sql) on the way to $default"; break; }
		psql_db $db -c "ALTER EXTENSION $ext UPDATE TO '$next'" >/dev/null
		got=$(psql_db $db -A -t -c "SELECT extversion FROM pg_extension WHERE extname = '$ext'")
		[ "$got" = "$next" ] || fail "after UPDATE TO '$next' the extension is at $got"
		v=$next
		path+=" -> $v"
		listing $db "$work/$db"
		check_reference "$v" "$work/$db"
	done
	if diff -u -F "^[^ ]" "$work/fresh" "$work/$db" >"$work/diff"; then
		echo "upgrade_chain: $path: every member as a fresh CREATE EXTENSION makes it"
	else
		cat "$work/diff"
		fail "$path differs from a fresh CREATE EXTENSION (above: - fresh, + updated)"
	fi
	[ -n "$regress_db" ] || regress_db=$db
done

# the whole suite on the database created at the oldest version and updated
if [ -n "$regress" ] && [ -n "$regress_db" ]; then
	# in the tree, as make installcheck: the files write results/ (\copy)
	echo "upgrade_chain: pg_regress (the whole suite) on $regress_db (created at $(echo "$bases" | head -1), updated to $default)"
	if make -s installcheck PG_CONFIG="$PG_CONFIG" \
		REGRESS_OPTS="--use-existing --dbname=$regress_db"; then
		:
	else
		[ -f regression.diffs ] && cat regression.diffs
		fail "pg_regress on the updated database"
	fi
fi

if [ "$failed" = 0 ]; then
	echo "upgrade_chain: ok"
fi
exit $failed
