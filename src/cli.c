/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cli: command-line options, the commands, what they print, and the exit status */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "conf.h"
#include "config.h"
#include "decide.h"
#include "file-util.h"
#include "gather.h"
#include "handoff.h"
#include "jbd2.h"
#include "log.h"
#include "report.h"
#include "rootdev.h"

static void help(void)
{
        printf("Usage: clockfix [COMMAND] [OPTIONS]\n"
               "\n"
               "Sets the clock of a board without a battery-backed RTC from the times its\n"
               "ext2/3/4 root filesystem recorded, read-only, before anything mounts it.\n"
               "\n"
               "Commands:\n"
               "  status               show the times on disk, the clock and the decision (default)\n"
               "  set                  move the clock forward to just after the newest plausible time\n"
               "  daemon               set, tell systemd (READY=1), then wait for the network and\n"
               "                       NTP, log how far off the estimate was, keep the stamp fresh\n"
               "  stamp                touch /var/lib/clockfix/clock now (the daemon's stamp file)\n"
               "\n"
               "Options:\n"
               "  -d, --device=PATH    read this block device or image file (repeatable);\n"
               "                       default: root= of the kernel command line, else the\n"
               "                       filesystem mounted at /, else the / entry of /etc/fstab\n"
               "      --cmdline=FILE   read root= from FILE instead of /proc/cmdline\n"
               "      --config=FILE    read settings from FILE instead of " CLOCKFIX_CONF_PATH "\n"
               "      --wait=SECONDS   wait up to SECONDS for the device to appear (default 0)\n"
               "      --margin=SECONDS added to the newest time (default 1)\n"
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
               "      --now=TIME       decide as if the clock read TIME (status, set --dry-run)\n"
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
               "  -n, --dry-run        set, daemon: decide and say what would be done, change nothing\n"
               "      --json           status: print one JSON object\n"
               "  -q, --quiet          log only warnings and errors\n"
               "  -v, --verbose        log debugging messages too\n"
               "  -h, --help           show this help\n"
               "      --version        show the version and the build time\n"
               "\n"
               "TIME is UTC: 2026-11-30, 2026-11-30T10:00:00Z, or seconds since the epoch (@1795000000).\n"
               "The same settings go in " CLOCKFIX_CONF_PATH " (\"margin = 2\", \"device = ...\") and,\n"
               "with --boot, on the kernel command line (clockfix.margin=2); options win over the\n"
               "kernel command line, which wins over the file.\n"
               "\n"
               "Exit status: 0 the clock is at or past the target (set, or nothing to do);\n"
               "1 unexpected failure; 2 bad usage; 3 no device gave a usable time (nothing\n"
               "changed); 4 not allowed to set the clock, needs CAP_SYS_TIME (nothing changed).\n",
                JBD2_BUDGET_DEFAULT);
}

static void version(void)
{
        char t[ISO_TIME_MAX];

        printf("clockfix %s (built %s)\n", CLOCKFIX_VERSION,
                format_iso(t, (usec_t)CLOCKFIX_BUILD_EPOCH * USEC_PER_SEC));
}

void options_done(struct options *o)
{
        for (size_t i = 0; i < o->n_devices; i++)
                free(o->devices[i]);
        free(o->devices);
        o->devices = NULL;
        o->n_devices = 0;
        free(o->ntp_unit);
        o->ntp_unit = NULL;
}

static const char *const setting_names[_SETTING_MAX] = {
        [SETTING_DEVICE] = "device",
        [SETTING_WAIT] = "wait",
        [SETTING_MARGIN] = "margin",
        [SETTING_NOT_BEFORE] = "not-before",
        [SETTING_NOT_AFTER] = "not-after",
        [SETTING_JOURNAL_BUDGET] = "journal-budget",
        [SETTING_STAMPS] = "stamps",
        [SETTING_NTP_UNIT] = "ntp-unit",
        [SETTING_SAVE_INTERVAL] = "save-interval",
        [SETTING_TIMEOUT] = "timeout",
        [SETTING_STAY] = "stay",
};

/* Settings of the daemon alone. */
#define DAEMON_SETTINGS                                                                                     \
        (1u << SETTING_NTP_UNIT | 1u << SETTING_SAVE_INTERVAL | 1u << SETTING_TIMEOUT | 1u << SETTING_STAY)

/* Journal budgets beyond this would read for minutes at the speed of an SD card. */
#define JOURNAL_BUDGET_MAX 10000
#define STR(x)             #x
#define XSTR(x)            STR(x)

