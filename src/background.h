/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * background: the daemon as an init script without systemd starts it
 * (OpenRC, sysvinit, busybox init): the clock is set in the foreground, so
 * that what the script runs next (fsck) finds it set, then the daemon goes
 * on in the background with a pid file, and the foreground process exits
 * once the daemon is ready.
 */
#pragma once

/* Where the pid file goes once the daemon is ready (NULL: none). The path must outlive the daemon. */
void background_pid_file(const char *path);

/*
 * Forks. Returns 0 in the background daemon (a new session, its standard
 * streams on /dev/null, its messages to syslog); 1 in the foreground
 * process, once the daemon is ready (*ret_status 0) or gone before that
 * (*ret_status its exit status, or -1 when a signal killed it); or -errno
 * (logged) when it cannot fork.
 */
int background_fork(int *ret_status);

/*
 * The daemon is ready (its signals handled): writes the pid file and lets the
 * foreground process exit. Only the first call does anything.
 */
void background_ready(void);

/* The daemon stops: removes the pid file, if this process wrote it. */
void background_done(void);
