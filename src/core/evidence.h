/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* evidence: what gather found on the devices, as data, and the questions asked of it */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/decide.h"
#include "core/record.h"
#include "disk/journal.h"
#include "disk/stamps.h"
#include "disk/superblock.h"

/* Where a device came from, in the order they are tried. */
enum origin {
        ORIGIN_OPTION,    /* --device */
        ORIGIN_ROOT,      /* --root: the root device as the initramfs found it */
        ORIGIN_CMDLINE,   /* root= on the kernel command line */
        ORIGIN_MOUNTINFO, /* the filesystem mounted at / */
        ORIGIN_FSTAB,     /* the entry for / in fstab */
        ORIGIN_MOUNT,     /* an entry of the root's fstab: another filesystem mounted at boot */
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
         * Where it is mounted at boot: "/" for the root the search found, the fstab entry's
         * directory for ORIGIN_MOUNT ("/var"); NULL for --device, each device then standing for a
         * root of its own. A file's path is looked up on the device with the longest mount_dir
         * that holds it.
         */
        char *mount_dir;
        /*
         * Never written at boot, as far as can be told: mounted read-only now (its superblock's
         * flag) or not mounted yet, and configured so (fstab's "ro"; for the root, an overlay root
         * on the kernel command line, or "ro" there with no fstab entry for /).
         */
        bool read_only;
        /*
         * What explains an error (see device_problem()): whether it was tried with effective user ID
         * 0; for one not found (-ENOENT, -ETIMEDOUT), why libblkid could not search for it
         * (blk_unavailable()), else NULL; for one that did not appear in time (-ETIMEDOUT), how
         * long it was waited for and where that wait was set (gather_config's, borrowed).
         */
        bool as_root;
        const char *no_blkid;
        usec_t waited;
        const char *wait_origin;
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
        /* Where the table of the other filesystems was read ("/etc/fstab on /dev/vda"), or NULL. */
        char *mounts_from;
        char *deployment;             /* OSTree: the deployment read as / on the root's disk, or NULL */
        struct candidate *candidates; /* point into devices[].path: keep devices while in use */
        size_t n_candidates;
};

void evidence_free(struct evidence *ev);

/* The commit of d's journal that is its candidate: the newest plausible, else the newest; or NULL. */
const struct jbd2_commit *journal_candidate(const struct device_report *d);

/* Number of devices that could be read. */
size_t evidence_devices_read(const struct evidence *ev);

/* Whether some device was read, and every one read is never written at boot (read_only). */
bool evidence_read_only(const struct evidence *ev);

/* Whether a device that was read has this filesystem UUID. */
bool evidence_has_uuid(const struct evidence *ev, const char *uuid);

/* "--device", "root= on the kernel command line", ... */
const char *origin_to_text(enum origin o);
/* "option", "cmdline", "mountinfo", "fstab" */
const char *origin_to_string(enum origin o);

/*
 * Whether the record's entry e is still among the times read: 1, 0, or -1 when it is of a
 * filesystem that was not read (one record serves the root and the filesystems of its fstab).
 */
int evidence_on_disk(const struct evidence *ev, const struct record_entry *e);
