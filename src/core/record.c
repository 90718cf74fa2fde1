/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* record: the times found in the future at NTP synchronisation, never used again (docs/design.md §10) */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/file-util.h"
#include "basic/stat-util.h"
#include "core/record.h"
#include "disk/journal.h"
#include "disk/lookup.h"

static bool is_uuid(const char *s, size_t len)
{
        if (len != 36)
                return false;
        for (size_t i = 0; i < len; i++) {
                bool dash = i == 8 || i == 13 || i == 18 || i == 23;
                if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        }
        return true;
}

/* A source name: printable ASCII without spaces, "kind:what". */
static bool is_source(const char *s, size_t len)
{
        if (len == 0 || len >= RECORD_SOURCE_MAX || !memchr(s, ':', len))
                return false;
        for (size_t i = 0; i < len; i++)
                if (s[i] <= ' ' || s[i] > '~')
                        return false;
        return true;
}

/* The next space-separated word of line[*pos..len): its start and length, or false at the end. */
static bool next_word(const char *line, size_t len, size_t *pos, const char **ret, size_t *ret_len)
{
        size_t i = *pos, start;

        while (i < len && (line[i] == ' ' || line[i] == '\t'))
                i++;
        if (i == len)
                return false;
        start = i;
        while (i < len && line[i] != ' ' && line[i] != '\t')
                i++;
        *ret = line + start;
        *ret_len = i - start;
        *pos = i;
        return true;
}

/* One entry line into e: false when it is not one. */
static bool parse_entry(const char *line, size_t len, struct record_entry *e)
{
        const char *w[3];
        size_t l[3], pos = 0;
        usec_t t = 0;

        for (int i = 0; i < 3; i++)
                if (!next_word(line, len, &pos, w + i, l + i))
                        return false;
        if (!is_uuid(w[0], l[0]) || !is_source(w[1], l[1]) || l[2] > 20)
                return false;
        for (size_t i = 0; i < l[2]; i++) {
                unsigned digit = (unsigned)(w[2][i] - '0');
                if (digit > 9 || t > (USEC_INFINITY - 1 - digit) / 10)
                        return false;
                t = t * 10 + digit;
        }
        if (t == 0)
                return false;
        *e = (struct record_entry){ 0 };
        memcpy(e->uuid, w[0], 36);
        e->uuid[36] = '\0';
        memcpy(e->source, w[1], l[1]);
        e->source[l[1]] = '\0';
        e->time = t;
        return true;
}

static bool entry_equal(const struct record_entry *e, const char *uuid, const char *source, usec_t time)
{
        return e->time == time && strcmp(e->uuid, uuid) == 0 && strcmp(e->source, source) == 0;
}

bool record_applies(usec_t time, usec_t commit)
{
        return commit == 0 || (time > commit && time - commit > RECORD_SLACK);
}

usec_t record_reference(const struct policy *p, usec_t commit, const struct record *rec, const char *uuid)
{
        if (commit == 0 ||
                (p && candidate_verdict(p, &(struct candidate){ .time = commit }) != VERDICT_PLAUSIBLE))
                return 0;
        /* A commit the record lists is no reference: then every recorded time is passed over. */
        if (rec && record_has(rec, uuid, JOURNAL_SOURCE, commit))
                return 0;
        return commit;
}

bool record_may_pass_over(const struct policy *p, usec_t t, usec_t commit)
{
        if (t == 0 || !record_applies(t, commit))
                return false;
        return !p || candidate_verdict(p, &(struct candidate){ .time = t }) == VERDICT_PLAUSIBLE;
}

bool record_needed(const struct policy *p, usec_t commit, const usec_t *times, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (record_may_pass_over(p, times[i], commit))
                        return true;
        return false;
}

bool record_in_future(usec_t time, usec_t now, usec_t tolerance)
{
        return time > now && time - now > tolerance;
}

bool record_has(const struct record *r, const char *uuid, const char *source, usec_t time)
{
        if (!uuid || !source)
                return false;
        for (size_t i = 0; i < r->n; i++)
                if (entry_equal(r->entries + i, uuid, source, time))
                        return true;
        return false;
}

