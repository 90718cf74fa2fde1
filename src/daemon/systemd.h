/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * systemd: what the daemon asks of systemd (readiness, the journal, starting units over D-Bus),
 * through libsystemd loaded on first use (dlopen_symbols()): linked, it would be loaded with five
 * more libraries into every `clockfix set` in an initramfs (docs/performance.md). A build without
 * it (static, or -Dlibsystemd=disabled) has systemd-none.c instead, which speaks the notification
 * protocol itself and can do nothing else.
 */
#pragma once

#include <stddef.h>
#include <sys/uio.h>

/* Loads libsystemd.so.0. 0, or -EOPNOTSUPP (with a reason for people in *ret_reason, static). */
int systemd_load(const char **ret_reason);

/* sd_notify(): 1 when sent, 0 when not under a service manager ($NOTIFY_SOCKET unset), or -errno. */
int systemd_notify(const char *state);

/* sd_journal_sendv(): one structured entry, fields "NAME=value". 0 or -errno. */
int systemd_journal_send(const struct iovec *fields, size_t n);

/* sd_pid_get_unit() of this process: its system unit's name in *ret (free it), or -errno (-ENODATA: none).
 */
int systemd_own_unit(char **ret);

/*
 * Asks systemd over the system bus to start unit (mode "replace", as
 * `systemctl start --no-block`). 0, or -errno with D-Bus' message in reason
 * (size bytes).
 */
int systemd_start_unit(const char *unit, char *reason, size_t size);

/*
 * Starts unit (a oneshot in a sandbox of its own) to write path, when the daemon's own sandbox
 * keeps its filesystem read-only, and waits up to 5 s for path's new mtime. Returns 0, or -errno
 * with why in reason; -EOPNOTSUPP without libsystemd, -ETIMEDOUT when the unit ran and did not
 * write it.
 */
int systemd_unit_writes(const char *unit, const char *path, char *reason, size_t size);
