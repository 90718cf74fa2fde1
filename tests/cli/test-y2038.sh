#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Times past 2038, beyond a signed 32-bit time_t (Debian 12 armhf has one; the cross suites run
# this test there, under qemu-user). On such a system stat() fails with EOVERFLOW for any file
# with a time after 2038, so clockfix reads files with statx(). Here, with files, device nodes,
# directories and disks dated 2039 and 2100:
# - an unmounted disk (libext2fs): superblock times and stamp files, status, --json, set --dry-run,
#   with --now before and after them;
# - the mounted / (a chroot into a loop-mounted image): stamp files, the root directory and the
#   device node dated 2039, then the same files read from the unmounted image;
# - root=PARTUUID=, PARTLABEL=, UUID= and LABEL= with no udev link, the nodes dated 2039;
# - a journal stream (stderr) dated 2039;
# - the daemon: timesyncd's flag dated 2039 is seen; the stamp's directory and file dated 2039
#   are no obstacle to saving it.
. "$SRCDIR/tests/lib/lib.sh"

T39=$(date -u -d 2039-06-01T12:00:00 +%s)
T2100=$(date -u -d 2100-06-01T12:00:00 +%s)
[ "$T39" == 2190542400 ] && [ "$T2100" == 4115534400 ] || fail "date(1) cannot count past 2038 here"
POLICY=(--not-before 2026-01-01 --config /dev/null)
src() { jqo ".sources[] | select(.source == \"$1\") | $2"; }

############################################################################
# An unmounted disk written in 2039.
echo "2039-06-01 12:03:00" >"$TMP/fhc"
mkimg "$TMP/39.img" $((T39 - 86400)) 16M -t ext4
# (debugfs stores an mtime given as a date with the inode's epoch bits; mke2fs -d would not)
printf '%s\n' "mkdir var" "mkdir var/lib" "mkdir var/lib/systemd" "mkdir var/lib/systemd/timesync" \
        "write /dev/null var/lib/systemd/timesync/clock" "sif var/lib/systemd/timesync/clock mtime 20390601120100" \
        "mkdir var/lib/clockfix" "write /dev/null var/lib/clockfix/clock" \
        "sif var/lib/clockfix/clock mtime 20390601120200" \
        "mkdir etc" "write $TMP/fhc etc/fake-hwclock.data" |
        E2FSPROGS_FAKE_TIME=$T39 debugfs -w -f - "$TMP/39.img" >/dev/null 2>&1
# (the superblock's times past 2038 by sb-times: debugfs sets their _hi byte from 1.47.1 on)
"$SB_TIMES" "$TMP/39.img" mtime=$T39 wtime=$T39

cf status --json --device "$TMP/39.img" --now 2000-01-01 "${POLICY[@]}"
assert_eq "$RC" 0 "2039 disk: exit"
assert_eq "$(src superblock:last_write .time)" "$T39" "2039 disk: last write"
assert_eq "$(src superblock:last_mount .time)" "$T39" "2039 disk: last mount"
assert_eq "$(src superblock:created .time)" $((T39 - 86400)) "2039 disk: created"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time)" $((T39 + 60)) "2039 disk: timesyncd's clock file"
assert_eq "$(src file:/var/lib/clockfix/clock .time)" $((T39 + 120)) "2039 disk: clockfix's stamp"
assert_eq "$(src file:/etc/fake-hwclock.data .time)" $((T39 + 180)) "2039 disk: fake-hwclock"
assert_eq "$(jqo '[.sources[] | select(.plausible | not)] | length')" 0 "2039 disk: every time plausible"
assert_eq "$(jqo '"\(.now) \(.estimate) \(.target) \(.action) \(.source)"')" \
        "946684800 $((T39 + 180)) $((T39 + 181)) set file:/etc/fake-hwclock.data" "2039 disk: the decision"
cf status --device "$TMP/39.img" --now 2000-01-01 "${POLICY[@]}"
assert_match "$OUT" "Estimate: +2039-06-01T12:03:00Z" "2039 disk: the table"
cf set --dry-run --device "$TMP/39.img" --now 2000-01-01 "${POLICY[@]}"
assert_eq "$RC" 0 "2039 disk, set: exit"
assert_match "$ERR" "Would move clock forward from 2000-01-01T00:00:00Z to 2039-06-01T12:03:01Z \(\+$((T39 + 181 - 946684800)) s\) from file:/etc/fake-hwclock.data of $TMP/39.img" \
        "2039 disk, set: the line"
# A clock already in 2039, after the disk: nothing to do.
cf status --json --device "$TMP/39.img" --now 2039-07-01 "${POLICY[@]}"
assert_eq "$(jqo '"\(.now) \(.action)"')" "$(date -u -d 2039-07-01 +%s) none" "--now 2039-07-01"
cf set --dry-run --device "$TMP/39.img" --now 2039-07-01 "${POLICY[@]}"
assert_eq "$RC" 0 "--now 2039-07-01, set: exit"
assert_match "$ERR" "2039-07-01T00:00:00Z is already at or past" "--now 2039-07-01, set: left alone"

