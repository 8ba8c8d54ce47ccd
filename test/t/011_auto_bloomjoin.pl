# Automatic Bloom-joins (bloomfilter.join_pushdown): with the library
# preloaded, the planner adds "fcol <@ $n" (an InitPlan's bloom_agg of the
# other side's key) to the remote query of postgres_fdw scans.
#
# Every shape is run with the setting off and on: the full sorted result
# sets must be equal, and the plan must show the filter exactly where it
# belongs.  Two clusters (coord, remote1), then three (remote2: a second
# server, and a table partitioned over both).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $remote1 = start_node('remote1');
my $remote2 = start_node('remote2');
my $coord   = start_node('coord');

# The coordinator preloads the library in every session.
$coord->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$coord->restart;

# ---- data -------------------------------------------------------------
# events: 30,000 rows of customers 0..9,999 (three each) and five with no
# customer; tkeys: text keys, some with trailing spaces, as text and
# char(8), and int8 keys.
for my $r ($remote1, $remote2)
{
	$r->safe_psql('postgres', q{
		CREATE TABLE events AS
		SELECT g AS id, g % 10000 AS customer_id, 'p' || g AS payload
		FROM generate_series(1, 30000) g;
		INSERT INTO events SELECT 30000 + g, NULL, 'no customer' FROM generate_series(1, 5) g;
		CREATE TABLE shard AS SELECT * FROM events;
		CREATE TABLE tkeys AS
		SELECT g AS id, 'k' || (g % 5000) || CASE WHEN g % 3 = 0 THEN '  ' ELSE '' END AS t,
		       ('k' || (g % 5000))::char(8) AS c, (g % 5000)::int8 AS i8
		FROM generate_series(1, 30000) g;
		ANALYZE;
	});
}
# the shards of the partitioned table: ids 1..15,000 on remote1, the rest on remote2
$remote1->safe_psql('postgres', 'DELETE FROM shard WHERE id > 15000; ANALYZE shard');
$remote2->safe_psql('postgres', 'DELETE FROM shard WHERE id <= 15000; ANALYZE shard');

my ($p1, $p2) = ($remote1->port, $remote2->port);
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$p1', dbname 'postgres',
		         extensions 'bloomfilter', async_capable 'true');
	CREATE SERVER r2 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$p2', dbname 'postgres',
		         extensions 'bloomfilter', async_capable 'true');
	-- the same remote without the extensions option
	CREATE SERVER r1_plain FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$p1', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER r1;
	CREATE USER MAPPING FOR CURRENT_USER SERVER r2;
	CREATE USER MAPPING FOR CURRENT_USER SERVER r1_plain;

	CREATE FOREIGN TABLE events (id int, customer_id int, payload text) SERVER r1;
	CREATE FOREIGN TABLE events2 (id int, customer_id int, payload text)
		SERVER r2 OPTIONS (table_name 'events');
	CREATE FOREIGN TABLE events_plain (id int, customer_id int, payload text)
		SERVER r1_plain OPTIONS (table_name 'events');
	CREATE FOREIGN TABLE tkeys (id int, t text, c char(8), i8 int8) SERVER r1;
	CREATE TABLE allev (id int, customer_id int, payload text) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE allev_1 PARTITION OF allev FOR VALUES FROM (MINVALUE) TO (15001)
		SERVER r1 OPTIONS (table_name 'shard');
	CREATE FOREIGN TABLE allev_2 PARTITION OF allev FOR VALUES FROM (15001) TO (MAXVALUE)
		SERVER r2 OPTIONS (table_name 'shard');

	-- 250 customers that exist remotely (one twice), 40 that do not, a NULL
	CREATE TABLE vip (customer_id int, grp int, n numeric, i8 int8);
	INSERT INTO vip SELECT g * 7, g % 3, g * 7, g * 7 FROM generate_series(1, 250) g;
	INSERT INTO vip VALUES (100, 1, 100, 100), (NULL, 1, NULL, NULL);
	INSERT INTO vip SELECT 20000 + g, g % 3, 20000 + g, 20000 + g FROM generate_series(1, 40) g;
	CREATE TABLE vip_empty (LIKE vip);
	CREATE TABLE x AS SELECT g AS id FROM generate_series(1, 400) g;
	-- text keys: some with trailing spaces, as text and as char(8)
	CREATE TABLE lk AS
	SELECT 'k' || g || CASE WHEN g % 2 = 0 THEN '  ' ELSE '' END AS t,
	       ('k' || g)::char(8) AS c, g::numeric AS n, g::int8 AS i8
	FROM generate_series(1, 300) g;
	CREATE VIEW vip_events AS
	SELECT v.customer_id, v.grp, e.id, e.payload FROM vip v JOIN events e USING (customer_id);
	CREATE SEQUENCE s;
	-- postgres_fdw estimates from local statistics; ANALYZE alone skips
	-- foreign tables
	ANALYZE;
	ANALYZE events, events2, events_plain, tkeys, allev;
});

