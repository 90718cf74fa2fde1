/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blk: the three libblkid calls clockfix makes (a tag to a device, a device
 * number to a path, the type of a filesystem that is not ext), for the cases
 * the kernel, udev and the disks' own bytes cannot answer (see rootdev.c). A
 * dynamic build loads libblkid on first use (blk.c): linked, it would cost
 * every run time and memory for a library most boots never call
 * (docs/performance.md). A static binary links it in, or goes without
 * (-Dblkid=disabled: blk-none.c).
 */
#pragma once

#include <sys/types.h>

/* NULL when libblkid is there (loading it if need be), else why not, for people. */
const char *blk_unavailable(void);

/* blkid_evaluate_tag() with a private cache that is never written. A new path, NULL if not found. */
char *blk_evaluate_tag(const char *tag, const char *value);

/* blkid_devno_to_devname(). A new path, NULL if there is none. */
char *blk_devno_to_devname(dev_t devno);

/*
 * The filesystem (or partition table) type libblkid finds on path, for
 * messages. 1 with a new string, 0 if none or if libblkid is not available,
 * or -errno.
 */
int blk_probe_type(const char *path, char **ret_type);
