#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Bad input: no crash, one line naming the device and the problem, exit status 3 (no usable
# source), the image byte-identical afterwards (cf fingerprints it), the clock untouched: `set`
# runs for real only as a user the kernel will not let set the clock, and must fail with 3, not
# 4, because it never got as far as trying: the real clock is past the floor. With no usable time
# and a clock before the floor (--now 2000-01-01), the floor is the last resort: the decision is
# the floor itself (status, --json), which set --dry-run says it would set, with exit status 3
# all the same; --no-floor-fallback leaves it as before, unavailable. And set as that user with a
# floor ahead of the real clock tries to set it, and fails with 4.
. "$SRCDIR/tests/lib/lib.sh"

W="--not-before 2026-01-01"
FLOOR=1767225600 # 2026-01-01
FLOOR_LINE="<4>clockfix: No time on the disk; the clock would be set to the floor (--not-before), 2026-01-01T00:00:00Z, the earliest it can be (moved forward from 2000-01-01T00:00:00Z, +$((FLOOR - 946684800)) s); --dry-run: not changed"

# check_bad DEVICE REGEX: every command reports DEVICE with REGEX on one line and exits 3; with a
# clock before the floor, the floor is what set would set, and said so on a line of its own
check_bad() {
        local dev=$1 want=$2 cmd
        for cmd in "status" "status --json" "set --dry-run" "set" "status --json --no-floor-fallback" \
                "set --dry-run --no-floor-fallback"; do
                if [ "$cmd" == set ]; then
                        AS_USER=1 now=
                else
                        AS_USER= now="--now 2000-01-01"
                fi
                # shellcheck disable=SC2086
                cf $cmd --device "$dev" $W $now
                assert_eq "$RC" 3 "$dev ($cmd): exit"
                assert_match "$(head -n 1 <<<"$ERR")" "^<3>clockfix: $dev: $want" "$dev ($cmd): message"
                if [ "$cmd" == "set --dry-run" ]; then
                        assert_eq "$(wc -l <<<"$ERR")" 2 "$dev ($cmd): two lines on stderr: $ERR"
                        assert_eq "$(tail -n 1 <<<"$ERR")" "$FLOOR_LINE" "$dev ($cmd): the floor's line"
                else
                        assert_eq "$(wc -l <<<"$ERR")" 1 "$dev ($cmd): one line on stderr: $ERR"
                fi
                case "$cmd" in
                "status --json")
                        assert_eq "$(jqo '[.action, .evidence, .estimate, .target, .source] | map(tostring) | join(",")')" \
                                "set,false,$FLOOR,$FLOOR,build" "$dev: json, the floor"
                        assert_eq "$(jqo '.devices[0].device')" "$dev" "$dev: json device"
                        ;;
                "status --json --no-floor-fallback")
                        assert_eq "$(jqo '[.action, .evidence, .estimate, .target, .source] | map(tostring) | join(",")')" \
                                "unavailable,false,null,null,null" "$dev: json, no fallback"
                        ;;
                "status")
                        assert_match "$OUT" "Estimate: +2026-01-01T00:00:00Z, the floor \(--not-before\): no device gave a usable time" \
                                "$dev: table, the estimate"
                        assert_match "$OUT" "Action: +set: .clockfix set. would move the clock forward to the floor" "$dev: table"
                        ;;
                esac
        done
        AS_USER=
}

check_bad "$TMP/missing.img" "no such device or file \(check the name, or give it time to appear with --wait SECONDS\)"
mkdir "$TMP/dir"
check_bad "$TMP/dir" "is a directory, not a block device or filesystem image"
check_bad /dev/null "is not a block device or filesystem image file"

: >"$TMP/empty.img"
check_bad "$TMP/empty.img" "too small to hold an ext2/3/4 superblock \(empty or cut short\)"
mkimg "$TMP/cut.img" 1800000000 8M -t ext4
truncate -s 1500 "$TMP/cut.img"
check_bad "$TMP/cut.img" "too small to hold an ext2/3/4 superblock"

head -c 4M /dev/zero >"$TMP/zeros.img"
check_bad "$TMP/zeros.img" "no ext2/3/4 filesystem found \(bad superblock magic\)"
# Pseudo-random bytes from a fixed seed, so a failure can be replayed.
awk 'BEGIN { srand(42); for (i = 0; i < 1048576; i++) printf "%c", int(rand() * 256) }' >"$TMP/random.img"
check_bad "$TMP/random.img" "no ext2/3/4 filesystem found"

mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
check_bad "$TMP/vfat.img" "holds vfat, not ext2/3/4: skipped"
# A floor ahead of the real clock and no usable time: set tries to set the clock to the floor, and
# as a user who may not, fails with 4, saying so; the clock untouched.
for dev in "$TMP/vfat.img" "$TMP/missing.img"; do
        AS_USER=1 cf set --device "$dev" --not-before 2099-01-01
        assert_eq "$RC" 4 "$dev, the floor ahead of the clock: exit"
        assert_match "$(tail -n 1 <<<"$ERR")" "^<3>clockfix: Cannot set the clock to the floor \(--not-before\), 2099-01-01T00:00:00Z: permission denied \(needs CAP_SYS_TIME: run as root\); clock left at 20[0-9-]*T" \
                "$dev, the floor ahead of the clock: message"
