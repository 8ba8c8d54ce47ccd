#!/bin/bash
# Installs, from Debian's packages, what bloomfilter needs.
#   bash test/deps.sh --main   what the main job (test/demo.sh) needs: a
#                              compiler, the server, its dev package and
#                              libxxhash-dev
#   bash test/deps.sh          that and what the tests and benchmarks need
#                              (test/run-all.sh)
# PGVER picks the PostgreSQL major version (default 15).  Idempotent: on a
# machine that has everything it installs nothing.
set -euo pipefail

V=${PGVER:-15}
MAIN="build-essential postgresql-$V postgresql-server-dev-$V postgresql-common libxxhash-dev"
TESTS="libipc-run-perl libbloom-dev postgresql-$V-hll python3
python3-xxhash python3-psycopg python3-pytest
python3-pip python3-setuptools python3-wheel python3-venv
clang-14 libclang-rt-14-dev valgrind iproute2"

PKGS=$MAIN
if [ "${1:-}" != --main ]; then
	PKGS="$MAIN $TESTS"
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	$SUDO apt-get update -q
	# The server and its dev package are always named together, so that an
	# older server already installed is upgraded to the headers' minor
	# version: a module built against newer headers may not load into an
	# older server (undefined symbol).
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing postgresql-$V postgresql-server-dev-$V
else
	echo "deps: all present"
fi

# The JavaScript client's tests (src/clients/js): node and npm, Debian's
# unless a node with its npm is already there (NodeSource's nodejs bundles
# npm and conflicts with Debian's npm package).
if [ "${1:-}" != --main ] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
	echo "deps: installing nodejs npm"
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q nodejs npm
fi

# The same check for a machine whose server was installed otherwise.
server=$(dpkg-query -W -f='${Version}' "postgresql-$V")
headers=$(dpkg-query -W -f='${Version}' "postgresql-server-dev-$V")
if [ "$server" != "$headers" ]; then
	echo "deps: postgresql-$V is $server but postgresql-server-dev-$V is $headers; a module built" >&2
	echo "      against newer headers may not load into an older server. Upgrade both:" >&2
	echo "      apt-get install postgresql-$V postgresql-server-dev-$V" >&2
	exit 1
fi
