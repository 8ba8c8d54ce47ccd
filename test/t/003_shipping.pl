
# Shipping a filter between clusters without postgres_fdw: dblink (text and
# bytea literals), PREPARE/EXECUTE with a bytea literal, libpq parameters and
# results in binary and text format (as a driver sends them), and
# COPY ... (FORMAT binary) and text from one cluster to another.  A filter
# arrives byte for byte as it left, and answers the same.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;


my $remote = start_node('remote');
my $coord  = start_node('coord');
my $dir    = $PostgreSQL::Test::Utils::tmp_check;
my $rport  = $remote->port;
my $rconn  = "host=127.0.0.1 port=$rport dbname=postgres";

my $N = 100_000;
$remote->safe_psql('postgres', qq{
	CREATE TABLE big AS SELECT g AS id, md5(g::text) AS payload
	FROM generate_series(1, $N) g;
	CREATE TABLE filters (name text, f bloomfilter);
});
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION dblink;
	CREATE TABLE keys AS SELECT g * 101 AS id FROM generate_series(1, 950) g
	UNION ALL SELECT $N + g FROM generate_series(1, 50) g;
	CREATE TABLE filters (name text, f bloomfilter);
	INSERT INTO filters
	SELECT 'keys', bloom_agg(id) FROM keys
	UNION ALL SELECT 'text', bloom_agg(md5(g::text)) FROM generate_series(1, 5000) g
	UNION ALL SELECT 'classic', bloom_add_all(bloom_empty_bits(10000, 5, 'classic', 42),
	                                          ARRAY['a', 'b', 'c'])
	UNION ALL SELECT 'empty', bloom_empty(100)
	UNION ALL SELECT 'big', bloom_agg(g) FROM generate_series(1, 300000) g;
});
my $ftext = $coord->safe_psql('postgres', q{SELECT f FROM filters WHERE name = 'keys'});
my $fhex = $coord->safe_psql('postgres',
	q{SELECT encode(f::bytea, 'hex') FROM filters WHERE name = 'keys'});

# the truth: what the remote keeps for this filter, given as a text literal
my $kept = $remote->safe_psql('postgres',
	"SELECT count(*) FROM big WHERE id <@ '$ftext'::bloomfilter");
ok($kept >= 950 && $kept <= 950 + 0.03 * $N, "the filter keeps $kept of $N remote rows");

# ---- dblink ---------------------------------------------------------------
my $plain = $coord->safe_psql(
	'postgres', qq{
	SELECT k.id, e.payload
	FROM dblink('$rconn', 'SELECT id, payload FROM big') AS e(id int, payload text)
	JOIN keys k USING (id) ORDER BY 1});
is(scalar(split /\n/, $plain), 950, 'dblink plain join: 950 rows');
for my $form ([ 'text', q{%L::bloomfilter}, q{f} ],
	[ 'bytea', q{%L::bytea::bloomfilter}, q{f::bytea} ])
{
	my ($name, $ph, $arg) = @$form;
	my $sql = qq{
		SELECT format('SELECT id, payload FROM big WHERE id <\@ $ph', $arg) AS q
		FROM (SELECT bloom_agg(id) AS f FROM keys) s \\gset
		SELECT count(*) FROM dblink('$rconn', :'q') AS e(id int, payload text);
		SELECT k.id, e.payload
		FROM dblink('$rconn', :'q') AS e(id int, payload text)
		JOIN keys k USING (id) ORDER BY 1;};
	my ($moved, @rows) = split /\n/, $coord->safe_psql('postgres', $sql);
	is($moved, $kept, "dblink, filter as a $name literal: $moved rows cross, not $N");
	is(join("\n", @rows), $plain, "dblink, filter as a $name literal: the plain join's rows");
}

