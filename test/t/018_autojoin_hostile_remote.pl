# Automatic Bloom-joins against a remote that answers the lookup wrongly
# (issue #33, item 1).  A user who is not a superuser, with USAGE on
# postgres_fdw, creates servers of her own pointing at a fake remote
# (FakeRemote.pm: it speaks the v3 protocol, asks a cleartext password and
# serves postgres_fdw's cursor) that answers the lookup's question with too
# few or too many columns, NULLs, garbage, huge or out-of-range numbers,
# invalid UTF-8, an error, a disconnect, silence.  For each:
#
#  - the join returns the plain join's rows (or its error) with the setting
#    on, and gets no filter;
#  - DEBUG1 names the remote (its server) and why, and no remote text
#    reaches the client unescaped or unbounded;
#  - the cluster never restarts: no "terminated by signal" in the log, the
#    postmaster and the session's backend stay the same.
#
# Then the answer mutated at random, a few hundred times, in one session.
# (Before the fix, the mode r2_one_col made copy_name read a NULL: signal 11.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;
use FakeRemote;

my $fuzz_rounds = $ENV{BLOOM_FUZZ_ROUNDS} // 250;

my $node = start_node('coord');
$node->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$node->restart;
my $logdir = $node->basedir;
my $lookups = "$logdir/lookups.log";
my ($fake_pid, $fake_port) = fake_remote_start($lookups, 2000);
END { local $?; fake_remote_stop($fake_pid) if $fake_pid; }

my @bad = grep { $_ ne "good" && $_ ne "silence" } fake_remote_modes();
@bad = split(/,/, $ENV{BLOOM_MODES}) if $ENV{BLOOM_MODES};

$node->safe_psql('postgres', q{
	CREATE EXTENSION postgres_fdw;
	CREATE ROLE alice LOGIN;
	GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO alice;
	GRANT CREATE ON SCHEMA public TO alice;
});

# alice's servers, one per mode (the fake takes the mode from the dbname)
my $ddl = q{
	CREATE TABLE loc AS SELECT g * 5 AS k FROM generate_series(1, 1000) g;
	ANALYZE loc;
};
for my $mode (fake_remote_modes(), 'error_everywhere', 'fuzz')
{
	$ddl .= qq{
		CREATE SERVER s_$mode FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '127.0.0.1', port '$fake_port', dbname '$mode', extensions 'bloomfilter');
		CREATE USER MAPPING FOR alice SERVER s_$mode OPTIONS (user 'alice', password 'secret');
		CREATE FOREIGN TABLE f_$mode (id int, k int) SERVER s_$mode OPTIONS (table_name 't');
	};
}
$node->safe_psql('postgres', $ddl, extra_params => [ '-U', 'alice' ]);

my $start_time = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

sub as_alice
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	my $rc = $node->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		extra_params => [ '-U', 'alice' ]);
	return ($rc, $out, $err);
}

sub join_sql
{
	my ($mode) = @_;
	return "SELECT l.k, f.id FROM loc l JOIN f_$mode f ON f.k = l.k";
}

# what a remote's text may look like in a message: printable, bounded
sub clean_text
{
	my ($name, $err) = @_;
	ok($err !~ /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/, "$name: no control character reaches the client");
	ok(utf8::decode(my $copy = $err), "$name: the messages are valid UTF-8");
	my $longest = 0;
	for my $line (split /\n/, $err)
	{
		$longest = length($line) if length($line) > $longest;
	}
	cmp_ok($longest, '<', 1200, "$name: each message is bounded");
}

# ---- the control: a remote that answers well gets its filter -------------
{
	my ($rc, $plan, $err) = as_alice('SET client_min_messages = debug1; EXPLAIN (VERBOSE, COSTS OFF) '
		  . join_sql('good'));
	like($plan, qr/bloom filter of l\.k, added by bloomfilter\.join_pushdown/,
		'good remote: a filter') or diag($plan, $err);
	my (undef, $on) = as_alice('SET bloomfilter.join_pushdown = on; SELECT count(*), sum(id) FROM ('
		  . join_sql('good') . ') q');
	my (undef, $off) = as_alice('SET bloomfilter.join_pushdown = off; SELECT count(*), sum(id) FROM ('
		  . join_sql('good') . ') q');
	is($on, $off, 'good remote: the rows of the plain join');
}

# ---- every wrong answer -----------------------------------------------------
my ($rc0, $off0) = as_alice('SET bloomfilter.join_pushdown = off; SELECT count(*), sum(id) FROM ('
	  . join_sql('good') . ') q');
