#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Journals written block by block (tests/model/jbd2-write) into images made by mke2fs, for what a kernel
# does not leave on demand: commits from a boot with a wrong clock, torn and corrupt blocks, a
# broken journal superblock, and a 1 GiB journal full of the smallest transactions.
. "$SRCDIR/tests/lib/lib.sh"
: "${JBD2_WRITE:?run through meson test}"

GOOD=$(($(date +%s) + 864000)) # ten days ahead: later than the times the kernel stamps when mounting
BOOT=946684800    # 2000-01-01: a board without RTC, no network
FUTURE=5711817600 # 2151-01-01: a reset RTC of another kind
POLICY=(--not-before 2026-01-01 --now 2000-01-01)

# image NAME [MKE2FS-ARGS...]: a fresh ext4 image; with checksums, mounted once so that the kernel
# turns on checksum v3 in its journal (mke2fs leaves that to the first mount)
image() {
        local img=$TMP/$1.img
        shift
        mkimg "$img" 1700000000 64M -t ext4 "$@"
        if [ "$(id -u)" == 0 ]; then
                mkdir -p "$TMP/mnt"
                mount -o loop "$img" "$TMP/mnt" && touch "$TMP/mnt/x" && sync -f "$TMP/mnt" && umount "$TMP/mnt"
        fi
        IMG=$img
}

# status IMAGE: status --json with the policy above
status() {
        cf status --json --device "$1" "${POLICY[@]}"
        assert_eq "$RC" 0 "status $1: exit"
}

[ "$(id -u)" == 0 ] || fail "needs root to mount images once (CI runs as root)"

# A boot with the clock at 2000-01-01 after 500 good commits: the newest plausible one wins.
image wrongclock
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:500" --txn "$BOOT:2:300" >/dev/null
status "$IMG"
assert_eq "$(jqo '.devices[0].journal.features')" "64bit,checksum_v3" "wrong clock: journal format"
assert_eq "$(jqo .source)" journal:last_commit "wrong clock: winner"
assert_eq "$(jqo .estimate)" $((GOOD + 499)) "wrong clock: estimate"
assert_eq "$(jqo '.devices[0].journal.newest.time')" $((BOOT + 299)) "wrong clock: newest commit"
assert_eq "$(jqo '.sources[] | select(.source == "journal:last_commit") | .sequence')" \
        "$(jqo '.devices[0].journal.best.sequence')" "wrong clock: the source's sequence"

# The same with the clock far in the future (after not-after).
image future
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:500" --txn "$FUTURE:1:50" >/dev/null
status "$IMG"
assert_eq "$(jqo .estimate)" $((GOOD + 499)) "future clock: estimate"

# Before Linux 6.5 a mount restarted the log at its first block: the wrong-clock boot wrote over
# the start of the good one, whose newest commits remain after it.
image restart
"$JBD2_WRITE" "$IMG" --txn "$GOOD:1:1000" --at 1 --dirty --txn "$BOOT:1:400" >/dev/null
status "$IMG"
assert_eq "$(jqo .estimate)" $((GOOD + 999)) "earlier mount: estimate"

# Without the superblock's copy of the journal's map, or with a damaged one: the inode's own map.
debugfs -w -R "ssv jnl_backup_type 0" "$IMG" >/dev/null 2>&1
status "$IMG"
assert_eq "$(jqo '.devices[0].journal | "\(.from_backup) \(.error)"')" "false null" "no backup map: the inode"
assert_eq "$(jqo .estimate)" $((GOOD + 999)) "no backup map: estimate"
debugfs -w -R "ssv jnl_backup_type 1" "$IMG" >/dev/null 2>&1
debugfs -w -R "ssv jnl_blocks[5] 4000000000" "$IMG" >/dev/null 2>&1 # the extent's start, far out
status "$IMG"
assert_eq "$(jqo '.devices[0].journal | "\(.from_backup) \(.error)"')" "false null" "damaged backup map: the inode"
assert_eq "$(jqo .estimate)" $((GOOD + 999)) "damaged backup map: estimate"

