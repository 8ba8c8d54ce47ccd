# Equal keys across databases: a filter built in one database answers true
# in another for every key equal to one it holds, whatever the two
# databases' encodings, and the same keys give the same bytes everywhere
# (issue #12; DESIGN.md, "Elements": text hashes as UTF-8 whatever the
# database encoding, enums by label).
#
# One cluster, five databases: two UTF8 (u8, u8b), LATIN1, WIN1252 and
# EUC_JP.  Every database has its own enum "mood" with the labels it can
# hold, in another order (and other OIDs: u8b creates other types first),
# a composite over it, a domain over it, and a composite and a domain over
# text.
#
# For every ordered pair of databases (A, B) and the strings and labels
# both can hold:
#   - A builds a filter per kind of key (text, varchar, char(n), name, a
#     domain over varchar, jsonb, text[], an anonymous record, a composite;
#     the enum, a domain over it, mood[], a composite and a record with it)
#     and ships it to B as a bytea literal;
#   - B probes it with its own copies of the keys (for the text family with
#     every other member of the family, wherever = holds) and must find
#     them all;
#   - B builds the same filter from its own copies: the bytes are A's.
# And in the LATIN1 database under client_encoding UTF8, bloom_agg over an
# enum and a text column gives the same bytes in a serial and a parallel
# plan as in the UTF8 database, and finds every row.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $node = start_node('enc');

my %encoding = (
	u8    => 'UTF8',
	u8b   => 'UTF8',
	l1    => 'LATIN1',
	w1252 => 'WIN1252',
	ej    => 'EUC_JP');
my @dbs = sort keys %encoding;

# The strings, as UTF-8 hex, and the encodings that can hold each.
# convert_from(..., 'UTF8') gives each database its own encoding's bytes.
my %strings = (
	ascii    => [ '6b6579', [qw(UTF8 LATIN1 WIN1252 EUC_JP)] ],                  # key
	spaces   => [ '616220', [qw(UTF8 LATIN1 WIN1252 EUC_JP)] ],                  # 'ab '
	empty    => [ '', [qw(UTF8 LATIN1 WIN1252 EUC_JP)] ],
	cafe     => [ '636166c3a9', [qw(UTF8 LATIN1 WIN1252)] ],                     # café
	naive    => [ '6e61c3af766520', [qw(UTF8 LATIN1 WIN1252)] ],                 # 'naïve '
	umlaut   => [ 'c39c6ec3af63c3b664c3a92020', [qw(UTF8 LATIN1 WIN1252)] ],     # 'Ünïcödé  '
	euro     => [ 'e282ac313030', [qw(UTF8 WIN1252)] ],                          # €100
	japanese => [ 'e697a5e69cace8aa9e', [qw(UTF8 EUC_JP)] ],                     # 日本語
);
# enum labels, likewise, and the order each database declares them in
my %labels = (
	sad   => [ '736164', [qw(UTF8 LATIN1 WIN1252 EUC_JP)] ],
	ok    => [ '6f6b', [qw(UTF8 LATIN1 WIN1252 EUC_JP)] ],
	happy => [ '6861707079', [qw(UTF8 LATIN1 WIN1252 EUC_JP)] ],
	cafe  => [ '636166c3a9', [qw(UTF8 LATIN1 WIN1252)] ],
	euro  => [ 'e282ac', [qw(UTF8 WIN1252)] ],
	nihon => [ 'e697a5e69cac', [qw(UTF8 EUC_JP)] ],
);
my %label_order = (
	u8    => [qw(sad ok happy cafe euro nihon)],
	u8b   => [qw(nihon euro cafe happy ok sad)],
	l1    => [qw(happy cafe sad ok)],
	w1252 => [qw(euro ok cafe sad happy)],
	ej    => [qw(ok nihon happy sad)]);

sub holds
{
	my ($table, $name, $db) = @_;
	return grep { $_ eq $encoding{$db} } @{ $table->{$name}[1] };
}

