/* bloomfilter--1.0.sql: install script.  Frozen once released; later
 * changes go in bloomfilter--1.0--1.1.sql and so on. */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

-- ---------------------------------------------------------------------
-- The type
-- ---------------------------------------------------------------------

CREATE TYPE @extschema@.bloomfilter;

CREATE FUNCTION @extschema@.bloomfilter_in(cstring) RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_out(@extschema@.bloomfilter) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_recv(internal) RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_send(@extschema@.bloomfilter) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bloomfilter (
	INPUT = @extschema@.bloomfilter_in,
	OUTPUT = @extschema@.bloomfilter_out,
	RECEIVE = @extschema@.bloomfilter_recv,
	SEND = @extschema@.bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.bloomfilter IS 'Bloom filter: a set that answers "maybe" or "certainly not"';

-- Casts to and from the portable format
CREATE FUNCTION @extschema@.bloomfilter_to_bytea(@extschema@.bloomfilter) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_from_bytea(bytea) RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.bloomfilter AS bytea)
	WITH FUNCTION @extschema@.bloomfilter_to_bytea(@extschema@.bloomfilter);
CREATE CAST (bytea AS @extschema@.bloomfilter)
	WITH FUNCTION @extschema@.bloomfilter_from_bytea(bytea);

-- ---------------------------------------------------------------------
-- Constructors
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.bloom_empty(capacity bigint, fpr float8 DEFAULT 0.01,
		layout text DEFAULT 'blocked', seed bigint DEFAULT 0)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_empty_bits(bits bigint, hashes int,
		layout text DEFAULT 'classic', seed bigint DEFAULT 0)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_empty_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------
-- Planner support (declared here because the probe functions and
-- operators below name them; the index support is at the end)
-- ---------------------------------------------------------------------

-- selectivity of probes from the filter's own estimates, and index
-- conditions for the GiST operator class (STABLE, as PostgreSQL's own
-- estimators: they read the statistics)
CREATE FUNCTION @extschema@.bloomfilter_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- the RESTRICT estimator of the @> and <@ probe operators and of the @>> and
-- <<@ superset operators (which also costs GiST for them: src/type/bf_planner.c)
CREATE FUNCTION @extschema@.bloomfilter_contsel(internal, oid, internal, integer)
	RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------
-- Adding and probing
-- ---------------------------------------------------------------------

-- Keys are anycompatible rather than anyelement so that an untyped literal
-- resolves to text (f + 'abc', f @> 'abc') while every typed value keeps
-- its own type.  Text overloads would have done the first, but they also
-- catch every type with an implicit cast to text (citext, "char") and would
-- hash it as text, whose = is not that type's.
-- not STRICT: a NULL element leaves the filter as it is
CREATE FUNCTION @extschema@.bloom_add(@extschema@.bloomfilter, anycompatible)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_add_all(@extschema@.bloomfilter, anyarray)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_add_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_contains(@extschema@.bloomfilter, anycompatible)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloomfilter_support;

CREATE FUNCTION @extschema@.bloom_contained_in(anycompatible, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_contained_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloomfilter_support;

CREATE OPERATOR @extschema@.+ (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = anycompatible,
	FUNCTION = @extschema@.bloom_add
);

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = anycompatible,
	FUNCTION = @extschema@.bloom_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel,
	JOIN = pg_catalog.contjoinsel
);

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anycompatible,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_contained_in,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel,
	JOIN = pg_catalog.contjoinsel
);

-- ---------------------------------------------------------------------
-- Combining
-- ---------------------------------------------------------------------

-- not STRICT: a NULL operand of a union is the empty set (f | NULL is f, as
-- array_cat treats NULL), so that f | (an aggregate over no rows) keeps f;
-- the intersection stays STRICT (f & NULL is NULL)
CREATE FUNCTION @extschema@.bloom_union(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_union' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_intersect(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_intersect' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_contains_filter(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_contains_filter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloomfilter_support;

CREATE FUNCTION @extschema@.bloom_contained_in_filter(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_contained_in_filter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloomfilter_support;

CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

CREATE OPERATOR @extschema@.& (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_intersect,
	COMMUTATOR = OPERATOR(@extschema@.&)
);

-- f @>> g: every bit of g is set in f (superset screening).  Not @>, which
-- would capture untyped literals: f @> 'abc' must probe for the text 'abc'.
CREATE OPERATOR @extschema@.@>> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_contains_filter,
	COMMUTATOR = OPERATOR(@extschema@.<<@),
	RESTRICT = @extschema@.bloomfilter_contsel,
	JOIN = pg_catalog.contjoinsel
);

CREATE OPERATOR @extschema@.<<@ (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_contained_in_filter,
	COMMUTATOR = OPERATOR(@extschema@.@>>),
	RESTRICT = @extschema@.bloomfilter_contsel,
	JOIN = pg_catalog.contjoinsel
);

-- ---------------------------------------------------------------------
-- Equality and order: = holds for identical values (geometry, seed,
-- family, add count and bits); the btree order is a total order that
-- agrees with it, the stored bytes (the portable format with its checksum
-- field zero) compared as bytea compares bytes.  It is not a subset order.
-- The same for every type of the extension (type/bf_cmp.c).
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.bloom_eq(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash(@extschema@.bloomfilter)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES,
	MERGES
);

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>),
	NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);

CREATE FUNCTION @extschema@.bloom_lt(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_le(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_gt(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ge(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cmp(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash_extended(@extschema@.bloomfilter, bigint)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>),
	NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel,
	JOIN = pg_catalog.scalarltjoinsel
);

CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=),
	NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel,
	JOIN = pg_catalog.scalarlejoinsel
);

CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<),
	NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel,
	JOIN = pg_catalog.scalargtjoinsel
);

CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=),
	NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel,
	JOIN = pg_catalog.scalargejoinsel
);

-- hashed DISTINCT, GROUP BY and hash joins
CREATE OPERATOR CLASS @extschema@.bloomfilter_hash_ops
	DEFAULT FOR TYPE @extschema@.bloomfilter USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.bloomfilter, @extschema@.bloomfilter),
	FUNCTION 1 @extschema@.bloom_hash(@extschema@.bloomfilter),
	FUNCTION 2 @extschema@.bloom_hash_extended(@extschema@.bloomfilter, bigint);

-- sorted DISTINCT, GROUP BY, ORDER BY, window partitions and merge joins;
-- = is bitwise over the detoasted bytes, so btree deduplication is safe
CREATE OPERATOR CLASS @extschema@.bloomfilter_btree_ops
	DEFAULT FOR TYPE @extschema@.bloomfilter USING btree AS
	OPERATOR 1 @extschema@.< (@extschema@.bloomfilter, @extschema@.bloomfilter),
	OPERATOR 2 @extschema@.<= (@extschema@.bloomfilter, @extschema@.bloomfilter),
	OPERATOR 3 @extschema@.= (@extschema@.bloomfilter, @extschema@.bloomfilter),
	OPERATOR 4 @extschema@.>= (@extschema@.bloomfilter, @extschema@.bloomfilter),
	OPERATOR 5 @extschema@.> (@extschema@.bloomfilter, @extschema@.bloomfilter),
	FUNCTION 1 @extschema@.bloom_cmp(@extschema@.bloomfilter, @extschema@.bloomfilter),
	FUNCTION 4 pg_catalog.btequalimage(oid);

-- ---------------------------------------------------------------------
-- Inspecting and estimating
-- ---------------------------------------------------------------------

-- bloom_info's row is a named type, not OUT parameters (an anonymous
-- record): postgres_fdw pushes bloom_info(bloom_agg(x)) down to a remote and
-- reads the row back from its text, which needs a type to read it as
CREATE TYPE @extschema@.bloom_info_result AS (
	layout text, bits bigint, hashes integer, bytes bigint,
	seed bigint, key_family text, added bigint, bits_set bigint,
	fill_ratio float8, est_cardinality float8, est_fpr float8,
	format_version integer);
