#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The OpenRC service (openrc/clockfix.initd) in a whole Debian 12 boot with sysvinit and OpenRC,
# QEMU with a dead RTC at 2000-01-01: added to the sysinit runlevel with rc-update (where
# Debian's openrc runs checkroot, the LSB script that checks the root), it sets the clock to just
# after the root's newest time before fsck checks the root, starts the daemon through
# start-stop-daemon (pid file, rc-service's status "started"), whose log shows NTP's correction;
# at the power-off its stop saves the stamp on the disk (tests/vm/rc.sh).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
. "$SRCDIR/tests/vm/rc.sh"
: "${OPENRC_INITD:?run through meson test}" "${OPENRC_CONFD:?}"

vm_kernel
vm_debian_root openrc
vm_debian_initramfs "$TMP/initrd.gz"
vm_rc_overlay "$TMP/overlay" "$OPENRC_INITD"
mkdir -p "$TMP/overlay/etc/conf.d"
cp "$OPENRC_CONFD" "$TMP/overlay/etc/conf.d/clockfix"
# The disk's newest time: a week after clockfix's floor.
written=$((FLOOR + 7 * 86400))
vm_debian_disk "$TMP/root.img" "$TMP/overlay" "$written" "rc-update add clockfix sysinit && rc-update show sysinit"
sed 's/^/  chroot | /' "$TMP/chroot.log"
vm_debian_boot openrc "$TMP/initrd.gz" "$TMP/root.img" ""
grep -a '^RC ' <<<"$CONSOLE" | sed 's/^RC /  | /'
vm_rc_check openrc "$written" "$TMP/root.img" openrc=started
echo ok
