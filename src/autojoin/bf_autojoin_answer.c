/*
 * autojoin/bf_autojoin_answer.c
 *		Automatic Bloom-joins: the remote's answer to the lookup
 *		(autojoin/bf_autojoin_remote.c asks), checked whole before use, and a
 *		remote's text made fit for a message.
 */
#include "autojoin/bf_autojoin.h"

#include <ctype.h>
#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "storage/block.h"

/*
 * A remote's text made fit for a message: every byte that is not a printable
 * character of the database's encoding (control characters, bytes of no
 * character) written as \xNN, and at most BLOOM_REMOTE_TEXT_MAX bytes of it
 * kept ("..." then).  A remote may send anything: its text never reaches a
 * client raw.
 */
#define BLOOM_REMOTE_TEXT_MAX	200

char *
bloom_remote_text(const char *src, int len)
{
	StringInfoData buf;
	int			enc = GetDatabaseEncoding();
	int			i = 0;

	if (src == NULL)
		return pstrdup("(none)");
	if (len < 0)
		len = strlen(src);
	initStringInfo(&buf);
	while (i < len)
	{
		unsigned char c = (unsigned char) src[i];
		int			n;

		if (buf.len >= BLOOM_REMOTE_TEXT_MAX)
		{
			appendStringInfoString(&buf, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f)
		{
			appendStringInfoChar(&buf, (char) c);
			i++;
			continue;
		}
		n = c >= 0x80 ? pg_encoding_verifymbchar(enc, src + i, len - i) : -1;
		if (n > 1)
		{
			appendBinaryStringInfo(&buf, src + i, n);
			i += n;
			continue;
		}
		appendStringInfo(&buf, "\\x%02x", c);
		i++;
	}
	return buf.data;
}


/*
 * ---- reading the answer ----
 *
 * The remote may be anything that speaks the protocol (a user who is not a
 * superuser can point a server of her own anywhere): every result is checked
 * whole before any value of it is used, its shape (columns, their types,
 * text format, rows) and each value (NULL where none may be, its length, a
 * name short enough, text of the database's encoding, numbers that parse
 * whole and lie in range).  Anything else refuses the whole answer: no
 * filter, and the reason says what was wrong.
 */

/* The lookup's three answers and their columns' types. */
static const Oid answer_types[3][4] = {
	{NAMEOID, NAMEOID, TEXTOID, InvalidOid},	/* encoding, schema, version */
	{NAMEOID, NAMEOID, NAMEOID, BOOLOID},	/* column, type's schema and name,
											 * deterministic collation */
	{CHAROID, FLOAT4OID, INT4OID, INT8OID}	/* relkind, reltuples, relpages,
											 * pages now */
};
static const int answer_ncols[3] = {3, 4, 4};
static const char *const answer_names[3] = {"first", "second", "third"};

/* At most this many leaves of a partitioned remote table are summed. */
#define BLOOM_REMOTE_MAX_LEAVES	100000

/* An answer refused: why, said once (the first problem found). */
typedef struct AnswerCheck
{
	char	   *why;
	size_t		whylen;
	bool		refused;
} AnswerCheck;

static void
refuse(AnswerCheck *ac, const char *fmt,...) pg_attribute_printf(2, 3);

static void
refuse(AnswerCheck *ac, const char *fmt,...)
{
	va_list		args;
	char		what[200];

	if (ac->refused)
		return;
	ac->refused = true;
	va_start(args, fmt);
	vsnprintf(what, sizeof(what), fmt, args);
	va_end(args);
	snprintf(ac->why, ac->whylen, "its answer is refused: %s", what);
}

/* Is result n of the lookup of the shape asked, with rows in [min, max]? */
static bool
check_shape(AnswerCheck *ac, const PGresult *res, int n, int minrows, int maxrows)
{
	int			i;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		refuse(ac, "its %s answer is no rows", answer_names[n]);
		return false;
	}
	if (PQnfields(res) != answer_ncols[n])
	{
		refuse(ac, "its %s answer has %d columns, not %d", answer_names[n],
			   PQnfields(res), answer_ncols[n]);
		return false;
	}
	for (i = 0; i < answer_ncols[n]; i++)
	{
		if (PQftype(res, i) != answer_types[n][i] || PQfformat(res, i) != 0)
		{
			refuse(ac, "column %d of its %s answer is of type %u in format %d, not of type %u as text",
				   i + 1, answer_names[n], PQftype(res, i), PQfformat(res, i),
				   answer_types[n][i]);
			return false;
		}
	}
	if (PQntuples(res) < minrows || PQntuples(res) > maxrows)
	{
		refuse(ac, "its %s answer has %d rows, not %d to %d", answer_names[n],
			   PQntuples(res), minrows, maxrows);
		return false;
	}
	return true;
}

