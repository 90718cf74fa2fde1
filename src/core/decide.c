/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decide: from candidate times and the current clock to what the clock should read (pure) */

#include <errno.h>

#include "core/decide.h"

int policy_validate(const struct policy *p)
{
        if (p->floor > p->not_after)
                return -EINVAL;
        if (p->not_after > USEC_INFINITY - p->margin)
                return -EOVERFLOW;
        return 0;
}

enum verdict candidate_verdict(const struct policy *p, const struct candidate *c)
{
        if (c->time > p->not_after)
                return VERDICT_AFTER_NOT_AFTER;
        if (c->future_at_sync)
                return VERDICT_FUTURE_AT_SYNC;
        if (c->time < p->floor)
                return VERDICT_BEFORE_FLOOR;
        return VERDICT_PLAUSIBLE;
}

int decide(const struct policy *p, usec_t now, bool synchronized, const struct candidate *candidates,
        size_t n, struct decision *ret)
{
        const struct candidate *winner = NULL;
        bool evidence = false;
        int r;

        r = policy_validate(p);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                const struct candidate *c = candidates + i;

                switch (candidate_verdict(p, c)) {
                case VERDICT_PLAUSIBLE:
                        if (!winner || c->time > winner->time)
                                winner = c;
                        evidence = true;
                        break;
                case VERDICT_BEFORE_FLOOR:
                        /* The disk is readable and sane, merely older than this binary. */
                        evidence = true;
                        break;
                default:
                        break;
                }
        }

        if (!evidence) {
                /*
                 * Nothing on the disks says what time it is, but this binary exists: the real time
                 * is no earlier than the floor. A clock before it (1970, a reset RTC's 2000) is
                 * set there, as systemd does with its own build time: else the first read-write
                 * mount, and every log line, carry 1970.
                 */
                bool floor = p->floor_fallback && !synchronized && now < p->floor;

                *ret = (struct decision){
                        .action = floor ? ACTION_SET : ACTION_UNAVAILABLE,
                        .estimate = floor ? p->floor : 0,
                        .target = floor ? p->floor : 0,
                        .clock_implausible = now > p->not_after,
                        .clock_synchronized = synchronized,
                };
                return 0;
        }

        /* A candidate equal to the floor still names its source: the disk, not the build, said so. */
        usec_t estimate = winner ? winner->time : p->floor;
        /*
         * Never past not-after, whatever the margin: a later time is what these rules
         * call corrupt or crafted, and a clock set there would stamp it on the disk
         * for the next boot. (estimate <= not_after: the difference cannot wrap.)
         */
        usec_t target = p->margin > p->not_after - estimate ? p->not_after : estimate + p->margin;
        bool implausible = now > p->not_after;

        /*
         * A clock that NTP synchronised is right, whatever the disk says: a disk
         * time ahead of it was written while the clock was wrong, and an
         * "implausible" clock only means this binary is older than the window.
         * (At boot the kernel never reports a synchronised clock.)
         */
        *ret = (struct decision){
                .action = !synchronized && (now < target || implausible) ? ACTION_SET : ACTION_NONE,
                .estimate = estimate,
                .target = target,
                .winner = winner,
                .evidence = true,
                .clock_implausible = implausible,
                .clock_synchronized = synchronized,
        };
        return 0;
}

const char *verdict_to_string(enum verdict v)
{
        static const char *const table[_VERDICT_MAX] = {
                [VERDICT_PLAUSIBLE] = "plausible",
                [VERDICT_BEFORE_FLOOR] = "before_floor",
                [VERDICT_AFTER_NOT_AFTER] = "after_not_after",
                [VERDICT_FUTURE_AT_SYNC] = "future_at_last_sync",
        };
        return (unsigned)v < _VERDICT_MAX ? table[v] : "invalid";
}

const char *verdict_to_text(enum verdict v)
{
        static const char *const table[_VERDICT_MAX] = {
                [VERDICT_PLAUSIBLE] = "plausible",
                [VERDICT_BEFORE_FLOOR] = "before the floor",
                [VERDICT_AFTER_NOT_AFTER] = "after not-after",
                [VERDICT_FUTURE_AT_SYNC] = "in the future at the last sync",
        };
        return (unsigned)v < _VERDICT_MAX ? table[v] : "invalid";
}

const char *action_to_string(enum action a)
{
        static const char *const table[_ACTION_MAX] = {
                [ACTION_UNAVAILABLE] = "unavailable",
                [ACTION_NONE] = "none",
                [ACTION_SET] = "set",
        };
        return (unsigned)a < _ACTION_MAX ? table[a] : "invalid";
}
