/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* handoff: the daemon after the clock is set, until NTP has it */

#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "clock.h"
#include "handoff-stamp.h"
#include "handoff.h"
#include "log.h"
#include "route.h"
#include "sd.h"
#include "stat-util.h"

/* The journal's message id of "NTP synchronised the clock; this is how far off the estimate was". */
#define MESSAGE_ID_SYNCHRONIZED "56e30c5a17be4318aa6b9584b7e12d7e"

/* Where journald takes structured entries. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* Sync is looked for at least this often, backing off from the first to the last. */
#define CHECK_FIRST (1 * USEC_PER_SEC)
#define CHECK_MAX   (32 * USEC_PER_SEC)

int64_t handoff_correction(const struct handoff_start *s, usec_t realtime, usec_t boottime)
{
        /* Where the clock would be had nobody stepped it: the start plus the boot time since. */
        usec_t expected = s->realtime + (boottime >= s->boottime ? boottime - s->boottime : 0);

        return realtime >= expected ? (int64_t)(realtime - expected) : -(int64_t)(expected - realtime);
}

int64_t handoff_estimate_error(const struct handoff_start *s, int64_t correction)
{
        /* The clock was set to the estimate: the clock's error was the estimate's. */
        if (s->stepped)
                return -correction;
        /* The estimate was target when the clock read realtime; the truth then: realtime + correction. */
        int64_t ahead = s->target >= s->realtime ? (int64_t)(s->target - s->realtime)
                                                 : -(int64_t)(s->realtime - s->target);
        return ahead - correction;
}

/* "+3600.25 s", "-0.000120 s": microseconds, signed, without trailing zeros. */
static char *format_signed(char buf[static SECONDS_MAX + 1], int64_t us)
{
        char s[SECONDS_MAX];

        snprintf(buf, SECONDS_MAX + 1, "%c%s", us < 0 ? '-' : '+',
                format_seconds(s, us < 0 ? (usec_t)(-(us + 1)) + 1 : (usec_t)us));
        return buf;
}

struct daemon {
        const struct handoff_config *c;
        const struct handoff_start *s;
        bool have_sd;
        bool network_up;
        bool synchronized;
        bool gave_up;     /* --timeout passed without synchronisation */
        bool ntp_pending; /* the NTP unit is to be started again */
        unsigned ntp_tries;
        struct file_stat flag_at_start; /* of timesyncd's flag, if it was there */
        bool flag_was_there;
        struct handoff_stamp stamp;
};

static void notify(struct daemon *d, const char *state)
{
        (void)d;
        (void)sd_notify_state(state);
}

static void notify_status(struct daemon *d, const char *status)
{
        char state[800];

        snprintf(state, sizeof(state), "STATUS=%s", status);
        notify(d, state);
}

/* "journal:last_commit of /dev/vda", or what stood for it */
static void describe_source(const struct handoff_start *s, char *buf, size_t size)
{
        if (!s->source)
                snprintf(buf, size, "no disk time");
        else if (s->device)
                snprintf(buf, size, "%s of %s", s->source, s->device);
        else
                snprintf(buf, size, "%s", s->source);
}

/* Whether timesyncd's flag file appeared, or was touched, since the daemon started. */
static bool timesync_flag_new(const struct daemon *d)
{
        struct file_stat st;

        if (file_stat(d->c->timesync_flag, &st) < 0)
                return false;
        return !d->flag_was_there || st.ctime.tv_sec != d->flag_at_start.ctime.tv_sec ||
                st.ctime.tv_nsec != d->flag_at_start.ctime.tv_nsec || st.ino != d->flag_at_start.ino;
}

