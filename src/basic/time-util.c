/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* time-util: microsecond time values, UTC calendar conversion, parsing, the monotonic clock */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/time-util.h"

/* How often to look again for something that has not appeared (a device: initramfs, --wait). */
#define POLL_USEC ((usec_t)50 * 1000)

bool sec_to_usec(uint64_t sec, usec_t *ret)
{
        if (sec > SEC_MAX_AS_USEC)
                return false;
        *ret = sec * USEC_PER_SEC;
        return true;
}

/*
 * Calendar arithmetic without gmtime()/timegm(): they take a time_t, which is
 * 32 bits on older 32-bit ARM userlands, and they may consult the time zone
 * database. This is the well-known era-based algorithm (400-year cycles of
 * 146097 days), exact for every proleptic Gregorian date.
 */
int64_t days_from_civil(int64_t year, unsigned month, unsigned day)
{
        int64_t y = month <= 2 ? year - 1 : year;
        int64_t era = (y >= 0 ? y : y - 399) / 400;
        unsigned yoe = (unsigned)(y - era * 400);
        unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

        return era * 146097 + (int64_t)doe - 719468;
}

void civil_from_days(int64_t days, int64_t *ret_year, unsigned *ret_month, unsigned *ret_day)
{
        int64_t z = days + 719468;
        int64_t era = (z >= 0 ? z : z - 146096) / 146097;
        unsigned doe = (unsigned)(z - era * 146097);
        unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        unsigned mp = (5 * doy + 2) / 153;
        unsigned month = mp < 10 ? mp + 3 : mp - 9;

        *ret_year = (int64_t)yoe + era * 400 + (month <= 2);
        *ret_month = month;
        *ret_day = doy - (153 * mp + 2) / 5 + 1;
}

char *format_iso(char buf[static ISO_TIME_MAX], usec_t t)
{
        uint64_t sec = t / USEC_PER_SEC;
        uint64_t sod = sec % SEC_PER_DAY;
        int64_t year;
        unsigned month, day;

        civil_from_days((int64_t)(sec / SEC_PER_DAY), &year, &month, &day);
        snprintf(buf, ISO_TIME_MAX, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02uZ", year, month, day,
                (unsigned)(sod / 3600), (unsigned)(sod / 60 % 60), (unsigned)(sod % 60));
        return buf;
}

char *format_disk_time(char buf[static ISO_TIME_MAX], usec_t t)
{
        if (t == USEC_INFINITY) {
                snprintf(buf, ISO_TIME_MAX, "out of range");
                return buf;
        }
        return format_iso(buf, t);
}

char *format_duration(char buf[static DURATION_MAX], usec_t from, usec_t to)
{
        uint64_t s = from <= to ? to / USEC_PER_SEC - from / USEC_PER_SEC
                                : from / USEC_PER_SEC - to / USEC_PER_SEC;
        char sign = from <= to ? '+' : '-';

        if (s < 60)
                snprintf(buf, DURATION_MAX, "%c%" PRIu64 " s", sign, s);
        else if (s < 3600)
                snprintf(buf, DURATION_MAX, "%c%" PRIu64 " min %" PRIu64 " s", sign, s / 60, s % 60);
        else if (s < SEC_PER_DAY)
                snprintf(buf, DURATION_MAX, "%c%" PRIu64 " h %" PRIu64 " min %" PRIu64 " s", sign, s / 3600,
                        s / 60 % 60, s % 60);
        else
                snprintf(buf, DURATION_MAX, "%c%" PRIu64 " d %" PRIu64 " h %" PRIu64 " min %" PRIu64 " s",
                        sign, s / SEC_PER_DAY, s / 3600 % 24, s / 60 % 60, s % 60);
        return buf;
}

char *format_seconds(char buf[static SECONDS_MAX], usec_t u)
{
        unsigned frac = (unsigned)(u % USEC_PER_SEC);
        int digits = 6;

        if (frac == 0) {
                snprintf(buf, SECONDS_MAX, "%" PRIu64, u / USEC_PER_SEC);
                return buf;
        }
        while (frac % 10 == 0) {
                frac /= 10;
                digits--;
        }
        snprintf(buf, SECONDS_MAX, "%" PRIu64 ".%0*u", u / USEC_PER_SEC, digits, frac);
        return buf;
}