static int parse_budget(const char *value, unsigned *ret)
{
        char *end;
        unsigned long v;

        if (value[0] < '0' || value[0] > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(value, &end, 10);
        if (*end != '\0' || errno != 0 || v > JOURNAL_BUDGET_MAX)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

static int parse_boolean(const char *v, bool *ret)
{
        static const char *const yes[] = { "1", "yes", "true", "on" },
                                 *const no[] = { "0", "no", "false", "off" };

        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
                if (strcmp(v, yes[i]) == 0)
                        return *ret = true, 0;
                if (strcmp(v, no[i]) == 0)
                        return *ret = false, 0;
        }
        return -EINVAL;
}

/* A systemd unit name as systemctl takes it: "chrony.service", "ntpsec.service". */
static bool unit_name_valid(const char *v)
{
        size_t n = strlen(v);
        const char *dot = strrchr(v, '.');

        if (n == 0 || n > 255 || !dot || dot == v || dot[1] == '\0')
                return false;
        for (const char *c = v; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                            strchr(":-_.\\@", *c)))
                        return false;
        return true;
}

/*
 * Parses value into the setting s of o. Returns 0, or a negative errno with
 * what is wrong in *ret_reason ("not a time") and how to write it instead in
 * *ret_hint ("" if nothing to add).
 */
static int setting_parse(
        struct options *o, enum setting s, const char *value, const char **ret_reason, const char **ret_hint)
{
        static const char time_hint[] = ": use YYYY-MM-DD[THH:MM[:SS]][Z] (UTC) or @SECONDS";
        static const char seconds_hint[] = ": give a number of seconds, such as 1 or 0.5";
        usec_t t;
        bool b;
        int r;

        *ret_hint = "";
        switch (s) {
        case SETTING_DEVICE: {
                char *copy, **devices;
                if (value[0] == '\0')
                        return *ret_reason = "empty path", -EINVAL;
                devices = realloc(o->devices, (o->n_devices + 1) * sizeof(char *));
                if (!devices)
                        return -ENOMEM;
                o->devices = devices;
                if (!(copy = strdup(value)))
                        return -ENOMEM;
                o->devices[o->n_devices++] = copy;
                return 0;
        }
        case SETTING_WAIT:
        case SETTING_MARGIN:
        case SETTING_SAVE_INTERVAL:
        case SETTING_TIMEOUT:
                r = parse_seconds(value, &t);
                if (r < 0) {
                        *ret_hint = seconds_hint;
                        return *ret_reason = r == -ERANGE ? "out of range" : "not a number of seconds", r;
                }
                if (s == SETTING_SAVE_INTERVAL && t > 0 && t < USEC_PER_SEC)
                        return *ret_reason = "below 1 s (0: never)", -ERANGE;
                if (s == SETTING_WAIT)
                        o->wait = t;
                else if (s == SETTING_MARGIN)
                        o->margin = t;
                else if (s == SETTING_SAVE_INTERVAL)
                        o->save_interval = t;
                else
                        o->timeout = t;
                return 0;
        case SETTING_NOT_BEFORE:
        case SETTING_NOT_AFTER:
                r = parse_time(value, &t);
                if (r < 0) {
                        *ret_hint = time_hint;
                        return *ret_reason = r == -ERANGE ? "time out of range" : "not a time", r;
                }
                if (s == SETTING_NOT_BEFORE) {
                        o->not_before = t;
                        o->have_not_before = true;
                } else {
                        o->not_after = t;
                        o->have_not_after = true;
                }
                return 0;
        case SETTING_JOURNAL_BUDGET:
                if (parse_budget(value, &o->journal_budget) < 0)
                        return *ret_reason = "not a number of reads from 0 to " XSTR(JOURNAL_BUDGET_MAX),
                               -EINVAL;
                return 0;
        case SETTING_STAMPS:
        case SETTING_STAY:
                if (parse_boolean(value, &b) < 0)
                        return *ret_reason = "not yes or no", -EINVAL;
                if (s == SETTING_STAMPS)
                        o->no_stamps = !b;
                else
                        o->stay = b;
                return 0;
        case SETTING_NTP_UNIT: {
                char *copy = NULL;
                if (value[0] != '\0' && !unit_name_valid(value)) {
                        *ret_hint = " (such as chrony.service; empty: start none)";
                        return *ret_reason = "not a unit name", -EINVAL;
                }
                if (value[0] != '\0' && !(copy = strdup(value)))
                        return -ENOMEM;
                free(o->ntp_unit);
                o->ntp_unit = copy;
                return 0;
        }
        default:
                return -EINVAL;
        }
}

