#!/usr/bin/env bash
# Counting Bloom filter figures: measured FPR against the target, bytes per
# key (4- and 8-bit counters, and the plain bloomfilter), false negatives
# after removes, saturation, and removes of keys never added.
#
#   bash test/bench/counting_bench.sh            n = 10k, 100k, 1M; p = 1%, 0.1%
#   bash test/bench/counting_bench.sh --quick    n = 10k, 100k
#
# Core only (no PostgreSQL): the SQL functions call exactly this code.
# Nothing is timed, so the figures do not depend on the machine.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

CC=${CC:-gcc}
bin=test/bench/counting_bench

echo "== build"
cmd=("$CC" -O2 -std=c11 -Wall -Wextra -Werror -Isrc/core -o "$bin"
	test/bench/counting_bench.c src/core/*.c -lm)
echo "${cmd[*]}"
"${cmd[@]}"
echo

echo "== run"
exec "./$bin" "$@"
