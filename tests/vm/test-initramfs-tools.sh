#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An initramfs built by initramfs-tools' own mkinitramfs with clockfix's hook and local-premount
# script, for the unpacked Debian kernel (in a private mount namespace: the host's /lib/modules
# and /boot are not touched), booted by QEMU with the RTC at 2000-01-01, without any RTC, and with
# a clock already ahead. The root's /sbin/init reports the clock the initramfs handed over.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"

vm_kernel
conf=$TMP/initramfs-tools
vm_initramfs_tools_conf "$conf"
# The test's own script: the clock when the initramfs starts.
mkdir -p "$conf/scripts/init-top"
cat >"$conf/scripts/init-top/clockfix-test" <<'EOF2'
#!/bin/sh
[ "$1" = prereqs ] && exit 0
echo "CLOCKFIX-TEST before=$(date +%s)"
EOF2
chmod 755 "$conf/scripts/init-top/clockfix-test"
build() { vm_mkinitramfs "$conf" "$1"; }
build "$TMP/without.img"
vm_initramfs_tools_hook "$conf"
started=$(date +%s%N)
build "$TMP/initrd.img"
vm_image_cost mkinitramfs "$started" "$TMP/initrd.img" "$TMP/without.img"
lsinitramfs "$TMP/initrd.img" >"$TMP/contents"
grep -Eq '^(usr/)?sbin/clockfix$' "$TMP/contents" || fail "clockfix is not in the image"
grep -q 'scripts/local-premount/clockfix$' "$TMP/contents" || fail "its script is not in the image"
grep -q 'libext2fs.so' "$TMP/contents" || fail "copy_exec did not bring libext2fs"
grep -q 'libblkid.so.1' "$TMP/contents" || fail "the hook did not bring libblkid (loaded with dlopen)"

written=$(($(date +%s) + 30 * 86400))
vm_root_disk "$TMP/root.img" "$written"

rtc2000=$(date -u -d 2000-01-01T00:00:00Z +%s) rtc2040=$(date -u -d 2040-01-01T00:00:00Z +%s)
vm_boot rtc2000 "$TMP/initrd.img" "$(vm_fresh rtc2000)" "root=/dev/vda ro" -rtc base=2000-01-01T00:00:00,clock=vm
vm_check rtc2000 "$written"
vm_rtc_clock rtc2000 "the clock when the initramfs started" "$(marker before)" "$rtc2000"
assert_eq "$(marker root)" ro "rtc2000: root mounted read-only"
vm_moved rtc2000 "$rtc2000" $((written + 1))
echo "rtc2000: $BOOT_MS ms; clock $(marker before) -> $(marker after)"

vm_boot nortc "$TMP/initrd.img" "$(vm_fresh nortc)" "root=/dev/vda ro" microvm
vm_check nortc "$written"
vm_rtc_clock nortc "the clock when the initramfs started" "$(marker before)" 0
vm_moved nortc 0 $((written + 1))
echo "nortc: $BOOT_MS ms; clock $(marker before) -> $(marker after)"

vm_boot ahead "$TMP/initrd.img" "$(vm_fresh ahead)" "root=/dev/vda ro" -rtc base=2040-01-01T00:00:00,clock=vm
[ "$(marker done)" == 1 ] || { vm_dump ahead; fail "ahead: the guest did not finish booting"; }
vm_rtc_clock ahead "the clock the root's init saw (left alone)" "$(marker after)" "$rtc2040"
echo "ahead: $BOOT_MS ms; clock $(marker before) -> $(marker after) (left alone)"

# A root disk that is not ext4: clockfix says so and the boot goes on to the mount, which fails
# here as it would without clockfix (panic=-1 then reboots); a boot that stopped in the hook would
# be stopped as hung.
mkfs.vfat -C "$TMP/vfat.img" 16384 >/dev/null
vm_boot vfat "$TMP/initrd.img" "$TMP/vfat.img" "root=/dev/vda ro" -rtc base=2000-01-01T00:00:00,clock=vm
assert_match "$CONSOLE" "clockfix: /dev/vda: holds vfat, not ext2/3/4: skipped" "vfat: clockfix's line"
assert_match "$CONSOLE" "Failed to mount /dev/vda as root file system" "vfat: the boot went on to the mount"
# No usable time: the clock of 2000 set to the floor, clockfix's build time, before the mount.
floor=$(date -u -d "$("$CLOCKFIX" --version | sed -n 's/.*(built \(.*\))$/\1/p')" +%s)
assert_match "$CONSOLE" "clockfix: No time on the disk; the clock set to clockfix's build time, $(date -u -d "@$floor" +%Y-%m-%dT%H:%M:%SZ), the earliest it can be" \
        "vfat: the clock set to the floor"
echo "vfat: $BOOT_MS ms; the hook let the boot go on"
echo ok
