/*
 * bf_aggstate_type.h
 *		bloomfilter_aggstate, the state of every aggregate of the extension
 *		(the transition type of the union and intersection aggregates; the
 *		object behind internal for the others: src/bf_aggstate_type.c), and
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
#ifndef BF_AGGSTATE_TYPE_H
#define BF_AGGSTATE_TYPE_H

#include "bloomfilter.h"

#include "bf_aggstate.h"
#include "utils/expandeddatum.h"

typedef struct BfasState
{
	ExpandedObjectHeader hdr;
	uint8		kind;			/* BFAS_KIND_* */
	void	   *state;			/* the kind's state, in hdr.eoh_context */
	bytea	   *flat;			/* its encoding, between get_flat_size and
								 * flatten_into */
} BfasState;

/* The memory context of a state: the kind's state lives there. */
#define bfas_context(e) ((e)->hdr.eoh_context)

/* Returns state e from a transition or combine function. */
#define BFAS_RETURN(e) PG_RETURN_DATUM(EOHPGetRWDatum(&(e)->hdr))

/* A new state of a kind (no kind's state yet), a child of aggctx. */
extern BfasState *bfas_new(MemoryContext aggctx, uint8 kind);

extern const ExpandedObjectMethods bfas_methods;
extern BfasState *bfas_trans_arg_slow(FunctionCallInfo fcinfo, int n,
									  uint8 kind, const char *fname);

/*
 * Argument n of a transition or combine function, to update: NULL if it is
 * NULL; the aggregate's own object (every row but the first: a few
 * tests); or, for any other value (an initial condition, a flat value), a
 * new object made from it, validated (fname names the function when it is
 * called outside an aggregate).
 */
static inline BfasState *
bfas_trans_arg(FunctionCallInfo fcinfo, int n, uint8 kind, const char *fname)
{
	if (PG_ARGISNULL(n))
		return NULL;
	if (likely(VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(PG_GETARG_DATUM(n)))))
	{
		varatt_expanded ptr;
		BfasState  *e;

		/* DatumGetEOHP, inline */
		memcpy(&ptr, VARDATA_EXTERNAL(DatumGetPointer(PG_GETARG_DATUM(n))), sizeof(ptr));
		e = (BfasState *) ptr.eohptr;
		if (likely(e->hdr.eoh_methods == &bfas_methods && e->kind == kind))
			return e;
	}
	return bfas_trans_arg_slow(fcinfo, n, kind, fname);
}

/*
 * Argument n to read only (a final function's, a combine function's
 * second): the kind's state, NULL if the argument is NULL.  A flat value
 * is validated and decoded into the current memory context.
 */
extern void *bfas_read_arg(FunctionCallInfo fcinfo, int n, uint8 kind);

/*
 * Each kind's encoding of its state (a bytea in the current context) and
 * decoding (validated; in the current context; with own, nothing of the
 * state points into data).
 */
extern bytea *bfagg_encode(void *state);
extern void *bfagg_decode(const uint8 *data, size_t len, bool own);
extern bytea *cbloom_agg_encode(void *state);
extern void *cbloom_agg_decode(const uint8 *data, size_t len, bool own);
extern bytea *window_agg_encode(void *state);
extern void *window_agg_decode(const uint8 *data, size_t len, bool own);
extern bytea *sbloom_union_encode(void *state);
extern void *sbloom_union_decode(const uint8 *data, size_t len, bool own);

#endif							/* BF_AGGSTATE_TYPE_H */
