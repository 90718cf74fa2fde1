#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Finding the device through the real binary: root= from --cmdline (path, LABEL=, UUID=,
# PARTUUID=, device number) on loop devices, --device with a tag, and --wait for a device that
# appears late or never. Every case resolves before clockfix would fall back to the host's own
# mountinfo and fstab (those fall-backs are tested with crafted files in the image suite).
. "$SRCDIR/tests/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root for loop devices (CI runs as root)"

label=cfx$$
uuid=$(printf '%08x' $$)-1234-4321-8765-0123456789ab
img=$TMP/disk.img
mkimg "$img" 1800000000 16M -t ext4 -L "$label" -U "$uuid"
attach "$img"
disk=$DEV

cmdline() { printf '%s\n' "$1" >"$TMP/cmdline"; }

devno=$(printf '%d:%d' "0x$(stat -c %t "$disk")" "0x$(stat -c %T "$disk")")
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
