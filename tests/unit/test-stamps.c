/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-stamps: the pure parts of the stamp files: ext4 inode times, fake-hwclock's date */

#include <errno.h>

#include "stamps.h"
#include "test.h"

#define S(sec) ((usec_t)(sec)*USEC_PER_SEC)

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

int main(void)
{
        test_ext4_time();
        test_fake_hwclock();
        test_names();
        test_end();
}
