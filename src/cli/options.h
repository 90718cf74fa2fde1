/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* options: the command line (argv), --help and --version, and which options go with which command */
#pragma once

#include "basic/macro.h"
#include "cli/settings.h"

/*
 * Parses argv into *ret (which owns an array of device pointers: free with
 * settings_done()). Returns 0 to run, 1 when --help or --version was printed,
 * or -EINVAL (or -ENOMEM) after logging what is wrong.
 */
_must_check_ int options_parse(int argc, char *argv[], struct settings *ret);
