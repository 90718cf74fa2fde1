#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The case clockfix is for: a board that wrote to its root filesystem for a while, then lost power.
# The kernel mounts an image, files are written and synced once a second for 22 s with the real
# clock, and the image is copied while still mounted: that copy is what a power cut leaves. The
# journal's last commit must be within seconds of the last write; the superblock's last write
# time, stamped at mount, 20 s or more behind (from Linux 6.6 on the kernel writes the superblock
# again once an hour has passed since it last did and 16 MiB more were written, before only at
# unmount: nothing here comes near).
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to loop-mount an image (CI runs as root)"

img=$TMP/root.img
mkimg "$img" "$(($(date +%s) - 3600))" 256M -t ext4
mkdir "$TMP/mnt"
mount -o loop "$img" "$TMP/mnt"
at_exit 'umount "$TMP/mnt" 2>/dev/null || true'

start=$(date +%s)
while [ $(($(date +%s) - start)) -lt 22 ]; do
        date +%s.%N >>"$TMP/mnt/log"
        sync "$TMP/mnt/log"
        sleep 1
done
last_write=$(date +%s)
cp --sparse=always "$img" "$TMP/powercut.img"
umount "$TMP/mnt"

cf status --json --device "$TMP/powercut.img" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$RC" 0 "exit"
assert_eq "$(jqo .source)" journal:last_commit "winner"
close_to "estimate against the last write" "$(jqo .estimate)" "$((last_write - 5))" 5
sb_write=$(jqo '.sources[] | select(.source == "superblock:last_write") | .time')
[ "$sb_write" -le $((last_write - 20)) ] ||
        fail "superblock:last_write $sb_write is not 20 s behind the last write $last_write"
assert_eq "$(jqo '.devices[0].journal.state')" dirty "the log is dirty"

# The same commit as e2fsprogs' own walk of the log, which reads it all.
assert_eq "$(jqo '.devices[0].journal.newest | "\(.sequence) \(.block)"')" "$(logdump_last "$TMP/powercut.img")" \
        "newest commit against debugfs logdump"
read_blocks=$(jqo '.devices[0].journal.blocks_read')
reads=$(jqo '.devices[0].journal.reads')
[ "$reads" -le "$(jqo '.devices[0].journal.budget')" ] || fail "$reads reads, over the budget"

estimate=$(jqo .estimate)
cf set --dry-run --device "$TMP/powercut.img" --not-before 2020-01-01 --now 2000-01-01
assert_match "$ERR" "from journal:last_commit of $TMP/powercut.img" "set --dry-run names the journal"
echo "last write $last_write; journal $estimate, superblock last write $sb_write; $read_blocks journal blocks in $reads reads"
echo ok
