/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* options: the command line (argv), --help and --version, and which options go with which command */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "basic/log.h"
#include "cli/options.h"
#include "config.h"
#include "core/decide.h"
#include "jbd2/jbd2.h"

/* The end of --help: times, the settings' other places, the exit statuses. */
static void help_end(void)
{
        printf("\n"
               "TIME is UTC: 2026-11-30, 2026-11-30T10:00:00Z, or seconds since the epoch (@1795000000).\n"
               "The same settings go in " CLOCKFIX_CONF_PATH " (\"margin = 2\", \"device = ...\") and,\n"
               "with --boot, on the kernel command line (clockfix.margin=2); options win over the\n"
               "kernel command line, which wins over the file.\n"
               "\n"
               "Exit status: 0 the clock is at or past the target (set, or nothing to do);\n"
               "1 unexpected failure; 2 bad usage; 3 no device gave a usable time (the clock set\n"
               "to the floor if it was before it, else nothing changed); 4 not allowed to set\n"
               "the clock, needs CAP_SYS_TIME (nothing changed).\n");
}

static void help(void)
{
        printf("Usage: clockfix [COMMAND] [OPTIONS]\n"
               "\n"
               "Sets the clock of a board without a battery-backed RTC from the times its\n"
               "ext2/3/4 filesystems recorded (the root and the local ones of its fstab),\n"
               "read-only, before anything mounts them.\n"
               "\n"
               "Commands:\n"
               "  status               show the times on disk, the clock and the decision (default)\n"
               "  set                  move the clock forward to just after the newest plausible time\n"
               "  daemon               set, tell systemd (READY=1), then wait for the network and\n"
               "                       NTP, log how far off the estimate was, keep the stamp fresh\n"
               "  stamp                touch /var/lib/clockfix/clock now (the daemon's stamp file)\n"
               "  learn                once NTP synchronised the clock: record the disk's times\n"
               "                       that are in the future, never to use them again\n"
               "\n"
               "Options:\n"
               "  -d, --device=PATH    read this block device or image file (repeatable);\n"
               "                       default: root= of the kernel command line, else the\n"
               "                       filesystem mounted at /, else the / entry of /etc/fstab\n"
               "      --root=DEVICE    the root device as an initramfs found it (a path or a tag),\n"
               "                       tried before root=; a device list still replaces the search\n"
               "      --fstab=FILE     the table of the filesystems mounted at boot, besides the\n"
               "                       root (default: the root's own /etc/fstab)\n"
               "      --cmdline=FILE   read root= from FILE instead of /proc/cmdline\n"
               "      --config=FILE    read settings from FILE instead of " CLOCKFIX_CONF_PATH "\n"
               "      --wait=SECONDS   wait up to SECONDS for the device to appear (default 0,\n"
               "                       at most 300)\n"
               "      --margin=SECONDS added to the newest time, never past not-after\n"
               "                       (default 1, at most 3600)\n"
               "      --journal-budget=READS\n"
               "                       read the journal of a device at most READS times (each\n"
               "                       up to 256 blocks) to find the newest plausible commit\n"
               "                       (default %u); 0: do not read journals\n"
               "      --no-stamps      do not read the stamp files of timesyncd, fake-hwclock\n"
               "                       and clockfix\n"
               "      --not-before=TIME\n"
               "                       the floor: the real time is never earlier (default: the\n"
               "                       build time of clockfix)\n"
               "      --not-after=TIME later times are implausible and ignored (default: the\n"
               "                       floor + 30 years)\n"
               "      --no-floor-fallback\n"
               "                       when no device gives a usable time, leave a clock before\n"
               "                       the floor as it is (default: set it to the floor)\n"
               "      --now=TIME       decide as if the clock read TIME (status, set --dry-run);\n"
               "                       learn: TIME is the true time, whatever NTP says\n"
               "      --boot           at boot: honour clockfix=0 and clockfix.SETTING= on the\n"
               "                       kernel command line (clockfix.device=, clockfix.margin=,\n"
               "                       clockfix.not_after=...; options given here win)\n"
               "      --ntp-unit=UNIT  daemon: start UNIT (chrony.service...) once the network is up\n"
               "      --save-interval=SECONDS\n"
               "                       daemon: touch /var/lib/clockfix/clock after SECONDS without\n"
               "                       any other write to its filesystem, and at stop (default 900;\n"
               "                       0: never)\n"
               "      --timeout=SECONDS\n"
               "                       daemon: stop waiting for NTP after SECONDS (default 0: no limit)\n"
               "      --stay           daemon: keep running after NTP synchronised the clock\n"
               "      --background     daemon: once the clock is set, go on in the background and\n"
               "                       exit (for init scripts); messages then go to syslog\n"
               "      --pid-file=FILE  daemon: write the daemon's pid to FILE once it is ready\n"
               "      --state-dir=DIR  keep the record of future times in DIR of the running\n"
               "                       system (default: /var/lib/clockfix on the root filesystem)\n"
               "  -n, --dry-run        set, daemon: decide and say what would be done, change nothing\n"
               "      --json           status: print one JSON object\n"
               "  -q, --quiet          log only warnings and errors\n"
               "  -v, --verbose        log debugging messages too\n"
               "  -h, --help           show this help\n"
               "      --version        show the version and the build time\n",
                JBD2_BUDGET_DEFAULT);
        help_end();
}

