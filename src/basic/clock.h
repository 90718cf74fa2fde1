/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clock: the only code that reads or sets CLOCK_REALTIME or asks the kernel about NTP */
#pragma once

#include <stdbool.h>

#include "basic/macro.h"
#include "basic/time-util.h"

/* The current CLOCK_REALTIME. */
usec_t clock_now(void);

/*
 * Sets CLOCK_REALTIME to t. Returns 0, -EPERM without CAP_SYS_TIME, -EINVAL
 * for a time the kernel refuses, -EOVERFLOW when time_t cannot hold it.
 */
_must_check_ int clock_set(usec_t t);

/* CLOCK_BOOTTIME: like the monotonic clock, counting suspend too; no one can set it. */
usec_t clock_boottime(void);

/*
 * CLOCK_REALTIME and CLOCK_BOOTTIME at one moment: read again while the two
 * reads were far apart (the process was preempted in between, which takes
 * milliseconds on a loaded machine), so that their difference moves only when
 * someone sets the clock.
 */
void clock_pair(usec_t *ret_realtime, usec_t *ret_boottime);

/* The kernel's maximum error once nobody disciplines the clock (NTP_PHASE_LIMIT, 16 s), in µs. */
#define NTP_MAXERROR_UNSYNCED 16000000L

/* Whether the kernel says NTP synchronised the clock (ntp_kernel_synchronized()): 1, 0 or -errno. */
int clock_ntp_synchronized(void);

/* What an NTP client left in the kernel's clock state. */
struct ntp_kernel {
        usec_t maxerror; /* the maximum error, µs: below NTP_MAXERROR_UNSYNCED once a client lowered it */
        bool pll;        /* STA_PLL: the kernel's phase-locked loop disciplines the clock for a client */
};

/* Reads it (adjtimex, read only). 0 or -errno. */
int clock_ntp_kernel(struct ntp_kernel *ret);

/*
 * Whether that state says NTP synchronised the clock: a client lowered the maximum error below
 * 16 s, as systemd-timedated decides, or has the kernel's PLL discipline the clock (busybox
 * ntpd never lowers the maximum error; ntpd leaves it at 16 s for minutes after its step).
 */
static inline bool ntp_kernel_synchronized(const struct ntp_kernel *k)
{
        return k->maxerror < NTP_MAXERROR_UNSYNCED || k->pll;
}

/*
 * A file descriptor that becomes readable when anyone sets the clock
 * (a timerfd with TFD_TIMER_CANCEL_ON_SET): steps made before it was opened
 * are not seen. Returns it, or -errno.
 */
int clock_watch_open(void);

/* After poll: 1 when the clock was set since the last call, else 0 (and watches again); or -errno. */
int clock_watch_read(int fd);
