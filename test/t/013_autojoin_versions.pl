# Automatic Bloom-joins read the other side of the join in a subquery of
# their own (its InitPlan).  That subquery must check the permissions the
# user's query checks, as the user the query checks them for: no error the
# plain join would not raise (a view's owner reads the table for the user,
# a column privilege is enough), every error it would raise (the user may
# not read the table), and no filter from rows the user may not see (row
# security), since the filter leaves for the remote server.
#
# From PostgreSQL 16 a range-table entry's permissions live apart from it
# (Query.rteperminfos): a subquery that copies the entry without them
# failed every automatic Bloom-join ("invalid perminfoindex 1 in RTE").
#
# And from 16 the planner marks what an outer join below can make NULL on
# the Vars themselves (varnullingrels), not in em_nullable_relids and a
# clause's nullable_relids: a key nulled that way gets no filter on any
# version, and the rows are the plain join's.  (From 16 a clause under two
# outer joins that may commute has clones, one without nulling bits: read
# alone, it got a filter on 17 and 18 but not on 15.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $remote = start_node('remote');
my $coord  = start_node('coord');
$coord->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$coord->restart;

$remote->safe_psql('postgres', q{
	CREATE TABLE events AS
	SELECT g AS id, g % 10000 AS customer_id, 'p' || g AS payload
	FROM generate_series(1, 30000) g;
	ANALYZE events;
});
my $port = $remote->port;
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres',
		         extensions 'bloomfilter');
	-- every role reads the remote table as its superuser (trust on loopback)
	CREATE USER MAPPING FOR PUBLIC SERVER r1
		OPTIONS (user 'postgres', password_required 'false');
	CREATE FOREIGN TABLE events (id int, customer_id int, payload text) SERVER r1;

	-- 250 customers that exist remotely, 40 that do not
	CREATE TABLE vip (customer_id int, grp int, secret text);
	INSERT INTO vip SELECT g * 7, g % 3, 's' || g FROM generate_series(1, 250) g;
	INSERT INTO vip SELECT 20000 + g, g % 3, 's' || g FROM generate_series(1, 40) g;

	CREATE ROLE alice LOGIN;
	CREATE ROLE bob LOGIN;
	CREATE ROLE carol LOGIN;
	GRANT SELECT ON events TO alice, bob, carol;
	GRANT SELECT ON vip TO bob;
	GRANT SELECT (customer_id) ON vip TO carol;
	-- bob's view: alice may read it, not vip
	CREATE VIEW bob_view AS
		SELECT v.customer_id, e.id FROM vip v JOIN events e USING (customer_id);
	ALTER VIEW bob_view OWNER TO bob;
	GRANT SELECT ON bob_view TO alice;
	CREATE TABLE x AS SELECT g * 7 AS id, g % 3 AS grp FROM generate_series(1, 400) g;
	ANALYZE x;
	ANALYZE vip;
	ANALYZE events;
});

my $join = 'SELECT v.customer_id, e.id FROM vip v JOIN events e USING (customer_id)';

# (rows sorted, or the error without its position) as $role, setting on or off
sub run_as
{
	my ($role, $setting, $sql) = @_;
	my ($ret, $out, $err) = $coord->psql('postgres',
		"SET ROLE $role; SET bloomfilter.join_pushdown = $setting;"
		  . " SELECT q::text FROM ($sql) q ORDER BY 1");
	return $out if $ret == 0;
	$err =~ s/\n.*//s;
	return $err;
}

sub plan_as
{
	my ($role, $sql) = @_;
	return $coord->safe_psql('postgres',
		"SET ROLE $role; SET bloomfilter.join_pushdown = on; EXPLAIN (VERBOSE, COSTS OFF) $sql");
}

sub has_filter
{
	my ($plan) = @_;
	return $plan =~ /bloom filter of .*, added by bloomfilter\.join_pushdown/
	  && $plan =~ /Remote SQL: .*(?:public\.bloomfilter_join_probe\(\w+, \$\d+::public\.bloomfilter\)|OPERATOR\(public\.<@\) \$\d+::public\.bloomfilter)/;
}

