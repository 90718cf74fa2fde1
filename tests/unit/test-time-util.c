/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-time-util: calendar conversion, ISO 8601 formatting and parsing */

#include <errno.h>

#include "basic/time-util.h"
#include "test.h"

static void test_format(void)
{
        char buf[ISO_TIME_MAX];

        check_str(format_iso(buf, 0), "1970-01-01T00:00:00Z");
        check_str(format_iso(buf, 999999), "1970-01-01T00:00:00Z"); /* rounded down */
        check_str(format_iso(buf, 946684800 * USEC_PER_SEC), "2000-01-01T00:00:00Z");
        check_str(format_iso(buf, 951782400 * USEC_PER_SEC), "2000-02-29T00:00:00Z");
        check_str(format_iso(buf, 2147483647 * USEC_PER_SEC), "2038-01-19T03:14:07Z");
        check_str(format_iso(buf, 2147483648 * USEC_PER_SEC), "2038-01-19T03:14:08Z");
        check_str(format_iso(buf, 4294967295 * USEC_PER_SEC), "2106-02-07T06:28:15Z");
        check_str(format_iso(buf, 4294967296 * USEC_PER_SEC), "2106-02-07T06:28:16Z");
        /* The largest superblock time: 40 bits of seconds. */
        check_str(format_iso(buf, 1099511627775 * USEC_PER_SEC), "36812-02-20T00:36:15Z");
        check_str(format_iso(buf, USEC_INFINITY), "586524-01-19T08:01:49Z");
        /* A time from a disk that saturated is no date. */
        check_str(format_disk_time(buf, USEC_INFINITY), "out of range");
        check_str(format_disk_time(buf, USEC_INFINITY - 1), "586524-01-19T08:01:49Z");
        check_str(format_disk_time(buf, 946684800 * USEC_PER_SEC), "2000-01-01T00:00:00Z");
}

static void test_civil(void)
{
        /* Every day from 1900 to 2400 round-trips, and consecutive days are consecutive dates. */
        int64_t y0;
        unsigned m0, d0;
        civil_from_days(days_from_civil(1900, 1, 1) - 1, &y0, &m0, &d0);
        check_int(y0, 1899);
        check_int(m0, 12);
        check_int(d0, 31);
        for (int64_t day = days_from_civil(1900, 1, 1); day < days_from_civil(2400, 1, 1); day++) {
                int64_t y;
                unsigned m, d;
                civil_from_days(day, &y, &m, &d);
                if (days_from_civil(y, m, d) != day) {
                        check_int(days_from_civil(y, m, d), day);
                        break;
                }
        }
        check_int(days_from_civil(1970, 1, 1), 0);
        check_int(days_from_civil(2000, 3, 1), 11017);
        check_int(days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 28), 1); /* 2100 is not leap */
        check_int(days_from_civil(2000, 3, 1) - days_from_civil(2000, 2, 28), 2); /* 2000 is */
}

