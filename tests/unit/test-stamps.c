/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-stamps: the pure parts of the stamp files: ext4 inode times, fake-hwclock's date, whether to read
 * them */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "disk/stamps.h"
#include "test.h"

#define S(sec) ((usec_t)USEC_PER_SEC * (sec))

static void test_ext4_time(void)
{
        /* Whole seconds, with and without the extra field. */
        check_u64(ext4_time_to_usec(1796100000u, 0, false), S(1796100000));
        check_u64(ext4_time_to_usec(1796100000u, 0, true), S(1796100000));
        /* Nanoseconds in the upper 30 bits, rounded down to microseconds. */
        check_u64(ext4_time_to_usec(1796100000u, 499999995u << 2, true), S(1796100000) + 499999);
        check_u64(ext4_time_to_usec(1796100000u, 999999999u << 2, true), S(1796100000) + 999999);
        /* Ignored without the extra field. */
        check_u64(ext4_time_to_usec(1796100000u, 499999995u << 2, false), S(1796100000));
        /* The base is signed: 0x80000000 is 1901 without epoch bits, 2038 with epoch 1. */
        check_u64(ext4_time_to_usec(0x80000000u, 0, true), 0);
        check_u64(ext4_time_to_usec(0x80000000u, 1, true), S(2147483648u));
        /* Epoch bits 2 and 3 reach past 2106 and 2242. */
        check_u64(ext4_time_to_usec(100u, 2, true), S((2ull << 32) + 100));
        check_u64(ext4_time_to_usec(0xffffffffu, 3, true), S((3ull << 32) - 1));
        /* Not after 1970: not a time. */
        check_u64(ext4_time_to_usec(0, 0, true), 0);
        check_u64(ext4_time_to_usec(0xfffffff0u, 0, false), 0);
        /* Nanoseconds out of range are dropped, not added. */
        check_u64(ext4_time_to_usec(1796100000u, 0xfffffffcu, true), S(1796100000));
}

static void test_fake_hwclock(void)
{
        usec_t t = 0;

        check_int(parse_fake_hwclock("2026-12-01 08:00:00\n", 20, &t), 0);
        check_u64(t, S(1796112000));
        check_int(parse_fake_hwclock("2026-12-01 08:00:00", 19, &t), 0);
        check_u64(t, S(1796112000));
        check_int(parse_fake_hwclock("2026-12-01 08:00:00 \r\nmore lines\n", 33, &t), 0);
        check_u64(t, S(1796112000));
        /* Only the given size is read: no terminator needed. */
        check_int(parse_fake_hwclock("2026-12-01 08:00:00XYZ", 19, &t), 0);
        check_int(parse_fake_hwclock("", 0, &t), -EINVAL);
        check_int(parse_fake_hwclock("\n", 1, &t), -EINVAL);
        check_int(parse_fake_hwclock("not a date\n", 11, &t), -EINVAL);
        check_int(parse_fake_hwclock("2026-13-01 08:00:00\n", 20, &t), -EINVAL);
        check_int(parse_fake_hwclock("2026-12-01 08:00:00 garbage\n", 28, &t), -EINVAL);
        /* A line longer than any date. */
        check_int(parse_fake_hwclock("2026-12-01 08:00:00                                              "
                                     "                        x",
                          88, &t),
                -EINVAL);
}

static void test_names(void)
{
        check_str(stamp_path(STAMP_TIMESYNCD), "/var/lib/systemd/timesync/clock");
        check_str(stamp_source(STAMP_FAKE_HWCLOCK), "file:/etc/fake-hwclock.data");
        check_str(stamp_source(STAMP_CLOCKFIX), "file:/var/lib/clockfix/clock");
        check(stamp_path(_STAMP_MAX) == NULL);
}

