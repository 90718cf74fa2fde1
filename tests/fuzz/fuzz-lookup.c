/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-lookup: the files clockfix reads from an unmounted filesystem (the stamp files,
 * fake-hwclock's date, the record) on any bytes taken as an ext2/3/4 image: the input, in a
 * memory file, extended with zeros to the size its superblock gives (up to 8 MiB), so that an
 * image's empty end need not be in the input. Whatever its directories and block maps hold,
 * each lookup ends within its budget of blocks, the device reads stay within what the budgets
 * allow, and a file is either read or has an error, never both.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/record.h"
#include "disk/lookup.h"
#include "disk/stamps.h"
#include "disk/superblock.h"
#include "fuzz.h"

#define MAX_INPUT (2u << 20)
#define MAX_IMAGE (8u << 20)

static uint32_t le32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The size the superblock (at 1024: s_blocks_count_lo at +4, s_log_block_size at +24) gives, or 0. */
static size_t image_size(const uint8_t *data, size_t size)
{
        if (size < 1024 + 28)
                return 0;
        uint64_t blocks = le32(data + 1024 + 4), log = le32(data + 1024 + 24);
        if (log > 6 || blocks > MAX_IMAGE)
                return 0;
        uint64_t bytes = blocks << (10 + log);
        return bytes <= MAX_IMAGE ? (size_t)bytes : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct stamp_report stamps[_STAMP_MAX];
        struct struct_ext2_filsys *fs = NULL;
        struct superblock sb;
        struct record rec;
        char path[64];
        size_t done = 0, full;
        int fd;

        if (size > MAX_INPUT)
                return 0;
        fd = memfd_create("fuzz-lookup", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0);
        while (done < size) {
                ssize_t n = write(fd, data + done, size - done);
                FUZZ_CHECK(n > 0);
                done += (size_t)n;
        }
        full = image_size(data, size);
        if (full > size)
                FUZZ_CHECK(ftruncate(fd, (off_t)full) == 0);
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

        if (superblock_open(path, &sb, NULL, &fs) < 0) {
                close(fd);
                return 0;
        }
        const char *paths[_STAMP_MAX];
        for (enum stamp s = 0; s < _STAMP_MAX; s++)
                paths[s] = stamp_path(s);
        FUZZ_CHECK(stamps_read(fs, 0, paths, stamps) == 0);
        for (enum stamp s = 0; s < _STAMP_MAX; s++) {
                FUZZ_CHECK(stamps[s].blocks <= LOOKUP_BUDGET);
                FUZZ_CHECK(!stamps[s].budget_spent || stamps[s].error != 0);
                FUZZ_CHECK(stamps[s].error == 0 || stamps[s].time == 0);
        }
        /* What a lookup through the mounts asks of each name on the way: a link's target, or not one. */
        char target[256];
        struct file_read link;
        int k = lookup_link_at(fs, "/var/lib/systemd/timesync", target, sizeof(target), &link);
        FUZZ_CHECK(link.blocks <= LOOKUP_BUDGET);
        FUZZ_CHECK(k <= 0 || (strlen(target) == link.got && link.got > 0 && link.got < sizeof(target)));
        FUZZ_CHECK(record_read_fs(fs, "/var/lib/clockfix/" RECORD_NAME, &rec) == 0);
        FUZZ_CHECK(rec.n <= RECORD_MAX_ENTRIES && (rec.error == 0 || rec.n == 0));
        record_done(&rec);
        /*
         * The device reads: the superblock and group descriptors as it opens, then each lookup within
         * its budget and one more inode read for a stamp's mtime, and the lookup of a link.
         */
        uint64_t blocksize = (uint64_t)1024 << le32(data + 1024 + 24);
        FUZZ_CHECK(superblock_bytes_read(fs) <= (5 * (LOOKUP_BUDGET + 1) + 64) * blocksize);
        superblock_close(fs);
        close(fd);
        return 0;
}
