#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# replay.sh TARGET DIR...: runs a fuzz target (built with driver.c) once on every file in the
# directories: the seed corpus and the inputs that once made a target crash. Any crash fails.
. "$(dirname "$0")/../lib/lib-base.sh"
target=$1
shift
mapfile -t inputs < <(find "$@" -type f 2>/dev/null | sort)
[ ${#inputs[@]} -gt 0 ] || fail "no input in $*"
# In a cross build, through the exe wrapper (qemu-user) that meson names.
"${EXE_WRAPPER[@]}" "$target" "${inputs[@]}"
