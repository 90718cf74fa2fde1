/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd: what the daemon asks of systemd, through libsystemd loaded on first use */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

#include "basic/dlopen-util.h"
#include "basic/stat-util.h"
#include "daemon/systemd.h"

/* Where systemd (PID 1) answers D-Bus calls from root without a bus daemon. */
#define SYSTEMD_PRIVATE_SOCKET "/run/systemd/private"

/* The functions called, each with the type of its prototype, so that the compiler checks each call. */
static typeof(sd_notify) *sym_sd_notify;
static typeof(sd_journal_sendv) *sym_sd_journal_sendv;
static typeof(sd_bus_open_system) *sym_sd_bus_open_system;
static typeof(sd_bus_new) *sym_sd_bus_new;
static typeof(sd_bus_set_address) *sym_sd_bus_set_address;
static typeof(sd_bus_start) *sym_sd_bus_start;
static typeof(sd_bus_call_method) *sym_sd_bus_call_method;
static typeof(sd_bus_error_free) *sym_sd_bus_error_free;
static typeof(sd_bus_message_unref) *sym_sd_bus_message_unref;
static typeof(sd_bus_flush_close_unref) *sym_sd_bus_flush_close_unref;
static typeof(sd_pid_get_unit) *sym_sd_pid_get_unit;

static bool loaded;

int systemd_load(const char **ret_reason)
{
        static const struct dlopen_symbol syms[] = {
                DLOPEN_SYMBOL(sd_notify),
                DLOPEN_SYMBOL(sd_journal_sendv),
                DLOPEN_SYMBOL(sd_bus_open_system),
                DLOPEN_SYMBOL(sd_bus_new),
                DLOPEN_SYMBOL(sd_bus_set_address),
                DLOPEN_SYMBOL(sd_bus_start),
                DLOPEN_SYMBOL(sd_bus_call_method),
                DLOPEN_SYMBOL(sd_bus_error_free),
                DLOPEN_SYMBOL(sd_bus_message_unref),
                DLOPEN_SYMBOL(sd_bus_flush_close_unref),
                DLOPEN_SYMBOL(sd_pid_get_unit),
        };
        static char error[256];

        if (loaded)
                return 0;
        if (dlopen_symbols("libsystemd.so.0", syms, sizeof(syms) / sizeof(syms[0]), error, sizeof(error)) <
                0) {
                *ret_reason = error;
                return -EOPNOTSUPP;
        }
        loaded = true;
        return 0;
}

int systemd_notify(const char *state)
{
        if (!loaded)
                return -EOPNOTSUPP;
        return sym_sd_notify(0, state);
}

int systemd_journal_send(const struct iovec *fields, size_t n)
{
        if (!loaded)
                return -EOPNOTSUPP;
        return sym_sd_journal_sendv(fields, (int)n);
}

int systemd_own_unit(char **ret)
{
        if (!loaded)
                return -EOPNOTSUPP;
        return sym_sd_pid_get_unit(0, ret);
}

int systemd_start_unit(const char *unit, char *reason, size_t size)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        int r;

        if (!loaded)
                return -EOPNOTSUPP;
        /*
         * systemd's own socket first, as systemctl does for root: it is there before the system bus
         * starts at boot and after it stops at shutdown, the two times the daemon needs it most.
         */
        r = geteuid() == 0 ? sym_sd_bus_new(&bus) : -EPERM;
        if (r >= 0 && (r = sym_sd_bus_set_address(bus, "unix:path=" SYSTEMD_PRIVATE_SOCKET)) >= 0)
                r = sym_sd_bus_start(bus);
        if (r < 0) {
                bus = sym_sd_bus_flush_close_unref(bus);
                r = sym_sd_bus_open_system(&bus);
        }
        if (r < 0) {
                snprintf(reason, size, "cannot connect to systemd (%s) or the system bus",
                        SYSTEMD_PRIVATE_SOCKET);
                return r;
        }
        r = sym_sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                "org.freedesktop.systemd1.Manager", "StartUnit", &error, &reply, "ss", unit, "replace");
        if (r < 0)
                snprintf(reason, size, "%s", error.message ? error.message : "StartUnit failed");
        sym_sd_bus_error_free(&error);
        sym_sd_bus_message_unref(reply);
        sym_sd_bus_flush_close_unref(bus);
        return r < 0 ? r : 0;
}

/* The file's mtime in ns, or 0. */
static uint64_t file_mtime(const char *path)
{
        struct file_stat st;

        if (file_stat(path, &st) < 0)
                return 0;
        return (uint64_t)st.mtime.tv_sec * 1000000000u + st.mtime.tv_nsec;
}

int systemd_unit_writes(const char *unit, const char *path, char *reason, size_t size)
{
        uint64_t before = file_mtime(path);
        char why[256];
        int r;

        if (!loaded) {
                snprintf(reason, size, "no libsystemd to start %s", unit);
                return -EOPNOTSUPP;
        }
        r = systemd_start_unit(unit, why, sizeof(why));
        if (r < 0) {
                snprintf(reason, size, "cannot start %s: %s", unit, why);
                return r;
        }
        for (int i = 0; i < 50; i++) {
                if (file_mtime(path) != before)
                        return 0;
                usleep(100000);
        }
        snprintf(reason, size, "%s did not write it within 5 s", unit);
        return -ETIMEDOUT;
}