sub utf8_literal
{
	my ($hex) = @_;
	return "convert_from('\\x$hex'::bytea, 'UTF8')";
}

foreach my $db (@dbs)
{
	$node->safe_psql('postgres',
		"CREATE DATABASE $db ENCODING '$encoding{$db}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
	my $labels = join ', ',
	  map { utf8_literal($labels{$_}[0]) } grep { holds(\%labels, $_, $db) } @{ $label_order{$db} };
	# other objects first in u8b, so that its types get other OIDs
	my $shift = $db eq 'u8b'
	  ? 'CREATE TYPE filler AS ENUM (\'x\'); CREATE TABLE filler_t (a int, b filler);'
	  : '';
	$node->safe_psql(
		$db, qq{
		CREATE EXTENSION bloomfilter;
		$shift
		DO \$\$ BEGIN EXECUTE format('CREATE TYPE mood AS ENUM (%s)',
			(SELECT string_agg(quote_literal(l), ', ' ORDER BY i)
			 FROM unnest(ARRAY[$labels]) WITH ORDINALITY u(l, i))); END \$\$;
		CREATE TYPE tagged AS (m mood, n int);
		CREATE DOMAIN mood_d AS mood;
		CREATE TYPE pair AS (a int, b text);
		CREATE DOMAIN code AS varchar(20);
		-- runs a query giving one text value; an error is returned as text,
		-- so that one kind that fails does not hide the others
		CREATE FUNCTION try_text(q text) RETURNS text LANGUAGE plpgsql AS \$\$
		DECLARE
			r text;
		BEGIN
			EXECUTE q INTO r;
			RETURN r;
		EXCEPTION WHEN OTHERS THEN
			RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
		END \$\$;
	});
}

# the key kinds, as SQL over s (a string) or m (a label as mood)
my %text_kinds = (
	text    => 's::text',
	varchar => 's::varchar',
	bpchar  => 's::char(20)',
	name    => 's::name',
	domain  => 's::code');
my %other_kinds = (
	jsonb     => q{jsonb_build_object('k', s, 'n', 1.0)},
	array     => 'ARRAY[s, NULL]',
	record    => 'ROW(s, 1)',
	composite => 'ROW(1, s)::pair');
my %enum_kinds = (
	enum      => 'm',
	domain    => 'm::mood_d',
	array     => 'ARRAY[m]',
	composite => 'ROW(m, 1)::tagged',
	record    => 'ROW(m, 2)');

# the values both databases can hold, as a FROM item giving s (or m)
sub strings_from
{
	my ($a, $b) = @_;
	my @names = grep { holds(\%strings, $_, $a) && holds(\%strings, $_, $b) } sort keys %strings;
	return '(VALUES ' . join(', ', map { '(' . utf8_literal($strings{$_}[0]) . ')' } @names) . ') v(s)';
}

sub labels_from
{
	my ($a, $b) = @_;
	my @names = grep { holds(\%labels, $_, $a) && holds(\%labels, $_, $b) } sort keys %labels;
	return '(SELECT ' . utf8_literal($labels{$_}[0]) . '::mood AS m) v' if @names == 1;
	return '(VALUES ' . join(', ', map { '(' . utf8_literal($labels{$_}[0]) . '::mood)' } @names) . ') v(m)';
}

# the filter of each kind, as hex, built in db from the values of "from"
# (one query for all the kinds)
sub build
{
	my ($db, $kinds, $from) = @_;
	my $sql = join "\nUNION ALL ",
	  map { "SELECT '$_', try_text(\$q\$SELECT encode(bloom_agg($kinds->{$_}, 100, 0.01)::bytea, 'hex') FROM $from\$q\$)" }
	  sort keys %$kinds;
	return { map { split /\|/, $_, 2 } split /\n/, $node->safe_psql($db, $sql) };
}

# probes in db the filters of "built" with the keys of "from": for each
# [filter kind, probe kind], how many keys are equal under = (these must be
# found) and how many of those the filter misses.  eq: how to compare the
# two kinds, when not with = (a domain over an enum has no =)
sub probe
{
	my ($db, $kinds, $from, $built, $pairs, $eq) = @_;
	my $sql = join "\nUNION ALL ", map {
		my ($k, $p) = @$_;
		my ($kx, $px) = ($kinds->{$k}, $kinds->{$p});
		my $equal = $eq // "($kx) = ($px)";
		"SELECT '$k', '$p', try_text(\$q\$
		 SELECT count(*) FILTER (WHERE $equal) || '|' ||
		        count(*) FILTER (WHERE $equal AND NOT ($px) <@ f)
		 FROM $from, (SELECT decode('$built->{$k}', 'hex')::bloomfilter AS f) s\$q\$)"
	} grep { $built->{ $_->[0] } !~ /^ERROR/ } @$pairs;
	return [] if $sql eq '';
	return [ map { [ split /\|/ ] } split /\n/, $node->safe_psql($db, $sql) ];
}

