/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file-util: whole small files (procfs, sysfs, configuration) read into memory */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "file-util.h"

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
