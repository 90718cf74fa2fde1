/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-rootdev: kernel command line, root= forms, mountinfo and fstab, waiting for a path */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/cmdline.h"
#include "basic/file-util.h"
#include "disk/rootdev.h"
#include "test.h"

static void check_root(const char *cmdline, const char *expected)
{
        char *v = NULL;
        int r = cmdline_find_root(cmdline, &v);

        if (!expected) {
                check_int(r, 0);
                check(v == NULL);
        } else {
                check_int(r, 1);
                check_str(v, expected);
        }
        free(v);
}

static void test_cmdline(void)
{
        check_root("", NULL);
        check_root("quiet splash", NULL);
        check_root("console=ttyS0 root=/dev/mmcblk0p2 rootwait", "/dev/mmcblk0p2");
        check_root("root=/dev/sda1", "/dev/sda1");
        check_root("  root=UUID=0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55\n",
                "UUID=0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55");
        /* The last root= wins, as in the kernel. */
        check_root("root=/dev/sda1 ro root=PARTUUID=6c586e13-02", "PARTUUID=6c586e13-02");
        /* Quotes group spaces and are removed. */
        check_root("root=\"LABEL=my root\" ro", "LABEL=my root");
        check_root("\"root=LABEL=a b\" ro", "LABEL=a b");
        /* Words after "--" are init's. */
        check_root("root=/dev/vda -- root=/dev/evil", "/dev/vda");
        check_root("quiet -- root=/dev/evil", NULL);
        /* Not root=: rootwait, rootfstype=, myroot=. */
        check_root("rootwait rootfstype=ext4 myroot=/dev/x", NULL);
        check_root("root=", "");
}

static void test_classify(void)
{
        check_int(spec_classify("/dev/mmcblk0p2"), SPEC_PATH);
        check_int(spec_classify("/srv/images/root.img"), SPEC_PATH);
        check_int(spec_classify("UUID=0b1c1f54-2c2f-4c41-8a8c-3f6c1f0a2f55"), SPEC_TAG);
        check_int(spec_classify("PARTUUID=6c586e13-02"), SPEC_TAG);
        check_int(spec_classify("LABEL=rootfs"), SPEC_TAG);
        check_int(spec_classify("PARTLABEL=root"), SPEC_TAG);
        check_int(spec_classify("PARTUUID=6c586e13-02/PARTNROFF=1"), SPEC_UNSUPPORTED);
        check_int(spec_classify("UUID="), SPEC_UNSUPPORTED);
        check_int(spec_classify("179:2"), SPEC_DEVNO);
        check_int(spec_classify("b302"), SPEC_DEVNO);
        check_int(spec_classify("mmcblk0p2"), SPEC_KERNEL_NAME);
        check_int(spec_classify("cciss!c0d0p1"), SPEC_KERNEL_NAME);
        check_int(spec_classify("/dev/nfs"), SPEC_NETWORK);
        check_int(spec_classify("nfs:10.0.0.1:/srv/root"), SPEC_NETWORK);
        check_int(spec_classify("10.0.0.1:/srv/root"), SPEC_NETWORK);
        check_int(spec_classify("//server/share"), SPEC_NETWORK);
        check_int(spec_classify("cifs://server/share"), SPEC_NETWORK);
        check_int(spec_classify("dhcp"), SPEC_NETWORK);
        check_int(spec_classify("zfs:rpool/root"), SPEC_UNSUPPORTED);
        check_int(spec_classify("live:CDLABEL=x"), SPEC_UNSUPPORTED);
        check_int(spec_classify(""), SPEC_UNSUPPORTED);
}

/* Names of udev's /dev/disk/by-* links, as systemd's encode_devnode_name() and blkid_encode_string() make
 * them. */
static void check_encode(const char *value, const char *name)
{
        char buf[64];

        check_int(udev_encode_name(value, buf, sizeof(buf)), 0);
        check_str(buf, name);
}

static void test_udev_encode(void)
{
        char small[8];

        check_encode("6c586e13-3c1f-4a2d-9b8e-0a1b2c3d4e5f", "6c586e13-3c1f-4a2d-9b8e-0a1b2c3d4e5f");
        check_encode("ABCD-1234", "ABCD-1234");
        check_encode("rootfs_2.0:#+=@", "rootfs_2.0:#+=@");
        check_encode("my disk", "my\\x20disk");
        check_encode("a/b\\c", "a\\x2fb\\x5cc");
        check_encode("tab\there", "tab\\x09here");
        /* Valid UTF-8 stays; a lone continuation byte, a truncated or overlong sequence and a surrogate do
         * not. */
        check_encode("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82",
                "caf\xc3\xa9\\x20\xe2\x82\xac\\x20\xf0\x9f\x99\x82");
        check_encode("\x80x", "\\x80x");
        check_encode("\xc3", "\\xc3");
        check_encode("\xc0\xaf", "\\xc0\\xaf");
        check_encode("\xed\xa0\x80", "\\xed\\xa0\\x80");
        check_encode("", "");
        /* What does not fit is refused, never cut. */
        check_int(udev_encode_name("1234567", small, sizeof(small)), 0);
        check_int(udev_encode_name("12345678", small, sizeof(small)), -ENAMETOOLONG);
        check_int(udev_encode_name("123 ", small, sizeof(small)), 0);
        check_int(udev_encode_name("1234 ", small, sizeof(small)), -ENAMETOOLONG);
}

