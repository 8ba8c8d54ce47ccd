
# Sharding with PostgreSQL's own engine: a partitioned table whose partitions
# are foreign tables on two clusters.  The Bloom filter of the local keys is
# pushed to every shard; a filter is built on each shard (partitionwise
# aggregate pushdown), fetched and unioned on the coordinator, and used to
# prune local rows that no shard can match (semi-join pruning) and to tell
# which shard may hold a key.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;


my $coord = start_node('coord');
my @shards = (start_node('shard0'), start_node('shard1'));

# ids 1..100000: even ids on shard0, odd ids on shard1
my $N = 100_000;
for my $i (0, 1)
{
	$shards[$i]->safe_psql('postgres', qq{
		CREATE TABLE part AS
		SELECT g AS id, md5(g::text) AS payload
		FROM generate_series(1, $N) g WHERE g % 2 = $i;
		ANALYZE part;
	});
	my $port = $shards[$i]->port;
	$coord->safe_psql('postgres', qq{
		CREATE EXTENSION IF NOT EXISTS postgres_fdw;
		CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres',
			         extensions 'bloomfilter', async_capable 'true');
		CREATE USER MAPPING FOR CURRENT_USER SERVER shard$i;
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE sharded (id int, payload text) PARTITION BY LIST ((id % 2));
	CREATE FOREIGN TABLE sharded_0 PARTITION OF sharded FOR VALUES IN (0)
		SERVER shard0 OPTIONS (table_name 'part');
	CREATE FOREIGN TABLE sharded_1 PARTITION OF sharded FOR VALUES IN (1)
		SERVER shard1 OPTIONS (table_name 'part');
	-- 1000 keys: 700 on shard0, 250 on shard1, 50 on neither
	CREATE TABLE keys AS
	SELECT g * 2 * 71 AS id FROM generate_series(1, 700) g
	UNION ALL SELECT g * 2 * 97 + 1 FROM generate_series(1, 250) g
	UNION ALL SELECT 1000000 + g FROM generate_series(1, 50) g;
	ANALYZE keys;
});

# ---- the filter is pushed to every shard ----------------------------------
my $bloom_join = q{
	SELECT k.id, r.payload FROM keys k JOIN sharded r ON r.id = k.id
	WHERE r.id <@ (SELECT bloom_agg(id) FROM keys)};
my $plain_join = q{SELECT k.id, r.payload FROM keys k JOIN sharded r ON r.id = k.id};

my $plan = $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $bloom_join");
my @pushed = $plan =~
  /Remote SQL: SELECT id, payload FROM public\.part WHERE \(\(id OPERATOR\(public\.<\@\) \$1::public\.bloomfilter\)\)/g;
is(scalar(@pushed), 2, 'the filter is pushed to both shards') or diag($plan);
unlike($plan, qr/^\s*Filter:/m, 'nothing of the predicate runs on the coordinator');
like($plan, qr/Async Foreign Scan on public\.sharded_0.*Async Foreign Scan on public\.sharded_1/s,
	'the shards are scanned concurrently (async append)');

my $plain = $coord->safe_psql('postgres', "$plain_join ORDER BY 1");
is(scalar(split /\n/, $plain), 950, 'the plain join finds 950 keys');
is($coord->safe_psql('postgres', "$bloom_join ORDER BY 1"),
	$plain, 'the sharded Bloom-join returns exactly the plain join\'s rows');

my $an = $coord->safe_psql('postgres',
	"EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $bloom_join");
