/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clock: the only code that reads or sets CLOCK_REALTIME or asks the kernel about NTP */

/*
 * A 64-bit time_t for this file on 32-bit glibc systems (Debian 12 armhf
 * still has a 32-bit one), so clock_settime() accepts dates after 2038. No
 * time_t leaves this file, so the rest of the program, and libext2fs' ABI,
 * are unaffected.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#ifndef _TIME_BITS
#define _TIME_BITS 64
#endif

#include <errno.h>
#include <stdint.h>
#include <sys/timex.h>
#include <time.h>

#include "clock.h"

usec_t clock_now(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || ts.tv_sec < 0)
                return 0;
        return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / NSEC_PER_USEC;
}

int clock_set(usec_t t)
{
        uint64_t sec = t / USEC_PER_SEC;
        struct timespec ts = {
                .tv_sec = (time_t)sec,
                .tv_nsec = (long)(t % USEC_PER_SEC * NSEC_PER_USEC),
        };

        /* time_t is signed; a 32-bit one (old C libraries) stops in 2038. */
        if (sec > (sizeof(time_t) == 4 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX))
                return -EOVERFLOW;
        if (clock_settime(CLOCK_REALTIME, &ts) < 0)
                return -errno;
        return 0;
}

int clock_ntp_synchronized(void)
{
        struct timex tx = { .modes = 0 }; /* modes 0: read only */

        if (adjtimex(&tx) < 0)
                return -errno;
        if (tx.status & STA_UNSYNC)
                return 0;
        /* The kernel raises maxerror by 500 ppm while nobody disciplines it; 16 s means gave up. */
        return tx.maxerror < 16000000;
}
