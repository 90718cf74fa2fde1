#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# When the stamp files are not looked up at all: the journal's newest commit is plausible, the
# newest of the log, and the search was whole, so no stamp file can be newer (writing one is a
# commit). Skipped then, and the report says why; read whenever that does not hold: a newest
# commit that is implausible, a search cut short by its budget, fast commits, ext2, no journal
# read, the mounted / (statx()). The skip reads nothing of the device beyond --no-stamps.
. "$SRCDIR/tests/lib/lib.sh"
: "${JBD2_WRITE:?run through meson test}"

POLICY=(--not-before 2026-01-01 --now 2000-01-01)
# The stamps: timesyncd's 2026-12-01T04:40:00.5Z, fake-hwclock's 2026-12-01T08:00:00Z, clockfix's
# 2026-11-30T00:53:20Z. Commits: BEFORE all of them, AFTER all of them.
TIMESYNCD=1796100000 FAKE_HWCLOCK=1796112000 CLOCKFIX_STAMP=1796000000
BEFORE=1796050000 AFTER=1796200000
BOOT=946684800 # 2000-01-01: a boot without RTC nor network, whose commits are not plausible
echo "2026-12-01 08:00:00" >"$TMP/fhc"

# image FILE [MKE2FS-ARGS...]: an image with the three stamp files (timesyncd's through the
# symbolic link systemd makes for DynamicUser=), superblock times in 2023, before the floor
image() {
        local img=$1
        shift
        mkimg "$img" 1700000000 32M "$@"
        printf '%s\n' "mkdir var" "mkdir var/lib" "mkdir var/lib/private" "mkdir var/lib/private/systemd" \
                "mkdir var/lib/private/systemd/timesync" "mkdir var/lib/systemd" \
                "symlink var/lib/systemd/timesync ../private/systemd/timesync" \
                "write /dev/null var/lib/private/systemd/timesync/clock" \
                "sif var/lib/private/systemd/timesync/clock mtime @$TIMESYNCD" \
                "sif var/lib/private/systemd/timesync/clock mtime_extra $((500000000 << 2))" \
                "mkdir etc" "write $TMP/fhc etc/fake-hwclock.data" \
                "mkdir var/lib/clockfix" "write /dev/null var/lib/clockfix/clock" \
                "sif var/lib/clockfix/clock mtime @$CLOCKFIX_STAMP" |
                E2FSPROGS_FAKE_TIME=1700000000 debugfs -w -f - "$img" >/dev/null 2>&1
}

status() {
        cf status --json --device "$1" "${POLICY[@]}" "${@:2}"
        assert_eq "$RC" 0 "status $1 ${*:2}: exit"
}

stamp_sources() {
        jqo '[.sources[] | select(.source | startswith("file:")) | .source] | length'
}

# read_ok WHAT: the three stamp files were looked up and found, and none is skipped
read_ok() {
        assert_eq "$(jqo '.devices[0].stamps_skipped')" null "$1: stamps_skipped"
        assert_eq "$(jqo '[.devices[0].files[] | .found] | map(tostring) | join(",")')" true,true,true "$1: files"
        assert_eq "$(stamp_sources)" 3 "$1: stamp sources"
}

# device_reads IMAGE ARGS...: the reads (pread64) of IMAGE by clockfix set --dry-run ARGS, as at boot
# (status also looks up the record of times in the future, to show it)
device_reads() {
        local img=$1
        shift
        strace -f -qq -e trace=pread64,read -y -o "$TMP/reads.trace" "$CLOCKFIX" set --dry-run --device "$img" \
                "${POLICY[@]}" "$@" >/dev/null 2>&1 || true
        grep -cF "<$img>" "$TMP/reads.trace" || true
}

# (a) A clean ext4 whose journal's newest commit, after every stamp, is plausible: not looked up.
image "$TMP/a.img" -t ext4
"$JBD2_WRITE" "$TMP/a.img" --txn "$AFTER:1:20" >/dev/null
status "$TMP/a.img"
newest=$((AFTER + 19))
assert_eq "$(jqo '.devices[0].journal | "\(.newest.sequence == .best.sequence) \(.newest.time) \(.budget_exhausted)"')" \
        "true $newest false" "newest plausible: the journal"
assert_eq "$(jqo '.devices[0].stamps_skipped')" \
        "no stamp file can be newer than the journal's newest commit ($(date -u -d @$newest +%Y-%m-%dT%H:%M:%SZ))" \
        "newest plausible: why not read"
assert_eq "$(jqo '.devices[0].files')" null "newest plausible: no files"
assert_eq "$(stamp_sources)" 0 "newest plausible: no stamp sources"
assert_eq "$(jqo '"\(.source) \(.estimate)"')" "journal:last_commit $newest" "newest plausible: estimate"
skipped_estimate=$(jqo .estimate)
cf status --device "$TMP/a.img" "${POLICY[@]}"
assert_match "$OUT" "^  Stamp files: not read: no stamp file can be newer than the journal's newest commit \(2026-" \
        "newest plausible: the text"
