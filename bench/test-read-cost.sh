#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/read-cost --smoke (tiny disks the kernel writes, one run, the dirty ones made twice; the
# real root only if the vm suite's Debian root is cached; no throttled guest unless QEMU=1) runs
# against this build and prints its tables whole: every disk in each, every figure a number, the
# goals the journal search was made to meet. The figures themselves are the benchmark's business, not asserted here, but
# for what holds whatever the journal search does: the superblock alone is one read, and the whole
# run reads at least what the journal search read. Its wrong-clock disk (j4-dirty's newest commits
# redated to 2000) has a row in each table, and one in that of the newest plausible commit against
# the oracle, where its newest commit is not the oracle's best.
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to loop-mount images (CI runs as root)"
started=$(date +%s)
READCOST_CACHE=${READCOST_CACHE:-$TMP/cache} bash "$SRCDIR/bench/read-cost" --smoke "$BUILDDIR" >"$TMP/table" 2>"$TMP/err" ||
        fail "bench/read-cost --smoke failed: $(tail -n 20 "$TMP/err")"
cat "$TMP/table"
echo "read-cost --smoke: $(($(date +%s) - started)) s"

# table HEADER-START: the rows of the table whose header starts so
table() {
        awk -v h="$1" 'index($0, h) == 1 { t = 1; next } t && !/^\|/ { t = 0 } t && /^\| [a-z]/' "$TMP/table"
}
header=$(grep '^| disk | journal reads |' "$TMP/table") || fail "no table of reads"
assert_eq "$(awk -F'|' '{ print NF - 2 }' <<<"$header")" 15 "columns of the table"
rows=$(table '| disk | journal reads |')
for d in j4-dirty j4-clean; do
        grep -q "^| $d | " <<<"$rows" || fail "no row for $d"
        grep -q "^- \*\*$d\*\*: ext4 of 64M, 4 MiB journal: [0-9]* transactions written" "$TMP/table" || fail "no label for $d"
done
grep -q "^| j4-dirty-wrong-short | " <<<"$rows" || fail "no row for j4-dirty-wrong-short"
# The dirty disks made a second time (BUILDS, 2 in a smoke run): their own rows, no clean one.
for d in j4.2-dirty c4.2-dirty; do
        grep -q "^| $d | " <<<"$rows" || fail "no row for $d, the second build"
        grep -q "^- \*\*$d\*\*: ext4 of 64M, 4 MiB journal.*; dirty (a power cut)" "$TMP/table" || fail "no label for $d"
done
! grep -q "^| j4.2-clean | " <<<"$rows" || fail "a row for j4.2-clean: a second build's clean disk"
grep -q "^| c4-dirty | " <<<"$rows" || fail "no row for c4-dirty"
grep -q "^- \*\*c4-dirty\*\*: ext4 of 64M, 4 MiB journal, 30 copies of a tree of 20 directories of 10 files, a sync after each: [0-9]* transactions written.*; dirty (a power cut)" "$TMP/table" ||
        fail "no label for c4-dirty"
grep -q '^- \*\*j4-dirty\*\*: .*; dirty (a power cut), live log: [0-9]* transactions' "$TMP/table" ||
        fail "j4-dirty: not a dirty log"
grep -q '^- \*\*j4-clean\*\*: .*; clean' "$TMP/table" || fail "j4-clean: not a clean log"
grep -q '^- \*\*j4-dirty-wrong-short\*\*: j4-dirty, the newest [0-9]* of the [0-9]* transactions of its live log .* dated from 2000-01-01 on' \
        "$TMP/table" || fail "no label for j4-dirty-wrong-short"
