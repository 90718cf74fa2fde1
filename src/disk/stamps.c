/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stamps: files that tools rewrite while the system runs, whose times say when it last ran */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "basic/cleanup.h"
#include "basic/stat-util.h"
#include "disk/lookup.h"
#include "disk/stamps.h"

/* fake-hwclock.data holds one line; anything much longer is not it. */
#define FAKE_HWCLOCK_MAX 64

/* The source names; the path is what follows "file:". */
#define SOURCE_PREFIX "file:"

const char *stamp_source(enum stamp s)
{
        static const char *const table[_STAMP_MAX] = {
                [STAMP_TIMESYNCD] = SOURCE_PREFIX "/var/lib/systemd/timesync/clock",
                [STAMP_FAKE_HWCLOCK] = SOURCE_PREFIX "/etc/fake-hwclock.data",
                [STAMP_CLOCKFIX] = SOURCE_PREFIX "/var/lib/clockfix/clock",
        };
        return (unsigned)s < _STAMP_MAX ? table[s] : NULL;
}

const char *stamp_path(enum stamp s)
{
        const char *source = stamp_source(s);
        return source ? source + strlen(SOURCE_PREFIX) : NULL;
}

enum stamps_why stamps_needed(const struct journal_report *journal, bool fast_commit, bool live)
{
        const struct jbd2_report *j;

        if (live)
                return STAMPS_LIVE;
        if (!journal || journal->location == JOURNAL_NONE)
                return STAMPS_NO_JOURNAL;
        if (journal->error != 0)
                return STAMPS_JOURNAL_ERROR;
        if (fast_commit)
                return STAMPS_FAST_COMMIT;
        j = &journal->jbd2;
        if (j->budget_exhausted)
                return STAMPS_BUDGET_SPENT;
        if (j->bad_checksums || j->read_errors)
                return STAMPS_JOURNAL_DAMAGED;
        if (!j->newest.found)
                return STAMPS_NO_COMMIT;
        /* The newest commit must be the newest plausible one: a stamp written after it can be no newer. */
        if (!j->best.found || j->best.sequence != j->newest.sequence)
                return STAMPS_NEWEST_IMPLAUSIBLE;
        return STAMPS_JOURNAL_NEWER;
}

bool stamps_why_reads(enum stamps_why why)
{
        return why > STAMPS_JOURNAL_NEWER && why < _STAMPS_WHY_MAX;
}

const char *stamps_why_to_text(enum stamps_why why)
{
        static const char *const table[_STAMPS_WHY_MAX] = {
                [STAMPS_NOT_ASKED] = "not asked for (--no-stamps)",
                [STAMPS_UNKNOWN_FEATURES] =
                        "the filesystem uses incompatible features this libext2fs does not know",
                [STAMPS_JOURNAL_NEWER] = "no stamp file can be newer than the journal's newest commit",
                [STAMPS_LIVE] = "the filesystem is the mounted /, read live",
                [STAMPS_NO_JOURNAL] = "no journal was read",
                [STAMPS_JOURNAL_ERROR] = "the journal could not be used",
                [STAMPS_FAST_COMMIT] =
                        "the filesystem uses fast commits, which log inode changes without a time",
                [STAMPS_BUDGET_SPENT] =
                        "the journal's search stopped for its budget: a newer commit may exist",
                [STAMPS_JOURNAL_DAMAGED] =
                        "blocks of the journal were corrupt or unreadable: a newer commit may lie past them",
                [STAMPS_NO_COMMIT] = "the journal holds no commit",
                [STAMPS_NEWEST_IMPLAUSIBLE] = "the journal's newest commit is not plausible",
        };
        return (unsigned)why < _STAMPS_WHY_MAX ? table[why] : "?";
}

usec_t ext4_time_to_usec(uint32_t base, uint32_t extra, bool have_extra)
{
        /* As the kernel's ext4_decode_extra_time(): the base is signed; 2 epoch bits extend it; 30 bits of
         * ns. */
        int64_t sec = (int32_t)base;
        uint32_t nsec = 0;
        usec_t u;

        if (have_extra) {
                sec += (int64_t)(extra & 3u) << 32;
                nsec = extra >> 2;
        }
        if (sec <= 0 || !sec_to_usec((uint64_t)sec, &u))
                return 0;
        if (nsec < 1000000000u)
                u += nsec / NSEC_PER_USEC;
        return u;
}

int parse_fake_hwclock(const char *text, size_t size, usec_t *ret)
{
        char line[FAKE_HWCLOCK_MAX];
        size_t n = 0;

        while (n < size && n < sizeof(line) - 1 && text[n] != '\n' && text[n] != '\0')
                n++;
        if (n == sizeof(line) - 1)
                return -EINVAL;
        memcpy(line, text, n);
        while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\r' || line[n - 1] == '\t'))
                n--;
        line[n] = '\0';
        /* fake-hwclock writes `date -u '+%Y-%m-%d %H:%M:%S'`; parse_time() takes that form and no zone. */
        return parse_time(line, ret);
}

