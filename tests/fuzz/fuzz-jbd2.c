/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-jbd2: the journal search on any bytes: the input is a journal of
 * 1024-byte blocks (the superblock first), read through the same callback
 * as a real one; blocks past its end read as an I/O error. Whatever the
 * bytes, the search ends within its budget and reports only commits that it
 * read.
 */

#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "jbd2/jbd2.h"

#define BLOCK 1024u

struct input {
        const uint8_t *data;
        size_t blocks;
        unsigned reads;
        uint64_t blocks_read;
};

static int read_block(void *userdata, uint64_t block, uint32_t count, void *buf)
{
        struct input *in = userdata;

        in->reads++;
        in->blocks_read += count;
        if (block >= in->blocks || count > in->blocks - block)
                return -EIO;
        memcpy(buf, in->data + block * BLOCK, (size_t)count * BLOCK);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct input in = { .data = data, .blocks = size / BLOCK };
        const struct window window = {
                .floor = (usec_t)1600000000 * USEC_PER_SEC,
                .not_after = (usec_t)2600000000 * USEC_PER_SEC,
        };
        struct jbd2_source src = {
                .read = read_block,
                .userdata = &in,
                .sb_block = 0,
                .blocksize = BLOCK,
                /* The device may claim more blocks than there are: the reads past the end fail. */
                .max_blocks = in.blocks + (size % BLOCK),
                .fast_commit = size % 2,
        };
        struct jbd2_report r;
        const char *reason = NULL;
        unsigned budget = 64;

        if (jbd2_find_commit(&src, &window, budget, &r, &reason) < 0) {
                FUZZ_CHECK(reason != NULL);
                return 0;
        }
        /* Every read counts against the budget, the journal superblock's too; none reads more than 256
         * blocks. */
        FUZZ_CHECK(r.reads <= budget);
        FUZZ_CHECK(in.reads == r.reads);
        FUZZ_CHECK(r.blocks_read <= in.blocks_read);
        FUZZ_CHECK(in.blocks_read <= 256u * (uint64_t)r.reads);
        if (r.newest.found)
                FUZZ_CHECK(r.newest.block < r.maxlen);
        if (r.best.found) {
                FUZZ_CHECK(r.newest.found);
                FUZZ_CHECK(r.best.time >= window.floor && r.best.time <= window.not_after);
        }
        return 0;
}