# ---- helpers ----------------------------------------------------------
sub rows_of
{
	my ($sql, $setting, %opts) = @_;
	my $pre = $opts{pre} // '';
	return $coord->safe_psql('postgres',
		"SET bloomfilter.join_pushdown = $setting; $pre SELECT q::text FROM ($sql) q ORDER BY 1");
}

sub plan_of
{
	my ($sql, $pre) = @_;
	$pre //= '';
	return $coord->safe_psql('postgres', "$pre EXPLAIN (VERBOSE, COSTS OFF) $sql");
}

# the plan has an automatic filter: the named InitPlan and the probe in
# Remote SQL
sub has_filter
{
	my ($plan) = @_;
	# (PostgreSQL 17 and later print no "(returns $n)")
	return $plan =~ /InitPlan \d+(?: \(returns \$\d+\))?: bloom filter of .*, added by bloomfilter\.join_pushdown/
	  && $plan =~ /Remote SQL: .*(?:public\.bloomfilter_join_probe\(\w+, \$\d+::public\.bloomfilter\)|OPERATOR\(public\.<@\) \$\d+::public\.bloomfilter)/;
}

sub no_filter
{
	my ($plan) = @_;
	return $plan !~ /bloomfilter\.join_pushdown/ && $plan !~ /<@|bloomfilter_join_probe/;
}

