/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blockdevs: the kernel's block devices through sysfs: a device number's node
 * under /dev, and a search of them for a tag by their partition tables and ext
 * superblocks, without libblkid. Where libblkid has a 32-bit time_t (Debian 12
 * armhf) its every probe stat()s or fstat()s the device node, which fails with
 * EOVERFLOW once any of the node's times is after 2038.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Whether path is the block device devno (statx(): any time). */
bool blockdev_is(const char *path, dev_t devno);

/*
 * The node sysfs names for devno ("DEVNAME=mmcblk0p2" under /dev, where
 * devtmpfs puts it), if that block device is there. A new path, else NULL.
 */
char *blockdev_node(dev_t devno);

/*
 * The device with this tag among the block devices sysfs lists: PARTUUID= and
 * PARTLABEL= by the entry of each partition in its disk's MBR or GPT
 * (parttable.h), UUID= and LABEL= by the ext2/3/4 superblock of each device that
 * nothing is built on (an md member or a dm table's device is passed over for
 * the array or mapping). value as rootdev gives it (a PARTUUID in lower case).
 * Devices that a probe could stall or upset (CD and floppy drives, RPMB areas) and
 * empty ones are not opened. A new path, or NULL if none has it (a filesystem of
 * another type, an external journal, a partition table of another kind:
 * libblkid's to find) or more than one does (a card copied to another disk).
 */
char *blockdevs_find_tag(const char *tag, const char *value);
