/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzz-cmdline: the kernel command line's parsing (root=, clockfix.*=) and root= specs on any text */

#include <string.h>

#include "basic/cmdline.h"
#include "disk/rootdev.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = malloc(size + 1), *v = NULL;
        int r;

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';

        r = cmdline_find_root(text, &v);
        FUZZ_CHECK(r >= 0);
        if (r > 0) {
                FUZZ_CHECK(strlen(v) <= size);
                (void)spec_classify(v);
                free(v);
        }
        r = cmdline_get(text, "clockfix.not_after", &v);
        FUZZ_CHECK(r >= 0);
        if (r > 0)
                free(v);
        (void)spec_classify(text);
        free(text);
        return 0;
}
