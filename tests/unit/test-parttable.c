/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-parttable: PARTUUID and GPT names from MBR and GPT disks built in memory, and what is refused */

#include <errno.h>
#include <stdint.h>

#include "disk/parttable.h"
#include "test.h"

#define DISK_SIZE (64 * 1024)

struct disk {
        uint8_t b[DISK_SIZE];
        int fail; /* what every read returns, when not 0 */
};

static int disk_read(void *userdata, uint64_t offset, void *buf, size_t size)
{
        struct disk *d = userdata;

        if (d->fail)
                return d->fail;
        if (offset > DISK_SIZE || size > DISK_SIZE - offset)
                return -EIO; /* past the end: a short read */
        memcpy(buf, d->b + offset, size);
        return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
        for (int i = 0; i < 4; i++)
                p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
        put32(p, (uint32_t)v);
        put32(p + 4, (uint32_t)(v >> 32));
}

/*
 * An MBR with signature 0x6c586e13, partition 2 (type 0x83) at sectors 2048 + 4096, and partition 3
 * extended (type 0x05) at 8192 + 200000.
 */
static void make_mbr(struct disk *d)
{
        memset(d, 0, sizeof(*d));
        put32(d->b + 440, 0x6c586e13);
        d->b[446 + 16 + 4] = 0x83;
        put32(d->b + 446 + 16 + 8, 2048);
        put32(d->b + 446 + 16 + 12, 4096);
        d->b[446 + 32 + 4] = 0x05;
        put32(d->b + 446 + 32 + 8, 8192);
        put32(d->b + 446 + 32 + 12, 200000);
        d->b[510] = 0x55;
        d->b[511] = 0xaa;
}

/* The GPT header at sector_size given its CRC, after a change. */
static void seal(struct disk *d, unsigned sector_size)
{
        uint8_t *h = d->b + sector_size;

        put32(h + 16, 0);
        put32(h + 16, parttable_crc32(h, 92));
}

/* A GPT of sector_size, its entries at LBA 2: partition 1 at LBA 34 to 99, named name (UTF-16LE units). */
static void make_gpt(struct disk *d, unsigned sector_size, const uint16_t *name, size_t units)
{
        static const uint8_t guid[16] = { 0x3b, 0x2a, 0x19, 0x08, 0x5d, 0x4c, 0x7f, 0x6e, 0x81, 0x92, 0xa3,
                0xb4, 0xc5, 0xd6, 0xe7, 0xf8 };
        uint8_t *h = d->b + sector_size, *e = d->b + 2 * sector_size;

        memset(d, 0, sizeof(*d));
        d->b[446 + 4] = 0xee;
        d->b[510] = 0x55;
        d->b[511] = 0xaa;
        memcpy(h, "EFI PART", 8);
        put32(h + 12, 92);
        put64(h + 72, 2);
        put32(h + 80, 128);
        put32(h + 84, 128);
        e[0] = 0xaf; /* a type GUID: not looked at */
        memcpy(e + 16, guid, 16);
        put64(e + 32, 34);
        put64(e + 40, 99);
        for (size_t i = 0; i < units; i++) {
                e[56 + 2 * i] = (uint8_t)name[i];
                e[57 + 2 * i] = (uint8_t)(name[i] >> 8);
        }
        seal(d, sector_size);
}

static int lookup(struct disk *d, unsigned partno, uint64_t start, uint64_t size, unsigned sector_size,
        struct parttable_entry *e)
{
        struct parttable_kernel k = { partno, start, size, sector_size };

        memset(e, 0x5a, sizeof(*e));
        return parttable_lookup(disk_read, d, &k, e);
}

