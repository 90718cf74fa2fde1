/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-fstab: the table of the filesystems mounted at boot, as clockfix reads it: tags,
 * comments, escapes, noauto, bind mounts, nofail, non-ext and network entries, and hostile
 * text (no newline, NULs, lines too long, too many entries, "..", relative mount points).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/fstab.h"
#include "test.h"

static enum fstab_skip skip_of(const struct fstab *t, const char *dir)
{
        const struct fstab_entry *e = fstab_find(t, dir);

        check(e != NULL);
        return e ? fstab_entry_skip(e) : _FSTAB_SKIP_MAX;
}

static void test_debian(void)
{
        static const char text[] =
                "# /etc/fstab: static file system information.\n"
                "#\n"
                "UUID=0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55 /               ext4    ro,errors=remount-ro 0       1\n"
                "\n"
                "   # an indented comment\n"
                "UUID=1111-2222  /boot/firmware  vfat    defaults          0       2\n"
                "LABEL=data      /data           ext4    defaults,nofail   0       2\n"
                "/dev/mmcblk0p4  //var/./        ext3    defaults          0       2\n"
                "PARTUUID=aa-03  /mnt/spare      ext2    noauto            0       0\n"
                "/data/home      /home           none    bind              0       0\n"
                "/dev/sdb1       /mnt/r          ext4    rbind             0       0\n"
                "/dev/nbd0       /srv            ext4    _netdev           0       0\n"
                "server:/export  /nfs            nfs     defaults          0       0\n"
                "tmpfs           /tmp            tmpfs   defaults          0       0\n"
                "/dev/sda2       none            swap    sw                0       0\n"
                "/dev/sda3       /any            auto    defaults          0       0\n"
                "/dev/sda5       /with\\040space  ext4    defaults          0       0\n"
                "proc            /proc2          ext4    defaults          0       0\n";
        struct fstab t;

        check_int(fstab_parse(text, sizeof(text) - 1, &t), 0);
        check_int(t.n, 14);
        check_int(t.dropped, 0);

        check_int(skip_of(&t, "/"), FSTAB_ROOT);
        check(fstab_find(&t, "/")->read_only);
        check_str(fstab_find(&t, "/")->spec, "UUID=0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55");
        check_int(skip_of(&t, "/boot/firmware"), FSTAB_NOT_EXT);
        check_int(skip_of(&t, "/data"), FSTAB_READ);
        check(fstab_find(&t, "/data")->nofail);
        check(!fstab_find(&t, "/data")->read_only);
        /* Made canonical: "//var/./" is /var. */
        check_int(skip_of(&t, "/var"), FSTAB_READ);
        check_str(fstab_find(&t, "/var")->fstype, "ext3");
        check_int(skip_of(&t, "/mnt/spare"), FSTAB_NOAUTO);
        check_int(skip_of(&t, "/home"), FSTAB_BIND);
        check_int(skip_of(&t, "/mnt/r"), FSTAB_BIND);
        check_int(skip_of(&t, "/srv"), FSTAB_NETWORK);
        check_int(skip_of(&t, "/nfs"), FSTAB_NETWORK);
        check_int(skip_of(&t, "/tmp"), FSTAB_NOT_EXT);
        check_int(skip_of(&t, "/any"), FSTAB_NOT_EXT);
        /* getmntent() decodes the octal escapes of a space. */
        check_int(skip_of(&t, "/with space"), FSTAB_READ);
        check_int(skip_of(&t, "/proc2"), FSTAB_NOT_DEVICE);
        /* "none" is no absolute mount point. */
        bool found_swap = false;
        for (size_t i = 0; i < t.n; i++)
                if (strcmp(t.entries[i].fstype, "swap") == 0) {
                        found_swap = true;
                        check(t.entries[i].dir == NULL);
                        check_int(fstab_entry_skip(t.entries + i), FSTAB_NO_DIR);
                }
        check(found_swap);
        for (enum fstab_skip s = 0; s < _FSTAB_SKIP_MAX; s++)
                check(strcmp(fstab_skip_to_text(s), "?") != 0);
        fstab_done(&t);
}

