/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* conf: the text of /etc/clockfix.conf, "key = value" lines, split into settings */
#pragma once

/*
 * Calls h for each setting of text (NUL-terminated), in order: "key = value"
 * (spaces around either optional, the value may be double-quoted), with '_'
 * in the key read as '-' so that "not_after" is "not-after". Blank lines and
 * lines starting with '#' are skipped. A line without '=' is passed with
 * value NULL, for the caller to warn about. line counts from 1.
 * Returns 0, or the first negative value h returns.
 */
typedef int (*conf_handler)(const char *key, const char *value, unsigned line, void *userdata);
int conf_parse(const char *text, conf_handler h, void *userdata);
