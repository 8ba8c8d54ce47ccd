# Automatic Bloom-joins never raise an ERROR the plain plan does not
# (issue #33, item 2).  The filter's InitPlan, bloom_agg(o.k) over the other
# side o, reads every row of o; the plain plan may read none of them (a hash
# join or nested loop whose foreign side is empty, EXISTS over it) or only
# some (a LIMIT met early, an index scan of the rows another join keeps).
# o has three rows a restriction fails on: b = 0 (`a / b`), s = 'x'
# (`s::int`, text to int through its input function) and big = 10^10
# (`big::int4` overflows).  Before the fix the InitPlan copied every
# non-volatile restriction and raised "division by zero", "invalid input
# syntax" or "integer out of range" where the plain query returns its rows.
#
# Every shape is run with bloomfilter.join_pushdown off and on: no ERROR
# either way, the same rows, the filter in the plan, and in the InitPlan's
# scan (EXPLAIN VERBOSE) the restrictions that cannot raise one (grp = 1,
# a parameter, text <, IN lists, COALESCE, CASE, IS DISTINCT FROM) and none
# of those that can.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $remote = start_node('remote');
my $coord = start_node('coord');
$coord->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$coord->restart;
my $port = $remote->port;

# events: 30,000 rows of keys 0..9,999; gone: the same, analyzed here while
# full and then emptied on the remote (a foreign side the planner expects
# rows of and that returns none).
$remote->safe_psql('postgres', q{
	CREATE TABLE events AS SELECT g AS id, g % 10000 AS k FROM generate_series(1, 30000) g;
	CREATE TABLE gone AS SELECT * FROM events;
	ANALYZE;
});
# fdw_startup_cost 0: the foreign scan starts cheaper than hashing o, so a
# hash join reads its outer (foreign) side first and, finding it empty,
# never builds the hash of o.
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER r FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres',
		         extensions 'bloomfilter', fdw_startup_cost '0');
	CREATE USER MAPPING FOR PUBLIC SERVER r OPTIONS (user 'postgres', password_required 'false');
	CREATE FOREIGN TABLE events (id int, k int) SERVER r;
	CREATE FOREIGN TABLE gone (id int, k int) SERVER r;
	CREATE FOREIGN TABLE gone_i8 (id int, k int8) SERVER r OPTIONS (table_name 'gone');
	ANALYZE events, gone, gone_i8;

	-- 300 rows, keys 7..2100; rows 292, 295 and 298 (all grp 1) fail
	CREATE TABLE o AS
	SELECT g AS id, g * 7 AS k, g % 3 AS grp, g AS a,
	       CASE WHEN g = 292 THEN 0 ELSE 1 END AS b,
	       CASE WHEN g = 295 THEN 'x' ELSE g::text END AS s,
	       CASE WHEN g = 298 THEN 10000000000 ELSE g END::int8 AS big
	FROM generate_series(1, 300) g;
	CREATE INDEX ON o (id);
	-- the rows another join keeps: ids 4..200, none that fails
	CREATE TABLE okids AS SELECT g * 4 AS id FROM generate_series(1, 50) g;
	ANALYZE o, okids;
});
$remote->safe_psql('postgres', 'TRUNCATE gone');

# thresholds off: the small tables here would not pay for a filter
my $cheap = 'SET bloomfilter.join_pushdown_min_rows = 0; SET bloomfilter.join_pushdown_max_fraction = 1;';
# The shapes are pinned: a filter makes the foreign scan cheaper, and the
# join it picks then may read o where the plain one does not, as any change
# of plan may (PostgreSQL promises no order of evaluation); here the point
# is the InitPlan, so the plain plan and the filtered one are of one shape.
my $nestloop = 'SET enable_hashjoin = off; SET enable_mergejoin = off;';
my $hashjoin = 'SET enable_nestloop = off; SET enable_mergejoin = off;';