CREATE FUNCTION @extschema@.bloom_info(@extschema@.bloomfilter)
	RETURNS @extschema@.bloom_info_result
	AS 'MODULE_PATHNAME', 'bloomfilter_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_cardinality(@extschema@.bloomfilter) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloomfilter_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_fpr(@extschema@.bloomfilter) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloomfilter_fpr' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_union_cardinality(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bloomfilter_union_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_intersection_cardinality(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bloomfilter_intersection_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_jaccard(@extschema@.bloomfilter, @extschema@.bloomfilter)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bloomfilter_jaccard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------
-- Sizing math (the textbook formulas)
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.bloom_optimal_bits(capacity bigint, fpr float8) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloomfilter_optimal_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_optimal_hashes(bits bigint, capacity bigint) RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_optimal_hashes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_expected_fpr(bits bigint, hashes integer, n bigint) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloomfilter_expected_fpr' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------
-- The transition type of every aggregate: bloomfilter_aggstate
-- ---------------------------------------------------------------------
-- A real type rather than internal, so that Citus runs the union and
-- intersection aggregates on its workers and ships their partial states
-- (which it does only for a transition type that is not a pseudo-type).  Its text form is base64 of
-- the state's bytes (FORMAT.md, "Transition state values"); every way in
-- validates them.  Inside an aggregate it is an expanded object updated in
-- place, so a real type costs no copy per row.

CREATE TYPE @extschema@.bloomfilter_aggstate;

CREATE FUNCTION @extschema@.bloomfilter_aggstate_in(cstring) RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_aggstate_out(@extschema@.bloomfilter_aggstate) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_aggstate_recv(internal) RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_aggstate_send(@extschema@.bloomfilter_aggstate) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bloomfilter_aggstate (
	INPUT = @extschema@.bloomfilter_aggstate_in,
	OUTPUT = @extschema@.bloomfilter_aggstate_out,
	RECEIVE = @extschema@.bloomfilter_aggstate_recv,
	SEND = @extschema@.bloomfilter_aggstate_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE @extschema@.bloomfilter_aggstate IS
	'Partial state of the bloomfilter aggregates (the transition type of the union aggregates, which Citus ships between nodes); text form: base64 of its validated bytes';

-- The polymorphic aggregates (bloom_agg, cbloom_agg, bloom_window_agg,
-- sbloom_agg) keep the transition type internal, with these serialize and
-- deserialize functions giving the same bytes: Citus (13.2, 14.0) cannot
-- push down an aggregate whose argument is polymorphic (worker_partial_agg
-- checks the argument's type against the aggregate's declared one and
-- fails with "could not confirm type correctness"), and pulls their rows up
-- when the transition type is internal, which works.  The state inside is
-- the same object as with bloomfilter_aggstate.
CREATE FUNCTION @extschema@.bloomfilter_aggstate_serialize(internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_aggstate_deserialize(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------
-- Aggregates
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter_aggstate, anyelement, bigint, float8)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_agg_trans(internal, anyelement, bigint, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_auto_agg_trans(@extschema@.bloomfilter_aggstate, anyelement)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_auto_agg_trans(internal, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_agg_final(@extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_agg_final(internal)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_agg_combine(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_intersect_agg_combine(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_union_agg_trans(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_intersect_agg_trans(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- sized automatically for the number of distinct keys, at a 1% rate (a
-- constant: what an immutable aggregate returns never depends on a setting)
CREATE AGGREGATE @extschema@.bloom_agg(anyelement) (
	SFUNC = @extschema@.bloomfilter_auto_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloomfilter_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);

-- bloom_agg(x, fpr): sized automatically at the rate given (one rate for
-- every row of a group); the same state and combine function
-- as bloom_agg(x), so it is as deterministic whatever the plan
CREATE FUNCTION @extschema@.bloomfilter_auto_agg_trans_fpr(@extschema@.bloomfilter_aggstate, anyelement, float8)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_auto_agg_trans_fpr(internal, anyelement, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.bloom_agg(anyelement, fpr float8) (
	SFUNC = @extschema@.bloomfilter_auto_agg_trans_fpr,
	STYPE = internal,
	FINALFUNC = @extschema@.bloomfilter_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, float8) IS
	'A bloomfilter of the keys, sized automatically for their number of distinct keys at the false-positive rate given (the same for every row).';

CREATE AGGREGATE @extschema@.bloom_agg(anyelement, capacity bigint, fpr float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloomfilter_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);

-- bloom_agg for one key type: the three forms again for each type below,
-- with the real transition type, so that Citus runs them on its workers
-- (it refuses a polymorphic aggregate there: worker_partial_agg compares
-- the argument's type with the aggregate's declared one).  Same C
-- functions, same state, same bytes as the polymorphic aggregates: a key
-- of one of these types resolves to its own overload (an exact match), and
-- every type that casts implicitly into one of them is in the list too, so
-- no key reaches an overload of another family through a cast.  Text is
-- left out: citext, a binary-coercible relabelling of text with its own
-- equality, would resolve to it, and on a Citus worker the transition
-- function no longer sees the relabelling.  The transition functions are
-- declared for the type: a Citus worker calls them without a call
-- expression, and the key's type is then read from the declaration.
DO $bloom_agg_overloads$
DECLARE
	t text;
	s text := quote_ident(current_schema());
BEGIN
	FOREACH t IN ARRAY ARRAY['int2', 'int4', 'int8', 'numeric', 'float4', 'float8',
							 'bool', 'bytea', 'uuid', 'date', 'timestamp', 'timestamptz']
	LOOP
		EXECUTE format('CREATE FUNCTION %1$s.bloomfilter_auto_agg_trans(%1$s.bloomfilter_aggstate, %2$s)
			RETURNS %1$s.bloomfilter_aggstate
			AS %3$L, %4$L LANGUAGE C IMMUTABLE PARALLEL SAFE', s, t, 'MODULE_PATHNAME', 'bloomfilter_auto_agg_trans');
		EXECUTE format('CREATE FUNCTION %1$s.bloomfilter_auto_agg_trans_fpr(%1$s.bloomfilter_aggstate, %2$s, float8)
			RETURNS %1$s.bloomfilter_aggstate
			AS %3$L, %4$L LANGUAGE C IMMUTABLE PARALLEL SAFE', s, t, 'MODULE_PATHNAME', 'bloomfilter_auto_agg_trans_fpr');
		EXECUTE format('CREATE FUNCTION %1$s.bloomfilter_agg_trans(%1$s.bloomfilter_aggstate, %2$s, bigint, float8)
			RETURNS %1$s.bloomfilter_aggstate
			AS %3$L, %4$L LANGUAGE C IMMUTABLE PARALLEL SAFE', s, t, 'MODULE_PATHNAME', 'bloomfilter_agg_trans');
		EXECUTE format('CREATE AGGREGATE %1$s.bloom_agg(%2$s) (
			SFUNC = %1$s.bloomfilter_auto_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.bloomfilter_agg_final, COMBINEFUNC = %1$s.bloomfilter_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('CREATE AGGREGATE %1$s.bloom_agg(%2$s, fpr float8) (
			SFUNC = %1$s.bloomfilter_auto_agg_trans_fpr, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.bloomfilter_agg_final, COMBINEFUNC = %1$s.bloomfilter_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('CREATE AGGREGATE %1$s.bloom_agg(%2$s, capacity bigint, fpr float8) (
			SFUNC = %1$s.bloomfilter_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.bloomfilter_agg_final, COMBINEFUNC = %1$s.bloomfilter_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('COMMENT ON AGGREGATE %1$s.bloom_agg(%2$s) IS %3$L', s, t,
			format('Bloom filter of the non-NULL %s values, sized for their distinct count at a 1%% rate (runs on Citus workers)', t));
		EXECUTE format('COMMENT ON AGGREGATE %1$s.bloom_agg(%2$s, float8) IS %3$L', s, t,
			format('Bloom filter of the non-NULL %s values, sized for their distinct count at the rate given (runs on Citus workers)', t));
		EXECUTE format('COMMENT ON AGGREGATE %1$s.bloom_agg(%2$s, bigint, float8) IS %3$L', s, t,
			format('Bloom filter of the non-NULL %s values, sized as bloom_empty(capacity, fpr) (runs on Citus workers)', t));
	END LOOP;
END
$bloom_agg_overloads$;

CREATE AGGREGATE @extschema@.bloom_union_agg(@extschema@.bloomfilter) (
	SFUNC = @extschema@.bloomfilter_union_agg_trans,
	STYPE = @extschema@.bloomfilter_aggstate,
	FINALFUNC = @extschema@.bloomfilter_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_agg_combine,
	PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.bloom_intersect_agg(@extschema@.bloomfilter) (
	SFUNC = @extschema@.bloomfilter_intersect_agg_trans,
	STYPE = @extschema@.bloomfilter_aggstate,
	FINALFUNC = @extschema@.bloomfilter_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_intersect_agg_combine,
	PARALLEL = SAFE
);

-- ---------------------------------------------------------------------
-- Index support (GiST) and planner support
-- ---------------------------------------------------------------------

-- A probe key boxed with its type.  A GiST consistent function is not told
-- the type of its query, so `col @> x` (x of any type) is turned by the
-- planner support function into the index condition `col @> gbloom_key(x)`.
CREATE FUNCTION @extschema@.gbloom_key_in(cstring) RETURNS @extschema@.gbloom_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gbloom_key_out(@extschema@.gbloom_key) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.gbloom_key (
	INPUT = @extschema@.gbloom_key_in,
	OUTPUT = @extschema@.gbloom_key_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = plain
);

CREATE FUNCTION @extschema@.gbloom_key(anyelement) RETURNS @extschema@.gbloom_key
	AS 'MODULE_PATHNAME', 'gbloom_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- f @> gbloom_key(x) is bloom_contains(f, x)
CREATE FUNCTION @extschema@.gbloom_contains(@extschema@.bloomfilter, @extschema@.gbloom_key)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'gbloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.gbloom_key,
	FUNCTION = @extschema@.gbloom_contains,
	RESTRICT = @extschema@.bloomfilter_contsel,
	JOIN = pg_catalog.contjoinsel
);

-- The index's key: a signature, or a leaf's filter itself (plain storage:
-- keys are bounded by siglen and do not compress).
CREATE FUNCTION @extschema@.gbloomfilter_in(cstring) RETURNS @extschema@.gbloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gbloomfilter_out(@extschema@.gbloomfilter) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.gbloomfilter (
	INPUT = @extschema@.gbloomfilter_in,
	OUTPUT = @extschema@.gbloomfilter_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = plain
);

CREATE FUNCTION @extschema@.bloomfilter_gist_consistent(internal, @extschema@.bloomfilter, smallint, oid, internal)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'gbloom_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_union(internal, internal)
	RETURNS @extschema@.gbloomfilter
	AS 'MODULE_PATHNAME', 'gbloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_compress(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'gbloom_compress' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_decompress(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'gbloom_decompress' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_penalty(internal, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'gbloom_penalty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_picksplit(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'gbloom_picksplit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_same(@extschema@.gbloomfilter, @extschema@.gbloomfilter, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'gbloom_same' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomfilter_gist_options(internal)
	RETURNS void
	AS 'MODULE_PATHNAME', 'gbloom_options' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- col @> x (through gbloom_key), col @>> q
CREATE OPERATOR CLASS @extschema@.bloomfilter_gist_ops
	DEFAULT FOR TYPE @extschema@.bloomfilter USING gist AS
	OPERATOR 1 @extschema@.@> (@extschema@.bloomfilter, @extschema@.gbloom_key),
	OPERATOR 3 @extschema@.@>> (@extschema@.bloomfilter, @extschema@.bloomfilter),
	FUNCTION 1 @extschema@.bloomfilter_gist_consistent(internal, @extschema@.bloomfilter, smallint, oid, internal),
	FUNCTION 2 @extschema@.bloomfilter_gist_union(internal, internal),
	FUNCTION 3 @extschema@.bloomfilter_gist_compress(internal),
	FUNCTION 4 @extschema@.bloomfilter_gist_decompress(internal),
	FUNCTION 5 @extschema@.bloomfilter_gist_penalty(internal, internal, internal),
	FUNCTION 6 @extschema@.bloomfilter_gist_picksplit(internal, internal),
	FUNCTION 7 @extschema@.bloomfilter_gist_same(@extschema@.gbloomfilter, @extschema@.gbloomfilter, internal),
	FUNCTION 10 @extschema@.bloomfilter_gist_options(internal),
	STORAGE @extschema@.gbloomfilter;

-- =====================================================================
-- Index support (bloomslice): a bit-sliced access method, src/index/slice/bf_slice_*.c
-- =====================================================================

CREATE FUNCTION @extschema@.bloomfilter_slice_handler(internal) RETURNS index_am_handler
	AS 'MODULE_PATHNAME', 'bloomslice_handler' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE ACCESS METHOD bloomslice TYPE INDEX HANDLER @extschema@.bloomfilter_slice_handler;
COMMENT ON ACCESS METHOD bloomslice IS 'Bit-sliced index of bloomfilter columns: which stored filters may hold a key (col @> x), which are supersets of a filter (col @>> q)';

-- col @> x (through gbloom_key, as GiST), col @>> q
CREATE OPERATOR CLASS @extschema@.bloomfilter_slice_ops
	DEFAULT FOR TYPE @extschema@.bloomfilter USING bloomslice AS
	OPERATOR 1 @extschema@.@> (@extschema@.bloomfilter, @extschema@.gbloom_key),
	OPERATOR 3 @extschema@.@>> (@extschema@.bloomfilter, @extschema@.bloomfilter);
COMMENT ON OPERATOR CLASS @extschema@.bloomfilter_slice_ops USING bloomslice IS 'bloomslice index of bloomfilter columns: col @> x, bloom_contains(col, x), x <@ col, col @>> q, bloom_contains_filter(col, q)';

-- =====================================================================
-- Counting Bloom filters (countingbloom): keys can be removed
-- =====================================================================

CREATE TYPE @extschema@.countingbloom;

CREATE FUNCTION @extschema@.countingbloom_in(cstring) RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_out(@extschema@.countingbloom) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_recv(internal) RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_send(@extschema@.countingbloom) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.countingbloom (
	INPUT = @extschema@.countingbloom_in,
	OUTPUT = @extschema@.countingbloom_out,
	RECEIVE = @extschema@.countingbloom_recv,
	SEND = @extschema@.countingbloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.countingbloom IS 'Counting Bloom filter: a Bloom filter with small saturating counters, so keys can be removed';

CREATE FUNCTION @extschema@.countingbloom_to_bytea(@extschema@.countingbloom) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_from_bytea(bytea) RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.countingbloom AS bytea)
	WITH FUNCTION @extschema@.countingbloom_to_bytea(@extschema@.countingbloom);
CREATE CAST (bytea AS @extschema@.countingbloom)
	WITH FUNCTION @extschema@.countingbloom_from_bytea(bytea);

-- the bloomfilter that answers as the counting filter does (counter > 0
-- is a set bit): ship it, index it, probe it like any bloomfilter
CREATE FUNCTION @extschema@.cbloom_to_bloom(@extschema@.countingbloom)
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'countingbloom_to_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.countingbloom AS @extschema@.bloomfilter)
	WITH FUNCTION @extschema@.cbloom_to_bloom(@extschema@.countingbloom);

-- the geometry bloom_empty gives for the same arguments, with a counter of
-- counter_bits bits (4 or 8) for each bit
CREATE FUNCTION @extschema@.cbloom_empty(capacity bigint, fpr float8 DEFAULT 0.01,
		layout text DEFAULT 'blocked', seed bigint DEFAULT 0, counter_bits int DEFAULT 4)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.cbloom_empty_counters(counters bigint, hashes int,
		layout text DEFAULT 'classic', seed bigint DEFAULT 0, counter_bits int DEFAULT 4)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_empty_counters' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- not STRICT: a NULL element leaves the filter as it is
CREATE FUNCTION @extschema@.cbloom_add(@extschema@.countingbloom, anycompatible)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.cbloom_remove(@extschema@.countingbloom, anycompatible)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_remove' LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- every non-NULL element added or removed, in storage order: what cbloom_add
-- and cbloom_remove give element after element, in one call (not STRICT: a
-- NULL array leaves the filter as it is)
CREATE FUNCTION @extschema@.cbloom_add_all(@extschema@.countingbloom, anyarray)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_add_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.cbloom_remove_all(@extschema@.countingbloom, anyarray)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_remove_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.cbloom_contains(@extschema@.countingbloom, anycompatible)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'countingbloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.cbloom_contained_in(anycompatible, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'countingbloom_contained_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.cbloom_count(@extschema@.countingbloom, anycompatible)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'countingbloom_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.+ (
	LEFTARG = @extschema@.countingbloom, RIGHTARG = anycompatible,
	FUNCTION = @extschema@.cbloom_add
);
CREATE OPERATOR @extschema@.- (
	LEFTARG = @extschema@.countingbloom, RIGHTARG = anycompatible,
	FUNCTION = @extschema@.cbloom_remove
);
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.countingbloom, RIGHTARG = anycompatible,
	FUNCTION = @extschema@.cbloom_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel
);
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anycompatible, RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.cbloom_contained_in,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel
);

-- union: counters summed, saturating; sizes m * 2^j fold to m.  Not
-- STRICT: a NULL operand is the empty set, as for bloomfilter
CREATE FUNCTION @extschema@.cbloom_union(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_union' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.countingbloom, RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.cbloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

-- a named type, as bloom_info_result (pushed down to a remote, read back)
CREATE TYPE @extschema@.cbloom_info_result AS (
	layout text, counters bigint, hashes integer, counter_bits integer,
	bytes bigint, seed bigint, key_family text, items bigint,
	nonzero_counters bigint, saturated_counters bigint, est_fpr float8,
	format_version integer);
CREATE FUNCTION @extschema@.cbloom_info(@extschema@.countingbloom)
	RETURNS @extschema@.cbloom_info_result
	AS 'MODULE_PATHNAME', 'countingbloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.countingbloom_agg_trans(@extschema@.bloomfilter_aggstate, anyelement, bigint, float8)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_trans(internal, anyelement, bigint, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_trans(@extschema@.bloomfilter_aggstate, anyelement, bigint, float8, integer)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_trans(internal, anyelement, bigint, float8, integer)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_final(@extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_final(internal)
	RETURNS @extschema@.countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_combine(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.countingbloom_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- explicitly sized, blocked, seed 0, as bloom_agg(x, capacity, fpr)
CREATE AGGREGATE @extschema@.cbloom_agg(anyelement, capacity bigint, fpr float8) (
	SFUNC = @extschema@.countingbloom_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.countingbloom_agg_final,
	COMBINEFUNC = @extschema@.countingbloom_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.cbloom_agg(anyelement, capacity bigint, fpr float8, counter_bits integer) (
	SFUNC = @extschema@.countingbloom_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.countingbloom_agg_final,
	COMBINEFUNC = @extschema@.countingbloom_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);

-- the union of counting filters (counters summed, as cbloom_union); NULL
-- over no filter
CREATE FUNCTION @extschema@.countingbloom_union_agg_trans(@extschema@.bloomfilter_aggstate, @extschema@.countingbloom)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.bloom_union_agg(@extschema@.countingbloom) (
	SFUNC = @extschema@.countingbloom_union_agg_trans,
	STYPE = @extschema@.bloomfilter_aggstate,
	FINALFUNC = @extschema@.countingbloom_agg_final,
	COMBINEFUNC = @extschema@.countingbloom_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_union_agg(@extschema@.countingbloom) IS
	'Union of the counting filters (counters summed, as cbloom_union), independent of their order';

-- =====================================================================
-- Sliding windows: the bloomwindow type (a ring of time buckets, each a
-- bloomfilter of one geometry, in one value).  See README "Sliding
-- windows" and src/core/FORMAT.md "The bloomwindow format".
-- =====================================================================

CREATE TYPE @extschema@.bloomwindow;

CREATE FUNCTION @extschema@.bloomwindow_in(cstring) RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_out(@extschema@.bloomwindow) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_recv(internal) RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_send(@extschema@.bloomwindow) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- double alignment: each bucket's bit array is then 8-byte aligned in place
CREATE TYPE @extschema@.bloomwindow (
	INPUT = @extschema@.bloomwindow_in,
	OUTPUT = @extschema@.bloomwindow_out,
	RECEIVE = @extschema@.bloomwindow_recv,
	SEND = @extschema@.bloomwindow_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.bloomwindow IS 'Time-windowed Bloom filter: "may this key have been seen in the last hour?"';

CREATE FUNCTION @extschema@.bloomwindow_to_bytea(@extschema@.bloomwindow) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_from_bytea(bytea) RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.bloomwindow AS bytea)
	WITH FUNCTION @extschema@.bloomwindow_to_bytea(@extschema@.bloomwindow);
CREATE CAST (bytea AS @extschema@.bloomwindow)
	WITH FUNCTION @extschema@.bloomwindow_from_bytea(bytea);

-- capacity: distinct keys per bucket; fpr: the rate of a probe of the
-- whole window when every bucket holds capacity keys
CREATE FUNCTION @extschema@.bloom_window_empty(width interval, buckets int DEFAULT 6,
		capacity bigint DEFAULT 100000, fpr float8 DEFAULT 0.01,
		layout text DEFAULT 'blocked', seed bigint DEFAULT 0)
	RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME', 'bloomwindow_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- not STRICT: a NULL key or time leaves the window as it is.  VOLATILE: a
-- key stamped ahead of the present goes to the bucket of the server's clock
-- at the call (README "Sliding windows"), so the result can depend on when
-- it runs, and a plan must never fold it into a constant.
CREATE FUNCTION @extschema@.bloom_window_add(w @extschema@.bloomwindow, key anycompatible,
		at timestamptz DEFAULT now())
	RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME', 'bloomwindow_add' LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_window_contains(w @extschema@.bloomwindow, key anycompatible,
		at timestamptz)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomwindow_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- at now(): an overload rather than a default, so that the operators have
-- a two-argument function; STABLE, as now() is
CREATE FUNCTION @extschema@.bloom_window_contains(w @extschema@.bloomwindow, key anycompatible)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomwindow_contains_now' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_window_contained_in(key anycompatible, w @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomwindow_contained_in_now' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- w @> key and key <@ w: bloom_window_contains(w, key) at now()
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomwindow, RIGHTARG = anycompatible,
	FUNCTION = @extschema@.bloom_window_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel
);
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anycompatible, RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_window_contained_in,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel
);

CREATE FUNCTION @extschema@.bloom_window_filter(w @extschema@.bloomwindow,
		at timestamptz DEFAULT now())
	RETURNS @extschema@.bloomfilter
	AS 'MODULE_PATHNAME', 'bloomwindow_filter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_window_info(w @extschema@.bloomwindow,
		at timestamptz DEFAULT now(),
		OUT slot integer, OUT bucket_start timestamptz, OUT bucket_end timestamptz,
		OUT added bigint, OUT bits_set bigint, OUT est_cardinality float8,
		OUT est_fpr float8, OUT live boolean)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'bloomwindow_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- a named type, as bloom_info_result (pushed down to a remote, read back)
CREATE TYPE @extschema@.bloom_window_params_result AS (
	width interval, bucket_width interval, buckets integer, layout text,
	bits bigint, hashes integer, seed bigint, key_family text, bytes bigint,
	newest_end timestamptz);
CREATE FUNCTION @extschema@.bloom_window_params(w @extschema@.bloomwindow)
	RETURNS @extschema@.bloom_window_params_result
	AS 'MODULE_PATHNAME', 'bloomwindow_params' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- VOLATILE, as bloom_window_add: a key stamped ahead of the present goes to
-- the bucket of the server's clock at the call.  (PostgreSQL does not look
-- at a transition function's volatility when it plans an aggregate: the
-- label is for what the function is, and for direct calls.)
CREATE FUNCTION @extschema@.bloomwindow_agg_trans(@extschema@.bloomfilter_aggstate, anyelement, timestamptz,
		interval, int, bigint, float8)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_trans(internal, anyelement, timestamptz,
		interval, int, bigint, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_trans(@extschema@.bloomfilter_aggstate, anyelement, timestamptz,
		interval)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_trans(internal, anyelement, timestamptz,
		interval)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_final(@extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_final(internal)
	RETURNS @extschema@.bloomwindow
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_combine(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloomwindow_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.bloom_window_agg(key anyelement, at timestamptz,
		width interval, buckets int, capacity bigint, fpr float8) (
	SFUNC = @extschema@.bloomwindow_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloomwindow_agg_final,
	COMBINEFUNC = @extschema@.bloomwindow_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);

-- 6 buckets of 100000 keys at rate 0.01, as bloom_window_empty's defaults
CREATE AGGREGATE @extschema@.bloom_window_agg(key anyelement, at timestamptz,
		width interval) (
	SFUNC = @extschema@.bloomwindow_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloomwindow_agg_final,
	COMBINEFUNC = @extschema@.bloomwindow_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);

-- the merge of windows of one geometry, as bloom_window_agg's partial
-- states are merged; NULL over no window
CREATE FUNCTION @extschema@.bloomwindow_union_agg_trans(@extschema@.bloomfilter_aggstate, @extschema@.bloomwindow)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.bloom_union_agg(@extschema@.bloomwindow) (
	SFUNC = @extschema@.bloomwindow_union_agg_trans,
	STYPE = @extschema@.bloomfilter_aggstate,
	FINALFUNC = @extschema@.bloomwindow_agg_final,
	COMBINEFUNC = @extschema@.bloomwindow_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_union_agg(@extschema@.bloomwindow) IS
	'Merge of the windows (one geometry): each bucket the union of that bucket in every input, independent of their order';

-- =====================================================================
-- Scalable Bloom filters (Almeida et al.): the scalablebloom type
-- =====================================================================

CREATE TYPE @extschema@.scalablebloom;

CREATE FUNCTION @extschema@.scalablebloom_in(cstring) RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_out(@extschema@.scalablebloom) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_recv(internal) RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_send(@extschema@.scalablebloom) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.scalablebloom (
	INPUT = @extschema@.scalablebloom_in,
	OUTPUT = @extschema@.scalablebloom_out,
	RECEIVE = @extschema@.scalablebloom_recv,
	SEND = @extschema@.scalablebloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.scalablebloom IS 'Scalable Bloom filter: grows by adding sub-filters so that its false-positive rate stays under a target';

CREATE FUNCTION @extschema@.scalablebloom_to_bytea(@extschema@.scalablebloom) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_from_bytea(bytea) RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.scalablebloom AS bytea)
	WITH FUNCTION @extschema@.scalablebloom_to_bytea(@extschema@.scalablebloom);
CREATE CAST (bytea AS @extschema@.scalablebloom)
	WITH FUNCTION @extschema@.scalablebloom_from_bytea(bytea);

-- a bloomfilter becomes the first sub-filter of a container with
-- sbloom_empty's defaults (target 0.01, growth 2, tightening 0.85)
CREATE FUNCTION @extschema@.scalablebloom_from_bloomfilter(@extschema@.bloomfilter)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.bloomfilter AS @extschema@.scalablebloom)
	WITH FUNCTION @extschema@.scalablebloom_from_bloomfilter(@extschema@.bloomfilter);

CREATE FUNCTION @extschema@.sbloom_empty(initial_capacity bigint DEFAULT 1000,
		fpr float8 DEFAULT 0.01, growth int DEFAULT 2, tightening float8 DEFAULT 0.85,
		layout text DEFAULT 'blocked', seed bigint DEFAULT 0)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME', 'scalablebloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- not STRICT: a NULL element leaves the filter as it is
CREATE FUNCTION @extschema@.bloom_add(@extschema@.scalablebloom, anycompatible)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME', 'scalablebloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_add_all(@extschema@.scalablebloom, anyarray)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME', 'scalablebloom_add_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloom_contains(@extschema@.scalablebloom, anycompatible)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'scalablebloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_contained_in(anycompatible, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'scalablebloom_contained_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.+ (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = anycompatible,
	FUNCTION = @extschema@.bloom_add
);
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = anycompatible,
	FUNCTION = @extschema@.bloom_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = pg_catalog.contsel,
	JOIN = pg_catalog.contjoinsel
);
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anycompatible,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_contained_in,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = pg_catalog.contsel,
	JOIN = pg_catalog.contjoinsel
);

-- not STRICT: a NULL operand is the empty set, as for bloomfilter
CREATE FUNCTION @extschema@.bloom_union(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME', 'scalablebloom_union' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

-- the columns of bloom_info(bloomfilter), over all sub-filters: bits,
-- bits_set and bytes are totals, hashes the largest k, est_cardinality the
-- sum, est_fpr 1 - prod(1 - est_fpr of each)
CREATE FUNCTION @extschema@.bloom_info(@extschema@.scalablebloom)
	RETURNS @extschema@.bloom_info_result
	AS 'MODULE_PATHNAME', 'scalablebloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_fpr(@extschema@.scalablebloom) RETURNS float8
	AS 'MODULE_PATHNAME', 'scalablebloom_fpr' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cardinality(@extschema@.scalablebloom) RETURNS float8
	AS 'MODULE_PATHNAME', 'scalablebloom_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- a named type, as bloom_info_result (pushed down to a remote, read back)
CREATE TYPE @extschema@.sbloom_settings_result AS (
	fpr float8, growth integer, tightening float8, initial_capacity bigint,
	filters integer, rate_bound float8);
CREATE FUNCTION @extschema@.sbloom_settings(@extschema@.scalablebloom)
	RETURNS @extschema@.sbloom_settings_result
	AS 'MODULE_PATHNAME', 'scalablebloom_settings' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.sbloom_filters(@extschema@.scalablebloom,
		OUT index integer, OUT level integer, OUT capacity bigint, OUT target_fpr float8,
		OUT bits bigint, OUT hashes integer, OUT added bigint, OUT bits_set bigint,
		OUT est_cardinality float8, OUT est_fpr float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'scalablebloom_filters' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;

-- sbloom_agg(x): bloom_agg's self-sizing machinery (its state and combine
-- function) at the first level's rate
CREATE FUNCTION @extschema@.scalablebloom_agg_trans(@extschema@.bloomfilter_aggstate, anyelement)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_agg_trans(internal, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_agg_final(@extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_agg_final(internal)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.sbloom_agg(anyelement) (
	SFUNC = @extschema@.scalablebloom_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.scalablebloom_agg_final,
	COMBINEFUNC = @extschema@.bloomfilter_agg_combine,
	SERIALFUNC = @extschema@.bloomfilter_aggstate_serialize,
	DESERIALFUNC = @extschema@.bloomfilter_aggstate_deserialize,
	PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.scalablebloom_union_agg_trans(@extschema@.bloomfilter_aggstate, @extschema@.scalablebloom)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_union_agg_combine(@extschema@.bloomfilter_aggstate, @extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.bloomfilter_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.scalablebloom_union_agg_final(@extschema@.bloomfilter_aggstate)
	RETURNS @extschema@.scalablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.bloom_union_agg(@extschema@.scalablebloom) (
	SFUNC = @extschema@.scalablebloom_union_agg_trans,
	STYPE = @extschema@.bloomfilter_aggstate,
	FINALFUNC = @extschema@.scalablebloom_union_agg_final,
	COMBINEFUNC = @extschema@.scalablebloom_union_agg_combine,
	PARALLEL = SAFE
);

-- ---- probes of many keys (type/bf_array.c) ----
-- One call probes every element of an array, prefetching ahead so that the
-- cache misses of a large filter overlap.  Not overloads of bloom_contains:
-- anyelement also matches an array, and a filter of array-typed keys is
-- probed with bloom_contains(f, array) as one key.

-- bloom_contains(f, e) for every element e: a bool array of the keys'
-- dimensions, NULL where e is NULL
CREATE FUNCTION @extschema@.bloom_contains_all(@extschema@.bloomfilter, anyarray)
	RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloomfilter_contains_all' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- the elements that may be in the filter, in order, as a one-dimensional
-- array without NULLs
CREATE FUNCTION @extschema@.bloom_filter_array(@extschema@.bloomfilter, anyarray)
	RETURNS anyarray
	AS 'MODULE_PATHNAME', 'bloomfilter_filter_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- =====================================================================
-- Equality and order of countingbloom, bloomwindow and scalablebloom:
-- as bloomfilter's (see "Equality and order" above).  f = g compares
-- whole values, counts and clocks included.
-- =====================================================================

-- ---- countingbloom ----

CREATE FUNCTION @extschema@.bloom_eq(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash(@extschema@.countingbloom)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_lt(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_le(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_gt(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ge(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cmp(@extschema@.countingbloom, @extschema@.countingbloom)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash_extended(@extschema@.countingbloom, bigint)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.countingbloom,
	RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.bloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>),
	NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel,
	JOIN = pg_catalog.scalarltjoinsel
);

CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.countingbloom,
	RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.bloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=),
	NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel,
	JOIN = pg_catalog.scalarlejoinsel
);

CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.countingbloom,
	RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.bloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<),
	NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel,
	JOIN = pg_catalog.scalargtjoinsel
);

CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.countingbloom,
	RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.bloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=),
	NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel,
	JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.countingbloom,
	RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES,
	MERGES
);

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.countingbloom,
	RIGHTARG = @extschema@.countingbloom,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>),
	NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);

CREATE OPERATOR CLASS @extschema@.countingbloom_hash_ops
	DEFAULT FOR TYPE @extschema@.countingbloom USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.countingbloom, @extschema@.countingbloom),
	FUNCTION 1 @extschema@.bloom_hash(@extschema@.countingbloom),
	FUNCTION 2 @extschema@.bloom_hash_extended(@extschema@.countingbloom, bigint);

CREATE OPERATOR CLASS @extschema@.countingbloom_btree_ops
	DEFAULT FOR TYPE @extschema@.countingbloom USING btree AS
	OPERATOR 1 @extschema@.< (@extschema@.countingbloom, @extschema@.countingbloom),
	OPERATOR 2 @extschema@.<= (@extschema@.countingbloom, @extschema@.countingbloom),
	OPERATOR 3 @extschema@.= (@extschema@.countingbloom, @extschema@.countingbloom),
	OPERATOR 4 @extschema@.>= (@extschema@.countingbloom, @extschema@.countingbloom),
	OPERATOR 5 @extschema@.> (@extschema@.countingbloom, @extschema@.countingbloom),
	FUNCTION 1 @extschema@.bloom_cmp(@extschema@.countingbloom, @extschema@.countingbloom),
	FUNCTION 4 pg_catalog.btequalimage(oid);

-- ---- bloomwindow ----

CREATE FUNCTION @extschema@.bloom_eq(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash(@extschema@.bloomwindow)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_lt(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_le(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_gt(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ge(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cmp(@extschema@.bloomwindow, @extschema@.bloomwindow)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash_extended(@extschema@.bloomwindow, bigint)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.bloomwindow,
	RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>),
	NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel,
	JOIN = pg_catalog.scalarltjoinsel
);

CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.bloomwindow,
	RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=),
	NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel,
	JOIN = pg_catalog.scalarlejoinsel
);

CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.bloomwindow,
	RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<),
	NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel,
	JOIN = pg_catalog.scalargtjoinsel
);

CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.bloomwindow,
	RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=),
	NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel,
	JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bloomwindow,
	RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES,
	MERGES
);

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bloomwindow,
	RIGHTARG = @extschema@.bloomwindow,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>),
	NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);

CREATE OPERATOR CLASS @extschema@.bloomwindow_hash_ops
	DEFAULT FOR TYPE @extschema@.bloomwindow USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.bloomwindow, @extschema@.bloomwindow),
	FUNCTION 1 @extschema@.bloom_hash(@extschema@.bloomwindow),
	FUNCTION 2 @extschema@.bloom_hash_extended(@extschema@.bloomwindow, bigint);

CREATE OPERATOR CLASS @extschema@.bloomwindow_btree_ops
	DEFAULT FOR TYPE @extschema@.bloomwindow USING btree AS
	OPERATOR 1 @extschema@.< (@extschema@.bloomwindow, @extschema@.bloomwindow),
	OPERATOR 2 @extschema@.<= (@extschema@.bloomwindow, @extschema@.bloomwindow),
	OPERATOR 3 @extschema@.= (@extschema@.bloomwindow, @extschema@.bloomwindow),
	OPERATOR 4 @extschema@.>= (@extschema@.bloomwindow, @extschema@.bloomwindow),
	OPERATOR 5 @extschema@.> (@extschema@.bloomwindow, @extschema@.bloomwindow),
	FUNCTION 1 @extschema@.bloom_cmp(@extschema@.bloomwindow, @extschema@.bloomwindow),
	FUNCTION 4 pg_catalog.btequalimage(oid);

-- ---- scalablebloom ----

CREATE FUNCTION @extschema@.bloom_eq(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash(@extschema@.scalablebloom)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_lt(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_le(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_gt(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ge(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cmp(@extschema@.scalablebloom, @extschema@.scalablebloom)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_hash_extended(@extschema@.scalablebloom, bigint)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloomfilter_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>),
	NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel,
	JOIN = pg_catalog.scalarltjoinsel
);

CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=),
	NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel,
	JOIN = pg_catalog.scalarlejoinsel
);

CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<),
	NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel,
	JOIN = pg_catalog.scalargtjoinsel
);

CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=),
	NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel,
	JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES,
	MERGES
);

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.scalablebloom,
	RIGHTARG = @extschema@.scalablebloom,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>),
	NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);

CREATE OPERATOR CLASS @extschema@.scalablebloom_hash_ops
	DEFAULT FOR TYPE @extschema@.scalablebloom USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.scalablebloom, @extschema@.scalablebloom),
	FUNCTION 1 @extschema@.bloom_hash(@extschema@.scalablebloom),
	FUNCTION 2 @extschema@.bloom_hash_extended(@extschema@.scalablebloom, bigint);

CREATE OPERATOR CLASS @extschema@.scalablebloom_btree_ops
	DEFAULT FOR TYPE @extschema@.scalablebloom USING btree AS
	OPERATOR 1 @extschema@.< (@extschema@.scalablebloom, @extschema@.scalablebloom),
	OPERATOR 2 @extschema@.<= (@extschema@.scalablebloom, @extschema@.scalablebloom),
	OPERATOR 3 @extschema@.= (@extschema@.scalablebloom, @extschema@.scalablebloom),
	OPERATOR 4 @extschema@.>= (@extschema@.scalablebloom, @extschema@.scalablebloom),
	OPERATOR 5 @extschema@.> (@extschema@.scalablebloom, @extschema@.scalablebloom),
	FUNCTION 1 @extschema@.bloom_cmp(@extschema@.scalablebloom, @extschema@.scalablebloom),
	FUNCTION 4 pg_catalog.btequalimage(oid);

-- ---------------------------------------------------------------------
-- What each object does, for \dT+, \df+, \da+, \do+, \dC+, \dAc+ and \dx+
-- (a COMMENT ON every user-facing object; sql/bloom_comments.sql fails
-- when one lacks it).  Naming rule: a function whose name starts with the
-- name of one of the extension's types and an underscore (bloomfilter_,
-- countingbloom_, scalablebloom_, bloomwindow_, gbloomfilter_,
-- gbloom_key_) is internal support: type I/O, casts, aggregate steps,
-- index and planner support.  Every other object is user-facing.  Objects
-- added later get their COMMENT beside their definition.
-- ---------------------------------------------------------------------

-- types
COMMENT ON TYPE @extschema@.gbloom_key IS 'A probe key boxed with its type: the right side of the index conditions the planner writes for col @> x and col @>> q; no text input';
COMMENT ON TYPE @extschema@.gbloomfilter IS 'Internal: the GiST index''s key (a signature, or a leaf''s filter)';

-- constructors
COMMENT ON FUNCTION @extschema@.bloom_empty(bigint, float8, text, bigint) IS 'Empty Bloom filter sized for capacity distinct keys at false-positive rate fpr (layout ''blocked'' or ''classic'', hash seed)';
COMMENT ON FUNCTION @extschema@.bloom_empty_bits(bigint, int, text, bigint) IS 'Empty Bloom filter of an explicit number of bits and hashes';

-- adding and probing
COMMENT ON FUNCTION @extschema@.bloom_add(@extschema@.bloomfilter, anycompatible) IS 'A copy of the filter with the key added (operator +); a NULL key leaves it as it is';
COMMENT ON FUNCTION @extschema@.bloom_add_all(@extschema@.bloomfilter, anyarray) IS 'A copy of the filter with every non-NULL element of the array added';
COMMENT ON FUNCTION @extschema@.bloom_contains(@extschema@.bloomfilter, anycompatible) IS 'May the key be in the filter? true: maybe, false: certainly not (operator @>)';
COMMENT ON FUNCTION @extschema@.bloom_contained_in(anycompatible, @extschema@.bloomfilter) IS 'May the key be in the filter? (operator <@, key on the left)';
COMMENT ON FUNCTION @extschema@.bloom_contains_all(@extschema@.bloomfilter, anyarray) IS 'bloom_contains for every element of the array, probed as a batch, in an array of the same shape';
COMMENT ON FUNCTION @extschema@.bloom_filter_array(@extschema@.bloomfilter, anyarray) IS 'The elements of the array that may be in the filter, in order, without NULLs';
COMMENT ON OPERATOR @extschema@.+ (@extschema@.bloomfilter, anycompatible) IS 'key added (bloom_add)';
COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, anycompatible) IS 'filter may contain key (bloom_contains)';
COMMENT ON OPERATOR @extschema@.<@ (anycompatible, @extschema@.bloomfilter) IS 'key may be in filter (bloom_contained_in)';

-- combining
COMMENT ON FUNCTION @extschema@.bloom_union(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Filter of the keys of either (operator |); power-of-two sizes are folded to the smaller';
COMMENT ON FUNCTION @extschema@.bloom_intersect(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Filter of the keys of both (operator &): the bits ANDed';
COMMENT ON FUNCTION @extschema@.bloom_contains_filter(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Is every bit of the second filter set in the first? (superset screening, operator @>>)';
COMMENT ON FUNCTION @extschema@.bloom_contained_in_filter(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Is every bit of the first filter set in the second? (operator <<@)';
COMMENT ON OPERATOR @extschema@.| (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'union (bloom_union)';
COMMENT ON OPERATOR @extschema@.& (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'intersection (bloom_intersect)';
COMMENT ON OPERATOR @extschema@.@>> (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'every bit of the right filter is set in the left (bloom_contains_filter)';
COMMENT ON OPERATOR @extschema@.<<@ (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'every bit of the left filter is set in the right (bloom_contained_in_filter)';

-- inspecting, estimating, sizing
COMMENT ON TYPE @extschema@.bloom_info_result IS 'The row of bloom_info: layout, bits, hashes, bytes, seed, key_family, added, bits_set, fill_ratio, est_cardinality, est_fpr, format_version';
COMMENT ON FUNCTION @extschema@.bloom_info(@extschema@.bloomfilter) IS 'Layout, size, hashes, seed, key family, keys added, bits set, estimated cardinality and false-positive rate of a filter';
COMMENT ON FUNCTION @extschema@.bloom_cardinality(@extschema@.bloomfilter) IS 'Estimated number of distinct keys in the filter';
COMMENT ON FUNCTION @extschema@.bloom_fpr(@extschema@.bloomfilter) IS 'Probability that a key not in the set probes true, given the bits set now';
COMMENT ON FUNCTION @extschema@.bloom_union_cardinality(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Estimated size of the union of two filters'' sets';
COMMENT ON FUNCTION @extschema@.bloom_intersection_cardinality(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Estimated size of the intersection of two filters'' sets';
COMMENT ON FUNCTION @extschema@.bloom_jaccard(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Estimated Jaccard similarity (intersection / union) of two filters'' sets';
COMMENT ON FUNCTION @extschema@.bloom_optimal_bits(bigint, float8) IS 'Textbook bits for capacity keys at rate fpr: ceil(-n ln p / (ln 2)^2)';
COMMENT ON FUNCTION @extschema@.bloom_optimal_hashes(bigint, bigint) IS 'Textbook number of hashes for bits and capacity: round(m/n ln 2), 1 to 32';
COMMENT ON FUNCTION @extschema@.bloom_expected_fpr(bigint, integer, bigint) IS 'Textbook false-positive rate of m bits and k hashes after n keys: (1 - e^(-kn/m))^k';

-- aggregates
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement) IS 'Bloom filter of the non-NULL values, sized for their distinct count at a 1% rate (never a setting)';
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, bigint, float8) IS 'Bloom filter of the non-NULL values, sized as bloom_empty(capacity, fpr)';
COMMENT ON AGGREGATE @extschema@.bloom_union_agg(@extschema@.bloomfilter) IS 'Union of the filters';
COMMENT ON AGGREGATE @extschema@.bloom_intersect_agg(@extschema@.bloomfilter) IS 'Intersection of the filters';

-- comparing, ordering, hashing whole values (every type)
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Identical filters (operator =)';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Not identical filters (operator <>)';
COMMENT ON FUNCTION @extschema@.bloom_lt(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Sorts before, by stored bytes (operator <)';
COMMENT ON FUNCTION @extschema@.bloom_le(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Sorts before or equal, by stored bytes (operator <=)';
COMMENT ON FUNCTION @extschema@.bloom_gt(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Sorts after, by stored bytes (operator >)';
COMMENT ON FUNCTION @extschema@.bloom_ge(@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'Sorts after or equal, by stored bytes (operator >=)';
COMMENT ON FUNCTION @extschema@.bloom_cmp(@extschema@.bloomfilter, @extschema@.bloomfilter) IS '-1, 0 or 1 by stored bytes (btree support)';
COMMENT ON FUNCTION @extschema@.bloom_hash(@extschema@.bloomfilter) IS '32-bit hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_hash_extended(@extschema@.bloomfilter, bigint) IS '64-bit seeded hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Identical counting filters (operator =)';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Not identical counting filters (operator <>)';
COMMENT ON FUNCTION @extschema@.bloom_lt(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Sorts before, by stored bytes (operator <)';
COMMENT ON FUNCTION @extschema@.bloom_le(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Sorts before or equal, by stored bytes (operator <=)';
COMMENT ON FUNCTION @extschema@.bloom_gt(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Sorts after, by stored bytes (operator >)';
COMMENT ON FUNCTION @extschema@.bloom_ge(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Sorts after or equal, by stored bytes (operator >=)';
COMMENT ON FUNCTION @extschema@.bloom_cmp(@extschema@.countingbloom, @extschema@.countingbloom) IS '-1, 0 or 1 by stored bytes (btree support)';
COMMENT ON FUNCTION @extschema@.bloom_hash(@extschema@.countingbloom) IS '32-bit hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_hash_extended(@extschema@.countingbloom, bigint) IS '64-bit seeded hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'Identical windows (operator =)';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'Not identical windows (operator <>)';
COMMENT ON FUNCTION @extschema@.bloom_lt(@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'Sorts before, by stored bytes (operator <)';
COMMENT ON FUNCTION @extschema@.bloom_le(@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'Sorts before or equal, by stored bytes (operator <=)';
COMMENT ON FUNCTION @extschema@.bloom_gt(@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'Sorts after, by stored bytes (operator >)';
COMMENT ON FUNCTION @extschema@.bloom_ge(@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'Sorts after or equal, by stored bytes (operator >=)';
COMMENT ON FUNCTION @extschema@.bloom_cmp(@extschema@.bloomwindow, @extschema@.bloomwindow) IS '-1, 0 or 1 by stored bytes (btree support)';
COMMENT ON FUNCTION @extschema@.bloom_hash(@extschema@.bloomwindow) IS '32-bit hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_hash_extended(@extschema@.bloomwindow, bigint) IS '64-bit seeded hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'Identical scalable filters (operator =)';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'Not identical scalable filters (operator <>)';
COMMENT ON FUNCTION @extschema@.bloom_lt(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'Sorts before, by stored bytes (operator <)';
COMMENT ON FUNCTION @extschema@.bloom_le(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'Sorts before or equal, by stored bytes (operator <=)';
COMMENT ON FUNCTION @extschema@.bloom_gt(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'Sorts after, by stored bytes (operator >)';
COMMENT ON FUNCTION @extschema@.bloom_ge(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'Sorts after or equal, by stored bytes (operator >=)';
COMMENT ON FUNCTION @extschema@.bloom_cmp(@extschema@.scalablebloom, @extschema@.scalablebloom) IS '-1, 0 or 1 by stored bytes (btree support)';
COMMENT ON FUNCTION @extschema@.bloom_hash(@extschema@.scalablebloom) IS '32-bit hash of the stored bytes (hash index support)';
COMMENT ON FUNCTION @extschema@.bloom_hash_extended(@extschema@.scalablebloom, bigint) IS '64-bit seeded hash of the stored bytes (hash index support)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'identical values';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'not identical values';
COMMENT ON OPERATOR @extschema@.< (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'sorts before (by stored bytes, not a subset order)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'sorts before or equal (by stored bytes)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'sorts after (by stored bytes)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.bloomfilter, @extschema@.bloomfilter) IS 'sorts after or equal (by stored bytes)';
COMMENT ON OPERATOR CLASS @extschema@.bloomfilter_btree_ops USING btree IS 'Default btree class of bloomfilter: ORDER BY, DISTINCT, merge joins, unique constraints';
COMMENT ON OPERATOR FAMILY @extschema@.bloomfilter_btree_ops USING btree IS 'Default btree family of bloomfilter';
COMMENT ON OPERATOR CLASS @extschema@.bloomfilter_hash_ops USING hash IS 'Default hash class of bloomfilter: hashed GROUP BY, hash joins, PARTITION BY HASH';
COMMENT ON OPERATOR FAMILY @extschema@.bloomfilter_hash_ops USING hash IS 'Default hash family of bloomfilter';
COMMENT ON CAST (@extschema@.bloomfilter AS bytea) IS 'The portable bytes of the bloomfilter (src/core/FORMAT.md)';
COMMENT ON CAST (bytea AS @extschema@.bloomfilter) IS 'A bloomfilter from its portable bytes, every field and the checksum validated';
COMMENT ON OPERATOR @extschema@.= (@extschema@.countingbloom, @extschema@.countingbloom) IS 'identical values';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.countingbloom, @extschema@.countingbloom) IS 'not identical values';
COMMENT ON OPERATOR @extschema@.< (@extschema@.countingbloom, @extschema@.countingbloom) IS 'sorts before (by stored bytes, not a subset order)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.countingbloom, @extschema@.countingbloom) IS 'sorts before or equal (by stored bytes)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.countingbloom, @extschema@.countingbloom) IS 'sorts after (by stored bytes)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.countingbloom, @extschema@.countingbloom) IS 'sorts after or equal (by stored bytes)';
COMMENT ON OPERATOR CLASS @extschema@.countingbloom_btree_ops USING btree IS 'Default btree class of countingbloom: ORDER BY, DISTINCT, merge joins, unique constraints';
COMMENT ON OPERATOR FAMILY @extschema@.countingbloom_btree_ops USING btree IS 'Default btree family of countingbloom';
COMMENT ON OPERATOR CLASS @extschema@.countingbloom_hash_ops USING hash IS 'Default hash class of countingbloom: hashed GROUP BY, hash joins, PARTITION BY HASH';
COMMENT ON OPERATOR FAMILY @extschema@.countingbloom_hash_ops USING hash IS 'Default hash family of countingbloom';
COMMENT ON CAST (@extschema@.countingbloom AS bytea) IS 'The portable bytes of the countingbloom (src/core/FORMAT.md)';
COMMENT ON CAST (bytea AS @extschema@.countingbloom) IS 'A countingbloom from its portable bytes, every field and the checksum validated';
COMMENT ON OPERATOR @extschema@.= (@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'identical values';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'not identical values';
COMMENT ON OPERATOR @extschema@.< (@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'sorts before (by stored bytes, not a subset order)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'sorts before or equal (by stored bytes)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'sorts after (by stored bytes)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.bloomwindow, @extschema@.bloomwindow) IS 'sorts after or equal (by stored bytes)';
COMMENT ON OPERATOR CLASS @extschema@.bloomwindow_btree_ops USING btree IS 'Default btree class of bloomwindow: ORDER BY, DISTINCT, merge joins, unique constraints';
COMMENT ON OPERATOR FAMILY @extschema@.bloomwindow_btree_ops USING btree IS 'Default btree family of bloomwindow';
COMMENT ON OPERATOR CLASS @extschema@.bloomwindow_hash_ops USING hash IS 'Default hash class of bloomwindow: hashed GROUP BY, hash joins, PARTITION BY HASH';
COMMENT ON OPERATOR FAMILY @extschema@.bloomwindow_hash_ops USING hash IS 'Default hash family of bloomwindow';
COMMENT ON CAST (@extschema@.bloomwindow AS bytea) IS 'The portable bytes of the bloomwindow (src/core/FORMAT.md)';
COMMENT ON CAST (bytea AS @extschema@.bloomwindow) IS 'A bloomwindow from its portable bytes, every field and the checksum validated';
COMMENT ON OPERATOR @extschema@.= (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'identical values';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'not identical values';
COMMENT ON OPERATOR @extschema@.< (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'sorts before (by stored bytes, not a subset order)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'sorts before or equal (by stored bytes)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'sorts after (by stored bytes)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'sorts after or equal (by stored bytes)';
COMMENT ON OPERATOR CLASS @extschema@.scalablebloom_btree_ops USING btree IS 'Default btree class of scalablebloom: ORDER BY, DISTINCT, merge joins, unique constraints';
COMMENT ON OPERATOR FAMILY @extschema@.scalablebloom_btree_ops USING btree IS 'Default btree family of scalablebloom';
COMMENT ON OPERATOR CLASS @extschema@.scalablebloom_hash_ops USING hash IS 'Default hash class of scalablebloom: hashed GROUP BY, hash joins, PARTITION BY HASH';
COMMENT ON OPERATOR FAMILY @extschema@.scalablebloom_hash_ops USING hash IS 'Default hash family of scalablebloom';
COMMENT ON CAST (@extschema@.scalablebloom AS bytea) IS 'The portable bytes of the scalablebloom (src/core/FORMAT.md)';
COMMENT ON CAST (bytea AS @extschema@.scalablebloom) IS 'A scalablebloom from its portable bytes, every field and the checksum validated';
COMMENT ON CAST (@extschema@.countingbloom AS @extschema@.bloomfilter) IS 'The Bloom filter that answers as the counting filter (cbloom_to_bloom)';
COMMENT ON CAST (@extschema@.bloomfilter AS @extschema@.scalablebloom) IS 'A scalable filter with the Bloom filter as its first sub-filter';

-- indexes and the planner
COMMENT ON FUNCTION @extschema@.gbloom_key(anyelement) IS 'The key boxed with its type: the right side of the GiST index condition the planner writes for col @> x';
COMMENT ON FUNCTION @extschema@.gbloom_contains(@extschema@.bloomfilter, @extschema@.gbloom_key) IS 'bloom_contains(f, x) for a boxed key (operator @> of the index conditions)';
COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, @extschema@.gbloom_key) IS 'filter may contain the boxed key (index condition of col @> x)';
COMMENT ON OPERATOR CLASS @extschema@.bloomfilter_gist_ops USING gist IS 'GiST signature tree over Bloom filters: col @> x, x <@ col, col @>> q; for sparse filters and superset queries; option siglen';
COMMENT ON OPERATOR FAMILY @extschema@.bloomfilter_gist_ops USING gist IS 'GiST family of bloomfilter_gist_ops';
COMMENT ON OPERATOR FAMILY @extschema@.bloomfilter_slice_ops USING bloomslice IS 'bloomslice family of bloomfilter_slice_ops';

-- counting filters
COMMENT ON FUNCTION @extschema@.cbloom_to_bloom(@extschema@.countingbloom) IS 'The Bloom filter that answers as the counting filter (a counter above zero is a set bit)';
COMMENT ON FUNCTION @extschema@.cbloom_empty(bigint, float8, text, bigint, integer) IS 'Empty counting filter for capacity keys at rate fpr, with 4- or 8-bit counters';
COMMENT ON FUNCTION @extschema@.cbloom_empty_counters(bigint, integer, text, bigint, integer) IS 'Empty counting filter of an explicit number of counters and hashes';
COMMENT ON FUNCTION @extschema@.cbloom_add(@extschema@.countingbloom, anycompatible) IS 'A copy with the key added (operator +)';
COMMENT ON FUNCTION @extschema@.cbloom_remove(@extschema@.countingbloom, anycompatible) IS 'A copy with the key removed (operator -); unchanged if the key is surely absent; remove only keys you added';
COMMENT ON FUNCTION @extschema@.cbloom_add_all(@extschema@.countingbloom, anyarray) IS 'A copy with every non-NULL element added';
COMMENT ON FUNCTION @extschema@.cbloom_remove_all(@extschema@.countingbloom, anyarray) IS 'A copy with every non-NULL element removed, as cbloom_remove one after the other; remove only keys you added';
COMMENT ON FUNCTION @extschema@.cbloom_contains(@extschema@.countingbloom, anycompatible) IS 'May the key be in the counting filter? (operator @>)';
COMMENT ON FUNCTION @extschema@.cbloom_contained_in(anycompatible, @extschema@.countingbloom) IS 'May the key be in the counting filter? (operator <@)';
COMMENT ON FUNCTION @extschema@.cbloom_count(@extschema@.countingbloom, anycompatible) IS 'Smallest of the key''s counters: an upper bound of its count, 0 if surely absent';
COMMENT ON FUNCTION @extschema@.cbloom_union(@extschema@.countingbloom, @extschema@.countingbloom) IS 'Counters summed, saturating (operator |)';
COMMENT ON TYPE @extschema@.sbloom_settings_result IS 'The row of sbloom_settings: fpr, growth, tightening, initial_capacity, filters, rate_bound';
COMMENT ON TYPE @extschema@.bloom_window_params_result IS 'The row of bloom_window_params: width, bucket_width, buckets, layout, bits, hashes, seed, key_family, bytes, newest_end';
COMMENT ON TYPE @extschema@.cbloom_info_result IS 'The row of cbloom_info: layout, counters, hashes, counter_bits, bytes, seed, key_family, items, nonzero_counters, saturated_counters, est_fpr, format_version';
COMMENT ON FUNCTION @extschema@.cbloom_info(@extschema@.countingbloom) IS 'Layout, counters, hashes, counter width, size, seed, key family, items, non-zero and saturated counters, estimated rate';
COMMENT ON AGGREGATE @extschema@.cbloom_agg(anyelement, bigint, float8) IS 'Counting filter of the non-NULL values, 4-bit counters';
COMMENT ON AGGREGATE @extschema@.cbloom_agg(anyelement, bigint, float8, integer) IS 'Counting filter of the non-NULL values, with 4- or 8-bit counters';
COMMENT ON OPERATOR @extschema@.+ (@extschema@.countingbloom, anycompatible) IS 'key added (cbloom_add)';
COMMENT ON OPERATOR @extschema@.- (@extschema@.countingbloom, anycompatible) IS 'key removed (cbloom_remove)';
COMMENT ON OPERATOR @extschema@.@> (@extschema@.countingbloom, anycompatible) IS 'counting filter may contain key (cbloom_contains)';
COMMENT ON OPERATOR @extschema@.<@ (anycompatible, @extschema@.countingbloom) IS 'key may be in counting filter (cbloom_contained_in)';
COMMENT ON OPERATOR @extschema@.| (@extschema@.countingbloom, @extschema@.countingbloom) IS 'counters summed (cbloom_union)';

-- sliding windows
COMMENT ON FUNCTION @extschema@.bloom_window_empty(interval, int, bigint, float8, text, bigint) IS 'Empty window of the given width in buckets, each for capacity keys; fpr is the rate of a probe of the whole window';
COMMENT ON FUNCTION @extschema@.bloom_window_add(@extschema@.bloomwindow, anycompatible, timestamptz) IS 'A copy with the key added to the bucket of time at (default now())';
COMMENT ON FUNCTION @extschema@.bloom_window_contains(@extschema@.bloomwindow, anycompatible, timestamptz) IS 'May the key have been added within the window ending at time at?';
COMMENT ON FUNCTION @extschema@.bloom_window_contains(@extschema@.bloomwindow, anycompatible) IS 'May the key have been added within the window ending now()? (operator @>)';
COMMENT ON FUNCTION @extschema@.bloom_window_contained_in(anycompatible, @extschema@.bloomwindow) IS 'May the key have been added within the window ending now()? (operator <@)';
COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomwindow, anycompatible) IS 'window may contain key now (bloom_window_contains)';
COMMENT ON OPERATOR @extschema@.<@ (anycompatible, @extschema@.bloomwindow) IS 'key may be in window now (bloom_window_contained_in)';
COMMENT ON FUNCTION @extschema@.bloom_window_filter(@extschema@.bloomwindow, timestamptz) IS 'The union of the buckets live at time at, as one bloomfilter';
COMMENT ON FUNCTION @extschema@.bloom_window_info(@extschema@.bloomwindow, timestamptz) IS 'One row per bucket: its span, keys added, bits set, estimates, and whether it is live at time at';
COMMENT ON FUNCTION @extschema@.bloom_window_params(@extschema@.bloomwindow) IS 'Width, bucket width, buckets, layout, bits, hashes, seed, key family, size and newest bucket end of a window';
COMMENT ON AGGREGATE @extschema@.bloom_window_agg(anyelement, timestamptz, interval) IS 'Window of the (key, time) rows: 6 buckets of 100000 keys at 1%';
COMMENT ON AGGREGATE @extschema@.bloom_window_agg(anyelement, timestamptz, interval, integer, bigint, float8) IS 'Window of the (key, time) rows with the given buckets, capacity and rate';

-- scalable filters
COMMENT ON FUNCTION @extschema@.sbloom_empty(bigint, float8, integer, float8, text, bigint) IS 'Empty scalable filter: one sub-filter for initial_capacity keys; grows to keep the rate under fpr';
COMMENT ON FUNCTION @extschema@.bloom_add(@extschema@.scalablebloom, anycompatible) IS 'A copy with the key added (operator +); grows when the last sub-filter is full';
COMMENT ON FUNCTION @extschema@.bloom_add_all(@extschema@.scalablebloom, anyarray) IS 'A copy with every non-NULL element added';
COMMENT ON FUNCTION @extschema@.bloom_contains(@extschema@.scalablebloom, anycompatible) IS 'May the key be in any sub-filter? (operator @>)';
COMMENT ON FUNCTION @extschema@.bloom_contained_in(anycompatible, @extschema@.scalablebloom) IS 'May the key be in any sub-filter? (operator <@)';
COMMENT ON FUNCTION @extschema@.bloom_union(@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'The sub-filters of both (operator |): no key lost, rates add up';
COMMENT ON FUNCTION @extschema@.bloom_info(@extschema@.scalablebloom) IS 'bloom_info''s columns over all sub-filters (sizes summed, rate combined)';
COMMENT ON FUNCTION @extschema@.bloom_fpr(@extschema@.scalablebloom) IS 'Estimated false-positive rate over all sub-filters';
COMMENT ON FUNCTION @extschema@.bloom_cardinality(@extschema@.scalablebloom) IS 'Estimated distinct keys, summed over the sub-filters';
COMMENT ON FUNCTION @extschema@.sbloom_settings(@extschema@.scalablebloom) IS 'Target rate, growth, tightening, initial capacity, sub-filters and the bound on the rate';
COMMENT ON FUNCTION @extschema@.sbloom_filters(@extschema@.scalablebloom) IS 'One row per sub-filter: level, capacity, target rate, size, keys, estimates';
COMMENT ON AGGREGATE @extschema@.sbloom_agg(anyelement) IS 'Scalable filter of the non-NULL values (sized as bloom_agg, at a tightened rate) so that unions across shards keep the rate';
COMMENT ON AGGREGATE @extschema@.bloom_union_agg(@extschema@.scalablebloom) IS 'Union of the scalable filters, independent of their order';
COMMENT ON OPERATOR @extschema@.+ (@extschema@.scalablebloom, anycompatible) IS 'key added (bloom_add)';
COMMENT ON OPERATOR @extschema@.@> (@extschema@.scalablebloom, anycompatible) IS 'scalable filter may contain key (bloom_contains)';
COMMENT ON OPERATOR @extschema@.<@ (anycompatible, @extschema@.scalablebloom) IS 'key may be in scalable filter (bloom_contained_in)';
COMMENT ON OPERATOR @extschema@.| (@extschema@.scalablebloom, @extschema@.scalablebloom) IS 'union (bloom_union)';

-- cbloom_agg, bloom_window_agg and sbloom_agg for one key type: as
-- bloom_agg's overloads above (same types, same reasons), with the real
-- transition type so that Citus runs them on its workers.
DO $key_type_overloads$
DECLARE
	t text;
	s text := quote_ident(current_schema());
	m text := 'MODULE_PATHNAME';
BEGIN
	FOREACH t IN ARRAY ARRAY['int2', 'int4', 'int8', 'numeric', 'float4', 'float8',
							 'bool', 'bytea', 'uuid', 'date', 'timestamp', 'timestamptz']
	LOOP
		EXECUTE format('CREATE FUNCTION %1$s.countingbloom_agg_trans(%1$s.bloomfilter_aggstate, %2$s, bigint, float8)
			RETURNS %1$s.bloomfilter_aggstate AS %3$L, %4$L LANGUAGE C IMMUTABLE PARALLEL SAFE',
			s, t, m, 'countingbloom_agg_trans');
		EXECUTE format('CREATE FUNCTION %1$s.countingbloom_agg_trans(%1$s.bloomfilter_aggstate, %2$s, bigint, float8, integer)
			RETURNS %1$s.bloomfilter_aggstate AS %3$L, %4$L LANGUAGE C IMMUTABLE PARALLEL SAFE',
			s, t, m, 'countingbloom_agg_trans');
		EXECUTE format('CREATE AGGREGATE %1$s.cbloom_agg(%2$s, capacity bigint, fpr float8) (
			SFUNC = %1$s.countingbloom_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.countingbloom_agg_final, COMBINEFUNC = %1$s.countingbloom_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('CREATE AGGREGATE %1$s.cbloom_agg(%2$s, capacity bigint, fpr float8, counter_bits integer) (
			SFUNC = %1$s.countingbloom_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.countingbloom_agg_final, COMBINEFUNC = %1$s.countingbloom_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('COMMENT ON AGGREGATE %1$s.cbloom_agg(%2$s, bigint, float8) IS %3$L', s, t,
			format('Counting filter of the non-NULL %s values, 4-bit counters (runs on Citus workers)', t));
		EXECUTE format('COMMENT ON AGGREGATE %1$s.cbloom_agg(%2$s, bigint, float8, integer) IS %3$L', s, t,
			format('Counting filter of the non-NULL %s values, with 4- or 8-bit counters (runs on Citus workers)', t));

		EXECUTE format('CREATE FUNCTION %1$s.bloomwindow_agg_trans(%1$s.bloomfilter_aggstate, %2$s, timestamptz, interval, int, bigint, float8)
			RETURNS %1$s.bloomfilter_aggstate AS %3$L, %4$L LANGUAGE C VOLATILE PARALLEL SAFE',
			s, t, m, 'bloomwindow_agg_trans');
		EXECUTE format('CREATE FUNCTION %1$s.bloomwindow_agg_trans(%1$s.bloomfilter_aggstate, %2$s, timestamptz, interval)
			RETURNS %1$s.bloomfilter_aggstate AS %3$L, %4$L LANGUAGE C VOLATILE PARALLEL SAFE',
			s, t, m, 'bloomwindow_agg_trans');
		EXECUTE format('CREATE AGGREGATE %1$s.bloom_window_agg(key %2$s, at timestamptz,
				width interval, buckets int, capacity bigint, fpr float8) (
			SFUNC = %1$s.bloomwindow_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.bloomwindow_agg_final, COMBINEFUNC = %1$s.bloomwindow_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('CREATE AGGREGATE %1$s.bloom_window_agg(key %2$s, at timestamptz, width interval) (
			SFUNC = %1$s.bloomwindow_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.bloomwindow_agg_final, COMBINEFUNC = %1$s.bloomwindow_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('COMMENT ON AGGREGATE %1$s.bloom_window_agg(%2$s, timestamptz, interval) IS %3$L', s, t,
			format('Window of the (%s key, time) rows: 6 buckets of 100000 keys at 1%% (runs on Citus workers)', t));
		EXECUTE format('COMMENT ON AGGREGATE %1$s.bloom_window_agg(%2$s, timestamptz, interval, integer, bigint, float8) IS %3$L', s, t,
			format('Window of the (%s key, time) rows with the given buckets, capacity and rate (runs on Citus workers)', t));

		EXECUTE format('CREATE FUNCTION %1$s.scalablebloom_agg_trans(%1$s.bloomfilter_aggstate, %2$s)
			RETURNS %1$s.bloomfilter_aggstate AS %3$L, %4$L LANGUAGE C IMMUTABLE PARALLEL SAFE',
			s, t, m, 'scalablebloom_agg_trans');
		EXECUTE format('CREATE AGGREGATE %1$s.sbloom_agg(%2$s) (
			SFUNC = %1$s.scalablebloom_agg_trans, STYPE = %1$s.bloomfilter_aggstate,
			FINALFUNC = %1$s.scalablebloom_agg_final, COMBINEFUNC = %1$s.bloomfilter_agg_combine,
			PARALLEL = SAFE)', s, t);
		EXECUTE format('COMMENT ON AGGREGATE %1$s.sbloom_agg(%2$s) IS %3$L', s, t,
			format('Scalable filter of the non-NULL %s values (sized as bloom_agg, at a tightened rate) (runs on Citus workers)', t));
	END LOOP;
END
$key_type_overloads$;
