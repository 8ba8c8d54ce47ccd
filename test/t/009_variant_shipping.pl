
# Shipping the newer value types between clusters, and Bloom-joins over
# postgres_fdw with the bloomfilter they give.  The types are listed in
# %types below (values built on one cluster, probes, info functions, and
# the Bloom-join scenarios); the shipping and comparing is shared, so a new
# type is a new entry.
#
# Every value built on "coord" travels to "remote" by COPY (FORMAT binary)
# to a file, psql COPY TO STDOUT | COPY FROM STDIN (binary), COPY (FORMAT
# text), a text literal, a bytea literal cast to the type, and a binary COPY
# of v::bytea into a column of the type.  Each way, on the remote it has the
# same bytes, the same info, and the same answer to every probe of a key
# set, which finds every key the value must hold.
#
# Bloom-joins: a countingbloom that tracks a key table through deletes
# (cbloom_to_bloom(c)) and a bloomwindow of timed events
# (bloom_window_filter(w, at), at two times) are shipped as a bloomfilter
# parameter; the predicate runs on the remote, the join returns exactly the
# exact join's rows (no false negatives), few rows cross, keys deleted or
# expired are pruned, and the remote counts the same rows with the filter
# given directly.  The value itself, shipped as its own type, finds every
# key and passes the same rows (countingbloom) or a subset of them
# (bloomwindow: the filter ORs the live buckets' bits, which adds false
# positives).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;

my $remote = start_node('remote');
my $coord  = start_node('coord');
my $dir    = $PostgreSQL::Test::Utils::tmp_check;
$_->safe_psql('postgres', "ALTER SYSTEM SET timezone = 'UTC'; SELECT pg_reload_conf()")
  for $remote, $coord;

my $N = 100_000;

# ---- the types ----------------------------------------------------------------
# Each type:
#   values   name => [SQL giving a value, SQL over v: true when v holds
#            every key it must, SQL over v: its answers to a key set]
#   info     SQL over v: its info functions' output as text
#   joins    Bloom-join scenarios, each:
#            setup   SQL run on coord (may use $N)
#            filter  SQL giving the filter to ship
#            param   its type, if not bloomfilter
#            value   SQL giving the value itself (for the remote's own count)
#            count   SQL over v (the value, a literal) and id: the value's
#                    own answer for id
#            union   the filter is the union of parts of the value, so it
#                    may pass more than the value does (never fewer)
#            keys    SQL giving the ids the join must find (distinct)
#            gone    SQL giving ids the filter should not pass (deleted or
#                    expired): at most a tenth may be passed
my %types;