/* Sets s from an option of the command line; -EINVAL (logged) or -ENOMEM. */
static int option_setting(struct options *o, enum setting s, const char *value)
{
        const char *reason = NULL, *hint;
        int r = setting_parse(o, s, value, &reason, &hint);

        if (r == -ENOMEM)
                return log_error_errno(r, "Out of memory");
        if (r < 0)
                return log_error_errno(EINVAL, "--%s: %s \"%s\"%s", setting_names[s], reason, value, hint);
        o->origin[s] = FROM_OPTION;
        return 0;
}

/*
 * Where the value of s came from, for messages and the report: "--timeout",
 * "clockfix.timeout=", "/etc/clockfix.conf:3", or "the default".
 */
static const char *setting_origin(const struct options *o, enum setting s, char *buf, size_t size)
{
        char name[64];

        switch (o->origin[s]) {
        case FROM_OPTION:
                snprintf(buf, size, "--%s", setting_names[s]);
                break;
        case FROM_KERNEL:
                /* The documented spelling of the kernel command line: "clockfix.not_after=". */
                snprintf(name, sizeof(name), "%s", setting_names[s]);
                for (char *c = name; *c; c++)
                        if (*c == '-')
                                *c = '_';
                snprintf(buf, size, "clockfix.%s=", name);
                break;
        case FROM_FILE:
                snprintf(buf, size, "%s:%u", o->config_path, o->origin_line[s]);
                break;
        default:
                snprintf(buf, size, "the default");
        }
        return buf;
}

/* Whether name[0..end) is one of the long options. */
static bool known_long_option(const struct option *longopts, const char *name, const char *end)
{
        for (const struct option *o = longopts; o->name; o++)
                if (strlen(o->name) == (size_t)(end - name) &&
                        strncmp(o->name, name, (size_t)(end - name)) == 0)
                        return true;
        return false;
}

