#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian 12 (or 13) machine, as root: installs what the build and the
# tests need, builds with warnings as errors in build-test/, and runs every suite, the clockfix of
# the cli and image suites under strace (nothing opened for writing); then builds
# everything, the tests included, with clang in build-clang/ (warnings as errors) and runs its
# unit and image suites (2.5 minutes; the cli suite would add 4 more); then builds for armhf and
# arm64 and runs every suite there under emulation, the ARM guests' boots included
# (tests/cross.sh); then builds again in build-asan/ with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs every suite but the VM boots and lint there (any invalid
# access, leak or undefined behaviour fails the test that met it); then fuzzes each fuzz target for
# FUZZ_SECONDS (25) with libFuzzer (tests/fuzz/run.sh); then builds the Debian package, lints,
# installs, runs and purges it (tests/deb.sh); and before that, Debian 13 in a chroot of it
# (tests/release.sh trixie: the builds, the quick suites, a boot, armhf and the package there).
# Every stage runs whatever became of the ones before; a summary at the end gives each stage's
# result and time, after each failed test's name and the end of its output, and the exit status is
# non-zero if any failed.
# Arguments go to the first `meson test` (a suite, a test), and then the rest is left out.
# This is the README's second command and what CI (.ci/run) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/deps.sh
. tests/lib/stages.sh

# Without the packages nothing else can run.
install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${CROSS_PACKAGES[@]}"

build_test() { setup build-test && meson compile -C build-test; }
stage "amd64: build" build_test
# Never write: every clockfix the cli and image suites run (cf in tests/lib/lib.sh) runs under
# strace, and an open for writing, creating or truncating, or a write but to stdout and stderr,
# fails the test. (The ASan and cross stages run those suites without strace.)
stage "amd64: every suite, clockfix under strace" env CLOCKFIX_TRACE_WRITES=1 \
        meson test -C build-test --print-errorlogs --no-rebuild "$@"
if [ $# -gt 0 ]; then
        summary
        [ "$STAGES_FAILED" -eq 0 ]
        exit
fi

# clang rejects what gcc lets pass (a const object as a constant expression, a sign mismatch in a
# system header's macro): every target built with it, and the suites of the code's logic run.
build_clang() { CC=clang setup build-clang && meson compile -C build-clang; }
stage "clang: build" build_clang
stage "clang: unit and image" meson test -C build-clang --print-errorlogs --no-rebuild --suite unit --suite image \
        --num-processes "$WAITING_JOBS"

# The boards: built for armhf (a 32-bit time_t) and arm64, dynamic and static, and every suite run
# under emulation, ARM guests included (tests/cross.sh).
stage armhf env MESON_TESTTHREADS="$WAITING_JOBS" bash tests/cross.sh armhf
stage arm64 env MESON_TESTTHREADS="$WAITING_JOBS" bash tests/cross.sh arm64

# The sanitizers watch the program: the lint suite, which reads the sources and the build's own
# options, ran in the amd64 stage.
build_asan() { setup build-asan -Db_sanitize=address,undefined -Db_lundef=false && meson compile -C build-asan; }
stage "ASan and UBSan: build" build_asan
stage "ASan and UBSan: every suite but vm and lint" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 meson test -C build-asan --print-errorlogs --no-rebuild --no-suite vm \
        --no-suite lint --num-processes "$WAITING_JOBS"

stage fuzzing bash tests/fuzz/run.sh "${FUZZ_SECONDS:-25}"

# Debian 13 "trixie" on this machine, in a chroot of it (tests/release.sh): builds with gcc and
# clang, the unit, image, cli and lint suites, a systemd boot of a Debian 13 root with its kernel
# and initramfs-tools, the armhf cross build's unit and image suites, and the package.
stage "Debian 13" bash tests/release.sh trixie

# Last, as it installs and purges a package on this machine: the Debian package (tests/deb.sh).
stage "Debian package" bash tests/deb.sh

summary
[ "$STAGES_FAILED" -eq 0 ]
