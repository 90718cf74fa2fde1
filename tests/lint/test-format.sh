#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every C file is formatted as .clang-format says.
. "$SRCDIR/tests/lib/lib-base.sh"
cd "$SRCDIR"
mapfile -t files < <(find src tests -name '*.[ch]' | sort)
[ ${#files[@]} -gt 10 ] || fail "found only ${#files[@]} C files"
clang-format --dry-run --Werror "${files[@]}"
echo "ok: ${#files[@]} files"
