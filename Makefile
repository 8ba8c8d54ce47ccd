# bloomfilter: PGXS build.
#
#   make && make install        build and install into the pg_config found on PATH
#   make WERROR=1               warnings are errors (CI and the tests)
#   make check-core             core unit tests (no PostgreSQL), under ASan/UBSan
#   make installcheck           pg_regress suite against a running server
#   make check-fast             the everyday tier, about three minutes: the core
#                               tests under ASan/UBSan once, then pg_regress
#                               without its slowest files (REGRESS_SLOW), against
#                               a running server (pg_virtualenv -t make check-fast)
#   bash test/run-all.sh        everything, on a throwaway cluster
#   make dist                   the PGXN distribution, bloomfilter-X.Y.0.zip
#                               (git archive of HEAD; outside a git checkout,
#                               this tree's files but build products)

EXTENSION = bloomfilter
# the version is written once, as the control file's default_version;
# META.json, the clients and FORMAT.md are checked against it
# (test/release_files.py)
EXTVERSION = $(shell sed -n "s/^default_version *= *'\\([^']*\\)'.*/\\1/p" $(EXTENSION).control)
DISTVERSION = $(EXTVERSION).0

MODULE_big = bloomfilter
CORE_SRCS = src/core/bf_spark.c src/core/bf_format.c src/core/bf_combine.c src/core/bf_estimate.c \
	src/core/bf_sizing.c src/core/bf_base64.c src/core/bf_hashes.c \
	src/core/bf_counting.c src/core/bf_window.c src/core/bf_scalable.c \
	src/core/bf_batch.c src/core/bf_simd.c src/core/bf_aggstate.c src/core/bf_slice.c \
	src/core/bf_problem.c src/core/bf_parquet.c
GLUE_SRCS = src/bf_module.c src/bf_datum.c src/type/bf_io.c src/bf_report.c src/key/bf_encode.c src/key/bf_keytypes.c \
	src/key/bf_keybytes.c src/type/bf_type_detoast.c src/type/bf_ops.c src/type/bf_type_combine.c src/type/bf_type_args.c src/type/bf_type_keys.c src/agg/bf_agg_entry.c src/agg/bf_agg_state.c src/agg/bf_agg_encode.c src/agg/bf_agg_type.c \
	src/index/bf_index.c src/index/gist/bf_gist.c src/index/gist/bf_gist_keys.c src/index/gist/bf_gist_cost.c src/type/bf_planner.c src/index/bf_index_planner.c src/variants/bf_countingbloom.c src/variants/bf_bloomwindow.c \
	src/variants/bf_scalablebloom.c src/variants/bf_scalablebloom_union.c \
	src/type/bf_array.c src/type/bf_cmp.c src/autojoin/bf_autojoin_hook.c src/autojoin/bf_autojoin_keys.c src/autojoin/bf_autojoin_plan.c src/autojoin/bf_autojoin_scans.c src/autojoin/bf_autojoin_quals.c src/autojoin/bf_autojoin_size.c src/autojoin/bf_autojoin_guard.c src/autojoin/bf_autojoin_remote.c src/autojoin/bf_autojoin_probe.c src/autojoin/bf_autojoin_answer.c \
	src/index/slice/bf_slice_page.c src/index/slice/bf_slice_write.c src/index/slice/bf_slice_build.c src/index/slice/bf_slice_scan.c src/index/slice/bf_slice_keys.c src/index/slice/bf_slice_sink.c \
	src/index/slice/bf_slice_vacuum.c src/index/slice/bf_slice_am.c src/type/bf_type_edges.c \
	src/engines/bf_engines_parquet.c src/agg/bf_agg_layout.c src/engines/bf_engines_spark.c
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)

# base-plus-updates, as contrib and postgresql-hll: 1.0's script, which never
# changes, and one update script per version (CREATE EXTENSION at the
# default version runs 1.0's and then each update); test/upgrade_chain.sh
# checks that every path gives the same objects
DATA = sql/$(EXTENSION)--1.0.sql $(wildcard sql/$(EXTENSION)--*--*.sql)

REGRESS = bloom_basics bloom_families bloom_combine bloom_estimates \
	bloom_sizing bloom_fpr bloom_io bloom_errors bloom_agg bloom_aggstate bloom_agg_overloads \
	bloom_gist bloom_gist_memory bloom_planner bloom_security bloom_counting bloom_window \
	bloom_scalable bloom_batch bloom_value_compare bloom_key_hashing bloom_caches \
	bloom_slice bloom_slice_scan bloom_slice_edges bloom_comments bloom_edges bloom_hints bloom_index_choice bloom_parquet \
	bloom_named_rows bloom_settings_load bloom_frozen bloom_join_probe bloom_spark bloom_engines_index
