#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile directories and block maps on the way to the files clockfix reads from an unmounted
# filesystem (the stamp files, fake-hwclock's date, the record of times in the future): real
# images (mke2fs, debugfs), then, with tests/helpers/fs-loops, a directory or file whose block map or
# extent tree points back at itself, as a corruption can, and which libext2fs would walk some
# 10^9 times; and a directory that is a symbolic link to itself. Each lookup stops at its budget
# (lookup_read_file()), says so for that file, and the rest is used: each run ends, exits 0,
# leaves the image as it was (cf), and the clock is set from the times that could be read. Also a
# device cut short before its group descriptors.
. "$SRCDIR/tests/lib/lib.sh"
: "${FS_LOOPS:?run through meson test}"

T0=1790000000   # mkfs and the superblock's times
FHC=1795000000  # fake-hwclock's date, the newest time where it can be read
STAMP=1794000000 # clockfix's own stamp
POLICY=(--not-before 2026-01-01 --now 2000-01-01 --config /dev/null)
BUDGET=1024

# A last resort: a lookup that never ends fails here rather than at meson's timeout.
real=$CLOCKFIX
CLOCKFIX=$TMP/bounded-clockfix
printf '#!/bin/sh\nexec timeout -k 10 600 %s "$@"\n' "$(sq "$real")" >"$CLOCKFIX"
chmod 755 "$CLOCKFIX"

date -u -d "@$FHC" '+%Y-%m-%d %H:%M:%S' >"$TMP/fhc"

# image IMG SIZE MKE2FS-ARGS...: the three stamp files and a record, whose paths the loops below
# cut; the superblock's times T0
image() {
        local img=$1 size=$2
        shift 2
        mkimg "$img" "$T0" "$size" "$@"
        printf '%s\n' "mkdir var" "mkdir var/lib" "mkdir var/lib/systemd" "mkdir var/lib/systemd/timesync" \
                "write /dev/null var/lib/systemd/timesync/clock" "sif var/lib/systemd/timesync/clock mtime @$T0" \
                "mkdir etc" "write $TMP/fhc etc/fake-hwclock.data" \
                "mkdir var/lib/clockfix" "write /dev/null var/lib/clockfix/clock" \
                "sif var/lib/clockfix/clock mtime @$STAMP" |
                E2FSPROGS_FAKE_TIME=$T0 debugfs -w -f - "$img" >/dev/null 2>&1
}

# loop IMG MODE PATH: tests/helpers/fs-loops, the superblock's last write left at T0
loop() {
        "$FS_LOOPS" "$@" || fail "fs-loops $*"
        "$SB_TIMES" "$1" "wtime=$T0" || fail "sb-times $1"
}

# file IMG PATH: the entry of PATH in status --json
file() {
        jqo ".devices[0].files[] | select(.path == \"$2\")"
}

# spent NAME PATH: PATH's lookup stopped at its budget, and said so
spent() {
        local f
        f=$(file "$img" "$2")
        assert_eq "$(jq -c '[.found, .blocks, .budget, .budget_exhausted]' <<<"$f")" "[false,$BUDGET,$BUDGET,true]" \
                "$1: $2 stopped at its budget"
        assert_match "$(jq -r .error <<<"$f")" "budget of $BUDGET blocks" "$1: $2: why"
}

# found NAME PATH: PATH was read, within its budget
found() {
        local f
        f=$(file "$img" "$2")
        assert_eq "$(jq -c '[.found, .budget_exhausted, .blocks < .budget]' <<<"$f")" "[true,false,true]" "$1: $2 read"
}

