/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon: the daemon after the clock is set, until NTP has it: one handler
 * per event (a signal, a route, a clock step, and the timers: the check for
 * synchronisation, the timeout, the stamp's refresh), and a loop that only
 * waits for the next one and dispatches it (docs/design.md §6).
 */

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/clock.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "daemon/background.h"
#include "daemon/daemon.h"
#include "daemon/learn.h"
#include "daemon/ntp-sync.h"
#include "daemon/route.h"
#include "daemon/stamp-keeper.h"
#include "daemon/sync-report.h"
#include "daemon/systemd.h"
#include "daemon/timesyncd-flag.h"

/* Once the network is up, sync is looked for at least this often, backing off from the first to the last. */
#define CHECK_FIRST (1 * USEC_PER_SEC)
#define CHECK_MAX   (32 * USEC_PER_SEC)
/*
 * After a step, every CHECK_AFTER_STEP for CHECK_AFTER_STEP_FOR: the client that stepped says it
 * synchronised moments later (chrony 2 s after its step, at its next sample) or minutes later
 * (openntpd: 1.5 to 6 minutes), and the entry must follow it within a second.
 */
#define CHECK_AFTER_STEP     (USEC_PER_SEC / 2)
#define CHECK_AFTER_STEP_FOR (10 * 60 * USEC_PER_SEC)

bool daemon_timer_armed(enum daemon_state state, enum daemon_timer timer)
{
        switch (timer) {
        case DAEMON_TIMER_CHECK:
                return state != DAEMON_SYNCHRONIZED && state != DAEMON_STOPPING;
        case DAEMON_TIMER_TIMEOUT:
                /* The timeout counts only until synchronisation, with stay or not. */
                return state == DAEMON_WAITING_FOR_NETWORK || state == DAEMON_WAITING_FOR_SYNC;
        case DAEMON_TIMER_SAVE:
                return state != DAEMON_STOPPING;
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

usec_t daemon_next_wake(enum daemon_state state, const usec_t due[static _DAEMON_TIMER_MAX])
{
        usec_t wake = USEC_INFINITY;

        for (int t = 0; t < _DAEMON_TIMER_MAX; t++)
                if (daemon_timer_armed(state, t))
                        wake = min_usec(wake, due[t]);
        return wake;
}

int daemon_poll_timeout(usec_t wake, usec_t now)
{
        if (wake == USEC_INFINITY)
                return -1;
        if (wake <= now)
                return 0;
        usec_t ms = (wake - now + 999) / 1000;
        return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

usec_t daemon_next_check(const struct sync_watch *w, bool network_up, usec_t check_every, usec_t now)
{
        usec_t next = network_up ? add_usec(now, check_every) : USEC_INFINITY;

        if (w->steps > 0 && now < add_usec(w->last_step, CHECK_AFTER_STEP_FOR))
                next = min_usec(next, now + CHECK_AFTER_STEP);
        if (w->unstepped_since != USEC_INFINITY)
                next = min_usec(next, add_usec(w->unstepped_since, SYNC_SETTLE));
        return next;
}

bool daemon_finished(enum daemon_state state, bool stay)
{
        if (state == DAEMON_STOPPING)
                return true;
        return !stay && (state == DAEMON_SYNCHRONIZED || state == DAEMON_TIMED_OUT);
}

/* The file descriptors the daemon waits on, in the order their events are handled. */
enum watch {
        WATCH_SIGNAL, /* SIGTERM, SIGINT, SIGQUIT, SIGHUP: a signalfd (daemon_signals()) */
        WATCH_ROUTE,  /* a default route: rtnetlink, until the network is up */
        WATCH_CLOCK,  /* someone set the clock: a timerfd (TFD_TIMER_CANCEL_ON_SET) */
        WATCH_FLAG,   /* timesyncd's flag touched: inotify (timesyncd-flag.c) */
        _WATCH_MAX,
};

struct daemon {
        const struct daemon_config *c;
        const struct daemon_start *s;
        enum daemon_state state;
        bool have_sd;
        int fd[_WATCH_MAX];            /* negative: not watched (any more) */
        usec_t due[_DAEMON_TIMER_MAX]; /* when each timer is next due, CLOCK_BOOTTIME */
        usec_t check_every;            /* the check's interval now, from CHECK_FIRST to CHECK_MAX */
        usec_t now;                    /* CLOCK_BOOTTIME when the last wait ended */
        bool network_up;               /* a default route was seen (or the routes cannot be watched) */
        struct sync_watch sync;        /* the signs and steps of NTP so far */
        int64_t correction_seen;       /* NTP's correction at the last step: what the next one adds */
        bool said_unstepped, said_settling;
        bool ntp_pending; /* the NTP unit is to be started again (never once synchronised) */
        unsigned ntp_tries;
        struct timesyncd_flag flag; /* timesyncd's; its inotify descriptor is fd[WATCH_FLAG] */
        struct stamp_keeper stamp;
};

/* Once synchronised, timesyncd's flag no longer matters. */
static void stop_watching_flag(struct daemon *d)
{
        timesyncd_flag_close(&d->flag);
        d->fd[WATCH_FLAG] = -1;
}

static void daemon_close(struct daemon *d)
{
        for (int w = _WATCH_MAX - 1; w >= 0; w--)
                if (d->fd[w] >= 0 && w != WATCH_FLAG)
                        close(d->fd[w]);
        timesyncd_flag_close(&d->flag);
}

static void notify(struct daemon *d, const char *state)
{
        (void)d;
        (void)systemd_notify(state);
}

static void notify_status(struct daemon *d, const char *status)
{
        char state[800];

        snprintf(state, sizeof(state), "STATUS=%s", status);
        notify(d, state);
}

/* NTP synchronised the clock (the sign: sync_sign_name()): what is in the future recorded, reported,
 * and the NTP unit given up. */
static void enter_synchronized(struct daemon *d, const char *how)
{
        struct learn_summary future = { 0 };
        usec_t real, boot;

        /* The moment of synchronisation: before the disk is read again. */
        clock_pair(&real, &boot);
        if (d->c->learn) {
                struct learn_config l = *d->c->learn;
                l.have_sd = d->have_sd;
                (void)learn(&l, real, &future);
        }
        char status[600];
        sync_report(d->s,
                &(struct sync_event){
                        .signal = how,
                        .realtime = real,
                        .boottime = boot,
                        .steps = d->sync.steps,
                        .last_step = d->sync.last_step,
                        .future = d->c->learn ? &future : NULL,
                        .record_path = d->c->learn ? d->c->learn->record_path : NULL,
                },
                d->have_sd, status, sizeof(status));
        if (d->c->stay)
                strncat(status, "; keeping the stamp file fresh", sizeof(status) - strlen(status) - 1);
        notify_status(d, status);
        d->state = DAEMON_SYNCHRONIZED;
        stop_watching_flag(d);
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
        bool synchronized = d->state == DAEMON_SYNCHRONIZED;
        char reason[256], status[300];
        int r;

        d->ntp_pending = false;
        if (d->c->dry_run)
                log_notice("Would start %s; --dry-run: not started", d->c->ntp_unit);
        else if (!d->have_sd)
                log_warning("Cannot start %s: no libsystemd", d->c->ntp_unit);
        else if ((r = systemd_start_unit(d->c->ntp_unit, reason, sizeof(reason))) < 0) {
                /*
                 * Warned once; the tries that follow, every 1 s to 32 s, in the debug output. Not
                 * tried again once the clock is synchronised: the unit no longer matters.
                 */
                d->ntp_pending = !synchronized;
                log_full_errno(d->ntp_tries++ ? LOG_DEBUG : LOG_WARNING, r, "Cannot start %s: %s; %s",
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
        d->network_up = true;
        if (d->state == DAEMON_WAITING_FOR_NETWORK)
                d->state = DAEMON_WAITING_FOR_SYNC;
        if (d->c->ntp_unit)
                start_ntp_unit(d);
        else if (d->state != DAEMON_SYNCHRONIZED)
                notify_status(d, "Network is up; waiting for NTP");
}

/* The next check for synchronisation now, and the backing off from the start. */
static void check_soon(struct daemon *d)
{
        d->check_every = CHECK_FIRST;
        d->due[DAEMON_TIMER_CHECK] = d->now;
}

/* SIGTERM, SIGINT or SIGQUIT: the stamp saved, and the daemon stops; SIGHUP: said, and nothing else. */
static void on_signal(struct daemon *d)
{
        struct signalfd_siginfo si;

        if (read(d->fd[WATCH_SIGNAL], &si, sizeof(si)) != (ssize_t)sizeof(si))
                return;
        if (!daemon_signal_stops((int)si.ssi_signo)) {
                log_info("Ignoring SIGHUP: nothing to reload or reopen (SIGTERM stops the daemon)");
                return;
        }
        log_info("Stopping (%s)", strsignal((int)si.ssi_signo));
        notify(d, "STOPPING=1");
        if (d->c->save_interval > 0)
                stamp_keeper_at_stop(&d->stamp);
        d->state = DAEMON_STOPPING;
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

/*
 * Whether someone set the clock since the last look (NTP, most likely): a step when it moved the
 * clock by SYNC_STEP_MIN or more against the boot clock (chrony sets it by nothing as it starts),
 * said, and counted. Measured at each look, not only when the clock-step watch fires (set, true):
 * the watch may be missing, and a step before it was armed counts too. True for a step.
 */
static bool notice_step(struct daemon *d, bool set)
{
        char by[SECONDS_MAX + 1], total[SECONDS_MAX + 1];
        usec_t real, boot;

        clock_pair(&real, &boot);
        int64_t correction = sync_correction(d->s, real, boot), step = correction - d->correction_seen;
        if (step > -(int64_t)SYNC_STEP_MIN && step < (int64_t)SYNC_STEP_MIN) {
                if (set)
                        log_debug("The clock was set, by %s s: no step", format_signed_seconds(by, step));
                return false;
        }
        d->correction_seen = correction;
        log_info("The clock was stepped by %s s: %s s from clockfix's estimate so far",
                format_signed_seconds(by, step), format_signed_seconds(total, correction));
        sync_watch_step(&d->sync, d->now);
        d->said_unstepped = d->said_settling = false;
        return true;
}

/* timesyncd's flag, or its directory, changed: looked at now. */
static void on_flag(struct daemon *d)
{
        if (timesyncd_flag_read(&d->flag))
                d->due[DAEMON_TIMER_CHECK] = d->now;
}

/* The clock-step watch: a step brings the look for synchronisation forward, to now. */
static void on_clock_step(struct daemon *d)
{
        if (clock_watch_read(d->fd[WATCH_CLOCK]) > 0 && notice_step(d, true))
                d->due[DAEMON_TIMER_CHECK] = d->now;
}

/* A sign of synchronisation with no step behind it, said once until the next step. */
static void say_unstepped(struct daemon *d, enum sync_verdict verdict)
{
        char t[SECONDS_MAX];

        if (verdict == SYNC_UNSTEPPED && !d->said_unstepped) {
                log_notice(
                        "The kernel says NTP synchronised the clock, but nothing stepped it since the daemon "
                        "started, and nothing but the disk's times, older than the true time, can have set it: "
                        "not taken as NTP's synchronisation (ntpsec 1.2 says so as it starts, before it heard "
                        "a server); waiting for NTP to step the clock");
                notify_status(d,
                        "Waiting for NTP to step the clock (a sign of synchronisation came with no step)");
                d->said_unstepped = true;
        } else if (verdict == SYNC_SETTLING && !d->said_settling) {
                log_info("The kernel says NTP synchronised the clock, with no step: taken as NTP's "
                         "synchronisation if no step comes within %s s",
                        format_seconds(t, SYNC_SETTLE));
                d->said_settling = true;
        }
}

/*
 * The check timer: looks for NTP synchronisation (ntp-sync.c judges what it finds), else
 * tries the NTP unit again; then the next look (daemon_next_check()).
 */
static void on_sync_check(struct daemon *d)
{
        struct ntp_kernel kernel;
        int r;

        /* A step since the last look (not yet told by the watch, or with none): counted first. */
        (void)notice_step(d, false);
        r = clock_ntp_kernel(&kernel);

        if (r < 0)
                log_debug_errno(r, "Cannot read the kernel's NTP state (adjtimex): %m");
        enum sync_sign sign = sync_sign_of(r >= 0 ? &kernel : NULL, timesyncd_flag_new(&d->flag));
        enum sync_verdict verdict = sync_watch_judge(&d->sync, sign, d->now);
        if (verdict == SYNC_REAL) {
                enter_synchronized(d, sync_sign_name(sign));
                return;
        }
        say_unstepped(d, verdict);
        if (d->ntp_pending)
                start_ntp_unit(d);
        d->due[DAEMON_TIMER_CHECK] = daemon_next_check(&d->sync, d->network_up, d->check_every, d->now);
        if (d->network_up)
                d->check_every = min_usec(d->check_every * 2, CHECK_MAX);
}

/* The timeout passed before synchronisation: the daemon stops, or with stay goes on looking. */
static void on_timeout(struct daemon *d)
{
        char t[SECONDS_MAX];

        log_notice("No NTP synchronisation within %s s (%s)%s", format_seconds(t, d->c->timeout),
                d->c->timeout_origin ? d->c->timeout_origin : "timeout",
                d->c->stay ? ": keeping the stamp file fresh" : ": stopping");
        notify_status(d, "No NTP synchronisation within the timeout");
        d->state = DAEMON_TIMED_OUT;
        d->ntp_pending = false;
}

/* The save timer: the stamp refreshed if nothing else wrote to its filesystem meanwhile. */
static void on_save_timer(struct daemon *d)
{
        stamp_keeper_interval(&d->stamp);
        d->due[DAEMON_TIMER_SAVE] = add_usec(d->now, d->c->save_interval);
}

static void (*const watch_handlers[_WATCH_MAX])(struct daemon *d) = {
        [WATCH_SIGNAL] = on_signal,
        [WATCH_ROUTE] = on_route,
        [WATCH_CLOCK] = on_clock_step,
        [WATCH_FLAG] = on_flag,
};

static void (*const timer_handlers[_DAEMON_TIMER_MAX])(struct daemon *d) = {
        [DAEMON_TIMER_CHECK] = on_sync_check,
        [DAEMON_TIMER_TIMEOUT] = on_timeout,
        [DAEMON_TIMER_SAVE] = on_save_timer,
};

/* Waits until an event comes or the next armed timer is due. 0, or -errno when poll() fails. */
static int wait_for_event(struct daemon *d, struct pollfd p[static _WATCH_MAX])
{
        usec_t now = clock_boottime();

        for (int w = 0; w < _WATCH_MAX; w++)
                p[w] = (struct pollfd){ .fd = d->fd[w], .events = POLLIN };
        if (poll(p, _WATCH_MAX, daemon_poll_timeout(daemon_next_wake(d->state, d->due), now)) < 0 &&
                errno != EINTR)
                return log_error_errno(errno, "poll: %m");
        d->now = clock_boottime();
        return 0;
}

/* Hands each event that came, then each armed timer that is due, to its handler, until one stops. */
static void dispatch(struct daemon *d, const struct pollfd p[static _WATCH_MAX])
{
        for (int w = 0; w < _WATCH_MAX && d->state != DAEMON_STOPPING; w++)
                if (p[w].revents)
                        watch_handlers[w](d);
        for (int t = 0; t < _DAEMON_TIMER_MAX && d->state != DAEMON_STOPPING; t++)
                if (daemon_timer_armed(d->state, t) && d->now >= d->due[t])
                        timer_handlers[t](d);
}

/* Why these, and why SIGHUP does not stop the daemon: daemon.h. */
bool daemon_signal_stops(int signo)
{
        return signo == SIGTERM || signo == SIGINT || signo == SIGQUIT;
}

void daemon_signals(sigset_t *ret)
{
        sigemptyset(ret);
        sigaddset(ret, SIGTERM);
        sigaddset(ret, SIGINT);
        sigaddset(ret, SIGQUIT);
        sigaddset(ret, SIGHUP);
}

/* Blocks the signals of daemon_signals(), to read them from a signalfd. 0 or -errno (logged). */
static int watch_signals(struct daemon *d)
{
        sigset_t mask;

        daemon_signals(&mask);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
                (d->fd[WATCH_SIGNAL] = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
                return log_error_errno(errno, "Cannot watch for signals: %m");
        return 0;
}

/* READY=1, with what `set` did in STATUS=. */
static void say_ready(struct daemon *d)
{
        const struct daemon_start *s = d->s;
        char source[512], status[700], state[800];

        sync_describe_source(s, source, sizeof(source));
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

/*
 * Synchronised by NTP already when the daemon starts: then there is nothing to hand over, and
 * nothing to report (not even where ntpsec 1.2 started first and says so falsely: no entry is
 * better than a false one).
 */
static void look_for_sync_at_start(struct daemon *d)
{
        int r = timesyncd_flag_open(&d->flag, d->c->timesync_flag);
        if (r == -ENOENT)
                log_debug("Not watching %s: not even its parent directory exists", d->c->timesync_flag);
        else if (r < 0)
                log_debug_errno(r, "Not watching %s: %m", d->c->timesync_flag);
        d->fd[WATCH_FLAG] = d->flag.fd;
        if (clock_ntp_synchronized() <= 0)
                return;
        log_info("The clock is already synchronised by NTP: nothing to hand over");
        notify_status(d,
                d->c->stay ? "Synchronised by NTP already; keeping the stamp file fresh"
                           : "Synchronised by NTP already");
        d->state = DAEMON_SYNCHRONIZED;
        stop_watching_flag(d);
}

/* Opens the route and clock-step watches, and sets the timers from now. */
static void start_watching(struct daemon *d)
{
        const struct daemon_config *c = d->c;

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
                stamp_keeper_baseline(&d->stamp);

        usec_t start = clock_boottime();
        d->check_every = CHECK_FIRST;
        /* Before the network is up, only a route or a step brings a look (on_route, on_clock_step). */
        d->due[DAEMON_TIMER_CHECK] = d->network_up ? start + d->check_every : USEC_INFINITY;
        d->due[DAEMON_TIMER_TIMEOUT] = c->timeout > 0 ? add_usec(start, c->timeout) : USEC_INFINITY;
        d->due[DAEMON_TIMER_SAVE] = c->save_interval > 0 ? add_usec(start, c->save_interval) : USEC_INFINITY;
}

void daemon_ready(const char *status)
{
        const char *reason;
        char state[600];

        (void)systemd_load(&reason);
        snprintf(state, sizeof(state), "READY=1\nSTATUS=%s", status);
        (void)systemd_notify(state);
}

int daemon_run(const struct daemon_config *c, const struct daemon_start *s)
{
        _cleanup_(daemon_close) struct daemon d = {
                .c = c,
                .s = s,
                .state = DAEMON_WAITING_FOR_NETWORK,
                .fd = { -1, -1, -1, -1 },
                .flag = { .fd = -1, .wd_dir = -1, .wd_parent = -1 },
                .stamp = { .path = c->stamp_path, .dry_run = c->dry_run },
        };
        const char *reason = NULL;
        struct pollfd p[_WATCH_MAX];
        int r;

        /* Before READY=1: a stop asked for from then on must find SIGTERM handled (and SIGHUP ignored). */
        r = watch_signals(&d);
        d.have_sd = systemd_load(&reason) == 0;
        sync_watch_init(&d.sync,
                sync_expects_step(s->realtime, s->boottime, s->source != NULL, s->target, s->floor));
        if (!d.have_sd)
                log_debug("No libsystemd: %s", reason);
        say_ready(&d);
        /* The pid file, and in the background the foreground process let go: only now. */
        r = background_ready(r);
        if (r < 0)
                return r;

        look_for_sync_at_start(&d);
        if (daemon_finished(d.state, c->stay))
                return 0;
        start_watching(&d);

        while (!daemon_finished(d.state, c->stay)) {
                r = wait_for_event(&d, p);
                if (r < 0)
                        return r;
                dispatch(&d, p);
        }
        return 0;
}
