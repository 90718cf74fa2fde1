/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-daemon: the pure parts of the daemon: how far NTP corrected the
 * estimate, when the stamp may be written, which timers count in each state
 * and when the loop wakes, when a sign of NTP is its synchronisation (each
 * client's ways, as they were seen in real boots), which rtnetlink messages
 * are a default route, which signals stop the daemon, and the configuration
 * file's lines.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>

#include "basic/clock.h"
#include "basic/conf.h"
#include "daemon/daemon.h"
#include "daemon/ntp-sync.h"
#include "daemon/route.h"
#include "daemon/stamp-keeper.h"
#include "daemon/sync-report.h"
#include "test.h"

#define S(sec) ((usec_t)USEC_PER_SEC * (sec))

static void test_correction(void)
{
        struct daemon_start s = { .realtime = S(1796000000), .boottime = S(5) };

        /* Nobody touched the clock: it moved as boot time did. */
        check_int(sync_correction(&s, S(1796000010), S(15)), 0);
        /* NTP stepped it an hour forward 10 s later: the estimate was an hour behind. */
        check_int(sync_correction(&s, S(1796003610), S(15)), (int64_t)S(3600));
        /* And 250 ms back. */
        check_int(sync_correction(&s, S(1796000010) - 250000, S(15)), -250000);
        /* Boot time before the start (not possible, but never a wrap-around). */
        check_int(sync_correction(&s, S(1796000000), S(1)), 0);
}

static void test_estimate_error(void)
{
        /* clockfix set the clock to its estimate: the error is minus NTP's correction. */
        struct daemon_start set = {
                .stepped = true, .realtime = S(1796000000) + 1500, .boottime = S(5), .target = S(1796000000)
        };
        check_int(sync_estimate_error(&set, (int64_t)S(3600)), -(int64_t)S(3600));
        check_int(sync_estimate_error(&set, -250000), 250000);
        /* The clock was a day ahead of the estimate and right: the estimate was a day behind. */
        struct daemon_start none = { .realtime = S(1796086400), .boottime = S(5), .target = S(1796000000) };
        check_int(sync_estimate_error(&none, 0), -(int64_t)S(86400));
        /* ... and NTP moved it 10 s back: the estimate was a day less 10 s behind. */
        check_int(sync_estimate_error(&none, -(int64_t)S(10)), -(int64_t)S(86390));
}

static void test_save_due(void)
{
        /* The first look only takes the baseline. */
        check(!stamp_save_due(false, 0, 0, 100));
        /* Nothing written since: save. Something written: the journal holds a newer time already. */
        check(stamp_save_due(true, 100, 0, 100));
        check(!stamp_save_due(true, 100, 0, 104));
        /* No counter (not ext4): every interval. */
        check(stamp_save_due(false, 0, -ENOENT, 0));
        check(stamp_save_due(true, 100, -ENOENT, 0));
}

static void test_timers(void)
{
        /* Looking for synchronisation, the NTP unit with it, until synchronised, timeout or not. */
        check(daemon_timer_armed(DAEMON_WAITING_FOR_NETWORK, DAEMON_TIMER_CHECK));
        check(daemon_timer_armed(DAEMON_WAITING_FOR_SYNC, DAEMON_TIMER_CHECK));
        check(daemon_timer_armed(DAEMON_TIMED_OUT, DAEMON_TIMER_CHECK));
        check(!daemon_timer_armed(DAEMON_SYNCHRONIZED, DAEMON_TIMER_CHECK));
        check(!daemon_timer_armed(DAEMON_STOPPING, DAEMON_TIMER_CHECK));
        /* The timeout counts only while waiting. */
        check(daemon_timer_armed(DAEMON_WAITING_FOR_NETWORK, DAEMON_TIMER_TIMEOUT));
        check(daemon_timer_armed(DAEMON_WAITING_FOR_SYNC, DAEMON_TIMER_TIMEOUT));
        check(!daemon_timer_armed(DAEMON_TIMED_OUT, DAEMON_TIMER_TIMEOUT));
        check(!daemon_timer_armed(DAEMON_SYNCHRONIZED, DAEMON_TIMER_TIMEOUT));
        /* The stamp is kept in every state until the stop. */
        check(daemon_timer_armed(DAEMON_WAITING_FOR_NETWORK, DAEMON_TIMER_SAVE));
        check(daemon_timer_armed(DAEMON_SYNCHRONIZED, DAEMON_TIMER_SAVE));
        check(!daemon_timer_armed(DAEMON_STOPPING, DAEMON_TIMER_SAVE));

        usec_t due[_DAEMON_TIMER_MAX] = {
                [DAEMON_TIMER_CHECK] = S(12), [DAEMON_TIMER_TIMEOUT] = S(10), [DAEMON_TIMER_SAVE] = S(70)
        };
        check_u64(daemon_next_wake(DAEMON_WAITING_FOR_SYNC, due), S(10));
        check_u64(daemon_next_wake(DAEMON_TIMED_OUT, due), S(12));
        check_u64(daemon_next_wake(DAEMON_SYNCHRONIZED, due), S(70));
        /* Synchronised, not keeping the stamp: only an event wakes it (no loop that spins). */
        due[DAEMON_TIMER_SAVE] = USEC_INFINITY;
        check(daemon_next_wake(DAEMON_SYNCHRONIZED, due) == USEC_INFINITY);
        check(daemon_next_wake(DAEMON_STOPPING, due) == USEC_INFINITY);

        /* poll()'s milliseconds: never early (rounded up), 0 when past, -1 for never, capped. */
        check_int(daemon_poll_timeout(USEC_INFINITY, S(5)), -1);
        check_int(daemon_poll_timeout(S(5), S(5)), 0);
        check_int(daemon_poll_timeout(S(4), S(5)), 0);
        check_int(daemon_poll_timeout(S(5) + 1, S(5)), 1);
        check_int(daemon_poll_timeout(S(6), S(5)), 1000);
        check_int(daemon_poll_timeout(S(5) + S(86400) * 366, S(5)), INT32_MAX);

        /* Done when stopping, or synchronised or timed out without stay. */
        check(daemon_finished(DAEMON_STOPPING, true));
        check(daemon_finished(DAEMON_SYNCHRONIZED, false));
        check(daemon_finished(DAEMON_TIMED_OUT, false));
        check(!daemon_finished(DAEMON_SYNCHRONIZED, true));
        check(!daemon_finished(DAEMON_TIMED_OUT, true));
        check(!daemon_finished(DAEMON_WAITING_FOR_NETWORK, false));
        check(!daemon_finished(DAEMON_WAITING_FOR_SYNC, false));
}

/* One RTM_NEWROUTE message with the attributes given (0 for absent). */
static size_t route_msg(void *buf, int type, int family, unsigned dst_len, unsigned char rtype,
        unsigned table, const char *gateway, int oif)
{
        struct nlmsghdr *h = buf;
        struct rtmsg *rt;
        struct rtattr *a;

        memset(buf, 0, 256);
        h->nlmsg_type = (unsigned short)type;
        h->nlmsg_len = NLMSG_LENGTH(sizeof(*rt));
        rt = NLMSG_DATA(h);
        rt->rtm_family = (unsigned char)family;
        rt->rtm_dst_len = (unsigned char)dst_len;
        rt->rtm_type = rtype;
        rt->rtm_table = table > 255 ? RT_TABLE_COMPAT : (unsigned char)table;
        if (table > 255) {
                a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
                a->rta_type = RTA_TABLE;
                a->rta_len = RTA_LENGTH(4);
                memcpy(RTA_DATA(a), &table, 4);
                h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
        }
        if (gateway) {
                a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
                a->rta_type = RTA_GATEWAY;
                a->rta_len = RTA_LENGTH(family == AF_INET ? 4 : 16);
                inet_pton(family, gateway, RTA_DATA(a));
                h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
        }
        if (oif) {
                a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
                a->rta_type = RTA_OIF;
                a->rta_len = RTA_LENGTH(4);
                memcpy(RTA_DATA(a), &oif, 4);
                h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
        }
        return h->nlmsg_len;
}

static void test_sync_sign(void)
{
        struct ntp_kernel unsynced = { .maxerror = NTP_MAXERROR_UNSYNCED }, low = { .maxerror = 4444 },
                          pll = { .maxerror = NTP_MAXERROR_UNSYNCED, .pll = true },
                          ntpsec_start = { .maxerror = 16, .pll = true };

        check_int(sync_sign_of(&unsynced, false), SYNC_SIGN_NONE);
        check_int(sync_sign_of(NULL, false), SYNC_SIGN_NONE);
        /* 16 s less a microsecond counts: systemd-timedated's rule. */
        check_int(sync_sign_of(&(struct ntp_kernel){ .maxerror = NTP_MAXERROR_UNSYNCED - 1 }, false),
                SYNC_SIGN_KERNEL);
        check_int(sync_sign_of(&low, false), SYNC_SIGN_KERNEL);
        check_int(sync_sign_of(&ntpsec_start, false), SYNC_SIGN_KERNEL);
        /* busybox ntpd: the PLL on, the maximum error never lowered. */
        check_int(sync_sign_of(&pll, false), SYNC_SIGN_PLL);
        /* timesyncd's flag first: it says more than the kernel. */
        check_int(sync_sign_of(&unsynced, true), SYNC_SIGN_TIMESYNCD);
        check_int(sync_sign_of(&low, true), SYNC_SIGN_TIMESYNCD);
        check_str(sync_sign_name(SYNC_SIGN_KERNEL), "kernel");
        check_str(sync_sign_name(SYNC_SIGN_PLL), "kernel-pll");
        check_str(sync_sign_name(SYNC_SIGN_TIMESYNCD), "timesyncd");
        check_str(sync_sign_name(SYNC_SIGN_NONE), "none");
}

static void test_expects_step(void)
{
        usec_t floor = S(1790000000), target = S(1796000000);

        /* clockfix set the clock to its estimate 0.5 s ago, 5 s into the boot. */
        check(sync_expects_step(target + 500000, S(5), true, target, floor));
        /* The initramfs set it at 2 s, the daemon starts at 9 s: 7 s later, within the 9 s of the boot. */
        check(sync_expects_step(target + S(7), S(9), true, target, floor));
        check(sync_expects_step(target + S(9), S(9), true, target, floor));
        /* Later than the estimate plus the whole boot: from an RTC, or NTP before a restart. */
        check(!sync_expects_step(target + S(10), S(9), true, target, floor));
        check(!sync_expects_step(target + S(86400), S(9), true, target, floor));
        /* Behind the estimate (--dry-run did not set it): NTP must step it. */
        check(sync_expects_step(target - S(3600), S(9), true, target, floor));
        /* No estimate: only a clock before the floor is known to be wrong. */
        check(sync_expects_step(S(946684800), S(9), false, 0, floor));
        check(!sync_expects_step(floor + S(1), S(9), false, 0, floor));
        check(sync_expects_step(floor - S(1), S(9000), true, target, floor));
}

/* One look at the clock in a client's boot: at boot time AT s, a step (STEP), or a look that
 * finds SIGN and must give VERDICT. */
struct look {
        double at;
        bool step;
        enum sync_sign sign;
        enum sync_verdict verdict;
};

/* (clang-format 14 and 19 lay a braced macro out each its own way: left as written) */
// clang-format off
#define STEP(t)       { t, true, SYNC_SIGN_NONE, SYNC_NOT_YET }
#define LOOK(t, s, v) { t, false, SYNC_SIGN_##s, SYNC_##v }
// clang-format on

/* Plays the looks on a watch started with step_expected; the index of the first wrong verdict, or -1. */
static int play(bool step_expected, const struct look *looks, size_t n)
{
        struct sync_watch w;

        sync_watch_init(&w, step_expected);
        for (size_t i = 0; i < n; i++) {
                usec_t now = (usec_t)(looks[i].at * USEC_PER_SEC);
                if (looks[i].step)
                        sync_watch_step(&w, now);
                else if (sync_watch_judge(&w, looks[i].sign, now) != looks[i].verdict)
                        return (int)i;
        }
        return -1;
}

#define PLAY(expected, ...)                                                                                 \
        do {                                                                                                \
                const struct look l_[] = { __VA_ARGS__ };                                                   \
                check_int(play(expected, l_, sizeof(l_) / sizeof(l_[0])), -1);                              \
        } while (0)

static void test_sync_watch(void)
{
        /* systemd-timesyncd: steps and lowers the maximum error in one call, then touches its flag. */
        PLAY(true, LOOK(5, NONE, NOT_YET), STEP(17.0), LOOK(17.0, KERNEL, REAL));
        PLAY(true, STEP(17.0), LOOK(17.0, TIMESYNCD, REAL));
        /* chrony: a step of nothing at its start (not a step: the daemon does not pass it on), the
         * real step, the maximum error lowered 2 s later. */
        PLAY(true, LOOK(12.6, NONE, NOT_YET), STEP(17.06), LOOK(17.06, NONE, NOT_YET),
                LOOK(17.56, NONE, NOT_YET), LOOK(19.06, NONE, NOT_YET), LOOK(19.56, KERNEL, REAL));
        /* ntpsec 1.2: synchronised as it starts, before any reply; its step 8 s later; the PLL on. */
        PLAY(true, LOOK(12.0, KERNEL, UNSTEPPED), LOOK(14.0, KERNEL, UNSTEPPED), STEP(20.0),
                LOOK(20.0, PLL, REAL));
        /* ntpsec with Debian's minsane 3 and one server: the false sign for ever, no step, never real. */
        PLAY(true, LOOK(12.0, KERNEL, UNSTEPPED), LOOK(60.0, KERNEL, UNSTEPPED),
                LOOK(3600.0, KERNEL, UNSTEPPED), LOOK(30000.0, KERNEL, UNSTEPPED));
        /* busybox ntpd: the step, the PLL on a moment later, the maximum error never lowered. */
        PLAY(true, STEP(15.0), LOOK(15.0, NONE, NOT_YET), LOOK(15.5, PLL, REAL));
        /* openntpd -s: the step at its first reply, "clock is now synced" minutes later. */
        PLAY(true, STEP(14.0), LOOK(14.0, NONE, NOT_YET), LOOK(180.0, NONE, NOT_YET),
                LOOK(210.5, KERNEL, REAL));

        /* A clock that was right already (an RTC): a real synchronisation with no step to make is
         * taken once it held SYNC_SETTLE with no step... */
        PLAY(false, LOOK(20.0, KERNEL, SETTLING), LOOK(49.9, KERNEL, SETTLING), LOOK(50.0, KERNEL, REAL));
        /* ... at once from timesyncd's flag ... */
        PLAY(false, LOOK(20.0, TIMESYNCD, REAL));
        /* ... and ntpsec's false sign is passed over when its step comes within SYNC_SETTLE. */
        PLAY(false, LOOK(12.0, KERNEL, SETTLING), STEP(20.0), LOOK(20.0, PLL, REAL));
        /* A sign that goes away starts again from nothing. */
        PLAY(false, LOOK(10.0, KERNEL, SETTLING), LOOK(30.0, NONE, NOT_YET), LOOK(35.0, KERNEL, SETTLING),
                LOOK(64.9, KERNEL, SETTLING), LOOK(65.0, KERNEL, REAL));
        /* A step with no sign after it is not a synchronisation (date -s, timesyncd's clock file). */
        PLAY(true, STEP(8.0), LOOK(8.0, NONE, NOT_YET), LOOK(600.0, NONE, NOT_YET));
}

static void test_next_check(void)
{
        struct sync_watch w;

        /* The network down and no step: nothing wakes the daemon but an event. */
        sync_watch_init(&w, true);
        check(daemon_next_check(&w, false, S(1), S(100)) == USEC_INFINITY);
        /* The network up: the backing off interval. */
        check(daemon_next_check(&w, true, S(8), S(100)) == S(108));
        check(daemon_next_check(&w, true, USEC_INFINITY, S(100)) == USEC_INFINITY);
        /* After a step: every 0.5 s for 10 minutes, network or not; then back to the interval. */
        sync_watch_step(&w, S(100));
        check(daemon_next_check(&w, false, S(1), S(100)) == S(100) + 500000);
        check(daemon_next_check(&w, true, S(32), S(699)) == S(699) + 500000);
        check(daemon_next_check(&w, true, S(32), S(700)) == S(732));
        check(daemon_next_check(&w, false, S(32), S(700)) == USEC_INFINITY);
        /* A sign settling: looked at again when it is old enough. */
        sync_watch_init(&w, false);
        check_int(sync_watch_judge(&w, SYNC_SIGN_KERNEL, S(40)), SYNC_SETTLING);
        check(daemon_next_check(&w, true, S(32), S(41)) == S(70));
        check(daemon_next_check(&w, true, S(8), S(41)) == S(49));
}

/* The signals the daemon reads: the stops of init systems and terminals stop it, SIGHUP does not. */
static void test_signals(void)
{
        sigset_t set;

        daemon_signals(&set);
        for (int sig = 1; sig < 32; sig++) {
                bool read = sig == SIGTERM || sig == SIGINT || sig == SIGQUIT || sig == SIGHUP;
                check_int(sigismember(&set, sig), read);
                check_int(daemon_signal_stops(sig), read && sig != SIGHUP);
        }
}

static void test_route(void)
{
        _Alignas(struct nlmsghdr) char buf[256];
        struct default_route r;
        size_t n;

        n = route_msg(buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, "192.0.2.1", 3);
        check(route_message_is_default(buf, n, &r));
        check_int(r.family, AF_INET);
        check_str(r.gateway, "192.0.2.1");
        check_int(r.ifindex, 3);
        n = route_msg(buf, RTM_NEWROUTE, AF_INET6, 0, RTN_UNICAST, RT_TABLE_MAIN, "fe80::1", 2);
        check(route_message_is_default(buf, n, &r));
        check_str(r.gateway, "fe80::1");
        /* A default route on a link, without a gateway (point-to-point, "dev wwan0"). */
        n = route_msg(buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, NULL, 4);
        check(route_message_is_default(buf, n, &r));
        check_str(r.gateway, "");
        /* The table in RTA_TABLE wins over rtm_table. */
        n = route_msg(buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, 1000, "192.0.2.1", 3);
        check(!route_message_is_default(buf, n, NULL));
        /* Not defaults: a subnet, a removal, an unreachable default, the local table, truncated. */
        n = route_msg(buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST, RT_TABLE_MAIN, NULL, 3);
        check(!route_message_is_default(buf, n, NULL));
        n = route_msg(buf, RTM_DELROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, "192.0.2.1", 3);
        check(!route_message_is_default(buf, n, NULL));
        n = route_msg(buf, RTM_NEWROUTE, AF_INET6, 0, RTN_UNREACHABLE, RT_TABLE_MAIN, NULL, 1);
        check(!route_message_is_default(buf, n, NULL));
        n = route_msg(buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_LOCAL, NULL, 1);
        check(!route_message_is_default(buf, n, NULL));
        n = route_msg(buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, "192.0.2.1", 3);
        check(!route_message_is_default(buf, sizeof(struct nlmsghdr) + 4, NULL));
        ((struct nlmsghdr *)buf)->nlmsg_len = (unsigned)n + 64; /* claims more than there is */
        check(!route_message_is_default(buf, n, NULL));
}

struct seen {
        char text[1024];
        size_t len;
};

static int record(const char *key, const char *value, unsigned line, void *userdata)
{
        struct seen *s = userdata;

        s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%u:%s=%s;", line, key,
                value ? value : "(none)");
        return strcmp(key, "stop") == 0 ? -ECANCELED : 0;
}

