
# Durability of stored filters: a table of bloomfilter columns (both
# layouts, every key family, empty and NULL filters, large TOASTed filters,
# compressed and external storage) and, when the GiST operator class is
# installed, a GiST-indexed table of per-document filters, go through
#   - pg_dump / pg_restore (custom format), a plain-SQL dump and an
#     INSERT-statement dump: every filter comes back byte for byte
#     (md5(f::bytea) per row) and index queries give the same rows;
#   - an immediate shutdown right after commits (filters inserted, and
#     updated with f = f + key): after the restart every committed filter is
#     there byte for byte, an uncommitted update is not, and the index agrees;
#   - a streaming standby: after inserts and updates on the primary
#     (including f = f + key and unions on TOASTed filters), and again after
#     the primary's crash, the standby returns identical filters and index
#     answers.
# When the bloomslice access method is installed, two tables of filters of
# mixed geometry (sizes, layouts, hashes, seeds, NULL and empty) with a
# bloomslice index, one with a small pending area that inserts flush into
# blocks and one with the default, which keeps the rows added after the
# build pending, go through the same: their index answers equal a
# sequential scan's after restore, after inserts, updates, deletes and
# VACUUM on the primary as replayed by the standby, and after crash
# recovery.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "max_parallel_workers_per_gather = 0\n");
$primary->start;
$primary->safe_psql('postgres', 'CREATE DATABASE src');
my $dir = $PostgreSQL::Test::Utils::tmp_check;

$primary->safe_psql('src', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, kind text, f bloomfilter, g bloomfilter);
INSERT INTO filters VALUES
 (1, 'blocked int', (SELECT bloom_agg(g) FROM generate_series(1, 100) g), NULL),
 (2, 'classic text seed', bloom_add_all(bloom_empty_bits(4096, 5, 'classic', 42), ARRAY['a', 'b', 'c']),
     bloom_empty_bits(64, 1)),
 (3, 'empty', bloom_empty(1000), bloom_empty(1000, 0.5, 'classic', -1)),
 (4, 'null', NULL, NULL),
 (5, 'float', (SELECT bloom_agg(g / 7.0::float8) FROM generate_series(1, 500) g), NULL),
 (6, 'numeric', (SELECT bloom_agg(g / 7.0) FROM generate_series(1, 500) g), NULL),
 (7, 'bytea', (SELECT bloom_agg(decode(md5(g::text), 'hex')) FROM generate_series(1, 500) g), NULL),
 (8, 'uuid k32', bloom_add(bloom_empty_bits(2048, 32, 'blocked', 7), gen_random_uuid()), NULL),
 (9, 'bool', bloom_add(bloom_empty(10), true), NULL),
 (10, 'date', (SELECT bloom_agg(date '2020-01-01' + g) FROM generate_series(1, 500) g), NULL),
 (11, 'timestamp', (SELECT bloom_agg(timestamp '2020-01-01' + g * interval '1 min') FROM generate_series(1, 500) g), NULL),
 (12, 'timestamptz', (SELECT bloom_agg(timestamptz '2020-01-01+00' + g * interval '1 s') FROM generate_series(1, 500) g), NULL),
 (13, 'other (inet)', (SELECT bloom_agg(('10.1.' || g / 256 || '.' || g % 256)::inet) FROM generate_series(1, 500) g), NULL),
 -- large: about 1.2 MB of incompressible bits (TOASTed, out of line) and
 -- 1.8 MB of zeros (TOASTed, compressed)
 (14, 'large random', (SELECT bloom_agg(g) FROM generate_series(1, 1000000) g),
      bloom_empty(1000000, 0.001)),
 (15, 'large classic', (SELECT bloom_agg(md5(g::text), 200000, 0.01) FROM generate_series(1, 200000) g), NULL);
-- the same filters under external storage (out of line, never compressed)
CREATE TABLE filters_ext (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE filters_ext ALTER COLUMN f SET STORAGE external;
INSERT INTO filters_ext SELECT id, f FROM filters;
});

# the large ones are in the TOAST table, compressed or not
is( $primary->safe_psql('src', q{
	SELECT octet_length(f::bytea) > 1000000,
	       pg_column_compression(f) IS NULL,
	       pg_column_compression(g) IS NOT NULL AND pg_column_size(g) < octet_length(g::bytea) / 10,
	       (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'filters') > octet_length(f::bytea),
	       (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'filters_ext') > octet_length(f::bytea)
	FROM filters WHERE id = 14}),
	't|t|t|t|t', 'large filters are TOASTed: out of line, compressed when they compress');

