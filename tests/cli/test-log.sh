#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Log lines: "<N>clockfix: " when stderr is not a terminal (the kernel console, a pipe), plain
# "clockfix: " on a terminal, "<N>" alone on a journal stream; -q keeps warnings and errors only.
. "$SRCDIR/tests/lib/lib.sh"

img=$TMP/root.img
mkimg "$img" 1800000000 8M -t ext4
args=(set --dry-run --device "$img" --not-before 2026-01-01 --now 2000-01-01)
line="Would move clock forward from 2000-01-01T00:00:00Z to 2027-01-15T08:00:01Z (+853315201 s) from superblock:last_write of $img; --dry-run: not changed"

cf "${args[@]}"
assert_eq "$ERR" "<5>clockfix: $line" "pipe"

# A terminal: script(1) gives clockfix a pseudo-terminal (the test itself needs none).
out=$(script -qec "$(printf '%q ' "$CLOCKFIX" "${args[@]}")" /dev/null </dev/null | tr -d '\r')
assert_eq "$out" "clockfix: $line" "terminal"

# systemd's journal stream: JOURNAL_STREAM names the device and inode of stderr.
: >"$TMP/journal"
JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/journal") "$CLOCKFIX" "${args[@]}" 2>>"$TMP/journal"
assert_eq "$(cat "$TMP/journal")" "<5>$line" "journal stream"
# A JOURNAL_STREAM that names another file changes nothing.
JOURNAL_STREAM=1:1 "$CLOCKFIX" "${args[@]}" 2>"$TMP/other"
assert_eq "$(cat "$TMP/other")" "<5>clockfix: $line" "someone else's journal stream"

cf -q "${args[@]}"
assert_eq "$RC:$ERR" "0:" "quiet"
cf -q set --dry-run --device "$TMP/missing" --not-before 2026-01-01
assert_eq "$RC" 3 "quiet error: exit"
assert_match "$ERR" "^<3>clockfix: $TMP/missing: no such device" "quiet still shows errors"
echo ok
