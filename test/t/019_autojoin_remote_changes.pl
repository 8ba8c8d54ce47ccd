# Automatic Bloom-joins over a remote that changes, or is slow (issue #33,
# items 3 and 4).  The planner remembers what a remote told it (10 minutes);
# nothing it remembers may turn into an ERROR the plain join lacks:
#
#  - a remote text column under a nondeterministic (ICU) collation, declared
#    plain text here: no filter, DEBUG1 says why (the remote raised "cannot
#    be bloomfilter keys");
#  - the remote column changes type (ALTER TABLE ... TYPE numeric) after the
#    planner asked: the same join in the same session, the very next
#    statement, and a prepared statement's generic plan made before the
#    change all return the plain join's rows (they raised "the filter holds
#    keys of family integer, not numeric"); the same after a change to a
#    nondeterministic collation;
#  - a remote still at bloomfilter 1.0 gets the probe it has (<@);
#  - a remote that did not answer in time is remembered: the next statements
#    skip it (DEBUG1 says until when) and connect to it no more (counted by
#    the fake remote's log of lookups, not timed).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;
use FakeRemote;

my $remote = start_node('remote');
my $coord = start_node('coord');
$coord->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$coord->restart;
my $port = $remote->port;

my $table = q{
	CREATE TABLE ev AS SELECT g AS id, g % 10000 AS k, 'k' || (g % 10000) AS t
	FROM generate_series(1, 30000) g;
	ANALYZE ev;
};
$remote->safe_psql('postgres', $table . q{
	CREATE TABLE ev2 AS SELECT * FROM ev;
	CREATE TABLE ev3 AS SELECT * FROM ev;
	CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	CREATE TABLE evci (id int, k int, t text COLLATE ci);
	INSERT INTO evci SELECT * FROM ev;
	ANALYZE evci;
	CREATE DATABASE old;
});
$remote->safe_psql('old', "DROP EXTENSION IF EXISTS bloomfilter; CREATE EXTENSION bloomfilter VERSION '1.0';" . $table);

$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER r FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres', extensions 'bloomfilter');
	CREATE USER MAPPING FOR CURRENT_USER SERVER r;
	CREATE SERVER rold FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'old', extensions 'bloomfilter');
	CREATE USER MAPPING FOR CURRENT_USER SERVER rold;
	CREATE FOREIGN TABLE ev (id int, k int, t text) SERVER r;
	CREATE FOREIGN TABLE ev2 (id int, k int, t text) SERVER r;
	CREATE FOREIGN TABLE ev3 (id int, k int, t text) SERVER r;
	CREATE FOREIGN TABLE evci (id int, k int, t text) SERVER r;
	CREATE FOREIGN TABLE evold (id int, k int, t text) SERVER rold OPTIONS (table_name 'ev');
	ANALYZE ev, ev2, ev3, evci, evold;
	-- 250 keys that exist remotely, 40 that do not
	CREATE TABLE vip AS SELECT g * 7 AS k, 'k' || (g * 7) AS t FROM generate_series(1, 250) g;
	INSERT INTO vip SELECT 20000 + g, 'x' || g FROM generate_series(1, 40) g;
	ANALYZE vip;
});

sub has_filter
{
	my ($plan) = @_;
	return $plan =~ /bloom filter of .*, added by bloomfilter\.join_pushdown/;
}

# rows of a join with the setting off (a session of its own)
sub rows_off
{
	my ($sql) = @_;
	return $coord->safe_psql('postgres',
		"SET bloomfilter.join_pushdown = off; SELECT count(*), sum(id) FROM ($sql) q");
}

