#!/bin/bash
# batch_bench.sh: probing a stored filter with 5M keys one row at a time
# (id <@ f) against one bloom_filter_array(f, keys) call per array of keys,
# measured in the same run.
#
#   bash test/bench/batch_bench.sh
#
# Environment (optional): BENCH_ROWS (5000000), BENCH_KEYS (500000),
# BENCH_CHUNK (1000 keys per array), BENCH_REPS (5).
#
# Builds and installs the extension, starts a throwaway cluster
# (pg_virtualenv -t, shared_buffers=1GB) and creates:
#   big(id bigint)          ids 1..BENCH_ROWS
#   chunks(ids bigint[])    the same ids, BENCH_CHUNK to an array, in order
#                           (the shape of keys that arrive as arrays: an
#                           application's parameter, a stored batch)
#   filters(name, f)        'k': bloom_agg(id) over BENCH_KEYS ids of big
#                           (every 10th; blocked, self-sized: 1 MB);
#                           'z16m': a 16 MB blocked filter holding no id of
#                           big, where every probe misses the caches
# All are prewarmed into shared buffers; the filters are stored out of line.
#
# The question: given the same keys, what does a probe cost per key when
# the executor hands over one key per call, and when one call gets an array
# of them?  Variants (each SELECT returns one count):
#   rows      count(*) FROM big WHERE id <@ f            one key per call, keys as rows
#   unnest    count(*) FROM chunks, unnest(ids) id WHERE id <@ f
#                                                        one key per call, keys as arrays
#   batch     sum(cardinality(bloom_filter_array(f, ids))) FROM chunks
#                                                        one call per array
#   batchscalar  batch with bloomfilter.simd = off: the scalar batch loop,
#                the baseline of the AVX2 one (on CPUs that have AVX2)
# each for 'k' and 'z16m', and the baselines that read the same keys
# without probing: rows_base (count(*) FROM big), unnest_base (count(*) FROM
# chunks, unnest(ids)), arrays_base (sum(cardinality(ids)): reading the
# arrays).  A probe's cost per key is its variant's time over its baseline;
# for one key per call that includes the executor's cost of evaluating a
# qual per row, which is part of what a call per array saves.  Also
# one_array: bloom_filter_array(f, ARRAY(SELECT id FROM big)), the keys of a
# table gathered into one array first, over one_array_base (the gathering).
#
# Serial (max_parallel_workers_per_gather = 0), jit = off.  Variants run
# interleaved, BENCH_REPS times each after a warm-up; the report gives the
# backend's best on-CPU time (see sql_bench_lib.sh), ns per key, the probe's
# own ns per key over the matching baseline, and the ratios.  No time is
# asserted: on a shared 2-core machine only the ratios mean something.
set -euo pipefail

BENCH_SERVER_OPTS=(shared_buffers=1GB max_wal_size=4GB)
# shellcheck source=test/bench/sql_bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/sql_bench_lib.sh"
bench_setup_outside "$@"

rows=${BENCH_ROWS:-5000000}
nkeys=${BENCH_KEYS:-500000}
chunk=${BENCH_CHUNK:-1000}
reps=${BENCH_REPS:-5}
step=$((rows / nkeys))

echo "== setup: big($rows rows), chunks of $chunk ids, keys($nkeys), filters"
psql_run -v rows="$rows" -v nkeys="$nkeys" -v step="$step" -v chunk="$chunk" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE big (id bigint);
INSERT INTO big SELECT g FROM generate_series(1, :rows) g;
CREATE TABLE chunks (ids bigint[]);
INSERT INTO chunks SELECT array_agg(id ORDER BY id) FROM big GROUP BY (id - 1) / :chunk;
CREATE TABLE filters (name text, f bloomfilter);
INSERT INTO filters SELECT 'k', bloom_agg(g * :step) FROM generate_series(1, :nkeys) g;
INSERT INTO filters SELECT 'z16m', bloom_agg(g, 13300000, 0.01)
	FROM generate_series(1000000000000, 1000000000000 + 13300000 - 1) g;
