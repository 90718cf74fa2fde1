/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlopen-util: an optional library loaded on first use, its functions looked up by name */

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "basic/dlopen-util.h"

int dlopen_symbols(const char *library, const struct dlopen_symbol *syms, size_t n, char *error, size_t size)
{
        /* RTLD_NODELETE: never unloaded, so the pointers stay good. */
        void *dl = dlopen(library, RTLD_NOW | RTLD_NODELETE);

        if (!dl) {
                const char *e = dlerror();
                snprintf(error, size, "%s cannot be loaded (%s)", library, e ? e : "dlopen failed");
                return -EOPNOTSUPP;
        }
        for (size_t i = 0; i < n; i++) {
                *syms[i].ptr = dlsym(dl, syms[i].name);
                if (*syms[i].ptr)
                        continue;
                snprintf(error, size, "%s lacks %s(), which clockfix calls", library, syms[i].name);
                for (size_t j = 0; j < n; j++)
                        *syms[j].ptr = NULL;
                dlclose(dl);
                return -EOPNOTSUPP;
        }
        return 0;
}
