/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gather-mounts: which filesystems are read (the root, found by --root, root=, mountinfo or fstab,
 * and the local ext filesystems of its fstab), and which of them holds a path
 */
#pragma once

#include "core/gather-internal.h"

/*
 * The device that holds path at boot, as seen from device self, and in inner (size bytes) the path
 * on it from its own root: for a device of --device, itself; else the device of the longest mount
 * directory that holds path (on an OSTree root read from its disk, in the deployment, or the
 * stateroot's /var). SIZE_MAX when that device could not be read: a /var that could not
 * be read is not looked for on the root, where its mount point is an empty directory.
 */
size_t path_holder(const struct gather_state *g, size_t self, const char *path, char *inner, size_t size);

/*
 * Where path is at boot, as seen from device self: for a device of --device, on itself, as it
 * is (libext2fs follows the links within it); else each name of the path in turn on the device
 * that holds it (path_holder()), a symbolic link among them followed wherever it leads, even to
 * another filesystem read, the last name included: what is at the end is then looked up there,
 * never opened to tell. At most PLACE_MAX_LINKS links. 0 (ret->device SIZE_MAX when no device
 * read holds it), or -errno: -ELOOP, -ENAMETOOLONG, -EIO and the disk's other errors.
 */
int path_place(const struct gather_state *g, size_t self, const char *path, struct place *ret);

/*
 * Whether device d is never written at boot: mounted read-only now, or not mounted yet, and
 * configured so (configured_ro); for --device, mounted read-only now.
 */
bool never_written(const struct gather_config *config, const struct device_report *d, bool configured_ro);

/*
 * The other local ext2/3/4 filesystems of the root's fstab (device root), each found and read as
 * the root is; one with nofail is not waited for, as the boot does not wait for it. 0 or -ENOMEM.
 */
int gather_mounts(struct gather_state *g, size_t root, usec_t deadline);

/*
 * Tries --root, root=, then mountinfo, then fstab, until one device is read: *ret_root is its
 * index in ev->devices, or SIZE_MAX when none could be. 0 or -ENOMEM.
 */
int gather_root(struct gather_state *g, usec_t deadline, size_t *ret_root);
