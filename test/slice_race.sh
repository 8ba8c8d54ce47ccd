#!/bin/bash
# A bloomslice race reproduced step by step, gdb holding two backends at
# chosen points (no timing: each step waits for the one before).  Not run
# by CI (it needs gdb, root to attach to the server's backends, and the
# extension built with debug information, as PGXS builds it by default).
#
#   1. VACUUM of a table whose row 5 (key 777) is deleted: held in
#      walk_blocks, its flush of the pending area done.
#   2. Row 100 (no key 777) inserted: pending, visible to what follows.
#   3. A scan `f @>> q` (q holds key 777): held in scan_block after it has
#      ANDed the block's slices (row 5's column is a candidate) and before
#      it reads the candidates' TIDs from the block's head.
#   4. VACUUM let go: row 5's column is freed.
#   5. 401 inserts fill the pending area: its flush moves row 100 into the
#      freed column.
#   6. The scan let go: it must return what a sequential scan returns
#      (nothing).  Before the scan held the head's share lock through
#      step 3, it returned row 100 with row 5's answer, unrechecked; now
#      steps 4 and 5 wait for the scan.
#
# Usage (as root, against a running server with bloomfilter installed):
#   PGHOST=/tmp PGPORT=5432 [PG_CONFIG=...] bash test/slice_race.sh
# Exit status 0: the index answered as the sequential scan; 1: it did not;
# 2: a step failed.
set -u
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
command -v gdb >/dev/null || { echo "slice_race.sh: gdb is not installed" >&2; exit 2; }
line=$(grep -n 'ReleaseBuffer(r.buf);' src/index/slice/bf_slice_scan.c | head -1 | cut -d: -f1)
[ -n "$line" ] || { echo "slice_race.sh: no slice release in src/index/slice/bf_slice_scan.c" >&2; exit 2; }
d=$(mktemp -d /tmp/slice_race.XXXXXX)
chmod 777 "$d"
psql_() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -U "${PGUSER:-postgres}" -d "${PGDATABASE:-postgres}" "$@"; }
# waits for a file a step leaves (a step that hangs ends the run)
waitf() {
	for _ in $(seq 1 "${2:-600}"); do [ -f "$1" ] && return 0; sleep 0.1; done
	return 1
}
# gdb script: stop at $2, say so, wait for the go, let go
hold() {
	cat >"$d/$1.gdb" <<G
set pagination off
set breakpoint pending on
break $2
shell touch $d/$1.attached
continue
shell touch $d/$1.held
shell while [ ! -f $d/$1.go ]; do sleep 0.1; done
delete
detach
quit
G
	gdb -batch -p "$(cat "$d/$1.pid")" -x "$d/$1.gdb" >"$d/$1.gdb.log" 2>&1 &
}

psql_ <<'SQL' || exit 2
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS slice_race;
CREATE TABLE slice_race (id int, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO slice_race SELECT i, bloom_add_all(bloom_empty_bits(1024, 3, 'classic'),
	CASE WHEN i = 5 THEN ARRAY[5, 777] ELSE ARRAY[i] END) FROM generate_series(1, 20) i;
CREATE INDEX slice_race_bs ON slice_race USING bloomslice (f) WITH (pending_limit = 64);
DELETE FROM slice_race WHERE id = 5;
SQL
q="SELECT id FROM slice_race WHERE f @>> bloom_add(bloom_empty_bits(1024, 3, 'classic'), 777)"

# 1
psql_ >"$d/vacuum.out" 2>&1 <<SQL &
SELECT pg_backend_pid() \g $d/vacuum.pid
\! while [ ! -f $d/vacuum.attached ]; do sleep 0.1; done
VACUUM slice_race;
\! touch $d/vacuum.done
SQL
waitf "$d/vacuum.pid" && hold vacuum walk_blocks && waitf "$d/vacuum.held" ||
	{ echo "step 1: VACUUM not held (see $d)"; exit 2; }
echo "1. VACUUM held after its flush"
# 2
psql_ -c "INSERT INTO slice_race VALUES (100, bloom_add_all(bloom_empty_bits(1024, 3, 'classic'), ARRAY[100]))" || exit 2
echo "2. row 100 pending"
# 3
psql_ >"$d/scan.out" 2>&1 <<SQL &
SET enable_seqscan = off;
SELECT pg_backend_pid() \g $d/scan.pid
\! while [ ! -f $d/scan.attached ]; do sleep 0.1; done
$q;
\! touch $d/scan.done
SQL
waitf "$d/scan.pid" && hold scan "index/slice/bf_slice_scan.c:$line" && waitf "$d/scan.held" ||
	{ echo "step 3: scan not held (see $d)"; exit 2; }
echo "3. scan held between its slices and its TIDs"
# 4
touch "$d/vacuum.go"
if waitf "$d/vacuum.done" 50; then echo "4. VACUUM done"; else echo "4. VACUUM waits for the scan"; fi
# 5
( psql_ -c "DO \$\$ BEGIN FOR i IN 1000 .. 1400 LOOP
	INSERT INTO slice_race VALUES (i, bloom_add_all(bloom_empty_bits(1024, 3, 'classic'), ARRAY[i]));
	END LOOP; END \$\$" && touch "$d/insert.done" ) &
if waitf "$d/insert.done" 100; then echo "5. inserts done: pending area flushed"; else echo "5. inserts wait for the scan"; fi
# 6
touch "$d/scan.go"
waitf "$d/scan.done" && waitf "$d/vacuum.done" && waitf "$d/insert.done" ||
	{ echo "step 6: a session did not finish (see $d)"; exit 2; }
got=$(grep -v '^$' "$d/scan.out" | tr '\n' ' ')
want=$(psql_ -c "SET enable_bitmapscan = off" -c "$q" | tr '\n' ' ')
echo "6. index scan: [$got]  sequential scan: [$want]"
psql_ -c "DROP TABLE slice_race"
rm -rf "$d"
[ "$got" = "$want" ] || { echo "slice_race.sh: FAILED: the index answered rows the sequential scan does not"; exit 1; }
echo "slice_race.sh: ok"
