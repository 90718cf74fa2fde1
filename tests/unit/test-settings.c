/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-settings: where each setting's value comes from (an option, the kernel command line with
 * --boot, the configuration file, the default: the strongest wins), the values each refuses, and
 * the fallback when the values do not hold together (the weakest origin gives way to the defaults;
 * among the options alone, a usage error). The settings are made as the program makes them:
 * options_parse() on an argv, then settings_load() with a configuration file and a kernel command
 * line written into the test's directory.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basic/log.h"
#include "cli/options.h"
#include "cli/settings.h"
#include "config.h"
#include "core/decide.h"
#include "test.h"

#define S(sec) ((usec_t)USEC_PER_SEC * (sec))
#define FLOOR  S((usec_t)CLOCKFIX_BUILD_EPOCH)

/*
 * Parses the options given (a NULL-terminated list) for the command status, with --config and
 * --cmdline naming files holding conf and cmdline, into *o, then loads the rest into *o and *p.
 * Returns what settings_load() returned, or options_parse()'s error (then *o holds nothing).
 */
static int load(struct settings *o, struct policy *p, const char *conf, const char *cmdline, ...)
{
        const char *argv[32] = { "clockfix" };
        int argc = 1, r;
        va_list ap;

        va_start(ap, cmdline);
        for (const char *a; (a = va_arg(ap, const char *));)
                argv[argc++] = a;
        va_end(ap);
        argv[argc++] = "--config";
        argv[argc++] = write_file("clockfix.conf", conf);
        argv[argc++] = "--cmdline";
        argv[argc++] = write_file("cmdline", cmdline);
        argv[argc++] = "status";
        r = options_parse(argc, (char **)argv, o);
        if (r != 0)
                return r;
        return settings_load(o, p);
}

/* The origin of s as messages name it ("--margin", "clockfix.margin=", "FILE:LINE", "the default"). */
static const char *origin(const struct settings *o, enum setting s)
{
        static char buf[4200];

        return setting_origin(o, s, buf, sizeof(buf));
}

/* The configuration file's line as setting_origin() names it. */
static const char *file_line(unsigned line)
{
        static char buf[4200];

        snprintf(buf, sizeof(buf), "%s:%u", test_path("clockfix.conf"), line);
        return buf;
}

static void test_defaults(void)
{
        struct settings o;
        struct policy p;

        check_int(load(&o, &p, "", "root=/dev/vda ro", NULL), 0);
        check_u64(o.margin, MARGIN_DEFAULT);
        check_u64(p.margin, MARGIN_DEFAULT);
        check_u64(p.floor, FLOOR);
        check_u64(p.not_after, FLOOR + NOT_AFTER_DEFAULT_SPAN);
        check_u64(o.save_interval, SAVE_INTERVAL_DEFAULT);
        for (enum setting s = 0; s < _SETTING_MAX; s++)
                check_str(origin(&o, s), "the default");
        /* No device named: the kernel command line was read, once, for root=. */
        check_str(o.cmdline.text ? o.cmdline.text : "(null)", "root=/dev/vda ro");
        settings_done(&o);
}

/* An option over the kernel command line over the file over the default, for each. */
static void test_precedence(void)
{
        struct settings o;
        struct policy p;

        check_int(load(&o, &p, "margin = 5\n", "clockfix.margin=7", "--boot", "--margin", "9", NULL), 0);
        check_u64(o.margin, S(9));
        check_str(origin(&o, SETTING_MARGIN), "--margin");
        settings_done(&o);

        check_int(load(&o, &p, "margin = 5\n", "clockfix.margin=7", "--boot", NULL), 0);
        check_u64(o.margin, S(7));
        check_str(origin(&o, SETTING_MARGIN), "clockfix.margin=");
        settings_done(&o);

        /* Without --boot the kernel's parameters are not clockfix's to read. */
        check_int(load(&o, &p, "# a comment\n\nmargin = 5\n", "clockfix.margin=7", NULL), 0);
        check_u64(o.margin, S(5));
        check_str(origin(&o, SETTING_MARGIN), file_line(3));
        check_u64(p.margin, S(5));
        settings_done(&o);

        /* The documented key with '_', and the one with '-': the documented one first. */
        check_int(load(&o, &p, "", "clockfix.not-before=2030-01-01 clockfix.not_after=2090-01-01", "--boot",
                          NULL),
                0);
        check_u64(p.floor, S(1893456000u));
        check_u64(p.not_after, S(3786912000u));
        check_str(origin(&o, SETTING_NOT_BEFORE), "clockfix.not_before=");
        settings_done(&o);
        check_int(load(&o, &p, "", "clockfix.not_before=2031-01-01 clockfix.not-before=2030-01-01", "--boot",
                          NULL),
                0);
        check_u64(p.floor, S(1924992000u));
        settings_done(&o);

        /* A later line of the file replaces an earlier one; devices add up, unless an option names one. */
        check_int(load(&o, &p, "margin = 5\nmargin = 6\ndevice = /dev/a\ndevice = /dev/b\n", "", NULL), 0);
        check_u64(o.margin, S(6));
        check_str(origin(&o, SETTING_MARGIN), file_line(2));
        check_int((int)o.n_devices, 2);
        check_str(o.devices[1], "/dev/b");
        settings_done(&o);
        check_int(load(&o, &p, "device = /dev/a\n", "clockfix.device=/dev/k", "--boot", "--device", "/dev/o",
                          NULL),
                0);
        check_int((int)o.n_devices, 1);
        check_str(o.devices[0], "/dev/o");
        settings_done(&o);
        /* An empty clockfix.device= leaves the device to the file, or to the search. */
        check_int(load(&o, &p, "device = /dev/a\n", "clockfix.device=", "--boot", NULL), 0);
        check_int((int)o.n_devices, 1);
        check_str(o.devices[0], "/dev/a");
        check_str(origin(&o, SETTING_DEVICE), file_line(1));
        settings_done(&o);
}