############################################################################
# A disk written in 2100: past the default not-after (the floor + 30 years) it is reported and
# not used: no usable time, the clock of 2000 set to the floor (and, --no-floor-fallback, left
# alone); with a later not-after, it decides.
mkimg "$TMP/2100.img" "$T2100" 8M -t ext4
cf status --json --device "$TMP/2100.img" --now 2000-01-01 "${POLICY[@]}"
assert_eq "$(src superblock:last_write '"\(.time) \(.verdict)"')" "$T2100 after_not_after" "2100 disk: reported, not used"
assert_eq "$(jqo '"\(.action) \(.evidence) \(.estimate)"')" "set false $(jqo .floor)" "2100 disk: nothing usable, the floor"
assert_match "$ERR" "all its times are after not-after 2056-01-01T00:00:00Z" "2100 disk: said why"
cf status --json --device "$TMP/2100.img" --now 2000-01-01 --no-floor-fallback "${POLICY[@]}"
assert_eq "$(jqo '"\(.action) \(.estimate)"')" "unavailable null" "2100 disk: nothing usable, no fallback"
cf status --json --device "$TMP/2100.img" --now 2000-01-01 --not-after 2200-01-01 "${POLICY[@]}"
assert_eq "$(jqo '"\(.estimate) \(.target) \(.action)"')" "$T2100 $((T2100 + 1)) set" "2100 disk, not-after 2200"
cf set --dry-run --device "$TMP/2100.img" --now 2000-01-01 --not-after 2200-01-01 "${POLICY[@]}"
assert_match "$ERR" "to 2100-06-01T12:00:01Z " "2100 disk, set"
cf status --json --device "$TMP/2100.img" --now 2100-07-01 --not-after 2200-01-01 "${POLICY[@]}"
assert_eq "$(jqo '"\(.now) \(.action)"')" "$(date -u -d 2100-07-01 +%s) none" "--now 2100-07-01"

############################################################################
# The mounted /: the stamp files, the root directory and the device node dated 2039, read live.
mkimg "$TMP/live.img" 1700000000 16M -t ext4
printf '%s\n' "mkdir var" "mkdir var/lib" "mkdir var/lib/systemd" "mkdir var/lib/systemd/timesync" \
        "mkdir var/lib/clockfix" "mkdir etc" "mkdir dev" |
        E2FSPROGS_FAKE_TIME=1700000000 debugfs -w -f - "$TMP/live.img" >/dev/null 2>&1
live_root "$TMP/live.img" usr proc
# A /dev of its own, in the image: /dev/null and the root's device node, its times in 2039
# (devtmpfs stamps nodes with the clock, which a board that clockfix set to 2039 then reads).
mknod "$ROOT/dev/null" c 1 3
mknod "$ROOT/dev/cfxroot" b $(($(stat -c '0x%t' "$DEV"))) $(($(stat -c '0x%T' "$DEV")))
touch -d @$((T39 + 60)).5 "$ROOT/var/lib/systemd/timesync/clock"
touch -d @$((T39 + 120)) "$ROOT/var/lib/clockfix/clock"
cp "$TMP/fhc" "$ROOT/etc/fake-hwclock.data"
touch -d @"$T39" "$ROOT/dev/cfxroot" "$ROOT/var/lib/clockfix" "$ROOT/etc/fake-hwclock.data" "$ROOT"
live_clockfix status --json --device /dev/cfxroot --now 2000-01-01 "${POLICY[@]}"
assert_eq "$RC" 0 "live 2039: exit (stderr: $ERR)"
assert_eq "$(jqo '[.devices[0].files[] | .live] | map(tostring) | join(",")')" true,true,true "live 2039: read live"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time_usec)" $(((T39 + 60) * 1000000 + 500000)) "live 2039: timesyncd's clock file"
assert_eq "$(src file:/var/lib/clockfix/clock .time)" $((T39 + 120)) "live 2039: clockfix's stamp"
assert_eq "$(src file:/etc/fake-hwclock.data .time)" $((T39 + 180)) "live 2039: fake-hwclock"
assert_eq "$(jqo '"\(.estimate) \(.source)"')" "$((T39 + 180)) file:/etc/fake-hwclock.data" "live 2039: the estimate"
live_clockfix set --dry-run --device /dev/cfxroot --now 2000-01-01 "${POLICY[@]}"
assert_eq "$RC" 0 "live 2039, set: exit"
assert_match "$ERR" "to 2039-06-01T12:03:01Z .* from file:/etc/fake-hwclock.data of /dev/cfxroot" "live 2039, set: the line"
live_root_done
# The same files on the unmounted filesystem, as the kernel wrote them (libext2fs). Without the
# journal: the kernel dated its commits by this machine's clock, not 2039 as a board's would be,
# and the journal's newest commit would say (wrongly here) that no stamp can be newer.
cf status --json --device "$TMP/live.img" --journal-budget 0 --now 2000-01-01 "${POLICY[@]}"
assert_eq "$(jqo '[.devices[0].files[] | .live] | map(tostring) | join(",")')" false,false,false "unmounted: not live"
assert_eq "$(src file:/var/lib/systemd/timesync/clock .time_usec)" $(((T39 + 60) * 1000000 + 500000)) "unmounted: timesyncd's clock file"
assert_eq "$(src file:/var/lib/clockfix/clock .time)" $((T39 + 120)) "unmounted: clockfix's stamp"
assert_eq "$(jqo .estimate)" $((T39 + 180)) "unmounted: the estimate"

