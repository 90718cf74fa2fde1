/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * workload: writes that make a kernel fill an ext4 journal the way a board does, for
 * bench/read-cost. Deterministic in size (the same files, bytes and syncs on every run), not
 * in time: the kernel decides where its transactions end.
 *
 *   workload tree DIR FILES BATCH SEED
 *       a package manager: FILES files in directories of 40, sizes 1 B to 256 KiB (log-uniform,
 *       from SEED), each written as NAME.new, fsync()ed and renamed over NAME, as dpkg does;
 *       syncfs() after every BATCH files (a package unpacked)
 *   workload bulk DIR FILES
 *       one large transaction: FILES files of 100 bytes in directories of 100, no sync, then
 *       one syncfs()
 *   workload burst FILE N
 *       N lines appended to FILE, each fsync()ed: N small transactions
 *   workload logger FILE N MS
 *       a logger: N lines appended to FILE, one every MS ms, each fsync()ed
 *   workload copies DIR COPIES DIRS EVERY
 *       directory trees copied: a tree of DIRS directories of 10 small files written with one
 *       syncfs(), then copied COPIES times (DIR/cN, every file read and written again), a
 *       syncfs() after every EVERY copies (0: none, the kernel's own commits: large transactions)
 *
 * Prints nothing; exits non-zero on any error.
 */

#define _GNU_SOURCE /* syncfs */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng;

static uint64_t next(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static void die(const char *what)
{
        perror(what);
        exit(1);
}

static void write_all(int fd, const char *buf, size_t n, const char *what)
{
        while (n) {
                ssize_t w = write(fd, buf, n);

                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        die(what);
                }
                buf += w;
                n -= (size_t)w;
        }
}

/* mkdir -p */
static void mkdir_p(const char *dir)
{
        char path[4096];

        snprintf(path, sizeof(path), "%s", dir);
        for (char *s = path + 1; *s; s++)
                if (*s == '/') {
                        *s = '\0';
                        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                                die(path);
                        *s = '/';
                }
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                die(path);
}

static void syncfs_of(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0 || syncfs(fd) < 0)
                die(path);
        close(fd);
}

static int tree(const char *dir, long files, long batch, uint64_t seed)
{
        static char buf[256 * 1024];
        char path[4096], tmp[4200];

        rng = seed ? seed : 1;
        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (char)('a' + next() % 26);
        mkdir_p(dir);
        for (long i = 0; i < files; i++) {
                /* log-uniform in 1 B .. 256 KiB: 2^(0..18) */
                size_t size = (size_t)1 << (next() % 18);
                int fd;

                size += next() % size;
                if (size > sizeof(buf))
                        size = sizeof(buf);
                snprintf(path, sizeof(path), "%s/d%04ld", dir, i / 40);
                if (i % 40 == 0)
                        mkdir_p(path);
                snprintf(path, sizeof(path), "%s/d%04ld/f%06ld", dir, i / 40, i);
                snprintf(tmp, sizeof(tmp), "%s.new", path);
                fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0)
                        die(tmp);
                write_all(fd, buf, size, tmp);
                if (fsync(fd) < 0)
                        die(tmp);
                close(fd);
                if (rename(tmp, path) < 0)
                        die(path);
                if ((i + 1) % batch == 0 || i + 1 == files)
                        syncfs_of(dir);
        }
        return 0;
}

static int bulk(const char *dir, long files)
{
        char path[4096], line[100];

        memset(line, 'x', sizeof(line));
        line[sizeof(line) - 1] = '\n';
        mkdir_p(dir);
        for (long i = 0; i < files; i++) {
                int fd;

                snprintf(path, sizeof(path), "%s/b%04ld", dir, i / 100);
                if (i % 100 == 0)
                        mkdir_p(path);
                snprintf(path, sizeof(path), "%s/b%04ld/g%06ld", dir, i / 100, i);
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0)
                        die(path);
                write_all(fd, line, sizeof(line), path);
                close(fd);
        }
        syncfs_of(dir);
        return 0;
}

