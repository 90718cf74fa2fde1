/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clock: the only code that reads or sets CLOCK_REALTIME or asks the kernel about NTP */
#pragma once

#include "time-util.h"

/* The current CLOCK_REALTIME. */
usec_t clock_now(void);

/*
 * Sets CLOCK_REALTIME to t. Returns 0, -EPERM without CAP_SYS_TIME, -EINVAL
 * for a time the kernel refuses, -EOVERFLOW when time_t cannot hold it.
 */
int clock_set(usec_t t);

/* CLOCK_BOOTTIME: like the monotonic clock, counting suspend too; no one can set it. */
usec_t clock_boottime(void);

/* The kernel's maximum error once nobody disciplines the clock (NTP_PHASE_LIMIT, 16 s), in µs. */
#define NTP_MAXERROR_UNSYNCED 16000000L

/*
 * Whether the kernel considers the clock synchronised by NTP: its maximum
 * error below 16 s, as systemd-timedated decides (adjtimex, read only).
 * 1, 0 or -errno.
 */
int clock_ntp_synchronized(void);

/*
 * A file descriptor that becomes readable when anyone sets the clock
 * (a timerfd with TFD_TIMER_CANCEL_ON_SET): steps made before it was opened
 * are not seen. Returns it, or -errno.
 */
int clock_watch_open(void);

/* After poll: 1 when the clock was set since the last call, else 0 (and watches again); or -errno. */
int clock_watch_read(int fd);
