/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-superblock: superblock_read() on real images made by mke2fs, their
 * times set by sb-times (ext2, ext3, ext4, ext4 with metadata_csum and 64bit, 1 KiB and
 * 64 KiB blocks, 1 TiB sparse), times with their _hi bytes, and every kind
 * of bad input. Each image is fingerprinted before and after: never written.
 */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "disk/superblock.h"
#include "test.h"

/* What `fingerprint` prints: changes on any write. */
static char *fingerprint(const char *file)
{
        return run("'%s' '%s'", getenv("FINGERPRINT"), file);
}

/* superblock_read() with the never-write check around it. */
static int read_sb(const char *file, struct superblock *sb, const char **reason)
{
        char *before = fingerprint(file);
        int r = superblock_read(file, sb, reason);
        char *after = fingerprint(file);

        check_str(after, before);
        free(before);
        free(after);
        return r;
}

struct fs_kind {
        const char *name;
        const char *type;
        const char *mkfs; /* mke2fs arguments before the image and size */
        const char *size;
};

static const struct fs_kind kinds[] = {
        { "ext2", "ext2", "-t ext2", "16M" },
        { "ext3", "ext3", "-t ext3", "32M" },
        { "ext4", "ext4", "-t ext4", "64M" },
        { "ext4-csum64", "ext4", "-t ext4 -O metadata_csum,64bit", "64M" },
        { "ext4-1k", "ext4", "-t ext4 -b 1024", "16M" },
        { "ext4-64k", "ext4", "-t ext4 -b 65536", "64M" },
        { "ext4-1tib", "ext4", "-t ext4 -O metadata_csum,64bit -J size=16", "1T" },
};

#define T_CREATED     1800000000u /* 2027-01-15T08:00:00Z */
#define T_WRITE       1800000600u
#define T_MOUNT       1800000300u
#define T_CHECK       1800000100u
#define T_FIRST_ERROR 1800000200u
#define T_LAST_ERROR  2208988800u /* 2040-01-01: past 2038 */

/* Sets times in the superblock of an image the test made ("FIELD=SECONDS ...", tests/helpers/sb-times.c). */
__attribute__((format(printf, 2, 3))) static void set_times(const char *file, const char *format, ...)
{
        const char *helper = getenv("SB_TIMES");
        char fields[512];
        va_list ap;

        va_start(ap, format);
        vsnprintf(fields, sizeof(fields), format, ap);
        va_end(ap);
        check(helper != NULL);
        if (helper)
                sh("'%s' '%s' %s", helper, file, fields);
}

static void test_kinds(void)
{
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
                const struct fs_kind *k = kinds + i;
                const char *file = test_path(k->name);
                struct superblock sb;
                const char *reason = "unset";

                fprintf(stderr, "%s\n", k->name);
                /* mke2fs stamps created, last write and last check with E2FSPROGS_FAKE_TIME. */
                sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F %s -L 'lbl-%s' '%s' %s 2>/dev/null", T_CREATED,
                        k->mkfs, k->name, file, k->size);
                /* The other times, with their _hi bytes, the same whatever e2fsprogs' version. */
                set_times(file, "mtime=%u lastcheck=%u first_error_time=%u last_error_time=%u wtime=%u",
                        T_MOUNT, T_CHECK, T_FIRST_ERROR, T_LAST_ERROR, T_WRITE);

                check_int(read_sb(file, &sb, &reason), 0);
                check(reason == NULL);
                check_u64(sb.time_sec[SB_TIME_CREATED], T_CREATED);
                check_u64(sb.time_sec[SB_TIME_LAST_WRITE], T_WRITE);
                check_u64(sb.time_sec[SB_TIME_LAST_MOUNT], T_MOUNT);
                check_u64(sb.time_sec[SB_TIME_LAST_CHECK], T_CHECK);
                check_u64(sb.time_sec[SB_TIME_FIRST_ERROR], T_FIRST_ERROR);
                check_u64(sb.time_sec[SB_TIME_LAST_ERROR], T_LAST_ERROR);
                check(!sb.checksum_bad);
                check(!sb.unknown_features);
                check(!sb.truncated);
                check(!sb.needs_recovery);
                check_u64(sb.fs_bytes, sb.device_bytes);
                char label[32];
                snprintf(label, sizeof(label), "lbl-%s", k->name);
                check_str(sb.label, label);
                check_int(strlen(sb.uuid), 36);
                check_str(sb.type, k->type);
        }
}