# Commit times no JSON reader takes as a number (every number cf sees is checked to be within
# +-2^53): 2^63 s, beyond what clockfix holds at all, and 10^13 s (the year 318857), whose
# microseconds pass 2^53. Each is null where it does not fit, with its verdict; the table says
# "out of range" rather than a date nothing recorded.
for sec in 9223372036854775807 10000000000000; do
        image "absurd-$sec"
        "$JBD2_WRITE" "$IMG" --dirty --txn "$sec:1:3:0" >/dev/null
        status "$IMG"
        if [ "$sec" == 10000000000000 ]; then time=$sec; else time=null; fi
        assert_eq "$(jqo '.sources[] | select(.source == "journal:last_commit") | [.time, .time_usec, .plausible, .verdict] | map(tostring) | join(" ")')" \
                "$time null false after_not_after" "commit at $sec s: the source"
        assert_eq "$(jqo '.devices[0].journal | [.newest.time, .newest.time_usec, .best] | map(tostring) | join(" ")')" \
                "$time null null" "commit at $sec s: the journal's newest"
        assert_match "$(jqo .source)" "^(superblock:|build$)" "commit at $sec s: not used"
        cf status --device "$IMG" "${POLICY[@]}"
        if [ "$time" == null ]; then
                assert_match "$OUT" "journal:last_commit +out of range +after not-after" "commit at $sec s: the table"
                assert_match "$OUT" "newest commit sequence [0-9]+ at block [0-9]+, out of range \(implausible\)" \
                        "commit at $sec s: the journal's line"
                cf set --dry-run --device "$IMG" "${POLICY[@]}"
                assert_match "$ERR" "journal:last_commit \(out of range\) is after not-after 2056-01-01T00:00:00Z, ignored" \
                        "commit at $sec s: the warning"
        else
                assert_match "$OUT" "journal:last_commit +318857-[0-9T:-]+Z +after not-after" "commit at $sec s: the table"
        fi
done

# Power went while the last transaction was written: the one before it.
image torn
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:100" --torn 3 >/dev/null
status "$IMG"
assert_eq "$(jqo .estimate)" $((GOOD + 99)) "torn: estimate"

# Corrupt blocks: the newest commit's checksum, then garbage after the 50th transaction.
image corrupt
set -- $("$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:100")
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:100" --damage "$(($1 - 1)):checksum" >/dev/null
status "$IMG"
assert_eq "$(jqo .estimate)" $((GOOD + 98)) "bad commit checksum: estimate"
[ "$(jqo '.devices[0].journal.bad_checksums')" -ge 1 ] || fail "bad commit checksum: not counted"
# Garbage in the middle, over the 51st transaction's descriptor: the walk ends there, but the
# bisection may land beyond it on commits as genuine; either is a commit that was written.
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:100" --damage 151:garbage >/dev/null
status "$IMG"
close_to "garbage: estimate" "$(jqo .estimate)" $((GOOD + 74)) 25

# A broken journal superblock: the journal is not used, the superblock's times are, with a warning.
image badsb
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:100" --superblock-checksum >/dev/null
cf set --dry-run --device "$IMG" "${POLICY[@]}"
assert_eq "$RC" 0 "bad journal superblock: exit"
assert_match "$ERR" "journal not used: journal superblock checksum does not match \(run e2fsck\)" \
        "bad journal superblock: warning"
status "$IMG"
assert_eq "$(jqo '.devices[0].journal.error')" "journal superblock checksum does not match" "bad journal sb: error"
assert_match "$(jqo .source)" "^superblock:" "bad journal superblock: winner"

# Garbage instead of the journal superblock, and a budget of a single block: no crash, no journal.
"$JBD2_WRITE" "$IMG" --dirty --txn "$GOOD:1:100" >/dev/null
status "$IMG"
cf status --json --device "$IMG" --journal-budget 1 "${POLICY[@]}"
assert_eq "$(jqo '.devices[0].journal | "\(.reads) \(.blocks_read) \(.budget_exhausted)"')" "1 1 true" "budget 1"
assert_match "$(jqo .source)" "^superblock:" "budget 1: winner"
cf status --json --device "$IMG" --journal-budget 0 "${POLICY[@]}"
assert_eq "$(jqo '.devices[0].journal')" null "budget 0: journal not read"

# 1 GiB of 4 KiB blocks full of the smallest transactions (descriptor, one block, commit),
# dirty from the start of the log: about a read a halving.
mkimg "$TMP/big.img" 1700000000 3G -t ext4 -J size=1024
set -- $("$JBD2_WRITE" "$TMP/big.img" --dirty --txn "$GOOD:1:87000")
status "$TMP/big.img"
assert_eq "$(jqo '.devices[0].journal.maxlen')" 262144 "1 GiB: journal blocks"
assert_eq "$(jqo '.devices[0].journal.newest | "\(.sequence) \(.block)"')" "$(($2 - 1)) $(($1 - 1))" "1 GiB: newest"
assert_eq "$(jqo .estimate)" $((GOOD + 86999)) "1 GiB: estimate"
reads=$(jqo '.devices[0].journal.reads')
[ "$reads" -le 20 ] || fail "1 GiB: $reads reads of the journal"
echo "1 GiB journal, 87000 transactions: $reads reads, $(jqo '.devices[0].journal.blocks_read') journal blocks"
echo ok
