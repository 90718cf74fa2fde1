/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stat-util: a file's type, numbers and times, with 64-bit times on every C library ABI */

#include <errno.h>
#include <fcntl.h>
#include <sys/sysmacros.h>

#include "basic/stat-util.h"

static int file_statx(int dirfd, const char *path, int flags, struct file_stat *ret)
{
        struct statx stx;

        /* AT_NO_AUTOMOUNT: as stat() itself, which never triggers an automount. */
        if (statx(dirfd, path, flags | AT_NO_AUTOMOUNT | AT_STATX_SYNC_AS_STAT,
                    STATX_TYPE | STATX_MODE | STATX_INO | STATX_SIZE | STATX_MTIME | STATX_CTIME, &stx) < 0)
                return -errno;
        *ret = (struct file_stat){
                .mode = stx.stx_mode,
                .dev = makedev(stx.stx_dev_major, stx.stx_dev_minor),
                .rdev = makedev(stx.stx_rdev_major, stx.stx_rdev_minor),
                .ino = stx.stx_ino,
                .size = stx.stx_size,
                .mtime = stx.stx_mtime,
                .ctime = stx.stx_ctime,
        };
        return 0;
}

int file_stat(const char *path, struct file_stat *ret)
{
        return file_statx(AT_FDCWD, path, 0, ret);
}

int file_stat_nofollow(const char *path, struct file_stat *ret)
{
        return file_statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, ret);
}

int file_fstat(int fd, struct file_stat *ret)
{
        return file_statx(fd, "", AT_EMPTY_PATH, ret);
}
