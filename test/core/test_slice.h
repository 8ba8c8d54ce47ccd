/* test_slice.h: unit tests of the bit-sliced blocks (src/core/bf_slice.c) */
#ifndef TEST_SLICE_H
#define TEST_SLICE_H

/* Runs them; adds to *passed and *failed, printing each failure. */
extern void test_slice_run(int *passed, int *failed);

#endif
