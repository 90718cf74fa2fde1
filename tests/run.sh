#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian 12 machine, as root: installs what the build and the
# tests need, builds with warnings as errors in build-test/, and runs every suite, and the cli and
# image suites again with clockfix under strace (nothing opened for writing); then builds for
# armhf and arm64 and runs every suite there under emulation, the ARM guests' boots included
# (tests/cross.sh); then builds again in build-asan/ with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs every suite but the VM boots there (any invalid access, leak
# or undefined behaviour fails the test that met it); then fuzzes each fuzz target for
# FUZZ_SECONDS (60) with libFuzzer (tests/fuzz/run.sh); then builds the Debian package, lints,
# installs, runs and purges it (tests/deb.sh).
# Arguments go to the first `meson test` (a suite, a test), and then the rest is left out.
# This is the README's second command and what CI (.ci/run) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/deps.sh
started=$(date +%s)
# stage WHAT: how long the run has taken so far, after each stage, for the log
stage() {
        echo "== $1 done: $(($(date +%s) - started)) s since the start"
}

install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${CROSS_PACKAGES[@]}"
stage packages

# setup DIR OPTION...: a fresh meson build directory
setup() {
        local dir=$1
        shift
        if [ -d "$dir" ]; then
                meson setup --wipe "$dir" -Dwerror=true "$@"
        else
                meson setup "$dir" -Dwerror=true "$@"
        fi
}

setup build-test
meson compile -C build-test
meson test -C build-test --print-errorlogs "$@"
[ $# -eq 0 ] || exit 0
stage "amd64: every suite"

# Never write: the cli and image suites once more with every clockfix they run under strace (cf
# in tests/lib.sh): an open for writing, creating or truncating, or a write but to stdout and
# stderr, fails the test.
CLOCKFIX_TRACE_WRITES=1 meson test -C build-test --print-errorlogs --no-rebuild --suite cli --suite image
stage "amd64: cli and image under strace"

# The boards: built for armhf (a 32-bit time_t) and arm64, dynamic and static, and every suite run
# under emulation, ARM guests included (tests/cross.sh).
# A failure of one is said at the end, after the others and the stages below have run.
failed=()
bash tests/cross.sh armhf || failed+=(armhf)
stage armhf
bash tests/cross.sh arm64 || failed+=(arm64)
stage arm64

setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
meson compile -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        meson test -C build-asan --print-errorlogs --no-suite vm
stage "ASan and UBSan"

bash tests/fuzz/run.sh "${FUZZ_SECONDS:-60}"
stage fuzzing

# Last, as it installs and purges a package on this machine: the Debian package (tests/deb.sh).
bash tests/deb.sh
stage "Debian package"

[ ${#failed[@]} -eq 0 ] || { echo "FAILED: tests/cross.sh ${failed[*]} (see above)" >&2; exit 1; }