# run NAME IMG: status --json and set --dry-run on IMG, each ending with exit 0
run() {
        cf status --json --device "$2" "${POLICY[@]}"
        [ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || fail "$1: status did not end within 600 s"
        assert_eq "$RC" 0 "$1: status: exit ($ERR)"
        STATUS=$OUT
        cf set --dry-run --device "$2" "${POLICY[@]}"
        [ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || fail "$1: set did not end within 600 s"
        assert_eq "$RC" 0 "$1: set --dry-run: exit ($ERR)"
        SET_ERR=$ERR
        OUT=$STATUS
}

# warned NAME PATH: set said, in one line, that PATH was not used for its budget
warned() {
        assert_eq "$(grep -c "$2: its lookup stopped at its budget of $BUDGET blocks.*run e2fsck.*not used" <<<"$SET_ERR")" 1 \
                "$1: the warning for $2: $SET_ERR"
}

img=$TMP/f.img

# A lookup walks a directory's blocks until it finds the name: each loop below is at a directory
# whose first block does not hold the next name of the path.

# 1. ext2, 4 KiB blocks: /var/lib/systemd's triple indirect block names itself (some 10^9 blocks
# to walk, all from the cache): timesyncd's clock is not found in time; the rest is read.
image "$img" 32M -t ext2 -b 4096
stamp "$img" "$T0" "rm var/lib/systemd/timesync/clock" "rmdir var/lib/systemd/timesync"
loop "$img" map /var/lib/systemd
run "ext2 map" "$img"
spent "ext2 map" /var/lib/systemd/timesync/clock
found "ext2 map" /etc/fake-hwclock.data
found "ext2 map" /var/lib/clockfix/clock
assert_eq "$(jqo .source) $(jqo .estimate)" "file:/etc/fake-hwclock.data $FHC" "ext2 map: the newest time read"
warned "ext2 map" /var/lib/systemd/timesync/clock

# 2. ext4 without metadata_csum, the directory made block-mapped: /etc loops, so fake-hwclock's
# date is not read; clockfix's stamp is the newest left.
image "$img" 32M -t ext4 -b 4096 -O ^metadata_csum
loop "$img" map /etc
stamp "$img" "$T0" "rm etc/fake-hwclock.data"
run "ext4 map" "$img"
spent "ext4 map" /etc/fake-hwclock.data
found "ext4 map" /var/lib/clockfix/clock
assert_eq "$(jqo .source) $(jqo .estimate)" "file:/var/lib/clockfix/clock $STAMP" "ext4 map: the newest time read"
warned "ext4 map" /etc/fake-hwclock.data

# 3. ext4 with 64 KiB blocks: an extent tree 4 deep whose every index names the same block below
# (4 * 5460^2 leaves), at /var/lib/clockfix, which no longer holds the record or the stamp: both
# lookups stop at their budget, the record's too (status reads it always).
image "$img" 256M -t ext4 -b 65536 -O ^metadata_csum
stamp "$img" "$T0" "rm var/lib/clockfix/clock"
loop "$img" extents /var/lib/clockfix
run "ext4 extents" "$img"
spent "ext4 extents" /var/lib/clockfix/clock
found "ext4 extents" /etc/fake-hwclock.data
assert_match "$(jqo .devices[0].future_record.error)" "budget of $BUDGET blocks" "ext4 extents: the record's lookup"
warned "ext4 extents" /var/lib/clockfix/clock

# 4. ext2 with 64 KiB blocks (10^12 blocks to walk): the root directory itself loops, and every
# file whose first directory is not in its first block is cut off. The superblock is still read.
image "$img" 5G -t ext2 -b 65536 -N 64 -O ^resize_inode
stamp "$img" "$T0" "rm etc/fake-hwclock.data" "rmdir etc"
loop "$img" map /
run "ext2 64 KiB map" "$img"
spent "ext2 64 KiB map" /etc/fake-hwclock.data
found "ext2 64 KiB map" /var/lib/clockfix/clock
assert_eq "$(jqo .source) $(jqo .estimate)" "file:/var/lib/clockfix/clock $STAMP" "ext2 64 KiB map: the newest time read"

# 5. The files themselves with looping maps: fake-hwclock's date and the record are read only as
# far as their size, which their first block holds, so they are read whole, within the budget.
image "$img" 32M -t ext2 -b 4096
loop "$img" map /etc/fake-hwclock.data
loop "$img" map /var/lib/clockfix/clock
run "files with looping maps" "$img"
found "files with looping maps" /etc/fake-hwclock.data
found "files with looping maps" /var/lib/clockfix/clock
assert_eq "$(jqo .estimate)" "$FHC" "files with looping maps: fake-hwclock's date"

# 6. A directory on the way that is a symbolic link to itself: the lookup gives up after 8 links
# (as many as libext2fs's own ext2fs_namei follows), at once; the rest is read.
image "$img" 32M -t ext4
stamp "$img" "$T0" "rm var/lib/systemd/timesync/clock" "rmdir var/lib/systemd/timesync" \
        "symlink var/lib/systemd/timesync /var/lib/systemd/timesync"
run "a link to itself" "$img"
assert_eq "$(file "$img" /var/lib/systemd/timesync/clock | jq -c '[.found, .budget_exhausted]')" "[false,false]" \
        "a link to itself: not found, within the budget"
assert_match "$(file "$img" /var/lib/systemd/timesync/clock | jq -r .error)" "[Ll]evels of symbolic links|link" \
        "a link to itself: why"
assert_eq "$(jqo .estimate)" "$FHC" "a link to itself: the rest is read"
# 7. A device cut short after its superblock (ext2: no journal, so the stamp files are read): the
# group descriptors, which say where the inodes are, cannot be read. libext2fs, asked for an inode,
# used the failed read as a descriptor (a crash); now each file says why, and the superblock's
# times are used.
mkimg "$img" "$T0" 16M -t ext2 -b 1024
truncate -s 2048 "$img"
run "cut after the superblock" "$img"
assert_eq "$(jqo '[.devices[0].truncated, .source, .estimate] | @tsv')" "$(printf 'true\tsuperblock:last_write\t%s' "$T0")" \
        "cut after the superblock: the superblock's times"
assert_eq "$(jqo '[.devices[0].files[].error] | unique | join(",")')" "cannot read the group descriptors (a device cut short?)" \
        "cut after the superblock: why no file is read"
echo "ok"
