/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather: from devices named on the command line or found as root, to candidate times */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/log.h"
#include "core/gather-debug.h"
#include "core/gather-device.h"
#include "core/gather-mounts.h"
#include "core/gather.h"
#include "disk/superblock.h"

/* The journal's newest commit that the record (NULL: none) measures d's times against (record_reference()).
 */
static usec_t journal_reference(
        const struct gather_config *config, const struct device_report *d, const struct record *rec)
{
        const struct jbd2_commit *c = journal_candidate(d);

        return record_reference(config->policy, c ? c->time : 0, rec, d->sb.uuid);
}

/*
 * Whether d's times need the record: never on the root filesystem with --no-stamps (no file is
 * looked up there); always when asked to, or when it is on the running system (--state-dir: no
 * read of the device); else when the record may pass over a time of the superblock or the stamp
 * files (record_needed()).
 */
static bool record_wanted(const struct gather_config *config, const struct device_report *d)
{
        usec_t times[_SB_TIME_MAX + _STAMP_MAX], u;
        size_t n = 0;

        if (!config->record_path || (config->no_stamps && config->record_on_root))
                return false;
        if (config->record_always || !config->record_on_root)
                return true;
        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++)
                if (d->sb.time_sec[t] != 0 && sec_to_usec(d->sb.time_sec[t], &u))
                        times[n++] = u;
        for (enum stamp s = 0; d->have_stamps && s < _STAMP_MAX; s++)
                if (d->stamps[s].error == 0)
                        times[n++] = d->stamps[s].time;
        if (record_needed(config->policy, journal_reference(config, d, NULL), times, n))
                return true;
        log_debug("%s: %s not looked up: no time is more than %u s later than the journal's newest "
                  "plausible commit",
                d->path, config->record_path, (unsigned)(RECORD_SLACK / USEC_PER_SEC));
        return false;
}

/* The first device of the root and its mounts, from which their paths are looked up; or SIZE_MAX. */
static size_t mounts_first(const struct evidence *ev)
{
        for (size_t j = 0; j < ev->n_devices; j++)
                if (ev->devices[j].mount_dir && ev->devices[j].have_sb)
                        return j;
        return SIZE_MAX;
}

/*
 * Where the record for device i is read, and the path there: on the filesystem that holds it
 * (each device of --device on its own; for the root and its mounts, the links on the way
 * followed, once), or, with --state-dir, on the running system (then the first device of the
 * root and its mounts stands for it); with look_up false, never looked up for this. SIZE_MAX
 * when none can be.
 */
static size_t record_holder(
        struct gather_state *g, size_t i, bool look_up, const char **ret_path, const char **ret_inner)
{
        const struct evidence *ev = g->ev;
        size_t first = mounts_first(ev);

        *ret_path = *ret_inner = g->config->record_path;
        if (!g->config->record_path)
                return SIZE_MAX;
        if (!ev->devices[i].mount_dir)
                return i;
        if (!g->config->record_on_root)
                return first;
        if (look_up && !g->placed_record && first != SIZE_MAX) {
                if (path_place(g, first, g->config->record_path, &g->record_at) < 0)
                        log_debug_errno(g->record_at.error, "%s: not looked up: %s", g->config->record_path,
                                g->record_at.reason ? g->record_at.reason : "%m");
                g->placed_record = true;
        }
        *ret_path = g->record_at.path;
        *ret_inner = g->record_at.inner;
        return g->placed_record && g->record_at.error == 0 ? g->record_at.device : SIZE_MAX;
}

/*
 * Reads the record on device h, at path on the running system or inner on the disk: through
 * libext2fs, or live when it is mounted (only a file on it), or on the running system with
 * --state-dir. 0 or -ENOMEM.
 */
static int read_record(struct gather_state *g, size_t h, const char *path, const char *inner)
{
        const struct gather_config *config = g->config;
        struct device_report *d = g->ev->devices + h;
        dev_t live = g->open[h].live;
        int r;

        if (!config->record_on_root)
                r = record_read_file(config->record_path, 0, &d->record);
        else if (live)
                r = record_read_file(path, live, &d->record);
        else if (d->sb.unknown_features) {
                log_debug(
                        "%s: unknown incompatible features: %s not looked up", d->path, config->record_path);
                return 0;
        } else
                r = record_read_fs(g->open[h].fs, inner, &d->record);
        if (r < 0)
                return r;
        d->record.path = config->record_path;
        d->have_record = true;
        if (log_debug_enabled())
                gather_debug_record(d);
        return 0;
}

