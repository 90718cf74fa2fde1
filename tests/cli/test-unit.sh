#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd unit as built: systemd-analyze verify accepts it without a single warning, and it
# is ordered where DESIGN.md says: before time-set.target and before the root filesystem is
# checked or remounted read-write, pulling in time-set.target, never claiming time-sync.target.
. "$SRCDIR/tests/lib.sh"

unit=$BUILDDIR/systemd/clockfix.service
[ -f "$unit" ] || fail "no $unit"
# verify checks that ExecStart= exists: point it at the binary just built.
mkdir "$TMP/units"
sed "s|^ExecStart=[^ ]*clockfix|ExecStart=$CLOCKFIX|" "$unit" >"$TMP/units/clockfix.service"
grep -q "^ExecStart=$CLOCKFIX set$" "$TMP/units/clockfix.service" || fail "ExecStart= not as expected"

out=$(systemd-analyze verify "$TMP/units/clockfix.service" 2>&1) || fail "systemd-analyze verify failed: $out"
assert_eq "$out" "" "systemd-analyze verify says nothing"

prop() { sed -n "s/^$1=//p" "$unit"; }
assert_eq "$(prop DefaultDependencies)" no "DefaultDependencies"
for u in time-set.target sysinit.target systemd-fsck-root.service systemd-remount-fs.service; do
        assert_match " $(prop Before) " " $u " "Before=$u"
done
assert_eq "$(prop Wants)" time-set.target "Wants"
assert_eq "$(prop Conflicts)" shutdown.target "Conflicts"
assert_eq "$(prop WantedBy)" sysinit.target "WantedBy"
if grep -v "^#" "$unit" | grep -q time-sync.target; then fail "the unit must not order itself against time-sync.target"; fi
assert_match "$(prop ExecStart)" "^/.*/clockfix set$" "ExecStart"
echo ok
