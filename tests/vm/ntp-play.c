/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ntp-play SECONDS: plays an NTP client inside a test guest: steps the clock
 * SECONDS forward (or back, negative) as chronyd or timesyncd would on their
 * first answer, then tells the kernel it is synchronised (a small maximum
 * error, STA_UNSYNC cleared), as they do after it. Prints the clock before
 * and after on stdout ("CLOCKFIX-TEST ntp_from=...", "CLOCKFIX-TEST ntp_to=...").
 */

#include <stdio.h>
#include <stdlib.h>
#include <sys/timex.h>
#include <time.h>

int main(int argc, char *argv[])
{
        struct timespec before, after;
        struct timex tx = {
                .modes = ADJ_MAXERROR | ADJ_ESTERROR | ADJ_STATUS,
                .maxerror = 50000, /* µs */
                .esterror = 1000,
                .status = 0, /* STA_UNSYNC cleared */
        };

        if (argc != 2) {
                fprintf(stderr, "usage: ntp-play SECONDS\n");
                return 2;
        }
        if (clock_gettime(CLOCK_REALTIME, &before) < 0)
                return perror("clock_gettime"), 1;
        after = before;
        after.tv_sec += atol(argv[1]);
        if (clock_settime(CLOCK_REALTIME, &after) < 0)
                return perror("clock_settime"), 1;
        if (adjtimex(&tx) < 0)
                return perror("adjtimex"), 1;
        printf("CLOCKFIX-TEST ntp_from=%lld.%09ld\nCLOCKFIX-TEST ntp_to=%lld.%09ld\n",
                (long long)before.tv_sec, before.tv_nsec, (long long)after.tv_sec, after.tv_nsec);
        return 0;
}
