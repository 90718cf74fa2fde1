/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blk: no libblkid (-Dblkid=disabled): tags only through udev's links, sysfs and the disks' own bytes */

#include <stddef.h>

#include "disk/blk.h"

const char *blk_unavailable(void)
{
        return "this clockfix is built without libblkid (-Dblkid=disabled)";
}

char *blk_evaluate_tag(const char *tag, const char *value)
{
        (void)tag;
        (void)value;
        return NULL;
}

char *blk_devno_to_devname(dev_t devno)
{
        (void)devno;
        return NULL;
}

int blk_probe_type(const char *path, char **ret_type)
{
        (void)path;
        (void)ret_type;
        return 0;
}
