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

#include "blockdevs.h"
#include "cleanup.h"
#include "file-util.h"
#include "parttable.h"
#include "stat-util.h"
#include "superblock.h"

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
typedef char *match_fn(const char *dir, bool uuid, const char *value);

/*
 * The partition whose table entry (its disk's MBR or GPT) has this PARTUUID (uuid) or
 * PARTLABEL, without libblkid (see parttable.h), if the block device at dir is one. The disk is
 * read with O_NOATIME (where we may), so that this read does not date its node after 2038.
 */
static char *partition_match(const char *dir, bool uuid, const char *value)
{
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
 * The block device at dir, if nothing is built on it and its ext2/3/4 superblock has this UUID
 * (uuid) or LABEL (read with libext2fs, one read of 1 KiB).
 */
static char *superblock_match(const char *dir, bool uuid, const char *value)
{
        _cleanup_free_ char *node = NULL;
        struct superblock sb;

        if (has_holders(dir))
                return NULL;
        node = sysfs_dir_node(dir);
        if (node && superblock_read(node, &sb, NULL) == 0 && strcmp(uuid ? sb.uuid : sb.label, value) == 0)
                return TAKE_PTR(node);
        return NULL;
}

/* The first block device sysfs lists that match() takes, or NULL. */
static char *find_block_device(match_fn *match, bool uuid, const char *value)
{
        char *found = NULL, dir[PATH_MAX];
        struct dirent *de;
        DIR *d;

        d = opendir("/sys/class/block");
        if (!d)
                return NULL;
        while (!found && (de = readdir(d)))
                if (de->d_name[0] != '.' &&
                        (size_t)snprintf(dir, sizeof(dir), "/sys/class/block/%s", de->d_name) < sizeof(dir))
                        found = match(dir, uuid, value);
        closedir(d);
        return found;
}

char *blockdevs_find_tag(const char *tag, const char *value)
{
        if (strcmp(tag, "PARTUUID") == 0 || strcmp(tag, "PARTLABEL") == 0)
                return find_block_device(partition_match, strcmp(tag, "PARTUUID") == 0, value);
        if (strcmp(tag, "UUID") == 0 || strcmp(tag, "LABEL") == 0)
                return find_block_device(superblock_match, strcmp(tag, "UUID") == 0, value);
        return NULL;
}
