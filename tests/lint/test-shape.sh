#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The shape of src/ a newcomer can hold: its folders are layers, each including only from itself and
# the layers below it (basic, jbd2, disk, core, daemon, cli, from the bottom up), by the layer's name
# ("basic/log.h"); no function over 80 lines, no file over 600; includes that go one way between
# modules (a module is NAME.c with NAME.h; no cycle among them). Each rule is checked to fail on a
# tree that breaks it.
. "$SRCDIR/tests/lib/lib-base.sh"
cd "$SRCDIR"

FUNCTION_MAX=80
FILE_MAX=600
# From the bottom up: a layer includes from itself and those before it, never from one after it.
LAYERS=(basic jbd2 disk core daemon cli)

# shape DIR: what is wrong with the tree of sources DIR (a src/), one line each; nothing when all is well
shape() {
        local dir=$1 files f layer rank from to
        declare -A rank_of=()
        for rank in "${!LAYERS[@]}"; do
                rank_of[${LAYERS[rank]}]=$rank
        done
        mapfile -t files < <(cd "$dir" && find . -name '*.[ch]' | sed 's|^\./||' | sort)
        [ ${#files[@]} -gt 0 ] || { echo "$dir: no sources found"; return; }

        # Every source in a layer's folder.
        for f in "${files[@]}"; do
                layer=${f%%/*}
                [[ "$f" == */* ]] && [ -n "${rank_of[$layer]:-}" ] ||
                        echo "$f: not in the folder of a layer (${LAYERS[*]})"
        done

        # Functions: the line that names one (column 0, a '(' and no ';') to its closing brace at column 0.
        (cd "$dir" && awk -v max="$FUNCTION_MAX" '
                FNR == 1 { inside = 0 }
                /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { name = $0; start = FNR }
                /^\{/ { inside = 1; from = start }
                /^\}/ && inside { n = FNR - from + 1; if (n > max) printf "%s:%d: a function of %d lines (at most %d): %s\n", FILENAME, from, n, max, name; inside = 0 }
        ' "${files[@]}")
        (cd "$dir" && wc -l "${files[@]}") | awk -v max="$FILE_MAX" '$2 != "total" && $1 > max { print $2 ": " $1 " lines (at most " max ")" }'

        # Includes: by the layer's name, from the same layer or one below.
        local edges=""
        for f in "${files[@]}"; do
                layer=${f%%/*}
                from=${f%.*}
                while read -r to; do
                        [ -n "$to" ] || continue
                        if [ "$to" == config.h ]; then
                                continue
                        fi
                        if [[ "$to" != */* ]] || [ -z "${rank_of[${to%%/*}]:-}" ]; then
                                echo "$f: #include \"$to\": not by a layer's name (\"basic/log.h\")"
                                continue
                        fi
                        [ "${rank_of[${to%%/*}]}" -le "${rank_of[$layer]:-0}" ] ||
                                echo "$f: #include \"$to\": $layer may not include from ${to%%/*}, a layer above it"
                        [ "${to%.h}" == "$from" ] || edges+="$from ${to%.h}"$'\n'
                done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$dir/$f")
        done
        # The include graph between modules: no cycle.
        local out
        if ! out=$(tsort <<<"$edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
                echo "the includes form a cycle (a module includes one that includes it back): ${out//$'\n'/ }"
        fi
}

problems=$(shape src)
[ -z "$problems" ] || fail "the shape of src/:
$problems"

# Each rule fails on a tree that breaks it: a copy of src/ with one fault at a time.
tmp_dir /tmp/clockfix-shape.XXXXXX
# broken WHAT EXPECTED COMMAND: in a fresh copy of src/, COMMAND (run there) breaks a rule; shape
# must then say EXPECTED (a pattern)
broken() {
        rm -rf "$TMP/src"
        cp -r src "$TMP/src"
        (cd "$TMP/src" && eval "$3")
        grep -q -- "$2" <<<"$(shape "$TMP/src")" || fail "the check misses $1"
}
broken "an include from a layer above" "basic may not include from cli" \
        'sed -i "0,/^#include \"basic\//s//#include \"cli\/cli.h\"\n&/" basic/log.c'
broken "an include not by a layer's name" "not by a layer's name" \
        'sed -i "0,/^#include \"basic\/log.h\"/s//#include \"log.h\"/" disk/rootdev.c'
broken "a source outside the layers" "not in the folder of a layer" 'mkdir misc && cp basic/utf8.c misc/'
broken "a cycle" "form a cycle" 'echo "#include \"basic/log.h\"" >>basic/stat-util.h'
broken "a long function" "a function of" \
        'printf "int long_one(void)\n{\n%s\n}\n" "$(printf "        (void)0;\n%.0s" $(seq 90))" >>basic/utf8.c'
broken "a long file" "lines (at most" 'seq 700 | sed "s|.*|/* & */|" >>basic/utf8.c'
echo "ok: ${#LAYERS[@]} layers"
