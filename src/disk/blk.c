/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blk: libblkid, loaded on first use (BLK_DLOPEN), linked (a static binary), or absent
 * (BLK_NONE: -Dblkid=disabled). The same source is built once per way; see blk.h for why.
 */

#ifndef BLK_DLOPEN
#define BLK_DLOPEN 0
#endif
#ifndef BLK_NONE
#define BLK_NONE 0
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !BLK_NONE
#include <blkid.h>
#endif
#if BLK_DLOPEN
#include <dlfcn.h>
#endif

#include "disk/blk.h"

#if BLK_DLOPEN

/* The functions we call, with the types of their prototypes, so the compiler checks each call. */
static struct {
        typeof(blkid_evaluate_tag) *evaluate_tag;
        typeof(blkid_get_cache) *get_cache;
        typeof(blkid_put_cache) *put_cache;
        typeof(blkid_devno_to_devname) *devno_to_devname;
        typeof(blkid_new_probe_from_filename) *new_probe_from_filename;
        typeof(blkid_probe_enable_superblocks) *probe_enable_superblocks;
        typeof(blkid_probe_set_superblocks_flags) *probe_set_superblocks_flags;
        typeof(blkid_probe_enable_partitions) *probe_enable_partitions;
        typeof(blkid_do_safeprobe) *do_safeprobe;
        typeof(blkid_probe_lookup_value) *probe_lookup_value;
        typeof(blkid_free_probe) *free_probe;
} blk;

static char blk_error[256]; /* why it could not be loaded */

static bool blk_load(void)
{
        static int loaded; /* 0 not tried, 1 loaded, -1 not available */
        void *dl;

        if (loaded)
                return loaded > 0;
        loaded = -1;
        /* RTLD_NODELETE: never unloaded, so the pointers stay good. */
        dl = dlopen("libblkid.so.1", RTLD_NOW | RTLD_NODELETE);
        if (!dl) {
                const char *e = dlerror();
                snprintf(blk_error, sizeof(blk_error), "libblkid.so.1 cannot be loaded (%s)",
                        e ? e : "dlopen failed");
                return false;
        }
#define LOAD(f) (blk.f = (typeof(blk.f))dlsym(dl, "blkid_" #f))
        if (!LOAD(evaluate_tag) || !LOAD(get_cache) || !LOAD(put_cache) || !LOAD(devno_to_devname) ||
                !LOAD(new_probe_from_filename) || !LOAD(probe_enable_superblocks) ||
                !LOAD(probe_set_superblocks_flags) || !LOAD(probe_enable_partitions) ||
                !LOAD(do_safeprobe) || !LOAD(probe_lookup_value) || !LOAD(free_probe)) {
                snprintf(blk_error, sizeof(blk_error), "libblkid.so.1 lacks a function clockfix calls");
                dlclose(dl);
                return false;
        }
#undef LOAD
        loaded = 1;
        return true;
}
#define BLK(f) blk.f

#elif !BLK_NONE /* linked */

static bool blk_load(void)
{
        return true;
}
#define BLK(f) blkid_##f

#endif

const char *blk_unavailable(void)
{
#if BLK_NONE
        return "this clockfix is built without libblkid (-Dblkid=disabled)";
#elif BLK_DLOPEN
        return blk_load() ? NULL : blk_error;
#else
        return NULL;
#endif
}

char *blk_evaluate_tag(const char *tag, const char *value)
{
#if BLK_NONE
        (void)tag;
        (void)value;
        return NULL;
#else
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
        if (BLK(get_cache)(&cache, "/dev/null/none") < 0)
                return NULL;
        p = BLK(evaluate_tag)(tag, value, &cache);
        BLK(put_cache)(cache);
        return p;
#endif
}

char *blk_devno_to_devname(dev_t devno)
{
#if BLK_NONE
        (void)devno;
        return NULL;
#else
        return blk_load() ? BLK(devno_to_devname)(devno) : NULL;
#endif
}

int blk_probe_type(const char *path, char **ret_type)
{
#if BLK_NONE
        (void)path;
        (void)ret_type;
        return 0;
#else
        const char *type = NULL;
        blkid_probe pr;
        int r = 0;

        if (!blk_load())
                return 0;
        pr = BLK(new_probe_from_filename)(path);
        if (!pr)
                return errno > 0 ? -errno : -EIO;
        BLK(probe_enable_superblocks)(pr, 1);
        BLK(probe_set_superblocks_flags)(pr, BLKID_SUBLKS_TYPE);
        BLK(probe_enable_partitions)(pr, 1);
        if (BLK(do_safeprobe)(pr) == 0) {
                if (BLK(probe_lookup_value)(pr, "TYPE", &type, NULL) == 0 ||
                        BLK(probe_lookup_value)(pr, "PTTYPE", &type, NULL) == 0) {
                        *ret_type = strdup(type);
                        r = *ret_type ? 1 : -ENOMEM;
                }
        }
        BLK(free_probe)(pr);
        return r;
#endif
}
