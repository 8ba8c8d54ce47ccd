# Automatic Bloom-joins: the remote-size lookup of a foreign table that was
# never analyzed (issue #18) must never cost the query an ERROR, a hang or a
# broken connection that the plain join would not have:
#
#  - planned while a query of the session runs asynchronous foreign scans
#    of the same server (a function called by it, a cursor held open), the
#    lookup is not made: a request of that query may be in flight on the
#    connection;
#  - a remote that accepts the connection and does not answer (its backend
#    waits for a lock) costs a plain EXPLAIN the lookup's bound, then no
#    filter, and the connection and remote transaction still serve the next
#    query;
#  - a remembered size is forgotten when what the foreign table names
#    changes: ALTER FOREIGN TABLE, ALTER SERVER, a user mapping created.
#
# Every query is run with the setting on and off, full results compared.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $remote = start_node('remote');
# a prepared transaction holds a lock with no session open
$remote->append_conf('postgresql.conf', "max_prepared_transactions = 2\n");
$remote->restart;
my $coord = start_node('coord');
$coord->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$coord->restart;

# Never analyzed, here and there (autovacuum off): sized from their pages.
$remote->safe_psql('postgres', q{
	CREATE TABLE nbig (id int, k int) WITH (autovacuum_enabled = false);
	INSERT INTO nbig SELECT g, g % 100000 FROM generate_series(1, 200000) g;
	CREATE TABLE nlocked (id int, k int) WITH (autovacuum_enabled = false);
	INSERT INTO nlocked SELECT * FROM nbig;
	CREATE TABLE nsmall (id int, k int) WITH (autovacuum_enabled = false);
	INSERT INTO nsmall SELECT g, g * 100 FROM generate_series(1, 1000) g;
	CREATE TABLE shard_a AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 3000) g;
	CREATE TABLE shard_b AS SELECT g AS id, g % 1000 AS k FROM generate_series(3001, 6000) g;
	ANALYZE shard_a, shard_b;
	CREATE DATABASE other;
});
# the same name in another database, 1,000 rows
$remote->safe_psql('other', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE nbig (id int, k int) WITH (autovacuum_enabled = false);
	INSERT INTO nbig SELECT g, g * 100 FROM generate_series(1, 1000) g;
});

my $port = $remote->port;
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	-- a small fetch_size keeps the asynchronous scans' requests in flight
	CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres',
		         extensions 'bloomfilter', async_capable 'true', fetch_size '10');
	CREATE USER MAPPING FOR CURRENT_USER SERVER r1;
	CREATE FOREIGN TABLE nbig (id int, k int) SERVER r1;
	CREATE FOREIGN TABLE nlocked (id int, k int) SERVER r1;
	CREATE FOREIGN TABLE nlocked2 (id int, k int) SERVER r1 OPTIONS (table_name 'nlocked');
	CREATE FOREIGN TABLE nstop (id int, k int) SERVER r1 OPTIONS (table_name 'nbig');
	-- partitioned over two foreign tables of the same server: an async Append
	CREATE TABLE pall (id int, k int) PARTITION BY RANGE (id);
	CREATE FOREIGN TABLE pall_a PARTITION OF pall FOR VALUES FROM (MINVALUE) TO (3001)
		SERVER r1 OPTIONS (table_name 'shard_a');
	CREATE FOREIGN TABLE pall_b PARTITION OF pall FOR VALUES FROM (3001) TO (MAXVALUE)
		SERVER r1 OPTIONS (table_name 'shard_b');
	ANALYZE pall_a, pall_b;
	-- 1,000 local keys, never analyzed
	CREATE TABLE nloc AS SELECT g * 100 AS k FROM generate_series(1, 1000) g;

	-- a join with the never-analyzed nbig, planned while its caller runs
	CREATE FUNCTION nested_count(lim int) RETURNS bigint LANGUAGE plpgsql AS
	\$\$ BEGIN
		RETURN (SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k WHERE b.id <= lim);
	END \$\$;
	CREATE FUNCTION nested_count_sql(lim int) RETURNS bigint LANGUAGE sql AS
	\$\$ SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k WHERE b.id <= lim \$\$;
});

# ---- helpers ----------------------------------------------------------
sub rows_of
{
	my ($sql, $setting) = @_;
	return $coord->safe_psql('postgres',
		"SET bloomfilter.join_pushdown = $setting; SELECT q::text FROM ($sql) q ORDER BY 1");
}

