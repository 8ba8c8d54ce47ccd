/* bloomfilter--1.0--1.1.sql: update script from 1.0 to 1.1.
 * Every SQL change after 1.0 goes here (or into a later update script);
 * sql/bloomfilter--1.0.sql never changes again.  CREATE EXTENSION at 1.1
 * runs 1.0's script and then this one, so a fresh install and an update
 * give the same objects. */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Automatic Bloom-joins: the probe shipped to a remote (issue #33)
-- ---------------------------------------------------------------------
-- x <@ f as bloomfilter.join_pushdown ships it to a remote of 1.1 or later:
-- the same answer for a key of f's family, and true (the row passes, the
-- join compares it) instead of an ERROR for a key of another family or of
-- a type whose key bytes could fail, so that a remote column whose type or
-- collation changed since the planner asked never fails the join.
CREATE FUNCTION @extschema@.bloomfilter_join_probe(anyelement, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_join_probe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloomfilter_join_probe(anyelement, @extschema@.bloomfilter) IS
	'x <@ f as automatic Bloom-joins ship it: true, never an error, for a key of another family than f''s (internal)';
