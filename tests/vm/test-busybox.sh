#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The static clockfix in an initramfs of busybox and nothing else, booted by QEMU: with the RTC at
# 2000-01-01, without any RTC (1970), with a clock already ahead, and with root disks that are not
# ext4 or are zeros, which must not hold the boot up: no usable time, the clock of 2000 (or 1970)
# set to the floor, clockfix's build time (and left in 2000 with clockfix.floor_fallback=0).
# Then busybox's init running the init script
# (sysvinit/clockfix) as a Buildroot system does: S01clockfix started by rcS, stopped by rcK.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
: "${CLOCKFIX_STATIC:?run through meson test}" "${SYSVINIT_SCRIPT:?run through meson test}"

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

# Root disks that cannot help: the boot goes on within the --wait of the hook, the clock set to the
# floor, clockfix's build time: no time on the disk, but the real time is no earlier than this
# binary (exit status 3 all the same: no usable time).
floor=$(date -u -d "$("$CLOCKFIX_STATIC" --version | sed -n 's/.*(built \(.*\))$/\1/p')" +%s)
floor_iso=$(date -u -d "@$floor" +%Y-%m-%dT%H:%M:%SZ)
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
head -c 8M /dev/zero >"$TMP/zeros.img"
for bad in vfat zeros; do
        vm_boot "$bad" "$TMP/initrd.gz" "$TMP/$bad.img" "root=/dev/vda" -rtc base=2000-01-01T00:00:00,clock=vm
        [ "$(marker done)" == 1 ] || { vm_dump "$bad"; fail "$bad: the boot did not go on"; }
        assert_eq "$(marker rc)" 3 "$bad: exit status (no usable time)"
        vm_rtc_clock "$bad" "the clock before clockfix" "$(marker before)" "$rtc2000"
        vm_rtc_clock "$bad" "the clock after clockfix (the floor, and the boot since)" "$(marker after)" "$floor"
        assert_match "$CONSOLE" "No time on the disk; the clock set to clockfix's build time, $floor_iso, the earliest it can be \(moved forward from 2000-" \
                "$bad: said so"
        echo "$bad: $BOOT_MS ms, clock set to the floor: $(marker before) -> $(marker after)"
done
# No RTC at all (1970), a vfat root: the floor too.
vm_boot vfat-nortc "$TMP/initrd.gz" "$TMP/vfat.img" "root=/dev/vda" microvm
assert_eq "$(marker rc)" 3 "vfat, no RTC: exit status"
vm_rtc_clock vfat-nortc "the clock after clockfix (the floor)" "$(marker after)" "$floor"
# clockfix.floor_fallback=0: as before the fallback, the clock left at the RTC's 2000.
vm_boot vfat-nofloor "$TMP/initrd.gz" "$TMP/vfat.img" "root=/dev/vda clockfix.floor_fallback=0" \
        -rtc base=2000-01-01T00:00:00,clock=vm
assert_eq "$(marker rc)" 3 "vfat, floor_fallback=0: exit status"
vm_rtc_clock vfat-nofloor "clockfix.floor_fallback=0: the clock after clockfix" "$(marker after)" "$rtc2000"
! grep -aq "No time on the disk" <<<"$CONSOLE" || fail "vfat, floor_fallback=0: the floor set all the same"

############################################################################
# busybox init, as Buildroot sets it up: inittab runs rcS, which starts /etc/init.d/S??* in order
# (S01clockfix, then a stand-in for the check of the root, S02fsck, then S99report, which
# reports and reboots); at the reboot, rcK stops them in reverse order, then a last shutdown
# action reports the stamp file and whether a clockfix still runs.
bb=$TMP/busybox-init
mkdir -p "$bb"
cat >"$bb/init" <<'SH'
#!/bin/busybox sh
# /init: the drivers, then busybox's init (PID 1 still), which reads /etc/inittab.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /run /var/lib/clockfix
while read -r m; do insmod "$m" 2>/dev/null; done </modules
exec /bin/busybox init
SH
cat >"$bb/inittab" <<'SH'
::sysinit:/etc/init.d/rcS
::shutdown:/etc/init.d/rcK
::shutdown:/bin/sh -c 'echo "CLOCKFIX-TEST stamp=$(stat -c %Y /var/lib/clockfix/clock || echo none)"; echo "CLOCKFIX-TEST running=$(pidof clockfix || echo none)"'
SH
# Buildroot's rcS and rcK (package/initscripts), less their *.sh case.
cat >"$bb/rcS" <<'SH'
#!/bin/sh
for i in /etc/init.d/S??*; do
        [ ! -f "$i" ] && continue
        $i start
