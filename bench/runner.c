/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * runner N COLD FILE: runs each command of FILE N times, the commands taking
 * turns (so that a noisy machine slows them alike), and prints for each the
 * median wall time (µs), peak RSS (KiB) and blocks read from the device
 * (ru_inblock, 512 bytes each). FILE holds one command a line, fields
 * separated by tabs: "LABEL<TAB>ARG0<TAB>ARG1...". With COLD = 1 the page cache is dropped before
 * each run (/proc/sys/vm/drop_caches, root), as at boot, when nothing is
 * cached yet. stdout and stderr of the commands go to /dev/null.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 64
#define MAX_ARGS 32

struct cmd {
        char *label;
        char *argv[MAX_ARGS + 1];
        long *wall, *rss, *inblock;
        int failed;
};

static int compare(const void *a, const void *b)
{
        long x = *(const long *)a, y = *(const long *)b;
        return (x > y) - (x < y);
}

static long median(long *v, int n)
{
        qsort(v, (size_t)n, sizeof(long), compare);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void drop_caches(void)
{
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

        if (fd < 0 || write(fd, "3", 1) != 1) {
                perror("runner: /proc/sys/vm/drop_caches");
                exit(1);
        }
        close(fd);
}

int main(int argc, char *argv[])
{
        static struct cmd cmds[MAX_CMDS];
        char line[4096];
        int n, cold, ncmds = 0;
        FILE *f;

        if (argc != 4 || (n = atoi(argv[1])) < 1 || !(f = fopen(argv[3], "r"))) {
                fprintf(stderr, "usage: runner N COLD FILE\n");
                return 2;
        }
        cold = atoi(argv[2]);
        while (ncmds < MAX_CMDS && fgets(line, sizeof(line), f)) {
                struct cmd *c = cmds + ncmds;
                int a = 0;

                line[strcspn(line, "\n")] = '\0';
                if (!line[0])
                        continue;
                c->label = strdup(strtok(line, "\t"));
                for (char *t; a < MAX_ARGS && (t = strtok(NULL, "\t"));)
                        c->argv[a++] = strdup(t);
                c->wall = calloc((size_t)n, sizeof(long));
                c->rss = calloc((size_t)n, sizeof(long));
                c->inblock = calloc((size_t)n, sizeof(long));
                ncmds++;
        }
        fclose(f);

        for (int i = 0; i < n; i++)
                for (int k = 0; k < ncmds; k++) {
                        struct cmd *c = cmds + k;
                        struct timespec t0, t1;
                        struct rusage ru;
                        int status;
                        pid_t pid;

                        if (cold) {
                                sync();
                                drop_caches();
                        }
                        clock_gettime(CLOCK_MONOTONIC, &t0);
                        pid = fork();
                        if (pid == 0) {
                                int null = open("/dev/null", O_WRONLY);
                                dup2(null, 1);
                                dup2(null, 2);
                                execv(c->argv[0], c->argv);
                                _exit(127);
                        }
                        if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
                                perror("runner");
                                return 1;
                        }
                        clock_gettime(CLOCK_MONOTONIC, &t1);
                        /* clockfix set --dry-run exits 0; status 3 is "no source" (a wrong image). */
                        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                                c->failed++;
                        c->wall[i] = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
                        c->rss[i] = ru.ru_maxrss;
                        c->inblock[i] = ru.ru_inblock;
                }

        for (int k = 0; k < ncmds; k++) {
                struct cmd *c = cmds + k;
                printf("%s %ld %ld %ld %d\n", c->label, median(c->wall, n), median(c->rss, n),
                        median(c->inblock, n), c->failed);
        }
        return 0;
}
