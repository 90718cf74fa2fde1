/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* iocache: the I/O manager filesystems are opened with: read-only, each block read from the device once */
#pragma once

/* libext2fs' io_manager, without including its headers here. */
struct struct_io_manager;

/*
 * An I/O manager over libext2fs' unix_io_manager that keeps the blocks it
 * read (up to IOCACHE_BYTES, the least recently used given up first), so
 * that looking up a path after another reads none of the directory, inode
 * table and group descriptor blocks they share from the device again:
 * unix_io_manager keeps 8 blocks, which one directory of a real root fills.
 * Reads of more than a few blocks at once (the journal's runs) go to the
 * device and are not kept. It refuses every write (EXT2_ET_RO_FILSYS) and an
 * open for writing. The device's own read counts (get_stats) are the unix
 * manager's: what reached the device.
 */
extern struct struct_io_manager *const iocache_io_manager;
