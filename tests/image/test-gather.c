/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-gather: finding the root device for real, on loop devices made from
 * images: root= by path, UUID=, LABEL=, PARTUUID=, PARTLABEL= and device
 * number; the fall-back from root= to mountinfo to fstab; a device that
 * appears while waiting. Needs root (losetup), as CI has.
 */

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/gather.h"
#include "disk/rootdev.h"
#include "test.h"

#define T_WRITE 1800000600u

static char loops[8][64];
static size_t n_loops;

static void detach_all(void)
{
        for (size_t i = 0; i < n_loops; i++)
                free(run("losetup -d '%s' 2>&1 || true", loops[i]));
        test_dir_remove();
}

/* Attaches an image to a free loop device, partitions scanned; returns the device. */
static const char *attach(const char *image)
{
        char *dev = run("losetup -f --show -P '%s'", image);

        snprintf(loops[n_loops], sizeof(loops[0]), "%s", dev);
        free(dev);
        return loops[n_loops++];
}

static bool same_device(const char *a, const char *b)
{
        struct stat sa, sb;

        return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISBLK(sa.st_mode) &&
                sa.st_rdev == sb.st_rdev;
}

static char label[17], uuid[37], partlabel[32], partuuid[37];
static const char *disk, *part;

static void setup(void)
{
        /* Names unique to this run: other tests and the host's own disks must not match. */
        snprintf(label, sizeof(label), "cfx%d", (int)getpid());
        snprintf(partlabel, sizeof(partlabel), "cfxpart%d", (int)getpid());
        snprintf(uuid, sizeof(uuid), "%08x-1111-4222-8333-444455556666", (unsigned)getpid());
        snprintf(partuuid, sizeof(partuuid), "%08x-aaaa-4bbb-8ccc-ddddeeeeffff", (unsigned)getpid());

        const char *img = test_path("disk.img");
        free(run("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 -L %s -U %s '%s' 16M 2>&1", T_WRITE, label,
                uuid, img));
        disk = attach(img);

        /* A GPT disk with one partition holding ext4: PARTUUID and PARTLABEL live in the partition table. */
        const char *pimg = test_path("parted.img");
        free(run("truncate -s 24M '%s' && printf 'label: gpt\\nsize=16M, type=L, uuid=%s, name=%s\\n' | "
                 "sfdisk -q '%s' 2>&1",
                pimg, partuuid, partlabel, pimg));
        const char *whole = attach(pimg);
        static char p1[80];
        snprintf(p1, sizeof(p1), "%sp1", whole);
        /* Some kernels leave the partition scan to udev; partx asks the kernel directly. */
        free(run("test -b '%s' || partx -a '%s' 2>&1; udevadm settle 2>/dev/null; test -b '%s'", p1, whole,
                p1));
        part = p1;
        free(run("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 '%s' 2>&1", T_WRITE + 7, part));
}

static void check_resolves(const char *spec, const char *expected)
{
        char *path = NULL;

        fprintf(stderr, "resolve %s\n", spec);
        check_int(rootdev_resolve(spec, spec_classify(spec), 0, &path), 0);
        check(same_device(path, expected));
        free(path);
}

