#!/bin/bash
# maxsize_dump.sh: builds the largest value of each type of the extension
# and checks that it can be selected as text, copied out (text and binary),
# copied back in, dumped with pg_dump (plain and custom) and restored, and
# that every restored value has the same bytes, is equal to a fresh build and
# answers its keys.
#
# Run it by hand, never in CI: each value is ~800 MB binary and ~1 GB text;
# a step holds up to ~5.5 GB in the server backend and ~2 GB in the client, a
# case takes 10 to 20 minutes, and the work directory needs ~1 GB at a time.
# Cases run one after another.
#
#   PG_CONFIG=... PGHOST=... PGPORT=... PGUSER=... bash test/maxsize_dump.sh [case ...]
#
# Cases: bloomfilter countingbloom bloomwindow scalablebloom (default: all).
# The server must run this tree's build (make install): the largest sizes
# are computed from this tree's src/core headers.  The script drops and
# creates the databases bf_maxsize_src and bf_maxsize_dst, and keeps its
# files in $MAXSIZE_DIR (default: a new directory under ${TMPDIR:-/tmp}).
#
# Why it matters: PostgreSQL builds a row's text in a StringInfo, which
# cannot grow past MaxAllocSize - 1 = 1073741822 bytes (enlargeStringInfo).
# A value whose text form is stored but cannot be built into a DataRow or a
# COPY line can never be displayed or dumped.
set -u
cd "$(dirname "$0")/.."

