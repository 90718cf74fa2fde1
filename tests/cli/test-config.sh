#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The configuration file: the same settings as the options and the kernel command line, under the
# same names; options win over the kernel command line, which wins over the file. A bad line is
# warned about (file and line) and ignored, never fatal; a file named with --config must exist.
. "$SRCDIR/tests/lib/lib.sh"

mkimg "$TMP/a.img" 1800000000 8M -t ext4
mkimg "$TMP/b.img" 1800000500 8M -t ext4

conf=$TMP/clockfix.conf
cat >"$conf" <<CONF
# clockfix settings for this board
margin = 2.5
not_before = 2026-01-01
not-after = "2040-01-01"
device = $TMP/a.img
device = $TMP/b.img
journal-budget = 0
stamps = no
# daemon settings are read by every command, used by the daemon
ntp-unit = chrony.service
save-interval = 60
timeout = 600
stay = yes
CONF

cf status --json --config "$conf" --now 2000-01-01
assert_eq "$RC" 0 "file: exit"
assert_eq "$ERR" "" "file: no warning"
assert_eq "$(jqo '[.margin_usec, .floor, .not_after, .estimate, .device] | map(tostring) | join(" ")')" \
        "2500000 1767225600 2208988800 1800000500 $TMP/b.img" "file: settings applied, both devices read"
assert_eq "$(jqo '[.devices[].device] | join(" ")')" "$TMP/a.img $TMP/b.img" "file: devices in order"
assert_eq "$(jqo '[.devices[].journal] | map(tostring) | join(" ")')" "null null" "file: journal-budget = 0"
assert_eq "$(jqo '[.devices[].files] | map(tostring) | join(" ")')" "null null" "file: stamps = no"

# Options win over the file; a device option replaces the file's devices.
cf status --json --config "$conf" --now 2000-01-01 --margin 7 --device "$TMP/a.img"
assert_eq "$(jqo '[.margin_usec, .not_after, .estimate, (.devices | length)] | map(tostring) | join(" ")')" \
        "7000000 2208988800 1800000000 1" "options win over the file"

# The kernel command line (with --boot) wins over the file, and options over both.
echo "ro clockfix.margin=3 clockfix.not_after=2045-01-01 clockfix.device=$TMP/a.img" >"$TMP/cmdline"
cf status --json --config "$conf" --boot --cmdline "$TMP/cmdline" --now 2000-01-01
assert_eq "$(jqo '[.margin_usec, .not_after, .floor, (.devices | length)] | map(tostring) | join(" ")')" \
        "3000000 2366841600 1767225600 1" "kernel command line over the file"
cf status --json --config "$conf" --boot --cmdline "$TMP/cmdline" --now 2000-01-01 --margin 9
assert_eq "$(jqo .margin_usec)" 9000000 "options over the kernel command line"
# The other spelling of a parameter ('-' for '_').
echo "ro clockfix.not-after=2046-01-01 clockfix.journal-budget=0" >"$TMP/cmdline2"
cf status --json --config /dev/null --boot --cmdline "$TMP/cmdline2" --device "$TMP/a.img" --now 2000-01-01 \
        --not-before 2026-01-01
assert_eq "$(jqo '[.not_after, .devices[0].journal] | map(tostring) | join(" ")')" "2398377600 null" \
        "clockfix.not-after= and clockfix.journal-budget="

# Bad lines: one warning each, naming the file and line; the rest applies; exit 0.
cat >"$TMP/bad.conf" <<CONF
margin = soon
not-after = tomorrow
colour = blue
just some words
journal-budget = -1
stamps = perhaps
ntp-unit = chrony service
device = $TMP/a.img
not-before = 2026-01-01
CONF
cf status --json --config "$TMP/bad.conf" --now 2000-01-01
assert_eq "$RC" 0 "bad file: exit"
assert_eq "$(wc -l <<<"$ERR")" 7 "bad file: one warning per bad line"
assert_match "$ERR" "Ignoring $TMP/bad.conf:1: margin = soon: not a number of seconds" "bad margin"
assert_match "$ERR" "Ignoring $TMP/bad.conf:2: not-after = tomorrow: not a time" "bad not-after"
assert_match "$ERR" "Ignoring $TMP/bad.conf:3: colour = blue: unknown setting" "unknown setting"
assert_match "$ERR" "$TMP/bad.conf:4: ignoring \"just some words\": not \"key = value\"" "not a setting"
assert_match "$ERR" "Ignoring $TMP/bad.conf:5: journal-budget = -1: not a number of reads" "bad budget"
assert_match "$ERR" "Ignoring $TMP/bad.conf:6: stamps = perhaps: not yes or no" "bad boolean"
assert_match "$ERR" "Ignoring $TMP/bad.conf:7: ntp-unit = chrony service: not a unit name" "bad unit"
assert_eq "$(jqo '[.margin_usec, .estimate] | map(tostring) | join(" ")')" "1000000 1800000000" \
        "bad file: defaults kept, good lines applied"

