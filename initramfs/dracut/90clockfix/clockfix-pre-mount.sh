#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dracut pre-mount hook (sourced by the shell initrd's init): the root device exists and is not
# mounted yet: set the clock from it. Never fails the boot.
if [ -x /usr/sbin/clockfix ]; then
        # The filesystems of fstab: the copy made with the initrd (without it, the root's own).
        /usr/sbin/clockfix set --boot --wait 5 --fstab /etc/clockfix/fstab || :
fi
