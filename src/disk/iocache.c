/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* iocache: the I/O manager filesystems are opened with: read-only, each block read from the device once */

#include <stdbool.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "disk/iocache.h"

/*
 * What the cache may hold. The stamp lookups of a real root read about 20
 * blocks (the directories on the way, the blocks of the inode tables that
 * hold their inodes, the group descriptors); the journal's single blocks
 * pass through too, and are the first to go. At least IOCACHE_MIN_BLOCKS
 * whatever the block size (64 KiB blocks: 1 MiB).
 */
#define IOCACHE_BYTES      (256u * 1024u)
#define IOCACHE_MIN_BLOCKS 16u
/*
 * Longer reads go to the device as they are, not kept: the journal's runs of
 * headers, read once each. unix_io_manager draws the same line (4 blocks).
 */
#define IOCACHE_RUN_MAX 4

struct cached_block {
        unsigned long long block;
        unsigned long long used; /* when last used, by the cache's own counter; 0: the slot is free */
        void *buf;
};

struct iocache {
        io_channel device; /* unix_io_manager's channel */
        struct cached_block *slots;
        unsigned n_slots;
        unsigned long long counter;
        unsigned budget; /* the blocks reads may still ask for while one is set (iocache_budget()) */
        unsigned asked;  /* the blocks asked for since, the cache's answers included */
        bool budget_set;
        bool budget_spent;             /* a read was refused for it */
        unsigned long long desc_first; /* the group descriptors' blocks, when contiguous */
        unsigned long long desc_count; /* (iocache_descriptors()), else 0 */
        unsigned long long *descs;     /* else each of them, sorted */
        size_t n_descs;
        bool desc_failed; /* one of them could not be read, and was given as zeros */
};

/* The blocks the cache holds: IOCACHE_BYTES of them, IOCACHE_MIN_BLOCKS at least. */
static unsigned cache_blocks(const struct struct_io_channel *channel)
{
        unsigned n = IOCACHE_BYTES / (unsigned)channel->block_size;

        return n > IOCACHE_MIN_BLOCKS ? n : IOCACHE_MIN_BLOCKS;
}

static void drop_blocks(struct iocache *c)
{
        for (unsigned i = 0; i < c->n_slots; i++)
                ext2fs_free_mem(&c->slots[i].buf);
        ext2fs_free_mem(&c->slots);
        c->n_slots = 0;
}

static errcode_t cache_close(io_channel channel)
{
        struct iocache *c = channel->private_data;
        errcode_t e;

        /* libext2fs may share the channel (io_channel_bumpcount()): the last close frees it. */
        if (--channel->refcount > 0)
                return 0;
        e = io_channel_close(c->device);
        drop_blocks(c);
        ext2fs_free_mem(&c->descs);
        ext2fs_free_mem(&c);
        ext2fs_free_mem(&channel->name);
        ext2fs_free_mem(&channel);
        return e;
}

static errcode_t cache_set_blksize(io_channel channel, int blksize)
{
        struct iocache *c = channel->private_data;
        errcode_t e;

        /* Blocks are numbered in the block size: a new size makes them other blocks. */
        if (blksize != channel->block_size)
                drop_blocks(c);
        e = io_channel_set_blksize(c->device, blksize);
        if (e == 0)
                channel->block_size = blksize;
        return e;
}

static struct cached_block *find_block(struct iocache *c, unsigned long long block)
{
        for (unsigned i = 0; i < c->n_slots; i++)
                if (c->slots[i].used != 0 && c->slots[i].block == block) {
                        c->slots[i].used = ++c->counter;
                        return c->slots + i;
                }
        return NULL;
}

/* Keeps a copy of a block just read, in a free slot or the least recently used one. */
static void keep_block(io_channel channel, unsigned long long block, const void *data)
{
        struct iocache *c = channel->private_data;
        struct cached_block *slot;

        if (c->n_slots == 0) {
                unsigned n = cache_blocks(channel);
                /* Out of memory: the reads go on, uncached. */
                if (ext2fs_get_arrayzero(n, sizeof(*c->slots), &c->slots) != 0)
                        return;
                c->n_slots = n;
        }
        slot = c->slots;
        for (unsigned i = 1; i < c->n_slots; i++)
                if (c->slots[i].used < slot->used)
                        slot = c->slots + i;
        if (!slot->buf && ext2fs_get_mem((unsigned long)channel->block_size, &slot->buf) != 0)
                return;
        memcpy(slot->buf, data, (size_t)channel->block_size);
        slot->block = block;
        slot->used = ++c->counter;
}

