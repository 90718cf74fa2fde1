/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-device: one device found and read: its superblock and its journal, or why it could not be */
#pragma once

#include "core/gather-internal.h"

/*
 * Resolves and reads a spec as a new device entry, mounted at mount_dir at boot (NULL for
 * --device): its superblock and its journal, the filesystem left open for the rest. Returns 1
 * when it was read, 0 when it was recorded as a failure (or was a device already tried), -ENOMEM.
 */
int try_spec(struct gather_state *g, enum origin origin, const char *spec, const char *fstype,
        const char *mount_dir, usec_t deadline);

/* Records a root that is not on a local block device (nfs, tmpfs, overlay, rootfs) and moves on. */
int add_skipped(struct gather_state *g, enum origin origin, const char *spec, const char *fstype);
