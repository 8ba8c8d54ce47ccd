
# The bloomslice pages an earlier release wrote are read by this build with
# the same answers (src/core/FORMAT.md, "Compatibility"): for each frozen
# release (test/vectors/frozen/<release>/bloomslice.tsv, written once by
# that release's make_frozen.py and never regenerated), the test runs the
# recorded setup (the same heap, so the same row addresses), stops the
# server, puts the frozen pages in place of the index this build made, and
# checks that every recorded query answers as recorded, through the index
# and by a sequential scan.  Then the index goes on under this build: rows
# added to its pending area, VACUUM moving them into blocks, and every query
# still answers as a sequential scan does.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;
use Test::More;
use MIME::Base64 qw(decode_base64);

my $frozen = "$FindBin::RealBin/../vectors/frozen";
my @releases = ('1.0');

# the ids a WHERE clause selects, through frozen_slice_idx or a sequential scan
sub ids
{
	my ($node, $where, $index) = @_;
	my $set = $index
	  ? 'SET enable_seqscan = off;'
	  : 'SET enable_indexscan = off; SET enable_bitmapscan = off;';
	if ($index)
	{
		my $plan = $node->safe_psql('postgres', "$set EXPLAIN SELECT id FROM frozen_slice WHERE $where");
		like($plan, qr/frozen_slice_idx/, "the index answers $where");
	}
	return $node->safe_psql('postgres',
		"$set SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '-') FROM frozen_slice WHERE $where");
}

for my $release (@releases)
{
	open my $fh, '<', "$frozen/$release/bloomslice.tsv"
	  or die "cannot open $frozen/$release/bloomslice.tsv: $!";
	my (@setup, @pages, @queries);
	while (my $line = <$fh>)
	{
		chomp $line;
		next if $line eq '' || $line =~ /^#/;
		my @f = split /\t/, $line, -1;
		if ($f[0] eq 'setup') { push @setup, $f[1]; }
		elsif ($f[0] eq 'page') { $pages[ $f[1] ] = decode_base64($f[2]); }
		elsif ($f[0] eq 'query') { push @queries, [ $f[1], $f[2] ]; }
		else { die "unknown record $f[0]"; }
	}
	close $fh;
	ok(@pages > 3 && @queries > 10, "$release: " . scalar(@pages) . " pages, " . scalar(@queries) . " queries");

	(my $nodename = "frozen_slice_$release") =~ s/\W/_/g;
	my $node = start_node($nodename);
	my $bs = $node->safe_psql('postgres', 'SHOW block_size');
	if ($bs != length($pages[0]))
	{
		note("$release: pages of " . length($pages[0]) . " bytes, this server's are $bs: not tested");
		$node->stop;
		next;
	}
	$node->safe_psql('postgres', $_) for @setup;
	my $path = $node->safe_psql('postgres', "SELECT pg_relation_filepath('frozen_slice_idx')");
	my $checksums = $node->safe_psql('postgres', 'SHOW data_checksums');
	$node->stop;

	# the frozen pages carry no checksum (they are of no cluster): a server
	# that checks them (18 initializes with checksums) is told not to
	if ($checksums eq 'on')
	{
		my $bindir = $node->config_data('--bindir');
		system_or_bail("$bindir/pg_checksums", '--disable', '-D', $node->data_dir);
	}
	my $file = $node->data_dir . "/$path";
	unlink grep { -e } ("${file}_fsm", "${file}_vm", glob("$file.[0-9]*"));
	open my $out, '>:raw', $file or die "cannot write $file: $!";
	print $out join('', @pages);
	close $out;
	$node->start;

	for my $q (@queries)
	{
		my ($where, $want) = @$q;
		is(ids($node, $where, 1), $want, "$release: the frozen index answers $where as recorded");
		is(ids($node, $where, 0), $want, "$release: a sequential scan answers $where as recorded");
	}

	# the index goes on: a pending row, then VACUUM moves pending rows into blocks
	$node->safe_psql('postgres',
		    "INSERT INTO frozen_slice SELECT 5000 + g, bloom_add_all(bloom_empty_bits(512, 4, 'blocked', 0), "
		  . "ARRAY[g, 7]::int8[]) FROM generate_series(1, 30) g");
	$node->safe_psql('postgres', 'DELETE FROM frozen_slice WHERE id % 11 = 0');
	$node->safe_psql('postgres', 'VACUUM frozen_slice');
	for my $q (@queries, [ 'f @> 5001::int8', undef ])
	{
		my $where = $q->[0];
		is(ids($node, $where, 1), ids($node, $where, 0),
			"$release: after inserts and VACUUM the index answers $where as a sequential scan");
	}
	$node->stop;
}

done_testing();
