#!/bin/bash
# Runs every test of bloomfilter on a fresh Debian 12 machine:
#   dependencies (apt), warning-free build, core unit tests under
#   ASan/UBSan, a short libFuzzer run, install, pg_regress on a throwaway
#   cluster (pg_virtualenv), the README's examples (test/readme_test.py),
#   TAP tests that start several clusters.
# Usage: bash test/run-all.sh      (as root, or a user with sudo)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
# the tests build with warnings as errors (the default make does not)
export WERROR=1

bash test/deps.sh

passed=0
failed=0
step() {
	local name=$1
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "=== $name: ok"
	else
		failed=$((failed + 1))
		echo "=== $name: FAILED"
	fi
}

regress() {
	rm -f regression.diffs
	if pg_virtualenv -t make installcheck; then
		return 0
	fi
	[ -f regression.diffs ] && cat regression.diffs
	return 1
}

# The build must succeed for anything else to mean something.
build() {
	make clean >/dev/null && make && $SUDO make install >/dev/null
}
step "build with -Werror and install (PostgreSQL 15)" build
if [ "$failed" -gt 0 ]; then
	echo "tests: $passed passed, $failed failed"
	exit 1
fi

# Citus, for the Citus TAP test, is built (or taken from its cache) while
# the unit tests, fuzzing and pg_regress run
citus_log=$(mktemp)
bash test/citus.sh install >"$citus_log" 2>&1 &
citus_pid=$!
citus() {
	local rc=0
	wait "$citus_pid" || rc=$?
	cat "$citus_log"
	rm -f "$citus_log"
	# 3: no tarball and no installed Citus, the Citus test says so and skips
	[ $rc = 0 ] || [ $rc = 3 ]
}

step "core unit tests (ASan/UBSan)" make check-core
step "fuzzing the validators, text codec and filter operations (libFuzzer, 11 targets x 30 s)" \
	env FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash test/fuzz/run.sh
step "pg_regress" regress
# The update chain: 1.0 created and updated step by step, its members
# compared with a fresh install's and with test/upgrade/, then the whole
# pg_regress suite on the updated database
step "update chain: every member as a fresh install, then pg_regress on the updated database (test/upgrade_chain.sh)" \
	pg_virtualenv -t bash test/upgrade_chain.sh
step "1.0's own tests against today's library, as pg_upgrade leaves it (test/old_release.sh)" \
	pg_virtualenv -t bash test/old_release.sh
step "release files: the version written once, META.json, LICENSE, CHANGELOG.md (test/release_files.py)" \
	python3 test/release_files.py
# The PGXN zip unpacked elsewhere builds and passes make installcheck
dist() {
	local d v rc=0
	v=$(make -s print-distversion)
	d=$(mktemp -d)
	make -s dist && python3 -m zipfile -e "bloomfilter-$v.zip" "$d" || rc=1
	rm -f "bloomfilter-$v.zip"
	[ $rc = 0 ] && (cd "$d/bloomfilter-$v" && make -s >/dev/null && $SUDO make -s install >/dev/null &&
		{ pg_virtualenv -t make installcheck || { cat regression.diffs 2>/dev/null; false; }; }) || rc=1
	rm -rf "$d"
	return $rc
}
step "make dist: the PGXN zip builds and passes make installcheck" dist
step "README examples run as shown (test/readme_test.py)" pg_virtualenv -t python3 test/readme_test.py
step "documentation links resolve (test/doc_links.py)" python3 test/doc_links.py
# The clients (src/clients/*): unit tests from test/vectors/vectors.tsv and
# tests against the installed server.  BLOOMFILTER_SERVER_TESTS=require
# makes a missing server or psycopg a failure instead of a skip; pytest's
# exit code 5 (no test collected) fails the step too.
step "Python client: vectors and server tests (pytest, src/clients/python/tests)" \
	pg_virtualenv -t env BLOOMFILTER_SERVER_TESTS=require /usr/bin/python3 -m pytest -q -p no:cacheprovider src/clients/python/tests
# The clients as the packages users install (test/clients_packaged.sh): the
# wheel and the npm tarball built, installed in a scratch venv / npm project,
# and the tests run from a copy outside the checkout against what was
# installed.
step "Python client as a package: the wheel built offline, installed in a venv, tested from outside the checkout" \
	pg_virtualenv -t env BLOOMFILTER_SERVER_TESTS=require bash test/clients_packaged.sh python
step "frozen values: unchanged since written, and make_frozen.py refuses to overwrite them" \
	python3 test/vectors/frozen/check_frozen.py
step "Citus for the TAP test (test/citus.sh)" citus
step "TAP: multi-cluster Bloom-joins, sharding, shipping, version guard" bash test/tap.sh
step "JavaScript client: vectors, unit tests, against the server (node --test, src/clients/js/test)" bash -c 'cd src/clients/js && npm ci --no-audit --no-fund && pg_virtualenv -t env BLOOMFILTER_SERVER_TESTS=require node --test test/*.test.mjs'
step "JavaScript client as a package: npm pack, installed in a scratch project, tested from outside the checkout" \
	pg_virtualenv -t env BLOOMFILTER_SERVER_TESTS=require bash test/clients_packaged.sh js
# Layout 'parquet' against DuckDB's Parquet writer and reader (npm
# @duckdb/node-api, pinned in test/engines/package-lock.json): DuckDB writes
# a file per physical type; its Bloom filters are imported, probed, compared
# with parquet_bloom_probe and rebuilt here byte for byte.
step "Parquet Bloom filters: conformance with DuckDB (test/engines/duckdb_conformance.mjs)" bash -c 'cd test/engines && npm ci --no-audit --no-fund && pg_virtualenv -t bash -c "psql -XAtqc \"CREATE EXTENSION IF NOT EXISTS bloomfilter\" && node duckdb_conformance.mjs"'

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
