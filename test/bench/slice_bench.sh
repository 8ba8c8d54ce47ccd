#!/usr/bin/env bash
# Benchmark of the bloomslice access method (bloomfilter_slice_ops) against
# a sequential scan and the GiST operator class, in the same run: "which stored filters may
# contain key x" (f @> x) and "which are supersets of q" (f @>> q), with
# index sizes, build times, the cost of single-row inserts (median, 99th
# percentile, largest: the one that moves the pending area into blocks)
# and the probes' time with the pending area holding those rows.  The
# bloomslice index runs twice: as the planner chooses (its plan is printed:
# a plain index scan, which returns rows in heap order and leaves no Filter
# on the table), and forced into a bitmap scan ("slice bitmap").
#
#   bash test/bench/slice_bench.sh                        20,000 and 100,000 filters
#   SLICE_BENCH_SCALES=2000 bash test/bench/slice_bench.sh    a quick check
#
# Runs against the server of the PG* environment variables (a private one:
# it creates and drops the database slice_bench) with the extension
# installed there (make install); or, with --own-cluster, against a
# throwaway cluster of PG_CONFIG's install that it starts (shared_buffers
# 2 GB) and removes, which is how it runs against PostgreSQL 17 or 18 in
# the chroots of test/chroot.sh:
#
#   bash test/chroot.sh bench sid test/bench/slice_bench.sh --own-cluster \
#       SLICE_BENCH_SCALES=100000
#
# Arguments of the form SLICE_BENCH_*=VALUE set those variables.
# Environment:
#   SLICE_BENCH_SCALES   numbers of stored filters (default "20000 100000")
#   SLICE_BENCH_KEYS     probe keys per round (default 50)
#   SLICE_BENCH_SUPER    superset queries per round (default 10)
#   SLICE_BENCH_ROUNDS   timed rounds, after one warm-up round (default 3)
#   SLICE_BENCH_CASES    "a b" (default) or one of them
#   SLICE_BENCH_INSERTS  single-row inserts timed (default 4000)
#
# Tables (n filters each): case a, one geometry: bloom_agg(k, 1000, 0.01)
# of 1,000 keys per filter (10240 bits, 7 hashes, blocked: about half the
# bits set); case b, self-sized bloom_agg(k) of 50 to 2,000 keys per filter
# (512 to 32768 bits, 7 geometries).  Filter i holds the keys 1 +
# |hashint8(i * 10000 + j)| mod (100 n), so a key is held by about ten
# filters.  Probe keys are keys of filters spread over the table; a
# superset query is 3 keys of one stored filter, at that filter's
# geometry.  Every query runs as its own statement (planned and executed,
# timed on the server) in one session; a round runs them under each plan in
# turn, the order rotating every round; each plan's EXPLAIN is checked
# first, and every query's count must agree across the plans.  Each index
# variant runs with the table's other indexes dropped in a transaction that
# is rolled back.  Inserts: SLICE_BENCH_INSERTS
# copies of stored filters, one INSERT each, into the table with only the
# bloomslice index (rolled back too); then the probes run again with those
# rows pending ("slice+pending").  Timings are reported, never asserted.
set -euo pipefail

own_cluster=
for arg in "$@"; do
	case $arg in
		--own-cluster) own_cluster=1 ;;
		SLICE_BENCH_*=*) export "${arg?}" ;;
		*) echo "slice_bench.sh: unknown argument $arg" >&2; exit 2 ;;
	esac
done
if [ -n "$own_cluster" ]; then
	# shellcheck source=sql_bench_lib.sh
	. "$(dirname "$0")/sql_bench_lib.sh"
	bench_clusters_init slice
	bench_cluster_start main "shared_buffers = 2GB" "max_wal_size = 4GB"
	export PGHOST=$work PGPORT=${bench_port[main]} PGUSER=postgres
fi

scales=${SLICE_BENCH_SCALES:-20000 100000}
nkeys=${SLICE_BENCH_KEYS:-50}
nsuper=${SLICE_BENCH_SUPER:-10}
rounds=${SLICE_BENCH_ROUNDS:-3}
cases=${SLICE_BENCH_CASES:-a b}
ninserts=${SLICE_BENCH_INSERTS:-4000}
db=slice_bench

