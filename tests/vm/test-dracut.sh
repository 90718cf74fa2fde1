#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An initramfs built by dracut with clockfix's module 90clockfix (a shell initrd: the pre-mount
# hook), for the unpacked Debian kernel, booted by QEMU with the RTC at 2000-01-01 and without any
# RTC. dracut finds modules only under its base directory: a private copy of /usr/lib/dracut made
# of symbolic links, plus ours, leaves the host's alone.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
: "${DRACUT_MODULE_SETUP:?run through meson test}"

vm_kernel
base=$TMP/dracut
mkdir -p "$base"
cp -as /usr/lib/dracut/. "$base/"
mkdir -p "$base/modules.d/90clockfix"
install -m 755 "$DRACUT_MODULE_SETUP" "$base/modules.d/90clockfix/module-setup.sh"
install -m 755 "$SRCDIR/initramfs/dracut/90clockfix/clockfix-pre-mount.sh" "$base/modules.d/90clockfix/"
install -m 644 "$SRCDIR/initramfs/dracut/90clockfix/clockfix-initrd.service" "$base/modules.d/90clockfix/"
# The module installs the clockfix this build made.
export CLOCKFIX
: >"$TMP/dracut.conf"
mkdir -p "$TMP/dracut.conf.d" "$TMP/dracut-tmp"

# build OUT MODULES...: a shell initrd of just these dracut modules
build() {
        local out=$1
        shift
        dracutbasedir=$base dracut --force --quiet --conf "$TMP/dracut.conf" --confdir "$TMP/dracut.conf.d" \
                --tmpdir "$TMP/dracut-tmp" --kver "$KVER" --kmoddir "$KROOT/lib/modules/$KVER" --no-hostonly \
                --no-early-microcode --omit systemd --add-drivers 'virtio_blk virtio_pci virtio_mmio ext4' \
                -m "$*" "$out" >"$TMP/dracut.log" 2>&1 || { cat "$TMP/dracut.log" >&2; fail "dracut failed"; }
}
build "$TMP/without.img" base rootfs-block fs-lib
started=$(date +%s%N)
build "$TMP/initrd.img" base rootfs-block fs-lib clockfix
vm_image_cost dracut "$started" "$TMP/initrd.img" "$TMP/without.img"
lsinitrd "$TMP/initrd.img" >"$TMP/contents" 2>/dev/null || dracutbasedir=$base "$base/lsinitrd.sh" "$TMP/initrd.img" >"$TMP/contents"
grep -q 'usr/sbin/clockfix$' "$TMP/contents" || fail "clockfix is not in the image"
grep -q 'pre-mount/10-clockfix-pre-mount.sh$' "$TMP/contents" || fail "the pre-mount hook is not in the image"
grep -q 'libblkid.so.1' "$TMP/contents" || fail "the module did not bring libblkid (loaded with dlopen)"

written=$(($(date +%s) + 30 * 86400))
vm_root_disk "$TMP/root.img" "$written"

rtc2000=$(date -u -d 2000-01-01T00:00:00Z +%s)
vm_boot rtc2000 "$TMP/initrd.img" "$(vm_fresh rtc2000)" "root=/dev/vda ro rd.emergency=poweroff" \
        -rtc base=2000-01-01T00:00:00,clock=vm
vm_check rtc2000 "$written"
assert_eq "$(marker root)" ro "rtc2000: root mounted read-only"
vm_moved rtc2000 "$rtc2000" $((written + 1))
echo "rtc2000: $BOOT_MS ms; clock -> $(marker after)"

vm_boot nortc "$TMP/initrd.img" "$(vm_fresh nortc)" "root=/dev/vda ro rd.emergency=poweroff" microvm
vm_check nortc "$written"
vm_moved nortc 0 $((written + 1))
echo "nortc: $BOOT_MS ms; clock -> $(marker after)"

# The systemd initrd: clockfix-initrd.service, after the root device, before fsck and sysroot.mount.
# (systemd has already advanced the clock to its own build time.) A module of the test's own
# reports the clock at pre-pivot, with the root mounted, and powers off.
mkdir -p "$base/modules.d/99clockfixtest"
cat >"$base/modules.d/99clockfixtest/module-setup.sh" <<'EOF2'
#!/bin/bash
check() { return 255; }
depends() { return 0; }
install() {
        inst_multiple date
        inst_hook pre-pivot 99 "$moddir/report.sh"
}
EOF2
cat >"$base/modules.d/99clockfixtest/report.sh" <<'EOF2'
#!/bin/sh
# Sourced by dracut-pre-pivot.sh, so run by the initrd's /bin/sh, which dracut-ng makes the
# host's (dash in Debian 13): POSIX only. The clock, then the uptime: an uptime read later bounds
# how long ago clockfix set the clock.
after=$(date +%s)
read -r up _ </proc/uptime
printf 'CLOCKFIX-TEST after=%s\nCLOCKFIX-TEST uptime=%s\nCLOCKFIX-TEST done=1\n' "$after" "$up" >/dev/console
echo 1 >/proc/sys/kernel/sysrq
echo o >/proc/sysrq-trigger
EOF2
chmod 755 "$base/modules.d/99clockfixtest/"*
started=$(date +%s%N)
dracutbasedir=$base dracut --force --quiet --conf "$TMP/dracut.conf" --confdir "$TMP/dracut.conf.d" \
        --tmpdir "$TMP/dracut-tmp" --kver "$KVER" --kmoddir "$KROOT/lib/modules/$KVER" --no-hostonly \
        --no-early-microcode --add-drivers 'virtio_blk virtio_pci virtio_mmio ext4' \
        -m "systemd systemd-initrd dracut-systemd base rootfs-block fs-lib clockfix clockfixtest" \
        "$TMP/systemd.img" >"$TMP/dracut.log" 2>&1 || { cat "$TMP/dracut.log" >&2; fail "dracut (systemd) failed"; }
echo "dracut, systemd initrd: $((($(date +%s%N) - started) / 1000000)) ms; image $(stat -c %s "$TMP/systemd.img") bytes"
vm_boot systemd "$TMP/systemd.img" "$(vm_fresh systemd)" "root=/dev/vda ro" -rtc base=2000-01-01T00:00:00,clock=vm
vm_check systemd "$written"
plain=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$CONSOLE")
line() { grep -an -m 1 -- "$1" <<<"$plain" | cut -d: -f1; }
set_at=$(line "clockfix\[[0-9]*\]: Clock moved forward") fsck_at=$(line "Starting systemd-fsck-root") \
        mount_at=$(line "Mounting sysroot.mount")
[ -n "$set_at" ] && [ -n "$fsck_at" ] && [ -n "$mount_at" ] || { vm_dump systemd; fail "systemd: a step is missing"; }
[ "$set_at" -lt "$fsck_at" ] && [ "$set_at" -lt "$mount_at" ] ||
        fail "systemd: clockfix set the clock (line $set_at) after fsck ($fsck_at) or the mount ($mount_at)"
assert_eq "$(grep -ac 'clockfix\[[0-9]*\]: ' <<<"$plain")" 1 "systemd: clockfix ran once"
echo "systemd initrd: $BOOT_MS ms; clock -> $(marker after), set before fsck and the mount"
echo ok
