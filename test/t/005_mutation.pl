
# Mutation testing of every way a filter's bytes enter the server: the
# bytea cast, text input (base64) and binary receive (libpq binary
# parameters and COPY ... (FORMAT binary)).  More than 10,000 mutants of
# valid filters are generated deterministically: bit flips anywhere,
# truncations, extensions, extreme header fields, geometry changes with
# the buffer resized to match, garbage, and text-level damage to the base64
# form.  Many have their checksum recomputed (a small C helper built
# against xxhash.h, XXH3-64 as FORMAT.md defines it) so that the checks
# after the checksum are reached too.
#
# For each mutant the test predicts, from FORMAT.md's validation order,
# whether it must be accepted and otherwise why it must be refused, and
# checks that:
#   - the server never crashes (same postmaster, same and new connections
#     work, no backend terminated by a signal in the log);
#   - every refusal is SQLSTATE 22P03 (bytea, recv) or 22P02 (text) with the
#     message of the first check that fails, the same through every path;
#   - every accepted mutant behaves: bloom_info agrees with its header,
#     ::bytea and ::text round-trip byte for byte, probes run (an empty
#     filter answers false), a key added is then found, f | f and f & f
#     have f's bits, and a mutant that only gained bits still holds every
#     key of the filter it came from;
#   - a GiST index over all accepted mutants builds, queries through it
#     answer or refuse cleanly, and over the integer-family ones it answers
#     exactly as a sequential scan.
# 20,000 byte-level mutants (each through the three ways in) and 1,000
# text-level ones; counts per SQLSTATE are printed with note().
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;
use IPC::Run;
use MIME::Base64 qw(encode_base64);
use Digest::MD5 qw(md5_hex);
use Encode ();
use Test::More;
no warnings 'portable';    # 64-bit header values

