# Automatic Bloom-joins at a newcomer's edges (issue #27, item 4): a filter
# never raises an ERROR the plain join lacks and never changes what a later
# statement sees.  Every join is run with the setting off and on, results
# compared, and the filter's absence (or presence) and its DEBUG1 reason
# checked:
#
#  - a remote without bloomfilter, with it in another schema, or whose key
#    column is of another family than the one declared (numeric over
#    integer): no filter (they raised "type public.bloomfilter does not
#    exist" and "the filter holds keys of family numeric");
#  - keys whose key bytes can raise an ERROR: jsonb nested deep enough for
#    the recursive key bytes to exceed the stack, text in a database whose
#    encoding has no total conversion to UTF-8 (MULE_INTERNAL), and text on
#    a remote of such an encoding;
#  - the remote lookup made at planning time does not take the remote
#    snapshot of the scan's transaction (BEGIN; EXPLAIN; a remote commit;
#    a count saw the remote as it was at the EXPLAIN);
#  - a role that may not read the foreign table gets "permission denied",
#    no remote size at DEBUG1 and no connection made for it;
#  - bloom_info(bloom_agg(x)) and cbloom_info(...) pushed down to a remote
#    (issue #27, item 6): their rows are read back as named types.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $remote = start_node('remote');
$remote->append_conf('postgresql.conf', "log_connections = on\n");
$remote->restart;
my $coord = start_node('coord');
$coord->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n");
$coord->restart;
my $port = $remote->port;

