#!/bin/bash
# The main job: install dependencies, build and install bloomfilter, start a
# throwaway cluster (pg_virtualenv) and run the Bloom-join demo, test/demo.sql.
# Usage: bash test/demo.sh      (as root, or a user with sudo)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config

bash test/deps.sh
make >/dev/null
$SUDO make install >/dev/null
pg_virtualenv -t psql -X -f test/demo.sql
