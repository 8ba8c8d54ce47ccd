
# Mutation testing of the ways the bytes of the newer value types enter the
# server: the TYPE cast from bytea, text input (base64) and binary receive
# (a libpq binary parameter).  The types are listed in %types below, each
# with the valid values its mutants come from, its checksum rule and the
# check an accepted value must pass; the mutation machinery is shared, so
# a new type is a new entry (see the comment above %types).
#
# Per type, 10,000 deterministic mutants: bit flips anywhere,
# truncations, extensions, header fields (named and random) set to
# interesting values, inner fields (a window's slots), geometry changes
# with the buffer resized to match, and garbage behind the magic.  Many
# have their checksum recomputed (a small C helper built against xxhash.h)
# so that the checks after the checksum are reached.  Each goes through the
# three ways in, and the test checks that:
#   - the server never crashes (same postmaster and checkpointer, the
#     connections keep working, no backend killed by a signal in the log);
#   - every refusal is SQLSTATE 22P03 (bytea, recv) or 22P02 (text) with a
#     message "invalid <type>: ...", and message and detail are the same
#     through every path;
#   - a mutant that differs from its base and was not resealed is refused;
#   - the refusals reach every check of the type's validation order;
#   - every accepted mutant behaves: its info functions agree with its
#     header, ::bytea and ::text round-trip byte for byte, and key
#     operations answer or refuse with a non-internal SQLSTATE (never XX);
#     for countingbloom the cast to bloomfilter gives a filter that
#     bloomfilter's validation accepts and that answers as the counting
#     filter does, and for bloomwindow bloom_window_filter(w, at) gives one
#     that bloomfilter's validation accepts and that finds every key
#     bloom_window_contains(w, key, at) finds (it is the union of the live
#     buckets, so it may find more).
# Counts per SQLSTATE and per reason are printed with note().
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use FindBin;
use lib $FindBin::RealBin;
use BloomCluster;
use IPC::Run;
use MIME::Base64 qw(encode_base64);
use Test::More;
no warnings 'portable';    # 64-bit header values

my $node = PostgreSQL::Test::Cluster->new('vmut');
$node->init;
$node->append_conf('postgresql.conf',
	"listen_addresses = '127.0.0.1'\nmax_parallel_workers_per_gather = 0\n"
	  . "log_error_verbosity = verbose\nlog_min_error_statement = panic\n"
	  . "timezone = 'UTC'\n");
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

# ---- shared SQL: little-endian fields and a key of each family ----------------
$node->safe_psql('postgres', <<'EOSQL');
CREATE FUNCTION le(b bytea, off int, n int) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT sum(get_byte(b, off + i)::numeric * (256::numeric ^ i)) FROM generate_series(0, n - 1) i
$$;
-- a key of a family, as an SQL expression; family 11 with another type
-- tag than inet's gets inet anyway, which must be refused as a mismatch
CREATE FUNCTION vkey(fam int, tag numeric) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE fam
		WHEN 0 THEN '42::int8'
		WHEN 1 THEN '42::int4'
		WHEN 2 THEN '4.2::float8'
		WHEN 3 THEN '4.20::numeric'
		WHEN 4 THEN '''x''::text'
		WHEN 5 THEN '''\x01''::bytea'
		WHEN 6 THEN '''11111111-2222-3333-4444-555555555555''::uuid'
		WHEN 7 THEN 'true'
		WHEN 8 THEN 'date ''2001-02-03'''
		WHEN 9 THEN 'timestamp ''2001-02-03 04:05'''
		WHEN 10 THEN 'timestamptz ''2001-02-03 04:05+00'''
		ELSE 'inet ''10.9.9.9''' END
$$;
EOSQL

# ---- the types ----------------------------------------------------------------
# Each type:
#   checksum_at  where its 8-byte checksum field is: the reseal rule is
#                XXH3-64 (seed 0) of every byte of the value except those
#                8, stored there little-endian (true of BLMF, BLMC, BLMW
#                and BLMS alike)
#   bases        name => [SQL giving a value, weight]; the value's text
#                form must be valid (it is the base of the mutants)
#   check        SQL creating vcheck_<type>(v <type>, b bytea) RETURNS
#                text: 'OK', 'OK refused <sqlstate>' (a key operation
#                refused cleanly) or 'BEHAVE <what is wrong>'; it must catch
#                its own errors
#   reasons      the messages of the type's validation order (after
#                "invalid <type>: "); each must be reached
#   fields       (optional) sub(base bytes) giving named fields to set:
#                [offset, size, [absolute values], [deltas]]
#   mutators     (optional) name => sub(base bytes) giving (bytes, reseal)
# Adding a type: an entry with magic, checksum_at, bases, check and
# reasons; fields and mutators sharpen the search but are not needed.
my $INT64_MIN = -9223372036854775807 - 1;
my $INT64_MAX = 9223372036854775807;
my $MAX_NBITS = 6_442_450_432;

my %types;

