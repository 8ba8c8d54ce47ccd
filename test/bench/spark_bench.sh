#!/bin/bash
# spark_bench.sh: layout 'spark' (Spark's BloomFilter) beside 'blocked', in
# the same run on the same server: build speed (bloom_add_all of N int8
# keys into bloom_empty(N, FPR, layout)), probe speed (bloom_contains_all
# of N keys not added), the measured false-positive rate of those probes,
# and the size; then the size of a blocked filter at the FPR spark
# measured (bloom_empty(N, measured, 'blocked')).  Ratios are spark over
# blocked.  No time is asserted.
#
#   PGHOST=... PGPORT=... PGUSER=... bash test/bench/spark_bench.sh
#
# The server is the one of PGHOST/PGPORT/PGUSER, with the extension
# installed (a private copy, or a pg_virtualenv).  Environment (optional):
# BENCH_N (1000000), BENCH_FPR (0.01), BENCH_REPS (3).
set -euo pipefail

N=${BENCH_N:-1000000}
FPR=${BENCH_FPR:-0.01}
REPS=${BENCH_REPS:-3}
db=spark_bench_$$

psql -X -q -d postgres -c "CREATE DATABASE $db" >/dev/null
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null' EXIT

PGOPTIONS="-c bench.n=$N -c bench.fpr=$FPR -c bench.reps=$REPS" psql -X -q -d "$db" <<'SQL'
\set ON_ERROR_STOP on
CREATE EXTENSION bloomfilter;
SET jit = off;
CREATE TABLE keys AS
SELECT array_agg(g::bigint) AS members, array_agg(-g::bigint - 1) AS others
FROM generate_series(1, current_setting('bench.n')::bigint) g;
CREATE TABLE runs (layout text, rep int, build_ms float8, probe_ms float8,
                        fpr float8, bytes bigint);
DO $$
DECLARE
	n bigint := current_setting('bench.n')::bigint;
	p float8 := current_setting('bench.fpr')::float8;
	reps int := current_setting('bench.reps')::int;
	m bigint[];
	o bigint[];
	f bloomfilter;
	layout text;
	t0 timestamptz;
	t1 timestamptz;
	ans bool[];
	hits bigint;
BEGIN
	SELECT members, others INTO m, o FROM keys;
	-- interleaved, after one warm-up round each
	FOR r IN 0 .. reps LOOP
		FOREACH layout IN ARRAY ARRAY['blocked', 'spark'] LOOP
			t0 := clock_timestamp();
			f := bloom_add_all(bloom_empty(n, p, layout), m);
			t1 := clock_timestamp();
			ans := bloom_contains_all(f, o);
			SELECT count(*) FILTER (WHERE a) INTO hits FROM unnest(ans) a;
			IF r > 0 THEN
				INSERT INTO runs VALUES (layout, r,
					extract(epoch FROM t1 - t0) * 1000,
					extract(epoch FROM clock_timestamp() - t1) * 1000,
					hits::float8 / n, octet_length(f::bytea));
			END IF;
		END LOOP;
	END LOOP;
END $$;
SQL
echo "spark_bench: N=$N keys (int8), FPR=$FPR, best of $REPS"
psql -X -q -d "$db" -v N="$N" -v FPR="$FPR" <<'SQL'
SELECT layout, round(min(build_ms)::numeric, 1) AS build_ms,
       round((min(build_ms) * 1e6 / :N)::numeric, 1) AS build_ns_per_key,
       round(min(probe_ms)::numeric, 1) AS probe_ms,
       round((min(probe_ms) * 1e6 / :N)::numeric, 1) AS probe_ns_per_key,
       round(avg(fpr)::numeric, 5) AS measured_fpr, max(bytes) AS bytes
FROM runs GROUP BY layout ORDER BY layout;
WITH s AS (SELECT layout, min(build_ms) b, min(probe_ms) p, avg(fpr) f, max(bytes) z
           FROM runs GROUP BY layout)
SELECT round((sp.b / bl.b)::numeric, 2) AS build_ratio_spark_over_blocked,
       round((sp.p / bl.p)::numeric, 2) AS probe_ratio_spark_over_blocked,
       round((sp.z::float8 / bl.z)::numeric, 2) AS size_ratio_same_target,
       octet_length(bloom_empty(:N, greatest(sp.f, 1e-9), 'blocked')::bytea) AS blocked_bytes_at_spark_measured_fpr,
       round((sp.z::float8 / octet_length(bloom_empty(:N, greatest(sp.f, 1e-9), 'blocked')::bytea))::numeric, 2)
         AS size_ratio_at_equal_measured_fpr
FROM s sp, s bl WHERE sp.layout = 'spark' AND bl.layout = 'blocked';
SQL
