/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sync-report: the one entry that fleets collect, at NTP's synchronisation: by how much NTP
 * corrected clockfix's estimate, how it said so, what on the disk was in the future; in the
 * journal, or on one line of the log where there is none.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/time-util.h"

struct learn_summary;

/* What `set` did, as the daemon started. */
struct daemon_start {
        const char *source; /* the winning source ("journal:last_commit"), "build", or NULL if none */
        const char *device; /* its device, or NULL */
        bool stepped;       /* clockfix set the clock (else it was already later) */
        bool would_set;     /* --dry-run: it would have set it */
        usec_t before;      /* when it set it: the clock just before */
        usec_t target;      /* the estimate plus the margin: what it set or would set (else realtime) */
        usec_t realtime;    /* the clock right after set ... */
        usec_t boottime;    /* ... and CLOCK_BOOTTIME then (clock_pair()) */
        usec_t floor;       /* the policy's floor: a clock before it is wrong */
};

/*
 * Pure: how far NTP moved the clock since the start: the clock now, minus
 * where it would be had nobody touched it since (start + elapsed boot time).
 * Positive when the estimate was behind the true time.
 */
int64_t sync_correction(const struct daemon_start *s, usec_t realtime, usec_t boottime);

/*
 * Pure: how far clockfix's estimate (s->target) was from the true time,
 * given NTP's correction: positive when it was ahead. When clockfix set the
 * clock that is minus the correction; when the clock was already later, the
 * estimate's own error, not the clock's.
 */
int64_t sync_estimate_error(const struct daemon_start *s, int64_t correction);

/* "journal:last_commit of /dev/vda", or "no disk time": where the estimate came from. */
void sync_describe_source(const struct daemon_start *s, char *buf, size_t size);

/* The synchronisation, as the daemon saw it. */
struct sync_event {
        const char *signal;                 /* its sign: sync_sign_name() */
        usec_t realtime, boottime;          /* the clocks then (clock_pair()) */
        unsigned steps;                     /* NTP's steps of the clock since the start ... */
        usec_t last_step;                   /* ... the last at this boot time */
        const struct learn_summary *future; /* the disk's times in the future, or NULL */
        const char *record_path;            /* where they were recorded */
};

/*
 * Logs the entry: to the journal when have_sd and journald listens, else as one line (the message,
 * then the fields). Puts what systemd's STATUS= should say into status.
 */
void sync_report(const struct daemon_start *s, const struct sync_event *y, bool have_sd, char *status,
        size_t status_size);
