/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock-steps: prints a line each time CLOCK_REALTIME is set (by anyone: an
 * NTP client, a hypervisor's guest agent), until it is killed. It prints
 * "ready" once it watches. The daemon watches for such steps, and each one
 * wakes it: a test that counts its wake-ups runs this over the same window to
 * tell those apart. Steps closer together than this program runs count as one.
 */

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/*
 * A timer far in the future, which the kernel cancels at every set of the clock: 0, 1 when the clock
 * was set since the last read (the timer set all the same: timerfd_create(2), NOTES), or -1.
 */
static int arm(int fd)
{
        struct itimerspec far = { .it_value = { .tv_sec = INT32_MAX } };

        if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL) == 0)
                return 0;
        return errno == ECANCELED ? 1 : -1;
}

int main(void)
{
        uint64_t n;
        int fd, r;

        setvbuf(stdout, NULL, _IOLBF, 0);
        fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
        if (fd < 0 || arm(fd) < 0) {
                perror("timerfd");
                return 1;
        }
        printf("ready\n");
        for (;;) {
                if (read(fd, &n, sizeof(n)) >= 0 || errno != ECANCELED)
                        continue;
                /* (a step between the read and the arm is another) */
                do {
                        printf("step\n");
                        r = arm(fd);
                } while (r > 0);
                if (r < 0) {
                        perror("timerfd");
                        return 1;
                }
        }
}
