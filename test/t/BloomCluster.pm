# BloomCluster.pm: what the multi-cluster TAP tests share.
package BloomCluster;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(start_node);

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

1;