$types{countingbloom} = {
	values => {
		c4_int => [
			'SELECT cbloom_agg(g, 3000, 0.01) - 7 - 11 FROM generate_series(1, 3000) g',
			'(SELECT bool_and(v @> g) FROM generate_series(1, 3000) g WHERE g NOT IN (7, 11))',
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(1, 6000) g)} ],
		c8_text_classic => [
			q{SELECT cbloom_empty_counters(8192, 5, 'classic', -7, 8) + 'a' + 'b' + 'b' + 'c' - 'c'},
			q{v @> 'a'::text AND v @> 'b'::text AND cbloom_count(v, 'b'::text) >= 2},
			q{(SELECT string_agg((v @> k)::int::text || cbloom_count(v, k), ',' ORDER BY k)
			   FROM (SELECT chr(97 + g % 26) || g AS k FROM generate_series(0, 2000) g
			         UNION ALL VALUES ('a'), ('b'), ('c')) s)} ],
		c4_empty => [ 'SELECT cbloom_empty(1000)', 'true',
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(1, 500) g)} ],
		c4_saturated => [
			q{SELECT cbloom_agg(k, 100, 0.01) FROM (SELECT 'x'::text AS k FROM generate_series(1, 40)
			   UNION ALL SELECT 'y' || g FROM generate_series(1, 100) g) s},
			q{cbloom_count(v, 'x'::text) = 15 AND (SELECT bool_and(v @> ('y' || g)) FROM generate_series(1, 100) g)},
			q{(SELECT string_agg(cbloom_count(v, 'y' || g)::text, ',' ORDER BY g) FROM generate_series(1, 1000) g)} ],
		c8_inet => [
			q{SELECT cbloom_agg(('10.1.' || g / 256 || '.' || g % 256)::inet, 2000, 0.001, 8)
			  FROM generate_series(1, 2000) g},
			q{(SELECT bool_and(v @> ('10.1.' || g / 256 || '.' || g % 256)::inet) FROM generate_series(1, 2000) g)},
			q{(SELECT string_agg((v @> ('10.1.' || g / 256 || '.' || g % 256)::inet)::int::text, '' ORDER BY g)
			   FROM generate_series(1, 8000) g)} ],
		# about 1 MB: toasted, and many network packets
		c8_big => [
			'SELECT cbloom_agg(g, 100000, 0.01, 8) FROM generate_series(1, 100000) g',
			'(SELECT bool_and(v @> g) FROM generate_series(1, 100000) g)',
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(90001, 130000) g)} ],
	},
	info => q{(SELECT row(i.*)::text FROM cbloom_info(v) i) || (SELECT row(i.*)::text FROM bloom_info(v::bloomfilter) i)},
	joins => [
		{
			name  => 'counting filter of a key table after deletes',
			setup => q{
				CREATE TABLE ckeys AS
				SELECT g * 101 AS id FROM generate_series(1, 950) g
				UNION ALL SELECT $N + g FROM generate_series(1, 50) g;
				CREATE TABLE cgone (id int);
				CREATE TABLE cf AS SELECT cbloom_agg(id, 1000, 0.01) AS c FROM ckeys;
				-- keys go away, and out of the counting filter, one by one
				DO $$
				DECLARE
					r record;
				BEGIN
					FOR r IN DELETE FROM ckeys WHERE id % 3 = 0 RETURNING id LOOP
						UPDATE cf SET c = c - r.id;
						INSERT INTO cgone VALUES (r.id);
					END LOOP;
				END $$;
				ANALYZE ckeys;},
			filter => 'SELECT cbloom_to_bloom(c) FROM cf',
			value  => 'SELECT c FROM cf',
			count  => 'v @> id',
			keys   => 'SELECT id FROM ckeys',
			gone   => 'SELECT id FROM cgone',
		},
	],
};

# events from 10:00 to 13:00, one every 3.6 s; a tenth of the ids are not
# on the remote
my $events = q{
	CREATE TABLE events AS
	SELECT CASE WHEN g % 10 = 0 THEN $N + g ELSE g * 31 END AS id,
	       timestamptz '2024-05-01 10:00+00' + g * interval '3.6 seconds' AS at
	FROM generate_series(0, 2999) g;
	CREATE TABLE wf AS
	SELECT bloom_window_agg(id, at, '1 hour', 6, 1000, 0.01) AS w FROM events;
};
# buckets of 10 minutes; the ring keeps the hour up to the newest bucket
# (12:50), and a probe at t looks at the hour up to t's bucket
sub live_at
{
	my ($at) = @_;
	return qq{SELECT DISTINCT id FROM events
		WHERE floor(extract(epoch FROM at) / 600) BETWEEN floor(extract(epoch FROM timestamptz '$at') / 600) - 5
		                                              AND floor(extract(epoch FROM timestamptz '$at') / 600)
		  AND floor(extract(epoch FROM at) / 600) > (SELECT floor(extract(epoch FROM max(at)) / 600) - 6 FROM events)};
}
sub gone_at
{
	my ($at) = @_;
	return "SELECT id FROM events EXCEPT " . live_at($at);
}

