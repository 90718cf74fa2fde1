/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* iocache: the I/O manager filesystems are opened with: read-only, each block read from the device once */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* libext2fs' io_manager and io_channel, without including its headers here. */
struct struct_io_manager;
struct struct_io_channel;

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

/*
 * Sets a budget on the reads of channel (a filesystem's fs->io opened with
 * iocache_io_manager; any other is left alone): from now on reads may ask for
 * `blocks` blocks in all, those the cache answers included; a read that would
 * ask for more is refused (EXT2_ET_CANCEL_REQUESTED), and so is every later
 * one, until the next call. 0: no budget. No corruption of a directory or a
 * block map can then make a walk of libext2fs longer than the budget: a map
 * that points back at itself is walked from the cache alone, as long as it is
 * walked, with no device read to slow it.
 */
void iocache_budget(struct struct_io_channel *channel, unsigned blocks);

/*
 * The blocks of the group descriptors of the filesystem on channel (n, sorted, copied): one of
 * them that cannot be read is given as zeros, which libext2fs then refuses cleanly, where it
 * would use a failed read's buffer as a descriptor (it reads each on demand after an open with
 * EXT2_FLAG_SUPER_ONLY, and does not look at the error). Said by iocache_descriptor_failed().
 */
void iocache_descriptors(struct struct_io_channel *channel, const unsigned long long *blocks, size_t n);

/* Whether a group descriptor block could not be read since the last call. */
bool iocache_descriptor_failed(struct struct_io_channel *channel);

/* The blocks asked for since the budget was set, and whether a read was refused for it. */
unsigned iocache_budget_asked(struct struct_io_channel *channel, bool *ret_spent);
/*
 * Reads count blocks from block in one read of the device and keeps them (no more than half of
 * what the cache holds; else nothing is done): a hint, where the blocks that will be asked for next are
 * known to follow each other (a journal's extent block and its first blocks, as mke2fs lays them out). A run
 * asked for later is answered from the cache when all of it is kept. Errors are ignored.
 */
void iocache_prefetch(struct struct_io_channel *channel, unsigned long long block, unsigned count);
