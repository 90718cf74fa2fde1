/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fs-loops IMAGE MODE PATH: gives the inode at PATH (a directory or a file, looked up without
 * following a link in its last component) of an ext2/3/4 image a test made a block map that
 * points back at itself, as a corruption can, so that walking it never ends in practice:
 *
 *   map      its triple indirect block names itself in every slot, and reads as a directory
 *            block too (its first word, the entry's inode, and its second, the entry's rec_len
 *            and name_len, are that block's number, which is chosen so that the rec_len spans
 *            the block): a walk of the whole map reads it some 10^9 times with 4 KiB blocks,
 *            10^12 with 64 KiB. The inode loses its extents flag; its direct blocks stay.
 *   extents  an extent tree 4 levels deep whose every index names the same block below, down to
 *            a leaf whose extents all name one empty directory block: 4 * 340^2 leaves to walk
 *            with 4 KiB blocks (libext2fs passes over a leaf whose blocks it walked already),
 *            4 * 5460^2 with 64 KiB.
 *
 * The filesystem must not have metadata_csum (its blocks would fail their checksums before
 * anything loops). Nothing else of the image changes; its block bitmap says the new blocks are
 * in use. Exit 0, or 1 with a message. A helper of the tests, built for the machine that runs them.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fs-loops writes blocks as they are in memory: little-endian machines only"
#endif

static int fail(const char *what, errcode_t e)
{
        fprintf(stderr, "fs-loops: %s: %s\n", what, e ? error_message(e) : "failed");
        return 1;
}

/* A block not in use: marked used, and returned in *ret. */
static errcode_t take_block(ext2_filsys fs, blk64_t *ret)
{
        errcode_t e = ext2fs_new_block2(fs, 0, NULL, ret);

        if (e == 0)
                ext2fs_block_alloc_stats2(fs, *ret, +1);
        return e;
}

/* Whether block b is one that "map" wrote: every word its own number. */
static bool is_map_block(ext2_filsys fs, blk64_t b, uint32_t *words)
{
        if (io_channel_read_blk64(fs->io, b, 1, words) != 0)
                return false;
        for (unsigned i = 0; i < fs->blocksize / 4; i++)
                if (words[i] != (uint32_t)b)
                        return false;
        return true;
}

/*
 * The block for "map": free (or one that "map" wrote already, which serves again), below the
 * filesystem's end, and such that its number, as the second word of a directory entry, is a
 * rec_len of the whole block (the low 16 bits; 65535 or 0 stand for 65536) and a name_len (the
 * next 8) that fits in it. words: a block's room.
 */
static errcode_t map_block(ext2_filsys fs, uint32_t *words, blk64_t *ret)
{
        unsigned size = fs->blocksize;

        for (blk64_t k = 0; k < 256; k++) {
                blk64_t b = size < 65536 ? size + (k << 16) : (k == 0 ? 65535 : k << 16);
                if (b >= ext2fs_blocks_count(fs->super))
                        break;
                if (k + 8 > size)
                        continue;
                if (!ext2fs_test_block_bitmap2(fs->block_map, b)) {
                        ext2fs_block_alloc_stats2(fs, b, +1);
                        *ret = b;
                        return 0;
                }
                if (is_map_block(fs, b, words)) {
                        *ret = b;
                        return 0;
                }
        }
        return EXT2_ET_BLOCK_ALLOC_FAIL;
}

static int loop_map(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode)
{
        uint32_t *words;
        blk64_t b;
        errcode_t e;

        e = ext2fs_get_mem(fs->blocksize, &words);
        if (e)
                return fail("memory", e);
        e = map_block(fs, words, &b);
        if (e) {
                ext2fs_free_mem(&words);
                return fail("no block whose number reads as a directory entry (make the image larger)", e);
        }
        for (unsigned i = 0; i < fs->blocksize / 4; i++)
                words[i] = (uint32_t)b;
        e = io_channel_write_blk64(fs->io, b, 1, words);
        ext2fs_free_mem(&words);
        if (e)
                return fail("writing the block", e);
        /* Of an extent-mapped inode, its first block as the only direct one. */
        if (inode->i_flags & EXT4_EXTENTS_FL) {
                blk64_t first = 0;
                e = ext2fs_bmap2(fs, ino, inode, NULL, 0, 0, NULL, &first);
                if (e)
                        return fail("its first block", e);
                memset(inode->i_block, 0, sizeof(inode->i_block));
                inode->i_block[0] = (uint32_t)first;
                inode->i_flags &= ~EXT4_EXTENTS_FL;
        }
        inode->i_block[EXT2_TIND_BLOCK] = (uint32_t)b;
        e = ext2fs_write_inode(fs, ino, inode);
        return e ? fail("writing the inode", e) : 0;
}

