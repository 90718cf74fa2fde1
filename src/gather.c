/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather: from devices named on the command line or found as root, to candidate times */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blk.h"
#include "cleanup.h"
#include "cmdline.h"
#include "gather.h"
#include "log.h"
#include "rootdev.h"
#include "stat-util.h"

const char *origin_to_text(enum origin o)
{
        static const char *const table[_ORIGIN_MAX] = {
                [ORIGIN_OPTION] = "--device",
                [ORIGIN_CMDLINE] = "root= on the kernel command line",
                [ORIGIN_MOUNTINFO] = "the filesystem mounted at /",
                [ORIGIN_FSTAB] = "the / entry of fstab",
        };
        return (unsigned)o < _ORIGIN_MAX ? table[o] : "?";
}

const char *origin_to_string(enum origin o)
{
        static const char *const table[_ORIGIN_MAX] = {
                [ORIGIN_OPTION] = "option",
                [ORIGIN_CMDLINE] = "cmdline",
                [ORIGIN_MOUNTINFO] = "mountinfo",
                [ORIGIN_FSTAB] = "fstab",
        };
        return (unsigned)o < _ORIGIN_MAX ? table[o] : "?";
}

static struct device_report *add_device(struct evidence *ev, enum origin origin, const char *spec)
{
        struct device_report *n = realloc(ev->devices, (ev->n_devices + 1) * sizeof(*n));

        if (!n)
                return NULL;
        ev->devices = n;
        n = ev->devices + ev->n_devices;
        *n = (struct device_report){ .origin = origin, .spec = strdup(spec), .as_root = geteuid() == 0 };
        if (!n->spec)
                return NULL;
        ev->n_devices++;
        return n;
}

/* Was this device already read under another name (root= and mountinfo naming one disk)? */
static bool already_tried(const struct evidence *ev, const char *path)
{
        struct file_stat a, b;

        if (file_stat(path, &a) < 0)
                return false;
        for (size_t i = 0; i < ev->n_devices; i++) {
                const struct device_report *d = ev->devices + i;
                if (!d->path || file_stat(d->path, &b) < 0)
                        continue;
                if (S_ISBLK(a.mode) ? a.rdev == b.rdev : (a.dev == b.dev && a.ino == b.ino))
                        return true;
        }
        return false;
}

/* A spec that only libblkid can find when udev and sysfs do not name it. */
static bool spec_needs_blkid(const char *spec)
{
        enum spec_kind kind = spec_classify(spec);

        return kind == SPEC_TAG || kind == SPEC_DEVNO;
}

/* Records why d could not be read, and what its explanation needs (see device_problem()). */
static void record_error(struct device_report *d, int error)
{
        d->error = error;
        /* Not found: libblkid finds tags and device numbers that udev and sysfs do not name (and only
         * those: a path not found does not load libblkid to say why it was not asked). */
        if ((error == -ENOENT || error == -ETIMEDOUT) && d->spec && spec_needs_blkid(d->spec))
                d->no_blkid = blk_unavailable();
}

/* Records a root that is not on a local block device (nfs, tmpfs, overlay, rootfs) and moves on. */
static int add_skipped(struct evidence *ev, enum origin origin, const char *spec, const char *fstype)
{
        struct device_report *d = add_device(ev, origin, spec);

        log_debug("%s (%s): %s, not a local block device: skipped", spec, origin_to_text(origin),
                fstype ? fstype : "no device");
        if (!d)
                return -ENOMEM;
        record_error(d, -EPROTONOSUPPORT);
        if (fstype) {
                d->fstype = strdup(fstype);
                if (!d->fstype)
                        return -ENOMEM;
        }
        return 0;
}

/*
 * The device number of the filesystem mounted at / when path is its block device (its page cache
 * is newer than the disk), else 0 (no block device has number 0).
 */
static dev_t mounted_root(const char *path)
{
        struct file_stat dev, root;

        if (file_stat(path, &dev) == 0 && S_ISBLK(dev.mode) && file_stat("/", &root) == 0 &&
                dev.rdev == root.dev)
                return root.dev;
        return 0;
}

/* What the window makes of a time, for -v: "plausible", "after not-after: rejected", ... */
static const char *verdict_of(const struct gather_config *config, usec_t t)
{
        if (!config->window)
                return "no window";
        switch (candidate_verdict(config->window, &(struct candidate){ .time = t })) {
        case VERDICT_PLAUSIBLE:
                return "plausible";
        case VERDICT_BEFORE_FLOOR:
                return "before the floor, which beats it";
        default:
                return "after not-after: rejected";
        }
}

static void debug_superblock(const struct gather_config *config, const struct device_report *d)
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
                                verdict_of(config, u));
        }
}