PG_CONFIG=${PG_CONFIG:-pg_config}
BIN=$("$PG_CONFIG" --bindir) || exit 1
PSQL=("$BIN/psql" -X -q -v ON_ERROR_STOP=1)
SRC=bf_maxsize_src
DST=bf_maxsize_dst
DIR=${MAXSIZE_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bf_maxsize.XXXXXX")}
mkdir -p "$DIR" || exit 1
[ -z "${MAXSIZE_DIR:-}" ] && trap 'rm -rf "$DIR"' EXIT
CASES=("$@")
[ ${#CASES[@]} -eq 0 ] && CASES=(bloomfilter countingbloom bloomwindow scalablebloom)
FAILED=0

# The limits, from this tree's core, and the arguments of
# bloom_window_empty(width, 1, capacity, fpr, 'classic') that make the
# largest one-bucket window: its sizing (bf_size_for, at the bucket rate
# window_geometry() derives) must land exactly on the largest bit array.
cat > "$DIR/limits.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include "bf_core.h"
#include "bf_counting.h"
#include "bf_window.h"
#include "bf_scalable.h"
int
main(void)
{
	/* the largest classic bit array a one-bucket window / one-entry container holds */
	uint64_t	w = (BF_MAX_TOTAL_BYTES - bfw_buffer_size(1, 0)) / 8 * 64;
	uint64_t	s = (BF_MAX_TOTAL_BYTES - BFS_HEADER_SIZE - BFS_ENTRY_HEADER_SIZE -
					 BF_HEADER_SIZE) / 8 * 64;
	static const double rates[] = {0.0078125, 0.01, 0.001, 0.05};
	double		wn = 0,
				wp = 0;

	w = w < BF_MAX_NBITS ? w : BF_MAX_NBITS;
	s = s < BF_MAX_NBITS ? s : BF_MAX_NBITS;
	for (int i = 0; i < 4 && wn == 0; i++)
	{
		double		p = -expm1(log1p(-rates[i]) / 1);
		double		n0 = floor((double) w * log(2) * log(2) / -log(p));

		for (double n = n0 + 50; n > n0 - 2000 && wn == 0; n--)
		{
			uint64_t	nbits;
			int			k;

			if (bf_size_for(BF_LAYOUT_CLASSIC, n, p, &nbits, &k) && nbits == w)
			{
				wn = n;
				wp = rates[i];
			}
		}
	}
	printf("%llu %llu %llu %llu %llu %.0f %.17g\n", (unsigned long long) BF_MAX_TOTAL_BYTES,
		   (unsigned long long) BF_MAX_NBITS, (unsigned long long) BFC_MAX_COUNTERS(4),
		   (unsigned long long) w, (unsigned long long) s, wn, wp);
	return 0;
}
EOF
cc -O1 -Isrc/core -o "$DIR/limits" "$DIR/limits.c" src/core/bf_sizing.c src/core/bf_estimate.c -lm || exit 1
read -r MAX_TOTAL MAX_NBITS MAX_COUNTERS4 WINDOW_NBITS SCALABLE_NBITS WINDOW_N WINDOW_P < <("$DIR/limits")
STRING_MAX=1073741822			# MaxAllocSize - 1: the most a StringInfo holds
echo "work directory $DIR"
echo "BF_MAX_TOTAL_BYTES $MAX_TOTAL, BF_MAX_NBITS $MAX_NBITS, BFC_MAX_COUNTERS(4) $MAX_COUNTERS4"
echo "largest classic m: one-bucket bloomwindow $WINDOW_NBITS (capacity $WINDOW_N at rate $WINDOW_P), one-entry scalablebloom $SCALABLE_NBITS"

# The postmaster (the parent of every backend), if this user may ask; else
# the server's memory is not sampled.
PM=$("${PSQL[@]}" -At -d postgres -c "SELECT split_part(pg_read_file('postmaster.pid'), E'\\n', 1)" 2>/dev/null)

# Peak RSS (kB) of any backend of the postmaster, sampled every 0.1 s until
# killed; RSS counts the shared buffers a backend touched.
sample_server()
{
	local peak=0 r c
	trap 'echo $peak; exit 0' TERM
	[ -z "$PM" ] && while :; do sleep 1; done
	while :; do
		for c in $(pgrep -P "$PM"); do
			r=$(awk '/^VmRSS:/ {print $2}' "/proc/$c/status" 2>/dev/null)
			[ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
		done
		sleep 0.1
	done
}

# step NAME SHELL-COMMAND: runs it, prints status, time and peak memory of
# client and server; the command's stdout is kept in $DIR/out.
step()
{
	local name=$1 cmd=$2 rc spid secs cpeak speak
	sample_server > "$DIR/server_peak" &
	spid=$!
	/usr/bin/time -f '%e %M' -o "$DIR/time" bash -c "$cmd" > "$DIR/out" 2> "$DIR/err"
	rc=$?
	kill "$spid"
	wait "$spid"
	read -r secs cpeak < <(tail -1 "$DIR/time")
	speak=$(cat "$DIR/server_peak")
	[ -n "$PM" ] && speak="$((speak / 1024)) MB" || speak="-"
	printf '  %-44s %-4s %7.1f s  client %5d MB  server %8s\n' "$name" \
		"$([ $rc -eq 0 ] && echo ok || echo FAIL)" "$secs" $((cpeak / 1024)) "$speak"
	if [ $rc -ne 0 ]; then
		FAILED=1
		grep -v '^Command exited' "$DIR/err" | head -5 | sed 's/^/      /'
	fi
	return $rc
}

# check_out EXPECTED: the last step printed exactly that
check_out()
{
	if [ "$(cat "$DIR/out")" != "$1" ]; then
		printf '      FAIL: printed %s, not %s\n' "$(head -c 200 "$DIR/out")" "$1"
		FAILED=1
		return 1
	fi
}

psrc() { echo "${PSQL[*]} -d $SRC"; }
pdst() { echo "${PSQL[*]} -d $DST"; }

# restored TABLE: the restored value in $DST has the source's bytes, equals a
# fresh build and answers every key, and not the absent one.  One query each,
# and the probes from one call site, so that the value is detoasted once at a
# time: a query detoasts it once per call site, ~800 MB each.
restored()
{
	step "  $1: same bytes" "$(pdst) -At -c \"SELECT md5(f::bytea) = '$MD5' FROM $1\"" && check_out t
	step "  $1: equal to a fresh build" "$(pdst) -At -c \"SELECT $EQUAL FROM $1\"" && check_out t
	step "  $1: probes of 1, 7 (absent), 42, 1000000" "$(pdst) -At -c \"SELECT array_agg($PROBE ORDER BY k) FROM $1, unnest(ARRAY[1, 7, 42, 1000000]) k\"" &&
		check_out '{t,f,t,t}'
}

run_case()
{
	local type=$1 want=$2 build=$3 equal=$4 probe=$5 len text sum

	echo
	echo "== $type"
	EQUAL=$equal
	PROBE=$probe
	for db in $SRC $DST; do
		"$BIN/dropdb" --if-exists "$db" && "$BIN/createdb" "$db" &&
			"${PSQL[@]}" -d "$db" -c 'CREATE EXTENSION bloomfilter' || exit 1
	done
	step "build and store" "$(psrc) -c \"CREATE TABLE t (f $type); INSERT INTO t SELECT $build\"" || return
	step "size" "$(psrc) -At -c \"SELECT octet_length(b), md5(b) FROM (SELECT f::bytea AS b FROM t OFFSET 0) s\"" || return
	read -r len MD5 < <(tr '|' ' ' < "$DIR/out")
	text=$(( (len + 2) / 3 * 4 ))
	echo "  bytes $len, text $text; DataRow of one column $((text + 6)), COPY line $((text + 1)); a StringInfo holds $STRING_MAX"
	if [ "$len" != "$want" ]; then
		echo "  FAIL: the value has $len bytes, not the largest $type's $want"
		FAILED=1
	fi

	# the text form, as psql receives it from a SELECT
	step "SELECT f (text) in psql" "$(psrc) -At -c 'SELECT f FROM t' > $DIR/select.txt" &&
		step "  its base64 decodes to the bytes" "[ \$(stat -c %s $DIR/select.txt) -eq $((text + 1)) ] && [ \"\$(head -c $text $DIR/select.txt | base64 -d | md5sum | cut -d' ' -f1)\" = $MD5 ]" &&
		sum=$(md5sum < "$DIR/select.txt") &&
		# a client encoding other than the server's converts the whole text
		step "SELECT f, client_encoding LATIN1" "PGCLIENTENCODING=LATIN1 $(psrc) -At -c 'SELECT f FROM t' | md5sum" &&
		check_out "$sum"
	rm -f "$DIR/select.txt"

	# COPY out and back in
	step "COPY TO STDOUT (text)" "$(psrc) -c 'COPY t TO STDOUT' > $DIR/copy.txt && [ \$(stat -c %s $DIR/copy.txt) -eq $((text + 1)) ]" &&
		step "COPY FROM STDIN (text) into $DST" "$(pdst) -c 'CREATE TABLE t_text (f $type)' -c 'COPY t_text FROM STDIN' < $DIR/copy.txt" &&
		restored t_text
	rm -f "$DIR/copy.txt"
	step "COPY TO STDOUT (binary)" "$(psrc) -c 'COPY t TO STDOUT (FORMAT binary)' > $DIR/copy.bin" &&
		step "COPY FROM STDIN (binary) into $DST" "$(pdst) -c 'CREATE TABLE t_bin (f $type)' -c 'COPY t_bin FROM STDIN (FORMAT binary)' < $DIR/copy.bin" &&
		restored t_bin
	rm -f "$DIR/copy.bin"

	# pg_dump and restore
	step "pg_dump -Fp" "$BIN/pg_dump -d $SRC -t t -f $DIR/dump.sql" &&
		step "  psql -f into $DST" "$(pdst) -f $DIR/dump.sql" &&
		restored t
	rm -f "$DIR/dump.sql"
	"${PSQL[@]}" -d $DST -c 'DROP TABLE t'
	step "pg_dump -Fc" "$BIN/pg_dump -d $SRC -t t -Fc -f $DIR/dump.custom" &&
		step "  pg_restore into $DST" "$BIN/pg_restore -d $DST --exit-on-error $DIR/dump.custom" &&
		restored t
	echo "  custom dump: $(stat -c %s "$DIR/dump.custom" 2>/dev/null) bytes"
	rm -f "$DIR/dump.custom"
}

# Each case: the type, an expression that builds its largest value from a
# few keys (deterministic, so the restored side can build it again), an
# equality test of f against it, and the probe of key k.
KEYS='ARRAY[1, 42, 1000000]'
T0="'2024-01-01 00:00:00+00'::timestamptz"
for c in "${CASES[@]}"; do
	case $c in
		bloomfilter)
			b="bloom_add_all(bloom_empty_bits($MAX_NBITS, 7, 'blocked'), $KEYS)"
			run_case bloomfilter $((52 + MAX_NBITS / 8)) "$b" "f = $b" "k <@ f"
			;;
		countingbloom)
			b="cbloom_add(cbloom_add(cbloom_add(cbloom_empty_counters($MAX_COUNTERS4, 7, 'blocked', 0, 4), 1), 42), 1000000)"
			run_case countingbloom $((52 + MAX_COUNTERS4 / 2)) "$b" "f::bytea = ($b)::bytea" "cbloom_contains(f, k)"
			;;
		bloomwindow)
			if [ "$WINDOW_N" = 0 ]; then
				echo "no capacity makes the largest window; skipped" >&2
				FAILED=1
				continue
			fi
			b="bloom_window_add(bloom_window_add(bloom_window_add(bloom_window_empty('1 hour', 1, $WINDOW_N, $WINDOW_P, 'classic'), 1, $T0), 42, $T0), 1000000, $T0)"
			run_case bloomwindow $((128 + WINDOW_NBITS / 8)) "$b" "f::bytea = ($b)::bytea" \
				"bloom_window_contains(f, k, $T0)"
			;;
		scalablebloom)
			b="bloom_add_all(bloom_empty_bits($SCALABLE_NBITS, 7, 'classic'), $KEYS)::scalablebloom"
			run_case scalablebloom $((148 + SCALABLE_NBITS / 8)) "$b" "f::bytea = ($b)::bytea" "k <@ f"
			;;
		*)
			echo "unknown case $c" >&2
			exit 2
			;;
	esac
done

for db in $SRC $DST; do
	"$BIN/dropdb" --if-exists "$db"
done
echo
[ $FAILED -eq 0 ] && echo "all steps ok" || echo "SOME STEPS FAILED"
exit $FAILED
