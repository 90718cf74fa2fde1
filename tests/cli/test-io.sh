#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What clockfix reads and writes, seen by strace: a handful of blocks of a 64 MiB and of a 1 TiB
# image alike (the superblock, the journal's superblock and first log blocks, the blocks that say
# the stamp files are not there), nothing opened for writing, nothing written but stdout and stderr;
# on a deep root, no block read twice by the stamp lookups.
. "$SRCDIR/tests/lib/lib.sh"

# trace IMAGE ARGS...: runs clockfix under strace; sets READS (read calls on IMAGE), BYTES (bytes
# read from IMAGE), and fails on any open for writing or write to a file other than stdout/stderr.
trace() {
        local img=$1
        shift
        strace -f -qq -e trace=openat,open,creat,read,pread64,readv,preadv,preadv2,close,write,pwrite64,writev,pwritev,pwritev2 \
                -o "$TMP/trace" "$CLOCKFIX" "$@" >/dev/null 2>&1 || true
        local out
        out=$(awk -v img="\"$img\"" '
                # Track which descriptors are the image between open and close.
                /open(at)?\(/ && index($0, img) && / = [0-9]+$/ { fd[$NF] = 1 }
                /close\(/ { split($2, a, /[(,)]/); delete fd[a[2]] }
                /(read|pread64|readv|preadv2?)\(/ {
                        split($2, a, /[(,)]/)
                        if (a[2] in fd && $NF ~ /^[0-9]+$/) { reads++; bytes += $NF }
                }
                /open(at)?\(|creat\(/ && /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(/ { print "OPEN-FOR-WRITE: " $0 }
                /(write|pwrite64|writev|pwritev2?)\(/ {
                        split($2, a, /[(,)]/)
                        if (a[2] != "1" && a[2] != "2") print "WRITE: " $0
                }
                END { printf "%d %d\n", reads, bytes }' "$TMP/trace")
        if grep -q -e '^OPEN-FOR-WRITE' -e '^WRITE' <<<"$out"; then
                fail "clockfix $* wrote: $(grep -e '^OPEN-FOR-WRITE' -e '^WRITE' <<<"$out")"
        fi
        read -r READS BYTES <<<"$(tail -n 1 <<<"$out")"
}

small=$TMP/small.img
big=$TMP/big.img
mkimg "$small" 1800000000 64M -t ext4
mkimg "$big" 1800000000 1T -t ext4
for args in "status --json" "set --dry-run"; do
        # shellcheck disable=SC2086
        trace "$small" $args --device "$small" --not-before 2026-01-01
        small_reads=$READS small_bytes=$BYTES
        # shellcheck disable=SC2086
        trace "$big" $args --device "$big" --not-before 2026-01-01
        echo "$args: 64 MiB image: $small_reads read(s), $small_bytes bytes; 1 TiB image: $READS read(s), $BYTES bytes"
        # The 1 TiB journal is 1 GiB: its extent tree has a level more, whose block mke2fs puts just
        # before the journal: read with the journal's superblock and the 16 blocks after it (where
        # the log starts: zeros, an empty log), no read more (its checksum is not verified, which
        # would read the inode too).
        [ "$small_reads" -ge 4 ] && [ "$small_reads" -le 8 ] || fail "$args: 64 MiB: $small_reads reads"
        assert_eq "$READS" "$small_reads" "$args: 1 TiB image's reads, the 64 MiB image's"
        [ "$BYTES" -le 98304 ] || fail "$args: 1 TiB: read $BYTES bytes"
done

# Without the journal and the stamp files, one superblock: at most 4 KiB whatever the size.
trace "$big" status --json --device "$big" --journal-budget 0 --no-stamps --not-before 2026-01-01
echo "superblock only, 1 TiB image: $READS read(s), $BYTES bytes"
assert_eq "$READS" 1 "superblock only: reads"
[ "$BYTES" -le 4096 ] || fail "superblock only: read $BYTES bytes" 

# The stamp lookups on a root as deep as a Debian one: every block they need (directories, inode
# table blocks, group descriptors) read from the device once, though the three paths share /, /var
# and /var/lib and libext2fs' own cache holds 8 blocks (src/disk/iocache.c). --journal-budget 0: an
# empty journal would not let the lookups be skipped anyway, and the journal's reads stay out.
tree=$TMP/tree
mkdir -p "$tree/etc" "$tree/var/lib/private/systemd/timesync" "$tree/var/lib/clockfix" "$tree/usr/bin"
for i in $(seq 1 250); do echo x >"$tree/etc/file-with-a-long-name-$i.conf"; done
for i in $(seq 1 40); do mkdir "$tree/etc/dir$i.d" "$tree/var/lib/package-state-$i"; done
for i in $(seq 1 12); do mkdir -p "$tree/var/lib/systemd/unit-$i"; done
ln -s ../private/systemd/timesync "$tree/var/lib/systemd/timesync"
touch -d @1796100000 "$tree/var/lib/private/systemd/timesync/clock"
touch -d @1796000000 "$tree/var/lib/clockfix/clock"
echo "2026-12-01 08:00:00" >"$tree/etc/fake-hwclock.data"
E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F -t ext4 -d "$tree" "$TMP/deep.img" 1G >/dev/null
# reads IMAGE ARGS...: the offsets clockfix status ARGS reads IMAGE at (pread64), one a line
reads() {
        local img=$1
        shift
        strace -f -qq -e trace=pread64,read -y -o "$TMP/reads.trace" "$CLOCKFIX" status --device "$img" \
                --not-before 2026-01-01 --now 2000-01-01 "$@" >/dev/null 2>&1 || true
        grep -F "<$img>" "$TMP/reads.trace" | sed -nE 's/.*pread64\(.*, ([0-9]+)\) = [0-9]+$/\1/p'
}
with=$(reads "$TMP/deep.img" --journal-budget 0)
without=$(reads "$TMP/deep.img" --journal-budget 0 --no-stamps)
n=$(($(wc -l <<<"$with") - $(wc -l <<<"$without")))
echo "stamp lookups, deep root: $n read(s) of the device"
twice=$(sort <<<"$with" | uniq -d)
[ -z "$twice" ] || fail "stamp lookups: offsets read more than once: $(tr '\n' ' ' <<<"$twice")"
[ "$n" -ge 8 ] || fail "stamp lookups: only $n reads: were the files read?"
cf status --json --device "$TMP/deep.img" --journal-budget 0 --not-before 2026-01-01 --now 2000-01-01
assert_eq "$(jqo '[.devices[0].files[] | .found] | map(tostring) | join(",")')" true,true,true "deep root: stamps found"

# Bad input: libblkid reads a bounded amount to name what is there, and nothing is written.
mkfs.vfat -C "$TMP/vfat.img" 8192 >/dev/null
trace "$TMP/vfat.img" set --dry-run --device "$TMP/vfat.img"
echo "vfat image: $READS read(s), $BYTES bytes (libblkid names what it holds)"
[ "$READS" -le 64 ] && [ "$BYTES" -le 131072 ] || fail "naming a vfat image took $READS reads, $BYTES bytes"

# Finding a device by label probes every block device through libblkid, whose cache must not be
# written anywhere (not even to /dev/null).
[ "$(id -u)" == 0 ] || fail "needs root for a loop device (CI runs as root)"
mkimg "$TMP/label.img" 1800000000 8M -t ext4 -L "cfxio$$"
attach "$TMP/label.img"
trace "$DEV" status --device "LABEL=cfxio$$" --not-before 2026-01-01
echo "LABEL= on a loop device: $READS read(s) of it, $BYTES bytes (probe and superblock)"
[ "$BYTES" -gt 0 ] || fail "LABEL=: the device was not read"
echo ok
