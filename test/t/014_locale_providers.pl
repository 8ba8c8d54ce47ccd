# Copyright (c) bloomfilter contributors
#
# Keys of an extension type are hashed with the type's own hash function,
# which may depend on the database: citext folds case under the database's
# default collation provider and locale.  A filter of them moved to a
# database that folds otherwise must be refused as another family, never
# answer false.  The providers differ by version: libc and ICU (15), ICU
# tailoring rules (16), the builtin provider, whose "C" folds only ASCII
# letters (17).  And a filter stored before an upgrade keeps answering:
# the signature of a libc or ICU database is the same in every version.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $node = start_node('locales');
my $version = $node->safe_psql('postgres', 'SHOW server_version_num');
my $icu = $node->safe_psql('postgres',
	q{SELECT count(*) > 0 FROM pg_collation WHERE collprovider = 'i'}) eq 't';

# name => the locale clauses of CREATE DATABASE
my $utf8 = q{ENCODING UTF8 LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0};
my %dbs = (
	libc_a => "LOCALE_PROVIDER libc $utf8",
	libc_b => "LOCALE_PROVIDER libc $utf8",);
if ($icu)
{
	$dbs{icu_und} = "LOCALE_PROVIDER icu ICU_LOCALE 'und' $utf8";
	$dbs{icu_und2} = "LOCALE_PROVIDER icu ICU_LOCALE 'und' $utf8";
	$dbs{icu_tr} = "LOCALE_PROVIDER icu ICU_LOCALE 'tr' $utf8";
	$dbs{icu_rules} = "LOCALE_PROVIDER icu ICU_LOCALE 'und' ICU_RULES '&a < b' $utf8"
	  if $version >= 160000;
}
if ($version >= 170000)
{
	$dbs{builtin_c} = "LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C' $utf8";
	$dbs{builtin_c2} = "LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C' $utf8";
	$dbs{builtin_cutf8} = "LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' $utf8";
}
foreach my $db (sort keys %dbs)
{
	$node->safe_psql('postgres', "CREATE DATABASE $db $dbs{$db}");
	$node->safe_psql($db, 'CREATE EXTENSION bloomfilter; CREATE EXTENSION citext;');
}

# 'CAFÉ' and 'I' in, 'cafÉ' and 'I' probed: equal as citext everywhere,
# each database folds them to the same string (case folding differs only
# between databases: the builtin "C" leaves 'É' alone, ICU's Turkish folds
# 'I' to dotless 'ı')
my $keys = q{ARRAY[convert_from('\x434146c389'::bytea, 'UTF8')::citext, 'I'::citext]};
my $probe = q{convert_from('\x636166c389'::bytea, 'UTF8')::citext};

sub filter_of
{
	my ($db) = @_;
	return $node->safe_psql($db,
		"SELECT encode((SELECT bloom_agg(k) FROM unnest($keys) k)::bytea, 'hex')");
}

# For the keys themselves, 'cafÉ' and 'i': "equal/found" each (equal: to a
# key of the filter, in this database), or the error
sub probe
{
	my ($db, $hex) = @_;
	my ($ret, $out, $err) = $node->psql($db,
		"SELECT string_agg((k = ANY($keys))::text || '/' ||"
		  . " (k <@ decode('$hex', 'hex')::bloomfilter)::text, ' ' ORDER BY o)"
		  . " FROM unnest($keys || ARRAY[$probe, 'i'::citext]) WITH ORDINALITY u(k, o)");
	return $ret == 0 ? $out : $err;
}

# every key equal to one added is found (and the keys themselves are)
sub answers
{
	my ($got, $name) = @_;
	like($got, qr{^true/true true/true true/true (true|false)/(true|false)$}, $name);
	unlike($got, qr{true/false}, "$name: no key equal to an added one is missed");
}

my %filter = map { $_ => filter_of($_) } sort keys %dbs;

# Within a database, and between two databases of one provider and locale,
# every key and its other case is found.
foreach my $pair ([qw(libc_a libc_a)], [qw(libc_a libc_b)],
	[qw(icu_und icu_und2)], [qw(icu_tr icu_tr)], [qw(builtin_c builtin_c2)],
	[qw(builtin_cutf8 builtin_cutf8)], [qw(icu_rules icu_rules)])
{
	my ($from, $to) = @$pair;
	next unless $dbs{$from} && $dbs{$to};
	answers(probe($to, $filter{$from}), "a citext filter from $from answers in $to");
}

# Between databases that fold otherwise, the filter is refused.  Those that
# could answer false without the provider and locale in the signature: the
# builtin "C" and libc of the same ctype ('É'), ICU Turkish and ICU root
# ('I'), libc and ICU Turkish ('I').
foreach my $pair ([qw(libc_a icu_und)], [qw(icu_und libc_a)], [qw(libc_a icu_tr)],
	[qw(icu_tr icu_und)], [qw(icu_und icu_tr)], [qw(icu_und icu_rules)],
	[qw(icu_rules icu_und)], [qw(libc_a builtin_c)], [qw(builtin_c libc_a)],
	[qw(libc_a builtin_cutf8)], [qw(builtin_cutf8 builtin_c)],
	[qw(builtin_c builtin_cutf8)], [qw(icu_und builtin_cutf8)])
{
	my ($from, $to) = @$pair;
	next unless $dbs{$from} && $dbs{$to};
	like(probe($to, $filter{$from}), qr/filter holds keys of family/,
		"a citext filter from $from is refused in $to, not answered");
}

# Filters stored by PostgreSQL 15 (libc C.UTF-8 and ICU 'und' databases,
# the keys above) answer in every version: the signatures are the same, so
# that stored filters survive pg_upgrade.
my %stored15 = (
	libc_a => '424c4d4601000207000000000000000000020000000000000200000000000000'
	  . '100000002af631fe0000000046b3df41a6f1cf80000000002000000000000040'
	  . '0000000000002002000000000000400000008000408000020001000000001800'
	  . '0000000000000000000000004000000000004000',
	icu_und => '424c4d4601000207000000000000000000020000000000000200000000000000'
	  . '100000001520bbcc0000000070e459eb1f880c4d000000002000000000000040'
	  . '0000000000002002000000000000400000008000408000020001000000001800'
	  . '0000000000000000000000004000000000004000',);
foreach my $db (sort keys %stored15)
{
	next unless $dbs{$db};
	answers(probe($db, $stored15{$db}),
		"a citext filter stored by PostgreSQL 15 answers in $db");
}

done_testing();
