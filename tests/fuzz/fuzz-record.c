/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-record: the record of times in the future on any bytes: what it keeps are well-formed
 * entries, never more than clockfix writes; written again and read back it is the same; and
 * updated with the times of a disk it stays within bounds.
 */

#include <string.h>

#include "core/record.h"
#include "fuzz.h"

static void check_entries(const struct record *r)
{
        FUZZ_CHECK(r->n <= RECORD_MAX_ENTRIES);
        FUZZ_CHECK(r->error == 0 || r->n == 0);
        for (size_t i = 0; i < r->n; i++) {
                FUZZ_CHECK(strlen(r->entries[i].uuid) == 36);
                FUZZ_CHECK(strlen(r->entries[i].source) > 0 && strchr(r->entries[i].source, ':'));
                FUZZ_CHECK(r->entries[i].time > 0 && r->entries[i].time < USEC_INFINITY);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct record r, again, next;
        char *text = NULL;
        size_t added;

        if (size > RECORD_MAX_BYTES)
                return 0;
        FUZZ_CHECK(record_parse((const char *)data, size, &r) == 0);
        check_entries(&r);

        /* Formatted and parsed again: the same entries, in the same order. */
        FUZZ_CHECK(record_format(&r, &text) == 0);
        FUZZ_CHECK(strlen(text) <= RECORD_MAX_BYTES);
        FUZZ_CHECK(record_parse(text, strlen(text), &again) == 0);
        FUZZ_CHECK(again.error == 0 && again.bad_lines == 0 && again.n == r.n);
        for (size_t i = 0; i < r.n; i++)
                FUZZ_CHECK(memcmp(&again.entries[i], &r.entries[i], sizeof(r.entries[i])) == 0);

        /* Updated with the disk's times being the record's own entries: nothing is new, nothing dropped. */
        struct candidate c[RECORD_MAX_ENTRIES];
        for (size_t i = 0; i < r.n; i++)
                c[i] = (struct candidate){ .device = "fuzz",
                        .source = r.entries[i].source,
                        .time = r.entries[i].time,
                        .uuid = r.entries[i].uuid };
        FUZZ_CHECK(record_update(&r, c, r.n, 0, 0, &next, &added) == 0);
        FUZZ_CHECK(added == 0 && next.n == r.n);
        record_done(&next);
        /* With the clock past them all: each is kept (still on the disk), none added. */
        FUZZ_CHECK(record_update(&r, c, r.n, USEC_INFINITY - 1, 0, &next, &added) == 0);
        FUZZ_CHECK(added == 0 && next.n == r.n);
        record_done(&next);

        free(text);
        record_done(&again);
        record_done(&r);
        return 0;
}
