#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Journals the kernel wrote, in each state it leaves them and in each format: after a remount
# read-only and a clean unmount (log emptied), a log that wrapped past its end, ext3's
# block-mapped journal, fast commits, ext4 without checksums or 64-bit tags, and an external
# journal device. Where the log is dirty, the newest commit must be the one e2fsprogs' own walk of
# the whole log finds (debugfs logdump).
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to loop-mount images (CI runs as root)"

MNT=$TMP/mnt
mkdir "$MNT"
at_exit 'umount "$MNT" 2>/dev/null || true'

# writes N: N writes, each synced to the file (a journal commit each)
writes() {
        local i
        WRITES_FROM=$(date +%s)
        for ((i = 0; i < $1; i++)); do
                echo "$i" >>"$MNT/log"
                sync "$MNT/log"
        done
}

# powercut NAME IMAGE: the image copied while mounted; checks the newest commit against logdump
powercut() {
        local name=$1 img=$2 last
        last=$(date +%s)
        cp --sparse=always "$img" "$TMP/$name.cut"
        cf status --json --device "$TMP/$name.cut" --not-before 2020-01-01 --now 2000-01-01
        assert_eq "$RC" 0 "$name: exit"
        assert_eq "$(jqo '.devices[0].journal.state')" dirty "$name: state"
        assert_eq "$(jqo '.devices[0].journal.newest | "\(.sequence) \(.block)"')" "$(logdump_last "$TMP/$name.cut")" \
                "$name: newest commit against debugfs logdump"
        assert_eq "$(jqo .source)" journal:last_commit "$name: winner"
        between "$name: estimate" "$(jqo .estimate)" "$WRITES_FROM" "$last"
        echo "$name: $(jqo '.devices[0].journal | "\(.features); sequence \(.newest.sequence) at block \(.newest.block); \(.blocks_read) blocks read"')"
}

# Remount read-only, as at shutdown: the log is emptied; its last commit is still there.
mkimg "$TMP/ro.img" 1700000000 64M -t ext4
mount -o loop "$TMP/ro.img" "$MNT"
writes 20
mount -o remount,ro "$MNT"
after=$(date +%s)
cp --sparse=always "$TMP/ro.img" "$TMP/ro.cut"
cf status --json --device "$TMP/ro.cut" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$(jqo '.devices[0].journal.state')" clean "remount ro: state"
between "remount ro: last commit" "$(jqo '.devices[0].journal.newest.time')" "$WRITES_FROM" "$after"
between "remount ro: estimate" "$(jqo .estimate)" "$WRITES_FROM" "$after"
echo "remount ro: $(jqo '.devices[0].journal | "head \(.head); \(.blocks_read) blocks read"')"

# Unmount: emptied again. Linux >= 6.5 records the head: the newest commit in two reads.
umount "$MNT"
after=$(date +%s)
cf status --json --device "$TMP/ro.img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$(jqo '.devices[0].journal.state')" clean "unmount: state"
between "unmount: last commit" "$(jqo '.devices[0].journal.newest.time')" "$WRITES_FROM" "$after"
if kernel_at_least 6 5; then
        [ "$(jqo '.devices[0].journal.head')" -gt 0 ] || fail "unmount: Linux $(uname -r) recorded no head"
        # The journal's superblock with the 16 blocks after it, and the block before the head.
        assert_eq "$(jqo '.devices[0].journal.reads')" 2 "unmount: reads with the head"
        assert_eq "$(jqo '.devices[0].journal.blocks_read')" 18 "unmount: blocks read with the head"
fi

