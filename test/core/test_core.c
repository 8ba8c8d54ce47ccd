/*
 * test_core.c
 *		Unit tests of the pure C core (src/core), without PostgreSQL: the
 *		harness (test_core.h) and main.  The tests are in one file per core
 *		module, test_<module>.c beside this one.
 *
 * Built and run by "make check-core" under AddressSanitizer and
 * UndefinedBehaviorSanitizer: every buffer handed to the core is allocated
 * with exactly the length the core is told, so any read or write past it is
 * reported (and aborts the run).
 *
 * No test framework: check() counts a named check as passed or failed and
 * prints one line per failure with the details.  The program ends with the
 * line "core: N passed, M failed" and exits non-zero when M > 0.  Checks
 * that loop over many keys or cases count their failures and report once,
 * with the first failing case, so one bug does not print a million lines.
 *
 * Everything is deterministic: keys and mutations come from a seeded
 * splitmix64 generator, so a failure reproduces exactly.  Set the
 * environment variable BF_TEST_VERBOSE to also print the measured figures
 * (rates, bits per key, estimate errors) as lines starting with "#".
 */
#include "test_core.h"

static int	n_passed = 0;
static int	n_failed = 0;
static bool verbose = false;

/*
 * Records one named check.  Returns ok so callers can skip work that only
 * makes sense when the check passed.
 */
bool
check(bool ok, const char *name, const char *fmt,...)
{
	va_list		ap;

	if (ok)
	{
		n_passed++;
		return true;
	}
	n_failed++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return false;
}

