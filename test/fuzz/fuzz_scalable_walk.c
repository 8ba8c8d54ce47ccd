/*
 * fuzz_scalable_walk.c
 *		libFuzzer target: arbitrary bytes through the structural walk of a
 *		stored scalablebloom (bfs_walk), which the server runs on every
 *		container it reads from a page, and the wrapping of a bloomfilter
 *		as a container (bfs_wrap, the cast to scalablebloom).
 *
 * The walk is not a validation (bytes from outside go through
 * bfs_validate), but a damaged page gives it bytes no one checked: it must
 * read nothing outside the buffer, accept every valid container, and what
 * it accepts must decode, probe and estimate inside the buffer.  Bytes
 * that are a valid bloomfilter are wrapped: the container must be valid
 * and find every key the filter finds.
 */
#include <stdlib.h>
#include <string.h>

#include "bf_scalable.h"
#include "fuzz_input.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bytes that are a valid bloomfilter, wrapped: valid, and no key lost. */
static void
wrap(uint8_t *buf, size_t len)
{
	bf_view		v;
	size_t		clen;
	uint8_t    *c;
	bfs_problem pr;
	bfs_header	h;
	bfs_entry	e;

	bf_unseal(buf);
	bf_view_of(buf, &v);
	if (v.layout != BF_LAYOUT_CLASSIC && v.layout != BF_LAYOUT_BLOCKED)
		return;					/* the server refuses to wrap these */
	clen = bfs_wrap_size(v.nbits);
	if (clen > BF_MAX_TOTAL_BYTES)
		return;					/* the server refuses these */
	c = malloc(clen);
	if (c == NULL)
		abort();
	bfs_wrap(c, &v, 0.01, 2, 0.85);
	bfs_seal(c, clen);
	if (bfs_validate(c, clen, &pr) != BFS_OK)
		abort();				/* a wrapped valid filter is a valid container */
	bfs_unseal(c);
	bfs_read_header(c, &h);
	if (bfs_entries(c, clen, &e) != 1)
		abort();
	for (uint64_t k = 0; k < 64; k++)
	{
		uint64_t	hk = bf_hash_int64(v.seed, (int64_t) k);

		if (bf_probe_hash(&v, hk) && !bfs_probe_hash(&e, 1, hk))
			abort();			/* a key the filter finds is found */
	}
	free(c);
	(void) len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf;
	bfs_problem pr;
	bfs_header	h;
	bool		walked;
	volatile double sink = 0;

	buf = fuzz_value(data, size, bfs_seal, BFS_HEADER_SIZE, &size);
	if (buf == NULL)
		return 0;
	if (bf_validate(buf, size) == BF_OK)
	{
		wrap(buf, size);
		free(buf);
		return 0;
	}
	walked = bfs_walk(buf, size, &h);
	if (bfs_validate(buf, size, &pr) == BFS_OK && !walked)
		abort();				/* every valid container walks */
	if (walked)
	{
		bfs_entry  *e = malloc(sizeof(bfs_entry) * h.nfilters);
		uint32_t	n;

		if (e == NULL)
			abort();
		n = bfs_entries(buf, size, e);
		if (n != h.nfilters || e[n - 1].offset + e[n - 1].len != size)
			abort();			/* decoded completely, to the last byte */
		for (uint64_t k = 0; k < 16; k++)
			sink += bfs_probe_hash(e, n, bf_hash_int64(h.seed, (int64_t) k));
		sink += bfs_est_fpr(e, n) + bfs_est_cardinality(e, n);
		free(e);
	}
	(void) sink;
	free(buf);
	return 0;
}
