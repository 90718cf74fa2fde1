/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* journal: find a filesystem's journal (its inode, or an external device) and read its newest commit */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "basic/log.h"
#include "disk/iocache.h"
#include "disk/journal.h"
#include "disk/rootdev.h"
#include "disk/superblock.h"

/* How long an external journal device may take to appear, once the filesystem has. */
#define JOURNAL_DEVICE_WAIT USEC_PER_SEC

/*
 * The search asks for runs of consecutive journal blocks; each becomes one
 * read of the device where the blocks follow each other on it, as they do in
 * a journal made by mke2fs. Counted for -v: the reads that reached the device
 * (not libext2fs' cache) and their bytes.
 */
struct device_reads {
        io_channel io;
        unsigned blocksize;
        unsigned reads;
        uint64_t bytes_read;
};

/* Bytes the I/O manager has read from the device of io so far (0 if it does not count). */
static uint64_t channel_bytes_read(io_channel io)
{
        io_stats stats = NULL;

        if (!io->manager->get_stats || io->manager->get_stats(io, &stats) != 0 || !stats)
                return 0;
        return stats->bytes_read;
}

/* For -v: counts a read of the device since `before` (channel_bytes_read()), if one reached it. */
static void count_read(struct device_reads *d, uint64_t before)
{
        if (log_debug_enabled()) {
                uint64_t after = channel_bytes_read(d->io);
                if (after > before) {
                        d->reads++;
                        d->bytes_read += after - before;
                }
        }
}

/* Reads count blocks at physical into buf: 0 or -EIO. */
static int counted_read(struct device_reads *d, blk64_t physical, uint32_t count, void *buf)
{
        uint64_t before = log_debug_enabled() ? channel_bytes_read(d->io) : 0;
        errcode_t e = io_channel_read_blk64(d->io, physical, (int)count, buf);

        count_read(d, before);
        return e == 0 ? 0 : -EIO;
}

/*
 * For -v, once the search is done: the journal blocks it read (the superblock included, as in
 * status --json), and the reads and bytes that reached the device for them.
 */
static void device_reads_done(const struct device_reads *d, const struct jbd2_report *rep, int k)
{
        if (k == 0)
                log_debug("journal: %u of %u reads by the search, %u blocks%s: %u device reads, %" PRIu64
                          " bytes",
                        rep->reads, rep->budget, rep->blocks_read,
                        rep->budget_exhausted ? " (budget spent)" : "", d->reads, d->bytes_read);
        else
                log_debug("journal: %u device reads, %" PRIu64 " bytes", d->reads, d->bytes_read);
}

/* A journal in an inode: journal block n is logical block n of the inode. */
struct inode_journal {
        ext2_filsys fs;
        ext2_ino_t ino;
        struct ext2_inode inode;
        uint64_t blocks; /* in the inode */
        struct device_reads dev;
};

/* The physical block of journal block `block`, or 0 for a hole or one outside the filesystem. */
static blk64_t inode_physical(struct inode_journal *j, uint64_t block)
{
        blk64_t physical = 0;
        int flags = j->fs->flags;

        /*
         * Flags 0: look up only, never allocate. The extent blocks' checksums are not verified: that
         * would read the inode for its generation (two more reads, a group descriptor and an inode
         * table block), and what the map points to is checked anyway (every journal block carries
         * its magic, sequence and, with checksums, its own checksum).
         */
        j->fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
        if (ext2fs_bmap2(j->fs, j->ino, &j->inode, NULL, 0, block, NULL, &physical) != 0)
                physical = 0;
        j->fs->flags = flags;
        return physical < ext2fs_blocks_count(j->fs->super) ? physical : 0;
}

static int read_inode_block(void *userdata, uint64_t block, uint32_t count, void *buf)
{
        struct inode_journal *j = userdata;
        uint8_t *p = buf;

        while (count > 0) {
                blk64_t physical = inode_physical(j, block);
                uint32_t n = 1;

                /* A hole, or a block outside the filesystem: a corrupt map. */
                if (physical == 0)
                        return -EIO;
                while (n < count && inode_physical(j, block + n) == physical + n)
                        n++;
                if (counted_read(&j->dev, physical, n, p) < 0)
                        return -EIO;
                block += n;
                count -= n;
                p += (size_t)n * j->dev.blocksize;
        }
        return 0;
}

/* A journal on a device of its own: journal block n is block n of the device. */
struct device_journal {
        ext2_filsys jfs;
        struct device_reads dev;
};

static int read_device_block(void *userdata, uint64_t block, uint32_t count, void *buf)
{
        struct device_journal *d = userdata;

        return counted_read(&d->dev, block, count, buf);
}

/*
 * The superblock keeps a copy of the journal inode's block map and size
 * (s_jnl_blocks), as e2fsck uses when the inode is damaged. Reading through
 * it saves the reads of a group descriptor and an inode table block.
 */
