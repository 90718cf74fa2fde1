#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The command line: --help, --version, and every kind of usage error (exit 2, one line, nothing
# read, nothing changed).
. "$SRCDIR/tests/lib/lib.sh"

cf --help
assert_eq "$RC" 0 "--help: exit"
assert_match "$OUT" "^Usage: clockfix \[COMMAND\] \[OPTIONS\]" "--help: usage"
for word in status set --device --cmdline --wait --margin --not-before --not-after --dry-run --json "Exit status"; do
        assert_match "$OUT" "$word" "--help mentions $word"
done
cf -h
assert_eq "$RC" 0 "-h: exit"

cf --version
assert_eq "$RC" 0 "--version: exit"
version=$(sed -n "s/^ *version : '\(.*\)',$/\1/p" "$SRCDIR/meson.build")
assert_match "$OUT" "^clockfix $version \(built [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\)$" "--version"

img=$TMP/root.img
mkimg "$img" 1800000000 8M -t ext4

usage() {
        local want=$1
        shift
        cf "$@"
        assert_eq "$RC" 2 "clockfix $*: exit"
        assert_eq "$(wc -l <<<"$ERR")" 1 "clockfix $*: one line"
        assert_match "$ERR" "^<3>clockfix: $want" "clockfix $*: message"
        assert_eq "$OUT" "" "clockfix $*: no output"
}
usage 'Unknown option --bogus \(see --help\)' --bogus
usage 'Unknown option -x \(see --help\)' -x status
usage 'Option --json takes no value \(see --help\)' --json=1
usage 'Option --dry-run takes no value' set --dry-run=yes
usage 'Unknown command "fix": use status, set, daemon, stamp or learn' fix
usage 'Unexpected argument "extra"' status extra
usage 'Option --device needs a value' --device
usage '--device: empty path' --device ''
usage '--margin: not a number of seconds "soon"' --margin soon --device "$img"
usage '--margin: not a number of seconds "-1"' --margin -1 --device "$img"
usage '--margin: out of range "99999999999999999999"' --margin 99999999999999999999 --device "$img"
usage '--wait: not a number of seconds "1m"' --wait 1m --device "$img"
usage '--not-before: not a time "yesterday"' --not-before yesterday --device "$img"
usage '--not-after: not a time "2026-02-30"' --not-after 2026-02-30 --device "$img"
usage '--not-after: time out of range "1969-12-31"' --not-after 1969-12-31 --device "$img"
usage 'not-after 2020-01-01T00:00:00Z \(--not-after\) is before the floor 2026-01-01T00:00:00Z \(--not-before\)' \
        --not-before 2026-01-01 --not-after 2020-01-01 --device "$img"
usage 'margin 1 s \(--margin\) is too large for not-after 586524-01-19T08:01:49Z \(--not-after\)' --not-after @18446744073709 --margin 1 --device "$img"
# Settings that would move the clock by themselves, or hold a boot up, have a bound: beyond it, a
# usage error as any bad value.
usage '--margin: above 3600 s \(at most an hour past the disk.s last write\) "3600.000001"' --margin 3600.000001 --device "$img"
usage '--margin: above 3600 s \(at most an hour past the disk.s last write\) "1000000000"' set --dry-run --margin 1000000000 --device "$img"
usage '--wait: above 300 s \(no boot waits that long for its root\) "300.5"' --wait 300.5 --device "$img"
usage '--wait: above 300 s \(no boot waits that long for its root\) "1000000000"' set --dry-run --wait 1000000000 --device "$img"
usage '--json applies to status only' set --json --device "$img"
usage '--dry-run applies to set, daemon and learn only' status --dry-run --device "$img"
usage '--now needs --dry-run with set' set --now 2000-01-01 --device "$img"

# Options may come before or after the command; the default command is status.
cf --device "$img" --json --not-before 2026-01-01
assert_eq "$(jqo .estimate)" 1800000000 "default command"
cf --json --device "$img" status --not-before 2026-01-01
assert_eq "$(jqo .estimate)" 1800000000 "options around the command"

# --boot: clockfix parameters on the kernel command line, under the options given.
usage '--journal-budget: not a number of reads from 0 to 10000 "x"' --journal-budget x --device "$img"
usage '--journal-budget: not a number of reads from 0 to 10000 "10001"' --journal-budget 10001 --device "$img"
echo "ro quiet clockfix=0 root=/dev/nonexistent" >"$TMP/off"
cf set --boot --cmdline "$TMP/off" --now 2000-01-01 --dry-run
assert_eq "$RC" 0 "clockfix=0: exit"
assert_match "$ERR" "Turned off by clockfix=0 on the kernel command line" "clockfix=0: message"
echo "root=/dev/nonexistent clockfix.device=$img clockfix.margin=2.5 clockfix.not_before=2026-01-01 clockfix.not_after=2040-01-01" >"$TMP/params"
cf status --json --boot --cmdline "$TMP/params" --now 2000-01-01
assert_eq "$(jqo '[.device, .margin_usec, .floor, .not_after] | map(tostring) | join(" ")')" \
        "$img 2500000 1767225600 2208988800" "clockfix.* applied"
cf status --json --boot --cmdline "$TMP/params" --margin 7 --not-after 2050-01-01 --now 2000-01-01
assert_eq "$(jqo '[.margin_usec, .not_after] | map(tostring) | join(" ")')" "7000000 2524608000" "options win"
cf status --json --cmdline "$TMP/params" --device "$img" --now 2000-01-01 --not-before 2026-01-01
assert_eq "$(jqo .margin_usec)" 1000000 "without --boot: not read"
echo "clockfix.device=$img clockfix.margin=soon clockfix.not_after=tomorrow clockfix.not_before=2026-01-01" >"$TMP/bad"
cf status --json --boot --cmdline "$TMP/bad" --now 2000-01-01
assert_eq "$RC" 0 "bad parameters: exit"
assert_match "$ERR" "Ignoring clockfix.margin=soon: not a number of seconds" "bad margin"
assert_match "$ERR" "Ignoring clockfix.not_after=tomorrow: not a time" "bad not_after"
assert_eq "$(jqo .margin_usec)" 1000000 "bad margin: default kept"
echo ok
