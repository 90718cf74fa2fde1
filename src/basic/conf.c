/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* conf: the text of /etc/clockfix.conf, "key = value" lines, split into settings */

#include <ctype.h>
#include <string.h>

#include "basic/conf.h"

/* Longer lines are not settings of ours; they are cut here (and then do not parse). */
#define CONF_LINE_MAX 1024

static char *strip(char *s)
{
        char *e;

        while (isspace((unsigned char)*s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char)e[-1]))
                *--e = '\0';
        return s;
}

int conf_parse(const char *text, conf_handler h, void *userdata)
{
        unsigned line = 0;

        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t n = eol ? (size_t)(eol - p) : strlen(p);
                char buf[CONF_LINE_MAX], *key, *value, *eq;
                int r;

                line++;
                if (n > sizeof(buf) - 1)
                        n = sizeof(buf) - 1;
                memcpy(buf, p, n);
                buf[n] = '\0';
                p = eol ? eol + 1 : p + strlen(p);

                key = strip(buf);
                if (key[0] == '\0' || key[0] == '#')
                        continue;
                eq = strchr(key, '=');
                value = NULL;
                if (eq) {
                        *eq = '\0';
                        value = strip(eq + 1);
                        size_t len = strlen(value);
                        if (len >= 2 && value[0] == '"' && value[len - 1] == '"') {
                                value[len - 1] = '\0';
                                value++;
                        }
                }
                key = strip(key);
                for (char *c = key; *c; c++)
                        if (*c == '_')
                                *c = '-';
                r = h(key, value, line, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}
