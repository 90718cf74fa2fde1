/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cli: the commands (status, set, daemon, stamp, learn), what they print, and the exit status */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/clock.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/settings.h"
#include "core/decide.h"
#include "core/gather.h"
#include "core/record.h"
#include "daemon/background.h"
#include "daemon/daemon.h"
#include "daemon/learn.h"
#include "daemon/stamp-keeper.h"
#include "daemon/systemd.h"

/* "superblock:last_write of /dev/mmcblk0p2", or "the floor (build time)" */
static void describe_estimate(const struct decision *d, const char *floor_origin, char *buf, size_t size)
{
        if (d->winner)
                snprintf(buf, size, "%s of %s", d->winner->source, d->winner->device);
        else
                snprintf(buf, size, "the floor (%s), no disk time being later", floor_origin);
}

/* The floor as messages name it: "clockfix's build time", "the floor (--not-before)". */
static void describe_floor(const char *floor_origin, char *buf, size_t size)
{
        if (strcmp(floor_origin, "build time") == 0)
                snprintf(buf, size, "clockfix's build time");
        else
                snprintf(buf, size, "the floor (%s)", floor_origin);
}

/*
 * No device gave a usable time, and the clock is before the floor: set to the floor, the earliest
 * it can be, and said so. EXIT_NO_SOURCE when it is (or would be) set, else why not.
 */
static int set_floor(
        const struct settings *o, usec_t now, const struct decision *d, const char *floor_origin)
{
        char a[ISO_TIME_MAX], b[ISO_TIME_MAX], floor[PATH_MAX + 64];
        int64_t delta = (int64_t)((d->target - now) / USEC_PER_SEC);
        int r;

        describe_floor(floor_origin, floor, sizeof(floor));
        if (o->dry_run) {
                log_warning("No time on the disk; the clock would be set to %s, %s, the earliest it can be "
                            "(moved forward from %s, %+" PRId64 " s); --dry-run: not changed",
                        floor, format_iso(b, d->target), format_iso(a, now), delta);
                return EXIT_NO_SOURCE;
        }
        r = clock_set(d->target);
        if (r == -EPERM) {
                log_error("Cannot set the clock to %s, %s: permission denied (needs CAP_SYS_TIME: run as "
                          "root); clock left at %s",
                        floor, format_iso(b, d->target), format_iso(a, now));
                return EXIT_PERMISSION;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot set the clock to %s, %s: %m; clock left at %s", floor,
                        format_iso(b, d->target), format_iso(a, now));
                return EXIT_FAIL;
        }
        log_warning("No time on the disk; the clock set to %s, %s, the earliest it can be (moved forward "
                    "from %s, %+" PRId64 " s)",
                floor, format_iso(b, d->target), format_iso(a, now), delta);
        return EXIT_NO_SOURCE;
}

static int do_set(const struct settings *o, usec_t now, const struct decision *d, const char *floor_origin)
{
        char a[ISO_TIME_MAX], b[ISO_TIME_MAX], why[512];
        int64_t delta;
        int r;

        if (!d->evidence)
                return set_floor(o, now, d, floor_origin);

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
        if (r == -EPERM) {
                log_error("Cannot set the clock: permission denied (needs CAP_SYS_TIME: run as root); "
                          "clock left at %s",
                        format_iso(a, now));
                return EXIT_PERMISSION;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot set the clock to %s: %m; clock left at %s",
                        format_iso(b, d->target), format_iso(a, now));
                return EXIT_FAIL;
        }

        log_notice("Clock moved %s from %s to %s (%+" PRId64 " s) from %s", direction, format_iso(a, now),
                format_iso(b, d->target), delta, why);
        return EXIT_OK;
}

/* What status, set, daemon and learn share: the times found on the disks and the decision on them. */
struct findings {
        struct gather_config config; /* how the times were found */
        char record_path[PATH_MAX];
        struct evidence ev;
        struct decision d; /* points into ev */
        usec_t now;        /* the clock when decided, or --now */
        int synchronized;  /* clock_ntp_synchronized() then; 0 with --now */
        const char *floor_origin;
        char floor_from[PATH_MAX + 32];
        char wait_from[PATH_MAX + 32]; /* config.wait_origin */
};

/* How learn finds the times again and where it keeps the record. */
static struct learn_config learn_config_of(const struct settings *o, const struct findings *found)
{
        return (struct learn_config){
                .gather = &found->config,
                .record_path = found->record_path,
                .on_root = !o->state_dir,
                .tolerance = o->margin + RECORD_TOLERANCE,
                .dry_run = o->dry_run,
        };
}

/*
 * daemon, once set is done: hands over to NTP (daemon.c). A daemon whose
 * disk had no usable time still waits for NTP and keeps the stamp: that is
 * not a failure. Returns the exit status.
 */
