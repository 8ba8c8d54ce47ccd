
# Filters under concurrent load.  pgbench (8 clients over loopback TCP, a
# bounded time) mixes
#   - updates:  UPDATE filters SET f = f + :k, with the key recorded in
#               added(fid, k) in the same transaction;
#   - probes:   count(*) FROM keys WHERE id <@ (SELECT f FROM filters ...),
#               on filters that are being rewritten and on out-of-line ones;
#   - checks:   in one snapshot, every key recorded for a filter is found in
#               it (a miss makes the client fail);
#   - aggregates: bloom_agg over a table, serial and forced parallel, which
#               must equal a reference filter byte for byte, and
#               bloom_union_agg / bloom_agg over the growing tables.
# Then: pgbench reports no failed transaction and no aborted client; every
# recorded key is in its filter; each final filter is byte for byte the
# filter built from its recorded keys (no update lost or torn); and a
# long-lived session that probed throughout did not grow its memory.
# When the bloomslice access method is installed, the clients also insert
# single-key filters into a table with a bloomslice index (a small pending
# area, so inserts flush it into blocks while others insert and probe), run
# VACUUM on it, and probe the last committed key through the index (a miss
# fails the client); afterwards every inserted row is found through the
# index.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $seconds = 15;
my $node = PostgreSQL::Test::Cluster->new('load');
$node->init;
$node->append_conf('postgresql.conf',
	"listen_addresses = '127.0.0.1'\nmax_connections = 40\nmax_worker_processes = 16\n"
	  . "max_parallel_workers = 8\nlog_error_verbosity = verbose\n");
$node->start;
my $port = $node->port;

$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE keys (id int PRIMARY KEY);
INSERT INTO keys SELECT g FROM generate_series(1, 50000) g;
-- 16 filters that get keys added: 1-8 blocked, 9-16 classic
CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter NOT NULL);
INSERT INTO filters SELECT g, CASE WHEN g <= 8 THEN bloom_empty(50000)
                                   ELSE bloom_empty(50000, 0.01, 'classic') END
FROM generate_series(1, 16) g;
CREATE TABLE added (fid int NOT NULL, k bigint NOT NULL);
CREATE INDEX ON added (fid);
-- 300 keys each to start with (so that every filter is stored out of line)
INSERT INTO added SELECT g % 16 + 1, 300000 + g FROM generate_series(1, 4800) g;
UPDATE filters f SET f = bloom_add_all(f.f, a.ks)
FROM (SELECT fid, array_agg(k) AS ks FROM added GROUP BY fid) a WHERE a.fid = f.id;
-- small sparse filters, stored compressed inside the row
CREATE TABLE sparse (id int PRIMARY KEY, f bloomfilter);
INSERT INTO sparse SELECT g, bloom_add_all(bloom_empty(20000), ARRAY[g, g + 16, g + 32]) FROM generate_series(1, 16) g;
-- 16 read-only filters stored out of line (probes go through the TOAST cache)
CREATE TABLE ext_filters (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE ext_filters ALTER COLUMN f SET STORAGE external;
INSERT INTO ext_filters SELECT g + 1, bloom_agg(keys.id) FROM keys, generate_series(0, 15) g
WHERE keys.id % 16 = g GROUP BY g;
-- the bloomslice part (see the header)
CREATE SEQUENCE sk;
CREATE TABLE sdocs (k bigint NOT NULL, f bloomfilter);
INSERT INTO sdocs SELECT nextval('sk'), bloom_add_all(bloom_empty(100), ARRAY[currval('sk')]) FROM generate_series(1, 100);
DO $$ BEGIN
	IF EXISTS (SELECT FROM pg_am WHERE amname = 'bloomslice') THEN
		CREATE INDEX sdocs_bs ON sdocs USING bloomslice (f) WITH (pending_limit = 64);
	END IF;
END $$;
-- the reference for the aggregate over keys
CREATE TABLE ref AS SELECT bloom_agg(id) AS f FROM keys;
ANALYZE;
});
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM ext_filters WHERE pg_column_compression(f) IS NULL AND pg_column_size(f) > 2000),
	       (SELECT count(*) FROM filters WHERE pg_column_size(f) > 2000),
	       (SELECT count(*) FROM sparse WHERE pg_column_compression(f) IS NOT NULL AND pg_column_size(f) < 2000)}),
	'16|16|16', 'filters stored out of line (plain and compressed) and compressed inline');

