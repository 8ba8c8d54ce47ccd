#!/bin/bash
# Multi-cluster TAP tests (test/t/*.pl): Bloom-joins over postgres_fdw and
# dblink, sharded semi-join pruning, shipping filters as text, bytea, binary
# protocol parameters and COPY binary, and the format-version guard.
#
# Each test starts two or three throwaway clusters on loopback with
# PostgreSQL::Test::Cluster (from postgresql-server-dev-NN) and needs
# bloomfilter installed (make && make install) plus postgres_fdw and dblink
# (postgresql-NN contrib) and IPC::Run (libipc-run-perl).
#
# Usage: bash test/tap.sh [prove options] [test/t/NNN_name.pl ...]
#
# PostgreSQL refuses to run as root: as root, prove runs as the user
# $TAP_USER (default postgres) in a temporary directory that user owns.
# The directory is removed when every test passes and kept (with the
# clusters' logs under tmp_check/log) when one fails.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
major=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")/../..
pgxs=$(cd "$pgxs" && pwd)
perldir=$pgxs/src/test/perl
pg_regress=$pgxs/src/test/regress/pg_regress
sharedir=$("$PG_CONFIG" --sharedir)

for f in "$perldir/PostgreSQL/Test/Cluster.pm" "$pg_regress"; do
	if [ ! -e "$f" ]; then
		echo "tap.sh: $f is missing (install postgresql-server-dev-$major)" >&2
		exit 2
	fi
done
if [ ! -e "$sharedir/extension/bloomfilter.control" ]; then
	echo "tap.sh: bloomfilter is not installed in $sharedir (run make && make install)" >&2
	exit 2
fi
for ext in postgres_fdw dblink; do
	if [ ! -e "$sharedir/extension/$ext.control" ]; then
		echo "tap.sh: $ext is not installed (postgresql-$major contrib)" >&2
		exit 2
	fi
done
if ! perl -MIPC::Run -e1 2>/dev/null; then
	echo "tap.sh: IPC::Run is missing (apt-get install libipc-run-perl)" >&2
	exit 2
fi

args=("$@")
have_files=0
for a in "${args[@]+"${args[@]}"}"; do
	case $a in *.pl) have_files=1 ;; esac
done
if [ $have_files = 0 ]; then
	args+=("$top"/test/t/*.pl)
else
	# make test file arguments absolute: prove runs from the temp dir
	for i in "${!args[@]}"; do
		case ${args[$i]} in
			/*) ;;
			*.pl) args[$i]=$top/${args[$i]} ;;
		esac
	done
fi

testdir=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-tap.XXXXXX")
chmod 755 "$testdir"

run=()
if [ "$(id -u)" = 0 ]; then
	user=${TAP_USER:-postgres}
	chown "$user" "$testdir"
	run=(runuser -u "$user" --)
	# the unprivileged user must be able to read the tests
	if ! runuser -u "$user" -- test -r "$top/test/t"; then
		echo "tap.sh: user $user cannot read $top/test/t" >&2
		exit 2
	fi
fi

status=0
(
	cd "$testdir"
	"${run[@]}" env \
		PATH="$bindir:$PATH" \
		PG_REGRESS="$pg_regress" \
		TESTDIR="$testdir" \
		TESTDATADIR="$testdir/tmp_check" \
		TESTLOGDIR="$testdir/tmp_check/log" \
		prove -I "$perldir" "${args[@]}"
) || status=$?

if [ $status = 0 ]; then
	rm -rf "$testdir"
else
	echo "tap.sh: FAILED; logs kept in $testdir/tmp_check/log" >&2
fi
exit $status
