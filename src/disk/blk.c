/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blk: libblkid, loaded on first use (dlopen_symbols()), or linked into a static build (BLK_LINKED);
 * blk-none.c is the build without it (-Dblkid=disabled). See blk.h for why.
 */

#ifndef BLK_LINKED
#define BLK_LINKED 0
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <blkid.h>

#include "basic/dlopen-util.h"
#include "disk/blk.h"

#if BLK_LINKED

/* Linked: the functions themselves. */
#define SYM(f) f

static bool blk_load(void)
{
        return true;
}

const char *blk_unavailable(void)
{
        return NULL;
}

#else

/* The functions called, each with the type of its prototype, so that the compiler checks each call. */
static typeof(blkid_evaluate_tag) *sym_blkid_evaluate_tag;
static typeof(blkid_get_cache) *sym_blkid_get_cache;
static typeof(blkid_put_cache) *sym_blkid_put_cache;
static typeof(blkid_devno_to_devname) *sym_blkid_devno_to_devname;
static typeof(blkid_new_probe_from_filename) *sym_blkid_new_probe_from_filename;
static typeof(blkid_probe_enable_superblocks) *sym_blkid_probe_enable_superblocks;
static typeof(blkid_probe_set_superblocks_flags) *sym_blkid_probe_set_superblocks_flags;
static typeof(blkid_probe_enable_partitions) *sym_blkid_probe_enable_partitions;
static typeof(blkid_do_safeprobe) *sym_blkid_do_safeprobe;
static typeof(blkid_probe_lookup_value) *sym_blkid_probe_lookup_value;
static typeof(blkid_free_probe) *sym_blkid_free_probe;
#define SYM(f) sym_##f

static char blk_error[256]; /* why it could not be loaded */

/* Whether the functions are there, loading the library the first time. */
static bool blk_load(void)
{
        static const struct dlopen_symbol syms[] = {
                DLOPEN_SYMBOL(blkid_evaluate_tag),
                DLOPEN_SYMBOL(blkid_get_cache),
                DLOPEN_SYMBOL(blkid_put_cache),
                DLOPEN_SYMBOL(blkid_devno_to_devname),
                DLOPEN_SYMBOL(blkid_new_probe_from_filename),
                DLOPEN_SYMBOL(blkid_probe_enable_superblocks),
                DLOPEN_SYMBOL(blkid_probe_set_superblocks_flags),
                DLOPEN_SYMBOL(blkid_probe_enable_partitions),
                DLOPEN_SYMBOL(blkid_do_safeprobe),
                DLOPEN_SYMBOL(blkid_probe_lookup_value),
                DLOPEN_SYMBOL(blkid_free_probe),
        };
        static int loaded; /* 0 not tried, 1 loaded, -1 not available */

        if (!loaded)
                loaded = dlopen_symbols("libblkid.so.1", syms, sizeof(syms) / sizeof(syms[0]), blk_error,
                                 sizeof(blk_error)) == 0
                        ? 1
                        : -1;
        return loaded > 0;
}

const char *blk_unavailable(void)
{
        return blk_load() ? NULL : blk_error;
}

#endif

char *blk_evaluate_tag(const char *tag, const char *value)
{
        blkid_cache cache = NULL;
        char *p;

        if (!blk_load())
                return NULL;
        /*
         * A private, throw-away cache. libblkid writes its cache file when the
         * cache is freed (the default is /run/blkid/blkid.tab; even /dev/null
         * is opened for writing), and clockfix opens nothing for writing. It
         * skips the write when stat() of the file fails with anything but
         * ENOENT: "/dev/null/none" fails with ENOTDIR. A new cache each time:
         * a cache does not probe for new devices again for 200 s.
         */
        if (SYM(blkid_get_cache)(&cache, "/dev/null/none") < 0)
                return NULL;
        p = SYM(blkid_evaluate_tag)(tag, value, &cache);
        SYM(blkid_put_cache)(cache);
        return p;
}

char *blk_devno_to_devname(dev_t devno)
{
        return blk_load() ? SYM(blkid_devno_to_devname)(devno) : NULL;
}

int blk_probe_type(const char *path, char **ret_type)
{
        const char *type = NULL;
        blkid_probe pr;
        int r = 0;

        if (!blk_load())
                return 0;
        pr = SYM(blkid_new_probe_from_filename)(path);
        if (!pr)
                return errno > 0 ? -errno : -EIO;
        SYM(blkid_probe_enable_superblocks)(pr, 1);
        SYM(blkid_probe_set_superblocks_flags)(pr, BLKID_SUBLKS_TYPE);
        SYM(blkid_probe_enable_partitions)(pr, 1);
        if (SYM(blkid_do_safeprobe)(pr) == 0) {
                if (SYM(blkid_probe_lookup_value)(pr, "TYPE", &type, NULL) == 0 ||
                        SYM(blkid_probe_lookup_value)(pr, "PTTYPE", &type, NULL) == 0) {
                        *ret_type = strdup(type);
                        r = *ret_type ? 1 : -ENOMEM;
                }
        }
        SYM(blkid_free_probe)(pr);
        return r;
}
