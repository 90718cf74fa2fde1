#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The LSB init script (sysvinit/clockfix) in a whole Debian 12 boot with sysvinit and sysv-rc (as
# Devuan boots), QEMU with a dead RTC at 2000-01-01: enabled with `update-rc.d clockfix defaults`,
# which orders it before checkroot, it sets the clock to just after the root's newest time before
# fsck checks the root, starts the daemon (pid file), whose log shows NTP's correction; at the
# power-off its stop saves the stamp on the disk (tests/vm/rc.sh).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
. "$SRCDIR/tests/vm/rc.sh"
: "${SYSVINIT_SCRIPT:?run through meson test}"

vm_kernel
vm_debian_root sysvinit
vm_debian_initramfs "$TMP/initrd.gz"
vm_rc_overlay "$TMP/overlay" "$SYSVINIT_SCRIPT"
# The disk's newest time: a week after clockfix's floor.
written=$((FLOOR + 7 * 86400))
vm_debian_disk "$TMP/root.img" "$TMP/overlay" "$written" "update-rc.d clockfix defaults && ls /etc/rcS.d /etc/rc0.d"
sed 's/^/  chroot | /' "$TMP/chroot.log"
vm_debian_boot sysvinit "$TMP/initrd.gz" "$TMP/root.img" ""
vm_rc_check sysvinit "$written" "$TMP/root.img" lsb=0
echo ok
