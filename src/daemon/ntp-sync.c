/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ntp-sync: when the daemon takes the clock as synchronised by NTP. A
 * client's sign alone is not enough: ntpsec 1.2 marks the kernel synchronised
 * as it starts, before it heard any server (it writes its 16 s maximum
 * dispersion into a field of microseconds), and steps the clock seconds later.
 * What cannot be faked is the step itself (docs/design.md §6).
 */

#include "daemon/ntp-sync.h"
#include "basic/clock.h"

const char *sync_sign_name(enum sync_sign sign)
{
        switch (sign) {
        case SYNC_SIGN_TIMESYNCD:
                return "timesyncd";
        case SYNC_SIGN_KERNEL:
                return "kernel";
        case SYNC_SIGN_PLL:
                return "kernel-pll";
        default:
                return "none";
        }
}

enum sync_sign sync_sign_of(const struct ntp_kernel *kernel, bool timesync_flag_new)
{
        if (timesync_flag_new)
                return SYNC_SIGN_TIMESYNCD;
        if (kernel && kernel->maxerror < NTP_MAXERROR_UNSYNCED)
                return SYNC_SIGN_KERNEL;
        if (kernel && kernel->pll)
                return SYNC_SIGN_PLL;
        return SYNC_SIGN_NONE;
}

bool sync_expects_step(usec_t realtime, usec_t boottime, bool have_estimate, usec_t target, usec_t floor)
{
        if (realtime < floor)
                return true;
        return have_estimate && (realtime <= target || realtime - target <= boottime);
}

void sync_watch_init(struct sync_watch *w, bool step_expected)
{
        *w = (struct sync_watch){ .step_expected = step_expected, .unstepped_since = USEC_INFINITY };
}

void sync_watch_step(struct sync_watch *w, usec_t now)
{
        w->steps++;
        w->last_step = now;
        /* A sign seen before the step did not come from a synchronisation: the step does. */
        w->unstepped_since = USEC_INFINITY;
}

enum sync_verdict sync_watch_judge(struct sync_watch *w, enum sync_sign sign, usec_t now)
{
        if (sign == SYNC_SIGN_NONE) {
                w->unstepped_since = USEC_INFINITY;
                return SYNC_NOT_YET;
        }
        /* timesyncd touches its flag only once it adjusted the clock to a server's time. */
        if (sign == SYNC_SIGN_TIMESYNCD || w->steps > 0)
                return SYNC_REAL;
        if (w->step_expected)
                return SYNC_UNSTEPPED;
        if (w->unstepped_since == USEC_INFINITY || w->unstepped_since > now)
                w->unstepped_since = now;
        return now - w->unstepped_since >= SYNC_SETTLE ? SYNC_REAL : SYNC_SETTLING;
}
