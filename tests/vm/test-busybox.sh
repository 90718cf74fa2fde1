#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The static clockfix in an initramfs of busybox and nothing else, booted by QEMU: with the RTC at
# 2000-01-01, without any RTC (1970), with a clock already ahead, and with root disks that are not
# ext4 or are zeros, which must not hold the boot up.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
: "${CLOCKFIX_STATIC:?run through meson test}"

vm_kernel
written=$(($(date +%s) + 30 * 86400))
vm_root_disk "$TMP/root.img" "$written"
vm_busybox_initramfs "$TMP/initrd.gz" "$SRCDIR/tests/vm/busybox-init" "$CLOCKFIX_STATIC:/clockfix"
echo "static clockfix: $(stat -c %s "$CLOCKFIX_STATIC") bytes; initramfs $(stat -c %s "$TMP/initrd.gz") bytes"

# check_set NAME: clockfix moved the clock from the dead RTC's time to the disk's
check_set() {
        local before after
        before=$(marker before) after=$(marker after)
        [ "$(marker done)" == 1 ] || { vm_dump "$1"; fail "$1: the guest did not finish"; }
        assert_eq "$(marker rc)" 0 "$1: clockfix's exit status"
        [ "$before" -lt 1000000000 ] || fail "$1: the clock started at $before, not at a dead RTC's time"
        [ "$after" -ge $((written + 1)) ] && [ "$after" -le $((written + 30)) ] ||
                { vm_dump "$1"; fail "$1: clock $after after clockfix, expected $((written + 1))"; }
        echo "$1: $BOOT_MS ms; clock $before -> $after"
}

vm_boot rtc2000 "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda" -rtc base=2000-01-01T00:00:00,clock=vm
check_set rtc2000
# (the RTC's 2000-01-01 plus however long the guest took to get there: seconds, more under load)
assert_match "$CONSOLE" "Clock moved forward from 2000-01-01T00:0[0-9]:[0-5][0-9]Z" "rtc2000: clockfix's line"

vm_boot nortc "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda" microvm
check_set nortc
assert_match "$CONSOLE" "Clock moved forward from 1970-01-01T" "nortc: clockfix's line"

# A clock already ahead of the disk (but plausible) is left alone.
vm_boot ahead "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda" -rtc base=2040-01-01T00:00:00,clock=vm
assert_eq "$(marker rc)" 0 "ahead: exit status"
[ "$(marker after)" -ge 2208988800 ] && [ "$(marker after)" -lt $((2208988800 + 60)) ] ||
        fail "ahead: the clock read $(marker after), not 2040"
assert_match "$CONSOLE" "is already at or past" "ahead: left alone"
echo "ahead: $BOOT_MS ms; clock $(marker before) -> $(marker after)"

# clockfix=0 on the kernel command line: nothing done.
vm_boot off "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda clockfix=0" -rtc base=2000-01-01T00:00:00,clock=vm
[ "$(marker after)" -lt 1000000000 ] || fail "clockfix=0: the clock was set"

# Root disks that cannot help: the boot goes on within the --wait of the hook.
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
head -c 8M /dev/zero >"$TMP/zeros.img"
for bad in vfat zeros; do
        vm_boot "$bad" "$TMP/initrd.gz" "$TMP/$bad.img" "root=/dev/vda" -rtc base=2000-01-01T00:00:00,clock=vm
        [ "$(marker done)" == 1 ] || { vm_dump "$bad"; fail "$bad: the boot did not go on"; }
        assert_eq "$(marker rc)" 3 "$bad: exit status (no usable time)"
        [ "$(marker after)" -lt 1000000000 ] || fail "$bad: the clock was changed"
        echo "$bad: $BOOT_MS ms, clock left at $(marker after)"
done
echo ok
