/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* time-util: microsecond time values, UTC calendar conversion, parsing, the monotonic clock */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Wall-clock times are microseconds since the Unix epoch, unsigned, as in
 * systemd. 64 bits of microseconds reach the year 586524, far beyond any
 * time an ext4 superblock can hold (2^40 s, the year 36812), and no time_t
 * crosses a module boundary, so 32-bit systems with a 32-bit time_t still
 * handle dates after 2038 everywhere but in the one call that sets the clock.
 */
typedef uint64_t usec_t;

#define USEC_INFINITY UINT64_MAX
#define USEC_PER_SEC  UINT64_C(1000000)
#define NSEC_PER_USEC UINT64_C(1000)
#define SEC_PER_DAY   UINT64_C(86400)

/* Largest whole second that still converts to usec_t without overflow. */
#define SEC_MAX_AS_USEC (USEC_INFINITY / USEC_PER_SEC)

/* ISO 8601 UTC with seconds ("2026-11-30T10:03:49Z"), years up to 586524. */
#define ISO_TIME_MAX sizeof("+586524-12-31T23:59:59Z")

/* Converts whole seconds to usec_t; returns false when it would overflow. */
bool sec_to_usec(uint64_t sec, usec_t *ret);

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);
void civil_from_days(int64_t days, int64_t *ret_year, unsigned *ret_month, unsigned *ret_day);

/* Formats t (whole seconds, rounded down) as ISO 8601 UTC into buf; returns buf. */
char *format_iso(char buf[static ISO_TIME_MAX], usec_t t);

/*
 * The same for a time read from a disk, where USEC_INFINITY stands for one
 * beyond what usec_t holds (a garbage commit time of 2^63 s saturates to it):
 * "out of range", not a date in the year 586524 that nothing recorded.
 */
char *format_disk_time(char buf[static ISO_TIME_MAX], usec_t t);

/*
 * Formats a signed duration in seconds for people: "+73 s", "-2 h 5 min 0 s",
 * "+849 d 22 h 14 min 3 s". Returns buf.
 */
#define DURATION_MAX 64
char *format_duration(char buf[static DURATION_MAX], usec_t from, usec_t to);

/* Formats a duration in seconds with only the decimals it needs: "1", "0.25", "90.000001". */
#define SECONDS_MAX 32
char *format_seconds(char buf[static SECONDS_MAX], usec_t u);

/* The same, signed, for microseconds: "+3600.25", "-0.00012". */
char *format_signed_seconds(char buf[static SECONDS_MAX + 1], int64_t us);

/*
 * Parses a point in time, always UTC: "@1700000000" or "1700000000" (seconds
 * since the epoch), "2026-11-30", "2026-11-30T10:03", "2026-11-30T10:03:49"
 * (a space may replace the T), each optionally followed by "Z".
 * Returns 0, or -EINVAL for text that is not a time, -ERANGE for one out of range.
 */
int parse_time(const char *s, usec_t *ret);

/*
 * Parses a non-negative number of seconds with up to six decimals ("1",
 * "0.25"). Returns 0, -EINVAL or -ERANGE.
 */
int parse_seconds(const char *s, usec_t *ret);

/* CLOCK_MONOTONIC in microseconds. */
usec_t now_monotonic(void);

/*
 * Sleeps before the next look for something that is not there yet, such as a
 * device (50 ms, or less if the deadline is nearer). Returns false, without
 * sleeping, once the monotonic deadline has passed.
 */
bool wait_a_moment(usec_t deadline);
