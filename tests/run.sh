#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian 12 machine, as root: installs what the build and the
# tests need, builds with warnings as errors in build-test/, and runs every suite.
# This is the README's second command and what CI (.ci/run) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/deps.sh
install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"

if [ -d build-test ]; then
        meson setup --wipe build-test -Dwerror=true
else
        meson setup build-test -Dwerror=true
fi
meson compile -C build-test
meson test -C build-test --print-errorlogs "$@"