VACUUM (FREEZE, ANALYZE) big, chunks, filters;
SELECT pg_prewarm('big') + pg_prewarm('chunks') + pg_prewarm(c.reltoastrelid)
	+ pg_prewarm('filters') + pg_prewarm(f.reltoastrelid) AS pages_prewarmed
	FROM pg_class c, pg_class f WHERE c.relname = 'chunks' AND f.relname = 'filters' \gset
\echo '   pages prewarmed:' :pages_prewarmed
SELECT count(*) AS arrays, min(cardinality(ids)) AS min_keys, max(cardinality(ids)) AS max_keys,
	pg_size_pretty(avg(pg_column_size(ids))) AS avg_stored
FROM chunks;
SELECT name, layout, hashes, pg_size_pretty(bytes) AS size, pg_column_size(f) > 2032 AS out_of_line
FROM filters, bloom_info(f) ORDER BY name;
SQL

for z in k z16m; do
	fz="(SELECT f FROM filters WHERE name = '$z')"
	bench_timed "rows_$z" "SELECT count(*) AS res FROM big WHERE id <@ $fz"
	bench_timed "unnest_$z" "SELECT count(*) AS res FROM chunks, unnest(ids) id WHERE id <@ $fz"
	bench_timed "batch_$z" "SELECT sum(cardinality(bloom_filter_array($fz, ids))) AS res FROM chunks"
	# the same with the scalar batch loop: set_config(..., true) lasts until
	# the end of the query's transaction, and runs before the first probe
	bench_timed "batchscalar_$z" "SELECT sum(cardinality(bloom_filter_array($fz, ids))) AS res FROM chunks WHERE set_config('bloomfilter.simd', 'off', true) = 'off'"
done
bench_timed rows_base "SELECT count(*) AS res FROM big"
bench_timed unnest_base "SELECT count(*) AS res FROM chunks, unnest(ids) id"
bench_timed arrays_base "SELECT sum(cardinality(ids)) AS res FROM chunks"
for z in k z16m; do
	bench_timed "one_array_$z" "SELECT cardinality(bloom_filter_array(f, ARRAY(SELECT id FROM big))) AS res FROM filters WHERE name = '$z'"
done
bench_timed one_array_base "SELECT cardinality(ARRAY(SELECT id FROM big)) AS res"

echo
echo "== timed runs: ${#bench_names[@]} variants, 1 warm-up + $reps repetitions, interleaved"
bench_run "$reps" "
SET max_parallel_workers_per_gather = 0;
SET jit = off;
"

echo
echo "== results ($reps repetitions; cpu: best on-CPU time of the backend, wall where not available)"
psql_run -v rows="$rows" <<'SQL'
CREATE TEMP VIEW s AS
	SELECT variant, coalesce(min(cpu_ms), min(ms)) AS best, min(ms) AS wall,
		min(result) AS res, count(DISTINCT result) AS nres
	FROM bench_result GROUP BY variant;
CREATE TEMP TABLE shape (variant text, base text, ord int, description text);
INSERT INTO shape VALUES
	('rows_base', NULL, 1, 'count(*) FROM big: read the rows (no probe)'),
	('unnest_base', NULL, 2, 'count(*) FROM chunks, unnest(ids) (no probe)'),
	('arrays_base', NULL, 3, 'sum(cardinality(ids)): read the arrays (no probe)'),
	('rows_k', 'rows_base', 4, 'id <@ f over big, 1 MB filter'),
	('unnest_k', 'unnest_base', 5, 'id <@ f over unnest(chunks), 1 MB filter'),
	('batch_k', 'arrays_base', 6, 'bloom_filter_array(f, ids), 1 MB filter'),
	('batchscalar_k', 'arrays_base', 6, '  the same, bloomfilter.simd = off'),
	('rows_z16m', 'rows_base', 7, 'id <@ f over big, 16 MB filter'),
	('unnest_z16m', 'unnest_base', 8, 'id <@ f over unnest(chunks), 16 MB filter'),
	('batch_z16m', 'arrays_base', 9, 'bloom_filter_array(f, ids), 16 MB filter'),
	('batchscalar_z16m', 'arrays_base', 9, '  the same, bloomfilter.simd = off'),
	('one_array_base', NULL, 10, 'ARRAY(SELECT id FROM big): gather the keys'),
	('one_array_k', 'one_array_base', 11, 'bloom_filter_array(f, ARRAY(...)), 1 MB filter'),
	('one_array_z16m', 'one_array_base', 12, 'bloom_filter_array(f, ARRAY(...)), 16 MB filter');