# ---- item 3: a nondeterministic collation on the remote ---------------------
{
	my $sql = 'SELECT e.id FROM vip v JOIN evci e ON e.t = v.t';
	my ($out, $err) = ('', '');
	my $rc = $coord->psql('postgres',
		"SET client_min_messages = debug1; EXPLAIN (VERBOSE, COSTS OFF) $sql; SELECT count(*), sum(id) FROM ($sql) q",
		stdout => \$out, stderr => \$err);
	is($rc, 0, 'nondeterministic remote collation: no error') or diag($err);
	ok(!has_filter($out), 'nondeterministic remote collation: no filter');
	like($err, qr/no filter on t of relation evci: the remote column t of evci is under a nondeterministic collation/,
		'nondeterministic remote collation: DEBUG1 says why');
	my $off = rows_off($sql);
	like($out, qr/^\Q$off\E$/m, 'nondeterministic remote collation: the plain join\'s rows');
	like($off, qr/^750\|/, 'nondeterministic remote collation: 750 rows');
}

# ---- item 4: the remote column changes after the planner asked -------------
# One session: the join gets its filter, the remote column changes type, the
# same join runs again (the very next statement, then a prepared statement
# planned before the change, with its generic plan).
sub changed_remote
{
	my ($name, $ft, $rt, $key, $change, $want_probe) = @_;
	my $sql = "SELECT e.id FROM vip v JOIN $ft e ON e.$key = v.$key";
	my $off = rows_off($sql);
	my ($out, $err) = ('', '');
	my $rc = $coord->psql('postgres', qq{
		SET client_min_messages = debug1;
		SET plan_cache_mode = force_generic_plan;
		PREPARE q AS SELECT count(*), sum(id) FROM ($sql) q;
		EXPLAIN (VERBOSE, COSTS OFF) $sql;
		EXECUTE q;
		SELECT dblink_exec('host=127.0.0.1 port=$port dbname=postgres', '$change');
		SELECT count(*), sum(id) FROM ($sql) q;
		EXECUTE q;
		EXPLAIN (VERBOSE, COSTS OFF) $sql;
	}, stdout => \$out, stderr => \$err, on_error_stop => 0);
	ok(has_filter($out), "$name: a filter before the change") or diag($out, $err);
	like($out, qr/Remote SQL: .*$want_probe/, "$name: the probe shipped");
	unlike($err, qr/ERROR/, "$name: no error after the change") or diag($err);
	my @rows = $out =~ /^(\d+\|\d+)$/mg;
	is(scalar(@rows), 3, "$name: three results");
	is_deeply(\@rows, [ ($off) x 3 ], "$name: the plain join's rows before and after the change");
}
$coord->safe_psql('postgres', 'CREATE EXTENSION dblink');
changed_remote('integer to numeric', 'ev', 'ev', 'k', 'ALTER TABLE ev ALTER k TYPE numeric',
	qr/public\.bloomfilter_join_probe\(k, \$\d+::public\.bloomfilter\)/);
changed_remote('text to a nondeterministic collation', 'ev2', 'ev2', 't',
	'ALTER TABLE ev2 ALTER t TYPE text COLLATE ci',
	qr/public\.bloomfilter_join_probe\(t, \$\d+::public\.bloomfilter\)/);
changed_remote('integer to text', 'ev3', 'ev3', 'k', 'ALTER TABLE ev3 ALTER k TYPE text',
	qr/public\.bloomfilter_join_probe\(k, \$\d+::public\.bloomfilter\)/);

# a remote at 1.0 has no bloomfilter_join_probe: it gets <@
{
	my $sql = 'SELECT e.id FROM vip v JOIN evold e ON e.k = v.k';
	my $plan = $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $sql");
	like($plan, qr/Remote SQL: .*k OPERATOR\(public\.<@\) \$\d+::public\.bloomfilter/,
		'a remote at bloomfilter 1.0: the probe it has');
	is($coord->safe_psql('postgres', "SELECT count(*), sum(id) FROM ($sql) q"), rows_off($sql),
		'a remote at bloomfilter 1.0: the plain join\'s rows');
}

