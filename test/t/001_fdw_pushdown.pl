
# Bloom-join over postgres_fdw: with OPTIONS (extensions 'bloomfilter') on the
# server, "remote.key <@ (SELECT bloom_agg(key) FROM local)" is evaluated on
# the remote, the filter travels as a text parameter, the join returns
# exactly the plain join's rows, and far fewer rows cross the wire.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;


# actual rows of the Foreign Scan on $rel in EXPLAIN (ANALYZE) output
sub fscan_rows
{
	my ($plan, $rel) = @_;
	return $plan =~ /Foreign Scan on \S*\Q$rel\E\b.*?\(actual rows=(\d+)/
	  ? $1 : undef;
}

my $remote = start_node('remote');
my $coord  = start_node('coord');

my $N = 100_000;
$remote->safe_psql('postgres', qq{
	CREATE TABLE big AS
	SELECT g AS id, 'c' || g AS code, md5(g::text) AS payload
	FROM generate_series(1, $N) g;
	ANALYZE big;
});

my $rport = $remote->port;
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER big_srv FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$rport', dbname 'postgres',
		         extensions 'bloomfilter');
	CREATE USER MAPPING FOR CURRENT_USER SERVER big_srv;
	CREATE FOREIGN TABLE remote_big (id int, code text, payload text)
		SERVER big_srv OPTIONS (table_name 'big');
	-- the same server without the extensions option: nothing of
	-- bloomfilter may be shipped to it
	CREATE SERVER plain_srv FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$rport', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER plain_srv;
	CREATE FOREIGN TABLE remote_big_plain (id int, code text, payload text)
		SERVER plain_srv OPTIONS (table_name 'big');
	-- 950 keys that the remote holds (1%) and 50 it does not
	CREATE TABLE keys AS
	SELECT g * 101 AS id FROM generate_series(1, 950) g
	UNION ALL SELECT $N + g FROM generate_series(1, 50) g;
	ANALYZE keys;
});

