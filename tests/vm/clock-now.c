/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock-now [FILE]: prints CLOCK_REALTIME in whole seconds since the epoch, or
 * with FILE that file's mtime, for the ARM test guests. busybox's `date +%s`
 * and `stat` cannot stand in: on Debian 12 armhf they have a 32-bit time_t and
 * print 1970, 0 or nothing for times after 2038. Built with
 * -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64 (tests/meson.build):
 * a 64-bit time_t wherever it runs.
 */

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

int main(int argc, char *argv[])
{
        struct timespec ts;
        struct stat st;

        if (argc > 2) {
                fprintf(stderr, "usage: clock-now [FILE]\n");
                return 2;
        }
        if (argc == 2) {
                if (stat(argv[1], &st) < 0)
                        return perror(argv[1]), 1;
                ts = st.st_mtim;
        } else if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
                return perror("clock_gettime"), 1;
        printf("%lld\n", (long long)ts.tv_sec);
        return 0;
}