static void version(void)
{
        char t[ISO_TIME_MAX];

        printf("clockfix %s (built %s)\n", CLOCKFIX_VERSION,
                format_iso(t, (usec_t)CLOCKFIX_BUILD_EPOCH * USEC_PER_SEC));
}

/* Settings of the daemon alone. */
#define DAEMON_SETTINGS                                                                                     \
        (1u << SETTING_NTP_UNIT | 1u << SETTING_SAVE_INTERVAL | 1u << SETTING_TIMEOUT | 1u << SETTING_STAY)

/* A setting's option returns ARG_SETTING + its setting: one case parses them all. */
enum {
        ARG_CMDLINE = 0x100,
        ARG_CONFIG,
        ARG_NOW,
        ARG_BOOT,
        ARG_JSON,
        ARG_VERSION,
        ARG_BACKGROUND,
        ARG_PID_FILE,
        ARG_ROOT,
        ARG_SETTING = 0x200,
};

static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' },
        { "cmdline", required_argument, NULL, ARG_CMDLINE },
        { "config", required_argument, NULL, ARG_CONFIG },
        { "wait", required_argument, NULL, ARG_SETTING + SETTING_WAIT },
        { "margin", required_argument, NULL, ARG_SETTING + SETTING_MARGIN },
        { "journal-budget", required_argument, NULL, ARG_SETTING + SETTING_JOURNAL_BUDGET },
        { "no-stamps", no_argument, NULL, ARG_SETTING + SETTING_STAMPS },
        { "not-before", required_argument, NULL, ARG_SETTING + SETTING_NOT_BEFORE },
        { "not-after", required_argument, NULL, ARG_SETTING + SETTING_NOT_AFTER },
        { "no-floor-fallback", no_argument, NULL, ARG_SETTING + SETTING_FLOOR_FALLBACK },
        { "now", required_argument, NULL, ARG_NOW },
        { "boot", no_argument, NULL, ARG_BOOT },
        { "ntp-unit", required_argument, NULL, ARG_SETTING + SETTING_NTP_UNIT },
        { "save-interval", required_argument, NULL, ARG_SETTING + SETTING_SAVE_INTERVAL },
        { "timeout", required_argument, NULL, ARG_SETTING + SETTING_TIMEOUT },
        { "stay", no_argument, NULL, ARG_SETTING + SETTING_STAY },
        { "state-dir", required_argument, NULL, ARG_SETTING + SETTING_STATE_DIR },
        { "root", required_argument, NULL, ARG_ROOT },
        { "fstab", required_argument, NULL, ARG_SETTING + SETTING_FSTAB },
        { "background", no_argument, NULL, ARG_BACKGROUND },
        { "pid-file", required_argument, NULL, ARG_PID_FILE },
        { "dry-run", no_argument, NULL, 'n' },
        { "json", no_argument, NULL, ARG_JSON },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        {},
};