############################################################################
# root=PARTUUID=, PARTLABEL=, UUID= and LABEL= where udev made no link (a busybox initramfs), the
# nodes of the disks and partitions dated 2039, as any read at a clock there dates them (devtmpfs
# stamps a node with the clock, a read moves its access time): found from the partition tables (a
# GPT and an MBR disk) and the ext superblocks, without libblkid, whose stat() of a node dated
# after 2038 fails where time_t has 32 bits.
guid=$(printf '%08x' $$)-4a3b-4c2d-9e1f-0a1b2c3d4e5f
sig=$(printf '%08x' $(($$ * 7 % 4294967296)))
truncate -s 24M "$TMP/gpt.img" "$TMP/mbr.img"
printf 'label: gpt\nsize=16M, type=L, uuid=%s, name=cfxp%s\n' "$guid" $$ | sfdisk -q "$TMP/gpt.img"
printf 'label: dos\nlabel-id: 0x%s\nsize=16M, type=83\n' "$sig" | sfdisk -q "$TMP/mbr.img"
mkdir "$TMP/dev"
mount -t tmpfs tmpfs "$TMP/dev"
at_exit 'umount "$TMP/dev" 2>/dev/null || true'
mknod "$TMP/dev/null" c 1 3
node() { mknod "$TMP$1" b $(($(stat -c '0x%t' "$1"))) $(($(stat -c '0x%T' "$1"))); }
for img in gpt mbr; do
        attach "$TMP/$img.img"
        [ -b "${DEV}p1" ] || partx -a "$DEV"
        E2FSPROGS_FAKE_TIME=1800000500 mke2fs -q -F -t ext4 "${DEV}p1" >/dev/null
        node "$DEV"
        node "${DEV}p1"
        declare "part_$img=${DEV}p1"