/* The record, read once for all the devices that share it, when one of them needs it. 0 or -ENOMEM. */
static int gather_record(struct gather_state *g)
{
        const struct evidence *ev = g->ev;

        for (size_t i = 0; i < ev->n_devices; i++) {
                const char *path, *inner;
                size_t h;

                if (!ev->devices[i].have_sb || !record_wanted(g->config, ev->devices + i))
                        continue;
                h = record_holder(g, i, true, &path, &inner);
                if (h == SIZE_MAX || ev->devices[h].have_record)
                        continue;
                int r = read_record(g, h, path, inner);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The record that applies to the times of device i, or NULL when it was not read. */
static const struct record *record_of(struct gather_state *g, size_t i)
{
        const char *path, *inner;
        /* Not looked up for this: where it was, if it was. */
        size_t h = record_holder(g, i, false, &path, &inner);

        return h != SIZE_MAX && g->ev->devices[h].have_record ? &g->ev->devices[h].record : NULL;
}

/*
 * Whether the stamp files of device i are read, and why (d->stamps_why): not when the journal
 * says none can be newer than its newest commit (see stamps_needed()), as the lookups take some
 * 20 reads of the device on a real root.
 */
static bool stamps_wanted(const struct gather_state *g, size_t i)
{
        struct device_report *d = g->ev->devices + i;

        if (g->config->no_stamps)
                d->stamps_why = STAMPS_NOT_ASKED;
        else if (d->sb.unknown_features)
                /* Features newer than this libext2fs may change how inodes and directories are laid out. */
                d->stamps_why = STAMPS_UNKNOWN_FEATURES;
        else
                d->stamps_why = stamps_needed(
                        d->have_journal ? &d->journal : NULL, d->sb.fast_commit, g->open[i].live != 0);
        if (d->stamps_why != STAMPS_NOT_ASKED)
                log_debug("%s: stamp files %sread: %s", d->path,
                        stamps_why_reads(d->stamps_why) ? "" : "not ", stamps_why_to_text(d->stamps_why));
        return stamps_why_reads(d->stamps_why);
}

/* Where each stamp file of the root and its mounts is, the links on the way followed (once). */
static void place_stamps(struct gather_state *g)
{
        size_t first = mounts_first(g->ev);

        if (g->placed_stamps || first == SIZE_MAX)
                return;
        for (enum stamp s = 0; s < _STAMP_MAX; s++)
                (void)path_place(g, first, stamp_path(s), g->stamps_at + s);
        g->placed_stamps = true;
}

/*
 * The stamp files that device i holds, each looked up on the filesystem that holds its path
 * (when device i is one of the root and its mounts), the links on the way followed. 0 or -ENOMEM.
 */
static int read_stamps(struct gather_state *g, size_t i)
{
        struct device_report *d = g->ev->devices + i;
        dev_t live = g->open[i].live;
        const char *paths[_STAMP_MAX];
        int r;

        if (d->mount_dir)
                place_stamps(g);
        for (enum stamp s = 0; s < _STAMP_MAX; s++) {
                const struct place *p = g->stamps_at + s;
                /* Live, the running system finds the path through its mounts; on the disk, from its root. */
                paths[s] = !d->mount_dir ? stamp_path(s) : p->device != i ? NULL : live ? p->path : p->inner;
        }
        r = stamps_read(g->open[i].fs, live, paths, d->stamps);
        if (r < 0)
                return r;
        /* A path whose links could not be followed: said on the device that holds it as named. */
        for (enum stamp s = 0; d->mount_dir && s < _STAMP_MAX; s++) {
                char inner[PATH_MAX];
                if (g->stamps_at[s].error != 0 &&
                        path_holder(g, i, stamp_path(s), inner, sizeof(inner)) == i) {
                        d->stamps[s].error = g->stamps_at[s].error;
                        d->stamps[s].reason = g->stamps_at[s].reason;
                        d->stamps[s].time = 0;
                }
        }
        d->have_stamps = true;
        if (log_debug_enabled())
                gather_debug_stamps(g->config->policy, d);
        return 0;
}

static int add_candidate(struct evidence *ev, const struct device_report *d, const struct record *rec,
        const char *source, usec_t time, usec_t commit)
{
        struct candidate *n = realloc(ev->candidates, (ev->n_candidates + 1) * sizeof(*n));

        if (!n)
                return -ENOMEM;
        ev->candidates = n;
        ev->candidates[ev->n_candidates++] = (struct candidate){
                .device = d->path,
                .uuid = d->sb.uuid,
                .source = source,
                .time = time,
                .future_at_sync = rec && record_applies(time, commit) &&
                        record_has(rec, d->sb.uuid, source, time),
        };
        return 0;
}

static int add_candidates(struct gather_state *g, size_t i)
{
        const struct device_report *d = g->ev->devices + i;
        const struct record *rec = record_of(g, i);
        usec_t commit = journal_reference(g->config, d, rec);
        const struct jbd2_commit *c;
        int r;

        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++) {
                usec_t u;

                /* 0 means never set ("n/a" in dumpe2fs): not a time. */
                if (d->sb.time_sec[t] == 0)
                        continue;
                if (!sec_to_usec(d->sb.time_sec[t], &u))
                        u = USEC_INFINITY; /* cannot happen with 40-bit times; implausible anyway */
                r = add_candidate(g->ev, d, rec, sb_time_source(t), u, commit);
                if (r < 0)
                        return r;
        }

        c = journal_candidate(d);
        if (c) {
                r = add_candidate(g->ev, d, rec, JOURNAL_SOURCE, c->time, commit);
                if (r < 0)
                        return r;
        }

        for (enum stamp s = 0; d->have_stamps && s < _STAMP_MAX; s++)
                if (d->stamps[s].error == 0 && d->stamps[s].time != 0) {
                        r = add_candidate(g->ev, d, rec, stamp_source(s), d->stamps[s].time, commit);
                        if (r < 0)
                                return r;
                }
        return 0;
}

int gather(const struct gather_config *config, struct evidence *ev)
{
        usec_t now = now_monotonic();
        /* Saturate: --wait 18446744073709 means "for ever", not a deadline in the past. */
        usec_t deadline = config->wait > USEC_INFINITY - now ? USEC_INFINITY : now + config->wait;
        struct gather_state g = { .config = config, .ev = ev, .deployment_of = SIZE_MAX };
        uint64_t bytes = 0;
        int r = 0;

        *ev = (struct evidence){ 0 };

        /* The superblocks and journals first: the stamp files and the record may be on any of them. */
        if (config->n_devices > 0) {
                for (size_t i = 0; i < config->n_devices && r >= 0; i++) {
                        r = try_spec(&g, ORIGIN_OPTION, config->devices[i], NULL, NULL, deadline);
                        if (r > 0)
                                ev->devices[ev->n_devices - 1].read_only = never_written(
                                        config, ev->devices + ev->n_devices - 1, false);
                }
        } else {
                size_t root;
                r = gather_root(&g, deadline, &root);
                if (r >= 0 && root != SIZE_MAX)
                        r = gather_mounts(&g, root, deadline);
        }
        for (size_t i = 0; i < ev->n_devices && r >= 0; i++)
                if (ev->devices[i].have_sb && stamps_wanted(&g, i))
                        r = read_stamps(&g, i);
        if (r >= 0)
                r = gather_record(&g);
        for (size_t i = 0; i < ev->n_devices && r >= 0; i++)
                if (ev->devices[i].have_sb)
                        r = add_candidates(&g, i);

        for (size_t i = 0; i < ev->n_devices; i++) {
                if (!g.open[i].fs)
                        continue;
                ev->devices[i].bytes_read = superblock_bytes_read(g.open[i].fs);
                bytes += ev->devices[i].bytes_read;
                log_debug("%s: %" PRIu64 " bytes read from it in all", ev->devices[i].path,
                        ev->devices[i].bytes_read);
                superblock_close(g.open[i].fs);
        }
        free(g.open);
        free(g.deployment_var);
        ev->deployment = g.deployment;
        if (r < 0) {
                evidence_free(ev);
                return r;
        }
        log_debug("%zu device(s) tried, %zu read: %" PRIu64 " bytes read in all, %zu time(s) found",
                ev->n_devices, evidence_devices_read(ev), bytes, ev->n_candidates);
        return 0;
}