like($off0, qr/^400\|/, 'the plain join: 400 rows');
for my $mode (@bad)
{
	# the plan at DEBUG1, then the join, in one session
	my ($rc, $out, $err) = as_alice("SET client_min_messages = debug1; SET statement_timeout = '20s';"
		  . 'EXPLAIN (VERBOSE, COSTS OFF) ' . join_sql($mode) . ';'
		  . "SET client_min_messages = notice; SELECT 'rows', count(*), sum(id) FROM ("
		  . join_sql($mode) . ') q');
	is($rc, 0, "$mode: EXPLAIN and the join run") or diag($err);
	my ($on) = $out =~ /^rows\|(.*)$/m;
	my $plan = $out =~ s/^rows\|.*$//mr;
	unlike($plan, qr/join_pushdown/, "$mode: no filter") or diag($plan);
	like($err, qr/bloomfilter\.join_pushdown: .*(remote server|server) s_$mode\b/,
		"$mode: DEBUG1 names the remote") or diag($err);
	clean_text($mode, $err);
	note(join("\n", grep { /server s_/ } split /\n/, $err));
	is($on, $off0, "$mode: the plain join's rows");
}

# a remote that refuses every query: the plain join's error, on and off
{
	my ($rc_off, undef, $err_off) = as_alice('SET bloomfilter.join_pushdown = off; ' . join_sql('error_everywhere'));
	my ($rc_on, undef, $err_on) = as_alice('SET bloomfilter.join_pushdown = on; ' . join_sql('error_everywhere'));
	isnt($rc_off, 0, 'a remote that refuses everything: the plain join fails');
	is($rc_on, $rc_off, 'a remote that refuses everything: so does the join with the setting on');
	like($err_on, qr/the fake remote refuses everything/, 'a remote that refuses everything: with the same error');
}

# ---- a remote that never answers: the lookup's bound ------------------------
{
	my ($rc, $plan, $err) = as_alice("SET client_min_messages = debug1; SET statement_timeout = '4s';"
		  . 'EXPLAIN (VERBOSE, COSTS OFF) ' . join_sql('silence'));
	is($rc, 0, 'silence: EXPLAIN runs') or diag($err);
	like($err, qr/the remote did not answer within \d+ ms \(the lookup's bound\) \(server s_silence\)/, 'silence: DEBUG1 says the lookup timed out');
	my ($rc_on, $on) = as_alice("SET statement_timeout = '4s'; SELECT count(*), sum(id) FROM ("
		  . join_sql('silence') . ') q');
	is($on, $off0, "silence: the plain join's rows");
}

# ---- random answers, in one session -------------------------------------------
{
	my $script = "SET client_min_messages = debug1; SET statement_timeout = '2s';\n"
	  . "SELECT 'pid ' || pg_backend_pid();\n";
	for my $i (1 .. $fuzz_rounds)
	{
		$script .= "ALTER FOREIGN TABLE f_fuzz OPTIONS (SET table_name 't$i');\n"
		  . 'EXPLAIN (COSTS OFF) ' . join_sql('fuzz') . ";\n";
	}
	$script .= "SELECT 'pid ' || pg_backend_pid();\n"
	  . 'SELECT count(*), sum(id) FROM (' . join_sql('fuzz') . ") q;\n";
	my ($rc, $out, $err) = as_alice($script);
	is($rc, 0, "fuzz: $fuzz_rounds random answers, no error") or diag(substr($err, -2000));
	my @pids = $out =~ /^pid (\d+)$/mg;
	is(scalar(@pids), 2, 'fuzz: the session lived to the end');
	is($pids[0], $pids[1], 'fuzz: one backend all along');
	like($out, qr/^\Q$off0\E$/m, "fuzz: the plain join's rows at the end");
	my $asked = () = slurp_file($lookups) =~ /^fuzz$/mg;
	cmp_ok($asked, '>=', $fuzz_rounds, 'fuzz: every round asked the fake');
	clean_text('fuzz', $err);
	my %seen;
	$seen{$_ =~ s/\d+/N/gr}++ for $err =~ /(its answer is refused: [^(]*)/g;
	note("fuzz: $_ x $seen{$_}") for sort keys %seen;
}

# ---- the cluster never restarted ---------------------------------------------
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $start_time,
	'the postmaster never restarted');
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|was terminated|server process .* exited with exit code [^0]/,
	'no backend died');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"),
	'0', 'no backend is left over');

done_testing();
