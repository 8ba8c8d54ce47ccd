#!/bin/bash
# Builds and tests bloomfilter against another PostgreSQL major version in
# a Debian chroot made with debootstrap from Debian's own archive:
# trixie has PostgreSQL 17, sid has 18.  As root.
#
# Usage:
#   bash test/chroot.sh prepare SUITE       create the chroot (or refresh its
#                                           packages) in $CHROOT_ROOT/SUITE
#   bash test/chroot.sh build SUITE [DIR]   compile-check a checkout or
#                                           worktree (default: this one)
#                                           with -Werror, nothing installed
#   bash test/chroot.sh test SUITE [DIR] [regress|tap|pg_upgrade|TAP-file...]
#                                           build with -Werror, install into
#                                           the chroot's server, run
#                                           pg_regress (then the update
#                                           chain and 1.0's tests against
#                                           this library), TAP and/or
#                                           test/pg_upgrade.sh (default
#                                           all three)
#   bash test/chroot.sh bench SUITE [DIR] SCRIPT [ARGS...]
#                                           build with -Werror, install into
#                                           the chroot's server, run the
#                                           benchmark SCRIPT (a path in the
#                                           checkout, e.g. test/bench/
#                                           autojoin_newcomer_bench.sh) inside
#                                           with PG_CONFIG set to the chroot's
#                                           pg_config; SHAPES and
#                                           BENCH_BASE_PORT are passed on
#   bash test/chroot.sh shell SUITE         a shell inside, with the mounts
#
# Environment: CHROOT_ROOT (default /work/chroots), DEBIAN_MIRROR (default:
# the deb.debian.org mirror), PGVER (default: the suite's default
# PostgreSQL major, from its postgresql metapackage), PG_UPGRADE_FROM
# ("MAJOR SUITE", or "none": the older major prepare installs beside the
# suite's, from that suite's archive, for test/pg_upgrade.sh; default 15
# from bookworm in trixie, 17 from trixie in sid, which no longer has it).
# The test stage runs test/pg_upgrade.sh from that major to the suite's
# beside pg_regress and TAP; a major that could not be installed is
# reported "pg_upgrade A->B: not tested (reason)", except 15->17, which
# must run.
#
# The chroot has no default cluster (create_main_cluster = false), a
# policy-rc.d that stops package scripts from starting services, and LANG
# C.UTF-8.  proc, sys, dev, dev/pts and dev/shm are mounted in a private
# mount namespace (unshare) only while a command runs, so they disappear
# with it even if it is killed, and several commands can use one chroot at
# once.  The checkout is copied into the chroot (a directory of its own per
# run, removed after), never bind-mounted, so the tests cannot write into
# it and a build inside does not leave objects of another PostgreSQL in it.
#
# Exit status: 0 success, 1 a build or test failed, 3 the chroot could not
# be prepared (archive unreachable, packages not installable).
set -euo pipefail

CHROOT_ROOT=${CHROOT_ROOT:-/work/chroots}
# what test/citus.sh needs to build Citus (installed by prepare, so that a
# test run needs no network)
citus_deps="liblz4-dev libzstd-dev libkrb5-dev libselinux1-dev libxslt1-dev libpam0g-dev libssl-dev libreadline-dev libicu-dev libcurl4-openssl-dev"
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# the older major each suite's pg_upgrade test starts from, and the suite
# whose archive has it
declare -A upgrade_from=([trixie]="15 bookworm" [sid]="17 trixie")
# pairs that must be tested: a major that cannot be installed fails them
pg_upgrade_required="15->17"
here=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
suite=$2
shift 2
root=$CHROOT_ROOT/$suite

if [ "$(id -u)" != 0 ]; then
	echo "chroot.sh: must run as root (debootstrap, chroot, mount)" >&2
	exit 2
fi

