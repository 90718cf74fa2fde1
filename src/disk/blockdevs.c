/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blockdevs: the kernel's block devices through sysfs, and a search of them for a tag (see blockdevs.h) */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/file-util.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "disk/blockdevs.h"
#include "disk/parttable.h"
#include "disk/superblock.h"

bool blockdev_is(const char *path, dev_t devno)
{
        struct file_stat st;

        return file_stat(path, &st) == 0 && S_ISBLK(st.mode) && st.rdev == devno;
}

/*
 * The kernel names each device in sysfs ("DEVNAME=mmcblk0p2"), and devtmpfs
 * puts it at that name under /dev: a file read, where libblkid would be loaded
 * to do the same and then scan /dev when that fails. The path if that block
 * device is there, else NULL.
 */
char *blockdev_node(dev_t devno)
{
        _cleanup_free_ char *uevent = NULL;
        const char *name;
        char sys[64], *p;

        snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/uevent", major(devno), minor(devno));
        if (read_small_file(sys, &uevent) < 0)
                return NULL;
        name = strstr(uevent, "DEVNAME=");
        if (!name || (name != uevent && name[-1] != '\n'))
                return NULL;
        if (asprintf(&p, "/dev/%.*s", (int)strcspn(name + 8, "\n"), name + 8) < 0)
                return NULL;
        if (!blockdev_is(p, devno)) {
                free(p);
                return NULL;
        }
        return p;
}

/* A number in the sysfs file dir/name ("2048\n"); false if there is none. */
static bool sysfs_number(const char *dir, const char *name, uint64_t *ret)
{
        _cleanup_free_ char *text = NULL;
        char path[PATH_MAX], *end;

        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path) ||
                read_small_file(path, &text) < 0 || !isdigit((unsigned char)text[0]))
                return false;
        errno = 0;
        *ret = strtoull(text, &end, 10);
        return errno == 0 && (*end == '\n' || *end == '\0');
}

/* The node of the block device whose sysfs directory is dir (its "dev" file: "MAJ:MIN"), or NULL. */
static char *sysfs_dir_node(const char *dir)
{
        _cleanup_free_ char *text = NULL;
        char path[PATH_MAX];
        unsigned maj, min;

        if ((size_t)snprintf(path, sizeof(path), "%s/dev", dir) >= sizeof(path) ||
                read_small_file(path, &text) < 0 || sscanf(text, "%u:%u", &maj, &min) != 2)
                return NULL;
        return blockdev_node(makedev(maj, min));
}

static int disk_read(void *userdata, uint64_t offset, void *buf, size_t size)
{
        ssize_t n = pread(*(int *)userdata, buf, size, (off_t)offset);

        if (n < 0)
                return -errno;
        return (size_t)n == size ? 0 : -EIO;
}

/* What a block device is asked for: its node when its tag (PARTUUID or the other) has value, else NULL. */
typedef char *match_fn(const char *dir, const char *tag, const char *value);

/*
 * The partition whose table entry (its disk's MBR or GPT) has this PARTUUID or PARTLABEL (tag), without
 * libblkid (see parttable.h), if the block device at dir is one. The disk is read with O_NOATIME (where we
 * may), so that this read does not date its node after 2038.
 */
static char *partition_match(const char *dir, const char *tag, const char *value)
{
        bool uuid = strcmp(tag, "PARTUUID") == 0;
        struct parttable_kernel k = { 0 };
        struct parttable_entry e;
        char parent[PATH_MAX + 3];
        uint64_t partno, lbs;
        _cleanup_free_ char *disk = NULL;
        _cleanup_close_ int fd = -1;

        snprintf(parent, sizeof(parent), "%s/..", dir);
        if (!sysfs_number(dir, "partition", &partno) || partno > UINT_MAX ||
                !sysfs_number(dir, "start", &k.start) || !sysfs_number(dir, "size", &k.size) ||
                !sysfs_number(parent, "queue/logical_block_size", &lbs) || lbs > 4096)
                return NULL;
        k.partno = (unsigned)partno;
        k.sector_size = (unsigned)lbs;
        disk = sysfs_dir_node(parent);
        if (!disk)
                return NULL;
        fd = open(disk, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOATIME);
        if (fd < 0 && errno == EPERM) /* O_NOATIME needs the node's owner or CAP_FOWNER */
                fd = open(disk, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 || parttable_lookup(disk_read, &fd, &k, &e) <= 0)
                return NULL;
        return strcmp(uuid ? e.uuid : e.name, value) == 0 ? sysfs_dir_node(dir) : NULL;
}

