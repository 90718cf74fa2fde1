/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* timesyncd-flag: timesyncd's flag file, new or not, and the inotify watch that wakes the daemon */

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "basic/file-util.h"
#include "daemon/timesyncd-flag.h"

/* What touching, making or moving the flag into place does to its directory. */
#define FLAG_EVENTS (IN_ATTRIB | IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO)

/* The last component of path. */
static const char *last_name(const char *path)
{
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

/* Watches the flag's directory, else its parent (until the directory is made). 0 or -errno. */
static int watch(struct timesyncd_flag *f)
{
        f->wd_dir = inotify_add_watch(f->fd, f->dir, FLAG_EVENTS | IN_ONLYDIR);
        if (f->wd_dir < 0 && errno != ENOENT)
                return -errno;
        if (f->wd_dir < 0 && f->wd_parent < 0) {
                f->wd_parent = inotify_add_watch(f->fd, f->parent, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
                if (f->wd_parent < 0)
                        return -errno;
                /* Made in between: the watch of the parent saw nothing of it. */
                f->wd_dir = inotify_add_watch(f->fd, f->dir, FLAG_EVENTS | IN_ONLYDIR);
        }
        /* The directory watched: what else is made in its parent (/run/systemd) does not matter. */
        if (f->wd_dir >= 0 && f->wd_parent >= 0) {
                (void)inotify_rm_watch(f->fd, f->wd_parent);
                f->wd_parent = -1;
        }
        return 0;
}

int timesyncd_flag_open(struct timesyncd_flag *f, const char *path)
{
        int r;

        *f = (struct timesyncd_flag){ .path = path, .fd = -1, .wd_dir = -1, .wd_parent = -1 };
        if (!path_dir(path, f->dir, sizeof(f->dir)) || !path_dir(f->dir, f->parent, sizeof(f->parent)))
                return -ENAMETOOLONG;
        f->was_there = file_stat(path, &f->at_start) == 0;
        f->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (f->fd < 0)
                return -errno;
        r = watch(f);
        if (r < 0) {
                timesyncd_flag_close(f);
                return r;
        }
        return 0;
}

/* Whether an event may have changed the flag; the watches kept right. */
static bool flag_event(struct timesyncd_flag *f, const struct inotify_event *e)
{
        /* Events were lost: the watches made again, and a look. */
        if (e->mask & IN_Q_OVERFLOW) {
                (void)watch(f);
                return true;
        }
        /* The directory went (timesyncd stopped): its parent again, until it is back. */
        if (e->wd == f->wd_dir && (e->mask & IN_IGNORED)) {
                f->wd_dir = -1;
                (void)watch(f);
                return true;
        }
        if (e->len == 0)
                return false;
        if (e->wd == f->wd_dir)
                return strcmp(e->name, last_name(f->path)) == 0;
        /* In the parent, only the flag's directory counts. */
        if (e->wd == f->wd_parent && f->wd_dir < 0 && strcmp(e->name, last_name(f->dir)) == 0) {
                (void)watch(f);
                return true;
        }
        return false;
}

bool timesyncd_flag_read(struct timesyncd_flag *f)
{
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool look = false;
        ssize_t n;

        while ((n = read(f->fd, buf, sizeof(buf))) > 0)
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *)p;
                        p += sizeof(*e) + e->len;
                        look |= flag_event(f, e);
                }
        return look;
}

bool timesyncd_flag_new(const struct timesyncd_flag *f)
{
        struct file_stat st;

        if (file_stat(f->path, &st) < 0)
                return false;
        return !f->was_there || st.ctime.tv_sec != f->at_start.ctime.tv_sec ||
                st.ctime.tv_nsec != f->at_start.ctime.tv_nsec || st.ino != f->at_start.ino;
}

void timesyncd_flag_close(struct timesyncd_flag *f)
{
        if (f->fd >= 0)
                close(f->fd);
        f->fd = f->wd_dir = f->wd_parent = -1;
}
