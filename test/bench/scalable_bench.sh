#!/bin/bash
# scalable_bench.sh: scalable filters against their target rate, side by
# side with a bloomfilter sized up front for the final number of keys and
# with the self-sizing bloom_agg.
#
#   flock /tmp/bloomfilter-install.lock bash test/bench/scalable_bench.sh
#
# (It installs the extension: on a machine shared with other branches, hold
# the install lock for the whole run.)
#
# First, without a server, the schedule's cost by growth factor and
# tightening ratio (test/bench/scalable_schedule.c): the measurement behind
# the defaults.  Then, on a throwaway cluster (pg_virtualenv -t), for n in
# BENCH_NS (10000 100000 1000000) integer keys 1..n:
#   sbloom_empty(1000) + bloom_add_all(keys)   growth 2 (default) and 4
#   sbloom_agg(key)                            bloom_agg at the first level's rate
#   bloom_empty(n, 0.01) + bloom_add_all(keys) sized up front, knowing n
#   bloom_agg(key)                             self-sizing
# each probed with BENCH_PROBES (1000000) keys that are not in the set; the
# table gives the measured false-positive rate against the 1% target, the
# estimate (bloom_fpr), bytes per key, the number of sub-filters, the time
# to build and the time per probe (wall clock, one run: indicative only,
# nothing is asserted).
set -euo pipefail

BENCH_SERVER_OPTS=(shared_buffers=256MB)
if [[ -z "${BF_BENCH_INSIDE:-}" ]]; then
	root="$(cd "$(dirname "$0")/../.." && pwd)"
	sched=$(mktemp)
	gcc -O2 -I"$root/src/core" -o "$sched" "$root/test/bench/scalable_schedule.c" "$root"/src/core/bf_*.c -lm
	echo "== schedule: growth s, tightening r; filter started at 1000 keys, 1% target, blocked"
	"$sched"
	rm -f "$sched"
	echo
fi
# shellcheck source=test/bench/sql_bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/sql_bench_lib.sh"
bench_setup_outside "$@"

ns=${BENCH_NS:-10000 100000 1000000}
probes=${BENCH_PROBES:-1000000}

psql_run -v probes="$probes" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
SET jit = off;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE result (variant text, n int, bytes bigint, filters int, est_fpr float8,
	measured float8, build_ms float8, probe_ns float8);

-- build: an expression giving a filter from the table keys(k); probes of
-- absent keys go through a scalar subquery, so each probe sees one cached
-- filter, as a WHERE clause with a filter parameter does
CREATE FUNCTION bench(variant text, n int, build text, probes int) RETURNS void
LANGUAGE plpgsql AS $f$
DECLARE
	t0 timestamptz;
	t1 timestamptz;
	t2 timestamptz;
	hits bigint;
BEGIN
	DROP TABLE IF EXISTS f;
	t0 := clock_timestamp();
	EXECUTE format('CREATE TEMP TABLE f AS SELECT %s AS f FROM keys WHERE k <= %s', build, n);
	t1 := clock_timestamp();
	SELECT count(*) INTO hits FROM generate_series(1000000001, 1000000000 + probes) g
	WHERE g <@ (SELECT f FROM f);
	t2 := clock_timestamp();
	EXECUTE format($q$INSERT INTO result
		SELECT %L, %s, i.bytes, %s, i.est_fpr, %s::float8 / %s,
			extract(epoch FROM %L::timestamptz - %L::timestamptz) * 1000,
			extract(epoch FROM %L::timestamptz - %L::timestamptz) * 1e9 / %s
		FROM f, bloom_info(f.f) i$q$,
		variant, n,
		CASE WHEN pg_typeof((SELECT f FROM f))::text = 'scalablebloom'
			THEN '(SELECT filters FROM sbloom_settings(f.f))' ELSE '1' END,
		hits, probes, t1, t0, t2, t1, probes);
END
$f$;
CREATE TABLE keys AS SELECT k FROM generate_series(1, 1000000) k;
SQL

for n in $ns; do
	psql_run -v n="$n" -v probes="$probes" <<'SQL'
\o /dev/null
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SELECT bench('scalable s=2 r=0.85 (default)', :n, 'bloom_add_all(sbloom_empty(1000), array_agg(k))', :probes);
SELECT bench('scalable s=4 r=0.85', :n, 'bloom_add_all(sbloom_empty(1000, growth => 4), array_agg(k))', :probes);
SELECT bench('scalable s=2 r=0.5', :n, 'bloom_add_all(sbloom_empty(1000, tightening => 0.5), array_agg(k))', :probes);
SELECT bench('sbloom_agg(k)', :n, 'sbloom_agg(k)', :probes);
SELECT bench('bloom_empty(n, 0.01), sized up front', :n, format('bloom_add_all(bloom_empty(%s, 0.01), array_agg(k))', :n), :probes);
SELECT bench('bloom_agg(k), self-sizing', :n, 'bloom_agg(k)', :probes);
SQL
done

echo "== results: $probes absent probes per filter; target 1%"
psql_run <<'SQL'
SELECT n, variant, filters, bytes, round(bytes::numeric / n, 2) AS bytes_per_key,
	round(measured::numeric, 5) AS measured_fpr, round(est_fpr::numeric, 5) AS est_fpr,
	CASE WHEN measured <= 0.01 THEN 'yes' ELSE 'NO' END AS under_target,
	round(build_ms::numeric) AS build_ms, round(probe_ns::numeric) AS probe_ns
FROM result ORDER BY n, variant;
SQL