# A log that wrapped: 1024 blocks of 1 KiB, written until the live log runs past its end.
mkimg "$TMP/wrap.img" 1700000000 32M -t ext4 -b 1024 -J size=1
mount -o loop "$TMP/wrap.img" "$MNT"
for ((round = 0; ; round++)); do
        [ "$round" -lt 20 ] || fail "wrap: the log did not wrap"
        writes 60
        cp --sparse=always "$TMP/wrap.img" "$TMP/wrap.cut"
        set -- $(logdump_last "$TMP/wrap.cut")
        [ $# == 2 ] && [ "$2" -lt "$(logdump_start "$TMP/wrap.cut")" ] && break
done
powercut wrap "$TMP/wrap.img"
assert_eq "$(jqo '.devices[0].journal.wrapped')" true "wrap: wrapped"
umount "$MNT"

# Larger transactions: 200 files created between commits (about 20 journal blocks each).
mkimg "$TMP/busy.img" 1700000000 128M -t ext4 -J size=16
mount -o loop "$TMP/busy.img" "$MNT"
for ((i = 0; i < 60; i++)); do
        mkdir "$MNT/d$i"
        for ((j = 0; j < 200; j++)); do : >"$MNT/d$i/f$j"; done
        sync -f "$MNT"
done
powercut busy "$TMP/busy.img"
umount "$MNT"

# ext3: a journal mapped by indirect blocks, no checksums.
mkimg "$TMP/ext3.img" 1700000000 64M -t ext3
mount -o loop "$TMP/ext3.img" "$MNT"
writes 30
powercut ext3 "$TMP/ext3.img"
assert_eq "$(jqo '.devices[0].journal.from_backup')" true "ext3: mapped through the superblock's copy"
umount "$MNT"

# ext4 without metadata_csum and without 64bit: the smallest tags (8 bytes).
mkimg "$TMP/plain.img" 1700000000 64M -t ext4 -O ^metadata_csum,^64bit
mount -o loop "$TMP/plain.img" "$MNT"
writes 30
powercut plain "$TMP/plain.img"
assert_eq "$(jqo '.devices[0].journal.features')" "" "plain: no journal features"
umount "$MNT"

# Fast commits: fsync() writes them to the area at the end of the journal; sync() full commits.
mkimg "$TMP/fc.img" 1700000000 64M -t ext4 -O fast_commit
mount -o loop "$TMP/fc.img" "$MNT"
writes 30
sync -f "$MNT"
powercut fast_commit "$TMP/fc.img"
j=$(jqo '.devices[0].journal | "\(.maxlen) \(.last)"')
set -- $j
[ "$2" -lt $(($1 - 1)) ] || fail "fast_commit: the log ($2) does not stop before the fast-commit area ($1)"
umount "$MNT"

# An external journal device, found by its UUID through libblkid.
mkimg "$TMP/jdev.img" 1700000000 16M -O journal_dev -b 4096
attach "$TMP/jdev.img"
jdev=$DEV
mkimg "$TMP/ext.img" 1700000000 64M -t ext4 -b 4096 -J device="$jdev"
mount -o loop "$TMP/ext.img" "$MNT"
writes 20
umount "$MNT"
after=$(date +%s)
cf status --json --device "$TMP/ext.img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$(jqo '.devices[0].journal | "\(.location) \(.journal_device)"')" "device $jdev" "external: found"
between "external: last commit" "$(jqo '.devices[0].journal.newest.time')" "$WRITES_FROM" "$after"

# The journal device gone (an unplugged disk): not waited for beyond a second, even with --wait;
# the superblock's times are used, with a warning.
# losetup -d only marks a device that is still open (udev probing it after the unmount) to be
# detached at its last close: wait until it is really gone.
losetup -d "$jdev"
detached() { ! losetup "$1" >/dev/null 2>&1; }
wait_until 10 detached "$jdev" || fail "external, gone: $jdev still attached 10 s after losetup -d"
started=$(date +%s%N)
cf set --dry-run --wait 60 --device "$TMP/ext.img" --not-before 2020-01-01 --now 2000-01-01
took=$((($(date +%s%N) - started) / 1000000))
assert_eq "$RC" 0 "external, gone: exit"
assert_match "$ERR" "journal not used: (external journal device not found|cannot open the external journal device) \(is the journal device attached\?\)" \
        "external, gone: warning"
# --wait is for the root device alone: the journal device was not waited for that long.
[ "$took" -lt 60000 ] || fail "external, gone: took $took ms: --wait 60 applied to the journal device"
echo "external journal gone: $took ms"

# Its device number now another filesystem's journal device (disks are numbered as they appear):
# not that journal, and not a corrupt one either: the right one is not attached.
mkimg "$TMP/jdev2.img" 1700000000 16M -O journal_dev -b 4096
attach "$TMP/jdev2.img"
# (s_journal_dev as mke2fs stores st_rdev and the kernel's new_encode_dev(): minor bits above 8 at 20)
maj=$((0x$(stat -c %t "$DEV"))) min=$((0x$(stat -c %T "$DEV")))
stamp "$TMP/ext.img" 1700000000 "ssv journal_dev $(((maj << 8) | (min & 0xff) | ((min & ~0xff) << 12)))"
cf set --dry-run --device "$TMP/ext.img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$RC" 0 "external, another journal: exit"
assert_eq "$(grep -c 'journal not used' <<<"$ERR")" 1 "external, another journal: one warning: $ERR"
assert_match "$ERR" "journal not used: the journal's UUID was not found, and the device at its former device number holds another filesystem's journal \(is the journal device attached\?\)$" \
        "external, another journal: warning"
cf status --json --device "$TMP/ext.img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$(jqo '.devices[0].journal.journal_device')" "$DEV" "external, another journal: the device looked at"
assert_match "$(jqo '.devices[0].journal.error')" "holds another filesystem's journal$" "external, another journal: json"
assert_match "$(jqo .source)" "^superblock:" "external, another journal: the superblock's times"
echo ok
