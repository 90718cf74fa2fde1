/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jbd2-oracle: the newest plausible commit of a jbd2 journal, by reading every
 * block of its log. What src/jbd2/jbd2-search.c must find, for the tests only:
 * slow (every block, in order), simple enough to be checked by eye.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads journal block `block` (blocksize bytes) into buf: 0, or a negative errno. */
typedef int (*jo_read_fn)(void *userdata, uint64_t block, void *buf);

struct jo_commit {
        bool found;
        uint32_t sequence;
        uint32_t block;
        /* microseconds, as src/jbd2/jbd2-block.c reads h_commit_sec and h_commit_nsec; 0: none */
        uint64_t time;
};

struct jo_result {
        /* The journal superblock, as src/jbd2/jbd2-block.c parses it. */
        uint32_t first, last, length, sequence, start, head;
        bool dirty;
        uint32_t max; /* the highest sequence number a commit may have to count */
        /* Every commit block that counts (magic, type, checksum, not after max), in block order. */
        struct jo_commit *commits;
        size_t n_commits;
        unsigned
                headers; /* descriptor, commit and revoke blocks (magic and type), whatever their sequence */
        struct jo_commit best;   /* the plausible commit with the highest sequence (wrapping order) */
        struct jo_commit newest; /* the commit with the highest sequence, whatever its time */
};

/*
 * Reads the journal superblock at sb_block and every block of the log
 * [first, last] through read. floor and not_after (microseconds) are the
 * plausibility window: a commit is plausible iff its time t != 0 and
 * floor <= t <= not_after. Returns 0 with *ret filled (free it with
 * jo_result_free()), or a negative errno when the journal superblock is not
 * one src/jbd2/jbd2-block.c would use (-EMEDIUMTYPE, -EUCLEAN, -EOPNOTSUPP, a read error).
 */
int jo_scan(jo_read_fn read, void *userdata, uint32_t blocksize, uint64_t sb_block, uint64_t max_blocks,
        bool fast_commit, uint64_t floor, uint64_t not_after, struct jo_result *ret);

void jo_result_free(struct jo_result *r);

/* The commit at `block` in r->commits, or NULL. */
const struct jo_commit *jo_commit_at(const struct jo_result *r, uint32_t block);

/* Whether t lies within [floor, not_after] and is set. */
bool jo_plausible(uint64_t t, uint64_t floor, uint64_t not_after);

/* Prints "WHAT SEQUENCE BLOCK SECONDS" for a commit found, "WHAT none" for none: the lines of the
 * --oracle option of tests/model/jbd2-write and bench/redate. */
void jo_print_commit(const char *what, const struct jo_commit *c);
