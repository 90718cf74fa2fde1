/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlopen-util: an optional library loaded on first use, its functions looked up by name */
#pragma once

#include <stddef.h>

/* One function to look up: its name in the library, and the pointer that receives its address. */
struct dlopen_symbol {
        const char *name;
        void **ptr;
};

/* An entry of the list: the function, say blkid_evaluate_tag, into sym_blkid_evaluate_tag. */
/* clang-format 14 and 19 lay a braced macro out differently: as written, for both. */
/* clang-format off */
#define DLOPEN_SYMBOL(f) { .name = #f, .ptr = (void **)&sym_##f }
/* clang-format on */

/*
 * Loads library (dlopen(), never unloaded, so that the pointers stay good) and looks up each of
 * syms[n]: 0, or -EOPNOTSUPP with why in error (size bytes), the pointers then all NULL. Each
 * optional library of clockfix is loaded so (src/daemon/systemd.c, src/disk/blk.c), by the code
 * that calls it, the first time it is needed: linking it would load it into every run.
 */
int dlopen_symbols(
        const char *library, const struct dlopen_symbol *syms, size_t n, char *error, size_t size);
