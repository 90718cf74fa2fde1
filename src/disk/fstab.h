/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fstab: the filesystems a system mounts at boot, as its /etc/fstab lists them */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

/* Larger than any real fstab: a larger file is read this far. */
#define FSTAB_MAX_BYTES (64 * 1024)
/* Entries kept at most; more are counted in fstab.dropped. */
#define FSTAB_MAX_ENTRIES 64

struct fstab_entry {
        char *spec;   /* "UUID=...", "/dev/mmcblk0p3", "tmpfs", "server:/export" (octal escapes decoded) */
        char *dir;    /* the mount point, made canonical ("/var", never "/var/"); NULL when not absolute */
        char *fstype; /* "ext4", "auto", "none", ... */
        unsigned line;
        bool noauto;    /* "noauto": not mounted at boot */
        bool nofail;    /* "nofail": the boot does not wait for it */
        bool bind;      /* "bind", "rbind": a directory mounted elsewhere, not a device */
        bool read_only; /* "ro" */
        bool netdev;    /* "_netdev": a device on the network (iSCSI, NBD) */
};

struct fstab {
        struct fstab_entry *entries;
        size_t n;
        size_t dropped; /* entries past FSTAB_MAX_ENTRIES */
};

/* Why an entry is not read as a local ext2/3/4 filesystem mounted at boot (FSTAB_READ: it is). */
enum fstab_skip {
        FSTAB_READ,
        FSTAB_ROOT,       /* the entry for /, which is found and read as the root */
        FSTAB_NOAUTO,     /* not mounted at boot */
        FSTAB_BIND,       /* a bind mount */
        FSTAB_NETWORK,    /* _netdev, or a spec that names no local device */
        FSTAB_NOT_EXT,    /* of another type (swap, vfat, tmpfs, auto, ...) */
        FSTAB_NOT_DEVICE, /* a spec that names no device by path or tag */
        FSTAB_NO_DIR,     /* its mount point is not an absolute path of plain names */
        _FSTAB_SKIP_MAX,
};

/*
 * Parses fstab text (read from a disk: any bytes) with the C library's
 * getmntent_r(), which decodes "\040" and the like. Lines past FSTAB_MAX_BYTES
 * are not looked at; a line too long for a mount entry is passed over.
 * 0 or -ENOMEM; *ret is to be freed with fstab_done() either way.
 */
_must_check_ int fstab_parse(const char *text, size_t size, struct fstab *ret);

/* The same from a file of the running system. 0, -ENOMEM, or -errno of reading it. */
_must_check_ int fstab_read_file(const char *path, struct fstab *ret);

void fstab_done(struct fstab *f);

enum fstab_skip fstab_entry_skip(const struct fstab_entry *e);

/* The first entry whose mount point is dir ("/"), as mount(8) takes it; or NULL. */
const struct fstab_entry *fstab_find(const struct fstab *t, const char *dir);

/* For people: "not mounted at boot (noauto)", ... */
const char *fstab_skip_to_text(enum fstab_skip s);

/*
 * Makes an absolute path canonical in place: "//var/./lib/" is "/var/lib". false when it is not
 * absolute, or when it holds ".." and dotdot is false; with dotdot, ".." goes back one name
 * ("/var/lib/systemd/../private" is "/var/lib/private"): right when the names before it are
 * directories, not links, as a walk that follows each link as it meets it makes them.
 */
bool path_make_canonical(char *path, bool dotdot);
