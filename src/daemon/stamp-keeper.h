/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stamp-keeper: the daemon's stamp file, kept fresh without wearing the
 * flash: refreshed only when nothing else wrote to its filesystem in the
 * interval, and at stop (docs/design.md §6).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"

struct stamp_keeper {
        const char *path;    /* clockfix's stamp file */
        bool dry_run;        /* say what would be written, write nothing */
        bool warned_no_dir;  /* the stamp's directory is missing: warned */
        bool said_read_only; /* the stamp's filesystem is read-only for every process: said so */
        bool warned_unit;    /* the unit could not touch the stamp: warned */
        bool unit_useless;   /* the unit ran and did not touch it: not started again */
        bool have_written;   /* written holds the filesystem's write counter at the last look */
        uint64_t written;
};

/* Takes the filesystem's write counter as the baseline: the first interval tells whether anything writes. */
void stamp_keeper_baseline(struct stamp_keeper *k);

/* The save interval passed: refreshes the stamp when nothing else wrote meanwhile, else takes the counter.
 */
void stamp_keeper_interval(struct stamp_keeper *k);

/* At stop: refreshes the stamp (where its directory is there). */
void stamp_keeper_at_stop(struct stamp_keeper *k);

/*
 * Pure: whether to refresh the stamp, given the filesystem's write counter at
 * the last look (have_last: there was one) and now (counter < 0: not known,
 * a filesystem other than ext4: then every time). Only when nothing wrote in between: then no
 * other write records the time; otherwise those writes (and their journal
 * commits) do it already, and ours would only add wear.
 */
bool stamp_save_due(bool have_last, uint64_t last, int counter, uint64_t now);

/*
 * Sets the mtime of clockfix's stamp file at path to now, creating the file
 * (empty, 0644) if needed, and makes it durable (fsync: one journal commit).
 * Never follows a symbolic link. 0, or -errno (-EROFS while / is read-only).
 */
_must_check_ int stamp_save(const char *path);

/*
 * The kilobytes ever written to the ext4 filesystem that holds path (its
 * directory, when path does not exist yet): the kernel's
 * /sys/fs/ext4/<device>/lifetime_write_kbytes. It moves whenever anything
 * writes to the device. 0, -ENOENT when it is not ext4 (or sysfs is not
 * mounted), or -errno.
 */
int fs_written_kbytes(const char *path, uint64_t *ret);
