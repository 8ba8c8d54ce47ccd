#!/bin/bash
# engines_bench.sh: the layouts other engines use ('spark', 'parquet') beside
# 'blocked', in the same run on the same server, for each key type asked:
# build speed (bloom_add_all of N keys into bloom_empty(N, FPR, layout)),
# probe speed (bloom_contains_all of N keys not added), the measured
# false-positive rate of those probes, and the size; then the size of a
# blocked filter at the FPR each layout measured (bloom_empty(N, measured,
# 'blocked')).  Ratios are each layout over blocked, with the same keys.
# No time is asserted.
#
#   PGHOST=... PGPORT=... PGUSER=... bash test/bench/engines_bench.sh
#   BENCH_LAYOUTS="parquet" BENCH_KEYS="int8 text" bash test/bench/engines_bench.sh
#
# Two probe times are reported: "probe" is the call and the count of its
# true answers (an unnest of the answer array in PL/pgSQL), as
# spark_bench.sh has measured it from the start; "call" is the
# bloom_contains_all call alone, where the layouts' own costs show.
# Keys: int8 are 1..N (added) and -1..-N (probed); text are 'k' || g and
# 'x' || g, ASCII, so text hashing is measured without an encoding
# conversion (a UTF8 database).  Layout blocked is always run: it is the
# baseline.
#
# The server is the one of PGHOST/PGPORT/PGUSER, with the extension
# installed (a private copy, or a pg_virtualenv).  Environment (optional):
# BENCH_N (1000000), BENCH_FPR (0.01), BENCH_REPS (3),
# BENCH_LAYOUTS ("spark parquet"), BENCH_KEYS ("int8 text").
set -euo pipefail

N=${BENCH_N:-1000000}
FPR=${BENCH_FPR:-0.01}
REPS=${BENCH_REPS:-3}
LAYOUTS=${BENCH_LAYOUTS:-spark parquet}
KEYS=${BENCH_KEYS:-int8 text}
db=engines_bench_$$

for k in $KEYS; do
	case $k in
		int8|text) ;;
		*) echo "engines_bench: key type $k: int8 or text" >&2; exit 2 ;;
	esac
done
for l in $LAYOUTS; do
	case $l in
		spark|parquet|classic) ;;
		*) echo "engines_bench: layout $l: spark, parquet or classic" >&2; exit 2 ;;
	esac
done
layouts_csv=$(echo "blocked $LAYOUTS" | tr -s ' ' ',')
keys_csv=$(echo "$KEYS" | tr -s ' ' ',')

psql -X -q -d postgres -c "CREATE DATABASE $db TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null' EXIT

PGOPTIONS="-c bench.n=$N -c bench.fpr=$FPR -c bench.reps=$REPS -c bench.layouts=$layouts_csv -c bench.keys=$keys_csv" \
	psql -X -q -d "$db" <<'SQL'
\set ON_ERROR_STOP on
CREATE EXTENSION bloomfilter;
SET jit = off;
CREATE TABLE keys_int8 AS
SELECT array_agg(g::bigint) AS members, array_agg(-g::bigint - 1) AS others
FROM generate_series(1, current_setting('bench.n')::bigint) g;
CREATE TABLE keys_text AS
SELECT array_agg('k' || g) AS members, array_agg('x' || g) AS others
FROM generate_series(1, current_setting('bench.n')::bigint) g;
CREATE TABLE runs (keys text, layout text, rep int, build_ms float8,
				   call_ms float8, probe_ms float8, fpr float8, bytes bigint);
-- one procedure a key type: PL/pgSQL arrays of a fixed element type
CREATE FUNCTION run_int8(layouts text[]) RETURNS void LANGUAGE plpgsql AS $$
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
	t2 timestamptz;
	ans bool[];
	hits bigint;