int options_parse(int argc, char *argv[], struct options *ret)
{
        /* A setting's option returns ARG_SETTING + its setting: one case parses them all. */
        enum {
                ARG_CMDLINE = 0x100,
                ARG_CONFIG,
                ARG_NOW,
                ARG_BOOT,
                ARG_JSON,
                ARG_VERSION,
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
                { "now", required_argument, NULL, ARG_NOW },
                { "boot", no_argument, NULL, ARG_BOOT },
                { "ntp-unit", required_argument, NULL, ARG_SETTING + SETTING_NTP_UNIT },
                { "save-interval", required_argument, NULL, ARG_SETTING + SETTING_SAVE_INTERVAL },
                { "timeout", required_argument, NULL, ARG_SETTING + SETTING_TIMEOUT },
                { "stay", no_argument, NULL, ARG_SETTING + SETTING_STAY },
                { "dry-run", no_argument, NULL, 'n' },
                { "json", no_argument, NULL, ARG_JSON },
                { "quiet", no_argument, NULL, 'q' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {},
        };
        struct options o = {
                .command = COMMAND_STATUS,
                .cmdline_path = "/proc/cmdline",
                .config_path = CLOCKFIX_CONF_PATH,
                .margin = MARGIN_DEFAULT,
                .journal_budget = JBD2_BUDGET_DEFAULT,
                .save_interval = SAVE_INTERVAL_DEFAULT,
                .log_level = LOG_INFO,
        };
        int c, r = 0;

        optind = 0;
        opterr = 0;
        while (r == 0 && (c = getopt_long(argc, argv, ":d:nqvh", longopts, NULL)) != -1) {
                switch (c) {
                case 'd':
                        r = option_setting(&o, SETTING_DEVICE, optarg);
                        break;
                case ARG_CMDLINE:
                        o.cmdline_path = optarg;
                        break;
                case ARG_CONFIG:
                        o.config_path = optarg;
                        o.config_given = true;
                        break;
                case ARG_NOW:
                        r = parse_time(optarg, &o.now);
                        if (r < 0)
                                r = log_error_errno(EINVAL,
                                        "--now: %s \"%s\": use YYYY-MM-DD[THH:MM[:SS]][Z] (UTC) or @SECONDS",
                                        r == -ERANGE ? "time out of range" : "not a time", optarg);
                        o.have_now = true;
                        break;
                case ARG_BOOT:
                        o.boot = true;
                        break;
                case 'n':
                        o.dry_run = true;
                        break;
                case ARG_JSON:
                        o.json = true;
                        break;
                case 'q':
                        o.log_level = LOG_WARNING;
                        break;
                case 'v':
                        o.log_level = LOG_DEBUG;
                        break;
                case 'h':
                        help();
                        r = 1;
                        break;
                case ARG_VERSION:
                        version();
                        r = 1;
                        break;
                case ':':
                        r = log_error_errno(
                                EINVAL, "Option %s needs a value (see --help)", argv[optind - 1]);
                        break;
                default: {
                        if (c >= ARG_SETTING && c < ARG_SETTING + _SETTING_MAX) {
                                /* The two without a value: --no-stamps and --stay. */
                                r = option_setting(&o, (enum setting)(c - ARG_SETTING),
                                        optarg                                      ? optarg
                                                : c == ARG_SETTING + SETTING_STAMPS ? "no"
                                                                                    : "yes");
                                break;
                        }
                        /* optopt is a short option's letter; for a long option, its value or 0. */
                        const char *arg = argv[optind - 1];
                        const char *eq = strchr(arg, '=');
                        if (optopt > 0 && optopt < 0x100 && !strchr("dnqvh", optopt))
                                r = log_error_errno(EINVAL, "Unknown option -%c (see --help)", optopt);
                        else if (strncmp(arg, "--", 2) == 0 && eq &&
                                known_long_option(longopts, arg + 2, eq))
                                r = log_error_errno(EINVAL, "Option %.*s takes no value (see --help)",
                                        (int)(eq - arg), arg);
                        else
                                r = log_error_errno(EINVAL, "Unknown option %s (see --help)", arg);
                        break;
                }
                }
        }
        if (r == 0 && optind < argc) {
                if (strcmp(argv[optind], "status") == 0)
                        o.command = COMMAND_STATUS;
                else if (strcmp(argv[optind], "set") == 0)
                        o.command = COMMAND_SET;
                else if (strcmp(argv[optind], "daemon") == 0)
                        o.command = COMMAND_DAEMON;
                else if (strcmp(argv[optind], "stamp") == 0)
                        o.command = COMMAND_STAMP;
                else
                        r = log_error_errno(EINVAL,
                                "Unknown command \"%s\": use status, set, daemon or stamp (see --help)",
                                argv[optind]);
                if (r == 0 && optind + 1 < argc)
                        r = log_error_errno(
                                EINVAL, "Unexpected argument \"%s\" (see --help)", argv[optind + 1]);
        }

        if (r == 0 && o.json && o.command != COMMAND_STATUS)
                r = log_error_errno(EINVAL, "--json applies to status only");
        if (r == 0 && o.dry_run && o.command != COMMAND_SET && o.command != COMMAND_DAEMON)
                r = log_error_errno(
                        EINVAL, "--dry-run applies to set and daemon only (status never changes anything)");
        if (r == 0 && o.have_now && o.command == COMMAND_SET && !o.dry_run)
                r = log_error_errno(EINVAL,
                        "--now needs --dry-run with set: the clock is set from what it really reads");
        if (r == 0 && o.have_now && o.command == COMMAND_DAEMON)
                r = log_error_errno(EINVAL, "--now applies to status and set --dry-run only");
        for (enum setting s = 0; r == 0 && s < _SETTING_MAX; s++)
                if ((DAEMON_SETTINGS & 1u << s) && o.origin[s] == FROM_OPTION && o.command != COMMAND_DAEMON)
                        r = log_error_errno(EINVAL, "--%s applies to daemon only", setting_names[s]);

        if (r != 0) {
                options_done(&o);
                return r;
        }
        *ret = o;
        return 0;
}

/*
 * A setting from the kernel command line or the configuration file (at line;
 * where: "clockfix.margin=soon", "/etc/clockfix.conf:3: margin = soon"),
 * unless a stronger origin gave it. A value that does not parse is warned
 * about and ignored: nothing here may fail a boot. Returns 0, or -ENOMEM.
 */
static int weak_setting(struct options *o, enum setting_origin origin, unsigned line, enum setting s,
        const char *value, const char *where)
{
        const char *reason = NULL, *hint;
        int r;

        if (o->origin[s] > origin)
                return 0;
        r = setting_parse(o, s, value, &reason, &hint);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_warning("Ignoring %s: %s", where, reason);
        else {
                o->origin[s] = origin;
                o->origin_line[s] = line;
        }
        return 0;
}

/*
 * --boot: the clockfix parameters of the kernel command line
 * ("clockfix.not_after=2040-01-01"; '-' may replace '_'), for what the
 * options leave open. Returns 1 when clockfix=0 (or no, off, false) turns
 * clockfix off, 0, or -ENOMEM.
 */
static int boot_parameters(struct options *o)
{
        char *cmdline = NULL, *v = NULL;
        bool on;
        int r;

        if (read_small_file(o->cmdline_path, &cmdline) < 0)
                return 0;

        r = cmdline_get(cmdline, "clockfix", &v);
        if (r > 0) {
                bool off = parse_boolean(v, &on) == 0 && !on;
                free(v);
                if (off) {
                        free(cmdline);
                        return 1;
                }
        }
        for (enum setting s = 0; r >= 0 && s < _SETTING_MAX; s++) {
                char key[64], where[4200];

                /* The documented spelling ("not_after") first, then "not-after". */
                snprintf(key, sizeof(key), "clockfix.%s", setting_names[s]);
                for (char *c = key; *c; c++)
                        if (*c == '-')
                                *c = '_';
                r = cmdline_get(cmdline, key, &v);
                if (r == 0 && strchr(setting_names[s], '-')) {
                        snprintf(key, sizeof(key), "clockfix.%s", setting_names[s]);
                        r = cmdline_get(cmdline, key, &v);
                }
                if (r <= 0)
                        continue;
                /* An empty clockfix.device= leaves the device to the other means. */
                if (!(s == SETTING_DEVICE && v[0] == '\0')) {
                        snprintf(where, sizeof(where), "%s=%s", key, v);
                        r = weak_setting(o, FROM_KERNEL, 0, s, v, where);
                }
                free(v);
        }
        free(cmdline);
        return r < 0 ? r : 0;
}

struct conf_state {
        struct options *options;
        const char *path;
};

static int conf_setting(const char *key, const char *value, unsigned line, void *userdata)
{
        struct conf_state *c = userdata;
        char where[1200];

        if (!value)
                return log_warning("%s:%u: ignoring \"%s\": not \"key = value\"", c->path, line, key), 0;
        snprintf(where, sizeof(where), "%s:%u: %s = %s", c->path, line, key, value);
        for (enum setting s = 0; s < _SETTING_MAX; s++)
                if (strcmp(key, setting_names[s]) == 0)
                        return weak_setting(c->options, FROM_FILE, line, s, value, where);
        log_warning("Ignoring %s: unknown setting", where);
        return 0;
}

/*
 * The configuration file, for what the options and the kernel command line
 * leave open. The default file may be missing; one named with --config must
 * be there. Returns 0, -ENOENT or another -errno (logged), or -ENOMEM.
 */
static int config_file(struct options *o)
{
        struct conf_state c = { .options = o, .path = o->config_path };
        char *text = NULL;
        int r = read_small_file(o->config_path, &text);

        if (r < 0 && o->config_given)
                return log_error_errno(r, "Cannot read the configuration %s: %m", o->config_path);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "Cannot read the configuration %s: %m; going on without it",
                               o->config_path),
                       0;
        r = conf_parse(text, conf_setting, &c);
        free(text);
        return r;
}

