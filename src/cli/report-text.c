/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report-text: what `clockfix status` prints for people: each device, a table of times, the decision */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "cli/report.h"

static void text_commit(FILE *f, const char *what, const struct jbd2_commit *c)
{
        char t[ISO_TIME_MAX];

        fprintf(f, "%s sequence %" PRIu32 " at block %" PRIu32 ", %s", what, c->sequence, c->block,
                c->time ? format_disk_time(t, c->time) : "no time");
}

/* Two lines on the journal: where it is and the state of its log; what the walk found and what it cost. */
static void text_journal(FILE *f, const struct device_report *d)
{
        const struct journal_report *j = &d->journal;
        const struct jbd2_report *r = &j->jbd2;
        char where[PATH_MAX + 64], features[128];

        if (!d->have_journal)
                return;
        fprintf(f, "  Journal: %s", journal_where(j, where, sizeof(where)));
        if (j->error != 0) {
                fprintf(f, ": not used: %s\n", j->reason);
                return;
        }
        fprintf(f, ", %" PRIu32 " blocks of %" PRIu32 " bytes", r->maxlen, r->blocksize);
        if (jbd2_features(r, features, sizeof(features))[0])
                fprintf(f, " (%s)", features);
        if (r->dirty)
                fprintf(f, "; dirty: the log starts at block %" PRIu32 " with sequence %" PRIu32 "\n",
                        r->start, r->sequence);
        else
                fprintf(f, "; clean: next sequence %" PRIu32 "%s\n", r->sequence,
                        r->head ? ", head recorded" : "");

        fputs("  Journal: ", f);
        if (!r->newest.found)
                fputs("no commit found", f);
        else if (r->best.found && r->best.sequence == r->newest.sequence)
                text_commit(f, "newest commit", &r->newest);
        else {
                text_commit(f, "newest commit", &r->newest);
                fputs(r->newest.time ? " (implausible)" : "", f);
                if (r->best.found)
                        text_commit(f, "; newest plausible", &r->best);
                else
                        fputs("; none plausible", f);
        }
        fprintf(f, "; %u of %u reads, %u blocks%s%s", r->reads, r->budget, r->blocks_read,
                r->budget_exhausted ? " (budget spent: a newer commit may exist)" : "",
                r->bad_checksums ? ", bad checksums met" : "");
        if (r->read_errors)
                fprintf(f, ", %u unreadable (I/O error)", r->read_errors);
        fputc('\n', f);
}

/* Stamp files not read and why, or those that are there but could not be used. */
static void text_stamps(FILE *f, const struct device_report *d)
{
        char why[256];

        if (device_stamps_skipped(d, why, sizeof(why)))
                fprintf(f, "  Stamp files: not read: %s\n", why);
        for (enum stamp t = 0; d->have_stamps && t < _STAMP_MAX; t++) {
                const struct stamp_report *st = d->stamps + t;

                if (st->error != 0 && st->error != -ENOENT && st->error != -EXDEV)
                        fprintf(f, "  File %s: %s, not used\n", stamp_path(t),
                                st->reason ? st->reason : strerror(-st->error));
        }
}

/* The record, when there is one (or one that is ignored), and each of its times against the disk. */
static void text_record(FILE *f, const struct status *s, const struct device_report *d)
{
        const struct record *rec = &d->record;
        char a[ISO_TIME_MAX];

        if (!d->have_record || rec->error == -ENOENT)
                return;
        if (rec->error != 0) {
                fprintf(f, "  Record %s: %s, ignored\n", s->record_path,
                        rec->reason ? rec->reason : strerror(-rec->error));
                return;
        }
        fprintf(f, "  Record %s: %zu time(s) in the future at the last sync", s->record_path, rec->n);
        if (rec->bad_lines)
                fprintf(f, "; %u line(s) not understood, passed over (the first: line %u)", rec->bad_lines,
                        rec->first_bad);
        fputc('\n', f);
        for (size_t i = 0; i < rec->n; i++) {
                const struct record_entry *e = rec->entries + i;
                int on = evidence_on_disk(s->evidence, e);

                fprintf(f, "    %s %s: %s\n", e->source, format_iso(a, e->time),
                        on < 0       ? "of another filesystem"
                                : on ? "still on the disk"
                                     : "no longer on the disk (rewritten since): dropped at the next write");
        }
}

/* The lines on one device: what it is and what was read of it, or what is wrong with it. */
static void text_device(FILE *f, const struct status *s, const struct device_report *dev)
{
        char problem[512];

        if (dev->origin == ORIGIN_MOUNT)
                fprintf(f, "Device %s (%s of %s", device_report_name(dev), dev->mount_dir,
                        s->evidence->mounts_from ? s->evidence->mounts_from : "fstab");
        else
                fprintf(f, "Device %s (%s", device_report_name(dev), origin_to_text(dev->origin));
        if (dev->path && strcmp(dev->spec, dev->path) != 0)
                fprintf(f, " %s", dev->spec);
        fputs("): ", f);
        if (!dev->have_sb) {
                fprintf(f, "%s\n", device_problem(dev, problem, sizeof(problem)));
                return;
        }
        fprintf(f, "%s, UUID %s", dev->sb.type, dev->sb.uuid);
        if (dev->sb.label[0]) {
                fputs(", label \"", f);
                print_printable(f, dev->sb.label);
                fputc('"', f);
        }
        if (dev->sb.needs_recovery)
                fputs(", journal needs recovery (mounted, or not cleanly unmounted)", f);
        if (dev->read_only)
                fputs(", never written at boot (read-only)", f);
        if (device_notes(dev, problem, sizeof(problem))[0])
                fprintf(f, "; %s", problem);
        fputc('\n', f);
        if (dev->mount_dir && strcmp(dev->mount_dir, "/") == 0 && s->evidence->deployment)
                fprintf(f, "  OSTree deployment %s: / on this filesystem\n", s->evidence->deployment);
        text_journal(f, dev);
        text_stamps(f, dev);
        text_record(f, s, dev);
}