/* Whether other block devices are built on the one at dir (its holders: an md array, a dm table). */
static bool has_holders(const char *dir)
{
        char path[PATH_MAX];
        struct dirent *de;
        bool any = false;
        DIR *d;

        if ((size_t)snprintf(path, sizeof(path), "%s/holders", dir) >= sizeof(path))
                return false;
        d = opendir(path);
        if (!d)
                return false;
        while (!any && (de = readdir(d)))
                any = de->d_name[0] != '.';
        closedir(d);
        return any;
}

/*
 * Whether the block device at dir may be probed for a superblock at boot: none of what udev's
 * rules pass over (a CD or DVD drive, whose open closes the tray or spins the disc up; a floppy
 * drive, which fills the log with errors; an eMMC's RPMB area, which older kernels list as a block
 * device and fail every read of), nothing empty (a loop device not set up, a card reader without
 * its card) and nothing built on (an md member, a dm table's device: the array or the mapping
 * has the filesystem).
 */
static bool may_probe(const char *dir)
{
        const char *name = strrchr(dir, '/') + 1;
        size_t len = strlen(name);
        uint64_t size;

        if (strncmp(name, "sr", 2) == 0 || strncmp(name, "fd", 2) == 0 ||
                (len >= 4 && strcmp(name + len - 4, "rpmb") == 0))
                return false;
        return sysfs_number(dir, "size", &size) && size > 0 && !has_holders(dir);
}

/* The ext2/3/4 magic number at byte 1080 of node: read without waiting and, where we may, without
 * moving the node's access time (see partition_match()). */
static bool has_ext_magic(const char *node)
{
        _cleanup_close_ int fd = -1;
        uint8_t magic[2];

        fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOATIME);
        if (fd < 0 && errno == EPERM)
                fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        return fd >= 0 && pread(fd, magic, sizeof(magic), 1080) == (ssize_t)sizeof(magic) &&
                magic[0] == 0x53 && magic[1] == 0xef;
}

/*
 * The block device at dir, if it may be probed, holds an ext2/3/4 superblock (its magic first,
 * one read of 2 bytes), and the superblock (read with libext2fs) has this UUID or LABEL (tag).
 */
static char *superblock_match(const char *dir, const char *tag, const char *value)
{
        bool uuid = strcmp(tag, "UUID") == 0;
        _cleanup_free_ char *node = NULL;
        struct superblock sb;

        if (!may_probe(dir))
                return NULL;
        node = sysfs_dir_node(dir);
        if (node && has_ext_magic(node) && superblock_read(node, &sb, NULL) == 0 &&
                strcmp(uuid ? sb.uuid : sb.label, value) == 0)
                return TAKE_PTR(node);
        return NULL;
}

/*
 * The one block device sysfs lists that match() takes, or NULL: none, or more than one (a card
 * copied to a USB stick has the same PARTUUID and UUID: which is the root is not known here).
 */
static char *find_block_device(match_fn *match, const char *tag, const char *value)
{
        char *found = NULL, dir[PATH_MAX];
        struct dirent *de;
        DIR *d;

        d = opendir("/sys/class/block");
        if (!d)
                return NULL;
        while ((de = readdir(d))) {
                char *node;

                if (de->d_name[0] == '.' ||
                        (size_t)snprintf(dir, sizeof(dir), "/sys/class/block/%s", de->d_name) >=
                                sizeof(dir) ||
                        !(node = match(dir, tag, value)))
                        continue;
                if (found) {
                        log_debug("%s=%s: on %s and %s at least: left to libblkid", tag, value, found, node);
                        free(node);
                        free(found);
                        found = NULL;
                        break;
                }
                found = node;
        }
        closedir(d);
        return found;
}

char *blockdevs_find_tag(const char *tag, const char *value)
{
        if (strcmp(tag, "PARTUUID") == 0 || strcmp(tag, "PARTLABEL") == 0)
                return find_block_device(partition_match, tag, value);
        if (strcmp(tag, "UUID") == 0 || strcmp(tag, "LABEL") == 0)
                return find_block_device(superblock_match, tag, value);
        return NULL;
}
