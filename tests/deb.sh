#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian package: built with dpkg-buildpackage -us -uc -b from a copy of this tree (its
# tracked and new files), checked by lintian (no error, no warning, no override left unused),
# installed with apt-get install ./clockfix_*.deb, run (--version, status), and purged, which must
# leave nothing behind. As root, on Debian 12 or 13; changes this machine's packages, so
# tests/run.sh runs it last.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/deps.sh
# (BUILD_PACKAGES holds systemd.pc's package, whose unit directory the package's units go to and
# this test looks in; build-essential, which dpkg-buildpackage requires)
install_packages "${BUILD_PACKAGES[@]}" build-essential debhelper dpkg-dev lintian e2fsprogs jq man-db git
. tests/lib/lib-base.sh
[ "$(id -u)" == 0 ] || fail "needs root to install the package"

tmp_dir /tmp/clockfix-deb.XXXXXX
# Whatever happens, the package does not stay on this machine.
at_exit 'DEBIAN_FRONTEND=noninteractive apt-get purge -y clockfix >/dev/null 2>&1 || true'
mkdir "$TMP/clockfix"
# (the tree's tracked and new files; a copy without git, as tests/release.sh makes, whole)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -co --exclude-standard
else
        find . \( -type f -o -type l \) -printf '%P\n'
fi | grep -v -e '^build' -e '^debian/\.' -e '^\.git/' | tar -cf - -T - | tar -xf - -C "$TMP/clockfix"
(cd "$TMP/clockfix" && dpkg-buildpackage -us -uc -b) >"$TMP/build.log" 2>&1 || { tail -n 40 "$TMP/build.log"; fail "dpkg-buildpackage"; }
deb=$(cd "$TMP" && ls clockfix_*_*.deb)
echo "built $deb ($(stat -c %s "$TMP/$deb") bytes)"

# lintian: errors and warnings fail; the report is printed whatever it says. An override that no
# longer silences anything (the tag fixed, renamed or gone in this release's lintian) fails too,
# though lintian itself only informs of it.
lintian --fail-on error,warning --info --display-info "$TMP"/clockfix_*.changes | tee "$TMP/lintian.log" ||
        fail "lintian"
grep -E '^[EWI]: .*(unused|mismatched)-override' "$TMP/lintian.log" && fail "lintian: an override is stale"

# The units in the release's unit directory, nowhere else (not in /lib on Debian 13, where /lib
# is an alias of /usr/lib).
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
[ -n "$unitdir" ] || fail "pkg-config names no systemd unit directory"
dpkg-deb -c "$TMP/$deb" | awk '{ print substr($6, 2) }' >"$TMP/contents"
for u in clockfix.service clockfix-stamp.service clockfix-learn.service; do
        grep -qx "$unitdir/$u" "$TMP/contents" || fail "$u is not in $unitdir"
done
elsewhere=$(grep '/systemd/system/.' "$TMP/contents" | grep -v "^$unitdir/") && fail "units elsewhere: $elsewhere"

# What it holds, as debhelper made it: the trigger that rebuilds the initramfs images, the
# unit enabled on installation, the init script registered, the stamp file removed on purge.
dpkg-deb -e "$TMP/$deb" "$TMP/control"
grep -qx 'activate-noawait update-initramfs' "$TMP/control/triggers" || fail "no update-initramfs trigger"
grep -q "deb-systemd-helper enable 'clockfix.service'" "$TMP/control/postinst" || fail "the unit is not enabled"
grep -qx /etc/clockfix.conf "$TMP/control/conffiles" || fail "/etc/clockfix.conf is not a conffile"
# The LSB init script for sysvinit (Devuan): a conffile, registered with update-rc.d (skipped
# where clockfix.service stands for it), not started on installation.
grep -qx /etc/init.d/clockfix "$TMP/control/conffiles" || fail "/etc/init.d/clockfix is not a conffile"
grep -q "update-rc.d clockfix defaults" "$TMP/control/postinst" || fail "the init script is not registered"
grep -q "invoke-rc.d.* clockfix start" "$TMP/control/postinst" && fail "the init script is started on installation"

