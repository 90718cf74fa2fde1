#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile journals in real images (mke2fs, then tests/model/jbd2-write for a log, then single fields
# of the journal superblock or map overwritten with dd): each run is bounded in time, never
# crashes, leaves the image byte-identical (cf), says in one warning what is wrong with the
# journal, and falls back to the superblock's times with exit 0; or, with times no one can
# use, passes them over. Also the largest time a superblock holds, plus a margin of years.
. "$SRCDIR/tests/lib/lib.sh"
: "${JBD2_WRITE:?run through meson test}"

T0=1790000000     # mkfs, and the superblock's times
T=$((T0 + 86400)) # the commits of the log
POLICY=(--not-before 2026-01-01 --now 2000-01-01 --config /dev/null)

# fresh IMG: ext4 without metadata_csum (so that a changed field is not caught by a checksum first),
# 1 KiB blocks, a dirty log of 40 commits from T
fresh() {
        mkimg "$1" "$T0" 8M -t ext4 -b 1024 -O ^metadata_csum
        "$JBD2_WRITE" "$1" --dirty --txn "$T:1:40:5" >/dev/null
}

# poke IMG JOURNAL-BLOCK OFFSET VALUE: writes VALUE as a big-endian 32-bit number at OFFSET of
# journal block JOURNAL-BLOCK (0: the journal superblock), found through the journal inode's map
poke() {
        local img=$1 block=$2 off=$3 v=$4 phys
        phys=$(debugfs -R "bmap <8> $block" "$img" 2>/dev/null)
        printf "\\x$(printf %02x $((v >> 24 & 255)))\\x$(printf %02x $((v >> 16 & 255)))\\x$(printf %02x $((v >> 8 & 255)))\\x$(printf %02x $((v & 255)))" |
                dd of="$img" bs=1 seek=$((phys * 1024 + off)) conv=notrunc status=none
}

# bounded NAME JSON: the journal search of each device made no more reads than its budget, each of
# at most 256 blocks (the bound on the work a hostile journal can cause; a loop that never ends
# meets meson's timeout)
bounded() {
        [ "$(jq '[.devices[].journal | select(type == "object" and has("reads")) | .reads <= .budget and .blocks_read <= 256 * .reads] | all' <<<"$2")" == true ] ||
                fail "$1: more reads than the budget: $2"
}

# run NAME IMG: clockfix status --json on IMG, its search within the budget
run() {
        cf status --json --device "$2" "${POLICY[@]}"
        [ "$RC" -eq 0 ] || [ "$RC" -eq 3 ] || fail "$1: exit $RC: $ERR"
        bounded "$1" "$OUT"
}

# falls_back NAME IMG REGEX: the journal is not used, for REGEX (in the report, and in the one
# warning of set), and the superblock's times are
falls_back() {
        assert_eq "$RC" 0 "$1: exit"
        assert_match "$(jqo '.devices[0].journal.error')" "$3" "$1: the report"
        assert_match "$(jqo .source)" "^superblock:" "$1: the superblock's times"
        assert_eq "$(jqo .estimate)" "$T0" "$1: estimate"
        cf set --dry-run --device "$2" "${POLICY[@]}"
        assert_eq "$RC" 0 "$1: set --dry-run: exit"
        assert_match "$ERR" "journal not used: $3" "$1: the warning"
        assert_eq "$(grep -c 'journal not used' <<<"$ERR")" 1 "$1: one warning: $ERR"
}

img=$TMP/j.img
fresh "$img"
run sane "$img"
assert_eq "$(jqo .source)" journal:last_commit "sane: the journal wins"
assert_eq "$(jqo .estimate)" $((T + 39 * 5)) "sane: the newest commit"

# Journal superblock fields out of range (s_blocksize at 0x0c, s_maxlen at 0x10, s_first at 0x14,
# s_start at 0x1c).
fresh "$img"
poke "$img" 0 12 0
run "s_blocksize 0" "$img"
falls_back "s_blocksize 0" "$img" "journal block size differs from the filesystem's"

fresh "$img"
poke "$img" 0 16 0
run "s_maxlen 0" "$img"
falls_back "s_maxlen 0" "$img" "journal superblock gives a log of impossible size"

fresh "$img"
poke "$img" 0 16 $((1024 * 64))
run "s_maxlen beyond the inode" "$img"
falls_back "s_maxlen beyond the inode" "$img" "journal superblock claims more blocks than the journal has"

fresh "$img"
poke "$img" 0 20 1024
run "s_first = s_maxlen" "$img"
falls_back "s_first = s_maxlen" "$img" "journal superblock gives a log of impossible size"

fresh "$img"
poke "$img" 0 28 5000
run "s_start outside the log" "$img"
falls_back "s_start outside the log" "$img" "journal superblock puts the start of the log outside it"

