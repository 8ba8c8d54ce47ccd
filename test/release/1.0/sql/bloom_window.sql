--
-- bloomwindow: "seen in the last hour" from one value.  A ring of time
-- buckets, each a bloomfilter; adding, probing, expiry at bucket edges,
-- late keys, the union of the live buckets, the aggregate (serial and
-- parallel), I/O and its validation, errors.
--
SET TimeZone = 'UTC';

-- ---------------------------------------------------------------------
-- Construction
-- ---------------------------------------------------------------------

-- the defaults: 6 buckets of 10 minutes, each sized for 100000 keys so
-- that a probe of all six stays at 1%
SELECT * FROM bloom_window_params(bloom_window_empty('1 hour'));
SELECT * FROM bloom_window_params(bloom_window_empty('1 day', 24, 1000, 0.001, 'classic', 7));

-- a width that does not split into whole-microsecond buckets, months,
-- and out-of-range arguments are errors
SELECT bloom_window_empty('1 hour', 7);
SELECT bloom_window_empty('1 month');
SELECT bloom_window_empty('0 seconds');
SELECT bloom_window_empty('-1 hour');
SELECT bloom_window_empty('1 hour', 0);
SELECT bloom_window_empty('1 hour', 1025);
SELECT bloom_window_empty('1 hour', 6, 0);
SELECT bloom_window_empty('1 hour', 6, 1000, 1.0);
SELECT bloom_window_empty('1 hour', 6, 1000, 0.01, 'round');
SELECT bloom_window_empty('1 hour', 1024, 100000000, 0.0001);

-- ---------------------------------------------------------------------
-- Adding and probing; the edges of the window
-- ---------------------------------------------------------------------

-- one key at 10:05: its bucket is 10:00-10:10, so it is found from 10:00
-- (the start of its bucket) until 11:00 (six buckets later), exclusive:
-- between 50 minutes and an hour after it was added
CREATE TABLE win_one AS
SELECT bloom_window_add(bloom_window_empty('1 hour', 6, 1000), 'alice', '2024-05-01 10:05') AS w;
SELECT at, bloom_window_contains(w, 'alice', at) AS alice, bloom_window_contains(w, 'bob', at) AS bob
FROM win_one, (VALUES (timestamptz '2024-05-01 09:59:59.999999'), ('2024-05-01 10:00'),
	('2024-05-01 10:05'), ('2024-05-01 10:59:59.999999'), ('2024-05-01 11:00')) t(at)
ORDER BY at;

-- one row per slot: the bucket it holds, and whether it is live at a time
SELECT * FROM bloom_window_info((SELECT w FROM win_one), '2024-05-01 10:30');

-- keys of other types follow bloomfilter's family rules: int4 and int8
-- are one family, text is another
SELECT bloom_window_contains(bloom_window_add(bloom_window_empty('1 hour', 6, 1000), 42, '2024-05-01 10:00'),
	42::bigint, '2024-05-01 10:30') AS int8_finds_int4;
SELECT bloom_window_add(w, 42, '2024-05-01 10:05') FROM win_one;
SELECT bloom_window_contains(w, 42, '2024-05-01 10:05') FROM win_one;

-- NULL key or time: the window as it was; a NULL window stays NULL; probes are strict
SELECT bloom_window_add(w, NULL::text, '2024-05-01 10:05')::bytea = w::bytea AS null_key_unchanged,
       bloom_window_add(w, 'x', NULL)::bytea = w::bytea AS null_time_unchanged,
       bloom_window_add(NULL, 'x', '2024-05-01 10:05') IS NULL AS null_window,
       bloom_window_contains(w, 'alice', NULL) IS NULL AS null_probe
FROM win_one;

-- infinite times are errors
SELECT bloom_window_add(w, 'x', 'infinity') FROM win_one;
SELECT bloom_window_contains(w, 'alice', '-infinity') FROM win_one;

-- an empty window answers false and has no family yet
SELECT bloom_window_contains(bloom_window_empty('1 hour'), 'x', '2024-05-01 10:00') AS empty_contains,
       (bloom_window_params(bloom_window_empty('1 hour'))).key_family;

-- ---------------------------------------------------------------------
-- Rotation and late keys
-- ---------------------------------------------------------------------

-- a key per bucket from 10:00 to 12:00: a key in a newer bucket clears
-- the slot of the bucket six older, so at 12:05 the window keeps 11:10
-- to 12:00 (0 is the 12:00 bucket's slot, once 11:00's)
CREATE TABLE win_rot AS
WITH RECURSIVE r(i, w) AS (
	SELECT 0, bloom_window_add(bloom_window_empty('1 hour', 6, 1000), 'k0',
		timestamptz '2024-05-01 10:00')
	UNION ALL
	SELECT i + 1, bloom_window_add(w, 'k' || (i + 1),
		timestamptz '2024-05-01 10:00' + (i + 1) * interval '10 minutes')
	FROM r WHERE i < 12)
