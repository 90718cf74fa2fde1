/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* settings: the options, the kernel command line (--boot), the configuration file, each value's origin */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/cleanup.h"
#include "basic/cmdline.h"
#include "basic/macro.h"
#include "basic/time-util.h"

struct policy;

enum command {
        COMMAND_STATUS,
        COMMAND_SET,
        COMMAND_DAEMON,
        COMMAND_STAMP,
        COMMAND_LEARN,
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
        SETTING_STATE_DIR,
        SETTING_FSTAB,
        SETTING_FLOOR_FALLBACK,
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

/* Every setting of a run: the options, then what --boot, the file and the defaults give the rest. */
struct settings {
        enum command command;
        char **devices; /* --device, clockfix.device=, device = (owned) */
        size_t n_devices;
        struct kernel_cmdline cmdline; /* --cmdline FILE, or /proc/cmdline; read once, when needed */
        const char *config_path;
        bool config_given; /* --config: the file must be there */
        usec_t wait;
        usec_t margin;
        unsigned journal_budget; /* journal blocks to read at most per device; 0: do not read journals */
        usec_t not_before, not_after, now;
        bool have_not_before, have_not_after, have_now;
        bool no_stamps;
        bool no_floor_fallback; /* with no usable time on the disks, a clock before the floor is left there
                                 */
        char *ntp_unit;         /* daemon: the unit to start once the network is up (owned), or NULL */
        usec_t save_interval;   /* daemon: 0: never refresh the stamp file */
        usec_t timeout;         /* daemon: how long to wait for NTP; 0: no limit */
        bool stay;              /* daemon: keep the stamp fresh after NTP synchronised */
        char *state_dir;        /* the record's directory on the running system (owned); NULL: the default */
        /* The table of the filesystems mounted at boot, on the running system (owned); NULL: the root's own
         */
        char *fstab;
        const char *root; /* --root: the root device as the initramfs found it (argv's string), or NULL */
        unsigned char origin[_SETTING_MAX]; /* enum setting_origin of each setting's value */
        unsigned origin_line[_SETTING_MAX]; /* for FROM_FILE: the line of config_path */
        bool boot;            /* --boot: honour clockfix= parameters on the kernel command line */
        bool background;      /* daemon --background: on once the clock is set, the foreground exits */
        const char *pid_file; /* daemon --pid-file: written once ready (argv's string), or NULL */
        bool dry_run;
        bool json;
        int log_level;
};

/* "not-after", as the option, the configuration file and messages name s. */
const char *setting_name(enum setting s);

/*
 * Parses value into the setting s of o (its origin left to the caller).
 * Returns 0, or a negative errno with what is wrong in *ret_reason ("not a
 * time") and how to write it instead in *ret_hint ("" if nothing to add);
 * -ENOMEM without either.
 */
int setting_parse(struct settings *o, enum setting s, const char *value, const char **ret_reason,
        const char **ret_hint);

/*
 * Completes the settings that argv left open, from the kernel command line
 * (with --boot) and then the configuration file, and makes the policy of
 * them all (docs/design.md §3). The kernel command line is read once, into
 * o->cmdline, when --boot or the search for root= (no device named) needs it.
 * Returns 0, 1 when clockfix=0 on the kernel command line turns clockfix off
 * (not logged), or a negative errno after logging: -ENOMEM, or another for a
 * usage error (a --config file that cannot be read, options that do not
 * hold together).
 */
_must_check_ int settings_load(struct settings *o, struct policy *ret_policy);

/*
 * Whether clockfix=0 (or no, off, false) on the kernel command line turns
 * clockfix off, read into o->cmdline unless it was: 1 if so, 0 if not (or the
 * command line cannot be read), or -ENOMEM. settings_load() asks with --boot;
 * the stamp command always.
 */
int settings_turned_off(struct settings *o);

void settings_done(struct settings *o);
#define _cleanup_settings_ _cleanup_(settings_done)

/*
 * Where the value of s came from, for messages and the report: "--timeout",
 * "clockfix.timeout=", "/etc/clockfix.conf:3", or "the default". Returns buf.
 */
const char *setting_origin(const struct settings *o, enum setting s, char *buf, size_t size);
