/* bloomfilter--1.0--1.1.sql: update script from 1.0 to 1.1.
 * Every SQL change after 1.0 goes here (or into a later update script);
 * sql/bloomfilter--1.0.sql never changes again.  CREATE EXTENSION at 1.1
 * runs 1.0's script and then this one, so a fresh install and an update
 * give the same objects. */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

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
