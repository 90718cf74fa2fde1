/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* log: one-line messages on stderr, with syslog priority prefixes where a reader parses them, or to syslog
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/stat-util.h"

static int max_level = LOG_INFO;
static bool prefix_priority = true; /* "<N>" before each line */
static bool prefix_name = true;     /* "clockfix: " before each line */
static bool to_syslog;              /* syslog(3) instead of stderr */

/* True when JOURNAL_STREAM ("device:inode") names the file stderr is. */
static bool stderr_is_journal(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct file_stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || file_fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long)st.dev == dev && (unsigned long long)st.ino == ino;
}

void log_open(void)
{
        /*
         * Standard streams the caller closed become /dev/null: no file opened later may take their
         * place. Only those: clockfix opens nothing for writing where they are there.
         */
        for (int i = STDIN_FILENO; i <= STDERR_FILENO; i++)
                if (fcntl(i, F_GETFD) < 0 && errno == EBADF) {
                        int fd = open("/dev/null", i == STDIN_FILENO ? O_RDONLY : O_WRONLY);
                        if (fd >= 0 && fd != i) {
                                (void)dup2(fd, i);
                                close(fd);
                        }
                }
        if (isatty(STDERR_FILENO)) {
                prefix_priority = false;
                prefix_name = true;
        } else {
                prefix_priority = true;
                prefix_name = !stderr_is_journal();
        }
}

bool log_stderr_unseen(void)
{
        struct file_stat st;

        if (file_fstat(STDERR_FILENO, &st) < 0)
                return true;
        return S_ISCHR(st.mode) && major(st.rdev) == 1 && minor(st.rdev) == 3;
}

void log_to_syslog(void)
{
        /*
         * No LOG_NDELAY: syslog(3) connects at each message until a syslog daemon listens; until
         * then (early in a boot, or a system with none), LOG_CONS writes it on the console.
         */
        openlog("clockfix", LOG_PID | LOG_CONS, LOG_DAEMON);
        to_syslog = true;
}

void log_set_max_level(int level)
{
        max_level = level;
}

int log_get_max_level(void)
{
        return max_level;
}

int log_full_errno(int level, int error, const char *format, ...)
{
        int saved = errno;
        va_list ap;

        if (error < 0)
                error = -error;
        if (level > max_level)
                return -error;

        /* Build the line first and write it once, so concurrent writers do not interleave. */
        char line[1024];
        int n = 0;
        if (to_syslog) {
                errno = error;
                va_start(ap, format);
                (void)vsnprintf(line, sizeof(line), format, ap);
                va_end(ap);
                syslog(level, "%s", line);
                errno = saved;
                return -error;
        }
        if (prefix_priority)
                n = snprintf(line, sizeof(line), "<%d>", level);
        if (prefix_name)
                n += snprintf(line + n, sizeof(line) - (size_t)n, "clockfix: ");
        errno = error; /* for %m */
        va_start(ap, format);
        int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, format, ap);
        va_end(ap);
        if (m < 0)
                m = 0;
        n += m;
        if ((size_t)n > sizeof(line) - 2)
                n = (int)sizeof(line) - 2;
        line[n++] = '\n';
        (void)!write(STDERR_FILENO, line, (size_t)n);

        errno = saved;
        return -error;
}