static void read_from_disk(ext2_filsys fs, enum stamp s, const char *path, struct stamp_report *r)
{
        bool content = s == STAMP_FAKE_HWCLOCK;
        struct ext2_inode_large inode = { 0 };
        char text[FAKE_HWCLOCK_MAX];
        struct file_read f;

        r->error = lookup_read_file(fs, path, content ? text : NULL, sizeof(text), &f);
        r->inode = f.ino;
        r->reason = r->error == -EFBIG ? "too large for a fake-hwclock date" : f.reason;
        r->blocks = f.blocks;
        r->budget_spent = f.budget_spent;
        if (r->error != 0)
                return;
        if (content) {
                if (parse_fake_hwclock(text, f.got, &r->time) < 0) {
                        r->error = -EBADMSG;
                        r->reason = "does not hold a date (YYYY-MM-DD HH:MM:SS)";
                }
                return;
        }
        /* Its mtime: the inode again, from the blocks just read (src/disk/iocache.c). */
        if (ext2fs_read_inode_full(fs, r->inode, (struct ext2_inode *)&inode, sizeof(inode)) != 0) {
                r->error = -EIO;
                r->reason = "cannot read its inode";
                return;
        }
        /* i_mtime_extra counts only if the inode is large enough and says its extra part holds it. */
        bool have_extra = EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE &&
                (size_t)EXT2_GOOD_OLD_INODE_SIZE + inode.i_extra_isize >=
                        offsetof(struct ext2_inode_large, i_mtime_extra) + sizeof(inode.i_mtime_extra);
        r->time = ext4_time_to_usec(inode.i_mtime, have_extra ? inode.i_mtime_extra : 0, have_extra);
}

/*
 * Whether what is at a stamp's path on the running system may be used: a regular file on the root
 * filesystem, not a symbolic link. Else false, with why in r.
 */
static bool live_usable(const struct file_stat *st, dev_t root, struct stamp_report *r)
{
        if (S_ISLNK(st->mode)) {
                r->error = -ELOOP;
                r->reason = NOFOLLOW_REASON;
        } else if (!S_ISREG(st->mode)) {
                r->error = -EISDIR;
                r->reason = "not a regular file";
        } else if (st->dev != root) {
                /* A mount clockfix does not read (a /var that is not ext, or not in fstab). */
                r->error = -EXDEV;
                r->reason = "on a filesystem that is not read";
        } else
                return true;
        return false;
}

/* fake-hwclock's date, from the file at path that statx() found usable. */
static void read_live_date(const char *path, dev_t root, struct stamp_report *r)
{
        _cleanup_close_ int fd = -1;
        char text[FAKE_HWCLOCK_MAX];
        struct file_stat st;
        ssize_t got;

        /* O_NOFOLLOW and the fstat(): a link or another file put at the path since is not read. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0) {
                r->error = -errno;
                r->reason = r->error == -ENOENT ? NULL
                        : r->error == -ELOOP    ? NOFOLLOW_REASON
                                                : "cannot open it";
                return;
        }
        if (file_fstat(fd, &st) < 0) {
                r->error = -EIO;
                r->reason = "cannot look at it";
        } else if (!live_usable(&st, root, r))
                return;
        else if ((got = read(fd, text, sizeof(text))) < 0) {
                r->error = -errno;
                r->reason = "cannot read it";
        } else if (parse_fake_hwclock(text, (size_t)got, &r->time) < 0) {
                r->error = -EBADMSG;
                r->reason = "does not hold a date (YYYY-MM-DD HH:MM:SS)";
        }
}

/*
 * The same through the running system: the page cache is newer than the disk. An mtime is taken
 * with statx() alone, without following a link at the path or opening anything: a link to
 * /dev/watchdog there must not make root open (and arm) it. The directories on the way are
 * resolved as the kernel does, links among them followed (/var/lib/systemd/timesync is one with
 * DynamicUser=).
 */
static void read_live(enum stamp s, const char *path, dev_t root, struct stamp_report *r)
{
        struct file_stat st;
        int k;

        r->live = true;
        k = file_stat_nofollow(path, &st);
        if (k < 0) {
                r->error = k;
                r->reason = k == -ENOENT ? NULL : "cannot look it up";
                return;
        }
        if (!live_usable(&st, root, r))
                return;
        if (s == STAMP_FAKE_HWCLOCK)
                read_live_date(path, root, r);
        else if (st.mtime.tv_sec > 0 && sec_to_usec((uint64_t)st.mtime.tv_sec, &r->time))
                r->time += (usec_t)st.mtime.tv_nsec / NSEC_PER_USEC;
}

int stamps_read(struct struct_ext2_filsys *fs, dev_t live, const char *const paths[static _STAMP_MAX],
        struct stamp_report ret[static _STAMP_MAX])
{
        for (enum stamp s = 0; s < _STAMP_MAX; s++) {
                ret[s] = (struct stamp_report){ 0 };
                if (!paths[s]) {
                        /* Looked up on the filesystem that holds it, not here. */
                        ret[s].error = -EXDEV;
                        ret[s].reason = "on another filesystem";
                } else if (live != 0)
                        read_live(s, paths[s], live, ret + s);
                else
                        read_from_disk(fs, s, paths[s], ret + s);
                /* A file that could not be used gives no time, whatever was parsed before the error. */
                if (ret[s].error != 0)
                        ret[s].time = 0;
        }
        return 0;
}
