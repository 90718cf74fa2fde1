#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Stamp files read from an unmounted filesystem with libext2fs: timesyncd's clock file (through a
# symbolic link, with nanoseconds), fake-hwclock's date, clockfix's own stamp; files that cannot
# be used; a symbolic link at a stamp's path, never followed, on the disk or live (nor anything
# opened to tell); 128-byte inodes without the extra time field; --no-stamps.
. "$SRCDIR/tests/lib/lib.sh"

POLICY=(--not-before 2026-01-01 --now 2000-01-01)
echo "2026-12-01 08:00:00" >"$TMP/fhc"

# image FILE [MKE2FS-ARGS...]: an ext4 image with the stamp files, timesyncd's reached through a
# symbolic link (as with DynamicUser=); its superblock times all in 2023, before the floor, so
# that the stamp files decide whatever the day the test runs
image() {
        local img=$1
        shift
        mkimg "$img" 1700000000 16M -t ext4 "$@"
        printf '%s\n' "mkdir var" "mkdir var/lib" "mkdir var/lib/private" "mkdir var/lib/private/systemd" \
                "mkdir var/lib/private/systemd/timesync" "mkdir var/lib/systemd" \
                "symlink var/lib/systemd/timesync /var/lib/private/systemd/timesync" \
                "write /dev/null var/lib/private/systemd/timesync/clock" \
                "sif var/lib/private/systemd/timesync/clock mtime @1796100000" \
                "sif var/lib/private/systemd/timesync/clock mtime_extra $((499999995 << 2))" \
                "mkdir etc" "write $TMP/fhc etc/fake-hwclock.data" \
                "mkdir var/lib/clockfix" "write /dev/null var/lib/clockfix/clock" \
                "sif var/lib/clockfix/clock mtime @1796000000" |
                E2FSPROGS_FAKE_TIME=1700000000 debugfs -w -f - "$img" >/dev/null 2>&1
}

image "$TMP/s.img"
cf status --json --device "$TMP/s.img" "${POLICY[@]}"
assert_eq "$RC" 0 "stamps: exit"
src() { jqo ".sources[] | select(.source == \"$1\") | $2"; }
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time_usec)" 1796100000499999 "timesyncd: mtime with ns"
assert_eq "$(src file:/etc/fake-hwclock.data .time)" "$(date -u -d '2026-12-01 08:00:00' +%s)" "fake-hwclock"
assert_eq "$(src file:/var/lib/clockfix/clock .time)" 1796000000 "clockfix stamp"
assert_eq "$(jqo .source)" file:/etc/fake-hwclock.data "stamps: the newest wins"
assert_eq "$(jqo '[.devices[0].files[] | .found] | map(tostring) | join(",")')" true,true,true "stamps: found"
[ "$(src file:/etc/fake-hwclock.data .inode)" -gt 11 ] || fail "stamps: inode"
cf status --device "$TMP/s.img" "${POLICY[@]}"
assert_match "$OUT" "file:/var/lib/systemd/timesync/clock +2026-12-01T04:40:00Z +plausible" "stamps: the table"

# --no-stamps: not read at all.
cf status --json --no-stamps --device "$TMP/s.img" "${POLICY[@]}"
assert_eq "$(jqo '[.sources[] | select(.source | startswith("file:"))] | length')" 0 "--no-stamps: sources"
assert_eq "$(jqo '.devices[0].files')" null "--no-stamps: files"

# None there: not found, and no error either.
mkimg "$TMP/none.img" 1700000000 16M -t ext4
cf status --json --device "$TMP/none.img" "${POLICY[@]}"
assert_eq "$(jqo '[.devices[0].files[] | [.found, .error, .inode, .time] | map(tostring) | join(",")] | unique | join(" ")')" \
        "false,null,null,null" "no stamp files"

# Files that are there but cannot be used: a warning each, the rest still counts.
image "$TMP/bad.img"
echo "not a date" >"$TMP/junk"
printf '%s\n' "rm etc/fake-hwclock.data" "write $TMP/junk etc/fake-hwclock.data" "rm var/lib/clockfix/clock" \
        "mkdir var/lib/clockfix/clock" "sif var/lib/private/systemd/timesync/clock mtime_extra 1" |
        E2FSPROGS_FAKE_TIME=1700000000 debugfs -w -f - "$TMP/bad.img" >/dev/null 2>&1
cf set --dry-run --device "$TMP/bad.img" "${POLICY[@]}"
assert_eq "$RC" 0 "bad stamps: exit"
assert_match "$ERR" "/etc/fake-hwclock.data: does not hold a date \(YYYY-MM-DD HH:MM:SS\), not used" "bad date"
assert_match "$ERR" "/var/lib/clockfix/clock: not a regular file, not used" "directory"
cf status --json --device "$TMP/bad.img" "${POLICY[@]}"
# Epoch bits 01: 2^32 s later, past not-after: shown, not used.
assert_eq "$(src file:/var/lib/systemd/timesync/clock .verdict)" after_not_after "epoch bits"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time)" $((1796100000 + (1 << 32))) "epoch bits: time"

