#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The decision through the real binary: forward, nothing to do, an implausible clock, the floor,
# the margin, the window, and several devices. The clock is never touched: --now and --dry-run.
. "$SRCDIR/tests/lib/lib.sh"

WRITTEN=1800000600 # 2027-01-15T08:10:00Z
img=$TMP/root.img
mkimg "$img" 1800000000 32M -t ext4
stamp "$img" $WRITTEN "ssv mtime @1800000300"
W="--device $img --not-before 2026-01-01"

# A dead RTC at 2000: forward to last write + 1 s.
cf set --dry-run $W --now 2000-01-01
assert_eq "$RC" 0 "forward: exit"
assert_match "$ERR" "Would move clock forward from 2000-01-01T00:00:00Z to 2027-01-15T08:10:01Z \(\+853315801 s\) from superblock:last_write of $img" "forward: line"
cf status --json $W --now 2000-01-01
assert_eq "$(jqo '[.action, .source, .estimate, .target] | @tsv')" "$(printf 'set\tsuperblock:last_write\t%s\t%s' $WRITTEN $((WRITTEN + 1)))" "forward: json"

# No RTC at all: 1970.
cf status --json $W --now @0
assert_eq "$(jqo .action)" set "1970: action"

# Exactly at the target, and ahead of it: left alone, exit 0.
cf set --dry-run $W --now @$((WRITTEN + 1))
assert_eq "$RC" 0 "at target: exit"
assert_match "$ERR" "^<6>clockfix: Clock 2027-01-15T08:10:01Z is already at or past 2027-01-15T08:10:01Z .*left alone$" "at target: line"
cf status --json $W --now @$((WRITTEN + 1))
assert_eq "$(jqo .action)" none "at target: action"
cf status --json $W --now @$WRITTEN
assert_eq "$(jqo .action)" set "one second before the target: action"
cf set --dry-run $W --now 2030-01-01
assert_eq "$RC" 0 "ahead: exit"
assert_match "$ERR" "left alone" "ahead: line"

# A clock in 2151 is beyond not-after (2026 + 30 years): moved back to the target.
cf set --dry-run $W --now 2151-01-01
assert_eq "$RC" 0 "2151: exit"
assert_match "$ERR" "Would move clock back \(it was after not-after\) from 2151-01-01T00:00:00Z to 2027-01-15T08:10:01Z \(-3911816999 s\)" "2151: line"
cf status --json $W --now 2151-01-01
assert_eq "$(jqo '[.action, .clock_implausible] | @tsv')" "$(printf 'set\ttrue')" "2151: json"

# Margin: 0 and fractional.
cf status --json $W --margin 0 --now 2000-01-01
assert_eq "$(jqo .target)" $WRITTEN "margin 0: target"
cf status --json $W --margin 90.5 --now 2000-01-01
assert_eq "$(jqo '[.target, .margin_usec] | @tsv')" "$(printf '%s\t90500000' $((WRITTEN + 90)))" "margin 90.5"
# The target is never after not-after, whatever the margin: a disk written 10 s before not-after
# and a margin of an hour give not-after itself, and the table says why.
N="--not-after @$((WRITTEN + 10))"
cf status --json $W $N --margin 3600 --now 2000-01-01
assert_eq "$(jqo '[.action, .estimate, .target, .not_after, .margin_usec] | map(tostring) | join(" ")')" \
        "set $WRITTEN $((WRITTEN + 10)) $((WRITTEN + 10)) 3600000000" "margin past not-after: the target stops at it"
cf set --dry-run $W $N --margin 3600 --now 2000-01-01
assert_match "$ERR" "Would move clock forward from 2000-01-01T00:00:00Z to 2027-01-15T08:10:10Z \(\+853315810 s\)" \
        "margin past not-after: set stops at not-after"
cf status $W $N --margin 3600 --now 2000-01-01
assert_match "$OUT" "Target: +2027-01-15T08:10:10Z \(not-after: the estimate \+ margin 3600 s would be later\)" \
        "margin past not-after: the table says so"
# A clock already at not-after is left alone; one after it is moved back to not-after, no later.
cf status --json $W $N --margin 3600 --now @$((WRITTEN + 10))
assert_eq "$(jqo '[.action, .target] | map(tostring) | join(" ")')" "none $((WRITTEN + 10))" "clock at not-after: none"
cf status --json $W $N --margin 3600 --now 2151-01-01
assert_eq "$(jqo '[.action, .target, .clock_implausible] | map(tostring) | join(" ")')" \
        "set $((WRITTEN + 10)) true" "clock after not-after: back to not-after at most"

