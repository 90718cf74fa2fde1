/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-decide: every rule of the decision, table-driven */

#include <errno.h>

#include "core/decide.h"
#include "test.h"

#define S(sec) ((usec_t)USEC_PER_SEC * (sec))

/* Points in time used below (UTC, seconds since the epoch). */
#define T2000      946684800u    /* 2000-01-01: a reset RTC */
#define T2026      1767225600u   /* 2026-01-01: the floor of most rows */
#define T2030      1907712000u   /* 2030-06-15 */
#define T2040      2208988800u   /* 2040-01-01: past the signed 32-bit limit */
#define T2056      2713910400u   /* 2056-01-01: not_after of most rows */
#define T2106      4294967295u   /* 2106-02-07T06:28:15: the last unsigned 32-bit second */
#define T2151      5711817600ull /* 2151-01-01: a reset RTC of another kind */
#define T2200      7258118400ull

#define MAXC       4
#define FLOOR_WINS (-1)
#define NONE       (-2) /* no winner field to check (unavailable) */

struct row {
        const char *name;
        struct policy policy;
        usec_t now;
        struct candidate c[MAXC];
        size_t n;
        int ret;
        enum action action;
        usec_t estimate, target;
        int winner; /* index into c, FLOOR_WINS or NONE */
        bool implausible;
        bool synchronized; /* input: NTP keeps the clock (last, so most rows leave it false) */
        bool floor_only;   /* set to the floor with no evidence (floor_fallback) */
};

/*
 * The policy of most rows. A macro: the rows' table is static, and a const object is no constant
 * expression in C (gcc accepts one as an extension; clang does not).
 */
/* (clang-format 14 and 19 lay a braced macro out each its own way: left as written) */
// clang-format off
#define P { .floor = S(T2026), .not_after = S(T2056), .margin = S(1) }
/* The same with the floor as the last resort, as the settings make it by default. */
#define PF { .floor = S(T2026), .not_after = S(T2056), .margin = S(1), .floor_fallback = true }
// clang-format on