sub has_filter
{
	my ($plan) = @_;
	return $plan =~ /bloom filter of .*, added by bloomfilter\.join_pushdown/
	  && $plan =~ /Remote SQL: .*(?:public\.bloomfilter_join_probe\(\w+, \$\d+::public\.bloomfilter\)|OPERATOR\(public\.<@\) \$\d+::public\.bloomfilter)/;
}

sub no_filter
{
	my ($plan) = @_;
	return $plan !~ /bloomfilter\.join_pushdown/ && $plan !~ /<@|bloomfilter_join_probe/;
}

# stdout and stderr of a script run in one session at client_min_messages
# debug1, with a bound on its time (a hang fails the test, never blocks it)
sub run_debug
{
	my ($sql, %opts) = @_;
	my ($out, $err, $timed_out) = ('', '', 0);
	my $pre = $opts{setting} ? "SET bloomfilter.join_pushdown = $opts{setting};\n" : '';
	my $ret = $coord->psql('postgres', "${pre}SET client_min_messages = debug1;\n$sql",
		stdout => \$out, stderr => \$err,
		timeout => $opts{timeout} // 120, timed_out => \$timed_out);
	return ($ret, $out, $err, $timed_out);
}

my $join = 'SELECT n.k, b.id FROM nloc n JOIN nbig b ON b.k = n.k';

# ---- 1. planning nested inside an executing query ----------------------
my $outer = 'SELECT p.id, p.k, nested_count(p.k) FROM pall p WHERE p.id % 300 = 7';
like($coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $outer"),
	qr/Async Foreign Scan on public\.pall_a.*Async Foreign Scan on public\.pall_b/s,
	'the outer query scans both foreign tables of the server asynchronously');
for my $fn ('nested_count', 'nested_count_sql')
{
	(my $q = $outer) =~ s/nested_count/$fn/;
	my ($ret_off, $off, $err_off) = run_debug($q, setting => 'off');
	my ($ret_on, $on, $err_on, $to) = run_debug($q, setting => 'on');
	is($ret_on, 0, "$fn called by a query over an async Append: no error")
	  or diag($err_on);
	ok(!$to, "$fn called by a query over an async Append: no hang");
	is($on, $off, "$fn called by a query over an async Append: same rows on and off");
	cmp_ok(scalar(split /\n/, $on), '==', 20, "$fn: the outer query returns its 20 rows");
	like($err_on,
		qr/relation nbig was never analyzed and its remote size is unknown \(not asked while a query of this session with asynchronous foreign scans is running/,
		"$fn: the lookup is not made while the async Append runs (DEBUG1 says why)");
	unlike($err_on, qr/relation nbig was never analyzed: the remote has about/,
		"$fn: no remote lookup nested inside the async Append");
}

# A cursor over the async Append held open while another query plans (and
# runs) on the same server, then fetched to its end; afterwards, with the
# cursor closed, the same session asks the remote and gets its filter.
my $cursor = qq{
	BEGIN;
	DECLARE c CURSOR FOR SELECT id, k FROM pall WHERE id % 100 = 1;
	FETCH 3 FROM c;
	SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k;
	EXPLAIN (VERBOSE, COSTS OFF) $join;
	FETCH ALL FROM c;
	COMMIT;
};
{
	my ($ret_off, $off) = run_debug($cursor, setting => 'off');
	my ($ret_on, $on, $err_on, $to) = run_debug($cursor, setting => 'on');
	is($ret_on, 0, 'a cursor over the async Append held open: no error') or diag($err_on);
	ok(!$to, 'a cursor held open: no hang');
	my ($count_on) = $on =~ /^(\d+)$/m;
	my ($count_off) = $off =~ /^(\d+)$/m;
	is($count_on, 1998, 'a cursor held open: the join counts its 1998 rows');
	is($count_off, 1998, 'a cursor held open, setting off: 1998 rows');
	my @rows_on = grep { /^\d+\|\d+$/ } split /\n/, $on;
	my @rows_off = grep { /^\d+\|\d+$/ } split /\n/, $off;
	is(join(',', @rows_on), join(',', @rows_off), 'a cursor held open: the cursor returns the same rows on and off');
	is(scalar(@rows_on), 60, 'a cursor held open: all 60 of its rows');
	like($err_on, qr/not asked while a query of this session with asynchronous foreign scans is running/,
		'a cursor held open: the lookup waits for it (DEBUG1)');
	ok(no_filter($on), 'a cursor held open: no filter meanwhile');

	my ($ret, $after, $err) = run_debug(qq{
		BEGIN;
		DECLARE c CURSOR FOR SELECT id, k FROM pall WHERE id % 100 = 1;
		FETCH 3 FROM c;
		CLOSE c;
		EXPLAIN (VERBOSE, COSTS OFF) $join;
		COMMIT;
	});
	ok(has_filter($after), 'the cursor closed: the same session asks the remote and gets the filter')
	  or diag("$after\n$err");
}

# A query with asynchronous scans that fails inside a plpgsql EXCEPTION block
# never reaches ExecutorEnd; its subtransaction rolled back, it runs no more,
# and the rest of the transaction asks as usual.
{
	my ($ret, $out, $err) = run_debug(q{
		BEGIN;
		DO $$ BEGIN
			BEGIN
				PERFORM p.id / (p.id - 1) FROM pall p;
			EXCEPTION WHEN division_by_zero THEN NULL;
			END;
		END $$;
		EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nbig b ON b.k = n.k;
		COMMIT;
	});
	is($ret, 0, 'an async query failed in an EXCEPTION block: no error') or diag($err);
	like($err, qr/relation nbig was never analyzed: the remote has about \d+ rows/,
		'an async query failed in an EXCEPTION block: the next plan of the transaction asks the remote')
	  or diag($err);
	ok(has_filter($out), 'an async query failed in an EXCEPTION block: and gets the filter')
	  or diag($out);
}

# A function called by a query without asynchronous scans asks as usual.
{
	my $q = 'SELECT nested_count(200000) FROM (VALUES (1)) v';
	my ($ret, $on, $err) = run_debug($q, setting => 'on');
	my ($r2, $off) = run_debug($q, setting => 'off');
	is($ret, 0, 'a function called by a plain query: no error');
	is($on, $off, 'a function called by a plain query: same count on and off');
	is($on, '1998', 'a function called by a plain query: 1998');
	like($err, qr/relation nbig was never analyzed: the remote has about \d+ rows/,
		'a function called by a plain query: the lookup is made');
}

# ---- 2. a remote that does not answer ------------------------------------
# Another remote transaction holds nlocked's lock, which pg_relation_size()
# waits for.  A plain EXPLAIN never contacts the remote; with the lookup it
# waits at most its bound, gets no filter, and the connection and remote
# transaction serve the next query of the same transaction.
$remote->safe_psql('postgres',
	"BEGIN; LOCK TABLE nlocked IN ACCESS EXCLUSIVE MODE; PREPARE TRANSACTION 'hold';");
{
	my $t0 = time();
	my ($ret, $out, $err, $to) = run_debug(qq{
		BEGIN;
		EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k;
		SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k;
		COMMIT;
		SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k;
	}, timeout => 90);
	my $secs = time() - $t0;
	ok(!$to, sprintf('a lock-blocked remote: EXPLAIN does not hang (%.1f s)', $secs));
	is($ret, 0, 'a lock-blocked remote: no error') or diag($err);
	ok(no_filter($out), 'a lock-blocked remote: no filter');
	like($err, qr/relation nlocked was never analyzed and its remote size is unknown \(the remote did not answer within 5000 ms/,
		'a lock-blocked remote: DEBUG1 says the bound passed');
	like($out, qr/^1998\n1998$/m,
		'a lock-blocked remote: the next query of the transaction, and the next one, run on the connection');

	# the statement's own timeout comes first: half of it, and no error
	($ret, $out, $err, $to) = run_debug(q{
		SET statement_timeout = '2s';
		EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k;
		SELECT count(*) FROM nloc n JOIN nbig b ON b.k = n.k;
	}, timeout => 90);
	is($ret, 0, 'a lock-blocked remote under statement_timeout 2s: no error') or diag($err);
	my ($ms) = $err =~ /relation nlocked was never analyzed and its remote size is unknown \(the remote did not answer within (\d+) ms/;
	ok(defined $ms && $ms > 500 && $ms <= 1000,
		'a lock-blocked remote under statement_timeout: the bound is half the time left') or diag($err);
	like($out, qr/^1998$/m, 'a lock-blocked remote under statement_timeout: the next query runs');
}
# A user's cancel during the lookup is passed on, never swallowed: the
# EXPLAIN waiting for the lock-blocked remote is cancelled as it would be.
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'env', 'PGAPPNAME=cancel_me', 'psql', '-XAtq', '-d', $coord->connstr('postgres'), '-c',
		  'EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k' ],
		'<', \$in, '>', \$out, '2>', \$err);
	ok($coord->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE application_name = 'cancel_me' AND wait_event_type = 'Extension'}),
		'a user cancel: the EXPLAIN waits for the remote');
	$coord->safe_psql('postgres',
		"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'cancel_me' AND pid <> pg_backend_pid()");
	$h->finish;
	like($err, qr/canceling statement due to user request/,
		'a user cancel during the lookup cancels the statement') or diag("$out\n$err");
}
# The remote query cancelled on the remote (an administrator there) comes
# back with the same SQLSTATE as a cancel: only a failed lookup, no error.
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $coord->connstr('postgres'), '-c',
		  'SET client_min_messages = debug1; EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k' ],
		'<', \$in, '>', \$out, '2>', \$err);
	ok($remote->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE application_name = 'bloomfilter' AND wait_event_type = 'Lock'}),
		'a remote cancel: the lookup waits for the lock on the remote');
	$remote->safe_psql('postgres', q{
		SELECT pg_cancel_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'bloomfilter' AND wait_event_type = 'Lock'});
	$h->finish;
	is($h->result(0), 0, 'a remote cancel: the EXPLAIN succeeds') or diag($err);
	ok(no_filter($out), 'a remote cancel: no filter');
	like($err, qr/relation nlocked was never analyzed and its remote size is unknown \(asking the remote failed: (?:the remote did not answer: )?canceling statement due to user request/,
		'a remote cancel: DEBUG1 says the lookup failed');
}
# Two tables of the blocked remote in one statement: one bound per
# statement, not one per lookup; after it runs out, the statement asks no more.
{
	my ($ret, $out, $err, $to) = run_debug(q{
		EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id, c.id FROM nloc n
			JOIN nlocked b ON b.k = n.k JOIN nlocked2 c ON c.k = n.k;
	}, timeout => 90);
	is($ret, 0, 'two blocked tables in one statement: no error') or diag($err);
	my @waited = $err =~ /the remote did not answer within \d+ ms/g;
	is(scalar(@waited), 1, 'two blocked tables in one statement: one lookup waits for the bound')
	  or diag($err);
	like($err, qr/relation nlocked2? was never analyzed and its remote size is unknown \(not asked: a remote-size lookup of this statement already ran out of the statement's bound/,
		'two blocked tables in one statement: the other lookup is skipped (DEBUG1)') or diag($err);
}

# A timeout is remembered for the server (issue #33): in the same session,
# once the lock is gone, the next statement still skips the remote (DEBUG1
# says until when); once the server is altered, the next one asks again and
# gets the filter.
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout(120));
	$in .= "SET client_min_messages = debug1;\n"
	  . "EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k;\n"
	  . "\\echo first_done\n";
	$h->pump until $out =~ /first_done/;
	like($err, qr/relation nlocked was never analyzed and its remote size is unknown \(the remote did not answer within/,
		'a timeout: the first statement waits for the bound') or diag($err);
	ok(no_filter($out), 'a timeout: no filter then');
	$remote->safe_psql('postgres', "COMMIT PREPARED 'hold'");
	$out = '';
	$err = '';
	$in .= "EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k;\n"
	  . "\\echo second_done\n";
	$h->pump until $out =~ /second_done/;
	ok(no_filter($out), 'a timeout is remembered: the next statement skips the remote');
	like($err, qr/relation nlocked was never analyzed and its remote size is unknown \(not asked: the remote did not answer a lookup within \d+ ms; skipped until .* \(server r1\)\)/,
		'a timeout is remembered: DEBUG1 says until when') or diag($err);
	$out = '';
	$in .= "ALTER SERVER r1 OPTIONS (SET fetch_size '10');\n"
	  . "EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k;\n"
	  . "\\echo third_done\n\\q\n";
	$h->pump until $out =~ /third_done/;
	$h->finish;
	ok(has_filter($out), 'a remembered timeout is forgotten when its server changes: the next statement asks again and gets the filter')
	  or diag("$out\n$err");
}
{
	my $q = 'SELECT n.k, b.id FROM nloc n JOIN nlocked b ON b.k = n.k';
	is(rows_of($q, 'on'), rows_of($q, 'off'), 'the lock released: same rows on and off');
	ok(has_filter($coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $q")),
		'the lock released: a new session asks again and gets the filter');
}

# ---- 2b. a remote backend that stops answering ----------------------------
# The session's connection is open and idle; its remote backend is stopped.
# The lookup asks over a connection of its own (issue #27: the scan's remote
# snapshot), so it answers; postgres_fdw's own START TRANSACTION then waits
# (as the plain join's would), and nothing of the lookup's bound touches it.
# Resumed after more than the bound, the join runs and counts its rows, on
# every version (on 16 and later the lookup used to go through postgres_fdw's
# ANALYZE callback, whose START TRANSACTION the bound could cancel).
my $todo_16 = undef;
sub stop_remote_backend
{
	my ($appname) = @_;
	my $pid = $remote->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE application_name = '$appname'");
	die "no remote backend $appname" unless $pid =~ /^\d+$/;
	kill 'STOP', $pid or die "kill STOP $pid: $!";
	return $pid;
}
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'env', 'PGAPPNAME=stop_test', 'psql', '-XAtq', '-d', $coord->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout(150));
	$in .= "SET postgres_fdw.application_name = 'j18a_stopped';\n"
	  . "SELECT count(*) FROM pall_a;\n\\echo ready\n";
	$h->pump until $out =~ /ready/;
	my $pid = stop_remote_backend('j18a_stopped');
	$out = '';
	$in .= "SET client_min_messages = debug1;\n"
	  . "SELECT count(*) FROM nloc n JOIN nstop b ON b.k = n.k;\n\\echo joined\n";
	$h->pump_nb;
	ok($coord->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE application_name = 'stop_test' AND wait_event_type = 'Extension'}),
		'a stopped remote backend: the join waits for it');
	sleep(7);	# more than the lookup's bound
	kill 'CONT', $pid;
	$h->pump until $out =~ /joined/;
	{
		local $main::TODO = $todo_16;
		unlike($err, qr/ERROR/, 'a stopped remote backend resumed after the bound: no error')
		  or diag($err);
		like($out, qr/^1998$/m, 'a stopped remote backend resumed after the bound: the join counts its 1998 rows');
	}

	# the statement_timeout passes while postgres_fdw starts the remote
	# transaction: the statement is cancelled as the plain one would be
	$out = '';
	$in .= "SELECT count(*) FROM pall_a;\n\\echo ready_again\n";
	$h->pump until $out =~ /ready_again/;
	$pid = stop_remote_backend('j18a_stopped');
	$out = '';
	$err = '';
	$in .= "SET statement_timeout = '2s';\n"
	  . "SELECT count(*) FROM nloc n JOIN nstop b ON b.k = n.k;\n\\echo timed\n\\q\n";
	$h->pump until $out =~ /timed/;
	kill 'CONT', $pid;
	$h->finish;
	{
		local $main::TODO = $todo_16;
		like($err, qr/canceling statement due to statement timeout/,
			'a stopped remote backend under statement_timeout: the statement times out as the plain one would')
		  or diag($err);
	}
}

