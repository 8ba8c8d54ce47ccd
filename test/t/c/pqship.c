/* pqship.c: a tiny libpq client for test/t/003_shipping.pl */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>

/* pqship CONNINFO MODE SQL FILE
 *   param-bin:  run SQL with $1 = FILE's bytes, sent in binary format
 *   param-text: run SQL with $1 = FILE's text, sent in text format
 *   fetch-bin:  run SQL, ask for binary results, write the first value to FILE
 * Prints the first column of each result row (text), or the error's
 * SQLSTATE, message and detail, exit status 1. */
int main(int argc, char **argv)
{
	PGconn *conn;
	PGresult *res;
	const char *values[1];
	int lengths[1], formats[1];
	char *buf = NULL;
	long len = 0;
	FILE *f;
	int i, binary_result;

	if (argc != 5)
		return 2;
	conn = PQconnectdb(argv[1]);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "%s", PQerrorMessage(conn));
		return 2;
	}
	binary_result = strcmp(argv[2], "fetch-bin") == 0;
	if (!binary_result)
	{
		f = fopen(argv[4], "rb");
		if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0)
			return 2;
		rewind(f);
		buf = malloc(len + 1);
		if (fread(buf, 1, len, f) != (size_t) len)
			return 2;
		fclose(f);
		buf[len] = '\0';
		values[0] = buf;
		lengths[0] = (int) len;
		formats[0] = strcmp(argv[2], "param-bin") == 0;
		res = PQexecParams(conn, argv[3], 1, NULL, values, lengths, formats, 0);
	}
	else
		res = PQexecParams(conn, argv[3], 0, NULL, NULL, NULL, NULL, 1);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *d = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
		printf("ERROR %s: %s\nDETAIL: %s\n",
			   PQresultErrorField(res, PG_DIAG_SQLSTATE),
			   PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY), d ? d : "");
		return 1;
	}
	if (binary_result)
	{
		f = fopen(argv[4], "wb");
		if (!f || PQntuples(res) < 1)
			return 2;
		fwrite(PQgetvalue(res, 0, 0), 1, PQgetlength(res, 0, 0), f);
		fclose(f);
		printf("%d bytes\n", PQgetlength(res, 0, 0));
	}
	else
		for (i = 0; i < PQntuples(res); i++)
			printf("%s\n", PQgetvalue(res, i, 0));
	PQclear(res);
	PQfinish(conn);
	return 0;
}
