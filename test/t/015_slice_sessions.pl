
# bloomslice with two sessions, each interleaving forced by the test (no
# timing):
#   - cursors over a bitmap scan and over a plain index scan of a
#     bloomslice index, declared before another session's inserts flush
#     the pending area into blocks and a VACUUM removes dead rows (and
#     flushes again), then fetched in part,
#     then more flushing and VACUUM, then fetched to the end: it returns
#     exactly the rows a sequential scan returns in its snapshot, each
#     once; a repeatable-read transaction's later index scans too;
#   - a cursor over a plain index scan holds the TIDs of two deleted rows
#     when another session's VACUUM frees their slots and new rows (one
#     holding the key) fill them: it returns its snapshot's rows only;
#   - CREATE INDEX ... USING bloomslice held in the middle of its table
#     scan (an index expression waits on an advisory lock the test holds)
#     shows in pg_stat_progress_create_index as "building index: scanning
#     table" with blocks scanned part of the way; once let go, the index
#     answers as a sequential scan.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('slice');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pageinspect;
-- row i: keys i and 100000 + i % 10, one geometry
CREATE FUNCTION fil(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS $$
	SELECT bloom_add_all(bloom_empty_bits(1024, 3, 'classic'), ARRAY[i, 100000 + i % 10])
$$;
CREATE TABLE s (id int, f bloomfilter);
INSERT INTO s SELECT i, fil(i) FROM generate_series(1, 1500) i;
CREATE INDEX s_bs ON s USING bloomslice (f) WITH (pending_limit = 64);
INSERT INTO s SELECT i, fil(i) FROM generate_series(1501, 1700) i;
DELETE FROM s WHERE id % 13 = 0;
-- pending filters (metapage: BsMeta after the 24-byte page header)
CREATE FUNCTION pending() RETURNS int8 LANGUAGE sql AS $$
	SELECT sum((get_byte(p, 48 + i)::int8) << (8 * i))::int8
	FROM get_raw_page('s_bs', 0) p, generate_series(0, 7) i
$$;
});

is($node->safe_psql('postgres', 'SELECT pending() > 0'), 't', 'pending filters before the cursor opens');

# the rows holding key 100003 (one in ten), and a superset query's rows
my $q_key = 'SELECT id FROM s WHERE f @> 100003 ORDER BY id';
my $q_sup = q{SELECT id FROM s WHERE f @>> bloom_add(bloom_empty_bits(1024, 3, 'classic'), 100007) ORDER BY id};

my $a = $node->background_psql('postgres');
$a->query_safe('SET enable_seqscan = off; SET enable_indexscan = off; SET max_parallel_workers_per_gather = 0');
$a->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
# the snapshot: the rows the cursors must return
my $want_key = $a->query_safe(
	'SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = on; ' . $q_key);
my $want_sup = $a->query_safe(
	'SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = on; ' . $q_sup);
