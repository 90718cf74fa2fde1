/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rootdev: where the root filesystem is (root= given, mountinfo, fstab) and its device path */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "basic/macro.h"
#include "basic/time-util.h"

/* How a root= value, fstab spec or --device argument names its device. */
enum spec_kind {
        SPEC_PATH,        /* "/dev/mmcblk0p2", "/srv/root.img": used as it is */
        SPEC_KERNEL_NAME, /* "mmcblk0p2", "cciss!c0d0p1": a name under /dev, as old kernels took */
        SPEC_TAG,         /* "UUID=", "PARTUUID=", "LABEL=", "PARTLABEL=" */
        SPEC_DEVNO,       /* "179:2" or the kernel's hexadecimal "b302" */
        SPEC_NETWORK,     /* "/dev/nfs", "nfs:...", "host:/export", "cifs://...": no local device */
        SPEC_UNSUPPORTED, /* anything else ("PARTUUID=.../PARTNROFF=1", "zfs:...", "live:...") */
};

enum spec_kind spec_classify(const char *spec);

/*
 * Finds the filesystem mounted at "/" in a mountinfo file (the last such line:
 * that is the visible one). Returns 1 with its device number, type and source
 * (new strings), 0 if no line mounts "/", or -errno.
 */
int mountinfo_find_root(const char *path, dev_t *ret_devno, char **ret_fstype, char **ret_source);

/*
 * Whether the filesystem of device number devno is mounted read-only for
 * every process (its superblock's flag, the last field of a mountinfo line,
 * which a remount changes in every mount namespace; a mount's own read-only
 * flag, in its options, is that namespace's alone). 1 read-only, 0 writable,
 * -ENOENT if no line of the mountinfo file has devno, or -errno.
 */
int mountinfo_superblock_read_only(const char *path, dev_t devno);

/*
 * Resolves a spec to the path of an existing device. kind is what
 * spec_classify() says, or SPEC_PATH for a path given on purpose (relative
 * or not); SPEC_NETWORK and SPEC_UNSUPPORTED fail. A tag is looked up as udev's /dev/disk/by-* link,
 * else by libblkid's probe of the block devices (with a private cache that is
 * never written); a device number through sysfs, else libblkid. Until the monotonic time
 * deadline (microseconds, 0: no waiting) it polls for a device that has not
 * appeared yet. Returns 0 and a new string, -ENOENT (or -ETIMEDOUT when it
 * waited) if the device is not there, -EPROTONOSUPPORT for a spec that names
 * no local device, or -errno.
 */
_must_check_ int rootdev_resolve(const char *spec, enum spec_kind kind, usec_t deadline, char **ret_path);

/*
 * value encoded as udev names its /dev/disk/by-* links: its safe characters
 * (letters, digits, "#+-.:=@_") and valid UTF-8 as they are, any other byte as
 * \xNN ("my disk" is my\x20disk). 0, or -ENAMETOOLONG if it does not fit.
 */
int udev_encode_name(const char *value, char *buf, size_t size);

/* The device path of a device number: sysfs' name for it in /dev, else libblkid's. 0, -ENODEV, -ENOMEM. */
int devno_to_path(dev_t devno, char **ret_path);
