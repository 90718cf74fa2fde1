#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The OpenRC service (openrc/clockfix.initd) in a whole Debian 12 boot with sysvinit and OpenRC,
# QEMU with a dead RTC at 2000-01-01: added to the sysinit runlevel with rc-update (where
# Debian's openrc runs checkroot, the LSB script that checks the root), it sets the clock to just
# after the root's newest time (a day behind) before fsck checks the root, starts the daemon
# through start-stop-daemon (pid file, rc-service's status "started"); busybox's ntpd (built from
# Debian's busybox source with its ntpd applet, as Alpine, Buildroot and OpenWrt have it), an
# OpenRC service of the default runlevel as Alpine's, steps the clock over the test's network from
# the test's NTP server, and the daemon's syslog line says by how much, true and in time; at the
# power-off its stop saves the stamp on the disk (tests/vm/rc.sh, tests/vm/ntp.sh). A stale pid
# file naming another program called clockfix is neither killed by stop nor keeps start from
# starting the daemon.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
. "$SRCDIR/tests/vm/debian.sh"
. "$SRCDIR/tests/vm/ntp.sh"
. "$SRCDIR/tests/vm/rc.sh"
: "${OPENRC_INITD:?run through meson test}" "${OPENRC_CONFD:?}"

vm_kernel
vm_debian_root openrc
vm_busybox_ntpd
vm_ntp_server
vm_debian_initramfs "$TMP/initrd.gz"
# The disk's newest time: a day behind.
written=$(($(date +%s) - 86400))
vm_rc_overlay "$TMP/overlay" "$OPENRC_INITD" busybox "$written"
mkdir -p "$TMP/overlay/etc/conf.d"
cp "$OPENRC_CONFD" "$TMP/overlay/etc/conf.d/clockfix"
# busybox's ntpd in place of the root's chrony.
vm_debian_disk "$TMP/root.img" "$TMP/overlay" "$written" "rc-update add clockfix sysinit &&
        rc-update add clockfix-test-net sysinit && rc-update del chrony default && rc-update add ntpd default &&
        rc-update show sysinit && rc-update show default"
sed 's/^/  chroot | /' "$TMP/chroot.log"
vm_debian_boot openrc "$TMP/initrd.gz" "$TMP/root.img" ""
grep -a '^RC ' <<<"$CONSOLE" | sed 's/^RC /  | /'
vm_rc_check openrc "$written" "$TMP/root.img" openrc=started
# A stale pid file naming a copy of sleep called clockfix: OpenRC's start-stop-daemon, given
# --pidfile, would take that process for the daemon; the service's stop and start do not.
sed -n '/CLOCKFIX-TEST stale_other=/,/CLOCKFIX-TEST stale_start_other=/p' <<<"$CONSOLE" | sed 's/^/  | /'
assert_eq "$(marker stale_other)" clockfix "openrc: the other program called clockfix ran"
assert_eq "$(marker stale_stop)" alive "openrc: stop with a stale pid file left its process alone"
assert_eq "$(marker stale_start)" clockfix "openrc: start with a stale pid file started the daemon"
assert_eq "$(marker stale_start_other)" alive "openrc: start with a stale pid file left its process alone"
echo ok
