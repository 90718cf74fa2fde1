/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * handoff: the daemon after the clock is set, until NTP has it: one handler
 * per event (a signal, a route, a clock step, and the timers: the check for
 * synchronisation, the timeout, the stamp's refresh), and a loop that only
 * waits for the next one and dispatches it (docs/design.md §6).
 */

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

#include "background.h"
#include "cleanup.h"
#include "clock.h"
#include "handoff-stamp.h"
#include "handoff.h"
#include "learn.h"
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

bool handoff_timer_armed(enum handoff_state state, enum handoff_timer timer)
{
        switch (timer) {
        case HANDOFF_TIMER_CHECK:
                return state != HANDOFF_SYNCHRONIZED && state != HANDOFF_STOPPING;
        case HANDOFF_TIMER_TIMEOUT:
                /* The timeout counts only until synchronisation, with stay or not. */
                return state == HANDOFF_WAITING_FOR_NETWORK || state == HANDOFF_WAITING_FOR_SYNC;
        case HANDOFF_TIMER_SAVE:
                return state != HANDOFF_STOPPING;
        default:
                return false;
        }
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

usec_t handoff_next_wake(enum handoff_state state, const usec_t due[static _HANDOFF_TIMER_MAX])
{
        usec_t wake = USEC_INFINITY;

        for (int t = 0; t < _HANDOFF_TIMER_MAX; t++)
                if (handoff_timer_armed(state, t))
                        wake = min_usec(wake, due[t]);
        return wake;
}

int handoff_poll_timeout(usec_t wake, usec_t now)
{
        if (wake == USEC_INFINITY)
                return -1;
        if (wake <= now)
                return 0;
        usec_t ms = (wake - now + 999) / 1000;
        return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

bool handoff_finished(enum handoff_state state, bool stay)
{
        if (state == HANDOFF_STOPPING)
                return true;
        return !stay && (state == HANDOFF_SYNCHRONIZED || state == HANDOFF_TIMED_OUT);
}

/* "+3600.25 s", "-0.000120 s": microseconds, signed, without trailing zeros. */
static char *format_signed(char buf[static SECONDS_MAX + 1], int64_t us)
{
        char s[SECONDS_MAX];

        snprintf(buf, SECONDS_MAX + 1, "%c%s", us < 0 ? '-' : '+',
                format_seconds(s, us < 0 ? (usec_t)(-(us + 1)) + 1 : (usec_t)us));
        return buf;
}

/* The file descriptors the daemon waits on, in the order their events are handled. */
enum watch {
        WATCH_SIGNAL, /* SIGTERM, SIGINT: a signalfd */
        WATCH_ROUTE,  /* a default route: rtnetlink, until the network is up */
        WATCH_CLOCK,  /* someone set the clock: a timerfd (TFD_TIMER_CANCEL_ON_SET) */
        _WATCH_MAX,
};

struct daemon {
        const struct handoff_config *c;
        const struct handoff_start *s;
        enum handoff_state state;
        bool have_sd;
        int fd[_WATCH_MAX];             /* negative: not watched (any more) */
        usec_t due[_HANDOFF_TIMER_MAX]; /* when each timer is next due, CLOCK_BOOTTIME */
        usec_t check_every;             /* the check's interval now, from CHECK_FIRST to CHECK_MAX */
        usec_t now;                     /* CLOCK_BOOTTIME when the last wait ended */
        bool ntp_pending;               /* the NTP unit is to be started again (never once synchronised) */
        unsigned ntp_tries;
        struct file_stat flag_at_start; /* of timesyncd's flag, if it was there */
        bool flag_was_there;
        struct handoff_stamp stamp;
};

static void daemon_close(struct daemon *d)
{
        for (int w = _WATCH_MAX - 1; w >= 0; w--)
                if (d->fd[w] >= 0)
                        close(d->fd[w]);
}

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

/* The one entry that fleets collect: by how much NTP corrected clockfix's estimate, what was in the future.
 */
static void report_synchronized(struct daemon *d, const char *how, const struct learn_summary *future)
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

        char f[15][1300];
        struct iovec iov[15];
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
        if (future && future->n_future > 0) {
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_FUTURE_COUNT=%zu", future->n_future);
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_FUTURE_SOURCES=%s", future->sources);
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_FUTURE_FIX=%s", future->fix);
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_RECORD=%s", d->c->learn->record_path);
        }
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

/* NTP synchronised the clock (how: "kernel", "timesyncd"): what is in the future recorded, reported,
 * and the NTP unit given up. */
static void enter_synchronized(struct daemon *d, const char *how)
{
        struct learn_summary future = { 0 };

        if (d->c->learn) {
                struct learn_config l = *d->c->learn;
                l.have_sd = d->have_sd;
                (void)learn(&l, clock_now(), &future);
        }
        report_synchronized(d, how, d->c->learn ? &future : NULL);
        d->state = HANDOFF_SYNCHRONIZED;
        if (d->ntp_pending)
                log_info("Not starting %s: the clock is synchronised already", d->c->ntp_unit);
        d->ntp_pending = false;
}

/*
 * The NTP unit: started once the network is up. Early in boot the system bus may not be there
 * yet: then it is tried again, at the pace of the checks for synchronisation (on_sync_check()).
 */
static void start_ntp_unit(struct daemon *d)
{
        bool synchronized = d->state == HANDOFF_SYNCHRONIZED;
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
                d->ntp_pending = !synchronized;
                log_internal(d->ntp_tries++ ? LOG_DEBUG : LOG_WARNING, r, "Cannot start %s: %s; %s",
                        d->c->ntp_unit, reason,
                        d->ntp_pending ? "trying again until the clock is synchronised"
                                       : "not trying again: the clock is synchronised");
                return;
        } else
                log_info("Started %s", d->c->ntp_unit);
        if (!synchronized) {
                snprintf(status, sizeof(status), "Network is up; waiting for NTP from %s", d->c->ntp_unit);
                notify_status(d, status);
        }
}

/*
 * A default route (route, or NULL when the routes cannot be watched): the network is up. From
 * then on the daemon waits for NTP, unless it is past that already.
 */
static void enter_network_up(struct daemon *d, const struct default_route *route)
{
        char ifname[IF_NAMESIZE] = "";

        if (route) {
                if (route->ifindex > 0 && !if_indextoname((unsigned)route->ifindex, ifname))
                        snprintf(ifname, sizeof(ifname), "#%d", route->ifindex);
                log_info("Network is up: default route%s%s%s%s", route->gateway[0] ? " via " : "",
                        route->gateway, ifname[0] ? " dev " : "", ifname);
        }
        if (d->state == HANDOFF_WAITING_FOR_NETWORK)
                d->state = HANDOFF_WAITING_FOR_SYNC;
        if (d->c->ntp_unit)
                start_ntp_unit(d);
        else if (d->state != HANDOFF_SYNCHRONIZED)
                notify_status(d, "Network is up; waiting for NTP");
}

/* The next check for synchronisation now, and the backing off from the start. */
static void check_soon(struct daemon *d)
{
        d->check_every = CHECK_FIRST;
        d->due[HANDOFF_TIMER_CHECK] = d->now;
}

/* SIGTERM or SIGINT: the stamp saved, and the daemon stops. */
static void on_signal(struct daemon *d)
{
        struct signalfd_siginfo si;

        if (read(d->fd[WATCH_SIGNAL], &si, sizeof(si)) != (ssize_t)sizeof(si))
                return;
        log_info("Stopping (%s)", strsignal((int)si.ssi_signo));
        notify(d, "STOPPING=1");
        if (d->c->save_interval > 0)
                handoff_stamp_at_stop(&d->stamp);
        d->state = HANDOFF_STOPPING;
}

/* rtnetlink: once a default route is there (or the routes cannot be read), the network is up. */
static void on_route(struct daemon *d)
{
        struct default_route route;
        int r;

        r = route_read(d->fd[WATCH_ROUTE], &route);
        if (r < 0)
                log_warning_errno(r, "Cannot read the routes (rtnetlink): %m; not waiting for the network");
        if (r == 0)
                return;
        close(d->fd[WATCH_ROUTE]);
        d->fd[WATCH_ROUTE] = -1;
        enter_network_up(d, r > 0 ? &route : NULL);
        check_soon(d);
}

/* Someone set the clock (NTP, most likely): said, and synchronisation looked for at once. */
static void on_clock_step(struct daemon *d)
{
        char by[SECONDS_MAX + 1];

        if (clock_watch_read(d->fd[WATCH_CLOCK]) <= 0)
                return;
        log_info("The clock was stepped: %s s from clockfix's estimate so far",
                format_signed(by, handoff_correction(d->s, clock_now(), d->now)));
        check_soon(d);
}

/* The check timer: looks for NTP synchronisation, else tries the NTP unit again and backs off. */
static void on_sync_check(struct daemon *d)
{
        if (clock_ntp_synchronized() > 0)
                enter_synchronized(d, "kernel");
        else if (timesync_flag_new(d))
                enter_synchronized(d, "timesyncd");
        else {
                if (d->ntp_pending)
                        start_ntp_unit(d);
                d->check_every = min_usec(d->check_every * 2, CHECK_MAX);
                d->due[HANDOFF_TIMER_CHECK] = d->now + d->check_every;
        }
}

/* The timeout passed before synchronisation: the daemon stops, or with stay goes on looking. */
static void on_timeout(struct daemon *d)
{
        char t[SECONDS_MAX];

        log_notice("No NTP synchronisation within %s s (%s)%s", format_seconds(t, d->c->timeout),
                d->c->timeout_origin ? d->c->timeout_origin : "timeout",
                d->c->stay ? ": keeping the stamp file fresh" : ": stopping");
        notify_status(d, "No NTP synchronisation within the timeout");
        d->state = HANDOFF_TIMED_OUT;
        d->ntp_pending = false;
}

/* The save timer: the stamp refreshed if nothing else wrote to its filesystem meanwhile. */
static void on_save_timer(struct daemon *d)
{
        handoff_stamp_interval(&d->stamp);
        d->due[HANDOFF_TIMER_SAVE] = add_usec(d->now, d->c->save_interval);
}

static void (*const watch_handlers[_WATCH_MAX])(struct daemon *d) = {
        [WATCH_SIGNAL] = on_signal,
        [WATCH_ROUTE] = on_route,
        [WATCH_CLOCK] = on_clock_step,
};

static void (*const timer_handlers[_HANDOFF_TIMER_MAX])(struct daemon *d) = {
        [HANDOFF_TIMER_CHECK] = on_sync_check,
        [HANDOFF_TIMER_TIMEOUT] = on_timeout,
        [HANDOFF_TIMER_SAVE] = on_save_timer,
};

/* Waits until an event comes or the next armed timer is due. 0, or -errno when poll() fails. */
static int wait_for_event(struct daemon *d, struct pollfd p[static _WATCH_MAX])
{
        usec_t now = clock_boottime();

        for (int w = 0; w < _WATCH_MAX; w++)
                p[w] = (struct pollfd){ .fd = d->fd[w], .events = POLLIN };
        if (poll(p, _WATCH_MAX, handoff_poll_timeout(handoff_next_wake(d->state, d->due), now)) < 0 &&
                errno != EINTR)
                return log_error_errno(errno, "poll: %m");
        d->now = clock_boottime();
        return 0;
}

/* Hands each event that came, then each armed timer that is due, to its handler, until one stops. */
static void dispatch(struct daemon *d, const struct pollfd p[static _WATCH_MAX])
{
        for (int w = 0; w < _WATCH_MAX && d->state != HANDOFF_STOPPING; w++)
                if (p[w].revents)
                        watch_handlers[w](d);
        for (int t = 0; t < _HANDOFF_TIMER_MAX && d->state != HANDOFF_STOPPING; t++)
                if (handoff_timer_armed(d->state, t) && d->now >= d->due[t])
                        timer_handlers[t](d);
}

/* Blocks SIGTERM and SIGINT, to read them from a signalfd. 0 or -errno (logged). */
static int watch_signals(struct daemon *d)
{
        sigset_t mask;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
                (d->fd[WATCH_SIGNAL] = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
                return log_error_errno(errno, "Cannot watch for signals: %m");
        return 0;
}

/* READY=1, with what `set` did in STATUS=. */
static void say_ready(struct daemon *d)
{
        const struct handoff_start *s = d->s;
        char source[512], status[700], state[800];

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
        notify(d, state);
}

/* Synchronised by NTP already when the daemon starts: then there is nothing to hand over. */
static void look_for_sync_at_start(struct daemon *d)
{
        if (file_stat(d->c->timesync_flag, &d->flag_at_start) == 0)
                d->flag_was_there = true;
        if (clock_ntp_synchronized() <= 0)
                return;
        log_info("The clock is already synchronised by NTP: nothing to hand over");
        notify_status(d,
                d->c->stay ? "Synchronised by NTP already; keeping the stamp file fresh"
                           : "Synchronised by NTP already");
        d->state = HANDOFF_SYNCHRONIZED;
}

/* Opens the route and clock-step watches, and sets the timers from now. */
static void start_watching(struct daemon *d)
{
        const struct handoff_config *c = d->c;

        d->fd[WATCH_ROUTE] = route_watch_open();
        if (d->fd[WATCH_ROUTE] < 0) {
                log_warning_errno(d->fd[WATCH_ROUTE],
                        "Cannot watch the routes (rtnetlink): %m; not waiting for the network");
                enter_network_up(d, NULL);
        }
        d->fd[WATCH_CLOCK] = clock_watch_open();
        if (d->fd[WATCH_CLOCK] < 0)
                log_warning_errno(
                        d->fd[WATCH_CLOCK], "Cannot watch for clock steps (timerfd): %m; polling only");

        /* The baseline: the first interval tells whether anything else writes. */
        if (c->save_interval > 0)
                handoff_stamp_baseline(&d->stamp);

        usec_t start = clock_boottime();
        d->check_every = CHECK_FIRST;
        d->due[HANDOFF_TIMER_CHECK] = start + d->check_every;
        d->due[HANDOFF_TIMER_TIMEOUT] = c->timeout > 0 ? add_usec(start, c->timeout) : USEC_INFINITY;
        d->due[HANDOFF_TIMER_SAVE] = c->save_interval > 0 ? add_usec(start, c->save_interval)
                                                          : USEC_INFINITY;
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
        _cleanup_(daemon_close) struct daemon d = {
                .c = c,
                .s = s,
                .state = HANDOFF_WAITING_FOR_NETWORK,
                .fd = { -1, -1, -1 },
                .stamp = { .path = c->stamp_path, .dry_run = c->dry_run },
        };
        const char *reason = NULL;
        struct pollfd p[_WATCH_MAX];
        int r;

        /* Before READY=1: a stop asked for from then on must find SIGTERM handled. */
        r = watch_signals(&d);
        d.have_sd = d.stamp.have_sd = sd_load(&reason) == 0;
        if (!d.have_sd)
                log_debug("No libsystemd: %s", reason);
        say_ready(&d);
        /* The pid file, and in the background the foreground process let go: only now. */
        r = background_ready(r);
        if (r < 0)
                return r;

        look_for_sync_at_start(&d);
        if (handoff_finished(d.state, c->stay))
                return 0;
        start_watching(&d);

        while (!handoff_finished(d.state, c->stay)) {
                r = wait_for_event(&d, p);
                if (r < 0)
                        return r;
                dispatch(&d, p);
        }
        return 0;
}
