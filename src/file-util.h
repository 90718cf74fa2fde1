/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file-util: whole small files (procfs, sysfs, configuration) read into memory */
#pragma once

/* Reads a whole text file (procfs too) into a new NUL-terminated string. 0, -EFBIG past 16 MiB, or -errno.
 */
int read_small_file(const char *path, char **ret);
