/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon: the daemon after the clock is set: waits for the network and for
 * NTP, says how far off clockfix's estimate was, and keeps clockfix's stamp
 * file fresh without wearing the flash.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/time-util.h"
#include "daemon/sync-report.h"

/* Where systemd-timesyncd says it synchronised (it touches the file each time). */
#define TIMESYNC_FLAG_PATH "/run/systemd/timesync/synchronized"

struct learn_config;

struct daemon_config {
        const char *ntp_unit;             /* start it over D-Bus once the network is up; NULL: start none */
        usec_t save_interval;             /* refresh the stamp at most this often; 0: never */
        usec_t timeout;                   /* stop waiting for NTP after this long; 0: no limit */
        const char *timeout_origin;       /* where timeout came from, for messages: "--timeout" */
        bool stay;                        /* after NTP synchronised, keep the stamp fresh until stopped */
        bool dry_run;                     /* write nothing and start nothing, say what would be done */
        const char *stamp_path;           /* clockfix's stamp file */
        const char *timesync_flag;        /* TIMESYNC_FLAG_PATH */
        const struct learn_config *learn; /* at synchronisation: what is in the future, recorded; or NULL */
};

/*
 * Runs until NTP synchronised the clock (or for ever with stay), the timeout
 * passes, or a signal that stops it (daemon_signal_stops()). Returns 0, or
 * -errno when it cannot run at all.
 */
int daemon_run(const struct daemon_config *c, const struct daemon_start *s);

/*
 * The signals the daemon reads from a signalfd: SIGTERM, SIGINT, SIGQUIT and
 * SIGHUP. Blocked from the fork on (background_fork()), so that one sent
 * before the daemon reads them waits for it.
 */
void daemon_signals(sigset_t *ret);

/*
 * Pure: whether the signal signo stops the daemon. SIGTERM (what systemd's,
 * OpenRC's and the LSB script's stop send), SIGINT (^C in a terminal) and
 * SIGQUIT, which asks a program to quit, do: the stamp is saved and the pid
 * file removed, and no core is dumped (nothing went wrong). SIGHUP does not:
 * the daemon has no configuration to reload nor log file to reopen, and a
 * SIGHUP sent to every daemon (after log rotation, `killall -HUP`) must not
 * end the one that keeps the stamp fresh, its pid file left behind; it only
 * says so.
 */
bool daemon_signal_stops(int signo);

/* Tells systemd the service is ready, with status, when the daemon stops before daemon_run(). */
void daemon_ready(const char *status);

/*
 * The daemon's states (docs/design.md §6). Whether the network is up is one
 * of them only until NTP synchronised or the timeout passed: a route seen
 * later still starts the NTP unit, in the state the daemon is in.
 */
enum daemon_state {
        DAEMON_WAITING_FOR_NETWORK, /* no default route yet; synchronisation is looked for all the same */
        DAEMON_WAITING_FOR_SYNC,    /* the network is up (the NTP unit started): waiting for NTP */
        DAEMON_TIMED_OUT,           /* the timeout passed first; with stay, still looking for NTP */
        DAEMON_SYNCHRONIZED,        /* NTP synchronised the clock; with stay, keeping the stamp fresh */
        DAEMON_STOPPING,            /* SIGTERM, SIGINT, SIGQUIT: the stamp saved, nothing else done */
};

/* The daemon's timers, in the order they are handled when several are due at once. */
enum daemon_timer {
        DAEMON_TIMER_CHECK,   /* look for synchronisation (and start the NTP unit again) */
        DAEMON_TIMER_TIMEOUT, /* the timeout */
        DAEMON_TIMER_SAVE,    /* refresh the stamp; due at USEC_INFINITY when it is not kept */
        _DAEMON_TIMER_MAX,
};

/*
 * Pure: whether a timer counts in a state: the check until synchronised (also
 * after the timeout, with stay), the timeout only while waiting, the save timer
 * in every state but stopping.
 */
bool daemon_timer_armed(enum daemon_state state, enum daemon_timer timer);

/* Pure: the earliest due time (CLOCK_BOOTTIME) of the timers armed in state, or USEC_INFINITY. */
usec_t daemon_next_wake(enum daemon_state state, const usec_t due[static _DAEMON_TIMER_MAX]);

struct sync_watch;

/*
 * Pure: when to look for synchronisation next, at boot time now: while the network is down
 * nothing but an event (a route, a step) brings a look; once it is up every check_every (backing
 * off to 32 s), and every 0.5 s for 10 minutes after a step (a client lowers the maximum error
 * seconds to minutes after its step: chrony 2 s, openntpd up to 6 minutes), and when a sign with
 * no step behind it is old enough to be taken (SYNC_SETTLE). USEC_INFINITY: never.
 */
usec_t daemon_next_check(const struct sync_watch *w, bool network_up, usec_t check_every, usec_t now);

/* Pure: poll()'s timeout until the boot time wake: milliseconds rounded up, 0 when past, -1 for never. */
int daemon_poll_timeout(usec_t wake, usec_t now);

/* Pure: whether the daemon is done in state: stopping, or synchronised or timed out without stay. */
bool daemon_finished(enum daemon_state state, bool stay);