static bool inode_from_backup(const struct ext2_super_block *sb, struct ext2_inode *ret)
{
        uint16_t magic;

        if (sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS)
                return false;
        *ret = (struct ext2_inode){
                .i_mode = LINUX_S_IFREG | 0600,
                .i_links_count = 1,
                .i_size = sb->s_jnl_blocks[EXT2_N_BLOCKS + 1],
                .i_size_high = sb->s_jnl_blocks[EXT2_N_BLOCKS],
        };
        memcpy(ret->i_block, sb->s_jnl_blocks, sizeof(ret->i_block));
        memcpy(&magic, ret->i_block, sizeof(magic));
        if (ext2fs_le16_to_cpu(magic) == EXT3_EXT_MAGIC)
                ret->i_flags |= EXT4_EXTENTS_FL;
        return EXT2_I_SIZE(ret) > 0;
}

/* Records why the journal cannot be used; returns error. */
static int failed(struct journal_report *r, int error, const char *reason)
{
        r->reason = reason;
        return error;
}

/*
 * mke2fs puts the extent block that maps a large journal (more extents than the inode holds: 1 GiB
 * of 4 KiB blocks) just before the journal's first block: read with it and the blocks the search
 * reads first, in one read where there would be two. A guess, read through the cache: where the
 * journal lies elsewhere, its blocks are read as asked, JBD2_FIRST_READ blocks more read.
 */
static void prefetch_map(struct inode_journal *j)
{
        ext2_extent_handle_t h;
        struct ext2fs_extent e;
        struct ext2_extent_info info;

        if (!(j->inode.i_flags & EXT4_EXTENTS_FL) || ext2fs_extent_open2(j->fs, j->ino, &j->inode, &h) != 0)
                return;
        /* The root, in the inode, read nothing: its first entry names the block that maps block 0. */
        if (ext2fs_extent_get_info(h, &info) == 0 && info.max_depth == 1 &&
                ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e) == 0 && e.e_lblk == 0 &&
                e.e_pblk + 1 + JBD2_FIRST_READ <= ext2fs_blocks_count(j->fs->super)) {
                uint64_t before = log_debug_enabled() ? channel_bytes_read(j->fs->io) : 0;

                iocache_prefetch(j->fs->io, e.e_pblk, 1 + JBD2_FIRST_READ);
                count_read(&j->dev, before);
        }
        ext2fs_extent_free(h);
}

static int walk_inode(ext2_filsys fs, struct inode_journal *j, const struct window *window, unsigned budget,
        struct journal_report *r)
{
        struct jbd2_source src = {
                .read = read_inode_block,
                .userdata = j,
                .sb_block = 0,
                .blocksize = fs->blocksize,
                .max_blocks = EXT2_I_SIZE(&j->inode) / fs->blocksize,
                .fast_commit = ext2fs_has_feature_fast_commit(fs->super),
        };
        int k;

        j->blocks = src.max_blocks;
        j->dev = (struct device_reads){ .io = fs->io, .blocksize = fs->blocksize };
        prefetch_map(j);
        k = jbd2_find_commit(&src, window, budget, &r->jbd2, &r->reason);
        device_reads_done(&j->dev, &r->jbd2, k);
        return k;
}

static int read_inode_journal(
        ext2_filsys fs, const struct window *window, unsigned budget, struct journal_report *r)
{
        struct inode_journal j = { .fs = fs, .ino = fs->super->s_journal_inum };
        int k;

        r->location = JOURNAL_INODE;
        r->inode = j.ino;

        if (inode_from_backup(fs->super, &j.inode)) {
                r->from_backup = true;
                k = walk_inode(fs, &j, window, budget, r);
                /* The copy may be stale (a journal recreated by an old tool): then the inode itself. */
                if (k != -EMEDIUMTYPE && k != -EIO)
                        return k;
                r->from_backup = false;
        }

        if (j.ino == 0 || j.ino > fs->super->s_inodes_count)
                return failed(r, -EUCLEAN, "the superblock names no valid journal inode");
        (void)iocache_descriptor_failed(fs->io);
        if (superblock_inodes_readable(fs) < 0 || ext2fs_read_inode(fs, j.ino, &j.inode) != 0 ||
                iocache_descriptor_failed(fs->io))
                return failed(r, -EIO, "cannot read the journal inode");
        if (!LINUX_S_ISREG(j.inode.i_mode) || EXT2_I_SIZE(&j.inode) == 0)
                return failed(r, -EUCLEAN, "the journal inode is not a journal");
        return walk_inode(fs, &j, window, budget, r);
}

static int read_device_journal(ext2_filsys fs, const struct window *window, unsigned budget, usec_t deadline,
        struct journal_report *r)
{
        char spec[sizeof("UUID=") + 36];
        ext2_filsys jfs = NULL;
        errcode_t e;
        int k;

