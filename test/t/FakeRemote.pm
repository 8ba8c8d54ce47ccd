# FakeRemote.pm: a fake PostgreSQL server on loopback that speaks enough of
# the v3 protocol for libpq, postgres_fdw and the automatic Bloom-join's
# lookup (src/autojoin/bf_autojoin_remote.c), and answers the lookup as a
# hostile or broken remote would.
#
# Startup: SSL and GSS requests are refused ('N'), then a cleartext password
# is asked (so that a user mapping of a user who is not a superuser, which
# must give a password that the remote asks for, works), then
# ParameterStatus, BackendKeyData and ReadyForQuery.  Then simple queries
# ('Q') and the extended protocol (Parse, Bind, Describe, Execute, Sync,
# Close, Flush) as postgres_fdw sends them: SET, START TRANSACTION, DECLARE,
# FETCH, CLOSE, COMMIT, ABORT answer as a server would, the FETCH with rows
# of a table (id int, k int) whose k runs 1..rows.
#
# The lookup (a simple query naming pg_extension) is answered by the mode,
# taken from the database name the connection asks for (the foreign
# server's dbname option): 'good' answers as a real remote would, the other
# modes (see %modes below) answer wrongly, and 'fuzz' mutates the good
# answer at random, seeded by the remote table's name that the lookup names
# (public.tNNN: seed NNN).  Every lookup connection appends its database
# name to the file given, so that a test can count them.  The database
# 'silent_connect' is never answered at all, not even its startup.
package FakeRemote;

use strict;
use warnings;
use IO::Socket::INET;
use POSIX ();
use Exporter 'import';

our @EXPORT = qw(fake_remote_start fake_remote_stop fake_remote_modes);

# type oids of the lookup's columns
my ($BOOL, $CHAR, $NAME, $INT8, $INT4, $TEXT, $FLOAT4) = (16, 18, 19, 20, 23, 25, 700);

sub msg
{
	my ($type, $body) = @_;
	return $type . pack('N', length($body) + 4) . $body;
}

