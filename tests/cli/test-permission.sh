#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Least privilege: status needs only read access to the device; set without CAP_SYS_TIME fails
# with its own exit status (4) and a clear line, and the clock does not move. Runs clockfix as
# the user nobody with every capability dropped, so the kernel itself refuses the change.
. "$SRCDIR/tests/lib.sh"

[ "$(id -u)" == 0 ] || fail "needs root to switch to the user nobody (CI runs as root)"
caps=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs \
        sh -c 'id -u; sed -n "s/^CapEff:\t//p" /proc/self/status')
assert_eq "$caps" "$(printf '65534\n0000000000000000')" "the unprivileged user has no capabilities"

# Times well after today, so that set has something to do.
img=$TMP/root.img
mkimg "$img" 1900000000 16M -t ext4 # 2030-03-17T17:46:40Z
before=$(date +%s)

AS_USER=1 cf status --json --device "$img" --not-before 2026-01-01
assert_eq "$RC" 0 "status as nobody: exit"
assert_eq "$(jqo '[.action, .estimate] | @tsv')" "$(printf 'set\t1900000000')" "status as nobody: decision"

AS_USER=1 cf set --dry-run --device "$img" --not-before 2026-01-01
assert_eq "$RC" 0 "set --dry-run as nobody: exit"
assert_match "$ERR" "Would move clock forward .* to 2030-03-17T17:46:41Z" "set --dry-run as nobody"

AS_USER=1 cf set --device "$img" --not-before 2026-01-01
assert_eq "$RC" 4 "set as nobody: exit"
assert_eq "$(wc -l <<<"$ERR")" 1 "set as nobody: one line"
assert_match "$ERR" "^<3>clockfix: Cannot set the clock: permission denied \(needs CAP_SYS_TIME: run as root\); clock left at 20" "set as nobody: message"
after=$(date +%s)
[ $((after - before)) -ge 0 ] && [ $((after - before)) -lt 60 ] || fail "the clock moved: $before -> $after"
[ "$after" -lt 1900000000 ] || fail "the clock was set to the disk's time"

# A device this user cannot read: permission denied, named, exit 3.
chmod 600 "$img"
AS_USER=1 cf status --device "$img" --not-before 2026-01-01
assert_eq "$RC" 3 "unreadable: exit"
assert_eq "$ERR" "<3>clockfix: $img: permission denied (run as root, or give this user read access to it)" "unreadable: message"
echo ok