# the same as the plain join, rows or error; $want: 'rows' or an error regex
sub same_as_plain
{
	my ($name, $role, $sql, $want) = @_;
	my $off = run_as($role, 'off', $sql);
	my $on  = run_as($role, 'on', $sql);
	is($on, $off, "$name: the same with the setting on and off");
	if ($want eq 'rows')
	{
		is(scalar(split /\n/, $on), 750, "$name: the 750 rows of the join");
	}
	else
	{
		like($on, $want, "$name: the error of the plain join");
	}
}

# The superuser: a filter, and the join's rows.
ok(has_filter(plan_as('postgres', $join)), 'the join gets an automatic filter')
  or diag(plan_as('postgres', $join));
same_as_plain('superuser', 'postgres', $join, 'rows');

# bob may read vip: a filter, the same rows.
ok(has_filter(plan_as('bob', $join)), 'bob: the join gets an automatic filter');
same_as_plain('bob', 'bob', $join, 'rows');

# alice may not read vip: the filter's subquery must not read it for her.
same_as_plain('alice, no privilege on vip', 'alice', $join,
	qr/permission denied for table vip/);

# carol may read vip's key column only: enough for the join and its filter;
# a query that reads another column is refused with or without a filter.
ok(has_filter(plan_as('carol', $join)), 'carol (column privilege): a filter');
same_as_plain('carol, column privilege on the key', 'carol', $join, 'rows');
same_as_plain('carol, a column she may not read', 'carol',
	'SELECT v.customer_id, v.secret, e.id FROM vip v JOIN events e USING (customer_id)',
	qr/permission denied for table vip/);

# alice through bob's view: vip is read as bob, by the join and the filter.
ok(has_filter(plan_as('alice', 'SELECT * FROM bob_view')),
	"alice through bob's view: a filter");
same_as_plain("alice through bob's view", 'alice', 'SELECT * FROM bob_view', 'rows');
$coord->safe_psql('postgres', 'REVOKE SELECT ON vip FROM bob');
same_as_plain("alice through bob's view, bob no longer reads vip", 'alice',
	'SELECT * FROM bob_view', qr/permission denied for table vip/);
$coord->safe_psql('postgres', 'GRANT SELECT ON vip TO bob');

# Keys an outer join below can null: the other side's key (x.id) nulled by
# the LEFT JOIN under the one that reaches events, and a key that needs both
# sides of a LEFT JOIN.  No filter, and the plain join's rows.
foreach my $shape (
	[ 'the other side nulled by a LEFT JOIN below',
	  'SELECT v.customer_id, x.id, e.id AS eid FROM vip v LEFT JOIN x ON x.id = v.customer_id'
		. ' LEFT JOIN events e ON e.customer_id = x.id' ],
	[ 'a key over both sides of a LEFT JOIN',
	  'SELECT v.customer_id, e.id FROM vip v LEFT JOIN x ON x.id = v.customer_id + 1'
		. ' JOIN events e ON e.customer_id = COALESCE(x.id, v.customer_id)' ])
{
	my ($name, $sql) = @$shape;
	my $plan = plan_as('postgres', $sql);
	ok($plan !~ /bloomfilter\.join_pushdown/, "$name: no filter") or diag($plan);
	my $off = run_as('postgres', 'off', $sql);
	is(run_as('postgres', 'on', $sql), $off, "$name: the same rows on and off");
	cmp_ok(scalar(split /\n/, $off), '>=', 250, "$name: rows");
}

# Row security: bob sees the customers of group 1 only.  No filter of the
# rows he may not see leaves for the remote (none at all: a filter under
# security quals is not built), and the join's rows are his.
$coord->safe_psql('postgres', q{
	ALTER TABLE vip ENABLE ROW LEVEL SECURITY;
	CREATE POLICY grp1 ON vip FOR SELECT TO bob USING (grp = 1);
});
my $plan = plan_as('bob', $join);
ok($plan !~ /bloomfilter\.join_pushdown/ && $plan !~ /<@|bloomfilter_join_probe/,
	'bob under row security: no filter') or diag($plan);
my $rls_off = run_as('bob', 'off', $join);
is(run_as('bob', 'on', $join), $rls_off, 'bob under row security: the same rows on and off');
cmp_ok(scalar(split /\n/, $rls_off), '<', 750, 'bob under row security: only his rows');

done_testing();