static void test_hostile(void)
{
        struct fstab t;
        char *big;

        /* Empty, a last line without a newline, a NUL that ends the text. */
        check_int(fstab_parse("", 0, &t), 0);
        check_int(t.n, 0);
        fstab_done(&t);
        check_int(fstab_parse("/dev/vdb /data ext4 defaults", 27, &t), 0);
        check_int(t.n, 1);
        check_int(skip_of(&t, "/data"), FSTAB_READ);
        fstab_done(&t);
        static const char nul[] = "/dev/vdb /data ext4 defaults 0 2\n\0/dev/vdc /var ext4 defaults 0 2\n";
        check_int(fstab_parse(nul, sizeof(nul) - 1, &t), 0);
        check_int(t.n, 1);
        fstab_done(&t);

        /* A mount point with "..", or relative: not one a path can be placed under. */
        static const char dots[] =
                "/dev/vdb /data/../etc ext4 defaults 0 2\n/dev/vdc var ext4 defaults 0 2\n";
        check_int(fstab_parse(dots, sizeof(dots) - 1, &t), 0);
        check_int(t.n, 2);
        for (size_t i = 0; i < t.n; i++) {
                check(t.entries[i].dir == NULL);
                check_int(fstab_entry_skip(t.entries + i), FSTAB_NO_DIR);
        }
        fstab_done(&t);

        /* Lines of too few fields, and binary junk: passed over or harmless, never a crash. */
        static const char junk[] =
                "onlyone\n\xff\xfe\x01 \x02\n/dev/vdb /data\n/dev/vdd /ok ext4 defaults 0 2\n";
        check_int(fstab_parse(junk, sizeof(junk) - 1, &t), 0);
        check(fstab_find(&t, "/ok") != NULL);
        fstab_done(&t);

        /* More entries than kept: counted, not kept; and text past FSTAB_MAX_BYTES is not looked at. */
        size_t size = 2 * FSTAB_MAX_BYTES, n = 0;
        big = malloc(size + 1);
        check(big != NULL);
        while (n + 64 < size)
                n += (size_t)snprintf(
                        big + n, size + 1 - n, "/dev/vd%zu /m%zu ext4 defaults 0 2\n", n % 7, n);
        check_int(fstab_parse(big, n, &t), 0);
        check_int(t.n, FSTAB_MAX_ENTRIES);
        check(t.dropped > 0);
        /* Some 32 bytes a line: the first FSTAB_MAX_BYTES hold about 2000 of them, not 4000. */
        check(t.n + t.dropped < FSTAB_MAX_BYTES / 16);
        fstab_done(&t);

        /* A line longer than a mount entry may be: passed over, the next one read. */
        n = (size_t)snprintf(big, size + 1, "/dev/vdb /");
        memset(big + n, 'a', 8000);
        n += 8000;
        n += (size_t)snprintf(
                big + n, size + 1 - n, " ext4 defaults 0 2\n/dev/vdc /var ext4 defaults 0 2\n");
        check_int(fstab_parse(big, n, &t), 0);
        check(fstab_find(&t, "/var") != NULL);
        fstab_done(&t);
        free(big);
}

static void test_canonical(void)
{
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "/", "/" },
                { "//", "/" },
                { "/var/", "/var" },
                { "/./var//lib/.", "/var/lib" },
                { "/a..b", "/a..b" },
                { "/.hidden", "/.hidden" },
        };
        char buf[64];

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                snprintf(buf, sizeof(buf), "%s", cases[i].in);
                check(path_make_canonical(buf, false));
                check_str(buf, cases[i].out);
        }
        snprintf(buf, sizeof(buf), "/var/../etc");
        check(!path_make_canonical(buf, false));
        static const struct {
                const char *in, *out;
        } dots[] = {
                { "/var/lib/systemd/../private/systemd/timesync", "/var/lib/private/systemd/timesync" },
                { "/..", "/" },
                { "/a/b/../../..", "/" },
                { "/a/./b/..//c", "/a/c" },
        };
        for (size_t i = 0; i < sizeof(dots) / sizeof(dots[0]); i++) {
                snprintf(buf, sizeof(buf), "%s", dots[i].in);
                check(path_make_canonical(buf, true));
                check_str(buf, dots[i].out);
        }
        snprintf(buf, sizeof(buf), "var");
        check(!path_make_canonical(buf, false));
        buf[0] = '\0';
        check(!path_make_canonical(buf, false));
}

static void test_file(void)
{
        char path[] = "/tmp/test-fstab.XXXXXX";
        const struct fstab_entry *e;
        struct fstab t;
        FILE *f;
        int fd;

        /* The entry for / that the root's search falls back on: the first, a space decoded. */
        fd = mkstemp(path);
        check(fd >= 0);
        f = fdopen(fd, "w");
        check(f != NULL);
        fputs("# <file system> <mount point> <type> <options> <dump> <pass>\n"
              "\n"
              "proc /proc proc defaults 0 0\n"
              "LABEL=my\\040root / ext4 errors=remount-ro 0 1\n"
              "/dev/sdb1 / xfs defaults 0 0\n",
                f);
        fclose(f);
        check_int(fstab_read_file(path, &t), 0);
        e = fstab_find(&t, "/");
        check(e != NULL);
        check_str(e ? e->spec : NULL, "LABEL=my root");
        check_str(e ? e->fstype : NULL, "ext4");
        check(fstab_find(&t, "/nowhere") == NULL);
        fstab_done(&t);
        unlink(path);

        check_int(fstab_read_file("/nonexistent/fstab", &t), -ENOENT);
        fstab_done(&t);
        check(fstab_read_file("/", &t) < 0); /* a directory: read() fails */
        fstab_done(&t);
}

int main(void)
{
        test_debian();
        test_hostile();
        test_canonical();
        test_file();
        test_end();
}
