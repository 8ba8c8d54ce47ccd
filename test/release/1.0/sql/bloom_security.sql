--
-- Security and labels: the install script cannot be hijacked through
-- search_path, every function carries the volatility, strictness and
-- parallel-safety labels it should, and the version chain installs.
--

-- Every function of the extension, with its labels.  A change here is a
-- change of contract: review it, then update this file.
SELECT p.oid::regprocedure AS function,
       p.provolatile AS vol, p.proisstrict AS strict, p.proparallel AS par
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
ORDER BY p.proname, p.oid::regprocedure::text;

-- the rules behind that list: everything is parallel safe and immutable,
-- but for the planner's estimator and support function, which read
-- statistics and are stable like PostgreSQL's own, the window's probes
-- at now() (bloom_window_contains(w, key), bloom_window_contained_in), stable
-- as now() is, and the window's adds (bloom_window_add and the window
-- aggregate's transition), volatile as they read the server's clock for a key
-- stamped ahead of it (one name for all overloads); the only non-strict
-- functions are those that must see NULLs
-- (adding a NULL element leaves a filter, counting filter or window as it
-- is, and so does removing one from a counting filter; a NULL operand of a
-- union is the empty set; aggregate support functions; the index's options)
SELECT string_agg(DISTINCT p.proname, ', ' ORDER BY p.proname) FILTER (WHERE p.provolatile <> 'i') AS not_immutable,
       count(*) FILTER (WHERE p.proparallel <> 's') AS not_parallel_safe,
       string_agg(p.proname, ', ' ORDER BY p.proname) FILTER (WHERE NOT p.proisstrict
           AND p.proname NOT LIKE 'bloom%agg%' AND p.proname NOT LIKE 'bloom_add%'
           AND p.proname NOT LIKE 'bloomfilter_%agg%' AND p.proname NOT IN ('bloomfilter_gist_options')
           AND p.proname NOT IN ('cbloom_add', 'cbloom_remove', 'cbloom_agg', 'bloom_window_add', 'sbloom_agg')
           AND p.proname NOT IN ('bloom_union', 'cbloom_union', 'cbloom_add_all', 'cbloom_remove_all')
           AND p.proname NOT LIKE 'countingbloom_%agg%'
           AND p.proname NOT LIKE 'bloomwindow_%agg%'
           AND p.proname NOT LIKE 'scalablebloom_%agg%') AS unexpected_non_strict
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter';

-- The operators' estimators and every support function the extension's
-- objects call are its own or pg_catalog's, never whatever a search_path
-- would have found
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, n.nspname AS estimator_schema
FROM pg_operator o
JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
JOIN pg_proc r ON r.oid = o.oprrest
JOIN pg_namespace n ON n.oid = r.pronamespace
WHERE n.nspname NOT IN ('pg_catalog', 'public');

-- A hostile schema first in search_path, holding look-alikes of what the
-- script names (a type, functions, an operator), changes nothing: the
-- extension re-created under it references none of them
CREATE ROLE bloom_intruder;
CREATE SCHEMA intruder AUTHORIZATION bloom_intruder;
SET ROLE bloom_intruder;
CREATE FUNCTION intruder.bytea(text) RETURNS text LANGUAGE sql AS $$ SELECT 'hijacked' $$;
CREATE FUNCTION intruder.bloom_contains(text, text) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
CREATE FUNCTION intruder.eq(text, text) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
CREATE OPERATOR intruder.= (LEFTARG = text, RIGHTARG = text, FUNCTION = intruder.eq);
CREATE DOMAIN intruder.text AS pg_catalog.text;
RESET ROLE;
DROP EXTENSION bloomfilter;
SET search_path = intruder, public;
CREATE EXTENSION bloomfilter SCHEMA public;
RESET search_path;
SELECT count(*) AS objects_depending_on_intruder
FROM pg_depend d
JOIN pg_namespace n ON n.nspname = 'intruder'
WHERE d.refobjid IN (SELECT oid FROM pg_proc WHERE pronamespace = n.oid
                     UNION ALL SELECT oid FROM pg_operator WHERE oprnamespace = n.oid
                     UNION ALL SELECT oid FROM pg_type WHERE typnamespace = n.oid)
  AND d.objid IN (SELECT objid FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter'));
-- and the re-created extension works
SELECT (bloom_empty(100) + 'x') @> 'x' AS works;
DROP SCHEMA intruder CASCADE;
DROP ROLE bloom_intruder;

-- The version chain: the oldest version installs and updates to the
-- default one (1.0 is the first release, so the chain is one step long;
-- later releases add bloomfilter--1.0--X.sql and this test walks it)
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter VERSION '1.0';
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT version FROM pg_available_extension_versions WHERE name = 'bloomfilter' ORDER BY version;