/* A bad value read from the kernel or the file is ignored (warned about): the next origin's counts. */
static void test_bad_values_ignored(void)
{
        struct settings o;
        struct policy p;

        check_int(load(&o, &p, "margin = 4\n", "clockfix.margin=soon", "--boot", NULL), 0);
        check_u64(o.margin, S(4));
        check_str(origin(&o, SETTING_MARGIN), file_line(1));
        settings_done(&o);

        check_int(load(&o, &p,
                          "margin = soon\nwait = 1000\nstamps = maybe\nsave-interval = 0.5\n"
                          "ntp-unit = no/unit\nstate-dir = relative\njournal-budget = 10001\n"
                          "no-such-key = 1\nmargin\n",
                          "", NULL),
                0);
        check_u64(o.margin, MARGIN_DEFAULT);
        check_u64(o.wait, 0);
        check(!o.no_stamps);
        check_u64(o.save_interval, SAVE_INTERVAL_DEFAULT);
        check(o.ntp_unit == NULL);
        check(o.state_dir == NULL);
        for (enum setting s = 0; s < _SETTING_MAX; s++)
                check_str(origin(&o, s), "the default");
        settings_done(&o);

        /* The same as options: a usage error. */
        check_int(load(&o, &p, "", "", "--margin", "soon", NULL), -EINVAL);
        check_int(load(&o, &p, "", "", "--wait", "301", NULL), -EINVAL);
}

/* The values each setting takes, at its bounds. */
static void test_ranges(void)
{
        static const struct {
                enum setting s;
                const char *value;
                int ret;
        } rows[] = {
                { SETTING_MARGIN, "3600", 0 },
                { SETTING_MARGIN, "3601", -ERANGE },
                { SETTING_MARGIN, "0.5", 0 },
                { SETTING_WAIT, "300", 0 },
                { SETTING_WAIT, "301", -ERANGE },
                { SETTING_SAVE_INTERVAL, "0", 0 },
                { SETTING_SAVE_INTERVAL, "0.5", -ERANGE },
                { SETTING_SAVE_INTERVAL, "1", 0 },
                { SETTING_TIMEOUT, "99999999", 0 },
                { SETTING_TIMEOUT, "-1", -EINVAL },
                { SETTING_JOURNAL_BUDGET, "10000", 0 },
                { SETTING_JOURNAL_BUDGET, "10001", -EINVAL },
                { SETTING_JOURNAL_BUDGET, "0", 0 },
                { SETTING_JOURNAL_BUDGET, "-1", -EINVAL },
                { SETTING_NOT_BEFORE, "2030-01-01", 0 },
                { SETTING_NOT_BEFORE, "2030-13-01", -EINVAL },
                { SETTING_NOT_AFTER, "@4070908800", 0 },
                { SETTING_STAMPS, "off", 0 },
                { SETTING_STAMPS, "maybe", -EINVAL },
                { SETTING_STAY, "yes", 0 },
                { SETTING_NTP_UNIT, "chrony.service", 0 },
                { SETTING_NTP_UNIT, "", 0 },
                { SETTING_NTP_UNIT, "chrony", -EINVAL },
                { SETTING_NTP_UNIT, "a/b.service", -EINVAL },
                { SETTING_STATE_DIR, "/var/lib/clockfix", 0 },
                { SETTING_STATE_DIR, "var/lib/clockfix", -EINVAL },
                { SETTING_FSTAB, "/etc/clockfix/fstab", 0 },
                { SETTING_DEVICE, "", -EINVAL },
                { SETTING_FLOOR_FALLBACK, "no", 0 },
                { SETTING_FLOOR_FALLBACK, "sometimes", -EINVAL },
        };

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct settings o = { .margin = MARGIN_DEFAULT };
                const char *reason = NULL, *hint = NULL;
                int r = setting_parse(&o, rows[i].s, rows[i].value, &reason, &hint);

                if (r != rows[i].ret)
                        fprintf(stderr, "%s = %s\n", setting_name(rows[i].s), rows[i].value);
                check_int(r, rows[i].ret);
                /* A refusal says why. */
                check(r == 0 || (reason && reason[0]));
                settings_done(&o);
        }
}