static void test_resolve(void)
{
        char spec[128];
        struct stat st;

        snprintf(spec, sizeof(spec), "LABEL=%s", label);
        check_resolves(spec, disk);
        snprintf(spec, sizeof(spec), "UUID=%s", uuid);
        check_resolves(spec, disk);
        snprintf(spec, sizeof(spec), "PARTLABEL=%s", partlabel);
        check_resolves(spec, part);
        snprintf(spec, sizeof(spec), "PARTUUID=%s", partuuid);
        check_resolves(spec, part);
        /* The kernel ignores the case of PARTUUID; so does clockfix. */
        for (char *c = spec + 9; *c; c++)
                *c = (char)toupper((unsigned char)*c);
        check_resolves(spec, part);
        check_resolves(disk, disk);
        check_resolves(disk + 5, disk); /* "loop3": a kernel name */

        check(stat(disk, &st) == 0);
        snprintf(spec, sizeof(spec), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
        check_resolves(spec, disk);
        /* The kernel's hexadecimal form. */
        snprintf(spec, sizeof(spec), "%x", (major(st.st_rdev) << 8) | minor(st.st_rdev));
        check_resolves(spec, disk);

        char *path = NULL;
        check_int(rootdev_resolve("LABEL=cfx-no-such-label", SPEC_TAG, 0, &path), -ENOENT);
        check_int(rootdev_resolve("PARTUUID=00000000-0000-0000-0000-000000000000", SPEC_TAG, 0, &path),
                -ENOENT);
        check(path == NULL);
}

static void gather_with(
        const char *cmdline, const char *mountinfo, const char *fstab, usec_t wait, struct evidence *ev)
{
        struct kernel_cmdline text = { .path = "cmdline", .text = (char *)cmdline };
        struct gather_config config = {
                .cmdline = cmdline ? &text : NULL,
                .mountinfo_path = mountinfo ? write_file("mountinfo", mountinfo) : NULL,
                .fstab_path = fstab ? write_file("fstab", fstab) : NULL,
                .wait = wait,
        };
        check_int(gather(&config, ev), 0);
}

static void test_gather(void)
{
        struct evidence ev;
        char text[512];
        struct stat st;

        /* root= wins; mountinfo and fstab are not even looked at. */
        snprintf(text, sizeof(text), "quiet root=LABEL=%s rootwait\n", label);
        gather_with(text, "garbage", "garbage", 0, &ev);
        check_int(ev.n_devices, 1);
        check_int(ev.devices[0].origin, ORIGIN_CMDLINE);
        check(same_device(ev.devices[0].path, disk));
        check(ev.devices[0].have_sb);
        check_int(evidence_devices_read(&ev), 1);
        /* mke2fs set created, last write and last check to the fake time. */
        check_int(ev.n_candidates, 3);
        for (size_t i = 0; i < ev.n_candidates; i++)
                check_u64(ev.candidates[i].time, (usec_t)T_WRITE * USEC_PER_SEC);
        evidence_free(&ev);

        /* No root=: the device mounted at / by number (shown as /dev/root when the kernel mounted it). */
        check(stat(part, &st) == 0);
        snprintf(text, sizeof(text), "1 0 %u:%u / / ro,relatime shared:1 - ext4 /dev/root ro\n",
                major(st.st_rdev), minor(st.st_rdev));
        gather_with("console=ttyS0\n", text, NULL, 0, &ev);
        check_int(ev.n_devices, 1);
        check_int(ev.devices[0].origin, ORIGIN_MOUNTINFO);
        check(same_device(ev.devices[0].path, part));
        check_int(ev.n_candidates, 3);
        check_u64(ev.candidates[0].time, (usec_t)(T_WRITE + 7) * USEC_PER_SEC);
        evidence_free(&ev);

        /* root=/dev/nfs and an overlay at /: both recorded and skipped, fstab's UUID= is read. */
        snprintf(text, sizeof(text), "# static\nUUID=%s / ext4 defaults 0 1\n", uuid);
        gather_with("root=/dev/nfs nfsroot=10.0.0.1:/srv\n", "30 1 0:30 / / rw - overlay overlay rw\n", text,
                0, &ev);
        check_int(ev.n_devices, 3);
        check_int(ev.devices[0].origin, ORIGIN_CMDLINE);
        check_int(ev.devices[0].error, -EPROTONOSUPPORT);
        check_int(ev.devices[1].origin, ORIGIN_MOUNTINFO);
        check_int(ev.devices[1].error, -EPROTONOSUPPORT);
        check_str(ev.devices[1].fstype, "overlay");
        check_int(ev.devices[2].origin, ORIGIN_FSTAB);
        check(same_device(ev.devices[2].path, disk));
        check_int(evidence_devices_read(&ev), 1);
        evidence_free(&ev);

        /* root= naming a device that is not there, and mountinfo naming the one that is: both tried. */
        check(stat(disk, &st) == 0);
        snprintf(text, sizeof(text), "1 0 %u:%u / / rw - ext4 /dev/root rw\n", major(st.st_rdev),
                minor(st.st_rdev));
        gather_with("root=PARTLABEL=cfx-not-there\n", text, NULL, 0, &ev);
        check_int(ev.n_devices, 2);
        check_int(ev.devices[0].error, -ENOENT);
        check(same_device(ev.devices[1].path, disk));
        evidence_free(&ev);

        /* Nothing at all: no device, no error. */
        gather_with("quiet\n", "22 27 0:21 / /proc rw - proc proc rw\n", "# none\n", 0, &ev);
        check_int(ev.n_devices, 0);
        check_int(ev.n_candidates, 0);
        evidence_free(&ev);

        /* A device that root= and mountinfo both name is tried once, even when it cannot be read. */
        char cmd[256];
        const char *img = test_path("zeros.img");
        free(run("head -c 4M /dev/zero > '%s'", img));
        const char *zeros = attach(img);
        check(stat(zeros, &st) == 0);
        snprintf(cmd, sizeof(cmd), "root=%s\n", zeros);
        snprintf(text, sizeof(text), "1 0 %u:%u / / rw - ext4 /dev/root rw\n", major(st.st_rdev),
                minor(st.st_rdev));
        gather_with(cmd, text, NULL, 0, &ev);
        check_int(ev.n_devices, 1);
        check_int(ev.devices[0].error, -EMEDIUMTYPE);
        check_int(evidence_devices_read(&ev), 0);
        evidence_free(&ev);
}

static void test_wait(void)
{
        char lbl[32], cmdline[128];
        const char *img;
        struct evidence ev;
        pid_t pid;

        snprintf(lbl, sizeof(lbl), "cfxlate%d", (int)getpid());
        img = test_path("late.img");
        free(run("E2FSPROGS_FAKE_TIME=%u mke2fs -q -F -t ext4 -L %s '%s' 8M 2>&1", T_WRITE, lbl, img));

        /*
         * The device appears a second after clockfix starts looking for it. The deadline is a
         * hang's limit, not a speed: the device is found when it appears, long before it on any
         * machine, and at it only if the wait missed the device.
         */
        pid = fork();
        if (pid == 0) {
                sleep(1);
                execlp("losetup", "losetup", "-f", img, (char *)NULL);
                _exit(127);
        }
        snprintf(cmdline, sizeof(cmdline), "root=LABEL=%s\n", lbl);
        usec_t t0 = now_monotonic();
        gather_with(cmdline, NULL, NULL, 120 * USEC_PER_SEC, &ev);
        usec_t took = now_monotonic() - t0;
        int status = 0;
        waitpid(pid, &status, 0);
        check_int(status, 0);
        char *dev = run("losetup -j '%s' -O NAME -n | head -n 1", img);
        snprintf(loops[n_loops++], sizeof(loops[0]), "%s", dev);

        check_int(ev.n_devices, 1);
        check_int(ev.devices[0].error, 0);
        check(same_device(ev.devices[0].path, dev));
        check(took >= USEC_PER_SEC / 2);
        check(took < 120 * USEC_PER_SEC);
        free(dev);
        evidence_free(&ev);

        /*
         * A label that never appears: the wait ends at the deadline with -ETIMEDOUT, not before it;
         * and it ends (the bound after it is a hang's limit, not a speed).
         */
        t0 = now_monotonic();
        gather_with("root=LABEL=cfx-never\n", NULL, NULL, USEC_PER_SEC, &ev);
        took = now_monotonic() - t0;
        check_int(ev.n_devices, 1);
        check_int(ev.devices[0].error, -ETIMEDOUT);
        /* What the messages say of it: how long it was waited for, and the setting (--wait by default). */
        check_u64(ev.devices[0].waited, USEC_PER_SEC);
        check_str(ev.devices[0].wait_origin, "--wait");
        check(took >= USEC_PER_SEC);
        check(took < 60 * USEC_PER_SEC);
        evidence_free(&ev);
}

int main(void)
{
        if (geteuid() != 0) {
                fprintf(stderr, "test-gather needs root for loop devices (CI runs as root)\n");
                return EXIT_FAILURE;
        }
        test_dir_make("test-gather");
        atexit(detach_all);
        setup();
        test_resolve();
        test_gather();
        test_wait();
        test_end();
}