static void test_hi_bytes(void)
{
        const char *file = test_path("hi.img");
        struct superblock sb;

        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 -O metadata_csum '%s' 8M 2>/dev/null", T_CREATED,
                file);
        /* s_mtime = 2^32 + 5 s (2106-02-07T06:28:21Z); s_wtime = 3 * 2^32 + 1800000600 (the year 2465). */
        set_times(file, "mtime=4294967301 wtime=14684902488");
        check_int(read_sb(file, &sb, NULL), 0);
        check(!sb.checksum_bad);
        check_u64(sb.time_sec[SB_TIME_LAST_MOUNT], UINT64_C(4294967301));
        check_u64(sb.time_sec[SB_TIME_LAST_WRITE], (UINT64_C(3) << 32) + 1800000600u);
        check_u64(sb.time_sec[SB_TIME_CREATED], T_CREATED);

        /* The largest value the fields can hold: 40 bits. */
        set_times(file, "mtime=1099511627775 wtime=1099511627775");
        check_int(read_sb(file, &sb, NULL), 0);
        check_u64(sb.time_sec[SB_TIME_LAST_MOUNT], (UINT64_C(1) << 40) - 1);
        check_u64(sb.time_sec[SB_TIME_LAST_WRITE], (UINT64_C(1) << 40) - 1);
}

/* Overwrites bytes at an offset of a file the test made. */
static void poke(const char *file, off_t offset, const void *bytes, size_t n)
{
        int fd = open(file, O_WRONLY | O_CLOEXEC);
        check(fd >= 0);
        check_int(pwrite(fd, bytes, n, offset), (ssize_t)n);
        close(fd);
}

/* 'size' pseudo-random bytes from a fixed seed (xorshift64), so a failure can be replayed. */
static void write_random(const char *file, size_t size)
{
        uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
        FILE *f = fopen(file, "we");

        check(f != NULL);
        if (!f)
                return;
        for (size_t i = 0; i < size; i += sizeof(x)) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                fwrite(&x, sizeof(x), 1, f);
        }
        fclose(f);
}