# Same sorted rows off and on (and at least $min of them), and the filter
# present or absent as $want says.
sub check_shape
{
	my ($name, $sql, $want, %opts) = @_;
	my $off = rows_of($sql, 'off', %opts);
	my $on  = rows_of($sql, 'on', %opts);
	my $n   = $off eq '' ? 0 : scalar(split /\n/, $off);
	is($on, $off, "$name: same $n rows with the setting on and off");
	cmp_ok($n, '>=', $opts{min} // 1, "$name: the shape returns rows")
	  unless defined $opts{min} && $opts{min} == 0;
	my $plan = plan_of($sql, $opts{pre});
	if ($want)
	{
		ok(has_filter($plan), "$name: the plan has the automatic filter")
		  or diag($plan);
	}
	else
	{
		ok(no_filter($plan), "$name: the plan has no filter") or diag($plan);
	}
}

# ---- shapes that get a filter ----------------------------------------
check_shape('inner join',
	'SELECT v.customer_id, v.grp, e.id, e.payload FROM vip v JOIN events e USING (customer_id)', 1);
check_shape('inner join, key on either side of =',
	'SELECT v.customer_id, e.id FROM events e, vip v WHERE v.customer_id = e.customer_id', 1);
check_shape('IN (subquery)',
	'SELECT * FROM events e WHERE e.customer_id IN (SELECT customer_id FROM vip)', 1);
check_shape('EXISTS',
	'SELECT * FROM events e WHERE EXISTS (SELECT 1 FROM vip v WHERE v.customer_id = e.customer_id)', 1);
check_shape('= ANY (subquery)',
	'SELECT * FROM events e WHERE e.customer_id = ANY (SELECT customer_id FROM vip WHERE grp = 1)', 1);
check_shape('semi-join with the foreign table inside the subquery',
	'SELECT * FROM vip v WHERE v.customer_id IN (SELECT customer_id FROM events)', 1);
check_shape('EXISTS with the foreign table inside',
	'SELECT * FROM vip v WHERE EXISTS (SELECT 1 FROM events e WHERE e.customer_id = v.customer_id AND e.id > 100)', 1);
check_shape('LEFT JOIN, foreign table nullable',
	'SELECT v.customer_id, v.grp, e.id FROM vip v LEFT JOIN events e ON e.customer_id = v.customer_id', 1);
check_shape('LEFT JOIN with quals of both sides in ON',
	'SELECT v.customer_id, e.id FROM vip v LEFT JOIN events e
	   ON e.customer_id = v.customer_id AND v.grp = 1 AND e.id < 20000', 1);
check_shape('other side restricted',
	'SELECT v.customer_id, e.id FROM vip v JOIN events e USING (customer_id) WHERE v.grp = 2 AND v.customer_id < 1000', 1);
# A computed key of the other side gets a filter only when every function
# in it is leakproof (issue #18: the InitPlan computes it on rows the plain
# join never keys): int4 + int4 can overflow, rtrim of char(n) to text is
# not marked leakproof.  Both shapes are in "shapes that must not".
check_shape('other side key a leakproof expression (a binary-compatible relabeling)',
	'SELECT k.id, lk.t FROM tkeys k JOIN lk ON k.t = lk.t::varchar', 1);
check_shape('int4 = int8 (one family)',
	'SELECT v.i8, e.id FROM vip v JOIN events e ON e.customer_id = v.i8', 1);
check_shape('empty other side',
	'SELECT v.customer_id, e.id FROM vip_empty v JOIN events e USING (customer_id)', 1, min => 0);
check_shape('text = text with trailing spaces',
	'SELECT k.id, k.t, lk.t FROM tkeys k JOIN lk ON k.t = lk.t', 1);
check_shape('char(n) = char(n)',
	'SELECT k.id, k.c, lk.c FROM tkeys k JOIN lk ON k.c = lk.c', 1);
check_shape('through a view',
	'SELECT * FROM vip_events WHERE grp = 1', 1);
check_shape('LATERAL subquery',
	'SELECT v.customer_id, s.id FROM vip v, LATERAL (SELECT e.id FROM events e WHERE e.customer_id = v.customer_id) s', 1);
check_shape('inner join inside the nullable side of a LEFT JOIN',
	'SELECT x.id, ve.id FROM x LEFT JOIN (vip v JOIN events e USING (customer_id)) ve(customer_id, grp, n, i8, id)
	   ON ve.customer_id = x.id', 1);
check_shape('a LEFT JOIN reduced to an inner join by a strict key',
	'SELECT x.id, v.customer_id, e.id FROM x LEFT JOIN vip v ON v.customer_id = x.id
	   JOIN events e ON e.customer_id = v.customer_id', 1);
check_shape('two foreign tables on two servers',
	'SELECT v.customer_id, e.id, f.id FROM vip v JOIN events e USING (customer_id)
	   JOIN events2 f ON f.customer_id = v.customer_id WHERE v.grp = 0', 1);
# A foreign other side costs a remote round trip more (fdw_startup_cost):
# worth it here once a remote row costs more to cross, as over a slow link
# (the transaction, and the option, end with the session).
check_shape('other side a restricted foreign table of another server',
	'SELECT f.id, e.id FROM events2 f JOIN events e USING (customer_id) WHERE f.id < 500', 1,
	pre => "BEGIN; ALTER SERVER r1 OPTIONS (ADD fdw_tuple_cost '0.1');");
my $plan = plan_of('SELECT v.customer_id, e.id, f.id FROM vip v JOIN events e USING (customer_id)
	   JOIN events2 f ON f.customer_id = v.customer_id');
is(scalar(() = $plan =~ /public\.bloomfilter_join_probe\(/g), 2, 'two foreign tables: both remote queries probe');
is(scalar(() = $plan =~ /added by bloomfilter\.join_pushdown/g), 1,
	'two foreign tables: one filter of vip.customer_id, built once for both');

# A volatile restriction of the other side is left out of the filter (it
# would be evaluated twice): the sequence is read only by the join's scan.
check_shape('other side filtered by a volatile qual',
	q{SELECT v.customer_id, e.id FROM vip v JOIN events e USING (customer_id)
	   WHERE (nextval('s') + v.customer_id * 0) % 2 = 0}, 1,
	pre => "SELECT setval('s', 1, false);");

# ---- shapes that must not get a filter --------------------------------
check_shape('LEFT JOIN, foreign table preserved',
	'SELECT e.id, v.customer_id FROM events e LEFT JOIN vip v ON e.customer_id = v.customer_id', 0);
check_shape('RIGHT JOIN, foreign table preserved',
	'SELECT e.id, v.customer_id FROM vip v RIGHT JOIN events e ON e.customer_id = v.customer_id', 0);
check_shape('FULL JOIN',
	'SELECT e.id, v.customer_id FROM events e FULL JOIN vip v ON e.customer_id = v.customer_id', 0);
check_shape('NOT EXISTS, foreign table outside',
	'SELECT * FROM events e WHERE NOT EXISTS (SELECT 1 FROM vip v WHERE v.customer_id = e.customer_id)', 0);
check_shape('NOT EXISTS, foreign table inside (anti-join)',
	'SELECT * FROM vip v WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.customer_id = v.customer_id)', 0);
check_shape('NOT IN',
	'SELECT * FROM events e WHERE e.customer_id NOT IN (SELECT customer_id FROM vip WHERE customer_id IS NOT NULL)', 0);
check_shape('int8 = numeric',
	'SELECT k.id, lk.n FROM tkeys k JOIN lk ON k.i8 = lk.n', 0);
check_shape('volatile key expression',
	'SELECT v.customer_id, e.id FROM vip v JOIN events e ON e.customer_id = v.customer_id + (random() * 0)::int', 0);
check_shape('non-strict key of a null-extended side',
	'SELECT x.id, e.id FROM x LEFT JOIN vip v ON v.customer_id = x.id
	   JOIN events e ON e.customer_id = coalesce(v.customer_id, 0)', 0);
check_shape('server without extensions bloomfilter',
	'SELECT v.customer_id, e.id FROM vip v JOIN events_plain e USING (customer_id)', 0);
check_shape('a key cast of the foreign column',
	'SELECT k.id, lk.t FROM tkeys k JOIN lk ON k.c::text = lk.t', 0, min => 0);

check_shape('other side key an expression that can raise (int4 + int4)',
	'SELECT v.customer_id, e.id FROM vip v JOIN events e ON e.customer_id = v.customer_id + 1', 0);
check_shape('text = char(n)::text (trailing spaces): rtrim is not leakproof',
	'SELECT k.id, k.t, lk.c FROM tkeys k JOIN lk ON k.t = lk.c', 0);

# the setting off
my $inner = 'SELECT v.customer_id, e.id FROM vip v JOIN events e USING (customer_id)';
ok(no_filter($coord->safe_psql('postgres',
	"SET bloomfilter.join_pushdown = off; EXPLAIN (VERBOSE, COSTS OFF) $inner")),
	'setting off: no filter');
# thresholds
ok(no_filter($coord->safe_psql('postgres',
	"SET bloomfilter.join_pushdown_min_rows = 1e6; EXPLAIN (VERBOSE, COSTS OFF) $inner")),
	'fewer remote rows than join_pushdown_min_rows: no filter');
ok(no_filter($coord->safe_psql('postgres',
	"SET bloomfilter.join_pushdown_max_fraction = 0.01; EXPLAIN (VERBOSE, COSTS OFF) $inner")),
	'more kept than join_pushdown_max_fraction: no filter');
ok(no_filter($coord->safe_psql('postgres',
	"EXPLAIN (VERBOSE, COSTS OFF) SELECT e.id FROM x JOIN events e ON e.customer_id = x.id % 9000 + (SELECT 1)")),
	'other side key with a subplan: no filter');

# The library not preloaded: loaded lazily by a first call in the session,
# it leaves the planner alone.
my $lazy = $coord->connstr('postgres') . " options='-c session_preload_libraries='";
my $lazy_plan = $coord->safe_psql('postgres',
	"SELECT bloom_empty(10) IS NOT NULL; EXPLAIN (VERBOSE, COSTS OFF) $inner",
	connstr => $lazy);
ok(no_filter($lazy_plan), 'library not preloaded (loaded lazily in the session): no filter')
  or diag($lazy_plan);
is($coord->safe_psql('postgres', "SELECT q::text FROM ($inner) q ORDER BY 1", connstr => $lazy),
	rows_of($inner, 'on'), 'library not preloaded: same rows');

# ---- prepared statements, generic plan --------------------------------
my $prep = q{
	SET plan_cache_mode = force_generic_plan;
	PREPARE p(int, int) AS
	SELECT v.customer_id, e.id FROM vip v JOIN events e USING (customer_id)
	WHERE v.grp = $1 AND e.id > $2 ORDER BY 1, 2;
};
my $gen_off = $coord->safe_psql('postgres',
	"SET bloomfilter.join_pushdown = off; $prep EXECUTE p(1, 0); EXECUTE p(2, 5000);");
my $gen_on = $coord->safe_psql('postgres',
	"$prep EXECUTE p(1, 0); EXECUTE p(2, 5000);");
is($gen_on, $gen_off, 'generic plan executed twice with other parameters: same rows');
cmp_ok(scalar(split /\n/, $gen_on), '>', 100, 'generic plan: the executions return rows');
my $gen_plan = $coord->safe_psql('postgres',
	"$prep EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p(1, 0);");
ok(has_filter($gen_plan) && $gen_plan =~ /grp = \$1/,
	'generic plan: the filter, built from the parameter-restricted side') or diag($gen_plan);

# ---- EXPLAIN ANALYZE: the rows that cross -------------------------------
sub fscan_rows
{
	my ($plan, $rel) = @_;
	return $plan =~ /Foreign Scan on \S*\Q$rel\E\b.*?\(actual rows=(\d+)/ ? $1 : undef;
}
my $ea = "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) $inner";
my $rows_off = fscan_rows($coord->safe_psql('postgres', "SET bloomfilter.join_pushdown = off; $ea"), 'events');
my $rows_on  = fscan_rows($coord->safe_psql('postgres', $ea), 'events');
is($rows_off, 30005, 'without the filter every remote row crosses');
cmp_ok($rows_on, '<', 2000, "with the filter $rows_on rows cross (753 match)");

# ---- three clusters: a table partitioned over two servers ---------------
check_shape('partitioned over two servers',
	'SELECT v.customer_id, e.id, e.payload FROM vip v JOIN allev e USING (customer_id)', 1);
check_shape('partitioned, semi-join',
	'SELECT * FROM allev e WHERE e.customer_id IN (SELECT customer_id FROM vip WHERE grp = 2)', 1);
check_shape('partitioned, LEFT JOIN preserved side',
	'SELECT e.id, v.customer_id FROM allev e LEFT JOIN vip v USING (customer_id)', 0);
my $pplan = plan_of('SELECT v.customer_id, e.id FROM vip v JOIN allev e USING (customer_id)');
is(scalar(() = $pplan =~ /Async Foreign Scan on public\.allev_\d/g), 2,
	'partitioned: both shards scanned asynchronously') or diag($pplan);
is(scalar(() = $pplan =~ /Remote SQL: .*public\.bloomfilter_join_probe\(\w+, \$1::public\.bloomfilter\)/g), 2,
	'partitioned: the filter goes to both shards');

# ---- shared_preload_libraries ----------------------------------------------
$coord->append_conf('postgresql.conf',
	"session_preload_libraries = ''\nshared_preload_libraries = 'bloomfilter'\n");
$coord->restart;
ok(has_filter(plan_of($inner)), 'shared_preload_libraries: the filter');
is(rows_of($inner, 'on'), rows_of($inner, 'off'), 'shared_preload_libraries: same rows');

# ---- what the review found: the remote probes its own column ----------
# (a nondeterministic collation, a declared type that reads back another
# value than the remote hashes, a key computed on rows the join never keys)
$remote1->safe_psql('postgres', q{
	CREATE COLLATION nd (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	CREATE TABLE rtypes AS
	SELECT g AS id, ('k' || (g % 10000)) COLLATE nd AS tnd,
	       ((g % 10000)::float4 / 10::float4) AS r,
	       ((g % 10000)::numeric / 100) AS n,
	       CASE WHEN g % 10 = 0 THEN 'x' || g ELSE g::text END AS s
	FROM generate_series(1, 30000) g;
	ANALYZE rtypes;
});
$coord->safe_psql('postgres', q{
	CREATE COLLATION nd (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	-- declared as on the remote
	CREATE FOREIGN TABLE rtypes (id int, tnd text COLLATE nd, r real, n numeric, s text) SERVER r1;
	-- declared double precision over the remote real
	CREATE FOREIGN TABLE rtypes_f8 (id int, r float8) SERVER r1 OPTIONS (table_name 'rtypes');
	-- declared numeric(10,1) over a remote numeric of two decimals: rounds on input
	CREATE FOREIGN TABLE rtypes_n1 (id int, n numeric(10,1)) SERVER r1 OPTIONS (table_name 'rtypes');
	CREATE TABLE lt AS SELECT 'k' || g AS t, g::float8 / 10 AS f8, (g::numeric / 10) AS n1,
		g::text AS s, g AS id
	FROM generate_series(1, 200) g;
	INSERT INTO lt VALUES ('x', 0, 0, 'x10', 1000);
	CREATE TABLE good AS SELECT g AS id FROM generate_series(1, 200) g;
	ANALYZE lt, good;
	ANALYZE rtypes, rtypes_f8, rtypes_n1;
});
my $cheap = 'SET bloomfilter.join_pushdown_min_rows = 0; SET bloomfilter.join_pushdown_max_fraction = 1;';
check_shape('nondeterministic foreign column, join under COLLATE "C"',
	q{SELECT e.id, lt.t FROM rtypes e JOIN lt ON e.tnd = lt.t COLLATE "C"}, 0, pre => $cheap);
check_shape('float8 foreign column over a remote real',
	'SELECT e.id, lt.f8 FROM rtypes_f8 e JOIN lt ON e.r = lt.f8', 0, pre => $cheap);
check_shape('numeric(10,1) foreign column over remote numeric values of two decimals',
	'SELECT e.id, lt.n1 FROM rtypes_n1 e JOIN lt ON e.n = lt.n1', 0, pre => $cheap);
check_shape('other side restricted by an InitPlan, key a cast',
	'SELECT e.id FROM rtypes e JOIN lt ON e.id = lt.s::int WHERE lt.id = ANY (ARRAY(SELECT id FROM good))',
	0, pre => $cheap);
check_shape('other side restricted by an InitPlan, key a column',
	'SELECT e.id FROM rtypes e JOIN lt ON e.id = lt.id WHERE lt.id = ANY (ARRAY(SELECT id FROM good))',
	1, pre => $cheap);
check_shape('numeric foreign column declared without typmod',
	'SELECT e.id, lt.n1 FROM rtypes e JOIN lt ON e.n = lt.n1', 1, pre => $cheap);

# The filter is implied by the join: the join's estimate is the one without
# it (the foreign scan's own estimate shrinks).
{
	my $q = 'EXPLAIN SELECT e.id FROM rtypes e JOIN lt ON e.id = lt.id';
	my $est = sub {
		my ($setting) = @_;
		my $plan = $coord->safe_psql('postgres',
			"$cheap SET bloomfilter.join_pushdown = $setting; $q");
		my ($top) = $plan =~ /^\S.*?rows=(\d+)/m;
		return ($top, $plan);
	};
	my ($off, $planoff) = $est->('off');
	my ($on, $planon) = $est->('on');
	ok(has_filter($coord->safe_psql('postgres',
		"$cheap SET bloomfilter.join_pushdown = on; EXPLAIN (VERBOSE, COSTS OFF) SELECT e.id FROM rtypes e JOIN lt ON e.id = lt.id")),
		'estimate check: the join gets a filter');
	is($on, $off, 'the join is estimated alike with and without the filter')
	  or diag("$planoff\n$planon");
}


# ---- issue #18: a newcomer's steps, no ANALYZE anywhere ---------------------
# Foreign tables never analyzed, on servers without use_remote_estimate:
# postgres_fdw guesses about a thousand rows, and the filter's decision
# asks the remote its real size instead (once per session).  nbig is never
# analyzed on its remote either (autovacuum off: its size comes from its
# pages); nbig_a is analyzed there.
for my $r ($remote1, $remote2)
{
	$r->safe_psql('postgres', q{
		CREATE TABLE nbig (id int, k int, tk text) WITH (autovacuum_enabled = false);
		INSERT INTO nbig SELECT g, g % 100000, 't' || (g % 100000) FROM generate_series(1, 200000) g;
		CREATE TABLE nbig_a AS SELECT * FROM nbig;
		ANALYZE nbig_a;
		CREATE TABLE nsmall (id int, k int) WITH (autovacuum_enabled = false);
		INSERT INTO nsmall SELECT g, g FROM generate_series(1, 1000) g;
		CREATE VIEW nview AS SELECT * FROM nbig;
		CREATE TABLE nparted (id int, k int, tk text) PARTITION BY HASH (id);
		CREATE TABLE nparted_0 PARTITION OF nparted FOR VALUES WITH (MODULUS 2, REMAINDER 0)
			WITH (autovacuum_enabled = false);
		CREATE TABLE nparted_1 PARTITION OF nparted FOR VALUES WITH (MODULUS 2, REMAINDER 1)
			WITH (autovacuum_enabled = false);
		INSERT INTO nparted SELECT * FROM nbig;
	});
}
$coord->safe_psql('postgres', qq{
	CREATE SERVER r3 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$p1', dbname 'postgres', extensions 'bloomfilter');
	CREATE FOREIGN TABLE nbig (id int, k int, tk text) SERVER r1;
	CREATE FOREIGN TABLE nbig_a (id int, k int, tk text) SERVER r1;
	CREATE FOREIGN TABLE nsmall (id int, k int) SERVER r1;
	CREATE TABLE nball (id int, k int, tk text) PARTITION BY HASH (id);
	CREATE FOREIGN TABLE nball_1 PARTITION OF nball FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER r1 OPTIONS (table_name 'nbig');
	CREATE FOREIGN TABLE nball_2 PARTITION OF nball FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER r2 OPTIONS (table_name 'nbig');
	-- lookups that fail: no user mapping, no such remote table, a view
	CREATE FOREIGN TABLE nnomap (id int, k int, tk text) SERVER r3 OPTIONS (table_name 'nbig');
	CREATE FOREIGN TABLE nghost (id int, k int, tk text) SERVER r1 OPTIONS (table_name 'no_such_table');
	CREATE FOREIGN TABLE nview (id int, k int, tk text) SERVER r1;
	CREATE FOREIGN TABLE nparted (id int, k int, tk text) SERVER r1;
	-- 1,000 local keys, 1% of the remote's, never analyzed
	CREATE TABLE nloc AS SELECT g * 100 AS k, 't' || (g * 100) AS tk FROM generate_series(1, 1000) g;
	CREATE TABLE nlarge AS SELECT g AS k FROM generate_series(1, 100000) g;
});
# The size is asked over a connection of the lookup's own, the same query on
# every version (issue #27; before, 16 and later asked through postgres_fdw's
# ANALYZE callback, which knew no remote partitioned table).
check_shape('newcomer: inner join, nothing analyzed',
	'SELECT n.k, b.id FROM nloc n JOIN nbig b ON b.k = n.k', 1);
check_shape('newcomer: IN',
	'SELECT b.id, b.k FROM nbig b WHERE b.k IN (SELECT k FROM nloc)', 1);
check_shape('newcomer: EXISTS',
	'SELECT b.id FROM nbig b WHERE EXISTS (SELECT 1 FROM nloc n WHERE n.k = b.k)', 1);
check_shape('newcomer: text keys',
	'SELECT n.tk, b.id FROM nloc n JOIN nbig b ON b.tk = n.tk', 1);
check_shape('newcomer: remote table analyzed there, foreign table not here',
	'SELECT n.k, b.id FROM nloc n JOIN nbig_a b ON b.k = n.k', 1);
check_shape('newcomer: partitioned over two foreign tables',
	'SELECT n.k, b.id FROM nloc n JOIN nball b ON b.k = n.k', 1);
# the filter that cannot pay: 1,000 remote rows, 100,000 local keys
check_shape('newcomer: small remote, large local side',
	'SELECT l.k, s.id FROM nlarge l JOIN nsmall s ON s.k = l.k', 0);
# lookups that fail cost the query nothing: no filter, no error
check_shape('newcomer: a server without a user mapping (plan only)',
	'SELECT n.k FROM nloc n WHERE false AND n.k IN (SELECT k FROM nnomap)', 0, min => 0);
ok(no_filter(plan_of('SELECT n.k, b.id FROM nloc n JOIN nnomap b ON b.k = n.k')),
	'newcomer: no user mapping: EXPLAIN plans without a filter and without an error');
ok(no_filter(plan_of('SELECT n.k, b.id FROM nloc n JOIN nghost b ON b.k = n.k')),
	'newcomer: a missing remote table: EXPLAIN plans without a filter and without an error');
check_shape('newcomer: a remote view (its size is unknown)',
	'SELECT n.k, b.id FROM nloc n JOIN nview b ON b.k = n.k', 0);
# a remote partitioned table: its leaves' pages are summed
check_shape('newcomer: a remote partitioned table',
	'SELECT n.k, b.id FROM nloc n JOIN nparted b ON b.k = n.k', 1);
# ... and leave the transaction usable, inside and outside a savepoint
is($coord->safe_psql('postgres', q{
	BEGIN;
	SAVEPOINT a;
	DO $$ BEGIN EXECUTE 'EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nghost b ON b.k = n.k'; END $$;
	SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k;
	ROLLBACK TO a;
	SELECT count(*) FROM nloc n JOIN nbig_a b ON b.k = n.k;
	COMMIT;
}), "1998\n1998", 'newcomer: failed and successful lookups inside a transaction and a savepoint');

# DEBUG1 tells what was decided and why
sub debug_of
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	$coord->psql('postgres', "SET client_min_messages = debug1; EXPLAIN $sql",
		stdout => \$out, stderr => \$err);
	return $err;
}
my $dbg = debug_of('SELECT n.k, b.id FROM nloc n JOIN nbig b ON b.k = n.k');
like($dbg, qr/relation nbig was never analyzed: the remote has about \d+ rows/,
	'DEBUG1: the remote size of a never-analyzed table') or diag($dbg);
like($dbg, qr/k of relation nbig: \d+ keys, \d+ rows, keeps [\d.]+, saves [\d.]+, costs at least [\d.]+/,
	'DEBUG1: the numbers of the decision');
like(debug_of('SELECT l.k, s.id FROM nlarge l JOIN nsmall s ON s.k = l.k'),
	qr/no filter on k of relation nsmall: its scans are estimated at \d+ rows, fewer than bloomfilter.join_pushdown_min_rows/,
	'DEBUG1: the small remote table, and the rule that refused it');
like(debug_of('SELECT n.k, b.id FROM nloc n JOIN nnomap b ON b.k = n.k'),
	qr/relation nnomap was never analyzed and its remote size is unknown \(asking the remote failed: user mapping not found/,
	'DEBUG1: a failed lookup says why');
like(debug_of('SELECT n.k, b.id FROM nloc n JOIN nview b ON b.k = n.k'),
	qr/remote size is unknown \(the remote public\.nview is not a table/,
	'DEBUG1: a remote view');
like(debug_of($inner), qr/filter of v\.customer_id: subquery costs [\d.]+ more, added/,
	'DEBUG1: an added filter');
like(debug_of('SELECT v.customer_id, e.id FROM vip v JOIN events_plain e USING (customer_id)'),
	qr/no filter for relation events_plain: not a postgres_fdw table .* extensions option/,
	'DEBUG1: a server without the extension');
like(debug_of('SELECT v.customer_id, e.id FROM vip v JOIN events e ON e.customer_id = v.customer_id + (random() * 0)::int'),
	qr/no filter for relation events: no equality of its columns with another table passed/,
	'DEBUG1: a volatile key (no equivalence class, no candidate)');

# ---- issue #18 item 2: never an ERROR the plain join does not raise -------
# The other side's key s::int fails on 'bad'; the plain plan computes it only
# on rows another join kept.  Keys must be columns or leakproof.
$remote1->safe_psql('postgres', q{
	CREATE TABLE ft AS SELECT g AS id, g % 5000 AS k FROM generate_series(1, 100000) g;
	ANALYZE ft;
});
$coord->safe_psql('postgres', q{
	CREATE FOREIGN TABLE ft (id int, k int) SERVER r1;
	ANALYZE ft;
	CREATE TABLE ls (id int, s text);
	INSERT INTO ls SELECT g, CASE WHEN g % 10 = 0 THEN 'bad' ELSE (g*13 % 5000)::text END
	  FROM generate_series(1,300) g;
	CREATE TABLE okids AS SELECT id FROM ls WHERE s <> 'bad';
	ANALYZE ls; ANALYZE okids;
});
for my $pre ('', $cheap)
{
	my $how = $pre eq '' ? '' : ' (thresholds off)';
	check_shape("review form 1: a cast key of a side another join restricts$how",
		'SELECT ls.id, ft.id FROM okids o JOIN ls ON ls.id = o.id JOIN ft ON ls.s::int = ft.k', 0,
		pre => $pre);
	check_shape("review form 2: the restriction an IN$how",
		'SELECT ls.id, ft.id FROM ls JOIN ft ON ls.s::int = ft.k WHERE ls.id IN (SELECT id FROM okids)', 0,
		pre => $pre);
	check_shape("review form 3: the cast inside IN$how",
		'SELECT ft.id FROM ft WHERE ft.k IN (SELECT ls.s::int FROM ls JOIN okids USING (id))', 0,
		pre => $pre);
}
is($coord->safe_psql('postgres',
	'SELECT count(*) FROM okids o JOIN ls ON ls.id = o.id JOIN ft ON ls.s::int = ft.k'), '5400',
	'review form 1 with the setting on: the count of the plain join');
like(debug_of('SELECT count(*) FROM okids o JOIN ls ON ls.id = o.id JOIN ft ON ls.s::int = ft.k'),
	qr/no filter on k of relation ft: the other side's key calls a function or cast that is not leakproof/,
	'DEBUG1: the cast key is refused, and why');
# a leakproof computation still gets its filter
check_shape('a key of leakproof operators (int4 + int4 is not; a plain column is)',
	'SELECT ls.id, ft.id FROM ls JOIN ft ON ls.id = ft.k', 1, pre => $cheap);

# ---- issue #18 item 3: SHOW says when it is inactive -----------------------
is($coord->safe_psql('postgres', 'SHOW bloomfilter.join_pushdown'), 'on',
	'SHOW: on, preloaded');
is($coord->safe_psql('postgres', 'SET bloomfilter.join_pushdown = off; SHOW bloomfilter.join_pushdown'), 'off',
	'SHOW: off');
like($remote1->safe_psql('postgres', 'SELECT bloom_empty(10) IS NOT NULL; SHOW bloomfilter.join_pushdown'),
	qr/^t\non \(inactive: bloomfilter is not in shared_preload_libraries or session_preload_libraries\)$/,
	'SHOW: inactive when the library was loaded lazily');
like($remote1->safe_psql('postgres',
	"SELECT bloom_empty(10) IS NOT NULL; SELECT setting FROM pg_settings WHERE name = 'bloomfilter.join_pushdown'"),
	qr/on \(inactive: /, 'pg_settings: inactive when the library was loaded lazily');

# ---- issue #18 item 4: a pushed-down bloom_agg(x) equals the local one -----
# The remote's settings differ from the coordinator's.
$remote1->safe_psql('postgres', q{
	LOAD 'bloomfilter';
	ALTER SYSTEM SET bloomfilter.default_fpr = 0.2;
	ALTER SYSTEM SET bloomfilter.agg_max_capacity = 65536;
	SELECT pg_reload_conf();
});
$coord->safe_psql('postgres', 'CREATE TABLE events_copy AS SELECT * FROM events');
{
	my $set = 'SET bloomfilter.default_fpr = 0.001;';
	my $pushed = "SELECT md5(bloom_agg(customer_id)::bytea) FROM events";
	my $pplan = $coord->safe_psql('postgres', "$set EXPLAIN (VERBOSE, COSTS OFF) $pushed");
	like($pplan, qr/Remote SQL: SELECT .*public\.bloom_agg\(customer_id\)/,
		'bloom_agg(x) is pushed down to the remote') or diag($pplan);
	my $remote_md5 = $coord->safe_psql('postgres', "$set $pushed");
	my $local_md5 = $coord->safe_psql('postgres', "$set SELECT md5(bloom_agg(customer_id)::bytea) FROM events_copy");
	is($remote_md5, $local_md5, 'a pushed-down bloom_agg(x) equals the local one, the settings differing');
	my $fpr = 'SELECT md5(bloom_agg(customer_id, 0.001)::bytea) FROM';
	like($coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $fpr events"),
		qr/Remote SQL: SELECT .*public\.bloom_agg\(customer_id, 0\.001/, 'bloom_agg(x, fpr) is pushed down');
	is($coord->safe_psql('postgres', "$fpr events"), $coord->safe_psql('postgres', "$fpr events_copy"),
		'a pushed-down bloom_agg(x, fpr) equals the local one');
	is($coord->safe_psql('postgres',
		"$set SELECT bloom_cardinality((SELECT bloom_agg(customer_id) FROM events) | (SELECT bloom_agg(customer_id) FROM events_copy)) > 0"),
		't', 'the remote and local filters combine');
}


done_testing();
