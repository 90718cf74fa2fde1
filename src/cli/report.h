/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report: what `clockfix status` prints, for people (a table) and for programs (JSON) */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cli/report-device.h" /* the sentences about one device, for the log too */
#include "core/decide.h"
#include "core/gather.h"

struct status {
        const struct policy *policy;
        const char *floor_origin; /* "build" or "--not-before" */
        usec_t now;
        int ntp_synchronized; /* 1, 0, or negative when unknown */
        const struct evidence *evidence;
        const struct decision *decision;
        const char *record_path; /* the record of times in the future at the last sync */
};

/* A table of devices and times, then the decision. */
void report_text(FILE *f, const struct status *s);

/* One JSON object, as docs/design.md §8 specifies, followed by a newline. */
void report_json(FILE *f, const struct status *s);

/* Writes s as a JSON string (quoted, escaped, invalid UTF-8 replaced by U+FFFD); "null" for NULL. */
void json_string(FILE *f, const char *s);
