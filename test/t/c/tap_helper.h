/*
 * tap_helper.h
 *		What the C helpers of the TAP tests (the .c files of test/t/c) share: hex
 *		decoding of the lines the Perl side writes, recomputing a format's
 *		checksum, error text on one line, and (for a helper that includes
 *		libpq-fe.h first) the loop that runs one query per input line.
 *
 * Each helper is built by the test that uses it (BloomCluster::build_c_helper)
 * against libpq and xxhash.h, the way FORMAT.md defines the checksum.
 */
#ifndef TAP_HELPER_H
#define TAP_HELPER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static inline int
hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

/* the bytes of the hex digits at h (up to a newline or the end) into out */
static inline size_t
unhex(const char *h, uint8_t *out)
{
	size_t		n = 0;

	while (h[0] && h[1] && h[0] != '\n')
	{
		out[n++] = (uint8_t) (hexval(h[0]) << 4 | hexval(h[1]));
		h += 2;
	}
	return n;
}

/*
 * Set the 8 bytes at offset at to XXH3-64 (seed 0) of every other byte of
 * the buffer, little-endian: the checksum of every format of FORMAT.md.
 * Nothing happens when at < 0 or the buffer does not hold those bytes.
 */
static inline void
reseal_at(uint8_t *b, size_t len, long at)
{
	uint8_t    *tmp;
	uint64_t	h;
	int			i;

	if (at < 0 || len < (size_t) at + 8)
		return;
	tmp = malloc(len);
	memcpy(tmp, b, at);
	memcpy(tmp + at, b + at + 8, len - at - 8);
	h = XXH3_64bits(tmp, len - 8);
	free(tmp);
	for (i = 0; i < 8; i++)
		b[at + i] = (uint8_t) (h >> (8 * i));
}

/* newlines to spaces, so that a message fits on one line of the output */
static inline void
oneline(char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			*s = ' ';
}

#ifdef LIBPQ_FE_H
/*
 * The query of one input line: parses the line, sets *id, runs the line's
 * query on conn and returns its result; NULL when the line does not parse.
 */
typedef PGresult *(*tap_line_query) (PGconn *conn, const char *line, long *id);

/*
 * Connect to conninfo and run query for each line of the file inpath,
 * writing to outpath "id result" (the first column of the first row), or
 * "id ERR sqlstate message" (with " | detail" when with_detail) for an
 * error the connection survived; a lost connection writes "id LOST ..." and
 * stops.  Ends with SELECT 1 on the same connection ("final 1"), so that a
 * backend that died on the last line shows.  Returns the exit status: 0
 * done, 1 connection lost, 2 cannot connect or open a file, 3 a line that
 * does not parse.
 */
static inline int
tap_recv_lines(const char *conninfo, const char *inpath, const char *outpath,
			   tap_line_query query, int with_detail)
{
	static char line[1 << 21];
	PGconn	   *conn = PQconnectdb(conninfo);
	PGresult   *res;
	FILE	   *in,
			   *out;

	if (PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "%s", PQerrorMessage(conn));
		return 2;
	}
	in = fopen(inpath, "r");
	out = fopen(outpath, "w");
	if (!in || !out)
		return 2;
	while (fgets(line, sizeof line, in))
	{
		long		id;

		res = query(conn, line, &id);
		if (res == NULL)
			return 3;
		if (PQresultStatus(res) == PGRES_TUPLES_OK)
			fprintf(out, "%ld %s\n", id, PQgetvalue(res, 0, 0));
		else if (PQresultStatus(res) == PGRES_FATAL_ERROR &&
				 PQstatus(conn) == CONNECTION_OK)
		{
			char	   *msg = strdup(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
			const char *d = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
			char	   *detail = strdup(d ? d : "");

			oneline(msg);
			oneline(detail);
			if (with_detail)
				fprintf(out, "%ld ERR %s %s | %s\n", id,
						PQresultErrorField(res, PG_DIAG_SQLSTATE), msg, detail);
			else
				fprintf(out, "%ld ERR %s %s\n", id,
						PQresultErrorField(res, PG_DIAG_SQLSTATE), msg);
			free(msg);
			free(detail);
		}
		else
		{
			fprintf(out, "%ld LOST %s\n", id, PQerrorMessage(conn));
			fclose(out);
			return 1;
		}
		PQclear(res);
	}
	res = PQexec(conn, "SELECT 1");
	fprintf(out, "final %s\n",
			PQresultStatus(res) == PGRES_TUPLES_OK ? PQgetvalue(res, 0, 0) : "failed");
	fclose(out);
	PQfinish(conn);
	return 0;
}
#endif							/* LIBPQ_FE_H */

#endif							/* TAP_HELPER_H */
