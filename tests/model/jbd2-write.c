/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jbd2-write: writes a journal log, block by block, into the journal of an
 * ext3/4 image made by mke2fs, for the cases a kernel does not make on
 * demand: commits from a boot with a wrong clock, torn and corrupt blocks.
 * (debugfs's own journal writer stores h_commit_sec shifted by 32 bits.)
 *
 *   jbd2-write IMAGE [OPTION]...      applied in order:
 *     --at BLOCK                  the next transaction goes at this journal block
 *     --txn SEC[:NDATA[:COUNT[:STEP]]]
 *                                 COUNT transactions (1) of NDATA data blocks (1)
 *                                 committed at SEC, SEC+STEP (1), ...
 *     --torn NDATA                a transaction without its commit block
 *     --dirty                     the log starts with the next transaction (power cut)
 *     --clean                     the log is empty, as after a remount read-only (default)
 *     --head                      with --clean: record the head (Linux >= 6.5)
 *     --damage BLOCK:checksum|magic|garbage
 *     --superblock-checksum       break the journal superblock's checksum
 *     --incompat HEX              the journal's incompatible features (checksums, 64bit) instead of mke2fs's
 *     --history SEED[:pre|:6.5]   the journal a history of boots drawn from SEED leaves
 * (tests/model/jbd2-history.c), in the layout of Linux before 6.5 or from 6.5 if given; its superblock too
 *     --oracle FLOOR:NOT_AFTER    print what tests/model/jbd2-oracle.c finds in the log written, with that
 * window (seconds): "best SEQUENCE BLOCK SEC" (or "best none"), "newest ...", and "history ..." after a
 * history
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "be.h"
#include "jbd2-history.h"
#include "jbd2-model.h"
#include "jbd2-oracle.h"

static void die(const char *what)
{
        fprintf(stderr, "jbd2-write: %s\n", what);
        exit(2);
}

static int model_read(void *userdata, uint64_t block, void *buf)
{
        const struct jmodel *m = userdata;

        if (block >= m->maxlen)
                return -EIO;
        jm_render(m, (uint32_t)block, buf);
        return 0;
}

/* What the oracle finds in m, and the history that wrote it (when one did). */
static void oracle(const struct jmodel *m, bool fast_commit, uint64_t floor, uint64_t not_after,
        const struct jh_history *h)
{
        struct jo_result o;
        char d[4096];

        if (jo_scan(model_read, (void *)m, m->blocksize, 0, m->maxlen, fast_commit, floor * 1000000,
                    not_after * 1000000, &o) < 0)
                die("the oracle cannot read the journal written");
        jo_print_commit("best", &o.best);
        jo_print_commit("newest", &o.newest);
        if (h) {
                jh_describe(h, m, d, sizeof(d));
                printf("history %s\n", d);
        }
        jo_result_free(&o);
}

int main(int argc, char *argv[])
{
        ext2_filsys fs = NULL;
        struct ext2_inode inode;
        struct jmodel m;
        uint8_t *buf;
        uint32_t first_tx = 0, first_seq = 0, start_seq;
        bool dirty = false, clean = false, head = false, history = false, with_oracle = false;
        unsigned long long floor = 0, not_after = 0;
        struct jh_history h;
        blk64_t physical;
        int fd;

        if (argc < 2)
                die("usage: jbd2-write IMAGE [OPTION]...");
        initialize_ext2_error_table();
        if (ext2fs_open2(argv[1], NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs) != 0)
                die("cannot open the image");
        if (fs->super->s_journal_inum == 0 || ext2fs_read_inode(fs, fs->super->s_journal_inum, &inode) != 0)
                die("no journal inode");
        buf = malloc(fs->blocksize);
        if (!buf || ext2fs_bmap2(fs, fs->super->s_journal_inum, &inode, NULL, 0, 0, NULL, &physical) != 0 ||
                io_channel_read_blk64(fs->io, physical, 1, buf) != 0)
                die("cannot read the journal superblock");

        /* The geometry, features and UUID of the journal mke2fs made. */
        start_seq = get_be32(buf + 0x18);
        jm_init(&m, fs->blocksize, get_be32(buf + 0x10), get_be32(buf + 0x28) & ~JM_INCOMPAT_FAST_COMMIT,
                ext2fs_has_feature_fast_commit(fs->super)
                        ? (get_be32(buf + 0x54) ? get_be32(buf + 0x54) : 256)
                        : 0,
                start_seq);
        m.first = get_be32(buf + 0x14);
        m.pos = m.first;
        m.compat = get_be32(buf + 0x24);
        memcpy(m.uuid, buf + 0x30, 16);

        for (int i = 2; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

                if (strcmp(a, "--at") == 0 && v) {
                        m.pos = (uint32_t)strtoul(v, NULL, 10);
                        i++;
                } else if (strcmp(a, "--txn") == 0 && v) {
                        unsigned long long sec = 0, ndata = 1, count = 1, step = 1;
                        sscanf(v, "%llu:%llu:%llu:%llu", &sec, &ndata, &count, &step);
                        for (unsigned long long k = 0; k < count; k++)
                                jm_transaction(&m, (uint32_t)ndata, false, true, sec + k * step, 0);
                        i++;
                } else if (strcmp(a, "--torn") == 0 && v) {
                        jm_transaction(&m, (uint32_t)strtoul(v, NULL, 10), false, false, 0, 0);
                        i++;
                } else if (strcmp(a, "--dirty") == 0) {
                        dirty = true;
                        first_tx = m.pos;
                        first_seq = m.next_sequence;
                } else if (strcmp(a, "--clean") == 0)
                        clean = true;
                else if (strcmp(a, "--head") == 0)
                        head = true;
                else if (strcmp(a, "--damage") == 0 && v) {
                        char kind[16] = "";
                        unsigned long block = 0;
                        if (sscanf(v, "%lu:%15s", &block, kind) != 2 || block == 0 || block >= m.maxlen)
                                die("--damage BLOCK:checksum|magic|garbage");
                        if (strcmp(kind, "checksum") == 0)
                                m.blocks[block].damage |= JM_BAD_CHECKSUM;
                        else if (strcmp(kind, "magic") == 0)
                                m.blocks[block].damage |= JM_BAD_MAGIC;
                        else if (strcmp(kind, "garbage") == 0)
                                m.blocks[block].kind = JM_GARBAGE;
                        else
                                die("--damage BLOCK:checksum|magic|garbage");
                        i++;
                } else if (strcmp(a, "--superblock-checksum") == 0)
                        m.sb_bad_checksum = true;
                else if (strcmp(a, "--incompat") == 0 && v) {
                        m.incompat = ((uint32_t)strtoul(v, NULL, 16) & ~JM_INCOMPAT_FAST_COMMIT) |
                                (m.incompat & JM_INCOMPAT_FAST_COMMIT);
                        i++;
                } else if (strcmp(a, "--history") == 0 && v) {
                        const char *layout = strchr(v, ':');
                        jh_random(strtoull(v, NULL, 10), &m, &h);
                        if (layout)
                                h.layout = strcmp(layout, ":pre") == 0 ? JH_BEFORE_6_5 : JH_FROM_6_5;
                        jh_write(&m, &h);
                        history = true;
                        i++;
                } else if (strcmp(a, "--oracle") == 0 && v) {
                        if (sscanf(v, "%llu:%llu", &floor, &not_after) != 2)
                                die("--oracle FLOOR:NOT_AFTER");
                        with_oracle = true;
                        i++;
                } else
                        die("unknown option (see the comment at the top of jbd2-write.c)");
        }
        /* After a history, the superblock is as its last boot left it. */
        if (!history && dirty && !clean)
                jm_set_dirty(&m, first_tx, first_seq);
        else if (!history)
                jm_set_clean(&m, m.next_sequence, head ? m.pos : 0);

        /* Written to the image file directly; libext2fs only maps the journal's blocks. */
        fd = open(argv[1], O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                die("cannot open the image for writing");
        for (uint32_t b = 0; b < m.maxlen; b++) {
                if (b != 0 && m.blocks[b].kind == JM_ZERO && m.blocks[b].damage == 0)
                        continue;
                if (ext2fs_bmap2(fs, fs->super->s_journal_inum, &inode, NULL, 0, b, NULL, &physical) != 0 ||
                        physical == 0)
                        die("cannot map a journal block");
                jm_render(&m, b, buf);
                if (pwrite(fd, buf, fs->blocksize, (off_t)(physical * fs->blocksize)) !=
                        (ssize_t)fs->blocksize)
                        die("cannot write the image");
        }
        if (fsync(fd) < 0 || close(fd) < 0)
                die("cannot write the image");
        printf("%" PRIu32 " %" PRIu32 "\n", m.pos, m.next_sequence);
        if (with_oracle)
                oracle(&m, ext2fs_has_feature_fast_commit(fs->super), floor, not_after, history ? &h : NULL);
        jm_free(&m);
        free(buf);
        ext2fs_close_free(&fs);
        return 0;
}
