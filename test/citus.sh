#!/bin/bash
# Builds Citus from its upstream release tarball for one PostgreSQL server
# and installs it into that server's tree, so that the Citus TAP test
# (test/t/017_citus.pl) and test/bench/citus_bench.sh can run.  Citus is
# not in Debian; its release tarballs (AGPL-3.0) are kept beside the
# checkout, in ../shared/vendor.
#
# Usage: bash test/citus.sh [install|status]
#   install (default)  build Citus (or take the cached build) and install it
#                      into PG_CONFIG's tree ($DESTDIR honoured); installs
#                      Citus's build dependencies from Debian first (as root)
#   status             say which Citus would be used, build nothing
#
# Environment:
#   PG_CONFIG      the server's pg_config (default /usr/lib/postgresql/15/bin/pg_config)
#   CITUS_VENDOR   where citus-VERSION.tar.gz are (default: ../shared/vendor
#                  beside the checkout)
#   CITUS_VERSION  default 13.2.2 for PostgreSQL 15, 14.0.1 for 16 and later
#   CITUS_CACHE    where builds are kept between runs (default
#                  /var/cache/bloomfilter-ci/citus), one per Citus version,
#                  PostgreSQL major and exact server version (pg_config
#                  --version): a minor upgrade of the server rebuilds
#   DESTDIR        staging root for the install, as for make install
#   CITUS_JOBS     make -j (default: the number of cores)
#
# Exit status: 0 Citus is installed; 3 no tarball and no installed Citus
# ("Citus: not tested (reason)" on stdout; the tests then skip Citus);
# 1 the build failed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
CITUS_VENDOR=${CITUS_VENDOR:-$here/../shared/vendor}
CITUS_CACHE=${CITUS_CACHE:-/var/cache/bloomfilter-ci/citus}
DESTDIR=${DESTDIR:-}
cmd=${1:-install}

say() { echo "citus.sh: $*"; }
not_tested() {
	echo "Citus: not tested ($*)"
	exit 3
}

if [ ! -x "$PG_CONFIG" ]; then
	echo "citus.sh: no pg_config at $PG_CONFIG" >&2
	exit 2
fi
server=$("$PG_CONFIG" --version) # e.g. "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)"
major=$(echo "$server" | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ -z "${CITUS_VERSION:-}" ]; then
	case $major in
		15) CITUS_VERSION=13.2.2 ;;
		16 | 17 | 18) CITUS_VERSION=14.0.1 ;;
		*) not_tested "no Citus release known to support PostgreSQL $major" ;;
	esac
fi
tarball=$CITUS_VENDOR/citus-$CITUS_VERSION.tar.gz
sharedir=$DESTDIR$("$PG_CONFIG" --sharedir)
installed=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$sharedir/extension/citus.control" 2>/dev/null || true)

# The directories of pg_config that Citus installs into; the cache keeps
# each under its name, so that one build serves the system's tree and a
# relocated copy of it (another prefix, same server).
dirs=(pkglibdir sharedir includedir-server bindir libdir docdir)

key=citus-$CITUS_VERSION-pg$major-$(echo "$server" | sed -e 's/^PostgreSQL //' -e 's/[^A-Za-z0-9.+~-]/_/g')-$(uname -m)
entry=$CITUS_CACHE/$key

if [ "$cmd" = status ]; then
	if [ -f "$tarball" ]; then
		say "Citus $CITUS_VERSION from $tarball for $server$([ -d "$entry" ] && echo ' (cached)')"
	elif [ -n "$installed" ]; then
		say "no $tarball; Citus $installed is installed in $sharedir"
	else
		echo "Citus: not tested (no $tarball and no Citus installed in $sharedir)"
		exit 3
	fi
	exit 0
