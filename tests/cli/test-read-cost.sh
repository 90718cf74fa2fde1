#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/read-cost --smoke (tiny disks the kernel writes, one run; the real root only if the vm
# suite's Debian root is cached; no throttled guest unless QEMU=1) runs against this build and
# prints its tables whole: every disk in each, every figure a number, the goals of issue 16. The
# figures themselves are the benchmark's business, not asserted here, but for what holds whatever
# the journal search does: the superblock alone is one read, and the whole run reads at least
# what the journal search read.
. "$SRCDIR/tests/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to loop-mount images (CI runs as root)"
started=$(date +%s)
READCOST_CACHE=${READCOST_CACHE:-$TMP/cache} bash "$SRCDIR/bench/read-cost" --smoke "$BUILDDIR" >"$TMP/table" 2>"$TMP/err" ||
        fail "bench/read-cost --smoke failed: $(tail -n 20 "$TMP/err")"
cat "$TMP/table"
echo "read-cost --smoke: $(($(date +%s) - started)) s"

header=$(grep '^| disk | journal reads |' "$TMP/table") || fail "no table of reads"
assert_eq "$(awk -F'|' '{ print NF - 2 }' <<<"$header")" 15 "columns of the table"
rows=$(grep -E '^\| (j4|root)-(dirty|clean) \| [0-9-]' "$TMP/table" | grep -v 'disk reads') || true
for d in j4-dirty j4-clean; do
        grep -q "^| $d | " <<<"$rows" || fail "no row for $d"
        grep -q "^- \*\*$d\*\*: ext4 of 64M, 4 MiB journal: [0-9]* transactions written" "$TMP/table" || fail "no label for $d"
done
grep -q '^- \*\*j4-dirty\*\*: .*; dirty (a power cut), live log: [0-9]* transactions' "$TMP/table" ||
        fail "j4-dirty: not a dirty log"
grep -q '^- \*\*j4-clean\*\*: .*; clean' "$TMP/table" || fail "j4-clean: not a clean log"
while IFS='|' read -r _ disk jr jb cr cb sr sb rr rb tc ts tr mc ms mr _; do
        disk=${disk// /}
        for v in "$jr" "$jb" "$cr" "$cb" "$sr" "$sb" "$rr" "$rb" "$mc" "$ms" "$mr"; do
                [[ ${v// /} =~ ^[0-9]+$ ]] || fail "$disk: '$v' is not a number"
        done
        for v in "$tc" "$ts" "$tr"; do
                if [ "${QEMU:-0}" == 1 ]; then
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
grep -q '^| the journal in at most 12 read operations, on every disk | at most [0-9]* ' "$TMP/table" || fail "no goal for the journal"
grep -q '^| the whole `clockfix set` on the real root' "$TMP/table" || fail "no goal for the real root"
grep -q '^| a throttled boot.s clockfix in at most 500 ms' "$TMP/table" || fail "no goal for the throttled boot"
echo ok
