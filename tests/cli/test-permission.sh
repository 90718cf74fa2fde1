#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Least privilege: status needs only read access to the device; set without CAP_SYS_TIME fails
# with its own exit status (4) and a clear line, and the clock does not move. Runs clockfix as
# the user nobody with every capability dropped, so the kernel itself refuses the change.
. "$SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to switch to the user nobody (CI runs as root)"
caps=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs \
        sh -c 'id -u; sed -n "s/^CapEff:\t//p" /proc/self/status')
assert_eq "$caps" "$(printf '65534\n0000000000000000')" "the unprivileged user has no capabilities"

# Times a year after today, so that set has something to do.
now=$(date +%s)
ahead=$((now + 365 * 86400))
img=$TMP/root.img
mkimg "$img" $ahead 16M -t ext4
iso() { date -u -d "@$1" +%FT%TZ; }

AS_USER=1 cf status --json --device "$img" --not-before 2026-01-01
assert_eq "$RC" 0 "status as nobody: exit"
assert_eq "$(jqo .estimate)" $ahead "status as nobody: estimate"
synchronized=$(jqo .ntp_synchronized)

if [ "$synchronized" == true ]; then
        # This host's clock is kept by NTP, and clockfix leaves such a clock alone: there is no
        # attempt for the kernel to refuse. Check that instead; unsynchronised hosts (CI, and any
        # machine without a working NTP client) check the refusal.
        echo "the host clock is synchronised by NTP: checking that set leaves it alone"
        AS_USER=1 cf set --device "$img" --not-before 2026-01-01
        assert_eq "$RC" 0 "set as nobody, synchronised clock: exit"
        assert_match "$ERR" "is synchronized by NTP: left alone" "set as nobody, synchronised clock: line"
else
        assert_eq "$(jqo .action)" set "status as nobody: action"
        AS_USER=1 cf set --dry-run --device "$img" --not-before 2026-01-01
        assert_eq "$RC" 0 "set --dry-run as nobody: exit"
        assert_match "$ERR" "Would move clock forward .* to $(iso $((ahead + 1)))" "set --dry-run as nobody"

        AS_USER=1 cf set --device "$img" --not-before 2026-01-01
        assert_eq "$RC" 4 "set as nobody: exit"
        assert_eq "$(wc -l <<<"$ERR")" 1 "set as nobody: one line"
        assert_match "$ERR" "^<3>clockfix: Cannot set the clock: permission denied \(needs CAP_SYS_TIME: run as root\); clock left at 20" "set as nobody: message"

        # Root without CAP_SYS_TIME alone (as in a unit with CapabilityBoundingSet=~CAP_SYS_TIME):
        # status works, set is refused the same way. First make sure setpriv did drop it.
        NOTIME=(setpriv --inh-caps=-sys_time --bounding-set=-sys_time)
        capeff=$("${NOTIME[@]}" sh -c 'sed -n "s/^CapEff:\t//p" /proc/self/status')
        [ $(((16#$capeff >> 25) & 1)) == 0 ] || fail "setpriv left CAP_SYS_TIME in $capeff"
        [ "$capeff" != 0000000000000000 ] || fail "setpriv dropped every capability, not CAP_SYS_TIME alone"
        rc=0
        "${NOTIME[@]}" "$CLOCKFIX" status --device "$img" --not-before 2026-01-01 >/dev/null 2>&1 || rc=$?
        assert_eq "$rc" 0 "status as root without CAP_SYS_TIME: exit"
        rc=0
        "${NOTIME[@]}" "$CLOCKFIX" set --device "$img" --not-before 2026-01-01 2>"$TMP/notime.err" || rc=$?
        assert_eq "$rc" 4 "set as root without CAP_SYS_TIME: exit"
        assert_match "$(cat "$TMP/notime.err")" "needs CAP_SYS_TIME" "set as root without CAP_SYS_TIME: message"
fi
after=$(date +%s)
[ $((after - now)) -ge 0 ] && [ $((after - now)) -lt 60 ] || fail "the clock moved: $now -> $after"

# A device this user cannot read: permission denied, named, exit 3.
chmod 600 "$img"
AS_USER=1 cf status --device "$img" --not-before 2026-01-01
assert_eq "$RC" 3 "unreadable: exit"
assert_eq "$ERR" "<3>clockfix: $img: permission denied (run as root, or give this user read access to it)" "unreadable: message"
# No usable time, a clock before the floor: set would set it to the floor, and says so.
AS_USER=1 cf set --dry-run --device "$img" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$RC" 3 "unreadable, set --dry-run in 2000: exit"
assert_eq "$(tail -n 1 <<<"$ERR")" "<4>clockfix: No time on the disk; the clock would be set to the floor (--not-before), 2026-01-01T00:00:00Z, the earliest it can be (moved forward from 2000-01-01T00:00:00Z, +820540800 s); --dry-run: not changed" \
        "unreadable, set --dry-run in 2000: the floor"
AS_USER=1 cf status --json --device "$img" --not-before 2026-01-01 --now 2000-01-01
assert_eq "$(jqo '[.action, .evidence, .target, .source] | map(tostring) | join(",")')" "set,false,1767225600,build" \
        "unreadable, status in 2000: the floor"

# Root refused too (a sandbox, a container's device policy; here root without the capabilities that
# override file modes, on an image of another user): the message does not tell root to be root.
chown nobody "$img"
rc=0
setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search \
        "$CLOCKFIX" status --device "$img" --not-before 2026-01-01 >/dev/null 2>"$TMP/root.err" || rc=$?
assert_eq "$rc:$(cat "$TMP/root.err")" "3:<3>clockfix: $img: permission denied, to root too (a container or service sandbox that does not let it read the device?)" \
        "unreadable to root: message"
chown root "$img"

# The same for a block device (root:disk, not readable by others): permission denied, not "empty".
attach "$img"
[ "$(stat -c %a "$DEV" | cut -c3)" == 0 ] || fail "$DEV is readable by others"
AS_USER=1 cf status --device "$DEV" --not-before 2026-01-01
assert_eq "$RC" 3 "unreadable device: exit"
assert_eq "$ERR" "<3>clockfix: $DEV: permission denied (run as root, or give this user read access to it)" "unreadable device: message"
echo ok
