/* bfmut.c: the C helper of test/t/005_mutation.pl */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "tap_helper.h"

/*
 * bfmut reseal IN OUT: IN has lines "id reseal hex"; OUT gets "id hex" with,
 *   when reseal is 1 and the buffer holds a header, the checksum (bytes
 *   44..51) set to XXH3-64 (seed 0) of bytes 0..43 followed by bytes 52..
 * bfmut recv CONNINFO IN OUT: IN has lines "id base kept hex"; for each,
 *   runs SELECT bf_check($1::bloomfilter, $2, $3, $4) with $1 the bytes as
 *   a binary parameter (so bloomfilter_recv reads them) and $2 the same
 *   bytes as bytea; OUT gets "id result", result being the function's
 *   answer or "ERR sqlstate message".  Ends with SELECT 1 on the same
 *   connection.
 */
static uint8_t buf[1 << 19];

/* a recv line "id base kept hex": bf_check of its bytes */
static PGresult *
check_line(PGconn *conn, const char *line, long *id)
{
	char base[64], kept[8];
	int off;
	size_t len;
	const char *values[4];
	int lengths[4], formats[4] = {1, 1, 0, 0};

	if (sscanf(line, "%ld %63s %7s %n", id, base, kept, &off) != 3)
		return NULL;
	len = unhex(line + off, buf);
	values[0] = (const char *) buf;
	values[1] = (const char *) buf;
	values[2] = base;
	values[3] = kept;
	lengths[0] = lengths[1] = (int) len;
	lengths[2] = lengths[3] = 0;
	return PQexecParams(conn,
						"SELECT bf_check($1::bloomfilter, $2::bytea, $3::text, $4::bool)",
						4, NULL, values, lengths, formats, 0);
}

int main(int argc, char **argv)
{
	static char line[1 << 20];
	FILE *in, *out;

	if (argc == 4 && strcmp(argv[1], "reseal") == 0)
	{
		in = fopen(argv[2], "r");
		out = fopen(argv[3], "w");
		if (!in || !out)
			return 2;
		while (fgets(line, sizeof line, in))
		{
			long id;
			int rs, off;
			size_t len, i;

			if (sscanf(line, "%ld %d %n", &id, &rs, &off) != 2)
				return 3;
			len = unhex(line + off, buf);
			if (rs)
				reseal_at(buf, len, 44);
			fprintf(out, "%ld ", id);
			for (i = 0; i < len; i++)
				fprintf(out, "%02x", buf[i]);
			fputc('\n', out);
		}
		fclose(out);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "recv") == 0)
		return tap_recv_lines(argv[2], argv[3], argv[4], check_line, 0);
	return 2;
}