# A descriptor whose tags claim more blocks than the journal holds: the first descriptor's block
# count is what the tags say; make the log's second transaction claim the whole journal by
# rewriting its first tag's flags to "not last" and leaving garbage after it.
fresh "$img"
for b in 4 5 6 7; do poke "$img" "$b" 0 0xc03b3998; poke "$img" "$b" 4 1; poke "$img" "$b" 8 2; done
run "descriptors everywhere" "$img"
[ "$RC" -eq 0 ] || fail "descriptors everywhere: exit $RC"

# A loop: every block of the log a descriptor of the same transaction, pointing at the next. No
# transaction where the log starts is whole, so the log is read as a whole: the commits after the
# loop (the last 20 of the 40) are still there, and the newest of them is the answer.
fresh "$img"
for b in $(seq 1 60); do poke "$img" "$b" 0 0xc03b3998; poke "$img" "$b" 4 1; poke "$img" "$b" 8 1; done
run "a loop of descriptors" "$img"
[ "$RC" -eq 0 ] || fail "a loop: exit $RC"
assert_eq "$(jqo '.devices[0].journal | "\(.newest.sequence) \(.best.sequence) \(.best.block)"')" "40 40 120" \
        "a loop: the newest commit after it"

# Commit times near 2^63 (and 2^64 - 1): implausible, never a wrap-around to a small time.
for sec in 9223372036854775807 18446744073709551615; do
        mkimg "$img" "$T0" 8M -t ext4 -b 1024 -O ^metadata_csum
        "$JBD2_WRITE" "$img" --dirty --txn "$T:1:10:5" --txn "$sec:1:3:0" >/dev/null
        run "commit at $sec" "$img"
        assert_eq "$RC" 0 "commit at $sec: exit"
        assert_eq "$(jqo .source)" journal:last_commit "commit at $sec: the plausible commits win"
        assert_eq "$(jqo .estimate)" $((T + 45)) "commit at $sec: the newest plausible commit"
done

# The journal inode's map pointing outside the device (the superblock's copy of it and the inode
# both): the journal is not used, the superblock is.
mkimg "$img" "$T0" 8M -t ext3 -b 1024
"$JBD2_WRITE" "$img" --dirty --txn "$T:1:10:5" >/dev/null
stamp "$img" "$T0" "sif <8> block[0] 99999999" "ssv jnl_blocks[0] 99999999"
run "journal map outside the device" "$img"
falls_back "journal map outside the device" "$img" ".*"

# A device that ends in the middle of the journal (a loop device on an image cut short, as a
# card that lost its end): the reads past its end fail, the search goes on with what it can
# read, within its time, and the device is reported as smaller than its filesystem.
[ "$(id -u)" == 0 ] || fail "needs root for a loop device (CI runs as root)"
fresh "$img"
start=$(debugfs -R "bmap <8> 0" "$img" 2>/dev/null)
truncate -s $(((start + 20) * 1024)) "$img"
attach "$img"
rc=0
"$CLOCKFIX" status --json --device "$DEV" "${POLICY[@]}" >"$TMP/cut.json" 2>"$TMP/cut.err" || rc=$?
bounded "a device cut in the journal" "$(cat "$TMP/cut.json")"
assert_eq "$rc" 0 "a device cut in the journal: exit"
OUT=$(cat "$TMP/cut.json")
assert_eq "$(jqo '.devices[0].truncated')" true "a device cut in the journal: reported as truncated"
[ "$(jqo .estimate)" -ge "$T0" ] || fail "a device cut in the journal: estimate $(jqo .estimate)"
echo "a device cut 20 blocks into its journal: $(jqo .source) $(jqo .estimate), $(jqo ".devices[0].journal.blocks_read") blocks read"

# A read error in the middle of the device, with readable blocks after it, as a failing card
# gives: the image is a file on an ext2 filesystem (loop-mounted read-only) whose block map for
# one journal block the search reads points outside that filesystem, so reading it from a loop
# device on the file fails with EIO and only it (the kernel checks each block number it maps).
# The search passes it over, the rest of the log is read, one warning says so.
fresh "$img"
# (under ptrace LeakSanitizer cannot run: the ASan build's exit status means nothing here)
strace -qq -e trace=pread64 -o "$TMP/reads" "$CLOCKFIX" status --json --device "$img" "${POLICY[@]}" >/dev/null 2>&1 || true
lo=$(debugfs -R "bmap <8> 20" "$img" 2>/dev/null) hi=$(debugfs -R "bmap <8> 110" "$img" 2>/dev/null)
# Every block each read covers (a read takes a run of blocks: offset $4, size $3)
mapfile -t mid < <(awk -F', ' '/^pread64\(3,/ { for (b = int($4 / 1024); b < ($4 + $3) / 1024; b++) if (b >= lo && b <= hi) print b }' \
        lo="$lo" hi="$hi" "$TMP/reads")
