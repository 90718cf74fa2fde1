/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-debug: what -v says of each device read: its times, journal, stamp files and record */

#include <errno.h>

#include "basic/log.h"
#include "core/gather-debug.h"
#include "disk/lookup.h"

/* What the window makes of a time, for -v: "plausible", "after not-after: rejected", ... */
static const char *verdict_of(const struct policy *window, usec_t t)
{
        if (!window)
                return "no window";
        switch (candidate_verdict(window, &(struct candidate){ .time = t })) {
        case VERDICT_PLAUSIBLE:
                return "plausible";
        case VERDICT_BEFORE_FLOOR:
                return "before the floor, which beats it";
        default:
                return "after not-after: rejected";
        }
}

void gather_debug_superblock(const struct policy *window, const struct device_report *d)
{
        char a[ISO_TIME_MAX];
        usec_t u;

        log_debug("%s: %s superblock read, UUID %s%s%s%s", d->path, d->sb.type, d->sb.uuid,
                d->sb.label[0] ? ", label " : "", d->sb.label, d->sb.checksum_bad ? ", checksum wrong" : "");
        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++) {
                if (d->sb.time_sec[t] == 0)
                        log_debug("%s: %s never set", d->path, sb_time_source(t));
                else if (sec_to_usec(d->sb.time_sec[t], &u))
                        log_debug("%s: %s %s: %s", d->path, sb_time_source(t), format_iso(a, u),
                                verdict_of(window, u));
        }
}

void gather_debug_journal(const struct policy *window, const struct device_report *d)
{
        const struct journal_report *j = &d->journal;
        const struct jbd2_report *r = &j->jbd2;
        const struct jbd2_commit *c = journal_candidate(d);
        char where[128], a[ISO_TIME_MAX];

        if (j->location == JOURNAL_NONE) {
                log_debug("%s: no journal", d->path);
                return;
        }
        journal_where(j, where, sizeof(where));
        if (j->error != 0) {
                log_debug_errno(j->error, "%s: journal (%s) not used: %s (%m)", d->path, where, j->reason);
                return;
        }
        log_debug("%s: journal %s: %u blocks of %u bytes, log %u..%u, %s %u%s", d->path, where, r->maxlen,
                r->blocksize, r->first, r->last,
                r->dirty ? "dirty, oldest sequence" : "clean, next sequence", r->sequence,
                r->head ? ", head recorded" : "");
        if (r->newest.found && (!c || c->sequence != r->newest.sequence))
                log_debug("%s: journal: newest commit sequence %u at block %u, %s: %s", d->path,
                        r->newest.sequence, r->newest.block,
                        r->newest.time ? format_iso(a, r->newest.time) : "no time",
                        r->newest.time ? verdict_of(window, r->newest.time) : "not a time");
        if (c)
                log_debug("%s: %s sequence %u at block %u, %s: %s", d->path, JOURNAL_SOURCE, c->sequence,
                        c->block, format_iso(a, c->time), verdict_of(window, c->time));
        else
                log_debug("%s: journal: no commit with a time found", d->path);
}

void gather_debug_stamps(const struct policy *window, const struct device_report *d)
{
        char a[ISO_TIME_MAX];

        for (enum stamp s = 0; s < _STAMP_MAX; s++) {
                const struct stamp_report *t = d->stamps + s;

                if (t->error == -ENOENT)
                        log_debug("%s: %s not there", d->path, stamp_source(s));
                else if (t->error != 0)
                        log_debug_errno(t->error, "%s: %s not used: %s", d->path, stamp_source(s),
                                t->reason ? t->reason : "%m");
                else if (t->time == 0)
                        log_debug("%s: %s holds no time", d->path, stamp_source(s));
                else
                        log_debug("%s: %s %s (%s): %s", d->path, stamp_source(s), format_iso(a, t->time),
                                t->live ? "read live" : "read from the disk", verdict_of(window, t->time));
                if (!t->live)
                        log_debug("%s: %s: its lookup asked for %u of at most %u blocks%s", d->path,
                                stamp_source(s), t->blocks, LOOKUP_BUDGET,
                                t->budget_spent ? " (budget spent)" : "");
        }
}

void gather_debug_record(const struct device_report *d)
{
        const struct record *rec = &d->record;
        char a[ISO_TIME_MAX];

        if (rec->error == -ENOENT)
                log_debug("%s: %s not there", d->path, rec->path);
        else if (rec->error != 0)
                log_debug_errno(rec->error, "%s: %s ignored: %s", d->path, rec->path,
                        rec->reason ? rec->reason : "%m");
        for (size_t i = 0; i < rec->n; i++)
                log_debug("%s: %s lists %s %s of %s", d->path, rec->path, rec->entries[i].source,
                        format_iso(a, rec->entries[i].time), rec->entries[i].uuid);
}
