/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parttable: a partition's PARTUUID and GPT name, from its disk's MBR or GPT, as
 * the kernel numbered it. No I/O: the disk's bytes come through a callback.
 *
 * Why not libblkid: with a 32-bit time_t (Debian 12 armhf) every probe of
 * libblkid stat()s or fstat()s the device node, which fails with EOVERFLOW once
 * any of the node's times is after 2038 (devtmpfs dates a node by the clock, and
 * any read moves its access time). The kernel states a partition's number, start
 * and size in sysfs, and its GPT name (PARTNAME=) but not its PARTUUID: that is in
 * the table alone.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Reads size bytes at byte offset of the disk: 0, or -errno (-EIO for a short read). */
typedef int (*parttable_read_fn)(void *userdata, uint64_t offset, void *buf, size_t size);

struct parttable_entry {
        char uuid[37];             /* lower case: "6c586e13-02" (MBR), or a GUID (GPT) */
        char name[72 * 3 / 2 + 1]; /* the GPT name in UTF-8 ("" in an MBR) */
};

/* What the kernel says of a partition (sysfs: partition, start, size; the disk's logical_block_size). */
struct parttable_kernel {
        unsigned partno;
        uint64_t start;       /* 512-byte sectors */
        uint64_t size;        /* 512-byte sectors */
        unsigned sector_size; /* bytes, 512 to 4096 */
};

/*
 * The table entry of partition k->partno, if the disk's table has one at the
 * start and size the kernel gives (else the kernel read another table, or the
 * table changed since). A GPT is read when the MBR is protective (type 0xee), as
 * the kernel's efi parser does, and only when its header's CRC holds; logical
 * MBR partitions (5 on) have their PARTUUID from the disk signature and number
 * alone, which is all the kernel's is, when they start inside an extended
 * partition. 1 with *ret set, 0 if there is no such entry, or -errno of a read.
 */
int parttable_lookup(parttable_read_fn read, void *userdata, const struct parttable_kernel *k,
        struct parttable_entry *ret);

/* The CRC-32 of GPT (and zlib): reflected, polynomial 0x04c11db7. */
uint32_t parttable_crc32(const void *data, size_t size);
