/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stat-util: a file's type, numbers and times, with 64-bit times on every C library ABI */
#pragma once

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * What clockfix asks of stat(), from statx(). The program is built with the
 * C library's default time_t, as libext2fs' structs hold one: 32 bits on
 * Debian 12 armhf, where stat() fails with EOVERFLOW for any file with a
 * time after 2038 (a stamp file, a device node in /dev once the clock is
 * there). statx() returns 64-bit times whatever the ABI.
 */
struct file_stat {
        mode_t mode;
        dev_t dev;  /* the device of the filesystem that holds it */
        dev_t rdev; /* a device node's own number */
        uint64_t ino;
        uint64_t size;
        struct statx_timestamp mtime;
        struct statx_timestamp ctime;
};

/* As stat(): follows symbolic links. 0, or -errno; ret is untouched on failure. */
int file_stat(const char *path, struct file_stat *ret);

/*
 * As lstat(): a symbolic link in the last component is not followed (its own type, S_IFLNK, and
 * times); those in the directories on the way are, as the kernel resolves any path. Nothing is
 * opened: a device node, a FIFO, or what a link names is never touched. 0, or -errno; ret is
 * untouched on failure.
 */
int file_stat_nofollow(const char *path, struct file_stat *ret);

/* Why a file is not used when a symbolic link is where it should be (live or on the disk). */
#define NOFOLLOW_REASON "a symbolic link: not followed"

/* As fstat(). 0, or -errno; ret is untouched on failure. */
int file_fstat(int fd, struct file_stat *ret);