static void test_bad(void)
{
        struct superblock sb;
        const char *reason;
        const char *file;

        check_int(read_sb("/dev/null", &sb, NULL), -ENOTBLK);
        check_int(superblock_read(test_path("missing"), &sb, NULL), -ENOENT);
        check_int(superblock_read(test_dir, &sb, NULL), -EISDIR);

        file = test_path("empty");
        sh("touch '%s'", file);
        check_int(read_sb(file, &sb, NULL), -ENODATA);

        /* Cut inside the superblock. */
        file = test_path("cut");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 '%s' 8M 2>/dev/null && truncate -s 1500 '%s'",
                T_CREATED, file, file);
        check_int(read_sb(file, &sb, NULL), -ENODATA);

        /* Cut after the superblock: readable, and marked as truncated. */
        file = test_path("short");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 '%s' 64M 2>/dev/null && truncate -s 1M '%s'",
                T_CREATED, file, file);
        check_int(read_sb(file, &sb, NULL), 0);
        check(sb.truncated);
        check_u64(sb.device_bytes, 1 << 20);
        check_u64(sb.fs_bytes, 64 << 20);
        check_u64(sb.time_sec[SB_TIME_CREATED], T_CREATED);

        file = test_path("zeros");
        sh("head -c 1M /dev/zero > '%s'", file);
        reason = NULL;
        check_int(read_sb(file, &sb, &reason), -EMEDIUMTYPE);
        check(reason != NULL);

        file = test_path("random");
        write_random(file, 1 << 20);
        check_int(read_sb(file, &sb, NULL), -EMEDIUMTYPE);

        file = test_path("vfat");
        sh("mkfs.vfat -C '%s' 8192 >/dev/null", file);
        check_int(read_sb(file, &sb, NULL), -EMEDIUMTYPE);

        /* An external journal: a superblock with times, but no filesystem's (with or without FORCE). */
        file = test_path("journal-dev");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -O journal_dev -b 4096 '%s' 8M >/dev/null 2>&1", T_CREATED,
                file);
        check_int(read_sb(file, &sb, NULL), -EREMOTE);

        /* metadata_csum with a byte of the label changed: checksum wrong, times still read. */
        file = test_path("badcsum");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 -O metadata_csum -L good '%s' 8M 2>/dev/null",
                T_CREATED, file);
        poke(file, 1024 + 0x78, "bad!", 4);
        check_int(read_sb(file, &sb, NULL), 0);
        check(sb.checksum_bad);
        check_u64(sb.time_sec[SB_TIME_CREATED], T_CREATED);

        /* A block size exponent that makes no sense. */
        file = test_path("badbs");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext2 '%s' 8M 2>/dev/null", T_CREATED, file);
        uint32_t huge = 40;
        poke(file, 1024 + 0x18, &huge, 4);
        reason = NULL;
        check_int(read_sb(file, &sb, &reason), -EUCLEAN);
        check(reason != NULL);

        /* An incompatible feature this libext2fs does not know: the superblock is read all the same. */
        file = test_path("future");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext2 '%s' 8M 2>/dev/null", T_CREATED, file);
        uint32_t incompat = 0x80000000u | 0x2; /* filetype + an unknown bit */
        poke(file, 1024 + 0x60, &incompat, 4);
        check_int(read_sb(file, &sb, NULL), 0);
        check(sb.unknown_features);
        check_u64(sb.time_sec[SB_TIME_CREATED], T_CREATED);

        /* All times zero (ext2 has no checksum to fix): readable, with nothing to offer. */
        file = test_path("zerotimes");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext2 '%s' 8M 2>/dev/null", T_CREATED, file);
        uint32_t zero = 0;
        poke(file, 1024 + 0x2c, &zero, 4);  /* s_mtime */
        poke(file, 1024 + 0x30, &zero, 4);  /* s_wtime */
        poke(file, 1024 + 0x40, &zero, 4);  /* s_lastcheck */
        poke(file, 1024 + 0x108, &zero, 4); /* s_mkfs_time */
        check_int(read_sb(file, &sb, NULL), 0);
        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++)
                check_u64(sb.time_sec[t], 0);

        /* A '?' in the name is part of the name, not libext2fs I/O options. */
        file = test_path("odd?name");
        sh("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 '%s' 8M 2>/dev/null", T_CREATED, file);
        check_int(read_sb(file, &sb, NULL), 0);
        check_u64(sb.time_sec[SB_TIME_CREATED], T_CREATED);

        /* Unreadable for this user: only meaningful without CAP_DAC_OVERRIDE, checked in the cli suite. */
}

static void test_names(void)
{
        check_str(sb_time_source(SB_TIME_LAST_WRITE), "superblock:last_write");
        check_str(sb_time_source(SB_TIME_LAST_MOUNT), "superblock:last_mount");
        check_str(sb_time_source(SB_TIME_LAST_CHECK), "superblock:last_check");
        check_str(sb_time_source(SB_TIME_CREATED), "superblock:created");
        check_str(sb_time_source(SB_TIME_FIRST_ERROR), "superblock:first_error");
        check_str(sb_time_source(SB_TIME_LAST_ERROR), "superblock:last_error");
        check(sb_time_source(_SB_TIME_MAX) == NULL);
}

int main(void)
{
        check(getenv("FINGERPRINT") != NULL);
        test_dir_make("test-superblock");
        test_names();
        test_kinds();
        test_hi_bytes();
        test_bad();
        test_dir_remove();
        test_end();
}