$types{bloomwindow} = {
	values => {
		w_int => [
			q{SELECT bloom_window_agg(g, timestamptz '2024-05-01 10:00+00' + g * interval '1 second',
			                          '1 hour', 6, 2000, 0.01) FROM generate_series(1, 7199) g},
			# the newest bucket is 11:50: the ring keeps 11:00-11:59:59, keys 3600..7199
			q{(SELECT bool_and(bloom_window_contains(v, g, '2024-05-01 11:59:59+00'))
			   FROM generate_series(3600, 7199) g)},
			q{(SELECT string_agg(bloom_window_contains(v, g, t)::int::text, '' ORDER BY t, g)
			   FROM generate_series(1, 8000, 3) g,
			        unnest(ARRAY[timestamptz '2024-05-01 11:00+00', '2024-05-01 11:30+00',
			                     '2024-05-01 12:00+00', '2024-05-01 12:30+00', '2024-05-01 13:00+00']) t)} ],
		# three of four slots used
		w_text_classic => [
			q{SELECT bloom_window_add(bloom_window_add(bloom_window_add(
			    bloom_window_empty('4 hours', 4, 50, 0.01, 'classic', 7),
			    'a'::text, '2024-05-01 10:00+00'), 'b'::text, '2024-05-01 11:30+00'),
			    'c'::text, '2024-05-01 13:59+00')},
			q{bloom_window_contains(v, 'a'::text, '2024-05-01 13:00+00') AND bloom_window_contains(v, 'b'::text, '2024-05-01 14:00+00')
			  AND bloom_window_contains(v, 'c'::text, '2024-05-01 14:00+00')},
			q{(SELECT string_agg(bloom_window_contains(v, k, t)::int::text, '' ORDER BY t, k)
			   FROM (SELECT chr(97 + g % 26) || CASE WHEN g < 26 THEN '' ELSE g::text END AS k
			         FROM generate_series(0, 500) g) s,
			        generate_series(timestamptz '2024-05-01 09:00+00', '2024-05-01 15:00+00', '30 minutes') t)} ],
		w_empty => [ q{SELECT bloom_window_empty('1 hour', 3, 10)}, 'true',
			q{(SELECT string_agg(bloom_window_contains(v, g, '2024-05-01 10:00+00')::int::text, '' ORDER BY g)
			   FROM generate_series(1, 100) g)} ],
		# negative bucket numbers (before 2000-01-01) and bucket 0
		w_inet_2000 => [
			q{SELECT bloom_window_agg(('10.0.0.' || g)::inet,
			                          timestamptz '1999-12-31 22:00+00' + g * interval '5 minutes',
			                          '2 hours', 4, 50, 0.01) FROM generate_series(1, 30) g},
			# buckets of 30 minutes, the newest 00:30: the ring keeps 23:00-00:59:59
			q{(SELECT bool_and(bloom_window_contains(v, ('10.0.0.' || g)::inet, '2000-01-01 00:30+00'))
			   FROM generate_series(12, 30) g)},
			q{(SELECT string_agg(bloom_window_contains(v, ('10.0.' || g / 256 || '.' || g % 256)::inet, t)::int::text, ''
			                     ORDER BY t, g)
			   FROM generate_series(1, 2000) g,
			        generate_series(timestamptz '1999-12-31 21:00+00', '2000-01-01 03:00+00', '1 hour') t)} ],
		# 24 buckets of 1 hour, each sized for 20000 keys: over a megabyte
		w_big => [
			q{SELECT bloom_window_agg(md5(g::text), timestamptz '2024-01-01 00:00+00' + g * interval '1 second',
			                          '1 day', 24, 20000, 0.01) FROM generate_series(1, 86399, 2) g},
			q{(SELECT bool_and(bloom_window_contains(v, md5(g::text), '2024-01-01 23:59:59+00'))
			   FROM generate_series(1, 86399, 2) g)},
			q{(SELECT string_agg(bloom_window_contains(v, md5(g::text), t)::int::text, '' ORDER BY t, g)
			   FROM generate_series(1, 20000) g,
			        unnest(ARRAY[timestamptz '2024-01-01 12:00+00', '2024-01-02 00:00+00', '2024-01-02 12:00+00']) t)} ],
	},
	info => q{(SELECT row(p.*)::text FROM bloom_window_params(v) p)
	          || (SELECT string_agg(row(i.*)::text, ';' ORDER BY slot)
	              FROM bloom_window_info(v, coalesce((bloom_window_params(v)).newest_end, now())) i)},
	joins => [
		map {
			my $at = $_;
			{
				name   => "window of timed events probed at $at",
				setup  => $at =~ /12:59/ ? $events : '',
				filter => "SELECT bloom_window_filter(w, '$at') FROM wf",
				value  => 'SELECT w FROM wf',
				count  => "bloom_window_contains(v, id, '$at')",
				union  => 1,
				keys   => live_at($at),
				gone   => gone_at($at),
			}
		} ('2024-05-01 12:59:59+00', '2024-05-01 12:25+00')
	],
};

