/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file-util: whole small files (procfs, sysfs, configuration) read into memory, or replaced whole; a path's
 * directory */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

/* Reads a whole text file (procfs too) into a new NUL-terminated string. 0, -EFBIG past 16 MiB, or -errno.
 */
_must_check_ int read_small_file(const char *path, char **ret);

/*
 * Replaces path with size bytes of data through a new file "PATH.new" (a
 * leftover of an interrupted write removed first) renamed over it: a reader
 * sees the old file or the new one, whole. With durable, the new file is
 * fsync()ed before the rename (the directory is the caller's to sync).
 * 0, -ENAMETOOLONG, or -errno.
 */
_must_check_ int replace_file(const char *path, const char *data, size_t size, bool durable);

/*
 * The directory of path into dir (size bytes): path without its last component, "/" for a file at
 * the root, "." for a bare name. False when it does not fit.
 */
bool path_dir(const char *path, char *dir, size_t size);
