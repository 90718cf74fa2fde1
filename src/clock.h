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

/*
 * Whether the kernel considers the clock synchronised by NTP: STA_UNSYNC clear
 * and the maximum error below 16 s, as systemd-timedated decides. 1, 0 or -errno.
 */
int clock_ntp_synchronized(void);