static bool is_descriptor(const struct iocache *c, unsigned long long block)
{
        size_t lo = 0, hi = c->n_descs;

        if (c->desc_count > 0)
                return block >= c->desc_first && block - c->desc_first < c->desc_count;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (c->descs[mid] == block)
                        return true;
                if (c->descs[mid] < block)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return false;
}

static errcode_t read_blocks(io_channel channel, unsigned long long block, int count, void *data);

/*
 * libext2fs reads a group descriptor when it first needs it, and uses its buffer whether the read
 * failed or not (a crash: ext2fs_group_desc() returns NULL). A descriptor block that cannot be
 * read (the device cut short, an I/O error, the budget spent) is given as zeros instead, which
 * libext2fs refuses cleanly (EXT2_ET_MISSING_INODE_TABLE), and said: iocache_descriptor_failed().
 */
static errcode_t cache_read_blk64(io_channel channel, unsigned long long block, int count, void *data)
{
        struct iocache *c = channel->private_data;
        errcode_t e = read_blocks(channel, block, count, data);

        if (e != 0 && count == 1 && is_descriptor(c, block)) {
                memset(data, 0, (size_t)channel->block_size);
                c->desc_failed = true;
                return 0;
        }
        return e;
}

static errcode_t read_blocks(io_channel channel, unsigned long long block, int count, void *data)
{
        struct iocache *c = channel->private_data;
        size_t size = (size_t)channel->block_size;
        char *p = data;

        /*
         * The budget counts what is asked, not what reaches the device: a block map that points back
         * at itself is read from the cache alone, as often as it is walked.
         */
        if (c->budget_set) {
                unsigned n = count < 0 ? 1u : (unsigned)count;
                if (c->budget_spent || n > c->budget - c->asked) {
                        c->budget_spent = true;
                        return EXT2_ET_CANCEL_REQUESTED;
                }
                c->asked += n;
        }
        /* A negative count is a number of bytes (the superblock's 1 KiB): read as asked. */
        if (count < 0)
                return io_channel_read_blk64(c->device, block, count, data);
        /* A longer run goes to the device as it is, unless every block of it is kept (prefetched). */
        if (count > IOCACHE_RUN_MAX) {
                for (int i = 0; i < count; i++)
                        if (!find_block(c, block + (unsigned)i))
                                return io_channel_read_blk64(c->device, block, count, data);
        }

        while (count > 0) {
                struct cached_block *b = find_block(c, block);
                int n = 1;

                if (b) {
                        memcpy(p, b->buf, size);
                } else {
                        /* The blocks not kept that follow: one read of the device. */
                        while (n < count && !find_block(c, block + (unsigned)n))
                                n++;
                        errcode_t e = io_channel_read_blk64(c->device, block, n, p);
                        if (e != 0)
                                return e;
                        for (int i = 0; i < n; i++)
                                keep_block(channel, block + (unsigned)i, p + (size_t)i * size);
                }
                block += (unsigned)n;
                count -= n;
                p += (size_t)n * size;
        }
        return 0;
}

static errcode_t cache_read_blk(io_channel channel, unsigned long block, int count, void *data)
{
        return cache_read_blk64(channel, block, count, data);
}

/* clockfix never writes to a filesystem it reads: whatever asks to is refused. */
static errcode_t cache_write_blk(io_channel channel, unsigned long block, int count, const void *data)
{
        (void)channel, (void)block, (void)count, (void)data;
        return EXT2_ET_RO_FILSYS;
}

static errcode_t cache_write_blk64(io_channel channel, unsigned long long block, int count, const void *data)
{
        (void)channel, (void)block, (void)count, (void)data;
        return EXT2_ET_RO_FILSYS;
}

static errcode_t cache_write_byte(io_channel channel, unsigned long offset, int count, const void *data)
{
        (void)channel, (void)offset, (void)count, (void)data;
        return EXT2_ET_RO_FILSYS;
}

static errcode_t cache_flush(io_channel channel)
{
        (void)channel;
        return 0;
}

static errcode_t cache_set_option(io_channel channel, const char *option, const char *arg)
{
        struct iocache *c = channel->private_data;

        return c->device->manager->set_option ? c->device->manager->set_option(c->device, option, arg)
                                              : EXT2_ET_INVALID_ARGUMENT;
}

/* The device's counts: what reached it, below both caches. */
static errcode_t cache_get_stats(io_channel channel, io_stats *ret)
{
        struct iocache *c = channel->private_data;

        return c->device->manager->get_stats ? c->device->manager->get_stats(c->device, ret)
                                             : EXT2_ET_UNIMPLEMENTED;
}

