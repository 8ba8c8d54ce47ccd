--
-- What SHOW and SET say before, at and after the library loads (issue #27,
-- item 11).  pg_regress starts each file in a fresh session, in which the
-- library is not loaded yet: nothing of the extension has run.
--
-- Not loaded: PostgreSQL knows no bloomfilter.* setting yet (the README says
-- so, and how to load it).
SHOW bloomfilter.join_pushdown;
-- SET before the library loads keeps the text as a placeholder ...
SET bloomfilter.default_fpr = 0;
SET bloomfilter.join_pushdown_min_rows = 'many';
SET bloomfilter.agg_max_capacity = 1000000;
SET bloomfilter.no_such_setting = 1;
-- ... and the load checks each: a WARNING names every value refused and
-- every name unknown, and a refused one keeps its default
LOAD 'bloomfilter';
SHOW bloomfilter.default_fpr;
SHOW bloomfilter.join_pushdown_min_rows;
SHOW bloomfilter.agg_max_capacity;
SHOW bloomfilter.no_such_setting;
-- loaded lazily (not preloaded): on, but inactive, and SHOW says why
SHOW bloomfilter.join_pushdown;
SELECT setting FROM pg_settings WHERE name = 'bloomfilter.join_pushdown';
SET bloomfilter.join_pushdown = off;
SHOW bloomfilter.join_pushdown;
RESET bloomfilter.join_pushdown;
-- once loaded, a bad value is refused at once, as any setting's
SET bloomfilter.default_fpr = 0;
-- a fresh session again: the library loaded by the first call of one of
-- its functions checks the same way, in the middle of that query
\c
SET bloomfilter.default_fpr = 0;
SET bloomfilter.join_pushdown_max_fraction = 0.25;
SELECT bloom_contains(bloom_agg(g), 7) FROM generate_series(1, 10) g;
SHOW bloomfilter.default_fpr;
SHOW bloomfilter.join_pushdown_max_fraction;
