/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cli: command-line options, the commands, what they print, and the exit status */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "time-util.h"

/* Exit statuses, documented in man/clockfix.8 (EXIT STATUS) and `clockfix --help`. */
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
        COMMAND_DAEMON,
        COMMAND_STAMP,
};

/*
 * The settings that the command line, the kernel command line (with --boot)
 * and the configuration file share, under one name each: "--margin",
 * "clockfix.margin=", "margin =". The command line wins over the kernel
 * command line, which wins over the file.
 */
enum setting {
        SETTING_DEVICE,
        SETTING_WAIT,
        SETTING_MARGIN,
        SETTING_NOT_BEFORE,
        SETTING_NOT_AFTER,
        SETTING_JOURNAL_BUDGET,
        SETTING_STAMPS,
        SETTING_NTP_UNIT,
        SETTING_SAVE_INTERVAL,
        SETTING_TIMEOUT,
        SETTING_STAY,
        _SETTING_MAX,
};

/* Where a setting's value came from, weakest first: a stronger origin's value is kept. */
enum setting_origin {
        FROM_DEFAULT,
        FROM_FILE,   /* the configuration file, at origin_line */
        FROM_KERNEL, /* the kernel command line (--boot) */
        FROM_OPTION, /* the command line */
};

/* How often the daemon may refresh its stamp file when nothing else writes (15 min). */
#define SAVE_INTERVAL_DEFAULT (15 * 60 * USEC_PER_SEC)

struct options {
        enum command command;
        char **devices; /* --device, clockfix.device=, device = (owned) */
        size_t n_devices;
        const char *cmdline_path;
        const char *config_path;
        bool config_given; /* --config: the file must be there */
        usec_t wait;
        usec_t margin;
        unsigned journal_budget; /* journal blocks to read at most per device; 0: do not read journals */
        usec_t not_before, not_after, now;
        bool have_not_before, have_not_after, have_now;
        bool no_stamps;
        char *ntp_unit;       /* daemon: the unit to start once the network is up (owned), or NULL */
        usec_t save_interval; /* daemon: 0: never refresh the stamp file */
        usec_t timeout;       /* daemon: how long to wait for NTP; 0: no limit */
        bool stay;            /* daemon: keep the stamp fresh after NTP synchronised */
        unsigned char origin[_SETTING_MAX]; /* enum setting_origin of each setting's value */
        unsigned origin_line[_SETTING_MAX]; /* for FROM_FILE: the line of config_path */
        bool boot; /* --boot: honour clockfix= parameters on the kernel command line */
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
