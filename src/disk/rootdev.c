/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rootdev: where the root filesystem is (kernel command line, mountinfo, fstab) and its device path */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "basic/cleanup.h"
#include "basic/file-util.h"
#include "basic/log.h"
#include "basic/stat-util.h"
#include "basic/utf8.h"
#include "disk/blk.h"
#include "disk/blockdevs.h"
#include "disk/rootdev.h"

static const char *const tags[] = { "UUID", "PARTUUID", "LABEL", "PARTLABEL" };

/* Returns the tag name ("UUID", ...) that spec starts with, followed by '='; NULL if none. */
static const char *spec_tag(const char *spec, const char **ret_value)
{
        for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
                size_t n = strlen(tags[i]);
                if (strncmp(spec, tags[i], n) == 0 && spec[n] == '=') {
                        if (ret_value)
                                *ret_value = spec + n + 1;
                        return tags[i];
                }
        }
        return NULL;
}

/* Parses "MAJ:MIN" (decimal) or the kernel's bare hexadecimal device number. */
static bool parse_devno(const char *s, dev_t *ret)
{
        unsigned maj, min;
        char *end;
        int n = -1;

        if (sscanf(s, "%u:%u%n", &maj, &min, &n) == 2 && n > 0 && s[n] == '\0') {
                *ret = makedev(maj, min);
                return true;
        }
        if (*s == '\0' || strspn(s, "0123456789abcdefABCDEF") != strlen(s) || strlen(s) > 8)
                return false;
        /* The kernel's new_decode_dev(): major in bits 8-19, minor in bits 0-7 and 20-31. */
        unsigned long v = strtoul(s, &end, 16);
        *ret = makedev((v & 0xfff00) >> 8, (v & 0xff) | ((v >> 12) & 0xfff00));
        return true;
}

static bool is_kernel_name(const char *s)
{
        /* "mmcblk0p2", "sda2", "nvme0n1p2", "vda": what the kernel accepts without /dev/. */
        if (!isalpha((unsigned char)*s))
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && *s != '!' && *s != '-' && *s != '_')
                        return false;
        return true;
}

enum spec_kind spec_classify(const char *spec)
{
        const char *value;
        const char *tag = spec_tag(spec, &value);
        dev_t devno;

        if (tag) {
                /* The kernel's PARTUUID=<uuid>/PARTNROFF=<n> names a neighbour partition. */
                if (*value == '\0' || strchr(value, '/'))
                        return SPEC_UNSUPPORTED;
                return SPEC_TAG;
        }
        if (strcmp(spec, "/dev/nfs") == 0 || strcmp(spec, "/dev/cifs") == 0 ||
                strncmp(spec, "nfs", 3) == 0 || strncmp(spec, "cifs", 4) == 0 ||
                strncmp(spec, "iscsi:", 6) == 0 || strncmp(spec, "nbd:", 4) == 0 ||
                strcmp(spec, "dhcp") == 0 || strcmp(spec, "dhcp6") == 0)
                return SPEC_NETWORK;
        /* "//server/share" (cifs) and "server:/export" (nfs) */
        if (strncmp(spec, "//", 2) == 0)
                return SPEC_NETWORK;
        if (spec[0] == '/')
                return SPEC_PATH;
        if (strstr(spec, ":/"))
                return SPEC_NETWORK;
        /* A bare hexadecimal number like "b302" also looks like a name; the kernel tries the number first.
         */
        if (parse_devno(spec, &devno))
                return SPEC_DEVNO;
        if (is_kernel_name(spec))
                return SPEC_KERNEL_NAME;
        return SPEC_UNSUPPORTED;
}

/* Undoes mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape_octal(char *s)
{
        char *w = s;

        for (; *s; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
                        s[3] >= '0' && s[3] <= '7') {
                        *w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
                        s += 3;
                } else
                        *w++ = *s;
        }
        *w = '\0';
}

int mountinfo_find_root(const char *path, dev_t *ret_devno, char **ret_fstype, char **ret_source)
{
        _cleanup_free_ char *text = NULL, *fstype = NULL, *source = NULL;
        char *line, *save = NULL;
        dev_t devno = 0;
        bool found = false;
        int r;

        r = read_small_file(path, &text);
        if (r < 0)
                return r;

        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                /* id parent maj:min root mountpoint options [optional...] - fstype source superoptions */
                unsigned maj, min;
                char mountpoint[4096];
                char *sep;

                if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mountpoint) != 3)
                        continue;
                unescape_octal(mountpoint);
                if (strcmp(mountpoint, "/") != 0)
                        continue;
                sep = strstr(line, " - ");
                if (!sep)
                        continue;

                char type[256] = "", src[4096] = "";
                if (sscanf(sep + 3, "%255s %4095s", type, src) < 1)
                        continue;
                unescape_octal(src);

                free(fstype);
                free(source);
                fstype = strdup(type);
                source = strdup(src);
                if (!fstype || !source)
                        return -ENOMEM;
                devno = makedev(maj, min);
                found = true;
        }

        if (!found)
                return 0;
        *ret_devno = devno;
        *ret_fstype = TAKE_PTR(fstype);
        *ret_source = TAKE_PTR(source);
        return 1;
}

