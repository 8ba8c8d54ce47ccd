
# Compatibility guard: a filter whose format version is newer than this
# build reads (crafted by setting the little-endian uint16 at offset 4 of
# f::bytea to 2) is refused with an ERROR that names both versions, wherever
# it enters a cluster: through postgres_fdw in both directions, through
# dblink and PREPARE/EXECUTE as bytea, and through COPY binary.  The version
# is checked before the checksum, so the message is about the version even
# though the crafted header no longer matches its checksum.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

sub start_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
	return $node;
}

# run SQL expected to fail; return psql's stderr (verbose: with SQLSTATE)
sub fails
{
	my ($node, $sql) = @_;
	my ($out, $err);
	my $rc = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql",
		stdout => \$out, stderr => \$err);
	return $rc == 0 ? "(no error; output: $out)" : $err;
}

my $versions = qr/DETAIL:  The filter has format version 3; this build of bloomfilter reads versions 1 to 2\./;
my $newer = qr/HINT:  .*newer/;

my $remote = start_node('remote');
my $coord  = start_node('coord');
my $dir    = $PostgreSQL::Test::Utils::tmp_check;
my $rport  = $remote->port;
my $rconn  = "host=127.0.0.1 port=$rport dbname=postgres";

$coord->safe_psql('postgres', q{
	CREATE TABLE src AS SELECT bloom_agg(g) AS f FROM generate_series(1, 1000) g;
	-- the same filter, with format version 3 (newer than this build's 2)
	-- written over version 1
	CREATE TABLE v2 AS
	SELECT overlay(f::bytea PLACING '\x0300'::bytea FROM 5 FOR 2) AS b, f FROM src;
});
my $v2hex = $coord->safe_psql('postgres', q{SELECT encode(b, 'hex') FROM v2});
my $v2b64 = $coord->safe_psql('postgres',
	q{SELECT translate(encode(b, 'base64'), E'\n', '') FROM v2});
my $v1b64 = $coord->safe_psql('postgres', 'SELECT f FROM src');
is(substr($v2hex, 0, 12), '424c4d460300', 'crafted: magic BLMF, version 3 (little-endian)');

# ---- locally, each way in ---------------------------------------------------
my $err = fails($coord, q{SELECT b::bloomfilter FROM v2});
like($err, qr/ERROR:  22P03: invalid bloomfilter: the format version is not one this build reads/,
	'bytea cast: refused as an unreadable version');
like($err, $versions, 'bytea cast: the error names both versions');
like($err, $newer, 'bytea cast: the hint says the filter is from a newer bloomfilter');
$err = fails($coord, "SELECT '$v2b64'::bloomfilter");
like($err, qr/ERROR:  22P02: invalid bloomfilter: the format version/, 'text input: refused');
like($err, $versions, 'text input: the error names both versions');

# the version comes before the checksum: a version-1 filter with one flipped
# bit fails on its checksum instead
$err = fails($coord, q{
	SELECT set_byte(f::bytea, 60, get_byte(f::bytea, 60) # 1)::bloomfilter FROM src});
like($err, qr/checksum/, 'a corrupted version-1 filter is refused for its checksum');
unlike($err, qr/version/, '... not for its version');

# ---- postgres_fdw -------------------------------------------------------------
$remote->safe_psql('postgres', qq{
	CREATE TABLE inbox (id int, f bloomfilter);
	CREATE TABLE outbox (id int, f text);
	INSERT INTO outbox VALUES (1, '$v1b64'), (2, '$v2b64');
	CREATE TABLE big AS SELECT g AS id FROM generate_series(1, 10000) g;
});
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER remote_srv FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$rport', dbname 'postgres',
		         extensions 'bloomfilter');
	CREATE USER MAPPING FOR CURRENT_USER SERVER remote_srv;
	-- a newer writer (here: a text column) sends filters to the remote's
	-- bloomfilter column
	CREATE FOREIGN TABLE inbox_ft (id int, f text)
		SERVER remote_srv OPTIONS (table_name 'inbox');
	-- the remote sends filters (kept as text there) to a bloomfilter column here
	CREATE FOREIGN TABLE outbox_ft (id int, f bloomfilter)
		SERVER remote_srv OPTIONS (table_name 'outbox');
	CREATE FOREIGN TABLE big_ft (id int)
		SERVER remote_srv OPTIONS (table_name 'big');
});

$coord->safe_psql('postgres', "INSERT INTO inbox_ft VALUES (1, '$v1b64')");
is($remote->safe_psql('postgres', 'SELECT bloom_cardinality(f) > 900 FROM inbox'),
	't', 'postgres_fdw: a version-1 filter goes into the remote');
$err = fails($coord, "INSERT INTO inbox_ft VALUES (2, '$v2b64')");
like($err, qr/ERROR:  22P02: invalid bloomfilter: the format version is not one this build reads/,
	'postgres_fdw, to the remote: a version-2 filter is refused by the remote');
like($err, $versions, 'postgres_fdw, to the remote: the error names both versions');
like($err, qr/CONTEXT:  .*\n?.*remote SQL command: INSERT INTO public\.inbox/,
	'postgres_fdw, to the remote: the error comes from the remote');
is($remote->safe_psql('postgres', 'SELECT count(*) FROM inbox'), '1',
	'postgres_fdw, to the remote: nothing was stored');

is($coord->safe_psql('postgres', 'SELECT bloom_cardinality(f) > 900 FROM outbox_ft WHERE id = 1'),
	't', 'postgres_fdw: a version-1 filter comes from the remote');
$err = fails($coord, 'SELECT f FROM outbox_ft WHERE id = 2');
like($err, qr/ERROR:  22P02: invalid bloomfilter: the format version/,
	'postgres_fdw, from the remote: a version-2 filter is refused here');
like($err, $versions, 'postgres_fdw, from the remote: the error names both versions');
$err = fails($coord,
	'SELECT count(*) FROM big_ft WHERE id <@ (SELECT f FROM outbox_ft WHERE id = 2)');
like($err, $versions, 'postgres_fdw: a Bloom-join with a version-2 filter stops with that error');

# ---- dblink, bytea ------------------------------------------------------------
$coord->safe_psql('postgres', 'CREATE EXTENSION dblink');
$err = fails($coord, qq{
	SELECT * FROM dblink('$rconn',
		format('SELECT count(*) FROM big WHERE id <\@ %L::bytea::bloomfilter',
		       (SELECT b FROM v2))) AS t(n bigint)});
like($err, qr/invalid bloomfilter: the format version is not one this build reads/,
	'dblink, as bytea: refused by the remote');
like($err, $versions, 'dblink, as bytea: the error names both versions');

$err = fails($remote, qq{
	PREPARE qb(bytea) AS SELECT count(*) FROM big WHERE id <\@ \$1::bloomfilter;
	EXECUTE qb('\\x$v2hex')});
like($err, $versions, 'PREPARE/EXECUTE with a bytea literal: the error names both versions');

# ---- COPY binary ----------------------------------------------------------------
# the crafted bytes as a binary COPY field (bytea's binary form is its bytes)
$coord->safe_psql('postgres', "COPY (SELECT 2, b FROM v2) TO '$dir/v2.copy' (FORMAT binary)");
$err = fails($remote, "COPY inbox FROM '$dir/v2.copy' (FORMAT binary)");
like($err, qr/ERROR:  22P03: invalid bloomfilter: the format version/,
	'COPY FROM (FORMAT binary): refused by bloomfilter_recv');
like($err, $versions, 'COPY FROM (FORMAT binary): the error names both versions');
like($err, qr/CONTEXT:  COPY inbox, line 1, column f/, 'COPY FROM: the error says where');

done_testing();
