/*
 * agg/bf_agg_type.h
 *		bloomfilter_aggstate, the state of every aggregate of the extension
 *		(the transition type of the union and intersection aggregates; the
 *		object behind internal for the others: src/agg/bf_agg_type.c), and
 *		what each kind of state gives it.
 *
 * While an aggregate runs, its state is a read-write expanded object
 * (utils/expandeddatum.h) in the aggregate's memory context, wrapping the
 * kind's own C state, which the transition and combine functions update
 * in place: the executor adopts it without a copy.  It is flattened (the
 * kind's encode function, behind the head of bf_aggstate.h) only when it
 * leaves the aggregate: a parallel worker's partial state, a Citus
 * worker's (through the type's output or send function).
 */
#ifndef BF_AGG_TYPE_H
#define BF_AGG_TYPE_H

#include "key/bf_key.h"
#include "type/bf_type.h"

#include "core/bf_aggstate.h"
#include "utils/expandeddatum.h"

typedef struct BloomAggStateObject
{
	ExpandedObjectHeader hdr;
	uint8		kind;			/* BFAS_KIND_* */
	void	   *state;			/* the kind's state, in hdr.eoh_context */
	bytea	   *flat;			/* its encoding, between get_flat_size and
								 * flatten_into */

	/*
	 * A transition function's per-call-site cache (key type, sizing), kept
	 * here when the call has no expression and so nowhere else to keep it:
	 * Citus's worker_partial_agg calls the transition function with a fresh
	 * FmgrInfo (fn_extra and fn_expr NULL) on every row, and the key type
	 * then comes from the function's declared argument types, the same on
	 * every row of the same function and collation.  In the object's
	 * context.
	 */
	void	   *call_cache;
	Oid			call_fn;		/* the function call_cache is of */
	Oid			call_coll;		/* and its collation */
} BloomAggStateObject;

/*
 * The cache kept in e (may be NULL) for this call, or NULL: only for a call
 * without an expression (whose key type is the declared one), of the same
 * function and collation.
 */
static inline void *
bloom_aggstate_call_cache(const BloomAggStateObject *e, FunctionCallInfo fcinfo)
{
	if (e != NULL && e->call_cache != NULL && fcinfo->flinfo->fn_expr == NULL &&
		e->call_fn == fcinfo->flinfo->fn_oid &&
		e->call_coll == PG_GET_COLLATION())
		return e->call_cache;
	return NULL;
}

/* Keeps cache c (allocated in bloom_aggstate_context(e)) in e for calls like this one. */
static inline void
bloom_aggstate_keep_call_cache(BloomAggStateObject *e, FunctionCallInfo fcinfo, void *c)
{
	e->call_cache = c;
	e->call_fn = fcinfo->flinfo->fn_oid;
	e->call_coll = PG_GET_COLLATION();
}

/* The memory context of a state: the kind's state lives there. */
#define bloom_aggstate_context(e) ((e)->hdr.eoh_context)

/* Returns state e from a transition or combine function. */
#define BLOOM_AGGSTATE_RETURN(e) PG_RETURN_DATUM(EOHPGetRWDatum(&(e)->hdr))

/* A new state of a kind (no kind's state yet), a child of aggctx. */
extern BloomAggStateObject *bloom_aggstate_new(MemoryContext aggctx, uint8 kind);

extern const ExpandedObjectMethods bloom_aggstate_methods;
extern BloomAggStateObject *bloom_aggstate_trans_arg_slow(FunctionCallInfo fcinfo, int n,
									  uint8 kind, const char *fname);

/*
 * Argument n of a transition or combine function, to update: NULL if it is
 * NULL; the aggregate's own object (every row but the first: a few
 * tests); or, for any other value (an initial condition, a flat value), a
 * new object made from it, validated (fname names the function when it is
 * called outside an aggregate).
 */
static inline BloomAggStateObject *
bloom_aggstate_trans_arg(FunctionCallInfo fcinfo, int n, uint8 kind, const char *fname)
{
	if (PG_ARGISNULL(n))
		return NULL;
	if (likely(VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(PG_GETARG_DATUM(n)))))
	{
		varatt_expanded ptr;
		BloomAggStateObject  *e;

		/* DatumGetEOHP, inline */
		memcpy(&ptr, VARDATA_EXTERNAL(DatumGetPointer(PG_GETARG_DATUM(n))), sizeof(ptr));
		e = (BloomAggStateObject *) ptr.eohptr;
		if (likely(e->hdr.eoh_methods == &bloom_aggstate_methods && e->kind == kind))
			return e;
	}
	return bloom_aggstate_trans_arg_slow(fcinfo, n, kind, fname);
}

/*
 * Argument n to read only (a final function's, a combine function's
 * second): the kind's state, NULL if the argument is NULL.  A flat value
 * is validated and decoded into the current memory context.
 */
extern void *bloom_aggstate_read_arg(FunctionCallInfo fcinfo, int n, uint8 kind);

/*
 * Each kind's encoding of its state (a bytea in the current context) and
 * decoding (validated; in the current context; with own, nothing of the
 * state points into data).
 */
extern bytea *bloom_agg_encode(void *state);
extern void *bloom_agg_decode(const uint8 *data, size_t len, bool own);
extern bytea *cbloom_agg_encode(void *state);
extern void *cbloom_agg_decode(const uint8 *data, size_t len, bool own);
extern bytea *bloom_window_agg_encode(void *state);
extern void *bloom_window_agg_decode(const uint8 *data, size_t len, bool own);
extern bytea *sbloom_union_encode(void *state);
extern void *sbloom_union_decode(const uint8 *data, size_t len, bool own);

/*
 * The key type of argument argno of a transition function updating state e
 * (not NULL), looked up once per call site, also when the call has no
 * expression (agg/bf_agg_type.c).
 */
extern BloomKeyType *bloom_aggstate_key_type(BloomAggStateObject *e, FunctionCallInfo fcinfo, int argno);

/* ---- agg/bf_agg_type.c ---- */

/* The aggregate's memory context; ERROR if fname is called outside one. */
extern MemoryContext bloom_agg_context(FunctionCallInfo fcinfo, const char *fname);

#endif							/* BF_AGG_TYPE_H */