BEGIN
	SELECT members, others INTO m, o FROM keys_int8;
	-- interleaved, after one warm-up round each
	FOR r IN 0 .. reps LOOP
		FOREACH layout IN ARRAY layouts LOOP
			t0 := clock_timestamp();
			f := bloom_add_all(bloom_empty(n, p, layout), m);
			t1 := clock_timestamp();
			ans := bloom_contains_all(f, o);
			t2 := clock_timestamp();
			SELECT count(*) FILTER (WHERE a) INTO hits FROM unnest(ans) a;
			IF r > 0 THEN
				INSERT INTO runs VALUES ('int8', layout, r,
					extract(epoch FROM t1 - t0) * 1000,
					extract(epoch FROM t2 - t1) * 1000,
					extract(epoch FROM clock_timestamp() - t1) * 1000,
					hits::float8 / n, octet_length(f::bytea));
			END IF;
		END LOOP;
	END LOOP;
END $$;
CREATE FUNCTION run_text(layouts text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	n bigint := current_setting('bench.n')::bigint;
	p float8 := current_setting('bench.fpr')::float8;
	reps int := current_setting('bench.reps')::int;
	m text[];
	o text[];
	f bloomfilter;
	layout text;
	t0 timestamptz;
	t1 timestamptz;
	t2 timestamptz;
	ans bool[];
	hits bigint;
BEGIN
	SELECT members, others INTO m, o FROM keys_text;
	FOR r IN 0 .. reps LOOP
		FOREACH layout IN ARRAY layouts LOOP
			t0 := clock_timestamp();
			f := bloom_add_all(bloom_empty(n, p, layout), m);
			t1 := clock_timestamp();
			ans := bloom_contains_all(f, o);
			t2 := clock_timestamp();
			SELECT count(*) FILTER (WHERE a) INTO hits FROM unnest(ans) a;
			IF r > 0 THEN
				INSERT INTO runs VALUES ('text', layout, r,
					extract(epoch FROM t1 - t0) * 1000,
					extract(epoch FROM t2 - t1) * 1000,
					extract(epoch FROM clock_timestamp() - t1) * 1000,
					hits::float8 / n, octet_length(f::bytea));
			END IF;
		END LOOP;
	END LOOP;
END $$;
DO $$
DECLARE
	l text[] := string_to_array(current_setting('bench.layouts'), ',');
	k text;
BEGIN
	FOREACH k IN ARRAY string_to_array(current_setting('bench.keys'), ',') LOOP
		IF k = 'int8' THEN
			PERFORM run_int8(l);
		ELSE
			PERFORM run_text(l);
		END IF;
	END LOOP;
END $$;
SQL
echo "engines_bench: N=$N keys ($KEYS), FPR=$FPR, best of $REPS; layouts blocked $LAYOUTS"
psql -X -q -d "$db" -v N="$N" <<'SQL'
SELECT keys, layout, round((min(build_ms) * 1e6 / :N)::numeric, 1) AS build_ns_per_key,
       round((min(probe_ms) * 1e6 / :N)::numeric, 1) AS probe_ns_per_key,
       round((min(call_ms) * 1e6 / :N)::numeric, 1) AS call_ns_per_key,
       round(avg(fpr)::numeric, 5) AS measured_fpr, max(bytes) AS bytes
FROM runs GROUP BY keys, layout ORDER BY keys, layout <> 'blocked', layout;
WITH s AS (SELECT keys, layout, min(build_ms) b, min(probe_ms) p, min(call_ms) c,
                  avg(fpr) f, max(bytes) z
           FROM runs GROUP BY keys, layout)
SELECT x.keys, x.layout, round((x.b / bl.b)::numeric, 2) AS build_ratio,
       round((x.p / bl.p)::numeric, 2) AS probe_ratio,
       round((x.c / bl.c)::numeric, 2) AS call_ratio,
       round((x.z::float8 / bl.z)::numeric, 2) AS size_ratio_same_target,
       octet_length(bloom_empty(:N, greatest(x.f, 1e-9), 'blocked')::bytea) AS blocked_bytes_at_measured_fpr,
       round((x.z::float8 / octet_length(bloom_empty(:N, greatest(x.f, 1e-9), 'blocked')::bytea))::numeric, 2)
         AS size_ratio_at_equal_measured_fpr
FROM s x JOIN s bl ON bl.keys = x.keys AND bl.layout = 'blocked'
WHERE x.layout <> 'blocked' ORDER BY x.keys, x.layout;
SQL
