/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz: what the fuzz targets share. Each defines LLVMFuzzerTestOneInput();
 * built with clang -fsanitize=fuzzer (meson -Dfuzz=true) libFuzzer drives it,
 * otherwise driver.c replays files (the seed corpus, the inputs of crashes
 * found) through it in the ordinary test suites. FUZZ_CHECK() states what
 * must hold whatever the input: when it does not, the target aborts, which
 * is a crash to both.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(expr)                                                                                    \
        do {                                                                                                \
                if (!(expr)) {                                                                              \
                        fprintf(stderr, "%s:%d: does not hold: %s\n", __FILE__, __LINE__, #expr);           \
                        abort();                                                                            \
                }                                                                                           \
        } while (0)