/* Values that do not hold together: the weakest origin involved gives way to the defaults. */
static void test_conflicts(void)
{
        struct settings o;
        struct policy p;

        /* not-after before the floor, from the file: the default not-after instead. */
        check_int(load(&o, &p, "not-after = 2020-01-01\n", "", NULL), 0);
        check_u64(p.not_after, FLOOR + NOT_AFTER_DEFAULT_SPAN);
        check_str(origin(&o, SETTING_NOT_AFTER), "the default");
        settings_done(&o);

        /* The kernel's not-after against the file's not-before: the file's gives way. */
        check_int(load(&o, &p, "not-before = 2098-06-01\n", "clockfix.not_after=2098-01-01", "--boot", NULL),
                0);
        check_u64(p.floor, FLOOR);
        check_u64(p.not_after, S(4039372800u));
        check_str(origin(&o, SETTING_NOT_BEFORE), "the default");
        check_str(origin(&o, SETTING_NOT_AFTER), "clockfix.not_after=");
        settings_done(&o);

        /* An option against the file: the file's gives way, the option stands. */
        check_int(load(&o, &p, "not-after = 2030-01-01\n", "", "--not-before", "2040-01-01", NULL), 0);
        check_u64(p.floor, S(2208988800u));
        check_u64(p.not_after, S(2208988800u) + NOT_AFTER_DEFAULT_SPAN);
        settings_done(&o);

        /* A margin wider than the window holds together: the target stops at not-after (decide()). */
        check_int(load(&o, &p, "margin = 3600\n", "", "--not-before", "2090-01-01", "--not-after",
                          "2090-01-01T00:00:30", NULL),
                0);
        check_u64(p.margin, S(3600));
        check_str(origin(&o, SETTING_MARGIN), file_line(1));
        settings_done(&o);

        /* Among the options alone, nothing gives way: a usage error. */
        check_int(load(&o, &p, "", "", "--not-after", "2020-01-01", NULL), -EINVAL);
}

/* The floor as the last resort: on unless an option, the kernel (--boot) or the file says no. */
static void test_floor_fallback(void)
{
        struct settings o;
        struct policy p;

        check_int(load(&o, &p, "", "", NULL), 0);
        check(p.floor_fallback);
        settings_done(&o);
        check_int(load(&o, &p, "", "", "--no-floor-fallback", NULL), 0);
        check(!p.floor_fallback);
        check_int(o.origin[SETTING_FLOOR_FALLBACK], FROM_OPTION);
        settings_done(&o);
        check_int(load(&o, &p, "floor-fallback = no\n", "", NULL), 0);
        check(!p.floor_fallback);
        settings_done(&o);
        check_int(load(&o, &p, "floor-fallback = no\n", "clockfix.floor_fallback=yes", "--boot", NULL), 0);
        check(p.floor_fallback);
        check_str(origin(&o, SETTING_FLOOR_FALLBACK), "clockfix.floor_fallback=");
        settings_done(&o);
}

/* clockfix=0 on the kernel command line turns clockfix off, with --boot. */
static void test_turned_off(void)
{
        struct settings o;
        struct policy p;

        check_int(load(&o, &p, "margin = 5\n", "quiet clockfix=0", "--boot", NULL), 1);
        settings_done(&o);
        check_int(load(&o, &p, "", "clockfix=off", "--boot", NULL), 1);
        settings_done(&o);
        check_int(load(&o, &p, "", "clockfix=1", "--boot", NULL), 0);
        settings_done(&o);
        /* Without --boot, settings_load() does not ask; the stamp command asks settings_turned_off(). */
        check_int(load(&o, &p, "", "clockfix=0", NULL), 0);
        check_int(settings_turned_off(&o), 1);
        settings_done(&o);
}

/* The configuration file: the default one may be missing, one named with --config may not. */
static void test_config_file(void)
{
        const char *argv[] = { "clockfix", "--config", "/nonexistent/clockfix.conf", "status", NULL };
        struct settings o;
        struct policy p;

        check_int(options_parse(4, (char **)argv, &o), 0);
        check(settings_load(&o, &p) < 0);
        settings_done(&o);

        check_int(options_parse(4, (char **)argv, &o), 0);
        o.config_given = false; /* as the default path is */
        o.cmdline.path = write_file("cmdline", "");
        check_int(settings_load(&o, &p), 0);
        check_u64(p.margin, MARGIN_DEFAULT);
        settings_done(&o);
}

int main(void)
{
        log_set_max_level(LOG_CRIT); /* the warnings of bad values are what is tested, not their text */
        test_dir_make("test-settings");
        test_defaults();
        test_precedence();
        test_bad_values_ignored();
        test_ranges();
        test_conflicts();
        test_floor_fallback();
        test_turned_off();
        test_config_file();
        test_dir_remove();
        test_end();
}
