#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The shape of src/ a newcomer can hold: no function over 80 lines, no file over 600, and includes
# that go one way between modules (a module is NAME.c with NAME.h; no cycle among them).
. "$SRCDIR/tests/lib-base.sh"
cd "$SRCDIR"

FUNCTION_MAX=80
FILE_MAX=600

# Functions: the line that names one (column 0, a '(' and no ';') to its closing brace at column 0.
long=$(awk -v max="$FUNCTION_MAX" '
        FNR == 1 { inside = 0 }
        /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { name = $0; start = FNR }
        /^\{/ { inside = 1; from = start }
        /^\}/ && inside { n = FNR - from + 1; if (n > max) printf "%s:%d: %d lines: %s\n", FILENAME, from, n, name; inside = 0 }
' src/*.c)
[ -z "$long" ] || fail "functions over $FUNCTION_MAX lines (split them into named steps):
$long"

big=$(wc -l src/*.c src/*.h | awk -v max="$FILE_MAX" '$2 != "total" && $1 > max { print $2 ": " $1 " lines" }')
[ -z "$big" ] || fail "files over $FILE_MAX lines (split along a seam):
$big"

# The include graph between modules: an edge A B for each A.c or A.h that includes "B.h".
edges=$(for f in src/*.c src/*.h; do
        from=$(basename "${f%.*}")
        sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$f" | while read -r to; do
                [ "$from" = "$to" ] || echo "$from $to"
        done
done)
[ -n "$edges" ] || fail "no includes found in src/: the check read nothing"
if ! out=$(tsort <<<"$edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
        fail "the includes of src/ form a cycle (a module includes one that includes it back):
$out"
fi
echo ok
