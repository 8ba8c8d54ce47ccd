#!/usr/bin/env bash
# Benchmark of the GiST operator class: "which stored filters may contain
# key x" (f @> x) and "which stored filters hold all of these 10 keys"
# (f @>> q) through the index vs a sequential scan, and index size vs table
# size, on a throwaway cluster (pg_virtualenv -t).
#
#   bash test/bench/gist_bench.sh                 100k filters, siglen 256 and 1024
#   bash test/bench/gist_bench.sh -n 20000 -s "256 512 1024 1920" -r 5
#
# Options: -n filters (default 100000), -s siglen values (default "256 1024"),
# -r runs per probe, best kept (default 5), -k probe keys (default 10).
#
# Two tables of n filters, each built by bloom_agg from 50 to 200 keys (so
# self-sized: 512 to 4096 bits, blocked, 1%):
#   clustered  filter i holds the keys 10i+1 .. 10i+(50..200), stored in
#              order of i: a window that slides with i, as the filters of
#              the days, files or partitions of an id-ordered stream do;
#              neighbouring filters share most of their keys.
#   random     every filter holds unrelated random keys: the worst case for
#              a signature tree (no two filters look alike).
#   fixed      random keys as above, but every filter has one geometry,
#              bloom_empty(1000) (1.3 KB, so that any two can be unioned),
#              and holds 50-200 keys: filters sparse for their size.
# Each probe key is one some filters hold; each superset query is a filter
# of 10 keys one stored filter holds, built at the largest stored size.
# Times are the best of -r runs per query, summed over the queries, with
# parallel query off (one core each).
# Requires the extension to be installed (make install).
set -euo pipefail

rows=100000
siglens="256 1024"
runs=5
nkeys=10
while getopts "n:s:r:k:" opt; do
	case $opt in
		n) rows=$OPTARG ;;
		s) siglens=$OPTARG ;;
		r) runs=$OPTARG ;;
		k) nkeys=$OPTARG ;;
		*) echo "usage: $0 [-n filters] [-s 'siglen ...'] [-r runs] [-k keys]" >&2; exit 2 ;;
	esac
done

sql=$(mktemp /tmp/gist_bench.XXXXXX.sql)
trap 'rm -f "$sql"' EXIT

cat > "$sql" <<EOF
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION bloomfilter;

-- best-of-N milliseconds of a count(*) query with index or sequential scan
CREATE FUNCTION best_ms(q text, use_index boolean, runs int, OUT ms float8, OUT n bigint)
LANGUAGE plpgsql AS \$\$
DECLARE
	t0 timestamptz;
BEGIN
	PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
	PERFORM set_config('enable_indexscan', use_index::text, true);
	PERFORM set_config('enable_bitmapscan', use_index::text, true);
	ms := 'Infinity';
	FOR r IN 1 .. runs LOOP
		t0 := clock_timestamp();
		EXECUTE q INTO n;
		ms := least(ms, extract(epoch FROM clock_timestamp() - t0) * 1000);
	END LOOP;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
END \$\$;

CREATE TABLE clustered AS
SELECT i AS id, bloom_agg(i::int8 * 10 + j) AS f
FROM generate_series(1, $rows) i, LATERAL generate_series(1, 50 + i % 151) j
GROUP BY i ORDER BY i;
CREATE TABLE random AS
SELECT i AS id, bloom_agg(hashint8(i::int8 * 1000 + j)::int8) AS f
FROM generate_series(1, $rows) i, LATERAL generate_series(1, 50 + i % 151) j
GROUP BY i ORDER BY i;
CREATE TABLE fixed AS
SELECT i AS id, bloom_add_all(bloom_empty(1000),
	ARRAY(SELECT hashint8(i::int8 * 1000 + j)::int8 FROM generate_series(1, 50 + i % 151) j)) AS f
FROM generate_series(1, $rows) i ORDER BY i;
VACUUM ANALYZE clustered;
VACUUM ANALYZE random;
VACUUM ANALYZE fixed;

-- probe keys, and superset queries of 10 keys, held by filters spread
-- over the table
CREATE TABLE keys AS
SELECT 'clustered' AS tab, g AS n, (($rows / ($nkeys + 1)) * g)::int8 * 10 + 3 AS k FROM generate_series(1, $nkeys) g
UNION ALL
SELECT 'random', g, hashint8((($rows / ($nkeys + 1)) * g)::int8 * 1000 + 3)::int8 FROM generate_series(1, $nkeys) g
UNION ALL
SELECT 'fixed', g, hashint8((($rows / ($nkeys + 1)) * g)::int8 * 1000 + 3)::int8 FROM generate_series(1, $nkeys) g;
CREATE TABLE queries AS
SELECT 'clustered' AS tab, g AS n,
	bloom_add_all(bloom_empty_bits(4096, (SELECT (bloom_info(f)).hashes FROM clustered LIMIT 1), 'blocked'),
		ARRAY(SELECT (($rows / ($nkeys + 1)) * g)::int8 * 10 + j FROM generate_series(1, 10) j)) AS q