my %scripts = (
	'update.sql@6' => q{
\set fid random(1, 16)
\set k random(1, 200000)
BEGIN;
UPDATE filters SET f = f + :k WHERE id = :fid;
INSERT INTO added VALUES (:fid, :k);
END;
},
	'probe.sql@3' => q{
\set fid random(1, 16)
SELECT count(*) FROM keys WHERE id <@ (SELECT f FROM filters WHERE id = :fid);
SELECT count(*) FROM keys WHERE id <@ (SELECT f FROM ext_filters WHERE id = :fid);
SELECT count(*) FROM keys WHERE id <= 200 AND id <@ (SELECT f FROM sparse WHERE id = :fid);
},
	'check.sql@1' => q{
\set fid random(1, 16)
SELECT count(*) AS misses FROM added a JOIN filters f ON f.id = a.fid
WHERE a.fid = :fid AND NOT (a.k <@ f.f) \gset
\if :misses > 0
SELECT 'a recorded key is missing from its filter'::int;
\endif
},
	'agg.sql@1' => q{
\set fid random(1, 16)
SET max_parallel_workers_per_gather = 0;
SELECT (bloom_agg(id) = (SELECT f FROM ref))::int AS same FROM keys \gset
\if :same = 0
SELECT 'serial bloom_agg differs from the reference'::int;
\endif
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT (bloom_agg(id) = (SELECT f FROM ref))::int AS same FROM keys \gset
\if :same = 0
SELECT 'parallel bloom_agg differs from the reference'::int;
\endif
RESET ALL;
SELECT bloom_cardinality(bloom_union_agg(f)) FROM filters WHERE id <= 8;
SELECT bloom_cardinality(bloom_union_agg(f)) FROM filters WHERE id > 8;
SELECT bloom_info(bloom_agg(k)) FROM added WHERE fid = :fid;
},
);
my $have_slice = $node->safe_psql('postgres', q{SELECT count(*) FROM pg_am WHERE amname = 'bloomslice'});
if ($have_slice)
{
	$scripts{'sliceins.sql@4'} = q{
INSERT INTO sdocs SELECT k, bloom_add_all(bloom_empty(100), ARRAY[k]) FROM (SELECT nextval('sk') AS k) s;
};
	$scripts{'sliceprobe.sql@2'} = q{
\set r random(0, 96)
SELECT coalesce(max(k), 0) AS m FROM sdocs WHERE k % 97 = :r \gset
SET enable_seqscan = off;
SELECT count(*) AS c FROM sdocs WHERE f @> :m::bigint \gset
RESET enable_seqscan;
\if :m > 0
\if :c = 0
SELECT 'a committed key is missing from the bloomslice index'::int;
\endif
\endif
};
	$scripts{'slicevac.sql@1'} = q{
VACUUM sdocs;
};
}
my @fopts;
for my $name (sort keys %scripts)
{
	(my $file = $node->basedir . "/$name") =~ s/\@\d+$//;
	PostgreSQL::Test::Utils::append_to_file($file, $scripts{$name});
	push @fopts, '-f', $node->basedir . "/$name";
}

# the parallel plan is really parallel
like($node->safe_psql('postgres', q{
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	EXPLAIN (COSTS OFF) SELECT bloom_agg(id) FROM keys}),
	qr/Gather.*Partial Aggregate/s, 'the forced-parallel aggregate has a parallel plan');

# ---- a long-lived session, probing while pgbench runs ---------------------------
my $bg = $node->background_psql('postgres');
$bg->set_query_timer_restart;    # the timeout is per query, not for the session
$bg->query_safe(q{
	PREPARE p(int) AS SELECT count(*) FROM keys WHERE id <@ (SELECT f FROM filters WHERE id = $1);
	PREPARE pe(int) AS SELECT count(*) FROM keys WHERE id <@ (SELECT f FROM ext_filters WHERE id = $1);
	PREPARE pa(int) AS SELECT bloom_agg(id) FROM keys WHERE id % 16 = $1;
	CREATE FUNCTION mem() RETURNS bigint LANGUAGE sql AS
	  'SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts';});
