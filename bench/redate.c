/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * redate: a boot with a wrong clock, after the fact. Rewrites the commit times
 * of a kernel-written jbd2 journal in an ext3/4 image (the journal inode's
 * blocks, mapped with libext2fs), for bench/read-cost's wrong-clock disks.
 *
 *   redate IMAGE [OPTION]...         applied in order:
 *     --list                  the journal superblock, "journal maxlen M first F sequence S start T head H
 *                             csum 0|2|3", then every commit block that counts (magic, type, checksum),
 *                             in block order: "commit SEQUENCE BLOCK SEC NSEC"
 *     --redate A:B:SEC        every commit whose sequence lies in [A, B] (jbd2's wrapping order) committed
 *                             at SEC plus its offset from the first of them (the times stay increasing,
 *                             as one boot's clock), its checksum made again (checksums v2 and v3);
 *                             prints "redated N commits, sequences A to B, SEC to SEC"
 *     --oracle FLOOR:NOT_AFTER
 *                             what tests/model/jbd2-oracle.c finds, reading every block of the log, with that
 *                             window (seconds): "best SEQUENCE BLOCK SEC" (or "best none"), "newest ..."
 * Nothing but the rewritten commit blocks changes (not the superblock's last write time). Exit status 1 when
 * --redate finds no commit.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "be.h"
#include "jbd2-oracle.h"

#define MAGIC            0xc03b3998u
#define TYPE_COMMIT      2u
#define INCOMPAT_CSUM_V2 0x08u
#define INCOMPAT_CSUM_V3 0x10u
#define COMMIT_CHECKSUM  0x10
#define COMMIT_SEC       0x30
#define COMMIT_NSEC      0x38

struct journal {
        ext2_filsys fs;
        blk64_t *map; /* the physical block of each journal block */
        uint32_t blocks;
        uint32_t maxlen, first, sequence, start, head;
        int csum; /* 0, 2 or 3 */
        uint32_t seed;
        uint8_t *buf;
};

static void die(const char *what)
{
        fprintf(stderr, "redate: %s\n", what);
        exit(2);
}

/* The crc32c from seed of the block, its 4 bytes at `at` taken as zero. */
static uint32_t checksum(const struct journal *j, const uint8_t *b, size_t at)
{
        static const uint8_t zero[4];
        uint32_t c = ext2fs_crc32c_le(j->seed, b, at);

        c = ext2fs_crc32c_le(c, zero, 4);
        return ext2fs_crc32c_le(c, b + at + 4, j->fs->blocksize - at - 4);
}

static int read_block(const struct journal *j, uint32_t block, void *buf)
{
        if (block >= j->blocks || j->map[block] == 0)
                return -EIO;
        return io_channel_read_blk64(j->fs->io, j->map[block], 1, buf) == 0 ? 0 : -EIO;
}

static int oracle_read(void *userdata, uint64_t block, void *buf)
{
        const struct journal *j = userdata;

        return block > UINT32_MAX ? -EIO : read_block(j, (uint32_t)block, buf);
}

/* Whether the block in j->buf is a commit block that counts: magic, type, checksum. */
static bool is_commit(const struct journal *j)
{
        return get_be32(j->buf) == MAGIC && get_be32(j->buf + 4) == TYPE_COMMIT &&
                (!j->csum || checksum(j, j->buf, COMMIT_CHECKSUM) == get_be32(j->buf + COMMIT_CHECKSUM));
}

static void open_journal(const char *image, bool rw, struct journal *j)
{
        struct ext2_inode inode;
        ext2_ino_t ino;
        uint32_t incompat;

        memset(j, 0, sizeof(*j));
        initialize_ext2_error_table();
        if (ext2fs_open2(image, NULL, EXT2_FLAG_64BITS | (rw ? EXT2_FLAG_RW : 0), 0, 0, unix_io_manager,
                    &j->fs) != 0)
                die("cannot open the image");
        ino = j->fs->super->s_journal_inum ? j->fs->super->s_journal_inum : EXT2_JOURNAL_INO;
        if (ext2fs_read_inode(j->fs, ino, &inode) != 0)
                die("no journal inode");
        if (EXT2_I_SIZE(&inode) / j->fs->blocksize > UINT32_MAX)
                die("a journal too large");
        j->blocks = (uint32_t)(EXT2_I_SIZE(&inode) / j->fs->blocksize);
        j->map = calloc(j->blocks ? j->blocks : 1, sizeof(*j->map));
        j->buf = malloc(j->fs->blocksize);
        if (!j->map || !j->buf)
                die("out of memory");
        for (uint32_t b = 0; b < j->blocks; b++)
                if (ext2fs_bmap2(j->fs, ino, &inode, NULL, 0, b, NULL, &j->map[b]) != 0)
                        die("cannot map the journal");
        if (read_block(j, 0, j->buf) < 0 || get_be32(j->buf) != MAGIC)
                die("no journal superblock");
        j->maxlen = get_be32(j->buf + 0x10);
        j->first = get_be32(j->buf + 0x14);
        j->sequence = get_be32(j->buf + 0x18);
        j->start = get_be32(j->buf + 0x1c);
        incompat = get_be32(j->buf + 4) == 4 ? get_be32(j->buf + 0x28) : 0;
        j->head = get_be32(j->buf + 4) == 4 ? get_be32(j->buf + 0x58) : 0;
        j->csum = incompat & INCOMPAT_CSUM_V3 ? 3 : incompat & INCOMPAT_CSUM_V2 ? 2 : 0;
        j->seed = ext2fs_crc32c_le(~0u, j->buf + 0x30, 16);
        if (j->maxlen > j->blocks || j->first == 0 || j->first >= j->maxlen)
                die("a journal superblock of impossible geometry");
}

static void list(struct journal *j)
{
        printf("journal maxlen %" PRIu32 " first %" PRIu32 " sequence %" PRIu32 " start %" PRIu32
               " head %" PRIu32 " csum %d\n",
                j->maxlen, j->first, j->sequence, j->start, j->head, j->csum);
        for (uint32_t b = j->first; b < j->maxlen; b++)
                if (read_block(j, b, j->buf) == 0 && is_commit(j))
                        printf("commit %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu32 "\n",
                                get_be32(j->buf + 8), b, get_be64(j->buf + COMMIT_SEC),
                                get_be32(j->buf + COMMIT_NSEC));
}

struct found {
        uint32_t sequence, block;
        uint64_t ns; /* the commit's time, in nanoseconds */
};

static int redate(struct journal *j, uint32_t a, uint32_t z, uint64_t sec)
{
        struct found *f = NULL, *lowest = NULL;
        size_t n = 0, cap = 0;
        uint64_t lo = UINT64_MAX, hi = 0;

        /* The commits in [a, z] and their times, before any is rewritten. */
        for (uint32_t b = j->first; b < j->maxlen; b++) {
                uint32_t s;

                if (read_block(j, b, j->buf) < 0 || !is_commit(j))
                        continue;
                s = get_be32(j->buf + 8);
                if (s - a > z - a)
                        continue;
                if (n == cap) {
                        cap = cap ? 2 * cap : 256;
                        f = realloc(f, cap * sizeof(*f));
                        if (!f)
                                die("out of memory");
                }
                f[n++] = (struct found){ s, b,
                        get_be64(j->buf + COMMIT_SEC) * 1000000000u + get_be32(j->buf + COMMIT_NSEC) };
        }
        if (n == 0) {
                fprintf(stderr, "redate: no commit with a sequence in [%" PRIu32 ", %" PRIu32 "]\n", a, z);
                return 1;
        }
        for (size_t i = 0; i < n; i++)
                if (!lowest || f[i].sequence - a < lowest->sequence - a)
                        lowest = &f[i];
        for (size_t i = 0; i < n; i++) {
                uint64_t t = sec * 1000000000u + (f[i].ns - lowest->ns);

                if (f[i].ns < lowest->ns)
                        die("a commit older than the first of the range");
                if (read_block(j, f[i].block, j->buf) < 0)
                        die("cannot read the journal");
                put_be64(j->buf + COMMIT_SEC, t / 1000000000u);
                put_be32(j->buf + COMMIT_NSEC, (uint32_t)(t % 1000000000u));
                if (j->csum)
                        put_be32(j->buf + COMMIT_CHECKSUM, checksum(j, j->buf, COMMIT_CHECKSUM));
                if (io_channel_write_blk64(j->fs->io, j->map[f[i].block], 1, j->buf) != 0)
                        die("cannot write the journal");
                lo = t < lo ? t : lo;
                hi = t > hi ? t : hi;
        }
        if (io_channel_flush(j->fs->io) != 0)
                die("cannot write the journal");
        printf("redated %zu commits, sequences %" PRIu32 " to %" PRIu32 ", %" PRIu64 " to %" PRIu64 "\n", n,
                a, z, lo / 1000000000u, hi / 1000000000u);
        free(f);
        return 0;
}

static void oracle(struct journal *j, unsigned long long floor, unsigned long long not_after)
{
        struct jo_result o;

        if (jo_scan(oracle_read, j, j->fs->blocksize, 0, j->blocks,
                    ext2fs_has_feature_fast_commit(j->fs->super), floor * 1000000, not_after * 1000000,
                    &o) < 0)
                die("the oracle cannot use the journal");
        jo_print_commit("best", &o.best);
        jo_print_commit("newest", &o.newest);
        jo_result_free(&o);
}

int main(int argc, char *argv[])
{
        struct journal j;
        bool rw = false;
        int status = 0;

        if (argc < 3)
                die("usage: redate IMAGE [--list] [--redate A:B:SEC]... [--oracle FLOOR:NOT_AFTER]");
        for (int i = 2; i < argc; i++)
                rw |= strcmp(argv[i], "--redate") == 0;
        open_journal(argv[1], rw, &j);
        for (int i = 2; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
                unsigned long long x, y, z;

                if (strcmp(a, "--list") == 0)
                        list(&j);
                else if (strcmp(a, "--redate") == 0 && v) {
                        if (sscanf(v, "%llu:%llu:%llu", &x, &y, &z) != 3 || x > UINT32_MAX ||
                                y > UINT32_MAX || z > UINT64_MAX / 1000000000u - UINT32_MAX)
                                die("--redate A:B:SEC");
                        status |= redate(&j, (uint32_t)x, (uint32_t)y, z);
                        i++;
                } else if (strcmp(a, "--oracle") == 0 && v) {
                        if (sscanf(v, "%llu:%llu", &x, &y) != 2)
                                die("--oracle FLOOR:NOT_AFTER");
                        oracle(&j, x, y);
                        i++;
                } else
                        die("unknown option (see the comment at the top of redate.c)");
        }
        free(j.map);
        free(j.buf);
        /* Not ext2fs_close(): opened read-write, it would write the superblock (its last write time). */
        ext2fs_free(j.fs);
        return status;
}