done
SH
cat >"$bb/rcK" <<'SH'
#!/bin/sh
for i in $(ls -r /etc/init.d/S??*); do
        [ ! -f "$i" ] && continue
        $i stop
done
SH
cat >"$bb/S00before" <<'SH'
#!/bin/sh
[ "$1" = start ] || exit 0
echo "CLOCKFIX-TEST up_before=$(cut -d' ' -f1 /proc/uptime)"
echo "CLOCKFIX-TEST before=$(date +%s)"
SH
cat >"$bb/S02fsck" <<'SH'
#!/bin/sh
[ "$1" = start ] || exit 0
echo "S02fsck: the root would be checked now"
echo "CLOCKFIX-TEST fsck_clock=$(date +%s)"
SH
cat >"$bb/S99report" <<'SH'
#!/bin/sh
[ "$1" = start ] || exit 0
echo "CLOCKFIX-TEST after=$(date +%s)"
echo "CLOCKFIX-TEST up_after=$(cut -d' ' -f1 /proc/uptime)"
pid=$(cat /run/clockfix.pid 2>/dev/null)
echo "CLOCKFIX-TEST pid=${pid:-none}"
echo "CLOCKFIX-TEST comm=$(cat "/proc/${pid:-0}/comm" 2>/dev/null || echo none)"
/etc/init.d/S01clockfix status
echo "CLOCKFIX-TEST status=$?"
echo "CLOCKFIX-TEST done=1"
reboot
SH
# (The configured script is not executable in the build directory.)
cp "$SYSVINIT_SCRIPT" "$bb/S01clockfix"
chmod 755 "$bb"/*
bin=$(sed -n 's/^CLOCKFIX=//p' "$SYSVINIT_SCRIPT")
vm_busybox_initramfs "$TMP/busybox-init.gz" "$bb/init" "$CLOCKFIX_STATIC:$bin" "$bb/S01clockfix:/etc/init.d/S01clockfix" \
        "$bb/inittab:/etc/inittab" "$bb/rcS:/etc/init.d/rcS" "$bb/rcK:/etc/init.d/rcK" "$bb/S00before:/etc/init.d/S00before" \
        "$bb/S02fsck:/etc/init.d/S02fsck" "$bb/S99report:/etc/init.d/S99report"
vm_boot busybox-init "$TMP/busybox-init.gz" "$TMP/root.img" "root=/dev/vda" -rtc base=2000-01-01T00:00:00,clock=vm
[ "$(marker done)" == 1 ] || { vm_dump busybox-init; fail "busybox-init: the guest did not finish"; }
vm_rtc_clock busybox-init "the clock before S01clockfix" "$(marker before)" "$rtc2000"
vm_moved busybox-init "$rtc2000" $((written + 1))
after=$(marker after) fsck=$(marker fsck_clock)
most=$((written + 1 + $(vm_elapsed "$(marker up_before)" "$(marker up_after)") + 1))
[ -n "$fsck" ] && [ "$fsck" -ge $((written + 1)) ] && [ "$fsck" -le "$after" ] ||
        { vm_dump busybox-init; fail "busybox-init: S02fsck saw the clock at '$fsck', not set yet (target $((written + 1)))"; }
[ -n "$after" ] && [ "$after" -le "$most" ] || { vm_dump busybox-init; fail "busybox-init: clock '$after' late in the boot, expected at most $most"; }
[ "$(marker pid)" != none ] || { vm_dump busybox-init; fail "busybox-init: no /run/clockfix.pid"; }
assert_eq "$(marker comm)" clockfix "busybox-init: the process of the pid file"
assert_eq "$(marker status)" 0 "busybox-init: S01clockfix status"
# rcK stopped the daemon, and the stamp was touched then (at or after the report).
sed -n '/CLOCKFIX-TEST done=1/,$p' <<<"$CONSOLE" | grep -q "Saving the clock's stamp" ||
        { vm_dump busybox-init; fail "busybox-init: rcK did not stop S01clockfix"; }
assert_eq "$(marker running)" none "busybox-init: a clockfix still ran after rcK"
stamp=$(marker stamp)
[ -n "$stamp" ] && [ "$stamp" != none ] && [ "$stamp" -ge "$after" ] ||
        { vm_dump busybox-init; fail "busybox-init: the stamp reads '$stamp' after rcK, not at least the report's $after"; }
echo "busybox-init: $BOOT_MS ms; clock $(marker before) -> $after by S01clockfix, S02fsck saw $fsck;" \
        "daemon pid $(marker pid), stopped by rcK; stamp $stamp"
echo ok