my $batch = join("\n", map {
	my $i = $_ % 16 + 1;
	"EXECUTE p($i); EXECUTE pe($i); EXECUTE pa($i);"
	  . " SELECT count(*) FROM keys WHERE id <\@ (SELECT f FROM ext_filters WHERE id = $i);"
	  . " SELECT (bloom_info(f)).bits_set > 0, f \@> $_, (f + $_) \@> $_, bloom_cardinality(f | f) FROM filters WHERE id = $i;"
	  . " SELECT count(*) FROM ext_filters e, filters f WHERE e.f \@> f.id;"
	  . " SELECT count(*) FROM keys WHERE id <= 100 AND id <\@ (SELECT f FROM sparse WHERE id = $i);"
	  . " SELECT md5(f::bytea), length(f::text) FROM filters WHERE id = $i;"
} 1 .. 16);

sub session_round
{
	$bg->query_safe($batch) for 1 .. 4;
	return $bg->query_safe('SELECT mem()');
}

my $pgb_out = '';
my $pgb_err = '';
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-h', '127.0.0.1', '-p', $port, '-c', '8', '-j', '4', '-T', $seconds,
	  @fopts, 'postgres' ],
	'>', \$pgb_out, '2>', \$pgb_err);

my $t_end = time + $seconds;
my @mem;
session_round();    # warm up: caches, plans
push @mem, session_round() while @mem < 3 || (time < $t_end && @mem < 30);
$h->finish;
my $pgb_status = ($h->full_results)[0];
push @mem, session_round() for 1 .. 2;    # and after, on the final filters

note("pgbench:\n$pgb_out");
note("pgbench stderr:\n$pgb_err") if $pgb_err ne '';
is($pgb_status, 0, 'pgbench exits 0 (no client aborted)');
my ($processed) = $pgb_out =~ /number of transactions actually processed: (\d+)/;
my ($failed) = $pgb_out =~ /number of failed transactions: (\d+)/;
ok(defined $processed && $processed > 200, "pgbench processed transactions (" . ($processed // 'none') . ")");
is($failed, '0', 'pgbench: no failed transaction');
unlike($pgb_err, qr/error|abort/i, 'pgbench: no error on stderr');
for my $script (qw(update probe check agg), $have_slice ? qw(sliceins sliceprobe slicevac) : ())
{
	like($pgb_out, qr/SQL script \d+: \S*\Q$script\E\.sql\n - weight: \d+ \(targets [\d.]+% of total\)\n - ([1-9]\d*) transactions/,
		"pgbench: the $script script ran");
}

# ---- correctness after the run -----------------------------------------------
my $n_added = $node->safe_psql('postgres', 'SELECT count(*) FROM added');
ok($n_added > 100, "$n_added keys were added concurrently");
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM added a JOIN filters f ON f.id = a.fid WHERE NOT (a.k <@ f.f)}),
	'0', 'every recorded key is found in its filter (no false negative)');
is($node->safe_psql('postgres', q{
	SELECT string_agg(f.id::text, ',' ORDER BY f.id)
	FROM filters f
	LEFT JOIN (SELECT fid, array_agg(k) AS ks FROM added GROUP BY fid) a ON a.fid = f.id
	WHERE f.f <> bloom_add_all(CASE WHEN f.id <= 8 THEN bloom_empty(50000)
	                                ELSE bloom_empty(50000, 0.01, 'classic') END,
	                           coalesce(a.ks, '{}'))}),
	'', 'each final filter is byte for byte the filter built from its recorded keys (no lost or torn update)');
is($node->safe_psql('postgres', q{
	SELECT sum((bloom_info(f)).added) = (SELECT count(*) FROM added) FROM filters}),
	't', 'the filters count exactly the committed adds');
