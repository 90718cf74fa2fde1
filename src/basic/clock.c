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
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/clock.h"

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

usec_t clock_boottime(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
                return 0;
        return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / NSEC_PER_USEC;
}

void clock_pair(usec_t *ret_realtime, usec_t *ret_boottime)
{
        usec_t span = USEC_INFINITY, realtime = 0, boottime = 0;

        /*
         * The boot time read between two reads of the real time; tried again while they were more
         * than 100 µs apart (more than the reads themselves take), five times at most, the closest
         * kept.
         */
        for (int i = 0; i < 5 && span > 100; i++) {
                usec_t a = clock_now(), b = clock_boottime(), z = clock_now();
                /* (the clock set in between) */
                if (z < a || z - a >= span)
                        continue;
                span = z - a;
                realtime = a + span / 2;
                boottime = b;
        }
        if (span == USEC_INFINITY) {
                realtime = clock_now();
                boottime = clock_boottime();
        }
        *ret_realtime = realtime;
        *ret_boottime = boottime;
}

int clock_ntp_kernel(struct ntp_kernel *ret)
{
        struct timex tx = { .modes = 0 }; /* modes 0: read only */

        if (adjtimex(&tx) < 0)
                return -errno;
        *ret = (struct ntp_kernel){
                .maxerror = tx.maxerror < 0 ? 0 : (usec_t)tx.maxerror,
                .pll = tx.status & STA_PLL,
        };
        return 0;
}

int clock_ntp_synchronized(void)
{
        struct ntp_kernel k;
        int r = clock_ntp_kernel(&k);

        if (r < 0)
                return r;
        /*
         * The kernel raises maxerror by 500 ppm a second while nobody disciplines the clock, up to
         * 16 s, and sets it to 16 s when the clock is set. An NTP client lowers it. STA_UNSYNC says
         * nothing here: some clients keep it set so that the kernel leaves the RTC alone (chrony
         * without rtcsync), busybox ntpd clears it for the second after each of its updates.
         */
        return ntp_kernel_synchronized(&k);
}

int clock_watch_open(void)
{
        _cleanup_close_ int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
        int r;

        if (fd < 0)
                return -errno;
        r = clock_watch_read(fd);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

int clock_watch_read(int fd)
{
        struct timespec now;
        uint64_t expirations;
        int stepped = 0;

        if (read(fd, &expirations, sizeof(expirations)) < 0) {
                if (errno == ECANCELED)
                        stepped = 1;
                else if (errno != EAGAIN)
                        return -errno;
        }
        /*
         * An absolute expiry a year away, cancelled when anyone sets the clock; should it expire, it is
         * set again (a year fits a 32-bit time_t until 2037; a century would not).
         */
        if (clock_gettime(CLOCK_REALTIME, &now) < 0)
                return -errno;
        struct itimerspec far = { .it_value = { .tv_sec = now.tv_sec + (time_t)366 * 86400 } };
        /*
         * A step between the read and here is told by this call alone: it fails with ECANCELED, and
         * the timer is set all the same (timerfd_create(2), NOTES). Taken for an error, that step was
         * lost, and with it NTP's synchronisation when the step was NTP's.
         */
        if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL) < 0) {
                if (errno != ECANCELED)
                        return -errno;
                stepped = 1;
        }
        return stepped;
}
