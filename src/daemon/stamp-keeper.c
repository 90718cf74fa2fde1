/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stamp-keeper: the daemon's stamp file, kept fresh without wearing the flash */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h> /* futimens() */
#include <sys/sysmacros.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/file-util.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "daemon/stamp-keeper.h"
#include "daemon/systemd.h"
#include "disk/rootdev.h"
#include "disk/stamps.h"

/* The unit that touches the stamp when our own sandbox cannot (see save_through_unit()). */
#define SAVE_UNIT "clockfix-stamp.service"

bool stamp_save_due(bool have_last, uint64_t last, int counter, uint64_t now)
{
        /* Not ext4 (no counter): save every interval, as fake-hwclock does every hour. */
        if (counter < 0)
                return true;
        /* No earlier reading to compare with: wait one interval to see whether anything writes. */
        if (!have_last)
                return false;
        return now == last;
}

/*
 * The stamp through SAVE_UNIT, in a sandbox of its own made now. Ours was made
 * when clockfix.service started, before systemd-remount-fs.service, while /
 * was mounted read-only; a mount namespace keeps each mount's read-only flag
 * as it was copied, so / stays read-only in it for good. Waits up to 5 s for
 * the new mtime, so that the counter read next includes our own write.
 * Returns 0, or -errno with why in reason; -ETIMEDOUT when the unit ran and
 * did not touch it.
 */
static int save_through_unit(struct stamp_keeper *k, char *reason, size_t size)
{
        return systemd_unit_writes(SAVE_UNIT, k->path, reason, size);
}

/*
 * The stamp when our own mount of its filesystem is read-only (-EROFS). Read-only
 * for every process (a read-only root that stays so): said once, nothing started.
 * Read-only in clockfix's sandbox alone: through SAVE_UNIT; a failure is warned
 * about once, with its cause, and a unit that ran without touching the stamp is
 * not started again (each try would stall the daemon 5 s, at stop too).
 * Returns 0 when the stamp was touched.
 */
static int save_read_only(struct stamp_keeper *k, const char *why)
{
        char dir[PATH_MAX], reason[400];
        struct file_stat st;
        int r;

        if (path_dir(k->path, dir, sizeof(dir)) && file_stat(dir, &st) == 0 &&
                mountinfo_superblock_read_only("/proc/self/mountinfo", st.dev) > 0) {
                log_full(k->said_read_only ? LOG_DEBUG : LOG_NOTICE,
                        "Not touching %s (%s): its filesystem is mounted read-only, for every process",
                        k->path, why);
                k->said_read_only = true;
                return -EROFS;
        }
        if (k->said_read_only)
                log_info("The filesystem of %s is writable now", k->path);
        k->said_read_only = false;
        if (k->unit_useless) {
                log_debug("Not touching %s (%s): read-only here, and %s did not touch it before", k->path,
                        why, SAVE_UNIT);
                return -EROFS;
        }
        r = save_through_unit(k, reason, sizeof(reason));
        if (r == 0) {
                log_debug("Touched %s (%s) through %s", k->path, why, SAVE_UNIT);
                return 0;
        }
        k->unit_useless = r == -ETIMEDOUT;
        log_full(k->warned_unit ? LOG_DEBUG : LOG_WARNING,
                "Cannot touch %s (%s): read-only in clockfix's sandbox, and %s%s", k->path, why, reason,
                k->unit_useless ? "; not trying again" : "");
        k->warned_unit = true;
        return r;
}

/* Refreshes the stamp file, and takes the counter after our own write as the next baseline. */
static void save_stamp(struct stamp_keeper *k, const char *why)
{
        int r;

        if (k->dry_run) {
                log_info("Would touch %s (%s); --dry-run: not written", k->path, why);
                return;
        }
        r = stamp_save(k->path);
        if (r == -EROFS)
                (void)save_read_only(k, why);
        else if (r < 0)
                log_warning_errno(r, "Cannot touch %s: %m", k->path);
        else
                log_debug("Touched %s (%s)", k->path, why);
        k->have_written = fs_written_kbytes(k->path, &k->written) == 0;
}

