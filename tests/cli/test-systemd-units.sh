#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd unit as built: systemd-analyze verify accepts it without a single warning, and it
# is ordered where docs/design.md §5 says: before time-set.target and before the root filesystem is
# checked or remounted read-write, pulling in time-set.target, never claiming time-sync.target.
. "$SRCDIR/tests/lib/lib.sh"

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
for u in time-set.target sysinit.target systemd-fsck-root.service systemd-remount-fs.service local-fs-pre.target; do
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

# helper_unit UNIT COMMAND CONSTANT SOURCE MAX: a unit the daemon starts when its own sandbox keeps /
# read-only, running COMMAND: verified, started only by the daemon (no [Install]; SOURCE names it
# as CONSTANT), after the root is writable, with no capability, and an exposure below MAX.
helper_unit() {
        local unit=$BUILDDIR/systemd/$1 out score
        sed "s|^ExecStart=[^ ]*clockfix|ExecStart=$CLOCKFIX|" "$unit" >"$TMP/units/$1"
        out=$(systemd-analyze verify "$TMP/units/$1" 2>&1) || fail "verify ($1) failed: $out"
        assert_eq "$out" "" "systemd-analyze verify says nothing of $1"
        assert_match "$(uprop "$unit" ExecStart)" "^/.*/clockfix $2$" "$1: ExecStart"
        assert_eq "$(uprop "$unit" After)" systemd-remount-fs.service "$1: After"
        assert_eq "$(uprop "$unit" CapabilityBoundingSet)" "" "$1: no capability"
        grep -q '^\[Install\]' "$unit" && fail "$1 must not be enabled by itself"
        grep -q "$3 \"$1\"" "$SRCDIR/$4" || fail "the daemon starts another unit than $1"
        out=$(systemd-analyze security --offline=true --no-pager "$TMP/units/$1" 2>&1)
        score=$(sed -n "s/.*Overall exposure level for $1: \([0-9.]*\) .*/\1/p" <<<"$out")
        awk -v s="$score" -v m="$5" 'BEGIN { exit !(s < m) }' || fail "$1: exposure level $score"
        echo "systemd-analyze security ($1): $score"
}
uprop() { sed -n "s/^$2=//p" "$1"; }

# The unit that touches the stamp, sandboxed tighter still than clockfix.service.
helper_unit clockfix-stamp.service stamp SAVE_UNIT src/daemon/stamp-keeper.c 1
# The unit that writes the record of times in the future: the same, with the block devices
# readable and adjtimex (read only, no capability) allowed, for `clockfix learn`.
helper_unit clockfix-learn.service "learn --boot" LEARN_UNIT src/daemon/learn.h 2
assert_eq "$(uprop "$BUILDDIR/systemd/clockfix-learn.service" DeviceAllow)" "block-* r" \
        "clockfix-learn.service: block devices, read only"

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
assert_eq "$(iprop ExecStart)" "/usr/sbin/clockfix set --boot --wait 5 --fstab /etc/clockfix/fstab" "initrd: ExecStart"
echo ok