$a->query_safe('SET LOCAL enable_bitmapscan = on; SET LOCAL enable_seqscan = off');
like($a->query_safe("EXPLAIN (COSTS OFF) $q_key"), qr/Bitmap Index Scan on s_bs/, 'the key cursor is an index scan');
like($a->query_safe("EXPLAIN (COSTS OFF) $q_sup"), qr/Bitmap Index Scan on s_bs/, 'the superset cursor is an index scan');
$a->query_safe("DECLARE ck CURSOR FOR $q_key");
$a->query_safe("DECLARE cs CURSOR FOR $q_sup");
# the same probes as plain index scans, with no sort above them: each FETCH
# reads the table as it goes, from the answer the index gave at the first
my ($q_key_p, $q_sup_p) = map { s/ ORDER BY id$//r } ($q_key, $q_sup);
$a->query_safe('SET LOCAL enable_indexscan = on; SET LOCAL enable_bitmapscan = off');
like($a->query_safe("EXPLAIN (COSTS OFF) $q_key_p"), qr/^Index Scan using s_bs/, 'the plain key cursor is an index scan, unsorted');
like($a->query_safe("EXPLAIN (COSTS OFF) $q_sup_p"), qr/^Index Scan using s_bs/, 'the plain superset cursor is an index scan, unsorted');
$a->query_safe("DECLARE pk CURSOR FOR $q_key_p");
$a->query_safe("DECLARE ps CURSOR FOR $q_sup_p");
$a->query_safe('SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on');

# another session: enough single inserts to flush the pending area, rows
# deleted, VACUUM (which flushes again)
sub churn
{
	my ($from) = @_;
	$node->safe_psql('postgres', qq{
DO \$\$ BEGIN FOR i IN $from .. $from + 399 LOOP INSERT INTO s VALUES (i, fil(i)); END LOOP; END \$\$;
DELETE FROM s WHERE id % 17 = 0 AND id < $from;
});
	$node->safe_psql('postgres', 'VACUUM s');
}
churn(2000);
is($node->safe_psql('postgres', 'SELECT pending()'), '0', 'the pending area was flushed');

my @got_key = split /\n/, $a->query_safe('FETCH 7 FROM ck');
my @got_sup = split /\n/, $a->query_safe('FETCH 3 FROM cs');
my @plain_key = split /\n/, $a->query_safe('FETCH 7 FROM pk');
my @plain_sup = split /\n/, $a->query_safe('FETCH 3 FROM ps');
is(scalar(@got_key), 7, 'first fetch');
is(scalar(@plain_key), 7, 'first fetch of the plain index scan');
churn(3000);
push @got_key, split /\n/, $a->query_safe('FETCH ALL FROM ck');
push @got_sup, split /\n/, $a->query_safe('FETCH ALL FROM cs');
push @plain_key, split /\n/, $a->query_safe('FETCH ALL FROM pk');
push @plain_sup, split /\n/, $a->query_safe('FETCH ALL FROM ps');
is(join(',', sort { $::a <=> $::b } @plain_key), join(',', split /\n/, $want_key),
	'plain index scan cursor f @> key across flushes and VACUUM: the snapshot\'s rows, each once');
is(join(',', sort { $::a <=> $::b } @plain_sup), join(',', split /\n/, $want_sup),
	'plain index scan cursor f @>> q across flushes and VACUUM: the snapshot\'s rows, each once');
is(join(',', @got_key), join(',', split /\n/, $want_key),
	'cursor f @> key across flushes and VACUUM: the snapshot\'s rows, each once');
is(join(',', @got_sup), join(',', split /\n/, $want_sup),
	'cursor f @>> q across flushes and VACUUM: the snapshot\'s rows, each once');
ok(scalar(@got_key) > 100, 'the cursor returned rows (' . scalar(@got_key) . ')');
# a new index scan in the same old snapshot, after the flushes
is($a->query_safe($q_key), $want_key, 'a later index scan in the old snapshot');
is($a->query_safe($q_sup), $want_sup, 'a later superset index scan in the old snapshot');
$a->query_safe('COMMIT');

# and now, against a sequential scan
for my $q ($q_key, $q_sup)
{
	my $seq = $node->safe_psql('postgres',
		"SET enable_bitmapscan = off; SET enable_indexscan = off; $q");
	for my $way ('indexscan', 'bitmapscan')
	{
		my $idx = $node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_$way = on; $q");
		is($idx, $seq, "index ($way) equals sequential scan after the churn: $q");
	}
}

# ---- a plain index scan's TIDs reused under it ----
# The cursor gathers its answer (two deleted rows' TIDs among them: the
# index still holds them) at its first FETCH; another session's VACUUM
# frees those slots and new rows fill them, one holding the key; the
# cursor must return its snapshot's rows, each once, and neither new row.
$node->safe_psql('postgres', q{
CREATE TABLE r (id int, pad text, f bloomfilter) WITH (autovacuum_enabled = off);
INSERT INTO r SELECT i, repeat('x', 1000), bloom_add_all(bloom_empty_bits(1024, 4), ARRAY[7, i])
FROM generate_series(1, 20) i;
CREATE INDEX r_bs ON r USING bloomslice (f);
});
my $dead_tids = $node->safe_psql('postgres',
	q{SELECT '{' || string_agg('"' || ctid::text || '"', ',') || '}' FROM r WHERE id IN (12, 14)});
$node->safe_psql('postgres', 'DELETE FROM r WHERE id IN (12, 14)');
my $c = $node->background_psql('postgres');
$c->query_safe('SET enable_seqscan = off; SET enable_bitmapscan = off');
$c->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
like($c->query_safe('EXPLAIN (COSTS OFF) SELECT id FROM r WHERE f @> 7'), qr/^Index Scan using r_bs/,
	'the reuse cursor is a plain index scan');
$c->query_safe('DECLARE rc CURSOR FOR SELECT id FROM r WHERE f @> 7');
my @got_r = split /\n/, $c->query_safe('FETCH 1 FROM rc');
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) r');
$node->safe_psql('postgres', q{
INSERT INTO r VALUES (100, repeat('y', 1000), bloom_add_all(bloom_empty_bits(1024, 4), ARRAY[7])),
	(200, repeat('y', 1000), bloom_add_all(bloom_empty_bits(1024, 4), ARRAY[8]))});
