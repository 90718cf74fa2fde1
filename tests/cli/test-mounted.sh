#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Times the kernel itself wrote: a filesystem read while mounted read-write (dirty journal), a
# copy taken while it was mounted (what a power cut leaves on disk), and after a clean unmount.
# The kernel stamps them with the host's real clock, which the test only reads.
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to loop-mount an image (CI runs as root)"

img=$TMP/root.img
mkimg "$img" 1700000000 32M -t ext4
attach "$img"
mkdir "$TMP/mnt"
mounted_at=$(date +%s)
mount -t ext4 "$DEV" "$TMP/mnt"
mounted_after=$(date +%s)
unmounted=
umount_it() { [ -n "$unmounted" ] || umount "$TMP/mnt"; unmounted=1; }
at_exit 'umount_it 2>/dev/null || true'
for i in 1 2 3; do echo "$i" >"$TMP/mnt/file$i"; done
sync


# While mounted: the journal needs recovery, the kernel stamped last mount and last write.
asked_at=$(date +%s)
cf status --json --device "$DEV" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$RC" 0 "mounted: exit"
assert_eq "$(jqo '.devices[0] | [.readable, .needs_recovery, .fstype] | map(tostring) | join(",")')" "true,true,ext4" "mounted: device"
between "mounted: last_mount" "$(jqo '.sources[] | select(.source == "superblock:last_mount") | .time')" "$mounted_at" "$mounted_after"
between "mounted: estimate" "$(jqo .estimate)" "$mounted_at" "$asked_at"
assert_eq "$(jqo .action)" set "mounted: action"

# A copy of the image taken while mounted: what is on disk after a power cut.
cp --sparse=always "$img" "$TMP/powercut.img"
cf status --json --device "$TMP/powercut.img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$(jqo '.devices[0].needs_recovery')" true "power cut: journal needs recovery"
between "power cut: estimate" "$(jqo .estimate)" "$mounted_at" "$(date +%s)"

# A clean unmount stamps last write again; the journal is clean.
sleep 2
unmounted_at=$(date +%s)
umount_it
unmounted_after=$(date +%s)
cf status --json --device "$DEV" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$(jqo '.devices[0].needs_recovery')" false "unmounted: journal clean"
between "unmounted: last_write" "$(jqo '.sources[] | select(.source == "superblock:last_write") | .time')" "$unmounted_at" "$unmounted_after"
# The last commit and the last write come within a second of each other: either may win.
assert_match "$(jqo .source)" '^(superblock:last_write|journal:last_commit)$' "unmounted: winner"
between "unmounted: estimate" "$(jqo .estimate)" "$unmounted_at" "$unmounted_after"

# The unmounted image read through its file: same answer, and clockfix changed nothing.
cf set --dry-run --device "$img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$RC" 0 "image: exit"
assert_match "$ERR" "from (superblock:last_write|journal:last_commit) of $img" "image: line"
echo ok
