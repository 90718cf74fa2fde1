/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sd: the libsystemd calls of the daemon, with libsystemd loaded on first use */

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

#include "daemon/sd.h"

/* Where systemd (PID 1) answers D-Bus calls from root without a bus daemon. */
#define SYSTEMD_PRIVATE_SOCKET "/run/systemd/private"

/* The functions we call, with the types of their prototypes, so the compiler checks each call. */
static struct {
        bool loaded;
        typeof(sd_notify) *notify;
        typeof(sd_journal_sendv) *journal_sendv;
        typeof(sd_bus_open_system) *bus_open_system;
        typeof(sd_bus_new) *bus_new;
        typeof(sd_bus_set_address) *bus_set_address;
        typeof(sd_bus_start) *bus_start;
        typeof(sd_bus_call_method) *bus_call_method;
        typeof(sd_bus_error_free) *bus_error_free;
        typeof(sd_bus_message_unref) *bus_message_unref;
        typeof(sd_bus_flush_close_unref) *bus_flush_close_unref;
        typeof(sd_pid_get_unit) *pid_get_unit;
} sd;

int sd_load(const char **ret_reason)
{
        void *dl;

        if (sd.loaded)
                return 0;
        /* RTLD_NODELETE: never unloaded, so the pointers stay good. */
        dl = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_NODELETE);
        if (!dl) {
                *ret_reason = "libsystemd.so.0 cannot be loaded";
                return -EOPNOTSUPP;
        }
        if (!(sd.notify = (typeof(sd.notify))dlsym(dl, "sd_notify")) ||
                !(sd.journal_sendv = (typeof(sd.journal_sendv))dlsym(dl, "sd_journal_sendv")) ||
                !(sd.bus_open_system = (typeof(sd.bus_open_system))dlsym(dl, "sd_bus_open_system")) ||
                !(sd.bus_new = (typeof(sd.bus_new))dlsym(dl, "sd_bus_new")) ||
                !(sd.bus_set_address = (typeof(sd.bus_set_address))dlsym(dl, "sd_bus_set_address")) ||
                !(sd.bus_start = (typeof(sd.bus_start))dlsym(dl, "sd_bus_start")) ||
                !(sd.bus_call_method = (typeof(sd.bus_call_method))dlsym(dl, "sd_bus_call_method")) ||
                !(sd.bus_error_free = (typeof(sd.bus_error_free))dlsym(dl, "sd_bus_error_free")) ||
                !(sd.bus_message_unref = (typeof(sd.bus_message_unref))dlsym(dl, "sd_bus_message_unref")) ||
                !(sd.bus_flush_close_unref = (typeof(sd.bus_flush_close_unref))dlsym(
                          dl, "sd_bus_flush_close_unref")) ||
                !(sd.pid_get_unit = (typeof(sd.pid_get_unit))dlsym(dl, "sd_pid_get_unit"))) {
                *ret_reason = "libsystemd.so.0 lacks a function clockfix needs (older than systemd 221?)";
                dlclose(dl);
                return -EOPNOTSUPP;
        }
        sd.loaded = true;
        return 0;
}

int sd_notify_state(const char *state)
{
        if (!sd.loaded)
                return -EOPNOTSUPP;
        return sd.notify(0, state);
}

int sd_journal_fields(const struct iovec *fields, size_t n)
{
        if (!sd.loaded)
                return -EOPNOTSUPP;
        return sd.journal_sendv(fields, (int)n);
}

int sd_own_unit(char **ret)
{
        if (!sd.loaded)
                return -EOPNOTSUPP;
        return sd.pid_get_unit(0, ret);
}

int sd_start_unit(const char *unit, char *reason, size_t size)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        int r;

        if (!sd.loaded)
                return -EOPNOTSUPP;
        /*
         * systemd's own socket first, as systemctl does for root: it is there before the system bus
         * starts at boot and after it stops at shutdown, the two times the daemon needs it most.
         */
        r = geteuid() == 0 ? sd.bus_new(&bus) : -EPERM;
        if (r >= 0 && (r = sd.bus_set_address(bus, "unix:path=" SYSTEMD_PRIVATE_SOCKET)) >= 0)
                r = sd.bus_start(bus);
        if (r < 0) {
                bus = sd.bus_flush_close_unref(bus);
                r = sd.bus_open_system(&bus);
        }
        if (r < 0) {
                snprintf(reason, size, "cannot connect to systemd (%s) or the system bus",
                        SYSTEMD_PRIVATE_SOCKET);
                return r;
        }
        r = sd.bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                "org.freedesktop.systemd1.Manager", "StartUnit", &error, &reply, "ss", unit, "replace");
        if (r < 0)
                snprintf(reason, size, "%s", error.message ? error.message : "StartUnit failed");
        sd.bus_error_free(&error);
        sd.bus_message_unref(reply);
        sd.bus_flush_close_unref(bus);
        return r < 0 ? r : 0;
}
