/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd: no libsystemd (static, or -Dlibsystemd=disabled): readiness by hand, messages on stderr, no D-Bus
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/systemd.h"

int systemd_load(const char **ret_reason)
{
        *ret_reason = "this clockfix is built without libsystemd";
        return -EOPNOTSUPP;
}

/*
 * The notification protocol itself, without libsystemd: one datagram to the
 * socket in $NOTIFY_SOCKET (a path, or '@' for the abstract namespace), so a
 * daemon without it still tells systemd it is ready.
 */
int systemd_notify(const char *state)
{
        const char *e = getenv("NOTIFY_SOCKET");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t n;
        int fd, r = 1;

        if (!e || !*e)
                return 0;
        n = strlen(e);
        if ((e[0] != '/' && e[0] != '@') || n >= sizeof(sa.sun_path))
                return -EINVAL;
        memcpy(sa.sun_path, e, n);
        if (sa.sun_path[0] == '@')
                sa.sun_path[0] = '\0';
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) < 0)
                r = -errno;
        close(fd);
        return r;
}

int systemd_journal_send(const struct iovec *fields, size_t n)
{
        (void)fields;
        (void)n;
        return -EOPNOTSUPP;
}

int systemd_own_unit(char **ret)
{
        (void)ret;
        return -EOPNOTSUPP;
}

int systemd_start_unit(const char *unit, char *reason, size_t size)
{
        (void)unit;
        (void)reason;
        (void)size;
        return -EOPNOTSUPP;
}

int systemd_unit_writes(const char *unit, const char *path, char *reason, size_t size)
{
        (void)path;
        snprintf(reason, size, "no libsystemd to start %s", unit);
        return -EOPNOTSUPP;
}