# A remote at 1.0 whose column changes: `x <@ f` there fails the first
# statement after the change (the limit of a remote not updated to 1.1);
# the failure makes the planner ask again, and the next statement gets
# no filter and the plain join's rows.
{
	my $sql = 'SELECT e.id FROM vip v JOIN evold e ON e.k = v.k';
	my $off = rows_off($sql);
	my ($out, $err) = ('', '');
	$coord->psql('postgres', qq{
		SET client_min_messages = debug1;
		SELECT 'before', count(*), sum(id) FROM ($sql) q;
		SELECT dblink_exec('host=127.0.0.1 port=$port dbname=old', 'ALTER TABLE ev ALTER k TYPE numeric');
		SELECT 'first', count(*), sum(id) FROM ($sql) q;
		SELECT 'second', count(*), sum(id) FROM ($sql) q;
	}, stdout => \$out, stderr => \$err, on_error_stop => 0);
	like($out, qr/^before\|\Q$off\E$/m, 'a changed remote at 1.0: the rows before the change');
	like($out, qr/^second\|\Q$off\E$/m, 'a changed remote at 1.0: the statement after a failure has the plain join\'s rows')
	  or diag($out, $err);
	like($err, qr/no filter on k of relation evold: the remote column k of evold is of type pg_catalog\."?numeric"?, whose keys do not hash/,
		'a changed remote at 1.0: asked again after the failure');
}

# ---- item 4: a remote that timed out is remembered ---------------------------
# A remote that takes the connection and leaves the question unanswered (a
# lock on the table, say) is skipped for that table; one that does not even
# take the connection, for every table of its server.
{
	my $lookups = $coord->basedir . '/lookups.log';
	my ($pid, $fport) = fake_remote_start($lookups, 2000);
	my $ddl = "CREATE TABLE loc AS SELECT g * 5 AS k FROM generate_series(1, 1000) g; ANALYZE loc;\n";
	for my $db (qw(silence silent_connect))
	{
		$ddl .= qq{
			CREATE SERVER $db FOREIGN DATA WRAPPER postgres_fdw
				OPTIONS (host '127.0.0.1', port '$fport', dbname '$db', extensions 'bloomfilter');
			CREATE USER MAPPING FOR CURRENT_USER SERVER $db OPTIONS (user 'x', password 'y');
			CREATE FOREIGN TABLE ${db}_a (id int, k int) SERVER $db OPTIONS (table_name 'a');
			CREATE FOREIGN TABLE ${db}_b (id int, k int) SERVER $db OPTIONS (table_name 'b');
		};
	}
	$coord->safe_psql('postgres', $ddl);

	my %want = (
		# server => [ statements' tables, waits, skips, connections ]
		silence => [ [qw(a a b a b a)], 2, 4, 2 ],
		silent_connect => [ [qw(a a b a b a)], 1, 5, 1 ]);
	for my $db (sort keys %want)
	{
		my ($tables, $waits, $skips, $conns) = @{ $want{$db} };
		my $script = "SET client_min_messages = debug1; SET statement_timeout = '2s';\n";
		$script .= "EXPLAIN (COSTS OFF) SELECT f.id FROM loc l JOIN ${db}_$_ f ON f.k = l.k;\n" for @$tables;
		# then a change of the server: it is forgotten, and asked again
		$script .= "ALTER SERVER $db OPTIONS (ADD fetch_size '50');\n"
		  . "EXPLAIN (COSTS OFF) SELECT f.id FROM loc l JOIN ${db}_a f ON f.k = l.k;\n";
		my ($out, $err) = ('', '');
		my $rc = $coord->psql('postgres', $script, stdout => \$out, stderr => \$err);
		is($rc, 0, "$db: the statements run, no error") or diag($err);
		my @waited = $err =~ /did not answer within \d+ ms \(the lookup's bound\) \(server $db\)/g;
		is(scalar(@waited), $waits + 1, "$db: $waits statements wait for it, and one after its server changed");
		my @skipped = $err =~ /not asked: the remote did not answer a lookup within \d+ ms; skipped until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]*\+00 \(server $db\)/g;
		is(scalar(@skipped), $skips, "$db: $skips statements skip it, DEBUG1 says until when")
		  or diag($err);
		my $asked = () = slurp_file($lookups) =~ /^$db$/mg;
		is($asked, $conns + 1, "$db: connected to $conns times, and once more after its server changed");
	}
	fake_remote_stop($pid);
}

done_testing();