# A margin or a wait beyond its bound is a bad value like any other: warned about (file and line, or
# the parameter), the default kept. Unbounded, margin = 1000000000 set the clock 31 years ahead,
# past not-after; clockfix.margin=86400 a day ahead at every boot, each boot's clock written to the
# disk for the next to add a day to; wait = 1000000000 held the boot up for good on a device that
# never appears.
printf 'margin = 1000000000\nnot-before = 2026-01-01\n' >"$TMP/margin.conf"
cf set --dry-run --config "$TMP/margin.conf" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$RC" 0 "margin = 1000000000: exit"
assert_eq "$ERR" "<4>clockfix: Ignoring $TMP/margin.conf:1: margin = 1000000000: above 3600 s (at most an hour past the disk's last write)
<5>clockfix: Would move clock forward from 2000-01-01T00:00:00Z to 2027-01-15T08:00:01Z (+853315201 s) from superblock:last_write of $TMP/a.img; --dry-run: not changed" \
        "margin = 1000000000: one warning naming the line, the default margin used"
cf status --json --config "$TMP/margin.conf" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$(jqo '[.margin_usec, .target] | map(tostring) | join(" ")')" "1000000 1800000001" \
        "margin = 1000000000: the default kept"
printf 'margin = 3600\nnot-before = 2026-01-01\n' >"$TMP/hour.conf"
cf status --json --config "$TMP/hour.conf" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$RC:$ERR:$(jqo .target)" "0::1800003600" "margin = 3600: the bound itself is taken"
echo "clockfix.margin=86400 clockfix.not_before=2026-01-01" >"$TMP/day.cmdline"
cf status --json --config /dev/null --boot --cmdline "$TMP/day.cmdline" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$RC" 0 "clockfix.margin=86400: exit"
assert_eq "$ERR" "<4>clockfix: Ignoring clockfix.margin=86400: above 3600 s (at most an hour past the disk's last write)" \
        "clockfix.margin=86400: one warning naming the parameter"
assert_eq "$(jqo '[.margin_usec, .target] | map(tostring) | join(" ")')" "1000000 1800000001" \
        "clockfix.margin=86400: the default kept"
# Over the kernel's margin, the file's stands: the kernel's value is ignored, not the setting.
cf status --json --config "$TMP/hour.conf" --boot --cmdline "$TMP/day.cmdline" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$(jqo .margin_usec)" 3600000000 "clockfix.margin=86400 over margin = 3600: the file's kept"
# A device that never appears: the wait refused, the run ends (a hang would meet meson's timeout)
# and says why, from the file and from the kernel command line.
printf 'wait = 1000000000\n' >"$TMP/wait.conf"
cf set --dry-run --config "$TMP/wait.conf" --device "LABEL=cfx-never-$$" --not-before 2026-01-01
assert_eq "$RC" 3 "wait = 1000000000, a device that never appears: exit"
assert_match "$ERR" "^<4>clockfix: Ignoring $TMP/wait.conf:1: wait = 1000000000: above 300 s \(no boot waits that long for its root\)$" \
        "wait = 1000000000: the bound named"
echo "clockfix.wait=1000000000" >"$TMP/wait.cmdline"
cf set --dry-run --config /dev/null --boot --cmdline "$TMP/wait.cmdline" --device "LABEL=cfx-never-$$" \
        --not-before 2026-01-01
assert_eq "$RC" 3 "clockfix.wait=1000000000, a device that never appears: exit"
assert_match "$ERR" "^<4>clockfix: Ignoring clockfix.wait=1000000000: above 300 s \(no boot waits that long for its root\)$" \
        "clockfix.wait=1000000000: the bound named"
printf 'wait = 300\n' >"$TMP/wait300.conf"
cf status --json --config "$TMP/wait300.conf" --device "$TMP/a.img" --not-before 2026-01-01
assert_eq "$RC:$ERR" "0:" "wait = 300: the bound itself is taken"