/*
 * The policy of docs/design.md §3 from the options. 0, or -EINVAL with what
 * does not hold together in why, and the settings involved (1 << setting)
 * in *ret_involved.
 */
static int make_policy(
        const struct options *o, struct policy *ret, char *why, size_t size, unsigned *ret_involved)
{
        struct policy p = {
                .floor = o->have_not_before ? o->not_before : (usec_t)CLOCKFIX_BUILD_EPOCH * USEC_PER_SEC,
                .margin = o->margin,
        };
        char a[ISO_TIME_MAX], b[ISO_TIME_MAX], from_a[PATH_MAX + 32], from_b[PATH_MAX + 32], m[SECONDS_MAX];

        if (o->have_not_after)
                p.not_after = o->not_after;
        else
                p.not_after = p.floor > USEC_INFINITY - NOT_AFTER_DEFAULT_SPAN
                        ? USEC_INFINITY
                        : p.floor + NOT_AFTER_DEFAULT_SPAN;

        setting_origin(o, SETTING_NOT_AFTER, from_a, sizeof(from_a));
        switch (policy_validate(&p)) {
        case 0:
                *ret = p;
                return 0;
        case -EINVAL:
                snprintf(why, size, "not-after %s (%s) is before the floor %s (%s)",
                        format_iso(a, p.not_after), o->have_not_after ? from_a : "the floor + 30 years",
                        format_iso(b, p.floor),
                        o->have_not_before ? setting_origin(o, SETTING_NOT_BEFORE, from_b, sizeof(from_b))
                                           : "build time");
                *ret_involved = 1u << SETTING_NOT_AFTER | 1u << SETTING_NOT_BEFORE;
                return -EINVAL;
        default:
                snprintf(why, size, "margin %s s (%s) is too large for not-after %s (%s)",
                        format_seconds(m, p.margin),
                        setting_origin(o, SETTING_MARGIN, from_b, sizeof(from_b)),
                        format_iso(a, p.not_after), o->have_not_after ? from_a : "the floor + 30 years");
                *ret_involved = 1u << SETTING_MARGIN | 1u << SETTING_NOT_AFTER | 1u << SETTING_NOT_BEFORE;
                return -EINVAL;
        }
}

