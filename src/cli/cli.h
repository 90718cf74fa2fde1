/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cli: the commands (status, set, daemon, stamp, learn), what they print, and the exit status */
#pragma once

/* Exit statuses, documented in man/clockfix.8 (EXIT STATUS) and `clockfix --help`. */
enum {
        EXIT_OK = 0,         /* the clock is at or past the target (set, or nothing to do) */
        EXIT_FAIL = 1,       /* unexpected failure (out of memory, the kernel refused the time) */
        EXIT_USAGE = 2,      /* bad command line */
        EXIT_NO_SOURCE = 3,  /* no device gave a usable time: nothing was changed */
        EXIT_PERMISSION = 4, /* not allowed to set the clock (needs CAP_SYS_TIME): nothing was changed */
};

/* Runs clockfix with argv and returns the exit status. */
int cli_main(int argc, char *argv[]);
