/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report-device: the sentences about one device: what `clockfix status` shows, what the commands log */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "core/gather.h"

/* Prints s with control characters as '?': a label is 16 bytes from the disk, and a crafted one must
 * not drive the terminal. */
void print_printable(FILE *f, const char *s);

/*
 * Why the stamp files of a readable device were not read, or NULL when they were: "no stamp file
 * can be newer than the journal's newest commit (2027-01-08T18:38:15Z)". Returns buf or NULL.
 */
const char *device_stamps_skipped(const struct device_report *d, char *buf, size_t size);

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

/*
 * One line per device that could not help, at level: unreadable devices,
 * readable ones none of whose times is usable; warnings about what is odd
 * about a readable one (a wrong checksum, a truncated device).
 * Single implausible times next to usable ones get a warning of their own.
 */
void explain_devices(const struct evidence *ev, const struct policy *p, int level);
