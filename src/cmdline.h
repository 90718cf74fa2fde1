/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cmdline: the kernel command line's words, key=value as the kernel splits them */
#pragma once

/*
 * Finds the value of root= in a kernel command line: the last one wins, as in
 * the kernel; double quotes are honoured; nothing after a lone "--" counts
 * (those words are init's). Returns 1 and a new string in *ret, 0 if there is
 * no root=, or -ENOMEM.
 */
int cmdline_find_root(const char *cmdline, char **ret);

/*
 * The value of the last key=value on a kernel command line ("" for a bare
 * key), parsed as cmdline_find_root() does. 1 with *ret (free it), 0 when
 * absent, -ENOMEM.
 */
int cmdline_get(const char *cmdline, const char *key, char **ret);
