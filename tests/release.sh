#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/release.sh CODENAME: clockfix built and tested on another Debian release (trixie: Debian
# 13) on this one, in a chroot of it. As root:
# - the chroot: a minbase root of CODENAME debootstrapped from this machine's Debian archive into
#   build-release/CODENAME/root, the first time (then kept: what the tests install there stays);
# - the tracked and new files of this tree copied in (/root/clockfix), and run there, in mount and
#   PID namespaces of their own (every process the stage starts ends with it), with /proc, /sys,
#   /dev and a fresh /run: `tests/release.sh --inside`, which installs that release's packages
#   (tests/lib/deps.sh) and runs, each a stage whatever became of the others:
#   - gcc, warnings as errors, in build-test/, and the unit, image, cli and lint suites;
#   - clang, warnings as errors, in build-clang/, and the unit and image suites;
#   - vm-systemd, a whole systemd boot of a root of that release with its own kernel, the
#     initramfs made by its mkinitramfs with clockfix's hook (VM_DEBIAN_INITRD=initramfs-tools),
#     the RTC at 2000, then a power cut; its guest roots and kernel cached in the chroot;
#   - the cross build for armhf against that release's libraries, its unit and image suites
#     under qemu-user (tests/cross.sh armhf);
#   - the Debian package built, linted, installed and purged in the chroot (tests/deb.sh).
# A summary gives each stage's result and time; the exit status is non-zero if any failed.
# Called by tests/run.sh as its stage "Debian 13".
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" == --inside ]; then
        # The PID namespace's first process: a signal it takes by default is ignored, so it says.
        trap 'exit 143' TERM
        trap 'exit 130' INT
        . tests/lib/deps.sh
        . tests/lib/stages.sh
        install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" crossbuild-essential-armhf qemu-user-static \
                qemu-system-arm debhelper dpkg-dev lintian git
        gcc_build() { setup build-test && meson compile -C build-test; }
        stage "$DEBIAN_CODENAME: build (gcc $(gcc -dumpversion))" gcc_build
        stage "$DEBIAN_CODENAME: unit, image, cli, lint" \
                meson test -C build-test --print-errorlogs --no-rebuild --suite unit --suite image --suite cli --suite lint \
                        --num-processes "$WAITING_JOBS"
        clang_build() { CC=clang setup build-clang && meson compile -C build-clang; }
        stage "$DEBIAN_CODENAME: build (clang $(clang -dumpversion))" clang_build
        stage "$DEBIAN_CODENAME: clang: unit and image" \
                meson test -C build-clang --print-errorlogs --no-rebuild --suite unit --suite image \
                        --num-processes "$WAITING_JOBS"
        # The guests' roots and kernel outlive this copy of the tree: in the chroot's own cache.
        vm_systemd() {
                mkdir -p /var/cache/clockfix-vm build-test
                ln -sfn /var/cache/clockfix-vm build-test/vm-cache
                VM_DEBIAN_INITRD=initramfs-tools meson test -C build-test --print-errorlogs --no-rebuild vm-systemd
        }
        stage "$DEBIAN_CODENAME: vm-systemd, initramfs-tools" vm_systemd
        stage "$DEBIAN_CODENAME: armhf, unit and image" env MESON_TESTTHREADS="$WAITING_JOBS" \
                bash tests/cross.sh armhf --suite unit --suite image
        stage "$DEBIAN_CODENAME: Debian package" bash tests/deb.sh
        summary "$DEBIAN_CODENAME: summary"
        [ "$STAGES_FAILED" -eq 0 ]
        exit
fi

[ $# -eq 1 ] || { echo "usage: $0 CODENAME (trixie)" >&2; exit 2; }
release=$1
. tests/lib/lib-base.sh
. tests/vm/debian.sh
[ "$(id -u)" == 0 ] || fail "a chroot needs root (CI runs as root)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
dir=build-release/$release
root=$(realpath -m "$dir/root")
# What the root is made of: a root made by another recipe is made again.
recipe="$release minbase, main and $release-updates, recipe 1"
mkdir -p "$dir"
exec {lock}>"$dir/lock"
flock "$lock"
if [ "$(cat "$dir/root.ok" 2>/dev/null)" != "$recipe" ]; then
        ! awk -v w="$root" '$5 == w || index($5, w "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo ||
                fail "something is mounted under $root: unmount it"
        rm -rf "$root" "$dir/root.ok"
        # The archive this machine's apt uses, which serves every release.
        vm_debian_mirror
        echo "debootstrap of $release from $DEBIAN_MIRROR into $root"
        started=$(date +%s)
        unshare -m --propagation private debootstrap --variant=minbase "$release" "$root" "$DEBIAN_MIRROR" \
                >"$dir/debootstrap.log" 2>&1 || {
                tail -n 20 "$dir/debootstrap.log" >&2
                fail "debootstrap of $release failed (see $dir/debootstrap.log)"
        }
        printf 'deb %s %s main\ndeb %s %s-updates main\n' "$DEBIAN_MIRROR" "$release" "$DEBIAN_MIRROR" "$release" \
                >"$root/etc/apt/sources.list"
        # apt's proxy, as this machine's (vm_debian_mirror exported it)
        [ -z "${http_proxy:-}" ] || printf 'Acquire::http::Proxy "%s";\n' "$http_proxy" >"$root/etc/apt/apt.conf.d/90proxy"
        echo "$release root made in $(($(date +%s) - started)) s"
        echo "$recipe" >"$dir/root.ok"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -rf "$root/root/clockfix" "${root:?}"/tmp/* "${root:?}"/tmp/.[!.]* 2>/dev/null || true
mkdir -p "$root/root/clockfix"
git ls-files -co --exclude-standard | grep -v -e '^build' -e '^debian/\.' | tar -cf - -T - | tar -xf - -C "$root/root/clockfix"
# The root a mount point of its own (unshare's --propagation private inside needs one), the
# kernel's filesystems, this machine's /dev (loop devices, /dev/net/tun), a /run and /dev/shm of
# the stage's own; a clean environment but for CI and a proxy. (The lock stays held, by the
# stage's processes; whatever they leave running is killed with them.)
exec unshare --kill-child -m -p -f --propagation private /bin/bash -c '
        set -e
        root=$1
        mount --bind "$root" "$root"
        mount -t proc proc "$root/proc"
        mount -t sysfs sysfs "$root/sys"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/dev/shm"
        mount -t tmpfs tmpfs "$root/run"
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
                HOME=/root LANG=C.UTF-8 CI="${CI:-}" ${http_proxy:+http_proxy=$http_proxy} \
                ${https_proxy:+https_proxy=$https_proxy} /bin/bash -c "cd /root/clockfix && exec bash tests/release.sh --inside"
' sh "$root"
