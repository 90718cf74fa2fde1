/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* log: one-line messages on stderr, with syslog priority prefixes where a reader parses them, or to syslog
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <syslog.h>

/*
 * Messages go to stderr, one line each. On a terminal they read
 * "clockfix: text". Anywhere else (the kernel console in an initramfs, a
 * journal stream under systemd, a pipe) each line starts with "<N>", the
 * syslog priority, which journald and the kernel's log parse; under systemd
 * (JOURNAL_STREAM names our stderr) the journal already knows who we are,
 * so the "clockfix: " prefix is left out.
 *
 * A daemon whose stderr goes nowhere (an init script's: closed, or
 * /dev/null) or that went to the background logs to syslog instead
 * (/dev/log, as "clockfix[PID]", facility daemon), which keeps trying to
 * reach a syslog daemon that starts later than clockfix, and writes on the
 * console meanwhile.
 */

/* Where messages go; standard streams the caller closed are opened on /dev/null first. */
void log_open(void);

/* Whether stderr is closed or /dev/null: nobody would read what goes there. */
bool log_stderr_unseen(void);

/* From now on, messages go to syslog. */
void log_to_syslog(void);
void log_set_max_level(int level);
int log_get_max_level(void);

/* Whether debug messages are shown (-v): guards formatting that would be wasted otherwise. */
#define log_debug_enabled() (log_get_max_level() >= LOG_DEBUG)

/*
 * Logs at level; error, if non-zero, is an errno (either sign) that "%m"
 * expands to. Returns -abs(error) so a caller can log and return in one line.
 */
int log_full_errno(int level, int error, const char *format, ...) __attribute__((format(printf, 3, 4)));

#define log_full(level, ...)          log_full_errno(level, 0, __VA_ARGS__)
#define log_debug(...)                log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)                 log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)               log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...)              log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)                log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(error, ...)   log_full_errno(LOG_DEBUG, error, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, error, __VA_ARGS__)
#define log_error_errno(error, ...)   log_full_errno(LOG_ERR, error, __VA_ARGS__)
