/*
 * fuzz_aggstate.c
 *		libFuzzer target: arbitrary bytes as an aggregate's serialized
 *		partial state (src/core/bf_aggstate.c), the bytes a parallel worker
 *		hands the leader.  Whatever decodes must encode back to the same
 *		bytes (one encoding per state); the filter of an 'F' or 'A' state
 *		goes through the validator, as the glue does.
 */
#include <stdlib.h>
#include <string.h>

#include "bf_aggstate.h"
#include "bf_core.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_buffer(const uint8_t *p, size_t len, const bfa_state *s)
{
	uint64_t   *h = malloc((size_t) s->count * 8 + 8);
	uint8_t    *again;
	size_t		n;

	for (uint32_t j = 0; j < s->count; j++)
		h[j] = bf_load_le64(s->hashes + (size_t) j * 8);
	if (s->tag == BFA_TAG_EXPLICIT)
	{
		n = bfa_explicit_len(s->count);
		again = malloc(n);
		bfa_encode_explicit(again, s->ex_hashes, s->ex_nbits, s->family,
							s->type_tag, s->added, h, s->count);
	}
	else if (s->tag == BFA_TAG_BUFFER)
	{
		n = bfa_buffer_len(s->sketch != NULL, s->count);
		again = malloc(n);
		bfa_encode_buffer(again, &s->target, s->family, s->type_tag, s->added,
						  s->sketch, h, s->count);
	}
	else
	{
		uint32_t	count[BF_HASH_BUCKETS];

		for (int b = 0; b < BF_HASH_BUCKETS; b++)
			count[b] = bf_load_le32(s->bucket_count + 4 * b);
		n = BFA_BUCKETED_HEAD + (size_t) s->count * 8;
		again = malloc(n);
		bfa_encode_bucketed_head(again, &s->target, s->family, s->type_tag,
								 s->added, s->sketch, s->count, count);
		memcpy(again + BFA_BUCKETED_HEAD, h, (size_t) s->count * 8);
		bfa_store_hashes((uint64_t *) (again + BFA_BUCKETED_HEAD), s->count);
	}
	if (n != len || memcmp(again, p, n) != 0)
		abort();
	free(again);
	free(h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *p = malloc(size ? size : 1);
	bfa_state	s;

	memcpy(p, data, size);
	if (bfa_decode(p, size, &s) == NULL)
	{
		if (s.tag == BFA_TAG_BUFFER || s.tag == BFA_TAG_BUCKETED ||
			s.tag == BFA_TAG_EXPLICIT)
			check_buffer(p, size, &s);
		else
		{
			uint8_t		head[BFA_AUTO_FILTER_HEAD];
			size_t		hlen = bfa_encode_filter_head(head, s.tag == BFA_TAG_AUTO_FILTER,
													  &s.target, s.sketch);

			if (hlen > size || memcmp(head, p, hlen) != 0 ||
				s.filter != p + hlen || s.filter_len != size - hlen)
				abort();
			if (bf_validate(s.filter, s.filter_len) == BF_OK &&
				s.tag == BFA_TAG_AUTO_FILTER)
			{
				bf_view		v;

				bf_view_of((uint8_t *) s.filter, &v);
				(void) bfa_check_filter(&s.target, &v);
			}
		}
	}
	free(p);
	return 0;
}
