#!/bin/bash
# pg_upgrade from PostgreSQL OLD to NEW keeps what bloomfilter stored:
# values of the four types keep their text, byte for byte, and answer as
# before; GiST and bloomslice indexes built by OLD answer every probe as a
# sequential scan does, before and after the update_extensions.sql that
# pg_upgrade writes, and keep answering after NEW writes into them.
#
# Usage (as root, where both majors are installed in Debian's layout,
# /usr/lib/postgresql/NN, with their server-dev packages: test/chroot.sh
# runs it in its chroots: `bash test/chroot.sh test SUITE pg_upgrade`):
#   bash test/pg_upgrade.sh OLD NEW
# Environment: PGU_BUILD, the majors to build and install bloomfilter for
# from this checkout (default "OLD NEW"; the test stage of test/chroot.sh
# has just installed NEW's); PGU_PORT, the old cluster's port (the new one
# takes the next; default: random).
#
# The old cluster has two databases: v10, where CREATE EXTENSION
# bloomfilter VERSION '1.0' ran (so that update_extensions.sql updates
# it), and cur, at the default version.  Both get test/pg_upgrade/setup.sql.
# Each step prints "=== pg_upgrade OLD->NEW: ...: ok" or "...: FAILED" as
# the other CI steps do; the first failure ends the run.  Exit status: 0
# passed, 1 failed, 3 not tested (a line "pg_upgrade OLD->NEW: not tested
# (reason)" says why).
set -uo pipefail