/*
 * The policy, from settings that hold together. A conflict that involves
 * values of the configuration file or the kernel command line is warned
 * about, and the weakest of those give way to the defaults until none is
 * left: nothing read there may fail a boot. One among the options alone is
 * a usage error. 0, or -EINVAL after logging.
 */
static int resolve_policy(struct options *o, struct policy *ret)
{
        char why[3 * PATH_MAX], from[PATH_MAX + 32];
        unsigned involved = 0;

        while (make_policy(o, ret, why, sizeof(why), &involved) < 0) {
                enum setting_origin weakest = FROM_OPTION;
                char dropped[3 * (PATH_MAX + 64)] = "";
                size_t n = 0;

                /* The weakest origin among those involved gives way: the file before the kernel's. */
                for (enum setting s = 0; s < _SETTING_MAX; s++)
                        if ((involved & 1u << s) && o->origin[s] != FROM_DEFAULT && o->origin[s] < weakest)
                                weakest = o->origin[s];
                if (weakest == FROM_OPTION)
                        return log_error_errno(EINVAL, "%s", why);
                for (enum setting s = 0; s < _SETTING_MAX; s++) {
                        if (!(involved & 1u << s) || o->origin[s] != weakest)
                                continue;
                        n += (size_t)snprintf(dropped + n, sizeof(dropped) - n, "%s%s (%s)",
                                n ? " and " : "", setting_names[s],
                                setting_origin(o, s, from, sizeof(from)));
                        if (s == SETTING_MARGIN)
                                o->margin = MARGIN_DEFAULT;
                        else if (s == SETTING_NOT_BEFORE)
                                o->have_not_before = false;
                        else
                                o->have_not_after = false;
                        o->origin[s] = FROM_DEFAULT;
                }
                log_warning("%s: ignoring %s; defaults used instead", why, dropped);
        }
        return 0;
}

static const char *device_name(const struct device_report *d)
{
        return d->path ? d->path : d->spec;
}

/*
 * One line per device that could not help, at level: unreadable devices,
 * readable ones none of whose times is usable; warnings about what is odd
 * about a readable one (a wrong checksum, a truncated device).
 * Single implausible times next to usable ones get a warning of their own.
 */
static void explain_devices(const struct evidence *ev, const struct policy *p, int level)
{
        char problem[512], a[ISO_TIME_MAX], b[ISO_TIME_MAX];

        for (size_t i = 0; i < ev->n_devices; i++) {
                const struct device_report *d = ev->devices + i;
                size_t n = 0, usable = 0, late = 0;

                if (!d->have_sb) {
                        log_internal(level, 0, "%s: %s", device_name(d),
                                device_problem(d, problem, sizeof(problem)));
                        continue;
                }
                if (device_notes(d, problem, sizeof(problem))[0])
                        log_warning("%s: %s", device_name(d), problem);
                if (d->have_journal && d->journal.error != 0)
                        log_warning("%s: journal not used: %s%s", device_name(d), d->journal.reason,
                                d->journal.error == -ENODEV ? " (is the journal device attached?)"
                                        : d->journal.error == -EOPNOTSUPP ? ""
                                                                          : " (run e2fsck)");
                else if (d->have_journal && d->journal.jbd2.read_errors)
                        log_warning(
                                "%s: journal: %u block(s) could not be read (I/O error), passed over: a newer "
                                "commit may be among them (check the device: dmesg)",
                                device_name(d), d->journal.jbd2.read_errors);
                else if (d->have_journal && d->journal.jbd2.budget_exhausted)
                        log_info(
                                "%s: journal: stopped after %u reads (--journal-budget): a newer commit may "
                                "exist",
                                device_name(d), d->journal.jbd2.reads);
                for (enum stamp t = 0; d->have_stamps && t < _STAMP_MAX; t++)
                        /* Not there, or on another filesystem than / (a separate /var): as expected. */
                        if (d->stamps[t].error != 0 && d->stamps[t].error != -ENOENT &&
                                d->stamps[t].error != -EXDEV)
                                log_warning("%s: %s: %s, not used", device_name(d), stamp_path(t),
                                        d->stamps[t].reason ? d->stamps[t].reason
                                                            : strerror(-d->stamps[t].error));

                for (size_t j = 0; j < ev->n_candidates; j++) {
                        const struct candidate *c = ev->candidates + j;
                        if (c->device != d->path)
                                continue;
                        n++;
                        switch (candidate_verdict(p, c)) {
                        case VERDICT_PLAUSIBLE:
                        case VERDICT_BEFORE_FLOOR:
                                usable++;
                                break;
                        case VERDICT_AFTER_NOT_AFTER:
                                late++;
                                break;
                        default:
                                break;
                        }
                }

                if (n == 0)
                        log_internal(level, 0,
                                "%s: no time is set in its superblock, journal or stamp files (never mounted, or "
                                "zeroed)",
                                device_name(d));
                else if (usable == 0)
                        log_internal(level, 0,
                                "%s: all its times are after not-after %s: corrupt or crafted filesystem? (or "
                                "raise --not-after): not used",
                                device_name(d), format_iso(a, p->not_after));
                else if (late > 0)
                        for (size_t j = 0; j < ev->n_candidates; j++) {
                                const struct candidate *c = ev->candidates + j;
                                if (c->device == d->path &&
                                        candidate_verdict(p, c) == VERDICT_AFTER_NOT_AFTER)
                                        log_warning(c->time == USEC_INFINITY
                                                        ? "%s: %s (%s) is after not-after %s, ignored"
                                                        : "%s: %s %s is after not-after %s, ignored",
                                                device_name(d), c->source, format_disk_time(a, c->time),
                                                format_iso(b, p->not_after));
                        }
        }
        if (ev->n_devices == 0)
                log_internal(level, 0,
                        "No root filesystem found: give --device PATH, or root= on the kernel command line");
}

