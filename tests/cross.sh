#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/cross.sh ARCH [MESON-TEST-ARG...]: clockfix for a board, built on this machine and tested
# under emulation. ARCH is armhf (a 32-bit time_t on Debian 12, 64-bit from Debian 13 on) or arm64.
# As root, on Debian 12 or 13:
# - the target's libraries into build-cross/sysroot-ARCH (cross/sysroot.sh);
# - build-cross/ARCH (dynamic, with the static variants the tests use) and build-cross/ARCH-static
#   (-Dstatic=true, what an initramfs takes), warnings as errors;
# - the -Dstatic=true build: a static binary that runs;
# - every suite of build-cross/ARCH, each program of the target run by qemu-user (the vm suite:
#   the static clockfix in ARM guests under qemu-system); for armhf, the clockfix of the cli and
#   image suites under strace, as tests/run.sh does natively. With MESON-TEST-ARGs (--suite unit,
#   ...) meson test runs what they say.
# Each run ends with a line "ARCH: N passed, N failed". Called by tests/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 armhf|arm64 [MESON-TEST-ARG...]" >&2; exit 2; }
arch=$1
shift
case $arch in
armhf | arm64) ;;
*) echo "$0: $arch: not a target of cross/ (armhf, arm64)" >&2; exit 2 ;;
esac
. tests/lib/deps.sh
# (of CROSS_PACKAGES, what ARCH needs)
install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "crossbuild-essential-$arch" qemu-user-static qemu-system-arm

bash cross/sysroot.sh "$arch" "build-cross/sysroot-$arch"
cross=(--cross-file "build-cross/sysroot-$arch/sysroot.ini" --cross-file "cross/$arch.ini")
for variant in "" -static; do
        dir=build-cross/$arch$variant
        opts=(-Dwerror=true)
        [ -z "$variant" ] || opts+=(-Dstatic=true)
        if [ -d "$dir" ]; then
                meson setup --wipe "$dir" "${cross[@]}" "${opts[@]}" >/dev/null
        else
                meson setup "$dir" "${cross[@]}" "${opts[@]}" >/dev/null
        fi
        meson compile -C "$dir"
done

# The static build: no dynamic loader, and it runs (the wrapper names no sysroot for it).
static=build-cross/$arch-static/clockfix
readelf=$(sed -n "s/^readelf = '\(.*\)'$/\1/p" "cross/$arch.ini")
! "$readelf" -l "$static" | grep -q 'Requesting program interpreter' ||
        { echo "$arch: $static is not static" >&2; exit 1; }
qemu=$(sed -n "s/^wrapper = \['\([^']*\)'.*/\1/p" "cross/$arch.ini")
"$qemu" "$static" --version

# count WHAT: "WHAT: N passed, N failed", from meson's own record of the last run
count() {
        jq -rs --arg what "$1" \
                'map(select(type == "object" and has("result"))) |
                "\($what): \(map(select(.result == "OK")) | length) passed, \(map(select(.result != "OK")) | length) failed"' \
                "build-cross/$arch/meson-logs/testlog.json"
}
# Never write, on the target too: on armhf, every clockfix the cli and image suites run is under
# strace (of qemu-user, which makes the program's calls and, for itself, only reads): its 32-bit
# time_t and file offsets are where the calls differ from amd64's. arm64's are amd64's: there they
# run as they are.
trace=()
[ "$arch" != armhf ] || trace=(env CLOCKFIX_TRACE_WRITES=1)
rc=0
"${trace[@]}" meson test -C "build-cross/$arch" --print-errorlogs "$@" || rc=$?
count "$arch${trace[*]:+, clockfix under strace}"
exit $rc