SELECT w FROM r WHERE i = 12;
SELECT slot, bucket_start, added, live FROM bloom_window_info((SELECT w FROM win_rot), '2024-05-01 12:05');
SELECT string_agg(k, ' ' ORDER BY i) AS seen_at_1205
FROM win_rot, generate_series(0, 12) i, LATERAL (SELECT 'k' || i AS k) s
WHERE bloom_window_contains(w, k, '2024-05-01 12:05');

-- a key older than every bucket kept is dropped: the window is unchanged
SELECT bloom_window_add(w, 'late', '2024-05-01 11:09:59')::bytea = w::bytea AS late_dropped,
       bloom_window_add(w, 'late', '2024-05-01 11:10')::bytea = w::bytea AS oldest_kept_changes
FROM win_rot;

-- asked about an earlier time, the window sees only the buckets it keeps
SELECT bloom_window_contains(w, 'k1', '2024-05-01 10:30') AS evicted_key,
       bloom_window_contains(w, 'k8', '2024-05-01 11:30') AS kept_key
FROM win_rot;

-- ---------------------------------------------------------------------
-- "Seen in the last hour" over an events table, against the exact answer
-- ---------------------------------------------------------------------

-- 60000 events of 3000 users, in time order: user u is active for half
-- an hour from 10:00 + (u mod 240) minutes, so by 14:30 some users are
-- still active, others long gone.  The last event is at 14:29:59.
CREATE TABLE events AS
SELECT 'user' || (g % 3000) AS user_id,
       timestamptz '2024-05-01 10:00' + ((g % 3000) % 240) * interval '1 minute'
		+ ((g::bigint * 7919) % 1800) * interval '1 second' AS at
FROM generate_series(1, 60000) g
ORDER BY 2;
ANALYZE events;

CREATE TABLE win AS
SELECT bloom_window_agg(user_id, at, '1 hour', 6, 3000, 0.01) AS w FROM events;

-- At 14:25 the window's live buckets are 13:30 to 14:20, covering
-- [13:30, 14:30): the granularity is a bucket, so "the last hour" is the
-- last 55 minutes here (50 to 60 in general).  One query answers "seen in
-- the last hour"; the exact sets come from the events themselves.  No
-- user seen is missed; users gone before 13:30 and users never seen are
-- refused but for the odd false positive.
WITH exact AS (
	SELECT DISTINCT user_id FROM events WHERE at >= '2024-05-01 13:30' AND at < '2024-05-01 14:30'),
classified AS (
	SELECT 'user' || u AS user_id,
	       CASE WHEN u >= 3000 THEN 'never seen'
	            WHEN EXISTS (SELECT 1 FROM exact e WHERE e.user_id = 'user' || u) THEN 'seen in the window'
	            ELSE 'seen before the window' END AS truth
	FROM generate_series(0, 5999) u)
SELECT truth, count(*) AS users,
       count(*) FILTER (WHERE bloom_window_contains(w, user_id, '2024-05-01 14:25')) AS window_says_seen
FROM classified, win
GROUP BY truth ORDER BY truth;

-- at 12:30 (the window keeps only 13:30 on): nothing
SELECT count(*) AS found_at_1230
FROM events, win
WHERE bloom_window_contains(w, user_id, '2024-05-01 12:30');

-- the window's union at 14:25 is an ordinary bloomfilter: probed with <@,
-- inspected with bloom_info, and agreeing with the window on every member
SELECT (bloom_info(f)).added, (bloom_info(f)).key_family,
       (SELECT count(*) FROM events WHERE at >= '2024-05-01 13:30' AND NOT user_id <@ f) AS union_false_negatives,
       (SELECT count(*) FROM events
		WHERE at >= '2024-05-01 13:30' AND user_id <@ f <> bloom_window_contains(w, user_id, '2024-05-01 14:25')) AS disagreements_on_members
FROM win, LATERAL (SELECT bloom_window_filter(w, '2024-05-01 14:25') AS f) s;
SELECT sum(added) AS live_adds, count(*) AS live_buckets,
       (SELECT count(*) FROM events WHERE at >= '2024-05-01 13:30') AS events_since_1330
FROM win, bloom_window_info(w, '2024-05-01 14:25') WHERE live;

-- the union at a time no bucket is live: empty, of the window's family
SELECT (bloom_info(bloom_window_filter(w, '2024-05-01 18:00'))).added,
       (bloom_info(bloom_window_filter(w, '2024-05-01 18:00'))).key_family
FROM win;

-- ---------------------------------------------------------------------
-- The aggregate: same bytes whatever the plan or order
-- ---------------------------------------------------------------------