# inside SCRIPT [VAR=value...]: runs a shell script inside the chroot, with
# the kernel file systems mounted in a mount namespace of its own.
inside() {
	local script=$1
	shift
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		root=$1
		script=$2
		shift 2
		mount -t proc proc "$root/proc"
		mount -t sysfs sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" 2>/dev/null || true
		mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
		status=0
		env -i HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive "$@" \
			chroot "$root" /bin/bash -c "$script" || status=$?
		umount "$root/dev/shm" 2>/dev/null || true
		umount -l "$root/dev" 2>/dev/null || true
		umount "$root/sys" 2>/dev/null || true
		umount "$root/proc" 2>/dev/null || true
		exit $status
	' inside "$root" "$script" "$@"
}

pgver_of_chroot() {
	if [ -n "${PGVER:-}" ]; then
		echo "$PGVER"
		return
	fi
	local v
	v=$(ls -d "$root"/usr/lib/postgresql/[0-9]* 2>/dev/null | sed 's,.*/,,' | sort -n | tail -1)
	if [ -z "$v" ]; then
		echo "chroot.sh: no PostgreSQL in $root (run: bash test/chroot.sh prepare $suite)" >&2
		exit 3
	fi
	echo "$v"
}

prepare() {
	if ! command -v debootstrap >/dev/null; then
		apt-get install -y -q debootstrap >/dev/null || {
			echo "chroot.sh: cannot install debootstrap" >&2
			exit 3
		}
	fi
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		echo "chroot.sh: debootstrap --variant=minbase $suite $root"
		rm -rf "$root"
		mkdir -p "$root"
		if ! debootstrap --variant=minbase "$suite" "$root" "$DEBIAN_MIRROR" \
			>"$CHROOT_ROOT/$suite.debootstrap.log" 2>&1; then
			tail -5 "$CHROOT_ROOT/$suite.debootstrap.log" >&2
			echo "chroot.sh: debootstrap of $suite failed (log: $CHROOT_ROOT/$suite.debootstrap.log)" >&2
			rm -rf "$root"
			exit 3
		fi
	fi
	# package scripts must not start services inside the chroot
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# sid's Release file is valid for a week only; a mirror that serves a
	# snapshot older than that is still the archive we test against
	echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99bloomfilter-test"

	script='
		set -e
		apt_get() { apt-get -q -y -o Dpkg::Options::=--force-confold --no-install-recommends "$@"; }
		# the older suite pg_upgrade needs has a sources file of its
		# own (below): if its archive fails the update, without it
		list=/etc/apt/sources.list.d/bloomfilter-pg-upgrade.list
		apt-get -q update || { rm -f "$list"; apt-get -q update; }
		apt_get dist-upgrade
		# postgresql-common first, so that no cluster is created when
		# the server package is installed
		apt_get install postgresql-common
		sed -i -e "/^#* *create_main_cluster *=/d" /etc/postgresql-common/createcluster.conf
		echo "create_main_cluster = false" >>/etc/postgresql-common/createcluster.conf
		v=${PGVER:-$(apt-cache depends postgresql | sed -n "s/.*Depends: postgresql-\([0-9][0-9]*\)$/\1/p" | head -1)}
		[ -n "$v" ] || { echo "no postgresql metapackage in this suite" >&2; exit 1; }
		echo "PostgreSQL $v"
		apt_get install build-essential "postgresql-$v" "postgresql-server-dev-$v" \
			libxxhash-dev libipc-run-perl
		# Citus build dependencies: one that cannot be installed (sid
		# in transition) leaves Citus untested, not the rest
		apt_get install $CITUS_DEPS || for p in $CITUS_DEPS; do
			apt_get install "$p" || echo "chroot.sh: $p cannot be installed (Citus may not build)"
		done
		# the older major for test/pg_upgrade.sh, from the archive of
		# the suite that has it (its own sources file); what happened is
		# written to /var/lib/bloomfilter-ci/pg_upgrade-from for the
		# test stage ("MAJOR" or "none: reason")
		status=/var/lib/bloomfilter-ci/pg_upgrade-from
		mkdir -p "${status%/*}"
		set -- $UPGRADE_FROM
		if [ $# != 2 ]; then
			rm -f "$list"
			echo "none: no older major configured for this suite" >"$status"
		else
			echo "PostgreSQL $1 from $2, for pg_upgrade"
			# updated above when it was there already
			if [ "$(cat "$list" 2>/dev/null)" = "deb $MIRROR $2 main" ]; then
				fresh=1
			else
				fresh=
				echo "deb $MIRROR $2 main" >"$list"
			fi
			if [ -z "$fresh" ] && ! apt-get -q update; then
				rm -f "$list"
				apt-get -q update || true
				echo "none: $2 archive unreachable" >"$status"
			elif apt_get install "postgresql-$1/$2" "postgresql-server-dev-$1/$2"; then
				echo "$1" >"$status"
			else
				echo "none: postgresql-$1 and postgresql-server-dev-$1 from $2 cannot be installed in this suite" >"$status"
			fi
		fi
		echo "chroot.sh: pg_upgrade from: $(cat "$status")"
		apt-get clean
	' && inside "$script" PGVER="${PGVER:-}" CITUS_DEPS="$citus_deps" MIRROR="$DEBIAN_MIRROR" \
		UPGRADE_FROM="${PG_UPGRADE_FROM:-${upgrade_from[$suite]:-}}" || {
		echo "chroot.sh: installing the packages in $suite failed" >&2
		exit 3
	}
	echo "chroot.sh: $root ready: PostgreSQL $(pgver_of_chroot), $(chroot "$root" gcc -dumpfullversion 2>/dev/null | sed 's/^/gcc /')"
}

