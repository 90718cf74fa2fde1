#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Finding the device through the real binary: root= from --cmdline (path, LABEL=, UUID=,
# PARTUUID=, device number) on loop devices, --device with a tag, and --wait for a device that
# appears late or never. Every case resolves before clockfix would fall back to the host's own
# mountinfo and fstab (those fall-backs are tested with crafted files in the image suite).
. "$SRCDIR/tests/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root for loop devices (CI runs as root)"

CLOCKFIX_DYNAMIC=$CLOCKFIX
label=cfx$$
uuid=$(printf '%08x' $$)-1234-4321-8765-0123456789ab
img=$TMP/disk.img
mkimg "$img" 1800000000 16M -t ext4 -L "$label" -U "$uuid"
attach "$img"
disk=$DEV

cmdline() { printf '%s\n' "$1" >"$TMP/cmdline"; }

majmin() { printf '%d %d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
devno=$(majmin "$disk" | tr ' ' :)
for root in "$disk" "LABEL=$label" "UUID=$uuid" "$devno"; do
        cmdline "console=ttyS0 root=$root rootwait -- single"
        cf status --json --cmdline "$TMP/cmdline" --not-before 2026-01-01 --now 2000-01-01
        assert_eq "$RC" 0 "root=$root: exit"
        assert_eq "$(jqo '[.devices[0].origin, .devices[0].spec, .devices[0].device] | @tsv')" \
                "$(printf 'cmdline\t%s\t%s' "$root" "$disk")" "root=$root: device"
        assert_eq "$(jqo '[.source, .estimate] | @tsv')" "$(printf 'superblock:last_write\t1800000000')" "root=$root: decision"
done

# PARTUUID and PARTLABEL live in a partition table.
timg=$TMP/table.img
truncate -s 24M "$timg"
printf 'label: gpt\nsize=16M, type=L, uuid=%s, name=cfxp%s\n' "$uuid" $$ | sfdisk -q "$timg"
attach "$timg"
[ -b "${DEV}p1" ] || partx -a "$DEV"
part=${DEV}p1
E2FSPROGS_FAKE_TIME=1800000100 mke2fs -q -F -t ext4 "$part" >/dev/null
for root in "PARTUUID=$uuid" "PARTUUID=${uuid^^}" "PARTLABEL=cfxp$$"; do
        cmdline "root=$root"
        cf set --dry-run --cmdline "$TMP/cmdline" --not-before 2026-01-01 --now 2000-01-01
        assert_eq "$RC" 0 "root=$root: exit"
        assert_match "$ERR" "from superblock:last_write of $part; --dry-run" "root=$root: line"
done

# --device takes tags too.
cf status --json --device "LABEL=$label" --not-before 2026-01-01
assert_eq "$(jqo '.devices[0].device')" "$disk" "--device LABEL="

# libblkid is loaded only when it is needed: not for a path or a device number (sysfs names it),
# and for a tag only when udev has no link for it (here, outside a namespace, there is none).
loads_blkid() {
        cmdline "root=$1"
        strace -f -qq -e trace=openat -o "$TMP/open.trace" "$CLOCKFIX" status --json --cmdline "$TMP/cmdline" \
                --not-before 2026-01-01 >"$TMP/out.json" 2>/dev/null || true
        [ "$(jq -r '.devices[0].device' "$TMP/out.json")" == "$disk" ] || fail "root=$1: not $disk"
        grep -q 'libblkid\.so' "$TMP/open.trace" && echo yes || echo no
}
assert_eq "$(loads_blkid "$disk")" no "a path: libblkid not loaded"
assert_eq "$(loads_blkid "$devno")" no "a device number: libblkid not loaded"
assert_eq "$(loads_blkid "LABEL=$label")" yes "a tag udev has no link for: libblkid loaded"

# udev's links come first: in a private /dev, LABEL=/UUID= links that point to another disk (which
# libblkid's search would never pick) are what clockfix follows, and libblkid is not loaded.
mkimg "$TMP/other.img" 1800000300 8M -t ext4 -L "cfxother$$"
attach "$TMP/other.img"
other=$DEV
udev_dev() {
        # udev_dev BINARY SPEC: clockfix status --json in a private /dev holding both loop devices
        # and udev's links for $label and $uuid to the other disk; prints "device estimate blkid?"
        unshare -m bash -c '
                set -e
                mount --make-rprivate /
                mount -t tmpfs tmpfs /dev
                mknod "$3" b $5
                mknod "$4" b $6
                mkdir -p /dev/disk/by-label /dev/disk/by-uuid
                ln -s "../../${4#/dev/}" "/dev/disk/by-label/$7"
                ln -s "../../${4#/dev/}" "/dev/disk/by-uuid/$8"
                strace -f -qq -e trace=openat -o "$9" "$1" status --json --device "$2" --not-before 2026-01-01 \
                        --no-stamps --journal-budget 0 || true' \
                sh "$1" "$2" "$disk" "$other" "$(majmin "$disk")" "$(majmin "$other")" "$label" "$uuid" \
                "$TMP/open.trace" >"$TMP/udev.json"
        printf '%s %s %s\n' "$(jq -r '.devices[0].device' "$TMP/udev.json")" "$(jq -r .estimate "$TMP/udev.json")" \
                "$(grep -q 'libblkid\.so' "$TMP/open.trace" && echo blkid || echo no-blkid)"
}
for spec in "LABEL=$label" "UUID=$uuid"; do
        assert_eq "$(udev_dev "$CLOCKFIX" "$spec")" "$other 1800000300 no-blkid" "$spec: udev's link, libblkid not loaded"
        assert_eq "$(udev_dev "$CLOCKFIX_NOBLKID" "$spec")" "$other 1800000300 no-blkid" "$spec: udev's link, without libblkid"
done

# Built without libblkid (-Dblkid=false): paths and device numbers as ever; a tag udev has no link
# for is one clear line; a foreign filesystem is "not ext" without its name.
CLOCKFIX=$CLOCKFIX_NOBLKID
for root in "$disk" "$devno"; do
        cmdline "root=$root"
        cf status --json --cmdline "$TMP/cmdline" --not-before 2026-01-01
        assert_eq "$RC:$(jqo '.devices[0].device')" "0:$disk" "without libblkid: root=$root"
done
cf set --dry-run --device "LABEL=$label" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$RC" 3 "without libblkid, a tag without a link: exit"
assert_eq "$ERR" "<3>clockfix: LABEL=$label: not under /dev/disk/by-* (no udev?), and without libblkid clockfix cannot search the devices for it (name it as /dev/NAME or MAJOR:MINOR)" \
        "without libblkid, a tag without a link: message"
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
cf set --dry-run --device "$TMP/vfat.img" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$RC:$ERR" "3:<3>clockfix: $TMP/vfat.img: no ext2/3/4 filesystem found (bad superblock magic)" \
        "without libblkid, vfat"
CLOCKFIX=$CLOCKFIX_DYNAMIC

# --wait: a device that appears after a second is found...
# (made under another name and renamed, so that it appears whole, as a device does)
( sleep 1; mkimg "$TMP/making.img" 1800000200 8M -t ext2; mv "$TMP/making.img" "$TMP/late.img" ) &
start=$(date +%s%N)
cf status --json --device "$TMP/late.img" --wait 20 --not-before 2026-01-01
wait
took=$((($(date +%s%N) - start) / 1000000))
assert_eq "$RC" 0 "late device: exit"
assert_eq "$(jqo .estimate)" 1800000200 "late device: estimate"
[ $took -ge 500 ] && [ $took -lt 15000 ] || fail "late device: took $took ms"

# ... and one that never appears ends the wait on time, with a clear line.
start=$(date +%s%N)
cf set --dry-run --device "LABEL=cfx-never-$$" --wait 1.5 --not-before 2026-01-01
took=$((($(date +%s%N) - start) / 1000000))
assert_eq "$RC" 3 "never: exit"
assert_eq "$ERR" "<3>clockfix: LABEL=cfx-never-$$: device did not appear within the --wait time (is the driver or module for it loaded? check root= and the device name)" "never: message"
[ $took -ge 1500 ] && [ $took -lt 6000 ] || fail "never: took $took ms"
echo ok
