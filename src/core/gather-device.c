/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather-device: one device found and read: its superblock and its journal, or why it could not be */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "core/gather-debug.h"
#include "core/gather-device.h"
#include "disk/blk.h"
#include "disk/rootdev.h"
#include "disk/superblock.h"

static struct device_report *add_device(struct gather_state *g, enum origin origin, const char *spec)
{
        struct evidence *ev = g->ev;
        struct device_report *n = realloc(ev->devices, (ev->n_devices + 1) * sizeof(*n));
        struct open_fs *o;

        if (!n)
                return NULL;
        ev->devices = n;
        o = realloc(g->open, (ev->n_devices + 1) * sizeof(*o));
        if (!o)
                return NULL;
        g->open = o;
        g->open[ev->n_devices] = (struct open_fs){ 0 };
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
static void set_error(struct device_report *d, int error)
{
        d->error = error;
        /* Not found: libblkid finds tags and device numbers that udev and sysfs do not name (and only
         * those: a path not found does not load libblkid to say why it was not asked). */
        if ((error == -ENOENT || error == -ETIMEDOUT) && d->spec && spec_needs_blkid(d->spec))
                d->no_blkid = blk_unavailable();
}

int add_skipped(struct gather_state *g, enum origin origin, const char *spec, const char *fstype)
{
        struct device_report *d = add_device(g, origin, spec);

        log_debug("%s (%s): %s, not a local block device: skipped", spec, origin_to_text(origin),
                fstype ? fstype : "no device");
        if (!d)
                return -ENOMEM;
        set_error(d, -EPROTONOSUPPORT);
        if (fstype) {
                d->fstype = strdup(fstype);
                if (!d->fstype)
                        return -ENOMEM;
        }
        return 0;
}

/*
 * The device number of the block device at path when it is the filesystem mounted at dir on the
 * running system (its page cache is newer than the disk), else 0 (no block device has number 0).
 */
static dev_t mounted_at(const char *path, const char *dir)
{
        struct file_stat dev, at;

        if (file_stat(path, &dev) == 0 && S_ISBLK(dev.mode) && file_stat(dir, &at) == 0 &&
                dev.rdev == at.dev)
                return at.dev;
        return 0;
}

/* The journal's newest commit. 0 or -ENOMEM. */
static int read_journal(const struct gather_config *config, struct device_report *d,
        struct struct_ext2_filsys *fs, usec_t deadline)
{
        static const struct window everything = { .floor = 1, .not_after = USEC_INFINITY };
        int r;

        if (d->sb.unknown_features) {
                log_debug("%s: unknown incompatible features: journal and stamp files not read", d->path);
                return 0;
        }
        if (config->journal_budget == 0)
                return 0;
        r = journal_read(fs, config->policy ? &config->policy->window : &everything, config->journal_budget,
                deadline, &d->journal);
        if (r < 0)
                return r;
        d->have_journal = d->journal.location != JOURNAL_NONE;
        if (log_debug_enabled())
                gather_debug_journal(config->policy, d);
        return 0;
}

/*
 * Opens the device of d and reads its superblock and its journal, the filesystem left open for
 * the rest. 1 when it was read, 0 when the failure was recorded in d, -ENOMEM.
 */
static int read_device(
        struct gather_state *g, struct device_report *d, const char *mount_dir, usec_t deadline)
{
        const struct gather_config *config = g->config;
        struct struct_ext2_filsys *fs = NULL;
        int r;

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
                struct open_fs *o = g->open + (d - g->ev->devices);

                o->fs = fs;
                o->live = mounted_at(d->path, mount_dir ? mount_dir : "/");
                if (log_debug_enabled())
                        gather_debug_superblock(config->policy, d);
                int k = read_journal(config, d, fs, deadline);
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
        set_error(d, r);
        d->have_sb = r >= 0;
        return d->have_sb;
}

int try_spec(struct gather_state *g, enum origin origin, const char *spec, const char *fstype,
        const char *mount_dir, usec_t deadline)
{
        const struct gather_config *config = g->config;
        _cleanup_free_ char *path = NULL;
        struct device_report *d;
        int r;

        enum spec_kind kind = spec_classify(spec);

        /* --device takes a path, relative or not, or a tag; the other origins follow kernel syntax. */
        if ((origin == ORIGIN_OPTION || origin == ORIGIN_ROOT) && kind != SPEC_TAG)
                kind = SPEC_PATH;
        if (kind == SPEC_NETWORK)
                return add_skipped(g, origin, spec, fstype ? fstype : "a network filesystem");

        r = rootdev_resolve(spec, kind, deadline, &path);
        if (r == -ENOMEM)
                return r;
        if (r == 0 && origin != ORIGIN_OPTION && already_tried(g->ev, path)) {
                /* root= and mountinfo naming the same device: it was read (or failed) already. */
                log_debug("%s (%s): %s, already tried", spec, origin_to_text(origin), path);
                return 0;
        }

        d = add_device(g, origin, spec);
        if (!d)
                return -ENOMEM;
        if (mount_dir && !(d->mount_dir = strdup(mount_dir)))
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
                set_error(d, r);
                return 0;
        }
        d->path = TAKE_PTR(path);
        if (origin == ORIGIN_MOUNT)
                log_debug("%s (%s for %s): trying %s", spec, origin_to_text(origin), mount_dir, d->path);
        else
                log_debug("%s (%s): trying %s", spec, origin_to_text(origin), d->path);

        return read_device(g, d, mount_dir, deadline);
}
