/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sd: a static build has no libsystemd to load: the daemon says so and `set` is unaffected */

#include <errno.h>

#include "sd.h"

int sd_load(const char **ret_reason)
{
        *ret_reason = "this is a static build, without libsystemd";
        return -EOPNOTSUPP;
}

int sd_notify_state(const char *state)
{
        (void)state;
        return -EOPNOTSUPP;
}

int sd_journal_fields(const struct iovec *fields, size_t n)
{
        (void)fields;
        (void)n;
        return -EOPNOTSUPP;
}

int sd_start_unit(const char *unit, char *reason, size_t size)
{
        (void)unit;
        (void)reason;
        (void)size;
        return -EOPNOTSUPP;
}
