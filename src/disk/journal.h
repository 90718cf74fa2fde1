/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* journal: find a filesystem's journal (its inode, or an external device) and read its newest commit */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "jbd2/jbd2.h"

/* The source name of a journal's commit time. */
#define JOURNAL_SOURCE "journal:last_commit"

struct struct_ext2_filsys;

enum journal_location {
        JOURNAL_NONE,   /* no journal: ext2 */
        JOURNAL_INODE,  /* in an inode of the filesystem, usually 8 */
        JOURNAL_DEVICE, /* on a device of its own (mke2fs -O journal_dev) */
};

struct journal_report {
        enum journal_location location;
        uint32_t inode;     /* JOURNAL_INODE: its number */
        bool from_backup;   /* mapped with the superblock's copy of the inode's block map (s_jnl_blocks) */
        char uuid[37];      /* JOURNAL_DEVICE: the UUID it is looked up by */
        char *device;       /* JOURNAL_DEVICE: where it was found, or NULL */
        int error;          /* 0, or a negative errno: the journal could not be used */
        const char *reason; /* for error: what is wrong, for people (static) */
        struct jbd2_report jbd2; /* when error is 0 */
};

/*
 * Finds the journal of the open filesystem fs and the newest commit in it
 * whose time lies within window, reading at most budget journal blocks. An
 * external journal device is looked up by its UUID as the root is (udev's
 * link, the block devices' ext superblocks, then libblkid: rootdev_resolve()),
 * waiting until deadline (CLOCK_MONOTONIC) for it to appear, and else by the
 * device number the superblock remembers. Never writes.
 * Returns 0 (problems with the journal are in ret->error), or -ENOMEM.
 */
_must_check_ int journal_read(struct struct_ext2_filsys *fs, const struct window *window, unsigned budget,
        usec_t deadline, struct journal_report *ret);

void journal_report_done(struct journal_report *r);

/* "inode 8", "inode 8 (superblock backup)", "device /dev/sdb1", "device UUID=..." */
char *journal_where(const struct journal_report *r, char *buf, size_t size);
