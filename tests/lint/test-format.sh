#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every C file is formatted as .clang-format says.
set -euo pipefail
cd "$SRCDIR"
mapfile -t files < <(find src tests -name '*.[ch]' | sort)
[ ${#files[@]} -gt 10 ] || { echo "FAIL: found only ${#files[@]} C files" >&2; exit 1; }
clang-format --dry-run --Werror "${files[@]}"
echo "ok: ${#files[@]} files"
