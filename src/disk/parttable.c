/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* parttable: a partition's PARTUUID and GPT name from its disk's MBR or GPT (see parttable.h) */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "disk/parttable.h"

#define MBR_SIZE             512
#define MBR_SIGNATURE_OFFSET 440
#define MBR_ENTRIES_OFFSET   446
#define MBR_TYPE_GPT         0xee
#define GPT_HEADER_SIZE      92
#define GPT_ENTRY_MIN_SIZE   128
#define GPT_ENTRY_MAX_SIZE   4096
#define GPT_NAME_UNITS       36

static uint32_t le32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
        return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* UTF-16LE, up to a NUL, to UTF-8 (an unpaired surrogate as U+FFFD), as libblkid and udev name it. */
static void utf16le_to_utf8(const uint8_t *s, size_t units, char *out, size_t size)
{
        size_t j = 0;

        for (size_t i = 0; i < units; i++) {
                uint32_t c = (uint32_t)s[2 * i] | (uint32_t)s[2 * i + 1] << 8;

                if (c == 0)
                        break;
                if (c >= 0xd800 && c <= 0xdbff && i + 1 < units) {
                        uint32_t lo = (uint32_t)s[2 * i + 2] | (uint32_t)s[2 * i + 3] << 8;
                        if (lo >= 0xdc00 && lo <= 0xdfff) {
                                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                                i++;
                        } else
                                c = 0xfffd;
                } else if (c >= 0xd800 && c <= 0xdfff)
                        c = 0xfffd;

                uint8_t b[4];
                size_t n;
                if (c < 0x80) {
                        b[0] = (uint8_t)c;
                        n = 1;
                } else if (c < 0x800) {
                        b[0] = (uint8_t)(0xc0 | c >> 6);
                        b[1] = (uint8_t)(0x80 | (c & 0x3f));
                        n = 2;
                } else if (c < 0x10000) {
                        b[0] = (uint8_t)(0xe0 | c >> 12);
                        b[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
                        b[2] = (uint8_t)(0x80 | (c & 0x3f));
                        n = 3;
                } else {
                        b[0] = (uint8_t)(0xf0 | c >> 18);
                        b[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
                        b[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
                        b[3] = (uint8_t)(0x80 | (c & 0x3f));
                        n = 4;
                }
                if (j + n >= size)
                        break;
                memcpy(out + j, b, n);
                j += n;
        }
        out[j] = '\0';
}

/* A GUID as the kernel's %pUl prints it: the first three fields little-endian, lower case. */
static void guid_format(const uint8_t *g, char out[37])
{
        snprintf(out, 37, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", le32(g),
                (unsigned)(g[4] | g[5] << 8), (unsigned)(g[6] | g[7] << 8), g[8], g[9], g[10], g[11], g[12],
                g[13], g[14], g[15]);
}

uint32_t parttable_crc32(const void *data, size_t size)
{
        const uint8_t *p = data;
        uint32_t crc = 0xffffffffu;

        for (size_t i = 0; i < size; i++) {
                crc ^= p[i];
                for (int bit = 0; bit < 8; bit++)
                        crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
        }
        return ~crc;
}

static int gpt_lookup(parttable_read_fn read, void *userdata, const struct parttable_kernel *k,
        struct parttable_entry *ret)
{
        uint8_t h[4096], e[GPT_ENTRY_MIN_SIZE];
        uint64_t offset, first, last, scale = k->sector_size / 512;
        uint32_t entries, entry_size, header_size, crc;
        int r;

        /*
         * The primary header, at LBA 1, whole sector. The kernel takes it only if its CRC holds (else
         * the backup at the disk's end, which is not read here: libblkid decides then); the entry's
         * start and size checked against the kernel's below stand for the entries' own CRC.
         */
        r = read(userdata, k->sector_size, h, k->sector_size);
        if (r < 0)
                return r;
        if (memcmp(h, "EFI PART", 8) != 0)
                return 0;
        header_size = le32(h + 12);
        if (header_size < GPT_HEADER_SIZE || header_size > k->sector_size)
                return 0;
        crc = le32(h + 16);
        memset(h + 16, 0, 4);
        if (parttable_crc32(h, header_size) != crc)
                return 0;
        entries = le32(h + 80);
        entry_size = le32(h + 84);
        if (k->partno > entries || entry_size < GPT_ENTRY_MIN_SIZE || entry_size > GPT_ENTRY_MAX_SIZE ||
                entry_size % 8 != 0)
                return 0;
        if (__builtin_mul_overflow(le64(h + 72), (uint64_t)k->sector_size, &offset) ||
                __builtin_add_overflow(offset, (uint64_t)(k->partno - 1) * entry_size, &offset))
                return 0;
        r = read(userdata, offset, e, sizeof(e));
        if (r < 0)
                return r;
        /* Entry k->partno - 1 is partition k->partno (efi.c numbers them so, skipping unused ones). */
        first = le64(e + 32);
        last = le64(e + 40);
        if (last < first || first > UINT64_MAX / scale || (last - first) >= UINT64_MAX / scale ||
                first * scale != k->start || (last - first + 1) * scale != k->size)
                return 0;
        guid_format(e + 16, ret->uuid);
        utf16le_to_utf8(e + 56, GPT_NAME_UNITS, ret->name, sizeof(ret->name));
        return 1;
}

/* Whether sector start (512 bytes) lies in one of the MBR's extended partitions (types 0x05, 0x0f, 0x85). */
static bool in_extended(const uint8_t *mbr, uint64_t scale, uint64_t start)
{
        for (unsigned i = 0; i < 4; i++) {
                const uint8_t *p = mbr + MBR_ENTRIES_OFFSET + 16 * i;
                uint64_t first = (uint64_t)le32(p + 8) * scale, size = (uint64_t)le32(p + 12) * scale;
                if ((p[4] == 0x05 || p[4] == 0x0f || p[4] == 0x85) && start >= first && start - first < size)
                        return true;
        }
        return false;
}

int parttable_lookup(parttable_read_fn read, void *userdata, const struct parttable_kernel *k,
        struct parttable_entry *ret)
{
        uint8_t mbr[MBR_SIZE];
        bool protective = false;
        int r;

        if (k->partno == 0 || k->sector_size < 512 || k->sector_size > 4096 || k->sector_size % 512 != 0)
                return 0;
        r = read(userdata, 0, mbr, sizeof(mbr));
        if (r < 0)
                return r;
        if (mbr[510] != 0x55 || mbr[511] != 0xaa)
                return 0;
        for (unsigned i = 0; i < 4; i++)
                if (mbr[MBR_ENTRIES_OFFSET + 16 * i + 4] == MBR_TYPE_GPT)
                        protective = true;
        if (protective)
                return gpt_lookup(read, userdata, k, ret);

        /*
         * The kernel's msdos parser: "%08x-%02x", the disk signature and the partition's number. A
         * logical partition (5 on) only inside an extended one: partitions the kernel numbers so from
         * elsewhere (blkdevparts=, a BSD label inside a primary) have no PARTUUID.
         */
        if (k->partno > 255)
                return 0;
        uint64_t scale = k->sector_size / 512;
        if (k->partno <= 4) {
                const uint8_t *p = mbr + MBR_ENTRIES_OFFSET + 16 * (k->partno - 1);
                if ((uint64_t)le32(p + 8) * scale != k->start || (uint64_t)le32(p + 12) * scale != k->size)
                        return 0;
        } else if (!in_extended(mbr, scale, k->start))
                return 0;
        snprintf(ret->uuid, sizeof(ret->uuid), "%08x-%02x", le32(mbr + MBR_SIGNATURE_OFFSET), k->partno);
        ret->name[0] = '\0';
        return 1;
}
