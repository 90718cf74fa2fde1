/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stamps: files that tools rewrite while the system runs, whose times say when it last ran */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "time-util.h"

enum stamp {
        STAMP_TIMESYNCD, /* systemd-timesyncd touches it at every synchronisation and shutdown: its mtime */
        STAMP_FAKE_HWCLOCK, /* fake-hwclock writes the UTC date into it, hourly and at shutdown */
        STAMP_CLOCKFIX,     /* clockfix's own: its mtime */
        _STAMP_MAX,
};

struct stamp_report {
        int error;          /* 0: read; -ENOENT: not there, as on most systems for some; else -errno */
        const char *reason; /* for error other than -ENOENT: what is wrong (static) */
        uint32_t inode;     /* the inode at its path on the unmounted filesystem, usable or not; else 0 */
        bool live;          /* read from the running system (statx()), the filesystem being the mounted / */
        usec_t time;        /* 0 when none, and whenever error is not 0 */
};

/* "/var/lib/systemd/timesync/clock", ... */
const char *stamp_path(enum stamp s);
/* "file:/var/lib/systemd/timesync/clock", ...: the source name of its time */
const char *stamp_source(enum stamp s);

struct struct_ext2_filsys;

/*
 * Reads the stamp files of the root filesystem fs: from the filesystem
 * itself, read-only, with libext2fs; or, when live_root is not 0 (fs is the
 * mounted /, whose device number live_root is, and whose page cache is newer
 * than the disk), with statx() and read().
 * Returns 0 (each file's problems are in ret[]), or -ENOMEM.
 */
int stamps_read(struct struct_ext2_filsys *fs, dev_t live_root, struct stamp_report ret[static _STAMP_MAX]);

/* An mtime as ext4 stores it: a signed 32-bit base and, when present, the extra field. 0 if not after 1970.
 */
usec_t ext4_time_to_usec(uint32_t base, uint32_t extra, bool have_extra);

/* The date in /etc/fake-hwclock.data ("2026-11-30 10:44:22\n", UTC). 0, -EINVAL or -ERANGE. */
int parse_fake_hwclock(const char *text, size_t size, usec_t *ret);

/*
 * Sets the mtime of clockfix's stamp file at path to now, creating the file
 * (empty, 0644) if needed, and makes it durable (fsync: one journal commit).
 * Never follows a symbolic link. 0, or -errno (-EROFS while / is read-only).
 */
int stamp_save(const char *path);

/*
 * The kilobytes ever written to the ext4 filesystem that holds path (its
 * directory, when path does not exist yet): the kernel's
 * /sys/fs/ext4/<device>/lifetime_write_kbytes. It moves whenever anything
 * writes to the device. 0, -ENOENT when it is not ext4 (or sysfs is not
 * mounted), or -errno.
 */
int fs_written_kbytes(const char *path, uint64_t *ret);
