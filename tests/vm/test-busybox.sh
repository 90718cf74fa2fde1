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

# check_set NAME RTC: clockfix moved the clock from the dead RTC's (RTC, seconds) to the disk's
check_set() {
        local before after target=$((written + 1)) most
        before=$(marker before) after=$(marker after)
        [ "$(marker done)" == 1 ] || { vm_dump "$1"; fail "$1: the guest did not finish"; }
        assert_eq "$(marker rc)" 0 "$1: clockfix's exit status"
        vm_rtc_clock "$1" "the clock before clockfix" "$before" "$2"
        [ "$before" -lt "$written" ] || fail "$1: the clock started at $before, not before the disk's $written"
        # After: the target plus the time since the clock was read before (the uptimes around them).
        most=$((target + $(vm_elapsed "$(marker up_before)" "$(marker up_after)") + 1))
        [ -n "$after" ] && [ "$after" -ge "$target" ] && [ "$after" -le "$most" ] ||
                { vm_dump "$1"; fail "$1: clock '$after' after clockfix, expected $target to $most"; }
        vm_moved "$1" "$2" "$target"
        echo "$1: $BOOT_MS ms; clock $before -> $after"
}

rtc2000=$(date -u -d 2000-01-01T00:00:00Z +%s) rtc2040=$(date -u -d 2040-01-01T00:00:00Z +%s)
vm_boot rtc2000 "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda" -rtc base=2000-01-01T00:00:00,clock=vm
check_set rtc2000 "$rtc2000"

vm_boot nortc "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda" microvm
check_set nortc 0

# A clock already ahead of the disk (but plausible) is left alone.
vm_boot ahead "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda" -rtc base=2040-01-01T00:00:00,clock=vm
assert_eq "$(marker rc)" 0 "ahead: exit status"
vm_rtc_clock ahead "the clock after clockfix" "$(marker after)" "$rtc2040"
assert_match "$CONSOLE" "is already at or past" "ahead: left alone"
echo "ahead: $BOOT_MS ms; clock $(marker before) -> $(marker after)"

# clockfix=0 on the kernel command line: nothing done.
vm_boot off "$TMP/initrd.gz" "$TMP/root.img" "root=/dev/vda clockfix=0" -rtc base=2000-01-01T00:00:00,clock=vm
vm_rtc_clock off "clockfix=0: the clock after clockfix" "$(marker after)" "$rtc2000"

# Root disks that cannot help: the boot goes on within the --wait of the hook.
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
head -c 8M /dev/zero >"$TMP/zeros.img"
for bad in vfat zeros; do
        vm_boot "$bad" "$TMP/initrd.gz" "$TMP/$bad.img" "root=/dev/vda" -rtc base=2000-01-01T00:00:00,clock=vm
        [ "$(marker done)" == 1 ] || { vm_dump "$bad"; fail "$bad: the boot did not go on"; }
        assert_eq "$(marker rc)" 3 "$bad: exit status (no usable time)"
        vm_rtc_clock "$bad" "the clock after clockfix" "$(marker after)" "$rtc2000"
        echo "$bad: $BOOT_MS ms, clock left at $(marker after)"
done
echo ok