static void debug_journal(const struct gather_config *config, const struct device_report *d)
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
                        r->newest.time ? verdict_of(config, r->newest.time) : "not a time");
        if (c)
                log_debug("%s: %s sequence %u at block %u, %s: %s", d->path, JOURNAL_SOURCE, c->sequence,
                        c->block, format_iso(a, c->time), verdict_of(config, c->time));
        else
                log_debug("%s: journal: no commit with a time found", d->path);
}

static void debug_stamps(const struct gather_config *config, const struct device_report *d)
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
                                t->live ? "read live" : "read from the disk", verdict_of(config, t->time));
        }
}

static void debug_record(const struct gather_config *config, const struct device_report *d)
{
        const struct record *rec = &d->record;
        char a[ISO_TIME_MAX];

        if (rec->error == -ENOENT)
                log_debug("%s: %s not there", d->path, config->record_path);
        else if (rec->error != 0)
                log_debug_errno(rec->error, "%s: %s ignored: %s", d->path, config->record_path,
                        rec->reason ? rec->reason : "%m");
        for (size_t i = 0; i < rec->n; i++)
                log_debug("%s: %s lists %s %s of %s", d->path, config->record_path, rec->entries[i].source,
                        format_iso(a, rec->entries[i].time), rec->entries[i].uuid);
}

/*
 * The record of times in the future at the last sync: on the device's filesystem (live when it
 * is the mounted /), or on the running system. 0 or -ENOMEM.
 */
static int read_record(const struct gather_config *config, struct device_report *d,
        struct struct_ext2_filsys *fs, bool live)
{
        int r;

        if (!config->record_path)
                return 0;
        if (config->record_on_root && !live)
                r = record_read_fs(fs, config->record_path, &d->record);
        else
                r = record_read_file(config->record_path, &d->record);
        if (r < 0)
                return r;
        d->have_record = true;
        if (log_debug_enabled())
                debug_record(config, d);
        return 0;
}

/* Whether the journal's candidate is a value recorded in the future at the last sync. */
static bool journal_recorded(const struct device_report *d)
{
        const struct jbd2_commit *c = journal_candidate(d);

        return c && d->have_record && record_has(&d->record, d->sb.uuid, JOURNAL_SOURCE, c->time);
}

/*
 * The stamp files, unless the journal says none can be newer than its newest commit (see
 * stamps_needed()): the lookups take some 20 reads of the device on a real root. 0 or -ENOMEM.
 */
static int read_stamps(const struct gather_config *config, struct device_report *d,
        struct struct_ext2_filsys *fs, dev_t live)
{
        int r;

        if (config->no_stamps) {
                d->stamps_why = STAMPS_NOT_ASKED;
                return 0;
        }
        d->stamps_why = stamps_needed(
                d->have_journal ? &d->journal : NULL, d->sb.fast_commit, live != 0, journal_recorded(d));
        if (!stamps_why_reads(d->stamps_why)) {
                log_debug("%s: stamp files not read: %s", d->path, stamps_why_to_text(d->stamps_why));
                return 0;
        }
        log_debug("%s: stamp files read: %s", d->path, stamps_why_to_text(d->stamps_why));
        r = stamps_read(fs, live, d->stamps);
        if (r < 0)
                return r;
        d->have_stamps = true;
        if (log_debug_enabled())
                debug_stamps(config, d);
        return 0;
}

/* What lies beyond the superblock: the journal's newest commit, the stamp files. 0 or -ENOMEM. */
static int read_filesystem(const struct gather_config *config, struct device_report *d,
        struct struct_ext2_filsys *fs, usec_t deadline)
{
        static const struct window everything = { .floor = 1, .not_after = USEC_INFINITY };
        dev_t live = mounted_root(d->path);
        int r;

        /* Features newer than this libext2fs may change how inodes and directories are laid out. */
        if (d->sb.unknown_features) {
                d->stamps_why = STAMPS_UNKNOWN_FEATURES;
                log_debug("%s: unknown incompatible features: journal and stamp files not read", d->path);
                return config->record_on_root && !live ? 0 : read_record(config, d, fs, live != 0);
        }
        if (config->journal_budget > 0) {
                r = journal_read(fs, config->window ? &config->window->window : &everything,
                        config->journal_budget, deadline, &d->journal);
                if (r < 0)
                        return r;
                d->have_journal = d->journal.location != JOURNAL_NONE;
                if (log_debug_enabled())
                        debug_journal(config, d);
        }
        r = read_record(config, d, fs, live != 0);
        if (r < 0)
                return r;
        return read_stamps(config, d, fs, live);
}

/*
 * Resolves and reads a spec as a new device entry. Returns 1 when it was read,
 * 0 when it was recorded as a failure (or was a device already tried), -ENOMEM.
 */
