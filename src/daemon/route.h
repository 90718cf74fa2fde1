/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* route: whether the machine has a default route yet, through rtnetlink, whoever configures it */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct default_route {
        int family;       /* AF_INET or AF_INET6 */
        int ifindex;      /* 0 if none given */
        char gateway[46]; /* "192.0.2.1", "fe80::1", or "" for a route on a link without one */
};

/*
 * Opens an rtnetlink socket that hears of new IPv4 and IPv6 routes, and asks
 * the kernel for the routes there already. Returns the socket (non-blocking,
 * close-on-exec; poll it for input and pass it to route_read()) or -errno.
 */
int route_watch_open(void);

/*
 * Reads what the socket has. Returns 1 with *ret when one of the messages
 * is a default route of the main table, 0 when none is (yet), or -errno. On
 * -ENOBUFS (events were lost) it asks for the whole table again and returns 0.
 */
int route_read(int fd, struct default_route *ret);

/*
 * Pure: whether one rtnetlink message (a whole nlmsghdr of size bytes) adds a
 * default route: RTM_NEWROUTE, destination length 0, a unicast route of the
 * main table. Fills *ret when it does.
 */
bool route_message_is_default(const void *msg, size_t size, struct default_route *ret);