/* An extent header at p: entries of max, at depth. */
static void header(void *p, unsigned entries, unsigned max, unsigned depth)
{
        struct ext3_extent_header *h = p;

        *h = (struct ext3_extent_header){
                .eh_magic = EXT3_EXT_MAGIC, .eh_entries = entries, .eh_max = max, .eh_depth = depth
        };
}

/* n index entries after the header at p, all naming block child. */
static void indexes(void *p, unsigned n, blk64_t child)
{
        struct ext3_extent_idx *ix = (struct ext3_extent_idx *)((struct ext3_extent_header *)p + 1);

        for (unsigned i = 0; i < n; i++)
                ix[i] = (struct ext3_extent_idx){
                        .ei_block = i, .ei_leaf = (uint32_t)child, .ei_leaf_hi = (uint16_t)(child >> 32)
                };
}

static int loop_extents(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode)
{
        enum { DEPTH = 4 };
        unsigned max = (fs->blocksize - sizeof(struct ext3_extent_header)) / sizeof(struct ext3_extent);
        blk64_t level[DEPTH + 1]; /* level[0] .. [DEPTH - 1]: the tree's blocks, top first; [DEPTH]: data */
        struct ext2_dir_entry *dirent;
        struct ext3_extent *ex;
        char *buf;
        errcode_t e;

        if (!ext2fs_has_feature_extents(fs->super))
                return fail("the filesystem has no extents feature", 0);
        for (int i = 0; i <= DEPTH; i++)
                if ((e = take_block(fs, level + i)))
                        return fail("no free block", e);
        e = ext2fs_get_memzero(fs->blocksize, &buf);
        if (e)
                return fail("memory", e);
        /* The data block: an empty directory block, one unused entry across it. */
        dirent = (struct ext2_dir_entry *)buf;
        ext2fs_set_rec_len(fs, fs->blocksize, dirent);
        e = io_channel_write_blk64(fs->io, level[DEPTH], 1, buf);
        /* The leaf: every extent one block long, at that block. */
        memset(buf, 0, fs->blocksize);
        header(buf, max, max, 0);
        ex = (struct ext3_extent *)((struct ext3_extent_header *)buf + 1);
        for (unsigned i = 0; i < max; i++)
                ex[i] = (struct ext3_extent){
                        .ee_block = i, .ee_len = 1, .ee_start = (uint32_t)level[DEPTH]
                };
        if (e == 0)
                e = io_channel_write_blk64(fs->io, level[DEPTH - 1], 1, buf);
        /* Each index block above: full, every entry naming the block below. */
        for (int i = DEPTH - 2; i >= 0 && e == 0; i--) {
                memset(buf, 0, fs->blocksize);
                header(buf, max, max, (unsigned)(DEPTH - 1 - i));
                indexes(buf, max, level[i + 1]);
                e = io_channel_write_blk64(fs->io, level[i], 1, buf);
        }
        ext2fs_free_mem(&buf);
        if (e)
                return fail("writing the tree", e);
        /* The inode's own node: its 4 entries, all naming the top block. */
        memset(inode->i_block, 0, sizeof(inode->i_block));
        header(inode->i_block, 4, 4, DEPTH);
        indexes(inode->i_block, 4, level[0]);
        inode->i_flags |= EXT4_EXTENTS_FL;
        e = ext2fs_write_inode(fs, ino, inode);
        return e ? fail("writing the inode", e) : 0;
}

int main(int argc, char *argv[])
{
        struct ext2_inode inode;
        ext2_filsys fs;
        ext2_ino_t ino;
        errcode_t e;
        int r;

        if (argc != 4 || (strcmp(argv[2], "map") != 0 && strcmp(argv[2], "extents") != 0)) {
                fprintf(stderr, "usage: fs-loops IMAGE map|extents PATH\n");
                return 2;
        }
        initialize_ext2_error_table();
        e = ext2fs_open(argv[1], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
        if (e)
                return fail(argv[1], e);
        if (ext2fs_has_feature_metadata_csum(fs->super)) {
                ext2fs_close_free(&fs);
                return fail("the filesystem has metadata_csum", 0);
        }
        e = ext2fs_read_bitmaps(fs);
        if (e == 0)
                e = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, argv[3], &ino);
        if (e == 0)
                e = ext2fs_read_inode(fs, ino, &inode);
        if (e) {
                ext2fs_close_free(&fs);
                return fail(argv[3], e);
        }
        r = strcmp(argv[2], "map") == 0 ? loop_map(fs, ino, &inode) : loop_extents(fs, ino, &inode);
        e = ext2fs_close_free(&fs);
        return r ? r : e ? fail("closing", e) : 0;
}
