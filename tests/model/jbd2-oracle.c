/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* jbd2-oracle: the newest plausible commit of a jbd2 journal, by reading every block of its log */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "be.h"
#include "jbd2-oracle.h"

/* The on-disk format, as in src/jbd2/jbd2-block.c (and Linux's include/linux/jbd2.h). */
#define MAGIC                0xc03b3998u
#define TYPE_DESCRIPTOR      1u
#define TYPE_COMMIT          2u
#define TYPE_SUPERBLOCK_V1   3u
#define TYPE_SUPERBLOCK_V2   4u
#define TYPE_REVOKE          5u
#define INCOMPAT_CSUM_V2     0x08u
#define INCOMPAT_CSUM_V3     0x10u
#define INCOMPAT_FAST_COMMIT 0x20u
#define INCOMPAT_KNOWN       0x3fu
#define FC_DEFAULT_BLOCKS    256u
#define MIN_LOG_BLOCKS       1024u

/* The crc32c from seed of size bytes of buf, the 4 bytes at `at` taken as zero, against what they hold. */
static bool checksum_ok(const uint8_t *buf, uint32_t seed, size_t size, size_t at)
{
        static const uint8_t zero[4];
        uint32_t c = ext2fs_crc32c_le(seed, buf, at);

        c = ext2fs_crc32c_le(c, zero, 4);
        c = ext2fs_crc32c_le(c, buf + at + 4, size - at - 4);
        return c == get_be32(buf + at);
}

bool jo_plausible(uint64_t t, uint64_t floor, uint64_t not_after)
{
        return t != 0 && t >= floor && t <= not_after;
}

/* h_commit_sec and h_commit_nsec in microseconds: 0 for no time, UINT64_MAX past what 64 bits hold. */
static uint64_t commit_time(const uint8_t *b)
{
        uint64_t sec = get_be64(b + 0x30), u;
        uint32_t nsec = get_be32(b + 0x38);

        if (sec == 0)
                return 0;
        if (sec > UINT64_MAX / 1000000u)
                return UINT64_MAX;
        u = sec * 1000000u;
        if (nsec < 1000000000u && u <= UINT64_MAX - nsec / 1000u)
                u += nsec / 1000u;
        return u;
}

/* The geometry and the checksum seed, from the journal superblock in b. 0 or -errno. */
static int parse_superblock(const uint8_t *b, uint32_t blocksize, uint64_t sb_block, uint64_t max_blocks,
        bool fast_commit, struct jo_result *r, bool *ret_csum, uint32_t *ret_seed)
{
        uint32_t type = get_be32(b + 4), maxlen, incompat = 0, fc = 0;
        bool csum;

        if (get_be32(b) != MAGIC || (type != TYPE_SUPERBLOCK_V1 && type != TYPE_SUPERBLOCK_V2))
                return -EMEDIUMTYPE;
        maxlen = get_be32(b + 0x10);
        r->first = get_be32(b + 0x14);
        r->sequence = get_be32(b + 0x18);
        r->start = get_be32(b + 0x1c);
        r->dirty = r->start != 0;
        if (type == TYPE_SUPERBLOCK_V2) {
                incompat = get_be32(b + 0x28);
                r->head = get_be32(b + 0x58);
        }
        if (get_be32(b + 0x0c) != blocksize)
                return -EUCLEAN;
        if (incompat & ~INCOMPAT_KNOWN)
                return -EOPNOTSUPP;
        if ((incompat & INCOMPAT_CSUM_V2) && (incompat & INCOMPAT_CSUM_V3))
                return -EUCLEAN;
        csum = incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3);
        if (csum && (b[0x50] != 4 || !checksum_ok(b, ~0u, 1024, 0xfc)))
                return -EUCLEAN;
        /* The fast-commit area at the end: the filesystem's flag counts, the journal forgets its own when
         * clean. */
        if ((incompat & INCOMPAT_FAST_COMMIT) || fast_commit) {
                fc = type == TYPE_SUPERBLOCK_V2 ? get_be32(b + 0x54) : 0;
                if (fc == 0)
                        fc = FC_DEFAULT_BLOCKS;
                if (fc >= maxlen || maxlen - fc < MIN_LOG_BLOCKS)
                        fc = 0;
        }
        if (maxlen > max_blocks || r->first <= sb_block || r->first >= maxlen || fc >= maxlen - r->first ||
                maxlen - fc - r->first < 2)
                return -EUCLEAN;
        r->last = maxlen - fc - 1;
        r->length = r->last - r->first + 1;
        if (r->dirty && (r->start < r->first || r->start > r->last))
                return -EUCLEAN;
        *ret_csum = csum;
        *ret_seed = ext2fs_crc32c_le(~0u, b + 0x30, 16);
        return 0;
}