[ ${#mid[@]} -ge 1 ] || fail "a read error: the search read no block in the middle of the log"
bad=${mid[${#mid[@]} / 2]}
outer=$TMP/outer.img
mkimg "$outer" "$T0" 32M -t ext2 -b 1024
debugfs -w -R "write $img inner" "$outer" >/dev/null 2>&1
# Block $bad of the file, past the 12 direct and 256 indirect ones: entry (bad-268)%256 of the
# indirect block that entry (bad-268)/256 of the double indirect block names.
dind=$(debugfs -R "stat inner" "$outer" 2>/dev/null | grep -o '(DIND):[0-9]*' | cut -d: -f2)
[ "$bad" -ge 268 ] && [ -n "$dind" ] || fail "a read error: block $bad, double indirect block '$dind'"
ind=$(od -An -tu4 -j $((dind * 1024 + (bad - 268) / 256 * 4)) -N4 "$outer" | tr -d ' ')
at=$((ind * 1024 + (bad - 268) % 256 * 4))
[ "$(od -An -tu4 -j "$at" -N4 "$outer" | tr -d ' ')" == "$(debugfs -R "bmap inner $bad" "$outer" 2>/dev/null)" ] ||
        fail "a read error: the map entry of block $bad is not at $at"
printf '\xf0\xff\xff\x0f' | dd of="$outer" bs=1 seek="$at" conv=notrunc status=none
mkdir "$TMP/outer"
inner=
at_exit '[ -z "$inner" ] || losetup -d "$inner" || true; umount "$TMP/outer" 2>/dev/null || umount -l "$TMP/outer" 2>/dev/null || true'
mount -o ro,loop "$outer" "$TMP/outer"
inner=$(losetup -r -f --show "$TMP/outer/inner")
dd if="$inner" of=/dev/null bs=1024 skip="$bad" count=1 status=none 2>/dev/null &&
        fail "a read error: block $bad of $inner reads"
dd if="$inner" of=/dev/null bs=1024 skip=$((bad + 8)) count=1 status=none || fail "a read error: the block after"
cf status --json --device "$inner" "${POLICY[@]}"
bounded "a read error" "$OUT"
assert_eq "$RC" 0 "a read error: exit"
[ "$(jqo '.devices[0].journal.read_errors')" -ge 1 ] || fail "a read error: not counted: $OUT"
assert_eq "$(jqo '[.source, .estimate] | @tsv')" "$(printf 'journal:last_commit\t%s' $((T + 39 * 5)))" \
        "a read error: the newest commit, read past the bad block"
found="$(jqo .source) $(jqo .estimate), $(jqo '.devices[0].journal.read_errors') unreadable, $(jqo '.devices[0].journal | "\(.reads) reads, \(.blocks_read) blocks"')"
cf set --dry-run --device "$inner" "${POLICY[@]}"
assert_eq "$RC" 0 "a read error: set --dry-run: exit"
assert_match "$ERR" "^<4>clockfix: $inner: journal: [0-9]+ block\(s\) could not be read \(I/O error\), passed over" \
        "a read error: the warning"
echo "a read error at block $bad, in the middle of the log: $found"

# Times that overflow when the margin is added: the largest a superblock can hold (2^40 - 1 s: 32
# bits and the _hi byte, at 0x275 for the last mount), with the largest margin (an hour) and a
# not-after that leaves room for it: the target is the sum; a not-after at the end of time that
# leaves no room for the margin is refused.
mkimg "$img" "$T0" 8M -t ext4 -O ^metadata_csum
stamp "$img" "$T0" "ssv mtime @$(((1 << 32) - 1))"
printf '\xff' | dd of="$img" bs=1 seek=$((1024 + 0x275)) conv=notrunc status=none
BIG=(--config /dev/null --not-before 2026-01-01 --journal-budget 0 --no-stamps --now 2000-01-01)
cf status --json --device "$img" "${BIG[@]}" --not-after @$(((1 << 40) - 1 + 3600)) --margin 3600
assert_eq "$RC" 0 "the largest time: exit"
assert_eq "$(jqo '[.source, .estimate, .target] | map(tostring) | join(" ")')" \
        "superblock:last_mount $(((1 << 40) - 1)) $(((1 << 40) - 1 + 3600))" "the largest time, plus the margin"
cf status --json --device "$img" "${BIG[@]}" --not-after @18446744073709 --margin 1
assert_eq "$RC" 2 "not-after at the end of time with a margin: exit"
assert_match "$ERR" "margin 1 s \(--margin\) is too large for not-after .* \(--not-after\)" "not-after at the end of time: message"
echo ok