static void test_parse_time(void)
{
        usec_t t = 0;

        check_int(parse_time("@1767225600", &t), 0);
        check_u64(t, 1767225600 * USEC_PER_SEC);
        check_int(parse_time("1767225601", &t), 0);
        check_u64(t, 1767225601 * USEC_PER_SEC);
        check_int(parse_time("2026-01-01", &t), 0);
        check_u64(t, 1767225600 * USEC_PER_SEC);
        check_int(parse_time("2026-01-01T10:03", &t), 0);
        check_u64(t, (1767225600 + 36180) * USEC_PER_SEC);
        check_int(parse_time("2026-01-01T10:03:49Z", &t), 0);
        check_u64(t, (1767225600 + 36229) * USEC_PER_SEC);
        check_int(parse_time("2026-01-01 10:03:49", &t), 0);
        check_u64(t, (1767225600 + 36229) * USEC_PER_SEC);
        check_int(parse_time("2106-02-07T06:28:16Z", &t), 0);
        check_u64(t, 4294967296 * USEC_PER_SEC);
        check_int(parse_time("2024-02-29", &t), 0);
        check_int(parse_time("9999-12-31T23:59:59Z", &t), 0);
        check_u64(t, 253402300799 * USEC_PER_SEC);

        t = 42;
        check_int(parse_time("", &t), -EINVAL);
        check_int(parse_time("@", &t), -EINVAL);
        check_int(parse_time("yesterday", &t), -EINVAL);
        check_int(parse_time("2026-1-1", &t), -EINVAL);
        check_int(parse_time("2026-13-01", &t), -EINVAL);
        check_int(parse_time("2026-02-29", &t), -EINVAL);
        check_int(parse_time("2026-01-01T24:00", &t), -EINVAL);
        check_int(parse_time("2026-01-01T10:60", &t), -EINVAL);
        check_int(parse_time("2026-01-01T10:03:49+02:00", &t), -EINVAL);
        check_int(parse_time("2026-01-01Tx", &t), -EINVAL);
        check_int(parse_time("@-5", &t), -EINVAL);
        check_int(parse_time("1969-12-31", &t), -ERANGE);
        check_int(parse_time("@18446744073709551616", &t), -ERANGE);
        check_int(parse_time("@18446744073710", &t), -ERANGE); /* seconds that overflow microseconds */
        check_int(parse_time(NULL, &t), -EINVAL);
        check_u64(t, 42); /* untouched on failure */
}

static void test_parse_seconds(void)
{
        usec_t t = 0;

        check_int(parse_seconds("0", &t), 0);
        check_u64(t, 0);
        check_int(parse_seconds("1", &t), 0);
        check_u64(t, USEC_PER_SEC);
        check_int(parse_seconds("0.5", &t), 0);
        check_u64(t, 500000);
        check_int(parse_seconds("2.000001", &t), 0);
        check_u64(t, 2000001);
        check_int(parse_seconds("86400", &t), 0);
        check_u64(t, 86400 * USEC_PER_SEC);

        t = 42;
        check_int(parse_seconds("", &t), -EINVAL);
        check_int(parse_seconds("-1", &t), -EINVAL);
        check_int(parse_seconds("1.", &t), -EINVAL);
        check_int(parse_seconds(".5", &t), -EINVAL);
        check_int(parse_seconds("1.0000001", &t), -EINVAL);
        check_int(parse_seconds("1s", &t), -EINVAL);
        check_int(parse_seconds("1e3", &t), -EINVAL);
        check_int(parse_seconds("18446744073710", &t), -ERANGE);
        check_int(parse_seconds("99999999999999999999999999999999999", &t), -ERANGE);
        check_u64(t, 42);
}

static void test_duration(void)
{
        char buf[DURATION_MAX];

        check_str(format_duration(buf, 0, 59 * USEC_PER_SEC), "+59 s");
        check_str(format_duration(buf, 61 * USEC_PER_SEC, 0), "-1 min 1 s");
        check_str(format_duration(buf, 0, 3600 * USEC_PER_SEC), "+1 h 0 min 0 s");
        check_str(format_duration(buf, 0, (86400 * 849 + 3661) * USEC_PER_SEC), "+849 d 1 h 1 min 1 s");
}

static void test_seconds(void)
{
        char buf[SECONDS_MAX];

        check_str(format_seconds(buf, 0), "0");
        check_str(format_seconds(buf, USEC_PER_SEC), "1");
        check_str(format_seconds(buf, 250000), "0.25");
        check_str(format_seconds(buf, 90000001), "90.000001");
        check_str(format_seconds(buf, 90500000), "90.5");
        check_str(format_seconds(buf, USEC_INFINITY), "18446744073709.551615");
}

static void test_sec_to_usec(void)
{
        usec_t u;

        check(sec_to_usec(0, &u) && u == 0);
        check(sec_to_usec(SEC_MAX_AS_USEC, &u) && u == SEC_MAX_AS_USEC * USEC_PER_SEC);
        check(!sec_to_usec(SEC_MAX_AS_USEC + 1, &u));
        check(!sec_to_usec(UINT64_MAX, &u));
}

int main(void)
{
        test_format();
        test_civil();
        test_parse_time();
        test_parse_seconds();
        test_duration();
        test_seconds();
        test_sec_to_usec();
        test_end();
}
