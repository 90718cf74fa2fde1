#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd unit as built: systemd-analyze verify accepts it without a single warning, and it
# is ordered where docs/design.md §5 says: before time-set.target and before the root filesystem is
# checked or remounted read-write, pulling in time-set.target, never claiming time-sync.target.
. "$SRCDIR/tests/lib.sh"

unit=$BUILDDIR/systemd/clockfix.service
[ -f "$unit" ] || fail "no $unit"
# verify checks that ExecStart= exists: point it at the binary just built.
mkdir "$TMP/units"
sed "s|^ExecStart=[^ ]*clockfix|ExecStart=$CLOCKFIX|" "$unit" >"$TMP/units/clockfix.service"
grep -q "^ExecStart=$CLOCKFIX daemon --boot$" "$TMP/units/clockfix.service" || fail "ExecStart= not as expected"

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
assert_match "$(prop ExecStart)" "^/.*/clockfix daemon --boot$" "ExecStart"
assert_eq "$(prop Type)" notify "Type: READY=1 once the clock is set"

# The sandbox: systemd's own measure of it, below systemd-timesyncd's 2.3 on Debian 12.
out=$(systemd-analyze security --offline=true --no-pager "$TMP/units/clockfix.service" 2>&1) ||
        fail "systemd-analyze security failed: $out"
score=$(sed -n 's/.*Overall exposure level for clockfix.service: \([0-9.]*\) .*/\1/p' <<<"$out")
[ -n "$score" ] || fail "no exposure level in: $out"
awk -v s="$score" 'BEGIN { exit !(s < 2.3) }' || fail "exposure level $score, not below 2.3"
echo "systemd-analyze security: $score"
assert_eq "$(prop CapabilityBoundingSet)" CAP_SYS_TIME "the one capability"
assert_eq "$(prop RestrictAddressFamilies)" "AF_UNIX AF_NETLINK" "the socket families"

# The unit that touches the stamp for the daemon, whose sandbox keeps / read-only: verified, started
# only by the daemon (no [Install]), after the root is writable, and sandboxed tighter still.
stamp_unit=$BUILDDIR/systemd/clockfix-stamp.service
sed "s|^ExecStart=[^ ]*clockfix|ExecStart=$CLOCKFIX|" "$stamp_unit" >"$TMP/units/clockfix-stamp.service"
out=$(systemd-analyze verify "$TMP/units/clockfix-stamp.service" 2>&1) || fail "verify (stamp unit) failed: $out"
assert_eq "$out" "" "systemd-analyze verify says nothing of the stamp unit"
sprop() { sed -n "s/^$1=//p" "$stamp_unit"; }
assert_match "$(sprop ExecStart)" "^/.*/clockfix stamp$" "stamp unit: ExecStart"
assert_eq "$(sprop After)" systemd-remount-fs.service "stamp unit: After"
assert_eq "$(sprop CapabilityBoundingSet)" "" "stamp unit: no capability"
grep -q '^\[Install\]' "$stamp_unit" && fail "the stamp unit must not be enabled by itself"
grep -q "SAVE_UNIT \"$(basename "$stamp_unit")\"" "$SRCDIR/src/handoff-stamp.c" || fail "the daemon starts another unit"
out=$(systemd-analyze security --offline=true --no-pager "$TMP/units/clockfix-stamp.service" 2>&1)
score=$(sed -n 's/.*Overall exposure level for clockfix-stamp.service: \([0-9.]*\) .*/\1/p' <<<"$out")
awk -v s="$score" 'BEGIN { exit !(s < 1) }' || fail "stamp unit: exposure level $score"
echo "systemd-analyze security (stamp unit): $score"

# The unit that writes the record of times in the future for the daemon: the same, with the block
# devices readable and adjtimex (read only, no capability) allowed, for `clockfix learn`.
learn_unit=$BUILDDIR/systemd/clockfix-learn.service
sed "s|^ExecStart=[^ ]*clockfix|ExecStart=$CLOCKFIX|" "$learn_unit" >"$TMP/units/clockfix-learn.service"
out=$(systemd-analyze verify "$TMP/units/clockfix-learn.service" 2>&1) || fail "verify (learn unit) failed: $out"
assert_eq "$out" "" "systemd-analyze verify says nothing of the learn unit"
lprop() { sed -n "s/^$1=//p" "$learn_unit"; }
assert_match "$(lprop ExecStart)" "^/.*/clockfix learn --boot$" "learn unit: ExecStart"
assert_eq "$(lprop After)" systemd-remount-fs.service "learn unit: After"
assert_eq "$(lprop CapabilityBoundingSet)" "" "learn unit: no capability"
assert_eq "$(lprop DeviceAllow)" "block-* r" "learn unit: block devices, read only"
grep -q '^\[Install\]' "$learn_unit" && fail "the learn unit must not be enabled by itself"
grep -q "LEARN_UNIT \"$(basename "$learn_unit")\"" "$SRCDIR/src/learn.h" || fail "the daemon starts another unit"
out=$(systemd-analyze security --offline=true --no-pager "$TMP/units/clockfix-learn.service" 2>&1)
score=$(sed -n 's/.*Overall exposure level for clockfix-learn.service: \([0-9.]*\) .*/\1/p' <<<"$out")
awk -v s="$score" 'BEGIN { exit !(s < 2) }' || fail "learn unit: exposure level $score"
echo "systemd-analyze security (learn unit): $score"

# dracut's unit for the systemd initrd: after the root device, before it is checked or mounted.
initrd=$SRCDIR/initramfs/dracut/90clockfix/clockfix-initrd.service
sed "s|^ExecStart=[^ ]*clockfix|ExecStart=$CLOCKFIX|" "$initrd" >"$TMP/units/clockfix-initrd.service"
out=$(systemd-analyze verify "$TMP/units/clockfix-initrd.service" 2>&1) || fail "verify (initrd unit) failed: $out"
assert_eq "$out" "" "systemd-analyze verify says nothing of the initrd unit"
iprop() { sed -n "s/^$1=//p" "$initrd"; }
assert_eq "$(iprop DefaultDependencies)" no "initrd: DefaultDependencies"
assert_eq "$(iprop After)" initrd-root-device.target "initrd: After"
for u in systemd-fsck-root.service sysroot.mount initrd-root-fs.target; do
        assert_match " $(iprop Before) " " $u " "initrd: Before=$u"
done
assert_eq "$(iprop ExecStart)" "/usr/sbin/clockfix set --boot --wait 5" "initrd: ExecStart"
echo ok