my $node = PostgreSQL::Test::Cluster->new('mut');
$node->init;
$node->append_conf('postgresql.conf',
	"listen_addresses = '127.0.0.1'\nmax_parallel_workers_per_gather = 0\n"
	  . "log_error_verbosity = verbose\nlog_min_error_statement = panic\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
my $dir = $PostgreSQL::Test::Utils::tmp_check;

sub postmaster_pid
{
	my $pidfile = $node->data_dir . '/postmaster.pid';
	open my $fh, '<', $pidfile or return -1;
	my $pid = <$fh>;
	close $fh;
	chomp $pid;
	return $pid;
}
my $pid0 = postmaster_pid();
my $checkpointer_sql =
  q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'};
my $checkpointer0 = $node->safe_psql('postgres', $checkpointer_sql);

# ---- the filters that get mutated -----------------------------------------
# name => [SQL building it, SQL (over f) that is true when f holds every key]
my %bases = (
	int_blocked => [ 'SELECT bloom_agg(g) FROM generate_series(1, 200) g',
		'(SELECT bool_and(g <@ f) FROM generate_series(1, 200) g)' ],
	text_classic => [
		q{SELECT bloom_add_all(bloom_empty_bits(1024, 5, 'classic', -7),
		                      ARRAY(SELECT 'k' || g FROM generate_series(1, 50) g))},
		q{(SELECT bool_and(('k' || g) <@ f) FROM generate_series(1, 50) g)} ],
	empty => [ 'SELECT bloom_empty(100)', 'true' ],
	empty_classic => [ q{SELECT bloom_empty_bits(128, 3, 'classic', 99)}, 'true' ],
	uuid_k32 => [
		q{SELECT bloom_add_all(bloom_empty_bits(1024, 32, 'blocked', 123),
		         ARRAY(SELECT md5(g::text)::uuid FROM generate_series(1, 5) g))},
		q{(SELECT bool_and(md5(g::text)::uuid <@ f) FROM generate_series(1, 5) g)} ],
	bool_k1 => [ q{SELECT bloom_empty_bits(64, 1, 'classic') + true}, 'f @> true' ],
	inet_other => [
		q{SELECT bloom_agg(('10.0.0.' || g)::inet) FROM generate_series(1, 20) g},
		q{(SELECT bool_and(('10.0.0.' || g)::inet <@ f) FROM generate_series(1, 20) g)} ],
	numeric_classic => [
		q{SELECT bloom_add_all(bloom_empty_bits(640, 4, 'classic', 5),
		                      ARRAY(SELECT g / 4.0 FROM generate_series(1, 30) g))},
		'(SELECT bool_and((g / 4.0) <@ f) FROM generate_series(1, 30) g)' ],
	tstz_blocked => [
		q{SELECT bloom_agg(timestamptz '2024-01-01 00:00+00' + g * interval '1 hour')
		  FROM generate_series(1, 40) g},
		q{(SELECT bool_and((timestamptz '2024-01-01 00:00+00' + g * interval '1 hour') <@ f)
		   FROM generate_series(1, 40) g)} ],
	big_blocked => [ 'SELECT bloom_agg(g, 3000, 0.01) FROM generate_series(1, 3000) g',
		'(SELECT bool_and(g <@ f) FROM generate_series(1, 3000) g)' ],
);
my @base_names = sort keys %bases;
# how often each base is picked: the big one is rare, to keep the run short
my %weight = map { $_ => ($_ eq 'big_blocked' ? 1 : 4) } @base_names;

$node->safe_psql('postgres',
	'CREATE TABLE bases (name text PRIMARY KEY, f bloomfilter);'
	  . join('', map { "INSERT INTO bases SELECT '$_', ($bases{$_}[0]);" } @base_names));
my %base_bytes;
for my $row (split /\n/,
	$node->safe_psql('postgres', q{SELECT name, encode(f::bytea, 'hex') FROM bases}))
{
	my ($name, $hex) = split /\|/, $row;
	$base_bytes{$name} = pack('H*', $hex);
}

# ---- a deterministic PRNG (xorshift32; the same stream on every machine) ----
my $rng = 0x2545F491;
sub rnd
{
	my ($n) = @_;
	$rng ^= ($rng << 13) & 0xffffffff;
	$rng ^= $rng >> 17;
	$rng ^= ($rng << 5) & 0xffffffff;
	return $rng % $n;
}
sub pick { return $_[ rnd(scalar @_) ]; }
sub rnd_bytes { return join '', map { chr(rnd(256)) } 1 .. $_[0]; }
sub rnd64 { return (rnd(1 << 16) << 48) | (rnd(1 << 16) << 32) | (rnd(1 << 16) << 16) | rnd(1 << 16); }

# ---- the model: FORMAT.md's validation order --------------------------------
my $MAX_NBITS = 6_442_450_432;    # README: the largest filter
my %why = (
	truncated => qr/the buffer is shorter than a bloomfilter header/,
	magic     => qr/does not start with the bloomfilter magic/,
	version   => qr/format version is not one this build reads/,
	layout    => qr/the layout is unknown/,
	hashes    => qr/number of hashes is out of range/,
	nbits     => qr/number of bits is zero, too large, or not a whole number/,
	size      => qr/length does not match the number of bits/,
	family    => qr/key family or type tag is invalid/,
	reserved  => qr/reserved header fields are not zero/,
	param     => qr/the layout's parameter \(flags\) or its seed is not one the layout allows/,
	checksum  => qr/checksum does not match/,
	added     => qr/bits are set but the header records no added key/,
);

# what a reader must say of $b; $ck_ok: its checksum field is right
sub model
{
	my ($b, $ck_ok) = @_;
	my $len = length $b;
	return 'truncated' if $len < 6;
	return 'magic' if substr($b, 0, 4) ne 'BLMF';
	# version 2 (FORMAT.md) adds layouts 3 (parquet) and 4 (spark), and the
	# flags' parameter
	my $version = unpack('v', substr($b, 4, 2));
	return 'version' if $version != 1 && $version != 2;
	return 'truncated' if $len < 52;
	my ($layout, $k) = unpack('CC', substr($b, 6, 2));
	my $nbits = unpack('Q<', substr($b, 16, 8));
	return 'layout'
	  if $layout != 1 && $layout != 2 && !($version == 2 && ($layout == 3 || $layout == 4));
	if ($layout == 3)
	{
		return 'hashes' if $k != 8;
		return 'nbits' if $nbits == 0 || $nbits > 2**30 || $nbits % 256 != 0;
	}
	return 'hashes' if $k < 1 || $k > 32;
	return 'nbits'
	  if $nbits == 0
	  || $nbits > $MAX_NBITS
	  || $nbits % ($layout == 1 || $layout == 4 ? 64 : $layout == 2 ? 512 : 256) != 0;
	return 'size' if $len - 52 != $nbits / 8;
	my $family = unpack('v', substr($b, 32, 2));
	my $tag = unpack('V', substr($b, 36, 4));
	# families 11, 14, 15 and 16 carry a type tag, and only they
	my $tagged = grep { $_ == $family } (11, 14, 15, 16);
	if ($layout == 4)
	{
		# spark: longs, strings, binaries, or all three (family 17), no tag
		return 'family' if $tag != 0 || !(grep { $_ == $family } (0, 1, 4, 5, 17));
	}
	else
	{
		return 'family' if $family > 16 || ($tagged xor ($tag != 0));
	}
	my $flags = unpack('v', substr($b, 34, 2));
	return 'reserved'
	  if unpack('V', substr($b, 40, 4)) != 0 || ($layout <= 2 && $flags != 0);
	return 'param'
	  if $layout == 3
	  && (!(grep { $_ == $flags } (0, 1, 2, 4, 5, 6, 7))
		|| unpack('Q<', substr($b, 8, 8)) != 0
		|| ($flags == 0 && $family != 0));
	if ($layout == 4)
	{
		# Spark's version 1 has no seed; version 2's is a Java int
		my $seed = unpack('q<', substr($b, 8, 8));
		return 'param'
		  unless ($flags == 1 && $seed == 0)
		  || ($flags == 2 && $seed >= -2**31 && $seed < 2**31);
	}
	return 'checksum' unless $ck_ok;
	my $added = unpack('Q<', substr($b, 24, 8));
	return 'added' if ($family == 0 || $added == 0) && substr($b, 52) =~ /[^\0]/;
	return 'ok';
}

# ---- the mutants ------------------------------------------------------------
# each: [base, class, bytes, reseal, kept]; kept: only bits were set, so the
# base's keys must all still be found if it is accepted
my @fields = (
	# [offset, pack format, interesting values]
	[ 4,  'v',  [ 0, 2, 3, 0x100, 0xffff ] ],                      # version
	[ 6,  'C',  [ 0, 1, 2, 3, 4, 0x80, 0xff ] ],                   # layout
	[ 7,  'C',  [ 0, 1, 2, 31, 32, 33, 64, 128, 255 ] ],           # k
	[ 8,  'Q<', [ 0, 1, 0xffffffffffffffff, 0x8000000000000000 ] ],    # seed
	[ 16, 'Q<', [ 0, 1, 7, 8, 63, 64, 65, 511, 512, 513, 1024, 4096, 1 << 32,
			$MAX_NBITS, $MAX_NBITS + 512, $MAX_NBITS - 512, 1 << 63,
			0xffffffffffffffff, 0xfffffffffffffe00 ] ],            # nbits
	[ 24, 'Q<', [ 0, 1, 2, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff ] ],  # added
	[ 32, 'v',  [ 0, 1, 4, 10, 11, 12, 13, 0x100, 0x7fff, 0xffff ] ], # family
	[ 34, 'v',  [ 0, 1, 0x100, 0x8000, 0xffff ] ],                 # flags
	[ 36, 'V',  [ 0, 1, 25, 869, 16384, 0x80000000, 0xffffffff ] ], # type tag
	[ 40, 'V',  [ 0, 1, 0x80000000, 0xffffffff ] ],                # reserved
	[ 44, 'Q<', [ 0, 1, 0xffffffffffffffff ] ],                    # checksum
);

sub set_field
{
	my ($b, $f) = @_;
	my ($off, $fmt, $vals) = @$f;
	my $size = length pack($fmt, 0);
	return $b if length($b) < $off + $size;
	my $v = rnd(4) == 0 ? rnd64() & (($size == 8) ? 0xffffffffffffffff : (1 << (8 * $size)) - 1) : pick(@$vals);
	substr($b, $off, $size) = pack($fmt, $v);
	return $b;
}

sub flip_bits
{
	my ($b, $n, $from) = @_;
	$from //= 0;
	return $b if length($b) <= $from;
	for (1 .. $n)
	{
		my $i = $from + rnd(length($b) - $from);
		substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) ^ (1 << rnd(8)));
	}
	return $b;
}

