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

-- Formats other engines use (issue 35): layout 'parquet' (Parquet's
-- split-block Bloom filter; FORMAT.md "Version 2"), its import and export,
-- and bloom_agg(x, capacity, fpr, layout) for every layout
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.bloom_from_parquet(data bytea, physical_type text)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_from_parquet' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_from_parquet(bytea, text) IS
	'A parquet-layout bloomfilter from a Parquet column chunk''s Bloom filter (its Thrift BloomFilterHeader and bitset, where the metadata of the column chunk points), for a column of the physical type named (INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY; or DATE, TIMESTAMP, TIMESTAMPTZ, BYTEA)';
CREATE FUNCTION @extschema@.bloom_to_parquet(@extschema@.bloomfilter)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloomfilter_to_parquet' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_to_parquet(@extschema@.bloomfilter) IS
	'The Thrift BloomFilterHeader and bitset of a parquet-layout bloomfilter, as a Parquet writer puts them in a file';

CREATE FUNCTION @extschema@.bloomfilter_layout_agg_trans(internal, anyelement, bigint, float8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloomfilter_layout_agg_trans(internal, anyelement, bigint, float8, text) IS
	'internal: transition function of bloom_agg(x, capacity, fpr, layout)';
CREATE FUNCTION @extschema@.bloomfilter_layout_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloomfilter_layout_agg_combine(internal, internal) IS
	'internal: combine function of bloom_agg(x, capacity, fpr, layout)';
CREATE FUNCTION @extschema@.bloomfilter_layout_agg_final(internal)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloomfilter_layout_agg_final(internal) IS
	'internal: final function of bloom_agg(x, capacity, fpr, layout)';
CREATE FUNCTION @extschema@.bloomfilter_layout_agg_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloomfilter_layout_agg_serialize(internal) IS
	'internal: serialize function of bloom_agg(x, capacity, fpr, layout)';
CREATE FUNCTION @extschema@.bloomfilter_layout_agg_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloomfilter_layout_agg_deserialize(bytea, internal) IS
	'internal: deserialize function of bloom_agg(x, capacity, fpr, layout)';
CREATE AGGREGATE @extschema@.bloom_agg(anyelement, capacity bigint, fpr float8, layout text) (
	SFUNC = @extschema@.bloomfilter_layout_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloomfilter_layout_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_layout_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_layout_agg_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_layout_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, bigint, float8, text) IS
	'A bloomfilter of the keys in the layout given (classic, blocked, parquet), sized as bloom_empty(capacity, fpr, layout): the bytes of bloom_add_all(bloom_empty(capacity, fpr, layout), keys)';

-- ---- Spark's Bloom filter (layout 'spark', issue 35; engineer spark) ----
-- bloom_empty(capacity, fpr, 'spark') and bloom_empty_bits(bits, k, 'spark')
-- need no new object: the layout is a name their C code knows.
CREATE FUNCTION @extschema@.bloom_from_spark(data bytea) RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_from_spark' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_from_spark(bytea) IS
	'Bloom filter of layout spark from the bytes Spark''s BloomFilter.writeTo writes (version 1 or 2); it answers probes of integer, text and bytea keys as Spark''s mightContainLong, mightContainString and mightContainBinary do';

CREATE FUNCTION @extschema@.bloom_to_spark(f @extschema@.bloomfilter) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloomfilter_to_spark' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_to_spark(@extschema@.bloomfilter) IS
	'The bytes Spark''s BloomFilter.writeTo writes for a filter of layout spark, which BloomFilter.readFrom reads (version 1 for a filter made here, version 2 for one read as version 2)';
