/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-parttable: a partition's PARTUUID and GPT name from any disk bytes, for any partition the
 * kernel could state: no read outside the disk, and a found entry is a lower-case PARTUUID of
 * the MBR or GPT form and a name of valid UTF-8.
 *
 * The input: a byte for the partition number (0 to 255), a byte for the sector size (its low two
 * bits: 512, 1024, 2048 or 4096), the start and size in sectors (8 bytes each, little-endian),
 * then the disk.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "basic/utf8.h"
#include "disk/parttable.h"
#include "fuzz.h"

#define HEADER_SIZE 18

struct disk {
        const uint8_t *b;
        size_t size;
};

static int disk_read(void *userdata, uint64_t offset, void *buf, size_t size)
{
        const struct disk *d = userdata;

        if (offset > d->size || size > d->size - offset)
                return -EIO;
        memcpy(buf, d->b + offset, size);
        return 0;
}

static uint64_t le64(const uint8_t *p)
{
        uint64_t v = 0;

        for (int i = 7; i >= 0; i--)
                v = v << 8 | p[i];
        return v;
}

static void check_uuid(const char *u)
{
        size_t n = strlen(u);

        FUZZ_CHECK(n == 11 || n == 36);
        for (size_t i = 0; i < n; i++) {
                bool dash = n == 11 ? i == 8 : (i == 8 || i == 13 || i == 18 || i == 23);
                FUZZ_CHECK(
                        dash ? u[i] == '-' : (u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'f'));
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct parttable_kernel k;
        struct parttable_entry e;
        struct disk d;
        int r;

        if (size < HEADER_SIZE)
                return 0;
        k.partno = data[0];
        k.sector_size = 512u << (data[1] & 3);
        k.start = le64(data + 2);
        k.size = le64(data + 10);
        d.b = data + HEADER_SIZE;
        d.size = size - HEADER_SIZE;

        r = parttable_lookup(disk_read, &d, &k, &e);
        FUZZ_CHECK(r == 1 || r == 0 || r == -EIO);
        if (r == 1) {
                check_uuid(e.uuid);
                FUZZ_CHECK(strlen(e.name) <= 36 * 3);
                for (const unsigned char *s = (const unsigned char *)e.name; *s;) {
                        size_t n = utf8_sequence(s);
                        FUZZ_CHECK(n > 0);
                        s += n;
                }
        }
        return 0;
}