        r->location = JOURNAL_DEVICE;
        format_uuid(r->uuid, fs->super->s_journal_uuid);
        snprintf(spec, sizeof(spec), "UUID=%s", r->uuid);

        /*
         * By UUID, as e2fsck finds it; else by the device number the superblock
         * remembers. A journal device that is gone (an unplugged disk) must not
         * hold the boot up: wait for it at most JOURNAL_DEVICE_WAIT past now.
         */
        usec_t now = now_monotonic();
        if (deadline > now + JOURNAL_DEVICE_WAIT)
                deadline = now + JOURNAL_DEVICE_WAIT;
        bool by_number = false;
        k = rootdev_resolve(spec, SPEC_TAG, deadline, &r->device);
        if (k == -ENOMEM)
                return k;
        if (k < 0 && fs->super->s_journal_dev != 0) {
                k = devno_to_path((dev_t)fs->super->s_journal_dev, &r->device);
                if (k == -ENOMEM)
                        return k;
                by_number = k == 0;
        }
        if (k < 0)
                return failed(r, -ENODEV, "external journal device not found");

        e = ext2fs_open2(r->device, "", EXT2_FLAG_JOURNAL_DEV_OK | EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_64BITS,
                0, fs->blocksize, unix_io_manager, &jfs);
        if (e != 0)
                return failed(r, -ENODEV, "cannot open the external journal device");
        bool is_journal = ext2fs_has_feature_journal_dev(jfs->super);
        if (!is_journal || memcmp(jfs->super->s_uuid, fs->super->s_journal_uuid, 16) != 0) {
                ext2fs_close_free(&jfs);
                /*
                 * A device number is only where the journal was when the filesystem
                 * last saw it: disks are numbered in the order they appear, so another
                 * device, even another filesystem's journal, may have that number now.
                 * The journal is then not attached (-ENODEV), and nothing is corrupt.
                 */
                if (by_number)
                        return failed(r, -ENODEV,
                                is_journal
                                        ? "the journal's UUID was not found, and the device at its former device "
                                          "number holds another filesystem's journal"
                                        : "the journal's UUID was not found, and the device at its former device "
                                          "number holds no journal");
                return failed(r, -EMEDIUMTYPE, "the device with the journal's UUID holds no journal");
        }

        struct device_journal d = { .jfs = jfs, .dev = { .io = jfs->io, .blocksize = fs->blocksize } };
        struct jbd2_source src = {
                .read = read_device_block,
                .userdata = &d,
                .sb_block = (uint64_t)ext2fs_journal_sb_start((int)fs->blocksize),
                .blocksize = fs->blocksize,
                .max_blocks = ext2fs_blocks_count(jfs->super),
                .fast_commit = ext2fs_has_feature_fast_commit(fs->super),
                .fs_uuid = fs->super->s_uuid,
        };
        k = jbd2_find_commit(&src, window, budget, &r->jbd2, &r->reason);
        device_reads_done(&d.dev, &r->jbd2, k);
        ext2fs_close_free(&jfs);
        return k;
}

int journal_read(struct struct_ext2_filsys *fs, const struct window *window, unsigned budget,
        usec_t deadline, struct journal_report *ret)
{
        static const uint8_t null_uuid[16];
        struct journal_report r = { 0 };
        int k;

        if (!ext2fs_has_feature_journal(fs->super)) {
                *ret = r;
                return 0;
        }
        if (fs->super->s_journal_inum != 0)
                k = read_inode_journal(fs, window, budget, &r);
        else if (memcmp(fs->super->s_journal_uuid, null_uuid, sizeof(null_uuid)) != 0)
                k = read_device_journal(fs, window, budget, deadline, &r);
        else {
                r.location = JOURNAL_INODE;
                k = -EUCLEAN;
                r.reason = "the superblock says there is a journal but names neither inode nor device";
        }
        if (k == -ENOMEM) {
                free(r.device);
                return k;
        }
        r.error = k;
        if (k < 0 && !r.reason)
                r.reason = "cannot read the journal";
        *ret = r;
        return 0;
}

void journal_report_done(struct journal_report *r)
{
        free(r->device);
        r->device = NULL;
}

char *journal_where(const struct journal_report *r, char *buf, size_t size)
{
        switch (r->location) {
        case JOURNAL_INODE:
                snprintf(buf, size, "inode %u%s", r->inode,
                        r->from_backup ? " (by the superblock's copy of its map)" : "");
                break;
        case JOURNAL_DEVICE:
                if (r->device)
                        snprintf(buf, size, "device %s", r->device);
                else
                        snprintf(buf, size, "device UUID=%s", r->uuid);
                break;
        default:
                snprintf(buf, size, "none");
                break;
        }
        return buf;
}
