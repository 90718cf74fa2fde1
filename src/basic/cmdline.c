/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cmdline: the kernel command line's words, key=value as the kernel splits them */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/cmdline.h"

int cmdline_get(const char *cmdline, const char *key, char **ret)
{
        const size_t klen = strlen(key);
        char *found = NULL;
        const char *p = cmdline;

        for (;;) {
                char word[4096];
                size_t n = 0;
                bool quoted = false;

                while (*p && isspace((unsigned char)*p))
                        p++;
                if (!*p)
                        break;
                /* The kernel's next_arg(): quotes group spaces and are dropped. */
                for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
                        if (*p == '"') {
                                quoted = !quoted;
                                continue;
                        }
                        if (n < sizeof(word) - 1)
                                word[n++] = *p;
                }
                word[n] = '\0';

                if (strcmp(word, "--") == 0)
                        break;
                if (strncmp(word, key, klen) == 0 && (word[klen] == '=' || word[klen] == '\0')) {
                        char *v = strdup(word[klen] ? word + klen + 1 : "");
                        if (!v) {
                                free(found);
                                return -ENOMEM;
                        }
                        free(found);
                        found = v;
                }
        }

        if (!found)
                return 0;
        *ret = found;
        return 1;
}

int cmdline_find_root(const char *cmdline, char **ret)
{
        return cmdline_get(cmdline, "root", ret);
}
