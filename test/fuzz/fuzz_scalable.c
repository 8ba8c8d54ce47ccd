/*
 * fuzz_scalable.c
 *		libFuzzer target: arbitrary bytes through the scalablebloom
 *		container validator and, for whatever it accepts, what the server
 *		then does with a container: decode its entries, probe, estimate,
 *		plan the next level, add keys to the last sub-filter, sort entries
 *		as a union does, and seal again.
 */
#include <stdlib.h>

#include "bf_scalable.h"
#include "fuzz_input.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
cmp(const void *a, const void *b)
{
	return bfs_entry_cmp((const bfs_entry *) a, (const bfs_entry *) b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf;
	bfs_problem pr;
	bfs_header	h;
	bfs_entry  *e;
	uint32_t	n;
	volatile double sink = 0;

	buf = fuzz_value(data, size, bfs_seal, BFS_HEADER_SIZE, &size);
	if (buf == NULL)
		return 0;
	if (bfs_validate(buf, size, &pr) != BFS_OK)
	{
		(void) bfs_status_message(bfs_validate(buf, size, &pr));
		free(buf);
		return 0;
	}

	bfs_unseal(buf);
	bfs_read_header(buf, &h);
	e = malloc(sizeof(bfs_entry) * h.nfilters);
	n = bfs_entries(buf, size, e);
	if (n != h.nfilters)
		abort();				/* a valid container decodes completely */
	for (uint64_t k = 0; k < 64; k++)
		sink += bfs_probe_hash(e, n, bf_hash_int64(h.seed, (int64_t) k));
	sink += bfs_est_fpr(e, n) + bfs_est_cardinality(e, n);
	{
		uint64_t	cap,
					nbits;
		double		fpr;
		uint32_t	level;
		int			k;

		sink += bfs_plan_growth(&h, &e[n - 1], size, &cap, &fpr, &level, &nbits, &k);
	}
	/* adds into the last sub-filter must stay inside it */
	for (uint64_t k = 0; k < 16; k++)
	{
		bf_insert_hash(&e[n - 1].v, bf_hash_int64(h.seed, (int64_t) k + 1000));
		bfs_store_entry(&e[n - 1]);
	}
	qsort(e, n, sizeof(bfs_entry), cmp);
	for (uint32_t i = 0; i < n; i++)
		sink += bf_popcount(&e[i].v);
	bfs_seal(buf, size);
	if (bfs_validate(buf, size, &pr) == BFS_ERR_CHECKSUM)
		abort();				/* sealing makes the checksum right */
	(void) sink;
	free(e);
	free(buf);
	return 0;
}