static const struct row rows[] = {
        { "no candidates", P, S(T2000), {}, 0, 0, ACTION_UNAVAILABLE, 0, 0, NONE, false },
        { "all before the floor: the floor wins", P, S(T2000),
                { { "d", "a", S(T2000 + 5) }, { "d", "b", S(T2026 - 1) } }, 2, 0, ACTION_SET, S(T2026),
                S(T2026 + 1), FLOOR_WINS, false },
        { "all beyond not-after: unavailable, not even the floor", P, S(T2000),
                { { "d", "a", S(T2056 + 1) }, { "d", "b", S(T2151) } }, 2, 0, ACTION_UNAVAILABLE, 0, 0, NONE,
                false },
        { "newest plausible wins over older and implausible ones", P, S(T2000),
                { { "d", "a", S(T2030) }, { "d", "b", S(T2030 + 60) }, { "d", "c", S(T2151) },
                        { "d", "e", S(T2000) } },
                4, 0, ACTION_SET, S(T2030 + 60), S(T2030 + 61), 1, false },
        { "a tie goes to the first listed", P, S(T2000), { { "d", "a", S(T2030) }, { "d", "b", S(T2030) } },
                2, 0, ACTION_SET, S(T2030), S(T2030 + 1), 0, false },
        { "a time equal to the floor is plausible and names its source", P, S(T2000),
                { { "d", "a", S(T2026) } }, 1, 0, ACTION_SET, S(T2026), S(T2026 + 1), 0, false },
        { "a time equal to not-after is plausible, and the margin stops there", P, S(T2000),
                { { "d", "a", S(T2056) } }, 1, 0, ACTION_SET, S(T2056), S(T2056), 0, false },
        { "one microsecond after not-after is not", P, S(T2000),
                { { "d", "a", S(T2056) + 1 }, { "d", "b", S(T2030) } }, 2, 0, ACTION_SET, S(T2030),
                S(T2030 + 1), 1, false },
        { "clock exactly at the target: nothing to do", P, S(T2030 + 1), { { "d", "a", S(T2030) } }, 1, 0,
                ACTION_NONE, S(T2030), S(T2030 + 1), 0, false },
        { "clock one microsecond before the target: set", P, S(T2030 + 1) - 1, { { "d", "a", S(T2030) } }, 1,
                0, ACTION_SET, S(T2030), S(T2030 + 1), 0, false },
        { "clock ahead: never moved back", P, S(T2040), { { "d", "a", S(T2030) } }, 1, 0, ACTION_NONE,
                S(T2030), S(T2030 + 1), 0, false },
        { "clock in 2151, beyond not-after: set back to the target", P, S(T2151), { { "d", "a", S(T2030) } },
                1, 0, ACTION_SET, S(T2030), S(T2030 + 1), 0, true },
        { "clock in 2151 but no evidence: unavailable", P, S(T2151), { { "d", "a", S(T2200) } }, 1, 0,
                ACTION_UNAVAILABLE, 0, 0, NONE, true },
        /* A value the record lists (in the future at the last sync): neither the estimate nor evidence. */
        { "a value in the future at the last sync loses to the next best", P, S(T2000),
                { { "d", "a", S(T2030), "u" }, { "d", "b", S(T2040), "u", true } }, 2, 0, ACTION_SET,
                S(T2030), S(T2030 + 1), 0, false },
        { "only values in the future at the last sync: unavailable", P, S(T2000),
                { { "d", "a", S(T2040), "u", true }, { "d", "b", S(T2030), "u", true } }, 2, 0,
                ACTION_UNAVAILABLE, 0, 0, NONE, false },
        { "recorded values and one before the floor: the floor", P, S(T2000),
                { { "d", "a", S(T2040), "u", true }, { "d", "b", S(T2000), "u" } }, 2, 0, ACTION_SET,
                S(T2026), S(T2026 + 1), FLOOR_WINS, false },
        { "clock at 1970", P, 0, { { "d", "a", S(T2030) } }, 1, 0, ACTION_SET, S(T2030), S(T2030 + 1), 0,
                false },
        { "a time past 2038", P, S(T2000), { { "d", "a", S(T2040) }, { "d", "b", S(T2030) } }, 2, 0,
                ACTION_SET, S(T2040), S(T2040 + 1), 0, false },
        { "near 2106 and past it (the superblock's _hi byte)",
                { .floor = S(T2026), .not_after = S(T2200), .margin = S(1) }, S(T2000),
                { { "d", "a", S(T2106) }, { "d", "b", S((uint64_t)T2106 + 2) } }, 2, 0, ACTION_SET,
                S((uint64_t)T2106 + 2), S((uint64_t)T2106 + 3), 1, false },
        { "margin 0: target is the estimate", { .floor = S(T2026), .not_after = S(T2056), .margin = 0 },
                S(T2030), { { "d", "a", S(T2030) } }, 1, 0, ACTION_NONE, S(T2030), S(T2030), 0, false },
        { "margin with microseconds", { .floor = S(T2026), .not_after = S(T2056), .margin = 250000 },
                S(T2000), { { "d", "a", S(T2030) } }, 1, 0, ACTION_SET, S(T2030), S(T2030) + 250000, 0,
                false },
        { "before the floor plus implausible: the floor wins", P, S(T2000),
                { { "d", "a", S(T2151) }, { "d", "b", S(T2000) } }, 2, 0, ACTION_SET, S(T2026), S(T2026 + 1),
                FLOOR_WINS, false },
        { "not-after + margin exactly at the limit: the target stops at not-after",
                { .floor = 0, .not_after = USEC_INFINITY - 5, .margin = 5 }, 0,
                { { "d", "a", USEC_INFINITY - 10 } }, 1, 0, ACTION_SET, USEC_INFINITY - 10,
                USEC_INFINITY - 5, 0, false },
        /* Whatever the margin, the target is never after not-after: a later time is one these rules refuse.
         */
        { "a huge margin stops at not-after",
                { .floor = S(T2026), .not_after = S(T2056), .margin = S(1000000000) }, S(T2000),
                { { "d", "a", S(T2030) } }, 1, 0, ACTION_SET, S(T2030), S(T2056), 0, false },
        { "the largest margin not-after allows stops there too",
                { .floor = S(T2026), .not_after = S(T2056), .margin = USEC_INFINITY - S(T2056) }, S(T2000),
                { { "d", "a", S(T2030) } }, 1, 0, ACTION_SET, S(T2030), S(T2056), 0, false },
        { "a day's margin an hour before not-after",
                { .floor = S(T2026), .not_after = S(T2056), .margin = S(86400) }, S(T2000),
                { { "d", "a", S(T2056 - 3600) } }, 1, 0, ACTION_SET, S(T2056 - 3600), S(T2056), 0, false },
        { "a margin that ends exactly at not-after is whole",
                { .floor = S(T2026), .not_after = S(T2056), .margin = S(10) }, S(T2000),
                { { "d", "a", S(T2056 - 10) } }, 1, 0, ACTION_SET, S(T2056 - 10), S(T2056), 0, false },
        { "the floor wins, a huge margin stops at not-after",
                { .floor = S(T2026), .not_after = S(T2030), .margin = S(1000000000) }, S(T2000),
                { { "d", "a", S(T2000 + 5) } }, 1, 0, ACTION_SET, S(T2026), S(T2030), FLOOR_WINS, false },
        { "clock at not-after, huge margin: nothing to do",
                { .floor = S(T2026), .not_after = S(T2056), .margin = S(1000000000) }, S(T2056),
                { { "d", "a", S(T2030) } }, 1, 0, ACTION_NONE, S(T2030), S(T2056), 0, false },
        { "clock in 2151, huge margin: set back, to not-after at most",
                { .floor = S(T2026), .not_after = S(T2056), .margin = S(1000000000) }, S(T2151),
                { { "d", "a", S(T2030) } }, 1, 0, ACTION_SET, S(T2030), S(T2056), 0, true },
        { "not-after + margin would overflow", { .floor = 0, .not_after = USEC_INFINITY, .margin = 1 }, 0,
                { { "d", "a", S(T2030) } }, 1, -EOVERFLOW },
        { "huge margin would overflow",
                { .floor = S(T2026), .not_after = S(T2056), .margin = USEC_INFINITY - S(T2040) }, 0,
                { { "d", "a", S(T2030) } }, 1, -EOVERFLOW },
        { "floor after not-after", { .floor = S(T2056), .not_after = S(T2026), .margin = S(1) }, 0,
                { { "d", "a", S(T2030) } }, 1, -EINVAL },
        { "floor equal to not-after: no room for the margin",
                { .floor = S(T2030), .not_after = S(T2030), .margin = S(1) }, S(T2000),
                { { "d", "a", S(T2030) } }, 1, 0, ACTION_SET, S(T2030), S(T2030), 0, false },
        { .name = "synchronised by NTP and behind the disk: left alone",
                .policy = P,
                .now = S(T2000),
                .c = { { "d", "a", S(T2030) } },
                .n = 1,
                .action = ACTION_NONE,
                .estimate = S(T2030),
                .target = S(T2030 + 1),
                .winner = 0,
                .synchronized = true },
        { .name = "synchronised by NTP and after not-after (an old binary): left alone",
                .policy = P,
                .now = S(T2151),
                .c = { { "d", "a", S(T2030) } },
                .n = 1,
                .action = ACTION_NONE,
                .estimate = S(T2030),
                .target = S(T2030 + 1),
                .winner = 0,
                .implausible = true,
                .synchronized = true },
        { .name = "synchronised by NTP, no evidence: unavailable",
                .policy = P,
                .now = S(T2030),
                .n = 0,
                .action = ACTION_UNAVAILABLE,
                .winner = NONE,
                .synchronized = true },
        /* The floor as the last resort: no evidence, a clock before the floor is set to it. */
        { .name = "no evidence, the clock in 2000: set to the floor itself, no margin",
                .policy = PF,
                .now = S(T2000),
                .action = ACTION_SET,
                .estimate = S(T2026),
                .target = S(T2026),
                .winner = NONE,
                .floor_only = true },
        { .name = "no evidence, the clock at 1970: the floor",
                .policy = PF,
                .now = 0,
                .action = ACTION_SET,
                .estimate = S(T2026),
                .target = S(T2026),
                .winner = NONE,
                .floor_only = true },
        { .name = "only times after not-after, the clock in 2000: the floor",
                .policy = PF,
                .now = S(T2000),
                .c = { { "d", "a", S(T2151) } },
                .n = 1,
                .action = ACTION_SET,
                .estimate = S(T2026),
                .target = S(T2026),
                .winner = NONE,
                .floor_only = true },
        { .name = "only values in the future at the last sync, the clock in 2000: the floor",
                .policy = PF,
                .now = S(T2000),
                .c = { { "d", "a", S(T2040), "u", true } },
                .n = 1,
                .action = ACTION_SET,
                .estimate = S(T2026),
                .target = S(T2026),
                .winner = NONE,
                .floor_only = true },
        { .name = "no evidence, the clock one microsecond before the floor: set",
                .policy = PF,
                .now = S(T2026) - 1,
                .action = ACTION_SET,
                .estimate = S(T2026),
                .target = S(T2026),
                .winner = NONE,
                .floor_only = true },
        { .name = "no evidence, the clock at the floor: left alone",
                .policy = PF,
                .now = S(T2026),
                .action = ACTION_UNAVAILABLE,
                .winner = NONE },
        { .name = "no evidence, the clock past the floor: left alone",
                .policy = PF,
                .now = S(T2030),
                .action = ACTION_UNAVAILABLE,
                .winner = NONE },
        { .name = "no evidence, the clock in 2151: left alone (the floor is for a clock before it)",
                .policy = PF,
                .now = S(T2151),
                .c = { { "d", "a", S(T2200) } },
                .n = 1,
                .action = ACTION_UNAVAILABLE,
                .winner = NONE,
                .implausible = true },
        { .name = "no evidence, the clock in 2000 but synchronised by NTP: left alone",
                .policy = PF,
                .now = S(T2000),
                .action = ACTION_UNAVAILABLE,
                .winner = NONE,
                .synchronized = true },
        { .name = "evidence wins over the fallback: the floor with its margin",
                .policy = PF,
                .now = S(T2000),
                .c = { { "d", "a", S(T2000 + 5) } },
                .n = 1,
                .action = ACTION_SET,
                .estimate = S(T2026),
                .target = S(T2026 + 1),
                .winner = FLOOR_WINS },
        { .name = "evidence wins over the fallback: a disk time",
                .policy = PF,
                .now = S(T2000),
                .c = { { "d", "a", S(T2030) } },
                .n = 1,
                .action = ACTION_SET,
                .estimate = S(T2030),
                .target = S(T2030 + 1),
                .winner = 0 },
};

