/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report-device: the sentences about one device that `clockfix status` and the log share */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/report-device.h"
#include "disk/rootdev.h"

const char *device_report_name(const struct device_report *d)
{
        return d->path ? d->path : d->spec;
}

char *device_notes(const struct device_report *d, char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        if (!d->have_sb)
                return buf;
        if (d->sb.checksum_bad)
                n += (size_t)snprintf(buf + n, size - n,
                        "%ssuperblock checksum does not match (corrupt, or torn by a power cut): its times are used "
                        "only where plausible; run e2fsck",
                        n ? "; " : "");
        if (n < size && d->sb.truncated)
                n += (size_t)snprintf(buf + n, size - n,
                        "%sfilesystem claims %" PRIu64 " bytes but the device has %" PRIu64
                        ": truncated image or wrong partition table?",
                        n ? "; " : "", d->sb.fs_bytes, d->sb.device_bytes);
        if (n < size && d->sb.unknown_features)
                snprintf(buf + n, size - n,
                        "%suses incompatible features this libext2fs does not know; its superblock times are read "
                        "anyway",
                        n ? "; " : "");
        return buf;
}

/*
 * A tag udev has no link for, or a device number with no node where sysfs names it, needs libblkid:
 * why it could not be searched for, or NULL when that is not the problem.
 */
static const char *problem_no_blkid(const struct device_report *d, char *buf, size_t size)
{
        enum spec_kind kind = d->spec ? spec_classify(d->spec) : SPEC_UNSUPPORTED;

        if (!d->no_blkid || (kind != SPEC_TAG && kind != SPEC_DEVNO))
                return NULL;
        snprintf(buf, size,
                kind == SPEC_TAG
                        ? "no udev link for it (/dev/disk/by-*) nor an ext superblock or partition table "
                          "that has it, and libblkid cannot search further: %s; name the root as /dev/NAME "
                          "or MAJOR:MINOR"
                        : "no device node where sysfs names it, and /dev cannot be searched: %s; is "
                          "devtmpfs mounted on /dev?",
                d->no_blkid);
        return buf;
}

/* The sentence for an error that needs no detail of the device, or NULL. */
static const char *problem_of_error(int error, bool as_root)
{
        switch (error) {
        case 0:
                return "ok";
        case -ENOENT:
                return "no such device or file (check the name, or give it time to appear with --wait SECONDS)";
        case -EACCES:
        case -EPERM:
                return as_root
                        ? "permission denied, to root too (a container or service sandbox that does not "
                          "let it read the device?)"
                        : "permission denied (run as root, or give this user read access to it)";
        case -EISDIR:
                return "is a directory, not a block device or filesystem image";
        case -ENOTBLK:
                return "is not a block device or filesystem image file";
        case -ENODATA:
                return "too small to hold an ext2/3/4 superblock (empty or cut short)";
        case -ENOMEDIUM:
                return "empty block device (no medium, or a loop device with nothing attached)";
        case -EREMOTE:
                return "holds an external journal (mke2fs -O journal_dev), not a filesystem: skipped (name the "
                       "device of the filesystem that uses it)";
        default:
                return NULL;
        }
}

char *device_problem(const struct device_report *d, char *buf, size_t size)
{
        const char *reason = d->reason;
        const char *text;

        if (problem_no_blkid(d, buf, size))
                return buf;
        if (d->error == -ETIMEDOUT) {
                char t[SECONDS_MAX];

                /* How long, and which setting said so: a wait too short, or a device that never comes. */
                snprintf(buf, size,
                        "did not appear within %s s (%s): is the driver or module for it loaded? check root= and "
                        "the device name",
                        format_seconds(t, d->waited), d->wait_origin ? d->wait_origin : "--wait");
                return buf;
        }
        text = problem_of_error(d->error, d->as_root);
        if (text) {
                snprintf(buf, size, "%s", text);
                return buf;
        }

        switch (d->error) {
        case -EMEDIUMTYPE:
                if (d->fstype)
                        snprintf(buf, size, "holds %s, not ext2/3/4: skipped", d->fstype);
                else
                        snprintf(buf, size, "no ext2/3/4 filesystem found (bad superblock magic)");
                break;
        case -EPROTONOSUPPORT:
                if (d->fstype)
                        snprintf(buf, size, "root is %s, not a local ext2/3/4 device: skipped", d->fstype);
                else
                        snprintf(buf, size, "does not name a local block device clockfix can find: skipped");
                break;
        case -EUCLEAN:
                snprintf(buf, size, "corrupt superblock: %s (run e2fsck)",
                        reason ? reason : "invalid values");
                break;
        case -EOPNOTSUPP:
                snprintf(buf, size, "cannot be read by this libext2fs: %s",
                        reason ? reason : "unsupported features");
                break;
        case -EIO:
                snprintf(buf, size, "read failed: %s", reason ? reason : "input/output error");
                break;
        default:
                snprintf(buf, size, "cannot read it: %s", strerror(-d->error));
                break;
        }
        return buf;
}
