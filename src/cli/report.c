/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report: what `clockfix status` prints for programs: one JSON object */

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
                int on = evidence_on_disk(s->evidence, e);

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
                json_string(f, device_stamps_skipped(dev, problem, sizeof(problem)));
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
        fprintf(f, ",\"evidence\":%s", d->evidence ? "true" : "false");
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
