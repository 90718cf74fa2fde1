/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sd: the libsystemd calls of the daemon (readiness, the journal, D-Bus),
 * with libsystemd loaded on first use. Linking it would load it and five more
 * libraries into every `clockfix set` in an initramfs: +0.55 ms a run here,
 * 60% of a process's whole cost (see bench/). A static build has none of it, nor
 * one with -Dlibsystemd=disabled (sd-none.c).
 */
#pragma once

#include <stddef.h>
#include <sys/uio.h>

/* Loads libsystemd.so.0. 0, or -EOPNOTSUPP (with a reason for people in *ret_reason, static). */
int sd_load(const char **ret_reason);

/* sd_notify(): 1 when sent, 0 when not under a service manager ($NOTIFY_SOCKET unset), or -errno. */
int sd_notify_state(const char *state);

/* sd_journal_sendv(): one structured entry, fields "NAME=value". 0 or -errno. */
int sd_journal_fields(const struct iovec *fields, size_t n);

/* sd_pid_get_unit() of this process: its system unit's name in *ret (free it), or -errno (-ENODATA: none).
 */
int sd_own_unit(char **ret);

/*
 * Asks systemd over the system bus to start unit (mode "replace", as
 * `systemctl start --no-block`). 0, or -errno with D-Bus' message in reason
 * (size bytes).
 */
int sd_start_unit(const char *unit, char *reason, size_t size);