fi
[ "$cmd" = install ] || {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

if [ ! -f "$tarball" ]; then
	if [ -n "$installed" ]; then
		say "no $tarball; using the Citus $installed installed in $sharedir"
		exit 0
	fi
	not_tested "no $tarball and no Citus installed in $sharedir"
fi

# Without libcurl (Citus's anonymous usage statistics), unless the server
# was built with it: PostgreSQL 18's pg_config.h defines HAVE_LIBCURL (for
# OAuth), which Citus reads as its own and then needs curl's headers and
# library.
with_curl=
if grep -q '^#define HAVE_LIBCURL 1' "$("$PG_CONFIG" --includedir-server)/pg_config.h" 2>/dev/null; then
	with_curl=1
fi

# Citus's build dependencies, from Debian
deps() {
	local p missing=()
	for p in build-essential liblz4-dev libzstd-dev libkrb5-dev libselinux1-dev libxslt1-dev \
		libpam0g-dev libssl-dev libreadline-dev libicu-dev ${with_curl:+libcurl4-openssl-dev} \
		"postgresql-server-dev-$major"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "citus.sh: missing ${missing[*]}; install them (as root: apt-get install ${missing[*]})" >&2
		return 1
	fi
	say "installing ${missing[*]}"
	# apt waits for another dpkg of this machine (or chroot) to finish
	local apt=(apt-get -y -q --no-install-recommends -o DPkg::Lock::Timeout=1200)
	export DEBIAN_FRONTEND=noninteractive
	"${apt[@]}" install "${missing[@]}" >/dev/null 2>&1 && return 0
	apt-get -q -o DPkg::Lock::Timeout=1200 update >/dev/null || true
	"${apt[@]}" install "${missing[@]}" >/dev/null 2>&1 && return 0
	# one at a time: an archive in transition (sid) may lack one of them,
	# and the build may not need it
	unavailable=()
	for p in "${missing[@]}"; do
		"${apt[@]}" install "$p" >/dev/null 2>&1 || unavailable+=("$p")
	done
	say "cannot install ${unavailable[*]}; building without"
}

# Patches a release for the server it is built against, as little as can
# be.  Citus 13.2.2 defines have_createdb_privilege() static in its
# compatibility header for PostgreSQL < 16; PostgreSQL 15.20 exports it
# from commands/dbcommands.h, and a static definition that follows an
# extern declaration does not compile.  Where the server declares it, the
# header includes the server's declaration instead of defining its own.
patch_release() {
	local src=$1 inc
	inc=$("$PG_CONFIG" --includedir-server)
	if [ "$major" = 15 ] && grep -q 'have_createdb_privilege' "$inc/commands/dbcommands.h" &&
		grep -q '^have_createdb_privilege(void)' "$src/src/include/pg_version_compat.h"; then
		say "patch: $server declares have_createdb_privilege(); pg_version_compat.h uses it"
		perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n/#include "commands\/dbcommands.h"\n/s' \
			"$src/src/include/pg_version_compat.h"
		if grep -q '^have_createdb_privilege(void)' "$src/src/include/pg_version_compat.h"; then
			echo "citus.sh: patching pg_version_compat.h failed" >&2
			return 1
		fi
	fi
}

build() {
	local work src stage d tag jobs
	jobs=${CITUS_JOBS:-$(nproc)}
	# older builds of this Citus for this major (an earlier server minor)
	find "$CITUS_CACHE" -mindepth 1 -maxdepth 1 -type d -name "citus-$CITUS_VERSION-pg$major-*" \
		-exec rm -rf {} +
	work=$(mktemp -d "${TMPDIR:-/tmp}/citus-build.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$work'" EXIT
	tar -xzf "$tarball" -C "$work"
	src=$work/citus-$CITUS_VERSION
	patch_release "$src"
	say "building Citus $CITUS_VERSION for $server (make -j$jobs; log in $entry.log)"
	(
		cd "$src"
		if [ -n "$with_curl" ]; then
			./configure PG_CONFIG="$PG_CONFIG"
		else
			./configure --without-libcurl PG_CONFIG="$PG_CONFIG"
		fi
		make -j"$jobs"
		make install DESTDIR="$work/stage"
	) >"$entry.log" 2>&1 || {
		tail -n 30 "$entry.log" >&2
		if [ ${#unavailable[@]} -gt 0 ]; then
			not_tested "the build of Citus $CITUS_VERSION failed without ${unavailable[*]}, which Debian cannot install here (log: $entry.log)"
		fi
		echo "citus.sh: building Citus $CITUS_VERSION for $server FAILED (log: $entry.log)" >&2
		return 1
	}
	stage=$work/stage
	rm -rf "$entry.new"
	mkdir -p "$entry.new"
	for tag in "${dirs[@]}"; do
		d=$("$PG_CONFIG" --"$tag")
		if [ -d "$stage$d" ]; then
			mkdir -p "$entry.new/$tag"
			cp -a "$stage$d/." "$entry.new/$tag/"
			rm -rf "${stage:?}$d"
		fi
	done
	if [ -n "$(find "$stage" -type f | head -1)" ]; then
		echo "citus.sh: make install wrote outside pg_config's directories:" >&2
		find "$stage" -type f >&2
		return 1
	fi
	echo "$server" >"$entry.new/SERVER"
	mv "$entry.new" "$entry"
	rm -rf "$work"
	trap - EXIT
}

unavailable=()
mkdir -p "$CITUS_CACHE"
exec 9>"$CITUS_CACHE/$key.lock"
flock 9
if [ ! -f "$entry/SERVER" ]; then
	deps || not_tested "Citus's build dependencies could not be installed"
	build
	say "built in $entry"
else
	say "cached build $entry"
fi
# Citus's headers stay in the cache: nothing here builds against them, and
# a relocated copy of a server may share its include directory with the
# system's (a symbolic link)
for tag in "${dirs[@]}"; do
	[ "$tag" != includedir-server ] || continue
	[ -d "$entry/$tag" ] || continue
	d=$DESTDIR$("$PG_CONFIG" --"$tag")
	mkdir -p "$d"
	cp -a "$entry/$tag/." "$d/"
done
say "Citus $CITUS_VERSION installed into $DESTDIR$("$PG_CONFIG" --pkglibdir)"
