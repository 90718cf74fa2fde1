/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ntp-probe: what the NTP tests measure in a guest, with nothing of
 * clockfix's own. It never sets the clock.
 *
 *   ntp-probe query ADDRESS   asks the NTP server at ADDRESS (IPv4, port 123)
 *                             for its time a few times, as an SNTP client does
 *                             (RFC 4330), and prints for the exchange with the
 *                             shortest round trip how far the local clock is
 *                             behind the server's ("ntpq_offset=", seconds,
 *                             positive when behind), the round trip
 *                             ("ntpq_delay=") and the local clocks at its middle
 *                             ("ntpq_realtime=", "ntpq_boottime="): the truth,
 *                             the server's clock being the host's
 *   ntp-probe clocks          the local clocks alone ("ntpq_realtime=", ...)
 *   ntp-probe watch           until killed: each step of the clock
 *                             ("watch_step=BOOTTIME,SECONDS": when, by how
 *                             much) and each change of what the kernel says of
 *                             NTP ("watch_kernel=BOOTTIME,MAXERROR_US,STATUS,PLL":
 *                             the status in hex, PLL 1 when STA_PLL is on),
 *                             looked at every 20 ms, as an NTP client leaves it,
 *                             and again just after each step, changed or not
 *                             (ntpsec 1.2.3 sets STA_PLL as it starts, and its
 *                             step leaves the kernel's state as it was)
 *
 * Each output line is "CLOCKFIX-TEST KEY=VALUE", flushed at once. Built with
 * 64-bit times (tests/meson.build), static: the guests' C libraries differ.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

/* Seconds from 1900 (NTP's era 0) to 1970. */
#define NTP_UNIX_OFFSET 2208988800LL
#define TRIES           8
/* A change of the clock against the boot clock larger than this is a step, not noise. */
#define STEP_MIN_NS 1000000

static int64_t clock_ns(clockid_t id)
{
        struct timespec ts;

        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The real time and the boot time at one moment: the boot time between two reads of the real time,
 * the closest of five tries (a preemption between two reads takes milliseconds in emulation). */
static void clock_pair(int64_t *ret_real, int64_t *ret_boot)
{
        int64_t span = INT64_MAX;

        for (int i = 0; i < 5 && span > 100000; i++) {
                int64_t a = clock_ns(CLOCK_REALTIME), b = clock_ns(CLOCK_BOOTTIME),
                        z = clock_ns(CLOCK_REALTIME);
                if (z >= a && z - a < span) {
                        span = z - a;
                        *ret_real = a + span / 2;
                        *ret_boot = b;
                }
        }
        if (span == INT64_MAX) {
                *ret_real = clock_ns(CLOCK_REALTIME);
                *ret_boot = clock_ns(CLOCK_BOOTTIME);
        }
}

/* "KEY=-1.000123": nanoseconds as seconds with microseconds */
static void print_seconds(const char *key, int64_t ns)
{
        int64_t a = ns < 0 ? -ns : ns;

        printf("CLOCKFIX-TEST %s=%s%" PRId64 ".%06" PRId64 "\n", key, ns < 0 ? "-" : "", a / 1000000000,
                a % 1000000000 / 1000);
}

static void print_clocks(int64_t real_ns, int64_t boot_ns)
{
        print_seconds("ntpq_realtime", real_ns);
        print_seconds("ntpq_boottime", boot_ns);
}

/* An NTP timestamp (big-endian seconds since 1900, then a fraction) in ns since 1970, in the era
 * nearest the local clock (era 1 starts in 2036). */
static int64_t ntp_to_ns(const unsigned char *p, int64_t local_ns)
{
        uint32_t sec = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        uint32_t frac = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
        int64_t s = (int64_t)sec - NTP_UNIX_OFFSET;
        int64_t local_s = local_ns / 1000000000;

        while (s < local_s - (1LL << 31))
                s += 1LL << 32;
        return s * 1000000000 + (int64_t)(((uint64_t)frac * 1000000000) >> 32);
}

static int query(const char *address)
{
        struct sockaddr_in server = { .sin_family = AF_INET, .sin_port = htons(123) };
        int64_t best_delay = INT64_MAX, best_offset = 0, best_real = 0, best_boot = 0;
        int fd;

        if (inet_pton(AF_INET, address, &server.sin_addr) != 1) {
                fprintf(stderr, "ntp-probe: %s: not an IPv4 address\n", address);
                return 2;
        }
        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&server, sizeof(server)) < 0)
                return perror("ntp-probe: socket"), 1;
        for (int i = 0; i < TRIES; i++) {
                unsigned char req[48] = { 0x23 }, rep[48]; /* LI 0, version 4, mode 3 (client) */
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int64_t t1 = clock_ns(CLOCK_REALTIME), b1 = clock_ns(CLOCK_BOOTTIME);
                uint32_t sec = htonl((uint32_t)(t1 / 1000000000 + NTP_UNIX_OFFSET)),
                         tag = htonl((uint32_t)i);

                /* The transmit timestamp comes back as the reply's origin: which request it answers. */
                memcpy(req + 40, &sec, 4);
                memcpy(req + 44, &tag, 4);
                if (send(fd, req, sizeof(req), 0) < 0) {
                        perror("ntp-probe: send");
                        sleep(1);
                        continue;
                }
                if (poll(&p, 1, 1000) <= 0 || recv(fd, rep, sizeof(rep), 0) != (ssize_t)sizeof(rep))
                        continue;
                int64_t t4 = clock_ns(CLOCK_REALTIME), b4 = clock_ns(CLOCK_BOOTTIME);
                /* This request's answer, from a server (mode 4) that is synchronised. */
                if (memcmp(rep + 24, req + 40, 8) != 0 || (rep[0] & 7) != 4 || (rep[0] >> 6) == 3 ||
                        rep[1] == 0)
                        continue;
                int64_t t2 = ntp_to_ns(rep + 32, t1), t3 = ntp_to_ns(rep + 40, t1);
                int64_t delay = (t4 - t1) - (t3 - t2);
                if (delay < best_delay) {
                        best_delay = delay;
                        best_offset = ((t2 - t1) + (t3 - t4)) / 2;
                        best_real = t1 + (t4 - t1) / 2;
                        best_boot = b1 + (b4 - b1) / 2;
                }
                usleep(200000);
        }
        close(fd);
        if (best_delay == INT64_MAX) {
                fprintf(stderr, "ntp-probe: no answer from %s\n", address);
                return 1;
        }
        print_seconds("ntpq_offset", best_offset);
        print_seconds("ntpq_delay", best_delay);
        print_clocks(best_real, best_boot);
        return 0;
}