# What the JSON says of each file: found (read, error null, its time even if implausible), or
# there but not usable (an error, and no time); never found together with an error.
assert_eq "$(jqo '[.devices[0].files[] | "\(.found)/\(.error != null)/\(.time != null)"] | join(" ")')" \
        "true/false/true false/true/false false/true/false" "bad stamps: files"
assert_eq "$(jqo '.devices[0].files[2].inode > 11')" true "bad stamps: the inode of what is at the path"

# A symbolic link in the last component is not followed (a link to /dev/watchdog, followed, would
# arm it): neither timesyncd's clock file, an absolute link to a regular file holding a newer time
# elsewhere on the filesystem, nor fake-hwclock's, a relative one; each is there but not used, with
# the inode of the link. The links of the directories on the way are followed (timesyncd's, as with
# DynamicUser=): clockfix's own stamp is the newest then.
image "$TMP/link.img"
echo "2027-03-01 08:00:00" >"$TMP/fhc-newer"
printf '%s\n' "write /dev/null var/lib/newer-clock" "sif var/lib/newer-clock mtime @1798000000" \
        "rm var/lib/private/systemd/timesync/clock" \
        "symlink var/lib/private/systemd/timesync/clock /var/lib/newer-clock" \
        "write $TMP/fhc-newer etc/newer-date" "rm etc/fake-hwclock.data" "symlink etc/fake-hwclock.data newer-date" |
        E2FSPROGS_FAKE_TIME=1700000000 debugfs -w -f - "$TMP/link.img" >/dev/null 2>&1
debugfs -R "stat etc/fake-hwclock.data" "$TMP/link.img" 2>/dev/null | grep -q "Type: symlink" ||
        fail "debugfs made no symbolic link"
cf status --json --device "$TMP/link.img" "${POLICY[@]}"
assert_eq "$RC" 0 "links on the disk: exit"
for f in /var/lib/systemd/timesync/clock /etc/fake-hwclock.data; do
        assert_eq "$(jqo ".devices[0].files[] | select(.path == \"$f\") | [.found, .error, .inode > 11, .time] | map(tostring) | join(\",\")")" \
                "false,a symbolic link: not followed,true,null" "links on the disk: $f"
done
assert_eq "$(jqo '[.sources[] | select(.source | startswith("file:")) | .source] | join(" ")')" \
        file:/var/lib/clockfix/clock "links on the disk: no time through a link"
assert_eq "$(jqo .source) $(jqo .estimate)" "file:/var/lib/clockfix/clock 1796000000" "links on the disk: the winner"
cf status --device "$TMP/link.img" "${POLICY[@]}"
assert_match "$OUT" "File /etc/fake-hwclock.data: a symbolic link: not followed, not used" "links on the disk: the table"
cf set --dry-run --device "$TMP/link.img" "${POLICY[@]}"
assert_match "$ERR" "/var/lib/systemd/timesync/clock: a symbolic link: not followed, not used" "links on the disk: warning"

# A corrupt directory on the way (garbage over /var/lib's block): the files under it are not
# found and say why, with no inode and no time; fake-hwclock's, elsewhere, still counts.
image "$TMP/dir.img"
bs=$(dumpe2fs -h "$TMP/dir.img" 2>/dev/null | sed -n 's/^Block size: *//p')
blk=$(debugfs -R "blocks var/lib" "$TMP/dir.img" 2>/dev/null | awk '{ print $1 }')
[ -n "$blk" ] && [ -n "$bs" ] || fail "corrupt directory: no block for var/lib"
head -c "$bs" /dev/zero | tr '\0' '\377' | dd of="$TMP/dir.img" bs="$bs" seek="$blk" conv=notrunc status=none
cf status --json --device "$TMP/dir.img" "${POLICY[@]}"
assert_eq "$RC" 0 "corrupt directory: exit"
for f in /var/lib/systemd/timesync/clock /var/lib/clockfix/clock; do
        assert_eq "$(jqo ".devices[0].files[] | select(.path == \"$f\") | [.found, .error, .inode, .time] | map(tostring) | join(\",\")")" \
                "false,cannot look it up (corrupt directory?),null,null" "corrupt directory: $f"
done
assert_eq "$(jqo '.devices[0].files[] | select(.path == "/etc/fake-hwclock.data") | "\(.found) \(.error) \(.time)"')" \
        "true null $(date -u -d '2026-12-01 08:00:00' +%s)" "corrupt directory: fake-hwclock"
