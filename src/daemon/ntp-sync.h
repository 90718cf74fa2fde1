/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ntp-sync: when the daemon takes the clock as synchronised by NTP, from
 * the signs a client leaves and the steps it makes (docs/design.md §6). Pure:
 * the daemon reads the kernel, the flag file and the clocks, and hands them in.
 */
#pragma once

#include <stdbool.h>

#include "basic/time-util.h"

struct ntp_kernel;

/*
 * A change of the clock against the boot clock by at least this much is a step. Less is the
 * zero-length step chrony makes at its start to learn whether the kernel can step, or what is
 * left of reading two clocks: microseconds. NTP clients step by more: ntpd 128 ms, timesyncd
 * 400 ms, chrony and busybox ntpd 1 s.
 */
#define SYNC_STEP_MIN (10 * USEC_PER_SEC / 1000)

/*
 * A sign with no step behind it, where none is expected, is taken once it held this long with
 * no step: ntpd (ntpsec 1.2) marks the kernel synchronised as it starts, before any reply, and
 * steps the clock after its first four replies, about 8 s after its start with iburst. A clock
 * that was right already has no step to make, so a real synchronisation is never missed: it is
 * only taken this much later.
 */
#define SYNC_SETTLE (30 * USEC_PER_SEC)

/* What says NTP synchronised the clock, at one look, the strongest first. */
enum sync_sign {
        SYNC_SIGN_NONE,
        SYNC_SIGN_TIMESYNCD, /* timesyncd's flag file, touched at each time sample it took */
        SYNC_SIGN_KERNEL,    /* the kernel's maximum error below 16 s: a client lowered it */
        SYNC_SIGN_PLL,       /* STA_PLL: the kernel disciplines the clock for an ntpd (busybox
                              * ntpd never lowers the maximum error) */
};

/* "timesyncd", "kernel", "kernel-pll" (the journal's CLOCKFIX_SYNC_SIGNAL), "none". */
const char *sync_sign_name(enum sync_sign sign);

/* Pure: the sign in what the kernel says and whether timesyncd's flag is new since the start. */
enum sync_sign sync_sign_of(const struct ntp_kernel *kernel, bool timesync_flag_new);

/*
 * Pure: whether NTP must step the clock to synchronise it: the clock at the start is before the
 * floor (nothing set it), or no later than the estimate from the disk plus the time since boot
 * (CLOCK_BOOTTIME): nothing but the disk's times can have set it, and the true time is later by
 * all the time the machine was off, which every client steps rather than slews. A clock later
 * than that came from elsewhere (an RTC, NTP before a restart) and may be right already.
 */
bool sync_expects_step(usec_t realtime, usec_t boottime, bool have_estimate, usec_t target, usec_t floor);

/* The daemon's view of NTP since it started watching the clock. */
struct sync_watch {
        bool step_expected;     /* sync_expects_step() at the start */
        unsigned steps;         /* steps of SYNC_STEP_MIN or more since the start */
        usec_t last_step;       /* CLOCK_BOOTTIME of the last of them */
        usec_t unstepped_since; /* a sign with no step behind it first seen then; USEC_INFINITY: none */
};

enum sync_verdict {
        SYNC_NOT_YET,   /* no sign */
        SYNC_SETTLING,  /* a sign with no step behind it and none expected, not SYNC_SETTLE old */
        SYNC_UNSTEPPED, /* a sign with no step behind it where a step is expected: not NTP's doing */
        SYNC_REAL,      /* NTP synchronised the clock */
};

void sync_watch_init(struct sync_watch *w, bool step_expected);

/* Someone stepped the clock at boot time now (by SYNC_STEP_MIN or more). */
void sync_watch_step(struct sync_watch *w, usec_t now);

/*
 * Pure, but for w: the verdict on the sign seen at boot time now. timesyncd's flag is real
 * whatever came before; a sign of the kernel is real after a step, and without one it is
 * unstepped where a step is expected, else real once it held SYNC_SETTLE with no step.
 */
enum sync_verdict sync_watch_judge(struct sync_watch *w, enum sync_sign sign, usec_t now);