/*
 * A text value of the answer: NULL only if nullable (then NULL is returned),
 * at most maxlen bytes, no NUL inside, valid in the database's encoding (the
 * lookup's client_encoding).  NULL, refused, when it is not.
 */
static const char *
get_text(AnswerCheck *ac, const PGresult *res, int n, int row, int col,
		 bool nullable, int maxlen)
{
	const char *v;
	int			len;

	if (PQgetisnull(res, row, col))
	{
		if (!nullable)
			refuse(ac, "its %s answer has a NULL in row %d, column %d",
				   answer_names[n], row + 1, col + 1);
		return NULL;
	}
	v = PQgetvalue(res, row, col);
	len = PQgetlength(res, row, col);
	if (v == NULL || len < 0 || len > maxlen || (int) strlen(v) != len)
	{
		refuse(ac, "its %s answer has a value of %d bytes in row %d, column %d (at most %d, no NUL)",
			   answer_names[n], len, row + 1, col + 1, maxlen);
		return NULL;
	}
	if (!pg_verify_mbstr(GetDatabaseEncoding(), v, len, true))
	{
		refuse(ac, "its %s answer has text that is not %s in row %d, column %d: %s",
			   answer_names[n], GetDatabaseEncodingName(), row + 1, col + 1,
			   bloom_remote_text(v, len));
		return NULL;
	}
	return v;
}

/* A name (shorter than NAMEDATALEN) copied into dst; false if refused. */
static bool
get_name(AnswerCheck *ac, const PGresult *res, int n, int row, int col, char *dst)
{
	const char *v = get_text(ac, res, n, row, col, false, NAMEDATALEN - 1);

	if (v == NULL)
		return false;
	strlcpy(dst, v, NAMEDATALEN);
	return true;
}

/* A number that parses whole and lies in [min, max]; false if refused. */
static bool
get_number(AnswerCheck *ac, const PGresult *res, int n, int row, int col,
		   double min, double max, double *out)
{
	const char *v = get_text(ac, res, n, row, col, false, 64);
	char	   *end;

	if (v == NULL)
		return false;
	errno = 0;
	*out = strtod(v, &end);
	if (end == v || *end != '\0' || errno != 0 || isnan(*out) ||
		*out < min || *out > max)
	{
		refuse(ac, "its %s answer has %s in row %d, column %d, not a number from %.0f to %.0f",
			   answer_names[n], bloom_remote_text(v, -1), row + 1, col + 1, min, max);
		return false;
	}
	return true;
}

/* 't' or 'f'; false if refused. */
static bool
get_bool(AnswerCheck *ac, const PGresult *res, int n, int row, int col, bool *out)
{
	const char *v = get_text(ac, res, n, row, col, false, 1);

	if (v == NULL)
		return false;
	if (strcmp(v, "t") != 0 && strcmp(v, "f") != 0)
	{
		refuse(ac, "its %s answer has %s in row %d, column %d, not a boolean",
			   answer_names[n], bloom_remote_text(v, -1), row + 1, col + 1);
		return false;
	}
	*out = v[0] == 't';
	return true;
}

/*
 * The extension's version "major.minor[.more]" as major * 100 + minor (minor
 * capped at 99), or refused.
 */
static bool
get_version(AnswerCheck *ac, const PGresult *res, int row, int col, int *out)
{
	const char *v = get_text(ac, res, 0, row, col, false, 32);
	const char *p;
	int			major = 0,
				minor = 0,
				part = 0;

	if (v == NULL)
		return false;
	for (p = v; *p != '\0'; p++)
	{
		if (*p == '.' && p > v && p[-1] != '.' && p[1] != '\0')
			part++;
		else if (isdigit((unsigned char) *p) && part == 0)
			major = Min(major * 10 + (*p - '0'), 9999);
		else if (isdigit((unsigned char) *p) && part == 1)
			minor = Min(minor * 10 + (*p - '0'), 99);
		else if (!isdigit((unsigned char) *p))
			break;
	}
	if (*p != '\0' || v[0] == '\0' || part == 0)
	{
		refuse(ac, "its first answer has %s, not a version of bloomfilter",
			   bloom_remote_text(v, -1));
		return false;
	}
	*out = major * 100 + minor;
	return true;
}

/*
 * Fill *facts from the three answers, each checked whole; false, with why,
 * when any of it is refused (*facts is then left empty).  columns are
 * allocated in cxt.
 */