$types{scalablebloom} = {
	values => {
		# grown from 100 to six sub-filters
		s_int_grown => [
			'SELECT bloom_add_all(sbloom_empty(100), ARRAY(SELECT g FROM generate_series(1, 5000) g))',
			'(SELECT bool_and(v @> g) FROM generate_series(1, 5000) g)',
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(1, 20000) g)} ],
		s_text_classic_g4 => [
			q{SELECT bloom_add_all(sbloom_empty(20, 0.05, 4, 0.5, 'classic', -7),
			                       ARRAY(SELECT 'k' || g FROM generate_series(1, 3000) g))},
			q{(SELECT bool_and(v @> ('k' || g)) FROM generate_series(1, 3000) g)},
			q{(SELECT string_agg((v @> ('k' || g))::int::text, '' ORDER BY g) FROM generate_series(1, 9000) g)} ],
		s_empty => [ 'SELECT sbloom_empty(100)', 'true',
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(1, 500) g)} ],
		s_union_agg => [
			q{SELECT bloom_union_agg(s) FROM (SELECT bloom_add_all(sbloom_empty(50), ARRAY(SELECT g FROM generate_series(i * 1000, i * 1000 + 300) g)) AS s
			   FROM generate_series(1, 4) i) t},
			q{(SELECT bool_and(v @> g) FROM generate_series(1, 4) i, generate_series(i * 1000, i * 1000 + 300) g)},
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(1, 6000) g)} ],
		# about 1 MB
		s_big => [ 'SELECT sbloom_agg(g) FROM generate_series(1, 400000) g',
			'(SELECT bool_and(v @> g) FROM generate_series(1, 400000) g)',
			q{(SELECT string_agg((v @> g)::int::text, '' ORDER BY g) FROM generate_series(390001, 440000) g)} ],
	},
	info => q{(SELECT row(i.*)::text FROM bloom_info(v) i) || (SELECT row(s.*)::text FROM sbloom_settings(v) s)
	          || (SELECT string_agg(row(f.*)::text, ';' ORDER BY index) FROM sbloom_filters(v) f)},
	joins => [
		{
			name  => 'scalable filter of a key table that outgrew its first size',
			setup => q{
				CREATE TABLE skeys AS
				SELECT g * 37 AS id FROM generate_series(1, 2500) g
				UNION ALL SELECT $N + g FROM generate_series(1, 100) g;
				CREATE TABLE sf AS SELECT bloom_add_all(sbloom_empty(200), array_agg(id ORDER BY id)) AS s FROM skeys;
				CREATE TABLE sgone AS SELECT g * 37 + 1 AS id FROM generate_series(1, 2500) g;},
			filter => 'SELECT s FROM sf',
			param  => 'scalablebloom',
			value  => 'SELECT s FROM sf',
			count  => 'v @> id',
			keys   => 'SELECT id FROM skeys',
			gone   => 'SELECT id FROM sgone',
		},
	],
};

# a type this build does not have yet (scalablebloom before its merge) is
# left out, and said so
my @type_names = grep {
	my $have = $coord->safe_psql('postgres', "SELECT to_regtype('$_') IS NOT NULL") eq 't';
	note("$_: not in this build, not tested") unless $have;
	$have;
} sort keys %types;

# ---- the values, built on coord --------------------------------------------------------
$remote->safe_psql('postgres', qq{
	CREATE TABLE big AS SELECT g AS id, md5(g::text) AS payload FROM generate_series(1, $N) g;
	ANALYZE big;});
for my $t (@type_names)
{
	my $vals = $types{$t}{values};
	$_->safe_psql('postgres', "CREATE TABLE ship_$t (name text PRIMARY KEY, v $t)") for $coord, $remote;
	$coord->safe_psql('postgres',
		join('', map { "INSERT INTO ship_$t VALUES ('$_', ($vals->{$_}[0]));" } sort keys %$vals));
}

# what a cluster says of every value of a type: name, md5 of the bytes,
# whether it holds its keys, md5 of its info, md5 of its probe answers, and
# whether those answers are both true and false
sub describe
{
	my ($node, $t) = @_;
	my $vals = $types{$t}{values};
	return join("\n", map {
		my $n = $_;
		$n . ' ' . $node->safe_psql('postgres', qq{
			SELECT concat_ws(' ', md5(v::bytea), h, md5(i), md5(p), p ~ '0' AND p ~ '1')
			FROM (SELECT v, ($vals->{$n}[1]) AS h, $types{$t}{info} AS i, $vals->{$n}[2] AS p
			      FROM ship_$t WHERE name = '$n') s});
	} sort keys %$vals);
}

my %truth;
for my $t (@type_names)
{
	$truth{$t} = describe($coord, $t);
	my @lines = split /\n/, $truth{$t};
	is(scalar(@lines), scalar(keys %{ $types{$t}{values} }), "$t: every value is built on coord");
	is(join("\n", grep { !/^\S+ [0-9a-f]{32} t [0-9a-f]{32} [0-9a-f]{32} [tf]$/ } @lines), '',
		"$t: every value holds its keys");
	# the probes are not trivial: they answer both true and false
	is(join("\n", grep { !/empty/ && !/ t$/ } @lines), '',
		"$t: every non-empty value's probes answer both true and false");
}

