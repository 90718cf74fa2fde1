/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* route: whether the machine has a default route yet, through rtnetlink, whoever configures it */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/cleanup.h"
#include "daemon/route.h"

bool route_message_is_default(const void *msg, size_t size, struct default_route *ret)
{
        const struct nlmsghdr *h = msg;
        const struct rtmsg *rt;
        struct default_route r = { 0 };
        unsigned table;

        if (size < NLMSG_LENGTH(sizeof(*rt)) || h->nlmsg_len > size ||
                h->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)) || h->nlmsg_type != RTM_NEWROUTE)
                return false;
        rt = NLMSG_DATA(h);
        if (rt->rtm_dst_len != 0 || rt->rtm_type != RTN_UNICAST ||
                (rt->rtm_family != AF_INET && rt->rtm_family != AF_INET6))
                return false;
        table = rt->rtm_table;
        r.family = rt->rtm_family;

        int len = (int)RTM_PAYLOAD(h);
        for (const struct rtattr *a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
                size_t n = RTA_PAYLOAD(a);
                switch (a->rta_type) {
                case RTA_TABLE:
                        if (n >= sizeof(uint32_t))
                                memcpy(&table, RTA_DATA(a), sizeof(uint32_t));
                        break;
                case RTA_OIF:
                        if (n >= sizeof(int))
                                memcpy(&r.ifindex, RTA_DATA(a), sizeof(int));
                        break;
                case RTA_GATEWAY:
                        if (n == (r.family == AF_INET ? 4u : 16u))
                                inet_ntop(r.family, RTA_DATA(a), r.gateway, sizeof(r.gateway));
                        break;
                default:
                        break;
                }
        }
        /* Policy routing may put defaults in other tables; the main table is what "the network is up"
         * means to every NTP client that does not bind to a device. */
        if (table != RT_TABLE_MAIN)
                return false;
        if (ret)
                *ret = r;
        return true;
}

static int request_dump(int fd)
{
        struct {
                struct nlmsghdr h;
                struct rtmsg rt;
        } req = {
                .h = {
                        .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
                        .nlmsg_type = RTM_GETROUTE,
                        .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                        .nlmsg_seq = 1,
                },
                .rt = { .rtm_family = AF_UNSPEC },
        };
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

        if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
                return -errno;
        return 0;
}

int route_watch_open(void)
{
        struct sockaddr_nl addr = {
                .nl_family = AF_NETLINK,
                .nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE,
        };
        _cleanup_close_ int fd = -1;
        int r;

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        if (fd < 0)
                return -errno;
        /* Joined before the dump: a route added meanwhile is in the one or the other. */
        r = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? -errno : request_dump(fd);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

int route_read(int fd, struct default_route *ret)
{
        /* As the kernel advises for rtnetlink readers: at least 8 KiB, aligned for nlmsghdr. */
        union {
                struct nlmsghdr h;
                char buf[16384];
        } u;
        int found = 0;

        for (;;) {
                struct sockaddr_nl from = { 0 };
                socklen_t from_len = sizeof(from);
                ssize_t n = recvfrom(
                        fd, u.buf, sizeof(u.buf), MSG_TRUNC, (struct sockaddr *)&from, &from_len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        return found;
                if (n < 0 && errno == ENOBUFS) {
                        /* The socket overflowed: what was lost may have been our route. */
                        int r = request_dump(fd);
                        if (r < 0 && r != -EBUSY)
                                return r;
                        continue;
                }
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return found;
                /* Only the kernel speaks for the routing table: any process may send to this socket. */
                if (from.nl_pid != 0 || (size_t)n > sizeof(u.buf))
                        continue;
                /*
                 * Signed, as NLMSG_NEXT() takes it below 0 after the last message, and wider
                 * than the __u32 nlmsg_len that NLMSG_OK() compares it with (an int there
                 * mixes signs, which clang reports even inside the header's macro).
                 */
                int64_t len = n;
                for (const struct nlmsghdr *h = &u.h; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
                        if (!found && route_message_is_default(h, h->nlmsg_len, ret))
                                found = 1;
        }
}
