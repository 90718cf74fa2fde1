/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gather-mounts: which filesystems are read (the root, found by --root, root=, mountinfo or fstab,
 * and the local ext filesystems of its fstab), and which of them holds a path
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "basic/cleanup.h"
#include "basic/cmdline.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "core/gather-device.h"
#include "core/gather-mounts.h"
#include "disk/fstab.h"
#include "disk/lookup.h"
#include "disk/rootdev.h"
#include "disk/superblock.h"

/* Whether dir ("/var", or "/") holds path ("/var/lib/x"): the path itself or one under it. */
static bool dir_holds(const char *dir, const char *path)
{
        size_t n = strlen(dir);

        if (strcmp(dir, "/") == 0)
                return path[0] == '/';
        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

size_t path_holder(const struct gather_state *g, size_t self, const char *path, char *inner, size_t size)
{
        const struct evidence *ev = g->ev;
        size_t holder = SIZE_MAX, best = 0;
        const char *rest = path;
        int n;

        bool own = !ev->devices[self].mount_dir;

        if (own)
                holder = self;
        for (size_t i = 0; !own && i < ev->n_devices; i++) {
                const char *dir = ev->devices[i].mount_dir;
                size_t len = dir ? strlen(dir) : 0;

                /* The first of two entries for one directory, as the first is what the path is found in. */
                if (!dir || !dir_holds(dir, path) || (holder != SIZE_MAX && len <= best))
                        continue;
                holder = i;
                best = len;
                rest = strcmp(dir, "/") == 0 ? path : path + len;
        }
        if (holder == SIZE_MAX || !ev->devices[holder].have_sb)
                return SIZE_MAX;
        /* An OSTree root read from its disk: / is the deployment, /var the stateroot's. */
        if (holder == g->deployment_of && g->deployment && !g->open[holder].live)
                n = dir_holds("/var", path) ? snprintf(inner, size, "%s%s", g->deployment_var, path + 4)
                                            : snprintf(inner, size, "%s%s", g->deployment, path);
        else
                n = snprintf(inner, size, "%s", rest);
        return n >= 0 && (size_t)n < size ? holder : SIZE_MAX;
}

/* Symbolic links followed at most in a lookup through the mounts (the kernel's limit is 40). */
#define PLACE_MAX_LINKS 8

/*
 * Whether the name at prefix (its path on the running system; inner on device h) is a symbolic
 * link: 1 with its target in buf, 0, or -errno (-ENOENT when it is not there). Live, the running
 * system answers (readlink()); else the disk, through libext2fs.
 */
static int link_of(const struct gather_state *g, size_t h, const char *prefix, const char *inner, char *buf,
        size_t size, const char **ret_reason)
{
        struct file_read f = { 0 };
        ssize_t n;
        int r;

        if (g->open[h].live) {
                n = readlink(prefix, buf, size - 1);
                if (n < 0)
                        return errno == EINVAL ? 0 : -errno;
                if ((size_t)n >= size - 1)
                        return -ENAMETOOLONG;
                buf[n] = '\0';
                return 1;
        }
        r = lookup_link_at(g->open[h].fs, inner[0] ? inner : "/", buf, size, &f);
        *ret_reason = f.reason;
        return r;
}

/*
 * The path that replaces path once the link whose name ends at path[end] is followed to target:
 * the target (from the link's directory when relative), then the rest of path. false when it
 * does not fit, or the target is empty.
 */
static bool follow(char *path, size_t size, size_t end, const char *target)
{
        char next[PATH_MAX];
        size_t dir = end;
        int n;

        while (dir > 0 && path[dir - 1] != '/')
                dir--;
        if (target[0] == '/')
                n = snprintf(next, sizeof(next), "%s%s", target, path + end);
        else
                n = snprintf(next, sizeof(next), "%.*s%s%s", (int)dir, path, target, path + end);
        if (n < 0 || (size_t)n >= sizeof(next) || (size_t)n >= size || !target[0])
                return false;
        memcpy(path, next, (size_t)n + 1);
        return path_make_canonical(path, true);
}

int path_place(const struct gather_state *g, size_t self, const char *path, struct place *ret)
{
        const struct evidence *ev = g->ev;
        char target[PATH_MAX];
        unsigned links = 0;
        size_t end;

        ret->device = SIZE_MAX;
        ret->inner = NULL;
        ret->error = 0;
        ret->reason = NULL;
        if ((size_t)snprintf(ret->path, sizeof(ret->path), "%s", path) >= sizeof(ret->path))
                return ret->error = -ENAMETOOLONG;
        /* A device of --device is a root of its own: libext2fs follows the links within it. */
        if (!ev->devices[self].mount_dir) {
                ret->device = self;
                ret->inner = ret->path;
                return 0;
        }
        (void)ev;
restart:
        /* Each name of the path in turn: a link among them is followed, wherever it leads. */
        for (end = 1; ret->path[end - 1] != '\0'; end++) {
                char prefix[PATH_MAX], inner[PATH_MAX];
                size_t h;
                int r;

                if (ret->path[end] != '/' && ret->path[end] != '\0')
                        continue;
                snprintf(prefix, sizeof(prefix), "%.*s", (int)end, ret->path);
                h = path_holder(g, self, prefix, inner, sizeof(inner));
                if (h == SIZE_MAX)
                        break;
                r = link_of(g, h, prefix, inner, target, sizeof(target), &ret->reason);
                if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                        return ret->error = r;
                if (r <= 0) {
                        if (r < 0)
                                break; /* not there: the lookup of the file says so */
                        if (ret->path[end] == '\0')
                                break;
                        continue;
                }
                if (++links > PLACE_MAX_LINKS) {
                        ret->reason = "more than 8 symbolic links on the way";
                        return ret->error = -ELOOP;
                }
                log_debug("%s: a symbolic link to %s, followed", prefix, target);
                if (!follow(ret->path, sizeof(ret->path), end, target)) {
                        ret->reason = "a symbolic link whose target is empty, or too long";
                        return ret->error = -ENAMETOOLONG;
                }
                goto restart;
        }
        ret->device = path_holder(g, self, ret->path, ret->inner_path, sizeof(ret->inner_path));
        ret->inner = ret->inner_path;
        return 0;
}

/* The root's own /etc/fstab, from its disk. 0, -ENOMEM, or -errno (ignored). */
static int read_root_fstab(struct gather_state *g, size_t root, struct fstab *ret, char **ret_from)
{
        const struct device_report *d = g->ev->devices + root;
        _cleanup_free_ char *text = NULL;
        struct file_read f;
        int r;

        if (d->sb.unknown_features) {
                log_debug("%s: unknown incompatible features: its /etc/fstab not read", d->path);
                return -EOPNOTSUPP;
        }
        text = malloc(FSTAB_MAX_BYTES);
        if (!text)
                return -ENOMEM;
        char inner[PATH_MAX];
        if (path_holder(g, root, "/etc/fstab", inner, sizeof(inner)) != root)
                return -ENOENT;
        r = lookup_read_file(g->open[root].fs, inner, text, FSTAB_MAX_BYTES, &f);
        log_debug("%s: %s: %s, %u block(s) asked for", d->path, inner,
                r == 0             ? "read"
                        : f.reason ? f.reason
                                   : strerror(-r),
                f.blocks);
        if (r < 0)
                return r;
        r = fstab_parse(text, f.got, ret);
        if (r < 0)
                return r;
        return asprintf(ret_from, "%s on %s", inner, d->path) < 0 ? -ENOMEM : 0;
}

/*
 * The table of the filesystems mounted at boot: --fstab (when that file is not there, as in an
 * initramfs built without it, what follows); else /etc/fstab, of the running system when the
 * root is the mounted /, else from the root's disk. 0, -ENOMEM, or -errno (ignored).
 */
static int read_mounts_table(struct gather_state *g, size_t root, struct fstab *ret)
{
        const struct gather_config *config = g->config;
        const char *path = NULL;
        char *from = NULL;
        int r = -ENOENT;

        *ret = (struct fstab){ 0 };
        if (config->mounts_fstab) {
                r = fstab_read_file(path = config->mounts_fstab, ret);
                if (r == -ENOENT)
                        log_debug("%s: not there: the root's /etc/fstab read instead", path);
        }
        if (r == -ENOENT && g->open[root].live && config->fstab_path)
                r = fstab_read_file(path = config->fstab_path, ret);
        if (r == -ENOENT && !g->open[root].live)
                r = read_root_fstab(g, root, ret, &from);
        else if (r == 0 && !(from = strdup(path)))
                r = -ENOMEM;
        if (r < 0) {
                if (r != -ENOMEM)
                        log_debug_errno(
                                r, "No table of the filesystems mounted at boot (%m): the root alone read");
                return r;
        }
        g->ev->mounts_from = from;
        if (ret->dropped)
                log_debug("%s: %zu entries past the first %d passed over", from, ret->dropped,
                        FSTAB_MAX_ENTRIES);
        return 0;
}

/* Whether the kernel command line asks for an overlay over the root (overlayroot, Raspberry Pi OS). */
static bool cmdline_overlay(const struct kernel_cmdline *cmdline)
{
        _cleanup_free_ char *v = NULL, *boot = NULL;

        if (!cmdline || !cmdline->text)
                return false;
        if (cmdline_get(cmdline->text, "overlayroot", &v) > 0 && v[0] && strcmp(v, "disabled") != 0)
                return true;
        return cmdline_get(cmdline->text, "boot", &boot) > 0 && strcmp(boot, "overlay") == 0;
}

bool never_written(const struct gather_config *config, const struct device_report *d, bool configured_ro)
{
        struct file_stat st;
        int r = -ENOENT;

        if (config->mountinfo_path && file_stat(d->path, &st) == 0 && S_ISBLK(st.mode))
                r = mountinfo_superblock_read_only(config->mountinfo_path, st.rdev);
        if (r == 0)
                return false; /* writable now */
        return d->mount_dir ? configured_ro : r == 1;
}

/* Whether the root is configured never to be written (table_read: the table was): see
 * device_report.read_only. */
static bool root_configured_ro(
        const struct gather_config *config, const struct fstab *table, bool table_read)
{
        _cleanup_free_ char *ro = NULL;

        if (cmdline_overlay(config->cmdline))
                return true;
        if (!table_read)
                return false; /* no table: not known */
        const struct fstab_entry *e = fstab_find(table, "/");
        if (e)
                return e->read_only;
        /* No entry for / in the table: it stays as the kernel mounted it. */
        return config->cmdline && config->cmdline->text && cmdline_get(config->cmdline->text, "ro", &ro) > 0;
}

/*
 * OSTree: the deployment that ostree= on the kernel command line boots ("/ostree/boot.1/OS/HASH/0",
 * links to "/ostree/deploy/OS/deploy/CHECKSUM.0" on the root's disk), which is / at run time, its
 * /var the stateroot's "/ostree/deploy/OS/var". Only for a root read from its disk: mounted, the
 * running system resolves the paths itself. 0 or -ENOMEM.
 */
static int find_deployment(struct gather_state *g, size_t root)
{
        const struct kernel_cmdline *cmdline = g->config->cmdline;
        _cleanup_free_ char *value = NULL;
        struct place *p = &g->scratch;
        char os[256], last[256];
        int n = -1;

        if (!cmdline || !cmdline->text || g->open[root].live)
                return 0;
        n = cmdline_get(cmdline->text, "ostree", &value);
        if (n <= 0 || value[0] != '/')
                return n < 0 ? -ENOMEM : 0;
        n = -1;
        if (path_place(g, root, value, p) < 0 || p->device != root) {
                log_debug("ostree=%s: not found on %s: the root read as it is", value,
                        g->ev->devices[root].path);
                return 0;
        }
        if (sscanf(p->path, "/ostree/deploy/%255[^/]/deploy/%255[^/]%n", os, last, &n) != 2 || n < 0 ||
                p->path[n] != '\0') {
                log_debug("ostree=%s: %s is no deployment: the root read as it is", value, p->path);
                return 0;
        }
        g->deployment_of = root;
        g->deployment = strdup(p->path);
        if (!g->deployment || asprintf(&g->deployment_var, "/ostree/deploy/%s/var", os) < 0)
                return -ENOMEM;
        log_debug("ostree=%s: the deployment %s, its /var %s", value, g->deployment, g->deployment_var);
        return 0;
}

int gather_mounts(struct gather_state *g, size_t root, usec_t deadline)
{
        _cleanup_(fstab_done) struct fstab table = { 0 };
        struct evidence *ev = g->ev;
        int r;

        r = find_deployment(g, root);
        if (r < 0)
                return r;
        r = read_mounts_table(g, root, &table);
        if (r == -ENOMEM)
                return r;
        ev->devices[root].read_only = never_written(
                g->config, ev->devices + root, root_configured_ro(g->config, &table, r == 0));
        for (size_t i = 0; i < table.n; i++) {
                const struct fstab_entry *e = table.entries + i;
                enum fstab_skip why = fstab_entry_skip(e);
                size_t n = ev->n_devices;

                if (why != FSTAB_READ) {
                        log_debug("%s: %s on %s (%s): %s", ev->mounts_from, e->spec, e->dir ? e->dir : "?",
                                e->fstype, fstab_skip_to_text(why));
                        continue;
                }
                r = try_spec(g, ORIGIN_MOUNT, e->spec, e->fstype, e->dir, e->nofail ? 0 : deadline);
                if (r < 0)
                        return r;
                if (ev->n_devices > n && ev->devices[n].have_sb)
                        ev->devices[n].read_only = never_written(g->config, ev->devices + n, e->read_only);
        }
        return 0;
}

static int root_from_option(struct gather_state *g, usec_t deadline)
{
        return try_spec(g, ORIGIN_ROOT, g->config->root, NULL, "/", deadline);
}

static int root_from_cmdline(struct gather_state *g, usec_t deadline)
{
        const struct kernel_cmdline *cmdline = g->config->cmdline;
        char *spec = NULL;
        int r;

        if (!cmdline->text) {
                log_debug_errno(cmdline->error, "Cannot read %s: %m, ignoring", cmdline->path);
                return 0;
        }
        r = cmdline_find_root(cmdline->text, &spec);
        if (r == 0)
                log_debug("%s: no root=", cmdline->path);
        if (r <= 0)
                return r;
        r = try_spec(g, ORIGIN_CMDLINE, spec, NULL, "/", deadline);
        free(spec);
        return r;
}

static int root_from_mountinfo(struct gather_state *g, usec_t deadline)
{
        const struct gather_config *config = g->config;
        _cleanup_free_ char *fstype = NULL, *source = NULL;
        char name[32];
        dev_t devno;
        int r;

        r = mountinfo_find_root(config->mountinfo_path, &devno, &fstype, &source);
        if (r < 0) {
                log_debug_errno(r, "Cannot read %s: %m, ignoring", config->mountinfo_path);
                return 0;
        }
        if (r == 0) {
                log_debug("%s: nothing is mounted at /", config->mountinfo_path);
                return 0;
        }
        log_debug("%s: / is %s (%s), device %u:%u", config->mountinfo_path, source, fstype, major(devno),
                minor(devno));

        /* Major 0: tmpfs, overlay, nfs, the initramfs' rootfs; no block device behind it. */
        if (major(devno) == 0)
                return add_skipped(g, ORIGIN_MOUNTINFO, source, fstype);
        /* By number, not by source: a root mounted by the kernel shows as "/dev/root". */
        snprintf(name, sizeof(name), "%u:%u", major(devno), minor(devno));
        return try_spec(g, ORIGIN_MOUNTINFO, name, fstype, "/", deadline);
}

static int root_from_fstab(struct gather_state *g, usec_t deadline)
{
        const struct gather_config *config = g->config;
        _cleanup_(fstab_done) struct fstab table = { 0 };
        const struct fstab_entry *e;
        int r;

        r = fstab_read_file(config->fstab_path, &table);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_debug_errno(r, "Cannot read %s: %m, ignoring", config->fstab_path);
                return 0;
        }
        e = fstab_find(&table, "/");
        if (!e) {
                log_debug("%s: no entry for /", config->fstab_path);
                return 0;
        }
        log_debug("%s: / is %s (%s)", config->fstab_path, e->spec, e->fstype);

        /* fstab names devices by tag or absolute path; "tmpfs", "overlay", "server:/x" are not devices. */
        enum spec_kind kind = spec_classify(e->spec);
        if (kind == SPEC_TAG || kind == SPEC_PATH)
                return try_spec(g, ORIGIN_FSTAB, e->spec, e->fstype, "/", deadline);
        return add_skipped(g, ORIGIN_FSTAB, e->spec, e->fstype);
}

int gather_root(struct gather_state *g, usec_t deadline, size_t *ret_root)
{
        const struct gather_config *config = g->config;
        int r = 0;

        if (config->root)
                r = root_from_option(g, deadline);
        if (r == 0 && config->cmdline)
                r = root_from_cmdline(g, deadline);
        if (r == 0 && config->mountinfo_path)
                r = root_from_mountinfo(g, deadline);
        if (r == 0 && config->fstab_path)
                r = root_from_fstab(g, deadline);
        *ret_root = r > 0 ? g->ev->n_devices - 1 : SIZE_MAX;
        return r < 0 ? r : 0;
}