# The estimate is the one reading them would give: each stamp, read with the journal left out,
# is older than the commit that won.
status "$TMP/a.img" --journal-budget 0
read_ok "the same, journal not read"
for t in $(jqo '.sources[] | select(.source | startswith("file:")) | .time'); do
        [ "$t" -lt "$skipped_estimate" ] || fail "a stamp ($t) newer than the journal's newest commit ($skipped_estimate)"
done
# And it reads nothing more of the device than --no-stamps does.
skip_reads=$(device_reads "$TMP/a.img")
no_stamps_reads=$(device_reads "$TMP/a.img" --no-stamps)
read_all=$(device_reads "$TMP/a.img" --journal-budget 0)
echo "newest plausible: $skip_reads reads (--no-stamps: $no_stamps_reads; stamps without the journal: $read_all)"
assert_eq "$skip_reads" "$no_stamps_reads" "newest plausible: reads"
# --no-stamps says so.
status "$TMP/a.img" --no-stamps
assert_eq "$(jqo '.devices[0].stamps_skipped')" "not asked for (--no-stamps)" "--no-stamps: why"
# -v says why.
cf status -v --device "$TMP/a.img" "${POLICY[@]}"
assert_match "$ERR" "a.img: stamp files not read: no stamp file can be newer than the journal's newest commit" "-v: skipped"

# (b) The newest commit is not plausible (a boot at 2000-01-01 after the good ones), so the newest
# plausible one may be older than a stamp, and here is: the stamp files are read, and win.
image "$TMP/b.img" -t ext4
"$JBD2_WRITE" "$TMP/b.img" --dirty --txn "$BEFORE:1:20" --txn "$BOOT:1:10" >/dev/null
status "$TMP/b.img"
assert_eq "$(jqo '.devices[0].journal.best.time')" $((BEFORE + 19)) "newest implausible: best"
read_ok "newest implausible"
assert_eq "$(jqo '"\(.source) \(.estimate)"')" "file:/etc/fake-hwclock.data $FAKE_HWCLOCK" "newest implausible: estimate"
cf status -v --device "$TMP/b.img" "${POLICY[@]}"
assert_match "$ERR" "b.img: stamp files read: the journal's newest commit is not plausible" "-v: implausible"
# The same after not-after (a reset RTC of 2151).
image "$TMP/b2.img" -t ext4
"$JBD2_WRITE" "$TMP/b2.img" --dirty --txn "$BEFORE:1:20" --txn 5711817600:1:10 >/dev/null
status "$TMP/b2.img"
read_ok "newest after not-after"
assert_eq "$(jqo .estimate)" "$FAKE_HWCLOCK" "newest after not-after: estimate"

# The search cut short by its budget: a newer commit may exist, so the stamps are read.
image "$TMP/budget.img" -t ext4
"$JBD2_WRITE" "$TMP/budget.img" --dirty --txn "$BEFORE:1:200" >/dev/null
status "$TMP/budget.img" --journal-budget 3
assert_eq "$(jqo '.devices[0].journal.budget_exhausted')" true "budget: spent"
read_ok "budget spent"
assert_eq "$(jqo .estimate)" "$FAKE_HWCLOCK" "budget spent: estimate"

# (c) Fast commits log inode changes (a stamp's new mtime) with no time of their own until the
# next full commit: read, whatever the journal holds.
image "$TMP/c.img" -t ext4 -O fast_commit
dumpe2fs -h "$TMP/c.img" 2>/dev/null | grep -q fast_commit || fail "mke2fs made no fast_commit filesystem"
"$JBD2_WRITE" "$TMP/c.img" --txn "$AFTER:1:20" >/dev/null
status "$TMP/c.img"
assert_eq "$(jqo '.devices[0].journal.newest.time')" $((AFTER + 19)) "fast commits: newest"
read_ok "fast commits"
cf status -v --device "$TMP/c.img" "${POLICY[@]}"
assert_match "$ERR" "c.img: stamp files read: the filesystem uses fast commits" "-v: fast commits"

# (d) ext2: no journal at all.
image "$TMP/d.img" -t ext2
status "$TMP/d.img"
assert_eq "$(jqo '.devices[0].journal')" null "ext2: no journal"
read_ok "ext2"
assert_eq "$(jqo .source)" file:/etc/fake-hwclock.data "ext2: the newest stamp wins"

# (e) The mounted / (a chroot into the loop-mounted image, as in test-stamp-files.sh): read live with
# statx(), which reads no block of the device, whatever the journal says.
image "$TMP/e.img" -t ext4
"$JBD2_WRITE" "$TMP/e.img" --txn "$AFTER:1:20" >/dev/null
live_root "$TMP/e.img" usr dev proc
live_clockfix status --json --device "$DEV" "${POLICY[@]}"
assert_eq "$RC" 0 "live: exit"
read_ok "live"
assert_eq "$(jqo '[.devices[0].files[] | .live] | map(tostring) | join(",")')" true,true,true "live: statx()"
live_root_done
echo ok
