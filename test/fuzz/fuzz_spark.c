/*
 * fuzz_spark.c
 *		libFuzzer target: arbitrary bytes as Spark's writeTo output (what
 *		bloom_from_spark reads).  Whatever parses becomes a filter of layout
 *		spark that must validate, write back to the same bytes, and answer
 *		probes without reading outside its array; the keys inserted into it
 *		must then probe true.
 */
#include <stdlib.h>

#include "bf_core.h"
#include "bf_spark.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bf_spark_info info;
	uint8_t    *buf;
	uint8_t    *back;
	size_t		len;
	bf_view		v;

	if (bf_spark_parse(data, size, &info) != BF_SPARK_OK)
		return 0;
	if (bf_spark_serialized_size(info.version, info.nbits) != size)
		abort();
	len = bf_buffer_size(info.nbits);
	buf = malloc(len);
	bf_init(buf, BF_LAYOUT_SPARK, info.hashes, (uint64_t) (int64_t) info.seed, info.nbits);
	bf_view_of(buf, &v);
	v.param = (uint16_t) info.version;
	bf_spark_words_in(info.words, info.nbits, v.bits);
	v.family = BF_FAMILY_SPARK;
	v.added = 1;
	bf_store_header(buf, &v);
	bf_seal(buf, len);
	if (bf_validate(buf, len) != BF_OK)
		abort();
	bf_unseal(buf);
	back = malloc(size);
	bf_spark_write(back, info.version, info.hashes, info.seed, v.bits, v.nbits);
	if (memcmp(back, data, size) != 0)
		abort();
	/* keys made from the input: after insertion every one probes true */
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8)
	{
		uint64_t	h = bf_spark_hash_bytes((uint32_t) info.seed, data + i, 8);

		(void) bf_probe_hash(&v, h);
		bf_insert_hash(&v, h);
		if (!bf_probe_hash(&v, h))
			abort();
	}
	free(back);
	free(buf);
	return 0;
}