/* The table of candidate times, after a blank line; nothing when there is none. */
static void text_candidates(FILE *f, const struct status *s)
{
        const struct evidence *ev = s->evidence;
        int wdev = (int)strlen("DEVICE"), wsrc = (int)strlen("SOURCE");
        char a[ISO_TIME_MAX];

        if (ev->n_candidates == 0)
                return;
        for (size_t i = 0; i < ev->n_candidates; i++) {
                int n = (int)strlen(ev->candidates[i].device);
                wdev = n > wdev ? n : wdev;
                n = (int)strlen(ev->candidates[i].source);
                wsrc = n > wsrc ? n : wsrc;
        }
        fprintf(f, "\n%-*s  %-*s  %-20s  %s\n", wdev, "DEVICE", wsrc, "SOURCE", "TIME (UTC)", "VERDICT");
        for (size_t i = 0; i < ev->n_candidates; i++) {
                const struct candidate *c = ev->candidates + i;
                fprintf(f, "%-*s  %-*s  %-20s  %s%s\n", wdev, c->device, wsrc, c->source,
                        format_disk_time(a, c->time), verdict_to_text(candidate_verdict(s->policy, c)),
                        s->decision->winner == c ? " (estimate)" : "");
        }
}

void report_text(FILE *f, const struct status *s)
{
        const struct decision *d = s->decision;
        const struct evidence *ev = s->evidence;
        char a[ISO_TIME_MAX], b[ISO_TIME_MAX], m[SECONDS_MAX], delta[DURATION_MAX];

        if (ev->n_devices == 0)
                fputs("No root filesystem found (give --device PATH, or root= on the kernel command line).\n",
                        f);
        for (size_t i = 0; i < ev->n_devices; i++)
                text_device(f, s, ev->devices + i);
        if (evidence_read_only(ev))
                fputs("Note: every filesystem read is never written at boot: after a power cut the clock can be "
                      "no better than the image's time, however long the board ran. A writable local ext4 "
                      "filesystem in /etc/fstab (a /data, or a /var of its own) would carry the time "
                      "forward.\n",
                        f);
        text_candidates(f, s);

        fprintf(f, "\nClock now:  %s (%s)\n", format_iso(a, s->now),
                s->ntp_synchronized < 0           ? "NTP state unknown"
                        : s->ntp_synchronized > 0 ? "synchronized by NTP"
                                                  : "not synchronized by NTP");
        fprintf(f, "Floor:      %s (%s)\n", format_iso(a, s->policy->floor), s->floor_origin);
        fprintf(f, "Not after:  %s\n", format_iso(a, s->policy->not_after));
        if (d->action == ACTION_UNAVAILABLE) {
                fputs("Estimate:   none: no device gave a usable time\n", f);
                fprintf(f, "Action:     unavailable: clockfix would change nothing (%s)\n",
                        d->clock_synchronized                ? "the clock is synchronized by NTP"
                                : !s->policy->floor_fallback ? "floor-fallback is off"
                                : d->clock_implausible       ? "the clock is after not-after"
                                                             : "the clock is past the floor");
                return;
        }
        if (!d->evidence) {
                fprintf(f, "Estimate:   %s, the floor (%s): no device gave a usable time\n",
                        format_iso(a, d->estimate), s->floor_origin);
                fprintf(f, "Target:     %s (the floor: the earliest the clock can be)\n",
                        format_iso(b, d->target));
                fprintf(f,
                        "Action:     set: `clockfix set` would move the clock forward to the floor (%s)\n",
                        format_duration(delta, s->now, d->target));
                return;
        }
        if (d->winner)
                fprintf(f, "Estimate:   %s from %s of %s\n", format_iso(a, d->estimate), d->winner->source,
                        d->winner->device);
        else
                fprintf(f, "Estimate:   %s from the floor (no disk time is later)\n",
                        format_iso(a, d->estimate));
        if (d->target - d->estimate < s->policy->margin)
                fprintf(f, "Target:     %s (not-after: the estimate + margin %s s would be later)\n",
                        format_iso(b, d->target), format_seconds(m, s->policy->margin));
        else
                fprintf(f, "Target:     %s (estimate + margin %s s)\n", format_iso(b, d->target),
                        format_seconds(m, s->policy->margin));
        if (d->action == ACTION_NONE && d->clock_synchronized)
                fputs("Action:     none: the clock is synchronized by NTP, which knows better than any disk\n",
                        f);
        else if (d->action == ACTION_NONE)
                fputs("Action:     none: the clock is already at or past the target\n", f);
        else if (d->clock_implausible)
                fprintf(f,
                        "Action:     set: the clock is after not-after, so `clockfix set` would move it back (%s)\n",
                        format_duration(delta, s->now, d->target));
        else
                fprintf(f, "Action:     set: `clockfix set` would move the clock forward (%s)\n",
                        format_duration(delta, s->now, d->target));
}
