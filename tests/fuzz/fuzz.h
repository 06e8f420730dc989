/* fuzz.h - the one entry point every fuzz target defines. libFuzzer calls it with random
 * inputs (scripts/fuzz.sh, clang -fsanitize=fuzzer); replay.c calls it with every file of the
 * committed corpus in the normal test run, so what a fuzzer once found stays fixed. A target
 * must accept any bytes: crash, leak or sanitizer report = bug. */
#ifndef RC_FUZZ_H
#define RC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