(cd "$TMP" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb") >"$TMP/install.log" 2>&1 ||
        { cat "$TMP/install.log"; fail "apt-get install ./$deb"; }
clockfix --version
[ "$(command -v clockfix)" == /usr/sbin/clockfix ] || fail "clockfix is $(command -v clockfix)"
clockfix --version | grep -q '^clockfix 0\.1\.0' || fail "--version: $(clockfix --version)"
# status on this machine: its root is whatever CI gives (often an overlay: exit 3, nothing
# usable), and the report must come whole; on an image, the superblock's time.
rc=0
clockfix status >"$TMP/status" 2>&1 || rc=$?
cat "$TMP/status"
[ $rc == 0 ] || [ $rc == 3 ] || fail "clockfix status: exit $rc"
grep -q '^Clock now: ' "$TMP/status" || fail "clockfix status: no report"
E2FSPROGS_FAKE_TIME=1800000000 mke2fs -q -F -t ext4 "$TMP/disk.img" 16M
out=$(clockfix status --json --device "$TMP/disk.img" --not-before 2026-01-01)
[ "$(jq -r '[.source, .estimate] | @tsv' <<<"$out")" == "$(printf 'superblock:last_write\t1800000000')" ] ||
        fail "clockfix status on an image: $out"
[ -L /etc/systemd/system/sysinit.target.wants/clockfix.service ] || fail "clockfix.service is not enabled"
[ -x /usr/share/initramfs-tools/hooks/clockfix ] || fail "no initramfs-tools hook"
[ -x /etc/init.d/clockfix ] || fail "no /etc/init.d/clockfix"
[ -x /usr/lib/dracut/modules.d/90clockfix/module-setup.sh ] || fail "no dracut module"
[ -d /var/lib/clockfix ] || fail "no /var/lib/clockfix"
[ -f "$unitdir/clockfix.service" ] || fail "no $unitdir/clockfix.service"
[ "$(man -w clockfix)" == /usr/share/man/man8/clockfix.8.gz ] || fail "man -w clockfix: $(man -w clockfix)"
[ "$(man -w 5 clockfix.conf)" == /usr/share/man/man5/clockfix.conf.5.gz ] || fail "man -w 5 clockfix.conf"
touch /var/lib/clockfix/clock
dpkg -L clockfix >"$TMP/installed"

# dpkg warns of what it could not remove (a directory not empty, one it took for the package's
# alone): nothing of the kind.
DEBIAN_FRONTEND=noninteractive apt-get purge -y clockfix >"$TMP/purge.log" 2>&1 || { cat "$TMP/purge.log"; fail "purge"; }
grep -E '^dpkg: warning' "$TMP/purge.log" && fail "purge: dpkg warned"
dpkg-query -W clockfix >/dev/null 2>&1 && fail "clockfix is still known to dpkg: $(dpkg-query -W -f='${Status}' clockfix)"
for f in /usr/sbin/clockfix /etc/clockfix.conf /etc/init.d/clockfix /var/lib/clockfix /etc/systemd/system/sysinit.target.wants/clockfix.service \
        /usr/share/initramfs-tools/hooks/clockfix /var/lib/systemd/deb-systemd-helper-enabled/clockfix.service.dsh-also \
        /var/lib/systemd/deb-systemd-helper-enabled/sysinit.target.wants/clockfix.service; do
        [ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f is left after purge"
done
# No unit, nor a link to one, in any directory systemd loads units from (those this machine has).
left=$({ find /etc/systemd/system /run/systemd/system /lib/systemd/system /usr/lib/systemd/system "$unitdir" \
        -name 'clockfix*' 2>/dev/null || true; } | sort -u)
[ -z "$left" ] || fail "units left after purge: $left"
# Whatever the package installed is gone, but for the directories other packages hold too (/lib
# among them, the link to usr/lib of a merged /usr; and dpkg's /. for the root).
while read -r f; do
        [ "$f" != /. ] || continue
        [ -e "$f" ] || [ -L "$f" ] || continue
        [ -d "$f" ] && dpkg -S "$f" >/dev/null 2>&1 && continue
        fail "$f is left after purge"
done <"$TMP/installed"
echo "ok: $deb built, lintian clean, installed, ran, purged"