REGRESS_OPTS = --load-extension=$(EXTENSION)
# left out by check-fast: each takes over ten seconds of the suite's ninety
# (measured on the 2-core development machine); the full suite runs them
REGRESS_SLOW = bloom_gist bloom_key_hashing bloom_slice bloom_slice_scan bloom_slice_edges bloom_engines_index
REGRESS_FAST = $(filter-out $(REGRESS_SLOW),$(REGRESS))

PG_CONFIG ?= pg_config
# PostgreSQL headers as system headers: -Wextra would flag their unused
# inline-function parameters, which are not ours to fix
PG_CPPFLAGS = -Isrc -isystem $(shell $(PG_CONFIG) --includedir-server)
# Warnings are errors only with WERROR=1 (CI and test/run-all.sh): a
# newer compiler's new warning must not stop a user's build
BF_WERROR = $(if $(filter-out 0,$(WERROR)),-Werror)
PG_CFLAGS = -Wall -Wextra $(BF_WERROR)
# make BF_NO_AVX2=1 leaves out the AVX2 batch probe (src/core/bf_simd.c)
ifdef BF_NO_AVX2
PG_CPPFLAGS += -DBF_NO_AVX2
endif
# libpq: automatic Bloom-joins ask a remote its size through postgres_fdw's
# connection (src/autojoin/bf_autojoin_size.c)
SHLIB_LINK = -lm
SHLIB_LINK_INTERNAL = $(libpq)
PG_CPPFLAGS += -idirafter $(shell $(PG_CONFIG) --includedir)

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# every object depends on the headers (PGXS tracks only the .c files)
# (bf_core.h is an umbrella over one header per concern: every one counts)
CORE_HDRS = $(wildcard src/core/*.h)
GLUE_HDRS = $(wildcard src/*.h src/*/*.h src/*/*/*.h)
$(OBJS): $(CORE_HDRS) $(GLUE_HDRS)

