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
#include "gather-debug.h"
#include "gather.h"
#include "log.h"
#include "rootdev.h"
#include "stat-util.h"

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

/*
 * The record of times in the future at the last sync: on the device's filesystem (live when it
 * is the mounted /), or on the running system. 0 or -ENOMEM.
 */
static int read_record(const struct gather_config *config, struct device_report *d,
        struct struct_ext2_filsys *fs, dev_t live)
{
        int r;

        if (!config->record_path)
                return 0;
        if (config->record_on_root && !live)
                r = record_read_fs(fs, config->record_path, &d->record);
        else
                /* On the root filesystem, read live: only there (not on a /var of its own). */
                r = record_read_file(config->record_path, config->record_on_root ? live : 0, &d->record);
        if (r < 0)
                return r;
        d->have_record = true;
        if (log_debug_enabled())
                gather_debug_record(d);
        return 0;
}

/* The journal's newest plausible commit time, which the record is measured against; or 0. */
static usec_t journal_reference(const struct gather_config *config, const struct device_report *d)
{
        const struct jbd2_commit *c = journal_candidate(d);

        if (!c ||
                (config->window &&
                        candidate_verdict(config->window, &(struct candidate){ .time = c->time }) !=
                                VERDICT_PLAUSIBLE))
                return 0;
        /* A commit the record lists is no reference: then every recorded time is passed over. */
        if (d->have_record && record_has(&d->record, d->sb.uuid, JOURNAL_SOURCE, c->time))
                return 0;
        return c->time;
}

/* Whether t is a time of the window (or there is none), and the record may pass it over. */
static bool record_could_apply(const struct gather_config *config, usec_t t, usec_t commit)
{
        if (t == 0 || !record_applies(t, commit))
                return false;
        return !config->window ||
                candidate_verdict(config->window, &(struct candidate){ .time = t }) == VERDICT_PLAUSIBLE;
}

/*
 * Whether to look the record up: never on the root filesystem with --no-stamps (no file is looked
 * up there); always when asked to; else only when a time of the superblock or the stamp files is
 * plausible and later than the journal's newest plausible commit by more than RECORD_SLACK (or
 * there is none), as only such a time may be passed over.
 */
static bool record_wanted(const struct gather_config *config, const struct device_report *d)
{
        usec_t commit = journal_reference(config, d), u;

        if (!config->record_path || (config->no_stamps && config->record_on_root))
                return false;
        /* On the running system (--state-dir) it costs no read of the device. */
        if (config->record_always || !config->record_on_root)
                return true;
        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++)
                if (d->sb.time_sec[t] != 0 && sec_to_usec(d->sb.time_sec[t], &u) &&
                        record_could_apply(config, u, commit))
                        return true;
        for (enum stamp s = 0; d->have_stamps && s < _STAMP_MAX; s++)
                if (d->stamps[s].error == 0 && record_could_apply(config, d->stamps[s].time, commit))
                        return true;
        log_debug("%s: %s not looked up: no time is more than %u s later than the journal's newest "
                  "plausible commit",
                d->path, config->record_path, (unsigned)(RECORD_SLACK / USEC_PER_SEC));
        return false;
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
        d->stamps_why = stamps_needed(d->have_journal ? &d->journal : NULL, d->sb.fast_commit, live != 0);
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
                gather_debug_stamps(config->window, d);
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
                return config->record_on_root && !live ? 0
                        : record_wanted(config, d)     ? read_record(config, d, fs, live)
                                                       : 0;
        }
        if (config->journal_budget > 0) {
                r = journal_read(fs, config->window ? &config->window->window : &everything,
                        config->journal_budget, deadline, &d->journal);
                if (r < 0)
                        return r;
                d->have_journal = d->journal.location != JOURNAL_NONE;
                if (log_debug_enabled())
                        gather_debug_journal(config->window, d);
        }
        r = read_stamps(config, d, fs, live);
        if (r < 0 || !record_wanted(config, d))
                return r;
        return read_record(config, d, fs, live);
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
        if (r == -ETIMEDOUT) {
                char t[SECONDS_MAX];

                /* Not "Connection timed out": what happened is the device's, and the wait's. */
                d->waited = config->wait;
                d->wait_origin = config->wait_origin ? config->wait_origin : "--wait";
                log_debug("%s (%s): did not appear within %s s (%s)", spec, origin_to_text(origin),
                        format_seconds(t, d->waited), d->wait_origin);
        } else if (r < 0)
                log_debug_errno(r, "%s (%s): not found: %m", spec, origin_to_text(origin));
        if (r < 0) {
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
                        gather_debug_superblock(config->window, d);
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

static int add_candidate(
        struct evidence *ev, const struct device_report *d, const char *source, usec_t time, usec_t commit)
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
                .future_at_sync = d->have_record && record_applies(time, commit) &&
                        record_has(&d->record, d->sb.uuid, source, time),
        };
        return 0;
}

static int add_candidates(
        const struct gather_config *config, struct evidence *ev, const struct device_report *d)
{
        usec_t commit = journal_reference(config, d);
        const struct jbd2_commit *c;
        int r;

        for (enum sb_time t = 0; t < _SB_TIME_MAX; t++) {
                usec_t u;

                /* 0 means never set ("n/a" in dumpe2fs): not a time. */
                if (d->sb.time_sec[t] == 0)
                        continue;
                if (!sec_to_usec(d->sb.time_sec[t], &u))
                        u = USEC_INFINITY; /* cannot happen with 40-bit times; implausible anyway */
                r = add_candidate(ev, d, sb_time_source(t), u, commit);
                if (r < 0)
                        return r;
        }

        c = journal_candidate(d);
        if (c) {
                r = add_candidate(ev, d, JOURNAL_SOURCE, c->time, commit);
                if (r < 0)
                        return r;
        }

        for (enum stamp s = 0; d->have_stamps && s < _STAMP_MAX; s++)
                if (d->stamps[s].error == 0 && d->stamps[s].time != 0) {
                        r = add_candidate(ev, d, stamp_source(s), d->stamps[s].time, commit);
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
                        r = add_candidates(config, ev, ev->devices + i);
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
