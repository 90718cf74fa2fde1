/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * timesyncd-flag: timesyncd's flag file (/run/systemd/timesync/synchronized, touched at each of its
 * synchronisations): whether it is new since the daemon started, and an inotify watch that wakes
 * the daemon when it appears or is touched, so that no timer has to look for it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>

#include "basic/stat-util.h"

struct timesyncd_flag {
        const char *path;          /* the flag */
        char dir[PATH_MAX];        /* its directory */
        char parent[PATH_MAX];     /* and the directory's */
        struct file_stat at_start; /* the flag as the daemon started ... */
        bool was_there;            /* ... if it was there */
        int fd;                    /* the inotify descriptor, or -1 */
        int wd_dir;                /* the watch of the flag's directory, or -1 ... */
        int wd_parent;             /* ... until it is there, of the directory's parent, or -1 */
};

/*
 * Takes the flag's state at the start, and watches its directory (or, until the directory is made,
 * its parent: timesyncd makes /run/systemd/timesync as it starts). 0, or -errno when there is
 * nothing to watch (no /run/systemd: timesyncd cannot run) or inotify fails: f->fd is -1 then.
 */
int timesyncd_flag_open(struct timesyncd_flag *f, const char *path);

/* After poll() said f->fd is readable: true when the flag may have changed (look at it now). */
bool timesyncd_flag_read(struct timesyncd_flag *f);

/* Whether the flag appeared, or was touched, since the start. */
bool timesyncd_flag_new(const struct timesyncd_flag *f);

void timesyncd_flag_close(struct timesyncd_flag *f);
