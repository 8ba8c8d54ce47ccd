--
-- Frozen values: what bloomfilter 1.0 stored must read back with the same
-- answers in every later build (src/core/FORMAT.md, "Compatibility").
-- test/vectors/frozen/1.0/values.tsv was written once by 1.0 and is never
-- regenerated: a failure here is a bug of this build, not of the file.
-- For every value of the four types and every aggregate state: the text
-- form reads and prints back byte for byte (and its bytes are the base64's),
-- the info functions say what they said then (estimates within a relative
-- 1e-12), every member probes true and every non-member answers as
-- recorded; each state's final function gives the recorded value.
-- The file is read from the top of the tree (make installcheck's directory).
--
SET TimeZone = 'UTC';
SET IntervalStyle = postgres;
SET extra_float_digits = 1;

CREATE TYPE frozen_mood AS ENUM ('sad', 'ok', 'happy');
CREATE AGGREGATE frozen_auto(anyelement) (SFUNC = bloomfilter_auto_agg_trans, STYPE = bloomfilter_aggstate);

CREATE TABLE frozen_raw (line text);
\copy frozen_raw FROM 'test/vectors/frozen/1.0/values.tsv' WITH (FORMAT csv, DELIMITER E'\x02', QUOTE E'\x01')
CREATE TABLE fz AS
SELECT n, r[1] AS kind, r[2] AS name, r[3] AS f3, r[4] AS f4, r[5] AS f5, r[6] AS f6,
       r[7] AS f7, r[8] AS f8
FROM (SELECT row_number() OVER () AS n, string_to_array(line, E'\t') AS r
      FROM frozen_raw WHERE line NOT LIKE '#%') s;

-- what the file holds
SELECT kind, count(*) FROM fz GROUP BY kind ORDER BY kind;
SELECT f3 AS type, count(*) FROM fz WHERE kind = 'value' GROUP BY f3 ORDER BY f3;
SELECT f3 AS kind, count(*) FROM fz WHERE kind = 'aggstate' GROUP BY f3 ORDER BY f3;
SELECT count(DISTINCT f5) AS key_families_probed FROM fz WHERE kind IN ('member', 'nonmember');

-- a value's text read as its type and printed again
CREATE FUNCTION frozen_text(typ text, txt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT $1::%s::text', typ) INTO r USING txt;
	RETURN r;
END $$;
-- its bytes (cast to bytea, or the binary send of a state)
CREATE FUNCTION frozen_bytes(typ text, txt text) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE r bytea;
BEGIN
	IF typ = 'bloomfilter_aggstate' THEN
		r := bloomfilter_aggstate_send(txt::bloomfilter_aggstate);
	ELSE
		EXECUTE format('SELECT $1::%s::bytea', typ) INTO r USING txt;
	END IF;
	RETURN r;
END $$;
-- the info record, as make_frozen.py's INFO took it
CREATE FUNCTION frozen_info(typ text, txt text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE r jsonb;
BEGIN
	IF typ = 'bloomfilter' THEN
		r := row_to_json(bloom_info(txt::bloomfilter))::jsonb;
	ELSIF typ = 'countingbloom' THEN
		r := row_to_json(cbloom_info(txt::countingbloom))::jsonb;
	ELSIF typ = 'scalablebloom' THEN
		SELECT json_build_object('info', bloom_info(v), 'filters',
				(SELECT json_agg(f ORDER BY f.index) FROM sbloom_filters(v) f))::jsonb
			INTO r FROM (SELECT txt::scalablebloom AS v) s;
	ELSE
		SELECT json_build_object('params', bloom_window_params(v), 'slots',
				(SELECT json_agg(i ORDER BY i.slot)
				 FROM bloom_window_info(v, '2026-01-01 06:00:00+00') i))::jsonb
			INTO r FROM (SELECT txt::bloomwindow AS v) s;
	END IF;
	RETURN r;
END $$;
-- equal, numbers within a relative 1e-12 (estimates are sums of logarithms)
CREATE FUNCTION frozen_same(a jsonb, b jsonb) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE k text;
BEGIN
	IF jsonb_typeof(a) = 'number' AND jsonb_typeof(b) = 'number' THEN
		RETURN a::numeric = b::numeric OR
			abs(a::numeric - b::numeric) <= 1e-12 * greatest(abs(a::numeric), abs(b::numeric));
	ELSIF jsonb_typeof(a) = 'object' AND jsonb_typeof(b) = 'object' THEN
		IF (SELECT array_agg(x ORDER BY x) FROM jsonb_object_keys(a) x)
			IS DISTINCT FROM (SELECT array_agg(x ORDER BY x) FROM jsonb_object_keys(b) x) THEN
			RETURN false;
		END IF;
		FOR k IN SELECT jsonb_object_keys(a) LOOP
			IF NOT frozen_same(a -> k, b -> k) THEN RETURN false; END IF;
		END LOOP;
		RETURN true;
	ELSIF jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN
		IF jsonb_array_length(a) <> jsonb_array_length(b) THEN RETURN false; END IF;
		FOR i IN 0 .. jsonb_array_length(a) - 1 LOOP
			IF NOT frozen_same(a -> i, b -> i) THEN RETURN false; END IF;
		END LOOP;
		RETURN true;
	END IF;
	RETURN a = b;
END $$;
-- a probe of value txt of type typ with the key literal of SQL type ktyp
CREATE FUNCTION frozen_probe(typ text, txt text, ktyp text, lit text, at text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE r boolean;
BEGIN
	IF typ = 'bloomwindow' THEN
		EXECUTE format('SELECT bloom_window_contains($1::bloomwindow, $2::%s, $3::timestamptz)', ktyp)
			INTO r USING txt, lit, at;
	ELSIF typ = 'countingbloom' THEN
		EXECUTE format('SELECT cbloom_contains($1::countingbloom, $2::%s)', ktyp) INTO r USING txt, lit;
	ELSE
		EXECUTE format('SELECT bloom_contains($1::%s, $2::%s)', typ, ktyp) INTO r USING txt, lit;
	END IF;
	RETURN r;
END $$;

CREATE TABLE fz_value AS
SELECT name, f3 AS typ, f4 AS txt FROM fz WHERE kind = 'value'
UNION ALL SELECT name, 'bloomfilter_aggstate', f4 FROM fz WHERE kind = 'aggstate';

-- every text form reads and prints back byte for byte (no row: all do)
SELECT name, typ FROM fz_value WHERE frozen_text(typ, txt) IS DISTINCT FROM txt;
-- and its bytes are those the base64 carries (no row)
SELECT name, typ FROM fz_value
WHERE frozen_bytes(typ, txt) IS DISTINCT FROM decode(txt, 'base64');
-- every format version is 1 (the versions 1.0 wrote)
SELECT count(*) AS values_of_format_version_1 FROM fz_value
WHERE get_byte(decode(txt, 'base64'), 4) = 1 AND get_byte(decode(txt, 'base64'), 5) = 0;

-- the info functions say what 1.0 said (no row)
SELECT i.name, frozen_info(v.typ, v.txt) AS now, i.f3::jsonb AS recorded
FROM fz i JOIN fz_value v USING (name)
WHERE i.kind = 'info' AND NOT frozen_same(frozen_info(v.typ, v.txt), i.f3::jsonb);
SELECT count(*) AS info_records_checked FROM fz WHERE kind = 'info';

-- every member probes true, every non-member as recorded (no row)
SELECT p.kind, p.name, p.f3 AS key_type, p.f4 AS key, p.f7 AS at, p.f8 AS recorded,
       frozen_probe(v.typ, v.txt, p.f3, p.f4, p.f7) AS now
FROM fz p JOIN fz_value v USING (name)
WHERE p.kind IN ('member', 'nonmember')
  AND frozen_probe(v.typ, v.txt, p.f3, p.f4, p.f7) IS DISTINCT FROM (p.f8 = 't');
SELECT p.kind, count(*) AS probes, count(*) FILTER (WHERE p.f8 = 't') AS recorded_true
FROM fz p WHERE p.kind IN ('member', 'nonmember') GROUP BY p.kind ORDER BY p.kind;

-- each aggregate state finalizes to the recorded value (no row)
CREATE FUNCTION frozen_final(fn text, typ text, st text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT %I($1::bloomfilter_aggstate)::%s::text', fn, typ) INTO r USING st;
	RETURN r;
END $$;
SELECT f.name, f.f3 AS final_function
FROM fz f JOIN fz_value s ON s.name = f.name AND s.typ = 'bloomfilter_aggstate'
          JOIN fz_value r ON r.name = f.f5
WHERE f.kind = 'final' AND frozen_final(f.f3, f.f4, s.txt) IS DISTINCT FROM r.txt;
SELECT count(*) AS states_finalized FROM fz WHERE kind = 'final';

-- a state goes on where it stopped: more rows into the frozen S and A
-- states of bloom_agg(x) (as INITCOND, as a coordinator combines what a
-- worker of the earlier build shipped)
DO $$
BEGIN
	EXECUTE format('CREATE AGGREGATE frozen_resume_s(anyelement) (SFUNC = bloomfilter_auto_agg_trans, '
		'STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final, INITCOND = %L)',
		(SELECT f4 FROM fz WHERE kind = 'aggstate' AND name = 'as_b_S_auto'));
	EXECUTE format('CREATE AGGREGATE frozen_resume_a(anyelement) (SFUNC = bloomfilter_auto_agg_trans, '
		'STYPE = bloomfilter_aggstate, FINALFUNC = bloomfilter_agg_final, INITCOND = %L)',
		(SELECT f4 FROM fz WHERE kind = 'aggstate' AND name = 'as_b_A_auto'));
END $$;
SELECT bloom_contains(f, 'u101'::text) AS s_state_takes_a_key,
       bloom_contains(f, 'u1'::text) AND bloom_contains(f, 'u100'::text) AS s_state_keeps_its_keys,
       (bloom_info(f)).added AS added
FROM (SELECT frozen_resume_s(x) AS f FROM (VALUES ('u101'::text)) v(x)) s;
-- the A state was made under agg_max_capacity = 65536: under another
-- setting its target differs, and it is refused, cleanly
SELECT bloom_contains(f, 123456789::int8) AS a_state_takes_a_key,
       bloom_contains(f, 0::int8) AND bloom_contains(f, 5999::int8) AS a_state_keeps_its_keys,
       (bloom_info(f)).added AS added
FROM (SELECT frozen_resume_a(x) AS f FROM (VALUES (123456789::int8)) v(x)) s;
SET bloomfilter.agg_max_capacity = 65536;
SELECT bloom_contains(f, 123456789::int8) AS a_state_takes_a_key,
       bloom_contains(f, 0::int8) AND bloom_contains(f, 5999::int8) AS a_state_keeps_its_keys,
       (bloom_info(f)).added AS added
FROM (SELECT frozen_resume_a(x) AS f FROM (VALUES (123456789::int8)) v(x)) s;
RESET bloomfilter.agg_max_capacity;

-- A stored value of a newer format version (after a library downgraded
-- below the build that wrote it) is refused, never read by this build's
-- rules.  Stored values skip input validation, so the bytes are put in a
-- table as they are through byteain, which a superuser may declare to return
-- any type: each frozen value as it is (read), then with version 3, newer
-- than any this build reads (a bloomfilter of layout parquet or spark is
-- version 2, which this build reads).
CREATE FUNCTION frozen_raw_bf(cstring) RETURNS bloomfilter AS 'byteain' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION frozen_raw_cb(cstring) RETURNS countingbloom AS 'byteain' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION frozen_raw_bw(cstring) RETURNS bloomwindow AS 'byteain' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION frozen_raw_sb(cstring) RETURNS scalablebloom AS 'byteain' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION frozen_hex(name text, version int) RETURNS text LANGUAGE sql AS $$
	SELECT '\x' || encode(set_byte(decode(f4, 'base64'), 4, version), 'hex')
	FROM fz WHERE kind = 'value' AND fz.name = frozen_hex.name $$;
CREATE TABLE frozen_stored AS
SELECT v AS version, frozen_raw_bf(frozen_hex('bf_integer_blocked', v)::cstring) AS f,
       frozen_raw_cb(frozen_hex('cb_classic_4bit', v)::cstring) AS c,
       frozen_raw_bw(frozen_hex('bw_blocked_4buckets', v)::cstring) AS w,
       frozen_raw_sb(frozen_hex('sb_grown_blocked', v)::cstring) AS s
FROM (VALUES (1), (3)) t(v);
SELECT f @> 1::int8 AS f, cbloom_contains(c, 1::int8) AS c,
       bloom_window_contains(w, 12::int8, '2026-01-01 05:59:59+00') AS w,
       bloom_contains(s, 1::int8) AS s
FROM frozen_stored WHERE version = 1;
SELECT f @> 1::int8 FROM frozen_stored WHERE version = 3;
SELECT cbloom_contains(c, 1::int8) FROM frozen_stored WHERE version = 3;
SELECT bloom_window_contains(w, 12::int8, '2026-01-01 05:59:59+00') FROM frozen_stored WHERE version = 3;
SELECT bloom_contains(s, 1::int8) FROM frozen_stored WHERE version = 3;
DROP TABLE frozen_stored;
DROP FUNCTION frozen_raw_bf, frozen_raw_cb, frozen_raw_bw, frozen_raw_sb, frozen_hex;

DROP TABLE fz_value, fz, frozen_raw;
DROP FUNCTION frozen_text, frozen_bytes, frozen_info, frozen_same, frozen_probe, frozen_final;
DROP AGGREGATE frozen_auto(anyelement), frozen_resume_s(anyelement), frozen_resume_a(anyelement);
DROP TYPE frozen_mood;
