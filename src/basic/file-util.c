/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file-util: whole small files (procfs, sysfs, configuration) read into memory, or replaced whole; a path's
 * directory */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/file-util.h"

int read_small_file(const char *path, char **ret)
{
        /* mountinfo on a container host runs to hundreds of KiB; 16 MiB is nonsense. */
        const size_t max = (size_t)16 * 1024 * 1024;
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t n = 0, size = 4096;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* procfs files report size 0: read until EOF rather than trusting fstat(). */
        for (;;) {
                if (n + 1 >= size || !buf) {
                        if (buf)
                                size *= 2;
                        if (size > max)
                                return -EFBIG;
                        char *b = realloc(buf, size);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                }
                ssize_t k = read(fd, buf + n, size - n - 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t)k;
        }
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

/* Writes all of data to fd. 0 or -errno. */
static int write_all(int fd, const char *data, size_t size)
{
        while (size > 0) {
                ssize_t n = write(fd, data, size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                data += n;
                size -= (size_t)n;
        }
        return 0;
}

int replace_file(const char *path, const char *data, size_t size, bool durable)
{
        char tmp[PATH_MAX];
        _cleanup_close_ int fd = -1;
        int r;

        if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp))
                return -ENAMETOOLONG;
        /* A leftover of an interrupted write, whatever it is (a symbolic link would fail O_NOFOLLOW). */
        if (unlink(tmp) < 0 && errno != ENOENT)
                return -errno;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0)
                return -errno;
        r = write_all(fd, data, size);
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void)unlink(tmp);
        return r;
}

bool path_dir(const char *path, char *dir, size_t size)
{
        const char *slash = strrchr(path, '/');
        size_t n = slash ? (size_t)(slash - path) : 0;

        if (!slash)
                return snprintf(dir, size, ".") < (int)size;
        if (n == 0)
                return snprintf(dir, size, "/") < (int)size;
        return snprintf(dir, size, "%.*s", (int)n, path) < (int)size;
}
