/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report: what `clockfix status` prints, for people (a table) and for programs (JSON) */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "basic/utf8.h"
#include "cli/report.h"
#include "disk/lookup.h"

void json_string(FILE *f, const char *s)
{
        const unsigned char *p = (const unsigned char *)s;

        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        while (*p) {
                size_t n = utf8_sequence(p);

                if (n == 0) {
                        fputs("\\ufffd", f);
                        p++;
                } else if (*p == '"' || *p == '\\') {
                        fputc('\\', f);
                        fputc(*p++, f);
                } else if (*p < 0x20 || *p == 0x7f) {
                        fprintf(f, "\\u%04x", *p++);
                } else {
                        fwrite(p, 1, n, f);
                        p += n;
                }
        }
        fputc('"', f);
}

/*
 * The largest integer every JSON reader takes exactly: 2^53, where doubles
 * (JavaScript, jq before 1.7, many parsers) stop counting by ones, well inside
 * int64. Every number clockfix prints is at most this; a value beyond it is
 * null, never a number that a reader would round or refuse.
 */
#define JSON_INT_MAX (UINT64_C(1) << 53)

static void json_uint(FILE *f, uint64_t v)
{
        if (v <= JSON_INT_MAX)
                fprintf(f, "%" PRIu64, v);
        else
                fputs("null", f);
}

/*
 * A time in whole seconds; null when absent, or when it is USEC_INFINITY: a
 * time beyond what usec_t holds (a garbage commit time), whose seconds would
 * be those of the saturated value, not of anything on the disk.
 */
static void json_time(FILE *f, usec_t t, bool present)
{
        if (present && t != USEC_INFINITY)
                json_uint(f, t / USEC_PER_SEC);
        else
                fputs("null", f);
}

/* The same in microseconds: null too after 2^53 us, in the year 2255. */
static void json_time_usec(FILE *f, usec_t t, bool present)
{
        if (present)
                json_uint(f, t);
        else
                fputs("null", f);
}

/* Prints s with control characters as '?': a label is 16 bytes from the disk, and a crafted
 * one must not drive the terminal. */