static void test_mbr(void)
{
        static struct disk d;
        struct parttable_entry e;

        make_mbr(&d);
        check_int(lookup(&d, 2, 2048, 4096, 512, &e), 1);
        check_str(e.uuid, "6c586e13-02");
        check_str(e.name, "");
        /* The kernel's partition elsewhere: another table than this one. */
        check_int(lookup(&d, 2, 2049, 4096, 512, &e), 0);
        check_int(lookup(&d, 2, 2048, 4095, 512, &e), 0);
        check_int(lookup(&d, 1, 2048, 4096, 512, &e), 0);
        /* 4 KiB sectors: the entry counts those, sysfs 512-byte ones. */
        check_int(lookup(&d, 2, 2048 * 8, 4096 * 8, 4096, &e), 1);
        check_int(lookup(&d, 2, 2048, 4096, 4096, &e), 0);
        /* A logical partition: the signature and the number, as the kernel names it; only inside the
         * extended one (else the kernel numbered it from something else than this MBR). */
        check_int(lookup(&d, 5, 123456, 789, 512, &e), 1);
        check_str(e.uuid, "6c586e13-05");
        check_int(lookup(&d, 17, 8193, 1, 512, &e), 1);
        check_str(e.uuid, "6c586e13-11");
        check_int(lookup(&d, 17, 1, 1, 512, &e), 0);
        check_int(lookup(&d, 17, 8192 + 200000, 1, 512, &e), 0);
        check_int(lookup(&d, 256, 8193, 1, 512, &e), 0);
        check_int(lookup(&d, 0, 2048, 4096, 512, &e), 0);
        /* Not a table, or no sector size the kernel has. */
        check_int(lookup(&d, 2, 2048, 4096, 1000, &e), 0);
        check_int(lookup(&d, 2, 2048, 4096, 8192, &e), 0);
        check_int(lookup(&d, 2, 2048, 4096, 0, &e), 0);
        d.b[511] = 0;
        check_int(lookup(&d, 2, 2048, 4096, 512, &e), 0);
        d.fail = -EIO;
        check_int(lookup(&d, 2, 2048, 4096, 512, &e), -EIO);
}

static void test_gpt(void)
{
        static struct disk d;
        struct parttable_entry e;
        /* "rootfs", "é€", G clef (a surrogate pair), a lone surrogate, 36 units without a NUL */
        static const uint16_t rootfs[] = { 'r', 'o', 'o', 't', 'f', 's' };
        static const uint16_t wide[] = { 'a', 0xe9, 0x20ac, 0xd834, 0xdd1e, 0xdc00, 'z' };
        uint16_t full[36];

        make_gpt(&d, 512, rootfs, 6);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 1);
        check_str(e.uuid, "08192a3b-4c5d-6e7f-8192-a3b4c5d6e7f8");
        check_str(e.name, "rootfs");
        check_int(lookup(&d, 1, 35, 66, 512, &e), 0);
        check_int(lookup(&d, 1, 34, 67, 512, &e), 0);
        /* An unused entry (LBA 0 to 0: not the kernel's), and one past the table's count. */
        check_int(lookup(&d, 2, 34, 66, 512, &e), 0);
        check_int(lookup(&d, 129, 34, 66, 512, &e), 0);

        make_gpt(&d, 512, wide, 7);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 1);
        check_str(e.name, "a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\xef\xbf\xbdz");
        for (int i = 0; i < 36; i++)
                full[i] = 0x20ac;
        make_gpt(&d, 512, full, 36);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 1);
        check_int(strlen(e.name), 36 * 3);

        /* 4 KiB sectors: the header at 4096, entries at LBA 2. */
        make_gpt(&d, 4096, rootfs, 6);
        check_int(lookup(&d, 1, 34 * 8, 66 * 8, 4096, &e), 1);
        check_str(e.name, "rootfs");
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);

        /* What no GPT has: entries too small or too large, a table beyond the disk, a last LBA before the
         * first. */
        make_gpt(&d, 512, rootfs, 6);
        put32(d.b + 512 + 84, 64);
        seal(&d, 512);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        put32(d.b + 512 + 84, 1u << 20);
        seal(&d, 512);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        put32(d.b + 512 + 84, 128);
        seal(&d, 512);
        put64(d.b + 512 + 72, UINT64_MAX / 256);
        seal(&d, 512);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        put64(d.b + 512 + 72, 1000);
        seal(&d, 512);
        check_int(lookup(&d, 1, 34, 66, 512, &e), -EIO);
        put64(d.b + 512 + 72, 2);
        seal(&d, 512);
        put64(d.b + 1024 + 40, 33);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        put64(d.b + 1024 + 32, UINT64_MAX);
        put64(d.b + 1024 + 40, UINT64_MAX);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        /* A header whose CRC does not hold (the kernel takes the backup then), or whose size is not one. */
        make_gpt(&d, 512, rootfs, 6);
        d.b[512 + 20] ^= 1;
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        make_gpt(&d, 512, rootfs, 6);
        put32(d.b + 512 + 12, 600);
        check_int(lookup(&d, 1, 34, 66, 512, &e), 0);
        /* The CRC itself: the check value of CRC-32. */
        check_int(parttable_crc32("123456789", 9), 0xcbf43926u);
        /* A protective MBR without a GPT header: nothing (the MBR's entry is not a partition of it). */
        make_gpt(&d, 512, rootfs, 6);
        memset(d.b + 512, 0, 8);
        check_int(lookup(&d, 1, 1, UINT32_MAX, 512, &e), 0);
}

int main(void)
{
        test_mbr();
        test_gpt();
        test_end();
}
