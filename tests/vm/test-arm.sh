#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The static clockfix of a cross build for armhf or arm64 (VM_ARCH) in an initramfs of busybox,
# booted by QEMU's ARM virt machine with Debian's kernel of that architecture, its RTC (a PL031)
# dead at 2000-01-01:
# 1. a root disk written two months from now: the clock is set to just after it;
# 2. a root disk written in 2039: the clock is set to 2039, on armhf too, whose C library still
#    has a 32-bit time_t by default (it ends in January 2038);
# 3. a disk that is not ext2/3/4: clockfix says so (exit 3), the boot goes on, the clock left alone;
# 4. the daemon on the 2039 disk, mounted read-only, then read-write, as at boot: it sees
#    timesyncd's flag file appear; then NTP steps the clock an hour and marks the kernel
#    synchronised: the daemon logs it, and touches its stamp file, whose time is after 2038 in the
#    guest and on the disk.
# The guest reads times with clock-now (tests/vm/clock-now.c, a 64-bit time_t, CLOCK_NOW): busybox's
# date and stat print nonsense after 2038 on armhf.
. "$SRCDIR/tests/lib/lib.sh"
. "$SRCDIR/tests/vm/lib.sh"
: "${CLOCKFIX_STATIC:?run through meson test}" "${NTP_PLAY:?run through meson test}" \
        "${CLOCK_NOW:?run through meson test}"
# The program itself, which goes into the guest (in a cross build's tests CLOCKFIX_STATIC names a
# script that runs it under qemu-user on this machine: tests/lib/lib.sh).
STATIC=$CLOCKFIX_STATIC_BIN

STEP=3600
case "$VM_ARCH" in
armhf) elf_machine=28 ;;
arm64) elf_machine=b7 ;;
*) fail "VM_ARCH=$VM_ARCH: this test boots armhf or arm64" ;;
esac

