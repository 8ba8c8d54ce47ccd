/* vmut.c: the C helper of test/t/008_variant_mutation.pl */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "tap_helper.h"

/*
 * vmut reseal IN OUT: IN has lines "id at hex"; OUT gets "id hex" with, when
 *   at >= 0 and the buffer holds bytes at..at+7, those 8 bytes set to
 *   XXH3-64 (seed 0) of every other byte of the buffer, little-endian.
 * vmut recv CONNINFO IN OUT: IN has lines "id type hex"; for each, runs
 *   SELECT vcheck_<type>($1::<type>, $2::bytea) with $1 the bytes as a binary
 *   parameter (so <type>_recv reads them) and $2 the same bytes as bytea;
 *   OUT gets "id result", result being the function's answer or
 *   "ERR sqlstate message | detail".  Ends with SELECT 1 on the same
 *   connection.
 */
static uint8_t buf[1 << 20];

/* a recv line "id type hex": vcheck_<type> of its bytes */
static PGresult *
check_line(PGconn *conn, const char *line, long *id)
{
	char type[64], sql[256];
	int off;
	size_t len;
	const char *values[2];
	int lengths[2], formats[2] = {1, 1};

	if (sscanf(line, "%ld %63s %n", id, type, &off) != 2)
		return NULL;
	len = unhex(line + off, buf);
	snprintf(sql, sizeof sql, "SELECT vcheck_%s($1::%s, $2::bytea)", type, type);
	values[0] = values[1] = (const char *) buf;
	lengths[0] = lengths[1] = (int) len;
	return PQexecParams(conn, sql, 2, NULL, values, lengths, formats, 0);
}

int main(int argc, char **argv)
{
	static char line[1 << 21];
	FILE *in, *out;

	if (argc == 4 && strcmp(argv[1], "reseal") == 0)
	{
		in = fopen(argv[2], "r");
		out = fopen(argv[3], "w");
		if (!in || !out)
			return 2;
		while (fgets(line, sizeof line, in))
		{
			long id, at;
			int off;
			size_t len, i;

			if (sscanf(line, "%ld %ld %n", &id, &at, &off) != 2)
				return 3;
			len = unhex(line + off, buf);
			reseal_at(buf, len, at);
			fprintf(out, "%ld ", id);
			for (i = 0; i < len; i++)
				fprintf(out, "%02x", buf[i]);
			fputc('\n', out);
		}
		fclose(out);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "recv") == 0)
		return tap_recv_lines(argv[2], argv[3], argv[4], check_line, 1);
	return 2;
}
