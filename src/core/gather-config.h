/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-config: what gather reads (the devices, or the root and its fstab), and how */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/cmdline.h"
#include "basic/time-util.h"
#include "core/decide.h"

struct gather_config {
        char *const *devices; /* --device arguments; when any are given nothing else is searched */
        const char *root;     /* --root: the root device as the initramfs found it, tried before root= */
        size_t n_devices;
        /* The kernel command line, read by the caller, for root=; NULL: root= is not looked for. */
        const struct kernel_cmdline *cmdline;
        const char *mountinfo_path; /* normally /proc/self/mountinfo */
        const char
                *fstab_path; /* normally /etc/fstab: the entry for /, when root= and mountinfo give none */
        /*
         * The table of the filesystems mounted at boot, besides the root, on the running system
         * (--fstab: a copy baked into the initramfs when it was built); NULL: the root's own
         * /etc/fstab, read live when the root is the mounted /, else from its disk.
         */
        const char *mounts_fstab;
        usec_t wait;                 /* how long to wait for a device to appear; 0: do not wait */
        const char *wait_origin;     /* where wait came from, for messages ("--wait"); NULL: "--wait" */
        const struct policy *policy; /* journal commits outside [floor, not_after] are passed over */
        unsigned journal_budget;     /* journal blocks to read at most per device; 0: do not read journals */
        bool no_stamps;              /* do not look for stamp files */
        /*
         * The record of times in the future at the last sync: its path, or NULL not to read it;
         * on_root: on each device's filesystem (read live when it is the mounted /, else through
         * libext2fs), else on the running system.
         */
        const char *record_path;
        bool record_on_root;
        bool record_always; /* look it up even when no time could be passed over for it (status) */
};
