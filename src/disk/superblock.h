/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* superblock: an ext2/3/4 filesystem opened read-only with libext2fs, and the times its superblock records
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"

enum sb_time {
        SB_TIME_LAST_WRITE,  /* s_wtime: mount, unmount, freeze, ~hourly on busy filesystems */
        SB_TIME_LAST_MOUNT,  /* s_mtime: every read-write mount */
        SB_TIME_LAST_CHECK,  /* s_lastcheck: e2fsck */
        SB_TIME_CREATED,     /* s_mkfs_time: when the image was made */
        SB_TIME_FIRST_ERROR, /* s_first_error_time */
        SB_TIME_LAST_ERROR,  /* s_last_error_time */
        _SB_TIME_MAX,
};

struct superblock {
        uint64_t time_sec[_SB_TIME_MAX]; /* seconds since the epoch, 40 bits; 0: never set */
        bool checksum_bad;     /* metadata_csum present and wrong: corrupt, or torn by a power cut */
        bool unknown_features; /* incompatible features newer than this libext2fs */
        bool needs_recovery;   /* the journal holds transactions: mounted, or power was cut */
        bool truncated;        /* the filesystem is larger than its device */
        bool fast_commit;      /* fast commits: inode changes logged between commits, with no time */
        uint64_t fs_bytes;     /* size the superblock claims */
        uint64_t device_bytes; /* size of the device or image file */
        const char *type;      /* "ext2", "ext3" or "ext4", by the features it uses */
        char uuid[37];
        char label[17];
};

/* Formats a 16-byte UUID the usual way, lowercase: "0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55". */
void format_uuid(char buf[static 37], const uint8_t u[16]);

/* "superblock:last_write", ... */
const char *sb_time_source(enum sb_time t);

/*
 * Reads the primary superblock of the ext2/3/4 filesystem at path (a block
 * device or an image file) read-only: one 1 KiB read whatever the size of the
 * filesystem, no exclusive open, whether or not it is mounted. A superblock
 * whose checksum is wrong after libext2fs' re-reads is still returned, with
 * checksum_bad set, and so is one with incompatible features this libext2fs
 * does not know, with unknown_features set.
 *
 * Returns 0, or a negative errno naming the problem:
 *   -ENOENT, -EACCES, ... from the system;
 *   -EISDIR        path is a directory;
 *   -ENOTBLK       path is neither a block device nor a regular file;
 *   -ENODATA       too small to hold a superblock (empty or cut short);
 *   -ENOMEDIUM     a block device of size 0 (no card in the reader, unattached loop);
 *   -EMEDIUMTYPE   no ext2/3/4 superblock magic: another filesystem or none;
 *   -EREMOTE       an external journal (mke2fs -O journal_dev), not a filesystem:
 *                  the filesystem it belongs to is on another device;
 *   -EUCLEAN       the superblock is corrupt (libext2fs says why);
 *   -EOPNOTSUPP    a revision this libext2fs cannot read;
 *   -EIO           anything else libext2fs reports.
 * On failure *ret_reason, if given, points at libext2fs' own text (static) or NULL.
 */
_must_check_ int superblock_read(const char *path, struct superblock *ret, const char **ret_reason);

/* libext2fs' handle of an open filesystem (ext2_filsys). */
struct struct_ext2_filsys;

/*
 * The same, keeping the filesystem open (read-only) in *ret_fs for reading
 * its journal and files; close it with superblock_close().
 */
_must_check_ int superblock_open(const char *path, struct superblock *ret, const char **ret_reason,
        struct struct_ext2_filsys **ret_fs);
void superblock_close(struct struct_ext2_filsys *fs);

/* Bytes read from the device of fs so far, as libext2fs' I/O manager counts them (0 if it does not). */
uint64_t superblock_bytes_read(struct struct_ext2_filsys *fs);

/*
 * A libext2fs error code as a negative errno: system errors as they are; a
 * bad magic -EMEDIUMTYPE, a corrupt superblock -EUCLEAN, unknown features
 * -EOPNOTSUPP, a short read -ENODATA; a name not found -ENOENT, not a
 * directory -ENOTDIR, a symbolic link loop -ELOOP; anything else -EIO.
 */
int errcode_to_errno(long e);

/*
 * The most group descriptor blocks of a filesystem whose inodes are read: 64 Ki blocks of 4 KiB
 * describe 2^22 groups (512 TiB). Beyond, the superblock is nonsense.
 */
#define SUPERBLOCK_DESC_MAX (64ul * 1024)

/* Whether the inodes of fs may be read: 0, or -EUCLEAN when its geometry is no filesystem's. */
int superblock_inodes_readable(struct struct_ext2_filsys *fs);
