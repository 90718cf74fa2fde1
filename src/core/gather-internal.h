/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-internal: the state gather, gather-mounts and gather-device share while they read */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "basic/time-util.h"
#include "core/evidence.h"
#include "core/gather-config.h"
#include "disk/stamps.h"

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