static void test_mountinfo(void)
{
        dev_t devno = 0;
        char *type = NULL, *source = NULL;
        const char *p;

        p = write_file("mountinfo",
                "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                "28 27 0:25 / /mnt\\040x ro - tmpfs none ro\n");
        check_int(mountinfo_find_root(p, &devno, &type, &source), 1);
        check_int(major(devno), 254);
        check_int(minor(devno), 0);
        check_str(type, "ext4");
        check_str(source, "/dev/vda");
        free(type);
        free(source);

        /* Optional fields before "-", a root mounted by the kernel, and an over-mount: the last "/" wins. */
        p = write_file("mountinfo2",
                "1 0 179:2 / / ro,relatime shared:1 master:2 - ext4 /dev/root ro\n"
                "30 1 0:30 / / rw shared:5 - overlay overlay rw,lowerdir=/a\n");
        check_int(mountinfo_find_root(p, &devno, &type, &source), 1);
        check_int(major(devno), 0);
        check_str(type, "overlay");
        free(type);
        free(source);

        p = write_file("mountinfo3", "1 0 179:2 / / ro shared:1 - ext4 /dev/my\\040root ro\n");
        check_int(mountinfo_find_root(p, &devno, &type, &source), 1);
        check_int(major(devno), 179);
        check_int(minor(devno), 2);
        check_str(source, "/dev/my root");
        free(type);
        free(source);

        p = write_file("mountinfo4", "22 27 0:21 / /proc rw - proc proc rw\ngarbage\n\n");
        check_int(mountinfo_find_root(p, &devno, &type, &source), 0);
        check_int(mountinfo_find_root("/nonexistent/mountinfo", &devno, &type, &source), -ENOENT);
}

static void test_resolve_path(void)
{
        char *path = NULL;
        const char *appear;
        usec_t t0;
        pid_t pid;

        const char *p = write_file("present.img", "x");
        check_int(rootdev_resolve(p, SPEC_PATH, 0, &path), 0);
        check_str(path, p);
        free(path);
        path = NULL;

        appear = test_path("absent");
        check_int(rootdev_resolve(appear, SPEC_PATH, 0, &path), -ENOENT);
        check(path == NULL);

        /* Waiting for a path that never appears ends at the deadline, with -ETIMEDOUT. */
        t0 = now_monotonic();
        check_int(rootdev_resolve(appear, SPEC_PATH, t0 + 300 * 1000, &path), -ETIMEDOUT);
        check(now_monotonic() - t0 >= 300 * 1000);

        /*
         * A path that appears while waiting is found when it appears, before the deadline (a
         * hang's limit, not a speed: reached only if the wait missed the path).
         */
        appear = test_path("late");
        pid = fork();
        if (pid == 0) {
                usleep(200 * 1000);
                close(open(appear, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
                _exit(0);
        }
        t0 = now_monotonic();
        check_int(rootdev_resolve(appear, SPEC_PATH, t0 + 120 * USEC_PER_SEC, &path), 0);
        check_str(path, appear);
        check(now_monotonic() - t0 < 120 * USEC_PER_SEC);
        free(path);
        waitpid(pid, NULL, 0);

        check_int(rootdev_resolve("/dev/nfs", SPEC_NETWORK, 0, &path), -EPROTONOSUPPORT);
        check_int(rootdev_resolve("zfs:x", SPEC_UNSUPPORTED, 0, &path), -EPROTONOSUPPORT);
        /* /dev/null exists under the kernel name "null": resolution finds paths, reading judges them. */
        check_int(rootdev_resolve("null", SPEC_KERNEL_NAME, 0, &path), 0);
        check_str(path, "/dev/null");
        free(path);
}

static void test_read_small_file(void)
{
        char *text = NULL;
        const char *p = write_file("cmdline", "root=/dev/vda ro\n");

        check_int(read_small_file(p, &text), 0);
        check_str(text, "root=/dev/vda ro\n");
        free(text);
        /* procfs reports size 0: reading must not trust it. */
        check_int(read_small_file("/proc/self/mountinfo", &text), 0);
        check(strlen(text) > 0);
        free(text);
        check_int(read_small_file("/nonexistent", &text), -ENOENT);

        /* Longer than any buffer it starts with: a mountinfo of 3000 lines, "/" the last. */
        const char *path = test_path("long-mountinfo");
        FILE *f = fopen(path, "we");
        check(f != NULL);
        for (int i = 0; f && i < 3000; i++)
                fprintf(f, "%d 1 0:%d / /srv/container/%d/rootfs rw - overlay overlay rw\n", 100 + i,
                        100 + i, i);
        if (f) {
                fprintf(f, "9999 1 8:2 / / rw - ext4 /dev/sda2 rw\n");
                fclose(f);
        }
        check_int(read_small_file(path, &text), 0);
        check(strlen(text) > 64 * 1024);
        free(text);
        dev_t devno;
        char *type = NULL, *source = NULL;
        check_int(mountinfo_find_root(path, &devno, &type, &source), 1);
        check_str(source, "/dev/sda2");
        free(type);
        free(source);
}

int main(void)
{
        test_dir_make("test-rootdev");
        test_cmdline();
        test_classify();
        test_udev_encode();
        test_mountinfo();
        test_resolve_path();
        test_read_small_file();
        test_dir_remove();
        test_end();
}