# The floor: a disk older than --not-before loses to it; the device still counts as evidence.
cf status --json --device "$img" --not-before 2028-01-01 --now 2000-01-01
assert_eq "$(jqo '[.action, .source, .estimate, .floor_source] | @tsv')" "$(printf 'set\tbuild\t1830297600\t--not-before')" "floor wins"
assert_eq "$(jqo '[.sources[].verdict] | unique | join(",")')" before_floor "floor wins: verdicts"
cf set --dry-run --device "$img" --not-before 2028-01-01 --now 2000-01-01
assert_match "$ERR" "to 2028-01-01T00:00:01Z .* from the floor \(--not-before\), no disk time being later" "floor wins: line"

# Without --not-before the floor is the build time: the JSON says which and when.
cf status --json --device "$img" --now 2000-01-01
assert_eq "$(jqo .floor_source)" "build time" "build floor: source"
build=$("$CLOCKFIX" --version | sed -n 's/.*(built \(.*\))$/\1/p')
assert_eq "$(jqo .floor)" "$(date -u -d "$build" +%s)" "build floor: the time --version shows"
assert_eq "$(jqo .not_after)" $(($(jqo .floor) + 10957 * 86400)) "default not-after: floor + 30 years"

# --not-after below a time makes it implausible; below all of them, no usable time (exit 3): the
# clock, before the floor, set to the floor; unavailable with --no-floor-fallback.
cf status --json $W --not-after 2027-01-15T08:05:00Z --now 2000-01-01
assert_eq "$(jqo '[.source, .estimate] | @tsv')" "$(printf 'superblock:last_mount\t1800000300')" "not-after: next best"
assert_eq "$(jqo '.sources[] | select(.source == "superblock:last_write") | .verdict')" after_not_after "not-after: verdict"
cf set --dry-run $W --not-after 2027-01-15T08:05:00Z --now 2000-01-01
assert_eq "$RC" 0 "not-after: exit"
assert_match "$ERR" "<4>clockfix: $img: superblock:last_write 2027-01-15T08:10:00Z is after not-after 2027-01-15T08:05:00Z, ignored" "not-after: warning"
cf set --dry-run $W --not-after 2026-06-01 --now 2000-01-01
assert_eq "$RC" 3 "all after not-after: exit"
assert_eq "$ERR" "<3>clockfix: $img: all its times are after not-after 2026-06-01T00:00:00Z: corrupt or crafted filesystem? (or raise --not-after): not used
<4>clockfix: No time on the disk; the clock would be set to the floor (--not-before), 2026-01-01T00:00:00Z, the earliest it can be (moved forward from 2000-01-01T00:00:00Z, +$((1767225600 - 946684800)) s); --dry-run: not changed" \
        "all after not-after: the device's line, and the floor's"
cf status --json $W --not-after 2026-06-01 --now 2000-01-01
assert_eq "$RC" 3 "all after not-after: status exit"
assert_eq "$(jqo '[.action, .evidence, .source, .estimate, .target] | map(tostring) | join(",")')" \
        "set,false,build,1767225600,1767225600" "all after not-after: json, the floor"
cf set --dry-run $W --not-after 2026-06-01 --now 2000-01-01 --no-floor-fallback
assert_eq "$RC" 3 "all after not-after, no fallback: exit"
assert_eq "$ERR" "<3>clockfix: $img: all its times are after not-after 2026-06-01T00:00:00Z: corrupt or crafted filesystem? (or raise --not-after): not used" \
        "all after not-after, no fallback: the one line"
cf status --json $W --not-after 2026-06-01 --now 2000-01-01 --no-floor-fallback
assert_eq "$(jqo '[.action, .evidence, .source, .estimate, .target] | map(tostring) | join(",")')" \
        "unavailable,false,null,null,null" "all after not-after, no fallback: json"

# Several devices: the newest time of any wins; an unreadable one is a warning, not an error.
newer=$TMP/newer.img
mkimg "$newer" 1800000000 8M -t ext2
stamp "$newer" $((WRITTEN + 3600)) "ssv mtime @1800000300"
cf status --json --device "$img" --device "$newer" --device "$TMP/missing.img" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$RC" 0 "several: exit"
assert_eq "$(jqo '[.source, .device, .estimate] | @tsv')" "$(printf 'superblock:last_write\t%s\t%s' "$newer" $((WRITTEN + 3600)))" "several: winner"
assert_eq "$(jqo '[.devices[].readable] | map(tostring) | join(",")')" "true,true,false" "several: devices"
cf set --dry-run --device "$img" --device "$TMP/missing.img" --device "$newer" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$RC" 0 "several: set exit"
assert_match "$ERR" "^<4>clockfix: $TMP/missing.img: no such device or file" "several: warning for the missing one"
assert_match "$ERR" "from superblock:last_write of $newer" "several: winner line"
echo ok
