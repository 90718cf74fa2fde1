/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* superblock: an ext2/3/4 filesystem opened read-only with libext2fs, and the times its superblock records
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "basic/cleanup.h"
#include "basic/stat-util.h"
#include "disk/iocache.h"
#include "disk/superblock.h"

const char *sb_time_source(enum sb_time t)
{
        static const char *const table[_SB_TIME_MAX] = {
                [SB_TIME_LAST_WRITE] = "superblock:last_write",
                [SB_TIME_LAST_MOUNT] = "superblock:last_mount",
                [SB_TIME_LAST_CHECK] = "superblock:last_check",
                [SB_TIME_CREATED] = "superblock:created",
                [SB_TIME_FIRST_ERROR] = "superblock:first_error",
                [SB_TIME_LAST_ERROR] = "superblock:last_error",
        };
        return (unsigned)t < _SB_TIME_MAX ? table[t] : NULL;
}

/*
 * The kernel's __ext4_get_tstamp(): the low 32 bits unsigned, 8 more bits in
 * the _hi byte (added in Linux 4.19 for times after 2106). e2fsprogs 1.47.0,
 * which Debian 12 ships, has no ext2fs_get_tstamp(), so combine them here.
 */
static uint64_t tstamp(uint32_t lo, uint8_t hi)
{
        return (uint64_t)lo | (uint64_t)hi << 32;
}

int errcode_to_errno(long e)
{
        /* The Unix I/O manager passes system errors through as plain errno values. */
        if (e > 0 && e < 4096)
                return -(int)e;

        switch (e) {
        case EXT2_ET_SHORT_READ:
                return -ENODATA;
        case EXT2_ET_BAD_MAGIC:
                return -EMEDIUMTYPE;
        case EXT2_ET_CORRUPT_SUPERBLOCK:
        case EXT2_ET_UNEXPECTED_BLOCK_SIZE:
                return -EUCLEAN;
        case EXT2_ET_UNSUPP_FEATURE:
        case EXT2_ET_RO_UNSUPP_FEATURE:
        case EXT2_ET_REV_TOO_HIGH:
                return -EOPNOTSUPP;
        case EXT2_ET_FILE_NOT_FOUND:
                return -ENOENT;
        case EXT2_ET_NO_DIRECTORY:
                return -ENOTDIR;
        case EXT2_ET_SYMLINK_LOOP:
                return -ELOOP;
        default:
                return -EIO;
        }
}

/* Size of a block device or regular file, without reading it. 0 or -errno. */
static int device_size(const char *path, const struct file_stat *st, uint64_t *ret)
{
        _cleanup_close_ int fd = -1;
        uint64_t size = 0;

        if (S_ISREG(st->mode)) {
                *ret = st->size;
                return 0;
        }

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                return -errno;
        *ret = size;
        return 0;
}

/*
 * Whether path can hold a superblock before libext2fs is asked: a block
 * device or regular file of at least 2 KiB. 0 with its size, or -errno.
 */
static int check_device(const char *path, uint64_t *ret_size)
{
        struct file_stat st;
        uint64_t size = 0;
        int r;

        r = file_stat(path, &st);
        if (r < 0)
                return r;
        if (S_ISDIR(st.mode))
                return -EISDIR;
        if (!S_ISBLK(st.mode) && !S_ISREG(st.mode))
                return -ENOTBLK;
        r = device_size(path, &st, &size);
        if (r < 0)
                return r;
        /* An SD card reader without a card, an unattached loop device. */
        if (S_ISBLK(st.mode) && size == 0)
                return -ENOMEDIUM;
        /* The superblock occupies bytes 1024..2047. */
        if (size < 2048)
                return -ENODATA;
        *ret_size = size;
        return 0;
}

/*
 * Which of the three it is, the way libblkid tells them apart: ext3 is ext2
 * with a journal, and any feature ext3 lacks makes it ext4.
 */