static int lines(const char *file, long n, long ms)
{
        char line[128];
        int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

        if (fd < 0)
                die(file);
        for (long i = 0; i < n; i++) {
                int len = snprintf(line, sizeof(line),
                        "bench line %08ld: the quick brown fox jumps over the lazy dog\n", i);

                write_all(fd, line, (size_t)len, file);
                if (fsync(fd) < 0)
                        die(file);
                if (ms > 0 && i + 1 < n) {
                        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

                        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                                ;
                }
        }
        close(fd);
        return 0;
}

/* PATH_FORMAT into buf, or exit: a path too long for it */
__attribute__((format(printf, 3, 4))) static void path_of(char *buf, size_t size, const char *format, ...)
{
        va_list ap;
        int n;

        va_start(ap, format);
        n = vsnprintf(buf, size, format, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= size) {
                fprintf(stderr, "workload: a path too long\n");
                exit(1);
        }
}

/* cp -r SRC DST for a tree of directories of files (no deeper) */
static void copy_tree(const char *src, const char *dst)
{
        static char buf[65536];
        char from[4096], to[4096];

        mkdir_p(dst);
        for (long d = 0;; d++) {
                path_of(from, sizeof(from), "%s/d%04ld", src, d);
                if (access(from, F_OK) < 0)
                        break;
                path_of(to, sizeof(to), "%s/d%04ld", dst, d);
                mkdir_p(to);
                for (long f = 0;; f++) {
                        int in, out;
                        ssize_t n;

                        path_of(from, sizeof(from), "%s/d%04ld/f%02ld", src, d, f);
                        in = open(from, O_RDONLY | O_CLOEXEC);
                        if (in < 0)
                                break;
                        path_of(to, sizeof(to), "%s/d%04ld/f%02ld", dst, d, f);
                        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                        if (out < 0)
                                die(to);
                        while ((n = read(in, buf, sizeof(buf))) > 0)
                                write_all(out, buf, (size_t)n, to);
                        if (n < 0)
                                die(from);
                        close(in);
                        close(out);
                }
        }
}

static int copies(const char *dir, long n, long dirs, long every)
{
        char src[4096], dst[4096], path[4096], line[64];

        path_of(src, sizeof(src), "%s/src", dir);
        for (long d = 0; d < dirs; d++)
                for (long f = 0; f < 10; f++) {
                        int fd, len = snprintf(line, sizeof(line), "file %ld of directory %ld\n", f, d);

                        path_of(path, sizeof(path), "%s/d%04ld", src, d);
                        if (f == 0)
                                mkdir_p(path);
                        path_of(path, sizeof(path), "%s/d%04ld/f%02ld", src, d, f);
                        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                        if (fd < 0)
                                die(path);
                        write_all(fd, line, (size_t)len, path);
                        close(fd);
                }
        syncfs_of(dir);
        for (long i = 0; i < n; i++) {
                path_of(dst, sizeof(dst), "%s/c%04ld", dir, i);
                copy_tree(src, dst);
                if (every > 0 && (i + 1) % every == 0)
                        syncfs_of(dir);
        }
        syncfs_of(dir);
        return 0;
}

int main(int argc, char *argv[])
{
        if (argc == 6 && !strcmp(argv[1], "tree"))
                return tree(argv[2], atol(argv[3]), atol(argv[4]) > 0 ? atol(argv[4]) : 1,
                        strtoull(argv[5], NULL, 0));
        if (argc == 4 && !strcmp(argv[1], "bulk"))
                return bulk(argv[2], atol(argv[3]));
        if (argc == 4 && !strcmp(argv[1], "burst"))
                return lines(argv[2], atol(argv[3]), 0);
        if (argc == 5 && !strcmp(argv[1], "logger"))
                return lines(argv[2], atol(argv[3]), atol(argv[4]));
        if (argc == 6 && !strcmp(argv[1], "copies"))
                return copies(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));
        fprintf(stderr,
                "usage: workload tree DIR FILES BATCH SEED | bulk DIR FILES | burst FILE N | "
                "logger FILE N MS | copies DIR COPIES DIRS EVERY\n");
        return 2;
}
