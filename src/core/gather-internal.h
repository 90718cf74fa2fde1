/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-internal: what gather.c and gather-mounts.c share while they read */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "basic/time-util.h"
#include "core/evidence.h"
#include "disk/stamps.h"

struct gather_config;

/* Where a path is at boot, the symbolic links on the way followed through the mounts. */
struct place {
        size_t device;     /* the device read that holds it, or SIZE_MAX when none does */
        char path[4096];   /* the path on the running system, the links on the way followed */
        const char *inner; /* the same from the root of device (into path, or inner_path) */
        char inner_path[4096];
        int error;          /* 0, or why the links could not be followed (see path_place()) */
        const char *reason; /* for an error: what is wrong (static), or NULL */
};

/*
 * Beside each device: its open filesystem (NULL when the device could not be read), and its device
 * number when it is mounted where it is read for, else 0 (see mounted_at()).
 */
struct open_fs {
        struct struct_ext2_filsys *fs;
        dev_t live;
};

/*
 * What gather keeps while it reads: the filesystems stay open from their superblock to their
 * stamp files and the record, which may be looked up on another one.
 */
struct gather_state {
        const struct gather_config *config;
        struct evidence *ev;
        struct open_fs *open; /* beside ev->devices */
        /* For the root and its mounts: where each stamp file and the record are, once looked up. */
        bool placed_stamps, placed_record;
        struct place stamps_at[_STAMP_MAX], record_at, scratch;
        /* OSTree: the deployment that is / on device deployment_of, and its /var there; else NULL. */
        size_t deployment_of;
        char *deployment, *deployment_var;
};

/*
 * Resolves and reads a spec as a new device entry, mounted at mount_dir at boot (NULL for
 * --device): its superblock and its journal, the filesystem left open for the rest. Returns 1
 * when it was read, 0 when it was recorded as a failure (or was a device already tried), -ENOMEM.
 */
int try_spec(struct gather_state *g, enum origin origin, const char *spec, const char *fstype,
        const char *mount_dir, usec_t deadline);

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

/* Records a root that is not on a local block device (nfs, tmpfs, overlay, rootfs) and moves on. */
int add_skipped(struct gather_state *g, enum origin origin, const char *spec, const char *fstype);
