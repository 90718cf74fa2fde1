/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzz-conf: /etc/clockfix.conf's lines on any text: every setting handed over is a NUL-terminated key */

#include <string.h>

#include "basic/conf.h"
#include "fuzz.h"

static int handler(const char *key, const char *value, unsigned line, void *userdata)
{
        size_t *size = userdata;

        FUZZ_CHECK(line >= 1);
        FUZZ_CHECK(strlen(key) <= *size);
        FUZZ_CHECK(!strchr(key, '\n') && !strchr(key, '_'));
        if (value)
                FUZZ_CHECK(strlen(value) <= *size && !strchr(value, '\n'));
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = malloc(size + 1);

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        FUZZ_CHECK(conf_parse(text, handler, &size) == 0);
        free(text);
        return 0;
}
