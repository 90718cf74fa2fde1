/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sync-report: the entry at NTP's synchronisation, in the journal (its fields, one message id
 * to find them by) or, without journald, on one line of the log with the same fields.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "basic/log.h"
#include "daemon/learn.h"
#include "daemon/sync-report.h"
#include "daemon/systemd.h"

/* The journal's message id of "NTP synchronised the clock; this is how far off the estimate was". */
#define MESSAGE_ID_SYNCHRONIZED "56e30c5a17be4318aa6b9584b7e12d7e"

/* Where journald takes structured entries. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

int64_t sync_correction(const struct daemon_start *s, usec_t realtime, usec_t boottime)
{
        /* Where the clock would be had nobody stepped it: the start plus the boot time since. */
        usec_t expected = s->realtime + (boottime >= s->boottime ? boottime - s->boottime : 0);

        return realtime >= expected ? (int64_t)(realtime - expected) : -(int64_t)(expected - realtime);
}

int64_t sync_estimate_error(const struct daemon_start *s, int64_t correction)
{
        /* The clock was set to the estimate: the clock's error was the estimate's. */
        if (s->stepped)
                return -correction;
        /* The estimate was target when the clock read realtime; the truth then: realtime + correction. */
        int64_t ahead = s->target >= s->realtime ? (int64_t)(s->target - s->realtime)
                                                 : -(int64_t)(s->realtime - s->target);
        return ahead - correction;
}

void sync_describe_source(const struct daemon_start *s, char *buf, size_t size)
{
        if (!s->source)
                snprintf(buf, size, "no disk time");
        else if (s->device)
                snprintf(buf, size, "%s of %s", s->source, s->device);
        else
                snprintf(buf, size, "%s", s->source);
}

/*
 * "KEY=VALUE KEY=\"VALUE WITH SPACES\"": the entry's fields (f, n of them) on one line, for syslog.
 * Returns buf.
 */
static char *format_fields(char *buf, size_t size, char f[][1300], size_t n)
{
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n && len < size; i++) {
                const char *eq = strchr(f[i], '=');
                bool quote = eq && strchr(eq, ' ');
                int w = snprintf(buf + len, size - len, "%s%.*s%s%s%s", i ? " " : "",
                        (int)(eq ? eq - f[i] + 1 : 0), f[i], quote ? "\"" : "", eq ? eq + 1 : f[i],
                        quote ? "\"" : "");
                if (w < 0)
                        break;
                len += (size_t)w;
        }
        return buf;
}

void sync_report(const struct daemon_start *s, const struct sync_event *y, bool have_sd, char *status,
        size_t status_size)
{
        usec_t boot = y->boottime;
        int64_t correction = sync_correction(s, y->realtime, boot);
        int64_t error = sync_estimate_error(s, correction);
        bool stepped = y->steps > 0;
        usec_t since_step = stepped && boot >= y->last_step ? boot - y->last_step : 0;
        const struct learn_summary *future = y->future;
        const char *how = y->signal;
        char source[512], by[SECONDS_MAX + 1], off[SECONDS_MAX + 1], after[SECONDS_MAX],
                step[SECONDS_MAX + 64], message[1200], fields[4096];

        sync_describe_source(s, source, sizeof(source));
        format_signed_seconds(by, correction);
        format_signed_seconds(off, error);
        format_seconds(after, boot - s->boottime);
        if (stepped) {
                char t[SECONDS_MAX];
                snprintf(step, sizeof(step), ", %s s after NTP stepped it", format_seconds(t, since_step));
        } else
                snprintf(step, sizeof(step), ", with no step");
        snprintf(message, sizeof(message),
                "Clock synchronised by NTP (%s) %s s after clockfix %s%s: NTP corrected the clock by %s s; the "
                "estimate from %s was %s s off",
                how, after, s->stepped ? "set it" : "started (it left the clock alone)", step, by, source,
                off);

        /* 11 fields always, 1 after a step, 4 with times in the future: a field more needs room here. */
        enum { FIELDS_MAX = 11 + 1 + 4 };
        char f[FIELDS_MAX][1300];
        struct iovec iov[FIELDS_MAX];
        size_t n = 0;
        snprintf(f[n++], sizeof(f[0]), "MESSAGE=%s", message);
        snprintf(f[n++], sizeof(f[0]), "MESSAGE_ID=%s", MESSAGE_ID_SYNCHRONIZED);
        snprintf(f[n++], sizeof(f[0]), "PRIORITY=%d", LOG_NOTICE);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SOURCE=%s", s->source ? s->source : "none");
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_DEVICE=%s", s->device ? s->device : "");
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_ACTION=%s", s->stepped ? "set" : "none");
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_ESTIMATE_USEC=%" PRIu64, s->target);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_CORRECTION_USEC=%" PRId64, correction);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_ESTIMATE_ERROR_USEC=%" PRId64, error);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SYNC_WAIT_USEC=%" PRIu64, boot - s->boottime);
        snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SYNC_SIGNAL=%s", how);
        if (stepped)
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_SYNC_AFTER_STEP_USEC=%" PRIu64, since_step);
        if (future && future->n_future > 0) {
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_FUTURE_COUNT=%zu", future->n_future);
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_FUTURE_SOURCES=%s", future->sources);
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_FUTURE_FIX=%s", future->fix);
                snprintf(f[n++], sizeof(f[0]), "CLOCKFIX_RECORD=%s", y->record_path);
        }
        for (size_t i = 0; i < n; i++)
                iov[i] = (struct iovec){ .iov_base = f[i], .iov_len = strlen(f[i]) };

        /*
         * Without the journal (not under systemd, no libsystemd): the same on stderr, on one line.
         * sd_journal_sendv() says nothing when journald is not there: look for its socket first.
         */
        if (!have_sd || access(JOURNAL_SOCKET, W_OK) < 0 || systemd_journal_send(iov, n) < 0)
                log_notice("%s [%s]", message, format_fields(fields, sizeof(fields), f + 3, n - 3));

        snprintf(status, status_size, "Synchronised by NTP, which corrected the clock by %s s", by);
}
