/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gather: from devices named on the command line or found as root, to candidate times */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "decide.h"
#include "journal.h"
#include "record.h"
#include "stamps.h"
#include "superblock.h"
#include "time-util.h"

/* Where a device came from, in the order they are tried. */
enum origin {
        ORIGIN_OPTION,    /* --device */
        ORIGIN_CMDLINE,   /* root= on the kernel command line */
        ORIGIN_MOUNTINFO, /* the filesystem mounted at / */
        ORIGIN_FSTAB,     /* the entry for / in fstab */
        _ORIGIN_MAX,
};

/* One device that was tried, whether or not it could be read. */
struct device_report {
        enum origin origin;
        char *spec;         /* as named: "UUID=...", "/dev/mmcblk0p2", "254:0" */
        char *path;         /* the device path it resolved to, or NULL */
        int error;          /* 0, or a negative errno (see superblock_read(), rootdev_resolve()) */
        const char *reason; /* libext2fs' text for error, or NULL */
        char *fstype;       /* what it holds instead, when not ext2/3/4 ("vfat", "nfs", ...) */
        /*
         * What explains an error (see device_problem()): whether it was tried with effective user ID
         * 0; for one not found (-ENOENT, -ETIMEDOUT), why libblkid could not search for it
         * (blk_unavailable()), else NULL.
         */
        bool as_root;
        const char *no_blkid;
        bool have_sb;
        struct superblock sb;
        bool have_journal; /* the journal was looked at (the filesystem has one, and it was asked for) */
        struct journal_report journal;
        bool have_stamps;           /* the stamp files were looked for */
        enum stamps_why stamps_why; /* why they were, or were not (see stamps_needed()) */
        struct stamp_report stamps[_STAMP_MAX];
        bool have_record;     /* the record of future times was looked for */
        struct record record; /* its entries, or why there are none (record.error) */
        uint64_t bytes_read;  /* from the device in all, as libext2fs counts them: for -v */
};

struct evidence {
        struct device_report *devices;
        size_t n_devices;
        struct candidate *candidates; /* point into devices[].path: keep devices while in use */
        size_t n_candidates;
};

struct gather_config {
        char *const *devices; /* --device arguments; when any are given nothing else is searched */
        size_t n_devices;
        /* The kernel command line, read by the caller, for root=; NULL: root= is not looked for. */
        const struct kernel_cmdline *cmdline;
        const char *mountinfo_path;  /* normally /proc/self/mountinfo */
        const char *fstab_path;      /* normally /etc/fstab */
        usec_t wait;                 /* how long to wait for a device to appear; 0: do not wait */
        const struct policy *window; /* journal commits outside [floor, not_after] are passed over */
        unsigned journal_budget;     /* journal blocks to read at most per device; 0: do not read journals */
        bool no_stamps;              /* do not look for stamp files */
        /*
         * The record of times in the future at the last sync: its path, or NULL not to read it;
         * on_root: on each device's filesystem (read live when it is the mounted /, else through
         * libext2fs), else on the running system.
         */
        const char *record_path;
        bool record_on_root;
};

/*
 * Reads every --device, or else the root filesystem found first through the
 * kernel command line, mountinfo and fstab, in that order: a source that
 * names no local ext2/3/4 device is recorded and the next is tried. Every
 * device tried is recorded in ev->devices, readable or not; the times of the
 * readable ones become ev->candidates: their superblock times, the newest
 * plausible commit of their journal, and their stamp files (each device
 * gathered stands for the root filesystem). A time that the record lists
 * (same filesystem, source and value) is marked future_at_sync.
 * Returns 0 (even if nothing could be read), or -ENOMEM.
 */
int gather(const struct gather_config *config, struct evidence *ev);

void evidence_free(struct evidence *ev);

/* The source name of a journal's commit time. */
#define JOURNAL_SOURCE "journal:last_commit"

/* The commit of d's journal that is its candidate: the newest plausible, else the newest; or NULL. */
const struct jbd2_commit *journal_candidate(const struct device_report *d);

/* Number of devices that could be read. */
size_t evidence_devices_read(const struct evidence *ev);

/* "--device", "root= on the kernel command line", ... */
const char *origin_to_text(enum origin o);
/* "option", "cmdline", "mountinfo", "fstab" */
const char *origin_to_string(enum origin o);
