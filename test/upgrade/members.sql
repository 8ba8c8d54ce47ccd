-- Every member of the extension bloomfilter (pg_depend deptype 'e') with
-- its definition: a line naming the object, then one indented line per
-- attribute that is not null ("    attribute=value").
-- Names, never OIDs, so that two databases (or two PostgreSQL versions)
-- compare as text.  Read by test/upgrade_chain.sh; a member of a catalog
-- this file does not render prints "UNHANDLED", which fails the check.
--
-- Implicit array types are left out as members (PostgreSQL 17 made them
-- members, 15 does not): each appears as its element type's typarray.
\set ON_ERROR_STOP 1
SET search_path = pg_catalog;
SET extra_float_digits = 0;

WITH member AS (
	SELECT d.classid, d.objid
	FROM pg_depend d
	JOIN pg_extension e ON e.oid = d.refobjid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	  AND e.extname = 'bloomfilter'
),
item(classid, objid, ident, attrs) AS (
	-- the extension itself
	SELECT 'pg_extension'::regclass::oid, x.oid, 'extension bloomfilter',
		jsonb_build_object('version', x.extversion, 'relocatable', x.extrelocatable,
			'schema', x.extnamespace::regnamespace::text,
			'config', x.extconfig::regclass[]::text, 'condition', x.extcondition::text)
	FROM pg_extension x WHERE x.extname = 'bloomfilter'

	-- functions, procedures and aggregates
	UNION ALL
	SELECT m.classid, m.objid, 'function ' || p.oid::regprocedure::text,
		jsonb_build_object('kind', p.prokind, 'language', l.lanname,
			'arguments', pg_get_function_arguments(p.oid),
			'result', pg_get_function_result(p.oid),
			'volatility', p.provolatile, 'parallel', p.proparallel,
			'strict', p.proisstrict, 'leakproof', p.proleakproof,
			'security_definer', p.prosecdef, 'returns_set', p.proretset,
			'cost', p.procost::text, 'rows', p.prorows::text,
			'support', p.prosupport::oid::regprocedure::text,
			'variadic', p.provariadic::regtype::text,
			'config', p.proconfig::text, 'source', p.prosrc, 'library', p.probin,
			'acl', p.proacl::text)
		|| coalesce((SELECT jsonb_build_object('agg_kind', a.aggkind,
				'agg_direct_args', a.aggnumdirectargs,
				'agg_transfn', a.aggtransfn::oid::regprocedure::text,
				'agg_finalfn', a.aggfinalfn::oid::regprocedure::text,
				'agg_combinefn', a.aggcombinefn::oid::regprocedure::text,
				'agg_serialfn', a.aggserialfn::oid::regprocedure::text,
				'agg_deserialfn', a.aggdeserialfn::oid::regprocedure::text,
				'agg_mtransfn', a.aggmtransfn::oid::regprocedure::text,
				'agg_minvtransfn', a.aggminvtransfn::oid::regprocedure::text,
				'agg_mfinalfn', a.aggmfinalfn::oid::regprocedure::text,
				'agg_finalextra', a.aggfinalextra, 'agg_mfinalextra', a.aggmfinalextra,
				'agg_finalmodify', a.aggfinalmodify, 'agg_mfinalmodify', a.aggmfinalmodify,
				'agg_sortop', a.aggsortop::regoperator::text,
				'agg_transtype', a.aggtranstype::regtype::text,
				'agg_transspace', a.aggtransspace,
				'agg_mtranstype', a.aggmtranstype::regtype::text,
				'agg_mtransspace', a.aggmtransspace,
				'agg_initval', a.agginitval, 'agg_minitval', a.aggminitval)
			FROM pg_aggregate a WHERE a.aggfnoid = p.oid), '{}')
	FROM member m JOIN pg_proc p ON p.oid = m.objid
	JOIN pg_language l ON l.oid = p.prolang
	WHERE m.classid = 'pg_proc'::regclass

	-- types (not the implicit array types: see above)
	UNION ALL
	SELECT m.classid, m.objid, 'type ' || t.oid::regtype::text,
		jsonb_build_object('type', t.typtype, 'length', t.typlen, 'by_value', t.typbyval,
			'category', t.typcategory, 'preferred', t.typispreferred,
			'delimiter', t.typdelim, 'relation', t.typrelid::regclass::text,
			'subscript', t.typsubscript::oid::regprocedure::text,
			'element', t.typelem::regtype::text, 'array', t.typarray::regtype::text,
			'input', t.typinput::oid::regprocedure::text,
			'output', t.typoutput::oid::regprocedure::text,
			'receive', t.typreceive::oid::regprocedure::text,
			'send', t.typsend::oid::regprocedure::text,
			'typmod_in', t.typmodin::oid::regprocedure::text,
			'typmod_out', t.typmodout::oid::regprocedure::text,
			'analyze', t.typanalyze::oid::regprocedure::text,
			'alignment', t.typalign, 'storage', t.typstorage,
			'not_null', t.typnotnull, 'base_type', t.typbasetype::regtype::text,
			'typmod', t.typtypmod, 'dimensions', t.typndims,
			'collation', t.typcollation::regcollation::text,
			'default', t.typdefault, 'acl', t.typacl::text,
			'array_acl', (SELECT a.typacl::text FROM pg_type a WHERE a.oid = t.typarray),
			'constraints', (SELECT string_agg(c.conname || ' ' || pg_get_constraintdef(c.oid), '; ' ORDER BY c.conname)
				FROM pg_constraint c WHERE c.contypid = t.oid),
			'columns', (SELECT string_agg(att.attname || ' ' || format_type(att.atttypid, att.atttypmod), ', ' ORDER BY att.attnum)
				FROM pg_attribute att WHERE att.attrelid = t.typrelid AND att.attnum > 0 AND NOT att.attisdropped))
	FROM member m JOIN pg_type t ON t.oid = m.objid
	WHERE m.classid = 'pg_type'::regclass
	  AND NOT EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = t.oid)

	-- operators
	UNION ALL
	SELECT m.classid, m.objid, 'operator ' || o.oid::regoperator::text,
		jsonb_build_object('kind', o.oprkind, 'result', o.oprresult::regtype::text,
			'function', o.oprcode::oid::regprocedure::text,
			'commutator', o.oprcom::regoperator::text,
			'negator', o.oprnegate::regoperator::text,
			'restrict', o.oprrest::oid::regprocedure::text,
			'join', o.oprjoin::oid::regprocedure::text,
			'merges', o.oprcanmerge, 'hashes', o.oprcanhash)
	FROM member m JOIN pg_operator o ON o.oid = m.objid
	WHERE m.classid = 'pg_operator'::regclass

	-- operator classes
	UNION ALL
	SELECT m.classid, m.objid, 'operator class ' || c.opcnamespace::regnamespace::text || '.' || c.opcname || ' using ' || am.amname,
		jsonb_build_object('family', pg_describe_object('pg_opfamily'::regclass, c.opcfamily, 0),
			'input_type', c.opcintype::regtype::text, 'default', c.opcdefault,
			'storage', c.opckeytype::regtype::text)
	FROM member m JOIN pg_opclass c ON c.oid = m.objid JOIN pg_am am ON am.oid = c.opcmethod
	WHERE m.classid = 'pg_opclass'::regclass

	-- operator families, with every operator and support function in them
	UNION ALL
	SELECT m.classid, m.objid, 'operator family ' || f.opfnamespace::regnamespace::text || '.' || f.opfname || ' using ' || am.amname,
		jsonb_build_object('operators', (SELECT string_agg(format('%s(%s,%s) %s %s order_family=%s',
					o.amopstrategy, o.amoplefttype::regtype, o.amoprighttype::regtype,
					o.amopopr::regoperator, o.amoppurpose,
					pg_describe_object('pg_opfamily'::regclass, o.amopsortfamily, 0)), '; '
					ORDER BY o.amopstrategy, o.amoplefttype::regtype::text, o.amoprighttype::regtype::text)
				FROM pg_amop o WHERE o.amopfamily = f.oid),
			'functions', (SELECT string_agg(format('%s(%s,%s) %s',
					p.amprocnum, p.amproclefttype::regtype, p.amprocrighttype::regtype,
					p.amproc::oid::regprocedure), '; '
					ORDER BY p.amprocnum, p.amproclefttype::regtype::text, p.amprocrighttype::regtype::text)
				FROM pg_amproc p WHERE p.amprocfamily = f.oid))
	FROM member m JOIN pg_opfamily f ON f.oid = m.objid JOIN pg_am am ON am.oid = f.opfmethod
	WHERE m.classid = 'pg_opfamily'::regclass

	-- casts
	UNION ALL
	SELECT m.classid, m.objid, 'cast (' || c.castsource::regtype::text || ' AS ' || c.casttarget::regtype::text || ')',
		jsonb_build_object('function', c.castfunc::regprocedure::text,
			'context', c.castcontext, 'method', c.castmethod)
	FROM member m JOIN pg_cast c ON c.oid = m.objid
	WHERE m.classid = 'pg_cast'::regclass

	-- access methods
	UNION ALL
	SELECT m.classid, m.objid, 'access method ' || a.amname,
		jsonb_build_object('handler', a.amhandler::oid::regprocedure::text, 'type', a.amtype)
	FROM member m JOIN pg_am a ON a.oid = m.objid
	WHERE m.classid = 'pg_am'::regclass

	-- a member of any other catalog fails the check until rendered here
	UNION ALL
	SELECT m.classid, m.objid, 'UNHANDLED ' || pg_describe_object(m.classid, m.objid, 0), '{}'::jsonb
	FROM member m
	WHERE m.classid NOT IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_operator'::regclass,
		'pg_opclass'::regclass, 'pg_opfamily'::regclass, 'pg_cast'::regclass, 'pg_am'::regclass)
),
-- the comment on each member
commented(ident, attrs) AS (
	SELECT i.ident, i.attrs || jsonb_build_object('comment', d.description)
	FROM item i LEFT JOIN pg_description d
		ON d.classoid = i.classid AND d.objoid = i.objid AND d.objsubid = 0
)
-- one line naming each object, then its attributes indented under it
SELECT line FROM (
	SELECT c.ident, '' AS key, c.ident AS line FROM commented c
	UNION ALL
	SELECT c.ident, kv.key, '    ' || kv.key || '=' || replace(kv.value, E'\n', '\n')
	FROM commented c, jsonb_each_text(c.attrs) kv
	WHERE kv.value IS NOT NULL
) l
ORDER BY ident COLLATE "C", key COLLATE "C";
