--
-- Discoverable from psql, and trusted.
--
-- 1. Every user-facing object of the extension has a COMMENT, so that \dT+,
--    \df+, \da+, \do+, \dC+ and \dAc+ say what it does.  The naming rule of
--    the install script tells the internal support functions (type I/O,
--    casts, aggregate steps, index and planner support) from the rest: their
--    names start with the name of one of the extension's types and an
--    underscore.  A new object without a comment is listed here; a new
--    support function must follow the rule.
-- 2. The extension is trusted (see the README, "Security"): a role that is
--    not a superuser but may CREATE in a database installs it there, and
--    still cannot do what only a superuser could (build an aggregate or an
--    operator class from the C support functions, load the library into
--    other sessions).
-- 3. What the comments say is true now: every function, type, operator
--    class, access method and setting a comment names exists, and no
--    immutable function or aggregate is said to depend on a setting.
--

-- user-facing objects without a comment: none
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS undocumented
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE d.deptype = 'e'
  AND (p.oid IS NULL
       OR p.proname !~ '^(bloomfilter|countingbloom|scalablebloom|bloomwindow|gbloomfilter|gbloom_key)_')
  -- a type's implicit array type (a member of the extension since 17)
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid))
  AND NOT EXISTS (SELECT 1 FROM pg_description c
                  WHERE c.classoid = d.classid AND c.objoid = d.objid AND c.objsubid = 0
                    AND c.description <> '')
ORDER BY 1;

-- the rule sees every support function: a function that takes or returns
-- internal (what SQL cannot call) is named as internal
SELECT p.oid::regprocedure AS support_function_named_as_user_facing
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
WHERE p.proname !~ '^(bloomfilter|countingbloom|scalablebloom|bloomwindow|gbloomfilter|gbloom_key)_'
  AND ('internal'::regtype = ANY (p.proargtypes::oid[]) OR p.prorettype = 'internal'::regtype)
ORDER BY 1;

-- and it lets through enough: how many objects are documented, how many
-- functions count as internal
SELECT count(*) FILTER (WHERE p.oid IS NULL OR p.proname !~ '^(bloomfilter|countingbloom|scalablebloom|bloomwindow|gbloomfilter|gbloom_key)_') > 150 AS many_documented,
       count(*) FILTER (WHERE p.proname ~ '^(bloomfilter|countingbloom|scalablebloom|bloomwindow|gbloomfilter|gbloom_key)_') > 50 AS many_internal
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE d.deptype = 'e';

-- psql shows them
SELECT obj_description('@>(bloomfilter,anycompatible)'::regoperator, 'pg_operator') AS probe_operator,
       obj_description('bloom_agg(anyelement)'::regprocedure, 'pg_proc') AS bloom_agg;

-- 3. The comments say only what is true now (the README's Reference says
-- the same).  A comment that names a function, type, operator class or
-- access method the extension no longer has, a setting that does not exist,
-- or a setting as what an immutable function or an aggregate depends on
-- (their results depend on their arguments only: postgres_fdw ships them to
-- servers whose settings differ) is listed here.
LOAD 'bloomfilter';
CREATE TEMP VIEW ext_object AS
SELECT d.classid, d.objid, pg_describe_object(d.classid, d.objid, d.objsubid) AS object
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
WHERE d.deptype = 'e';
CREATE TEMP VIEW ext_comment AS
SELECT o.*, c.description
FROM ext_object o
JOIN pg_description c ON c.classoid = o.classid AND c.objoid = o.objid AND c.objsubid = 0;
CREATE TEMP VIEW ext_name AS
SELECT p.proname::text AS name FROM ext_object o JOIN pg_proc p ON o.classid = 'pg_proc'::regclass AND p.oid = o.objid
UNION SELECT t.typname::text FROM ext_object o JOIN pg_type t ON o.classid = 'pg_type'::regclass AND t.oid = o.objid
UNION SELECT c.opcname::text FROM ext_object o JOIN pg_opclass c ON o.classid = 'pg_opclass'::regclass AND c.oid = o.objid
UNION SELECT f.opfname::text FROM ext_object o JOIN pg_opfamily f ON o.classid = 'pg_opfamily'::regclass AND f.oid = o.objid
UNION SELECT a.amname::text FROM ext_object o JOIN pg_am a ON o.classid = 'pg_am'::regclass AND a.oid = o.objid;
-- the names of the extension's kind (bloom_add, cbloom_count,
-- bloomfilter_gist_ops, bloomslice, ...) that comments mention
CREATE TEMP VIEW comment_name AS
SELECT object, classid, objid, m[1] AS name
FROM ext_comment, regexp_matches(description, '\m([a-z0-9]*bloom[a-z0-9]*(?:_[a-z0-9_]+)?)\M', 'g') m;
-- a) names of objects the extension does not have: none
SELECT object, name AS names_what_is_not_there
FROM comment_name WHERE name NOT IN (SELECT name FROM ext_name) ORDER BY 1, 2;
-- b) settings that do not exist: none
SELECT object, m[1] AS names_no_such_setting
FROM ext_comment, regexp_matches(description, '\m(bloomfilter\.[a-z_]+)', 'g') m
WHERE m[1] NOT IN (SELECT name FROM pg_settings) ORDER BY 1, 2;
-- c) an immutable function or an aggregate that names a setting: none
SELECT c.object AS immutable_but_names_a_setting
FROM ext_comment c JOIN pg_proc p ON c.classid = 'pg_proc'::regclass AND p.oid = c.objid
WHERE (p.provolatile = 'i' OR p.prokind = 'a') AND c.description ~ '\mbloomfilter\.[a-z_]'
ORDER BY 1;
-- d) the GIN operator class is gone (bloomslice replaced it): no comment
-- offers GIN
SELECT object AS names_gin FROM ext_comment WHERE description ~* '\mgin\M' ORDER BY 1;
-- and the checks look at enough: every object's comment, and names in many
SELECT count(*) > 150 AS comments_checked,
       (SELECT count(*) FROM comment_name) > 40 AS names_checked,
       (SELECT count(DISTINCT name) FROM comment_name) > 15 AS distinct_names_checked
