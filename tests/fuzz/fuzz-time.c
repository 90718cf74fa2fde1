/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-time: the parsers of times (options, kernel parameters, the file),
 * of seconds, and of fake-hwclock's date, on any text. A time that parses
 * prints back (ISO 8601) and parses again to the same second.
 */

#include <errno.h>
#include <string.h>

#include "basic/time-util.h"
#include "disk/stamps.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = malloc(size + 1), iso[ISO_TIME_MAX];
        usec_t t = 0, again = 0;
        int r;

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;

        r = parse_time(text, &t);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
        if (r == 0 && t / USEC_PER_SEC <= (usec_t)253402300799) { /* up to 9999-12-31T23:59:59Z */
                format_iso(iso, t);
                FUZZ_CHECK(parse_time(iso, &again) == 0);
                FUZZ_CHECK(again / USEC_PER_SEC == t / USEC_PER_SEC);
        }
        r = parse_seconds(text, &t);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
        r = parse_fake_hwclock((const char *)data, size, &t);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
        free(text);
        return 0;
}
