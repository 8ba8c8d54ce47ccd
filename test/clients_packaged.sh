#!/bin/bash
# The clients as the packages users install: builds the Python wheel
# (pg-bloomfilter, import name bloomfilter) or the npm tarball
# (pg-bloomfilter) from src/clients/*, installs it in a scratch environment
# (a venv that sees Debian's xxhash, psycopg and pytest; a scratch npm
# project), and runs the client's tests from a copy outside the checkout
# that holds the tests and their data but not the package's sources, so
# that every import is the installed package's (the script prints where it
# resolves and fails if that is not the scratch environment).
#   bash test/clients_packaged.sh python|js
# Needs python3-pip, python3-wheel, python3-setuptools and python3-venv
# (test/deps.sh), or node and npm; builds offline (no PyPI: pip wheel
# --no-build-isolation --no-index), and npm fetches the tests' own
# dependencies (pg, hash-wasm) as `npm ci` does.  Run it under
# pg_virtualenv with BLOOMFILTER_SERVER_TESTS=require for the server tests.
# KEEP=1 keeps the scratch directory (its path is printed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:?usage: clients_packaged.sh python|js}
scratch=$(mktemp -d /tmp/bf-packaged.XXXXXX)
if [ "${KEEP:-}" = 1 ]; then echo "scratch: $scratch"; else trap 'rm -rf "$scratch"' EXIT; fi

# the tests' data, laid out as in the checkout so their relative paths hold
tree=$scratch/tree
mkdir -p "$tree/test" "$tree/src/clients"
cp -r "$top/test/vectors" "$tree/test/vectors"
cp "$top/README.md" "$tree/README.md"

case $what in
python)
	src=$scratch/build/python
	mkdir -p "$scratch/build"
	cp -r "$top/src/clients/python" "$src"
	rm -rf "$src/tests"
	[ -f "$top/LICENSE" ] && cp "$top/LICENSE" "$src/LICENSE"
	/usr/bin/python3 -m pip wheel -q --no-deps --no-build-isolation --no-index -w "$scratch/dist" "$src"
	wheel=$(ls "$scratch"/dist/pg_bloomfilter-*.whl)
	echo "built $(basename "$wheel")"
	/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
	"$scratch/venv/bin/python" -m pip install -q --no-deps --no-index "$wheel"

	# the tests and the package's README, without the package's sources
	mkdir -p "$tree/src/clients/python"
	cp -r "$top/src/clients/python/tests" "$tree/src/clients/python/tests"
	cp "$top/src/clients/python/README.md" "$tree/src/clients/python/README.md"
	cd "$scratch"
	where=$("$scratch/venv/bin/python" -c 'import bloomfilter; print(bloomfilter.__file__)')
	echo "bloomfilter imports from $where"
	case $where in
	"$scratch/venv/"*) ;;
	*) echo "clients_packaged: bloomfilter is not imported from the venv" >&2; exit 1 ;;
	esac
	BLOOMFILTER_INSTALLED=1 BLOOMFILTER_PACKAGE_PREFIX="$scratch/venv/" \
		"$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider "$tree/src/clients/python/tests"
	;;
js)
	pkg=$scratch/build/js
	mkdir -p "$pkg"
	(cd "$top/src/clients/js" && cp index.js index.d.ts keys.js sizing.js xxh3_8.js pg.js pg.d.ts \
		README.md package.json "$pkg/")
	[ -f "$top/LICENSE" ] && cp "$top/LICENSE" "$pkg/LICENSE"
	(cd "$pkg" && npm pack --silent --pack-destination "$scratch" >/dev/null)
	tarball=$(ls "$scratch"/pg-bloomfilter-*.tgz)
	echo "packed $(basename "$tarball"): $(tar tzf "$tarball" | sed 's|^package/||' | sort | tr '\n' ' ')"

	# a scratch project: the tarball and what the tests import
	app=$tree/src/clients/js
	mkdir -p "$app"
	cat >"$app/package.json" <<'EOF'
{ "name": "bf-packaged-test", "private": true, "type": "module" }
EOF
	devdeps=$(node -e 'const d = require(process.argv[1]).devDependencies; console.log(Object.entries(d).map(([n, v]) => `${n}@${v}`).join(" "))' \
		"$top/src/clients/js/package.json")
	# shellcheck disable=SC2086
	(cd "$app" && npm install --silent --no-audit --no-fund --prefer-offline "$tarball" $devdeps)
	# the tests, importing the package by its name instead of the checkout's files
	mkdir -p "$app/test"
	for f in "$top"/src/clients/js/test/*.mjs; do
		sed -e "s|'\.\./index\.js'|'pg-bloomfilter'|g" \
			-e "s|'\.\./pg\.js'|'pg-bloomfilter/pg'|g" \
			-e "s|'\.\./xxh3_8\.js'|'../node_modules/pg-bloomfilter/xxh3_8.js'|g" \
			-e "s|'\.\./keys\.js'|'../node_modules/pg-bloomfilter/keys.js'|g" \
			-e "s|'\.\./package\.json'|'../node_modules/pg-bloomfilter/package.json'|g" \
			"$f" >"$app/test/$(basename "$f")"
	done
	# the package's README as shipped in the tarball (its examples are tested)
	cp "$app/node_modules/pg-bloomfilter/README.md" "$app/README.md"
	if grep -n "'\.\./[a-z0-9_]*\.js'" "$app"/test/*.mjs; then
		echo "clients_packaged: a test still imports the sources (above)" >&2
		exit 1
	fi
	cd "$app"
	where=$(node --input-type=module -e "import { createRequire } from 'node:module'; \
		console.log(createRequire(process.cwd() + '/').resolve('pg-bloomfilter'))")
	echo "pg-bloomfilter imports from $where"
	case $where in
	"$app/node_modules/pg-bloomfilter/"*) ;;
	*) echo "clients_packaged: pg-bloomfilter does not resolve to the installed tarball" >&2; exit 1 ;;
	esac
	node --test test/*.test.mjs
	;;
*)
	echo "usage: clients_packaged.sh python|js" >&2
	exit 2
	;;
esac
