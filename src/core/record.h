/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * record: the times found on a disk in the future when NTP synchronised the
 * clock, kept in a small file so that those exact values are never used
 * again (docs/design.md §10). Parsing, formatting and the update are pure; the
 * file is read from the running system or, at boot, from the unmounted root
 * through libext2fs, and written atomically.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "core/decide.h"

/* Where the record is, by default: clockfix's state directory on the root filesystem. */
#define RECORD_DIR_DEFAULT "/var/lib/clockfix"
#define RECORD_NAME        "future-times"
#define RECORD_PATH_MAX    4096

/* The first line that is not a comment: the format and its version. */
#define RECORD_HEADER "clockfix-future-times 1"

/* A record larger than this, or with more entries, was not written by clockfix: it is ignored. */
#define RECORD_MAX_BYTES   16384
#define RECORD_MAX_ENTRIES 64
#define RECORD_SOURCE_MAX  64

/* A time later than the synchronised clock by more than the margin and this is in the future. */
#define RECORD_TOLERANCE (5 * USEC_PER_SEC)

/*
 * A recorded time is passed over only when it is later than the journal's newest plausible
 * commit (a time the kernel stamped at the last write) by more than this: within it, it could
 * at worst put the clock this much ahead. So the record is looked up only when some time
 * is that much later, which a boot whose journal holds the newest time never needs (nine
 * reads of the card saved: docs/design.md §10).
 */
#define RECORD_SLACK (60 * USEC_PER_SEC)

struct record_entry {
        char uuid[37];                  /* the filesystem's UUID, as the superblock gives it */
        char source[RECORD_SOURCE_MAX]; /* "superblock:last_check", ... */
        usec_t time;                    /* the exact value, as clockfix read it */
};

struct record {
        struct record_entry *entries;
        size_t n;
        int error;          /* 0; -ENOENT: there is none; else why it is ignored (-EFBIG, -EBADMSG, -EIO) */
        const char *reason; /* for an error other than -ENOENT: what is wrong (static) */
        unsigned bad_lines; /* lines that are not entries, passed over */
        unsigned first_bad; /* the first of them (1-based) */
        bool live;          /* read from the running system, not through libext2fs */
        const char *path;   /* where it was read (borrowed from the caller of the reader), or NULL */
};

/*
 * Parses the text of a record (size bytes, NUL or not). Entries are lines
 * "UUID SOURCE USEC [anything]" after the line RECORD_HEADER; '#' starts a
 * comment line. A line that is not an entry is counted in bad_lines and
 * passed over; more than RECORD_MAX_ENTRIES entries, or no header, and the
 * whole record is ignored (ret->error -EBADMSG, no entry). Pure.
 * Returns 0, or -ENOMEM.
 */
_must_check_ int record_parse(const char *text, size_t size, struct record *ret);

/* The text of r, as record_parse() reads it back: a new string in *ret. 0 or -ENOMEM. */
_must_check_ int record_format(const struct record *r, char **ret);

/*
 * Pure: whether the record may pass over a time, given the filesystem's journal commit
 * (its newest plausible one; 0 when there is none): when it is later than the commit by
 * more than RECORD_SLACK, or there is no commit to compare with.
 */
bool record_applies(usec_t time, usec_t commit);

/*
 * Pure: the journal's newest commit that a filesystem's times are measured against
 * (record_applies()): commit (0: none) when it is plausible (or there is no policy) and the record
 * rec (NULL: none) does not list it for the filesystem uuid; else 0, and then every recorded time
 * is passed over.
 */
usec_t record_reference(const struct policy *p, usec_t commit, const struct record *rec, const char *uuid);

/* Pure: whether the record may pass time t over: t is plausible (or there is no policy), and applies. */
bool record_may_pass_over(const struct policy *p, usec_t t, usec_t commit);

/* Pure: whether the record may pass any of times[n] over: else it need not be read. */
bool record_needed(const struct policy *p, usec_t commit, const usec_t *times, size_t n);

/* Pure: whether time is in the future at now, as the record keeps it: later by more than tolerance. */
bool record_in_future(usec_t time, usec_t now, usec_t tolerance);

/* Whether r holds the value time of source on the filesystem uuid. Pure. */
bool record_has(const struct record *r, const char *uuid, const char *source, usec_t time);

/* Whether the candidate is among the times read on the disk (same filesystem, source and value). Pure. */
bool candidates_hold(const struct candidate *c, size_t n, const char *uuid, const char *source, usec_t time);

/*
 * The record that follows old once the sources have been read again
 * (candidates[0..n), each with its filesystem's UUID) with the clock
 * synchronised at now: the values later than now + tolerance, and the
 * entries of old that still appear on the disk (those of a filesystem that
 * was not read are kept). The newest entries are kept when there are more
 * than RECORD_MAX_ENTRIES. *ret_added: how many values are new to the record.
 * Pure. 0 or -ENOMEM.
 */
_must_check_ int record_update(const struct record *old, const struct candidate *candidates, size_t n,
        usec_t now, usec_t tolerance, struct record *ret, size_t *ret_added);

/*
 * Reads the record at path on the running system; when on_dev is not 0, only from the
 * filesystem of that device number (else -EXDEV). A symbolic link at path is not followed
 * (-ELOOP), nor is anything but a regular file opened (-EISDIR); links in the directories on
 * the way are. Always fills *ret (see its error). 0 or -ENOMEM.
 */
_must_check_ int record_read_file(const char *path, dev_t on_dev, struct record *ret);

struct struct_ext2_filsys;

/* Reads the record at path on the filesystem fs, through libext2fs. As record_read_file(). */
_must_check_ int record_read_fs(struct struct_ext2_filsys *fs, const char *path, struct record *ret);

/*
 * How long a writer waits for another to release the record's lock. A writer holds it for a
 * read, a write and two fsync()s, well under a second even on an SD card; one that holds it
 * longer is stopped (a clockfix learn suspended at a terminal) or hung, and the daemon must
 * not wait on it for ever.
 */
#define RECORD_LOCK_WAIT (30 * USEC_PER_SEC)

/*
 * Takes the lock of the record at path, its directory's (flock(), exclusive), and returns
 * that directory's descriptor: closing it releases the lock. One writer at a time (the
 * daemon, clockfix learn by hand, clockfix-learn.service): another's write between one's and
 * its rename would take its temporary file away, and the last rename would be of a file whose
 * blocks no syncfs() put in place; and a writer that reads the record to add to it holds the
 * lock from its read on, or another's entries written in between are lost. Waits at most
 * `wait` while another holds it: -EWOULDBLOCK after that (at once when wait is 0). -errno.
 */
_must_check_ int record_lock(const char *path, usec_t wait);

/*
 * Writes r to path atomically (a new file renamed over the old one) and
 * durably (the file and its directory synchronised), the lock held (dfd, from
 * record_lock()). Never follows a symbolic link. 0, or -errno (-EROFS while
 * the filesystem is read-only).
 */
_must_check_ int record_write_locked(int dfd, const char *path, const struct record *r);

/*
 * record_lock() (waiting RECORD_LOCK_WAIT at most), record_write_locked(),
 * and the lock released. 0, or -errno.
 */
_must_check_ int record_write(const char *path, const struct record *r);

/* How to make a recorded value leave the disk for good, for people: "run tune2fs -T now /dev/vda". */
const char *record_fix(const char *source, const char *device, char *buf, size_t size);

void record_done(struct record *r);