# ---- the ways across ---------------------------------------------------------------------
# each: name => sub(type) that fills remote's ship_<type> from coord's
my %ways = (
	'COPY (FORMAT binary) through a file' => sub {
		my ($t) = @_;
		$coord->safe_psql('postgres', "COPY ship_$t TO '$dir/$t.bin' (FORMAT binary)");
		$remote->safe_psql('postgres', "COPY ship_$t FROM '$dir/$t.bin' (FORMAT binary)");
	},
	'COPY (FORMAT text) through a file' => sub {
		my ($t) = @_;
		$coord->safe_psql('postgres', "COPY ship_$t TO '$dir/$t.txt' (FORMAT text)");
		$remote->safe_psql('postgres', "COPY ship_$t FROM '$dir/$t.txt' (FORMAT text)");
	},
	'psql COPY TO STDOUT | COPY FROM STDIN, binary' => sub {
		my ($t) = @_;
		my $err = '';
		IPC::Run::run(
			[ 'psql', '-X', '-d', $coord->connstr('postgres'), '-c', "COPY ship_$t TO STDOUT (FORMAT binary)" ],
			'|',
			[ 'psql', '-X', '-d', $remote->connstr('postgres'), '-c', "COPY ship_$t FROM STDIN (FORMAT binary)" ],
			'>', \my $out, '2>', \$err)
		  or die "piped COPY failed: $err";
	},
	'text literal' => sub {
		my ($t) = @_;
		for my $row (split /\n/, $coord->safe_psql('postgres', "SELECT name, v FROM ship_$t"))
		{
			my ($n, $text) = split /\|/, $row;
			$remote->safe_psql('postgres', "INSERT INTO ship_$t VALUES ('$n', '$text')");
		}
	},
	'bytea literal cast to the type' => sub {
		my ($t) = @_;
		for my $row (split /\n/, $coord->safe_psql('postgres', "SELECT name, encode(v::bytea, 'hex') FROM ship_$t"))
		{
			my ($n, $hex) = split /\|/, $row;
			$remote->safe_psql('postgres', "INSERT INTO ship_$t VALUES ('$n', '\\x$hex'::bytea::$t)");
		}
	},
	# bytea's binary form is its bytes, which is what the type's recv reads
	'binary COPY of v::bytea into a column of the type' => sub {
		my ($t) = @_;
		$coord->safe_psql('postgres',
			"COPY (SELECT name, v::bytea FROM ship_$t) TO '$dir/$t-bytea.bin' (FORMAT binary)");
		$remote->safe_psql('postgres', "COPY ship_$t FROM '$dir/$t-bytea.bin' (FORMAT binary)");
	},
);

for my $t (@type_names)
{
	for my $way (sort keys %ways)
	{
		$remote->safe_psql('postgres', "TRUNCATE ship_$t");
		$ways{$way}->($t);
		is(describe($remote, $t), $truth{$t},
			"$t, $way: every value arrives with the same bytes, info and probe answers");
	}
}

# the binary COPY field is the portable format itself
for my $t (@type_names)
{
	my $hex = $coord->safe_psql('postgres',
		"SELECT encode(v::bytea, 'hex') FROM ship_$t ORDER BY octet_length(v::bytea) LIMIT 1");
	ok(index(slurp_file("$dir/$t.bin"), pack('H*', $hex)) >= 0,
		"$t: the binary COPY file holds the portable bytes (v::bytea)");
}

# the comparison can fail: a value changed on the remote is noticed
{
	my $t = 'countingbloom';
	$remote->safe_psql('postgres', "UPDATE ship_$t SET v = v + 424242 WHERE name = 'c4_int'");
	isnt(describe($remote, $t), $truth{$t}, 'control: a value changed on the remote does not compare equal');
}

# ---- Bloom-joins over postgres_fdw ---------------------------------------------------------
my $rport = $remote->port;
$coord->safe_psql('postgres', qq{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER remote_srv FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '127.0.0.1', port '$rport', dbname 'postgres', extensions 'bloomfilter');
	CREATE USER MAPPING FOR CURRENT_USER SERVER remote_srv;
	CREATE FOREIGN TABLE remote_big (id int, payload text) SERVER remote_srv OPTIONS (table_name 'big');});

