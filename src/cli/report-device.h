/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report-device: the sentences about one device: what `clockfix status` shows, what the commands log */
#pragma once

#include <stddef.h>

#include "core/gather.h"

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