static int watch(void)
{
        struct itimerspec far = { .it_value = { .tv_sec = 0 } };
        int64_t real, boot, base;
        long last_synced = -1, last_status = -1;
        int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);

        if (fd < 0)
                return perror("ntp-probe: timerfd"), 1;
        clock_pair(&real, &boot);
        base = real - boot;
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                struct timex tx = { .modes = 0 };
                uint64_t n;

                /*
                 * Cancelled when anyone sets the clock (a zero step too): re-armed a year away. A step
                 * since the last read fails this call with ECANCELED, the timer set all the same
                 * (timerfd_create(2), NOTES): the clocks below tell the step.
                 */
                far.it_value.tv_sec = clock_ns(CLOCK_REALTIME) / 1000000000 + 366 * 86400;
                if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL) < 0 &&
                        errno != ECANCELED)
                        return perror("ntp-probe: timerfd_settime"), 1;
                (void)poll(&p, 1, 20);
                (void)read(fd, &n, sizeof(n));

                clock_pair(&real, &boot);
                if (real - boot - base > STEP_MIN_NS || base - (real - boot) > STEP_MIN_NS) {
                        printf("CLOCKFIX-TEST watch_step=%" PRId64 ".%06" PRId64 ",", boot / 1000000000,
                                boot % 1000000000 / 1000);
                        int64_t d = real - boot - base, a = d < 0 ? -d : d;
                        printf("%s%" PRId64 ".%06" PRId64 "\n", d < 0 ? "-" : "", a / 1000000000,
                                a % 1000000000 / 1000);
                        base = real - boot;
                        /* What the kernel says at the step: a line even if it is what it said before. */
                        last_status = -1;
                }
                if (adjtimex(&tx) < 0)
                        return perror("ntp-probe: adjtimex"), 1;
                long synced = tx.maxerror < 16000000;
                if (synced != last_synced || tx.status != last_status) {
                        printf("CLOCKFIX-TEST watch_kernel=%" PRId64 ".%06" PRId64 ",%ld,0x%x,%d\n",
                                boot / 1000000000, boot % 1000000000 / 1000, (long)tx.maxerror,
                                (unsigned)tx.status, !!(tx.status & STA_PLL));
                        last_synced = synced;
                        last_status = tx.status;
                }
                fflush(stdout);
        }
}

int main(int argc, char *argv[])
{
        if (argc == 3 && strcmp(argv[1], "query") == 0)
                return query(argv[2]);
        if (argc == 2 && strcmp(argv[1], "clocks") == 0) {
                int64_t r, b;
                clock_pair(&r, &b);
                print_clocks(r, b);
                return 0;
        }
        if (argc == 2 && strcmp(argv[1], "watch") == 0)
                return watch();
        fprintf(stderr, "usage: ntp-probe query ADDRESS | clocks | watch\n");
        return 2;
}