$types{countingbloom} = {
	magic       => 'BLMC',
	checksum_at => 44,
	bases       => {
		c4_int_blocked => [ 'SELECT cbloom_agg(g, 200, 0.01) FROM generate_series(1, 200) g', 4 ],
		c8_text_classic => [
			q{SELECT cbloom_empty_counters(1024, 5, 'classic', -7, 8) + 'a' + 'b' + 'c' + 'dd' + 'a'}, 4 ],
		c4_empty => [ 'SELECT cbloom_empty(100)', 3 ],
		c8_empty_classic => [ q{SELECT cbloom_empty_counters(128, 3, 'classic', 99, 8)}, 3 ],
		# 4-bit counters saturated by one key added 20 times, and a removal
		c4_saturated => [
			q{SELECT cbloom_agg(k, 10, 0.01) - 'y'::text
			  FROM (SELECT 'x'::text AS k FROM generate_series(1, 20) UNION ALL SELECT 'y') s}, 3 ],
		c8_removed => [
			'SELECT cbloom_agg(g, 100, 0.01, 8) - 5 - 7 - 5000 FROM generate_series(1, 100) g', 3 ],
		c4_inet_classic => [
			q{SELECT cbloom_empty_counters(640, 4, 'classic', 5) + inet '10.0.0.1' + inet '10.0.0.2'
			         + inet '10.0.0.3'}, 3 ],
		c8_tstz_blocked => [
			q{SELECT cbloom_agg(timestamptz '2024-01-01 00:00+00' + g * interval '1 hour', 40, 0.01, 8)
			  FROM generate_series(1, 40) g}, 3 ],
		c4_uuid_k32 => [
			q{SELECT cbloom_empty_counters(512, 32, 'blocked', 123) + md5('1')::uuid + md5('2')::uuid},
			3 ],
	},
	reasons => [
		'the buffer is shorter than a countingbloom header',
		'the buffer does not start with the countingbloom magic "BLMC"',
		'this is a bloomfilter (magic "BLMF"), not a counting Bloom filter',
		'the format version is not one this build reads',
		'the layout is unknown',
		'the number of hashes is out of range',
		'the number of counters is zero, too large, or not a whole number of words or blocks',
		'the counter width is not 4 or 8',
		'the length does not match the number of counters and the counter width in the header',
		'the key family or type tag is invalid',
		'reserved header fields are not zero',
		'the checksum does not match the contents',
		q{the counters do not agree with the header's item count and key family},
	],
	fields => sub {
		return (
			[ 4,  2, [ 0, 2, 0x100, 0xffff ], [] ],                              # version
			[ 6,  1, [ 0, 1, 2, 3, 255 ], [] ],                                   # layout
			[ 7,  1, [ 0, 1, 31, 32, 33, 255 ], [] ],                             # k
			[ 16, 8, [ 0, 64, 512, 1024, $MAX_NBITS, 1_610_612_224, 1_610_612_224 + 512,
					805_305_856, 805_305_856 + 512, -512 ], [ 1, -1, 64, -64, 512, -512 ] ], # m
			[ 24, 8, [ 0, 1, -1, $INT64_MAX ], [ 1, -1 ] ],                       # items
			[ 32, 2, [ 0, 1, 4, 10, 11, 12, 0xffff ], [] ],                       # family
			[ 34, 2, [ 0, 1, 3, 4, 5, 8, 16, 0x104, 0x408, 0xffff ], [] ],        # width
			[ 36, 4, [ 0, 1, 25, 869, 0x80000000 ], [] ],                         # type tag
			[ 40, 4, [ 0, 1, 0xffffffff ], [] ],                                  # reserved
		);
	},
	mutators => {
		# another width and number of counters, the buffer made to match
		resize => sub {
			my ($b) = @_;
			my $width = pick(4, 8, 8, 4, 2, 16);
			my $m = pick(64, 128, 512, 1024, 1536, 4096, 65, 100, 520);
			substr($b, 6, 1) = chr(pick(1, 2, 2, 1, 0)) if rnd(3) == 0;
			substr($b, 34, 2) = pack('v', $width);
			substr($b, 16, 8) = pack('Q<', $m);
			my $want = 52 + int($m * ($width == 2 || $width == 16 ? 4 : $width) / 8);
			if (length($b) > $want) { $b = substr($b, 0, $want); }
			else { $b .= (rnd(2) ? "\0" : chr(rnd(256))) x ($want - length $b); }
			return ($b, rnd(5) != 0);
		},
		# a bloomfilter's magic on counting bytes
		plain_magic => sub {
			my ($b) = @_;
			substr($b, 0, 4) = 'BLMF';
			return ($b, rnd(2));
		},
	},
	check => <<'EOSQL',
CREATE FUNCTION vcheck_countingbloom(v countingbloom, b bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	i record;
	u record;
	fi record;
	f bloomfilter;
	g countingbloom;
	h countingbloom;
	fam int := get_byte(b, 32) + 256 * get_byte(b, 33);
	k text := vkey(fam, le(b, 36, 4));
	p bool;
	q bool;
	n int;
	st text;
	msg text;
BEGIN
	-- nothing here may fail for a value the server accepted
	BEGIN
		SELECT * INTO i FROM cbloom_info(v);
		IF i.counters <> le(b, 16, 8) OR i.counter_bits <> get_byte(b, 34)
		   OR i.hashes <> get_byte(b, 7) OR i.bytes <> octet_length(b)
		   OR i.layout <> (CASE get_byte(b, 6) WHEN 1 THEN 'classic' ELSE 'blocked' END)
		   OR i.format_version <> 1
		   OR i.nonzero_counters NOT BETWEEN 0 AND i.counters
		   OR i.saturated_counters NOT BETWEEN 0 AND i.nonzero_counters
		   OR NOT (i.est_fpr BETWEEN 0 AND 1) THEN
			RETURN 'BEHAVE cbloom_info disagrees with the header: ' || row_to_json(i)::text;
		END IF;
		IF v::bytea <> b THEN
			RETURN 'BEHAVE v::bytea differs from the bytes that came in';
		END IF;
		IF v::text <> translate(encode(b, 'base64'), E'\n', '') THEN
			RETURN 'BEHAVE v::text is not the base64 of the bytes that came in';
		END IF;
		IF (v::text)::countingbloom::bytea <> b THEN
			RETURN 'BEHAVE the text round trip changes the bytes';
		END IF;
		-- the cast's filter passes bloomfilter's own validation
		f := v::bloomfilter;
		IF f::bytea::bloomfilter::bytea <> f::bytea OR (f::text)::bloomfilter::bytea <> f::bytea THEN
			RETURN 'BEHAVE the cast to bloomfilter does not round-trip';
		END IF;
		SELECT * INTO fi FROM bloom_info(f);
		IF fi.bits <> i.counters OR fi.bits_set <> i.nonzero_counters OR fi.hashes <> i.hashes
		   OR fi.layout <> i.layout OR fi.seed <> i.seed THEN
			RETURN 'BEHAVE the cast to bloomfilter has another geometry or other bits: '
				|| row_to_json(fi)::text;
		END IF;
		SELECT * INTO u FROM cbloom_info(v | v);
		IF u.counters <> i.counters OR u.nonzero_counters <> i.nonzero_counters THEN
			RETURN 'BEHAVE v | v does not have the counters of v';
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		RETURN 'BEHAVE ' || st || ' ' || msg;
	END;
	-- key operations: a key of another family or of an unknown type tag is
	-- refused, cleanly
	BEGIN
		EXECUTE format('SELECT cbloom_contains($1, %1$s), $2 @> %1$s, cbloom_count($1, %1$s)', k)
			INTO p, q, n USING v, f;
		IF p IS DISTINCT FROM q THEN
			RETURN 'BEHAVE the counting filter and its bloomfilter answer differently';
		END IF;
		IF (n > 0) IS DISTINCT FROM p THEN
			RETURN 'BEHAVE cbloom_count and cbloom_contains disagree';
		END IF;
		IF i.nonzero_counters = 0 AND p THEN
			RETURN 'BEHAVE a filter with no counter set answered true';
		END IF;
		EXECUTE format('SELECT $1 + %s', k) INTO g USING v;
		EXECUTE format('SELECT cbloom_contains($1, %1$s), cbloom_count($1, %1$s)', k) INTO p, n USING g;
		IF NOT p OR n < 1 THEN
			RETURN 'BEHAVE a key added is not found';
		END IF;
		EXECUTE format('SELECT $1 - %s', k) INTO h USING g;
		-- without saturation, removing the key added gives the filter back
		IF fam <> 0 AND le(b, 24, 8) < 1000000
		   AND (SELECT saturated_counters FROM cbloom_info(g)) = 0 AND h::bytea <> v::bytea THEN
			RETURN 'BEHAVE adding a key and removing it does not give the filter back';
		END IF;
		EXECUTE format('SELECT $1 - %s', k) INTO h USING v;
		IF (SELECT nonzero_counters FROM cbloom_info(h)) > i.nonzero_counters THEN
			RETURN 'BEHAVE a removal set counters';
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		IF st LIKE 'XX%' OR st NOT LIKE '_____' THEN
			RETURN 'BEHAVE ' || st || ' ' || msg;
		END IF;
		RETURN 'OK refused ' || st;
	END;
	RETURN 'OK';
END $$;
EOSQL
};

# a slot of a window: offset and length from the header of bytes $b
sub window_slots
{
	my ($b) = @_;
	my $g = unpack('V', substr($b, 40, 4));
	my $m = unpack('Q<', substr($b, 16, 8));
	my $slot = 64 + $m / 8;
	return map { [ 64 + $_ * $slot, $slot ] } 0 .. $g - 1;
}

$types{bloomwindow} = {
	magic       => 'BLMW',
	checksum_at => 56,
	bases       => {
		# 90 minutes of keys in a window of one hour: every slot live
		w_int_blocked => [
			q{SELECT bloom_window_agg(g, timestamptz '2024-05-01 10:00+00' + g * interval '1 minute',
			                          '1 hour', 6, 100, 0.01) FROM generate_series(1, 90) g}, 4 ],
		# three used slots and one empty
		w_text_classic => [
			q{SELECT bloom_window_add(bloom_window_add(bloom_window_add(
			    bloom_window_empty('4 hours', 4, 50, 0.01, 'classic', 7),
			    'a'::text, '2024-05-01 10:00+00'), 'b'::text, '2024-05-01 11:30+00'),
			    'c'::text, '2024-05-01 13:59+00')}, 4 ],
		w_empty => [ q{SELECT bloom_window_empty('1 hour', 3, 10)}, 3 ],
		w_empty_classic => [ q{SELECT bloom_window_empty('1 day', 8, 20, 0.05, 'classic', -5)}, 2 ],
		# before and after 2000-01-01: negative and zero bucket numbers
		w_inet_2000 => [
			q{SELECT bloom_window_agg(('10.0.0.' || g)::inet,
			                          timestamptz '1999-12-31 22:00+00' + g * interval '5 minutes',
			                          '2 hours', 4, 50, 0.01) FROM generate_series(1, 30) g}, 4 ],
		w_uuid_single => [
			q{SELECT bloom_window_agg(md5(g::text)::uuid, timestamptz '2024-01-01 00:00+00' + g * interval '1 second',
			                          '10 minutes', 1, 20, 0.01) FROM generate_series(1, 20) g}, 3 ],
		# 12 buckets, 8 of them used, with gaps
		w_tstz_12 => [
			q{SELECT bloom_window_agg(timestamptz '2024-01-01 00:00+00' + g * interval '1 minute',
			                          timestamptz '2024-03-01 00:00+00' + (g % 8) * interval '3 hours',
			                          '36 hours', 12, 30, 0.02) FROM generate_series(1, 100) g}, 2 ],
	},
	reasons => [
		'the buffer is shorter than a bloomwindow header',
		'the buffer does not start with the bloomwindow magic "BLMW"',
		'the format version is not one this build reads',
		'the layout is unknown',
		'the number of hashes is out of range',
		'the number of bits is zero, too large, or not a whole number of words or blocks',
		'the number of buckets is out of range',
		'the bucket width is not positive or the window width is not the number of buckets times it',
		'the window would exceed the largest value',
		'the length does not match the number of buckets and bits in the header',
		'the key family or type tag is invalid',
		'reserved fields are not zero',
		'the checksum does not match the contents',
		q{a bucket's filter is invalid},
		q{a bucket's filter does not have the window's geometry},
		'a bucket number is out of range or not in its ring position',
		'an empty slot holds keys',
		'a bucket records no added key or another key family than the window',
		'a bucket is older than the buckets the window keeps',
		q{the window's key family does not match its buckets},
	],
	fields => sub {
		my ($b) = @_;
		my $g = unpack('V', substr($b, 40, 4));
		my $bw = unpack('q<', substr($b, 32, 8));
		my @f = (
			[ 4,  2, [ 0, 2, 0xffff ], [] ],                                      # version
			[ 6,  1, [ 0, 1, 2, 3 ], [] ],                                        # layout
			[ 7,  1, [ 0, 1, 32, 33 ], [ 1, -1 ] ],                               # k
			[ 16, 8, [ 0, 64, 512, $MAX_NBITS, $MAX_NBITS + 512, -512 ], [ 64, -64, 512, -512 ] ], # m
			[ 24, 8, [ 0, -1, $INT64_MAX, $INT64_MIN ], [ 1, -1, $bw, -$bw ] ],  # width
			[ 32, 8, [ 0, -1, 1, $INT64_MAX, $INT64_MIN ], [ 1, -1 ] ],           # bucket width
			[ 40, 4, [ 0, 1, 2, 1023, 1024, 1025, 0xffffffff ], [ 1, -1 ] ],     # buckets
			[ 44, 2, [ 0, 1, 4, 11, 12, 0xffff ], [] ],                           # family
			[ 46, 2, [ 0, 1, 0x8000 ], [] ],                                      # flags
			[ 48, 4, [ 0, 1, 869, 0x80000000 ], [] ],                             # type tag
			[ 52, 4, [ 0, 1, 0xffffffff ], [] ],                                  # reserved
		);
		# every slot: its bucket number, its filter's header, its pad
		use integer;
		my $lo = $INT64_MIN / $bw + 1;
		my $hi = $INT64_MAX / $bw - 1;
		for my $s (window_slots($b))
		{
			my ($o, $len) = @$s;
			next if $o + $len > length $b;
			my $fo = $o + 8;
			push @f,
			  [ $o, 8, [ $INT64_MIN, 0, -1, $lo, $lo - 1, $hi, $hi + 1, $INT64_MAX ],
				[ 1, -1, $g, -$g, 2 * $g, -2 * $g, $g - 1, 1 - $g ] ],
			  [ $fo, 4, [ 0x464d4c42, 0x574d4c42 ], [] ],                     # BLMF, BLMW
			  [ $fo + 4,  2, [ 0, 2 ], [] ],
			  [ $fo + 6,  1, [ 0, 1, 2, 3 ], [] ],
			  [ $fo + 7,  1, [ 0, 1, 33 ], [ 1, -1 ] ],
			  [ $fo + 8,  8, [ 0 ], [ 1 ] ],                                  # seed
			  [ $fo + 16, 8, [ 0, 512 ], [ 64, -64, 512 ] ],                   # m
			  [ $fo + 24, 8, [ 0, 1, -1 ], [ 1, -1 ] ],                        # added
			  [ $fo + 32, 2, [ 0, 1, 4, 11, 12 ], [] ],                        # family
			  [ $fo + 34, 2, [ 0, 1 ], [] ],                                   # flags
			  [ $fo + 36, 4, [ 0, 869, 25 ], [] ],                             # type tag
			  [ $fo + 40, 4, [ 0, 1 ], [] ],                                   # reserved
			  [ $fo + 44, 8, [ 0, 1 ], [] ],                                   # checksum
			  [ $o + $len - 4, 4, [ 0, 1, 0xffffffff ], [] ];                  # pad
		}
		return @f;
	},
	mutators => {
		# another number of buckets (the width following it, or not), slots
		# dropped or empty ones appended
		reslot => sub {
			my ($b) = @_;
			my @slots = window_slots($b);
			my $g = @slots;
			my $ng = pick(1, 2, 3, $g - 1, $g + 1, 2 * $g, 1024) || 1;
			my ($o0, $len) = @{ $slots[0] };
			my $empty = pack('q<', $INT64_MIN) . substr($b, $o0 + 8, $len - 8);
			substr($empty, 8 + 24, 16) = "\0" x 16;    # added, family, flags, tag
			substr($empty, 8 + 52, $len - 8 - 52) = "\0" x ($len - 8 - 52);
			my $body = join '', map { substr($b, $_->[0], $len) } @slots[ 0 .. ($ng < $g ? $ng : $g) - 1 ];
			$body .= $empty x ($ng - $g) if $ng > $g;
			my $h = substr($b, 0, 64);
			substr($h, 40, 4) = pack('V', $ng);
			if (rnd(4))
			{
				use integer;
				substr($h, 24, 8) = pack('q<', unpack('q<', substr($h, 32, 8)) * $ng);
			}
			return ($h . $body, rnd(5) != 0);
		},
		# two slots exchanged, or one copied over another
		swap => sub {
			my ($b) = @_;
			my @slots = window_slots($b);
			return ($b, 1) if @slots < 2;
			my ($i, $j) = (rnd(scalar @slots), rnd(scalar @slots));
			my ($oi, $len) = @{ $slots[$i] };
			my $oj = $slots[$j][0];
			my ($si, $sj) = (substr($b, $oi, $len), substr($b, $oj, $len));
			substr($b, $oi, $len) = $sj;
			substr($b, $oj, $len) = $si if rnd(2);
			return ($b, 1);
		},
		# bits set in one slot's filter
		slot_bits => sub {
			my ($b) = @_;
			my @slots = window_slots($b);
			my ($o, $len) = @{ pick(@slots) };
			for (1 .. 1 + rnd(8))
			{
				my $i = $o + 8 + 52 + rnd($len - 8 - 52 - 4);
				substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) | (1 << rnd(8)));
			}
			return ($b, 1);
		},
	},
	check => <<'EOSQL',
CREATE FUNCTION vcheck_bloomwindow(v bloomwindow, b bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	p record;
	fi record;
	f bloomfilter;
	g bloomwindow;
	fam int := get_byte(b, 44) + 256 * get_byte(b, 45);
	k text := vkey(fam, le(b, 48, 4));
	newest timestamptz;
	at timestamptz;
	i int;
	n int;
	nlive int;
	c bool;
	q bool;
	st text;
	msg text;
	refused text := '';
BEGIN
	-- nothing here may fail for a value the server accepted
	BEGIN
		SELECT * INTO p FROM bloom_window_params(v);
		IF p.buckets <> le(b, 40, 4) OR p.bits <> le(b, 16, 8) OR p.hashes <> get_byte(b, 7)
		   OR p.bytes <> octet_length(b)
		   OR p.layout <> (CASE get_byte(b, 6) WHEN 1 THEN 'classic' ELSE 'blocked' END)
		   OR (p.key_family = 'none') <> (fam = 0)
		   OR extract(epoch FROM p.bucket_width) * 1000000 <> le(b, 32, 8)
		   OR extract(epoch FROM p.width) * 1000000 <> le(b, 24, 8) THEN
			RETURN 'BEHAVE bloom_window_params disagrees with the header: ' || row_to_json(p)::text;
		END IF;
		IF v::bytea <> b THEN
			RETURN 'BEHAVE v::bytea differs from the bytes that came in';
		END IF;
		IF v::text <> translate(encode(b, 'base64'), E'\n', '') THEN
			RETURN 'BEHAVE v::text is not the base64 of the bytes that came in';
		END IF;
		IF (v::text)::bloomwindow::bytea <> b THEN
			RETURN 'BEHAVE the text round trip changes the bytes';
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		RETURN 'BEHAVE ' || st || ' ' || msg;
	END;
	-- at times around the newest bucket (a crafted bucket number may put
	-- them past timestamptz's range: refused, cleanly), the filter of the
	-- live buckets passes bloomfilter's validation and answers as the window
	newest := coalesce(p.newest_end, timestamptz '2024-05-01 12:00+00');
	FOR i IN 1 .. 6
	LOOP
		BEGIN
			at := newest - (ARRAY[interval '1 microsecond', p.width / 2,
				p.width - interval '1 microsecond', p.width, 2 * p.width, -p.width])[i];
			SELECT count(*), count(*) FILTER (WHERE live) INTO n, nlive FROM bloom_window_info(v, at);
			IF n <> p.buckets THEN
				RETURN 'BEHAVE bloom_window_info does not give a row per slot';
			END IF;
			f := bloom_window_filter(v, at);
			IF f::bytea::bloomfilter::bytea <> f::bytea OR (f::text)::bloomfilter::bytea <> f::bytea THEN
				RETURN 'BEHAVE bloom_window_filter gives a filter that does not round-trip';
			END IF;
			SELECT * INTO fi FROM bloom_info(f);
			IF fi.bits <> p.bits OR fi.hashes <> p.hashes OR fi.layout <> p.layout OR fi.seed <> p.seed
			   OR (nlive = 0 AND fi.bits_set <> 0) THEN
				RETURN 'BEHAVE bloom_window_filter has another geometry or bits of no live bucket: '
					|| row_to_json(fi)::text;
			END IF;
			EXECUTE format('SELECT bloom_window_contains($1, %1$s, $3), $2 @> %1$s', k)
				INTO c, q USING v, f, at;
			-- the union of the live buckets holds every key a bucket holds
			-- (not the reverse: OR-ed bits give more false positives)
			IF c AND NOT q THEN
				RETURN 'BEHAVE bloom_window_contains finds a key bloom_window_filter does not, at ' || at;
			END IF;
			IF c IS NULL OR q IS NULL THEN
				RETURN 'BEHAVE a probe answered NULL';
			END IF;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
			IF st LIKE 'XX%' OR st NOT LIKE '_____' THEN
				RETURN 'BEHAVE ' || st || ' ' || msg;
			END IF;
			refused := ' refused ' || st;
		END;
	END LOOP;
	-- a key added at the newest time is found then
	BEGIN
		at := newest - interval '1 microsecond';
		EXECUTE format('SELECT bloom_window_add($1, %s, $2)', k) INTO g USING v, at;
		EXECUTE format('SELECT bloom_window_contains($1, %s, $2)', k) INTO c USING g, at;
		IF NOT c THEN
			RETURN 'BEHAVE a key added is not found';
		END IF;
		IF (g::text)::bloomwindow::bytea <> g::bytea THEN
			RETURN 'BEHAVE a window with a key added does not round-trip';
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		IF st LIKE 'XX%' OR st NOT LIKE '_____' THEN
			RETURN 'BEHAVE ' || st || ' ' || msg;
		END IF;
		refused := ' refused ' || st;
	END;
	RETURN 'OK' || refused;
END $$;
EOSQL
};

# the entries of a scalablebloom: offset and length from bytes $b
sub scalable_entries
{
	my ($b) = @_;
	my @e;
	my $o = 68;
	for (1 .. unpack('V', substr($b, 56, 4)))
	{
		last if $o + 28 + 52 > length $b;
		my $len = 28 + 52 + unpack('Q<', substr($b, $o + 28 + 16, 8)) / 8;
		push @e, [ $o, $len ];
		$o += $len;
	}
	return @e;
}
sub dbl { return unpack('q<', pack('d<', $_[0])); }    # a double's bits, as a field value

$types{scalablebloom} = {
	magic       => 'BLMS',
	checksum_at => 60,
	bases       => {
		# grown from 50 to four sub-filters
		s_int_grown => [
			'SELECT bloom_add_all(sbloom_empty(50), ARRAY(SELECT g FROM generate_series(1, 600) g))', 4 ],
		s_text_classic_g4 => [
			q{SELECT bloom_add_all(sbloom_empty(20, 0.05, 4, 0.5, 'classic', -7),
			                       ARRAY(SELECT 'k' || g FROM generate_series(1, 300) g))}, 4 ],
		s_empty => [ 'SELECT sbloom_empty(100)', 3 ],
		s_agg_inet => [ q{SELECT sbloom_agg(('10.0.0.' || g)::inet) FROM generate_series(1, 50) g}, 3 ],
		# a union: levels repeat
		s_union => [
			q{SELECT bloom_add_all(sbloom_empty(30), ARRAY(SELECT g FROM generate_series(1, 100) g))
			       | bloom_add_all(sbloom_empty(30), ARRAY(SELECT g FROM generate_series(500, 540) g))}, 3 ],
		s_from_bloom => [ q{SELECT (bloom_empty_bits(1024, 3, 'blocked', 5) + 'x' + 'y')::scalablebloom}, 2 ],
	},
	reasons => [
		'the buffer is shorter than a scalablebloom header',
		'the buffer does not start with the scalablebloom magic "BLMS"',
		'the format version is not one this build reads',
		'the container kind is unknown',
		'the layout, growth factor, target rate, tightening ratio or initial capacity is out of range',
		'the key family or type tag is invalid',
		'reserved header fields are not zero',
		'the number of sub-filters is zero or too large',
		'a sub-filter is not a valid bloomfilter',
		q{a sub-filter's layout, seed, tag or key family differs from the container's},
		q{a sub-filter's level, capacity or rate does not follow the growth schedule},
		'the length does not match the sub-filters the header announces',
		'the checksum does not match the contents',
		'the sub-filters record more added keys than the container',
	],
	fields => sub {
		my ($b) = @_;
		my @f = (
			[ 4,  2, [ 0, 2, 0xffff ], [] ],                                          # version
			[ 6,  1, [ 0, 1, 2, 255 ], [] ],                                          # kind
			[ 7,  1, [ 0, 1, 2, 3 ], [] ],                                            # layout
			[ 16, 8, [ 0, dbl(1), dbl(-0.01), dbl(0.5), dbl(1e-300), 0x7ff8000000000000 ], [ 1, -1 ] ], # fpr
			[ 24, 8, [ 0, dbl(1), dbl(0.5), dbl(0.9), 0x7ff0000000000000 ], [ 1, -1 ] ], # tightening
			[ 32, 8, [ 0, 1, 1 << 40, (1 << 40) + 1, -1 ], [ 1, -1 ] ],               # initial capacity
			[ 40, 8, [ 0, 1, -1 ], [ 1, -1 ] ],                                        # added
			[ 48, 2, [ 0, 1, 4, 11, 12 ], [] ],                                       # family
			[ 50, 1, [ 0, 1, 2, 3, 4, 8 ], [] ],                                      # growth
			[ 51, 1, [ 0, 1 ], [] ],                                                  # flags
			[ 52, 4, [ 0, 869, 0x80000000 ], [] ],                                    # type tag
			[ 56, 4, [ 0, 1, 2, 1024, 1025 ], [ 1, -1 ] ],                            # filters
		);
		for my $e (scalable_entries($b))
		{
			my ($o, $len) = @$e;
			my $fo = $o + 28;
			push @f,
			  [ $o,      8, [ 0, 1, 1 << 40, (1 << 40) + 1 ], [ 1, -1 ] ],        # capacity
			  [ $o + 8,  8, [ 0, dbl(0.5) ], [ 1, -1 ] ],                          # rate
			  [ $o + 16, 8, [ 0, 1 ], [] ],                                        # tag
			  [ $o + 24, 4, [ 0, 1, 63, 64 ], [ 1, -1 ] ],                         # level
			  [ $fo + 6,  1, [ 1, 2, 3 ], [] ],
			  [ $fo + 7,  1, [ 0, 1, 33 ], [ 1, -1 ] ],
			  [ $fo + 8,  8, [ 0 ], [ 1 ] ],                                      # seed
			  [ $fo + 16, 8, [ 0, 512 ], [ 64, -64, 512 ] ],                       # m
			  [ $fo + 24, 8, [ 0, 1, -1 ], [ 1, -1 ] ],                            # added
			  [ $fo + 32, 2, [ 0, 1, 4, 11 ], [] ],                                # family
			  [ $fo + 44, 8, [ 0, 1 ], [] ];                                       # checksum
		}
		return @f;
	},
	mutators => {
		# two entries exchanged, or the last one dropped with the count following
		entries => sub {
			my ($b) = @_;
			my @e = scalable_entries($b);
			if (@e >= 2 && rnd(2))
			{
				my ($i, $j) = (rnd(scalar @e), rnd(scalar @e));
				($i, $j) = ($j, $i) if $j < $i;
				return ($b, 1) if $i == $j;
				my ($oi, $li) = @{ $e[$i] };
				my ($oj, $lj) = @{ $e[$j] };
				$b = substr($b, 0, $oi) . substr($b, $oj, $lj) . substr($b, $oi + $li, $oj - $oi - $li)
				  . substr($b, $oi, $li) . substr($b, $oj + $lj);
				return ($b, 1);
			}
			my ($ol, $ll) = @{ $e[-1] };
			$b = substr($b, 0, $ol);
			substr($b, 56, 4) = pack('V', scalar(@e) - 1) if rnd(4);
			return ($b, 1);
		},
	},
	check => <<'EOSQL',
CREATE FUNCTION vcheck_scalablebloom(v scalablebloom, b bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	i record;
	x record;
	u record;
	g scalablebloom;
	fam int := get_byte(b, 48) + 256 * get_byte(b, 49);
	k text := vkey(fam, le(b, 52, 4));
	p bool;
	n int;
	st text;
	msg text;
BEGIN
	-- nothing here may fail for a value the server accepted
	BEGIN
		SELECT * INTO i FROM bloom_info(v);
		SELECT count(*) AS n, sum(bits) AS bits, sum(bits_set) AS bits_set INTO x FROM sbloom_filters(v);
		IF i.bytes <> octet_length(b) OR i.format_version <> 1
		   OR i.layout <> (CASE get_byte(b, 7) WHEN 1 THEN 'classic' ELSE 'blocked' END)
		   OR x.n <> le(b, 56, 4) OR (SELECT filters FROM sbloom_settings(v)) <> x.n
		   OR i.bits <> x.bits OR i.bits_set <> x.bits_set
		   OR NOT (i.est_fpr BETWEEN 0 AND 1) THEN
			RETURN 'BEHAVE bloom_info or sbloom_filters disagrees with the header: ' || row_to_json(i)::text;
		END IF;
		IF v::bytea <> b THEN
			RETURN 'BEHAVE v::bytea differs from the bytes that came in';
		END IF;
		IF v::text <> translate(encode(b, 'base64'), E'\n', '') THEN
			RETURN 'BEHAVE v::text is not the base64 of the bytes that came in';
		END IF;
		IF (v::text)::scalablebloom::bytea <> b THEN
			RETURN 'BEHAVE the text round trip changes the bytes';
		END IF;
		PERFORM bloom_fpr(v), bloom_cardinality(v);
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		RETURN 'BEHAVE ' || st || ' ' || msg;
	END;
	-- key operations and the union with itself: may refuse cleanly
	BEGIN
		EXECUTE format('SELECT bloom_contains($1, %s)', k) INTO p USING v;
		IF i.bits_set = 0 AND p THEN
			RETURN 'BEHAVE a filter with no bit set answered true';
		END IF;
		EXECUTE format('SELECT $1 + %s', k) INTO g USING v;
		EXECUTE format('SELECT bloom_contains($1, %s)', k) INTO p USING g;
		IF NOT p THEN
			RETURN 'BEHAVE a key added is not found';
		END IF;
		IF (g::text)::scalablebloom::bytea <> g::bytea THEN
			RETURN 'BEHAVE a filter with a key added does not round-trip';
		END IF;
		g := v | v;
		IF (g::text)::scalablebloom::bytea <> g::bytea THEN
			RETURN 'BEHAVE v | v does not round-trip';
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		IF st LIKE 'XX%' OR st NOT LIKE '_____' THEN
			RETURN 'BEHAVE ' || st || ' ' || msg;
		END IF;
		RETURN 'OK refused ' || st;
	END;
	RETURN 'OK';
END $$;
EOSQL
};

# a type this build does not have yet (scalablebloom before its merge) is
# left out, and said so
my @type_names = grep {
	my $have = $node->safe_psql('postgres', "SELECT to_regtype('$_') IS NOT NULL") eq 't';
	note("$_: not in this build, not tested") unless $have;
	$have;
} sort keys %types;
my $PER_TYPE = 10_000;

# ---- a deterministic PRNG (xorshift32; the same stream on every machine) ----
my $rng = 0x1F2E3D4C;
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

# ---- the bases ------------------------------------------------------------------
$node->safe_psql('postgres', 'CREATE TABLE bases (type text, name text, b bytea, PRIMARY KEY (type, name))');
my %base_bytes;    # type => name => bytes
for my $t (@type_names)
{
	my $bases = $types{$t}{bases};
	$node->safe_psql('postgres',
		join('', map { "INSERT INTO bases SELECT '$t', '$_', ($bases->{$_}[0])::bytea;" } sort keys %$bases));
	for my $row (split /\n/, $node->safe_psql('postgres',
		"SELECT name, encode(b, 'hex') FROM bases WHERE type = '$t'"))
	{
		my ($name, $hex) = split /\|/, $row;
		$base_bytes{$t}{$name} = pack('H*', $hex);
	}
	is(scalar(keys %{ $base_bytes{$t} }), scalar(keys %$bases), "$t: every base value builds");
	is(scalar(grep { substr($_, 0, 4) ne $types{$t}{magic} } values %{ $base_bytes{$t} }), 0,
		"$t: every base value starts with $types{$t}{magic}");
}

# ---- the mutations ----------------------------------------------------------------
# a field of $n bytes set to $v (absolute) or moved by $d (delta), little-endian
my %fmt = (1 => 'C', 2 => 'v', 4 => 'V', 8 => 'q<');
sub set_abs
{
	my ($b, $off, $n, $v) = @_;
	return $b if length($b) < $off + $n;
	$v %= (1 << (8 * $n)) if $n < 8;
	substr($b, $off, $n) = pack($fmt{$n}, $v);
	return $b;
}
sub set_delta
{
	my ($b, $off, $n, $d) = @_;
	return $b if length($b) < $off + $n;
	my $cur = unpack($fmt{$n}, substr($b, $off, $n));
	my $v;
	{
		use integer;
		$v = $cur + $d;
	}
	return set_abs($b, $off, $n, $v);
}

# a field of a type-specific list, or any aligned field of the header
my %fields_of;    # type => base => the named fields of that base
sub mutate_field
{
	my ($t, $base, $b, $header_only) = @_;
	$fields_of{$t}{$base} //=
	  [ $types{$t}{fields} ? $types{$t}{fields}->($base_bytes{$t}{$base}) : () ];
	my @f = @{ $fields_of{$t}{$base} };
	@f = grep { $_->[0] < $types{$t}{checksum_at} } @f if $header_only;
	if (@f && rnd(3))
	{
		my ($off, $n, $abs, $deltas) = @{ pick(@f) };
		return set_delta($b, $off, $n, pick(@$deltas)) if @$deltas && rnd(3) == 0;
		return set_abs($b, $off, $n, pick(@$abs)) if @$abs;
	}
	my $n = pick(1, 2, 4, 8);
	my $lim = $header_only ? $types{$t}{checksum_at} : length($b) - $n;
	return $b if $lim <= 4;
	my $off = 4 + rnd($lim - 4);
	$off -= $off % $n;
	return pick(
		sub { set_abs($b, $off, $n, pick(0, 1, 2, 3, 4, 8, 32, 33, 64, 255, 512, -1, $INT64_MIN, $INT64_MAX)) },
		sub { set_delta($b, $off, $n, pick(1, -1, 2, -2, 64)) },
		sub { set_abs($b, $off, $n, unpack($fmt{$n}, rnd_bytes($n))) })->();
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

# [type, base, class, bytes, reseal]
sub mutate
{
	my ($t, $base) = @_;
	my $ty = $types{$t};
	my $b = $base_bytes{$t}{$base};
	my $len = length $b;
	my $ck = $ty->{checksum_at};
	my @classes = qw(flip flip flip_reseal flip_reseal body_reseal body_reseal truncate extend
	  field field field_reseal field_reseal field_reseal field_reseal inner_reseal inner_reseal
	  inner_reseal multi multi garbage);
	push @classes, (sort keys %{ $ty->{mutators} || {} }) x 2;
	my $class = pick(@classes);
	my $reseal = 0;
	if ($class eq 'flip')
	{
		$b = flip_bits($b, 1 + rnd(4));
	}
	elsif ($class eq 'flip_reseal')
	{
		$b = flip_bits($b, 1 + rnd(4));
		$reseal = 1;
	}
	elsif ($class eq 'body_reseal')
	{
		$b = flip_bits($b, 1 + rnd(6), $ck + 8);
		$reseal = 1;
	}
	elsif ($class eq 'truncate')
	{
		my $n = rnd(3) ? rnd($len) : pick(0, 1, 4, 5, 6, 7, $ck - 1, $ck, $ck + 7, $ck + 8, $ck + 9, $len - 8, $len - 1);
		$b = substr($b, 0, $n);
		$reseal = rnd(2);
	}
	elsif ($class eq 'extend')
	{
		$b .= pick(rnd_bytes(1 + rnd(100)), "\0" x pick(1, 4, 8, 64, 512), rnd_bytes(64));
		$reseal = rnd(2);
	}
	elsif ($class eq 'field' || $class eq 'field_reseal')
	{
		$b = mutate_field($t, $base, $b, 1);
		$reseal = $class eq 'field_reseal';
	}
	elsif ($class eq 'inner_reseal')
	{
		$b = mutate_field($t, $base, $b, 0);
		$reseal = 1;
	}
	elsif ($class eq 'multi')
	{
		$b = mutate_field($t, $base, $b, rnd(2)) for 1 .. 2 + rnd(3);
		$b = flip_bits($b, rnd(3), $ck + 8);
		$reseal = rnd(2);
	}
	elsif ($class eq 'garbage')
	{
		$b = rnd_bytes(rnd(2 * $ck));
		substr($b, 0, 6) = $ty->{magic} . "\x01\0" if rnd(2) && length($b) >= 6;
		$b = $ty->{magic} . "\x01\0" . $b if rnd(3) == 0;
		$reseal = rnd(2);
	}
	else
	{
		($b, $reseal) = $ty->{mutators}{$class}->($b);
	}
	return [ $t, $base, $class, $b, $reseal ];
}

my @mut;
for my $t (@type_names)
{
	my $bases = $types{$t}{bases};
	my @pool = map { ($_) x $bases->{$_}[1] } sort keys %$bases;
	# every base as it is, and resealed as it is
	push @mut, [ $t, $_, 'same', $base_bytes{$t}{$_}, 0 ], [ $t, $_, 'same_reseal', $base_bytes{$t}{$_}, 1 ]
	  for sort keys %$bases;
	my $n = 0;
	while ($n < $PER_TYPE)
	{
		push @mut, mutate($t, pick(@pool));
		$n++;
	}
}

# ---- the C helper: checksums, and mutants as binary parameters -------------------
my ($cbin, $cerr) = build_c_helper('vmut', $dir);
BAIL_OUT("the C helper does not build: $cerr") unless defined $cbin;

{
	open my $o, '>', "$dir/raw.txt" or die;
	printf $o "%d %d %s\n", $_, $mut[$_][4] ? $types{ $mut[$_][0] }{checksum_at} : -1,
	  unpack('H*', $mut[$_][3])
	  for 0 .. $#mut;
	close $o;
	IPC::Run::run([ $cbin, 'reseal', "$dir/raw.txt", "$dir/sealed.txt" ], '2>', \$cerr)
	  or BAIL_OUT("reseal failed: $cerr");
	open my $i, '<', "$dir/sealed.txt" or die;
	while (<$i>)
	{
		my ($id, $hex) = /^(\d+) ([0-9a-f]*)$/ or die "bad line $_";
		$mut[$id][3] = pack('H*', $hex);
	}
	close $i;
}
# the helper computes the checksum the extension writes: a base resealed is
# the base
is(scalar(grep { $_->[2] eq 'same_reseal' && $_->[3] ne $base_bytes{ $_->[0] }{ $_->[1] } } @mut),
	0, 'the helper recomputes checksums exactly as the extension writes them');

my %count_class;
$count_class{ $_->[0] }{ $_->[4] ? 'resealed' : 'as mutated' }++ for @mut;
for my $t (sort keys %count_class)
{
	note("$t mutants: " . join(', ', map { "$_ $count_class{$t}{$_}" } sort keys %{ $count_class{$t} }));
}

# The cluster runs with restart_after_crash off: after a crash nothing more
# can be learnt from it, so the crash checks run at once and the test stops.
sub server_checks
{
	is($node->safe_psql('postgres', 'SELECT 1'), '1', 'a new connection works');
	is(postmaster_pid(), $pid0, 'the postmaster is the one that started (no restart)');
	is($node->safe_psql('postgres', $checkpointer_sql), $checkpointer0,
		'no crash-restart cycle: the checkpointer is still the first one');
	my $log = slurp_file($node->logfile);
	unlike($log, qr/terminated by signal|was terminated|server process .* exited|PANIC|TRAP:|out of memory/,
		'the server log shows no crashed or killed backend');
	unlike($log, qr/(ERROR|FATAL):  XX\d\d\d/, 'the server log shows no internal error (XX class)');
	like($log, qr/ERROR:  22P03: invalid countingbloom/, '... and it does log the refusals with their SQLSTATE');
}

sub server_down_report
{
	my $log = slurp_file($node->logfile);
	diag(join("\n", grep { /terminated by signal|Failed process was running|TRAP:|PANIC/ } split /\n/, $log));
	unlike($log, qr/terminated by signal|PANIC|TRAP:/, 'the server log shows no crashed backend');
	done_testing();
	exit 1;
}

# ---- the SQL side ------------------------------------------------------------------
$node->safe_psql('postgres', $types{$_}{check}) for @type_names;
# one way in each, with its error caught
for my $t (@type_names)
{
	my $sql = <<'EOSQL';
CREATE FUNCTION try_bytea___T__(b bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	v __T__;
	st text;
	msg text;
	det text;
BEGIN
	BEGIN
		v := b::__T__;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
		RETURN 'ERR ' || st || ' ' || translate(msg, E'\n', ' ') || ' | ' || translate(det, E'\n', ' ');
	END;
	RETURN vcheck___T__(v, b);
END $$;
CREATE FUNCTION try_text___T__(t text, b bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	v __T__;
	st text;
	msg text;
	det text;
BEGIN
	BEGIN
		v := t::__T__;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
		RETURN 'ERR ' || st || ' ' || translate(msg, E'\n', ' ') || ' | ' || translate(det, E'\n', ' ');
	END;
	RETURN vcheck___T__(v, b);
END $$;
EOSQL
	$sql =~ s/__T__/$t/g;
	$node->safe_psql('postgres', $sql);
}
$node->safe_psql('postgres', 'CREATE TABLE mutants (id int PRIMARY KEY, type text, b bytea)');

# the checks can fail: bytes that are not the value, and a value that is
# not what its bytes say, are caught
is( $node->safe_psql('postgres', q{
	SELECT vcheck_countingbloom(cbloom_empty(100), (cbloom_empty(100) + 1)::bytea) LIKE 'BEHAVE %',
	       vcheck_countingbloom(cbloom_empty(100) + 1, (cbloom_empty(100) + 1)::bytea),
	       vcheck_bloomwindow(bloom_window_empty('1 hour', 3, 10),
	                          bloom_window_empty('1 hour', 3, 10, 0.01, 'blocked', 1)::bytea) LIKE 'BEHAVE %',
	       vcheck_bloomwindow(w, w::bytea)
	FROM (SELECT bloom_window_add(bloom_window_empty('1 hour', 3, 10), 1, '2024-01-01 00:00+00') AS w) s}),
	't|OK|t|OK', 'the checks pass good values and catch values that are not their bytes');

sub copy_escape
{
	my ($s) = @_;
	$s =~ s/\\/\\\\/g;
	return $s;
}
{
	open my $o, '>', "$dir/mutants.copy" or die;
	print $o join("\t", $_, $mut[$_][0], '\\\\x' . unpack('H*', $mut[$_][3])), "\n" for 0 .. $#mut;
	close $o;
}
$node->safe_psql('postgres', "COPY mutants FROM '$dir/mutants.copy'");

# ---- every mutant through every way in ----------------------------------------------
my $t0 = time;
my %res;    # path => id => result
{
	my $q = join("\nUNION ALL\n", map {
		"SELECT 'bytea', id, try_bytea_$_(b) FROM mutants WHERE type = '$_'
		 UNION ALL
		 SELECT 'text', id, try_text_$_(translate(encode(b, 'base64'), E'\\n', ''), b) FROM mutants WHERE type = '$_'"
	} @type_names);
	# psql, not safe_psql: if a backend dies, the verdicts below say which
	# way in and the server checks at the end say how
	my ($out, $err) = ('', '');
	my $rc = $node->psql('postgres', "$q;\nSELECT 'same-session', 0, '1';",
		stdout => \$out, stderr => \$err, on_error_stop => 1);
	is($rc, 0, 'the bytea cast and text input paths ran to the end') or diag($err);
	server_down_report() if $rc;
	for my $row (split /\n/, $out)
	{
		my ($path, $id, $r) = split /\|/, $row, 3;
		$res{$path}{$id} = $r;
	}
}
is($res{'same-session'}{0}, '1', 'after the SQL paths, the same session still answers');
note('bytea and text paths took ' . (time - $t0) . ' s');

$t0 = time;
{
	open my $o, '>', "$dir/recv.in" or die;
	printf $o "%d %s %s\n", $_, $mut[$_][0], unpack('H*', $mut[$_][3]) for 0 .. $#mut;
	close $o;
	my $conn = 'host=127.0.0.1 port=' . $node->port . ' dbname=postgres';
	my $ok = IPC::Run::run([ $cbin, 'recv', $conn, "$dir/recv.in", "$dir/recv.out" ], '2>', \$cerr);
	ok($ok, 'the binary-parameter client went through every mutant') or diag($cerr);
	if (open my $i, '<', "$dir/recv.out")
	{
		while (<$i>)
		{
			chomp;
			my ($id, $r) = split / /, $_, 2;
			$res{recv}{$id} = $r;
		}
		close $i;
	}
	server_down_report() unless $ok;
}
is($res{recv}{final}, '1', 'after the binary path, the same connection still answers');
note('binary parameter path took ' . (time - $t0) . ' s');

# ---- the verdicts -----------------------------------------------------------------------
my %sqlstate = (bytea => '22P03', recv => '22P03', text => '22P02');
for my $t (@type_names)
{
	my @ids = grep { $mut[$_][0] eq $t } 0 .. $#mut;
	my (%reasons, $accepted);
	for my $path (qw(bytea text recv))
	{
		my (@wrong, %count);
		for my $id (@ids)
		{
			my (undef, $base, $class, $b, $reseal) = @{ $mut[$id] };
			my $r = $res{$path}{$id} // '(no result)';
			my $changed = $b ne $base_bytes{$t}{$base};
			my $why;
			if ($r =~ /^ERR (\S+) (.*)$/)
			{
				my ($st, $msg) = ($1, $2);
				$count{$st}++;
				my ($reason) = $msg =~ /^invalid \Q$t\E: (.*?) \| /;
				$why = "refused with $st, not $sqlstate{$path}" if $st ne $sqlstate{$path};
				$why //= 'the message does not say what is wrong' unless defined $reason;
				$reasons{$reason}++ if $path eq 'bytea' && defined $reason;
				$why //= 'the base itself is refused' unless $changed;
			}
			elsif ($r =~ /^OK( refused (\S+))?$/)
			{
				$count{ $1 ? "accepted, a key operation refused ($2)" : 'accepted' }++;
				$accepted++ if $path eq 'bytea' && $changed;
				$why = 'accepted though changed and not resealed' if $changed && !$reseal;
			}
			else
			{
				$count{misbehaved}++;
				$why = 'misbehaved';
			}
			push @wrong, sprintf("#%d %s/%s (hex %s...): %s: %s",
				$id, $base, $class, substr(unpack('H*', $b), 0, 100), $why, $r)
			  if $why;
		}
		note("$t, $path: " . join(', ', map { "$_ $count{$_}" } sort keys %count));
		is(scalar(@wrong), 0,
			"$t, $path: all " . scalar(@ids) . " refused with $sqlstate{$path} saying why, or accepted and behaving; changed bytes not resealed always refused")
		  or diag(join("\n", @wrong[ 0 .. ($#wrong < 30 ? $#wrong : 29) ]));
	}

	# the three ways in say the same thing, message and detail
	my @disagree = grep {
		my $y = $res{bytea}{$_} // '';
		my $x = $res{text}{$_} // '';
		my $r = $res{recv}{$_} // '';
		$x =~ s/^ERR 22P02/ERR 22P03/;
		!($y eq $r && $y eq $x);
	} @ids;
	is(scalar(@disagree), 0, "$t: bytea cast, text input and binary receive agree on every mutant")
	  or diag(join("\n", map { "#$_: bytea=$res{bytea}{$_}\n  text=$res{text}{$_}\n  recv=$res{recv}{$_}" }
			  @disagree[ 0 .. ($#disagree < 20 ? $#disagree : 19) ]));

	note("$t reasons: " . join('; ', map { "$reasons{$_} $_" } sort keys %reasons));
	my @missed = grep { !$reasons{$_} } @{ $types{$t}{reasons} };
	is(join("\n", @missed), '', "$t: the refusals reach every check of the validation order");
	my @unknown = grep { my $r = $_; !grep { $_ eq $r } @{ $types{$t}{reasons} } } sort keys %reasons;
	is(join("\n", @unknown), '', "$t: every refusal gives one of the validation order's reasons");
	ok(($accepted // 0) >= 300, "$t: many changed mutants are accepted (" . ($accepted // 0) . ') and checked');
}

# ---- the server never went down --------------------------------------------------------
server_checks();

done_testing();