done
fsuuid=$(printf '%08x' $$)-5b4c-4d3e-8f20-1b2c3d4e5f60
mkimg "$TMP/tags.img" 1800000500 16M -t ext4 -L "cfxy$$" -U "$fsuuid"
attach "$TMP/tags.img"
node "$DEV"
whole=$DEV
# shellcheck disable=SC2154 # (declared above)
for root in "PARTUUID=$guid:$part_gpt" "PARTUUID=${guid^^}:$part_gpt" "PARTLABEL=cfxp$$:$part_gpt" \
        "PARTUUID=$sig-01:$part_mbr" "UUID=$fsuuid:$whole" "LABEL=cfxy$$:$whole"; do
        printf 'root=%s\n' "${root%:*}" >"$TMP/cmdline"
        # (a build without libblkid finds them as well)
        for binary in "$CLOCKFIX" "$CLOCKFIX_NOBLKID"; do
                # (again each time: clockfix's own read moves the partition's access time to this clock)
                touch -d @"$T39" "$TMP/dev"/loop*
                RC=0
                OUT=$(unshare -m bash -c 'mount --bind "$0" /dev && exec "$@"' "$TMP/dev" \
                        "$binary" status --json --cmdline "$TMP/cmdline" --journal-budget 0 --now 2000-01-01 \
                        "${POLICY[@]}" 2>"$TMP/stderr") || RC=$?
                assert_eq "$RC:$(jqo '"\(.devices[0].device) \(.estimate)"')" "0:${root##*:} 1800000500" \
                        "root=${root%:*}, nodes dated 2039, $(basename "$binary") ($(cat "$TMP/stderr"))"
                # The disk's table is read with O_NOATIME: its node keeps its time (a read would move
                # an access time that is not after the modification time, as relatime does).
                disk=${root##*:}
                [[ $disk != *p1 ]] ||
                        assert_eq "$(stat -c %X "$TMP${disk%p1}")" "$T39" "root=${root%:*}: the disk's access time"
        done
done

############################################################################
# A journal stream dated 2039: still recognised as the journal (no "clockfix: " prefix).
: >"$TMP/journal"
touch -d @"$T39" "$TMP/journal"
JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/journal") "$CLOCKFIX" set --dry-run --device "$TMP/39.img" \
        --now 2000-01-01 "${POLICY[@]}" 2>>"$TMP/journal"
assert_match "$(cat "$TMP/journal")" "^<5>Would move clock forward" "journal stream dated 2039"

############################################################################
# The daemon. Its disk is older than the clock: it leaves the clock alone (and has no CAP_SYS_TIME).
old=$(($(date +%s) - 86400))
mkimg "$TMP/old.img" "$old" 8M -t ext4
NOCAP=(setpriv --inh-caps=-sys_time --bounding-set=-sys_time)
DAEMON=(daemon --device "$TMP/old.img" --config /dev/null --not-before "@$((old - 86400))")
host_synced=$("$CLOCKFIX" status --json --device "$TMP/old.img" --config /dev/null --not-before "@$((old - 86400))" | jq -r .ntp_synchronized)

# timesyncd's flag, there at the start with times in 2039, then touched again (its change time
# moves; the other two stay in 2039), in a private /run/systemd. Touched every second until the
# daemon has seen it: however long the daemon takes to look at the flag first (emulation, a loaded
# machine), a touch comes after.
cat >"$TMP/sync.sh" <<SH
set -e
mount -t tmpfs tmpfs /run/systemd
mkdir /run/systemd/timesync
touch -d @$T39 /run/systemd/timesync/synchronized
"\$@" &
daemon=\$!
i=1
while sleep 1 && kill -0 "\$daemon" 2>/dev/null; do
        echo "touching the flag" >&2
        touch -d @\$(($T39 + i)) /run/systemd/timesync/synchronized
        i=\$((i + 1))
done
wait "\$daemon"
SH
rc=0
timeout 60 unshare -m --propagation private bash "$TMP/sync.sh" "${NOCAP[@]}" "$CLOCKFIX" "${DAEMON[@]}" --dry-run \
        2>"$TMP/sync.err" || rc=$?
assert_eq "$rc" 0 "flag dated 2039: exit ($(cat "$TMP/sync.err"))"
if [ "$host_synced" == false ]; then
        assert_match "$(sed -n '/touching the flag/,$p' "$TMP/sync.err")" "Clock synchronised by NTP \(timesyncd\)" \
                "flag dated 2039: synchronisation seen after the flag was touched"
else
        # The host's kernel says synchronised: the daemon has nothing to wait for, and the flag's
        # detection is left to the ARM guests' test (vm-arm), whose clock nobody else keeps.
        echo "the host's clock is synchronised by NTP: the flag dated 2039 is not looked for here"
        assert_match "$(cat "$TMP/sync.err")" "already synchronised by NTP" "the host's clock is synchronised"
fi

# The stamp: its filesystem (a loop-mounted image, idle) seen as /var/lib; its directory and the
# stamp itself dated 2039. The daemon touches it after a save interval, and at stop.
mkdir -p "$TMP/img/var/lib/clockfix" "$TMP/mnt"
mkimg "$TMP/stamp.img" "$old" 16M -t ext4 -d "$TMP/img"
mount -o loop "$TMP/stamp.img" "$TMP/mnt"
at_exit 'umount "$TMP/mnt" 2>/dev/null || true'
stamp=$TMP/mnt/var/lib/clockfix/clock
touch -d @"$T39" "$stamp" "$TMP/mnt/var/lib/clockfix"
cat >"$TMP/keep.sh" <<SH
mount --bind "$TMP/mnt/var/lib" /var/lib
exec "\$@"
SH
unshare -m --propagation private bash "$TMP/keep.sh" "${NOCAP[@]}" "$CLOCKFIX" "${DAEMON[@]}" --stay \
        --save-interval 1 -v 2>"$TMP/stamp.err" &
daemon=$!
wait_for "$TMP/stamp.err" "Touched /var/lib/clockfix/clock \(no other write in the interval\)" 30 ||
        { kill "$daemon"; fail "the stamp dated 2039 was not touched: $(cat "$TMP/stamp.err")"; }
kill -TERM "$daemon"
wait "$daemon" || fail "daemon: exit $? at SIGTERM: $(cat "$TMP/stamp.err")"
assert_match "$(cat "$TMP/stamp.err")" "Touched /var/lib/clockfix/clock \(at stop\)" "stamp dated 2039: touched at stop"
! grep -q "is not a directory" "$TMP/stamp.err" || fail "the directory dated 2039 was not seen: $(cat "$TMP/stamp.err")"
[ "$(stat -c %Y "$stamp")" -lt "$T39" ] || fail "the stamp still reads 2039"
echo ok