# ---- the core on its own ----
CORE_CC ?= gcc
CORE_CFLAGS = -std=c11 -O1 -g -Wall -Wextra $(BF_WERROR) -Isrc/core \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# one test file per core module (test/core/test_<module>.c) and the harness
TEST_CORE_SRCS = $(wildcard test/core/*.c)
test/core/test_core: $(TEST_CORE_SRCS) test/core/test_core.h $(CORE_SRCS) $(CORE_HDRS)
	$(CORE_CC) $(CORE_CFLAGS) -o $@ $(TEST_CORE_SRCS) $(CORE_SRCS) -lm

# the same tests with the AVX2 code left out, as a build for other CPUs has it
test/core/test_core_noavx2: $(TEST_CORE_SRCS) test/core/test_core.h $(CORE_SRCS) $(CORE_HDRS)
	$(CORE_CC) $(CORE_CFLAGS) -DBF_NO_AVX2 -o $@ $(TEST_CORE_SRCS) $(CORE_SRCS) -lm

# the rules of src/README.md: the core has no PostgreSQL header, no file
# but src/bf_compat.h tests PG_VERSION_NUM, and every header's include
# guard is its file name in capitals (bf_agg_type.h: BF_AGG_TYPE_H); and
# what its guides ask to touch: every .c of src/ is built (CORE_SRCS or
# GLUE_SRCS), every fast-path key kind (BK_* of key/bf_key.h) is chosen by
# bloom_key_type_init and hashed by bloom_hash_value, every layout code is
# in FORMAT.md's layout field
.PHONY: check-rules
check-rules:
	@! grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](postgres|postgres_ext|fmgr|funcapi|miscadmin|pgstat|c)\.h|^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](access|catalog|commands|executor|lib|libpq|mb|nodes|optimizer|parser|storage|tcop|utils|varatt)/' src/core || { echo "check-rules: src/core includes a PostgreSQL header (above)"; exit 1; }
	@! grep -rn 'PG_VERSION_NUM' src --include='*.c' --include='*.h' | grep -v '^src/bf_compat.h:' || { echo "check-rules: PG_VERSION_NUM tested outside src/bf_compat.h (above)"; exit 1; }
	@for h in $$(find src -name '*.h' -not -path 'src/clients/*'); do \
		g=$$(basename $$h | tr 'a-z.' 'A-Z_'); \
		grep -q "^#ifndef $$g$$" $$h && grep -q "^#define $$g$$" $$h || { echo "check-rules: $$h: include guard is not $$g"; exit 1; }; \
	done
	@for f in $$(find src -name '*.c' -not -path 'src/clients/*' | sort); do \
		case " $(CORE_SRCS) $(GLUE_SRCS) " in *" $$f "*) ;; *) echo "check-rules: $$f is in neither CORE_SRCS nor GLUE_SRCS"; exit 1;; esac; \
	done
	@for k in $$(sed -n '/^typedef enum BloomKeyKind/,/} BloomKeyKind;/s/^[[:space:]]*\(BK_[A-Z0-9_]*\).*/\1/p' src/key/bf_key.h); do \
		[ $$k = BK_ENCODED ] || grep -q "kind = $$k;" src/key/bf_encode.c || { echo "check-rules: key kind $$k: bloom_key_type_init (src/key/bf_encode.c) never chooses it"; exit 1; }; \
		grep -q "case $$k:" src/key/bf_encode.c || { echo "check-rules: key kind $$k: bloom_hash_value (src/key/bf_encode.c) has no case for it"; exit 1; }; \
	done
	@sed -n 's/^#define BF_LAYOUT_\([A-Z]*\)[[:space:]]*\([0-9][0-9]*\).*/\1 \2/p' src/core/bf_defs.h | while read name n; do \
		l=$$(echo $$name | tr 'A-Z' 'a-z'); \
		grep -qE "\`$$n\`( =)? $$l" src/core/FORMAT.md || { echo "check-rules: layout $$n ($$l) is not in src/core/FORMAT.md's layout field"; exit 1; }; \
	done
	@echo "check-rules: the core has no PostgreSQL header; version tests only in src/bf_compat.h; include guards named after their files; every .c built; every key kind in both switches; every layout in FORMAT.md"

.PHONY: check-core
check-core: check-rules test/core/test_core test/core/test_core_noavx2
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./test/core/test_core
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./test/core/test_core_noavx2

# the quick tier: one sanitizer build of the core tests (the one with the
# AVX2 code), then the pg_regress files but the slow ones; test/run-all.sh
# stays the full gate
.PHONY: check-fast
check-fast: test/core/test_core
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./test/core/test_core
	$(MAKE) installcheck REGRESS="$(REGRESS_FAST)"

EXTRA_CLEAN = test/core/test_core test/core/test_core_noavx2

# ---- the PGXN distribution ----
# bloomfilter-X.Y.0.zip with everything under bloomfilter-X.Y.0/, as pgvector
# and postgresql-hll make theirs: git archive of HEAD (the committed files;
# .gitattributes leaves out the CI scripts).  A tree that is not a git
# checkout of its own is zipped as it is, build products left out.
DIST = $(EXTENSION)-$(DISTVERSION)
.PHONY: dist
dist:
	rm -rf $(DIST).zip .dist-tmp
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ "$$(git rev-parse --show-toplevel)" = "$$(pwd -P)" ]; then \
		git archive --format=zip --prefix=$(DIST)/ -o $(DIST).zip HEAD; \
	else \
		mkdir -p .dist-tmp/$(DIST) && \
		tar -c --exclude=.git --exclude=.ci --exclude=.dist-tmp --exclude='*.o' --exclude='*.so' \
			--exclude='*.bc' --exclude='*.zip' --exclude=results --exclude=tmp_check --exclude=log \
			--exclude=regression.diffs --exclude=regression.out --exclude=node_modules \
			--exclude=__pycache__ --exclude=test/core/test_core --exclude=test/core/test_core_noavx2 . | \
			tar -x -C .dist-tmp/$(DIST) && \
		(cd .dist-tmp && python3 -m zipfile -c ../$(DIST).zip $(DIST)) && rm -rf .dist-tmp; \
	fi
	@echo "make dist: $(DIST).zip"
.PHONY: print-distversion
print-distversion:
	@echo $(DISTVERSION)

EXTRA_CLEAN += $(DIST).zip

# ---- the pg_regress suite with the server under valgrind memcheck ----
# As root, after make install; REGRESS="..." runs a subset.  See test/valgrind.sh.
.PHONY: installcheck-valgrind
installcheck-valgrind:
	REGRESS="$(REGRESS)" PG_CONFIG="$(PG_CONFIG)" bash test/valgrind.sh