int mountinfo_superblock_read_only(const char *path, dev_t devno)
{
        _cleanup_free_ char *text = NULL;
        char *line, *save = NULL;
        int r;

        r = read_small_file(path, &text);
        if (r < 0)
                return r;
        r = -ENOENT;
        for (line = strtok_r(text, "\n", &save); line && r == -ENOENT; line = strtok_r(NULL, "\n", &save)) {
                /* id parent maj:min root mountpoint options [optional...] - fstype source superoptions */
                char super[16] = "";
                unsigned maj, min;
                const char *sep;

                if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 || makedev(maj, min) != devno ||
                        !(sep = strstr(line, " - ")) || sscanf(sep + 3, "%*s %*s %15[^,]", super) != 1)
                        continue;
                if (strcmp(super, "ro") == 0)
                        r = 1;
                else if (strcmp(super, "rw") == 0)
                        r = 0;
        }
        return r;
}

int devno_to_path(dev_t devno, char **ret_path)
{
        char *p = blockdev_node(devno);

        if (p) {
                log_debug("%u:%u: sysfs names %s", major(devno), minor(devno), p);
                *ret_path = p;
                return 0;
        }
        p = blk_devno_to_devname(devno);
        if (!p)
                return -ENODEV;
        log_debug("%u:%u: libblkid names %s", major(devno), minor(devno), p);
        *ret_path = p;
        return 0;
}

int udev_encode_name(const char *value, char *buf, size_t size)
{
        const unsigned char *s = (const unsigned char *)value;
        size_t j = 0;

        while (*s) {
                bool safe = *s < 0x80 && (isalnum(*s) || strchr("#+-.:=@_", *s));
                /* ASCII that is not safe is escaped, as any byte outside valid UTF-8. */
                size_t n = safe ? 1 : *s < 0x80 ? 0 : utf8_sequence(s);

                if (n == 0) {
                        if (j + 4 >= size)
                                return -ENAMETOOLONG;
                        j += (size_t)snprintf(buf + j, size - j, "\\x%02x", *s++);
                        continue;
                }
                if (j + n >= size)
                        return -ENAMETOOLONG;
                memcpy(buf + j, s, n);
                j += n;
                s += n;
        }
        if (j >= size)
                return -ENAMETOOLONG;
        buf[j] = '\0';
        return 0;
}

/*
 * A device-mapper device's own name, /dev/mapper/<name>, as libblkid names
 * them, rather than the kernel's dm-N. path itself otherwise.
 */
static char *mapper_name(char *path)
{
        _cleanup_free_ char *name = NULL;
        char sys[64], *p;
        struct file_stat st;
        const char *base = strrchr(path, '/') + 1;

        if (strncmp(base, "dm-", 3) != 0 || strlen(base) > 16)
                return path;
        snprintf(sys, sizeof(sys), "/sys/block/%s/dm/name", base);
        if (read_small_file(sys, &name) < 0 ||
                asprintf(&p, "/dev/mapper/%.*s", (int)strcspn(name, "\n"), name) < 0)
                return path;
        if (file_stat(path, &st) < 0 || !blockdev_is(p, st.rdev)) {
                free(p);
                return path;
        }
        free(path);
        return p;
}

/*
 * udev's link for a tag, /dev/disk/by-uuid/<value> and so on (the value
 * encoded as udev names links), resolved to the device. NULL if there is no
 * such link or no memory.
 */
static char *tag_from_udev(const char *tag, const char *value)
{
        char link[PATH_MAX], name[NAME_MAX + 1];
        struct file_stat st;
        char *p;

        if (udev_encode_name(value, name, sizeof(name)) < 0 || strcmp(name, ".") == 0 ||
                strcmp(name, "..") == 0)
                return NULL;
        if ((size_t)snprintf(link, sizeof(link), "/dev/disk/by-%s/%s", tag, name) >= sizeof(link))
                return NULL;
        for (char *c = link + strlen("/dev/disk/by-"); *c != '/'; c++)
                *c = (char)tolower((unsigned char)*c);
        if (file_stat(link, &st) < 0 || !S_ISBLK(st.mode))
                return NULL;
        p = realpath(link, NULL);
        if (!p)
                p = strdup(link);
        return p ? mapper_name(p) : NULL;
}

