#!/bin/bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined),
# writes the seed corpus, and fuzzes each target for a while.
#   bash test/fuzz/run.sh            60 s per target (test/run-all.sh sets
#                                    FUZZ_SECONDS=30)
#   FUZZ_SECONDS=3600 bash test/fuzz/run.sh   the long run
# Crashes are saved as test/fuzz/crash-*; each one becomes a file in
# test/fuzz/regressions/, which every run replays first.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-$(mktemp -d)}
CC=${FUZZ_CC:-clang-14}
common=(-g -O1 -fno-sanitize-recover=all -Isrc/core)
flags=("${common[@]}" -fsanitize=fuzzer,address,undefined)
core=(src/core/bf_format.c src/core/bf_combine.c src/core/bf_estimate.c
	src/core/bf_sizing.c src/core/bf_base64.c src/core/bf_hashes.c
	src/core/bf_counting.c src/core/bf_window.c src/core/bf_scalable.c
	src/core/bf_batch.c src/core/bf_simd.c src/core/bf_aggstate.c
	src/core/bf_problem.c src/core/bf_spark.c src/core/bf_parquet.c)

gcc -O1 -Isrc/core -o "$out/make_corpus" test/fuzz/make_corpus.c "${core[@]}" -lm
mkdir -p "$out/corpus"
"$out/make_corpus" "$out/corpus"

# the core is built once, instrumented for coverage, and linked into
# every target (building it per target took most of the run)
objs=()
for src in "${core[@]}"; do
	obj="$out/$(basename "$src" .c).o"
	$CC "${common[@]}" -fsanitize=fuzzer-no-link,address,undefined -c -o "$obj" "$src" &
	objs+=("$obj")
done
wait

status=0
for target in fuzz_validate fuzz_base64 fuzz_counting fuzz_window fuzz_scalable \
	fuzz_scalable_walk fuzz_aggstate fuzz_aggstate_text fuzz_problem fuzz_spark fuzz_parquet; do
	$CC "${flags[@]}" -o "$out/$target" "test/fuzz/$target.c" "${objs[@]}" -lm
	# replay the saved regressions before exploring
	if compgen -G "test/fuzz/regressions/*" >/dev/null; then
		"$out/$target" test/fuzz/regressions/* || status=1
	fi
	mkdir -p "$out/work-$target"
	echo "fuzz: $target for ${seconds}s"
	if ! "$out/$target" -max_total_time="$seconds" -max_len=20000 \
		-artifact_prefix=test/fuzz/ -print_final_stats=1 \
		"$out/work-$target" "$out/corpus" 2>"$out/$target.log"; then
		status=1
		tail -40 "$out/$target.log"
	fi
	grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$target.log" || true
done
exit $status
