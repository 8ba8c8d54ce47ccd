#!/bin/bash
# spark_bench.sh: layout 'spark' (Spark's BloomFilter) beside 'blocked',
# int8 keys: engines_bench.sh with BENCH_LAYOUTS=spark and BENCH_KEYS=int8
# (build speed, probe speed, the measured false-positive rate, the size,
# and the size of a blocked filter at the FPR spark measured; ratios spark
# over blocked; the method and its "probe" column unchanged since this
# script measured them alone).  No time is asserted.
#
#   PGHOST=... PGPORT=... PGUSER=... bash test/bench/spark_bench.sh
#
# Environment (optional): BENCH_N (1000000), BENCH_FPR (0.01), BENCH_REPS (3).
set -euo pipefail
BENCH_LAYOUTS=spark BENCH_KEYS=int8 exec bash "$(dirname "${BASH_SOURCE[0]}")/engines_bench.sh"
