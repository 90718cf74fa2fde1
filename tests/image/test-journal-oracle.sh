#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A sample of the generated histories of boots (tests/model/jbd2-history.c) in real ext4 images: each is
# written into the journal mke2fs made (tests/model/jbd2-write --history), clockfix reads the image, and
# the commit it reports as the newest plausible must be a commit block with that sequence at that
# block (the block's own header, and debugfs logdump -O where its walk reaches it) and the one the
# oracle (tests/model/jbd2-oracle.c, every block read) finds; the newest commit likewise.
. "$SRCDIR/tests/lib/lib.sh"
: "${JBD2_WRITE:?run through meson test}"

FLOOR=1767225600     # 2026-01-01, the oracle's window
NOT_AFTER=2713910400 # 2056-01-01
POLICY=(--not-before @$FLOOR --not-after @$NOT_AFTER --now 2000-01-01 --config /dev/null --no-stamps)

# header IMG BLOCK: "TYPE SEQUENCE" of journal block BLOCK, from its first 12 bytes ("" without the magic)
header() {
        local phys hex
        phys=$(debugfs -R "bmap <8> $2" "$1" 2>/dev/null)
        hex=$(od -An -tx1 -j $((phys * 1024)) -N 12 "$1" | tr -d ' \n')
        [[ $hex =~ ^c03b3998(.{8})(.{8})$ ]] || return 0
        echo "$((16#${BASH_REMATCH[1]})) $((16#${BASH_REMATCH[2]}))"
}

# commit_there NAME IMG LOGDUMP SEQUENCE BLOCK: a valid commit block of that sequence at that block
commit_there() {
        local name=$1 img=$2 logdump=$3 seq=$4 block=$5 line
        assert_eq "$(header "$img" "$block")" "2 $seq" "$name: the header at journal block $block"
        # logdump -O walks from s_start (s_first when clean) while it finds headers, taking up the
        # sequence it finds: where it reached the block, it must say the same.
        line=$(grep -E "^Found expected sequence [0-9]+, .* at block $block$" <<<"$logdump" | tail -n 1 || true)
        if [ -n "$line" ]; then
                assert_eq "$line" "Found expected sequence $seq, type 2 (commit block) at block $block" \
                        "$name: logdump -O at block $block"
                LOGDUMP_SEEN=$((LOGDUMP_SEEN + 1))
        fi
}

# seed:layout image-size journal-incompat (hex: 13 = csum v3, 64bit, revoke; 9 = csum v2; 3 = 64bit; 1 = none)
SAMPLES=(
        "11:6.5 8M 13" "12:pre 8M 13" "23:6.5 32M 9" "24:pre 32M 3" "35:6.5 8M 1" "36:pre 8M 9"
        "47:6.5 32M 13" "48:pre 32M 13" "59:6.5 8M 3" "60:pre 32M 1" "71:6.5 32M 13" "72:pre 8M 13"
        "83:6.5 8M 9" "84:pre 32M 3" "95:6.5 32M 1" "96:pre 8M 13"
)
img=$TMP/j.img
failed=0
LOGDUMP_SEEN=0
for s in "${SAMPLES[@]}"; do
        read -r history size incompat <<<"$s"
        mkimg "$img" $((FLOOR + 86400)) "$size" -t ext4 -b 1024 -O ^metadata_csum
        out=$("$JBD2_WRITE" "$img" --incompat "$incompat" --history "$history" --oracle "$FLOOR:$NOT_AFTER")
        expected_best=$(sed -n 's/^best //p' <<<"$out")
        expected_newest=$(sed -n 's/^newest //p' <<<"$out")
        what=$(sed -n 's/^history //p' <<<"$out")
        length=$(debugfs -R "logdump -S" "$img" 2>/dev/null | sed -n 's/^Total journal blocks: *//p')

        cf status --json --device "$img" "${POLICY[@]}" --journal-budget $((2 * length + 64))
        assert_eq "$RC" 0 "$history: exit"
        best=$(jqo '.devices[0].journal.best | if . == null then "none" else "\(.sequence) \(.block) \(.time)" end')
        newest=$(jqo '.devices[0].journal.newest | if . == null then "none" else "\(.sequence) \(.block) \(.time)" end')
        # (-n: logdump -O of debugfs 1.47.0 goes round a log that has come around for ever)
        logdump=$(timeout 60 debugfs -R "logdump -O -n $length" "$img" 2>/dev/null || true)
        for c in "$best" "$newest"; do
                [ "$c" == none ] || commit_there "$history" "$img" "$logdump" $c
        done
        [ "$expected_best" == none ] || commit_there "$history (oracle)" "$img" "$logdump" $expected_best
        assert_eq "$(jqo '.devices[0].journal.budget_exhausted')" false "$history: out of budget"
        if [ "$best" != "$expected_best" ] || [ "$newest" != "$expected_newest" ]; then
                echo "FAIL: $history: clockfix's best $best newest $newest, the oracle's $expected_best, $expected_newest: $what" >&2
                failed=$((failed + 1))
        else
                echo "$history: best $best, $(jqo '.devices[0].journal.blocks_read') blocks read: $what"
        fi
done
echo "logdump -O reached $LOGDUMP_SEEN of the commits checked"
[ "$failed" -eq 0 ] || fail "$failed of ${#SAMPLES[@]} images: clockfix's answer is not the oracle's"
echo ok