static void test_conf(void)
{
        struct seen s = { 0 };

        check_int(conf_parse("# clockfix\n\nmargin = 2\n  not_after=2040-01-01  \n"
                             "device = \"/dev/disk/by-label/my root\"\n\tntp-unit=chrony.service\r\n"
                             "bare line\nempty =\n  # indented comment\nlast=1",
                          record, &s),
                0);
        check_str(s.text,
                "3:margin=2;4:not-after=2040-01-01;5:device=/dev/disk/by-label/my root;"
                "6:ntp-unit=chrony.service;7:bare line=(none);8:empty=;10:last=1;");

        /* A handler's error stops the parse. */
        s = (struct seen){ 0 };
        check_int(conf_parse("a=1\nstop=now\nb=2\n", record, &s), -ECANCELED);
        check_str(s.text, "1:a=1;2:stop=now;");

        /* Nothing at all, and a line longer than any setting: cut, not overflowing. */
        s = (struct seen){ 0 };
        check_int(conf_parse("", record, &s), 0);
        check_int((int)s.len, 0);
        char long_line[3000];
        memset(long_line, 'x', sizeof(long_line) - 1);
        long_line[sizeof(long_line) - 1] = '\0';
        long_line[5] = '=';
        check_int(conf_parse(long_line, record, &s), 0);
        check(strncmp(s.text, "1:xxxxx=xxx", 11) == 0);
}

int main(void)
{
        test_correction();
        test_estimate_error();
        test_save_due();
        test_timers();
        test_sync_sign();
        test_expects_step();
        test_sync_watch();
        test_next_check();
        test_signals();
        test_route();
        test_conf();
        test_end();
}