/* "superblock:last_write of /dev/mmcblk0p2", or "the floor (build time)" */
static void describe_estimate(const struct decision *d, const char *floor_origin, char *buf, size_t size)
{
        if (d->winner)
                snprintf(buf, size, "%s of %s", d->winner->source, d->winner->device);
        else
                snprintf(buf, size, "the floor (%s), no disk time being later", floor_origin);
}

static int do_set(const struct options *o, usec_t now, const struct decision *d, const char *floor_origin)
{
        char a[ISO_TIME_MAX], b[ISO_TIME_MAX], why[512];
        int64_t delta;
        int r;

        describe_estimate(d, floor_origin, why, sizeof(why));
        delta = d->target >= now ? (int64_t)((d->target - now) / USEC_PER_SEC)
                                 : -(int64_t)((now - d->target) / USEC_PER_SEC);

        if (d->action == ACTION_NONE && d->clock_synchronized) {
                log_info("Clock %s is synchronized by NTP: left alone (the disk says %s from %s)",
                        format_iso(a, now), format_iso(b, d->target), why);
                return EXIT_OK;
        }
        if (d->action == ACTION_NONE) {
                log_info("Clock %s is already at or past %s from %s: left alone", format_iso(a, now),
                        format_iso(b, d->target), why);
                return EXIT_OK;
        }

        const char *direction = d->target >= now ? "forward" : "back (it was after not-after)";
        if (o->dry_run) {
                log_notice("Would move clock %s from %s to %s (%+" PRId64
                           " s) from %s; --dry-run: not changed",
                        direction, format_iso(a, now), format_iso(b, d->target), delta, why);
                return EXIT_OK;
        }

        r = clock_set(d->target);
        if (r == -EPERM)
                return log_error(
                               "Cannot set the clock: permission denied (needs CAP_SYS_TIME: run as root); "
                               "clock left at %s",
                               format_iso(a, now)),
                       EXIT_PERMISSION;
        if (r < 0)
                return log_error_errno(r, "Cannot set the clock to %s: %m; clock left at %s",
                               format_iso(b, d->target), format_iso(a, now)),
                       EXIT_FAIL;

        log_notice("Clock moved %s from %s to %s (%+" PRId64 " s) from %s", direction, format_iso(a, now),
                format_iso(b, d->target), delta, why);
        return EXIT_OK;
}

/*
 * daemon, once set is done: hands over to NTP (handoff.c). A daemon whose
 * disk had no usable time still waits for NTP and keeps the stamp: that is
 * not a failure. Returns the exit status.
 */
static int daemon_main(const struct options *o, const struct decision *d, bool stepped, usec_t before)
{
        char timeout_from[PATH_MAX + 32];
        struct handoff_config config = {
                .ntp_unit = o->ntp_unit,
                .save_interval = o->save_interval,
                .timeout = o->timeout,
                .timeout_origin = setting_origin(o, SETTING_TIMEOUT, timeout_from, sizeof(timeout_from)),
                .stay = o->stay,
                .dry_run = o->dry_run,
                .stamp_path = stamp_path(STAMP_CLOCKFIX),
                .timesync_flag = TIMESYNC_FLAG_PATH,
        };
        struct handoff_start start = {
                .source = d->winner                       ? d->winner->source
                        : d->action != ACTION_UNAVAILABLE ? "build"
                                                          : NULL,
                .device = d->winner ? d->winner->device : NULL,
                .stepped = stepped,
                .before = before,
                .would_set = o->dry_run && d->action == ACTION_SET,
                .target = d->action != ACTION_UNAVAILABLE ? d->target : 0,
                .realtime = clock_now(),
                .boottime = clock_boottime(),
        };

        if (start.target == 0)
                start.target = start.realtime; /* no estimate: the clock stands for it */
        return handoff_run(&config, &start) < 0 ? EXIT_FAIL : EXIT_OK;
}

