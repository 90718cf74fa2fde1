/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * guest-time LABEL DEV COMMAND [ARG...]: in the throttled guest of bench/read-cost, drops the
 * page cache (so that COMMAND reads the disk, as at boot), waits 200 ms (so that QEMU's throttle
 * starts every run from the same empty bucket), runs COMMAND with its output to /dev/null and
 * prints
 *     READCOST LABEL ms=MILLISECONDS rc=STATUS ios=READS sectors=SECTORS
 * MILLISECONDS from fork to its end on CLOCK_MONOTONIC; READS and SECTORS (512 bytes) what the
 * block device DEV (vda...; "-" for none) completed meanwhile, from /sys/block/DEV/stat: the
 * reads the disk saw, after the kernel's readahead and merging. Built static: the guest has
 * busybox and nothing else.
 */

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* reads completed and sectors read of /sys/block/DEV/stat; 0 for "-" */
static void disk_stat(const char *dev, unsigned long long *ios, unsigned long long *sectors)
{
        char path[256];
        FILE *f;

        *ios = *sectors = 0;
        if (!strcmp(dev, "-"))
                return;
        snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
        f = fopen(path, "re");
        if (!f || fscanf(f, "%llu %*u %llu", ios, sectors) != 2)
                perror(path);
        if (f)
                fclose(f);
}

int main(int argc, char *argv[])
{
        unsigned long long ios0, sec0, ios1, sec1;
        struct timespec a, b, pause = { 0, 200000000 };
        int fd, status;
        pid_t pid;

        if (argc < 4) {
                fprintf(stderr, "usage: guest-time LABEL DEV COMMAND [ARG...]\n");
                return 2;
        }
        sync();
        fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "3", 1) != 1) {
                perror("guest-time: /proc/sys/vm/drop_caches");
                return 1;
        }
        close(fd);
        nanosleep(&pause, NULL);
        disk_stat(argv[2], &ios0, &sec0);
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid = fork();
        if (pid < 0)
                return perror("fork"), 1;
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY);

                dup2(null, 1);
                dup2(null, 2);
                execv(argv[3], argv + 3);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0)
                return perror("waitpid"), 1;
        clock_gettime(CLOCK_MONOTONIC, &b);
        disk_stat(argv[2], &ios1, &sec1);
        printf("READCOST %s ms=%.3f rc=%d ios=%llu sectors=%llu\n", argv[1],
                (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ios1 - ios0, sec1 - sec0);
        fflush(stdout);
        return 0;
}
