/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-decide: the decision on any policy, clock and candidates (from the
 * input's bytes), against the rules of docs/design.md §3: the clock only moves
 * forward unless it is itself implausible, the estimate is never before the
 * floor nor after not-after, nor is the target, no margin overflows, nothing is set without
 * evidence (but a clock before the floor, to the floor, with floor_fallback) or while NTP keeps
 * the clock.
 */

#include <string.h>

#include "core/decide.h"
#include "fuzz.h"

#define MAX_CANDIDATES 16

static usec_t take(const uint8_t **p, size_t *left)
{
        usec_t v = 0;
        size_t n = *left < sizeof(v) ? *left : sizeof(v);

        memcpy(&v, *p, n);
        *p += n;
        *left -= n;
        return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct candidate c[MAX_CANDIDATES];
        struct decision d;
        struct policy p;
        usec_t now;
        bool synchronized = size % 2;
        size_t n = 0;

        p.floor_fallback = size % 4 >= 2;
        p.floor = take(&data, &size);
        p.not_after = take(&data, &size);
        p.margin = take(&data, &size) % (3600 * USEC_PER_SEC);
        now = take(&data, &size);
        while (size > 0 && n < MAX_CANDIDATES)
                c[n++] = (struct candidate){
                        .device = "fuzz", .source = "fuzz", .time = take(&data, &size)
                };

        if (decide(&p, now, synchronized, c, n, &d) < 0) {
                FUZZ_CHECK(policy_validate(&p) < 0);
                return 0;
        }
        if (d.action == ACTION_UNAVAILABLE) {
                FUZZ_CHECK(d.estimate == 0 && d.target == 0 && !d.winner && !d.evidence);
                return 0;
        }
        if (!d.evidence) {
                /* No evidence: only the floor, from before it, when asked to, NTP not keeping the clock. */
                FUZZ_CHECK(d.action == ACTION_SET && p.floor_fallback && !synchronized && now < p.floor);
                FUZZ_CHECK(d.estimate == p.floor && d.target == p.floor && !d.winner);
                return 0;
        }
        FUZZ_CHECK(d.estimate >= p.floor && d.estimate <= p.not_after);
        FUZZ_CHECK(d.target <= p.not_after);
        FUZZ_CHECK(d.target == (p.margin > p.not_after - d.estimate ? p.not_after : d.estimate + p.margin));
        if (d.winner)
                FUZZ_CHECK(d.winner->time == d.estimate &&
                        candidate_verdict(&p, d.winner) == VERDICT_PLAUSIBLE);
        if (d.action == ACTION_SET) {
                FUZZ_CHECK(!synchronized);
                FUZZ_CHECK(now < d.target || d.clock_implausible);
        }
        if (synchronized)
                FUZZ_CHECK(d.action == ACTION_NONE);
        return 0;
}