# checks one filter kind built in a and b: no error, the same bytes
sub same_filter
{
	my ($what, $built, $own) = @_;
	unlike($built, qr/^ERROR/, "$what: built") or diag $built;
	is($own, $built, "$what: the same bytes in both databases");
}

sub probed
{
	my ($what, $r) = @_;
	my ($k, $p, $required, $misses) = @$r;
	if ($required =~ /^ERROR/)
	{
		fail("$what: $k filter probed with $p: $required");
		return;
	}
	ok($required > 0, "$what: $k filter, $required $p keys checked");
	is($misses, 0, "$what: $k filter probed with $p finds every equal key");
}

foreach my $a (@dbs)
{
	foreach my $b (@dbs)
	{
		next if $a eq $b;
		my $what = "$a ($encoding{$a}) to $b ($encoding{$b})";

		# text family and the other string kinds; the text family probed
		# with every member of the family
		my $from  = strings_from($a, $b);
		my %kinds = (%text_kinds, %other_kinds);
		my $built = build($a, \%kinds, $from);
		my $own   = build($b, \%kinds, $from);
		same_filter("$what: $_ filter", $built->{$_}, $own->{$_}) foreach sort keys %kinds;
		my @pairs = map {
			my $k = $_;
			exists $text_kinds{$k} ? (map { [ $k, $_ ] } sort keys %text_kinds) : ([ $k, $k ])
		} sort keys %kinds;
		probed($what, $_) foreach @{ probe($b, \%kinds, $from, $built, \@pairs) };

		# enums, declared in another order in each database
		$from  = labels_from($a, $b);
		$built = build($a, \%enum_kinds, $from);
		$own   = build($b, \%enum_kinds, $from);
		same_filter("$what: $_ of mood", $built->{$_}, $own->{$_}) foreach sort keys %enum_kinds;
		# each kind probed with itself: the same label, so equal
		probed("$what: mood", $_)
		  foreach @{ probe($b, \%enum_kinds, $from, $built, [ map { [ $_, $_ ] } sort keys %enum_kinds ], 'true') };
	}
}

# Serial and parallel aggregation in the LATIN1 database under
# client_encoding UTF8, and the same rows in the UTF8 database: one set of
# bytes.
my @rowlabels = grep { holds(\%labels, $_, 'l1') } sort keys %labels;
my $label_array = 'ARRAY[' . join(', ', map { utf8_literal($labels{$_}[0]) } @rowlabels) . ']';
my $text_expr = utf8_literal($strings{umlaut}[0]) . q{ || (g % 1000)};
my %agg;
foreach my $db (qw(l1 u8))
{
	$node->safe_psql(
		$db, qq{
		CREATE TABLE par AS
		SELECT g, ($label_array)[1 + g % @{[scalar @rowlabels]}]::mood AS m, $text_expr AS t
		FROM generate_series(1, 60000) g;
		ANALYZE par;
		SET client_encoding = '$encoding{$db}';
		SET max_parallel_workers_per_gather = 0;
		CREATE TABLE agg_serial AS SELECT bloom_agg(m) AS m, bloom_agg(t) AS t FROM par;
	});
	$agg{$db} = $node->safe_psql($db, q{SELECT md5(m::bytea) || ' ' || md5(t::bytea) FROM agg_serial});
}
my $parallel = q{
	SET client_encoding = 'UTF8';
	SET parallel_setup_cost = 0;
	SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0;
	SET max_parallel_workers_per_gather = 2;
};
like(
	$node->safe_psql('l1', $parallel . 'EXPLAIN (COSTS OFF) SELECT bloom_agg(m) FROM par'),
	qr/Partial Aggregate.*Parallel Seq Scan/s,
	'l1: the aggregate runs in a parallel plan');