static int try_spec(const struct gather_config *config, struct evidence *ev, enum origin origin,
        const char *spec, const char *fstype, usec_t deadline)
{
        struct struct_ext2_filsys *fs = NULL;
        _cleanup_free_ char *path = NULL;
        struct device_report *d;
        int r;

        enum spec_kind kind = spec_classify(spec);

        /* --device takes a path, relative or not, or a tag; the other origins follow kernel syntax. */
        if (origin == ORIGIN_OPTION && kind != SPEC_TAG)
                kind = SPEC_PATH;
        if (kind == SPEC_NETWORK)
                return add_skipped(ev, origin, spec, fstype ? fstype : "a network filesystem");

        r = rootdev_resolve(spec, kind, deadline, &path);
        if (r == -ENOMEM)
                return r;
        if (r == 0 && origin != ORIGIN_OPTION && already_tried(ev, path)) {
                /* root= and mountinfo naming the same device: it was read (or failed) already. */
                log_debug("%s (%s): %s, already tried", spec, origin_to_text(origin), path);
                return 0;
        }

        d = add_device(ev, origin, spec);
        if (!d)
                return -ENOMEM;
        if (r < 0) {
                log_debug_errno(r, "%s (%s): not found: %m", spec, origin_to_text(origin));
                record_error(d, r);
                return 0;
        }
        d->path = TAKE_PTR(path);
        log_debug("%s (%s): trying %s", spec, origin_to_text(origin), d->path);

        /*
         * With --wait, a device whose node exists may not be ready yet: a card
         * reader still without medium, a loop device being set up, an image
         * still being written. Keep trying until the deadline.
         */
        do
                r = superblock_open(d->path, &d->sb, &d->reason, &fs);
        while ((r == -ENOMEDIUM || r == -ENODATA || r == -ENXIO) && wait_a_moment(deadline));
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                if (log_debug_enabled())
                        debug_superblock(config, d);
                int k = read_filesystem(config, d, fs, deadline);
                d->bytes_read = superblock_bytes_read(fs);
                log_debug("%s: %" PRIu64 " bytes read from it in all", d->path, d->bytes_read);
                superblock_close(fs);
                if (k < 0)
                        return k;
        } else if (r != -ENOMEM)
                log_debug_errno(r, "%s: no ext2/3/4 superblock read: %m%s%s", d->path, d->reason ? ": " : "",
                        d->reason ? d->reason : "");
        /* Name what is there instead: "holds vfat" helps more than "bad magic". Only on this error path. */
        if (r == -EMEDIUMTYPE && blk_probe_type(d->path, &d->fstype) == -ENOMEM)
                return -ENOMEM;
        /* An external journal: libblkid's name for it, known without asking libblkid. */
        if (r == -EREMOTE && !(d->fstype = strdup("jbd")))
                return -ENOMEM;
        if (r == -EMEDIUMTYPE && !d->fstype && blk_unavailable())
                log_debug("%s: what it holds is not named: %s", d->path, blk_unavailable());
        record_error(d, r);
        d->have_sb = r >= 0;
        return d->have_sb;
}

static int add_candidate(struct evidence *ev, const struct device_report *d, const char *source, usec_t time)
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
                .future_at_sync = d->have_record && record_has(&d->record, d->sb.uuid, source, time),
        };
        return 0;
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

