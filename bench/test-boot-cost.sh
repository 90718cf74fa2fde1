#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/boot-cost runs (a few runs each, against this build) and what it reports of the reads
# holds: clockfix reads one superblock (one read of at most 4 KiB) from a 64 MiB and from a 1 TiB
# disk alike, and reads the journal within its budget. Timings are the benchmark's business, not
# asserted here.
. "$SRCDIR/tests/lib/lib.sh"

WARM=3 COLD=1 bash "$SRCDIR/bench/boot-cost" "$BUILDDIR" >"$TMP/table" 2>"$TMP/err" ||
        fail "bench/boot-cost failed: $(cat "$TMP/err")"
cat "$TMP/table"
row() { grep -F "$1" "$TMP/table" | grep -F "| $2 |"; }
field() { awk -F'|' -v n="$1" '{ gsub(/ /, "", $n); print $n }'; }
for disk in 64M 1T; do
        for kind in static dynamic 'static, `-Dblkid=disabled`'; do
                [ "$kind" != 'static, `-Dblkid=disabled`' ] || [ $disk == 64M ] || continue
                r=$(row "superblock, $kind |" "$disk")
                [ -n "$r" ] || fail "no row for the $kind clockfix on $disk"
                assert_eq "$(field 8 <<<"$r")" 1 "$kind, $disk: read operations"
                [ "$(field 9 <<<"$r")" -le 4096 ] || fail "$kind, $disk: read $(field 9 <<<"$r") bytes"
        done
done
for j in "64 MiB journal, dirty" "1024 MiB journal, clean"; do
        r=$(row "journal, static" "$j")
        blocks=$(field 10 <<<"$r")
        [ -n "$blocks" ] && [ "$blocks" -ge 2 ] && [ "$blocks" -le 1024 ] || fail "$j: $blocks journal blocks read"
done
grep -q "^| clockfix, static (stripped) | [0-9]* |" "$TMP/table" || fail "no size of the static binary"
echo ok