/* A journal whose search found commit sequence `newest` and, as the newest plausible, `best` (0: none). */
static struct journal_report journal(uint32_t newest, uint32_t best)
{
        return (struct journal_report){
                .location = JOURNAL_INODE,
                .inode = 8,
                .jbd2 = {
                        .newest = { .found = newest != 0, .sequence = newest, .block = 100, .time = S(1796200000) },
                        .best = { .found = best != 0, .sequence = best, .block = 90, .time = S(1796100000) },
                        .blocks_read = 20,
                        .budget = 1024,
                },
        };
}

static void test_needed(void)
{
        struct journal_report j = journal(50, 50);
        const struct {
                const char *what;
                struct journal_report journal;
                bool have_journal, fast_commit, live;
                enum stamps_why expect;
        } table[] = {
                /* The only case that skips them: the newest commit of all is plausible, the search whole. */
                { "newest plausible", j, true, false, false, STAMPS_JOURNAL_NEWER },
                /* The mounted /: statx() reads no device, and its page cache may hold what no commit has. */
                { "live", j, true, false, true, STAMPS_LIVE },
                { "live, no journal", j, false, false, true, STAMPS_LIVE },
                /* ext2, --journal-budget 0. */
                { "no journal read", j, false, false, false, STAMPS_NO_JOURNAL },
                { "ext2", { .location = JOURNAL_NONE }, true, false, false, STAMPS_NO_JOURNAL },
                { "journal error",
                        { .location = JOURNAL_INODE, .error = -EUCLEAN, .reason = "bad", .jbd2 = j.jbd2 },
                        true, false, false, STAMPS_JOURNAL_ERROR },
                { "external journal not found", { .location = JOURNAL_DEVICE, .error = -ENODEV }, true,
                        false, false, STAMPS_JOURNAL_ERROR },
                /* A fast commit records an inode's new times with no commit time of its own. */
                { "fast commits", j, true, true, false, STAMPS_FAST_COMMIT },
                { "no commit", journal(0, 0), true, false, false, STAMPS_NO_COMMIT },
                /* A wrong clock's commits after the good ones: a stamp may be newer than the best. */
                { "newest implausible", journal(60, 50), true, false, false, STAMPS_NEWEST_IMPLAUSIBLE },
                { "none plausible", journal(60, 0), true, false, false, STAMPS_NEWEST_IMPLAUSIBLE },
        };

        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                enum stamps_why w = stamps_needed(table[i].have_journal ? &table[i].journal : NULL,
                        table[i].fast_commit, table[i].live);
                if (w != table[i].expect)
                        fprintf(stderr, "%s:\n", table[i].what);
                check_int(w, table[i].expect);
                check(stamps_why_reads(w) == (w != STAMPS_JOURNAL_NEWER));
        }

        /* The search stopped for its budget: a newer commit may lie beyond what it read. */
        j.jbd2.budget_exhausted = true;
        check_int(stamps_needed(&j, false, false), STAMPS_BUDGET_SPENT);
        j.jbd2.budget_exhausted = false;
        j.jbd2.bad_checksums = 1;
        check_int(stamps_needed(&j, false, false), STAMPS_JOURNAL_DAMAGED);
        j.jbd2.bad_checksums = 0;
        j.jbd2.read_errors = 2;
        check_int(stamps_needed(&j, false, false), STAMPS_JOURNAL_DAMAGED);
        j.jbd2.read_errors = 0;
        j.jbd2.budget_exhausted = true;

        /* What gather decides alone reads nothing either; every reason has a text. */
        check(!stamps_why_reads(STAMPS_NOT_ASKED));
        check(!stamps_why_reads(STAMPS_UNKNOWN_FEATURES));
        for (enum stamps_why w = 0; w < _STAMPS_WHY_MAX; w++)
                check(strcmp(stamps_why_to_text(w), "?") != 0);
        check_str(stamps_why_to_text(_STAMPS_WHY_MAX), "?");
        check(!stamps_why_reads(_STAMPS_WHY_MAX));
}

int main(void)
{
        test_ext4_time();
        test_fake_hwclock();
        test_names();
        test_needed();
        test_end();
}