# a filter built on the remote, fetched as bloomfilter and as bytea
is( $coord->safe_psql(
		'postgres', qq{
	SELECT f = (SELECT bloom_agg(g) FROM generate_series(1, $N) g),
	       b::bloomfilter = f
	FROM dblink('$rconn', 'SELECT bloom_agg(id), bloom_agg(id)::bytea FROM big')
	     AS t(f bloomfilter, b bytea)}),
	't|t',
	'dblink: a filter built remotely arrives as bloomfilter and as bytea, identical to a local build');

# ---- PREPARE / EXECUTE with literals ----------------------------------------
is( $remote->safe_psql(
		'postgres', qq{
	PREPARE qb(bytea) AS SELECT count(*) FROM big WHERE id <\@ \$1::bloomfilter;
	PREPARE qt(bloomfilter) AS SELECT count(*) FROM big WHERE id <\@ \$1;
	EXECUTE qb('\\x$fhex');
	EXECUTE qt('$ftext');}),
	"$kept\n$kept",
	'PREPARE/EXECUTE: the filter as a bytea literal and as a text literal');

# ---- libpq: binary and text parameters and results -------------------------
# A tiny libpq client, as a driver would use the protocol: PQexecParams with
# the parameter in binary (format 1) or text (format 0), and results in binary.
my ($cbin, $cerr) = build_c_helper('pqship', $dir);
my $built = defined $cbin;
ok($built, 'the libpq test client builds') or diag($cerr);

sub pqship
{
	my ($node, $mode, $sql, $file) = @_;
	my $conn = 'host=127.0.0.1 port=' . $node->port . ' dbname=postgres';
	my ($out, $err);
	IPC::Run::run([ $cbin, $conn, $mode, $sql, $file ], '>', \$out, '2>', \$err);
	diag($err) if $err;
	chomp $out;
	return $out;
}

SKIP:
{
	skip 'no libpq client', 7 unless $built;

	# binary result: the bytes are the portable format, as f::bytea gives it
	my $binfile = "$dir/keys.bin";
	like(pqship($coord, 'fetch-bin', q{SELECT f FROM filters WHERE name = 'keys'}, $binfile),
		qr/^\d+ bytes$/, 'libpq: a filter fetched as a binary result');
	is(unpack('H*', slurp_file($binfile)), $fhex,
		'libpq: the binary result is byte for byte f::bytea (the portable format)');

	# binary parameter, typed bloomfilter (bloomfilter_recv) or bytea (the cast)
	is(pqship($remote, 'param-bin', 'SELECT count(*) FROM big WHERE id <@ $1::bloomfilter', $binfile),
		$kept, 'libpq: the filter as a binary bloomfilter parameter');
	is(pqship($remote, 'param-bin', 'SELECT count(*) FROM big WHERE id <@ $1::bytea::bloomfilter', $binfile),
		$kept, 'libpq: the filter as a binary bytea parameter');
	is(pqship($remote, 'param-bin', 'SELECT md5($1::bloomfilter::bytea)', $binfile),
		$coord->safe_psql('postgres', q{SELECT md5(f::bytea) FROM filters WHERE name = 'keys'}),
		'libpq: the binary parameter arrives byte for byte');

	# text parameter: the base64 text form
	my $txtfile = "$dir/keys.txt";
	open my $tf, '>', $txtfile or die;
	print $tf $ftext;
	close $tf;
	is(pqship($remote, 'param-text', 'SELECT count(*) FROM big WHERE id <@ $1::bloomfilter', $txtfile),
		$kept, 'libpq: the filter as a text parameter');

	# a filter of a newer format version, as a binary parameter
	my $v2 = slurp_file($binfile);
	substr($v2, 4, 2) = pack('v', 3);
	my $v2file = "$dir/keys-v2.bin";
	open my $vf, '>', $v2file or die;
	binmode $vf;
	print $vf $v2;
	close $vf;
	like(pqship($remote, 'param-bin', 'SELECT count(*) FROM big WHERE id <@ $1::bloomfilter', $v2file),
		qr/^ERROR 22P03: invalid bloomfilter: .*version.*\nDETAIL: .*version 3.*versions 1 to 2/,
		'libpq: a newer-version filter as a binary parameter is refused, naming both versions');
}