char *format_signed_seconds(char buf[static SECONDS_MAX + 1], int64_t us)
{
        char s[SECONDS_MAX];

        /* (-(us + 1)) + 1: INT64_MIN's magnitude, without overflowing int64_t) */
        snprintf(buf, SECONDS_MAX + 1, "%c%s", us < 0 ? '-' : '+',
                format_seconds(s, us < 0 ? (usec_t)(-(us + 1)) + 1 : (usec_t)us));
        return buf;
}

/* Reads exactly n decimal digits; returns false if any is missing. */
static bool take_digits(const char **p, unsigned n, unsigned *ret)
{
        unsigned v = 0;

        for (unsigned i = 0; i < n; i++) {
                char c = (*p)[i];
                if (c < '0' || c > '9')
                        return false;
                v = v * 10 + (unsigned)(c - '0');
        }
        *p += n;
        *ret = v;
        return true;
}

/* Parses an unsigned decimal integer that fills the whole of s. */
static int parse_u64(const char *s, uint64_t *ret)
{
        uint64_t v = 0;

        if (*s == '\0')
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t)(*s - '0');
        }
        *ret = v;
        return 0;
}

static unsigned days_in_month(int64_t year, unsigned month)
{
        static const unsigned days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

        return month == 2 && leap ? 29 : days[month - 1];
}

int parse_time(const char *s, usec_t *ret)
{
        unsigned year, month, day, hour = 0, minute = 0, second = 0;
        const char *p = s;
        uint64_t sec;
        usec_t t;
        int r;

        if (!s)
                return -EINVAL;

        if (*s == '@' || strspn(s, "0123456789") == strlen(s)) {
                r = parse_u64(*s == '@' ? s + 1 : s, &sec);
                if (r < 0)
                        return r;
                if (!sec_to_usec(sec, &t))
                        return -ERANGE;
                *ret = t;
                return 0;
        }

        if (!take_digits(&p, 4, &year) || *p++ != '-' || !take_digits(&p, 2, &month) || *p++ != '-' ||
                !take_digits(&p, 2, &day))
                return -EINVAL;
        if (*p == 'T' || *p == ' ') {
                p++;
                if (!take_digits(&p, 2, &hour) || *p++ != ':' || !take_digits(&p, 2, &minute))
                        return -EINVAL;
                if (*p == ':') {
                        p++;
                        if (!take_digits(&p, 2, &second))
                                return -EINVAL;
                }
        }
        if (*p == 'Z')
                p++;
        if (*p != '\0')
                return -EINVAL;
        if (year < 1970)
                return -ERANGE;
        if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
                minute > 59 || second > 59)
                return -EINVAL;

        sec = (uint64_t)days_from_civil(year, month, day) * SEC_PER_DAY + hour * 3600u + minute * 60u +
                second;
        *ret = sec * USEC_PER_SEC;
        return 0;
}

int parse_seconds(const char *s, usec_t *ret)
{
        char whole[32];
        const char *dot;
        uint64_t sec, frac = 0;
        size_t n;
        int r;

        if (!s)
                return -EINVAL;
        dot = strchr(s, '.');
        n = dot ? (size_t)(dot - s) : strlen(s);
        if (n == 0 || n >= sizeof(whole))
                return n == 0 ? -EINVAL : -ERANGE;
        memcpy(whole, s, n);
        whole[n] = '\0';
        r = parse_u64(whole, &sec);
        if (r < 0)
                return r;

        if (dot) {
                const char *f = dot + 1;
                size_t digits = strlen(f);

                if (digits == 0 || digits > 6 || strspn(f, "0123456789") != digits)
                        return -EINVAL;
                for (size_t i = 0; i < 6; i++)
                        frac = frac * 10 + (i < digits ? (uint64_t)(f[i] - '0') : 0);
        }

        if (!sec_to_usec(sec, ret) || *ret > USEC_INFINITY - frac)
                return -ERANGE;
        *ret += frac;
        return 0;
}

usec_t now_monotonic(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / NSEC_PER_USEC;
}

bool wait_a_moment(usec_t deadline)
{
        usec_t now = now_monotonic();

        if (now >= deadline)
                return false;
        usec_t step = deadline - now < POLL_USEC ? deadline - now : POLL_USEC;
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)(step * NSEC_PER_USEC) };
        nanosleep(&ts, NULL);
        return true;
}