my %rows = $an =~ /Foreign Scan on public\.(sharded_\d) \S+ \(actual rows=(\d+)/g;
# each shard holds 50,000 rows; a 1% filter lets through its matches and
# about 1% of the rest
ok( defined $rows{sharded_0} && $rows{sharded_0} >= 700
	  && $rows{sharded_0} <= 700 + 0.03 * 50_000,
	"shard0 sends $rows{sharded_0} of 50000 rows (700 match)") or diag($an);
ok( defined $rows{sharded_1} && $rows{sharded_1} >= 250
	  && $rows{sharded_1} <= 250 + 0.03 * 50_000,
	"shard1 sends $rows{sharded_1} of 50000 rows (250 match)") or diag($an);

# ---- a filter built on each shard, unioned on the coordinator ---------------
# Sized explicitly (the same capacity on every shard) so that the union keeps
# the rate: self-sized filters of unequal shards would fold to the smallest.
my $per_shard = q{
	SELECT id % 2 AS shard, bloom_agg(id, 100000, 0.01) AS f FROM sharded GROUP BY 1};
$plan = $coord->safe_psql('postgres',
	"SET enable_partitionwise_aggregate = on; EXPLAIN (VERBOSE, COSTS OFF) $per_shard");
my @aggs = $plan =~ /Remote SQL: SELECT \(id % 2\), public\.bloom_agg\(id, /g;
is(scalar(@aggs), 2, 'each shard builds its own filter (aggregate pushdown)')
  or diag($plan);
$coord->safe_psql('postgres',
	"SET enable_partitionwise_aggregate = on; CREATE TABLE shard_filters AS $per_shard");

for my $i (0, 1)
{
	is( $coord->safe_psql('postgres',
			"SELECT md5(f::bytea) FROM shard_filters WHERE shard = $i"),
		$shards[$i]->safe_psql('postgres',
			'SELECT md5(bloom_agg(id, 100000, 0.01)::bytea) FROM part'),
		"shard$i: the fetched filter is byte for byte the one the shard builds");
}
is( $coord->safe_psql(
		'postgres', qq{
	SELECT (SELECT bloom_union_agg(f) FROM shard_filters)
	     = (SELECT bloom_agg(g, 100000, 0.01) FROM generate_series(1, $N) g)}),
	't',
	'bloom_union_agg of the shard filters is the filter of all keys, bit for bit');

# ---- semi-join pruning with the shards' filter ------------------------------
# 20,000 local orders, of which about a tenth have a customer on a shard:
# only those that the shards' filter lets through need to travel or join.
$coord->safe_psql('postgres', q{
	CREATE TABLE orders AS
	SELECT g AS order_id, (g * 7919) % 1000000 + 1 AS customer_id
	FROM generate_series(1, 20000) g;
	CREATE TABLE orders_pruned AS
	SELECT * FROM orders
	WHERE customer_id <@ (SELECT bloom_union_agg(f) FROM shard_filters);
});
my ($total, $kept, $matching, $kept_matching) = split /\|/,
  $coord->safe_psql(
	'postgres', qq{
	SELECT (SELECT count(*) FROM orders),
	       (SELECT count(*) FROM orders_pruned),
	       (SELECT count(*) FROM orders WHERE customer_id <= $N),
	       (SELECT count(*) FROM orders_pruned WHERE customer_id <= $N)});
is($kept_matching, $matching,
	"pruning keeps every order with a customer on a shard ($matching)");
ok($kept <= $matching + 0.03 * ($total - $matching),
	"pruning drops the others: $kept of $total orders kept");
is( $coord->safe_psql(
		'postgres', q{
	SELECT count(*) FROM orders_pruned o JOIN sharded s ON s.id = o.customer_id
	WHERE s.id <@ (SELECT bloom_agg(customer_id) FROM orders_pruned)}),
	$coord->safe_psql('postgres',
		'SELECT count(*) FROM orders o JOIN sharded s ON s.id = o.customer_id'),
	'pruned orders Bloom-joined to the shards give the plain join\'s count');

# ---- which shard may hold key X ---------------------------------------------
is( $coord->safe_psql('postgres',
		'SELECT string_agg(shard::text, \',\' ORDER BY shard) FROM shard_filters WHERE f @> 4242'),
	'0', 'key 4242 may only be on shard0');
is( $coord->safe_psql('postgres',
		'SELECT string_agg(shard::text, \',\' ORDER BY shard) FROM shard_filters WHERE f @> 4243'),
	'1', 'key 4243 may only be on shard1');
my ($missed, $extra) = split /\|/,
  $coord->safe_psql(
	'postgres', q{
	SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT FROM shard_filters s
	                                         WHERE s.shard = k % 2 AND s.f @> k)),
	       count(*) FILTER (WHERE EXISTS (SELECT FROM shard_filters s
	                                     WHERE s.shard <> k % 2 AND s.f @> k))
	FROM generate_series(1, 100000, 7) k});
is($missed, '0', 'every key is found on its own shard');
ok($extra <= 0.03 * 14286, "few keys are also claimed by the other shard ($extra of 14286)");

done_testing();