# the three restrictions that fail on a row of o
my %unsafe = (
	'division by zero'         => 'o.a / o.b >= 0',
	'int8 to int4 overflow'    => 'o.big::int4 > 0',
	'text to int of a non-number' => 'o.s::int > 0',
);
# what each looks like in EXPLAIN VERBOSE
my $unsafe_shown = qr{(?:\.a / \S+\.b\)|\.big\)::integer|\.s\)::integer)};

# ---- helpers ----------------------------------------------------------------
# the sorted rows of $sql with the setting, and the ERROR if any
sub run_rows
{
	my ($sql, $setting, $pre) = @_;
	my ($out, $err) = ('', '');
	my $rc = $coord->psql('postgres',
		"$cheap $pre SET bloomfilter.join_pushdown = $setting; SELECT q::text FROM ($sql) q ORDER BY 1",
		stdout => \$out, stderr => \$err, on_error_stop => 1);
	return ($rc, $out, $err);
}

sub plan_of
{
	my ($sql, $pre) = @_;
	return $coord->safe_psql('postgres',
		"$cheap $pre EXPLAIN (VERBOSE, COSTS OFF) $sql");
}

sub has_filter
{
	my ($plan) = @_;
	return $plan =~ /InitPlan \d+(?: \(returns \$\d+\))?: bloom filter of .*, added by bloomfilter\.join_pushdown/
	  && $plan =~
	  /Remote SQL: .*(?:OPERATOR\(public\.<@\) |public\.bloomfilter_join_probe\(\w+, )\$\d+::public\.bloomfilter/;
}

sub no_filter
{
	my ($plan) = @_;
	return $plan !~ /bloomfilter\.join_pushdown/ && $plan !~ /<@|bloomfilter_join_probe/;
}

# the lines of the filter's InitPlan (those indented under its header)
sub initplan_of
{
	my ($plan) = @_;
	my ($indent, @out);
	for my $l (split /\n/, $plan)
	{
		if (!defined $indent)
		{
			$indent = length($1) if $l =~ /^(\s*)InitPlan \d+.*bloom filter of/;
			next;
		}
		$l =~ /^(\s*)/;
		last if length($1) <= $indent;
		push @out, $l;
	}
	return join("\n", @out);
}

# The plain plan and the Bloom-join give the same rows and no ERROR; the
# plan has the filter ($o{filter}, default 1), whose InitPlan shows each of
# $o{copied} and no restriction that can fail.
sub check
{
	my ($name, $sql, %o) = @_;
	my $pre = $o{pre} // '';
	my ($rc_off, $off, $err_off) = run_rows($sql, 'off', $pre);
	is($rc_off, 0, "$name: the plain plan raises no error") or diag($err_off);
	my ($rc_on, $on, $err_on) = run_rows($sql, 'on', $pre);
	is($rc_on, 0, "$name: no error with the filter") or diag($err_on);
	my $n = $off eq '' ? 0 : scalar(split /\n/, $off);
	is($on, $off, "$name: the same $n rows on and off");
	is($n, $o{rows}, "$name: $o{rows} rows") if defined $o{rows};
	my $plan = plan_of($sql, $pre);
	if ($o{filter} // 1)
	{
		ok(has_filter($plan), "$name: the plan has the filter") or diag($plan);
		my $ip = initplan_of($plan);
		unlike($ip, $unsafe_shown, "$name: no restriction that can fail is in the InitPlan")
		  or diag($plan);
		like($ip, $_, "$name: the InitPlan keeps $_") or diag($plan) for @{ $o{copied} // [] };
	}
	else
	{
		ok(no_filter($plan), "$name: no filter") or diag($plan);
	}
	return $plan;
}

# ---- the foreign side is empty: the plain plan never reads o -------------------
for my $what (sort keys %unsafe)
{
	my $r = $unsafe{$what};
	my $plan = check("hash join, empty foreign side, $what",
		"SELECT o.id, e.id FROM o JOIN gone e ON e.k = o.k WHERE o.grp = 1 AND $r",
		pre => $hashjoin, rows => 0, copied => [qr/\.grp = 1\)/]);
	like($plan, qr/Hash Join/, "hash join, $what: a hash join") or diag($plan);
	$plan = check("nested loop, empty foreign side, $what",
		"SELECT o.id, e.id FROM gone e JOIN o ON e.k = o.k WHERE o.grp = 1 AND $r",
		pre => $nestloop, rows => 0, copied => [qr/\.grp = 1\)/]);
	like($plan, qr/Nested Loop/, "nested loop, $what: a nested loop") or diag($plan);
	check("EXISTS over an empty foreign side, $what",
		"SELECT e.id FROM gone e WHERE EXISTS (SELECT 1 FROM o WHERE o.k = e.k AND $r)",
		pre => $hashjoin, rows => 0);
}

# ---- the plain plan reads some rows of o --------------------------------------
for my $what (sort keys %unsafe)
{
	my $r = $unsafe{$what};
	# o read in id order until three rows join: o.id = 1 has three
	my $plan = check("LIMIT met before the failing row, $what",
		"SELECT o.id, e.id FROM o JOIN events e ON e.k = o.k WHERE $r ORDER BY o.id LIMIT 3",
		rows => 3);
	like($plan, qr/Limit/, "LIMIT, $what: the plan has it") or diag($plan);
	# an index scan of o per row of okids: only the rows okids keeps
	$plan = check("other side filtered by another join first, $what",
		"SELECT o.id, e.id FROM okids JOIN o ON o.id = okids.id JOIN events e ON e.k = o.k WHERE $r",
		pre => $nestloop, rows => 150);
	like($plan, qr/Index Scan using o_id_idx on public\.o\n\s+Output: .*\n\s+Index Cond: \(o\.id = okids\.id\)/,
		"another join first, $what: o read by an index scan of okids' ids") or diag($plan);
}

# ---- restrictions that cannot fail still go into the filter --------------------
check('leakproof restrictions are copied, the others not',
	q{SELECT o.id, e.id FROM o JOIN gone e ON e.k = o.k
	  WHERE o.k < 2000 AND o.id IN (1, 2, 4, 5, 7, 8, 10, 11, 13, 292, 295, 298)
	    AND coalesce(o.grp, 0) <> 2 AND o.s < 'z' AND o.id IS DISTINCT FROM 5
	    AND (CASE WHEN o.grp = 1 THEN o.a ELSE 0 END > 0) IS NOT FALSE
	    AND (o.grp = 1 OR o.id < 3) AND o.id IS NOT NULL
	    AND o.a / o.b >= 0 AND o.big::int4 > 0 AND o.s::int > 0},
	pre => $hashjoin, rows => 0,
	copied => [qr/\.k < 2000\)/, qr/\.id = ANY \('\{1,2,4,5,7,8,10,11,13,292,295,298\}'::integer\[\]\)\)/,
		qr/COALESCE\(\S+\.grp, 0\) <> 2\)/, qr/\.s < 'z'::text\)/, qr/\.id IS DISTINCT FROM 5\)/,
		qr/CASE WHEN/, qr/\.grp = 1\) OR \(\S+\.id < 3\)/, qr/\.id IS NOT NULL\)/]);
{
	my ($out, $err) = ('', '');
	$coord->psql('postgres',
		"$cheap SET client_min_messages = debug1; EXPLAIN SELECT o.id, e.id FROM o JOIN gone e ON e.k = o.k WHERE o.a / o.b >= 0",
		stdout => \$out, stderr => \$err);
	like($err, qr/restriction \(\(a \/ b\) >= 0\) of relation o left out of the filter's subquery \(which then holds more keys\): it could raise an error/,
		'DEBUG1 names the restriction left out, and why') or diag($err);
	like($err, qr/k of relation gone: 300 keys/,
		'DEBUG1: the keys are estimated over the rows the subquery keeps (all 300)') or diag($err);
	# a restriction on another plan's value is named, not deparsed
	($out, $err) = ('', '');
	my $rc = $coord->psql('postgres',
		"$cheap SET client_min_messages = debug1; SELECT count(*) FROM o JOIN gone e ON e.k = o.k WHERE o.id = ANY (ARRAY(SELECT id FROM okids))",
		stdout => \$out, stderr => \$err);
	is($rc, 0, 'DEBUG1 of a restriction on an InitPlan: no error') or diag($err);
	like($err, qr/restriction \(one that needs its query's values\) of relation o left out of the filter's subquery/,
		'DEBUG1 of a restriction on an InitPlan: said') or diag($err);
}

# an equality of two columns of o from an equivalence class is copied
check('restriction from an equivalence class (o.id = o.a)',
	'SELECT o.id, e.id FROM o JOIN gone e ON e.k = o.k WHERE o.id = o.a AND o.a / o.b >= 0',
	pre => $hashjoin, rows => 0, copied => [qr/\.id = \S+\.a\)/]);