sub mutate
{
	my ($base) = @_;
	my $b = $base_bytes{$base};
	my $len = length $b;
	my $class = pick(qw(flip flip flip_reseal flip_reseal set_bits set_bits truncate extend
		  field field field field_reseal field_reseal field_reseal resize resize
		  multi multi garbage));
	my ($reseal, $kept) = (0, 0);
	if ($class eq 'flip')
	{
		$b = flip_bits($b, 1 + rnd(4));
	}
	elsif ($class eq 'flip_reseal')
	{
		# anywhere but the checksum field, which the reseal overwrites
		$b = flip_bits($b, 1 + rnd(4));
		substr($b, 44, 8) = substr($base_bytes{$base}, 44, 8);
		$reseal = 1;
	}
	elsif ($class eq 'set_bits')
	{
		for (1 .. 1 + rnd(20))
		{
			my $i = 52 + rnd($len - 52);
			substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) | (1 << rnd(8)));
		}
		($reseal, $kept) = (1, 1);
	}
	elsif ($class eq 'truncate')
	{
		my $n = rnd(3) ? rnd($len) : pick(0, 1, 4, 5, 6, 7, 43, 44, 51, 52, 53, $len - 8, $len - 1);
		$b = substr($b, 0, $n);
		$reseal = rnd(2);
	}
	elsif ($class eq 'extend')
	{
		$b .= pick(rnd_bytes(1 + rnd(100)), "\0" x pick(1, 8, 64, 512), rnd_bytes(64));
		$reseal = rnd(2);
	}
	elsif ($class eq 'field' || $class eq 'field_reseal')
	{
		$b = set_field($b, pick(@fields));
		$reseal = $class eq 'field_reseal';
	}
	elsif ($class eq 'resize')
	{
		# a new geometry with the buffer made to match it, so the deep checks run
		my $layout = pick(1, 2, 2, 1, 0, 3);
		my $nbits = pick(64, 128, 512, 1024, 1536, 2048, 4096, 8192, 65, 100, 520, 8 * rnd(600));
		substr($b, 6, 1) = chr($layout);
		substr($b, 7, 1) = chr(pick(1, 3, 7, 32, 0, 33)) if rnd(2);
		substr($b, 16, 8) = pack('Q<', $nbits);
		my $want = 52 + int($nbits / 8);
		if (length($b) > $want) { $b = substr($b, 0, $want); }
		else { $b .= (rnd(2) ? "\0" : chr(rnd(256))) x ($want - length $b); }
		$reseal = rnd(5) != 0;
	}
	elsif ($class eq 'multi')
	{
		$b = set_field($b, pick(@fields)) for 1 .. 2 + rnd(3);
		$b = flip_bits($b, rnd(3), 52);
		$reseal = rnd(2);
	}
	else    # garbage
	{
		$b = rnd_bytes(rnd(200));
		substr($b, 0, 6) = "BLMF\x01\0" if rnd(2) && length($b) >= 6;
		$b = "BLMF\x01\0" . $b if rnd(3) == 0;
		$reseal = rnd(2);
	}
	return [ $base, $class, $b, $reseal, $kept ];
}

my @pool = map { ($_) x $weight{$_} } @base_names;
my @mut;
# every base as it is, and resealed as it is
push @mut, [ $_, 'same', $base_bytes{$_}, 0, 1 ], [ $_, 'same_reseal', $base_bytes{$_}, 1, 1 ]
  for @base_names;
push @mut, mutate(pick(@pool)) while @mut < 20_000;

# ---- the C helper: recompute checksums, and send mutants as binary params ----
my ($cbin, $cerr) = build_c_helper('bfmut', $dir);
BAIL_OUT("the C helper does not build: $cerr") unless defined $cbin;