/* Sets s from an option of the command line; -EINVAL (logged) or -ENOMEM. */
static int option_setting(struct settings *o, enum setting s, const char *value)
{
        const char *reason = NULL, *hint;
        int r = setting_parse(o, s, value, &reason, &hint);

        if (r == -ENOMEM)
                return log_error_errno(r, "Out of memory");
        if (r < 0)
                return log_error_errno(EINVAL, "--%s: %s \"%s\"%s", setting_name(s), reason, value, hint);
        o->origin[s] = FROM_OPTION;
        return 0;
}

/* Whether name[0..end) is one of the long options. */
static bool known_long_option(const char *name, const char *end)
{
        for (const struct option *o = longopts; o->name; o++)
                if (strlen(o->name) == (size_t)(end - name) &&
                        strncmp(o->name, name, (size_t)(end - name)) == 0)
                        return true;
        return false;
}

/* What getopt_long() returned for an option it does not know, or one given a value it takes none of. */
static int option_unknown(char *argv[])
{
        /* optopt is a short option's letter; for a long option, its value or 0. */
        const char *arg = argv[optind - 1];
        const char *eq = strchr(arg, '=');

        if (optopt > 0 && optopt < 0x100 && !strchr("dnqvh", optopt))
                return log_error_errno(EINVAL, "Unknown option -%c (see --help)", optopt);
        if (strncmp(arg, "--", 2) == 0 && eq && known_long_option(arg + 2, eq))
                return log_error_errno(
                        EINVAL, "Option %.*s takes no value (see --help)", (int)(eq - arg), arg);
        return log_error_errno(EINVAL, "Unknown option %s (see --help)", arg);
}

/* Applies the option c that getopt_long() returned. 0, 1 after --help or --version, or -errno (logged). */
static int option_apply(struct settings *o, int c, char *argv[])
{
        int r;

        switch (c) {
        case 'd':
                return option_setting(o, SETTING_DEVICE, optarg);
        case ARG_CMDLINE:
                o->cmdline.path = optarg;
                return 0;
        case ARG_ROOT:
                if (optarg[0] == '\0')
                        return log_error_errno(EINVAL, "--root: empty device name");
                o->root = optarg;
                return 0;
        case ARG_CONFIG:
                o->config_path = optarg;
                o->config_given = true;
                return 0;
        case ARG_NOW:
                o->have_now = true;
                r = parse_time(optarg, &o->now);
                if (r < 0)
                        return log_error_errno(EINVAL,
                                "--now: %s \"%s\": use YYYY-MM-DD[THH:MM[:SS]][Z] (UTC) or @SECONDS",
                                r == -ERANGE ? "time out of range" : "not a time", optarg);
                return 0;
        case ARG_BOOT:
                o->boot = true;
                return 0;
        case ARG_BACKGROUND:
                o->background = true;
                return 0;
        case ARG_PID_FILE:
                /* The init script that stops the daemon reads it from its own directory: absolute. */
                if (optarg[0] != '/')
                        return log_error_errno(EINVAL, "--pid-file: not an absolute path \"%s\"", optarg);
                o->pid_file = optarg;
                return 0;
        case 'n':
                o->dry_run = true;
                return 0;
        case ARG_JSON:
                o->json = true;
                return 0;
        case 'q':
                o->log_level = LOG_WARNING;
                return 0;
        case 'v':
                o->log_level = LOG_DEBUG;
                return 0;
        case 'h':
                help();
                return 1;
        case ARG_VERSION:
                version();
                return 1;
        case ':':
                return log_error_errno(EINVAL, "Option %s needs a value (see --help)", argv[optind - 1]);
        default:
                if (c >= ARG_SETTING && c < ARG_SETTING + _SETTING_MAX)
                        /* The three without a value: --no-stamps, --no-floor-fallback and --stay. */
                        return option_setting(o, (enum setting)(c - ARG_SETTING),
                                optarg                                    ? optarg
                                        : c == ARG_SETTING + SETTING_STAY ? "yes"
                                                                          : "no");
                return option_unknown(argv);
        }
}

