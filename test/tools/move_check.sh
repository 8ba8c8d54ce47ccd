#!/bin/bash
# move_check.sh: are the objects instruction-identical after move.sh?
#   bash test/tools/move_check.sh save    DIR   # before move.sh: after a build (make WERROR=1), keep every .o
#   bash test/tools/move_check.sh compare DIR   # after move.sh and a new build: compare each with its moved self
# Disassembly with relocations, debug info stripped; string-section offsets
# and objdump's symbolic annotations masked (the file-name strings of
# ereport differ in length).  Prints one line per object that differs.
set -euo pipefail
mode=$1; top=${2:-.}
keep=/tmp/move_check_objs
cd "$top"
norm() {
	local t
	t=$(mktemp /tmp/move_check.XXXXXX.o)
	objcopy --strip-debug "$1" "$t"
	objdump -d -r --no-show-raw-insn "$t" | tail -n +4 |
		sed -E 's/ <[^>]*>//g; s/\.rodata(\.str1\.[0-9]+)?(\.[0-9a-z_]+)?([-+]0x[0-9a-f]+)?/.rodata+X/g'
	rm -f "$t"
}
case $mode in
save)
	rm -rf "$keep"; mkdir -p "$keep"
	# src/core/x.o as core__x.o, a glue object as its name
	find src -name '*.o' -not -path 'src/clients/*' | while read -r o; do
		case $o in src/core/*) cp "$o" "$keep/core__$(basename "$o")" ;; *) cp "$o" "$keep/$(basename "$o")" ;; esac
	done
	echo "move_check: kept $(ls "$keep" | wc -l) objects in $keep"
	;;
compare)
	declare -A MAP=([bf_counting.o]=variants/bf_countingbloom.o [bf_scalable.o]=variants/bf_scalablebloom.o
		[bf_scalable_union.o]=variants/bf_scalablebloom_union.o [bf_window.o]=variants/bf_bloomwindow.o
		[bf_agg.o]=agg/bf_agg_entry.o [bf_autojoin.o]=autojoin/bf_autojoin_hook.o
		[bf_report.o]=type/bf_type_report.o [bf_edges.o]=type/bf_type_edges.o [bf_aggstate_type.o]=agg/bf_agg_type.o [bf_detoast_cache.o]=type/bf_type_detoast.o)
	same=0; differ=0
	# the core's objects kept their names; a glue object is found by name (or MAP)
	for old in "$keep"/*.o; do
		b=$(basename "$old")
		case $b in
		core__*) new=src/core/${b#core__} ;;
		*) if [ -n "${MAP[$b]+x}" ]; then new=src/${MAP[$b]}
			else new=$(find src -name "$b" -not -path 'src/clients/*' -not -path 'src/core/*' | grep -v '^src/[^/]*\.o$' | head -1); fi ;;
		esac
		if [ -z "$new" ] || [ ! -f "$new" ]; then echo "move_check: no object for $b"; differ=$((differ+1)); continue; fi
		if cmp -s <(norm "$old") <(norm "$new"); then same=$((same+1)); else echo "move_check: $b and $new differ"; differ=$((differ+1)); fi
	done
	echo "move_check: $same instruction-identical, $differ different"
	[ $differ = 0 ]
	;;
*) echo "usage: $0 save|compare DIR" >&2; exit 2 ;;
esac
