/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test: the few checks the C tests need; a failed check prints where and exits 1 */
#pragma once

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;

#define check(expr)                                                                                         \
        do {                                                                                                \
                if (!(expr)) {                                                                              \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);            \
                        test_failures++;                                                                    \
                }                                                                                           \
        } while (0)

#define check_int(a, b)                                                                                     \
        do {                                                                                                \
                long long _a = (long long)(a), _b = (long long)(b);                                         \
                if (_a != _b) {                                                                             \
                        fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, \
                                _a, #b, _b);                                                                \
                        test_failures++;                                                                    \
                }                                                                                           \
        } while (0)

#define check_u64(a, b)                                                                                     \
        do {                                                                                                \
                uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);                                            \
                if (_a != _b) {                                                                             \
                        fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n", __FILE__, \
                                __LINE__, #a, _a, #b, _b);                                                  \
                        test_failures++;                                                                    \
                }                                                                                           \
        } while (0)

#define check_str(a, b)                                                                                     \
        do {                                                                                                \
                const char *_a = (a), *_b = (b);                                                            \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                                                    \
                        fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a,   \
                                _a ? _a : "(null)", _b ? _b : "(null)");                                    \
                        test_failures++;                                                                    \
                }                                                                                           \
        } while (0)

/* Ends main(): 0 when every check passed. */
#define test_end()                                                                                          \
        do {                                                                                                \
                if (test_failures)                                                                          \
                        fprintf(stderr, "%d check(s) failed\n", test_failures);                             \
                return test_failures ? EXIT_FAILURE : EXIT_SUCCESS;                                         \
        } while (0)