bool
bloom_remote_read_answers(PGresult **res, const char *qualified, double density,
			 MemoryContext cxt, RemoteFacts *facts,
			 char *why, size_t whylen)
{
	AnswerCheck ac;
	const char *v;
	int			i;
	RemoteColumn *columns;

	ac.why = why;
	ac.whylen = whylen;
	ac.refused = false;
	memset(facts, 0, sizeof(*facts));
	facts->encoding = -1;

	/* encoding, the extension's schema and version (both NULL: none) */
	if (!check_shape(&ac, res[0], 0, 1, 1))
		return false;
	v = get_text(&ac, res[0], 0, 0, 0, false, NAMEDATALEN - 1);
	if (v == NULL)
		return false;
	facts->encoding = pg_char_to_encoding(v);
	if (facts->encoding < 0 || !PG_VALID_ENCODING(facts->encoding))
	{
		refuse(&ac, "its first answer has %s, not an encoding", bloom_remote_text(v, -1));
		return false;
	}
	if (PQgetisnull(res[0], 0, 1) != PQgetisnull(res[0], 0, 2))
	{
		refuse(&ac, "its first answer has a schema and a version not both NULL");
		return false;
	}
	if (!PQgetisnull(res[0], 0, 1) &&
		(!get_name(&ac, res[0], 0, 0, 1, facts->ext_schema) ||
		 !get_version(&ac, res[0], 0, 2, &facts->ext_version)))
		return false;

	/* each column's name, base type and whether its collation is deterministic */
	if (!check_shape(&ac, res[1], 1, 0, MaxHeapAttributeNumber))
		return false;
	columns = (RemoteColumn *)
		MemoryContextAllocZero(cxt, Max(PQntuples(res[1]), 1) * sizeof(RemoteColumn));
	for (i = 0; i < PQntuples(res[1]); i++)
	{
		if (!get_name(&ac, res[1], 1, i, 0, columns[i].name) ||
			!get_name(&ac, res[1], 1, i, 1, columns[i].typnsp) ||
			!get_name(&ac, res[1], 1, i, 2, columns[i].typname) ||
			!get_bool(&ac, res[1], 1, i, 3, &columns[i].deterministic))
		{
			pfree(columns);
			return false;
		}
	}
	facts->ncolumns = PQntuples(res[1]);
	facts->columns = columns;

	/* the size: the table's own or its leaves' (no row: no such table) */
	if (!check_shape(&ac, res[2], 2, 0, BLOOM_REMOTE_MAX_LEAVES))
	{
		pfree(columns);
		memset(facts, 0, sizeof(*facts));
		facts->encoding = -1;
		return false;
	}
	facts->size_known = PQntuples(res[2]) > 0;
	if (!facts->size_known)
		snprintf(facts->size_why, sizeof(facts->size_why),
				 "the remote %s has no table", qualified);
	for (i = 0; i < PQntuples(res[2]); i++)
	{
		const char *kind = get_text(&ac, res[2], 2, i, 0, false, 1);
		double		reltuples,
					relpages,
					curpages;

		/*
		 * reltuples is -1 when never analyzed; relpages is an int4 that
		 * reads negative past 2^31 pages, as PostgreSQL stores it.
		 */
		if (kind == NULL || kind[0] == '\0' ||
			!get_number(&ac, res[2], 2, i, 1, -1, 1e13, &reltuples) ||
			!get_number(&ac, res[2], 2, i, 2, PG_INT32_MIN, PG_INT32_MAX, &relpages) ||
			!get_number(&ac, res[2], 2, i, 3, 0, (double) MaxBlockNumber, &curpages))
		{
			if (kind != NULL && kind[0] == '\0')
				refuse(&ac, "its third answer has an empty relkind");
			pfree(columns);
			memset(facts, 0, sizeof(*facts));
			facts->encoding = -1;
			return false;
		}
		if (relpages < 0)
			relpages += 4294967296.0;
		if (!facts->size_known)
			continue;
		if (kind[0] != 'r' && kind[0] != 'm')
		{
			snprintf(facts->size_why, sizeof(facts->size_why),
					 "the remote %s is not a table (relkind %s)", qualified,
					 bloom_remote_text(kind, -1));
			facts->size_known = false;
			continue;
		}
		/* as the planner sizes a table (estimate_rel_size) */
		if (reltuples >= 0 && relpages > 0)
			facts->tuples += reltuples / relpages * curpages;
		else if (reltuples >= 0 && curpages == 0)
			facts->tuples += reltuples;
		else
			facts->tuples += curpages * density;	/* never analyzed there */
		facts->pages += curpages;
	}
	if (!facts->size_known)
		facts->tuples = facts->pages = 0;
	return true;
}