/* Whether a comes after b in jbd2's wrapping order of sequence numbers. */
static bool seq_after(uint32_t a, uint32_t b)
{
        return (int32_t)(a - b) > 0;
}

int jo_scan(jo_read_fn read, void *userdata, uint32_t blocksize, uint64_t sb_block, uint64_t max_blocks,
        bool fast_commit, uint64_t floor, uint64_t not_after, struct jo_result *ret)
{
        struct jo_result r = { 0 };
        uint8_t *buf;
        uint32_t seed = 0;
        size_t cap = 0;
        bool csum = false;
        int k;

        if (blocksize < 1024)
                return -EUCLEAN;
        buf = malloc(blocksize);
        if (!buf)
                return -ENOMEM;
        k = read(userdata, sb_block, buf);
        if (k == 0)
                k = parse_superblock(buf, blocksize, sb_block, max_blocks, fast_commit, &r, &csum, &seed);
        if (k < 0) {
                free(buf);
                return k;
        }

        /* A dirty log holds at most one transaction a block from s_sequence on; a clean one ended before it.
         */
        uint32_t span = r.length < 0x7fffffffu ? r.length : 0x7fffffffu;
        r.max = r.dirty ? r.sequence + span - 1 : r.sequence - 1;

        for (uint32_t block = r.first; block <= r.last; block++) {
                uint32_t type, seq;

                if (read(userdata, block, buf) < 0 || get_be32(buf) != MAGIC)
                        continue;
                type = get_be32(buf + 4);
                if (type != TYPE_DESCRIPTOR && type != TYPE_COMMIT && type != TYPE_REVOKE)
                        continue;
                r.headers++;
                seq = get_be32(buf + 8);
                if (type != TYPE_COMMIT || (csum && !checksum_ok(buf, seed, blocksize, 0x10)) ||
                        seq_after(seq, r.max))
                        continue;
                if (r.n_commits == cap) {
                        cap = cap ? 2 * cap : 64;
                        r.commits = realloc(r.commits, cap * sizeof(*r.commits));
                        if (!r.commits)
                                abort();
                }
                struct jo_commit c = {
                        .found = true, .sequence = seq, .block = block, .time = commit_time(buf)
                };
                r.commits[r.n_commits++] = c;
                /* The highest in the wrapping order is the one closest below max: the smallest max - s. */
                if (!r.newest.found || r.max - seq < r.max - r.newest.sequence)
                        r.newest = c;
                if (jo_plausible(c.time, floor, not_after) &&
                        (!r.best.found || r.max - seq < r.max - r.best.sequence))
                        r.best = c;
        }
        free(buf);
        *ret = r;
        return 0;
}

void jo_result_free(struct jo_result *r)
{
        free(r->commits);
        r->commits = NULL;
        r->n_commits = 0;
}

const struct jo_commit *jo_commit_at(const struct jo_result *r, uint32_t block)
{
        for (size_t i = 0; i < r->n_commits; i++)
                if (r->commits[i].block == block)
                        return &r->commits[i];
        return NULL;
}

void jo_print_commit(const char *what, const struct jo_commit *c)
{
        if (c->found)
                printf("%s %" PRIu32 " %" PRIu32 " %" PRIu64 "\n", what, c->sequence, c->block,
                        c->time / 1000000);
        else
                printf("%s none\n", what);
}