FROM ext_comment;
DROP VIEW comment_name, ext_name, ext_comment, ext_object;

-- 2. trusted: a role with CREATE on a database, not a superuser, installs
-- the extension into a schema of its own, and uses it
SELECT trusted, superuser FROM pg_available_extension_versions WHERE name = 'bloomfilter';
SELECT current_database() AS regress_db \gset
CREATE ROLE bloom_db_owner LOGIN;
CREATE DATABASE bloom_trusted_db OWNER bloom_db_owner;
\c bloom_trusted_db
SET ROLE bloom_db_owner;
CREATE SCHEMA filters;
CREATE EXTENSION bloomfilter SCHEMA filters;
SET search_path = filters, public;
SELECT (bloom_empty(100) + 42) @> 42 AS works,
       r.rolname AS extension_owner, r.rolsuper AS owner_is_superuser
FROM pg_extension x JOIN pg_roles r ON r.oid = x.extowner WHERE x.extname = 'bloomfilter';
CREATE TABLE t (f bloomfilter);
INSERT INTO t SELECT bloom_agg(g) FROM generate_series(1, 1000) g;
CREATE INDEX ON t USING bloomslice (f);
CREATE INDEX ON t USING gist (f);
SELECT count(*) AS found FROM t WHERE f @> 500;
-- what only a superuser may do stays so: an aggregate of the internal-state
-- support functions (whose states are not interchangeable), an operator
-- class over them, the library in every session, a planner estimator
CREATE AGGREGATE mixed(bloomfilter) (SFUNC = bloomfilter_union_agg_trans,
                                     STYPE = internal, FINALFUNC = countingbloom_agg_final);
CREATE OPERATOR CLASS my_gist_ops FOR TYPE bloomfilter USING gist AS
    OPERATOR 1 @> (bloomfilter, gbloom_key),
    FUNCTION 1 bloomfilter_gist_consistent(internal, bloomfilter, smallint, oid, internal);
ALTER ROLE bloom_db_owner SET session_preload_libraries = 'bloomfilter';
LOAD 'bloomfilter';
CREATE FUNCTION my_contains(bytea, int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR @> (LEFTARG = bytea, RIGHTARG = int, FUNCTION = my_contains, RESTRICT = bloomfilter_contsel);
-- and the owner drops it again
DROP TABLE t;
DROP EXTENSION bloomfilter;
RESET ROLE;
\c :regress_db
DROP DATABASE bloom_trusted_db;
DROP ROLE bloom_db_owner;

-- The probe operators' estimator reads only bloomfilters.  Attached to an
-- operator over other types (a superuser may; on servers older than the
-- rule that non-built-in estimators need one, anyone could), it gives the
-- default 1% instead of reading unvalidated bytes as a filter.
CREATE FUNCTION plan_rows(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
CREATE FUNCTION bytea_has(bytea, int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN true; END';
CREATE OPERATOR @> (LEFTARG = bytea, RIGHTARG = int, FUNCTION = bytea_has, RESTRICT = bloomfilter_contsel);
CREATE TABLE est_t AS SELECT g AS x FROM generate_series(1, 1000) g;
ANALYZE est_t;
SELECT bloom_agg(g)::text AS f100 FROM generate_series(1, 100) g \gset
SELECT plan_rows($$SELECT * FROM est_t WHERE '\x424c4d4601000207ffffffffffffffff'::bytea @> x$$) AS rows_bytea_operand,
       plan_rows($$SELECT * FROM est_t WHERE 'BLMF garbage'::bytea @> x$$) AS rows_text_bytes,
       plan_rows(format('SELECT * FROM est_t WHERE %L::bloomfilter @> x', :'f100')) AS rows_filter_of_100;
DROP OPERATOR @> (bytea, int);
DROP FUNCTION bytea_has(bytea, int);
DROP FUNCTION plan_rows(text);
DROP TABLE est_t;