# recompute checksums where asked
{
	open my $o, '>', "$dir/raw.txt" or die;
	printf $o "%d %d %s\n", $_, $mut[$_][3], unpack('H*', $mut[$_][2]) for 0 .. $#mut;
	close $o;
	IPC::Run::run([ $cbin, 'reseal', "$dir/raw.txt", "$dir/sealed.txt" ], '2>', \$cerr)
	  or BAIL_OUT("reseal failed: $cerr");
	open my $i, '<', "$dir/sealed.txt" or die;
	while (<$i>)
	{
		my ($id, $hex) = /^(\d+) ([0-9a-f]*)$/ or die "bad line $_";
		$mut[$id][2] = pack('H*', $hex);
	}
	close $i;
}
# the helper computes the checksum the extension writes
is(scalar(grep { $_->[1] eq 'same_reseal' && $_->[2] ne $base_bytes{ $_->[0] } } @mut),
	0, 'the helper recomputes checksums exactly as the extension writes them');

# the expected verdict of each mutant
my %expect_count;
for my $m (@mut)
{
	my ($base, $class, $b, $reseal) = @$m;
	my $ck_ok = ($reseal && length($b) >= 52) || $b eq $base_bytes{$base};
	push @$m, model($b, $ck_ok);
	$expect_count{ $m->[5] }++;
}
note('expected verdicts: '
	  . join(', ', map { "$_ $expect_count{$_}" } sort keys %expect_count));
ok($expect_count{ok} >= 1000 && $expect_count{checksum} >= 1000
	  && scalar(keys %expect_count) == 12,
	'the mutants reach every check, and many are accepted');