static void test_rows(void)
{
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *t = rows + i;
                struct decision d = { .action = _ACTION_MAX, .estimate = 12345 };
                int r = decide(&t->policy, t->now, t->synchronized, t->c, t->n, &d);

                fprintf(stderr, "row %zu: %s\n", i, t->name);
                check_int(r, t->ret);
                if (r < 0) {
                        /* Untouched on failure. */
                        check_int(d.action, _ACTION_MAX);
                        check_u64(d.estimate, 12345);
                        continue;
                }
                check_str(action_to_string(d.action), action_to_string(t->action));
                check_u64(d.estimate, t->estimate);
                check_u64(d.target, t->target);
                check_int(d.clock_implausible, t->implausible);
                check_int(d.clock_synchronized, t->synchronized);
                if (t->winner == FLOOR_WINS || t->winner == NONE)
                        check(d.winner == NULL);
                else
                        check(d.winner == &t->c[t->winner]);
                /* The one invariant of it all: the clock moves forward unless it is implausible. */
                if (d.action == ACTION_SET && !d.clock_implausible)
                        check(d.target > t->now);
                /* And never past not-after, whatever the margin. */
                if (d.action != ACTION_UNAVAILABLE)
                        check(d.target <= t->policy.not_after);
                if (t->synchronized)
                        check(d.action != ACTION_SET);
                /* Evidence, unless the floor alone set the clock or nothing was decided. */
                check_int(d.evidence, d.action != ACTION_UNAVAILABLE && !t->floor_only);
                /* Without evidence, never set unless to the floor, from before it, when asked to. */
                if (!d.evidence && d.action == ACTION_SET)
                        check(t->policy.floor_fallback && t->now < t->policy.floor &&
                                d.target == t->policy.floor);
        }
}