static errcode_t cache_open(const char *name, int flags, io_channel *ret)
{
        io_channel channel = NULL;
        struct iocache *c = NULL;
        errcode_t e;

        if (!name)
                return EXT2_ET_BAD_DEVICE_NAME;
        if (flags & IO_FLAG_RW)
                return EXT2_ET_RO_FILSYS;
        e = ext2fs_get_memzero(sizeof(*channel), &channel);
        if (e == 0)
                e = ext2fs_get_memzero(sizeof(*c), &c);
        if (e == 0)
                e = ext2fs_get_mem(strlen(name) + 1, &channel->name);
        if (e == 0)
                e = unix_io_manager->open(name, flags, &c->device);
        if (e != 0) {
                if (channel)
                        ext2fs_free_mem(&channel->name);
                ext2fs_free_mem(&channel);
                ext2fs_free_mem(&c);
                return e;
        }
        strcpy(channel->name, name);
        channel->magic = EXT2_ET_MAGIC_IO_CHANNEL;
        channel->manager = iocache_io_manager;
        channel->private_data = c;
        channel->block_size = c->device->block_size;
        channel->refcount = 1;
        channel->flags = c->device->flags;
        channel->align = c->device->align;
        *ret = channel;
        return 0;
}

static struct struct_io_manager iocache_manager = {
        .magic = EXT2_ET_MAGIC_IO_MANAGER,
        .name = "clockfix read-only cache over the Unix I/O manager",
        .open = cache_open,
        .close = cache_close,
        .set_blksize = cache_set_blksize,
        .read_blk = cache_read_blk,
        .write_blk = cache_write_blk,
        .flush = cache_flush,
        .write_byte = cache_write_byte,
        .set_option = cache_set_option,
        .get_stats = cache_get_stats,
        .read_blk64 = cache_read_blk64,
        .write_blk64 = cache_write_blk64,
};

struct struct_io_manager *const iocache_io_manager = &iocache_manager;

static struct iocache *iocache_of(io_channel channel)
{
        return channel && channel->manager == iocache_io_manager ? channel->private_data : NULL;
}

void iocache_budget(struct struct_io_channel *channel, unsigned blocks)
{
        struct iocache *c = iocache_of(channel);

        if (!c)
                return;
        c->budget = blocks;
        c->asked = 0;
        c->budget_set = blocks > 0;
        c->budget_spent = false;
}

void iocache_descriptors(struct struct_io_channel *channel, const unsigned long long *blocks, size_t n)
{
        struct iocache *c = iocache_of(channel);

        if (!c)
                return;
        ext2fs_free_mem(&c->descs);
        c->n_descs = 0;
        c->desc_count = 0;
        /* Without meta_bg they follow the superblock, one run: no list to search. */
        if (n > 0 && blocks[n - 1] - blocks[0] == n - 1) {
                c->desc_first = blocks[0];
                c->desc_count = n;
        } else if (n > 0 && ext2fs_get_array(n, sizeof(*blocks), &c->descs) == 0) {
                memcpy(c->descs, blocks, n * sizeof(*blocks));
                c->n_descs = n;
        }
}

bool iocache_descriptor_failed(struct struct_io_channel *channel)
{
        struct iocache *c = iocache_of(channel);
        bool failed = c && c->desc_failed;

        if (c)
                c->desc_failed = false;
        return failed;
}

unsigned iocache_budget_asked(struct struct_io_channel *channel, bool *ret_spent)
{
        struct iocache *c = iocache_of(channel);

        if (ret_spent)
                *ret_spent = c && c->budget_spent;
        return c ? c->asked : 0;
}

void iocache_prefetch(struct struct_io_channel *channel, unsigned long long block, unsigned count)
{
        struct iocache *c = iocache_of(channel);
        void *buf = NULL;

        if (!c || count == 0 || count > cache_blocks(channel) / 2 ||
                ext2fs_get_array(count, (unsigned long)channel->block_size, &buf) != 0)
                return;
        /* A hint: a run that cannot be read is read again as asked, block by block. */
        if (io_channel_read_blk64(c->device, block, (int)count, buf) == 0)
                for (unsigned i = 0; i < count; i++)
                        if (!find_block(c, block + i)) /* kept already: not twice */
                                keep_block(channel, block + i,
                                        (char *)buf + (size_t)i * (size_t)channel->block_size);
        ext2fs_free_mem(&buf);
}
