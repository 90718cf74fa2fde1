/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* superblock: the times an ext2/3/4 superblock records, read with libext2fs, never written */

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

#define TEXT_OF(x)  #x
#define TEXT(x)     TEXT_OF(x)
#define BUDGET_TEXT TEXT(SUPERBLOCK_FILE_BUDGET)

/*
 * The inode at path on fs, from its root: ext2fs_namei() follows links in the directories on the
 * way (absolute ones from this filesystem's root), not one in the last component, as O_NOFOLLOW
 * on the running system. 0 or -errno, with ret->ino and, for an error, ret->reason.
 */
static int find_inode(ext2_filsys fs, const char *path, ext2_ino_t *ino, struct ext2_inode_large *inode,
        struct file_read *ret)
{
        errcode_t e = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino);

        if (e != 0) {
                int r = errcode_to_errno(e);
                if (r == -EIO)
                        ret->reason = "cannot look it up (corrupt directory?)";
                return r;
        }
        ret->ino = *ino;
        if (ext2fs_read_inode_full(fs, *ino, (struct ext2_inode *)inode, sizeof(*inode)) != 0) {
                ret->reason = "cannot read its inode";
                return -EIO;
        }
        return 0;
}

/* superblock_read_file() without its budget. */
static int read_file(ext2_filsys fs, const char *path, void *buf, size_t size, struct file_read *ret)
{
        struct ext2_inode_large inode = { 0 };
        ext2_file_t file = NULL;
        ext2_ino_t ino = 0;
        unsigned got = 0;
        errcode_t e;
        int r = find_inode(fs, path, &ino, &inode, ret);

        if (r < 0)
                return r;
        if (LINUX_S_ISLNK(inode.i_mode)) {
                ret->reason = NOFOLLOW_REASON;
                return -ELOOP;
        }
        if (!LINUX_S_ISREG(inode.i_mode)) {
                ret->reason = "not a regular file";
                return -EISDIR;
        }
        if (!buf)
                return 0;
        /* Too large: not read at all (no block of it costs a read). */
        if (EXT2_I_SIZE(&inode) > size)
                return -EFBIG;
        e = ext2fs_file_open2(fs, ino, (struct ext2_inode *)&inode, 0, &file);
        if (e == 0)
                e = ext2fs_file_read(file, buf, (unsigned)size, &got);
        if (file)
                ext2fs_file_close(file);
        if (e != 0) {
                ret->reason = "cannot read it";
                return -EIO;
        }
        ret->got = got;
        return 0;
}

/* The target of the symbolic link ino, whose inode is given, into buf (size bytes, NUL-terminated). */
static int read_link_target(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *inode, char *buf,
        size_t size, struct file_read *ret)
{
        uint64_t length = EXT2_I_SIZE(inode);
        ext2_file_t file = NULL;
        unsigned got = 0;
        errcode_t e;

        if (length == 0 || length >= size) {
                ret->reason = "a symbolic link of no target, or one longer than a path";
                return -ENAMETOOLONG;
        }
        if (inode->i_flags & EXT4_ENCRYPT_FL) {
                ret->reason = "an encrypted symbolic link";
                return -EOPNOTSUPP;
        }
        if (ext2fs_is_fast_symlink((struct ext2_inode *)inode)) {
                /* The target is in the inode itself, where the block map would be. */
                if (length > sizeof(inode->i_block))
                        return -EUCLEAN;
                memcpy(buf, inode->i_block, length);
                got = (unsigned)length;
        } else {
                /* In a block, or inline in the inode with inline_data: read as a file's contents. */
                e = ext2fs_file_open2(fs, ino, (struct ext2_inode *)inode, 0, &file);
                if (e == 0)
                        e = ext2fs_file_read(file, buf, (unsigned)length, &got);
                if (file)
                        ext2fs_file_close(file);
                if (e != 0 || got != length) {
                        ret->reason = "cannot read the target of a symbolic link";
                        return -EIO;
                }
        }
        buf[got] = '\0';
        if (strlen(buf) != got) {
                ret->reason = "a symbolic link whose target holds a NUL";
                return -EUCLEAN;
        }
        ret->got = got;
        return 1;
}

/* superblock_link_at() without its budget. */
static int link_at(ext2_filsys fs, const char *path, void *buf, size_t size, struct file_read *ret)
{
        struct ext2_inode_large inode = { 0 };
        ext2_ino_t ino = 0;
        int r = find_inode(fs, path, &ino, &inode, ret);

        if (r < 0)
                return r;
        if (!LINUX_S_ISLNK(inode.i_mode))
                return 0;
        return read_link_target(fs, ino, &inode, buf, size, ret);
}

/* Runs a lookup of fs within SUPERBLOCK_FILE_BUDGET blocks, as superblock_read_file() says. */
static int budgeted(ext2_filsys fs, const char *path, void *buf, size_t size, struct file_read *ret,
        int (*lookup)(ext2_filsys, const char *, void *, size_t, struct file_read *))
{
        struct file_read result = { 0 };
        int r;

        if (superblock_inodes_readable(fs) < 0) {
                *ret = (struct file_read){ .reason = "the superblock gives no plausible group descriptors" };
                return -EUCLEAN;
        }
        /* Every read of the lookup and of the file within the budget, whatever the disk holds. */
        (void)iocache_descriptor_failed(fs->io);
        iocache_budget(fs->io, SUPERBLOCK_FILE_BUDGET);
        r = lookup(fs, path, buf, size, &result);
        result.blocks = iocache_budget_asked(fs->io, &result.budget_spent);
        iocache_budget(fs->io, 0);
        if (iocache_descriptor_failed(fs->io)) {
                /* Whatever the lookup found, it went through a descriptor of zeros. */
                r = -EIO;
                result.reason = "cannot read the group descriptors (a device cut short?)";
        } else if (result.budget_spent) {
                r = -ECANCELED;
                result.reason = "its lookup stopped at its budget of " BUDGET_TEXT
                                " blocks (a corrupt directory or block map? run e2fsck)";
        }
        *ret = result;
        return r;
}

int superblock_read_file(
        struct struct_ext2_filsys *fs, const char *path, void *buf, size_t size, struct file_read *ret)
{
        return budgeted(fs, path, buf, size, ret, read_file);
}

int superblock_link_at(
        struct struct_ext2_filsys *fs, const char *path, char *buf, size_t size, struct file_read *ret)
{
        return budgeted(fs, path, buf, size, ret, link_at);
}