/* Appends e unless r has it already. 0 or -ENOMEM. */
static int add_entry(struct record *r, const struct record_entry *e)
{
        struct record_entry *n;

        if (record_has(r, e->uuid, e->source, e->time))
                return 0;
        n = realloc(r->entries, (r->n + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        r->entries = n;
        r->entries[r->n++] = *e;
        return 0;
}

static void bad_line(struct record *r, unsigned line)
{
        if (r->bad_lines++ == 0)
                r->first_bad = line;
}

/* The record ignored as a whole: no entry, and why. */
static void ignore_all(struct record *r, const char *reason)
{
        free(r->entries);
        r->entries = NULL;
        r->n = 0;
        r->error = -EBADMSG;
        r->reason = reason;
}

int record_parse(const char *text, size_t size, struct record *ret)
{
        bool header = false;
        unsigned line = 0;
        size_t pos = 0;

        *ret = (struct record){ 0 };
        while (pos < size) {
                const char *start = text + pos, *nl = memchr(start, '\n', size - pos);
                size_t len = nl ? (size_t)(nl - start) : size - pos;
                struct record_entry e;

                pos += len + (nl ? 1 : 0);
                line++;
                if (len > 0 && start[len - 1] == '\r')
                        len--;
                if (memchr(start, '\0', len)) {
                        bad_line(ret, line);
                        continue;
                }
                if (len == 0 || start[0] == '#')
                        continue;
                if (!header) {
                        header = len == strlen(RECORD_HEADER) && memcmp(start, RECORD_HEADER, len) == 0;
                        if (!header) {
                                ignore_all(ret, "its first line is not \"" RECORD_HEADER "\"");
                                return 0;
                        }
                        continue;
                }
                if (!parse_entry(start, len, &e)) {
                        bad_line(ret, line);
                        continue;
                }
                if (ret->n == RECORD_MAX_ENTRIES) {
                        ignore_all(ret, "more entries than clockfix ever writes");
                        return 0;
                }
                if (add_entry(ret, &e) < 0) {
                        record_done(ret);
                        return -ENOMEM;
                }
        }
        if (!header)
                ignore_all(ret, "it is empty or holds only comments");
        return 0;
}

int record_format(const struct record *r, char **ret)
{
        char *text = NULL, iso[ISO_TIME_MAX];
        size_t size = 0;
        FILE *f;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fputs("# clockfix: times found on the disk in the future when NTP synchronised the clock.\n"
              "# clockfix does not use a time listed here while the disk still holds that exact value.\n"
              "# Delete this file to forget them all. See clockfix(8).\n" RECORD_HEADER "\n",
                f);
        for (size_t i = 0; i < r->n; i++) {
                const struct record_entry *e = r->entries + i;
                fprintf(f, "%s %s %" PRIu64 " %s\n", e->uuid, e->source, e->time, format_iso(iso, e->time));
        }
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret = text;
        return 0;
}

bool candidates_hold(const struct candidate *c, size_t n, const char *uuid, const char *source, usec_t time)
{
        for (size_t i = 0; i < n; i++)
                if (c[i].uuid && c[i].time == time && strcmp(c[i].uuid, uuid) == 0 &&
                        strcmp(c[i].source, source) == 0)
                        return true;
        return false;
}

/* Whether any of the candidates comes from the filesystem uuid: then it was read. */
static bool filesystem_read(const struct candidate *c, size_t n, const char *uuid)
{
        for (size_t i = 0; i < n; i++)
                if (c[i].uuid && strcmp(c[i].uuid, uuid) == 0)
                        return true;
        return false;
}

/* A candidate as an entry: false when it cannot be one (no UUID, a source name too long). */
static bool entry_of(const struct candidate *c, struct record_entry *e)
{
        if (!c->uuid || strlen(c->uuid) != 36 || strlen(c->source) >= RECORD_SOURCE_MAX)
                return false;
        *e = (struct record_entry){ 0 };
        memcpy(e->uuid, c->uuid, 37);
        strcpy(e->source, c->source);
        e->time = c->time;
        return true;
}

int record_update(const struct record *old, const struct candidate *candidates, size_t n, usec_t now,
        usec_t tolerance, struct record *ret, size_t *ret_added)
{
        struct record r = { 0 };
        size_t added = 0;

        for (size_t i = 0; i < old->n; i++) {
                const struct record_entry *e = old->entries + i;
                /* Gone from the disk (rewritten since): dropped. Of a filesystem not read: kept. */
                if (filesystem_read(candidates, n, e->uuid) &&
                        !candidates_hold(candidates, n, e->uuid, e->source, e->time))
                        continue;
                if (add_entry(&r, e) < 0)
                        goto fail;
        }
        for (size_t i = 0; i < n; i++) {
                struct record_entry e;
                if (!record_in_future(candidates[i].time, now, tolerance) || !entry_of(candidates + i, &e) ||
                        record_has(&r, e.uuid, e.source, e.time))
                        continue;
                if (add_entry(&r, &e) < 0)
                        goto fail;
                added++;
        }
        /* The newest entries are at the end: drop from the front. */
        if (r.n > RECORD_MAX_ENTRIES) {
                memmove(r.entries, r.entries + (r.n - RECORD_MAX_ENTRIES),
                        RECORD_MAX_ENTRIES * sizeof(*r.entries));
                r.n = RECORD_MAX_ENTRIES;
        }
        *ret = r;
        *ret_added = added;
        return 0;
fail:
        record_done(&r);
        return -ENOMEM;
}

/* Parses text read from a file into *ret, keeping what the reader said (live). 0 or -ENOMEM. */
static int parse_read(const char *path, const char *text, size_t size, bool live, struct record *ret)
{
        int r = record_parse(text, size, ret);

        ret->live = live;
        ret->path = path;
        return r;
}

static void read_failed(const char *path, struct record *ret, int error, const char *reason, bool live)
{
        *ret = (struct record){ .error = error, .reason = reason, .live = live, .path = path };
}

int record_read_file(const char *path, dev_t on_dev, struct record *ret)
{
        _cleanup_close_ int fd = -1;
        char text[RECORD_MAX_BYTES + 1];
        struct file_stat st;
        size_t got = 0;
        int k;

        /*
         * What is at the path is looked at before anything is opened, and a symbolic link there is
         * not followed: a link to /dev/watchdog must not make root open (and arm) it. The directories
         * on the way are resolved as the kernel does, links among them followed. O_NOFOLLOW and the
         * fstat() hold against a link or another file put there in between.
         */
        k = file_stat_nofollow(path, &st);
        if (k < 0) {
                read_failed(path, ret, k, k == -ENOENT ? NULL : "cannot look it up", true);
                return 0;
        }
        if (S_ISLNK(st.mode)) {
                read_failed(path, ret, -ELOOP, NOFOLLOW_REASON, true);
                return 0;
        }
        if (!S_ISREG(st.mode)) {
                read_failed(path, ret, -EISDIR, "not a regular file", true);
                return 0;
        }
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0) {
                k = -errno;
                read_failed(path, ret, k,
                        k == -ENOENT          ? NULL
                                : k == -ELOOP ? NOFOLLOW_REASON
                                              : "cannot open it",
                        true);
                return 0;
        }
        if (file_fstat(fd, &st) < 0 || !S_ISREG(st.mode)) {
                read_failed(path, ret, -EISDIR, "not a regular file", true);
                return 0;
        }
        if (on_dev != 0 && st.dev != on_dev) {
                /* Not on the filesystem that holds its path (a link in its directories to another one). */
                read_failed(path, ret, -EXDEV, "on another filesystem than the one mounted at its directory",
                        true);
                return 0;
        }
        /* One byte more than the limit tells a file too large, whatever its size says. */
        while (got < sizeof(text)) {
                ssize_t n = read(fd, text + got, sizeof(text) - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        read_failed(path, ret, -EIO, "cannot read it", true);
                        return 0;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        if (got > RECORD_MAX_BYTES) {
                read_failed(path, ret, -EFBIG, "larger than clockfix ever writes it (16 KiB)", true);
                return 0;
        }
        return parse_read(path, text, got, true, ret);
}

int record_read_fs(struct struct_ext2_filsys *fs, const char *path, struct record *ret)
{
        char text[RECORD_MAX_BYTES];
        struct file_read f;
        int r;

        r = lookup_read_file(fs, path, text, sizeof(text), &f);
        if (r < 0) {
                read_failed(path, ret, r,
                        r == -EFBIG ? "larger than clockfix ever writes it (16 KiB)" : f.reason, false);
                return 0;
        }
        return parse_read(path, text, f.got, false, ret);
}

int record_lock(const char *path, usec_t wait)
{
        char dir[RECORD_PATH_MAX];
        usec_t deadline = now_monotonic() + wait;
        int dfd, k;

        if (strlen(path) >= RECORD_PATH_MAX || !path_dir(path, dir, sizeof(dir)))
                return -ENAMETOOLONG;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        /* Not a blocking flock(): that waits for ever on a writer that was stopped. */
        for (;;) {
                if (flock(dfd, LOCK_EX | LOCK_NB) == 0)
                        return dfd;
                k = -errno;
                if (k != -EWOULDBLOCK || !wait_a_moment(deadline))
                        break;
        }
        close(dfd);
        return k;
}

int record_write_locked(int dfd, const char *path, const struct record *r)
{
        _cleanup_free_ char *text = NULL;
        int k;

        if (record_format(r, &text) < 0)
                return -ENOMEM;
        k = replace_file(path, text, strlen(text), true);
        if (k < 0)
                return k;
        /* The rename itself: durable once the directory is. */
        if (fsync(dfd) < 0)
                return -errno;
        /*
         * fsync() leaves the new inode and directory block in ext4's journal: after a power cut the
         * initramfs, which reads the root through libext2fs before the mount replays that journal,
         * would not see the record until writeback puts them in place (about 30 s later). syncfs()
         * commits what is running and writes the committed metadata to its place on the device;
         * but a block that another process changes between the two (journald's inode beside the
         * record's, at boot) goes back into a running transaction, and stays out of place. Twice:
         * the second commits it and writes it (vm-systemd-future once read the record empty on the
         * disk two seconds after a single syncfs(), on a loaded machine). Once per record.
         */
        for (int i = 0; i < 2; i++)
                if (syncfs(dfd) < 0)
                        return -errno;
        return 0;
}

int record_write(const char *path, const struct record *r)
{
        _cleanup_close_ int dfd = record_lock(path, RECORD_LOCK_WAIT);

        if (dfd < 0)
                return dfd;
        return record_write_locked(dfd, path, r);
}

const char *record_fix(const char *source, const char *device, char *buf, size_t size)
{
        if (strcmp(source, "superblock:last_check") == 0)
                snprintf(buf, size, "run tune2fs -T now %s", device);
        else if (strcmp(source, "superblock:last_mount") == 0)
                snprintf(buf, size, "the next read-write mount with the right time rewrites it");
        else if (strcmp(source, "superblock:last_write") == 0)
                snprintf(buf, size, "the next clean unmount or superblock write rewrites it");
        else if (strcmp(source, "journal:last_commit") == 0)
                snprintf(buf, size, "the next journal commit (any write to the filesystem) supersedes it");
        else if (strcmp(source, "file:/etc/fake-hwclock.data") == 0)
                snprintf(buf, size, "run fake-hwclock save force");
        else if (strcmp(source, "file:/var/lib/clockfix/clock") == 0)
                snprintf(buf, size, "run clockfix stamp");
        else if (strncmp(source, "file:", 5) == 0)
                snprintf(buf, size, "run touch %s", source + 5);
        else
                snprintf(buf, size, "run e2fsck -f %s with the right time", device);
        return buf;
}

void record_done(struct record *r)
{
        free(r->entries);
        *r = (struct record){ 0 };
}