static int add_candidates(struct evidence *ev, const struct device_report *d)
{
        const struct jbd2_commit *c;
        int r;

        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++) {
                usec_t u;

                /* 0 means never set ("n/a" in dumpe2fs): not a time. */
                if (d->sb.time_sec[t] == 0)
                        continue;
                if (!sec_to_usec(d->sb.time_sec[t], &u))
                        u = USEC_INFINITY; /* cannot happen with 40-bit times; implausible anyway */
                r = add_candidate(ev, d, sb_time_source(t), u);
                if (r < 0)
                        return r;
        }

        c = journal_candidate(d);
        if (c) {
                r = add_candidate(ev, d, JOURNAL_SOURCE, c->time);
                if (r < 0)
                        return r;
        }

        for (enum stamp s = 0; d->have_stamps && s < _STAMP_MAX; s++)
                if (d->stamps[s].error == 0 && d->stamps[s].time != 0) {
                        r = add_candidate(ev, d, stamp_source(s), d->stamps[s].time);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int root_from_cmdline(const struct gather_config *config, struct evidence *ev, usec_t deadline)
{
        const struct kernel_cmdline *cmdline = config->cmdline;
        char *spec = NULL;
        int r;

        if (!cmdline->text) {
                log_debug_errno(cmdline->error, "Cannot read %s: %m, ignoring", cmdline->path);
                return 0;
        }
        r = cmdline_find_root(cmdline->text, &spec);
        if (r == 0)
                log_debug("%s: no root=", cmdline->path);
        if (r <= 0)
                return r;
        r = try_spec(config, ev, ORIGIN_CMDLINE, spec, NULL, deadline);
        free(spec);
        return r;
}

static int root_from_mountinfo(const struct gather_config *config, struct evidence *ev, usec_t deadline)
{
        _cleanup_free_ char *fstype = NULL, *source = NULL;
        char name[32];
        dev_t devno;
        int r;

        r = mountinfo_find_root(config->mountinfo_path, &devno, &fstype, &source);
        if (r < 0) {
                log_debug_errno(r, "Cannot read %s: %m, ignoring", config->mountinfo_path);
                return 0;
        }
        if (r == 0) {
                log_debug("%s: nothing is mounted at /", config->mountinfo_path);
                return 0;
        }
        log_debug("%s: / is %s (%s), device %u:%u", config->mountinfo_path, source, fstype, major(devno),
                minor(devno));

        /* Major 0: tmpfs, overlay, nfs, the initramfs' rootfs; no block device behind it. */
        if (major(devno) == 0)
                return add_skipped(ev, ORIGIN_MOUNTINFO, source, fstype);
        /* By number, not by source: a root mounted by the kernel shows as "/dev/root". */
        snprintf(name, sizeof(name), "%u:%u", major(devno), minor(devno));
        return try_spec(config, ev, ORIGIN_MOUNTINFO, name, fstype, deadline);
}

static int root_from_fstab(const struct gather_config *config, struct evidence *ev, usec_t deadline)
{
        _cleanup_free_ char *spec = NULL, *fstype = NULL;
        int r;

        r = fstab_find_root(config->fstab_path, &spec, &fstype);
        if (r < 0) {
                log_debug_errno(r, "Cannot read %s: %m, ignoring", config->fstab_path);
                return 0;
        }
        if (r == 0) {
                log_debug("%s: no entry for /", config->fstab_path);
                return 0;
        }
        log_debug("%s: / is %s (%s)", config->fstab_path, spec, fstype);

        /* fstab names devices by tag or absolute path; "tmpfs", "overlay", "server:/x" are not devices. */
        enum spec_kind kind = spec_classify(spec);
        if (kind == SPEC_TAG || kind == SPEC_PATH)
                return try_spec(config, ev, ORIGIN_FSTAB, spec, fstype, deadline);
        return add_skipped(ev, ORIGIN_FSTAB, spec, fstype);
}

/* Tries root=, then mountinfo, then fstab, until one device is read. 0 or -ENOMEM. */
static int gather_root(const struct gather_config *config, struct evidence *ev, usec_t deadline)
{
        int r = 0;

        if (config->cmdline)
                r = root_from_cmdline(config, ev, deadline);
        if (r == 0 && config->mountinfo_path)
                r = root_from_mountinfo(config, ev, deadline);
        if (r == 0 && config->fstab_path)
                r = root_from_fstab(config, ev, deadline);
        return r < 0 ? r : 0;
}

int gather(const struct gather_config *config, struct evidence *ev)
{
        usec_t now = now_monotonic();
        /* Saturate: --wait 18446744073709 means "for ever", not a deadline in the past. */
        usec_t deadline = config->wait > USEC_INFINITY - now ? USEC_INFINITY : now + config->wait;
        int r = 0;

        *ev = (struct evidence){ 0 };

        if (config->n_devices > 0) {
                for (size_t i = 0; i < config->n_devices && r >= 0; i++)
                        r = try_spec(config, ev, ORIGIN_OPTION, config->devices[i], NULL, deadline);
        } else
                r = gather_root(config, ev, deadline);
        if (r < 0)
                goto fail;

        for (size_t i = 0; i < ev->n_devices; i++)
                if (ev->devices[i].have_sb) {
                        r = add_candidates(ev, ev->devices + i);
                        if (r < 0)
                                goto fail;
                }
        if (log_debug_enabled()) {
                uint64_t bytes = 0;
                for (size_t i = 0; i < ev->n_devices; i++)
                        bytes += ev->devices[i].bytes_read;
                log_debug("%zu device(s) tried, %zu read: %" PRIu64 " bytes read in all, %zu time(s) found",
                        ev->n_devices, evidence_devices_read(ev), bytes, ev->n_candidates);
        }
        return 0;

fail:
        evidence_free(ev);
        return r;
}

void evidence_free(struct evidence *ev)
{
        for (size_t i = 0; i < ev->n_devices; i++) {
                free(ev->devices[i].spec);
                free(ev->devices[i].path);
                free(ev->devices[i].fstype);
                journal_report_done(&ev->devices[i].journal);
                record_done(&ev->devices[i].record);
        }
        free(ev->devices);
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
