/*
 * fuzz_problem.c
 *		libFuzzer target: arbitrary bytes through the words of a refusal
 *		(bf_diagnose, bfc_diagnose, bfw_diagnose, bfs_diagnose), which read
 *		header fields of bytes that just failed validation to say what is
 *		wrong with them.
 *
 * The value's magic picks the format, so that the seed corpus reaches each
 * one; without a known magic, bits 1 and 2 of the first byte (the mode
 * byte of fuzz_input.h) do.  Every read must stay inside the buffer, a
 * problem must come exactly when the validator refuses, and its texts must
 * fit their buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "bf_problem.h"
#include "bf_counting.h"
#include "bf_window.h"
#include "bf_scalable.h"
#include "fuzz_input.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct
	{
		bool		(*diagnose) (const uint8_t *, size_t, bf_problem *);
		void		(*seal) (uint8_t *, size_t);
		size_t		header;
	}			formats[4] = {
		{bf_diagnose, bf_seal, BF_HEADER_SIZE},
		{bfc_diagnose, bf_seal, BF_HEADER_SIZE},
		{bfw_diagnose, bfw_seal, BFW_HEADER_SIZE},
		{bfs_diagnose, bfs_seal, BFS_HEADER_SIZE},
	};
	int			f;
	uint8_t    *buf;
	bf_problem	p;
	bool		ok;
	bool		valid;

	if (size == 0)
		return 0;
	f = (data[0] >> 1) & 3;
	if (size >= 5 && data[1] == BF_MAGIC_0 && data[2] == BF_MAGIC_1 &&
		data[3] == BF_MAGIC_2)
		f = data[4] == BFC_MAGIC_3 ? 1 : data[4] == BFW_MAGIC_3 ? 2 :
			data[4] == BFS_MAGIC_3 ? 3 : f;
	buf = fuzz_value(data, size, formats[f].seal, formats[f].header, &size);
	ok = formats[f].diagnose(buf, size, &p);
	switch (f)
	{
		case 0:
			valid = bf_validate(buf, size) == BF_OK;
			break;
		case 1:
			valid = bfc_validate(buf, size) == BF_OK;
			break;
		case 2:
			valid = bfw_validate(buf, size, NULL) == BFW_OK;
			break;
		default:
			{
				bfs_problem pr;

				valid = bfs_validate(buf, size, &pr) == BFS_OK;
			}
	}
	if (ok != valid || ok != (p.cls == BF_PROBLEM_NONE))
		abort();				/* a problem exactly when refused */
	if (!ok && (p.what[0] == '\0' ||
				strlen(p.what) + 1 >= sizeof(p.what) ||
				strlen(p.detail) + 1 >= sizeof(p.detail) ||
				strlen(p.hint) + 1 >= sizeof(p.hint)))
		abort();				/* said, and said in full */
	free(buf);
	return 0;
}
