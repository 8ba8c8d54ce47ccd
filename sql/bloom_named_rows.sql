--
-- The rows of bloom_info and cbloom_info are named composite types, not
-- anonymous records: postgres_fdw pushes bloom_info(bloom_agg(x)) down to a
-- remote and reads the row back from its text form, which an anonymous
-- record cannot be read from ("input of anonymous composite types is not
-- implemented").  The same read, here: the text form cast back.
--
SELECT pg_typeof(bloom_info(bloom_empty(100))) AS bloom_info_type,
       pg_typeof(bloom_info(sbloom_empty(100))) AS sbloom_info_type,
       pg_typeof(cbloom_info(cbloom_empty(100))) AS cbloom_info_type;

-- the column names of DESIGN.md, in order
SELECT t.typname, string_agg(a.attname, ', ' ORDER BY a.attnum) AS columns
FROM pg_type t JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0
WHERE t.typname IN ('bloom_info_result', 'cbloom_info_result')
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

-- as before: one column at a time, and the row expanded
SELECT (bloom_info(bloom_empty(1000))).bits, (cbloom_info(cbloom_empty(1000))).counters;
SELECT layout, hashes FROM cbloom_info(cbloom_empty(1000));