my $reused = $node->safe_psql('postgres',
	"SELECT count(*) FROM r WHERE id IN (100, 200) AND ctid = ANY ('$dead_tids'::tid[])");
push @got_r, split /\n/, $c->query_safe('FETCH ALL FROM rc');
$c->query_safe('COMMIT');
$c->quit;
is(join(',', sort { $::a <=> $::b } @got_r), join(',', grep { $_ != 12 && $_ != 14 } 1 .. 20),
	'a plain index scan across VACUUM and reuse of its dead TIDs: the snapshot\'s rows, each once');
ok($reused > 0, "new rows took $reused of the freed slots the cursor held TIDs of ($dead_tids)");

# ---- CREATE INDEX progress ----
$node->safe_psql('postgres', q{
CREATE TABLE p (id int, f bloomfilter);
INSERT INTO p SELECT i, fil(i) FROM generate_series(1, 20000) i;
-- waits on advisory lock 42 at row 5000 of the build's table scan
CREATE FUNCTION gate(f bloomfilter, id int) RETURNS bloomfilter LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF id = 5000 THEN
		PERFORM pg_advisory_lock_shared(42);
		PERFORM pg_advisory_unlock_shared(42);
	END IF;
	RETURN f;
END $$;
});
$a->query_safe('SELECT pg_advisory_lock(42)');
my $b = $node->background_psql('postgres');
$b->query_until(qr/building/, q{
\echo building
CREATE INDEX p_bs ON p USING bloomslice (gate(f, id));
});
ok($node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"),
	'the build waits at row 5000');
my $progress = $node->safe_psql('postgres', q{
SELECT command, phase, blocks_total > 0, blocks_done > 0, blocks_done < blocks_total,
	(SELECT relname FROM pg_class WHERE oid = relid)
FROM pg_stat_progress_create_index});
is($progress, 'CREATE INDEX|building index: scanning table|t|t|t|p',
	'pg_stat_progress_create_index: the build, its phase, blocks scanned part way');
$a->query_safe('SELECT pg_advisory_unlock(42)');
$b->query_safe('SELECT 1');
$b->quit;
$a->quit;
is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_stat_progress_create_index'), '0',
	'the build is done');
my $seq = $node->safe_psql('postgres',
	'SET enable_bitmapscan = off; SET enable_indexscan = off; SELECT id FROM p WHERE gate(f, id) @> 100003 ORDER BY id');
my $idx = $node->safe_psql('postgres',
	'SET enable_seqscan = off; SELECT id FROM p WHERE gate(f, id) @> 100003 ORDER BY id');
like($node->safe_psql('postgres',
		'SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT id FROM p WHERE gate(f, id) @> 100003'),
	qr/Index Scan (using|on) p_bs/, 'the expression index is used');
is($idx, $seq, 'the index built past the wait equals a sequential scan');
is(scalar(split /\n/, $idx), 2000, 'key 100003 is in a tenth of the rows');

$node->stop;
done_testing();
