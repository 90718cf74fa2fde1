/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lookup: a file or a symbolic link by its path on an unmounted ext2/3/4 filesystem, within a budget */

#include <errno.h>
#include <limits.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "basic/stat-util.h"
#include "disk/iocache.h"
#include "disk/lookup.h"
#include "disk/superblock.h"

#define TEXT_OF(x)  #x
#define TEXT(x)     TEXT_OF(x)
#define BUDGET_TEXT TEXT(LOOKUP_BUDGET)
/* The links followed on the way to a file, at most: as many as ext2fs_namei() follows. */
#define LOOKUP_MAX_LINKS 8

static int find_inode(ext2_filsys fs, const char *path, ext2_ino_t *ino, struct ext2_inode_large *inode,
        struct file_read *ret);

/* lookup_read_file() without its budget. */
static int read_file(ext2_filsys fs, const char *path, void *buf, size_t size, struct file_read *ret)
{
        struct ext2_inode_large inode = { 0 };
        ext2_file_t file = NULL;
        ext2_ino_t ino = 0;
        unsigned got = 0;
        errcode_t e;
        int r = find_inode(fs, path, &ino, &inode, ret);

        if (r < 0)
                return r;
        if (LINUX_S_ISLNK(inode.i_mode)) {
                ret->reason = NOFOLLOW_REASON;
                return -ELOOP;
        }
        if (!LINUX_S_ISREG(inode.i_mode)) {
                ret->reason = "not a regular file";
                return -EISDIR;
        }
        if (!buf)
                return 0;
        /* Too large: not read at all (no block of it costs a read). */
        if (EXT2_I_SIZE(&inode) > size)
                return -EFBIG;
        e = ext2fs_file_open2(fs, ino, (struct ext2_inode *)&inode, 0, &file);
        if (e == 0)
                e = ext2fs_file_read(file, buf, (unsigned)size, &got);
        if (file)
                ext2fs_file_close(file);
        if (e != 0) {
                ret->reason = "cannot read it";
                return -EIO;
        }
        ret->got = got;
        return 0;
}

/* The target of the symbolic link ino, whose inode is given, into buf (size bytes, NUL-terminated). */
static int read_link_target(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *inode, char *buf,
        size_t size, struct file_read *ret)
{
        uint64_t length = EXT2_I_SIZE(inode);
        ext2_file_t file = NULL;
        unsigned got = 0;
        errcode_t e;

        if (length == 0 || length >= size) {
                ret->reason = "a symbolic link of no target, or one longer than a path";
                return -ENAMETOOLONG;
        }
        if (inode->i_flags & EXT4_ENCRYPT_FL) {
                ret->reason = "an encrypted symbolic link";
                return -EOPNOTSUPP;
        }
        if (ext2fs_is_fast_symlink((struct ext2_inode *)inode)) {
                /* The target is in the inode itself, where the block map would be. */
                if (length > sizeof(inode->i_block))
                        return -EUCLEAN;
                memcpy(buf, inode->i_block, length);
                got = (unsigned)length;
        } else {
                /* In a block, or inline in the inode with inline_data: read as a file's contents. */
                e = ext2fs_file_open2(fs, ino, (struct ext2_inode *)inode, 0, &file);
                if (e == 0)
                        e = ext2fs_file_read(file, buf, (unsigned)length, &got);
                if (file)
                        ext2fs_file_close(file);
                if (e != 0 || got != length) {
                        ret->reason = "cannot read the target of a symbolic link";
                        return -EIO;
                }
        }
        buf[got] = '\0';
        if (strlen(buf) != got) {
                ret->reason = "a symbolic link whose target holds a NUL";
                return -EUCLEAN;
        }
        ret->got = got;
        return 1;
}

/* Reads the inode ino into inode. 0 or -EIO, with ret->reason. */
static int read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *inode, struct file_read *ret)
{
        *inode = (struct ext2_inode_large){ 0 };
        if (ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)inode, sizeof(*inode)) != 0) {
                ret->reason = "cannot read its inode";
                return -EIO;
        }
        return 0;
}

/*
 * The inode at path on fs, from its root, as ext2fs_namei() finds it: the links in the directories
 * on the way followed (absolute ones from this filesystem's root, at most LOOKUP_MAX_LINKS),
 * not one in the last component, as O_NOFOLLOW on the running system. Walked here a name at a time
 * (ext2fs_lookup()) so that each link's target is read by read_link_target(), within its bounds:
 * ext2fs_namei() takes the length of a link's target from its inode whatever its block holds, and
 * reads past its buffer on a corrupt disk. 0 or -errno, with ret->ino and, for an error,
 * ret->reason.
 */
