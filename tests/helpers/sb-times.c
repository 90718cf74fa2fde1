/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sb-times IMAGE FIELD=SECONDS...: sets times in the superblock of an ext2/3/4 image a test made,
 * each in its low 32 bits and its _hi byte, as the kernel stores them (lo | hi << 32), whatever
 * the version of e2fsprogs: debugfs's `ssv mtime @T` leaves the _hi byte alone before 1.47.1 and
 * sets it from 1.47.1 on (by the rule of inode times, which gives a time past 2038 a _hi of 1),
 * and ext2fs_close() writes the last write time, with its _hi byte from 1.47.1 on. Here the
 * fields go into libext2fs's copy of the superblock, the checksum is set, and only the primary
 * superblock is written back: nothing else changes.
 *
 * FIELD is one of mkfs_time, wtime, mtime, lastcheck, first_error_time, last_error_time (the
 * names debugfs's ssv gives them); SECONDS at most 2^40 - 1. Exit 0, or 1 with a message.
 * A helper of the tests, built for the machine that runs them.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sb-times writes libext2fs's copy of the superblock as it is: little-endian machines only"
#endif

struct field {
        const char *name;
        size_t lo, hi;
};

#define SB(member) offsetof(struct ext2_super_block, member)

static const struct field fields[] = {
        { "mkfs_time", SB(s_mkfs_time), SB(s_mkfs_time_hi) },
        { "wtime", SB(s_wtime), SB(s_wtime_hi) },
        { "mtime", SB(s_mtime), SB(s_mtime_hi) },
        { "lastcheck", SB(s_lastcheck), SB(s_lastcheck_hi) },
        { "first_error_time", SB(s_first_error_time), SB(s_first_error_time_hi) },
        { "last_error_time", SB(s_last_error_time), SB(s_last_error_time_hi) },
};

static int set_field(struct ext2_super_block *sb, const char *arg)
{
        const char *eq = strchr(arg, '=');
        char *end;
        unsigned long long v;

        if (!eq || eq[1] < '0' || eq[1] > '9')
                return fprintf(stderr, "sb-times: %s: not FIELD=SECONDS\n", arg), -1;
        errno = 0;
        v = strtoull(eq + 1, &end, 10);
        if (errno || *end || v >= UINT64_C(1) << 40)
                return fprintf(stderr, "sb-times: %s: not a number of seconds below 2^40\n", arg), -1;
        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                if (strlen(fields[i].name) != (size_t)(eq - arg) || strncmp(fields[i].name, arg, eq - arg))
                        continue;
                __u32 lo = (__u32)v;
                __u8 hi = (__u8)(v >> 32);
                memcpy((char *)sb + fields[i].lo, &lo, sizeof(lo));
                memcpy((char *)sb + fields[i].hi, &hi, sizeof(hi));
                return 0;
        }
        return fprintf(stderr, "sb-times: %.*s: not a time of the superblock\n", (int)(eq - arg), arg), -1;
}

int main(int argc, char **argv)
{
        ext2_filsys fs;
        errcode_t err;
        int fd, rc = 1;

        if (argc < 3) {
                fprintf(stderr, "usage: sb-times IMAGE FIELD=SECONDS...\n");
                return 2;
        }
        err = ext2fs_open(argv[1], EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
        if (err) {
                fprintf(stderr, "sb-times: %s: cannot open (libext2fs error %ld)\n", argv[1], (long)err);
                return 1;
        }
        for (int i = 2; i < argc; i++)
                if (set_field(fs->super, argv[i]) < 0)
                        goto out;
        ext2fs_superblock_csum_set(fs, fs->super);
        fd = open(argv[1], O_WRONLY | O_CLOEXEC);
        if (fd < 0 || pwrite(fd, fs->super, SUPERBLOCK_SIZE, SUPERBLOCK_OFFSET) != SUPERBLOCK_SIZE ||
                fsync(fd) < 0) {
                fprintf(stderr, "sb-times: %s: cannot write the superblock: %s\n", argv[1], strerror(errno));
                if (fd >= 0)
                        close(fd);
                goto out;
        }
        rc = close(fd) < 0;
out:
        ext2fs_close_free(&fs);
        return rc;
}