# a parameter of the statement (a generic plan) is copied
{
	my $prep = $hashjoin . q{SET plan_cache_mode = force_generic_plan;
		PREPARE p(int) AS SELECT o.id, e.id FROM o JOIN gone e ON e.k = o.k
		WHERE o.grp = $1 AND o.a / o.b >= 0;};
	my $plan = $coord->safe_psql('postgres', "$cheap $prep EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p(1)");
	ok(has_filter($plan), 'generic plan: the filter') or diag($plan);
	like(initplan_of($plan), qr/\.grp = \$1\)/, 'generic plan: the parameter restriction is copied')
	  or diag($plan);
	unlike(initplan_of($plan), $unsafe_shown, 'generic plan: the division is not') or diag($plan);
	for my $setting ('off', 'on')
	{
		my ($out, $err) = ('', '');
		my $rc = $coord->psql('postgres',
			"$cheap SET bloomfilter.join_pushdown = $setting; $prep EXECUTE p(1); EXECUTE p(2);",
			stdout => \$out, stderr => \$err);
		is($rc, 0, "generic plan, setting $setting: no error") or diag($err);
		is($out, '', "generic plan, setting $setting: no rows");
	}
}

# ---- a computed key: every restriction must go in, or no filter ----------------
# o.k::int8 is leakproof; with a restriction left out it gets no filter (the
# rule of the notes: no restriction that guards a key's computation is ever
# dropped under it), with only safe ones it keeps its filter.
check('computed key, a restriction left out',
	'SELECT o.id, e.id FROM o JOIN gone_i8 e ON e.k = o.k::int8 WHERE o.a / o.b >= 0',
	pre => $hashjoin, rows => 0, filter => 0);
