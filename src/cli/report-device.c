/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report-device: the sentences about one device: what `clockfix status` shows, what the commands log */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "basic/log.h"
#include "cli/report-device.h"
#include "core/record.h"
#include "disk/rootdev.h"

void print_printable(FILE *f, const char *s)
{
        for (; *s; s++)
                fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

const char *device_stamps_skipped(const struct device_report *d, char *buf, size_t size)
{
        char t[ISO_TIME_MAX];

        if (d->have_stamps)
                return NULL;
        if (d->stamps_why == STAMPS_JOURNAL_NEWER)
                snprintf(buf, size, "%s (%s)", stamps_why_to_text(d->stamps_why),
                        format_disk_time(t, d->journal.jbd2.newest.time));
        else
                snprintf(buf, size, "%s", stamps_why_to_text(d->stamps_why));
        return buf;
}

const char *device_report_name(const struct device_report *d)
{
        return d->path ? d->path : d->spec;
}

char *device_notes(const struct device_report *d, char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        if (!d->have_sb)
                return buf;
        if (d->sb.checksum_bad)
                n += (size_t)snprintf(buf + n, size - n,
                        "%ssuperblock checksum does not match (corrupt, or torn by a power cut): its times are used "
                        "only where plausible; run e2fsck",
                        n ? "; " : "");
        if (n < size && d->sb.truncated)
                n += (size_t)snprintf(buf + n, size - n,
                        "%sfilesystem claims %" PRIu64 " bytes but the device has %" PRIu64
                        ": truncated image or wrong partition table?",
                        n ? "; " : "", d->sb.fs_bytes, d->sb.device_bytes);
        if (n < size && d->sb.unknown_features)
                snprintf(buf + n, size - n,
                        "%suses incompatible features this libext2fs does not know; its superblock times are read "
                        "anyway",
                        n ? "; " : "");
        return buf;
}

/*
 * A tag udev has no link for, or a device number with no node where sysfs names it, needs libblkid:
 * why it could not be searched for, or NULL when that is not the problem.
 */
static const char *problem_no_blkid(const struct device_report *d, char *buf, size_t size)
{
        enum spec_kind kind = d->spec ? spec_classify(d->spec) : SPEC_UNSUPPORTED;

        if (!d->no_blkid || (kind != SPEC_TAG && kind != SPEC_DEVNO))
                return NULL;
        snprintf(buf, size,
                kind == SPEC_TAG
                        ? "no udev link for it (/dev/disk/by-*) nor an ext superblock or partition table "
                          "that has it, and libblkid cannot search further: %s; name the root as /dev/NAME "
                          "or MAJOR:MINOR"
                        : "no device node where sysfs names it, and /dev cannot be searched: %s; is "
                          "devtmpfs mounted on /dev?",
                d->no_blkid);
        return buf;
}

/* The sentence for an error that needs no detail of the device, or NULL. */
static const char *problem_of_error(int error, bool as_root)
{
        switch (error) {
        case 0:
                return "ok";
        case -ENOENT:
                return "no such device or file (check the name, or give it time to appear with --wait SECONDS)";
        case -EACCES:
        case -EPERM:
                return as_root
                        ? "permission denied, to root too (a container or service sandbox that does not "
                          "let it read the device?)"
                        : "permission denied (run as root, or give this user read access to it)";
        case -EISDIR:
                return "is a directory, not a block device or filesystem image";
        case -ENOTBLK:
                return "is not a block device or filesystem image file";
        case -ENODATA:
                return "too small to hold an ext2/3/4 superblock (empty or cut short)";
        case -ENOMEDIUM:
                return "empty block device (no medium, or a loop device with nothing attached)";
        case -EREMOTE:
                return "holds an external journal (mke2fs -O journal_dev), not a filesystem: skipped (name the "
                       "device of the filesystem that uses it)";
        default:
                return NULL;
        }
}

char *device_problem(const struct device_report *d, char *buf, size_t size)
{
        const char *reason = d->reason;
        const char *text;

        if (problem_no_blkid(d, buf, size))
                return buf;
        if (d->error == -ETIMEDOUT) {
                char t[SECONDS_MAX];

                /* How long, and which setting said so: a wait too short, or a device that never comes. */
                snprintf(buf, size,
                        "did not appear within %s s (%s): is the driver or module for it loaded? check root= and "
                        "the device name",
                        format_seconds(t, d->waited), d->wait_origin ? d->wait_origin : "--wait");
                return buf;
        }
        text = problem_of_error(d->error, d->as_root);
        if (text) {
                snprintf(buf, size, "%s", text);
                return buf;
        }

        switch (d->error) {
        case -EMEDIUMTYPE:
                if (d->fstype)
                        snprintf(buf, size, "holds %s, not ext2/3/4: skipped", d->fstype);
                else
                        snprintf(buf, size, "no ext2/3/4 filesystem found (bad superblock magic)");
                break;
        case -EPROTONOSUPPORT:
                if (d->fstype)
                        snprintf(buf, size, "root is %s, not a local ext2/3/4 device: skipped", d->fstype);
                else
                        snprintf(buf, size, "does not name a local block device clockfix can find: skipped");
                break;
        case -EUCLEAN:
                snprintf(buf, size, "corrupt superblock: %s (run e2fsck)",
                        reason ? reason : "invalid values");
                break;
        case -EOPNOTSUPP:
                snprintf(buf, size, "cannot be read by this libext2fs: %s",
                        reason ? reason : "unsupported features");
                break;
        case -EIO:
                snprintf(buf, size, "read failed: %s", reason ? reason : "input/output error");
                break;
        default:
                snprintf(buf, size, "cannot read it: %s", strerror(-d->error));
                break;
        }
        return buf;
}

/* Warnings about what is odd on a readable device: its notes, its journal, its stamp files. */
static void warn_device(const struct device_report *d)
{
        char notes[512];

        if (device_notes(d, notes, sizeof(notes))[0])
                log_warning("%s: %s", device_report_name(d), notes);
        if (d->have_journal && d->journal.error != 0)
                log_warning("%s: journal not used: %s%s", device_report_name(d), d->journal.reason,
                        d->journal.error == -ENODEV               ? " (is the journal device attached?)"
                                : d->journal.error == -EOPNOTSUPP ? ""
                                                                  : " (run e2fsck)");
        else if (d->have_journal && d->journal.jbd2.read_errors)
                log_warning("%s: journal: %u block(s) could not be read (I/O error), passed over: a newer "
                            "commit may be among them (check the device: dmesg)",
                        device_report_name(d), d->journal.jbd2.read_errors);
        else if (d->have_journal && d->journal.jbd2.budget_exhausted)
                log_info("%s: journal: stopped after %u reads (--journal-budget): a newer commit may "
                         "exist",
                        device_report_name(d), d->journal.jbd2.reads);
        if (d->have_record && d->record.error != 0 && d->record.error != -ENOENT)
                log_warning(
                        "%s: %s: %s: ignored (delete it; clockfix writes it again when it finds a time in "
                        "the future)",
                        device_report_name(d), d->record.path,
                        d->record.reason ? d->record.reason : strerror(-d->record.error));
        else if (d->have_record && d->record.bad_lines)
                log_warning("%s: %s: %u line(s) not understood, passed over (the first: line %u)",
                        device_report_name(d), d->record.path, d->record.bad_lines, d->record.first_bad);
        for (enum stamp t = 0; d->have_stamps && t < _STAMP_MAX; t++)
                /* Not there, or on another filesystem than / (a separate /var): as expected. */
                if (d->stamps[t].error != 0 && d->stamps[t].error != -ENOENT && d->stamps[t].error != -EXDEV)
                        log_warning("%s: %s: %s, not used", device_report_name(d), stamp_path(t),
                                d->stamps[t].reason ? d->stamps[t].reason : strerror(-d->stamps[t].error));
}

/* One line on a time of d that is not used: after not-after, or in the future at the last sync. */
static void explain_unused(const struct policy *p, const struct device_report *d, const struct candidate *c)
{
        char a[ISO_TIME_MAX], b[ISO_TIME_MAX], fix[256];

        if (candidate_verdict(p, c) == VERDICT_FUTURE_AT_SYNC)
                log_notice(
                        "%s: %s %s was in the future at the last NTP synchronisation: not used (to clear it "
                        "for good: %s)",
                        device_report_name(d), c->source, format_iso(a, c->time),
                        record_fix(c->source, device_report_name(d), fix, sizeof(fix)));
        else
                log_warning(c->time == USEC_INFINITY ? "%s: %s (%s) is after not-after %s, ignored"
                                                     : "%s: %s %s is after not-after %s, ignored",
                        device_report_name(d), c->source, format_disk_time(a, c->time),
                        format_iso(b, p->not_after));
}

/*
 * Why the times of the readable device d are not used, at level: it has
 * none, or none is usable (after not-after, or in the future at the last
 * sync); or a line for each of them that is not, when others are usable.
 */
static void explain_times(
        const struct evidence *ev, const struct policy *p, const struct device_report *d, int level)
{
        char a[ISO_TIME_MAX];
        size_t n = 0, usable = 0, recorded = 0;

        for (size_t j = 0; j < ev->n_candidates; j++) {
                const struct candidate *c = ev->candidates + j;
                if (c->device != d->path)
                        continue;
                n++;
                enum verdict v = candidate_verdict(p, c);
                usable += v == VERDICT_PLAUSIBLE || v == VERDICT_BEFORE_FLOOR;
                recorded += v == VERDICT_FUTURE_AT_SYNC;
        }

        if (n == 0)
                log_full(level,
                        "%s: no time is set in its superblock, journal or stamp files (never mounted, or "
                        "zeroed)",
                        device_report_name(d));
        else if (usable == 0 && recorded > 0)
                log_full(level,
                        "%s: none of its times is usable: each is after not-after or was in the future at the "
                        "last NTP synchronisation (see clockfix status): not used",
                        device_report_name(d));
        else if (usable == 0)
                log_full(level,
                        "%s: all its times are after not-after %s: corrupt or crafted filesystem? (or "
                        "raise --not-after): not used",
                        device_report_name(d), format_iso(a, p->not_after));
        else if (usable < n)
                for (size_t j = 0; j < ev->n_candidates; j++) {
                        const struct candidate *c = ev->candidates + j;
                        if (c->device == d->path && candidate_verdict(p, c) != VERDICT_PLAUSIBLE &&
                                candidate_verdict(p, c) != VERDICT_BEFORE_FLOOR)
                                explain_unused(p, d, c);
                }
}

void explain_devices(const struct evidence *ev, const struct policy *p, int level)
{
        char problem[512];

        for (size_t i = 0; i < ev->n_devices; i++) {
                const struct device_report *d = ev->devices + i;

                if (!d->have_sb) {
                        log_full(level, "%s: %s", device_report_name(d),
                                device_problem(d, problem, sizeof(problem)));
                        continue;
                }
                warn_device(d);
                explain_times(ev, p, d, level);
        }
        if (ev->n_devices == 0)
                log_full(level,
                        "No root filesystem found: give --device PATH, or root= on the kernel command line");
}