# ---- COPY between clusters ------------------------------------------------
# server-side files, binary and text
for my $format ('binary', 'text')
{
	my $file = "$dir/filters.$format";
	$coord->safe_psql('postgres', "COPY filters TO '$file' (FORMAT $format)");
	$remote->safe_psql('postgres',
		"TRUNCATE filters; COPY filters FROM '$file' (FORMAT $format)");
	is( $remote->safe_psql('postgres',
			q{SELECT string_agg(name || ':' || md5(f::bytea), ',' ORDER BY name) FROM filters}),
		$coord->safe_psql('postgres',
			q{SELECT string_agg(name || ':' || md5(f::bytea), ',' ORDER BY name) FROM filters}),
		"COPY (FORMAT $format) to a file and back into another cluster: every filter byte for byte");
}
# the binary COPY field is the portable format itself
ok(index(slurp_file("$dir/filters.binary"), pack('H*', $fhex)) >= 0,
	'the binary COPY file holds the portable bytes of the filter');

# the filters mean the same thing on the other cluster: = against a filter
# the remote builds itself from the same keys, and the same answers
is( $remote->safe_psql(
		'postgres', q{
	SELECT string_agg(name, ',' ORDER BY name) FROM filters
	WHERE (name = 'big' AND f = (SELECT bloom_agg(g) FROM generate_series(1, 300000) g))
	   OR (name = 'text' AND f = (SELECT bloom_agg(md5(g::text)) FROM generate_series(1, 5000) g))
	   OR (name = 'classic' AND f = bloom_add_all(bloom_empty_bits(10000, 5, 'classic', 42),
	                                              ARRAY['a', 'b', 'c']))
	   OR (name = 'empty' AND f = bloom_empty(100))}),
	'big,classic,empty,text',
	'copied filters are = to the filters the other cluster builds from the same keys');
is($remote->safe_psql('postgres',
		q{SELECT count(*) FROM big WHERE id <@ (SELECT f FROM filters WHERE name = 'keys')}),
	$kept, 'a copied filter keeps the same rows');

# client side: COPY TO STDOUT piped into COPY FROM STDIN, binary
$remote->safe_psql('postgres', 'CREATE TABLE piped (name text, f bloomfilter)');
my ($pout, $perr) = ('', '');
my $piped = IPC::Run::run(
	[ 'psql', '-X', '-d', $coord->connstr('postgres'), '-c',
	  'COPY filters TO STDOUT (FORMAT binary)' ],
	'|',
	[ 'psql', '-X', '-d', $remote->connstr('postgres'), '-c',
	  'COPY piped FROM STDIN (FORMAT binary)' ],
	'>', \$pout, '2>', \$perr);
ok($piped, 'psql COPY TO STDOUT | psql COPY FROM STDIN, binary') or diag($perr);
is( $remote->safe_psql('postgres',
		q{SELECT bool_and(p.f = f.f AND p.f::bytea = f.f::bytea), count(*)
		  FROM piped p JOIN filters f USING (name)}),
	 't|5', 'piped filters are identical to the originals');

# an application can write the portable bytes as a binary COPY bytea field:
# bytea's binary form is its bytes, which is what bloomfilter_recv reads
$coord->safe_psql('postgres',
	"COPY (SELECT name, f::bytea FROM filters) TO '$dir/as-bytea.bin' (FORMAT binary)");
$remote->safe_psql('postgres',
	"CREATE TABLE from_bytea (name text, f bloomfilter); COPY from_bytea FROM '$dir/as-bytea.bin' (FORMAT binary)");
is( $remote->safe_psql('postgres',
		q{SELECT bool_and(b.f = f.f), count(*) FROM from_bytea b JOIN filters f USING (name)}),
	't|5', 'a binary COPY of f::bytea loads into a bloomfilter column');

done_testing();
