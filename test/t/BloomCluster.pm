# BloomCluster.pm: what the multi-cluster TAP tests share.
package BloomCluster;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use IPC::Run;
use File::Basename qw(dirname);
use File::Spec;

our @EXPORT = qw(start_node build_c_helper);

# test/t/c: the C helpers' sources
my $csrcdir = File::Spec->rel2abs(dirname(__FILE__)) . '/c';

# A new cluster listening on loopback only, serial plans (so that row
# counts in EXPLAIN ANALYZE are the whole story), with bloomfilter created
# in its postgres database.
sub start_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf',
		"listen_addresses = '127.0.0.1'\nmax_parallel_workers_per_gather = 0\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
	return $node;
}

# Build the C helper test/t/c/NAME.c (with test/t/c/tap_helper.h) against
# libpq and xxhash.h into DIR/NAME.  Returns the program's path, or undef
# and the compiler's messages.
sub build_c_helper
{
	my ($name, $dir) = @_;
	my $incdir = `pg_config --includedir`;
	my $libdir = `pg_config --libdir`;
	chomp($incdir, $libdir);
	my $bin = "$dir/$name";
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'cc', '-O1', '-o', $bin, "$csrcdir/$name.c", "-I$csrcdir", "-I$incdir", "-L$libdir", '-lpq' ],
		'>', \$out, '2>', \$err);
	return $ok ? ($bin, '') : (undef, $out . $err);
}

1;