psql_run() {
	psql -X -q -v ON_ERROR_STOP=1 "$@"
}

echo "== machine"
echo "nproc:  $(nproc)"
echo "cpu:    $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server: $(psql -X -At -d postgres -c 'SHOW server_version')," \
	"shared_buffers $(psql -X -At -d postgres -c 'SHOW shared_buffers')"
# the bitmap heap scan looks every page up twice when it prefetches (on by
# default), and the TLB misses of a large shared_buffers without huge pages
# weigh on an index scan's few random pages more than on a sequential scan
echo "        effective_io_concurrency $(psql -X -At -d postgres -c 'SHOW effective_io_concurrency')," \
	"huge_pages $(psql -X -At -d postgres -c 'SHOW huge_pages')," \
	"work_mem $(psql -X -At -d postgres -c 'SHOW work_mem')"
root=$(cd "$(dirname "$0")/../.." && pwd)
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
	echo "source: $(git -C "$root" rev-parse --short HEAD)"
elif [ -n "${BENCH_SOURCE:-}" ]; then
	echo "source: $BENCH_SOURCE"
fi
echo

psql_run -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	if [ -n "$own_cluster" ]; then bench_clusters_cleanup; fi' EXIT

psql_run -d "$db" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;

CREATE TABLE results (scale int, tcase text, variant text, kind text,
	round int, qno int, ms float8, n bigint);
CREATE TABLE builds (scale int, tcase text, variant text, build_s float8,
	index_mb float8, table_mb float8);

