/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test: the few checks the C tests need, a directory of their own with files in it, and shell commands run;
 * a failed check prints where, and test_end() then exits 1 */
#pragma once

#include <inttypes.h>
#include <stdarg.h>
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

/* The test's own directory: made by test_dir_make(NAME) as /tmp/NAME-XXXXXX, removed with all it holds by
 * test_dir_remove(). */
static char test_dir[256];

static inline void test_dir_make(const char *name)
{
        snprintf(test_dir, sizeof(test_dir), "/tmp/%s-XXXXXX", name);
        check(mkdtemp(test_dir) != NULL);
}

/* NAME in the test's directory; the path stays valid over the next three calls. */
static inline const char *test_path(const char *name)
{
        static char paths[4][sizeof(test_dir) + 256];
        static unsigned next;
        char *p = paths[next++ % 4];

        snprintf(p, sizeof(paths[0]), "%s/%s", test_dir, name);
        return p;
}

/* NAME in the test's directory, holding TEXT; returns its path (test_path()). */
static inline const char *write_file(const char *name, const char *text)
{
        const char *p = test_path(name);
        FILE *f = fopen(p, "we");

        check(f != NULL);
        if (f) {
                fputs(text, f);
                fclose(f);
        }
        return p;
}

/* A command that failed fails the test. */
static inline void test_command_status(int status, const char *cmd)
{
        if (status != 0) {
                fprintf(stderr, "command failed (%d): %s\n", status, cmd);
                test_failures++;
        }
}

/* Runs a shell command, its output the test's; a command that fails fails the test. */
__attribute__((format(printf, 1, 2))) static inline void sh(const char *format, ...)
{
        char cmd[2048];
        va_list ap;

        va_start(ap, format);
        vsnprintf(cmd, sizeof(cmd), format, ap);
        va_end(ap);
        test_command_status(system(cmd), cmd);
}

/* Runs a shell command and returns the first line it prints, without its newline ("" for none; free it);
 * a command that fails fails the test. */
__attribute__((format(printf, 1, 2))) static inline char *run(const char *format, ...)
{
        char cmd[2048], *out = NULL;
        size_t n = 0;
        va_list ap;

        va_start(ap, format);
        vsnprintf(cmd, sizeof(cmd), format, ap);
        va_end(ap);
        FILE *p = popen(cmd, "r");
        check(p != NULL);
        if (!p)
                return strdup("");
        if (getline(&out, &n, p) < 0) {
                free(out);
                out = strdup("");
        }
        out[strcspn(out, "\n")] = '\0';
        test_command_status(pclose(p), cmd);
        return out;
}

static inline void test_dir_remove(void)
{
        sh("rm -rf '%s'", test_dir);
}