# A missing or renamed operator class fails here, loudly; the index checks
# below are then left out (they could only repeat that failure).
my $have_gist = is($primary->safe_psql('src',
	q{SELECT count(*) FROM pg_opclass WHERE opcname = 'bloomfilter_gist_ops'}),
	'1', 'the GiST operator class is installed');
if ($have_gist)
{
	$primary->safe_psql('src', q{
	CREATE TABLE docs (id int PRIMARY KEY, f bloomfilter);
	-- 3000 documents of 20 keys each, overlapping, and a few large ones
	INSERT INTO docs SELECT d, (SELECT bloom_agg(k, 64, 0.01) FROM generate_series(d * 10, d * 10 + 19) k)
	FROM generate_series(1, 3000) d;
	INSERT INTO docs SELECT 10000 + d, (SELECT bloom_agg(k) FROM generate_series(d * 5000, d * 5000 + 9999) k)
	FROM generate_series(1, 5) d;
	CREATE INDEX docs_f_gist ON docs USING gist (f);
	});
}

# a filter of one of many geometries for document $1, holding the keys
# $1 * 7 + 1 .. $1 * 7 + n (so neighbours share keys), or NULL or empty
my $mixed_filter_sql = q{
	CREATE FUNCTION mixed_filter(d int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN d % 53 = 0 THEN NULL
		WHEN d % 47 = 0 THEN bloom_empty(100)
		ELSE bloom_add_all(CASE d % 6
				WHEN 0 THEN bloom_empty(64)
				WHEN 1 THEN bloom_empty(500, 0.01, 'classic')
				WHEN 2 THEN bloom_empty_bits(512 << (d % 4), 3, 'classic', 1)
				WHEN 3 THEN bloom_empty_bits(1024, 1 + d % 8, 'blocked', d % 3)
				WHEN 4 THEN (SELECT bloom_agg(k) FROM generate_series(1, 0) k)
				ELSE bloom_empty(2000, 0.001) END,
			ARRAY(SELECT d * 7 + j FROM generate_series(1, 5 + d % 60) j))
	END $$;
};

# bloomslice: the same mixed geometries in two tables, one with a small
# pending area (flushed into blocks by the inserts) and one with the
# default (the rows after the build stay pending)
my $have_slice = is($primary->safe_psql('src',
	q{SELECT count(*) FROM pg_opclass WHERE opcname = 'bloomfilter_slice_ops'}),
	'1', 'the bloomslice operator class is installed');
if ($have_slice)
{
	$primary->safe_psql('src', $mixed_filter_sql . q{
	CREATE TABLE sdocs_small (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
	CREATE TABLE sdocs_big (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
	INSERT INTO sdocs_small SELECT d, mixed_filter(d) FROM generate_series(1, 2000) d;
	INSERT INTO sdocs_big SELECT d, mixed_filter(d) FROM generate_series(1, 2000) d;
	CREATE INDEX sdocs_small_bs ON sdocs_small USING bloomslice (f) WITH (pending_limit = 64, max_bits = 4096);
	CREATE INDEX sdocs_big_bs ON sdocs_big USING bloomslice (f);
	INSERT INTO sdocs_small SELECT d, mixed_filter(d) FROM generate_series(2001, 2300) d;
	INSERT INTO sdocs_big SELECT d, mixed_filter(d) FROM generate_series(2001, 2300) d;
	});
}

# bloomslice answers for every key of a range, through the index or by a
# sequential scan, as "table:key=ids;...".  Through the index: as a plain
# index scan and as a bitmap scan, which must agree (if not, both answers
# come back, and equal no sequential scan's)
sub slice_answers
{
	my ($node, $db, $scan) = @_;
	if ($scan eq 'index')
	{
		my $plain = slice_answers($node, $db, 'indexscan');
		my $bitmap = slice_answers($node, $db, 'bitmapscan');
		return $plain eq $bitmap ? $plain : "plain index scan:\n$plain\nbitmap scan:\n$bitmap";
	}
	my $set = $scan eq 'seq'
	  ? 'SET enable_indexscan = off; SET enable_bitmapscan = off;'
	  : "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_$scan = on;";
	return $node->safe_psql($db, qq{
	$set
	SELECT string_agg(t || ':' || k || '=' || ids, ';' ORDER BY t, k)
	FROM (VALUES ('sdocs_small'), ('sdocs_big')) v(t),
		(SELECT generate_series(1, 21000, 37) UNION ALL VALUES (99999), (88888), (31337)) p(k),
		LATERAL (SELECT coalesce(string_agg(id::text, ' ' ORDER BY id), '') AS ids
			FROM sdocs_small WHERE t = 'sdocs_small' AND f \@> k
			UNION ALL
			SELECT coalesce(string_agg(id::text, ' ' ORDER BY id), '')
			FROM sdocs_big WHERE t = 'sdocs_big' AND f \@> k) a
	WHERE ids <> '';
	SELECT count(*) FROM sdocs_small WHERE f \@> 7000;
	SELECT count(*) FROM sdocs_big WHERE f \@> 7000;});
}

sub uses_slice
{
	my ($node, $db) = @_;
	my $plan = $node->safe_psql($db, q{
	SET enable_seqscan = off;
	EXPLAIN (COSTS OFF) SELECT id FROM sdocs_small WHERE f @> 12345;
	EXPLAIN (COSTS OFF) SELECT id FROM sdocs_big WHERE f @> 12345;});
	return ($plan =~ /Index Scan using sdocs_small_bs/ && $plan =~ /Index Scan using sdocs_big_bs/) ? 1 : 0;
}

# per-row fingerprints of every filter
sub fingerprint
{
	my ($node, $db) = @_;
	my $sql = q{
	SELECT string_agg(format('%s:%s:%s', id, md5(f::bytea), md5(g::bytea)), ',' ORDER BY id) FROM filters;
	SELECT string_agg(format('%s:%s', id, md5(f::bytea)), ',' ORDER BY id) FROM filters_ext;};
	$sql .= q{
	SELECT string_agg(format('%s:%s', id, md5(f::bytea)), ',' ORDER BY id) FROM docs;} if $have_gist;
	$sql .= q{
	SELECT string_agg(format('%s:%s', id, md5(f::bytea)), ',' ORDER BY id) FROM sdocs_small;
	SELECT string_agg(format('%s:%s', id, md5(f::bytea)), ',' ORDER BY id) FROM sdocs_big;} if $have_slice;
	return $node->safe_psql($db, $sql);
}

# the keys the index is asked about
my @probes = (5, 777, 12345, 29995, 30009, 30019, 31000, 5000, 14999, 27500, 99999, 100000, 31337);

# the ids listed for key $key in index_answers() output
sub ids_for
{
	my ($answers, $key) = @_;
	my ($list) = $answers =~ /(?:^|;)$key=([^;\n]*)/;
	return { map { $_ => 1 } split / /, $list // '' };
}
my $probe_list = join(',', @probes);

# index answers, through the index (seqscan off) and by a sequential scan
sub index_answers
{
	my ($node, $db, $scan) = @_;
	my $set = $scan eq 'index'
	  ? 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_bitmapscan = on;'
	  : 'SET enable_indexscan = off; SET enable_bitmapscan = off;';
	my $each = join(",\n", map {
		"'$_=' || coalesce((SELECT string_agg(id::text, ' ' ORDER BY id) FROM docs WHERE f @> $_), '')"
	} @probes);
	return $node->safe_psql($db, qq{
	$set
	SELECT concat_ws(';', $each);
	SELECT string_agg(id::text, ' ' ORDER BY id) FROM docs
	WHERE f @>> (SELECT bloom_agg(k, 64, 0.01) FROM generate_series(500, 505) k);});
}

sub uses_index
{
	my ($node, $db) = @_;
	my $plan = $node->safe_psql($db,
		'SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE f @> 12345');
	return $plan =~ /docs_f_gist/ ? 1 : 0;
}

my $fp_src = fingerprint($primary, 'src');
my ($idx_src, $seq_src);
if ($have_gist)
{
	$idx_src = index_answers($primary, 'src', 'index');
	$seq_src = index_answers($primary, 'src', 'seq');
	is($idx_src, $seq_src, 'GiST index answers equal a sequential scan on the source');
	like($idx_src, qr/(^|;)12345=[^;]*\b1233 1234\b.*(^|;)31000=[^;]*\b10005\b/s,
		'... and find the documents that hold the key');
	ok(uses_index($primary, 'src'), '... and the probe uses the index');
}
my $slice_seq_src;
if ($have_slice)
{
	$slice_seq_src = slice_answers($primary, 'src', 'seq');
	is(slice_answers($primary, 'src', 'index'), $slice_seq_src,
		'bloomslice indexes (a pending area flushed, and one pending) answer as a sequential scan on the source');
	like($slice_seq_src, qr/sdocs_small:6994=[^;]*\b999\b/, '... and find the documents that hold the key');
	ok(uses_slice($primary, 'src'), '... through the bloomslice indexes');
}

# ---- dump and restore ----------------------------------------------------------
my @dumps = (
	[ 'pg_dump -Fc | pg_restore', [ 'pg_dump', '-Fc', '-d', 'src', '-f', "$dir/src.dump" ],
		[ 'pg_restore', '--exit-on-error', '-d', 'dst_custom', "$dir/src.dump" ], 'dst_custom' ],
	[ 'plain SQL dump | psql', [ 'pg_dump', '-d', 'src', '-f', "$dir/src.sql" ],
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'dst_plain', '-f', "$dir/src.sql" ], 'dst_plain' ],
	[ 'pg_dump --inserts | psql', [ 'pg_dump', '--inserts', '-d', 'src', '-f', "$dir/src-inserts.sql" ],
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'dst_inserts', '-f', "$dir/src-inserts.sql" ],
		'dst_inserts' ],
	[ 'pg_dump -Fd -j 2 | pg_restore -j 2', [ 'pg_dump', '-Fd', '-j', '2', '-d', 'src', '-f', "$dir/src.dir" ],
		[ 'pg_restore', '--exit-on-error', '-j', '2', '-d', 'dst_dir', "$dir/src.dir" ], 'dst_dir' ],
);
for my $d (@dumps)
{
	my ($name, $dump, $restore, $db) = @$d;
	$primary->safe_psql('postgres', "CREATE DATABASE $db");
	$primary->command_ok($dump, "$name: dump");
	$primary->command_ok($restore, "$name: restore");
	is(fingerprint($primary, $db), $fp_src, "$name: every filter byte for byte");
	if ($have_gist)
	{
		is(index_answers($primary, $db, 'index'), $seq_src, "$name: the restored GiST index gives the same rows");
		ok(uses_index($primary, $db), "$name: the restored index is used");
	}
	if ($have_slice)
	{
		is(slice_answers($primary, $db, 'index'), $slice_seq_src, "$name: the restored bloomslice indexes give the same rows");
		ok(uses_slice($primary, $db), "$name: the restored bloomslice indexes are used");
	}
	is($primary->safe_psql($db, q{
		SELECT (SELECT count(*) FROM generate_series(1, 1000000) g WHERE g <@ f) FROM filters WHERE id = 14}),
		'1000000', "$name: the restored large filter still holds all its keys");
}

# ---- a streaming standby --------------------------------------------------------
$primary->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b1', has_streaming => 1);
$standby->start;

$primary->safe_psql('src', q{
	INSERT INTO filters VALUES
	 (20, 'after backup', (SELECT bloom_agg(g) FROM generate_series(1, 3000) g), NULL),
	 (21, 'after backup, large', (SELECT bloom_agg(g) FROM generate_series(1, 400000) g), bloom_empty(100));
	UPDATE filters SET f = f + 424242 WHERE id IN (1, 14, 20, 21);
	UPDATE filters SET f = f + 'zz' WHERE id IN (2, 15);
	UPDATE filters SET g = bloom_add_all(g, ARRAY[1, 2, 3]) WHERE id = 3;
	UPDATE filters SET g = g | (SELECT bloom_agg(x, 1000000, 0.001) FROM generate_series(1, 1000) x) WHERE id = 14;
	UPDATE filters SET f = f + 1 WHERE id = 3;
	UPDATE filters_ext SET f = f + 424242 WHERE id = 14;
	DELETE FROM filters WHERE id = 9;
});
if ($have_gist)
{
	$primary->safe_psql('src', q{
	UPDATE docs SET f = f + 99999 WHERE id % 100 = 0;
	INSERT INTO docs SELECT d, (SELECT bloom_agg(k, 64, 0.01) FROM generate_series(d * 10, d * 10 + 19) k)
	FROM generate_series(3001, 4000) d;
	DELETE FROM docs WHERE id BETWEEN 200 AND 250;
	});
}
if ($have_slice)
{
	for my $t ('sdocs_small', 'sdocs_big')
	{
		$primary->safe_psql('src', qq{
		INSERT INTO $t SELECT d, mixed_filter(d) FROM generate_series(2301, 2600) d;
		UPDATE $t SET f = f + 99999 WHERE id % 10 = 0 AND f IS NOT NULL;
		UPDATE $t SET f = mixed_filter(id + 1) WHERE id % 13 = 0;
		UPDATE $t SET f = NULL WHERE id % 29 = 0;
		DELETE FROM $t WHERE id % 9 = 0;
		VACUUM $t;
		INSERT INTO $t SELECT d, mixed_filter(d) FROM generate_series(2601, 2800) d;
		UPDATE $t SET f = f + 88888 WHERE id % 17 = 0 AND f IS NOT NULL;
		DELETE FROM $t WHERE id % 11 = 0;});
	}
}
# many single-key updates, one transaction each
$primary->safe_psql('src',
	join('', map { "UPDATE filters SET f = f + " . (500000 + $_) . " WHERE id = 20;\n" } 1 .. 200));

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my $fp_primary = fingerprint($primary, 'src');
isnt($fp_primary, $fp_src, 'the primary changed after the backup');
is(fingerprint($standby, 'src'), $fp_primary, 'standby: identical filters after inserts and updates');
is($standby->safe_psql('src', q{SELECT bool_and(f @> 424242) FROM filters WHERE id IN (1, 14, 20, 21)}),
	't', 'standby: the keys added on the primary are found');
is($standby->safe_psql('src',
		q{SELECT (SELECT count(*) FROM generate_series(500001, 500200) g WHERE g <@ f) FROM filters WHERE id = 20}),
	'200', 'standby: every one of 200 single-key updates arrived');
if ($have_gist)
{
	my $seq_primary = index_answers($primary, 'src', 'seq');
	is(index_answers($standby, 'src', 'index'), $seq_primary,
		'standby: the replayed GiST index answers like a sequential scan on the primary');
	my $found = ids_for($seq_primary, 99999);
	my @missing = grep { !$found->{$_} } grep { $_ != 200 } map { $_ * 100 } 1 .. 30;
	is("@missing", '', '... which finds the key added by the updates in each updated document');
}
if ($have_slice)
{
	my $slice_seq_primary = slice_answers($primary, 'src', 'seq');
	isnt($slice_seq_primary, $slice_seq_src, '(the bloomslice-indexed tables changed after the backup)');
	is(slice_answers($primary, 'src', 'index'), $slice_seq_primary,
		'primary: bloomslice indexes answer as a sequential scan after inserts, updates, deletes and VACUUM');
	is(slice_answers($standby, 'src', 'index'), $slice_seq_primary,
		'standby: the replayed bloomslice indexes answer like a sequential scan on the primary');
	ok(uses_slice($standby, 'src'), '... through the bloomslice indexes');
	like($slice_seq_primary, qr/sdocs_big:88888=[^;]*\b2601\b.*sdocs_small:88888=[^;]*\b2601\b/s,
		'(the keys added by the updates after VACUUM are among the answers)');
}

# ---- immediate shutdown right after commits ---------------------------------------
$primary->safe_psql('src', 'CHECKPOINT');
$primary->safe_psql('src', q{
	INSERT INTO filters VALUES
	 (30, 'before crash', (SELECT bloom_agg(g) FROM generate_series(1, 777) g), NULL),
	 (31, 'before crash, large', (SELECT bloom_agg(g) FROM generate_series(1, 600000) g),
	      (SELECT bloom_agg(g::text) FROM generate_series(1, 1000) g));
	UPDATE filters SET f = f + 31337 WHERE id IN (1, 14, 21);
	UPDATE filters SET f = f + 'crash' WHERE id = 15;
	UPDATE filters_ext SET f = f + 31337 WHERE id = 14;
});
$primary->safe_psql('src',
	join('', map { "UPDATE filters SET f = f + " . (700000 + $_) . " WHERE id = 30;\n" } 1 .. 100));
$primary->safe_psql('src', 'UPDATE docs SET f = f + 31337 WHERE id % 7 = 0') if $have_gist;
if ($have_slice)
{
	for my $t ('sdocs_small', 'sdocs_big')
	{
		$primary->safe_psql('src', qq{
		INSERT INTO $t SELECT d, mixed_filter(d) FROM generate_series(2801, 3000) d;
		UPDATE $t SET f = f + 31337 WHERE id % 7 = 0 AND f IS NOT NULL;
		DELETE FROM $t WHERE id % 31 = 0;});
	}
	# single-row commits: the small pending area fills and is flushed
	$primary->safe_psql('src',
		join('', map { "INSERT INTO sdocs_small VALUES (" . (5000 + $_) . ", mixed_filter($_));\n" } 1 .. 100));
	$primary->safe_psql('src',
		join('', map { "INSERT INTO sdocs_big VALUES (" . (5000 + $_) . ", mixed_filter($_));\n" } 1 .. 100));
}
my $slice_committed = $have_slice ? slice_answers($primary, 'src', 'seq') : '';
my $fp_committed = fingerprint($primary, 'src');
my $seq_committed = $have_gist ? index_answers($primary, 'src', 'seq') : '';
# a transaction in progress at the crash
my $bg = $primary->background_psql('src');
$bg->query_safe('BEGIN');
$bg->query_safe('UPDATE filters SET f = f + 8888888 WHERE id IN (1, 14)');
$bg->query_safe('INSERT INTO filters VALUES (99, $$uncommitted$$, bloom_empty(10), NULL)');
$bg->query_safe('INSERT INTO sdocs_small SELECT 9000 + d, mixed_filter(d) FROM generate_series(1, 50) d') if $have_slice;

$primary->stop('immediate');
eval { $bg->quit; };
$primary->start;
like(slurp_file($primary->logfile), qr/not properly shut down; automatic recovery in progress.*redo starts/s,
	'the restart replayed WAL (crash recovery)');

is(fingerprint($primary, 'src'), $fp_committed,
	'after an immediate shutdown: every committed filter, byte for byte, and nothing uncommitted');
is($primary->safe_psql('src', q{
	SELECT (SELECT count(*) FROM filters WHERE id = 99),
	       (SELECT count(*) FROM generate_series(700001, 700100) g WHERE g <@ f),
	       (SELECT bool_and(f @> 31337) FROM filters WHERE id IN (1, 14, 21))
	FROM filters WHERE id = 30}),
	'0|100|t', 'after the crash: the keys of the last commits are found, the uncommitted row is not there');
if ($have_gist)
{
	is(index_answers($primary, 'src', 'index'), $seq_committed,
		'after the crash: the GiST index answers as a sequential scan did before it');
	my $found = ids_for($seq_committed, 31337);
	my @missing = grep { !$found->{$_} } grep { $_ < 200 || $_ > 250 } map { $_ * 7 } 1 .. 571;
	is("@missing", '', '(the probe of the key added just before the crash finds every updated document)');
}

if ($have_slice)
{
	is(slice_answers($primary, 'src', 'index'), $slice_committed,
		'after the crash: the bloomslice indexes answer as a sequential scan did before it');
	ok(uses_slice($primary, 'src'), '... through the bloomslice indexes');
	is($primary->safe_psql('src', q{SET enable_seqscan = off; SELECT count(*) FROM sdocs_small WHERE id > 9000 AND f @> 50}),
		'0', '(the uncommitted rows are not found)');
	$primary->safe_psql('src', q{
		INSERT INTO sdocs_small SELECT d, mixed_filter(d) FROM generate_series(3001, 3100) d;
		INSERT INTO sdocs_big SELECT d, mixed_filter(d) FROM generate_series(3001, 3100) d;
		VACUUM sdocs_big;});
	is(slice_answers($primary, 'src', 'index'), slice_answers($primary, 'src', 'seq'),
		'after the crash: new rows and VACUUM, still the rows of a sequential scan');
}

# the standby follows the restarted primary
$primary->safe_psql('src', 'UPDATE filters SET f = f + 2024 WHERE id IN (14, 31)');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(fingerprint($standby, 'src'), fingerprint($primary, 'src'),
	'standby: identical filters after the primary crashed, restarted and went on');
if ($have_gist)
{
	is(index_answers($standby, 'src', 'index'), index_answers($primary, 'src', 'seq'),
		'standby: index answers still equal the primary\'s');
}
if ($have_slice)
{
	is(slice_answers($standby, 'src', 'index'), slice_answers($primary, 'src', 'seq'),
		'standby: bloomslice index answers still equal the primary\'s sequential scan');
}

my $log = slurp_file($primary->logfile) . slurp_file($standby->logfile);
unlike($log, qr/terminated by signal|TRAP:|PANIC|XX000/, 'no crash or internal error in either log');

done_testing();