static int daemon_main(const struct settings *o, const struct findings *found, bool stepped)
{
        const struct decision *d = &found->d;
        struct learn_config learn = learn_config_of(o, found);
        char timeout_from[PATH_MAX + 32];
        struct daemon_config config = {
                .ntp_unit = o->ntp_unit,
                .save_interval = o->save_interval,
                .timeout = o->timeout,
                .timeout_origin = setting_origin(o, SETTING_TIMEOUT, timeout_from, sizeof(timeout_from)),
                .stay = o->stay,
                .dry_run = o->dry_run,
                .stamp_path = stamp_path(STAMP_CLOCKFIX),
                .timesync_flag = TIMESYNC_FLAG_PATH,
                .learn = &learn,
        };
        struct daemon_start start = {
                .source = d->winner                       ? d->winner->source
                        : d->action != ACTION_UNAVAILABLE ? "build"
                                                          : NULL,
                .device = d->winner ? d->winner->device : NULL,
                .stepped = stepped,
                .before = found->now,
                .would_set = o->dry_run && d->action == ACTION_SET,
                .target = d->action != ACTION_UNAVAILABLE ? d->target : 0,
                .floor = found->config.policy->floor,
        };
        clock_pair(&start.realtime, &start.boottime);

        if (start.target == 0)
                start.target = start.realtime; /* no estimate: the clock stands for it */
        /* With --background, this is the child of run_command()'s fork: the foreground waits for it. */
        background_pid_file(o->pid_file);
        int r = daemon_run(&config, &start);
        background_done();
        return r < 0 ? EXIT_FAIL : EXIT_OK;
}

static void findings_done(struct findings *found)
{
        evidence_free(&found->ev);
}

/* Where the times are looked for, and the record. */
static void findings_setup(const struct settings *o, const struct policy *policy, struct findings *found)
{
        /* The record: in --state-dir of the running system, else in its directory on the root filesystem. */
        snprintf(found->record_path, sizeof(found->record_path), "%s/" RECORD_NAME,
                o->state_dir ? o->state_dir : RECORD_DIR_DEFAULT);
        found->config = (struct gather_config){
                .devices = o->devices,
                .n_devices = o->n_devices,
                .root = o->root,
                .mounts_fstab = o->fstab,
                .cmdline = &o->cmdline,
                .mountinfo_path = "/proc/self/mountinfo",
                .fstab_path = "/etc/fstab",
                .wait = o->wait,
                .wait_origin = setting_origin(o, SETTING_WAIT, found->wait_from, sizeof(found->wait_from)),
                .policy = policy,
                .journal_budget = o->journal_budget,
                .no_stamps = o->no_stamps,
                .record_path = found->record_path,
                .record_on_root = !o->state_dir,
                .record_always = o->command == COMMAND_STATUS,
        };
}

