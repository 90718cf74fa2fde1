/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lookup: a file or a symbolic link by its path on an unmounted ext2/3/4 filesystem, within a budget */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"

struct struct_ext2_filsys;

/*
 * The blocks one file's lookup and read may go through, those the cache
 * answers included. A directory or block map that points back at itself
 * would otherwise be walked about 10^9 times (a triple indirect block of
 * 4 KiB blocks that names itself), all from the cache; with the budget, no
 * file costs more than this many reads of the device, whatever the disk
 * holds. The stamp files of a real root take a few dozen.
 */
#define LOOKUP_BUDGET 1024

/* What lookup_read_file() found. */
struct file_read {
        uint32_t ino;       /* the inode at the path; 0 when not found */
        size_t got;         /* the bytes read into buf */
        unsigned blocks;    /* the blocks the lookup and the read asked for, the cache's answers included */
        bool budget_spent;  /* it stopped at LOOKUP_BUDGET blocks */
        const char *reason; /* for an error other than -ENOENT: what is wrong (static), else NULL */
};

/*
 * The regular file at path on fs, looked up from its root following symbolic links within the
 * filesystem in the directories on the way, but not one in the last component (as O_NOFOLLOW),
 * within LOOKUP_BUDGET blocks; when buf is not NULL, its contents into buf. Returns 0,
 * or -errno: -ENOENT and the path's other errors, -EIO, -ELOOP (a symbolic link), -EISDIR (not
 * a regular file), -EFBIG (larger than size: nothing of it read), -ECANCELED (the budget spent).
 * *ret is filled either way.
 */
_must_check_ int lookup_read_file(
        struct struct_ext2_filsys *fs, const char *path, void *buf, size_t size, struct file_read *ret);

/*
 * Whether what is at path on fs (looked up as lookup_read_file() does, within the same
 * budget) is a symbolic link: 1 with its target in buf (size bytes, NUL-terminated; ret->got its
 * length), 0 when it is something else, or -errno as lookup_read_file() (-ENOENT when it is
 * not there, -ENAMETOOLONG for a target that does not fit).
 */
_must_check_ int lookup_link_at(
        struct struct_ext2_filsys *fs, const char *path, char *buf, size_t size, struct file_read *ret);
