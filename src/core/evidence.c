/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* evidence: what gather found on the devices, as data, and the questions asked of it */

#include <stdlib.h>
#include <string.h>

#include "core/evidence.h"

const char *origin_to_text(enum origin o)
{
        static const char *const table[_ORIGIN_MAX] = {
                [ORIGIN_OPTION] = "--device",
                [ORIGIN_ROOT] = "--root",
                [ORIGIN_CMDLINE] = "root= on the kernel command line",
                [ORIGIN_MOUNTINFO] = "the filesystem mounted at /",
                [ORIGIN_FSTAB] = "the / entry of fstab",
                [ORIGIN_MOUNT] = "an entry of fstab",
        };
        return (unsigned)o < _ORIGIN_MAX ? table[o] : "?";
}

const char *origin_to_string(enum origin o)
{
        static const char *const table[_ORIGIN_MAX] = {
                [ORIGIN_OPTION] = "option",
                [ORIGIN_ROOT] = "root",
                [ORIGIN_CMDLINE] = "cmdline",
                [ORIGIN_MOUNTINFO] = "mountinfo",
                [ORIGIN_FSTAB] = "fstab",
                [ORIGIN_MOUNT] = "mount",
        };
        return (unsigned)o < _ORIGIN_MAX ? table[o] : "?";
}

const struct jbd2_commit *journal_candidate(const struct device_report *d)
{
        const struct jbd2_report *j = &d->journal.jbd2;

        if (!d->have_journal || d->journal.error != 0)
                return NULL;
        /* The newest plausible commit; else the newest of all, for status to show why it is not used. */
        if (j->best.found)
                return &j->best;
        if (j->newest.found && j->newest.time != 0)
                return &j->newest;
        return NULL;
}

void evidence_free(struct evidence *ev)
{
        for (size_t i = 0; i < ev->n_devices; i++) {
                free(ev->devices[i].spec);
                free(ev->devices[i].path);
                free(ev->devices[i].fstype);
                free(ev->devices[i].mount_dir);
                journal_report_done(&ev->devices[i].journal);
                record_done(&ev->devices[i].record);
        }
        free(ev->devices);
        free(ev->mounts_from);
        free(ev->deployment);
        free(ev->candidates);
        *ev = (struct evidence){ 0 };
}

size_t evidence_devices_read(const struct evidence *ev)
{
        size_t n = 0;

        for (size_t i = 0; i < ev->n_devices; i++)
                n += ev->devices[i].have_sb;
        return n;
}

bool evidence_read_only(const struct evidence *ev)
{
        size_t n = 0;

        for (size_t i = 0; i < ev->n_devices; i++)
                if (ev->devices[i].have_sb) {
                        if (!ev->devices[i].read_only)
                                return false;
                        n++;
                }
        return n > 0;
}

bool evidence_has_uuid(const struct evidence *ev, const char *uuid)
{
        for (size_t i = 0; i < ev->n_devices; i++)
                if (ev->devices[i].have_sb && strcmp(ev->devices[i].sb.uuid, uuid) == 0)
                        return true;
        return false;
}

int evidence_on_disk(const struct evidence *ev, const struct record_entry *e)
{
        /* One record serves the root and the filesystems of its fstab: any of those read counts. */
        if (!evidence_has_uuid(ev, e->uuid))
                return -1;
        return candidates_hold(ev->candidates, ev->n_candidates, e->uuid, e->source, e->time);
}