/* Whether the stamp file's directory is there: it belongs to the package, clockfix does not make it. */
static bool stamp_dir_ready(struct stamp_keeper *k)
{
        char dir[PATH_MAX];
        struct file_stat st;

        if (!path_dir(k->path, dir, sizeof(dir)))
                return false;
        if (file_stat(dir, &st) == 0 && S_ISDIR(st.mode))
                return true;
        if (!k->warned_no_dir)
                log_warning("%s is not a directory: the stamp file is not kept (create it, or use "
                            "--save-interval 0)",
                        dir);
        k->warned_no_dir = true;
        return false;
}

void stamp_keeper_baseline(struct stamp_keeper *k)
{
        if (stamp_dir_ready(k))
                k->have_written = fs_written_kbytes(k->path, &k->written) == 0;
}

void stamp_keeper_interval(struct stamp_keeper *k)
{
        uint64_t now = 0;
        int r;

        /* Checked each time: a /var of its own may be mounted after the daemon started. */
        if (!stamp_dir_ready(k))
                return;
        r = fs_written_kbytes(k->path, &now);

        if (stamp_save_due(k->have_written, k->written, r, now))
                save_stamp(k, r < 0 ? "not ext4: every interval" : "no other write in the interval");
        else {
                log_debug("Not touching %s: %s", k->path,
                        k->have_written ? "the filesystem was written meanwhile" : "first look");
                k->have_written = r == 0;
                k->written = now;
        }
}

void stamp_keeper_at_stop(struct stamp_keeper *k)
{
        if (stamp_dir_ready(k))
                save_stamp(k, "at stop");
}

int stamp_save(const char *path)
{
        _cleanup_close_ int fd = -1;

        fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
        if (fd < 0)
                return -errno;
        /*
         * The inode's times alone: no data block. fsync() commits the inode to the journal; syncfs()
         * then writes the inode's own block too, which writeback would otherwise do some 30 s later
         * (dirty_expire_centisecs): a write that would look like someone else's at the next look.
         * Measured on a loop device: 4 KiB in all, and nothing afterwards.
         */
        if (futimens(fd, NULL) < 0 || fsync(fd) < 0 || syncfs(fd) < 0)
                return -errno;
        return 0;
}

int fs_written_kbytes(const char *path, uint64_t *ret)
{
        char link[PATH_MAX], sys[PATH_MAX + 64], *dir, *slash, text[32];
        unsigned long long kb;
        struct file_stat st;
        ssize_t n;
        int fd, r;

        r = file_stat(path, &st);
        if (r < 0) {
                if (r != -ENOENT || strlen(path) >= sizeof(link))
                        return r;
                strcpy(link, path);
                dir = link;
                slash = strrchr(dir, '/');
                if (!slash)
                        return -ENOENT;
                *(slash == dir ? slash + 1 : slash) = '\0';
                r = file_stat(dir, &st);
                if (r < 0)
                        return r;
        }
        /* /sys/dev/block/MAJ:MIN links to the device; its name is the one ext4 files its counters under. */
        snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.dev), minor(st.dev));
        n = readlink(sys, link, sizeof(link) - 1);
        if (n < 0)
                return -errno == -EINVAL ? -ENOENT : -errno;
        link[n] = '\0';
        slash = strrchr(link, '/');
        snprintf(sys, sizeof(sys), "/sys/fs/ext4/%s/lifetime_write_kbytes", slash ? slash + 1 : link);
        fd = open(sys, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, text, sizeof(text) - 1);
        close(fd);
        if (n <= 0)
                return n < 0 ? -errno : -EIO;
        text[n] = '\0';
        if (sscanf(text, "%llu", &kb) != 1)
                return -EIO;
        *ret = kb;
        return 0;
}