# elf_check FILE: fails unless FILE is a program for VM_ARCH (e_machine of its ELF header: a
# program for the wrong machine would only show as a kernel's "exec format error" on the console)
elf_check() {
        [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" == 177ELF ] &&
                [ "$(od -An -tx1 -j 18 -N 1 "$1" | tr -d ' ')" == "$elf_machine" ] ||
                fail "$1 is not a program for $VM_ARCH"
}

for f in "$STATIC" "$NTP_PLAY" "$CLOCK_NOW"; do
        elf_check "$f"
done

vm_kernel
# ext4 too, for the daemon's read-write mount (clockfix itself reads the disk with libext2fs).
VM_INITRAMFS_MODULES="virtio_pci virtio_mmio virtio_blk ext4 crc32c_generic" \
        vm_busybox_initramfs "$TMP/initrd.gz" "$SRCDIR/tests/vm/arm-init" "$STATIC:/clockfix" \
        "$CLOCK_NOW:/bin/clock-now" "$NTP_PLAY:/bin/ntp-play"
echo "$VM_ARCH: kernel $KVER; static clockfix $(stat -c %s "$STATIC") bytes;" \
        "initramfs $(stat -c %s "$TMP/initrd.gz") bytes"

# arm_disk OUT WRITTEN: an ext4 root filesystem with nothing to boot (the initramfs does all), but
# the stamp directory the package makes (/var/lib/clockfix); made a day before WRITTEN, last
# mounted an hour before, last written at WRITTEN (so clockfix's estimate is WRITTEN), as
# vm_root_disk's
arm_disk() {
        local out=$1 written=$2 dir
        dir=$(mktemp -d "$TMP/rootfs.XXXXXX")
        mkdir -p "$dir/var/lib/clockfix"
        E2FSPROGS_FAKE_TIME=$((written - 86400)) mke2fs -q -F -t ext4 -I 256 -d "$dir" "$out" 32M >/dev/null
        stamp "$out" "$written" "ssv mtime @$((written - 3600))"
}

# iso SECONDS: the UTC date, for the log
iso() {
        date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ
}

# arm_boot NAME DISK [APPEND]: boots the initramfs with DISK as /dev/vda and the RTC at 2000-01-01
arm_boot() {
        vm_boot "$1" "$TMP/initrd.gz" "$2" "root=/dev/vda ${3:-}" -rtc base=2000-01-01T00:00:00
        [ "$(marker done)" == 1 ] || { vm_dump "$1"; fail "$1: the guest did not finish ($BOOT_MS ms)"; }
}

# check_set NAME WRITTEN: clockfix moved the clock from the dead RTC's time to just after WRITTEN
check_set() {
        local before after target=$(($2 + 1)) most
        before=$(marker before) after=$(marker after)
        assert_eq "$(marker rc)" 0 "$1: clockfix's exit status"
        vm_rtc_clock "$1" "the clock before clockfix" "$before" "$rtc2000"
        # After: the target plus the time since the clock was read before (the uptimes around them).
        most=$((target + $(vm_elapsed "$(marker up_before)" "$(marker up_after)") + 1))
        [ -n "$after" ] && [ "$after" -ge "$target" ] && [ "$after" -le "$most" ] ||
                { vm_dump "$1"; fail "$1: clock '$after' after clockfix, expected $target ($(iso "$target")) to $most"; }
        vm_moved "$1" "$rtc2000" "$target"
        echo "$1: $BOOT_MS ms; clock $before -> $after ($(iso "$before") -> $(iso "$after"))"
}
rtc2000=$(date -u -d 2000-01-01T00:00:00Z +%s)

############################################################################
# 1. A disk written two months from now (after the floor, clockfix's build time).
soon=$(($(date +%s) + 60 * 86400))
arm_disk "$TMP/soon.img" "$soon"
arm_boot soon "$TMP/soon.img"
check_set soon "$soon"

############################################################################
# 2. A disk written in 2039 (before not-after: the floor + 30 years).
late=$(date -u -d 2039-06-01T12:00:00Z +%s)
arm_disk "$TMP/late.img" "$late"
arm_boot late "$TMP/late.img"
check_set late "$late"

############################################################################
# 3. A disk that is not ext2/3/4: the boot goes on within the hook's --wait; no usable time, the
# clock of 2000 set to the floor, clockfix's build time (exit status 3 all the same).
floor=$(date -u -d "$("$CLOCKFIX_STATIC" --version | sed -n 's/.*(built \(.*\))$/\1/p')" +%s)
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
arm_boot vfat "$TMP/vfat.img"
assert_eq "$(marker rc)" 3 "vfat: clockfix's exit status (no usable time)"
vm_rtc_clock vfat "the clock before clockfix" "$(marker before)" "$rtc2000"
vm_rtc_clock vfat "the clock after clockfix (the floor, and the boot since)" "$(marker after)" "$floor"
assert_match "$CONSOLE" "No time on the disk; the clock set to clockfix's build time, $(iso "$floor"), the earliest it can be" \
        "vfat: said so"
echo "vfat: $BOOT_MS ms; clock set to the floor: $(iso "$(marker before)") -> $(iso "$(marker after)")"

############################################################################
# 4. The daemon in 2039 on the 2039 disk: timesyncd's signal, then the kernel's and the stamp.
arm_boot daemon "$TMP/late.img" clockfix.test=daemon
check_set daemon "$late"
assert_eq "$(marker mount)" rw "daemon: the disk mounted read-write under the daemon"

# daemon_log PREFIX: the lines of a daemon's log the guest printed after PREFIX, printed too
daemon_log() {
        LOG=$(grep -a "^$1 " <<<"$CONSOLE" | sed "s/^$1 //" || true)
        [ -n "$LOG" ] || { vm_dump daemon; fail "daemon: no log of the daemon ($1) on the console"; }
        echo "daemon ($1):"
        sed 's/^/  | /' <<<"$LOG"
        # A warning or an error (priorities 0 to 4) would say something went wrong that the checks
        # miss: a stamp directory the daemon could not see, a stamp it could not touch.
        ! grep -aE '^<[0-4]>' <<<"$LOG" || fail "daemon ($1): warnings or errors in its log"
}

# says REGEX WHAT: the daemon's log (LOG) has a line that matches
says() {
        grep -qE -- "$1" <<<"$LOG" || fail "daemon: $2: no line matching /$1/ in its log"
}

daemon_log TIMESYNCD
assert_eq "$(marker timesyncd_rc)" 0 "daemon (timesyncd): its exit status"
says "Clock synchronised by NTP \(timesyncd\)" "timesyncd's flag file seen"

daemon_log DAEMON
to=$(marker ntp_to)
[ -n "$to" ] || { vm_dump daemon; fail "daemon: ntp-play did not step the clock (built with a 32-bit time_t?)"; }
to=${to%.*}
assert_eq "$(marker daemon_rc)" 0 "daemon: its exit status after SIGTERM"
says "Clock synchronised by NTP \(kernel\)" "the kernel's synchronisation seen"
correction=$(sed -n 's/.*CLOCKFIX_CORRECTION_USEC=\(-\?[0-9]*\).*/\1/p' <<<"$LOG" | head -n 1)
[ -n "$correction" ] && [ "$correction" -gt $(((STEP - 1) * 1000000)) ] && [ "$correction" -lt $(((STEP + 1) * 1000000)) ] ||
        fail "daemon: NTP's correction logged as '$correction' µs, expected about $((STEP * 1000000))"
says "Touched /var/lib/clockfix/clock \(at stop\)" "the stamp touched at stop"
stamp_at=$(marker stamp) end=$(marker clock)
[ -n "$stamp_at" ] && [ "$stamp_at" -ge "$to" ] && [ "$stamp_at" -le "${end:-0}" ] ||
        fail "daemon: the stamp's mtime '$stamp_at' is not between NTP's step ($to) and the end ($end)"
assert_eq "$(marker umount)" ok "daemon: the disk unmounted"
# On the disk: the same time, its seconds past 2038 in the inode's epoch bits (i_mtime_extra).
read -r base extra < <(debugfs -R "stat /var/lib/clockfix/clock" "$TMP/late.img" 2>/dev/null |
        sed -n 's/^ *mtime: 0x\([0-9a-f]*\):\([0-9a-f]*\).*/\1 \2/p')
[ -n "${base:-}" ] || fail "daemon: no /var/lib/clockfix/clock on the disk"
base=$((16#$base)) extra=$((16#$extra))
disk=$(((base >= 2 ** 31 ? base - 2 ** 32 : base) + (extra & 3) * 2 ** 32))
assert_eq "$disk" "$stamp_at" "daemon: the stamp's mtime on the disk"
echo "daemon: $BOOT_MS ms; clock $(marker before) -> $(marker after), NTP to $to," \
        "stamp $stamp_at ($(iso "$stamp_at")) on the disk"
echo ok