int cli_main(int argc, char *argv[])
{
        struct options o;
        struct policy policy;
        struct evidence ev;
        struct decision d;
        int r, status;

        log_open();
        r = options_parse(argc, argv, &o);
        if (r != 0)
                return r > 0 ? EXIT_OK : r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
        log_set_max_level(o.log_level);

        if (o.command == COMMAND_STAMP) {
                r = stamp_save(stamp_path(STAMP_CLOCKFIX));
                if (r < 0)
                        log_error_errno(r, "Cannot touch %s: %m", stamp_path(STAMP_CLOCKFIX));
                options_done(&o);
                return r < 0 ? EXIT_FAIL : EXIT_OK;
        }

        if (o.boot) {
                r = boot_parameters(&o);
                if (r < 0) {
                        options_done(&o);
                        return log_error_errno(r, "Cannot read the kernel command line: %m"), EXIT_FAIL;
                }
                if (r > 0) {
                        log_info(
                                "Turned off by clockfix=0 on the kernel command line: the clock is left alone");
                        if (o.command == COMMAND_DAEMON)
                                handoff_ready("Turned off by clockfix=0 on the kernel command line");
                        options_done(&o);
                        return EXIT_OK;
                }
        }

        r = config_file(&o);
        if (r < 0) {
                options_done(&o);
                return r == -ENOMEM ? (log_error_errno(r, "Out of memory"), EXIT_FAIL) : EXIT_USAGE;
        }

        if (resolve_policy(&o, &policy) < 0) {
                options_done(&o);
                return EXIT_USAGE;
        }

        struct gather_config config = {
                .devices = o.devices,
                .n_devices = o.n_devices,
                .cmdline_path = o.cmdline_path,
                .mountinfo_path = "/proc/self/mountinfo",
                .fstab_path = "/etc/fstab",
                .wait = o.wait,
                .window = &policy,
                .journal_budget = o.journal_budget,
                .no_stamps = o.no_stamps,
        };
        r = gather(&config, &ev);
        if (r < 0) {
                options_done(&o);
                return log_error_errno(r, "Cannot gather times: %m"), EXIT_FAIL;
        }

        /* Read the clock only now: gathering may have waited for the device. */
        usec_t now = o.have_now ? o.now : clock_now();
        char floor_from[PATH_MAX + 32];
        const char *floor_origin = o.have_not_before
                ? setting_origin(&o, SETTING_NOT_BEFORE, floor_from, sizeof(floor_from))
                : "build time";

        /* --now pretends a clock reading: what NTP thinks of the real clock does not apply to it. */
        int synchronized = o.have_now ? 0 : clock_ntp_synchronized();
        r = decide(&policy, now, synchronized > 0, ev.candidates, ev.n_candidates, &d);
        if (r < 0) {
                /* make_policy() validated the policy: not reached. */
                status = EXIT_FAIL;
                log_error_errno(r, "Cannot decide: %m");
                goto finish;
        }

        if (o.command == COMMAND_STATUS) {
                struct status s = {
                        .policy = &policy,
                        .floor_origin = floor_origin,
                        .now = now,
                        .ntp_synchronized = o.have_now ? -1 : synchronized,
                        .evidence = &ev,
                        .decision = &d,
                };
                if (o.json)
                        report_json(stdout, &s);
                else
                        report_text(stdout, &s);
                if (fflush(stdout) != 0) {
                        log_error_errno(errno, "Cannot write the report: %m");
                        status = EXIT_FAIL;
                        goto finish;
                }
                if (d.action == ACTION_UNAVAILABLE)
                        explain_devices(&ev, &policy, LOG_ERR);
                status = d.action == ACTION_UNAVAILABLE ? EXIT_NO_SOURCE : EXIT_OK;
                goto finish;
        }

        explain_devices(&ev, &policy, d.action == ACTION_UNAVAILABLE ? LOG_ERR : LOG_WARNING);
        if (d.action == ACTION_UNAVAILABLE)
                status = EXIT_NO_SOURCE;
        else
                status = do_set(&o, now, &d, floor_origin);
        if (o.command == COMMAND_DAEMON && (status == EXIT_OK || status == EXIT_NO_SOURCE))
                status = daemon_main(&o, &d, status == EXIT_OK && d.action == ACTION_SET && !o.dry_run, now);

finish:
        evidence_free(&ev);
        options_done(&o);
        return status;
}