static int find_inode(ext2_filsys fs, const char *path, ext2_ino_t *ino, struct ext2_inode_large *inode,
        struct file_read *ret)
{
        char todo[2 * PATH_MAX], target[PATH_MAX];
        ext2_ino_t dir = EXT2_ROOT_INO;
        unsigned links = 0;
        char *p = todo;

        if (strlen(path) >= sizeof(todo))
                return -ENAMETOOLONG;
        strcpy(todo, path);
        for (;;) {
                struct file_read link = { 0 };
                ext2_ino_t child = 0;
                size_t len, rest;
                errcode_t e;
                int r;

                while (*p == '/')
                        p++;
                len = strcspn(p, "/");
                if (len == 0) { /* the path names a directory: the one reached */
                        ret->ino = *ino = dir;
                        return read_inode(fs, dir, inode, ret);
                }
                e = ext2fs_lookup(fs, dir, p, (int)len, NULL, &child);
                if (e != 0) {
                        r = errcode_to_errno(e);
                        if (r == -EIO)
                                ret->reason = "cannot look it up (corrupt directory?)";
                        return r;
                }
                p += len;
                if (p[strspn(p, "/")] == '\0') { /* the last name: not followed */
                        ret->ino = *ino = child;
                        return read_inode(fs, child, inode, ret);
                }
                r = read_inode(fs, child, inode, ret);
                if (r < 0)
                        return r;
                if (!LINUX_S_ISLNK(inode->i_mode)) {
                        dir = child; /* a directory, or ext2fs_lookup() says it is not one */
                        continue;
                }
                if (++links > LOOKUP_MAX_LINKS) {
                        ret->reason = "too many symbolic links on the way";
                        return -ELOOP;
                }
                r = read_link_target(fs, child, inode, target, sizeof(target), &link);
                if (r < 0) {
                        ret->reason = link.reason;
                        return r;
                }
                /* The target (link.got bytes) in place of the link's name, then the rest of the path. */
                rest = strlen(p);
                if (link.got + rest >= sizeof(todo))
                        return -ENAMETOOLONG;
                memmove(todo + link.got, p, rest + 1);
                memcpy(todo, target, link.got);
                p = todo;
                if (*p == '/')
                        dir = EXT2_ROOT_INO;
        }
}

/* lookup_link_at() without its budget. */
static int link_at(ext2_filsys fs, const char *path, void *buf, size_t size, struct file_read *ret)
{
        struct ext2_inode_large inode = { 0 };
        ext2_ino_t ino = 0;
        int r = find_inode(fs, path, &ino, &inode, ret);

        if (r < 0)
                return r;
        if (!LINUX_S_ISLNK(inode.i_mode))
                return 0;
        return read_link_target(fs, ino, &inode, buf, size, ret);
}

/* Runs a lookup of fs within LOOKUP_BUDGET blocks, as lookup_read_file() says. */
static int budgeted(ext2_filsys fs, const char *path, void *buf, size_t size, struct file_read *ret,
        int (*lookup)(ext2_filsys, const char *, void *, size_t, struct file_read *))
{
        struct file_read result = { 0 };
        int r;

        if (superblock_inodes_readable(fs) < 0) {
                *ret = (struct file_read){ .reason = "the superblock gives no plausible group descriptors" };
                return -EUCLEAN;
        }
        /* Every read of the lookup and of the file within the budget, whatever the disk holds. */
        (void)iocache_descriptor_failed(fs->io);
        iocache_budget(fs->io, LOOKUP_BUDGET);
        r = lookup(fs, path, buf, size, &result);
        result.blocks = iocache_budget_asked(fs->io, &result.budget_spent);
        iocache_budget(fs->io, 0);
        if (iocache_descriptor_failed(fs->io)) {
                /* Whatever the lookup found, it went through a descriptor of zeros. */
                r = -EIO;
                result.reason = "cannot read the group descriptors (a device cut short?)";
        } else if (result.budget_spent) {
                r = -ECANCELED;
                result.reason = "its lookup stopped at its budget of " BUDGET_TEXT
                                " blocks (a corrupt directory or block map? run e2fsck)";
        }
        *ret = result;
        return r;
}

int lookup_read_file(
        struct struct_ext2_filsys *fs, const char *path, void *buf, size_t size, struct file_read *ret)
{
        return budgeted(fs, path, buf, size, ret, read_file);
}

int lookup_link_at(
        struct struct_ext2_filsys *fs, const char *path, char *buf, size_t size, struct file_read *ret)
{
        return budgeted(fs, path, buf, size, ret, link_at);
}