is($node->safe_psql('postgres', 'SELECT bloom_agg(id) = (SELECT f FROM ref) FROM keys'),
	't', 'the aggregate still equals its reference');
if ($have_slice)
{
	my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM sdocs');
	ok($n > 200, "$n rows were inserted into the bloomslice-indexed table");
	like($node->safe_psql('postgres', q{SET enable_seqscan = off;
		EXPLAIN (COSTS OFF) SELECT count(*) FROM sdocs s WHERE s.k NOT IN (SELECT t.k FROM sdocs t WHERE t.f @> s.k)}),
		qr/Index Scan (using|on) sdocs_bs/, '(the check probes through the index)');
	is($node->safe_psql('postgres', q{SET enable_seqscan = off;
		SELECT count(*) FROM sdocs s WHERE s.k NOT IN (SELECT t.k FROM sdocs t WHERE t.f @> s.k)}),
		'0', 'bloomslice: every inserted row is found through the index (no row lost)');
}

# ---- memory of the long-lived session ----------------------------------------------
# after the warm-up round, each round runs 4 x 16 x 8 statements; the
# session's memory must stay flat
my $growth = $mem[-1] - $mem[0];
my $max = (sort { $a <=> $b } @mem)[-1];
note('long-lived session memory per round (bytes): ' . join(' ', @mem));
cmp_ok(scalar(@mem), '>=', 5, 'the long-lived session ran ' . scalar(@mem) . ' rounds');
cmp_ok($growth, '<', 64 * 1024,
	'the long-lived session\'s memory did not grow across the rounds (' . $growth . ' bytes)');
cmp_ok($max - $mem[0], '<', 1024 * 1024, '... nor peak between measurements');

# within one transaction: a plpgsql loop probing filters (changing TOAST
# pointers, variables, SPI queries) keeps its memory flat
my $loop = $bg->query_safe(q{
	CREATE FUNCTION mem_loop(n int) RETURNS bigint LANGUAGE plpgsql AS $$
	DECLARE
		f bloomfilter;
		b bool;
		m0 bigint;
		c bigint;
	BEGIN
		m0 := mem();    -- (its own first call allocates)
		FOR r IN 1..2 LOOP
			FOR i IN 1..n LOOP
				f := (SELECT x.f FROM ext_filters x WHERE x.id = i % 16 + 1);
				b := f @> i;
				b := i <@ f;
				b := (f + i) @> i;
				b := (SELECT i <@ x.f FROM filters x WHERE x.id = i % 16 + 1);
				c := (SELECT count(*) FROM keys WHERE id < 100 AND id <@ (SELECT x.f FROM ext_filters x WHERE x.id = i % 16 + 1));
				PERFORM bloom_info(f);
			END LOOP;
			IF r = 1 THEN
				m0 := mem();
			END IF;
		END LOOP;
		RETURN mem() - m0;
	END $$;
	-- the first call in a transaction grows once by ~80 kB (plpgsql's own
	-- per-transaction state; as much with no bloomfilter in the loop)
	BEGIN;
	SELECT mem_loop(100);
	SELECT mem_loop(3000);
	COMMIT;});
$loop = (split /\n/, $loop)[-1];
cmp_ok($loop, '<', 64 * 1024, "a plpgsql loop of 3000 probe iterations in one transaction: memory flat ($loop bytes)");

# the measurement does see memory a session keeps: 300 prepared statements
my $m_before = $bg->query_safe('SELECT mem()');
$bg->query_safe(join("\n", map {
	"PREPARE keep$_ AS SELECT count(*) FROM keys WHERE id <\@ (SELECT f FROM filters WHERE id = $_ % 16 + 1) AND id > $_; EXECUTE keep$_;"
} 1 .. 300));
my $kept = $bg->query_safe('SELECT mem()') - $m_before;
cmp_ok($kept, '>', 256 * 1024, "(the measurement sees the $kept bytes that 300 prepared statements keep)");
$bg->quit;

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|TRAP:|PANIC|ERROR:  XX\d\d\d/, 'no crash or internal error in the log');

done_testing();
