/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* settings: each setting's value and origin; the kernel command line (--boot), the configuration file, the
 * policy */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/cmdline.h"
#include "basic/conf.h"
#include "basic/file-util.h"
#include "basic/log.h"
#include "cli/settings.h"
#include "config.h"
#include "core/decide.h"

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
        [SETTING_STATE_DIR] = "state-dir",
        [SETTING_FSTAB] = "fstab",
        [SETTING_FLOOR_FALLBACK] = "floor-fallback",
};

const char *setting_name(enum setting s)
{
        return setting_names[s];
}

void settings_done(struct settings *o)
{
        for (size_t i = 0; i < o->n_devices; i++)
                free(o->devices[i]);
        free(o->devices);
        o->devices = NULL;
        o->n_devices = 0;
        free(o->ntp_unit);
        o->ntp_unit = NULL;
        free(o->state_dir);
        o->state_dir = NULL;
        free(o->fstab);
        o->fstab = NULL;
        free(o->cmdline.text);
        o->cmdline.text = NULL;
}

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
                if (strcmp(v, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcmp(v, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
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

/* device: one more device to read. */
static int setting_device(struct settings *o, const char *value, const char **ret_reason)
{
        char *copy, **devices;

        if (value[0] == '\0') {
                *ret_reason = "empty path";
                return -EINVAL;
        }
        devices = realloc(o->devices, (o->n_devices + 1) * sizeof(char *));
        if (!devices)
                return -ENOMEM;
        o->devices = devices;
        if (!(copy = strdup(value)))
                return -ENOMEM;
        o->devices[o->n_devices++] = copy;
        return 0;
}

/*
 * The margin stands for the moments between the disk's last write and the
 * power going: seconds on a busy system (ext4 commits every 5 s), up to the
 * stamp's save interval on an idle one (900 s by default). An hour covers four
 * times that. More is no longer a margin but a jump that compounds: each boot
 * without NTP writes its clock to the disk, and the next adds the margin to it
 * again (clockfix.margin=86400 would move the clock a day ahead every boot).
 */
#define MARGIN_MAX (3600 * USEC_PER_SEC)

/*
 * How long to wait for a device to appear. No boot waits longer for its root
 * by default: systemd gives up on a device after 90 s, initramfs-tools'
 * rootdelay and dracut's rd.retry after 180 s. Beyond that the boot has failed
 * anyway, and a device that never comes would stall it (sysinit, where no
 * service timeout ends the wait) for as long as the value says.
 */
#define WAIT_MAX (300 * USEC_PER_SEC)

/*
 * wait, margin, save-interval, timeout: a number of seconds. A value out of a
 * setting's range is refused, as a bad one is: the default (or the value an
 * earlier line set) is kept. timeout and save-interval need no upper bound:
 * their timers saturate, and a huge value means "no limit" or "never", as 0 does.
 */
static int setting_seconds(struct settings *o, enum setting s, const char *value, const char **ret_reason,
        const char **ret_hint)
{
        usec_t t;
        int r = parse_seconds(value, &t);

        if (r < 0) {
                *ret_hint = ": give a number of seconds, such as 1 or 0.5";
                *ret_reason = r == -ERANGE ? "out of range" : "not a number of seconds";
                return r;
        }
        if (s == SETTING_SAVE_INTERVAL && t > 0 && t < USEC_PER_SEC) {
                *ret_reason = "below 1 s (0: never)";
                return -ERANGE;
        }
        if (s == SETTING_MARGIN && t > MARGIN_MAX) {
                *ret_reason = "above 3600 s (at most an hour past the disk's last write)";
                return -ERANGE;
        }
        if (s == SETTING_WAIT && t > WAIT_MAX) {
                *ret_reason = "above 300 s (no boot waits that long for its root)";
                return -ERANGE;
        }
        if (s == SETTING_WAIT)
                o->wait = t;
        else if (s == SETTING_MARGIN)
                o->margin = t;
        else if (s == SETTING_SAVE_INTERVAL)
                o->save_interval = t;
        else
                o->timeout = t;
        return 0;
}

/* not-before, not-after: a time. */
static int setting_time(struct settings *o, enum setting s, const char *value, const char **ret_reason,
        const char **ret_hint)
{
        usec_t t;
        int r = parse_time(value, &t);

        if (r < 0) {
                *ret_hint = ": use YYYY-MM-DD[THH:MM[:SS]][Z] (UTC) or @SECONDS";
                *ret_reason = r == -ERANGE ? "time out of range" : "not a time";
                return r;
        }
        if (s == SETTING_NOT_BEFORE) {
                o->not_before = t;
                o->have_not_before = true;
        } else {
                o->not_after = t;
                o->have_not_after = true;
        }
        return 0;
}

/* stamps, stay, floor-fallback: yes or no. */
static int setting_boolean(struct settings *o, enum setting s, const char *value, const char **ret_reason)
{
        bool b;

        if (parse_boolean(value, &b) < 0) {
                *ret_reason = "not yes or no";
                return -EINVAL;
        }
        if (s == SETTING_STAMPS)
                o->no_stamps = !b;
        else if (s == SETTING_FLOOR_FALLBACK)
                o->no_floor_fallback = !b;
        else
                o->stay = b;
        return 0;
}

/* ntp-unit: a unit name, or "" for none. */
static int setting_ntp_unit(
        struct settings *o, const char *value, const char **ret_reason, const char **ret_hint)
{
        char *copy = NULL;

        if (value[0] != '\0' && !unit_name_valid(value)) {
                *ret_hint = " (such as chrony.service; empty: start none)";
                *ret_reason = "not a unit name";
                return -EINVAL;
        }
        if (value[0] != '\0' && !(copy = strdup(value)))
                return -ENOMEM;
        free(o->ntp_unit);
        o->ntp_unit = copy;
        return 0;
}

/*
 * state-dir, fstab: an absolute path with room for room more bytes, or "" for the default, into
 * *slot.
 */
static int setting_path(char **slot, const char *value, size_t room, const char **ret_reason)
{
        char *copy = NULL;

        if (value[0] != '\0' && (value[0] != '/' || strlen(value) + room >= PATH_MAX)) {
                *ret_reason = "not an absolute path";
                return -EINVAL;
        }
        if (value[0] != '\0' && !(copy = strdup(value)))
                return -ENOMEM;
        free(*slot);
        *slot = copy;
        return 0;
}

int setting_parse(struct settings *o, enum setting s, const char *value, const char **ret_reason,
        const char **ret_hint)
{
        *ret_hint = "";
        switch (s) {
        case SETTING_DEVICE:
                return setting_device(o, value, ret_reason);
        case SETTING_WAIT:
        case SETTING_MARGIN:
        case SETTING_SAVE_INTERVAL:
        case SETTING_TIMEOUT:
                return setting_seconds(o, s, value, ret_reason, ret_hint);
        case SETTING_NOT_BEFORE:
        case SETTING_NOT_AFTER:
                return setting_time(o, s, value, ret_reason, ret_hint);
        case SETTING_JOURNAL_BUDGET:
                if (parse_budget(value, &o->journal_budget) < 0) {
                        *ret_reason = "not a number of reads from 0 to " XSTR(JOURNAL_BUDGET_MAX);
                        return -EINVAL;
                }
                return 0;
        case SETTING_STAMPS:
        case SETTING_STAY:
        case SETTING_FLOOR_FALLBACK:
                return setting_boolean(o, s, value, ret_reason);
        case SETTING_NTP_UNIT:
                return setting_ntp_unit(o, value, ret_reason, ret_hint);
        case SETTING_STATE_DIR:
                /* The record is written as DIR/future-times.new first. */
                return setting_path(&o->state_dir, value, sizeof("/future-times.new") - 1, ret_reason);
        case SETTING_FSTAB:
                return setting_path(&o->fstab, value, 0, ret_reason);
        default:
                return -EINVAL;
        }
}

/*
 * The key of s on the kernel command line: "clockfix.not_after" as
 * documented, or with the '-' of its name ("clockfix.not-after").
 */
static void kernel_key(enum setting s, bool documented, char *buf, size_t size)
{
        snprintf(buf, size, "clockfix.%s", setting_names[s]);
        for (char *c = buf; documented && *c; c++)
                if (*c == '-')
                        *c = '_';
}

const char *setting_origin(const struct settings *o, enum setting s, char *buf, size_t size)
{
        char key[64];

        switch (o->origin[s]) {
        case FROM_OPTION:
                snprintf(buf, size, "--%s", setting_names[s]);
                break;
        case FROM_KERNEL:
                /* The documented spelling of the kernel command line: "clockfix.not_after=". */
                kernel_key(s, true, key, sizeof(key));
                snprintf(buf, size, "%s=", key);
                break;
        case FROM_FILE:
                snprintf(buf, size, "%s:%u", o->config_path, o->origin_line[s]);
                break;
        default:
                snprintf(buf, size, "the default");
        }
        return buf;
}

/*
 * A setting from the kernel command line or the configuration file (at line;
 * where: "clockfix.margin=soon", "/etc/clockfix.conf:3: margin = soon"),
 * unless a stronger origin gave it. A value that does not parse is warned
 * about and ignored: nothing here may fail a boot. Returns 0, or -ENOMEM.
 */
static int weak_setting(struct settings *o, enum setting_origin origin, unsigned line, enum setting s,
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

/* Reads the kernel command line into c, unless that was done: it is read once. */
static void kernel_cmdline_read(struct kernel_cmdline *c)
{
        if (c->text || c->error != 0)
                return;
        c->error = read_small_file(c->path, &c->text);
}

/*
 * The value of s on the kernel command line, under its documented key
 * ("clockfix.not_after") or else the one with '-': 1 with *ret (free it) and
 * the key found in key, 0 if neither is there, or -ENOMEM.
 */
static int kernel_setting(const char *cmdline, enum setting s, char *key, size_t size, char **ret)
{
        int r;

        kernel_key(s, true, key, size);
        r = cmdline_get(cmdline, key, ret);
        if (r == 0 && strchr(setting_names[s], '-')) {
                kernel_key(s, false, key, size);
                r = cmdline_get(cmdline, key, ret);
        }
        return r;
}

int settings_turned_off(struct settings *o)
{
        _cleanup_free_ char *v = NULL;
        bool on;
        int r;

        kernel_cmdline_read(&o->cmdline);
        if (!o->cmdline.text)
                return 0;
        r = cmdline_get(o->cmdline.text, "clockfix", &v);
        if (r <= 0)
                return r;
        return parse_boolean(v, &on) == 0 && !on;
}

/*
 * --boot: the clockfix parameters of the kernel command line
 * ("clockfix.not_after=2040-01-01"; '-' may replace '_'), for what the
 * options leave open. An unreadable kernel command line has none. Returns 1
 * when clockfix=0 (or no, off, false) turns clockfix off, 0, or -ENOMEM.
 */
static int boot_parameters(struct settings *o)
{
        const char *cmdline;
        int r;

        r = settings_turned_off(o);
        if (r != 0)
                return r;
        cmdline = o->cmdline.text;
        if (!cmdline)
                return 0;
        for (enum setting s = 0; s < _SETTING_MAX; s++) {
                _cleanup_free_ char *value = NULL;
                char key[64], where[4200];

                r = kernel_setting(cmdline, s, key, sizeof(key), &value);
                if (r < 0)
                        return r;
                /* An empty clockfix.device= leaves the device to the other means. */
                if (r == 0 || (s == SETTING_DEVICE && value[0] == '\0'))
                        continue;
                snprintf(where, sizeof(where), "%s=%s", key, value);
                r = weak_setting(o, FROM_KERNEL, 0, s, value, where);
                if (r < 0)
                        return r;
        }
        return 0;
}

struct conf_state {
        struct settings *options;
        const char *path;
};

static int conf_setting(const char *key, const char *value, unsigned line, void *userdata)
{
        struct conf_state *c = userdata;
        char where[1200];

        if (!value) {
                log_warning("%s:%u: ignoring \"%s\": not \"key = value\"", c->path, line, key);
                return 0;
        }
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
static int config_file(struct settings *o)
{
        struct conf_state c = { .options = o, .path = o->config_path };
        _cleanup_free_ char *text = NULL;
        int r = read_small_file(o->config_path, &text);

        if (r < 0 && o->config_given)
                return log_error_errno(r, "Cannot read the configuration %s: %m", o->config_path);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_warning_errno(
                        r, "Cannot read the configuration %s: %m; going on without it", o->config_path);
                return 0;
        }
        return conf_parse(text, conf_setting, &c);
}

/*
 * The policy of docs/design.md §3 from the options. 0, or -EINVAL with what
 * does not hold together in why, and the settings involved (1 << setting)
 * in *ret_involved.
 */
static int make_policy(
        const struct settings *o, struct policy *ret, char *why, size_t size, unsigned *ret_involved)
{
        struct policy p = {
                .floor = o->have_not_before ? o->not_before : (usec_t)CLOCKFIX_BUILD_EPOCH * USEC_PER_SEC,
                .margin = o->margin,
                .floor_fallback = !o->no_floor_fallback,
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
static int resolve_policy(struct settings *o, struct policy *ret)
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

int settings_load(struct settings *o, struct policy *ret_policy)
{
        int r;

        if (o->boot) {
                r = boot_parameters(o);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the kernel command line: %m");
                if (r > 0)
                        return 1;
        }

        r = config_file(o);
        if (r == -ENOMEM)
                return log_error_errno(r, "Out of memory");
        if (r < 0)
                return r;

        r = resolve_policy(o, ret_policy);
        if (r < 0)
                return r;

        /* Without a device named, gather looks for root= on the kernel command line. */
        if (o->n_devices == 0)
                kernel_cmdline_read(&o->cmdline);
        return 0;
}