check('computed key, every restriction copied',
	'SELECT o.id, e.id FROM o JOIN gone_i8 e ON e.k = o.k::int8 WHERE o.grp = 1',
	pre => $hashjoin, rows => 0, copied => [qr/\.grp = 1\)/]);

# ---- row-level security on the other side: no filter ---------------------------
# A policy can be neither left out (the filter would carry keys of rows the
# user may not see to the remote) nor evaluated on rows the plain plan never
# reads (a / b): such a side gets no filter.
$coord->safe_psql('postgres', q{
	CREATE ROLE alice LOGIN;
	CREATE TABLE o_rls AS SELECT * FROM o;
	ANALYZE o_rls;
	ALTER TABLE o_rls ENABLE ROW LEVEL SECURITY;
	CREATE POLICY p ON o_rls USING (a / b >= 0);
	GRANT SELECT ON o_rls, gone, events TO alice;
});
{
	my $sql = 'SELECT o.id, e.id FROM o_rls o JOIN gone e ON e.k = o.k';
	my %res;
	for my $setting ('off', 'on')
	{
		my ($out, $err) = ('', '');
		my $rc = $coord->psql('postgres',
			"SET ROLE alice; $cheap $hashjoin SET bloomfilter.join_pushdown = $setting; SELECT count(*) FROM ($sql) q",
			stdout => \$out, stderr => \$err);
		is($rc, 0, "row security, setting $setting: no error") or diag($err);
		$res{$setting} = $out;
	}
	is($res{on}, $res{off}, 'row security: the same count on and off');
	ok(no_filter($coord->safe_psql('postgres',
		"SET ROLE alice; $cheap EXPLAIN (VERBOSE, COSTS OFF) $sql")),
		'row security on the other side: no filter');
}

done_testing();