# ---- the operator and its functions are shippable ----------------------
# postgres_fdw ships an operator or function only if it is IMMUTABLE and a
# member of an extension named in the server's "extensions" option.
is( $coord->safe_psql(
		'postgres', q{
	SELECT string_agg(v.sig, ', ' ORDER BY v.sig)
	FROM (VALUES ('<@(anycompatible,bloomfilter)'), ('@>(bloomfilter,anycompatible)')) v(sig)
	JOIN pg_operator o ON o.oid = v.sig::regoperator
	JOIN pg_proc p ON p.oid = o.oprcode AND p.provolatile = 'i'
	JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid
	                 AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'}),
	'<@(anycompatible,bloomfilter), @>(bloomfilter,anycompatible)',
	'<@ and @> are IMMUTABLE members of the extension');

# ---- the predicate is pushed down ----------------------------------------
my $bloom_join = q{
	SELECT k.id, r.payload FROM keys k JOIN remote_big r ON r.id = k.id
	WHERE r.id <@ (SELECT bloom_agg(id) FROM keys)};
my $plan = $coord->safe_psql('postgres',
	"EXPLAIN (VERBOSE, COSTS OFF) $bloom_join");
like(
	$plan,
	qr/Remote SQL: SELECT id, payload FROM public\.big WHERE \(\(id OPERATOR\(public\.<\@\) \$1::public\.bloomfilter\)\)/,
	'x <@ f: the filter goes to the remote as a parameter, the predicate runs there'
) or diag($plan);
unlike($plan, qr/^\s*Filter:/m, 'no part of the predicate is left to run locally');

$plan = $coord->safe_psql(
	'postgres', q{
	EXPLAIN (VERBOSE, COSTS OFF)
	SELECT r.id FROM remote_big r
	WHERE (SELECT bloom_agg(id) FROM keys) @> r.id
	  AND bloom_contains((SELECT bloom_agg(id) FROM keys), r.id)});
like($plan, qr/Remote SQL: .*\$1::public\.bloomfilter OPERATOR\(public\.\@>\) id/,
	'f @> x is pushed down');
like($plan, qr/Remote SQL: .*public\.bloom_contains\(\$2::public\.bloomfilter, id\)/,
	'bloom_contains(f, x) is pushed down');

# negative control: without the extensions option nothing is shipped, so
# the checks above do detect a predicate that stays local
$plan = $coord->safe_psql(
	'postgres', q{
	EXPLAIN (VERBOSE, COSTS OFF)
	SELECT r.id FROM remote_big_plain r WHERE r.id <@ (SELECT bloom_agg(id) FROM keys)});
unlike($plan, qr/Remote SQL: .*bloomfilter/,
	'control: without extensions \'bloomfilter\' the predicate is not shipped');
# (the InitPlan's output: "$0" until 16, "(InitPlan 1).col1" from 17)
like($plan, qr/Filter: \(r\.id <\@ (\$0|\(InitPlan 1\)\.col1)\)/, 'control: ... and runs locally instead');

# ---- same rows, fewer rows fetched -----------------------------------------
my $plain_join =
  q{SELECT k.id, r.payload FROM keys k JOIN remote_big r ON r.id = k.id};
my $plain = $coord->safe_psql('postgres', "$plain_join ORDER BY 1");
my $bloom = $coord->safe_psql('postgres', "$bloom_join ORDER BY 1");
is(scalar(split /\n/, $plain), 950, 'the plain join finds the 950 keys the remote holds');
is($bloom, $plain, 'the Bloom-join returns exactly the plain join\'s rows');

my $aplain = $coord->safe_psql('postgres',
	"EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $plain_join");
my $abloom = $coord->safe_psql('postgres',
	"EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $bloom_join");
my $rows_plain = fscan_rows($aplain, 'remote_big');
my $rows_bloom = fscan_rows($abloom, 'remote_big');
is($rows_plain, $N, "plain join: the Foreign Scan fetches all $N rows");
ok( defined $rows_bloom && $rows_bloom >= 950,
	"Bloom-join: every matching row is fetched ($rows_bloom >= 950)");
# a 1% filter passes about 1% of the 99,050 others; 3% leaves room
ok( defined $rows_bloom && $rows_bloom <= 950 + 0.03 * ($N - 950),
	"Bloom-join: the Foreign Scan fetches $rows_bloom rows, not $N")
  or diag($abloom);
note "rows fetched: plain $rows_plain, Bloom-join $rows_bloom";

# the remote's own count for the same filter is the number fetched: the
# filter means the same thing on both clusters
my $ftext = $coord->safe_psql('postgres', 'SELECT bloom_agg(id) FROM keys');
is( $remote->safe_psql('postgres',
		"SELECT count(*) FROM big WHERE id <@ '$ftext'::bloomfilter"),
	$rows_bloom,
	'the remote, given the filter\'s text form directly, keeps the same rows');

# the parameter travelled as the filter's text form (base64 of "BLMF", version 1)
my $log = slurp_file($remote->logfile);
like(
	$log,
	qr/DECLARE c\d+ CURSOR FOR\s+SELECT id(, payload)? FROM public\.big WHERE \(\(id OPERATOR\(public\.<\@\) \$1::public\.bloomfilter\)\).*\n.*[Pp]arameters: \$1 = 'QkxNRgEA/,
	'the remote received the filter as a text parameter');

# ---- other forms -----------------------------------------------------------
# text keys
my $tj_plain = $coord->safe_psql('postgres', q{
	SELECT r.id FROM keys k JOIN remote_big r ON r.code = 'c' || k.id ORDER BY 1});
my $tj_bloom_q = q{
	SELECT r.id FROM keys k JOIN remote_big r ON r.code = 'c' || k.id
	WHERE r.code <@ (SELECT bloom_agg('c' || id) FROM keys) ORDER BY 1};
is($coord->safe_psql('postgres', $tj_bloom_q), $tj_plain,
	'text keys: the Bloom-join returns the plain join\'s rows');
like(
	$coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $tj_bloom_q"),
	qr/Remote SQL: .*code OPERATOR\(public\.<\@\) \$1::public\.bloomfilter/,
	'text keys: pushed down');

# a filter stored in a table, and a filter as a prepared statement's parameter
$coord->safe_psql('postgres',
	q{CREATE TABLE saved AS SELECT 'keys' AS name, bloom_agg(id) AS f FROM keys});
like(
	$coord->safe_psql(
		'postgres', q{
	EXPLAIN (VERBOSE, COSTS OFF)
	SELECT id FROM remote_big WHERE id <@ (SELECT f FROM saved WHERE name = 'keys')}),
	qr/Remote SQL: .*id OPERATOR\(public\.<\@\) \$1::public\.bloomfilter/,
	'a stored filter is pushed down');
# a custom plan inlines the filter as a constant (its text form); a generic
# plan sends it as a parameter
my $prep = $coord->safe_psql(
	'postgres', qq{
	PREPARE q(bloomfilter) AS SELECT count(*) FROM remote_big WHERE id <@ \$1;
	EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q('$ftext');
	SET plan_cache_mode = force_generic_plan;
	EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q('$ftext');
	EXECUTE q('$ftext');});
like($prep,
	qr/Remote SQL: SELECT count\(\*\) FROM public\.big WHERE \(\(id OPERATOR\(public\.<\@\) 'QkxNRgEA[^']*'::public\.bloomfilter\)\)/,
	'prepared statement, custom plan: the filter is shipped as a literal');
like($prep,
	qr/Remote SQL: SELECT count\(\*\) FROM public\.big WHERE \(\(id OPERATOR\(public\.<\@\) \$1::public\.bloomfilter\)\)/,
	'prepared statement, generic plan: the filter is shipped as a parameter');
like($prep, qr/\n$rows_bloom$/, '... and counts the same rows, remotely');

# ---- building the filter remotely ------------------------------------------
like(
	$coord->safe_psql('postgres',
		'EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(id) FROM remote_big'),
	qr/Remote SQL: SELECT public\.bloom_agg\(id\) FROM public\.big/,
	'bloom_agg runs on the remote (aggregate pushdown)');
is( $coord->safe_psql(
		'postgres', qq{
	SELECT (SELECT bloom_agg(id) FROM remote_big)
	     = (SELECT bloom_agg(g) FROM generate_series(1, $N) g)}),
	't',
	'the remotely built filter is byte for byte the one built locally from the same keys');

done_testing();
