/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report: what `clockfix status` prints, for people (a table) and for programs (JSON), and the
 * sentences about one device that status and the log share (report-device.c)
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "decide.h"
#include "gather.h"

struct status {
        const struct policy *policy;
        const char *floor_origin; /* "build" or "--not-before" */
        usec_t now;
        int ntp_synchronized; /* 1, 0, or negative when unknown */
        const struct evidence *evidence;
        const struct decision *decision;
};

/* A table of devices and times, then the decision. */
void report_text(FILE *f, const struct status *s);

/* One JSON object, as docs/design.md §8 specifies, followed by a newline. */
void report_json(FILE *f, const struct status *s);

/* Writes s as a JSON string (quoted, escaped, invalid UTF-8 replaced by U+FFFD); "null" for NULL. */
void json_string(FILE *f, const char *s);

/* The name to show for a device: the path it resolved to, else the spec it was named by. */
const char *device_report_name(const struct device_report *d);

/*
 * A line for people saying what is wrong with a device and what to do, without
 * the device's name: "no such file or device (check the name, or give it time
 * with --wait SECONDS)". Returns buf.
 */
char *device_problem(const struct device_report *d, char *buf, size_t size);

/*
 * What to know about a device that was read: a wrong checksum, a device
 * smaller than its filesystem, unknown features; "" when nothing. Returns buf.
 */
char *device_notes(const struct device_report *d, char *buf, size_t size);
