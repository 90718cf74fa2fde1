/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * handoff-stamp: the daemon's stamp file, kept fresh without wearing the
 * flash: refreshed only when nothing else wrote to its filesystem in the
 * interval, and at stop (docs/design.md §6).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct handoff_stamp {
        const char *path;    /* clockfix's stamp file */
        bool dry_run;        /* say what would be written, write nothing */
        bool have_sd;        /* libsystemd is there: the unit that touches the stamp can be started */
        bool warned_no_dir;  /* the stamp's directory is missing: warned */
        bool said_read_only; /* the stamp's filesystem is read-only for every process: said so */
        bool warned_unit;    /* the unit could not touch the stamp: warned */
        bool unit_useless;   /* the unit ran and did not touch it: not started again */
        bool have_written;   /* written holds the filesystem's write counter at the last look */
        uint64_t written;
};

/* Takes the filesystem's write counter as the baseline: the first interval tells whether anything writes. */
void handoff_stamp_baseline(struct handoff_stamp *k);

/* The save interval passed: refreshes the stamp when nothing else wrote meanwhile, else takes the counter.
 */
void handoff_stamp_interval(struct handoff_stamp *k);

/* At stop: refreshes the stamp (where its directory is there). */
void handoff_stamp_at_stop(struct handoff_stamp *k);

/*
 * Pure: whether to refresh the stamp, given the filesystem's write counter at
 * the last look (have_last: there was one) and now (counter < 0: not known,
 * a filesystem other than ext4: then every time). Only when nothing wrote in between: then no
 * other write records the time; otherwise those writes (and their journal
 * commits) do it already, and ours would only add wear.
 */
bool handoff_save_due(bool have_last, uint64_t last, int counter, uint64_t now);

/*
 * Starts unit (a oneshot in a sandbox of its own) to write path, when the
 * daemon's own sandbox keeps its filesystem read-only, and waits up to 5 s
 * for path's new mtime. Returns 0, or -errno with why in reason; -ETIMEDOUT
 * when the unit ran and did not write it.
 */
int handoff_unit_writes(bool have_sd, const char *unit, const char *path, char *reason, size_t size);
