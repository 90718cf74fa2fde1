/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2: the newest plausible commit time of an ext3/4 journal, read through a callback (no I/O here) */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/window.h"

/*
 * The default number of read operations a search may make in a journal, its
 * superblock's included. On an SD card a read costs tens of milliseconds
 * wherever it lands, and each reads at most 256 blocks (1 MiB of 4 KiB
 * blocks). Finding the newest commit takes a dozen at most in a log of up to
 * 1 GiB (a probe a halving, fewer by interpolation: bench/read-cost); when
 * the newest commit's time is not plausible (the last boot ran with a wrong
 * clock), every commit back to the newest plausible one is read, a chunk a
 * read, and with a third of the budget left a gallop back finds a plausible
 * one, reported as out of budget.
 */
#define JBD2_BUDGET_DEFAULT 32u

/*
 * Reads `count` consecutive journal blocks from `block` (count * blocksize
 * bytes) into buf, in one read where the device allows: each call is one read
 * operation to the search, the cost that matters on an SD card. 0, or a
 * negative errno when any of them cannot be read.
 */
typedef int (*jbd2_read_fn)(void *userdata, uint64_t block, uint32_t count, void *buf);

/*
 * The blocks of the search's first read: the journal superblock and those after it, where the
 * log starts when it starts at its first block.
 */
#define JBD2_FIRST_READ 17u

struct jbd2_source {
        jbd2_read_fn read;
        void *userdata;
        uint64_t sb_block;   /* the journal superblock: 0 in a journal inode, 1 or 2 on a journal device */
        uint32_t blocksize;  /* the filesystem's: the journal's must be the same */
        uint64_t max_blocks; /* the size of the inode or device, in blocks: s_maxlen may not exceed it */
        bool fast_commit; /* the filesystem uses fast commits (the journal forgets its own flag when clean)
                           */
        const uint8_t *fs_uuid; /* an external journal must list the filesystem among its users; else NULL */
};

struct jbd2_commit {
        bool found;
        uint32_t sequence; /* the transaction ID */
        uint32_t block;    /* where the commit block is in the journal */
        usec_t time;       /* h_commit_sec and h_commit_nsec; 0 when the block carries no time */
};

struct jbd2_report {
        /* From the journal superblock. */
        uint32_t blocksize;
        uint32_t maxlen;      /* blocks in the journal */
        uint32_t first, last; /* the log is first..last; after last, the fast-commit area */
        uint32_t sequence;    /* dirty: the oldest transaction in the log; clean: the next to be written */
        uint32_t start;       /* where that transaction starts; 0 when the log is clean */
        uint32_t head;        /* clean, Linux >= 6.5: where the next transaction goes; else 0 */
        uint32_t feature_compat, feature_incompat;
        bool dirty; /* start != 0: not cleanly unmounted, or still mounted */
        /* What the walk found. */
        struct jbd2_commit newest; /* the highest sequence number found, whatever its time */
        struct jbd2_commit best;   /* the newest commit whose time is plausible */
        bool wrapped;           /* the newest commit lies past the end of the log from where the run began */
        unsigned blocks_read;   /* journal blocks read, the superblock included */
        unsigned reads;         /* read operations (calls of jbd2_source.read), the superblock's included */
        unsigned budget;        /* in read operations */
        bool budget_exhausted;  /* the walk stopped for the budget: a newer commit may exist */
        unsigned bad_checksums; /* journal blocks whose checksum did not match (torn or corrupt) */
        unsigned read_errors;
};

/* "csum_v3", "64bit", "fast_commit", ... for feature bits of the journal superblock, comma-separated. */
char *jbd2_features(const struct jbd2_report *r, char *buf, size_t size);

/*
 * Finds the newest commit whose time lies within [window->floor,
 * window->not_after], making at most budget reads through src: the commit
 * with the highest sequence number among those whose time is in the window,
 * as a reading of every block of the log would find it, whenever the budget
 * allows (ret->budget_exhausted is false) and the log is whole. The log is
 * ordered by sequence number, so the newest commit is searched for, not
 * scanned for; only when its time is not plausible are the commits before it
 * read. A corrupt or torn block ends a run of transactions: a newer commit
 * may lie past it (ret->bad_checksums, ret->read_errors say so); unreadable
 * blocks are read past.
 *
 * Returns 0 with *ret filled (ret->best.found is false when no commit has a
 * plausible time; ret->newest then says what was there), or a negative errno
 * when the journal cannot be used at all, with *ret_reason set:
 *   -EMEDIUMTYPE  no journal superblock where one should be;
 *   -EUCLEAN      its geometry or checksum is wrong;
 *   -EOPNOTSUPP   it uses features this reader does not know;
 *   -ENOBUFS      budget is 0;
 *   others        reading the journal superblock failed.
 */
_must_check_ int jbd2_find_commit(const struct jbd2_source *src, const struct window *window,
        unsigned budget, struct jbd2_report *ret, const char **ret_reason);