done
head -c 8M /dev/zero >"$TMP/swap.img"
mkswap -q "$TMP/swap.img"
check_bad "$TMP/swap.img" "holds swap, not ext2/3/4: skipped"

# An external journal (mke2fs -O journal_dev): an ext2/3/4 superblock with times of its own, but no
# filesystem: skipped, its times not used.
mkimg "$TMP/jdev.img" 1800000000 8M -O journal_dev -b 4096
check_bad "$TMP/jdev.img" "holds an external journal \(mke2fs -O journal_dev\), not a filesystem: skipped \(name the device of the filesystem that uses it\)$"
cf status --json --device "$TMP/jdev.img" $W
assert_eq "$(jqo '.devices[0] | [.readable, .fstype] | map(tostring) | join(",")')" "false,jbd" "journal device: json"
assert_eq "$(jqo '.sources | length')" 0 "journal device: no sources"

# metadata_csum with one byte of the label changed (as a power cut can tear a superblock): the
# times are used where plausible, with a warning naming the device and the problem.
mkimg "$TMP/csum.img" 1800000000 8M -t ext4 -O metadata_csum -L good
printf 'bad!' | dd of="$TMP/csum.img" bs=1 seek=$((1024 + 0x78)) conv=notrunc status=none
cf set --dry-run --device "$TMP/csum.img" $W --now 2000-01-01
assert_eq "$RC" 0 "bad checksum: exit"
assert_eq "$(head -n 1 <<<"$ERR")" "<4>clockfix: $TMP/csum.img: superblock checksum does not match (corrupt, or torn by a power cut): its times are used only where plausible; run e2fsck" "bad checksum: warning"
assert_match "$(tail -n 1 <<<"$ERR")" "Would move clock forward .* to 2027-01-15T08:00:01Z" "bad checksum: decision"
cf status --json --device "$TMP/csum.img" $W
assert_eq "$(jqo '[.devices[0].checksum_bad, .sources[0].verdict, .sources[0].time] | @tsv')" \
        "$(printf 'true\tplausible\t1800000000')" "bad checksum: json"
# ... and a bad checksum with times beyond the window is no evidence at all.
mkimg "$TMP/csum-future.img" 4102444800 8M -t ext4 -O metadata_csum
printf 'bad!' | dd of="$TMP/csum-future.img" bs=1 seek=$((1024 + 0x78)) conv=notrunc status=none
cf set --dry-run --device "$TMP/csum-future.img" $W --now 2000-01-01
assert_eq "$RC" 3 "bad checksum, implausible: exit"
assert_match "$ERR" "all its times are after not-after" "bad checksum, implausible: message"

# A corrupt superblock: a block size of 2^50.
mkimg "$TMP/bs.img" 1800000000 8M -t ext2
printf '\050\000\000\000' | dd of="$TMP/bs.img" bs=1 seek=$((1024 + 0x18)) conv=notrunc status=none
check_bad "$TMP/bs.img" "corrupt superblock: .* \(run e2fsck\)"

# All times zero (ext2: no checksum to mend).
mkimg "$TMP/zero-times.img" 1800000000 8M -t ext2
for off in 0x2c 0x30 0x40 0x108; do
        dd if=/dev/zero of="$TMP/zero-times.img" bs=1 count=4 seek=$((1024 + off)) conv=notrunc status=none
done
check_bad "$TMP/zero-times.img" "no time is set in its superblock, journal or stamp files \(never mounted, or zeroed\)"

# Times beyond the window (floor 2026 + 30 years): 2100.
mkimg "$TMP/future.img" 4102444800 8M -t ext4
check_bad "$TMP/future.img" "all its times are after not-after 2056-01-01T[0-9:]*Z: corrupt or crafted filesystem\? \(or raise --not-after\): not used"

# Cut after the superblock: the superblock is whole, so its times are used, with a warning.
mkimg "$TMP/short.img" 1800000000 64M -t ext4
truncate -s 1M "$TMP/short.img"
cf set --dry-run --device "$TMP/short.img" $W --now 2000-01-01
assert_eq "$RC" 0 "short: exit"
assert_match "$ERR" "^<4>clockfix: $TMP/short.img: filesystem claims 67108864 bytes but the device has 1048576: truncated image or wrong partition table\?$" "short: warning"
assert_match "$ERR" "Would move clock forward" "short: decision"

# A label is 16 bytes from the disk: a crafted one cannot drive the terminal through the table,
# and the JSON escapes it.
mkimg "$TMP/esc.img" 1800000000 8M -t ext4 -L "$(printf 'a\033[31mb')"
cf status --device "$TMP/esc.img" $W
assert_match "$OUT" 'label "a\?\[31mb"' "escape in a label: table"
cf status --json --device "$TMP/esc.img" $W
assert_eq "$(jqo '.devices[0].label')" "$(printf 'a\033[31mb')" "escape in a label: json"
grep -q 'a\\u001b\[31mb' <<<"$OUT" || fail "escape in a label: not escaped in the JSON text"

# Several bad devices: one line for each, exit 3.
cf set --dry-run --device "$TMP/zeros.img" --device "$TMP/vfat.img" $W
assert_eq "$RC" 3 "two bad: exit"
assert_eq "$(wc -l <<<"$ERR")" 2 "two bad: two lines"
echo ok
