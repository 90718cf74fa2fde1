/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* learn: at NTP synchronisation, the disk's times in the future, into the record (docs/design.md §10) */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "basic/cleanup.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "core/record.h"
#include "daemon/learn.h"
#include "daemon/systemd.h"

/* Adds word to the space-separated list unless it is there already. */
static void add_word(char *list, size_t size, const char *word)
{
        size_t len = strlen(word), used = strlen(list);

        for (const char *p = list; (p = strstr(p, word)); p += len)
                if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
                        return;
        if (used + (used ? 1 : 0) + len >= size)
                return;
        if (used)
                list[used++] = ' ';
        memcpy(list + used, word, len + 1);
}

/*
 * One line per time in the future: how far, whether it is in the record (known before, or
 * written now: `written`), and what clears it.
 */
static void log_future(const struct learn_config *c, const struct record *old, const struct candidate *f,
        usec_t now, bool written, struct learn_summary *s)
{
        char a[ISO_TIME_MAX], ahead[DURATION_MAX], fix[256], what[PATH_MAX + 64];
        const char *by = format_duration(ahead, now, f->time);
        bool known = record_has(old, f->uuid, f->source, f->time);

        record_fix(f->source, f->device, fix, sizeof(fix));
        if (known || c->dry_run || written)
                snprintf(what, sizeof(what), "%s %s; not used while the disk holds it",
                        known                ? "recorded already in"
                                : c->dry_run ? "would be recorded in"
                                             : "recorded in",
                        c->record_path);
        else
                snprintf(what, sizeof(what), "not recorded, %s could not be written; boots go on taking it",
                        c->record_path);
        log_full(known ? LOG_NOTICE : LOG_WARNING,
                "%s of %s is %s, %s ahead of NTP's time: %s (to clear it for good: %s)", f->source,
                f->device, format_iso(a, f->time), by[0] == '+' ? by + 1 : by, what, fix);
        if (!s->fix[0])
                snprintf(s->fix, sizeof(s->fix), "%s", fix);
        add_word(s->sources, sizeof(s->sources), f->source);
        s->n_future++;
}

/*
 * Whether the record's directory is on a filesystem the boots read (the root, or a /var of its own
 * that the root's fstab lists); said once when it is not.
 */
static void check_on_read_fs(const struct learn_config *c, const struct evidence *ev)
{
        char dir[PATH_MAX];
        struct file_stat d, dev, root;
        const char *slash = strrchr(c->record_path, '/');

        if (!c->on_root || !slash || (size_t)(slash - c->record_path) >= sizeof(dir))
                return;
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - c->record_path), c->record_path);
        if (file_stat(dir, &d) < 0 || (file_stat("/", &root) == 0 && d.dev == root.dev))
                return;
        for (size_t i = 0; i < ev->n_devices; i++)
                if (ev->devices[i].have_sb && file_stat(ev->devices[i].path, &dev) == 0 &&
                        S_ISBLK(dev.mode) && dev.rdev == d.dev)
                        return;
        log_warning("%s is not on a filesystem the boots read (the root, or an ext2/3/4 filesystem of its "
                    "/etc/fstab): they will not see the record",
                dir);
}

/*
 * Writes the new record, the lock held (*lock, from record_lock(); -errno where it could not be
 * taken, which is then the write's error), through LEARN_UNIT when this process sees its
 * filesystem read-only: the lock released first, as the unit's own clockfix takes it. 0 or -errno.
 */
static int write_record(const struct learn_config *c, const struct record *next, int *lock)
{
        char reason[400];
        int r = *lock < 0 ? *lock : record_write_locked(*lock, c->record_path, next);

        if (r == -EROFS && c->have_sd) {
                closep(lock);
                *lock = -1;
                r = systemd_unit_writes(LEARN_UNIT, c->record_path, reason, sizeof(reason));
                if (r < 0)
                        return log_warning_errno(
                                r, "Cannot write %s: read-only here, and %s", c->record_path, reason);
                log_debug("%s written through %s", c->record_path, LEARN_UNIT);
                return 0;
        }
        if (r == -EWOULDBLOCK)
                return log_warning_errno(r,
                        "Cannot write %s: another process has held its lock for %" PRIu64
                        " s (a clockfix learn stopped at a terminal?)",
                        c->record_path, RECORD_LOCK_WAIT / USEC_PER_SEC);
        if (r < 0)
                return log_warning_errno(r, "Cannot write %s: %m%s", c->record_path,
                        r == -ENOENT ? " (create its directory, or give --state-dir)" : "");
        return 0;
}

int learn(const struct learn_config *c, usec_t now, struct learn_summary *ret)
{
        _cleanup_(record_done) struct record old = { 0 }, next = { 0 };
        _cleanup_(evidence_free) struct evidence ev = { 0 };
        struct gather_config g = *c->gather;
        _cleanup_close_ int lock = -1;
        size_t added;
        int r;

        *ret = (struct learn_summary){ 0 };
        /* The disk as it is now: no wait (it was found at boot), and no marks from the record. */
        g.wait = 0;
        g.record_path = NULL;
        r = gather(&g, &ev);
        if (r < 0)
                return log_error_errno(r, "Cannot read the disk's times again: %m");
        /*
         * The record is read to be added to: under its lock from here, so that no other writer's
         * entries fall between the read and the write. Where it cannot be taken (no directory yet),
         * nothing is written, and the write says why.
         */
        if (!c->dry_run) {
                lock = record_lock(c->record_path, 0);
                if (lock == -EWOULDBLOCK) {
                        log_info("%s is being written by another process: waiting for it, %" PRIu64
                                 " s at most",
                                c->record_path, RECORD_LOCK_WAIT / USEC_PER_SEC);
                        lock = record_lock(c->record_path, RECORD_LOCK_WAIT);
                }
        }
        if (record_read_file(c->record_path, 0, &old) < 0 ||
                record_update(&old, ev.candidates, ev.n_candidates, now, c->tolerance, &next, &added) < 0)
                return log_error_errno(ENOMEM, "Out of memory");
        if (old.error != 0 && old.error != -ENOENT)
                log_warning("%s: %s: ignored%s", c->record_path, old.reason,
                        added > 0 ? ", and replaced by what is found now" : "");

        /* Written first, so that each time's line says whether it is in the record now. */
        if (added > 0 && !c->dry_run) {
                check_on_read_fs(c, &ev);
                r = write_record(c, &next, &lock);
        }
        for (size_t i = 0; i < ev.n_candidates; i++)
                if (record_in_future(ev.candidates[i].time, now, c->tolerance))
                        log_future(c, &old, ev.candidates + i, now, added > 0 && !c->dry_run && r >= 0, ret);
        if (added == 0) {
                log_debug("Nothing new to record: %s left as it is", c->record_path);
                return 0;
        }
        if (c->dry_run) {
                log_notice(
                        "Would record %zu new time(s) in %s; --dry-run: not written", added, c->record_path);
                return 0;
        }
        if (r < 0)
                return r;
        log_notice("Recorded %zu new time(s) in %s", added, c->record_path);
        return 0;
}
