#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# -v: a debug line for the device tried and how it was found, each source read with its time and
# verdict, the journal search's probes, and what was read (the journal blocks as status --json
# counts them, the bytes as strace sees them); without -v none of it.
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to loop-mount images (CI runs as root)"

MNT=$TMP/mnt
mkdir "$MNT"
at_exit 'umount "$MNT" 2>/dev/null || true'

# A root with two stamp files on the disk, and a journal holding commits: copied while mounted.
img=$TMP/root.img
mkimg "$img" 1700000000 64M -t ext4
mount -o loop "$img" "$MNT"
mkdir -p "$MNT/var/lib/systemd/timesync" "$MNT/etc"
touch -d @1790000000 "$MNT/var/lib/systemd/timesync/clock"
echo "2026-09-01 10:00:00" >"$MNT/etc/fake-hwclock.data"
umount "$MNT"
mount -o loop "$img" "$MNT"
for ((i = 0; i < 20; i++)); do
        echo "$i" >>"$MNT/log"
        sync "$MNT/log"
done
cp --sparse=always "$img" "$TMP/cut.img"
umount "$MNT"
cut=$TMP/cut.img

args=(status --json --device "$cut" --not-before 2020-01-01 --now 2000-01-01)
cf -v "${args[@]}"
assert_eq "$RC" 0 "-v: exit"
assert_match "$ERR" "^<7>clockfix: $cut \(--device\): trying $cut$" "-v: the device tried"
# Every time status lists is in a debug line with its verdict.
jqo '.sources[] | "\(.source) \(.time) \(.verdict)"' >"$TMP/sources"
[ "$(wc -l <"$TMP/sources")" -ge 4 ] || fail "-v: fewer sources than expected: $OUT"
while read -r source time verdict; do
        iso=$(date -u -d "@$time" +%Y-%m-%dT%H:%M:%SZ)
        [ "$verdict" == plausible ] || verdict="after not-after|before the floor"
        assert_match "$ERR" "^<7>clockfix: $cut: $source .*$iso.*: ($verdict)$" "-v: $source"
done <"$TMP/sources"
assert_match "$ERR" "^<7>clockfix: $cut: superblock:first_error never set$" "-v: a time never set"
assert_match "$ERR" "^<7>clockfix: $cut: journal inode 8 .*dirty, oldest sequence [0-9]+" "-v: the journal"
assert_match "$ERR" "^<7>clockfix: journal: (probe at block [0-9]+.*|look at block [0-9]+.*|transaction [0-9]+): commit block [0-9]+, sequence [0-9]+, 20" \
        "-v: the search finding a commit"

# The journal blocks read: as status --json counts them.
blocks=$(sed -n 's/^<7>clockfix: journal: [0-9]* of [0-9]* reads by the search, \([0-9]*\) blocks[^:]*: \([0-9]*\) device reads.*/\1 \2/p' <<<"$ERR")
set -- $blocks
[ $# == 2 ] && [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$2" -le "$1" ] || fail "-v: journal read count: '$blocks'"
assert_eq "$1" "$(jqo '.devices[0].journal.blocks_read')" "-v: journal blocks read against --json"
echo "journal: $1 blocks, $2 device reads"

# The kernel's newest commit is plausible: the stamp files, written before it, are not looked up.
assert_match "$ERR" "^<7>clockfix: $cut: stamp files not read: no stamp file can be newer than the journal's newest commit$" \
        "-v: the stamp files skipped"
# Without the journal they are, each with its verdict.
cf -v "${args[@]}" --journal-budget 0
assert_match "$ERR" "^<7>clockfix: $cut: stamp files read: no journal was read$" "-v: the stamp files read"
assert_match "$ERR" "^<7>clockfix: $cut: file:/var/lib/systemd/timesync/clock 2026-09-21T14:13:20Z .*: plausible" \
        "-v: the timesyncd stamp"
assert_match "$ERR" "^<7>clockfix: $cut: file:/etc/fake-hwclock.data 2026-09-01T10:00:00Z .*: plausible" \
        "-v: the fake-hwclock stamp"
assert_match "$ERR" "^<7>clockfix: $cut: file:/var/lib/clockfix/clock not there$" "-v: a stamp not there"

# The bytes read from the device in all: what strace sees clockfix read from the image.
# (LeakSanitizer, in a build with it, does not work under ptrace.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        strace -f -qq -e trace=openat,open,read,pread64,readv,preadv,preadv2,close -o "$TMP/trace" \
        "$CLOCKFIX" -v "${args[@]}" >/dev/null 2>"$TMP/err"
bytes=$(sed -n "s|^<7>clockfix: $cut: \([0-9]*\) bytes read from it in all$|\1|p" "$TMP/err")
traced=$(awk -v img="\"$cut\"" '
        /open(at)?\(/ && index($0, img) && / = [0-9]+$/ { fd[$NF] = 1 }
        /close\(/ { split($2, a, /[(,)]/); delete fd[a[2]] }
        /(read|pread64|readv|preadv2?)\(/ { split($2, a, /[(,)]/); if (a[2] in fd && $NF ~ /^[0-9]+$/) bytes += $NF }
        END { print bytes + 0 }' "$TMP/trace")
[ -n "$bytes" ] && [ "$bytes" -gt 0 ] || fail "-v: no bytes read line: $(cat "$TMP/err")"
assert_eq "$bytes" "$traced" "-v: bytes read against strace"
assert_match "$(cat "$TMP/err")" "^<7>clockfix: 1 device\(s\) tried, 1 read: $bytes bytes read in all" "-v: the total"
echo "$bytes bytes read"

# Without -v: not a line of it (the status is on stdout, and this image needs no warning).
cf "${args[@]}"
assert_eq "$RC:$ERR" "0:" "without -v"

# No --device: root= names the filesystem by its UUID, found through udev or libblkid.
attach "$cut"
uuid=$(jqo '.devices[0].uuid')
echo "root=UUID=$uuid ro" >"$TMP/cmdline"
cf -v status --cmdline "$TMP/cmdline" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$RC" 0 "root=: exit"
assert_match "$ERR" "^<7>clockfix: UUID=$uuid: (udev link names $DEV|found $DEV among the kernel's block devices|libblkid found $DEV)$" "root=: how it was found"
assert_match "$ERR" "^<7>clockfix: UUID=$uuid \(root= on the kernel command line\): trying $DEV$" "root=: tried"
assert_match "$ERR" "^<7>clockfix: $DEV: ext4 superblock read, UUID $uuid" "root=: read"
cf status --cmdline "$TMP/cmdline" --not-before 2020-01-01 --now 2000-01-01
assert_eq "$RC:$ERR" "0:" "root=, without -v"

# A device that is not there: the line says so, and why.
cf -v status --device "$TMP/missing" --not-before 2020-01-01
assert_match "$ERR" "^<7>clockfix: $TMP/missing \(--device\): not found: No such file or directory$" "missing"
echo ok
