--
-- The rows of bloom_info, cbloom_info, sbloom_settings and
-- bloom_window_params are named composite types, not
-- anonymous records: postgres_fdw pushes bloom_info(bloom_agg(x)) down to a
-- remote and reads the row back from its text form, which an anonymous
-- record cannot be read from ("input of anonymous composite types is not
-- implemented").  The same read, here: the text form cast back.
--
SELECT pg_typeof(bloom_info(bloom_empty(100))) AS bloom_info_type,
       pg_typeof(bloom_info(sbloom_empty(100))) AS sbloom_info_type,
       pg_typeof(cbloom_info(cbloom_empty(100))) AS cbloom_info_type,
       pg_typeof(sbloom_settings(sbloom_empty(100))) AS sbloom_settings_type,
       pg_typeof(bloom_window_params(bloom_window_empty('1 hour', 6, 100))) AS window_params_type;

-- the column names of DESIGN.md, in order
SELECT t.typname, string_agg(a.attname, ', ' ORDER BY a.attnum) AS columns
FROM pg_type t JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0
WHERE t.typname IN ('bloom_info_result', 'cbloom_info_result', 'sbloom_settings_result', 'bloom_window_params_result')
GROUP BY t.typname ORDER BY 1;

-- the text of a row read back as its type (what postgres_fdw does)
SELECT (bloom_info(f)::text)::bloom_info_result = bloom_info(f) AS bloom_info_read_back,
       ((bloom_info(f)::text)::bloom_info_result).added
FROM (SELECT bloom_agg(g) AS f FROM generate_series(1, 1000) g) s;
SELECT (cbloom_info(c)::text)::cbloom_info_result = cbloom_info(c) AS cbloom_info_read_back,
       ((cbloom_info(c)::text)::cbloom_info_result).items
FROM (SELECT cbloom_agg(g, 1000, 0.01) AS c FROM generate_series(1, 1000) g) s;
SELECT (bloom_info(s)::text)::bloom_info_result = bloom_info(s) AS sbloom_info_read_back
FROM (SELECT sbloom_agg(g) AS s FROM generate_series(1, 1000) g) s;

SELECT (sbloom_settings(s)::text)::sbloom_settings_result = sbloom_settings(s) AS sbloom_settings_read_back,
       ((sbloom_settings(s)::text)::sbloom_settings_result).filters
FROM (SELECT sbloom_agg(g) AS s FROM generate_series(1, 1000) g) s;
SELECT (bloom_window_params(w)::text)::bloom_window_params_result = bloom_window_params(w) AS window_params_read_back,
       ((bloom_window_params(w)::text)::bloom_window_params_result).buckets
FROM (SELECT bloom_window_add(bloom_window_empty('1 hour', 6, 100), 'k', now()) AS w) s;

-- as before: one column at a time, and the row expanded
SELECT (bloom_info(bloom_empty(1000))).bits, (cbloom_info(cbloom_empty(1000))).counters;
SELECT layout, hashes FROM cbloom_info(cbloom_empty(1000));
SELECT fpr, growth FROM sbloom_settings(sbloom_empty(1000));
SELECT width, buckets FROM bloom_window_params(bloom_window_empty('1 hour', 6, 100));
