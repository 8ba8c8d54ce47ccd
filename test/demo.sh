#!/bin/bash
# The main job: install what it needs (a compiler, the server, its dev
# package, libxxhash-dev: nothing the tests need), build and install
# bloomfilter, start a throwaway cluster (pg_virtualenv) and run the
# Bloom-join demo, test/demo.sql.
# Usage: bash test/demo.sh      (as root, or a user with sudo; PGVER=17 for
#                                another major version, default 15)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export PGVER=${PGVER:-15}
export PG_CONFIG=/usr/lib/postgresql/$PGVER/bin/pg_config

bash test/deps.sh --main
make >/dev/null
$SUDO make install >/dev/null
pg_virtualenv -v "$PGVER" -t psql -X -f test/demo.sql