# Copies a checkout's files (not .git, not build products) into a fresh
# directory inside the chroot; prints its path inside the chroot.
copy_in() {
	local src=$1 dir
	dir=$(mktemp -d "$root/tmp/bloomfilter.XXXXXX")
	(cd "$src" && tar -c --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
		--exclude=results --exclude=tmp_check --exclude=log \
		--exclude=regression.diffs --exclude=regression.out .) | tar -x -C "$dir"
	chmod 755 "$dir"
	echo "${dir#"$root"}"
}

build() {
	local src=${1:-$here} v dir status=0
	v=$(pgver_of_chroot)
	dir=$(copy_in "$src")
	script='
		set -e
		cd "$BUILD"
		make -k -s WERROR=1 PG_CONFIG=/usr/lib/postgresql/$PGVER/bin/pg_config 2>&1
	' && inside "$script" BUILD="$dir" PGVER="$v" || status=$?
	rm -rf "${root:?}$dir"
	if [ $status = 0 ]; then
		echo "chroot.sh: $src builds with -Werror against PostgreSQL $v ($suite)"
	else
		echo "chroot.sh: $src does NOT build against PostgreSQL $v ($suite)" >&2
	fi
	return $status
}

run_tests() {
	local src=$here v dir status=0 what=()
	if [ $# -gt 0 ] && [ -d "$1" ]; then
		src=$1
		shift
	fi
	what=("$@")
	[ ${#what[@]} -gt 0 ] || what=(regress tap pg_upgrade)
	v=$(pgver_of_chroot)
	dir=$(copy_in "$src")
	# Citus's tarball for a Citus TAP test (test/citus.sh builds it inside,
	# cached in the chroot's own /var/cache/bloomfilter-ci/citus)
	local citus=""
	case " ${what[*]} " in *" tap "* | *citus*) citus=1 ;; esac
	if [ -n "$citus" ]; then
		mkdir -p "$root$dir/.citus-vendor"
		cp "${CITUS_VENDOR:-$src/../shared/vendor}"/citus-*.tar.gz "$root$dir/.citus-vendor/" 2>/dev/null || true
	fi
	# the chroot's postgres, whose uid need not be the host's
	chroot "$root" chown -R postgres: "$dir"
	# one port per run, so that runs in several chroots do not collide
	local port=$((20000 + RANDOM % 20000))
	script='
		set -e
		cd "$BUILD"
		export PG_CONFIG=/usr/lib/postgresql/$PGVER/bin/pg_config
		bin=/usr/lib/postgresql/$PGVER/bin
		as_pg() { runuser -u postgres -- "$@"; }
		echo "=== PostgreSQL $PGVER: build with -Werror and install"
		if as_pg make -s WERROR=1 2>&1 && make -s install >/dev/null; then
			echo "=== PostgreSQL $PGVER: build with -Werror and install: ok"
		else
			echo "=== PostgreSQL $PGVER: build with -Werror and install: FAILED"
			exit 1
		fi
		failed=0
		if [ -n "$CITUS" ]; then
			CITUS_VENDOR=$BUILD/.citus-vendor bash test/citus.sh install >"$BUILD/citus.log" 2>&1 &
			citus_pid=$!
		fi
		# pg_upgrade from the older major, beside pg_regress and TAP (it
		# builds and installs for the older major only: this major was
		# installed just now)
		pgu_pid=
		case " $WHAT " in *" pg_upgrade "*)
			pgu_from=$(cat /var/lib/bloomfilter-ci/pg_upgrade-from 2>/dev/null || echo "none: not prepared (run: bash test/chroot.sh prepare)")
			case $pgu_from in
			none*) ;;
			*)
				PGU_BUILD=$pgu_from PGU_PORT=$((PORT + 1)) \
					bash test/pg_upgrade.sh "$pgu_from" "$PGVER" >"$BUILD/pg_upgrade.log" 2>&1 &
				pgu_pid=$!
				;;
			esac
			;;
		esac
		tap=()
		for w in $WHAT; do
			case $w in
			regress)
				echo "=== PostgreSQL $PGVER: pg_regress"
				data=$BUILD/tmp_regress
				as_pg $bin/initdb -D "$data" -U postgres --no-sync -E UTF8 --locale=C.UTF-8 >/dev/null
				as_pg $bin/pg_ctl -D "$data" -w -l "$BUILD/regress-server.log" \
					-o "-p $PORT -k /tmp -c listen_addresses=" start >/dev/null
				if as_pg make -s installcheck PGHOST=/tmp PGPORT=$PORT PGUSER=postgres; then
					echo "=== PostgreSQL $PGVER: pg_regress: ok"
				else
					[ -f regression.diffs ] && cat regression.diffs
					echo "=== PostgreSQL $PGVER: pg_regress: FAILED"
					failed=1
				fi
				# the update chain (and the whole suite on the updated
				# database), and the tests of 1.0 against this library
				for t in upgrade_chain old_release; do
					echo "=== PostgreSQL $PGVER: test/$t.sh"
					if as_pg env PGHOST=/tmp PGPORT=$PORT PGUSER=postgres bash test/$t.sh; then
						echo "=== PostgreSQL $PGVER: test/$t.sh: ok"
					else
						echo "=== PostgreSQL $PGVER: test/$t.sh: FAILED"
						failed=1
					fi
				done
				as_pg $bin/pg_ctl -D "$data" -m immediate stop >/dev/null || true
				;;
			tap) tap+=(test/t/*.pl) ;;
			pg_upgrade) ;;
			*) tap+=("$w") ;;
			esac
		done
		if [ -n "$CITUS" ]; then
			echo "=== PostgreSQL $PGVER: Citus for the TAP test (test/citus.sh)"
			rc=0
			wait $citus_pid || rc=$?
			cat "$BUILD/citus.log"
			if [ $rc = 0 ] || [ $rc = 3 ]; then
				echo "=== PostgreSQL $PGVER: Citus for the TAP test (test/citus.sh): ok"
			else
				echo "=== PostgreSQL $PGVER: Citus for the TAP test (test/citus.sh): FAILED"
				failed=1
			fi
		fi
		if [ ${#tap[@]} -gt 0 ]; then
			echo "=== PostgreSQL $PGVER: TAP"
			if bash test/tap.sh "${tap[@]}"; then
				echo "=== PostgreSQL $PGVER: TAP: ok"
			else
				echo "=== PostgreSQL $PGVER: TAP: FAILED"
				failed=1
			fi
		fi
		# pg_upgrade.sh exits 3 (and says "not tested") when a major
		# has no server; prepare may not have installed the older one
		if [ -n "${pgu_from:-}" ]; then
			pgu_old=$(echo "$UPGRADE_FROM" | cut -d" " -f1)
			pgu_rc=3
			why=${pgu_from#none: }
			if [ -n "$pgu_pid" ]; then
				pgu_rc=0
				wait $pgu_pid || pgu_rc=$?
				cat "$BUILD/pg_upgrade.log"
				why="see above"
			else
				echo "pg_upgrade ${pgu_old:-?}->$PGVER: not tested ($why)"
			fi
			if [ $pgu_rc = 3 ] && [ "$pgu_old->$PGVER" = "$REQUIRED" ]; then
				echo "=== pg_upgrade $pgu_old->$PGVER: must be tested ($why): FAILED"
				failed=1
			elif [ $pgu_rc != 0 ] && [ $pgu_rc != 3 ]; then
				grep -q "^=== .*: FAILED$" "$BUILD/pg_upgrade.log" ||
					echo "=== pg_upgrade $pgu_old->$PGVER: exited with status $pgu_rc: FAILED"
				failed=1
			fi
		fi
		exit $failed
	' && inside "$script" BUILD="$dir" PGVER="$v" PORT="$port" WHAT="${what[*]}" \
		CITUS="$citus" UPGRADE_FROM="${PG_UPGRADE_FROM:-${upgrade_from[$suite]:-}}" \
		REQUIRED="$pg_upgrade_required" || status=$?
	if [ $status = 0 ] || [ -z "${KEEP_FAILED:-}" ]; then
		rm -rf "${root:?}$dir"
	else
		echo "chroot.sh: kept $root$dir" >&2
	fi
	return $status
}

# Runs a benchmark script of the checkout inside the chroot, against its
# server.  The loopback benchmarks (sql_bench_lib.sh's bench_clusters_init)
# need nothing the chroot lacks: ss, where missing, is replaced by a
# connection attempt to find free ports; the source's commit comes from
# BENCH_SOURCE (the copy has no .git).  fdw_bench.sh and autojoin_bench.sh
# read TCP counters with ss and say so if it is missing.
run_bench() {
	local src=$here v dir status=0 script_path
	if [ $# -gt 0 ] && [ -d "$1" ]; then
		src=$1
		shift
	fi
	[ $# -ge 1 ] || usage
	script_path=$1
	shift
	if [ ! -f "$src/$script_path" ]; then
		echo "chroot.sh: no $script_path in $src" >&2
		exit 2
	fi
	v=$(pgver_of_chroot)
	local source_id
	source_id=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?')
	if git -C "$src" status --porcelain -- src sql Makefile 2>/dev/null | grep -q .; then
		source_id+=" + uncommitted changes in src/, sql/ or Makefile"
	fi
	dir=$(copy_in "$src")
	chroot "$root" chown -R postgres: "$dir"
	# the arguments, quoted for the shell inside
	printf '%q ' "$@" >"$root$dir/.bench-args"
	script='
		set -e
		cd "$BUILD"
		export PG_CONFIG=/usr/lib/postgresql/$PGVER/bin/pg_config
		echo "=== PostgreSQL $PGVER ($SUITE): build with -Werror and install"
		if runuser -u postgres -- make -s WERROR=1 2>&1 && make -s install >/dev/null; then
			:
		else
			echo "=== PostgreSQL $PGVER: build with -Werror and install: FAILED"
			exit 1
		fi
		eval "set -- $(cat .bench-args)"
		[ -n "$SHAPES" ] || unset SHAPES
		[ -n "$BENCH_BASE_PORT" ] || unset BENCH_BASE_PORT
		echo "=== PostgreSQL $PGVER ($SUITE): bash $SCRIPT $*"
		bash "$SCRIPT" "$@"
	' && inside "$script" BUILD="$dir" PGVER="$v" SUITE="$suite" SCRIPT="$script_path" \
		BENCH_SOURCE="$source_id" SHAPES="${SHAPES:-}" BENCH_BASE_PORT="${BENCH_BASE_PORT:-}" || status=$?
	rm -rf "${root:?}$dir"
	return $status
}

case $cmd in
	prepare) prepare ;;
	build) build "$@" ;;
	test) run_tests "$@" ;;
	bench) run_bench "$@" ;;
	shell)
		[ -d "$root/usr" ] || { echo "chroot.sh: no chroot at $root" >&2; exit 3; }
		inside 'exec bash -i'
		;;
	*) usage ;;
esac