-- the aggregate gives the window bloom_window_add gives, row by row
CREATE FUNCTION pg_temp.add_all(n int) RETURNS bloomwindow LANGUAGE plpgsql AS $$
DECLARE
	w bloomwindow := bloom_window_empty('1 hour', 6, 3000, 0.01);
	r record;
BEGIN
	FOR r IN SELECT user_id, at FROM events ORDER BY user_id, at LIMIT n LOOP
		w := bloom_window_add(w, r.user_id, r.at);
	END LOOP;
	RETURN w;
END $$;
SELECT pg_temp.add_all(500)::bytea =
       (SELECT bloom_window_agg(user_id, at, '1 hour', 6, 3000, 0.01)
		FROM (SELECT * FROM events ORDER BY user_id, at LIMIT 500) s)::bytea AS agg_equals_adds;

-- row order does not matter
SELECT (SELECT bloom_window_agg(user_id, at, '1 hour', 6, 3000, 0.01) FROM (SELECT * FROM events ORDER BY at DESC) s)::bytea =
       (SELECT w FROM win)::bytea AS order_free;

-- parallel: workers scan different stretches of time, so their partial
-- windows hold different (and stale) buckets; combining keeps the newest
-- range only, giving the bytes of the serial plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_window_agg(user_id, at, '1 hour', 6, 3000, 0.01) FROM events;
CREATE TABLE win_parallel AS
SELECT bloom_window_agg(user_id, at, '1 hour', 6, 3000, 0.01) AS w FROM events;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT p.w::bytea = s.w::bytea AS parallel_equals_serial FROM win_parallel p, win s;

-- per group, and with the short form (6 buckets of 100000 keys at 1%)
SELECT substr(user_id, 1, 5) AS grp,
       (bloom_window_params(bloom_window_agg(user_id, at, '1 hour'))).bits
FROM events GROUP BY 1 ORDER BY 1;

-- NULL keys and times are skipped; no rows give NULL; NULL parameters are errors
SELECT sum(added) FROM bloom_window_info(
	(SELECT bloom_window_agg(k, t, '1 hour', 6, 100, 0.01)
	 FROM (VALUES ('a', timestamptz '2024-05-01 10:00'), (NULL, '2024-05-01 10:00'), ('b', NULL)) v(k, t)),
	'2024-05-01 10:00');
SELECT bloom_window_agg(k, now(), '1 hour') IS NULL AS no_rows FROM (SELECT 'a' WHERE false) v(k);
SELECT bloom_window_agg(user_id, at, '1 hour', NULL, 100, 0.01) FROM events;

-- ---------------------------------------------------------------------
-- I/O: text, bytea and binary, and every way bad bytes are refused
-- ---------------------------------------------------------------------

SELECT w::text::bloomwindow::bytea = w::bytea AS text_round_trip,
       w::bytea::bloomwindow::bytea = w::bytea AS bytea_round_trip,
       bloomwindow_send(w) = w::bytea AS send_is_bytea,
       substr(w::bytea, 1, 4) AS magic,
       length(w::bytea) AS bytes
FROM win;

\copy win TO 'results/bloom_window.bin' (FORMAT binary)
CREATE TABLE win_copy (LIKE win);
\copy win_copy FROM 'results/bloom_window.bin' (FORMAT binary)
SELECT c.w::bytea = w.w::bytea AS binary_copy_round_trip FROM win_copy c, win w;

-- the text form starts with the base64 of "BLMW"
SELECT left(w::text, 8) FROM win_one;

-- bad bytes: every input path validates
SELECT 'not base64!'::bloomwindow;
SELECT ''::bloomwindow;
SELECT (SELECT f::bytea FROM (SELECT bloom_empty(10) AS f) s)::bloomwindow;
SELECT (bloom_empty(10)::text)::bloomwindow;
SELECT substr(w::bytea, 1, 63)::bloomwindow FROM win_one;
SELECT (w::bytea || '\x00'::bytea)::bloomwindow FROM win_one;
-- a flipped bit in a slot's filter: the window's checksum catches it
SELECT set_byte(w::bytea, 200, get_byte(w::bytea, 200) # 1)::bloomwindow FROM win_one;
-- a newer version
SELECT set_byte(w::bytea, 4, 2)::bloomwindow FROM win_one;
-- bucket counts
SELECT set_byte(w::bytea, 40, 0)::bloomwindow FROM win_one;

-- header fields are checked before the checksum, so they read as what
-- they are; SQL cannot forge XXH3, so the checks behind the checksum (each
-- slot) are tested in the core unit tests and the fuzzer (fuzz_window)
SELECT set_byte(w::bytea, 46, 1)::bloomwindow FROM win_one;
SELECT set_byte(w::bytea, 44, 17)::bloomwindow FROM win_one;