sub fscan_rows
{
	my ($plan) = @_;
	return $plan =~ /Foreign Scan on \S*remote_big\b.*?\(actual rows=(\d+)/ ? $1 : undef;
}

for my $t (@type_names)
{
	for my $j (@{ $types{$t}{joins} })
	{
		my $label = "$t, $j->{name}";
		(my $setup = $j->{setup}) =~ s/\$N\b/$N/g;
		$coord->safe_psql('postgres', $setup) if $setup;

		my $exact_q = qq{SELECT k.id, r.payload FROM ($j->{keys}) k JOIN remote_big r ON r.id = k.id};
		my $bloom_q = "$exact_q WHERE r.id <\@ ($j->{filter})";
		my $plan = $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $bloom_q");
		my $param = $j->{param} // 'bloomfilter';
		like($plan,
			qr/Remote SQL: SELECT id, payload FROM public\.big WHERE \(\(id OPERATOR\(public\.<\@\) \$\d+::public\.\Q$param\E\)\)/,
			"$label: the filter goes to the remote as a $param parameter") or diag($plan);
		unlike($plan, qr/^\s*Filter:.*<\@/m, "$label: no part of the predicate runs locally");

		my $exact = $coord->safe_psql('postgres', "$exact_q ORDER BY 1");
		my $bloom = $coord->safe_psql('postgres', "$bloom_q ORDER BY 1");
		my $nexact = scalar(split /\n/, $exact);
		my $exact_ids = join(',', map { (split /\|/)[0] } split /\n/, $exact) || 'NULL';
		ok($nexact >= 200, "$label: the exact join finds $nexact rows");
		is($bloom, $exact, "$label: the Bloom-join returns exactly the exact join's rows (no false negatives)");

		my $fetched = fscan_rows($coord->safe_psql('postgres',
			"EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) $bloom_q"));
		ok(defined $fetched && $fetched >= $nexact && $fetched <= $nexact + 0.03 * $N,
			"$label: the Foreign Scan fetches " . ($fetched // 'undef') . " rows, not $N");

		# deleted or expired keys are pruned on the remote
		my ($ngone, $passed) = split /\|/, $coord->safe_psql('postgres', qq{
			SELECT count(*), count(*) FILTER (WHERE id IN (SELECT id FROM remote_big WHERE id <\@ ($j->{filter})))
			FROM ($j->{gone}) g WHERE id <= $N});
		ok($ngone >= 100 && $passed <= $ngone / 10,
			"$label: of $ngone keys deleted, expired or never added that the remote holds, the filter passes $passed");

		# the remote counts the same rows with the filter given directly; the
		# value itself, shipped as its own type, passes the same rows (or,
		# when the filter is a union of its parts, a subset of them that
		# still holds every key)
		my $ftext = $coord->safe_psql('postgres', $j->{filter});
		my $vtext = $coord->safe_psql('postgres', $j->{value});
		(my $count = $j->{count}) =~ s/\bv\b/'$vtext'::$t/g;
		my ($by_filter, $by_value, $value_only, $keys_missed) = split /\|/, $remote->safe_psql('postgres', qq{
			SELECT count(*) FILTER (WHERE id <\@ '$ftext'::$param),
			       count(*) FILTER (WHERE $count),
			       count(*) FILTER (WHERE $count AND NOT id <\@ '$ftext'::$param),
			       count(*) FILTER (WHERE id IN ($exact_ids) AND NOT $count)
			FROM big});
		is($by_filter, $fetched, "$label: the remote keeps the same $fetched rows with the filter as a literal");
		is("$value_only $keys_missed", '0 0',
			"$label: the $t itself, shipped as a literal, passes no row the filter does not, and every key");
		if ($j->{union})
		{
			ok($by_value <= $by_filter && $by_value >= $nexact,
				"$label: the $t itself passes $by_value rows, between the exact $nexact and the filter's $by_filter");
		}
		else
		{
			is($by_value, $by_filter, "$label: the $t itself passes the same $by_filter rows");
		}
	}
}

# the parameter travelled as a bloomfilter's text form (base64 of "BLMF", version 1)
like(slurp_file($remote->logfile),
	qr/DECLARE c\d+ CURSOR FOR\s+SELECT id, payload FROM public\.big WHERE \(\(id OPERATOR\(public\.<\@\) \$1::public\.bloomfilter\)\).*\n.*[Pp]arameters: \$1 = 'QkxNRgEA/,
	'the remote received the filter as a text parameter');

done_testing();
