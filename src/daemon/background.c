/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* background: the daemon detached from the init script that starts it, with a pid file */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "basic/file-util.h"
#include "basic/log.h"
#include "basic/time-util.h"
#include "daemon/background.h"

static const char *pid_path;
static bool ready;
static int ready_fd = -1; /* the background daemon's end of the pipe to the foreground process */

void background_pid_file(const char *path)
{
        pid_path = path;
}

/* Closes what the daemon inherited beyond its standard streams and keep: a pipe a caller reads to its end.
 */
static void close_inherited(int keep)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;

        if (!d)
                return;
        while ((e = readdir(d))) {
                int fd = atoi(e->d_name);
                if (fd > STDERR_FILENO && fd != keep && fd != dirfd(d))
                        close(fd);
        }
        closedir(d);
}

/*
 * The wait for the pipe fd: 1 when the byte came, 0 at its end (the child exited), -ETIME when
 * the deadline (CLOCK_MONOTONIC) passed first.
 */
static int wait_byte(int fd, usec_t deadline)
{
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                usec_t now = now_monotonic();
                char c;
                ssize_t n;

                if (deadline != USEC_INFINITY) {
                        if (now >= deadline)
                                return -ETIME;
                        usec_t ms = (deadline - now + 999) / 1000;
                        /* Nothing yet, or a signal: the deadline again. */
                        if (poll(&p, 1, ms > INT32_MAX ? INT32_MAX : (int)ms) <= 0)
                                continue;
                }
                n = read(fd, &c, 1);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                return n == 1;
        }
}

/*
 * In the foreground process: 0 when the daemon is ready (a byte), else the child's own exit
 * status; -1 when a signal killed it, or when limit passed first: the child is then
 * killed (at once, or as soon as the read it is stuck in returns) and not waited for.
 */
static int wait_child(int fd, pid_t pid, bool daemon, usec_t limit)
{
        char t[SECONDS_MAX];
        int status, r;

        usec_t now = now_monotonic();

        r = wait_byte(fd, limit >= USEC_INFINITY - now ? USEC_INFINITY : now + limit);
        close(fd);
        if (r == 1)
                return 0;
        if (r == -ETIME) {
                (void)kill(pid, SIGKILL);
                log_error("The clock was not set within %s s (a device that does not answer?): stopped, "
                          "the boot goes on without it",
                        format_seconds(t, limit));
                return -1;
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        log_error(daemon ? "The daemon was killed by signal %d before it was ready" : "Killed by signal %d",
                WTERMSIG(status));
        return -1;
}

int background_fork(const sigset_t *block, usec_t limit, int *ret_status)
{
        int p[2];
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return log_error_errno(errno, "Cannot fork (pipe): %m");
        pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(p[0]);
                close(p[1]);
                return log_error_errno(r, "Cannot fork: %m");
        }
        if (pid > 0) {
                close(p[1]);
                *ret_status = wait_child(p[0], pid, block != NULL, limit);
                return 1;
        }
        close(p[0]);
        if (!block)
                return 0; /* its end of the pipe closes as it exits */
        ready_fd = p[1];
        /* A stop asked for before the daemon reads its signals waits for it, and saves the stamp. */
        (void)sigprocmask(SIG_BLOCK, block, NULL);
        /* A foreground process gone before the daemon is ready: its byte is lost, the daemon goes on. */
        (void)signal(SIGPIPE, SIG_IGN);
        (void)setsid();
        /* syslog's socket, if a message went there before the fork, is among what is closed. */
        closelog();
        close_inherited(ready_fd);
        return 0;
}

/*
 * "PID\n" into the pid file, replaced whole: a reader never sees half of it. Not made durable (no
 * fsync): the process it names does not outlive a power cut either.
 */
static int write_pid_file(void)
{
        char line[32];
        int n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());

        return replace_file(pid_path, line, (size_t)n, false);
}

/* The daemon in the background, once ready: its standard streams on /dev/null, its messages in syslog. */
static void detach(void)
{
        int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

        if (fd >= 0) {
                for (int i = STDIN_FILENO; i <= STDERR_FILENO; i++)
                        (void)dup2(fd, i); /* dup2() leaves O_CLOEXEC off the copies */
                if (fd > STDERR_FILENO)
                        close(fd);
        }
        log_to_syslog();
}

int background_ready(int error)
{
        int r;

        if (ready)
                return 0;
        if (error < 0)
                return error; /* the daemon exits: the foreground process gets its exit status */
        if (pid_path) {
                r = write_pid_file();
                if (r < 0)
                        return log_error_errno(r, "Cannot write the pid file %s: %m", pid_path);
        }
        ready = true;
        if (ready_fd >= 0) {
                detach();
                (void)!write(ready_fd, "R", 1);
                close(ready_fd);
                ready_fd = -1;
        }
        return 0;
}

void background_done(void)
{
        char line[32];
        ssize_t n;
        int fd;

        if (!ready || !pid_path)
                return;
        ready = false;
        /* Another daemon may have been started since, with its own pid in the file. */
        fd = open(pid_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return;
        n = read(fd, line, sizeof(line) - 1);
        close(fd);
        if (n <= 0)
                return;
        line[n] = '\0';
        if (atol(line) == (long)getpid() && unlink(pid_path) < 0)
                log_warning_errno(errno, "Cannot remove the pid file %s: %m", pid_path);
}
