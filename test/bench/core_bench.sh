#!/usr/bin/env bash
# Benchmark of the pure C core against Debian's libbloom (libbloom-dev).
#
#   bash test/bench/core_bench.sh            full run (N = 1M, 10M; p = 1%, 0.1%)
#   bash test/bench/core_bench.sh --quick    N = 1M, p = 1% only
#   bash test/bench/core_bench.sh -n 1e7 -p 0.01 -r 5   one configuration
#
# Run from anywhere; builds test/bench/core_bench (git-ignored) with the
# portable flags the extension ships with (-O2, no -march=native).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

CC=${CC:-gcc}
bin=test/bench/core_bench

echo "== machine"
echo "nproc: $(nproc)"
echo "cpu:   $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')"
echo "kernel: $(uname -sr)"
echo "cc:    $($CC --version | head -n1)"
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo

echo "== build"
cmd=("$CC" -O2 -std=c11 -Wall -Wextra -Isrc/core -o "$bin"
	test/bench/core_bench.c src/core/*.c -lbloom -lm)
echo "${cmd[*]}"
if ! "${cmd[@]}"; then
	echo "core_bench.sh: build failed" >&2
	exit 1
fi
echo

echo "== run"
exec "./$bin" "$@"