/* One attempt at finding the device; -ENOENT if it is not there (yet). scan: libblkid may search for a tag.
 */
static int resolve_once(const char *spec, enum spec_kind kind, bool scan, char **ret)
{
        struct file_stat st;
        char *p = NULL;
        int r;

        switch (kind) {
        case SPEC_PATH:
        case SPEC_KERNEL_NAME:
                if (kind == SPEC_PATH)
                        p = strdup(spec);
                else if (asprintf(&p, "/dev/%s", spec) < 0)
                        p = NULL;
                if (!p)
                        return -ENOMEM;
                /* In kernel names '!' stands for '/': "cciss!c0d0p1" is /dev/cciss/c0d0p1. */
                if (kind == SPEC_KERNEL_NAME)
                        for (char *c = p; *c; c++)
                                if (*c == '!')
                                        *c = '/';
                r = file_stat(p, &st);
                if (r < 0) {
                        free(p);
                        return r;
                }
                break;

        case SPEC_DEVNO: {
                dev_t devno = 0;
                parse_devno(spec, &devno);
                if (devno_to_path(devno, &p) < 0)
                        return -ENOENT;
                break;
        }

        case SPEC_TAG: {
                const char *value;
                const char *tag = spec_tag(spec, &value);
                char v[256];

                /* blkid and udev report partition UUIDs in lower case; the kernel ignores case. */
                snprintf(v, sizeof(v), "%s", value);
                if (strcmp(tag, "PARTUUID") == 0)
                        for (char *c = v; *c; c++)
                                *c = (char)tolower((unsigned char)*c);
                /*
                 * udev's links first, as libblkid itself looks (it is not loaded
                 * then); libblkid's scan of the block devices when udev has none.
                 */
                p = tag_from_udev(tag, v);
                if (p) {
                        log_debug("%s: udev link names %s", spec, p);
                        break;
                }
                /*
                 * Then the block devices the kernel lists, by their partition
                 * tables or ext superblocks: libblkid cannot probe a node dated
                 * after 2038 where time_t has 32 bits.
                 */
                if (scan)
                        p = blockdevs_find_tag(tag, v);
                if (p) {
                        log_debug("%s: found %s among the kernel's block devices", spec, p);
                        break;
                }
                if (scan)
                        p = blk_evaluate_tag(tag, v);
                if (!p)
                        return -ENOENT;
                log_debug("%s: libblkid found %s", spec, p);
                break;
        }

        default:
                return -EPROTONOSUPPORT;
        }

        *ret = p;
        return 0;
}

int rootdev_resolve(const char *spec, enum spec_kind kind, usec_t deadline, char **ret_path)
{
        _cleanup_free_ char *partitions = NULL;
        usec_t last_scan = 0;
        /* Timed out, not just not there, when there was a wait: even if the first search outlasted it
         * (every block device probed, under emulation or on a slow card), and nothing slept. */
        bool waited = now_monotonic() < deadline;
        int r;

        if (kind == SPEC_NETWORK || kind == SPEC_UNSUPPORTED)
                return -EPROTONOSUPPORT;

        for (;;) {
                usec_t now = now_monotonic();
                bool look = true;

                /*
                 * Searching for a tag with libblkid means probing every block
                 * device. While waiting, search again only when the kernel's list
                 * of block devices changed (or after a second, for media that
                 * changed under the same name); reading /proc/partitions costs no
                 * disk I/O. udev's link is looked for every time: one statx().
                 */
                if (kind == SPEC_TAG) {
                        char *current = NULL;
                        if (read_small_file("/proc/partitions", &current) < 0)
                                current = NULL;
                        look = !partitions || !current || strcmp(partitions, current) != 0 ||
                                now - last_scan >= USEC_PER_SEC;
                        free(partitions);
                        partitions = current;
                        if (look)
                                last_scan = now;
                }

                r = resolve_once(spec, kind, look, ret_path);
                if (r != -ENOENT && r != -ENXIO && r != -ENODEV)
                        return r;
                if (!wait_a_moment(deadline))
                        return waited ? -ETIMEDOUT : -ENOENT;
        }
}
