/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cli: command-line options, the commands, what they print, and the exit status */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "time-util.h"

/* Exit statuses, documented in README.md and `clockfix --help`. */
enum {
        EXIT_OK = 0,         /* the clock is at or past the target (set, or nothing to do) */
        EXIT_FAIL = 1,       /* unexpected failure (out of memory, the kernel refused the time) */
        EXIT_USAGE = 2,      /* bad command line */
        EXIT_NO_SOURCE = 3,  /* no device gave a usable time: nothing was changed */
        EXIT_PERMISSION = 4, /* not allowed to set the clock (needs CAP_SYS_TIME): nothing was changed */
};

enum command {
        COMMAND_STATUS,
        COMMAND_SET,
};

struct options {
        enum command command;
        char **devices; /* --device, in order; points into argv */
        size_t n_devices;
        const char *cmdline_path;
        usec_t wait;
        usec_t margin;
        unsigned journal_budget; /* journal blocks to read at most per device; 0: do not read journals */
        usec_t not_before, not_after, now;
        bool have_not_before, have_not_after, have_now, have_margin;
        bool boot;         /* --boot: honour clockfix= parameters on the kernel command line */
        char *boot_device; /* clockfix.device= (owned), when it is the device */
        bool no_stamps;
        bool dry_run;
        bool json;
        int log_level;
};

/*
 * Parses argv into *ret (which owns an array of device pointers: free with
 * options_done()). Returns 0 to run, 1 when --help or --version was printed,
 * or -EINVAL after logging what is wrong.
 */
int options_parse(int argc, char *argv[], struct options *ret);
void options_done(struct options *o);

/* Runs clockfix with argv and returns the exit status. */
int cli_main(int argc, char *argv[]);
