/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stamps: files that tools rewrite while the system runs, whose times say when it last ran */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "disk/journal.h"

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
        unsigned blocks;    /* on the disk: the blocks its lookup asked for (lookup_read_file()) */
        bool budget_spent;  /* on the disk: its lookup stopped at LOOKUP_BUDGET blocks */
        usec_t time;        /* 0 when none, and whenever error is not 0 */
};

/* "/var/lib/systemd/timesync/clock", ... */
const char *stamp_path(enum stamp s);
/* "file:/var/lib/systemd/timesync/clock", ...: the source name of its time */
const char *stamp_source(enum stamp s);

/*
 * Whether the stamp files of a filesystem are read, and why: stamps_needed() decides among the
 * reasons up to STAMPS_JOURNAL_NEWER; the others are what gather knows before it asks.
 */
enum stamps_why {
        /* Not read: --no-stamps. */
        STAMPS_NOT_ASKED,
        /* Not read: features this libext2fs does not know may change how directories are laid out. */
        STAMPS_UNKNOWN_FEATURES,
        /* Not read: no stamp file can be newer than the journal's newest commit. */
        STAMPS_JOURNAL_NEWER,
        /* Read: the mounted / (statx()), whose page cache may be newer than any commit. */
        STAMPS_LIVE,
        /* Read: no journal was read (ext2, or --journal-budget 0). */
        STAMPS_NO_JOURNAL,
        /* Read: the journal could not be used. */
        STAMPS_JOURNAL_ERROR,
        /* Read: fast commits log inode changes without a time. */
        STAMPS_FAST_COMMIT,
        /* Read: the journal's search stopped for its budget: a newer commit may exist. */
        STAMPS_BUDGET_SPENT,
        /* Read: blocks of the journal were corrupt or unreadable: a newer commit may lie past them. */
        STAMPS_JOURNAL_DAMAGED,
        /* Read: the journal holds no commit. */
        STAMPS_NO_COMMIT,
        /* Read: the newest commit is not plausible, and a stamp may be newer than the newest that is. */
        STAMPS_NEWEST_IMPLAUSIBLE,
        _STAMPS_WHY_MAX,
};

/*
 * Whether the stamp files must be read, given what the journal's search found (journal: NULL
 * when no journal was read), whether the filesystem uses fast commits, and whether the stamps
 * would be read live (the mounted /, with statx()). Pure.
 *
 * A stamp file changes only by a write to its inode (its mtime, or fake-hwclock's date in its
 * content), and jbd2 logs that write in a transaction whose commit block records the time of
 * the commit, at or after the write. So when the newest commit of the whole log was found, is
 * plausible, and no newer one can have been missed, no stamp file written by its tool can hold a
 * later time: STAMPS_JOURNAL_NEWER. Not so when the files are read live (the page cache holds
 * what no commit has yet), or with fast commits (an inode change is then logged in the
 * fast-commit area, which records no time, until the next full commit).
 */
enum stamps_why stamps_needed(const struct journal_report *journal, bool fast_commit, bool live);

/* Whether the stamp files are read for this reason. */
bool stamps_why_reads(enum stamps_why why);

/* For people: "the journal's newest commit is not plausible", ... */
const char *stamps_why_to_text(enum stamps_why why);

struct struct_ext2_filsys;

/*
 * Reads the stamp files that the filesystem fs holds: paths[s] is where
 * stamp s is on it, or NULL when another filesystem holds it (then -EXDEV).
 * From the filesystem itself, read-only, with libext2fs, paths[s] taken from
 * its own root; or, when live is not 0 (fs is mounted, device number live,
 * and its page cache is newer than the disk), with statx() and read() on the
 * running system, paths[s] being the path there, and only a file on that
 * device is used.
 * Returns 0 (each file's problems are in ret[]), or -ENOMEM.
 */
_must_check_ int stamps_read(struct struct_ext2_filsys *fs, dev_t live,
        const char *const paths[static _STAMP_MAX], struct stamp_report ret[static _STAMP_MAX]);

/* An mtime as ext4 stores it: a signed 32-bit base and, when present, the extra field. 0 if not after 1970.
 */
usec_t ext4_time_to_usec(uint32_t base, uint32_t extra, bool have_extra);

/* The date in /etc/fake-hwclock.data ("2026-11-30 10:44:22\n", UTC). 0, -EINVAL or -ERANGE. */
int parse_fake_hwclock(const char *text, size_t size, usec_t *ret);