while IFS='|' read -r _ disk jr jb cr cb sr sb rr rb tc ts tr mc ms mr _; do
        disk=${disk// /}
        for v in "$jr" "$jb" "$cr" "$cb" "$sr" "$sb" "$rr" "$rb" "$mc" "$ms" "$mr"; do
                [[ ${v// /} =~ ^[0-9]+$ ]] || fail "$disk: '$v' is not a number"
        done
        for v in "$tc" "$ts" "$tr"; do
                # (the guest has the disks of the first build)
                if [ "${QEMU:-0}" == 1 ] && [[ $disk != *.[0-9]-dirty ]]; then
                        [[ ${v// /} =~ ^[0-9]+$ ]] || fail "$disk: throttled '$v' is not a number"
                else
                        assert_eq "${v// /}" - "$disk: throttled, without the guest"
                fi
        done
        assert_eq "${sr// /}" 1 "$disk: superblock-only read operations"
        [ "${sb// /}" -le 4096 ] || fail "$disk: superblock-only read $sb bytes"
        [ "${cr// /}" -ge "${jr// /}" ] || fail "$disk: the whole run read less ($cr) than the journal search ($jr)"
        [ "${rr// /}" -ge 1 ] || fail "$disk: the recipe read nothing"
done <<<"$rows"

# The two cards: a row for every disk of the table of reads, the models' figures numbers (the
# seed's in ms, today's to a tenth), the guest's "-" without it.
header=$(grep "^| disk | clockfix reads | clockfix bytes | modelled ms, seed's card | modelled ms, today's card |" "$TMP/table") ||
        fail "no table of the two cards"
assert_eq "$(awk -F'|' '{ print NF - 2 }' <<<"$header")" 7 "columns of the table of the two cards"
crows=$(table "| disk | clockfix reads | clockfix bytes | modelled ms, seed's card |")
assert_eq "$(cut -d'|' -f2 <<<"$crows")" "$(cut -d'|' -f2 <<<"$rows")" "the disks of the table of the two cards"
while IFS='|' read -r _ disk cr cb seed modern ts tm _; do
        disk=${disk// /}
        for v in "$cr" "$cb" "$seed"; do
                [[ ${v// /} =~ ^[0-9]+$ ]] || fail "$disk: '$v' is not a number"
        done
        [[ ${modern// /} =~ ^[0-9]+\.[0-9]$ ]] || fail "$disk: today's card '$modern' is not a number of ms to a tenth"
        for v in "$ts" "$tm"; do
                if [ "${QEMU:-0}" == 1 ] && [[ $disk != *.[0-9]-dirty ]]; then
                        [[ ${v// /} =~ ^[0-9]+$ ]] || fail "$disk: throttled '$v' is not a number"
                else
                        assert_eq "${v// /}" - "$disk: throttled, without the guest"
                fi
        done
        # The same run in both: the models' figures agree with its reads and bytes.
        assert_eq "${seed// /}" "$(awk -v r="$cr" -v b="$cb" 'BEGIN { printf "%.0f", r * 37 + b / 17600 }')" "$disk: the seed's card's model"
        assert_eq "${modern// /}" "$(awk -v r="$cr" -v b="$cb" 'BEGIN { printf "%.1f", r * 0.5 + b / 80000 }')" "$disk: today's card's model"
done <<<"$crows"

# The newest plausible commit against the oracle: a row for every disk of the table of reads.
header=$(grep "^| disk | newest commit | oracle's best |" "$TMP/table") || fail "no table of the oracle"
assert_eq "$(awk -F'|' '{ print NF - 2 }' <<<"$header")" 11 "columns of the table of the oracle"
orows=$(table "| disk | newest commit | oracle's best |")
assert_eq "$(cut -d'|' -f2 <<<"$orows")" "$(cut -d'|' -f2 <<<"$rows")" "the disks of the table of the oracle"
while IFS='|' read -r _ disk newest oracle b32 r32 s32 ok32 b1000 r1000 s1000 ok1000 _; do
        disk=${disk// /}
        [[ $newest =~ ^\ [0-9]+\ \([0-9]{4}-[0-9]{2}-[0-9]{2}\)\ $ ]] || fail "$disk: newest commit '$newest'"
        for v in "$oracle" "$b32" "$b1000"; do
                [[ ${v// /} =~ ^([0-9]+|none)$ ]] || fail "$disk: '$v' is not a sequence number"
        done
        for v in "$r32" "$r1000"; do
                [[ ${v// /} =~ ^[0-9]+$ ]] || fail "$disk: '$v' is not a number"
        done
        for v in "$s32" "$ok32" "$s1000" "$ok1000"; do
                [[ ${v// /} =~ ^(yes|no)$ ]] || fail "$disk: '$v' is not yes or no"
        done
        newest=${newest%% (*} oracle=${oracle// /}
        [ "$disk" != j4-dirty-wrong-short ] || [ "${newest// /}" != "$oracle" ] ||
                fail "$disk: the newest commit is the oracle's best: not a wrong clock"
done <<<"$orows"
grep -q "^clockfix's best is the oracle's on [0-9]* of [0-9]* disks" "$TMP/table" || fail "no count of the oracle's answers"
grep -q '^| the journal in at most 12 read operations, on every disk | at most [0-9]* ' "$TMP/table" || fail "no goal for the journal"
grep -q '^| the whole `clockfix set` on the real root' "$TMP/table" || fail "no goal for the real root"
grep -q '^| the whole `clockfix set` on every dirty log the kernel wrote, on the seed.s card (modelled): at most 500 ms | at most [0-9]* ms (' "$TMP/table" ||
        fail "no goal for the seed's card"
grep -q '^| the same on today.s card (modelled): at most 30 ms | at most [0-9.]* ms (' "$TMP/table" || fail "no goal for today's card"
grep -q '^| the same, throttled like' "$TMP/table" || fail "no goal for the throttled guests"
grep -q '^| a last boot with a wrong clock: the newest plausible commit' "$TMP/table" || fail "no goal for the wrong clock"
echo ok
