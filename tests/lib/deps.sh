# SPDX-License-Identifier: LGPL-2.1-or-later
# deps.sh: the Debian packages clockfix needs on this machine's release (Debian 12 "bookworm" or
# Debian 13 "trixie", from /etc/os-release), and a function that installs the missing ones.
# Sourced by tests/demo.sh, tests/run.sh, tests/cross.sh, tests/deb.sh, tests/release.sh and
# tests/lint/test-readme.sh.

# The release: DEBIAN_CODENAME, unless set (in a chroot, tests/release.sh, the chroot's own).
DEBIAN_CODENAME=${DEBIAN_CODENAME:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
# What differs between the releases: clang's version, whose sanitizer and libFuzzer runtimes the
# fuzz targets link; the libraries renamed for the 64-bit time_t (t64); systemd.pc, which moved
# from systemd to systemd-dev in Debian 13.
case "$DEBIAN_CODENAME" in
bookworm) DEPS_CLANG=14 DEPS_T64="" DEPS_SYSTEMD_PC=systemd ;;
trixie) DEPS_CLANG=19 DEPS_T64=t64 DEPS_SYSTEMD_PC=systemd-dev ;;
*)
        echo "tests/lib/deps.sh: Debian '${DEBIAN_CODENAME:-?}' (/etc/os-release) is not a release these tests know" \
                "(bookworm, trixie): add its package names to tests/lib/deps.sh" >&2
        return 1 2>/dev/null || exit 1
        ;;
esac

BUILD_PACKAGES=(meson ninja-build gcc pkg-config libext2fs-dev comerr-dev libsystemd-dev libblkid-dev "$DEPS_SYSTEMD_PC")
# What the demo and the tests run: mke2fs/debugfs/dumpe2fs, mkfs.vfat, sfdisk, partx/setpriv/
# mkswap (util-linux), losetup/mount/umount (mount), script (bsdutils), jq, strace,
# systemd-analyze, clang-format, ip (network namespaces for the daemon), pgrep and ps (procps); for
# the VM tests: QEMU, busybox, the two initramfs generators (dracut-core, not dracut, which would replace
# initramfs-tools), cpio, zstd, kmod (depmod), debootstrap (the root of the systemd guest); clang
# for a build of its own (tests/run.sh), and with its sanitizer and libFuzzer runtimes for the
# fuzz targets; man (man-db, with groff) for the man pages; shellcheck and checkbashisms (devscripts,
# without its recommends) for the init scripts; for the tests' NTP server, the libraries of
# Debian's chronyd, which the tests only unpack (installing chrony would start a daemon that
# disciplines this machine's clock); dpkg-dev (dpkg-source) and make, to build busybox's ntpd
# from Debian's source package; cryptsetup-bin, whose cryptsetup the hook of Debian's overlayroot
# (unpacked by vm-layout, never installed) copies into the initramfs it is built into.
TEST_PACKAGES=(e2fsprogs dosfstools fdisk util-linux mount bsdutils jq strace systemd clang-format iproute2 procps
        qemu-system-x86 busybox-static initramfs-tools-core dracut-core cpio zstd kmod debootstrap
        clang "libclang-rt-$DEPS_CLANG-dev" man-db shellcheck devscripts
        libcap2 libedit2 "libgnutls30$DEPS_T64" "libnettle8$DEPS_T64" libseccomp2 dpkg-dev make cryptsetup-bin)

# For the builds for boards (tests/cross.sh): the cross compilers, qemu-user to run the tests of
# the target's programs, qemu-system-arm for the ARM guests (qemu-system-aarch64 too).
CROSS_PACKAGES=(crossbuild-essential-armhf crossbuild-essential-arm64 qemu-user-static qemu-system-arm)

# install_packages PACKAGE...: apt-get installs those not installed yet (needs root for that).
install_packages() {
        local missing=() p
        for p in "$@"; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
        done
        [ ${#missing[@]} -eq 0 ] && return 0
        if [ "$(id -u)" != 0 ]; then
                echo "Missing packages: ${missing[*]}. Run as root, or: sudo apt-get install ${missing[*]}" >&2
                return 1
        fi
        echo "Installing ${missing[*]}"
        # One index that fails (a mirror syncing one architecture's security suite, which
        # cross/sysroot.sh adds to dpkg) leaves the rest usable: apt-get install says if what it
        # needs is missing.
        apt-get update || echo "apt-get update reported errors; installing from the lists it has" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}