SELECT s.variant, sh.description, s.res AS result,
	round(s.best::numeric, 1) AS cpu_best_ms,
	round((s.best * 1e6 / :rows)::numeric, 1) AS ns_key,
	round(((s.best - b.best) * 1e6 / :rows)::numeric, 1) AS probe_ns_key
FROM s JOIN shape sh USING (variant) LEFT JOIN s b ON b.variant = sh.base
ORDER BY sh.ord, s.variant;

\echo 'ratios of best cpu times, one call per array against one call per key: whole queries,'
\echo 'and the probe cost per key alone (each over its baseline)'
SELECT f AS filter,
	round((bt.best / r.best)::numeric, 2) AS "batch/rows",
	round((bt.best / u.best)::numeric, 2) AS "batch/unnest",
	round((oa.best / r.best)::numeric, 2) AS "one_array/rows",
	round(((bt.best - ab.best) / (r.best - rb.best))::numeric, 2) AS "probe: batch/rows",
	round(((bt.best - ab.best) / (u.best - ub.best))::numeric, 2) AS "probe: batch/unnest",
	round(((bt.best - ab.best) / (bs.best - ab.best))::numeric, 2) AS "probe: AVX2/scalar batch"
FROM (VALUES ('k'), ('z16m')) v(f)
	JOIN s r ON r.variant = 'rows_' || f
	JOIN s u ON u.variant = 'unnest_' || f
	JOIN s bt ON bt.variant = 'batch_' || f
	JOIN s bs ON bs.variant = 'batchscalar_' || f
	JOIN s oa ON oa.variant = 'one_array_' || f,
	(SELECT best FROM s WHERE variant = 'rows_base') rb,
	(SELECT best FROM s WHERE variant = 'unnest_base') ub,
	(SELECT best FROM s WHERE variant = 'arrays_base') ab
ORDER BY f;

\echo 'answers: each variant gave one answer in every repetition, and the three shapes agree'
SELECT bool_and(nres = 1) AS stable_answers,
	(SELECT res FROM s WHERE variant = 'rows_k') = (SELECT res FROM s WHERE variant = 'batch_k')
	AND (SELECT res FROM s WHERE variant = 'unnest_k') = (SELECT res FROM s WHERE variant = 'batch_k')
	AND (SELECT res FROM s WHERE variant = 'one_array_k') = (SELECT res FROM s WHERE variant = 'batch_k')
	AND (SELECT res FROM s WHERE variant = 'rows_z16m') = (SELECT res FROM s WHERE variant = 'batch_z16m')
	AND (SELECT res FROM s WHERE variant = 'unnest_z16m') = (SELECT res FROM s WHERE variant = 'batch_z16m')
	AND (SELECT res FROM s WHERE variant = 'one_array_z16m') = (SELECT res FROM s WHERE variant = 'batch_z16m')
	AND (SELECT res FROM s WHERE variant = 'batchscalar_k') = (SELECT res FROM s WHERE variant = 'batch_k')
	AND (SELECT res FROM s WHERE variant = 'batchscalar_z16m') = (SELECT res FROM s WHERE variant = 'batch_z16m')
		AS same_counts
FROM s;
SQL