/* The one entry that fleets collect: by how much NTP corrected clockfix's estimate. */
static void report_synchronized(struct daemon *d, const char *how)
{
        usec_t real = clock_now(), boot = clock_boottime();
        int64_t correction = handoff_correction(d->s, real, boot);
        int64_t error = handoff_estimate_error(d->s, correction);
        char source[512], by[SECONDS_MAX + 1], off[SECONDS_MAX + 1], after[SECONDS_MAX], message[1200],
                status[600];

        describe_source(d->s, source, sizeof(source));
        format_signed(by, correction);
        format_signed(off, error);
        format_seconds(after, boot - d->s->boottime);
        snprintf(message, sizeof(message),
                "Clock synchronised by NTP (%s) %s s after clockfix %s: NTP corrected the clock by %s s; the "
                "estimate from %s was %s s off",
                how, after, d->s->stepped ? "set it" : "started (it left the clock alone)", by, source, off);

        char f[11][1300];
        struct iovec iov[11];
        size_t n = 0;
        snprintf(f[n++], sizeof(f[0]), "MESSAGE=%s", message);
        snprintf(f[n++], sizeof(f[0]), "MESSAGE_ID=%s", MESSAGE_ID_SYNCHRONIZED);
        snprintf(f[n++], sizeof(f[0]), "PRIORITY=%d", LOG_NOTICE);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SOURCE=%s", d->s->source ? d->s->source : "none");
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_DEVICE=%s", d->s->device ? d->s->device : "");
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_ACTION=%s", d->s->stepped ? "set" : "none");
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_ESTIMATE_USEC=%" PRIu64, d->s->target);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_CORRECTION_USEC=%" PRId64, correction);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_ESTIMATE_ERROR_USEC=%" PRId64, error);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SYNC_WAIT_USEC=%" PRIu64, boot - d->s->boottime);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SYNC_SIGNAL=%s", how);
        for (size_t i = 0; i < n; i++)
                iov[i] = (struct iovec){ .iov_base = f[i], .iov_len = strlen(f[i]) };

        /*
         * Without the journal (not under systemd, no libsystemd): the same on stderr, on one line.
         * sd_journal_sendv() says nothing when journald is not there: look for its socket first.
         */
        if (!d->have_sd || access(JOURNAL_SOCKET, W_OK) < 0 || sd_journal_fields(iov, n) < 0)
                log_notice("%s [CLOCKFIX_CORRECTION_USEC=%" PRId64 " CLOCKFIX_ESTIMATE_ERROR_USEC=%" PRId64
                           "]",
                        message, correction, error);

        snprintf(status, sizeof(status), "Synchronised by NTP, which corrected the clock by %s s%s", by,
                d->c->stay ? "; keeping the stamp file fresh" : "");
        notify_status(d, status);
}

/* Looks for NTP synchronisation; reports it the first time. Returns whether synchronised. */
static bool check_synchronized(struct daemon *d)
{
        if (d->synchronized)
                return true;
        if (clock_ntp_synchronized() > 0)
                report_synchronized(d, "kernel");
        else if (timesync_flag_new(d))
                report_synchronized(d, "timesyncd");
        else
                return false;
        d->synchronized = true;
        if (d->ntp_pending)
                log_info("Not starting %s: the clock is synchronised already", d->c->ntp_unit);
        d->ntp_pending = false;
        return true;
}

/*
 * Starts the NTP unit, once the network is up. Early in boot the system bus may not be there yet:
 * then it is tried again, at the pace of the checks for synchronisation.
 */
static void start_ntp_unit(struct daemon *d)
{
        char reason[256], status[300];
        int r;

        d->ntp_pending = false;
        if (d->c->dry_run)
                log_notice("Would start %s; --dry-run: not started", d->c->ntp_unit);
        else if (!d->have_sd)
                log_warning("Cannot start %s: no libsystemd", d->c->ntp_unit);
        else if ((r = sd_start_unit(d->c->ntp_unit, reason, sizeof(reason))) < 0) {
                /*
                 * Warned once; the tries that follow, every 1 s to 32 s, in the debug output. Not
                 * tried again once the clock is synchronised: the unit no longer matters.
                 */
                d->ntp_pending = !d->synchronized;
                log_internal(d->ntp_tries++ ? LOG_DEBUG : LOG_WARNING, r, "Cannot start %s: %s; %s",
                        d->c->ntp_unit, reason,
                        d->ntp_pending ? "trying again until the clock is synchronised"
                                       : "not trying again: the clock is synchronised");
                return;
        } else
                log_info("Started %s", d->c->ntp_unit);
        if (!d->synchronized) {
                snprintf(status, sizeof(status), "Network is up; waiting for NTP from %s", d->c->ntp_unit);
                notify_status(d, status);
        }
}

