#!/bin/bash
# Installs what building and testing bloomfilter needs, from Debian's
# packages.  Idempotent: on a machine that has everything it installs nothing.
set -euo pipefail

PKGS="build-essential postgresql-15 postgresql-server-dev-15 postgresql-common
libxxhash-dev libipc-run-perl libbloom-dev postgresql-15-hll
clang-14 libclang-rt-14-dev valgrind iproute2"

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
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
else
	echo "deps: all present"
fi