static void test_verdicts(void)
{
        const struct policy p = P;
        struct candidate c = { "d", "s", S(T2030) };

        check_int(candidate_verdict(&p, &c), VERDICT_PLAUSIBLE);
        c.time = S(T2026) - 1;
        check_int(candidate_verdict(&p, &c), VERDICT_BEFORE_FLOOR);
        c.time = S(T2056) + 1;
        check_int(candidate_verdict(&p, &c), VERDICT_AFTER_NOT_AFTER);
        /* Recorded: so said, unless it is after not-after anyway. */
        c.future_at_sync = true;
        check_int(candidate_verdict(&p, &c), VERDICT_AFTER_NOT_AFTER);
        c.time = S(T2030);
        check_int(candidate_verdict(&p, &c), VERDICT_FUTURE_AT_SYNC);
        c.time = S(T2000);
        check_int(candidate_verdict(&p, &c), VERDICT_FUTURE_AT_SYNC);
        check_str(verdict_to_string(VERDICT_FUTURE_AT_SYNC), "future_at_last_sync");
        check_str(verdict_to_text(VERDICT_FUTURE_AT_SYNC), "in the future at the last sync");

        check_str(verdict_to_string(VERDICT_PLAUSIBLE), "plausible");
        check_str(verdict_to_string(VERDICT_BEFORE_FLOOR), "before_floor");
        check_str(verdict_to_string(VERDICT_AFTER_NOT_AFTER), "after_not_after");
        check_str(verdict_to_string(_VERDICT_MAX), "invalid");
        check_str(action_to_string(ACTION_UNAVAILABLE), "unavailable");
        check_str(action_to_string(ACTION_NONE), "none");
        check_str(action_to_string(ACTION_SET), "set");
        check_str(action_to_string((enum action) - 1), "invalid");
}

static void test_defaults(void)
{
        const struct policy p = P;

        /* 30 years of 365.25 days, as documented. */
        check_u64(NOT_AFTER_DEFAULT_SPAN, S(10957ull * 86400));
        check_u64(MARGIN_DEFAULT, S(1));
        check_int(policy_validate(&p), 0);
}

int main(void)
{
        test_rows();
        test_verdicts();
        test_defaults();
        test_end();
}
