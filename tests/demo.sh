#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's first command: on a fresh Debian 12 or 13 machine (as root, to install packages),
# builds clockfix in build/, makes the root filesystem of a board that lost power, shows what
# clockfix reads on it, then boots a virtual machine whose clock starts at 2000-01-01 (a dead
# RTC) from that disk, with clockfix in a busybox initramfs, and shows the clock before and after.
# Nothing on this machine is changed: no clock, no disk.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/deps.sh
install_packages "${BUILD_PACKAGES[@]}" e2fsprogs qemu-system-x86 busybox-static cpio kmod

if [ -d build ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
meson compile -C build >/dev/null
cf=build/clockfix

# The sample: the root filesystem of a board that was last booted (mounted) 40 days after this
# clockfix was built, wrote to it every few seconds for five days, and lost power. The kernel
# stamped the superblock's last write time at that mount only; its journal stamped every commit,
# the last one seconds before the power went. (clockfix never trusts a disk to be older than
# itself: its build time is the floor.)
built=$(date -u -d "$("$cf" --version | sed -n 's/.*(built \(.*\))$/\1/p')" +%s)
mounted=$((built + 40 * 86400))
commits=$((5 * 86400 / 5))
written=$((mounted + (commits - 1) * 5))
mkdir -p build/demo
img=build/demo/sample-root.img
E2FSPROGS_FAKE_TIME=$((built - 86400)) mke2fs -q -F -t ext4 -L demo-root "$img" 64M >/dev/null
printf 'ssv mtime @%s\n' "$mounted" | E2FSPROGS_FAKE_TIME=$mounted debugfs -w -f - "$img" >/dev/null 2>&1
# A commit every 5 s (ext4's default), as the kernel writes them; the log's tail 100 commits back.
build/tests/jbd2-write "$img" --txn "$mounted:1:$((commits - 100)):5" --dirty \
        --txn "$((mounted + (commits - 100) * 5)):1:100:5" >/dev/null
echo "Sample root filesystem $img: mounted $(date -u -d "@$mounted" +%FT%TZ)," \
        "power lost $(date -u -d "@$written" +%FT%TZ)"
echo

run() {
        echo "\$ clockfix $*"
        "$cf" "$@" 2>&1 || echo "(exit status $?)"
        echo
}
echo "(--now 2000-01-01: decide as if the clock read 2000-01-01, like a board whose RTC reset)"
echo
run status --device "$img" --now 2000-01-01
run set --dry-run --device "$img" --now 2000-01-01

# The same disk as the root of a virtual machine with a dead RTC (a Debian kernel, downloaded
# once into build/vm-cache and only unpacked; busybox; the static clockfix).
export CLOCKFIX=$PWD/$cf FINGERPRINT=/bin/true SRCDIR=$PWD BUILDDIR=$PWD/build
. tests/lib/lib.sh
. tests/vm/lib.sh
echo "Booting a virtual machine with the RTC at 2000-01-01 and $img as its disk..."
vm_kernel
cp --sparse=always "$img" "$TMP/disk.img"
vm_busybox_initramfs "$TMP/initrd.gz" tests/vm/busybox-init "build/clockfix-static:/clockfix"
vm_boot demo "$TMP/initrd.gz" "$TMP/disk.img" "root=/dev/vda quiet" -rtc base=2000-01-01T00:00:00,clock=vm
[ "$(marker done)" == 1 ] || { vm_dump demo; fail "the virtual machine did not finish booting"; }
echo
echo "  guest clock when the initramfs starts:  $(date -u -d "@$(marker before)" +%FT%TZ)"
grep -a 'clockfix: ' <<<"$CONSOLE" | sed 's/^/  /'
echo "  guest clock after clockfix:             $(date -u -d "@$(marker after)" +%FT%TZ)"
echo "  (the power went at $(date -u -d "@$written" +%FT%TZ); boot took $((BOOT_MS / 1000)) s in emulation)"