# A result set: [ [name, typeoid], ... ], rows of values (undef: NULL).
sub rowdesc
{
	my (@cols) = @_;
	my $b = pack('n', scalar @cols);
	for my $c (@cols)
	{
		my ($n, $t, $fmt) = @$c;
		$b .= "$n\0" . pack('NnNnNn', 0, 0, $t, 0xffff, 0xffffffff, $fmt // 0);
	}
	return msg('T', $b);
}

sub datarow
{
	my (@vals) = @_;
	my $b = pack('n', scalar @vals);
	for my $v (@vals)
	{
		$b .= defined $v ? pack('N', length($v)) . $v : pack('N', 0xffffffff);
	}
	return msg('D', $b);
}

sub complete { return msg('C', "$_[0]\0"); }
sub ready    { return msg('Z', $_[0] // 'I'); }

sub error
{
	my ($text, $code) = @_;
	$code //= 'XX000';
	return msg('E', "SERROR\0VERROR\0C$code\0M$text\0\0");
}

sub result_set
{
	my ($cols, @rows) = @_;
	my $out = rowdesc(@$cols);
	$out .= datarow(@$_) for @rows;
	return $out . complete('SELECT ' . scalar(@rows));
}

# The three answers of a good remote (bloomfilter 1.1 in public, UTF8, a
# table of a million rows whose columns are id and k, both integer).
sub good_sets
{
	return (
		[ [ [ 'getdatabaseencoding', $NAME ], [ 'nspname', $NAME ], [ 'extversion', $TEXT ] ],
			[ 'UTF8', 'public', '1.1' ] ],
		[ [ [ 'attname', $NAME ], [ 'nspname', $NAME ], [ 'typname', $NAME ], [ 'deterministic', $BOOL ] ],
			[ 'id', 'pg_catalog', 'int4', 't' ], [ 'k', 'pg_catalog', 'int4', 't' ] ],
		[ [ [ 'relkind', $CHAR ], [ 'reltuples', $FLOAT4 ], [ 'relpages', $INT4 ], [ 'pages', $INT8 ] ],
			[ 'r', '1000000', '5000', '5000' ] ]);
}

my $bad_utf8 = "\xff\xfe\xc3(\xed\xa0\x80" x 10000;    # 70 kB of invalid UTF-8

# mode => code that changes the good answer's sets (or answers itself)
our %modes = (
	good => sub { },
	# the issue's crash: the column query answered with one column
	r2_one_col => sub { my ($s) = @_; $s->[1] = [ [ [ 'attname', $NAME ] ], [ 'id' ], [ 'k' ] ]; },
	r1_one_col => sub { my ($s) = @_; $s->[0] = [ [ [ 'e', $NAME ] ], [ 'UTF8' ] ]; },
	r3_one_col => sub { my ($s) = @_; $s->[2] = [ [ [ 'relkind', $CHAR ] ], [ 'r' ] ]; },
	r2_many_cols => sub {
		my ($s) = @_;
		push @{ $s->[1][0] }, [ 'x', $TEXT ];
		push @{ $s->[1][$_] }, 'y' for 1 .. $#{ $s->[1] };
	},
	r3_many_cols => sub {
		my ($s) = @_;
		push @{ $s->[2][0] }, [ 'x', $TEXT ];
		push @{ $s->[2][1] }, 'y';
	},
	r1_two_rows => sub { my ($s) = @_; push @{ $s->[0] }, [ 'UTF8', 'public', '1.1' ]; },
	r1_no_rows => sub { my ($s) = @_; splice @{ $s->[0] }, 1; },
	null_encoding => sub { $_[0][0][1][0] = undef; },
	null_typname => sub { $_[0][1][2][2] = undef; },
	null_attname => sub { $_[0][1][1][0] = undef; },
	null_relkind => sub { $_[0][2][1][0] = undef; },
	null_reltuples => sub { $_[0][2][1][1] = undef; },
	wrong_type_oid => sub { $_[0][2][0][1][1] = $TEXT; },
	binary_format => sub { $_[0][1][0][2][2] = 1; },
	garbage_reltuples => sub { $_[0][2][1][1] = 'lots'; },
	trailing_garbage => sub { $_[0][2][1][2] = '5000 pages'; },
	inf_reltuples => sub { $_[0][2][1][1] = 'Infinity'; },
	nan_reltuples => sub { $_[0][2][1][1] = 'NaN'; },
	huge_reltuples => sub { $_[0][2][1][1] = '1e300'; },
	overflow_reltuples => sub { $_[0][2][1][1] = '1e999'; },
	negative_pages => sub { $_[0][2][1][3] = '-7'; },
	huge_pages => sub { $_[0][2][1][3] = '9' x 40; },
	empty_relkind => sub { $_[0][2][1][0] = ''; },
	long_relkind => sub { $_[0][2][1][0] = 'rr'; },
	bool_garbage => sub { $_[0][1][1][3] = 'perhaps'; },
	long_name => sub { $_[0][1][1][2] = 'int4' . ('x' x 70000); },
	invalid_utf8_schema => sub { $_[0][0][1][1] = $bad_utf8; },
	invalid_utf8_type => sub { $_[0][1][1][2] = $bad_utf8; },
	nul_in_name => sub { $_[0][1][1][2] = "int4\0evil"; },
	invalid_utf8_encoding => sub { $_[0][0][1][0] = "\xff\xfe"; },
	unknown_encoding => sub { $_[0][0][1][0] = 'KLINGON'; },
	bad_version => sub { $_[0][0][1][2] = "1.1\x07\x1b[31m"; },
	two_sets => sub { splice @{ $_[0] }, 2; },
	four_sets => sub { push @{ $_[0] }, $_[0][2]; },
	# these answer themselves (see answer_lookup)
	error => undef,
	error_utf8 => undef,
	disconnect => undef,
	disconnect_mid_row => undef,
	silence => undef,
	command_ok => undef,
	copy_out => undef,
	garbage_bytes => undef,
);

sub fake_remote_modes { return sort keys %modes; }

# A deterministic pseudo-random generator (the test's results do not depend
# on Perl's rand()).
sub lcg
{
	my ($state) = @_;
	return sub {
		my ($n) = @_;
		$$state = ($$state * 1103515245 + 12345) % 2147483648;
		return int($$state / 65536) % $n;
	};
}

# The good answer mutated at random by seed.
sub fuzz_sets
{
	my ($seed) = @_;
	my $state = $seed * 7919 + 17;
	my $r = lcg(\$state);
	my @sets = good_sets();
	my @values = ('', '0', '-1', '1e999', 'NaN', 'x', "\xff", "\0", 'int8',
		'numeric', 'text', 'pg_catalog', 'public', 'v', 'p', 'r', 't', 'f',
		'99999999999999999999', '1.5', 'UTF8', 'SQL_ASCII', 'WIN1252', "a\nb",
		'k', 'id', 'x' x (1 + $r->(5000)), "\xc3", '-0', ' 1', '1 ');
	my $n = 1 + $r->(4);
	for (1 .. $n)
	{
		my $s = $sets[ $r->(scalar @sets) ];
		my $what = $r->(8);
		if ($what == 0)
		{
			# a value replaced
			my $row = 1 + $r->(scalar(@$s) > 1 ? scalar(@$s) - 1 : 1);
			next if $row > $#$s;
			my $col = $r->(scalar @{ $s->[$row] } || 1);
			$s->[$row][$col] = $values[ $r->(scalar @values) ];
		}
		elsif ($what == 1)
		{
			my $row = 1 + $r->(scalar(@$s) > 1 ? scalar(@$s) - 1 : 1);
			next if $row > $#$s;
			$s->[$row][ $r->(scalar @{ $s->[$row] } || 1) ] = undef;
		}
		elsif ($what == 2)
		{
			# a column dropped from the description or from a row
			if ($r->(2)) { pop @{ $s->[0] }; }
			elsif ($#$s >= 1) { pop @{ $s->[1] }; }
		}
		elsif ($what == 3)
		{
			push @{ $s->[0] }, [ 'extra', $TEXT ];
		}
		elsif ($what == 4)
		{
			# a row duplicated or removed
			if ($r->(2) && $#$s >= 1) { push @$s, [ @{ $s->[1] } ]; }
			elsif ($#$s >= 1) { splice @$s, 1, 1; }
		}
		elsif ($what == 5)
		{
			$s->[0][ $r->(scalar @{ $s->[0] } || 1) ][1] = (16, 18, 19, 20, 23, 25, 700, 701, 17)[ $r->(9) ];
		}
		elsif ($what == 6)
		{
			# a set dropped or repeated
			if ($r->(2)) { splice @sets, $r->(scalar @sets), 1; }
			else { push @sets, $sets[ $r->(scalar @sets) ]; }
		}
		else
		{
			$s->[0][ $r->(scalar @{ $s->[0] } || 1) ][2] = 1;
		}
	}
	return @sets;
}

sub encode_sets
{
	my (@sets) = @_;
	my $out = complete('SET');
	for my $s (@sets)
	{
		my ($cols, @rows) = @$s;
		$out .= result_set($cols, @rows);
	}
	return $out . ready('I');
}

# Answer the lookup as mode says; returns false to close the connection.
sub answer_lookup
{
	my ($sock, $mode, $sql) = @_;
	if ($mode eq 'error')
	{
		print $sock error('relation "public.t" does not exist', '42P01') . ready('I');
		return 1;
	}
	if ($mode eq 'error_utf8')
	{
		print $sock error("bad \x1b[2J" . $bad_utf8, '42P01') . ready('I');
		return 1;
	}
	if ($mode eq 'disconnect')
	{
		return 0;
	}
	if ($mode eq 'disconnect_mid_row')
	{
		my $all = encode_sets(good_sets());
		print $sock substr($all, 0, int(length($all) * 2 / 3));
		return 0;
	}
	if ($mode eq 'silence')
	{
		sleep 60;
		return 0;
	}
	if ($mode eq 'command_ok')
	{
		print $sock complete('SET') . complete('SELECT 1') x 3 . ready('I');
		return 1;
	}
	if ($mode eq 'copy_out')
	{
		print $sock complete('SET') . msg('H', pack('Cn', 0, 0)) . msg('d', "x\n") . msg('c', '')
		  . complete('COPY 1') . ready('I');
		return 1;
	}
	if ($mode eq 'garbage_bytes')
	{
		print $sock complete('SET') . "\x01\x02\x03\x04garbage" x 100;
		return 0;
	}
	my @sets;
	if ($mode eq 'fuzz')
	{
		my ($seed) = $sql =~ /public\.t(\d+)/;
		@sets = fuzz_sets($seed // 0);
	}
	else
	{
		@sets = good_sets();
		$modes{$mode}->(\@sets) if $modes{$mode};
	}
	print $sock encode_sets(@sets);
	return 1;
}

# The rows of a FETCH: the columns the DECLARE's SELECT list names.
sub fetch_rows
{
	my ($cursor, $count, $rows) = @_;
	my @cols = @{ $cursor->{cols} };
	my $from = $cursor->{next};
	my $to = $from + $count - 1;
	$to = $rows if $to > $rows;
	my $out = rowdesc(map { [ $_, $INT4 ] } @cols);
	for my $i ($from .. $to)
	{
		$out .= datarow(map { $_ eq 'NULL' ? undef : $_ eq 'k' ? $i : $i * 10 } @cols);
	}
	$cursor->{next} = $to + 1;
	my $n = $to >= $from ? $to - $from + 1 : 0;
	return $out . complete("FETCH $n");
}

# Answer one statement of postgres_fdw's session (not the lookup).
sub answer_statement
{
	my ($st, $sql) = @_;
	$sql =~ s/^\s+//;
	if ($sql =~ /^DECLARE (\w+) CURSOR FOR\s+SELECT (.*?) FROM/si)
	{
		my ($name, $list) = ($1, $2);
		my @cols = map { s/^.*\.//r } split /\s*,\s*/, $list;
		$st->{cursors}{$name} = { cols => \@cols, next => 1 };
		return (complete('DECLARE CURSOR'), 0);
	}
	if ($sql =~ /^FETCH (\d+) FROM (\w+)/i)
	{
		my $c = $st->{cursors}{$2} or return (error("cursor \"$2\" does not exist", '34000'), 1);
		return (fetch_rows($c, $1, $st->{rows}), 1);
	}
	return (complete('CLOSE CURSOR'), 0) if $sql =~ /^CLOSE/i;
	if ($sql =~ /^START TRANSACTION/i) { $st->{tx} = 'T'; return (complete('START TRANSACTION'), 0); }
	if ($sql =~ /^COMMIT/i) { $st->{tx} = 'I'; return (complete('COMMIT'), 0); }
	if ($sql =~ /^(ABORT|ROLLBACK)/i) { $st->{tx} = 'I'; return (complete('ROLLBACK'), 0); }
	return (complete('SET'), 0) if $sql =~ /^SET /i;
	return (complete('SAVEPOINT'), 0) if $sql =~ /^SAVEPOINT/i;
	return (complete('RELEASE'), 0) if $sql =~ /^RELEASE/i;
	return (complete('DEALLOCATE'), 0) if $sql =~ /^DEALLOCATE/i;
	return (error("the fake remote does not know: " . substr($sql, 0, 60), '0A000'), 1);
}

sub read_n
{
	my ($sock, $n) = @_;
	my $buf = '';
	while (length($buf) < $n)
	{
		my $got = sysread($sock, $buf, $n - length($buf), length($buf));
		return undef if !$got;
	}
	return $buf;
}

sub serve
{
	my ($sock, $logfile, $rows) = @_;
	my ($len, $body);

	# SSLRequest / GSSENCRequest, then the startup packet
	for (;;)
	{
		$len = read_n($sock, 4) // return;
		$body = read_n($sock, unpack('N', $len) - 4) // return;
		my $code = unpack('N', $body);
		last if $code == 196608;
		return if $code != 80877103 && $code != 80877104;
		print $sock 'N';
	}
	my %p = split /\0/, substr($body, 4);
	my $db = $p{database} // 'good';
	my $lookup = ($p{application_name} // '') eq 'bloomfilter';
	if ($lookup && open(my $log, '>>', $logfile))
	{
		print $log "$db\n";
		close $log;
	}
	# a remote that takes the connection and never answers it
	if ($db eq 'silent_connect')
	{
		sleep 60;
		return;
	}

	print $sock msg('R', pack('N', 3));
	my $type = read_n($sock, 1) // return;
	$len = read_n($sock, 4) // return;
	$body = read_n($sock, unpack('N', $len) - 4) // return;
	return if $type ne 'p';
	print $sock msg('R', pack('N', 0));
	print $sock msg('S', "$_->[0]\0$_->[1]\0")
	  for ([ 'server_version', '15.99' ], [ 'server_encoding', 'UTF8' ],
		[ 'client_encoding', $p{client_encoding} // 'UTF8' ], [ 'DateStyle', 'ISO, MDY' ],
		[ 'integer_datetimes', 'on' ], [ 'standard_conforming_strings', 'on' ],
		[ 'TimeZone', 'UTC' ], [ 'IntervalStyle', 'postgres' ], [ 'is_superuser', 'off' ],
		[ 'session_authorization', $p{user} // 'x' ], [ 'application_name', $p{application_name} // '' ]);
	print $sock msg('K', pack('NN', $$, 42)) . ready('I');

	my $st = { tx => 'I', cursors => {}, rows => $rows };
	my ($stmt, $failed) = ('', 0);
	for (;;)
	{
		$type = read_n($sock, 1) // return;
		$len = read_n($sock, 4) // return;
		$body = read_n($sock, unpack('N', $len) - 4) // return;
		return if $type eq 'X';
		if ($type eq 'Q')
		{
			my $sql = $body =~ s/\0$//r;
			if ($sql =~ /pg_extension/)
			{
				my $mode = $db =~ /^fuzz/ ? 'fuzz' : $db;
				return if !answer_lookup($sock, $mode, $sql);
				next;
			}
			if ($db eq 'error_everywhere')
			{
				print $sock error('the fake remote refuses everything', '53300') . ready($st->{tx});
				next;
			}
			my ($out) = answer_statement($st, $sql);
			print $sock $out . ready($st->{tx});
		}
		elsif ($type eq 'P')
		{
			my (undef, $sql) = split /\0/, $body;
			$stmt = $sql;
			print $sock msg('1', '') unless $failed;
		}
		elsif ($type eq 'B')
		{
			print $sock msg('2', '') unless $failed;
		}
		elsif ($type eq 'D')
		{
			print $sock msg('n', '') unless $failed;
		}
		elsif ($type eq 'E')
		{
			next if $failed;
			my ($out, $rows_sent) = answer_statement($st, $stmt);
			$failed = 1 if substr($out, 0, 1) eq 'E';
			print $sock $out;
		}
		elsif ($type eq 'C')
		{
			print $sock msg('3', '') unless $failed;
		}
		elsif ($type eq 'S')
		{
			$failed = 0;
			print $sock ready($st->{tx});
		}
		elsif ($type eq 'H')
		{
			# Flush: everything is written at once already
		}
		else
		{
			print $sock error("unexpected message $type", '08P01') . ready($st->{tx});
		}
	}
}

# Start the fake on a free loopback port; returns (pid, port).  Each
# connection is served by a child of its own.  rows: the table's rows.
sub fake_remote_start
{
	my ($logfile, $rows) = @_;
	my $listen = IO::Socket::INET->new(
		LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 64,
		Proto => 'tcp', ReuseAddr => 1) or die "fake remote: $!";
	my $port = $listen->sockport;
	my $pid = fork();
	die "fork: $!" if !defined $pid;
	if ($pid == 0)
	{
		$SIG{CHLD} = 'IGNORE';
		POSIX::setsid();
		for (;;)
		{
			my $sock = $listen->accept or next;
			my $child = fork();
			if (defined $child && $child == 0)
			{
				close $listen;
				$sock->autoflush(1);
				$SIG{PIPE} = 'IGNORE';
				eval { serve($sock, $logfile, $rows); };
				close $sock;
				POSIX::_exit(0);
			}
			close $sock;
		}
	}
	close $listen;
	return ($pid, $port);
}

# Stop the fake and every connection it serves (its own process group).
sub fake_remote_stop
{
	my ($pid) = @_;
	kill 'KILL', -$pid;
	waitpid($pid, 0);
}

1;
