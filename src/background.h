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
 * Forks. Returns 0 in the background daemon (a new session, SIGTERM and
 * SIGINT blocked until it reads them, its messages still on stderr until it is
 * ready); 1 in the foreground process, once the daemon is ready (*ret_status
 * 0) or gone before that (*ret_status its exit status, or -1 when a signal
 * killed it); or -errno (logged) when it cannot fork.
 */
int background_fork(int *ret_status);

/*
 * The daemon is ready (its signals handled), or error (-errno) says it cannot
 * go on. When ready: writes the pid file; in the background, moves the
 * standard streams to /dev/null, the messages to syslog, and lets the
 * foreground process exit. Returns 0, or -errno (logged: on the console still,
 * in the background) when the daemon must exit: error, or a pid file it
 * cannot write (an init script could neither stop nor tell it).
 */
int background_ready(int error);

/* The daemon stops: removes the pid file, if it holds this process' pid. */
void background_done(void);