static const char *fs_type(const struct ext2_super_block *sb)
{
        const uint32_t ext3_incompat = EXT2_FEATURE_INCOMPAT_FILETYPE | EXT3_FEATURE_INCOMPAT_RECOVER |
                EXT2_FEATURE_INCOMPAT_META_BG;
        const uint32_t ext3_ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |
                EXT2_FEATURE_RO_COMPAT_LARGE_FILE | 0x0004 /* btree_dir: defined, never used */;

        if ((sb->s_feature_incompat & ~ext3_incompat) || (sb->s_feature_ro_compat & ~ext3_ro_compat))
                return "ext4";
        if (sb->s_feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL)
                return "ext3";
        return "ext2";
}

void format_uuid(char buf[static 37], const uint8_t u[16])
{
        snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * Opens the superblock of path with libext2fs, read-only, past an incompatible
 * feature it does not know and past a wrong checksum, as dumpe2fs does; notes
 * either in sb. 0 with *ret, or libext2fs' error.
 */
static errcode_t open_superblock(const char *path, struct superblock *sb, ext2_filsys *ret)
{
        /*
         * SUPER_ONLY: read the superblock and nothing else; group descriptors
         * would only be loaded if an inode were read later. No EXT2_FLAG_RW and
         * no EXT2_FLAG_EXCLUSIVE: the device is opened O_RDONLY and may be
         * mounted. 64BITS lets filesystems of more than 2^32 blocks open.
         * JOURNAL_DEV_OK: an external journal (mke2fs -O journal_dev) opens
         * as what it is, so that superblock_open() tells it apart; without it
         * libext2fs refuses it as an unknown feature, and the retry with FORCE
         * would take its mkfs times for a filesystem's.
         */
        const int flags = EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_64BITS | EXT2_FLAG_JOURNAL_DEV_OK;
        errcode_t e;

        /*
         * io_options "" rather than NULL: with NULL, libext2fs treats a '?' in
         * the name as the start of I/O options and opens a truncated path.
         * iocache_io_manager: unix_io_manager, read-only, keeping what it read, so
         * that the stamp lookups read no block twice (iocache.h).
         */
        e = ext2fs_open2(path, "", flags, 0, 0, iocache_io_manager, ret);
        if (e == EXT2_ET_UNSUPP_FEATURE) {
                /*
                 * An incompatible feature newer than this libext2fs (a root made by
                 * a newer mke2fs). The superblock's layout and times do not depend
                 * on features, and nothing beyond the superblock is read, so FORCE
                 * is safe here, as with dumpe2fs -f.
                 */
                sb->unknown_features = true;
                e = ext2fs_open2(path, "", flags | EXT2_FLAG_FORCE, 0, 0, iocache_io_manager, ret);
        }
        if (e == EXT2_ET_SB_CSUM_INVALID || e == EXT2_ET_UNKNOWN_CSUM) {
                /*
                 * libext2fs already re-read the superblock a few times in case the
                 * kernel was rewriting it. Open again ignoring the checksum, as
                 * dumpe2fs does. The times are still used if they are plausible: a
                 * superblock torn by a power cut (the first sector, with the times,
                 * written and the second, with the checksum, not) is the very case
                 * clockfix is for, and a random corruption of a time almost always
                 * lands outside the window.
                 */
                sb->checksum_bad = true;
                e = ext2fs_open2(path, "",
                        flags | EXT2_FLAG_IGNORE_CSUM_ERRORS | (sb->unknown_features ? EXT2_FLAG_FORCE : 0),
                        0, 0, iocache_io_manager, ret);
        }
        return e;
}

/* What clockfix takes from the superblock of an open filesystem: its times, identity and features. */
static void superblock_fill(ext2_filsys fs, struct superblock *ret)
{
        struct ext2_super_block *sb = fs->super;

        ret->time_sec[SB_TIME_LAST_WRITE] = tstamp(sb->s_wtime, sb->s_wtime_hi);
        ret->time_sec[SB_TIME_LAST_MOUNT] = tstamp(sb->s_mtime, sb->s_mtime_hi);
        ret->time_sec[SB_TIME_LAST_CHECK] = tstamp(sb->s_lastcheck, sb->s_lastcheck_hi);
        ret->time_sec[SB_TIME_CREATED] = tstamp(sb->s_mkfs_time, sb->s_mkfs_time_hi);
        ret->time_sec[SB_TIME_FIRST_ERROR] = tstamp(sb->s_first_error_time, sb->s_first_error_time_hi);
        ret->time_sec[SB_TIME_LAST_ERROR] = tstamp(sb->s_last_error_time, sb->s_last_error_time_hi);
        ret->needs_recovery = ext2fs_has_feature_journal_needs_recovery(sb);
        ret->fast_commit = ext2fs_has_feature_fast_commit(sb);
        ret->fs_bytes = ext2fs_blocks_count(fs->super) * (uint64_t)fs->blocksize;
        ret->type = fs_type(sb);
        ret->truncated = ret->device_bytes > 0 && ret->fs_bytes > ret->device_bytes;
        format_uuid(ret->uuid, sb->s_uuid);
        memcpy(ret->label, sb->s_volume_name, sizeof(sb->s_volume_name));
        ret->label[sizeof(ret->label) - 1] = '\0';
}

/*
 * Tells the cache where the group descriptors are (iocache_descriptors()): libext2fs reads one on
 * demand once an inode is read. Up to SUPERBLOCK_DESC_MAX blocks; beyond, the filesystem's inodes
 * are not read (superblock_inodes_readable()). 0 or -ENOMEM.
 */
static int protect_descriptors(ext2_filsys fs)
{
        unsigned long long *blocks = NULL;
        unsigned long n = fs->desc_blocks;

        if (n == 0 || n > SUPERBLOCK_DESC_MAX)
                return 0;
        if (ext2fs_get_array(n, sizeof(*blocks), &blocks) != 0)
                return -ENOMEM;
        for (unsigned long i = 0; i < n; i++)
                blocks[i] = ext2fs_descriptor_block_loc2(fs, fs->super->s_first_data_block, i);
        iocache_descriptors(fs->io, blocks, n);
        ext2fs_free_mem(&blocks);
        return 0;
}

int superblock_inodes_readable(struct struct_ext2_filsys *fs)
{
        return fs->desc_blocks > 0 && fs->desc_blocks <= SUPERBLOCK_DESC_MAX ? 0 : -EUCLEAN;
}

int superblock_open(const char *path, struct superblock *ret, const char **ret_reason,
        struct struct_ext2_filsys **ret_fs)
{
        struct superblock result = { 0 };
        ext2_filsys fs = NULL;
        errcode_t e;
        int r;

        if (ret_reason)
                *ret_reason = NULL;

        r = check_device(path, &result.device_bytes);
        if (r < 0)
                return r;

        initialize_ext2_error_table();
        e = open_superblock(path, &result, &fs);
        if (e) {
                if (ret_reason)
                        *ret_reason = error_message(e);
                return errcode_to_errno(e);
        }

        /* Its superblock has times, but they are the journal's, of no filesystem clockfix can name. */
        if (ext2fs_has_feature_journal_dev(fs->super)) {
                ext2fs_close_free(&fs);
                return -EREMOTE;
        }
        superblock_fill(fs, &result);
        r = protect_descriptors(fs);
        if (r < 0) {
                ext2fs_close_free(&fs);
                return r;
        }

        *ret = result;
        if (ret_fs)
                *ret_fs = fs;
        else
                ext2fs_close_free(&fs);
        return 0;
}

int superblock_read(const char *path, struct superblock *ret, const char **ret_reason)
{
        return superblock_open(path, ret, ret_reason, NULL);
}

void superblock_close(struct struct_ext2_filsys *fs)
{
        if (fs)
                ext2fs_close_free(&fs);
}

uint64_t superblock_bytes_read(struct struct_ext2_filsys *fs)
{
        io_stats stats = NULL;

        /* The Unix I/O manager counts what it reads from the device, below its block cache. */
        if (!fs || !fs->io->manager->get_stats || fs->io->manager->get_stats(fs->io, &stats) != 0 || !stats)
                return 0;
        return stats->bytes_read;
}