$node->safe_psql('l1', $parallel
	  . 'CREATE TABLE agg_parallel AS SELECT bloom_agg(m) AS m, bloom_agg(t) AS t FROM par');
$node->safe_psql(
	'l1', q{
	SET client_encoding = 'UTF8';
	SET max_parallel_workers_per_gather = 0;
	CREATE TABLE agg_serial_utf8 AS SELECT bloom_agg(m) AS m, bloom_agg(t) AS t FROM par;
});
my $serial_utf8 = $node->safe_psql('l1', q{SELECT md5(m::bytea) || ' ' || md5(t::bytea) FROM agg_serial_utf8});
is($node->safe_psql('l1', q{SELECT md5(m::bytea) || ' ' || md5(t::bytea) FROM agg_parallel}),
	$serial_utf8, 'l1: under client_encoding UTF8, the parallel plan gives the serial bytes');
is($serial_utf8, $agg{l1},
	'l1: the bytes under client_encoding UTF8 are those under client_encoding LATIN1');
is($agg{l1}, $agg{u8}, 'the same rows give the same bytes in the LATIN1 and the UTF8 database');
is( $node->safe_psql(
		'l1', $parallel . q{
		SELECT count(*) FILTER (WHERE NOT m <@ (SELECT m FROM agg_parallel)) || ' ' ||
		       count(*) FILTER (WHERE NOT t <@ (SELECT t FROM agg_parallel)) || ' ' ||
		       count(*) FILTER (WHERE NOT m <@ (SELECT m FROM agg_serial)) || ' ' ||
		       count(*) FILTER (WHERE NOT t <@ (SELECT t FROM agg_serial))
		FROM par}),
	'0 0 0 0',
	'l1: every row is found, probed in a parallel plan under client_encoding UTF8');

# Extension types are hashed from their stored bytes or their own hash
# function, which depend on the database encoding (and, for citext, its
# locale): a filter of them moved to a database where these differ must be
# refused as another family, never answer false.  Within one encoding it
# answers.
foreach my $db (qw(u8 u8b l1))
{
	$node->safe_psql($db, 'CREATE EXTENSION citext; CREATE EXTENSION hstore;');
}
my %ext_keys = (
	citext => "convert_from('\\x434146c389'::bytea, 'UTF8')::citext",    # 'CAFÉ'
	hstore => "hstore('k', convert_from('\\x636166c3a9'::bytea, 'UTF8'))");
my %ext_probe = (
	citext => "convert_from('\\x636166c389'::bytea, 'UTF8')::citext",    # 'cafÉ'
	hstore => $ext_keys{hstore});
foreach my $type (sort keys %ext_keys)
{
	my $hex = $node->safe_psql('u8',
		"SELECT encode((bloom_empty(100) + $ext_keys{$type})::bytea, 'hex')");
	is( $node->safe_psql('u8b',
			"SELECT $ext_probe{$type} <@ decode('$hex', 'hex')::bloomfilter"),
		't', "$type: a filter from u8 answers in u8b (same encoding and locale)");
	my ($ret, $out, $err) = $node->psql('l1',
		"SELECT $ext_probe{$type} <@ decode('$hex', 'hex')::bloomfilter");
	like($err, qr/filter holds keys of family/,
		"$type: a filter from u8 probed in the LATIN1 database is refused, not answered ($out)");
}

done_testing();