assert_eq "$(jqo .source)" file:/etc/fake-hwclock.data "corrupt directory: the winner"
cf set --dry-run --device "$TMP/dir.img" "${POLICY[@]}"
assert_eq "$RC" 0 "corrupt directory: set exit"
assert_match "$ERR" "/var/lib/clockfix/clock: cannot look it up \(corrupt directory\?\), not used" "corrupt directory: warning"

# The filesystem that is the mounted / (as when an admin runs clockfix status): the stamp files are
# read with statx(), which sees what the page cache has and the disk not yet (live_root: a chroot
# into the loop-mounted image).
image "$TMP/live.img"
live_root "$TMP/live.img" usr dev proc
touch -d @1797000000.25 "$ROOT/var/lib/private/systemd/timesync/clock" # in the page cache only
live_clockfix status --json --device "$DEV" "${POLICY[@]}"
assert_eq "$(jqo '.devices[0].files[0] | "\(.live) \(.time) \(.inode)"')" "true 1797000000 null" "live: statx() of the mounted /"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .inode)" null "live: no inode of the disk in the source"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time_usec)" 1797000000250000 "live: with nanoseconds"
# From outside, the same device is not /: read from the disk, through libext2fs. (Without the
# journal: the kernel's commits, dated by this machine's clock, may say that no stamp can be newer,
# and the touch above set an mtime of its choosing, which no tool does: see test-stamp-files-skip.sh.)
cf status --json --device "$DEV" --journal-budget 0 "${POLICY[@]}"
assert_eq "$(jqo '.devices[0].files[0].live')" false "not live from outside"
live_root_done

# On the running system nothing is followed or opened to tell either: timesyncd's clock file and
# fake-hwclock's are links to FIFOs (absolute, relative), clockfix's own stamp and the record are a
# FIFO and a link to one, each with a writer blocked until a reader opens it (fifo_trap).
image "$TMP/live-link.img"
live_root "$TMP/live-link.img" usr dev proc
rm "$ROOT/var/lib/private/systemd/timesync/clock" "$ROOT/etc/fake-hwclock.data" "$ROOT/var/lib/clockfix/clock"
for f in fifo-clock fifo-date var/lib/clockfix/clock fifo-record; do fifo_trap "$ROOT/$f"; done
ln -s /fifo-clock "$ROOT/var/lib/private/systemd/timesync/clock"
ln -s ../fifo-date "$ROOT/etc/fake-hwclock.data"
ln -s /fifo-record "$ROOT/var/lib/clockfix/future-times"
live_clockfix status --json --device "$DEV" "${POLICY[@]}"
assert_eq "$RC" 0 "live links: exit"
for f in fifo-clock fifo-date var/lib/clockfix/clock fifo-record; do
        fifo_untouched "$ROOT/$f" || fail "live links: clockfix opened /$f"
done
assert_eq "$(jqo '[.devices[0].files[] | "\(.live) \(.found) \(.error) \(.time)"] | join("; ")')" \
        "true false a symbolic link: not followed null; true false a symbolic link: not followed null; true false not a regular file null" \
        "live links: the stamp files"
assert_eq "$(jqo '.devices[0].future_record | "\(.live) \(.found) \(.error)"')" \
        "true false a symbolic link: not followed" "live links: the record"
live_clockfix status --device "$DEV" "${POLICY[@]}"
assert_match "$OUT" "File /var/lib/systemd/timesync/clock: a symbolic link: not followed, not used" "live links: the table"
assert_match "$OUT" "Record /var/lib/clockfix/future-times: a symbolic link: not followed, ignored" "live links: the record in the table"
for f in fifo-clock fifo-date var/lib/clockfix/clock fifo-record; do
        fifo_untouched "$ROOT/$f" || fail "live links: clockfix status opened /$f"
done
fifo_traps_done
live_root_done

# 128-byte inodes have no extra field: whole seconds.
image "$TMP/small-inodes.img" -I 128
cf status --json --device "$TMP/small-inodes.img" "${POLICY[@]}"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time_usec)" 1796100000000000 "128-byte inode: seconds"

# A case-folded filesystem, read by the static build, which leaves libext2fs' Unicode tables out
# (src/disk/nls-none.c): it opens, and the stamp files are found by their names all the same.
image "$TMP/casefold.img" -O casefold
dumpe2fs -h "$TMP/casefold.img" 2>/dev/null | grep -q 'casefold' || fail "mke2fs made no case-folded filesystem"
for bin in "$CLOCKFIX" "$CLOCKFIX_STATIC"; do
        CLOCKFIX=$bin cf status --json --device "$TMP/casefold.img" "${POLICY[@]}"
        assert_eq "$RC" 0 "$(basename "$bin"), casefold: exit"
        assert_eq "$(src file:/var/lib/systemd/timesync/clock .time_usec)" 1796100000499999 "$(basename "$bin"), casefold: timesyncd"
        assert_eq "$(src file:/var/lib/clockfix/clock .time)" 1796000000 "$(basename "$bin"), casefold: clockfix"
done
echo ok
