/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather: from devices named on the command line or found as root, to candidate times */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "core/evidence.h"
#include "core/gather-config.h"

/*
 * Reads every --device, or else the root filesystem found first through the
 * kernel command line, mountinfo and fstab, in that order: a source that
 * names no local ext2/3/4 device is recorded and the next is tried. Every
 * device tried is recorded in ev->devices, readable or not; the times of the
 * readable ones become ev->candidates: their superblock times, the newest
 * plausible commit of their journal, and their stamp files (each device
 * gathered stands for the root filesystem). A time that the record lists
 * (same filesystem, source and value) and that record_applies() to is
 * marked future_at_sync; the record is looked up only when some time could
 * be (or always with record_always).
 * Returns 0 (even if nothing could be read), or -ENOMEM.
 */
_must_check_ int gather(const struct gather_config *config, struct evidence *ev);