static void print_printable(FILE *f, const char *s)
{
        for (; *s; s++)
                fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static const char *yes_no(bool b)
{
        return b ? "true" : "false";
}

static void json_commit(FILE *f, const struct jbd2_commit *c)
{
        if (!c->found) {
                fputs("null", f);
                return;
        }
        fprintf(f, "{\"sequence\":%" PRIu32 ",\"block\":%" PRIu32 ",\"time\":", c->sequence, c->block);
        json_time(f, c->time, c->time != 0);
        fputs(",\"time_usec\":", f);
        json_time_usec(f, c->time, c->time != 0);
        fputc('}', f);
}

static void json_journal(FILE *f, const struct device_report *d)
{
        const struct journal_report *j = &d->journal;
        const struct jbd2_report *r = &j->jbd2;
        char features[128];

        fprintf(f, ",\"journal\":{\"location\":\"%s\"", j->location == JOURNAL_DEVICE ? "device" : "inode");
        if (j->location == JOURNAL_INODE)
                fprintf(f, ",\"inode\":%" PRIu32 ",\"from_backup\":%s", j->inode, yes_no(j->from_backup));
        else {
                fputs(",\"uuid\":", f);
                json_string(f, j->uuid);
                fputs(",\"journal_device\":", f);
                json_string(f, j->device);
        }
        fputs(",\"error\":", f);
        json_string(f, j->error ? j->reason : NULL);
        if (j->error == 0) {
                fprintf(f,
                        ",\"blocksize\":%" PRIu32 ",\"maxlen\":%" PRIu32 ",\"first\":%" PRIu32
                        ",\"last\":%" PRIu32 ",\"features\":",
                        r->blocksize, r->maxlen, r->first, r->last);
                json_string(f, jbd2_features(r, features, sizeof(features)));
                fprintf(f,
                        ",\"state\":\"%s\",\"sequence\":%" PRIu32 ",\"start\":%" PRIu32 ",\"head\":%" PRIu32
                        ",\"newest\":",
                        r->dirty ? "dirty" : "clean", r->sequence, r->start, r->head);
                json_commit(f, &r->newest);
                fputs(",\"best\":", f);
                json_commit(f, &r->best);
                fprintf(f,
                        ",\"wrapped\":%s,\"blocks_read\":%u,\"reads\":%u,\"budget\":%u,\"budget_exhausted\":%s"
                        ",\"bad_checksums\":%u,\"read_errors\":%u",
                        yes_no(r->wrapped), r->blocks_read, r->reads, r->budget, yes_no(r->budget_exhausted),
                        r->bad_checksums, r->read_errors);
        }
        fputc('}', f);
}

/*
 * Why the stamp files of a readable device were not read, or NULL when they were: "no stamp file
 * can be newer than the journal's newest commit (2027-01-08T18:38:15Z)". Returns buf or NULL.
 */
static const char *stamps_skipped(const struct device_report *d, char *buf, size_t size)
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

static void json_stamps(FILE *f, const struct device_report *d)
{
        fputs(",\"files\":[", f);
        for (enum stamp t = 0; t < _STAMP_MAX; t++) {
                const struct stamp_report *st = d->stamps + t;

                /*
                 * found: read, and its time (if any) is in time; error: why not, null when
                 * it simply is not there. Never both: see docs/design.md §8.
                 */
                fputs(t ? ",{\"path\":" : "{\"path\":", f);
                json_string(f, stamp_path(t));
                fprintf(f, ",\"found\":%s,\"error\":", yes_no(st->error == 0));
                json_string(f,
                        st->error == 0 || st->error == -ENOENT ? NULL
                                : st->reason                   ? st->reason
                                                               : strerror(-st->error));
                fputs(",\"inode\":", f);
                if (st->inode != 0)
                        fprintf(f, "%" PRIu32, st->inode);
                else
                        fputs("null", f);
                /* Its lookup's cost and bound on the disk, as the journal's (null when read live). */
                if (st->live)
                        fputs(",\"blocks\":null", f);
                else
                        fprintf(f, ",\"blocks\":%u", st->blocks);
                fprintf(f, ",\"budget\":%u,\"budget_exhausted\":%s", LOOKUP_BUDGET,
                        yes_no(st->budget_spent));
                fprintf(f, ",\"live\":%s,\"time\":", yes_no(st->live));
                json_time(f, st->time, st->error == 0 && st->time != 0);
                fputc('}', f);
        }
        fputc(']', f);
}

/* The device_report a candidate came from. */
static const struct device_report *candidate_device(const struct evidence *ev, const struct candidate *c)
{
        for (size_t i = 0; i < ev->n_devices; i++)
                if (ev->devices[i].path == c->device)
                        return ev->devices + i;
        return NULL;
}

/* Details of a journal or stamp file candidate: where on the disk it was found. */
static void json_candidate_details(FILE *f, const struct evidence *ev, const struct candidate *c)
{
        const struct device_report *d = candidate_device(ev, c);
        const struct jbd2_commit *commit;

        if (!d)
                return;
        if (strcmp(c->source, JOURNAL_SOURCE) == 0 && (commit = journal_candidate(d)))
                fprintf(f, ",\"sequence\":%" PRIu32 ",\"block\":%" PRIu32, commit->sequence, commit->block);
        for (enum stamp t = 0; d->have_stamps && t < _STAMP_MAX; t++)
                if (strcmp(c->source, stamp_source(t)) == 0) {
                        fputs(",\"path\":", f);
                        json_string(f, stamp_path(t));
                        /* As in "files": null when read live, not from an inode of the disk. */
                        if (d->stamps[t].inode != 0)
                                fprintf(f, ",\"inode\":%" PRIu32, d->stamps[t].inode);
                        else
                                fputs(",\"inode\":null", f);
                }
}

/*
 * Whether the record's entry e is still among the times read: 1, 0, or -1 when it is of a
 * filesystem that was not read.
 */
static int entry_on_disk(const struct evidence *ev, const struct record_entry *e)
{
        /* One record serves the root and the filesystems of its fstab: any of those read counts. */
        if (!evidence_has_uuid(ev, e->uuid))
                return -1;
        return candidates_hold(ev->candidates, ev->n_candidates, e->uuid, e->source, e->time);
}

/* "future_record": the record as read for the device, or null when it was not looked for. */
static void json_record(FILE *f, const struct status *s, const struct device_report *d)
{
        const struct record *rec = &d->record;

        fputs(",\"future_record\":", f);
        if (!d->have_record) {
                fputs("null", f);
                return;
        }
        fputs("{\"path\":", f);
        json_string(f, s->record_path);
        fprintf(f, ",\"found\":%s,\"live\":%s,\"error\":", yes_no(rec->error == 0), yes_no(rec->live));
        json_string(f,
                rec->error == 0 || rec->error == -ENOENT ? NULL
                        : rec->reason                    ? rec->reason
                                                         : strerror(-rec->error));
        fprintf(f, ",\"bad_lines\":%u,\"entries\":[", rec->bad_lines);
        for (size_t i = 0; i < rec->n; i++) {
                const struct record_entry *e = rec->entries + i;
                int on = entry_on_disk(s->evidence, e);

                fputs(i ? ",{\"uuid\":" : "{\"uuid\":", f);
                json_string(f, e->uuid);
                fputs(",\"source\":", f);
                json_string(f, e->source);
                fputs(",\"time\":", f);
                json_time(f, e->time, true);
                fputs(",\"time_usec\":", f);
                json_time_usec(f, e->time, true);
                fprintf(f, ",\"on_disk\":%s}", on < 0 ? "null" : yes_no(on));
        }
        fputs("]}", f);
}

/* One element of "devices": the device, and what was read of it. */
static void json_device(FILE *f, const struct status *s, const struct device_report *dev)
{
        char problem[512];

        fputs("{\"device\":", f);
        json_string(f, device_report_name(dev));
        fputs(",\"spec\":", f);
        json_string(f, dev->spec);
        fprintf(f, ",\"origin\":\"%s\",\"mount_dir\":", origin_to_string(dev->origin));
        json_string(f, dev->mount_dir);
        fprintf(f, ",\"read_only\":%s,\"readable\":%s", yes_no(dev->read_only), yes_no(dev->have_sb));
        fputs(",\"error\":", f);
        json_string(f, dev->error ? device_problem(dev, problem, sizeof(problem)) : NULL);
        fputs(",\"fstype\":", f);
        json_string(f, dev->have_sb ? dev->sb.type : dev->fstype);
        if (dev->have_sb) {
                fputs(",\"uuid\":", f);
                json_string(f, dev->sb.uuid);
                fputs(",\"label\":", f);
                json_string(f, dev->sb.label);
                fprintf(f,
                        ",\"checksum_bad\":%s,\"unknown_features\":%s,\"needs_recovery\":%s,\"truncated\":%s"
                        ",\"fs_bytes\":",
                        dev->sb.checksum_bad ? "true" : "false", dev->sb.unknown_features ? "true" : "false",
                        dev->sb.needs_recovery ? "true" : "false", dev->sb.truncated ? "true" : "false");
                /* Sizes from a crafted superblock or a sparse file may pass 2^53 (8 PiB). */
                json_uint(f, dev->sb.fs_bytes);
                fputs(",\"device_bytes\":", f);
                json_uint(f, dev->sb.device_bytes);
                if (dev->have_journal)
                        json_journal(f, dev);
                else
                        fputs(",\"journal\":null", f);
                fputs(",\"stamps_skipped\":", f);
                json_string(f, stamps_skipped(dev, problem, sizeof(problem)));
                if (dev->have_stamps)
                        json_stamps(f, dev);
                json_record(f, s, dev);
        }
        fputc('}', f);
}

/* One element of "sources": a candidate time, what the window makes of it, where it was found. */
static void json_source(FILE *f, const struct status *s, const struct candidate *c)
{
        enum verdict v = candidate_verdict(s->policy, c);

        fputs("{\"device\":", f);
        json_string(f, c->device);
        fputs(",\"source\":", f);
        json_string(f, c->source);
        fputs(",\"time\":", f);
        json_time(f, c->time, true);
        fputs(",\"time_usec\":", f);
        json_time_usec(f, c->time, true);
        fprintf(f, ",\"plausible\":%s,\"verdict\":\"%s\"", v == VERDICT_PLAUSIBLE ? "true" : "false",
                verdict_to_string(v));
        json_candidate_details(f, s->evidence, c);
        fprintf(f, ",\"winner\":%s}", s->decision->winner == c ? "true" : "false");
}

void report_json(FILE *f, const struct status *s)
{
        const struct decision *d = s->decision;
        const struct evidence *ev = s->evidence;
        bool have = d->action != ACTION_UNAVAILABLE;

        fprintf(f, "{\"now\":%" PRIu64 ",\"estimate\":", s->now / USEC_PER_SEC);
        json_time(f, d->estimate, have);
        fputs(",\"source\":", f);
        json_string(f, !have ? NULL : d->winner ? d->winner->source : "build");
        fputs(",\"device\":", f);
        json_string(f, have && d->winner ? d->winner->device : NULL);
        fputs(",\"target\":", f);
        json_time(f, d->target, have);
        fprintf(f, ",\"action\":\"%s\"", action_to_string(d->action));
        fprintf(f, ",\"clock_implausible\":%s", d->clock_implausible ? "true" : "false");
        fprintf(f, ",\"clock_synchronized\":%s", d->clock_synchronized ? "true" : "false");
        fprintf(f, ",\"floor\":%" PRIu64 ",\"floor_source\":", s->policy->floor / USEC_PER_SEC);
        json_string(f, s->floor_origin);
        fprintf(f, ",\"not_after\":%" PRIu64 ",\"margin_usec\":", s->policy->not_after / USEC_PER_SEC);
        json_uint(f, s->policy->margin);
        fprintf(f, ",\"ntp_synchronized\":%s",
                s->ntp_synchronized < 0       ? "null"
                        : s->ntp_synchronized ? "true"
                                              : "false");

        fputs(",\"mounts_from\":", f);
        json_string(f, ev->mounts_from);
        fputs(",\"deployment\":", f);
        json_string(f, ev->deployment);
        fprintf(f, ",\"read_only\":%s", yes_no(evidence_read_only(ev)));
        fputs(",\"devices\":[", f);
        for (size_t i = 0; i < ev->n_devices; i++) {
                if (i)
                        fputc(',', f);
                json_device(f, s, ev->devices + i);
        }
        fputs("],\"sources\":[", f);
        for (size_t i = 0; i < ev->n_candidates; i++) {
                if (i)
                        fputc(',', f);
                json_source(f, s, ev->candidates + i);
        }
        fputs("]}\n", f);
}

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

        if (stamps_skipped(d, why, sizeof(why)))
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
                int on = entry_on_disk(s->evidence, e);

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
                fputs("Action:     unavailable: clockfix would change nothing\n", f);
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
