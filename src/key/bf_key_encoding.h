/*
 * key/bf_key_encoding.h
 *		The canonical key encoding: how one SQL value becomes the bytes that
 *		are hashed (src/core/FORMAT.md, "Key bytes").  Shared by
 *		key/bf_keytypes.c, which decides how each type is encoded (and refuses
 *		types whose equality cannot be hashed), key/bf_keybytes.c, which writes
 *		the bytes, and key/bf_encode.c, which gives a call its key type.
 */
#ifndef BF_KEY_ENCODING_H
#define BF_KEY_ENCODING_H

#include "key/bf_key.h"

#include "access/tupdesc.h"
#include "utils/typcache.h"

/* What a value of one type is written as. */
typedef enum BloomEncKind
{
	BE_INT2,
	BE_INT4,
	BE_INT8,
	BE_FLOAT4,
	BE_FLOAT8,
	BE_NUMERIC,
	BE_TEXT,					/* text, varchar, bpchar (trailing spaces dropped) */
	BE_NAME,
	BE_UNKNOWN,					/* an untyped literal inside a row: as text */
	BE_BYTEA,
	BE_UUID,
	BE_BOOL,
	BE_DATE,
	BE_TIMESTAMP,				/* timestamp and timestamptz */
	BE_INTERVAL,
	BE_JSONB,
	BE_ENUM,
	BE_BITWISE,					/* equality is bitwise: the stored bytes */
	BE_HASHED,					/* the type's extended hash function */
	BE_ARRAY,
	BE_RECORD,					/* a named composite type */
	BE_RECORD_ANON,				/* type record: row type known per value */
	BE_RANGE,
	BE_MULTIRANGE
} BloomEncKind;

typedef struct BloomEnc BloomEnc;

/* One row type seen by a BE_RECORD_ANON node, with its column encoders. */
typedef struct BloomAnonRow
{
	Oid			typid;			/* RECORDOID, or a named row type */
	int32		typmod;
	int			natts;
	BloomEnc  **atts;			/* NULL for a dropped column */
	struct BloomAnonRow *next;
} BloomAnonRow;

/*
 * How values of one type (domains resolved) are encoded; composite types
 * are a tree of these.  Built once per call site in a long-lived context.
 */
struct BloomEnc
{
	BloomEncKind kind;
	Oid			typid;			/* the base type */
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Oid			collation;		/* under which its equality compares */
	const char *signature;		/* "integer", "array(numeric)", ... */
	BloomEnc   *child;			/* array element, range subtype, multirange's range */
	int			natts;			/* BE_RECORD(_ANON): columns, dropped ones included */
	BloomEnc  **atts;			/* BE_RECORD(_ANON): per column, NULL if dropped */
	TypeCacheEntry *typcache;	/* BE_RANGE, BE_MULTIRANGE */
	FmgrInfo   *hashfn;			/* BE_HASHED: the extended hash support */
	BloomAnonRow *rows;			/* BE_RECORD_ANON: row types seen so far */
	MemoryContext mcxt;			/* where lazily built parts live */
	Oid			keytype;		/* the key's own type, for messages */
};

/* ---- key/bf_keytypes.c ---- */

/*
 * The encoder of a type; hint, if not NULL, is an expression (or Const)
 * producing such values, used to learn the columns of type record.
 */
extern BloomEnc *bloom_enc_build(Oid typid, Oid collation, Node *hint,
								 Oid keytype, MemoryContext mcxt);

/*
 * The encoders of a row type's columns; writes their signature to sig.
 * Columns that known (a record's encoder) has for the same type are
 * taken from it.
 */
extern BloomEnc **bloom_enc_row(TupleDesc td, Node *hint, const BloomEnc *known,
								Oid keytype, MemoryContext mcxt, StringInfo sig);

/* The family and type tag of keys written by e. */
extern void bloom_enc_family(const BloomEnc *e, uint16 *family, uint32 *tag);

/*
 * The type of this database whose keys have that tagged family (enum,
 * other, hashed) and tag, or InvalidOid (a built-in type's tag is its OID;
 * not looked up here).  Cached until pg_type changes.
 */
extern Oid	bloom_type_of_tag(uint16 family, uint32 tag);

/*
 * The i-th part of a hint: of an expression that builds a row or an array,
 * or of a constant row or array (its first non-null element).
 */
extern Node *bloom_hint_part(Node *hint, int i);

/* ---- key/bf_keybytes.c ---- */

/* Appends the key bytes of a non-null value. */
extern void bloom_enc_append(BloomEnc *e, Datum value, StringInfo out);

/* Appends str (len bytes, server encoding) as UTF-8. */
extern void bloom_append_utf8(StringInfo out, const char *str, size_t len);

/* Length of str without the trailing spaces the text family ignores. */
static inline size_t
bloom_text_len(const char *str, size_t len)
{
	while (len > 0 && str[len - 1] == ' ')
		len--;
	return len;
}

/* A numeric's key bytes (palloc'd; *len is their length). */
extern char *bloom_numeric_text(Datum num, size_t *len);

/* A float's key bytes as an integer: -0 as 0, every NaN as one NaN. */
extern uint64 bloom_double_bits(double d);

/* Whether text bytes of this database are hashed as they are. */
extern bool bloom_db_text_is_utf8(void);

#endif							/* BF_KEY_ENCODING_H */