-- the keys of filter i in a table of n filters
CREATE FUNCTION bench_keys(i int, nk int, n int) RETURNS int[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg((abs(hashint8(i::int8 * 10000 + j)) % (100::int8 * n) + 1)::int)
	FROM generate_series(1, nk) j
$$;

-- drop_others(tab, variant): drops the table's indexes other than the
-- variant's (the caller rolls the drop back)
CREATE FUNCTION drop_others(tab text, variant text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	v text;
BEGIN
	IF variant = 'seq' THEN
		RETURN;
	END IF;
	FOREACH v IN ARRAY ARRAY['gist', 'slice'] LOOP
		IF v <> split_part(variant, '+', 1) THEN
			EXECUTE format('DROP INDEX IF EXISTS %I', tab || '_' || v);
		END IF;
	END LOOP;
END $$;

-- run_inserts(tab, n, first_id): n single-row inserts of stored filters,
-- each timed; json rows of inserts
CREATE TABLE inserts (scale int, tcase text, i int, ms float8);
CREATE FUNCTION run_inserts(scale int, tcase text, tab text, n int) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	fs bloomfilter[];
	t0 timestamptz;
	out inserts[] := '{}';
BEGIN
	EXECUTE format('SELECT array_agg(f ORDER BY id) FROM %I WHERE id <= %s', tab, n) INTO fs;
	FOR i IN 1 .. array_length(fs, 1) LOOP
		t0 := clock_timestamp();
		EXECUTE format('INSERT INTO %I VALUES ($1, $2)', tab) USING -i, fs[i];
		out := out || ROW(scale, tcase, i, extract(epoch FROM clock_timestamp() - t0) * 1000)::inserts;
	END LOOP;
	RETURN array_to_json(out);
END $$;

-- run_queries(tab, variant, kind, round, queries): each query under the
-- plan of variant (seq, gist or slice), timed; the other index of the table
-- is dropped for the index variants (the caller rolls the drop back, so
-- the rows of results come back as json, to be inserted after that).
CREATE FUNCTION run_queries(scale int, tcase text, tab text, variant text,
	kind text, rnd int, queries text[]) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	cnt bigint;
	out results[] := '{}';
BEGIN
	PERFORM set_config('enable_seqscan', (variant = 'seq')::text, true);
	PERFORM set_config('enable_indexscan', (variant NOT IN ('seq', 'slice+bitmap'))::text, true);
	PERFORM set_config('enable_bitmapscan', (variant <> 'seq')::text, true);
	PERFORM drop_others(tab, variant);
	FOR q IN 1 .. array_length(queries, 1) LOOP
		t0 := clock_timestamp();
		EXECUTE queries[q] INTO cnt;
		out := out || ROW(scale, tcase, variant, kind, rnd, q,
			extract(epoch FROM clock_timestamp() - t0) * 1000, cnt)::results;
	END LOOP;
	RETURN array_to_json(out);
END $$;

-- the plan of a query under variant, checked to be the intended one
CREATE FUNCTION plan_ok(tab text, variant text, q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
	want text := CASE variant WHEN 'seq' THEN 'Seq Scan on ' || tab
		WHEN 'slice+bitmap' THEN 'Bitmap Index Scan on ' || tab || '_slice'
		ELSE 'Index Scan (on|using) ' || tab || '_' || split_part(variant, '+', 1) END;
BEGIN
	PERFORM set_config('enable_seqscan', (variant = 'seq')::text, true);
	PERFORM set_config('enable_indexscan', (variant NOT IN ('seq', 'slice+bitmap'))::text, true);
	PERFORM set_config('enable_bitmapscan', (variant <> 'seq')::text, true);
	PERFORM drop_others(tab, variant);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF plan !~ want THEN
		RAISE EXCEPTION 'plan for % is not %: %', variant, want, plan;
	END IF;
	RETURN substring(plan FROM '((Bitmap )?Index Scan (using|on) \S+|Seq Scan on \S+)');
END $$;
SQL

for n in $scales; do
	for c in $cases; do
		t=${c}_$n
		echo "== case $c, $n filters: table $t"
		if [ "$c" = a ]; then
			nk_expr="1000"
			agg="bloom_agg(x, 1000, 0.01)"
		else
			nk_expr="50 + abs(hashint4(i)) % 1951"
			agg="bloom_agg(x)"
		fi
		psql_run -d "$db" <<SQL
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET maintenance_work_mem = '1GB';
\timing on
\echo '   filling the table'
CREATE TABLE $t AS
SELECT i AS id, (SELECT $agg FROM unnest(bench_keys(i, $nk_expr, $n)) x) AS f
FROM generate_series(1, $n) i;
VACUUM ANALYZE $t;
\timing off
SELECT (bloom_info(f)).layout, (bloom_info(f)).bits, (bloom_info(f)).hashes, count(*) AS filters,
	round(avg((bloom_info(f)).fill_ratio)::numeric, 2) AS fill
FROM $t GROUP BY 1, 2, 3 ORDER BY 2;

-- the table's own size, before any index
CREATE TEMP TABLE tsize AS SELECT pg_total_relation_size('$t') / 1048576.0 AS mb;

-- probe keys (key 1 + g % 7 of spread filters) and superset queries (3
-- keys of a spread filter, at its geometry)
CREATE TABLE ${t}_q AS
SELECT 'probe' AS kind, g AS qno,
	format('SELECT count(*) FROM $t WHERE f @> %s', (bench_keys(1 + (g - 1) * ($n / $nkeys), 1 + g % 7, $n))[1 + g % 7]) AS q
FROM generate_series(1, $nkeys) g
UNION ALL
SELECT 'superset', g, format('SELECT count(*) FROM $t WHERE f @>> %L::bloomfilter',
	bloom_add_all(bloom_empty_bits(b.bits, b.hashes, b.layout, b.seed), (bench_keys(s.id, 3, $n))))
FROM generate_series(1, $nsuper) g
JOIN $t s ON s.id = 7 + (g - 1) * ($n / $nsuper),
	LATERAL bloom_info(s.f) b;

\echo '   CREATE INDEX (GiST, siglen 256)'
DO \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	CREATE INDEX ${t}_gist ON $t USING gist (f);
	INSERT INTO builds SELECT $n, '$c', 'gist', extract(epoch FROM clock_timestamp() - t0),
		pg_relation_size('${t}_gist') / 1048576.0, (SELECT mb FROM tsize);
END \$\$;
\echo '   CREATE INDEX (bloomslice)'
DO \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	CREATE INDEX ${t}_slice ON $t USING bloomslice (f);
	INSERT INTO builds SELECT $n, '$c', 'slice', extract(epoch FROM clock_timestamp() - t0),
		pg_relation_size('${t}_slice') / 1048576.0, (SELECT mb FROM tsize);
END \$\$;
SELECT CASE WHEN sum(index_mb) + max(table_mb) > pg_size_bytes(current_setting('shared_buffers')) / 1048576.0
	THEN 'WARNING: table and indexes (' || round((sum(index_mb) + max(table_mb))::numeric) ||
		' MB) do not fit in shared_buffers (' || current_setting('shared_buffers') || '): times are not of cached data'
	ELSE 'table and indexes fit in shared_buffers' END AS cache
FROM builds WHERE scale = $n AND tcase = '$c';

-- warm the caches
SELECT sum(pg_prewarm(c)) >= 0 AS prewarmed FROM unnest(ARRAY['$t'::regclass, '${t}_gist', '${t}_slice']) c
	\gset
SELECT sum(pg_prewarm(reltoastrelid)) >= 0 AS prewarmed FROM pg_class WHERE relname = '$t' AND reltoastrelid <> 0 \gset
SQL
		vs=(seq gist slice slice+bitmap)
		script=$(mktemp)
		{
			echo '\set ON_ERROR_STOP 1'
			echo 'SET max_parallel_workers_per_gather = 0;'
			echo 'SET client_min_messages = warning;'
			for v in "${vs[@]}"; do
				for kind in probe superset; do
					echo "BEGIN; SELECT plan_ok('$t', '$v', (SELECT q FROM ${t}_q WHERE kind = '$kind' AND qno = 1)) AS plan \\gset"
					echo "ROLLBACK;"
					echo "\\echo '   plan of $v, $kind:' :'plan'"
				done
			done
			echo "\\echo '   plans checked: ${vs[*]}'"
			for ((r = 0; r <= rounds; r++)); do
				for ((j = 0; j < ${#vs[@]}; j++)); do
					v=${vs[$(((j + r) % ${#vs[@]}))]}
					for kind in probe superset; do
						echo "BEGIN;"
						echo "SELECT run_queries($n, '$c', '$t', '$v', '$kind', $r, ARRAY(SELECT q FROM ${t}_q WHERE kind = '$kind' ORDER BY qno)) AS rows \\gset"
						echo "ROLLBACK;"
						echo "INSERT INTO results SELECT * FROM json_populate_recordset(NULL::results, :'rows');"
					done
				done
				echo "\\echo '   round $r of $rounds done'"
			done
			# single-row inserts into the table with only the bloomslice
			# index, then the probes with those rows pending
			echo "BEGIN;"
			echo "SELECT drop_others('$t', 'slice') \\gset"
			echo "SELECT run_inserts($n, '$c', '$t', $ninserts) AS ins \\gset"
			for ((r = 1; r <= rounds; r++)); do
				for kind in probe superset; do
					echo "SELECT run_queries($n, '$c', '$t', 'slice+pending', '$kind+pending', $r, ARRAY(SELECT q FROM ${t}_q WHERE kind = '$kind' ORDER BY qno)) AS rows_${r}_$kind \\gset"
				done
			done
			echo "ROLLBACK;"
			for ((r = 1; r <= rounds; r++)); do
				for kind in probe superset; do
					echo "INSERT INTO results SELECT * FROM json_populate_recordset(NULL::results, :'rows_${r}_$kind');"
				done
			done
			echo "INSERT INTO inserts SELECT * FROM json_populate_recordset(NULL::inserts, :'ins');"
			echo "\\echo '   inserts done'"
		} >"$script"
		psql_run -d "$db" -f "$script"
		rm -f "$script"
		psql_run -d "$db" <<SQL
-- every query's count agrees across the plans
DO \$\$
DECLARE bad int;
BEGIN
	SELECT count(*) INTO bad FROM (
		SELECT kind, qno FROM results WHERE scale = $n AND tcase = '$c'
		  AND kind NOT LIKE '%+pending'
		GROUP BY kind, qno HAVING count(DISTINCT n) > 1) d;
	IF bad > 0 THEN
		RAISE EXCEPTION 'case $c, $n filters: % queries give different counts under different plans', bad;
	END IF;
END \$\$;
DROP TABLE $t;
SQL
	done
done

# ---- report ----------------------------------------------------------------
psql_run -d "$db" <<SQL
\pset footer off
\echo
\echo '== sizes and build times (table: pg_total_relation_size before any index; index: pg_relation_size)'
SELECT scale AS filters, tcase AS "case", round(max(table_mb)::numeric, 1) AS "table MB",
	round(max(index_mb) FILTER (WHERE variant = 'gist')::numeric, 1) AS "GiST MB",
	round(max(build_s) FILTER (WHERE variant = 'gist')::numeric, 1) AS "GiST build s",
	round(max(index_mb) FILTER (WHERE variant = 'slice')::numeric, 1) AS "slice MB",
	round(max(build_s) FILTER (WHERE variant = 'slice')::numeric, 2) AS "slice build s",
	round((max(build_s) FILTER (WHERE variant = 'slice') / max(build_s) FILTER (WHERE variant = 'gist'))::numeric, 2) AS "slice/GiST build"
FROM builds GROUP BY 1, 2 ORDER BY 1, 2;
\echo
\echo '== per-query time, ms: median over $rounds rounds of every query (warm-up round left out); ratio to the sequential scan'
WITH m AS (
	SELECT scale, tcase, kind, variant,
		percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS med,
		sum(n) / count(DISTINCT round) AS rows_per_round, count(DISTINCT qno) AS queries
	FROM results WHERE round > 0 GROUP BY 1, 2, 3, 4)
SELECT s.scale AS filters, s.tcase AS "case", s.kind AS query, s.queries,
	round(s.rows_per_round / s.queries, 1) AS "rows/query",
	round(s.med::numeric, 2) AS "seq ms",
	round(g.med::numeric, 2) AS "GiST ms",
	round(b.med::numeric, 3) AS "slice ms",
	round(bb.med::numeric, 3) AS "slice bitmap ms",
	round(p.med::numeric, 3) AS "slice+pending ms",
	round((g.med / s.med)::numeric, 3) AS "GiST/seq",
	round((b.med / s.med)::numeric, 4) AS "slice/seq",
	round((bb.med / s.med)::numeric, 4) AS "slice bitmap/seq",
	round((p.med / s.med)::numeric, 4) AS "slice+pending/seq"
FROM m s
LEFT JOIN m g ON (g.scale, g.tcase, g.kind, g.variant) = (s.scale, s.tcase, s.kind, 'gist')
LEFT JOIN m b ON (b.scale, b.tcase, b.kind, b.variant) = (s.scale, s.tcase, s.kind, 'slice')
LEFT JOIN m bb ON (bb.scale, bb.tcase, bb.kind, bb.variant) = (s.scale, s.tcase, s.kind, 'slice+bitmap')
LEFT JOIN m p ON (p.scale, p.tcase, p.kind, p.variant) = (s.scale, s.tcase, s.kind || '+pending', 'slice+pending')
WHERE s.variant = 'seq'
ORDER BY 1, 2, 3 DESC;
\echo
\echo '== the same as total time per round (ms, median of the rounds)'
WITH r AS (
	SELECT scale, tcase, kind, variant, round, sum(ms) AS ms FROM results WHERE round > 0 GROUP BY 1, 2, 3, 4, 5),
m AS (SELECT scale, tcase, kind, variant, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS med FROM r GROUP BY 1, 2, 3, 4)
SELECT scale AS filters, tcase AS "case", kind AS query,
	round(max(med) FILTER (WHERE variant = 'seq')::numeric, 1) AS "seq ms",
	round(max(med) FILTER (WHERE variant = 'gist')::numeric, 1) AS "GiST ms",
	round(max(med) FILTER (WHERE variant = 'slice')::numeric, 2) AS "slice ms",
	round(max(med) FILTER (WHERE variant = 'slice+bitmap')::numeric, 2) AS "slice bitmap ms",
	round(max(med) FILTER (WHERE variant = 'slice+pending')::numeric, 2) AS "slice+pending ms"
FROM m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 DESC;
\echo
\echo '== single-row INSERT into the table with only the bloomslice index (ms; the largest moves the pending area into blocks)'
SELECT scale AS filters, tcase AS "case", count(*) AS inserts,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS "median ms",
	round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS "p99 ms",
	round(max(ms)::numeric, 1) AS "max ms"
FROM inserts GROUP BY 1, 2 ORDER BY 1, 2;
SQL