# A policy that does not hold together: an error from the options; from the file or the kernel
# command line, a warning naming where each value came from, and the weakest origin's values give
# way to their defaults, whatever the options say about other settings.
printf 'not-after = 2020-01-01\nmargin = 5\n' >"$TMP/policy.conf"
for opts in "" "--margin 2" "--wait 1 --margin 3"; do
        # shellcheck disable=SC2086 # words on purpose
        cf status --json --config "$TMP/policy.conf" --device "$TMP/a.img" --now 2000-01-01 $opts
        assert_eq "$RC" 0 "not-after before the floor, from the file, options '$opts': exit"
        assert_eq "$ERR" "<4>clockfix: not-after 2020-01-01T00:00:00Z ($TMP/policy.conf:1) is before the floor $(date -u -d "@$(jqo .floor)" +%FT%TZ) (build time): ignoring not-after ($TMP/policy.conf:1); defaults used instead" \
                "from the file, options '$opts': one warning naming the file's line"
        assert_eq "$(jqo .not_after)" "$(($(jqo .floor) + 10957 * 86400))" "from the file: the default not-after (30 years)"
done
assert_eq "$(jqo .margin_usec)" 3000000 "the option's margin kept"
cf status --json --config "$TMP/policy.conf" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$(jqo .margin_usec)" 5000000 "the file's margin kept: it was not in the conflict"
# The kernel command line wins over the file: the file's not-after gives way to its not-before.
echo "clockfix.not_before=2031-01-01" >"$TMP/nb.cmdline"
cf status --json --boot --cmdline "$TMP/nb.cmdline" --config "$TMP/policy.conf" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$RC" 0 "not-before of the kernel, not-after of the file: exit"
assert_match "$ERR" "^<4>clockfix: not-after 2020-01-01T00:00:00Z \($TMP/policy.conf:1\) is before the floor 2031-01-01T00:00:00Z \(clockfix.not_before=\): ignoring not-after \($TMP/policy.conf:1\); defaults used instead$" \
        "not-before of the kernel, not-after of the file: message"
assert_eq "$(jqo '[.floor, .floor_source] | @tsv')" "$(printf '%s\tclockfix.not_before=' "$(date -u -d 2031-01-01 +%s)")" \
        "the kernel's not-before kept, and named"
# Both from the file: both give way.
printf 'not-after = 2020-01-01\nnot-before = 2021-01-01\n' >"$TMP/both.conf"
cf status --json --config "$TMP/both.conf" --device "$TMP/a.img" --now 2000-01-01
assert_eq "$RC" 0 "not-before and not-after of the file: exit"
assert_match "$ERR" "ignoring not-before \($TMP/both.conf:2\) and not-after \($TMP/both.conf:1\); defaults used instead$" \
        "not-before and not-after of the file: both named"
assert_eq "$(jqo .floor_source)" "build time" "not-before and not-after of the file: the build floor"
cf status --json --config "$TMP/both.conf" --device "$TMP/a.img" --now 2000-01-01 --not-before 2022-01-01
assert_eq "$(jqo .floor_source)" "--not-before" "the option's not-before, the file's not-after ignored"
# The options alone: a usage error, the file's values not in question.
cf status --config "$TMP/policy.conf" --device "$TMP/a.img" --not-after 2020-01-01
assert_eq "$RC" 2 "not-after before the floor, from the options: exit"
assert_match "$ERR" "^<3>clockfix: not-after 2020-01-01T00:00:00Z \(--not-after\) is before the floor" \
        "from the options: error naming the option"
cf daemon --dry-run --config /dev/null --device "$TMP/a.img" --save-interval 0.5
assert_eq "$RC" 2 "--save-interval 0.5: exit"
assert_match "$ERR" "save-interval: below 1 s \(0: never\) \"0.5\"" "--save-interval 0.5: message"

# A file named with --config must be there; the same errors on the command line are usage errors.
cf status --config "$TMP/missing.conf" --device "$TMP/a.img"
assert_eq "$RC" 2 "missing --config: exit"
assert_match "$ERR" "^<3>clockfix: Cannot read the configuration $TMP/missing.conf: No such file or directory$" \
        "missing --config: message"
cf status --config "$TMP" --device "$TMP/a.img"
assert_eq "$RC" 2 "--config of a directory: exit"
for opt in "--stay" "--ntp-unit=chrony.service" "--save-interval=1" "--timeout=5"; do
        cf set --dry-run --device "$TMP/a.img" "$opt"
        assert_eq "$RC" 2 "set $opt: exit"
        assert_match "$ERR" "^<3>clockfix: ${opt%%=*} applies to daemon only$" "set $opt: message"
done
cf daemon --ntp-unit "chrony service" --device "$TMP/a.img"
assert_eq "$RC" 2 "--ntp-unit with a space: exit"
assert_match "$ERR" "--ntp-unit: not a unit name \"chrony service\"" "--ntp-unit with a space: message"

# The help names every setting, and the default file.
cf --help
for s in --config --ntp-unit --save-interval --timeout --stay daemon; do
        assert_match "$OUT" -- "$s" "--help mentions $s"
done
echo ok
