-- test/pg_upgrade/values.sql: every stored value of every type as text,
-- with what it answers: members (must all be true), 64 keys of another
-- range as a bit string, its info and the md5 of its portable bytes.
-- test/pg_upgrade.sh compares the output before and after pg_upgrade
-- (byte for byte) and looks for members=f.  sups_grow is left out: it
-- starts as a copy of sups and the new cluster writes into it.
SET TimeZone = 'UTC';
SET client_min_messages = error;
SET jit = off;

SELECT 'bloomfilter ' || id || ' ' || coalesce(v::text, 'NULL') FROM vals_bloomfilter ORDER BY id;
SELECT 'countingbloom ' || id || ' ' || coalesce(v::text, 'NULL') FROM vals_countingbloom ORDER BY id;
SELECT 'scalablebloom ' || id || ' ' || coalesce(v::text, 'NULL') FROM vals_scalablebloom ORDER BY id;
SELECT 'bloomwindow ' || id || ' ' || coalesce(v::text, 'NULL') FROM vals_bloomwindow ORDER BY id;
SELECT 'docs ' || id || ' ' || coalesce(f::text, 'NULL') FROM docs ORDER BY id;
SELECT 'sups ' || id || ' ' || coalesce(f::text, 'NULL') FROM sups ORDER BY id;

SELECT format('bloomfilter %s members=%s batch=%s others=%s info=%s bytes=%s', id,
	(SELECT coalesce(bool_and(has_key(v, fam, k)), v IS NOT NULL OR cardinality(keys) = 0) FROM unnest(keys[1:200]) k),
	(SELECT coalesce(bool_and(b), v IS NOT NULL OR cardinality(keys) = 0) FROM unnest(has_keys(v, fam, keys)) b),
	(SELECT string_agg(coalesce(has_key(v, fam, k)::int::text, 'n'), '' ORDER BY o)
	 FROM unnest(gen_keys(id, fam, 50001, 50064)) WITH ORDINALITY u(k, o)),
	(SELECT i::text FROM bloom_info(v) i), md5(v::bytea))
FROM vals_bloomfilter ORDER BY id;
SELECT format('countingbloom %s members=%s others=%s counts=%s info=%s bytes=%s', id,
	(SELECT coalesce(bool_and(has_key(v, fam, k)), v IS NOT NULL OR cardinality(keys) = 0) FROM unnest(keys[1:200]) k),
	(SELECT string_agg(coalesce(has_key(v, fam, k)::int::text, 'n'), '' ORDER BY o)
	 FROM unnest(gen_keys(id, fam, 50001, 50064)) WITH ORDINALITY u(k, o)),
	(SELECT string_agg(cbloom_count(v, k)::text, ',' ORDER BY o)
	 FROM unnest(keys[1:20]) WITH ORDINALITY u(k, o) WHERE fam = 'text'),
	(SELECT i::text FROM cbloom_info(v) i), md5(v::bytea))
FROM vals_countingbloom ORDER BY id;
SELECT format('scalablebloom %s members=%s others=%s settings=%s stages=%s bytes=%s', id,
	(SELECT coalesce(bool_and(has_key(v, fam, k)), v IS NOT NULL OR cardinality(keys) = 0) FROM unnest(keys[1:200]) k),
	(SELECT string_agg(coalesce(has_key(v, fam, k)::int::text, 'n'), '' ORDER BY o)
	 FROM unnest(gen_keys(id, fam, 50001, 50064)) WITH ORDINALITY u(k, o)),
	(SELECT s::text FROM sbloom_settings(v) s),
	(SELECT string_agg(s::text, ';' ORDER BY s.index) FROM sbloom_filters(v) s), md5(v::bytea))
FROM vals_scalablebloom ORDER BY id;
SELECT format('bloomwindow %s members=%s others=%s params=%s bytes=%s', id,
	(SELECT coalesce(bool_and(has_key(v, fam, k, last_at)), v IS NOT NULL OR cardinality(keys) = 0) FROM unnest(keys[1:200]) k),
	(SELECT string_agg(coalesce(has_key(v, fam, k, last_at)::int::text, 'n'), '' ORDER BY o)
	 FROM unnest(gen_keys(id, fam, 50001, 50064)) WITH ORDINALITY u(k, o)),
	(SELECT p::text FROM bloom_window_params(v) p), md5(v::bytea))
FROM vals_bloomwindow ORDER BY id;