/* A measured figure, shown only with BF_TEST_VERBOSE. */
void
info(const char *fmt,...)
{
	va_list		ap;

	if (!verbose)
		return;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void
skip(const char *fmt,...)
{
	va_list		ap;

	printf("SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Relative distance of a from b. */
double
rel_err(double a, double b)
{
	return fabs(a - b) / fabs(b);
}

/* ---- deterministic randomness ---- */

/* splitmix64: tiny, fast, and good enough to drive tests. */
uint64_t
rng_next(rng *r)
{
	uint64_t	z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0.  The tiny modulo bias does not matter here. */
uint64_t
rng_below(rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

void
rng_fill(rng *r, uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t) rng_next(r);
}

/* malloc that never returns NULL for a zero length and dies on failure. */
void *
xmalloc(size_t len)
{
	void	   *p = malloc(len ? len : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		exit(2);
	}
	return p;
}

/*
 * An exact-size copy of the first min(srclen, newlen) bytes of src, the rest
 * zero.  Allocating exactly newlen bytes is what lets ASan see any read the
 * core makes past the length it was given.
 */
uint8_t *
copy_exact(const uint8_t *src, size_t srclen, size_t newlen)
{
	uint8_t    *p = xmalloc(newlen);

	memset(p, 0, newlen);
	memcpy(p, src, srclen < newlen ? srclen : newlen);
	return p;
}

/* ---- a filter in its own exact-size buffer ---- */

tfilter
tf_new(int layout, int hashes, uint64_t seed, uint64_t nbits)
{
	tfilter		f;

	if (bf_check_filter_geometry(layout, hashes, nbits) != BF_OK)
	{
		fprintf(stderr, "test bug: bad geometry %d/%d/%" PRIu64 "\n",
				layout, hashes, nbits);
		exit(2);
	}
	f.len = bf_buffer_size(nbits);
	f.buf = xmalloc(f.len);
	bf_init(f.buf, layout, hashes, seed, nbits);
	bf_view_of(f.buf, &f.v);
	return f;
}

/* A filter sized by bf_size_for; dies if the size is refused. */
tfilter
tf_sized(int layout, double n, double p, uint64_t seed)
{
	uint64_t	nbits = 0;
	int			k = 0;

	if (!bf_size_for(layout, n, p, &nbits, &k))
	{
		fprintf(stderr, "test bug: bf_size_for(%d, %g, %g) refused\n",
				layout, n, p);
		exit(2);
	}
	return tf_new(layout, k, seed, nbits);
}

tfilter
tf_copy(const tfilter *src)
{
	tfilter		f;

	f.len = src->len;
	f.buf = copy_exact(src->buf, src->len, src->len);
	bf_view_of(f.buf, &f.v);
	f.v.added = src->v.added;
	f.v.family = src->v.family;
	f.v.type_tag = src->v.type_tag;
	return f;
}

void
tf_free(tfilter *f)
{
	free(f->buf);
	f->buf = NULL;
}

/* Integer keys: the "integer" family, hashed as 8 little-endian bytes. */
void
tf_add_int(tfilter *f, int64_t key)
{
	bf_insert_hash(&f->v, bf_hash_int64(f->v.seed, key));
	f->v.family = BF_FAMILY_INTEGER;
}

bool
tf_has_int(const tfilter *f, int64_t key)
{
	return bf_probe_hash(&f->v, bf_hash_int64(f->v.seed, key));
}

void
tf_add_bytes(tfilter *f, const uint8_t *key, size_t len)
{
	bf_insert_hash(&f->v, bf_hash_bytes(f->v.seed, key, len));
	f->v.family = BF_FAMILY_BYTEA;
}

bool
tf_has_bytes(const tfilter *f, const uint8_t *key, size_t len)
{
	return bf_probe_hash(&f->v, bf_hash_bytes(f->v.seed, key, len));
}

/* Writes the view's header fields back and seals, as before shipping. */
void
tf_seal(tfilter *f)
{
	bf_store_header(f->buf, &f->v);
	bf_seal(f->buf, f->len);
}

bool
tf_same_bits(const tfilter *a, const tfilter *b)
{
	return a->v.nbits == b->v.nbits &&
		memcmp(a->v.bits, b->v.bits, a->v.nbits / 8) == 0;
}

const int	layouts[2] = {BF_LAYOUT_CLASSIC, BF_LAYOUT_BLOCKED};

/*
 * The byte-string key number i: lengths 0..300 so that every one of XXH3's
 * input-length paths (0, 1-3, 4-8, 9-16, 17-128, 129-240, >240) is used.
 * Keys of 8 bytes or more start with i and are distinct; shorter ones may
 * repeat, which is harmless where they are used.
 */
size_t
bytes_key(uint64_t i, uint8_t *out)
{
	size_t		len = (size_t) ((i * 7) % 301);
	rng			r = {i * 31 + 5};

	rng_fill(&r, out, len);
	if (len >= 8)
		bf_store_le64(out, i);
	return len;
}

int
main(void)
{
	verbose = getenv("BF_TEST_VERBOSE") != NULL;

	test_geometry();
	test_no_false_negatives();
	test_measured_fpr();
	test_sizing();
	test_auto_sizing();
	test_sizing_cache();
	test_format_statuses();
	test_format_version_field();
	test_format_mutations();
	test_base64();
	test_combining();
	test_folding();
	test_estimates();
	test_hashing();
	test_hash_sets();
	test_hll();
	test_batch_and_popcount();
	test_batch_probe();
	test_avx2_probe();
	test_golden();
	test_small_classic();
	test_insert_many();
	test_bucketed();
	test_dedup();
	test_counting_positions();
	test_counting_cast();
	test_counting_remove();
	test_counting_saturation();
	test_counting_union();
	test_counting_format();
	test_window_geometry();
	test_window_rotation();
	test_window_edges();
	test_window_stream();
	test_window_validation();
	test_problem_shared();
	test_problem_details();
	test_problem_arbitrary();
	test_scalable_schedule();
	test_scalable_growth();
	test_scalable_validation();
	test_scalable_mutations();
	test_scalable_capacity();
	test_scalable_walk();
	test_scalable_wrap();
	test_max_size();
	test_aggstate_layout();
	test_aggstate_round_trip();
	test_aggstate_validation();
	test_aggstate_values();
	test_aggstate_explicit();
	test_slice_masks();
	test_slice_transpose();
	test_slice_superset();
	test_slice_tid_items();
	test_vectors();
	test_frozen();
	test_spark();
	test_parquet_kernels();
	test_parquet_sizing();
	test_parquet_format();
	test_parquet_header();

	printf("core: %d passed, %d failed\n", n_passed, n_failed);
	return n_failed > 0 ? 1 : 0;
}
