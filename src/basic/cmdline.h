/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cmdline: the kernel command line's words, key=value as the kernel splits them */
#pragma once

/*
 * The kernel command line as read once (/proc/cmdline, or --cmdline FILE):
 * the settings take clockfix.KEY= from it, gather takes root=.
 */
struct kernel_cmdline {
        const char *path; /* where it is read from, for messages */
        char *text;       /* its text (owned), or NULL when not read or unreadable */
        int error;        /* why it could not be read (-errno), or 0 */
};

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