/* Gathers the times and decides. EXIT_OK, or EXIT_FAIL after logging; findings_done() either way. */
static int gather_and_decide(const struct settings *o, const struct policy *policy, struct findings *found)
{
        int r;

        findings_setup(o, policy, found);
        r = gather(&found->config, &found->ev);
        if (r < 0) {
                log_error_errno(r, "Cannot gather times: %m");
                return EXIT_FAIL;
        }

        /* Read the clock only now: gathering may have waited for the device. */
        found->now = o->have_now ? o->now : clock_now();
        found->floor_origin = o->have_not_before
                ? setting_origin(o, SETTING_NOT_BEFORE, found->floor_from, sizeof(found->floor_from))
                : "build time";

        /* --now pretends a clock reading: what NTP thinks of the real clock does not apply to it. */
        found->synchronized = o->have_now ? 0 : clock_ntp_synchronized();
        r = decide(policy, found->now, found->synchronized > 0, found->ev.candidates, found->ev.n_candidates,
                &found->d);
        if (r < 0) {
                /* settings_load() validated the policy: not reached. */
                log_error_errno(r, "Cannot decide: %m");
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

static int command_status(
        const struct settings *o, const struct policy *policy, const struct findings *found)
{
        struct status s = {
                .policy = policy,
                .floor_origin = found->floor_origin,
                .now = found->now,
                .ntp_synchronized = o->have_now ? -1 : found->synchronized,
                .evidence = &found->ev,
                .decision = &found->d,
                .record_path = found->record_path,
        };

        if (o->json)
                report_json(stdout, &s);
        else
                report_text(stdout, &s);
        if (fflush(stdout) != 0) {
                log_error_errno(errno, "Cannot write the report: %m");
                return EXIT_FAIL;
        }
        if (!found->d.evidence) {
                explain_devices(&found->ev, policy, LOG_ERR);
                return EXIT_NO_SOURCE;
        }
        return EXIT_OK;
}

static int command_set(const struct settings *o, const struct policy *policy, const struct findings *found)
{
        explain_devices(&found->ev, policy, found->d.evidence ? LOG_WARNING : LOG_ERR);
        if (found->d.action == ACTION_UNAVAILABLE)
                return EXIT_NO_SOURCE;
        /* Without evidence, the clock set to the floor: still no usable source (EXIT_NO_SOURCE). */
        return do_set(o, found->now, &found->d, found->floor_origin);
}

static int command_daemon(
        const struct settings *o, const struct policy *policy, const struct findings *found)
{
        int status = command_set(o, policy, found);

        if (status != EXIT_OK && status != EXIT_NO_SOURCE)
                return status;
        /* The clock set: from the disk (EXIT_OK), or to the floor with no usable time (EXIT_NO_SOURCE). */
        return daemon_main(o, found, found->d.action == ACTION_SET && !o->dry_run);
}

/*
 * learn: the times on the disk later than the true time (the clock NTP synchronised, or --now)
 * go into the record. Returns the exit status.
 */
static int command_learn(const struct settings *o, const struct policy *policy)
{
        _cleanup_(findings_done) struct findings found = {};
        struct learn_config config;
        struct learn_summary summary;

        findings_setup(o, policy, &found);
        config = learn_config_of(o, &found);
        found.now = o->have_now ? o->now : clock_now();
        int synchronized = o->have_now ? 1 : clock_ntp_synchronized();
        if (synchronized < 0) {
                log_error_errno(synchronized,
                        "Cannot tell whether NTP synchronised the clock (adjtimex: %m); nothing recorded");
                return EXIT_FAIL;
        }
        if (synchronized == 0) {
                log_error(
                        "The clock is not synchronised by NTP: nothing tells which of the disk's times are "
                        "in the future (wait for NTP, or give --now TIME); nothing recorded");
                return EXIT_FAIL;
        }
        if (learn(&config, found.now, &summary) < 0)
                return EXIT_FAIL;
        if (summary.n_future == 0)
                log_info("No time on the disk is in the future: nothing to record");
        return EXIT_OK;
}

/*
 * stamp: run at shutdown (the init scripts' stop, clockfix-stamp.service for the daemon). clockfix=0
 * on the kernel command line turns it off, with or without --boot: under systemd the daemon then
 * exits at once and nothing writes the stamp, and every way of stopping must agree.
 */
static int command_stamp(struct settings *o)
{
        int r = settings_turned_off(o);

        if (r < 0) {
                log_error_errno(r, "Out of memory");
                return EXIT_FAIL;
        }
        if (r > 0) {
                log_info("Turned off by clockfix=0 on the kernel command line (%s): %s not touched",
                        o->cmdline.path, stamp_path(STAMP_CLOCKFIX));
                return EXIT_OK;
        }
        r = stamp_save(stamp_path(STAMP_CLOCKFIX));

        if (r < 0) {
                log_error_errno(r, "Cannot touch %s: %m", stamp_path(STAMP_CLOCKFIX));
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

/* Whether systemd runs this system, as sd_booted() tells: it made /run/systemd/system. */
static bool systemd_running(void)
{
        struct file_stat st;

        return file_stat("/run/systemd/system", &st) == 0 && S_ISDIR(st.mode);
}

/*
 * The daemon's one setting that only systemd can honour: the NTP unit to
 * start. Without systemd, --ntp-unit is refused (EXIT_USAGE); from the file or
 * the kernel command line it is ignored with a warning, as any bad setting
 * there, so that the boot goes on. EXIT_OK or EXIT_USAGE.
 */
static int daemon_check(struct settings *o)
{
        char from[PATH_MAX + 32];
        const char *why = "systemd does not run this system (no /run/systemd/system), so no unit can be "
                          "started: leave ntp-unit out and start the NTP client from the init system "
                          "(OpenRC: rc-update add chronyd default)";

        if (o->command != COMMAND_DAEMON || !o->ntp_unit || systemd_running())
                return EXIT_OK;
        setting_origin(o, SETTING_NTP_UNIT, from, sizeof(from));
        if (o->origin[SETTING_NTP_UNIT] == FROM_OPTION) {
                log_error("--ntp-unit %s: %s", o->ntp_unit, why);
                return EXIT_USAGE;
        }
        log_warning("Ignoring ntp-unit %s (%s): %s", o->ntp_unit, from, why);
        free(o->ntp_unit);
        o->ntp_unit = NULL;
        return EXIT_OK;
}

/*
 * Whether clockfix.service or clockfix-learn.service runs this process (systemd sets INVOCATION_ID
 * for every unit; the unit's name is then asked, so that clockfix run by any other unit is not
 * taken for them).
 */
static bool run_by_own_unit(void)
{
        _cleanup_free_ char *unit = NULL;
        const char *id = getenv("INVOCATION_ID"), *reason;

        if (!id || !id[0] || systemd_load(&reason) < 0 || systemd_own_unit(&unit) < 0)
                return false;
        return strcmp(unit, "clockfix.service") == 0 || strcmp(unit, "clockfix-learn.service") == 0;
}

/*
 * state-dir under systemd: the sandboxes of clockfix.service and clockfix-learn.service, which
 * writes the record for the daemon (whose own sandbox keeps / read-only), let them write in
 * RECORD_DIR_DEFAULT only (ReadWritePaths=), and clockfix.service reads the record before any
 * filesystem but the root is mounted: another directory would never get the record. Refused from
 * the command line (EXIT_USAGE); from the file or the kernel command line ignored with a warning,
 * the record kept in the default, so that the boot goes on. daemon and learn only: status and set
 * only read the record. EXIT_OK or EXIT_USAGE.
 */
static int state_dir_check(struct settings *o)
{
        char from[PATH_MAX + 32];
        const char *why =
                "clockfix.service and clockfix-learn.service may write the record in " RECORD_DIR_DEFAULT
                " only (their ReadWritePaths=), and read it before /var or any other filesystem "
                "is mounted: leave state-dir out under systemd";
        size_t n = o->state_dir ? strlen(o->state_dir) : 0;

        while (n > 1 && o->state_dir[n - 1] == '/')
                n--;
        if ((o->command != COMMAND_DAEMON && o->command != COMMAND_LEARN) || !o->state_dir ||
                (n == strlen(RECORD_DIR_DEFAULT) && strncmp(o->state_dir, RECORD_DIR_DEFAULT, n) == 0) ||
                !run_by_own_unit())
                return EXIT_OK;
        if (o->origin[SETTING_STATE_DIR] == FROM_OPTION) {
                log_error("--state-dir %s: %s", o->state_dir, why);
                return EXIT_USAGE;
        }
        log_warning("Ignoring state-dir %s (%s): %s; the record is kept in " RECORD_DIR_DEFAULT,
                o->state_dir, setting_origin(o, SETTING_STATE_DIR, from, sizeof(from)), why);
        free(o->state_dir);
        o->state_dir = NULL;
        o->origin[SETTING_STATE_DIR] = FROM_DEFAULT;
        return EXIT_OK;
}

/* status, set or daemon, once the settings are loaded. */
static int run_command(const struct settings *o, const struct policy *policy)
{
        _cleanup_(findings_done) struct findings found = {};
        int status;

        if (o->command == COMMAND_LEARN)
                return command_learn(o, policy);
        /*
         * At boot, set in a child that the foreground process waits for at most --wait and
         * BOOT_LIMIT_EXTRA_USEC, as the daemon that goes to the background until it is ready: the
         * script or unit that runs it goes on whatever the device does.
         */
        if ((o->command == COMMAND_SET && o->boot) || (o->command == COMMAND_DAEMON && o->background)) {
                usec_t limit = o->boot ? o->wait + BOOT_LIMIT_EXTRA_USEC : USEC_INFINITY;
                sigset_t signals;
                daemon_signals(&signals);
                int r = background_fork(o->command == COMMAND_DAEMON ? &signals : NULL, limit, &status);
                if (r < 0)
                        return EXIT_FAIL;
                if (r > 0)
                        return status < 0 ? EXIT_FAIL : status;
        }
        status = gather_and_decide(o, policy, &found);
        if (status != EXIT_OK)
                return status;
        if (o->command == COMMAND_STATUS)
                return command_status(o, policy, &found);
        if (o->command == COMMAND_SET)
                return command_set(o, policy, &found);
        return command_daemon(o, policy, &found);
}

/* clockfix=0 on the kernel command line (--boot): the clock is left alone, and that is said. */
static int turned_off(const struct settings *o)
{
        log_info("Turned off by clockfix=0 on the kernel command line: the clock is left alone");
        if (o->command == COMMAND_DAEMON)
                daemon_ready("Turned off by clockfix=0 on the kernel command line");
        return EXIT_OK;
}

int cli_main(int argc, char *argv[])
{
        _cleanup_settings_ struct settings o = {};
        struct policy policy;
        int r;

        log_open();
        r = options_parse(argc, argv, &o);
        if (r != 0)
                return r > 0 ? EXIT_OK : r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
        log_set_max_level(o.log_level);
        /* A daemon that an init script started with nowhere for its messages to go. */
        if (o.command == COMMAND_DAEMON && log_stderr_unseen())
                log_to_syslog();

        if (o.command == COMMAND_STAMP)
                return command_stamp(&o);

        r = settings_load(&o, &policy);
        if (r < 0)
                return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
        if (r > 0)
                return turned_off(&o);
        r = daemon_check(&o);
        if (r == EXIT_OK)
                r = state_dir_check(&o);
        if (r != EXIT_OK)
                return r;
        return run_command(&o, &policy);
}
