/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * background: the daemon as an init script without systemd starts it
 * (OpenRC, sysvinit, busybox init): the clock is set, then the daemon goes
 * on in the background with a pid file, and the foreground process exits
 * once the daemon is ready, so that what the script runs next (fsck) finds
 * the clock set; and set at boot, in a child process the foreground waits
 * for within a limit.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>

#include "basic/macro.h"
#include "basic/time-util.h"

/* Where the pid file goes once the daemon is ready (NULL: none). The path must outlive the daemon. */
void background_pid_file(const char *path);

/*
 * With --boot, the most set (and the daemon until it is ready) may take beyond --wait: a device
 * read that never returns (a card that stopped answering: the process then waits in the kernel,
 * where no signal reaches it) must not hold the boot. The budgets of the journal's search and of
 * the file lookups bound everything else: on an SD card at 10 ms a read, some 40 s at the very
 * worst, a few milliseconds on a sane disk.
 */
#define BOOT_LIMIT_EXTRA_USEC (30 * USEC_PER_SEC)

/*
 * Forks before the work that may not end, which the child does: the foreground process waits for
 * it at most limit (USEC_INFINITY: for ever), then kills it. Returns 0 in the child; 1 in the
 * foreground process once the child is done, with *ret_status its exit status (-1 when a
 * signal killed it, or the limit passed, which is logged); or -errno (logged) when it cannot fork.
 * block, when not NULL: the child goes on as the background daemon (a new session, the signals of
 * block blocked until it reads them, its messages still on stderr until it is ready), and the
 * foreground process returns once it is ready (*ret_status 0): background_ready().
 */
_must_check_ int background_fork(const sigset_t *block, usec_t limit, int *ret_status);

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