FROM generate_series(1, $nkeys) g
UNION ALL
SELECT 'random', g,
	bloom_add_all(bloom_empty_bits(4096, (SELECT (bloom_info(f)).hashes FROM random LIMIT 1), 'blocked'),
		ARRAY(SELECT hashint8((($rows / ($nkeys + 1)) * g)::int8 * 1000 + j)::int8 FROM generate_series(1, 10) j))
FROM generate_series(1, $nkeys) g
UNION ALL
SELECT 'fixed', g,
	bloom_add_all(bloom_empty(1000),
		ARRAY(SELECT hashint8((($rows / ($nkeys + 1)) * g)::int8 * 1000 + j)::int8 FROM generate_series(1, 10) j))
FROM generate_series(1, $nkeys) g;

CREATE TABLE results (tab text, siglen int, table_mb numeric, index_mb numeric,
	build_s numeric, seq_ms numeric, index_ms numeric, rows bigint,
	sup_seq_ms numeric, sup_index_ms numeric, sup_rows bigint);
EOF

for s in $siglens; do
	for t in clustered random fixed; do
		cat >> "$sql" <<EOF
DO \$\$
DECLARE
	t0 timestamptz := clock_timestamp();
	build float8;
	seq float8 := 0;
	idx float8 := 0;
	nseq bigint := 0;
	nidx bigint := 0;
	sseq float8 := 0;
	sidx float8 := 0;
	nsseq bigint := 0;
	nsidx bigint := 0;
	r record;
	q text;
BEGIN
	EXECUTE 'CREATE INDEX ${t}_f ON $t USING gist (f bloomfilter_gist_ops (siglen = $s))';
	build := extract(epoch FROM clock_timestamp() - t0);
	FOR r IN SELECT k FROM keys WHERE tab = '$t' ORDER BY n LOOP
		q := format('SELECT count(*) FROM $t WHERE f @> %s::int8', r.k);
		SELECT seq + ms, nseq + n INTO seq, nseq FROM best_ms(q, false, $runs);
		SELECT idx + ms, nidx + n INTO idx, nidx FROM best_ms(q, true, $runs);
	END LOOP;
	FOR r IN SELECT queries.q AS qf FROM queries WHERE tab = '$t' ORDER BY n LOOP
		q := format('SELECT count(*) FROM $t WHERE f @>> %L::bloomfilter', r.qf);
		SELECT sseq + ms, nsseq + n INTO sseq, nsseq FROM best_ms(q, false, $runs);
		SELECT sidx + ms, nsidx + n INTO sidx, nsidx FROM best_ms(q, true, $runs);
	END LOOP;
	IF nseq <> nidx OR nsseq <> nsidx THEN
		RAISE EXCEPTION 'index scans found % and % rows, sequential scans % and %',
			nidx, nsidx, nseq, nsseq;
	END IF;
	INSERT INTO results VALUES ('$t', $s,
		round(pg_table_size('$t') / 1048576.0, 1),
		round(pg_relation_size('${t}_f') / 1048576.0, 1),
		round(build::numeric, 1), round(seq::numeric, 1), round(idx::numeric, 1), nseq,
		round(sseq::numeric, 1), round(sidx::numeric, 1), nsseq);
	EXECUTE 'DROP INDEX ${t}_f';
END \$\$;
EOF
	done
done

cat >> "$sql" <<EOF
\echo
\echo '$rows filters of 50-200 keys; $nkeys queries of each kind, best of $runs runs each'
SELECT tab AS "table", siglen, table_mb AS "table MB", index_mb AS "index MB",
	build_s AS "build s",
	seq_ms AS "f @> x: seq ms", index_ms AS "index ms",
	round(seq_ms / nullif(index_ms, 0), 2) AS speedup, rows AS "rows",
	sup_seq_ms AS "f @>> q: seq ms", sup_index_ms AS "index ms",
	round(sup_seq_ms / nullif(sup_index_ms, 0), 2) AS speedup, sup_rows AS "rows"
FROM results ORDER BY tab, siglen;
EOF

echo "== machine"
echo "nproc: $(nproc)"
echo "cpu:   $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')"
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== run ($rows filters, siglen $siglens)"
pg_virtualenv -t psql -X -q -f "$sql"