/* The command, argv[optind], the one word after the options. 0, or -EINVAL (logged). */
static int options_command(struct settings *o, int argc, char *argv[])
{
        if (strcmp(argv[optind], "status") == 0)
                o->command = COMMAND_STATUS;
        else if (strcmp(argv[optind], "set") == 0)
                o->command = COMMAND_SET;
        else if (strcmp(argv[optind], "daemon") == 0)
                o->command = COMMAND_DAEMON;
        else if (strcmp(argv[optind], "stamp") == 0)
                o->command = COMMAND_STAMP;
        else if (strcmp(argv[optind], "learn") == 0)
                o->command = COMMAND_LEARN;
        else
                return log_error_errno(EINVAL,
                        "Unknown command \"%s\": use status, set, daemon, stamp or learn (see --help)",
                        argv[optind]);
        if (optind + 1 < argc)
                return log_error_errno(EINVAL, "Unexpected argument \"%s\" (see --help)", argv[optind + 1]);
        return 0;
}

/* Whether the options given go with the command. 0, or -EINVAL (logged). */
static int options_check(const struct settings *o)
{
        if (o->json && o->command != COMMAND_STATUS)
                return log_error_errno(EINVAL, "--json applies to status only");
        if (o->dry_run && o->command != COMMAND_SET && o->command != COMMAND_DAEMON &&
                o->command != COMMAND_LEARN)
                return log_error_errno(EINVAL,
                        "--dry-run applies to set, daemon and learn only (status never changes anything)");
        if (o->have_now && o->command == COMMAND_SET && !o->dry_run)
                return log_error_errno(EINVAL,
                        "--now needs --dry-run with set: the clock is set from what it really reads");
        if (o->have_now && o->command == COMMAND_DAEMON)
                return log_error_errno(EINVAL, "--now applies to status, set --dry-run and learn only");
        if ((o->background || o->pid_file) && o->command != COMMAND_DAEMON)
                return log_error_errno(
                        EINVAL, "--%s applies to daemon only", o->background ? "background" : "pid-file");
        for (enum setting s = 0; s < _SETTING_MAX; s++)
                if ((DAEMON_SETTINGS & 1u << s) && o->origin[s] == FROM_OPTION &&
                        o->command != COMMAND_DAEMON)
                        return log_error_errno(EINVAL, "--%s applies to daemon only", setting_name(s));
        return 0;
}

int options_parse(int argc, char *argv[], struct settings *ret)
{
        struct settings o = {
                .command = COMMAND_STATUS,
                .cmdline = { .path = "/proc/cmdline" },
                .config_path = CLOCKFIX_CONF_PATH,
                .margin = MARGIN_DEFAULT,
                .journal_budget = JBD2_BUDGET_DEFAULT,
                .save_interval = SAVE_INTERVAL_DEFAULT,
                .log_level = LOG_INFO,
        };
        int c, r = 0;

        optind = 0;
        opterr = 0;
        while (r == 0 && (c = getopt_long(argc, argv, ":d:nqvh", longopts, NULL)) != -1)
                r = option_apply(&o, c, argv);
        if (r == 0 && optind < argc)
                r = options_command(&o, argc, argv);
        if (r == 0)
                r = options_check(&o);

        if (r != 0) {
                settings_done(&o);
                return r;
        }
        *ret = o;
        return 0;
}
