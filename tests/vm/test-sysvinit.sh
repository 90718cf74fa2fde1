#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The LSB init script (sysvinit/clockfix) in a whole Debian 12 boot with sysvinit and sysv-rc (as
# Devuan boots), QEMU with a dead RTC at 2000-01-01: enabled with `update-rc.d clockfix defaults`,
# which orders it before checkroot, it sets the clock to just after the root's newest time (a day
# behind) before fsck checks the root, starts the daemon (pid file); chrony, started by its own
# LSB script once the network is up, steps the clock over the test's network from the test's NTP
# server, and the daemon's syslog line says by how much, true and in time; at the power-off the
# script's stop saves the stamp on the disk (tests/vm/rc.sh, tests/vm/ntp.sh).
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
. "$SRCDIR/tests/vm/ntp.sh"
. "$SRCDIR/tests/vm/rc.sh"
: "${SYSVINIT_SCRIPT:?run through meson test}"

vm_kernel
vm_debian_root sysvinit
vm_ntp_server
vm_debian_initramfs "$TMP/initrd.gz"
# The disk's newest time: a day behind.
written=$(($(date +%s) - 86400))
vm_rc_overlay "$TMP/overlay" "$SYSVINIT_SCRIPT" chrony "$written"
vm_debian_disk "$TMP/root.img" "$TMP/overlay" "$written" \
        "update-rc.d clockfix defaults && update-rc.d clockfix-test-net defaults && ls /etc/rcS.d /etc/rc2.d /etc/rc0.d"
sed 's/^/  chroot | /' "$TMP/chroot.log"
vm_debian_boot sysvinit "$TMP/initrd.gz" "$TMP/root.img" ""
vm_rc_check sysvinit "$written" "$TMP/root.img" lsb=0
echo ok
