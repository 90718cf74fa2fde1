/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decide: from candidate times and the current clock to what the clock should read (pure) */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/window.h"

/* One time read from one device. Strings are borrowed from the caller. */
struct candidate {
        const char *device;  /* path of the device or image it came from */
        const char *source;  /* "superblock:last_write", ... */
        usec_t time;         /* 0 is never a candidate: readers skip unset fields */
        const char *uuid;    /* its filesystem's UUID, or NULL */
        bool future_at_sync; /* the record lists this exact value: in the future at the last sync */
};

/* What the rules make of one candidate. */
enum verdict {
        VERDICT_PLAUSIBLE,       /* within [floor, not_after]: may win */
        VERDICT_BEFORE_FLOOR,    /* older than the floor: the floor beats it */
        VERDICT_AFTER_NOT_AFTER, /* later than not_after: corrupt or crafted, never used */
        VERDICT_FUTURE_AT_SYNC,  /* this exact value was in the future when NTP last synchronised: never used
                                  */
        _VERDICT_MAX,
};

/*
 * The window (window.h) and the margin. The window's bounds are members of
 * the policy itself (p->floor, p->not_after) and, the same two, one struct
 * window (&p->window) for the journal search, which needs nothing else.
 */
struct policy {
        union {
                struct window window;
                struct {
                        usec_t floor;     /* as in struct window */
                        usec_t not_after; /* as in struct window */
                };
        };
        usec_t margin; /* added to the estimate: the disk was written a moment before power went */
        /*
         * With no usable time on any disk, a clock before the floor is set to the floor, the
         * earliest it can be (else it is left as it is: floor-fallback = no).
         */
        bool floor_fallback;
};

enum action {
        ACTION_UNAVAILABLE, /* no usable evidence, and the clock not before the floor (or no fallback):
                               change nothing */
        ACTION_NONE,        /* the clock is already at or past the target */
        ACTION_SET,         /* set the clock to the target */
        _ACTION_MAX,
};

struct decision {
        enum action action;
        usec_t estimate;                /* 0 when unavailable */
        usec_t target;                  /* estimate + margin, at most not_after; 0 when unavailable */
        const struct candidate *winner; /* NULL when the floor wins (or unavailable) */
        /*
         * A readable disk gave a usable time, or times older than the floor. Without it, the
         * action is set (to the floor: floor_fallback, the clock before it) or unavailable.
         */
        bool evidence;
        bool clock_implausible;  /* now is after not_after, so set may move the clock back */
        bool clock_synchronized; /* NTP synchronised the clock: it is left alone */
};

/* Default window: not_after = floor + 30 years (of 365.25 days). */
#define NOT_AFTER_DEFAULT_SPAN ((usec_t)(30 * 36525 / 100) * SEC_PER_DAY * USEC_PER_SEC)

/* Default margin, 1 s: a larger one compounds forward drift across quick reboot loops. */
#define MARGIN_DEFAULT USEC_PER_SEC

/* Checks a policy: floor <= not_after, and not_after + margin representable. 0, -EINVAL or -EOVERFLOW. */
int policy_validate(const struct policy *p);

/* The verdict on one candidate under policy p. */
enum verdict candidate_verdict(const struct policy *p, const struct candidate *c);

/*
 * Applies the rules of docs/design.md §3 to candidates[0..n) with the clock reading
 * now (synchronized: the kernel says NTP keeps it):
 *   estimate = max(floor, plausible candidates), the first listed winning a tie;
 *   a candidate after not-after, or in the future at the last sync, is neither plausible nor evidence;
 *   target = estimate + margin, or not_after when that is earlier: never a time after not_after;
 *   set when now < target, or when now itself is after not_after; none otherwise,
 *   and none whenever the clock is synchronised: NTP knows better than any disk.
 * With no candidate that is plausible or before the floor (no evidence), a clock before the
 * floor is set to the floor itself, no margin added (with p->floor_fallback, and unless NTP keeps
 * the clock); otherwise the action is unavailable: nothing is changed.
 * Returns 0 and fills *ret, or the error of policy_validate() leaving *ret untouched.
 */
_must_check_ int decide(const struct policy *p, usec_t now, bool synchronized,
        const struct candidate *candidates, size_t n, struct decision *ret);

const char *verdict_to_string(enum verdict v); /* "plausible", "before_floor", ... */
const char *verdict_to_text(enum verdict v);   /* for people: "before the floor", ... */
const char *action_to_string(enum action a);   /* "set", "none", "unavailable" */