# ---- the SQL side ------------------------------------------------------------
# bf_check(f, b, base, kept): f arrived from bytes b; returns 'OK' or what is wrong
$node->safe_psql('postgres', <<'EOSQL');
CREATE TABLE base_checks (name text PRIMARY KEY, q text);
CREATE FUNCTION bf_probe_add(f bloomfilter, fam int, tag bigint, empty bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	g bloomfilter;
	p bool;
BEGIN
	CASE fam
	WHEN 0, 1 THEN p := f @> 42::int8; g := f + 42::int4; IF NOT g @> 42::int2 THEN RETURN 'added int not found'; END IF;
	WHEN 2 THEN p := f @> 4.2::float8; g := f + 4.2::float8; IF NOT g @> 4.2::float8 THEN RETURN 'added float not found'; END IF;
	WHEN 3 THEN p := f @> 4.2; g := f + 4.20; IF NOT g @> 4.2 THEN RETURN 'added numeric not found'; END IF;
	WHEN 4 THEN p := f @> 'x'::text; g := f + 'xy'; IF NOT g @> 'xy' THEN RETURN 'added text not found'; END IF;
	WHEN 5 THEN p := f @> '\x01'::bytea; g := f + '\x02'::bytea; IF NOT g @> '\x02'::bytea THEN RETURN 'added bytea not found'; END IF;
	WHEN 6 THEN p := f @> gen_random_uuid(); g := f + '11111111-2222-3333-4444-555555555555'::uuid;
		IF NOT g @> '11111111-2222-3333-4444-555555555555'::uuid THEN RETURN 'added uuid not found'; END IF;
	WHEN 7 THEN p := f @> false; g := f + false; IF NOT g @> false THEN RETURN 'added bool not found'; END IF;
	WHEN 8 THEN p := f @> date '2001-02-03'; g := f + date '2001-02-04'; IF NOT g @> date '2001-02-04' THEN RETURN 'added date not found'; END IF;
	WHEN 9 THEN p := f @> timestamp '2001-02-03 04:05'; g := f + timestamp '2001-02-04';
		IF NOT g @> timestamp '2001-02-04' THEN RETURN 'added timestamp not found'; END IF;
	WHEN 10 THEN p := f @> timestamptz '2001-02-03 04:05+00'; g := f + timestamptz '2001-02-04+00';
		IF NOT g @> timestamptz '2001-02-04+00' THEN RETURN 'added timestamptz not found'; END IF;
	WHEN 12 THEN p := f @> interval '1 day'; g := f + interval '24 hours';
		IF NOT g @> interval '1 day' THEN RETURN 'added interval not found'; END IF;
	WHEN 13 THEN p := f @> '{"a": 1}'::jsonb; g := f + '{"b": 2.0}'::jsonb;
		IF NOT g @> '{"b": 2}'::jsonb THEN RETURN 'added jsonb not found'; END IF;
	WHEN 11, 14, 15, 16 THEN
		IF fam = 11 AND tag = 869 THEN
			p := f @> inet '10.9.9.9'; g := f + inet '10.9.9.8';
			IF NOT g @> inet '10.9.9.8' THEN RETURN 'added inet not found'; END IF;
		ELSE
			-- a type tag of no type we can name: probing with inet is a type error
			BEGIN
				p := f @> inet '10.9.9.9';
				RETURN 'probe of a foreign type tag answered';
			EXCEPTION WHEN datatype_mismatch THEN
				p := false;
			END;
		END IF;
	END CASE;
	IF empty AND p THEN
		RETURN 'a filter with no bits set answered true';
	END IF;
	IF g IS NOT NULL AND NOT g @>> f THEN
		RETURN 'f + key is not a superset of f';
	END IF;
	RETURN 'OK';
END $$;

CREATE FUNCTION bf_check(f bloomfilter, b bytea, base text, kept bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	i record;
	u record;
	r text;
	fam int := get_byte(b, 32) + 256 * get_byte(b, 33);
	tag bigint := get_byte(b, 36) + 256 * get_byte(b, 37) + 65536 * get_byte(b, 38)
	              + 16777216::bigint * get_byte(b, 39);
	ok bool;
	st text;
	msg text;
BEGIN
	BEGIN
		SELECT * INTO i FROM bloom_info(f);
		IF i.bits <> (octet_length(b) - 52) * 8 OR i.bytes <> octet_length(b)
		   OR i.hashes <> get_byte(b, 7)
		   OR i.format_version <> (CASE WHEN get_byte(b, 6) <= 2 THEN 1 ELSE 2 END)
		   OR i.layout <> (CASE get_byte(b, 6) WHEN 1 THEN 'classic' WHEN 2 THEN 'blocked' WHEN 3 THEN 'parquet' ELSE 'spark' END)
		   OR i.bits_set < 0 OR i.bits_set > i.bits
		   OR NOT (i.fill_ratio BETWEEN 0 AND 1) OR i.added < 0 THEN
			RETURN 'bloom_info disagrees with the header: ' || row_to_json(i)::text;
		END IF;
		-- a version-2 classic or blocked value is written back as version 1
		-- (so its checksum changes too): the rest is the bytes that came in
		IF substring(f::bytea FROM 1 FOR 4) <> substring(b FROM 1 FOR 4)
		   OR substring(f::bytea FROM 7 FOR 38) <> substring(b FROM 7 FOR 38)
		   OR substring(f::bytea FROM 53) <> substring(b FROM 53)
		   OR (get_byte(b, 4) = 1 AND f::bytea <> b) THEN
			RETURN 'f::bytea differs from the bytes that came in';
		END IF;
		IF f::text <> translate(encode(f::bytea, 'base64'), E'\n', '') THEN
			RETURN 'f::text is not the base64 of its bytes';
		END IF;
		IF (f::text)::bloomfilter <> f OR NOT f = f OR f <> f THEN
			RETURN 'text round trip or equality fails';
		END IF;
		PERFORM bloom_hash(f), bloom_cardinality(f), bloom_fpr(f), bloom_jaccard(f, f);
		SELECT * INTO u FROM bloom_info(f | f);
		IF u.bits_set <> i.bits_set OR u.bits <> i.bits OR NOT ((f | f) @>> f) OR NOT (f <<@ (f | f)) THEN
			RETURN 'f | f does not have the bits of f';
		END IF;
		SELECT * INTO u FROM bloom_info(f & f);
		IF u.bits_set <> i.bits_set OR NOT ((f & f) @>> f) THEN
			RETURN 'f & f does not have the bits of f';
		END IF;
		r := bf_probe_add(f, fam, tag, i.bits_set = 0);
		IF r <> 'OK' THEN
			RETURN r;
		END IF;
		IF kept THEN
			EXECUTE 'SELECT ' || (SELECT q FROM base_checks WHERE name = base) INTO ok USING f;
			IF NOT ok THEN
				RETURN 'a key of the base filter is no longer found';
			END IF;
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		RETURN 'BEHAVE ' || st || ' ' || msg;
	END;
	RETURN 'OK';
END $$;

-- one way in each, with its error caught
CREATE FUNCTION try_bytea(b bytea, base text, kept bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter;
	st text;
	msg text;
BEGIN
	BEGIN
		f := b::bloomfilter;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		RETURN 'ERR ' || st || ' ' || msg;
	END;
	RETURN bf_check(f, b, base, kept);
END $$;

CREATE FUNCTION try_text(t text, b bytea, base text, kept bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter;
	st text;
	msg text;
BEGIN
	BEGIN
		f := t::bloomfilter;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		RETURN 'ERR ' || st || ' ' || msg;
	END;
	RETURN bf_check(f, b, base, kept);
END $$;

CREATE TABLE mutants (id int PRIMARY KEY, base text, class text, kept bool, b bytea);
CREATE TABLE tmutants (id int PRIMARY KEY, base text, class text, t text, b bytea);
EOSQL

{
	my $q = join(',',
		map { my $s = $bases{$_}[1]; $s =~ s/\bf\b/\$1/g; $s =~ s/'/''/g; "('$_', '$s')" }
		  @base_names);
	$node->safe_psql('postgres', "INSERT INTO base_checks VALUES $q");
}

# the checker itself can fail: a filter that is not the bytes it came from,
# and one that lost its keys, are caught
is( $node->safe_psql('postgres', q{
	SELECT bf_check(t.f, i.f::bytea, 'int_blocked', false) <> 'OK',
	       bf_check(t.f, t.f::bytea, 'text_classic', true) = 'OK',
	       bf_check(bloom_empty_bits(1024, 5, 'classic', -7) + 'zzz',
	                (bloom_empty_bits(1024, 5, 'classic', -7) + 'zzz')::bytea, 'text_classic', true)
	FROM bases t, bases i WHERE t.name = 'text_classic' AND i.name = 'int_blocked'}),
	't|t|a key of the base filter is no longer found',
	'the behaviour check catches a wrong filter and a lost key, and passes a good one');

sub copy_escape
{
	my ($s) = @_;
	$s =~ s/\\/\\\\/g;
	$s =~ s/\t/\\t/g;
	$s =~ s/\n/\\n/g;
	$s =~ s/\r/\\r/g;
	return $s;
}

{
	open my $o, '>', "$dir/mutants.copy" or die;
	for my $id (0 .. $#mut)
	{
		my ($base, $class, $b, undef, $kept) = @{ $mut[$id] };
		print $o join("\t", $id, $base, $class, $kept ? 't' : 'f', '\\\\x' . unpack('H*', $b)), "\n";
	}
	close $o;
}
$node->safe_psql('postgres', "COPY mutants FROM '$dir/mutants.copy'");

# ---- text-level damage to the base64 form -----------------------------------
# [base, class, text, must]: must is 'ok' (accepted, same bytes), 'err'
# (22P02), or 'either' (22P02, or accepted with the same bytes)
my @tmut;
my @alphabet = ('A' .. 'Z', 'a' .. 'z', '0' .. '9', '+', '/');
while (@tmut < 1000)
{
	my $base = pick(@pool);
	my $t = encode_base64($base_bytes{$base}, '');
	my $class = pick(qw(space badchar swapchar cut pad unpad empty prefix));
	my $must = 'either';
	if ($class eq 'space')
	{
		substr($t, rnd(length($t) + 1), 0) = pick(' ', "\n", "\t", "\r", "  ", "\r\n") for 1 .. 1 + rnd(10);
		$must = 'ok';
	}
	elsif ($class eq 'badchar')
	{
		substr($t, rnd(length $t), 1) = pick('!', '*', '-', '_', '.', ':', "\x{e9}", '\\', '"', "'", '=');
		$must = 'err';
	}
	elsif ($class eq 'swapchar')
	{
		substr($t, rnd(length $t), 1) = pick(@alphabet);
	}
	elsif ($class eq 'cut')
	{
		my $n = 1 + rnd(length($t) - 1);
		$t = rnd(2) ? substr($t, 0, $n) : substr($t, length($t) - $n);
		$must = 'err' if length($t) % 4 != 0;
	}
	elsif ($class eq 'pad')
	{
		$t .= pick('=', '==', '===', 'A', 'AA', 'AAA', 'AAAA', 'AAA=');
		$must = 'err' unless $t =~ /^[A-Za-z0-9+\/]*={0,2}$/ && length($t) % 4 == 0;
	}
	elsif ($class eq 'unpad')
	{
		$t =~ s/=+$//;
	}
	elsif ($class eq 'empty')
	{
		$t = pick('', ' ', '=', '====', 'QkxNRg==', 'QkxNRgEA');
		$must = 'err';
	}
	else    # prefix: something before the base64
	{
		$t = pick('\\x', 'base64:', 'BLMF', '0x') . $t;
		$must = 'err';
	}
	$must = 'ok' if $t eq encode_base64($base_bytes{$base}, '');
	$t = Encode::encode('UTF-8', $t) if $t =~ /[^\x00-\x7f]/;
	push @tmut, [ $base, $class, $t, $must ];
}
{
	open my $o, '>', "$dir/tmutants.copy" or die;
	for my $id (0 .. $#tmut)
	{
		my ($base, $class, $t) = @{ $tmut[$id] };
		print $o join("\t", $id, $base, $class, copy_escape($t),
			'\\\\x' . unpack('H*', $base_bytes{$base})), "\n";
	}
	close $o;
}
$node->safe_psql('postgres', "COPY tmutants FROM '$dir/tmutants.copy'");

# ---- run every mutant through every way in -----------------------------------
my $t0 = time;
my %res;    # path => id => result
for my $row (split /\n/, $node->safe_psql('postgres', q{
	SELECT 'bytea', id, try_bytea(b, base, kept) FROM mutants
	UNION ALL
	SELECT 'text', id, try_text(translate(encode(b, 'base64'), E'\n', ''), b, base, kept) FROM mutants
	UNION ALL
	SELECT 'tmut', id, try_text(t, b, base, true) FROM tmutants;
	SELECT 'same-session', 0, '1';}))
{
	my ($path, $id, $r) = split /\|/, $row, 3;
	$res{$path}{$id} = $r;
}
is($res{'same-session'}{0}, '1', 'after the SQL paths, the same session still answers');
note('bytea and text paths took ' . (time - $t0) . ' s');

$t0 = time;
{
	open my $o, '>', "$dir/recv.in" or die;
	printf $o "%d %s %s %s\n", $_, $mut[$_][0], $mut[$_][4] ? 't' : 'f', unpack('H*', $mut[$_][2])
	  for 0 .. $#mut;
	close $o;
	my $conn = 'host=127.0.0.1 port=' . $node->port . ' dbname=postgres';
	my $ok = IPC::Run::run([ $cbin, 'recv', $conn, "$dir/recv.in", "$dir/recv.out" ], '2>', \$cerr);
	ok($ok, 'the binary-parameter client went through every mutant') or diag($cerr);
	open my $i, '<', "$dir/recv.out" or die;
	while (<$i>)
	{
		chomp;
		my ($id, $r) = split / /, $_, 2;
		$res{recv}{$id} = $r;
	}
	close $i;
}
is($res{recv}{final}, '1', 'after the binary path, the same connection still answers');
note('binary parameter path took ' . (time - $t0) . ' s');

# ---- the verdicts ---------------------------------------------------------------
my %sqlstate = (bytea => '22P03', recv => '22P03', text => '22P02');
my %summary;
for my $path (qw(bytea text recv))
{
	my @wrong;
	my %count;
	for my $id (0 .. $#mut)
	{
		my ($base, $class, $b, $reseal, $kept, $expect) = @{ $mut[$id] };
		my $r = $res{$path}{$id} // '(no result)';
		my $label = $r =~ /^ERR (\S+)/ ? $1 : $r eq 'OK' ? 'accepted' : 'misbehaved';
		$count{$label}++;
		my $good;
		if ($expect eq 'ok')
		{
			$good = $r eq 'OK';
		}
		else
		{
			$good = $r =~ /^ERR \Q$sqlstate{$path}\E invalid bloomfilter: (.*)$/
			  && $1 =~ $why{$expect};
		}
		push @wrong, sprintf("#%d %s/%s expected %s (hex %s): %s",
			$id, $base, $class, $expect, substr(unpack('H*', $b), 0, 120), $r)
		  unless $good;
	}
	$summary{$path} = \%count;
	note("$path: " . join(', ', map { "$_ $count{$_}" } sort keys %count));
	is(scalar(@wrong), 0,
		"$path: all " . scalar(@mut) . " mutants refused with $sqlstate{$path} for the predicted reason, or accepted and behaving")
	  or diag(join("\n", @wrong[ 0 .. ($#wrong < 30 ? $#wrong : 29) ]));
}

# the three ways in say the same thing about the same bytes
my @disagree = grep {
	my $y = $res{bytea}{$_} // '';
	my $t = $res{text}{$_} // '';
	my $r = $res{recv}{$_} // '';
	$t =~ s/^ERR 22P02/ERR 22P03/;
	!($y eq $r && $y eq $t);
} 0 .. $#mut;
is(scalar(@disagree), 0, 'bytea cast, text input and binary receive agree on every mutant')
  or diag(join("\n", map { "#$_: bytea=$res{bytea}{$_} text=$res{text}{$_} recv=$res{recv}{$_}" }
		  @disagree[ 0 .. ($#disagree < 20 ? $#disagree : 19) ]));

# text-level damage
{
	my @wrong;
	my %count;
	for my $id (0 .. $#tmut)
	{
		my ($base, $class, $t, $must) = @{ $tmut[$id] };
		my $r = $res{tmut}{$id} // '(no result)';
		my $label = $r =~ /^ERR (\S+)/ ? $1 : $r eq 'OK' ? 'accepted' : 'misbehaved';
		$count{$label}++;
		my $good =
			$must eq 'ok' ? $r eq 'OK'
		  : $must eq 'err' ? $r =~ /^ERR 22P02 /
		  : ($r eq 'OK' || $r =~ /^ERR 22P02 /);
		push @wrong, "#$id $base/$class must $must (text '" . substr($t, 0, 80) . "'): $r"
		  unless $good;
	}
	note('text-level damage: ' . join(', ', map { "$_ $count{$_}" } sort keys %count));
	is(scalar(@wrong), 0,
		'text input: 1000 damaged base64 forms are 22P02 or read as the very bytes encoded')
	  or diag(join("\n", @wrong[ 0 .. ($#wrong < 30 ? $#wrong : 29) ]));
}

# ---- COPY ... (FORMAT binary) of crafted rows ------------------------------------
sub copy_binary_file
{
	my ($file, @rows) = @_;    # rows: [id, bytes]
	open my $o, '>', $file or die;
	binmode $o;
	print $o "PGCOPY\n\377\r\n\0", pack('NN', 0, 0);
	print $o pack('n', 2), pack('N', 4), pack('N', $_->[0]), pack('N', length $_->[1]), $_->[1]
	  for @rows;
	print $o pack('n', 0xffff);
	close $o;
}

# every accepted mutant in one file: all load, byte for byte
my @accepted = grep { $mut[$_][5] eq 'ok' } 0 .. $#mut;
copy_binary_file("$dir/accepted.bin", map { [ $_, $mut[$_][2] ] } @accepted);
$node->safe_psql('postgres', 'CREATE TABLE copied (id int, f bloomfilter)');
$node->safe_psql('postgres', "COPY copied FROM '$dir/accepted.bin' (FORMAT binary)");
is( $node->safe_psql('postgres',
		'SELECT count(*), count(*) FILTER (WHERE c.f::bytea = m.b::bloomfilter::bytea) FROM copied c JOIN mutants m USING (id)'),
	scalar(@accepted) . '|' . scalar(@accepted),
	'COPY FROM (FORMAT binary): every accepted mutant (' . scalar(@accepted) . ') loads byte for byte');

# refused ones, one file each: the COPY fails with 22P03 and the same reason
my @refused = grep { $mut[$_][5] ne 'ok' } 0 .. $#mut;
my @sample = @refused[ map { $_ * int(@refused / 300) } 0 .. 299 ];
copy_binary_file("$dir/refused-$_.bin", [ $_, $mut[$_][2] ]) for @sample;
my $copy_res = $node->safe_psql('postgres', qq{
	DO \$\$
	DECLARE
		i int;
		st text;
		msg text;
	BEGIN
		CREATE TEMP TABLE copy_res (id int, r text);
		FOR i IN SELECT unnest('{@{[ join(',', @sample) ]}}'::int[]) LOOP
			BEGIN
				EXECUTE format('COPY copied FROM %L (FORMAT binary)', '$dir/refused-' || i || '.bin');
				INSERT INTO copy_res VALUES (i, 'LOADED');
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				INSERT INTO copy_res VALUES (i, 'ERR ' || st || ' ' || msg);
			END;
		END LOOP;
	END \$\$;
	SELECT id, r FROM copy_res;
	SELECT count(*) FROM copied;});
my @copy_lines = split /\n/, $copy_res;
my $copied_count = pop @copy_lines;
my @copy_wrong = grep {
	my ($id, $r) = split /\|/, $_, 2;
	!($r =~ /^ERR 22P03 invalid bloomfilter: / && $r eq $res{recv}{$id});
} @copy_lines;
is(scalar(@copy_lines), 300, 'COPY FROM (FORMAT binary): 300 files of one refused mutant each');
is(scalar(@copy_wrong), 0,
	'COPY FROM (FORMAT binary): each is refused with 22P03 and the reason the binary parameter got')
  or diag(join("\n", @copy_wrong[ 0 .. ($#copy_wrong < 20 ? $#copy_wrong : 19) ]));
is($copied_count, scalar(@accepted), 'COPY FROM (FORMAT binary): no refused row was stored');

# ---- the accepted mutants in a GiST index ------------------------------------------
# filters of every geometry, family and type tag in one index: building it
# and querying through it may refuse (incompatible filters), never crash
# (unconditionally: a renamed or missing operator class must fail, not skip)
is($node->safe_psql('postgres',
	q{SELECT count(*) FROM pg_opclass WHERE opcname = 'bloomfilter_gist_ops'}),
	'1', 'the GiST operator class is installed');
my ($out, $err) = ('', '');
$node->psql('postgres', 'CREATE INDEX copied_gist ON copied USING gist (f)',
	stdout => \$out, stderr => \$err);
is($err, '', 'a GiST index over every accepted mutant builds');
my $r = $node->safe_psql('postgres', q{
SET enable_seqscan = off;
CREATE FUNCTION try_index(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	st text;
BEGIN
	EXECUTE q INTO n;
	RETURN 'rows';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE;
	RETURN st;
END $$;
SELECT string_agg(r, ' ' ORDER BY r) FROM (
	SELECT DISTINCT try_index(format('SELECT count(*) FROM copied WHERE f @> %s', k)) AS r
	FROM unnest(ARRAY['42', '''x''::text', '4.2', 'true', 'inet ''10.0.0.1''',
	                  '''11111111-2222-3333-4444-555555555555''::uuid', '''\\x01''::bytea']) k
	UNION
	SELECT DISTINCT try_index(format('SELECT count(*) FROM copied WHERE f @>> (SELECT f FROM bases WHERE name = %L)', name))
	FROM bases) s;});
unlike($r, qr/XX\d\d\d/, "queries through that index answer or refuse cleanly ($r)");

# the integer-family mutants alone (any layout, size, k, seed, count; a
# parquet one of a physical type an int4 converts to): the index answers
# exactly as a sequential scan
my $q = q{
SELECT string_agg(k || ':' || (SELECT count(*) FROM int_mutants WHERE f @> k), ' ' ORDER BY k)
FROM generate_series(1, 300) k;};
$node->safe_psql('postgres', q{
CREATE TABLE int_mutants AS SELECT id, f FROM copied
WHERE get_byte(f::bytea, 32) IN (0, 1) AND get_byte(f::bytea, 33) = 0
  AND (get_byte(f::bytea, 6) <> 3 OR get_byte(f::bytea, 34) IN (0, 1, 2, 4, 5));
CREATE INDEX ON int_mutants USING gist (f);
ANALYZE int_mutants;});
my $seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
my $idx = $node->safe_psql('postgres', "SET enable_seqscan = off; $q");
like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $q"),
	qr/Index Cond: \(f @> /, '(the probes go through the index)');
is($idx, $seq, 'GiST over ' . $node->safe_psql('postgres', 'SELECT count(*) FROM int_mutants')
	  . ' integer-family mutants: 300 probes through the index equal a sequential scan');
# and so does bloomslice over the same filters
$node->safe_psql('postgres', q{
DROP INDEX int_mutants_f_idx;
CREATE INDEX int_mutants_slice ON int_mutants USING bloomslice (f);});
like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $q"),
	qr/int_mutants_slice/, '(the probes go through bloomslice)');
is($node->safe_psql('postgres', "SET enable_seqscan = off; $q"), $seq,
	'bloomslice over the integer-family mutants: 300 probes through the index equal a sequential scan');

# ---- a few as psql literals ------------------------------------------------------
my @lit_wrong;
for my $id (@sample[ 0 .. 19 ], @accepted[ 0 .. 4 ])
{
	my $t = encode_base64($mut[$id][2], '');
	my ($out, $err) = ('', '');
	$node->psql('postgres', "\\set VERBOSITY verbose\nSELECT md5('$t'::bloomfilter::bytea)",
		stdout => \$out, stderr => \$err);
	# a version-2 classic or blocked value comes back as version 1
	my $v2 = unpack('v', substr($mut[$id][2], 4, 2)) == 2;
	my $good = $mut[$id][5] eq 'ok'
	  ? ($v2 ? $out =~ /^[0-9a-f]{32}$/ : $out eq md5_hex($mut[$id][2]))
	  : $err =~ /ERROR:  22P02: invalid bloomfilter: / && $err =~ $why{ $mut[$id][5] };
	push @lit_wrong, "#$id: $out $err" unless $good;
}
is(scalar(@lit_wrong), 0, "psql literals '...'::bloomfilter: refused with 22P02, or read byte for byte")
  or diag(join("\n", @lit_wrong));

# ---- the server never went down --------------------------------------------------
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'a new connection works');
is(postmaster_pid(), $pid0, 'the postmaster is the one that started (no restart)');
is($node->safe_psql('postgres', $checkpointer_sql), $checkpointer0,
	'no crash-restart cycle: the checkpointer is still the first one');
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|was terminated|server process .* exited|PANIC|TRAP:|out of memory/,
	'the server log shows no crashed or killed backend');
unlike($log, qr/(ERROR|FATAL):  XX\d\d\d/, 'the server log shows no internal error (XX class)');
like($log, qr/ERROR:  22P03: invalid bloomfilter/, '... and it does log the refusals with their SQLSTATE');

done_testing();