static void network_up(struct daemon *d, const struct default_route *route)
{
        char ifname[IF_NAMESIZE] = "";

        if (route) {
                if (route->ifindex > 0 && !if_indextoname((unsigned)route->ifindex, ifname))
                        snprintf(ifname, sizeof(ifname), "#%d", route->ifindex);
                log_info("Network is up: default route%s%s%s%s", route->gateway[0] ? " via " : "",
                        route->gateway, ifname[0] ? " dev " : "", ifname);
        }
        d->network_up = true;
        if (d->c->ntp_unit)
                start_ntp_unit(d);
        else if (!d->synchronized)
                notify_status(d, "Network is up; waiting for NTP");
}

/* Milliseconds for poll() until the boot time `at`, rounded up; -1 for never. */
static int until(usec_t at, usec_t now)
{
        if (at == USEC_INFINITY)
                return -1;
        if (at <= now)
                return 0;
        usec_t ms = (at - now + 999) / 1000;
        return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static usec_t min_usec(usec_t a, usec_t b)
{
        return a < b ? a : b;
}

/* a + b, or USEC_INFINITY ("never") when that overflows. */
static usec_t add_usec(usec_t a, usec_t b)
{
        return a > USEC_INFINITY - b ? USEC_INFINITY : a + b;
}

void handoff_ready(const char *status)
{
        const char *reason;
        char state[600];

        (void)sd_load(&reason);
        snprintf(state, sizeof(state), "READY=1\nSTATUS=%s", status);
        (void)sd_notify_state(state);
}

int handoff_run(const struct handoff_config *c, const struct handoff_start *s)
{
        struct daemon d = { .c = c, .s = s, .stamp = { .path = c->stamp_path, .dry_run = c->dry_run } };
        const char *reason = NULL;
        sigset_t mask;
        int sig_fd = -1, route_fd = -1, clock_fd = -1, r = 0;
        char source[512], status[700], state[800];

        /* Before READY=1: a stop asked for from then on must find SIGTERM handled. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
                (sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
                r = log_error_errno(errno, "Cannot watch for signals: %m");

        d.have_sd = d.stamp.have_sd = sd_load(&reason) == 0;
        if (!d.have_sd)
                log_debug("No libsystemd: %s", reason);

        describe_source(s, source, sizeof(source));
        if (!s->source)
                snprintf(status, sizeof(status), "No usable time on disk; waiting for the network and NTP");
        else if (s->stepped) {
                char by[DURATION_MAX];
                snprintf(status, sizeof(status), "Clock set %s from %s; waiting for the network and NTP",
                        format_duration(by, s->before, s->realtime), source);
        } else if (s->would_set)
                snprintf(status, sizeof(status),
                        "Dry run: the clock would be set from %s; waiting for the network and NTP", source);
        else
                snprintf(status, sizeof(status),
                        "Clock left alone, already past %s; waiting for the network and NTP", source);
        snprintf(state, sizeof(state), "READY=1\nSTATUS=%s", status);
        notify(&d, state);
        if (r < 0)
                goto out;

        if (file_stat(c->timesync_flag, &d.flag_at_start) == 0)
                d.flag_was_there = true;

        if (clock_ntp_synchronized() > 0) {
                log_info("The clock is already synchronised by NTP: nothing to hand over");
                notify_status(&d,
                        c->stay ? "Synchronised by NTP already; keeping the stamp file fresh"
                                : "Synchronised by NTP already");
                d.synchronized = true;
                if (!c->stay)
                        goto out;
        }

        route_fd = route_watch_open();
        if (route_fd < 0) {
                log_warning_errno(
                        route_fd, "Cannot watch the routes (rtnetlink): %m; not waiting for the network");
                network_up(&d, NULL);
        }
        clock_fd = clock_watch_open();
        if (clock_fd < 0)
                log_warning_errno(clock_fd, "Cannot watch for clock steps (timerfd): %m; polling only");

        bool saving = c->save_interval > 0;
        /* The baseline: the first interval tells whether anything else writes. */
        if (saving)
                handoff_stamp_baseline(&d.stamp);

        usec_t start = clock_boottime(), check_every = CHECK_FIRST;
        usec_t next_check = start + check_every;
        usec_t next_save = saving ? add_usec(start, c->save_interval) : USEC_INFINITY;
        usec_t deadline = c->timeout > 0 ? add_usec(start, c->timeout) : USEC_INFINITY;

        for (;;) {
                struct pollfd p[3] = {
                        { .fd = sig_fd, .events = POLLIN },
                        { .fd = route_fd, .events = POLLIN },
                        { .fd = clock_fd, .events = POLLIN },
                };
                usec_t now = clock_boottime();
                /*
                 * Synchronisation is looked for until it comes, --timeout or not (with --stay); the
                 * timeout counts only until then.
                 */
                bool checking = !d.synchronized || d.ntp_pending;
                usec_t wake = min_usec(next_save,
                        min_usec(checking ? next_check : USEC_INFINITY,
                                d.synchronized || d.gave_up ? USEC_INFINITY : deadline));

                if ((d.synchronized || d.gave_up) && !c->stay && !d.ntp_pending)
                        break;
                if (poll(p, 3, until(wake, now)) < 0 && errno != EINTR) {
                        r = log_error_errno(errno, "poll: %m");
                        break;
                }
                now = clock_boottime();

                if (p[0].revents) {
                        struct signalfd_siginfo si;
                        if (read(sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                                log_info("Stopping (%s)", strsignal((int)si.ssi_signo));
                                notify(&d, "STOPPING=1");
                                if (saving)
                                        handoff_stamp_at_stop(&d.stamp);
                                break;
                        }
                }
                if (p[1].revents) {
                        struct default_route route;
                        r = route_read(route_fd, &route);
                        if (r < 0)
                                log_warning_errno(r,
                                        "Cannot read the routes (rtnetlink): %m; not waiting for the network");
                        if (r != 0) {
                                close(route_fd);
                                route_fd = -1;
                                network_up(&d, r > 0 ? &route : NULL);
                                check_every = CHECK_FIRST;
                                next_check = now;
                        }
                        r = 0;
                }
                if (p[2].revents && clock_watch_read(clock_fd) > 0) {
                        char by[SECONDS_MAX + 1];
                        log_info("The clock was stepped: %s s from clockfix's estimate so far",
                                format_signed(by, handoff_correction(s, clock_now(), now)));
                        next_check = now;
                        check_every = CHECK_FIRST;
                }

                if (checking && now >= next_check) {
                        if (!check_synchronized(&d) && d.ntp_pending)
                                start_ntp_unit(&d);
                        if (!d.synchronized || d.ntp_pending) {
                                check_every = min_usec(check_every * 2, CHECK_MAX);
                                next_check = now + check_every;
                        }
                }
                if (!d.synchronized && !d.gave_up && now >= deadline) {
                        char t[SECONDS_MAX];
                        log_notice("No NTP synchronisation within %s s (%s)%s",
                                format_seconds(t, c->timeout),
                                c->timeout_origin ? c->timeout_origin : "timeout",
                                c->stay ? ": keeping the stamp file fresh" : ": stopping");
                        notify_status(&d, "No NTP synchronisation within the timeout");
                        d.gave_up = true;
                        d.ntp_pending = false;
                }
                if (now >= next_save) {
                        handoff_stamp_interval(&d.stamp);
                        next_save = add_usec(now, c->save_interval);
                }
        }
out:
        if (clock_fd >= 0)
                close(clock_fd);
        if (route_fd >= 0)
                close(route_fd);
        if (sig_fd >= 0)
                close(sig_fd);
        return r;
}