[ $# = 2 ] || { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
old=$1
new=$2
here=$(cd "$(dirname "$0")/.." && pwd)
oldbin=/usr/lib/postgresql/$old/bin
newbin=/usr/lib/postgresql/$new/bin
pair="pg_upgrade $old->$new"
build=${PGU_BUILD-$old $new}
port=${PGU_PORT:-$((20000 + RANDOM % 20000))}
dbs="v10 cur"
start=$(date +%s)

if [ "$(id -u)" != 0 ]; then
	echo "pg_upgrade.sh: must run as root (make install; the clusters run as postgres)" >&2
	exit 2
fi
for b in "$oldbin" "$newbin"; do
	if [ ! -x "$b/pg_ctl" ] || [ ! -x "$b/pg_config" ]; then
		echo "$pair: not tested (no server or no pg_config in $b)"
		exit 3
	fi
done

work=$(mktemp -d /tmp/pg_upgrade.XXXXXX)
chmod 755 "$work"
chown postgres: "$work"
as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
	[ -f "$work/old/postmaster.pid" ] && as_pg "$oldbin/pg_ctl" -D "$work/old" -m immediate stop >/dev/null 2>&1
	[ -f "$work/new/postmaster.pid" ] && as_pg "$newbin/pg_ctl" -D "$work/new" -m immediate stop >/dev/null 2>&1
	if [ -n "${KEEP_FAILED:-}" ] && [ -n "${failed:-}" ]; then
		echo "pg_upgrade.sh: kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

ok() { echo "=== $pair: $1: ok"; }
# fail STEP [FILE...]: the step failed; show what says why, and stop
fail() {
	local step=$1 f
	shift
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "--- $f (last 40 lines)"
		tail -n 40 "$f"
	done
	echo "=== $pair: $step: FAILED"
	failed=1
	exit 1
}

# psql_to DB BIN PORT OUT FILE [psql args]: runs a script, output to OUT
psql_to() {
	local db=$1 bin=$2 p=$3 out=$4 file=$5
	shift 5
	as_pg "$bin/psql" -X -At -q -v ON_ERROR_STOP=1 -h "$work" -p "$p" -U postgres -d "$db" \
		-f "$file" "$@" >"$out" 2>&1
}
sql() {
	local bin=$1 p=$2 db=$3
	shift 3
	as_pg "$bin/psql" -X -At -q -v ON_ERROR_STOP=1 -h "$work" -p "$p" -U postgres -d "$db" "$@"
}

# what every check of indexes.sql must say: each plan used the index and
# gave the sequential scan's rows
index_flags_ok() {
	local f=$1
	[ "$(grep -c ' plain=same bitmap=same used=yes$' "$f")" -gt 0 ] &&
		! grep -v ' plain=same bitmap=same used=yes$' "$f" | grep -q .
}

# check PHASE BIN PORT [grown]: the values and indexes of each database
# against the old cluster's; with grown, sups_grow's index answers are
# compared with their own sequential scans only (the new cluster wrote
# into it)
check() {
	local phase=$1 bin=$2 p=$3 grown=${4:-} db
	for db in $dbs; do
		psql_to "$db" "$bin" "$p" "$work/$phase.$db.values" "$here/test/pg_upgrade/values.sql" ||
			fail "$phase: values ($db)" "$work/$phase.$db.values"
		psql_to "$db" "$bin" "$p" "$work/$phase.$db.indexes" "$here/test/pg_upgrade/indexes.sql" ||
			fail "$phase: indexes ($db)" "$work/$phase.$db.indexes"
		if ! cmp -s "$work/old.$db.values" "$work/$phase.$db.values"; then
			diff "$work/old.$db.values" "$work/$phase.$db.values" | cut -c1-200 | head -n 20
			fail "$phase: every value's text and answers as on $old ($db)"
		fi
		if grep -q 'members=f\|batch=f' "$work/$phase.$db.values"; then
			grep 'members=f\|batch=f' "$work/$phase.$db.values" | cut -c1-200 | head -n 10
			fail "$phase: every value's members probe true ($db)"
		fi
		if ! index_flags_ok "$work/$phase.$db.indexes"; then
			grep -v ' plain=same bitmap=same used=yes$' "$work/$phase.$db.indexes" | head -n 20
			fail "$phase: each index (GiST, bloomslice) answers as a sequential scan ($db)"
		fi
		if [ -n "$grown" ]; then
			grep -v '^sups_grow ' "$work/old.$db.indexes" >"$work/old.$db.indexes.fixed"
			grep -v '^sups_grow ' "$work/$phase.$db.indexes" >"$work/$phase.$db.indexes.fixed"
		else
			cp "$work/old.$db.indexes" "$work/old.$db.indexes.fixed"
			cp "$work/$phase.$db.indexes" "$work/$phase.$db.indexes.fixed"
		fi
		if ! cmp -s "$work/old.$db.indexes.fixed" "$work/$phase.$db.indexes.fixed"; then
			diff "$work/old.$db.indexes.fixed" "$work/$phase.$db.indexes.fixed" | head -n 20
			fail "$phase: each index's answers as on $old ($db)"
		fi
	done
	ok "$phase: values of the 4 types identical, GiST and bloomslice answer as a sequential scan and as on $old ($(grep -c . "$work/old.v10.values") value lines, $(grep -c . "$work/old.v10.indexes") index checks per database)"
}

# grow PHASE ROUND BIN PORT: the new cluster writes into sups_grow; its
# indexes answer as its sequential scan
grow() {
	local phase=$1 round=$2 bin=$3 p=$4 db
	for db in $dbs; do
		psql_to "$db" "$bin" "$p" "$work/$phase.$db.grow" "$here/test/pg_upgrade/grow.sql" -v round="$round" ||
			fail "$phase ($db)" "$work/$phase.$db.grow"
		psql_to "$db" "$bin" "$p" "$work/$phase.$db.indexes" "$here/test/pg_upgrade/indexes.sql" ||
			fail "$phase: indexes ($db)" "$work/$phase.$db.indexes"
		if ! index_flags_ok "$work/$phase.$db.indexes"; then
			grep -v ' plain=same bitmap=same used=yes$' "$work/$phase.$db.indexes" | head -n 20
			fail "$phase: each index answers as a sequential scan ($db)"
		fi
		grep -q '^sups_grow sups_grow_slice .*rows=[1-9]' "$work/$phase.$db.indexes" ||
			fail "$phase: sups_grow's probes find rows ($db)" "$work/$phase.$db.indexes"
	done
	ok "$phase: GiST and bloomslice indexes built on $old answer as a sequential scan after inserts, updates, deletes and VACUUM on $new"
}

# the extension's version in each database, as "db=version ..."
versions() {
	local bin=$1 p=$2 db out=""
	for db in $dbs; do
		out+="$db=$(sql "$bin" "$p" "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'") "
	done
	echo "${out% }"
}

# --- build and install for each major, each from its own copy of the checkout
for v in $build; do
	step="build and install bloomfilter for $v"
	dir=$work/build-$v
	mkdir "$dir"
	(cd "$here" && tar -c --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
		--exclude=results --exclude=tmp_check --exclude=log .) | tar -x -C "$dir"
	chown -R postgres: "$dir"
	if (cd "$dir" && as_pg make -s -j2 WERROR=1 PG_CONFIG="/usr/lib/postgresql/$v/bin/pg_config" &&
		make -s install PG_CONFIG="/usr/lib/postgresql/$v/bin/pg_config") >"$work/build-$v.log" 2>&1; then
		ok "$step"
	else
		fail "$step" "$work/build-$v.log"
	fi
	rm -rf "$dir"
done

# --- the old cluster: store, and record what it answers
initdb_opts=(-U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync)
step="store values and indexes on $old (a database at 1.0, one at the default version)"
as_pg "$oldbin/initdb" -D "$work/old" "${initdb_opts[@]}" >"$work/initdb-old.log" 2>&1 ||
	fail "$step: initdb" "$work/initdb-old.log"
as_pg "$oldbin/pg_ctl" -D "$work/old" -w -l "$work/old.log" \
	-o "-p $port -k $work -c listen_addresses=" start >/dev/null || fail "$step: start" "$work/old.log"
for db in $dbs; do
	sql "$oldbin" "$port" postgres -c "CREATE DATABASE $db" || fail "$step: CREATE DATABASE $db"
done
sql "$oldbin" "$port" v10 -c "CREATE EXTENSION bloomfilter VERSION '1.0'" || fail "$step: CREATE EXTENSION VERSION '1.0'"
sql "$oldbin" "$port" cur -c "CREATE EXTENSION bloomfilter" || fail "$step: CREATE EXTENSION"
default=$(sql "$oldbin" "$port" cur -c "SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter'")
for db in $dbs; do
	psql_to "$db" "$oldbin" "$port" "$work/setup.$db.out" "$here/test/pg_upgrade/setup.sql" ||
		fail "$step: setup.sql ($db)" "$work/setup.$db.out"
	psql_to "$db" "$oldbin" "$port" "$work/old.$db.values" "$here/test/pg_upgrade/values.sql" ||
		fail "$step: values.sql ($db)" "$work/old.$db.values"
	psql_to "$db" "$oldbin" "$port" "$work/old.$db.indexes" "$here/test/pg_upgrade/indexes.sql" ||
		fail "$step: indexes.sql ($db)" "$work/old.$db.indexes"
	if grep -q 'members=f\|batch=f' "$work/old.$db.values" || ! index_flags_ok "$work/old.$db.indexes"; then
		grep -h 'members=f\|batch=f' "$work/old.$db.values" | cut -c1-200 | head -n 10
		grep -v ' plain=same bitmap=same used=yes$' "$work/old.$db.indexes" | head -n 20
		fail "$step: the checks already fail on $old ($db)"
	fi
done
# the two databases store the same values
cmp -s "$work/old.v10.values" "$work/old.cur.values" && cmp -s "$work/old.v10.indexes" "$work/old.cur.indexes" ||
	fail "$step: the 1.0 and the $default database store the same values"
have=$(versions "$oldbin" "$port")
[ "$have" = "v10=1.0 cur=$default" ] || fail "$step: extension versions $have, not v10=1.0 cur=$default"
attopts=$(sql "$oldbin" "$port" v10 -c "SELECT DISTINCT split_part(o, '=', 1) FROM pg_attribute a, unnest(a.attoptions) o WHERE a.attrelid >= 16384 ORDER BY 1")
as_pg "$oldbin/pg_ctl" -D "$work/old" -w -m fast stop >/dev/null || fail "$step: stop" "$work/old.log"
ok "$step: $have"

# --- pg_upgrade
step="pg_upgrade"
new_opts=()
# 18's initdb turns data checksums on; pg_upgrade wants the old cluster's
[ "$new" -ge 18 ] && [ "$old" -lt 18 ] && new_opts+=(--no-data-checksums)
as_pg "$newbin/initdb" -D "$work/new" "${initdb_opts[@]}" "${new_opts[@]}" >"$work/initdb-new.log" 2>&1 ||
	fail "$step: initdb $new" "$work/initdb-new.log"
# Attribute options of the old cluster's columns that the new server does
# not know fail pg_upgrade for any table, with or without bloomfilter:
# Debian's 17.12 stamps every column with pg_attver, which 18.6 (sid, a
# release behind) rejects.  That pair is not tested until the newer major
# catches up.
if [ -n "$attopts" ]; then
	as_pg "$newbin/pg_ctl" -D "$work/new" -w -l "$work/new-probe.log" \
		-o "-p $((port + 1)) -k $work -c listen_addresses=" start >/dev/null || fail "$step: start $new" "$work/new-probe.log"
	unknown=""
	for o in $attopts; do
		sql "$newbin" $((port + 1)) postgres -c "BEGIN" -c "CREATE TEMP TABLE pgu_attopt (c int)" \
			-c "ALTER TABLE pgu_attopt ALTER COLUMN c SET ($o = 1)" -c "ROLLBACK" >/dev/null 2>&1 || unknown+=" $o"
	done
	as_pg "$newbin/pg_ctl" -D "$work/new" -w -m fast stop >/dev/null
	if [ -n "$unknown" ]; then
		echo "$pair: not tested (PostgreSQL $("$oldbin/postgres" -V | sed 's/^[^0-9]*\([0-9.]*\).*/\1/') stamps columns with the attribute option${unknown}, which $("$newbin/postgres" -V | sed 's/^[^0-9]*\([0-9.]*\).*/\1/') does not know: pg_upgrade fails for any table until $new has a minor release as recent)"
		exit 3
	fi
fi
if (cd "$work" && as_pg "$newbin/pg_upgrade" -b "$oldbin" -B "$newbin" -d "$work/old" -D "$work/new" \
	-p "$port" -P $((port + 1)) -U postgres -s "$work" --no-sync) >"$work/pg_upgrade.log" 2>&1; then
	ok "$step ($oldbin -> $newbin)"
else
	fail "$step" "$work/pg_upgrade.log" $(find "$work/new/pg_upgrade_output.d" -name '*.log' 2>/dev/null)
fi
port=$((port + 1))
as_pg "$newbin/pg_ctl" -D "$work/new" -w -l "$work/new.log" \
	-o "-p $port -k $work -c listen_addresses=" start >/dev/null || fail "start $new" "$work/new.log"
have=$(versions "$newbin" "$port")
[ "$have" = "v10=1.0 cur=$default" ] || fail "after pg_upgrade: extension versions $have, not v10=1.0 cur=$default"

# --- the old SQL objects (1.0 in v10), the new library: as stored, and
# written into
check "after pg_upgrade, before update_extensions.sql ($have)" "$newbin" "$port"
grow "inserts on $new into indexes built on $old, before update_extensions.sql" 1 "$newbin" "$port"

# --- update_extensions.sql: updates v10, and only it
step="update_extensions.sql"
if [ "$default" = 1.0 ]; then
	[ ! -f "$work/update_extensions.sql" ] || fail "$step: written though 1.0 is the default version" "$work/update_extensions.sql"
else
	[ -f "$work/update_extensions.sql" ] || fail "$step: pg_upgrade did not write it" "$work/pg_upgrade.log"
	sed 's/^/    /' "$work/update_extensions.sql"
	grep -q '^ALTER EXTENSION "\{0,1\}bloomfilter"\{0,1\} UPDATE' "$work/update_extensions.sql" ||
		fail "$step: no ALTER EXTENSION bloomfilter UPDATE in it"
	[ "$(grep -c '^\\connect' "$work/update_extensions.sql")" = 1 ] && grep -q '^\\connect .*v10' "$work/update_extensions.sql" ||
		fail "$step: it should update the 1.0 database v10 only"
	sql "$newbin" "$port" postgres -f "$work/update_extensions.sql" >"$work/update_extensions.out" 2>&1 ||
		fail "$step: running it" "$work/update_extensions.out"
fi
have=$(versions "$newbin" "$port")
[ "$have" = "v10=$default cur=$default" ] || fail "$step: extension versions $have, not $default"
ok "$step: $have"

# --- the new SQL objects; then more writes after a restart (what the
# first round left, flushed or pending, is read back from disk)
check "after update_extensions.sql ($have)" "$newbin" "$port" grown
as_pg "$newbin/pg_ctl" -D "$work/new" -w -m fast restart >/dev/null || fail "restart $new" "$work/new.log"
grow "inserts on $new after update_extensions.sql and a restart" 2 "$newbin" "$port"
check "once more after all that" "$newbin" "$port" grown
as_pg "$newbin/pg_ctl" -D "$work/new" -w -m fast stop >/dev/null
echo "$pair: $(($(date +%s) - start)) s"
