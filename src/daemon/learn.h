/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * learn: once NTP synchronised the clock, the root's times read again; those
 * later than the true time go into the record, so that the next boots do not
 * use them (docs/design.md §10).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/time-util.h"
#include "core/gather.h"

/* The oneshot that runs `clockfix learn` when the daemon's own sandbox keeps / read-only. */
#define LEARN_UNIT "clockfix-learn.service"

struct learn_config {
        const struct gather_config *gather; /* how the sources were found at boot (no wait is taken) */
        const char *record_path;            /* the record on the running system */
        bool on_root;                       /* it is the default, which boots read on the root filesystem */
        usec_t tolerance;                   /* later than the true time by more than this: in the future */
        bool dry_run;                       /* say what would be recorded, write nothing */
        bool have_sd; /* write through LEARN_UNIT when the filesystem is read-only here */
};

/* What was found, for the daemon's structured entry. */
struct learn_summary {
        size_t n_future;   /* times later than the true time on the disk now */
        char sources[512]; /* their source names, space-separated, each once */
        char fix[512];     /* what clears the first of them for good ("run tune2fs -T now /dev/vda") */
};

/*
 * Reads the sources again with the clock at now (the true time), logs each
 * time on the disk that is in the future and what would clear it, and
 * writes the record when something is new to it (nothing is written
 * otherwise). Returns 0, or -errno after logging: the sources could not be
 * gathered, or the record could not be written.
 */
int learn(const struct learn_config *c, usec_t now, struct learn_summary *ret);