# A remote postmaster that accepts connections and never answers: on
# PostgreSQL 15 the connection attempt itself cannot be cancelled; the
# lookup gives it a connect_timeout, so a plain EXPLAIN does not hang.
{
	$coord->safe_psql('postgres', qq{
		CREATE SERVER r_stop FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres', extensions 'bloomfilter');
		CREATE USER MAPPING FOR CURRENT_USER SERVER r_stop;
		CREATE FOREIGN TABLE nstopped (id int, k int) SERVER r_stop OPTIONS (table_name 'nbig');
	});
	my $pmpid = slurp_file($remote->data_dir . '/postmaster.pid');
	($pmpid) = $pmpid =~ /^(\d+)/;
	kill 'STOP', $pmpid or die "kill STOP $pmpid: $!";
	my ($ret, $out, $err, $to) = run_debug(
		'EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nstopped b ON b.k = n.k;',
		timeout => 60);
	kill 'CONT', $pmpid;
	ok(!$to, 'a stopped remote postmaster: EXPLAIN does not hang');
	is($ret, 0, 'a stopped remote postmaster: no error') or diag($err);
	ok(no_filter($out), 'a stopped remote postmaster: no filter');
	# 15: connect_timeout; 16 and later: the connection attempt is
	# interruptible and the bound cancels it
	like($err, qr/relation nstopped was never analyzed and its remote size is unknown \((?:asking the remote failed|the remote did not answer within)/,
		'a stopped remote postmaster: DEBUG1 says the lookup failed') or diag($err);
}

# ---- 3. a remembered size is forgotten when the table it names changes ----
sub remote_rows
{
	my ($err, $rel, $nth) = @_;
	my @all = $err =~ /relation \Q$rel\E was never analyzed: the remote has about (\d+) rows/g;
	return $all[$nth];
}
$coord->safe_psql('postgres', qq{
	CREATE FOREIGN TABLE nswitch (id int, k int) SERVER r1 OPTIONS (table_name 'nbig');
	CREATE SERVER r_db FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres', extensions 'bloomfilter');
	CREATE USER MAPPING FOR CURRENT_USER SERVER r_db;
	CREATE FOREIGN TABLE nsrv (id int, k int) SERVER r_db OPTIONS (table_name 'nbig');
	CREATE SERVER r_nomap FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres', extensions 'bloomfilter');
	CREATE FOREIGN TABLE nmap (id int, k int) SERVER r_nomap OPTIONS (table_name 'nbig');
});
{
	my ($ret, $out, $err) = run_debug(q{
		EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nswitch b ON b.k = n.k;
		ALTER FOREIGN TABLE nswitch OPTIONS (SET table_name 'nsmall');
		EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nswitch b ON b.k = n.k;
	});
	my ($before, $after) = (remote_rows($err, 'nswitch', 0), remote_rows($err, 'nswitch', 1));
	cmp_ok($before // 0, '>', 100000, 'ALTER FOREIGN TABLE: before, the 200,000-row table');
	cmp_ok($after // 1e9, '<', 5000, 'ALTER FOREIGN TABLE ... table_name: the same session asks again, 1,000 rows')
	  or diag($err);
}
{
	my ($ret, $out, $err) = run_debug(q{
		EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nsrv b ON b.k = n.k;
		ALTER SERVER r_db OPTIONS (SET dbname 'other');
		EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nsrv b ON b.k = n.k;
	});
	my ($before, $after) = (remote_rows($err, 'nsrv', 0), remote_rows($err, 'nsrv', 1));
	cmp_ok($before // 0, '>', 100000, 'ALTER SERVER: before, the 200,000-row table');
	cmp_ok($after // 1e9, '<', 5000, 'ALTER SERVER ... dbname: the same session asks the other database, 1,000 rows')
	  or diag($err);
	my $q = 'SELECT n.k, b.id FROM nloc n JOIN nsrv b ON b.k = n.k';
	is(rows_of($q, 'on'), rows_of($q, 'off'), 'ALTER SERVER: same rows on and off');
}
{
	my ($ret, $out, $err) = run_debug(q{
		EXPLAIN SELECT n.k, b.id FROM nloc n JOIN nmap b ON b.k = n.k;
		CREATE USER MAPPING FOR CURRENT_USER SERVER r_nomap;
		EXPLAIN (VERBOSE, COSTS OFF) SELECT n.k, b.id FROM nloc n JOIN nmap b ON b.k = n.k;
	});
	like($err, qr/relation nmap was never analyzed and its remote size is unknown \(asking the remote failed: user mapping not found/,
		'no user mapping: the lookup fails');
	cmp_ok(remote_rows($err, 'nmap', 0) // 0, '>', 100000,
		'CREATE USER MAPPING: the same session asks again and gets the size');
	ok(has_filter($out), 'CREATE USER MAPPING: and the filter') or diag("$out\n$err");
	my $q = 'SELECT n.k, b.id FROM nloc n JOIN nmap b ON b.k = n.k';
	is(rows_of($q, 'on'), rows_of($q, 'off'), 'CREATE USER MAPPING: same rows on and off');
}

done_testing();