# ---- the remote: one database per case ------------------------------------
my $events = q{
	CREATE TABLE events AS
	SELECT g AS id, g % 10000 AS customer_id, 'k' || (g % 10000) AS t,
	       jsonb_build_array(g % 10000) AS j
	FROM generate_series(1, 30000) g;
	ANALYZE events;
};
$remote->safe_psql('postgres', $events . q{
	CREATE TABLE growing AS SELECT g AS id, g % 10000 AS customer_id FROM generate_series(1, 50000) g;
});
$remote->safe_psql('postgres', 'CREATE DATABASE noext');
$remote->safe_psql('noext', $events);
$remote->safe_psql('postgres', 'CREATE DATABASE otherschema');
$remote->safe_psql('otherschema', 'CREATE SCHEMA bf; CREATE EXTENSION bloomfilter SCHEMA bf;' . $events);
$remote->safe_psql('postgres',
	"CREATE DATABASE win ENCODING 'WIN1252' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
$remote->safe_psql('win', 'CREATE EXTENSION bloomfilter;' . $events);
# postgres_fdw connects a MULE_INTERNAL database only to another (no
# conversion to or from UTF-8)
$remote->safe_psql('postgres',
	"CREATE DATABASE mule ENCODING 'MULE_INTERNAL' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
$remote->safe_psql('mule', 'CREATE EXTENSION bloomfilter;' . $events);

# ---- the coordinator ---------------------------------------------------------
my $servers = '';
for my $db (qw(postgres noext otherschema win))
{
	$servers .= qq{
		CREATE SERVER r_$db FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '127.0.0.1', port '$port', dbname '$db', extensions 'bloomfilter');
		CREATE USER MAPPING FOR PUBLIC SERVER r_$db
			OPTIONS (user 'postgres', password_required 'false');
		CREATE FOREIGN TABLE events_$db (id int, customer_id int, t text, j jsonb)
			SERVER r_$db OPTIONS (table_name 'events');
	};
}
my $setup = qq{
	CREATE EXTENSION IF NOT EXISTS postgres_fdw;
	CREATE EXTENSION IF NOT EXISTS dblink;
	$servers
	-- declared numeric over a remote integer; int8 over integer hashes alike
	CREATE FOREIGN TABLE events_num (id int, customer_id numeric)
		SERVER r_postgres OPTIONS (table_name 'events');
	CREATE FOREIGN TABLE events_i8 (id int, customer_id int8)
		SERVER r_postgres OPTIONS (table_name 'events');
	-- never analyzed here: its size is asked of the remote at planning time
	CREATE FOREIGN TABLE growing (id int, customer_id int) SERVER r_postgres;
	ANALYZE events_postgres, events_noext, events_otherschema, events_win, events_num, events_i8;

	-- 250 customers that exist remotely, 40 that do not, a NULL
	CREATE TABLE vip (customer_id int, n numeric, i8 int8, t text, j jsonb);
	INSERT INTO vip SELECT g * 7, g * 7, g * 7, 'k' || (g * 7), jsonb_build_array(g * 7)
		FROM generate_series(1, 250) g;
	INSERT INTO vip SELECT 20000 + g, 20000 + g, 20000 + g, 'x' || g, jsonb_build_array(20000 + g)
		FROM generate_series(1, 40) g;
	INSERT INTO vip VALUES (NULL, NULL, NULL, NULL, NULL);
	ANALYZE vip;
};
$coord->safe_psql('postgres', $setup);

# ---- helpers ----------------------------------------------------------------
sub rows_of
{
	my ($node, $db, $sql, $setting) = @_;
	return $node->safe_psql($db,
		"SET bloomfilter.join_pushdown = $setting; SELECT q::text FROM ($sql) q ORDER BY 1");
}

sub has_filter
{
	my ($plan) = @_;
	return $plan =~ /bloom filter of .*, added by bloomfilter\.join_pushdown/
	  && $plan =~ /Remote SQL: .*(?:<@|bloomfilter_join_probe)/;
}

sub no_filter
{
	my ($plan) = @_;
	return $plan !~ /bloomfilter\.join_pushdown/ && $plan !~ /<@|bloomfilter_join_probe/;
}

# the plan, DEBUG1 and the rows off and on of one join; the rows must agree
sub check_join
{
	my ($name, $sql, $want_filter, $reason, %o) = @_;
	my $node = $o{node} // $coord;
	my $db = $o{db} // 'postgres';
	my ($plan, $err) = ('', '');
	$node->psql($db, "SET client_min_messages = debug1; EXPLAIN (VERBOSE, COSTS OFF) $sql",
		stdout => \$plan, stderr => \$err);
	if ($want_filter)
	{
		ok(has_filter($plan), "$name: a filter") or diag($plan, $err);
	}
	else
	{
		ok(no_filter($plan), "$name: no filter") or diag($plan, $err);
	}
	like($err, $reason, "$name: DEBUG1 says why") if defined $reason;
	my ($on, $on_err) = ('', '');
	my $rc = $node->psql($db,
		"SET bloomfilter.join_pushdown = on; SELECT q::text FROM ($sql) q ORDER BY 1",
		stdout => \$on, stderr => \$on_err);
	is($rc, 0, "$name: no error with the setting on") or diag($on_err);
	my $off = rows_of($node, $db, $sql, 'off');
	ok(length($off) > 0, "$name: the join has rows");
	is($on, $off, "$name: the same rows on and off");
}

# ---- 4a. what the remote is ---------------------------------------------------
check_join('remote with bloomfilter (control)',
	'SELECT v.customer_id, e.id FROM vip v JOIN events_postgres e USING (customer_id)', 1);
check_join('remote without bloomfilter',
	'SELECT v.customer_id, e.id FROM vip v JOIN events_noext e USING (customer_id)', 0,
	qr/no filter on customer_id of relation events_noext: the remote of events_noext has no bloomfilter extension/);
check_join('bloomfilter in another schema on the remote',
	'SELECT v.customer_id, e.id FROM vip v JOIN events_otherschema e USING (customer_id)', 0,
	qr/bloomfilter is in schema bf on the remote of events_otherschema and in public here/);
check_join('numeric declared over a remote integer',
	'SELECT v.n, e.id FROM vip v JOIN events_num e ON e.customer_id = v.n', 0,
	qr/the remote column customer_id of events_num is of type pg_catalog\.int4, whose keys do not hash as those of the declared numeric/);
check_join('int8 declared over a remote integer (one family)',
	'SELECT v.i8, e.id FROM vip v JOIN events_i8 e ON e.customer_id = v.i8', 1);

# ---- 4b. keys whose key bytes can raise an ERROR -------------------------------
# jsonb nested 30,000 levels (made under a larger max_stack_depth: its
# input parser recurses too): = and its hash walk it iteratively, so the
# plain join answers under the default 2MB; the key bytes recurse
$coord->safe_psql('postgres', q{
	SET max_stack_depth = '7MB';
	CREATE TABLE deep (j jsonb);
	INSERT INTO deep SELECT j FROM vip WHERE j IS NOT NULL;
	INSERT INTO deep SELECT (repeat('[', 30000) || '1' || repeat(']', 30000))::jsonb;
	ANALYZE deep;
});
check_join('a jsonb key nested 30,000 levels',
	'SELECT e.id FROM deep d JOIN events_postgres e ON e.j = d.j', 0,
	qr/jsonb key bytes are built recursively/);

# text keys in a MULE_INTERNAL database (no conversion to UTF-8)
$coord->safe_psql('postgres',
	"CREATE DATABASE mule ENCODING 'MULE_INTERNAL' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
$coord->safe_psql('mule', qq{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER r FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'mule', extensions 'bloomfilter');
	CREATE USER MAPPING FOR PUBLIC SERVER r OPTIONS (user 'postgres', password_required 'false');
	CREATE FOREIGN TABLE events (id int, customer_id int, t text) SERVER r;
	ANALYZE events;
	CREATE TABLE vip (t text);
	INSERT INTO vip SELECT 'k' || (g * 7) FROM generate_series(1, 250) g;
	-- a LATIN1 e-acute in MULE_INTERNAL
	INSERT INTO vip VALUES (convert_from('\\x81e9', 'MULE_INTERNAL'));
	ANALYZE vip;
});
check_join('text keys in a MULE_INTERNAL database',
	'SELECT e.id FROM vip v JOIN events e ON e.t = v.t', 0,
	qr/the database's encoding MULE_INTERNAL has text that does not convert to UTF-8/,
	db => 'mule');
check_join('text keys on a WIN1252 remote',
	'SELECT e.id FROM vip v JOIN events_win e ON e.t = v.t', 0,
	qr/the remote database of events_win has encoding WIN1252/);
check_join('integer keys on a WIN1252 remote keep their filter',
	'SELECT v.customer_id, e.id FROM vip v JOIN events_win e USING (customer_id)', 1);

# ---- 4c. the remote snapshot ---------------------------------------------------
# In one transaction: EXPLAIN (which sizes the never-analyzed table from the
# remote), then a remote commit of 10,000 more rows, then a count: the plain
# plan's remote transaction takes its snapshot at the count.
for my $setting (qw(off on))
{
	$remote->safe_psql('postgres', 'DELETE FROM growing WHERE id > 50000');
	my ($out, $err) = ('', '');
	$coord->psql('postgres', qq{
		SET bloomfilter.join_pushdown = $setting;
		SET client_min_messages = debug1;
		BEGIN;
		EXPLAIN (COSTS OFF) SELECT v.customer_id, g.id FROM vip v JOIN growing g USING (customer_id);
		SELECT dblink_exec('host=127.0.0.1 port=$port dbname=postgres',
			'INSERT INTO growing SELECT g, g % 10000 FROM generate_series(50001, 60000) g');
		SELECT count(*) FROM growing;
		COMMIT;
	}, stdout => \$out, stderr => \$err);
	like($err, qr/relation growing was never analyzed: the remote has about \d+ rows/,
		'the snapshot: the lookup ran at the EXPLAIN') if $setting eq 'on';
	like($out, qr/^60000$/m, "the snapshot: a count after a remote commit sees it (setting $setting)")
	  or diag($out, $err);
}

# ---- 4d. a role that may not read the table -----------------------------------
$coord->safe_psql('postgres', q{
	CREATE ROLE nopriv LOGIN;
	GRANT SELECT ON vip TO nopriv;
	CREATE FOREIGN TABLE growing2 (id int, customer_id int) SERVER r_postgres OPTIONS (table_name 'growing');
});
{
	my $logfile = $remote->logfile;
	my $before = () = slurp_file($logfile) =~ /application_name=bloomfilter/g;
	my ($out, $err) = ('', '');
	$coord->psql('postgres', q{
		SET ROLE nopriv;
		SET client_min_messages = debug1;
		SELECT count(*) FROM vip v JOIN growing2 g USING (customer_id);
	}, stdout => \$out, stderr => \$err);
	like($err, qr/permission denied for foreign table growing2/, 'no privilege: permission denied');
	unlike($err, qr/the remote has about/, 'no privilege: no remote size at DEBUG1');
	like($err, qr/no filter for relation growing2: its remote is not asked for a user who may not read it all/,
		'no privilege: DEBUG1 says the remote was not asked');
	my $after = () = slurp_file($logfile) =~ /application_name=bloomfilter/g;
	is($after, $before, 'no privilege: no connection made on its behalf');

	# the same role, once granted, gets the lookup (the control)
	$coord->safe_psql('postgres', 'GRANT SELECT ON growing2 TO nopriv');
	($out, $err) = ('', '');
	$coord->psql('postgres', q{
		SET ROLE nopriv;
		SET client_min_messages = debug1;
		EXPLAIN SELECT count(*) FROM vip v JOIN growing2 g USING (customer_id);
	}, stdout => \$out, stderr => \$err);
	like($err, qr/relation growing2 was never analyzed: the remote has about \d+ rows/,
		'granted: the remote is asked');
	$after = () = slurp_file($logfile) =~ /application_name=bloomfilter/g;
	cmp_ok($after, '>', $before, 'granted: the lookup connects, as application bloomfilter');
}

# ---- item 6: bloom_info and cbloom_info pushed down ---------------------------
# The whole row is shipped (a field of it is not: FieldSelect stays here) and read back from
# its text: "input of anonymous composite types is not implemented" when it
# was a record.
for my $f (
	[ 'bloom_info', 'bloom_agg(customer_id)', 'bloom_agg\\(customer_id\\)' ],
	[ 'cbloom_info', 'cbloom_agg(customer_id, 100000, 0.01)', 'cbloom_agg\\(customer_id, ' ])
{
	my ($info, $agg, $re) = @$f;
	my $q = "SELECT $info($agg) FROM events_postgres";
	like($coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $q"),
		qr/Remote SQL: SELECT public\.$info\(public\.$re/, "$info($agg) is pushed down");
	my ($out, $err) = ('', '');
	my $rc = $coord->psql('postgres', $q, stdout => \$out, stderr => \$err);
	is($rc, 0, "$info($agg) pushed down: no error") or diag($err);
	is($out,
		$coord->safe_psql('postgres', "SELECT $info($agg) FROM (SELECT customer_id FROM events_postgres OFFSET 0) s"),
		"$info($agg) pushed down: the row computed here");
}

# ---- item 11: preloaded in a database without the extension -------------------
$coord->safe_psql('postgres', 'CREATE DATABASE bare');
$coord->safe_psql('bare', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER r FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres');
	CREATE USER MAPPING FOR PUBLIC SERVER r OPTIONS (user 'postgres', password_required 'false');
	CREATE FOREIGN TABLE events (id int, customer_id int) SERVER r;
	CREATE TABLE vip AS SELECT g * 7 AS customer_id FROM generate_series(1, 250) g;
});
is($coord->safe_psql('bare', 'SHOW bloomfilter.join_pushdown'),
	'on (inactive: the extension is not created in this database)',
	'preloaded, no extension in the database: SHOW says inactive and why');
is($coord->safe_psql('postgres', 'SHOW bloomfilter.join_pushdown'), 'on',
	'preloaded, the extension created: SHOW says on');
{
	my ($out, $err) = ('', '');
	$coord->psql('bare',
		'SET client_min_messages = debug1; EXPLAIN SELECT e.id FROM vip v JOIN events e USING (customer_id)',
		stdout => \$out, stderr => \$err);
	like($err, qr/no filter for relation events: the extension bloomfilter is not created in this database/,
		'preloaded, no extension in the database: DEBUG1 says why there is no filter');
}

done_testing();
